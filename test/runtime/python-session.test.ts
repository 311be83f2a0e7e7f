/**
 * Python tools through `Session`: the same calls, errors and codes as TypeScript tools;
 * load problems naming file and line; which interpreter runs them (PATH, HERMIT_PYTHON, the
 * adapter's own `.venv`); PYTHON_UNAVAILABLE only when a Python tool needs it; and Python
 * inside bubblewrap with `sandbox: true`.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, readdir, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Session } from "../../src/runtime/session.js";
import { exampleAdapter, noBwrap, skipBecause, tempDir, testdir } from "../helpers.js";
import { ensureBuilt, failure } from "./fixture.js";
import { TOOLS_PY, lineOf, noPython, pythonTree } from "./python-fixture.js";

describe.skipIf(skipBecause(noPython))("Session with Python tools", () => {
  let session: Session;
  let auditLog: string;

  beforeAll(async () => {
    await ensureBuilt();
    auditLog = join(await tempDir(), "audit.jsonl");
    session = new Session(await testdir(pythonTree()), { timeoutMs: 1000, auditLog, resources: { team: "red" } });
  });
  afterAll(async () => {
    await session?.close();
  });

  it("calls sync and async tools and answers host tool calls", async () => {
    expect(await session.call("count_words", { text: "a b c" })).toEqual({ count: 3 });
    expect(await session.call("echo_later", { text: "x" })).toEqual({ text: "x" });
    expect(await session.call("show_resources", { label: "l" })).toEqual({ label: "l", resources: { team: "red" } });
    expect(await session.respond({ type: "tool_use", id: "t1", name: "count_words", input: { text: "one" } })).toEqual({
      type: "tool_result",
      tool_use_id: "t1",
      content: '{"count":1}',
    });
  });

  it("throws failures as HermitErrors with their codes, and keeps serving", async () => {
    const raised = await failure(session.call("fail", { reason: "x" }));
    expect(raised.code).toBe("TOOL_FAILED");
    expect(raised.message).toBe(`tool 'fail' failed: tools.py:${lineOf('raise ValueError("boom: "')}: ValueError: boom: x`);
    expect((await failure(session.call("sleep_forever"))).code).toBe("TOOL_TIMEOUT");
    expect((await failure(session.call("block"))).code).toBe("TOOL_TIMEOUT");
    expect((await failure(session.call("not_json"))).code).toBe("TOOL_RESULT_INVALID");
    // An async def that blocks the loop itself: the process answers no ping, and is replaced.
    const [hog, queued] = await Promise.all([
      failure(session.call("hog_loop")),
      new Promise<unknown>((resolve) => setTimeout(() => resolve(session.call("echo_later", { text: "queued" })), 100)),
    ]);
    expect(hog.code).toBe("TOOL_TIMEOUT");
    expect(queued).toEqual({ text: "queued" });
    expect((await failure(session.call("count_words", { text: 1 }))).code).toBe("TOOL_ARGUMENTS_INVALID");
    expect((await failure(session.call("exit_now"))).message).toContain("the tool process exited (code 1) while the call ran");
    expect(await session.call("count_words", { text: "alive" })).toEqual({ count: 1 });
  });

  it("names the interpreter in the audit log's first line", async () => {
    const first = JSON.parse((await readFile(auditLog, "utf8")).split("\n")[0]!) as { session: { runtimes: string[] } };
    const real = execFileSync("python3", ["-c", "import os, sys; print(os.path.realpath(sys.executable))"], { encoding: "utf8" }).trim();
    expect(first.session.runtimes).toContain(`python ${pythonVersion()} (${real}, from PATH)`);
  });
});

/** The Python fixture whose helpers.py imports a package installed in the adapter's own .venv. */
async function adapterWithVenv(): Promise<string> {
  const adapter = await testdir({ ...pythonTree(), "helpers.py": "from wordsplit import words\n" });
  execFileSync("python3", ["-m", "venv", "--without-pip", join(adapter, ".venv")]);
  const lib = join(adapter, ".venv", "lib");
  const site = join(lib, (await readdir(lib))[0]!, "site-packages");
  await writeFile(join(site, "wordsplit.py"), "def words(text):\n    return text.split()\n");
  return adapter;
}

function pythonVersion(python = "python3"): string {
  return execFileSync(python, ["-c", "import sys; print('.'.join(map(str, sys.version_info[:3])))"], { encoding: "utf8" }).trim();
}

describe.skipIf(skipBecause(noPython))("Python tools that do not load", () => {
  const loadError = async (files: Record<string, string>) => {
    const session = new Session(await testdir({ ...pythonTree(), ...files }));
    const error = await failure(session.context());
    await session.close();
    expect(error.code).toBe("ADAPTER_INVALID");
    return error.message;
  };

  it("names file, line and problem of a syntax error", async () => {
    const message = await loadError({ "tools.py": TOOLS_PY.replace("def block():", "def block(:") });
    expect(message).toContain(`tool 'count_words' (entrypoint tools.py:count_words): could not import tools.py: tools.py:${lineOf("def block():")}: SyntaxError:`);
  });

  it("names the imported file and line of an import error", async () => {
    const message = await loadError({ "helpers.py": "import os\nimport no_such_module_here\n" });
    expect(message).toContain("could not import tools.py: helpers.py:2: ModuleNotFoundError: No module named 'no_such_module_here'");
  });

  it("names a missing function", async () => {
    const message = await loadError({ "tools.py": TOOLS_PY.replace("def whole(args):", "def entire(args):") });
    expect(message).toContain("tool 'whole' (entrypoint tools.py:whole): tools.py has no function 'whole'");
  });
});

