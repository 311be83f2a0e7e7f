/**
 * The spec check with Python code, as the original Hermit wrote it: a template checker
 * `check.py:check(adapter_path) -> list[dict]`, Python tool modules imported in the isolated
 * child, an `agents.py:list_agents` exporter; repair with a Python template; and
 * PYTHON_UNAVAILABLE when no Python can run them.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { readAdapter } from "../../src/adapter/read.js";
import { checkSpec } from "../../src/check/check.js";
import { readAdapterIsolated } from "../../src/check/exporter.js";
import { repairCandidate } from "../../src/check/repair.js";
import { copyDir, expectedIsolation, noBwrap, repoRoot, skipBecause, tempDir } from "../helpers.js";
import { failure } from "../runtime/fixture.js";
import { noPython } from "../runtime/python-fixture.js";

const pyExample = join(repoRoot, "examples", "file_adapter_py");
const pyTemplate = join(repoRoot, "templates", "file_adapter_py");
const TOOLS_PY = await readFile(join(pyExample, "tools.py"), "utf8");

/** A copy of the Python template with its checker replaced. */
const templateWithChecker = (source: string) => copyDir(pyTemplate, { "check.py": source });

async function editManifest(dir: string, edit: (doc: ReturnType<typeof parseDocument>) => void): Promise<void> {
  const file = join(dir, "adapter.yaml");
  const doc = parseDocument(await readFile(file, "utf8"));
  edit(doc);
  await writeFile(file, doc.toString());
}

/** The Python example with an `agents.py:list_agents` exporter instead of the agents folder. */
async function withExporter(source: string): Promise<string> {
  const dir = await copyDir(pyExample, { "agents.py": source });
  await editManifest(dir, (doc) => doc.setIn(["exports", "agents"], doc.createNode({ exporter: "agents.py:list_agents" })));
  return dir;
}

describe.skipIf(skipBecause(noPython))("spec check with a Python template and Python tools", () => {
  it("passes the bundled Python example: tool imported and check.py run in the isolated child", async () => {
    expect(await checkSpec(pyExample, pyTemplate)).toEqual({ passed: true, issues: [], isolation: expectedIsolation });
  });

  it("reports what check.py:check(adapter_path) returns, as a list or as {'issues': [...]}", async () => {
    const candidate = await copyDir(pyExample, { "ADAPTER.md": "no heading, no tool\n" });
    expect((await checkSpec(candidate, pyTemplate)).issues).toEqual([
      { path: "ADAPTER.md", check: "custom", problem: "needs a top-level '# ' heading" },
      { path: "ADAPTER.md", check: "custom", problem: "must tell the agent about the count_words tool" },
    ]);
    const wrapped = await templateWithChecker(
      'def check(adapter_path, extras):\n    return {"issues": [{"path": "x.md", "problem": "root is " + extras["root"]}]}\n',
    );
    expect((await checkSpec(pyExample, wrapped)).issues).toEqual([{ path: "x.md", check: "custom", problem: `root is ${wrapped}` }]);
  });

  it("names file and line when the checker raises, and says what is wrong with a bad answer", async () => {
    const raising = await templateWithChecker("import os\n\ndef check(adapter_path):\n    return os.listdir(adapter_path)[99]\n");
    expect((await checkSpec(pyExample, raising)).issues).toEqual([
      { path: "check.py", check: "custom", problem: "custom check check.py:check failed: check.py:4: IndexError: list index out of range" },
    ]);
    const malformed = await templateWithChecker('def check(adapter_path):\n    return [{"where": "?"}]\n');
    expect((await checkSpec(pyExample, malformed)).issues).toEqual([
      { path: "check.py", check: "custom", problem: 'custom check check.py:check returned a malformed issue: {"where": "?"}' },
    ]);
    const dying = await templateWithChecker("import os\n\ndef check(adapter_path):\n    os._exit(3)\n");
    const [crash] = (await checkSpec(pyExample, dying)).issues;
    expect(crash).toEqual({ path: "check.py", check: "custom", problem: "check crashed (exit 3) while running custom check check.py:check" });
  });

  it("reports a tool module's syntax error, import error and missing function as load issues with file and line", async () => {
    const template = await templateWithChecker("def check(adapter_path):\n    return []\n");
    await editManifest(template, (doc) => doc.setIn(["structure", "fixed"], doc.createNode(["EVOLVER.md", "README.md"])));
    const issuesFor = async (files: Record<string, string>) => {
      const candidate = await copyDir(pyExample, files);
      await editManifest(candidate, (doc) => doc.setIn(["structure", "fixed"], doc.createNode(["EVOLVER.md", "README.md"])));
      return (await checkSpec(candidate, template)).issues.filter((issue) => issue.check === "load");
    };
    expect(await issuesFor({ "tools.py": "def count_words(text:\n    return {}\n" })).toEqual([
      {
        path: "tools.py",
        check: "load",
        problem: "tool 'count_words': tools.py:count_words: could not import tools.py: tools.py:1: SyntaxError: '(' was never closed",
      },
    ]);
    expect(await issuesFor({ "tools.py": "from helpers import words\n", "helpers.py": "import json\nimport no_such_module_here\n" })).toEqual([
      {
        path: "tools.py",
        check: "load",
        problem:
          "tool 'count_words': tools.py:count_words: could not import tools.py: helpers.py:2: ModuleNotFoundError: No module named 'no_such_module_here'",
      },
    ]);
    expect(await issuesFor({ "tools.py": TOOLS_PY.replace("def count_words(", "def count(") })).toEqual([
      { path: "tools.py", check: "load", problem: "tool 'count_words': tools.py:count_words: tools.py has no function 'count_words'" },
    ]);
  });

  it("keeps the checker's verdict when candidate code finds the check's token and forges a passing answer", async () => {
    const forger = [
      "import json, os, sys",
      "frame = sys._getframe()",
      "while frame is not None and 'answers' not in frame.f_locals:",
      "    frame = frame.f_back",
      "nonce, answers = frame.f_locals['nonce'], frame.f_locals['answers']",
      "answers.write('%s custom %s\\n' % (nonce, json.dumps({'issues': []})))",
      "answers.write('%s done %s\\n' % (nonce, json.dumps({'tools': [{'name': 'count_words'}], 'custom': {'issues': []}})))",
      "answers.flush()",
      "os._exit(0)",
      "",
    ].join("\n");
    const candidate = await copyDir(pyExample, { "ADAPTER.md": "no heading, no tool\n", "tools.py": forger });
    const custom = (await checkSpec(candidate, pyTemplate)).issues.filter((issue) => issue.check === "custom");
    expect(custom.map((issue) => issue.problem)).toEqual(["needs a top-level '# ' heading", "must tell the agent about the count_words tool"]);
  });

  it("runs a TypeScript tool's import in the node child and the Python checker beside it, reporting both", async () => {
    const shout = { name: "shout", description: "Shout.", entrypoint: "shout.ts:shout", input_schema: { type: "object" } };
    const withShout = async (dir: string) =>
      editManifest(dir, (doc) => {
        doc.addIn(["exports", "tools"], doc.createNode(shout));
        doc.setIn(["structure", "fixed"], doc.createNode(["tools.py", "EVOLVER.md", "README.md"]));
      });
    const template = await copyDir(pyTemplate, { "shout.ts": "export const shout = () => 'HEY';\n" });
    await withShout(template);
    const candidate = await copyDir(pyExample, { "shout.ts": "export const shout = (: => 1;\n", "ADAPTER.md": "# Words\n" });
    await withShout(candidate);
    const issues = (await checkSpec(candidate, template)).issues;
    expect(issues.filter((issue) => issue.check === "custom")).toEqual([
      { path: "ADAPTER.md", check: "custom", problem: "must tell the agent about the count_words tool" },
    ]);
    expect(issues.filter((issue) => issue.check === "load")).toEqual([
      expect.objectContaining({ path: "shout.ts", problem: expect.stringContaining("tool 'shout': shout.ts:shout: could not import shout.ts") }),
    ]);
  });

  it("repairs a candidate against the Python template: an edited tools.py is restored", async () => {
    const previous = await copyDir(pyExample);
    const candidate = await copyDir(previous, { "tools.py": "def count_words(text):\n    return {'count': 0}\n" });
    const record = await repairCandidate(candidate, pyTemplate, previous);
    expect(record.actions).toEqual([{ op: "restore", path: "tools.py", from: "root" }]);
    expect(record.after).toEqual({ passed: true, issues: [], isolation: expectedIsolation });
    expect(await readFile(join(candidate, "tools.py"), "utf8")).toBe(TOOLS_PY);
  });

  it("says PYTHON_UNAVAILABLE when no Python can run the checker", async () => {
    const path = process.env.PATH;
    process.env.PATH = await tempDir(); // an empty folder: no python3 (bwrap is found through its probe, made before)
    try {
      const error = await failure(checkSpec(pyExample, pyTemplate));
      expect(error.code).toBe("PYTHON_UNAVAILABLE");
      expect(error.message).toContain("custom check check.py:check needs Python 3.8 or later, and no python3 is on PATH");
    } finally {
      process.env.PATH = path;
    }
  });
});

