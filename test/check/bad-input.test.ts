/** Malformed or hostile adapters: a clear error or an issue, never a crash or a write outside. */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HermitError } from "../../src/errors.js";
import { checkSpec } from "../../src/check/check.js";
import { copyDir, exampleAdapter, exampleTemplate, testdir } from "../helpers.js";

const manifest = (extra: string) =>
  `contract: 1.0.0\nname: bad\nversion: 0.1.0\ndescription: A hostile adapter.\n${extra}`;

async function refusal(adapter: string, root = exampleTemplate): Promise<HermitError> {
  const error = await checkSpec(adapter, root).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(HermitError);
  return error as HermitError;
}

describe("bad input: the manifest", () => {
  it("refuses a YAML syntax error, naming the file and line", async () => {
    const dir = await testdir({ "adapter.yaml": manifest("exports:\n  tools: [\n    - broken\n"), "ADAPTER.md": "# x\n" });
    const error = await refusal(dir);
    expect(error.code).toBe("YAML_SYNTAX");
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(new RegExp(`^${dir}/adapter.yaml:\\d+: YAML syntax error`));
    expect(error.data.line).toBeGreaterThanOrEqual(6);
  });

  it("shows the offending line of a YAML syntax error with a caret under the column", async () => {
    const line = "description: Counts words in text: fast and reliable.";
    const dir = await testdir({ "adapter.yaml": `contract: 1.0.0\nname: bad\nversion: 0.1.0\n${line}\n`, "ADAPTER.md": "# x\n" });
    const error = await refusal(dir);
    expect(error.message).toBe(
      `${dir}/adapter.yaml:4: YAML syntax error: Nested mappings are not allowed in compact mappings (line 4, column 14)\n` +
        `  4 | ${line}\n` +
        `    | ${" ".repeat(13)}^`,
    );
    expect(error.data).toMatchObject({ line: 4, column: 14 });
  });

  it("refuses a YAML alias bomb", async () => {
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 9; i++) bomb.push(`${"abcdefghij"[i]}: &${"abcdefghij"[i]} [${Array(9).fill(`*${"abcdefghij"[i - 1]}`).join(", ")}]`);
    const dir = await testdir({ "adapter.yaml": manifest(`origin:\n  ${bomb.join("\n  ")}\n`), "ADAPTER.md": "# x\n" });
    const error = await refusal(dir);
    expect(error.code).toBe("YAML_UNSAFE");
    expect(error.message).toContain("adapter.yaml: YAML refused");
  });

  it("refuses duplicate keys", async () => {
    const dir = await testdir({ "adapter.yaml": manifest("name: again\n"), "ADAPTER.md": "# x\n" });
    expect((await refusal(dir)).code).toBe("YAML_SYNTAX");
  });

  it.each([
    ["'..' in a folder", "exports:\n  skills: ../elsewhere\n"],
    ["an absolute folder", "exports:\n  agents: /etc\n"],
    ["'..' in an entrypoint", "exports:\n  tools:\n    - { name: t, description: t, entrypoint: '../x.ts:f', input_schema: { type: object } }\n"],
    ["an absolute entrypoint", "exports:\n  tools:\n    - { name: t, description: t, entrypoint: '/tmp/x.ts:f', input_schema: { type: object } }\n"],
    ["'..' in a learnable glob", "structure:\n  learnable: [{ path: '../**' }]\n"],
  ])("refuses %s in manifest entries", async (_what, extra) => {
    const dir = await testdir({ "adapter.yaml": manifest(extra), "ADAPTER.md": "# x\n" });
    const error = await refusal(dir);
    expect(error.code).toBe("MANIFEST_INVALID");
    expect(error.message).toContain("path must be relative and stay inside the adapter");
  });

  it("names an unknown key", async () => {
    const dir = await testdir({ "adapter.yaml": manifest("exprots: {}\n"), "ADAPTER.md": "# x\n" });
    const error = await refusal(dir);
    expect(error.message).toBe(`${dir}/adapter.yaml: (top level): unknown key 'exprots'`);
  });

  it("refuses an unknown contract major, naming both versions and the rule", async () => {
    const dir = await testdir({ "adapter.yaml": manifest("").replace("1.0.0", "2.1.0"), "ADAPTER.md": "# x\n" });
    const error = await refusal(dir);
    expect(error.code).toBe("CONTRACT_MAJOR");
    expect(error.message).toBe(
      `${dir}/adapter.yaml: adapter contract 2.1.0 is not compatible with hermit's contract 1.0.0: the major versions must match (2 ≠ 1)`,
    );
  });

  it.each(["1.0", "v1.0.0", "01.0.0", "1.0.0-beta"])("refuses a contract that is not strict X.Y.Z: %s", async (contract) => {
    const dir = await testdir({ "adapter.yaml": manifest("").replace("1.0.0", `"${contract}"`), "ADAPTER.md": "# x\n" });
    expect((await refusal(dir)).code).toBe("CONTRACT_VERSION");
  });

  it("refuses a manifest that is not UTF-8 or too large", async () => {
    const notUtf8 = await testdir({ "adapter.yaml": new Uint8Array([0x6e, 0x3a, 0x20, 0xff, 0x0a]), "ADAPTER.md": "# x\n" });
    expect((await refusal(notUtf8)).code).toBe("INPUT_NOT_UTF8");
    const huge = await testdir({ "adapter.yaml": manifest(`origin: { x: "${"y".repeat(1_100_000)}" }\n`), "ADAPTER.md": "# x\n" });
    expect((await refusal(huge)).code).toBe("INPUT_TOO_LARGE");
  });

  it("refuses a missing or unreadable directory", async () => {
    const error = await refusal("/nonexistent/adapter");
    expect(error.code).toBe("INPUT_NOT_FOUND");
    expect(error.message).toBe("/nonexistent/adapter: adapter directory not found");
  });
});

