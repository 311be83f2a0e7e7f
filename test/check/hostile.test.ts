/**
 * Adapters and templates written to break the checker: odd file names, special files, sparse
 * files, inherited names as entrypoints, code that exits, forks, forges answers or loops.
 * Each gives an issue or a clear error, never a crash, a hang or a false pass.
 */
import { execFileSync } from "node:child_process";
import { mkdir, open, readdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { LIMITS } from "../../src/adapter/files.js";
import { walkTree } from "../../src/adapter/tree.js";
import { exportedFunction } from "../../src/adapter/module-loader.js";
import { readAdapter } from "../../src/adapter/read.js";
import { HermitError } from "../../src/errors.js";
import { Session } from "../../src/runtime/session.js";
import { checkSpec } from "../../src/check/check.js";
import { runCli } from "../cli/run-cli.js";
import { copyDir, exampleAdapter, exampleTemplate, noBwrap, skipBecause, testdir } from "../helpers.js";

/** A one-tool adapter that is its own template root (fixed: tools.ts). */
function selfRooted(entrypoint: string, tools = "export function countWords() { return 1; }\n") {
  return testdir({
    "adapter.yaml": [
      "contract: 1.0.0",
      "name: t",
      "version: 0.1.0",
      "description: d",
      "exports:",
      "  tools:",
      `    - { name: count, description: c, entrypoint: '${entrypoint}', input_schema: { type: object } }`,
      "structure: { fixed: [tools.ts] }",
    ].join("\n"),
    "ADAPTER.md": "# T\n",
    "tools.ts": tools,
  });
}

/** Processes whose command line contains `marker` (to find what a checker left running). */
async function processesWith(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(marker)) found.push(Number(entry));
  }
  return found;
}

/**
 * Live processes of PID namespace `namespace` (`pid:[…]`), exiting ones included; a zombie
 * counts as ended (only its parent's bookkeeping is left).
 */
async function processesIn(namespace: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    if ((await readlink(`/proc/${entry}/ns/pid`).catch(() => "")) !== namespace) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const state = stat.slice(stat.lastIndexOf(")") + 2)[0];
    if (stat && state !== "Z" && state !== "X") found.push(Number(entry));
  }
  return found;
}

describe("entrypoints never resolve to inherited members", () => {
  it.each(["constructor", "toString", "hasOwnProperty", "valueOf"])("reports tools.ts:%s as not exported", async (name) => {
    const dir = await selfRooted(`tools.ts:${name}`);
    const { issues } = await checkSpec(dir, dir);
    expect(issues).toEqual([
      { path: "tools.ts", check: "load", problem: `tool 'count': tools.ts:${name}: tools.ts has no exported function '${name}'` },
    ]);
  });

  it("finds own exports and the default export's own members only", () => {
    const module = { run: () => 1, default: { helper: () => 2 } };
    expect(exportedFunction(module, "run")).toBe(module.run);
    expect(exportedFunction(module, "helper")).toBe(module.default.helper);
    expect(exportedFunction(module, "constructor")).toBeUndefined();
    expect(exportedFunction(module, "__proto__")).toBeUndefined();
    expect(exportedFunction(Object.create(null) as Record<string, unknown>, "toString")).toBeUndefined();
  });
});

describe("tool schemas with an $id", () => {
  it("can be read again and again in one process (they are not left registered)", async () => {
    const dir = await copyDir(exampleAdapter);
    const file = join(dir, "adapter.yaml");
    await writeFile(file, (await readFile(file, "utf8")).replace("      input_schema:\n", '      input_schema:\n        $id: "https://example.com/count.json"\n'));
    for (let i = 0; i < 3; i++) expect((await checkSpec(dir, dir)).issues.filter((issue) => issue.check === "load")).toEqual([]);
    for (let i = 0; i < 2; i++) {
      const session = new Session(dir);
      try {
        expect(await session.call("count_words", { text: "a b" })).toEqual({ count: 2 });
        await expect(session.call("count_words", { text: 5 })).rejects.toMatchObject({ code: "TOOL_ARGUMENTS_INVALID" });
      } finally {
        await session.close();
      }
    }
  });
});

