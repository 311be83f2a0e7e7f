/** The command tree loads only what the command being run needs, and stays the same tree. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram, registrations } from "../../src/cli/program.js";
import { repoRoot } from "../helpers.js";
import { runCli } from "./run-cli.js";

const version = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
const names = (program: Command) => program.commands.map((command) => command.name());

describe("the command tree", () => {
  it("lists, per command module, exactly the top-level commands it adds", async () => {
    for (const registration of registrations) {
      const program = new Command("hermit");
      (await registration.load()).register(program, async () => undefined);
      expect(names(program)).toEqual(registration.commands);
    }
  });

  it("builds only the module of the command being run; all of them for help or an unknown command", async () => {
    expect(names(await buildProgram(["node", "hermit", "status", "--workspace", "w"]))).toEqual(["deploy", "status", "undeploy", "convert"]);
    expect(names(await buildProgram(["node", "hermit", "spec", "check", "--help"]))).toEqual(["spec"]);
    const all = registrations.flatMap((registration) => registration.commands);
    expect(names(await buildProgram(["node", "hermit", "--help"]))).toEqual(all);
    expect(names(await buildProgram(["node", "hermit", "deplyo"]))).toEqual(all);
    expect(names(await buildProgram())).toEqual(all);
  });

  it("prints the version with --version and -V, and still suggests a mistyped command", async () => {
    for (const flag of ["--version", "-V"]) expect(await runCli([flag])).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
    const typo = await runCli(["deplyo"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("(Did you mean deploy?)");
  });
});
