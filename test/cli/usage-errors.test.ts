/** Usage errors through the built CLI: short, exit 2, and they point at the likely typo. */
import { describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

describe("usage errors", () => {
  it("name a mistyped required option as the typo, not as a missing option", async () => {
    const run = await runCli(["deploy", "--adaptor", "examples/file_adapter", "--workspace", "/tmp/never-written", "--host", "codex"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("error: unknown option '--adaptor'\n(Did you mean --adapter?)\n(add --help for usage)\n");
    expect(run.stdout).toBe("");
  });

  it("still say a required option is missing when nothing like it was typed", async () => {
    const run = await runCli(["deploy", "--workspace", "/tmp/never-written", "--host", "codex"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("error: required option '--adapter <dir>' not specified\n(add --help for usage)\n");
  });

  it("suggest the closest option and command, and with --json print one error document", async () => {
    const command = await runCli(["deploi"]);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain("(Did you mean deploy?)");
    const json = await runCli(["deploy", "--adaptor", "x", "--workspace", "/tmp/never-written", "--host", "codex", "--json"]);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: "USAGE", message: "unknown option '--adaptor'\n(Did you mean --adapter?)" } });
  });
});
