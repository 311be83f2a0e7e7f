/** `hermit spec check` as a user runs it: output formats and exit codes. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { copyDir, exampleAdapter, exampleTemplate, isolationText, repoRoot, testdir } from "../helpers.js";
import { cliPath, runCli } from "./run-cli.js";

describe("hermit spec check", () => {
  it("exits 0 and says passed for the bundled example", async () => {
    const run = await runCli(["spec", "check", "examples/file_adapter", "--root", "templates/file_adapter"]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toBe(`examples/file_adapter: passed (tools and custom check ${isolationText})\n`);
  });

  it("prints exactly { passed, issues } with --json", async () => {
    const run = await runCli(["spec", "check", exampleAdapter, "--root", exampleTemplate, "--json"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ passed: true, issues: [] });
  });

  it("exits 1 and lists issues as 'path: problem (check)'", async () => {
    const dir = await copyDir(exampleAdapter, { "tools.ts": "export {};\n", "scratch.txt": "x" });
    const human = await runCli(["spec", "check", dir, "--root", exampleTemplate]);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe(
      [
        "tools.ts: fixed file differs from the template (fixed)",
        "scratch.txt: outside the learnable paths (undeclared)",
        "tools.ts: tool 'count_words': tools.ts:countWords: tools.ts has no exported function 'countWords' (load)",
        `3 issues found (tools and custom check ${isolationText})`,
        "",
      ].join("\n"),
    );
    const json = await runCli(["spec", "check", dir, "--root", exampleTemplate, "--json"]);
    expect(json.code).toBe(1);
    const document = JSON.parse(json.stdout);
    expect(Object.keys(document)).toEqual(["passed", "issues"]);
    expect(document.passed).toBe(false);
    expect(document.issues).toHaveLength(3);
    expect(document.issues[0]).toEqual({ path: "tools.ts", check: "fixed", problem: "fixed file differs from the template" });
  });

  it("exits 2 naming the file for malformed YAML", async () => {
    const dir = await testdir({ "adapter.yaml": "contract: 1.0.0\nname: [x\n", "ADAPTER.md": "# x\n" });
    const run = await runCli(["spec", "check", dir, "--root", exampleTemplate, "--json"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`^hermit: error YAML_SYNTAX: ${dir}/adapter.yaml:\\d+: YAML syntax error`));
    // --json still gets one document on stdout
    const document = JSON.parse(run.stdout);
    expect(document.error).toMatchObject({ code: "YAML_SYNTAX", path: `${dir}/adapter.yaml` });
    expect(document.error.message).toMatch(/adapter.yaml:\d+: YAML syntax error/);
  });

  it("exits 2 for an unreadable directory and for an unknown contract major", async () => {
    const missing = await runCli(["spec", "check", "/nonexistent", "--root", exampleTemplate]);
    expect(missing).toMatchObject({ code: 2, stdout: "" });
    expect(missing.stderr).toBe("hermit: error INPUT_NOT_FOUND: /nonexistent: adapter directory not found\n");
    const dir = await testdir({ "adapter.yaml": "contract: 3.0.0\nname: x\nversion: '1'\ndescription: d\n", "ADAPTER.md": "# x\n" });
    const major = await runCli(["spec", "check", dir, "--root", exampleTemplate]);
    expect(major.code).toBe(2);
    expect(major.stderr).toContain("CONTRACT_MAJOR");
    expect(major.stderr).toContain("adapter contract 3.0.0 is not compatible with hermit's contract 1.0.0");
  });

  it("exits 2 on a usage error", async () => {
    const run = await runCli(["spec", "check", exampleAdapter]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("required option '--root <template>' not specified");
  });

  it("prints a usage error as a JSON document with --json", async () => {
    const run = await runCli(["spec", "check", exampleAdapter, "--json"]);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      error: { code: "USAGE", message: "required option '--root <template>' not specified" },
    });
  });

  it("exits quietly when the reader of stdout goes away (EPIPE)", async () => {
    // 3000 issues: far more output than a pipe holds, so the write after `head` exits fails.
    const extra = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`notes/n${i}.txt`, "x"]));
    const dir = await copyDir(exampleAdapter, extra);
    const { spawnSync } = await import("node:child_process");
    const piped = spawnSync("sh", ["-c", `node ${cliPath} spec check ${dir} --root ${exampleTemplate} | head -c 5`], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    expect(piped.stdout).toBe("notes");
    expect(piped.stderr).toBe("");
  });

  it("answers --version and --help", async () => {
    const version = await runCli(["--version"]);
    expect(version).toMatchObject({ code: 0, stdout: `${JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).version}\n` });
    const help = await runCli(["spec", "check", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: hermit spec check [options] <adapter>");
    expect(help.stdout).toContain("--root <template>");
  });
});