describe("frontmatter is YAML only", () => {
  it.each(["js", "javascript", "coffee", "json", " js"])("never runs or parses '---%s' frontmatter", async (language) => {
    const marker = join(await testdir({}), "ran");
    const body = `{ name: (require("node:fs").writeFileSync(${JSON.stringify(marker)}, "x"), "reviewer"), description: "d" }`;
    const dir = await copyDir(exampleAdapter, { "agents/reviewer.md": `---${language}\n${body}\n---\nReview.\n` });
    const { issues } = await checkSpec(dir, exampleTemplate);
    const word = language.trim();
    expect(issues).toContainEqual({
      path: "agents/reviewer.md",
      check: "format",
      problem: `frontmatter language '${word}' refused; only YAML frontmatter is read (other engines run code)`,
    });
    await expect(readFile(marker)).rejects.toMatchObject({ code: "ENOENT" });
    await expect(readAdapter(dir)).rejects.toMatchObject({ code: "ADAPTER_INVALID" });
  });

  it("reads '---yaml' frontmatter like plain '---'", async () => {
    const dir = await copyDir(exampleAdapter, {
      "agents/reviewer.md": "---yaml\nname: reviewer\ndescription: Reviews.\n---\nReview.\n",
    });
    expect((await checkSpec(dir, exampleTemplate)).issues).toEqual([]);
  });
});