describe("bad input: files and tools", () => {
  it("reports a symlink that leaves the adapter and never reads through it", async () => {
    const outside = await testdir({ "secret.md": "---\nname: leak\ndescription: x\n---\nsecret\n" });
    const dir = await copyDir(exampleAdapter, {
      "agents/leak.md": { symlink: join(outside, "secret.md") },
      "skills/escape": { symlink: outside },
    });
    const { issues } = await checkSpec(dir, exampleTemplate);
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: "agents/leak.md", check: "path", problem: "symlink leaves the adapter" },
        { path: "skills/escape", check: "path", problem: "symlink leaves the adapter" },
      ]),
    );
    expect(JSON.stringify(issues)).not.toContain("secret");
  });

  it("reports duplicate tool names", async () => {
    const dir = await copyDir(exampleAdapter);
    const file = join(dir, "adapter.yaml");
    const text = await readFile(file, "utf8");
    const tool = text.slice(text.indexOf("    - name: count_words"), text.indexOf("structure:"));
    await writeFile(file, text.replace("structure:", `${tool}structure:`));
    // The template declares the same tools, so only the duplicate is at fault.
    const root = await copyDir(exampleTemplate, { "adapter.yaml": await readFile(file, "utf8") });
    const { issues } = await checkSpec(dir, root);
    expect(issues).toContainEqual({
      path: "adapter.yaml",
      check: "format",
      problem: "duplicate tool name 'count_words' (also in adapter.yaml)",
    });
  });

  it.each([
    ["not valid JSON Schema", "{ type: object, properties: 5 }", /input_schema is not a valid JSON Schema: input_schema\/properties must be object/],
    ["not type object", "{ type: string }", /input_schema must have type: object/],
    // Valid to the meta-schema, refused only by compiling it.
    ["a pattern that is no regular expression", "{ type: object, properties: { a: { type: string, pattern: '(' } } }", /input_schema is not a valid JSON Schema: Invalid regular expression/],
    ["an empty enum", "{ type: object, properties: { a: { enum: [] } } }", /input_schema is not a valid JSON Schema: enum must have non-empty array/],
    ["a $ref that leads nowhere", "{ type: object, properties: { a: { $ref: '#/$defs/missing' } } }", /input_schema is not a valid JSON Schema: can't resolve reference/],
    ["nullable without a type", "{ type: object, properties: { a: { nullable: true } } }", /input_schema is not a valid JSON Schema: "nullable" cannot be used without "type"/],
  ])("reports a tool whose input_schema is %s", async (_what, schema, problem) => {
    const dir = await testdir({
      "adapter.yaml": manifest(
        `exports:\n  tools:\n    - { name: t, description: t, entrypoint: 'tools.ts:f', input_schema: ${schema} }\nstructure: { fixed: [tools.ts] }\n`,
      ),
      "ADAPTER.md": "# x\n",
      "tools.ts": "export const f = () => ({});\n",
    });
    const { issues } = await checkSpec(dir, dir);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ path: "adapter.yaml#exports.tools[0]", check: "load" });
    expect(issues[0].problem).toMatch(problem);
  });

  it("reports a tool module that throws on import", async () => {
    const dir = await copyDir(exampleAdapter, { "tools.ts": "throw new Error('import-time failure');\n" });
    const root = await copyDir(exampleTemplate, { "tools.ts": "throw new Error('import-time failure');\n" });
    const { issues } = await checkSpec(dir, root);
    expect(issues).toHaveLength(1);
    expect(issues[0].problem).toMatch(/^tool 'count_words': tools.ts:countWords: could not import tools.ts: import-time failure/);
  });
});

describe("trees hermit never counts as adapter files", () => {
  it("ignores .git (folder or worktree file) and node_modules", async () => {
    const dir = await copyDir(exampleAdapter, {
      ".git": "gitdir: /elsewhere/.git/worktrees/x\n",
      "node_modules/dep/index.js": "export const x = 1;\n",
    });
    expect((await checkSpec(dir, exampleTemplate)).issues).toEqual([]);
  });
});
