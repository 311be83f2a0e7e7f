/** The commands through the built CLI: output, --json, exit codes (docs/cli.md). */
import { execFile } from "node:child_process";
import { appendFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { hermitCli } from "../../src/package-root.js";
import { exampleAdapter, tempDir } from "../helpers.js";
import { fingerprint } from "./fixtures.js";

const run = promisify(execFile);

async function hermit(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [hermitCli, ...args], { encoding: "utf8" });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("hermit deploy", () => {
  it("--dry-run prints the plan table and writes nothing; then deploys, then is up to date", async () => {
    const workspace = join(await tempDir(), "ws");
    const dry = await hermit("deploy", "--adapter", exampleAdapter, "--workspace", workspace, "--host", "codex", "--dry-run");
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`Plan for file-example 0.1.0 → codex in ${workspace} (dry run: nothing written)`);
    expect(dry.stdout).toMatch(/ {2}create {5}AGENTS\.md {2}\(managed block\)\n {2}create {5}\.agents\/skills\/verify-output\/SKILL\.md\n/);
    expect(dry.stdout).toContain("5 create");
    await expect(fingerprint(workspace)).rejects.toThrow(/ENOENT/);

    const real = await hermit("deploy", "--adapter", exampleAdapter, "--workspace", workspace, "--host", "codex");
    expect(real.code).toBe(0);
    expect(real.stdout).toContain(`Deployed file-example 0.1.0 → codex in ${workspace}`);
    expect(real.stdout).toContain("Activation steps (hermit never edits your global configuration; do these yourself):");
    expect(real.stdout).toContain(`[projects."${workspace}"]\n       trust_level = "trusted"`);

    const again = await hermit("deploy", "--adapter", exampleAdapter, "--workspace", workspace, "--host", "codex", "--json");
    expect(again.code).toBe(0);
    const result = JSON.parse(again.stdout);
    expect(result).toMatchObject({ host: "codex", changed: false, written: [], report: { adapter: { name: "file-example" } } });
  });

  it("exit 3 on drift, with the file named; --json still prints one document", async () => {
    const workspace = await tempDir();
    await hermit("deploy", "--adapter", exampleAdapter, "--workspace", workspace, "--host", "gemini");
    await appendFile(join(workspace, ".gemini/agents/reviewer.md"), "edited\n");
    const human = await hermit("deploy", "--adapter", exampleAdapter, "--workspace", workspace, "--host", "gemini");
    expect(human.code).toBe(3);
    expect(human.stderr).toContain(`hermit: error DRIFT: ${workspace}: drift refused, nothing written:`);
    expect(human.stderr).toContain(`${workspace}/.gemini/agents/reviewer.md: generated file was edited by hand`);
    const json = await hermit("deploy", "--adapter", exampleAdapter, "--workspace", workspace, "--host", "gemini", "--json");
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: "DRIFT", drift: [{ path: ".gemini/agents/reviewer.md", forceable: true }] });
    const forced = await hermit("deploy", "--adapter", exampleAdapter, "--workspace", workspace, "--host", "gemini", "--force");
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain("Overwritten with --force:\n  .gemini/agents/reviewer.md: generated file was edited by hand");
  });

  it("exit 2 for Pi with subagents and for an unknown host", async () => {
    const workspace = await tempDir();
    const pi = await hermit("deploy", "--adapter", exampleAdapter, "--workspace", workspace, "--host", "pi");
    expect(pi.code).toBe(2);
    expect(pi.stderr).toMatch(/HOST_UNSUPPORTED: .*exports agents \(reviewer\) and Pi cannot take them: Pi has no subagents/);
    const unknown = await hermit("deploy", "--adapter", exampleAdapter, "--workspace", workspace, "--host", "vim");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown host 'vim'; valid hosts: codex, claude-code, pi, opencode, gemini");
    expect(await fingerprint(workspace)).toEqual({});
  });
});

describe("hermit status and undeploy", () => {
  it("status exits 0 clean, 1 with drift; undeploy removes the projections", async () => {
    const workspace = await tempDir();
    await hermit("deploy", "--adapter", exampleAdapter, "--workspace", workspace, "--host", "claude-code");
    const clean = await hermit("status", "--workspace", workspace);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain(`${workspace}: claude-code workspace of file-example 0.1.0`);
    expect(clean.stdout).toContain("clean: no drift");

    await appendFile(join(workspace, ".claude/agents/reviewer.md"), "my note\n");
    const drifted = await hermit("status", "--workspace", workspace, "--json");
    expect(drifted.code).toBe(1);
    expect(JSON.parse(drifted.stdout)).toMatchObject({ clean: false, drift: [{ path: ".claude/agents/reviewer.md", forceable: true }] });

    const refused = await hermit("undeploy", "--workspace", workspace);
    expect(refused.code).toBe(3);
    const removed = await hermit("undeploy", "--workspace", workspace, "--force");
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(`Undeployed claude-code projections from ${workspace}`);
    expect(await fingerprint(workspace)).toEqual({});

    const notOurs = await hermit("status", "--workspace", workspace);
    expect(notOurs.code).toBe(2);
    expect(notOurs.stderr).toContain("not a hermit workspace");
  });
});

describe("hermit convert", () => {
  it("prints the context and tool specs in OpenAI and Anthropic formats", async () => {
    const context = await readFile(join(exampleAdapter, "ADAPTER.md"), "utf8");
    const openai = await hermit("convert", "--adapter", exampleAdapter, "--format", "openai");
    expect(openai.code).toBe(0);
    const parsed = JSON.parse(openai.stdout);
    expect(parsed.context).toBe(context);
    expect(parsed.tools).toEqual([
      {
        type: "function",
        function: {
          name: "count_words",
          description: "Count the words in a text. A word is a maximal run of non-whitespace characters.",
          parameters: {
            type: "object",
            properties: { text: { type: "string", description: "The text whose words to count." } },
            required: ["text"],
            additionalProperties: false,
          },
        },
      },
    ]);
    const anthropic = JSON.parse((await hermit("convert", "--adapter", exampleAdapter, "--format", "anthropic")).stdout);
    expect(anthropic.tools).toEqual([
      { name: "count_words", description: parsed.tools[0].function.description, input_schema: parsed.tools[0].function.parameters },
    ]);
    const bad = await hermit("convert", "--adapter", exampleAdapter, "--format", "gemini");
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error.message).toBe("unknown format 'gemini'; valid formats: openai, anthropic");
  });
});