describe("file names and special files", () => {
  it("reports names that are not UTF-8 or hold a newline, instead of crashing", async () => {
    const dir = await copyDir(exampleAdapter);
    const skills = Buffer.from(join(dir, "skills/"));
    await mkdir(Buffer.concat([skills, Buffer.from([0x62, 0x61, 0x64, 0xff])]));
    await writeFile(Buffer.concat([skills, Buffer.from([0xfe, 0x2e, 0x6d, 0x64])]), "x");
    await writeFile(join(dir, "agents", "a\nb.md"), "x");
    const { issues } = await checkSpec(dir, exampleTemplate);
    expect(issues).toEqual([
      { path: "agents/a\nb.md", check: "path", problem: 'file name "a\\nb.md" contains a control character' },
      { path: "skills/bad\ufffd", check: "path", problem: 'file name "bad\ufffd" is not valid UTF-8' },
      { path: "skills/\ufffd.md", check: "path", problem: 'file name "\ufffd.md" is not valid UTF-8' },
    ]);
    // The human output keeps one issue per line.
    const run = await runCli(["spec", "check", dir, "--root", exampleTemplate]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('"agents/a\\nb.md": file name "a\\nb.md" contains a control character (path)\n');
    expect(run.stdout.split("\n")).toHaveLength(5);
  });

  it("never opens a FIFO, directly or through a symlink", async () => {
    const dir = await copyDir(exampleAdapter);
    execFileSync("mkfifo", [join(dir, "skills/verify-output/pipe"), join(dir, "agents/x.md")]);
    await symlink("x.md", join(dir, "agents/y.md"));
    const { issues } = await checkSpec(dir, exampleTemplate);
    expect(issues).toEqual([
      { path: "agents/x.md", check: "path", problem: "is not a regular file" },
      { path: "agents/y.md", check: "path", problem: "symlink to something that is not a regular file" },
      { path: "skills/verify-output/pipe", check: "path", problem: "is not a regular file" },
    ]);
  });

  it("refuses files that total more than it reads (sparse files cost nothing on disk)", async () => {
    const dir = await copyDir(exampleAdapter);
    const count = Math.floor(LIMITS.totalBytes / LIMITS.fileBytes) + 1;
    await mkdir(join(dir, "skills/verify-output/sparse"));
    for (let i = 0; i < count; i++) {
      const handle = await open(join(dir, `skills/verify-output/sparse/${i}`), "w");
      await handle.truncate(LIMITS.fileBytes);
      await handle.close();
    }
    const error = await checkSpec(dir, exampleTemplate).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(HermitError);
    expect((error as HermitError).code).toBe("INPUT_TOO_LARGE");
    expect((error as HermitError).message).toMatch(new RegExp(`^${dir}: its files total \\d+ bytes, over the limit of ${LIMITS.totalBytes}`));
  });

  it("counts folders toward the entry limit", async () => {
    const dir = await copyDir(exampleAdapter);
    const base = join(dir, "skills/verify-output/many");
    await mkdir(base);
    for (let i = 0; i <= LIMITS.files; i++) await mkdir(join(base, String(i)));
    await expect(walkTree(dir)).rejects.toMatchObject({ code: "INPUT_TOO_LARGE" });
  });

  it("says a file too large to read is too large, not that it is not UTF-8", async () => {
    const dir = await copyDir(exampleAdapter, { "agents/big.md": "a".repeat(LIMITS.fileBytes + 1) });
    const { issues } = await checkSpec(dir, exampleTemplate);
    expect(issues).toContainEqual({
      path: "agents/big.md",
      check: "format",
      problem: `is over the limit of ${LIMITS.fileBytes} bytes hermit reads (format agent)`,
    });
    expect(issues.some((issue) => issue.problem.includes("UTF-8"))).toBe(false);
  });
});

describe("export paths name exactly one file or folder", () => {
  it.each([
    ["skills", ".", "path must be written plainly"],
    ["skills", "./skills", "path must be written plainly"],
    ["skills", "skills/", "path must be written plainly"],
    ["agents", "agents//x", "path must be written plainly"],
    ["context", "./ADAPTER.md", "path must be written plainly"],
    ["skills", "'**'", "must name one file or folder, not a glob"],
  ])("refuses exports.%s: %s", async (key, value, message) => {
    const dir = await copyDir(exampleAdapter);
    const file = join(dir, "adapter.yaml");
    await writeFile(file, (await readFile(file, "utf8")).replace(new RegExp(`\\n  ${key}: [^\\n]*`), `\n  ${key}: ${value}`));
    const error = await checkSpec(dir, exampleTemplate).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: "MANIFEST_INVALID" });
    expect((error as HermitError).message.startsWith(`${file}: exports.${key}: ${message}`)).toBe(true);
    expect((error as HermitError).message).not.toContain("oneOf");
  });

  it("refuses an entrypoint written as ./tools.ts", async () => {
    const dir = await selfRooted("./tools.ts:countWords");
    await expect(checkSpec(dir, dir)).rejects.toMatchObject({
      code: "MANIFEST_INVALID",
      message: expect.stringContaining("exports.tools.0.entrypoint: path must be written plainly"),
    });
  });
});