const EXPORTER = `def list_agents():
    print("noise on stdout")
    return [{"name": "rev", "description": "Reviews a count.", "body": "Review the count."}]
`;

describe.skipIf(skipBecause(noPython))("agents.py:list_agents exporters", () => {
  const expected = [{ name: "rev", description: "Reviews a count.", body: "Review the count.", frontmatter: {}, sourcePath: "agents.py" }];

  it("exports the agents for deploy (isolated) and in process (Session) alike", async () => {
    const dir = await withExporter(EXPORTER);
    expect((await readAdapterIsolated(dir)).agents).toEqual(expected);
    expect((await readAdapter(dir)).agents).toEqual(expected);
  });

  it("checks what it returns as agent files are checked, and names file and line when it raises", async () => {
    const bad = await withExporter('def list_agents():\n    return [{"name": "Not A Name", "description": "d", "body": "b"}]\n');
    const refused = await failure(readAdapterIsolated(bad));
    expect(refused.code).toBe("ADAPTER_INVALID");
    expect(refused.message).toMatch(/agents\.py: .*Not A Name/);
    const raising = await withExporter("def list_agents():\n    raise KeyError('agents')\n");
    await expect(readAdapterIsolated(raising)).rejects.toThrow("agents.py: agent exporter agents.py:list_agents failed: agents.py:2: KeyError: 'agents' (load)");
    await expect(readAdapter(raising)).rejects.toThrow("agents.py: agent exporter agents.py:list_agents failed: agents.py:2: KeyError: 'agents' (load)");
  });

  it.skipIf(skipBecause(noBwrap))("cannot write outside the adapter while exporting for deploy (bwrap)", async () => {
    const marker = join(await tempDir(), "written-by-exporter");
    const dir = await withExporter(
      `def list_agents():\n    try:\n        open(${JSON.stringify(marker)}, "w").write("x")\n        wrote = "yes"\n    except OSError:\n        wrote = "no"\n` +
        '    return [{"name": "rev", "description": "wrote " + wrote, "body": "b"}]\n',
    );
    expect((await readAdapterIsolated(dir)).agents[0]!.description).toBe("wrote no");
    expect(existsSync(marker)).toBe(false);
  });
});
