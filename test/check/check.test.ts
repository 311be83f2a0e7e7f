/** docs/spec-check.md: every row of the edit table, the limits, the load and custom checks. */
import { readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { checkSpec } from "../../src/check/check.js";
import { copyDir, exampleAdapter, exampleTemplate, expectedIsolation, noBwrap, skipBecause, testdir } from "../helpers.js";

const candidate = (overrides = {}) => copyDir(exampleAdapter, overrides);

async function editManifest(dir: string, edit: (doc: ReturnType<typeof parseDocument>) => void) {
  const file = join(dir, "adapter.yaml");
  const doc = parseDocument(await readFile(file, "utf8"));
  edit(doc);
  await writeFile(file, doc.toString());
}

describe("checkSpec: the edit table", () => {
  it("passes the bundled example, with the tool imported and the custom check run in bwrap", async () => {
    const result = await checkSpec(exampleAdapter, exampleTemplate);
    expect(result).toEqual({ passed: true, issues: [], isolation: expectedIsolation });
  });

  it("allows rewriting ADAPTER.md within format and size", async () => {
    const dir = await candidate({ "ADAPTER.md": "# Counting words\n\nAlways call count_words; never guess.\n" });
    expect((await checkSpec(dir, exampleTemplate)).issues).toEqual([]);
  });

  it("allows editing an agent that keeps its name and description", async () => {
    const dir = await candidate({
      "agents/reviewer.md":
        "---\nname: reviewer\ndescription: Reviews a word count against the source text and reports any mismatch.\n---\nBe brief.\n",
    });
    expect((await checkSpec(dir, exampleTemplate)).passed).toBe(true);
  });

  it("allows adding and editing skills within the declared limits", async () => {
    const dir = await candidate({
      "skills/strip-code/SKILL.md": "---\nname: strip-code\ndescription: Ignore fenced code.\n---\nSkip code blocks.\n",
      "skills/strip-code/examples/one.txt": "a b c\n",
      "skills/verify-output/SKILL.md": "---\nname: verify-output\ndescription: Re-count.\n---\nCount twice.\n",
    });
    expect((await checkSpec(dir, exampleTemplate)).issues).toEqual([]);
  });

  it("rejects an edited fixed file", async () => {
    const dir = await candidate({ "tools.ts": "export const countWords = () => ({ count: 0 });\n" });
    expect((await checkSpec(dir, exampleTemplate)).issues).toEqual([
      { path: "tools.ts", check: "fixed", problem: "fixed file differs from the template" },
    ]);
  });

  it("rejects a deleted fixed file", async () => {
    const dir = await candidate();
    await rm(join(dir, "EVOLVER.md"));
    expect((await checkSpec(dir, exampleTemplate)).issues).toEqual([
      { path: "EVOLVER.md", check: "fixed", problem: "fixed file is missing" },
    ]);
  });

  it("rejects a deleted ADAPTER.md as required", async () => {
    const dir = await candidate();
    await rm(join(dir, "ADAPTER.md"));
    const { passed, issues } = await checkSpec(dir, exampleTemplate);
    expect(passed).toBe(false);
    expect(issues).toContainEqual({ path: "ADAPTER.md", check: "required", problem: "required file is missing" });
  });

  it("rejects an undeclared file", async () => {
    const dir = await candidate({ "notes/plan.txt": "hidden instructions\n" });
    expect((await checkSpec(dir, exampleTemplate)).issues).toEqual([
      { path: "notes/plan.txt", check: "undeclared", problem: "outside the learnable paths" },
    ]);
  });

  it.each([
    ["template", (doc: ReturnType<typeof parseDocument>) => doc.setIn(["template", "version"], 2)],
    ["exports", (doc: ReturnType<typeof parseDocument>) => doc.setIn(["exports", "tools", 0, "description"], "Other.")],
    ["structure", (doc: ReturnType<typeof parseDocument>) => doc.setIn(["structure", "fixed"], ["EVOLVER.md"])],
    ["check", (doc: ReturnType<typeof parseDocument>) => doc.set("check", "check.ts:other")],
    ["evolver_tools", (doc: ReturnType<typeof parseDocument>) => doc.set("evolver_tools", [])],
  ])("rejects a changed fixed manifest section: %s", async (section, edit) => {
    const dir = await candidate();
    if (section === "evolver_tools") {
      await editManifest(dir, (doc) => doc.delete("evolver_tools"));
    } else await editManifest(dir, edit);
    const { issues } = await checkSpec(dir, exampleTemplate);
    expect(issues).toContainEqual({
      path: `adapter.yaml#${section}`,
      check: "manifest",
      problem: `fixed manifest section '${section}' differs from the template`,
    });
  });

  it("allows changing the version and description (not fixed sections)", async () => {
    const dir = await candidate();
    await editManifest(dir, (doc) => {
      doc.set("version", "0.2.0");
      doc.set("description", "Counts words carefully.");
    });
    expect((await checkSpec(dir, exampleTemplate)).passed).toBe(true);
  });
});

describe("checkSpec: learnable limits and formats", () => {
  it("rejects a learnable file over max_bytes", async () => {
    const dir = await candidate({ "ADAPTER.md": `# Big\n\ncount_words\n${"x".repeat(17_000)}\n` });
    const { issues } = await checkSpec(dir, exampleTemplate);
    expect(issues).toEqual([
      { path: "ADAPTER.md", check: "size", problem: "17020 bytes, over the limit of 16384 (ADAPTER.md)" },
    ]);
  });

  it("rejects more files than max_files", async () => {
    const agents = Object.fromEntries(
      Array.from({ length: 9 }, (_, i) => [
        `agents/a${i}.md`,
        `---\nname: a${i}\ndescription: Agent ${i}.\n---\nDo ${i}.\n`,
      ]),
    );
    const dir = await candidate(agents);
    const { issues } = await checkSpec(dir, exampleTemplate);
    expect(issues).toEqual([{ path: "agents/*.md", check: "count", problem: "10 files match, over the limit of 8" }]);
  });

  it("rejects an agent without a description or body", async () => {
    const dir = await candidate({ "agents/reviewer.md": "---\nname: reviewer\n---\n\n" });
    const { issues } = await checkSpec(dir, exampleTemplate);
    // Once each: the reader (agents/ is the export folder) and the learnable rule (format agent) agree.
    expect(issues).toEqual([
      { path: "agents/reviewer.md", check: "format", problem: "frontmatter 'description' is missing or empty" },
      { path: "agents/reviewer.md", check: "format", problem: "body (the agent's instructions) is empty" },
    ]);
  });

  it("reports a skill's format problem once, not once from the reader and again from the rule", async () => {
    const dir = await candidate({ "skills/tidy/SKILL.md": "---\nname: tidy\n---\nTidy up.\n" });
    expect((await checkSpec(dir, exampleTemplate)).issues).toEqual([
      { path: "skills/tidy/SKILL.md", check: "format", problem: "frontmatter 'description' is missing or empty" },
    ]);
  });

  it("rejects a skill whose folder name differs from its name", async () => {
    const dir = await candidate({
      "skills/count-twice/SKILL.md": "---\nname: verify-twice\ndescription: Count twice.\n---\nTwice.\n",
    });
    const { issues } = await checkSpec(dir, exampleTemplate);
    expect(issues).toContainEqual({
      path: "skills/count-twice/SKILL.md",
      check: "format",
      problem: "skill name 'verify-twice' differs from its folder name 'count-twice'",
    });
  });

  it("rejects a skill description over 1024 chars and a bad skill name", async () => {
    const dir = await candidate({
      "skills/Bad--Name/SKILL.md": `---\nname: Bad--Name\ndescription: ${"d".repeat(1025)}\n---\nx\n`,
    });
    const problems = (await checkSpec(dir, exampleTemplate)).issues.map((issue) => issue.problem);
    expect(problems).toContain("description is 1025 chars, over the limit of 1024");
    expect(problems).toContain("skill name 'Bad--Name' must be 1-64 chars of a-z, 0-9 and single hyphens, not at either end");
  });

  it("rejects invalid UTF-8 in a markdown file", async () => {
    const dir = await candidate({ "ADAPTER.md": new Uint8Array([0x23, 0x20, 0xc3, 0x28, 0x0a]) });
    const { issues } = await checkSpec(dir, exampleTemplate);
    expect(issues).toContainEqual({ path: "ADAPTER.md", check: "format", problem: "is not valid UTF-8 text (format markdown)" });
  });
});

describe("checkSpec: the load check and the custom check", () => {
  it("reports a custom check's issues", async () => {
    const dir = await candidate({ "ADAPTER.md": "No heading and no tool name.\n" });
    expect((await checkSpec(dir, exampleTemplate)).issues).toEqual([
      { path: "ADAPTER.md", check: "custom", problem: "needs a top-level '# ' heading" },
      { path: "ADAPTER.md", check: "custom", problem: "must tell the agent about the count_words tool" },
    ]);
  });

  const rootWithCheck = (checkSource: string) =>
    copyDir(exampleTemplate, { "check.ts": checkSource });

  it("turns a crashing checker into an issue naming the step", async () => {
    const root = await rootWithCheck("export function check() { process.kill(process.pid, 'SIGKILL'); }\n");
    const adapter = await copyDir(exampleAdapter);
    const { issues } = await checkSpec(adapter, root);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ path: "check.ts", check: "custom" });
    // Inside bwrap's PID namespace the kill shows as exit 137.
    expect(issues[0].problem).toMatch(/^check crashed \((exit 137|SIGKILL)\) while running custom check check\.ts:check$/);
  });

  it("reports a checker that calls process.exit instead of exiting", async () => {
    const root = await rootWithCheck("export function check() { process.exit(3); }\n");
    const { issues } = await checkSpec(await copyDir(exampleAdapter), root);
    expect(issues).toEqual([
      { path: "check.ts", check: "custom", problem: "custom check check.ts:check failed: it called process.exit(3)" },
    ]);
  });

  it("turns a throwing checker into an issue", async () => {
    const root = await rootWithCheck("export function check() { throw new Error('boom'); }\n");
    const { issues } = await checkSpec(await copyDir(exampleAdapter), root);
    expect(issues).toEqual([{ path: "check.ts", check: "custom", problem: "custom check check.ts:check failed: boom" }]);
  });

  it("turns a bad return value into an issue", async () => {
    const root = await rootWithCheck("export const check = () => 42;\n");
    const { issues } = await checkSpec(await copyDir(exampleAdapter), root);
    expect(issues).toEqual([
      { path: "check.ts", check: "custom", problem: "custom check check.ts:check returned 42, not a list of issues" },
    ]);
  });

  it("accepts { issues } from a checker", async () => {
    const root = await rootWithCheck("export const check = async () => ({ issues: [{ path: 'ADAPTER.md', problem: 'too vague' }] });\n");
    const { issues } = await checkSpec(await copyDir(exampleAdapter), root);
    expect(issues).toEqual([{ path: "ADAPTER.md", check: "custom", problem: "too vague" }]);
  });

  it("stops a checker that runs past the limit", async () => {
    const root = await rootWithCheck("export const check = () => new Promise(() => { setInterval(() => {}, 1000); });\n");
    const { issues } = await checkSpec(await copyDir(exampleAdapter), root, { timeoutMs: 1500 });
    expect(issues).toEqual([
      { path: "check.ts", check: "custom", problem: "check timed out after 1500 ms while running custom check check.ts:check" },
    ]);
  });

  it.skipIf(skipBecause(noBwrap))("isolates the checker from the network with bwrap, and says when it did not", async () => {
    const server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const probe =
        "import { connect } from 'node:net';\n" +
        "export const check = () => new Promise((resolve) => {\n" +
        `  const socket = connect(${port}, '127.0.0.1');\n` +
        "  socket.on('error', () => resolve([]));\n" +
        "  socket.on('connect', () => { socket.destroy(); resolve([{ path: 'net', problem: 'reachable' }]); });\n" +
        "});\n";
      const root = await rootWithCheck(probe);
      const adapter = await copyDir(exampleAdapter);
      // Inside bwrap's own network namespace the test's server is out of reach.
      expect(await checkSpec(adapter, root)).toEqual({ passed: true, issues: [], isolation: "bwrap" });
      // Without isolation the same checker reaches it.
      expect(await checkSpec(adapter, root, { isolate: false })).toEqual({
        passed: false,
        issues: [{ path: "net", check: "custom", problem: "reachable" }],
        isolation: "none",
      });
    } finally {
      server.close();
    }
  });

  it("reports a tool entrypoint naming a missing function or file", async () => {
    const root = await testdir({
      "adapter.yaml": [
        "contract: 1.0.0",
        "name: t",
        "version: 0.1.0",
        "description: d",
        "exports:",
        "  tools:",
        "    - { name: a, description: a, entrypoint: 'tools.ts:nothere', input_schema: { type: object } }",
        "    - { name: b, description: b, entrypoint: 'gone.ts:f', input_schema: { type: object } }",
        "structure: { fixed: [tools.ts] }",
      ].join("\n"),
      "ADAPTER.md": "# T\n",
      "tools.ts": "export const here = () => 1;\n",
    });
    const { issues } = await checkSpec(root, root);
    expect(issues).toEqual([
      { path: "gone.ts", check: "load", problem: "tool 'b': entrypoint file gone.ts not found" },
      { path: "tools.ts", check: "load", problem: "tool 'a': tools.ts:nothere: tools.ts has no exported function 'nothere'" },
    ]);
  });
});