describe("code in the child process", () => {
  const rootWithCheck = (source: string) => copyDir(exampleTemplate, { "check.ts": source });

  it("reports a tool module that calls process.exit at import, on the tool's file", async () => {
    const tools = `${await readFile(join(exampleTemplate, "tools.ts"), "utf8")}\nprocess.exit(0);\n`;
    const dir = await copyDir(exampleAdapter, { "tools.ts": tools });
    const root = await copyDir(exampleTemplate, { "tools.ts": tools });
    const { issues } = await checkSpec(dir, root);
    expect(issues).toEqual([
      {
        path: "tools.ts",
        check: "load",
        problem: "tool 'count_words': tools.ts:countWords: could not import tools.ts: it called process.exit(0)",
      },
    ]);
  });

  it("cannot be fooled by a forged answer on stdout", async () => {
    const forged = JSON.stringify({ tools: [], custom: { issues: [] } });
    const root = await rootWithCheck(
      "import { writeSync } from 'node:fs';\n" +
        "export function check() {\n" +
        `  writeSync(1, ${JSON.stringify(`${forged}\n`)});\n` +
        `  process.stdout.write(${JSON.stringify(`${forged}\n`)});\n` +
        "  return [{ path: 'ADAPTER.md', problem: 'the real verdict' }];\n" +
        "}\n",
    );
    const { issues } = await checkSpec(await copyDir(exampleAdapter), root);
    expect(issues).toEqual([{ path: "ADAPTER.md", check: "custom", problem: "the real verdict" }]);
  });

  it("names the error line of a checker that crashes from a timer", async () => {
    const root = await rootWithCheck(
      "export function check() {\n  setTimeout(() => { throw new Error('late boom'); }, 1);\n  return new Promise((r) => setTimeout(() => r([]), 2000));\n}\n",
    );
    const { issues } = await checkSpec(await copyDir(exampleAdapter), root);
    expect(issues).toEqual([
      { path: "check.ts", check: "custom", problem: "check crashed (exit 1) while running custom check check.ts:check: Error: late boom" },
    ]);
  });

  it("refuses a time limit that is not a positive integer", async () => {
    await expect(checkSpec(exampleAdapter, exampleTemplate, { timeoutMs: Number.NaN })).rejects.toMatchObject({ code: "USAGE" });
    const run = await runCli(["spec", "check", exampleAdapter, "--root", exampleTemplate, "--timeout-ms", "abc"]);
    expect(run).toMatchObject({ code: 2, stdout: "" });
    expect(run.stderr).toBe("hermit: error USAGE: --timeout-ms: 'abc' must be an integer from 1 to 2147483647\n");
    const duration = await runCli(["spec", "check", exampleAdapter, "--root", exampleTemplate, "--timeout", "soon"]);
    expect(duration).toMatchObject({ code: 2, stdout: "" });
    expect(duration.stderr).toBe(
      "hermit: error USAGE: --timeout: 'soon' must be a positive duration such as 90, 90s, 10m or 1h (plain numbers are seconds)\n",
    );
    const both = await runCli(["spec", "check", exampleAdapter, "--root", exampleTemplate, "--timeout", "2m", "--timeout-ms", "5"]);
    expect(both.stderr).toBe("hermit: error USAGE: --timeout and --timeout-ms set the same limit: give one\n");
  });

  it("takes the limit in the one duration syntax (--timeout 1.5s), and --timeout-ms as its older spelling", async () => {
    const root = await rootWithCheck("export const check = () => new Promise(() => { setInterval(() => {}, 1000); });\n");
    const adapter = await copyDir(exampleAdapter);
    for (const flags of [["--timeout", "1.5s"], ["--timeout-ms", "1500"]]) {
      const run = await runCli(["spec", "check", adapter, "--root", root, "--json", ...flags]);
      expect(JSON.parse(run.stdout).issues).toEqual([
        { path: "check.ts", check: "custom", problem: "check timed out after 1500 ms while running custom check check.ts:check" },
      ]);
    }
  });

  it.skipIf(skipBecause(noBwrap))("returns when the checker returns, and what it started is gone (bwrap PID namespace)", async () => {
    const marker = `3600.${process.pid}1`;
    const root = await rootWithCheck(
      "import { spawn } from 'node:child_process';\n" +
        `export function check() { spawn('sleep', ['${marker}'], { stdio: 'inherit' }); spawn('sleep', ['${marker}'], { stdio: 'ignore', detached: true }).unref(); return []; }\n`,
    );
    // A hang on the inherited pipes would end in a time-out issue instead.
    const result = await checkSpec(await copyDir(exampleAdapter), root, { timeoutMs: 20_000 });
    expect(result).toEqual({ passed: true, issues: [], isolation: "bwrap" });
    expect(await processesWith(marker)).toEqual([]);
  });

  // bwrap's monitor exits as soon as the checked command does, while the namespace's first
  // process is still killing the rest: the check must wait for that, not just for bwrap.
  it.skipIf(skipBecause(noBwrap)).each([1, 2, 3, 4, 5])(
    "returns only once its whole PID namespace has ended (%i)",
    async () => {
      const root = await rootWithCheck(
        "import { spawn } from 'node:child_process';\nimport { readlinkSync } from 'node:fs';\n" +
          "export function check() {\n" +
          "  for (let i = 0; i < 40; i++) spawn('sleep', ['3600'], { stdio: 'ignore', detached: true }).unref();\n" +
          "  return [{ path: 'namespace', problem: readlinkSync('/proc/self/ns/pid') }];\n" +
          "}\n",
      );
      const { issues } = await checkSpec(await copyDir(exampleAdapter), root, { timeoutMs: 20_000 });
      const namespace = issues[0]!.problem;
      expect(namespace).toMatch(/^pid:\[\d+\]$/);
      expect(await processesIn(namespace)).toEqual([]);
    },
  );

  it("returns when the checker returns even without bwrap, though its children then survive", async () => {
    const marker = `3600.${process.pid}2`;
    const root = await rootWithCheck(
      `import { spawn } from 'node:child_process';\nexport function check() { spawn('sleep', ['${marker}'], { stdio: 'inherit' }); return []; }\n`,
    );
    try {
      const result = await checkSpec(await copyDir(exampleAdapter), root, { isolate: false, timeoutMs: 20_000 });
      expect(result).toEqual({ passed: true, issues: [], isolation: "none" });
    } finally {
      for (const pid of await processesWith(marker)) process.kill(pid, "SIGKILL");
    }
  });
});