describe.skipIf(skipBecause(noPython))("which Python runs the tools", () => {
  it("says PYTHON_UNAVAILABLE, naming the tool, when no python3 is on PATH; TypeScript tools need none", async () => {
    const path = process.env.PATH;
    process.env.PATH = await tempDir(); // an empty folder: no python3
    try {
      const session = new Session(await testdir(pythonTree()));
      const error = await failure(session.call("count_words", { text: "a" }));
      expect(error.code).toBe("PYTHON_UNAVAILABLE");
      expect(error.message).toMatch(/tool '\w+' \(entrypoint tools\.py:\w+\) needs Python 3\.8 or later, and no python3 is on PATH/);
      await session.close();
      const typescript = new Session(exampleAdapter);
      expect(await typescript.call("count_words", { text: "a b" })).toEqual({ count: 2 });
      await typescript.close();
    } finally {
      process.env.PATH = path;
    }
  });

  it("says PYTHON_UNAVAILABLE when HERMIT_PYTHON is no Python", async () => {
    process.env.HERMIT_PYTHON = "/bin/false";
    try {
      const session = new Session(await testdir(pythonTree()));
      const error = await failure(session.call("count_words", { text: "a" }));
      expect(error.code).toBe("PYTHON_UNAVAILABLE");
      expect(error.message).toContain("/bin/false (from HERMIT_PYTHON) cannot run");
      await session.close();
    } finally {
      delete process.env.HERMIT_PYTHON;
    }
  });

  it("runs the adapter's own .venv, so its dependencies import", async () => {
    const adapter = await adapterWithVenv();
    const auditLog = join(await tempDir(), "audit.jsonl");
    const session = new Session(adapter, { auditLog });
    expect(await session.call("count_words", { text: "from the venv" })).toEqual({ count: 3 });
    await session.close();
    const first = JSON.parse((await readFile(auditLog, "utf8")).split("\n")[0]!) as { session: { runtimes: string[] } };
    expect(first.session.runtimes).toContain(`python ${pythonVersion()} (${join(adapter, ".venv", "bin", "python")}, from .venv)`);
  });
});

describe.skipIf(skipBecause(noPython) || skipBecause(noBwrap))("Python tools with sandbox: true (bubblewrap)", () => {
  let adapter: string;
  let evidence: string;
  let outside: string;
  let listener: Server;
  let port: number;
  let sandboxed: Session;

  beforeAll(async () => {
    await ensureBuilt();
    adapter = await testdir(pythonTree());
    evidence = join(await tempDir(), "evidence");
    outside = await tempDir();
    listener = createServer((socket) => socket.end("hello from the host\n"));
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    port = (listener.address() as AddressInfo).port;
    sandboxed = new Session(adapter, { sandbox: true, evidence, timeoutMs: 1500 });
  });
  afterAll(async () => {
    await sandboxed?.close();
    listener?.close();
  });

  it("runs sync and async tools with the same results and resources", async () => {
    expect(await sandboxed.call("count_words", { text: "a b c" })).toEqual({ count: 3 });
    expect(await sandboxed.call("echo_later", { text: "in" })).toEqual({ text: "in" });
    expect(await sandboxed.call("show_resources", { label: "s" })).toEqual({ label: "s", resources: { evidence } });
    expect((await failure(sandboxed.call("block"))).code).toBe("TOOL_TIMEOUT");
    expect(await sandboxed.call("count_words", { text: "alive" })).toEqual({ count: 1 });
  });

  it("lets a tool write only into the evidence directory", async () => {
    const inside = join(evidence, "inside.txt");
    expect(await sandboxed.call("write_file", { path: inside, text: "ok" })).toEqual({ written: inside });
    expect(await readFile(inside, "utf8")).toBe("ok");
    const escaped = join(outside, "escaped.txt");
    const error = await failure(sandboxed.call("write_file", { path: escaped, text: "no" }));
    expect(error.message).toMatch(/(FileNotFoundError|OSError|PermissionError).*(No such file|Read-only|Permission denied)/);
    expect(existsSync(escaped)).toBe(false);
    const intoAdapter = await failure(sandboxed.call("write_file", { path: join(adapter, "tools.py"), text: "" }));
    expect(intoAdapter.message).toContain("Read-only file system");
    expect(await readFile(join(adapter, "tools.py"), "utf8")).toBe(TOOLS_PY);
  });

  it("runs the adapter's own .venv inside the sandbox", async () => {
    const session = new Session(await adapterWithVenv(), { sandbox: true, timeoutMs: 1500 });
    expect(await session.call("count_words", { text: "venv in the sandbox" })).toEqual({ count: 4 });
    await session.close();
  });

  it("stops a tool connecting to the network", async () => {
    const error = await failure(sandboxed.call("connect", { port }));
    expect(error.code).toBe("TOOL_FAILED");
    expect(error.message).toMatch(/ConnectionRefusedError|OSError|Network is unreachable/);
  });
});