describe("agent exporters run in the child process, checked like agent files", () => {
  async function exporterAdapter(source: string, options: { customCheck?: boolean } = {}) {
    const dir = await copyDir(exampleAdapter, { "agents.ts": source });
    const file = join(dir, "adapter.yaml");
    const doc = parseDocument(await readFile(file, "utf8"));
    doc.setIn(["exports", "agents"], doc.createNode({ exporter: "agents.ts:listAgents" }));
    if (options.customCheck === false) doc.delete("check");
    doc.setIn(["structure", "fixed"], doc.createNode(["tools.ts", "EVOLVER.md", "README.md", "agents.ts"]));
    await writeFile(file, doc.toString());
    const root = await copyDir(exampleTemplate, { "agents.ts": source, "adapter.yaml": doc.toString() });
    return { dir, root };
  }

  it("passes a good exporter; what it prints never reaches stdout", async () => {
    const { dir, root } = await exporterAdapter(
      "console.log('noise');\nexport const listAgents = () => [{ name: 'rev', description: 'Reviews.', body: 'Review it.' }];\n",
    );
    const run = await runCli(["spec", "check", dir, "--root", root, "--json"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ passed: true, issues: [] });
  });

  it("reports an exporter that exits or loops instead of ending hermit", async () => {
    const exits = await exporterAdapter("process.exit(0);\nexport const listAgents = () => [];\n");
    expect((await checkSpec(exits.dir, exits.root)).issues).toEqual([
      {
        path: "agents.ts",
        check: "load",
        problem: "agent exporter agents.ts:listAgents failed: could not import agents.ts: it called process.exit(0)",
      },
    ]);
    // Without a custom check first, the limit is all the exporter's (a loaded machine slows the checker's start).
    const loops = await exporterAdapter("export const listAgents = () => { for (;;) {} };\n", { customCheck: false });
    expect((await checkSpec(loops.dir, loops.root, { timeoutMs: 1500 })).issues).toEqual([
      {
        path: "agents.ts",
        check: "load",
        problem: "check timed out after 1500 ms while running agent exporter agents.ts:listAgents",
      },
    ]);
  });

  it("applies the agent name rule to exported agents (the name becomes a file name in every host)", async () => {
    const source = "export const listAgents = () => [{ name: '../../escape', description: 'd', body: 'b' }, { name: 'ok', description: '', body: 'b' }];\n";
    const { dir, root } = await exporterAdapter(source);
    expect((await checkSpec(dir, root)).issues).toEqual([
      {
        path: "agents.ts",
        check: "load",
        problem: "agent 0 from agents.ts:listAgents: agent name '../../escape' must be 1-64 chars of a-z, 0-9, '-' or '_'",
      },
      { path: "agents.ts", check: "load", problem: "agent 1 from agents.ts:listAgents: 'description' is missing or empty" },
    ]);
    await expect(readAdapter(dir)).rejects.toMatchObject({ code: "ADAPTER_INVALID" });
  });
});
