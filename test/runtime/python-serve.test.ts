/**
 * Python tools served by `hermit serve`, driven by the MCP SDK's real client over stdio and
 * Streamable HTTP: the same contract as TypeScript tools (schemas, validation, resources,
 * audit log), and a server that answers the next call whatever a tool does.
 */
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipBecause, tempDir, testdir } from "../helpers.js";
import { ensureBuilt, hermitCli } from "./fixture.js";
import { lineOf, noPython, pythonTools, pythonTree } from "./python-fixture.js";
import { connectHttp, connectStdio, text, type ServerUnderTest } from "./server-suite.js";

const TIMEOUT_MS = 1500;

for (const [transport, start] of [
  ["stdio", connectStdio],
  ["Streamable HTTP", connectHttp],
] as const) {
  describe.skipIf(skipBecause(noPython))(`hermit serve with Python tools over ${transport}`, () => {
    let server: ServerUnderTest;
    let auditLog: string;
    let evidence: string;
    const call = async (name: string, args: Record<string, unknown> = {}) =>
      (await server.client.callTool({ name, arguments: args })) as CallToolResult;
    const expectAlive = async () => {
      expect((await call("count_words", { text: "still here" })).structuredContent).toEqual({ count: 2 });
    };

    beforeAll(async () => {
      await ensureBuilt();
      const dir = await tempDir();
      auditLog = join(dir, "audit.jsonl");
      evidence = join(dir, "evidence");
      const resources = join(dir, "resources.json");
      await writeFile(resources, JSON.stringify({ evidence: "evidence", team: "green" }));
      const adapter = await testdir(pythonTree());
      const args = [hermitCli, "serve", "--adapter", adapter, "--audit-log", auditLog, "--resources", resources, "--timeout-ms", String(TIMEOUT_MS)];
      server = await start(args);
    });
    afterAll(async () => {
      await server?.close();
    });

    it("lists the declared tools with their schemas unchanged, and says which Python runs them", async () => {
      const { tools } = await server.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(pythonTools.map((tool) => tool.name));
      for (const declared of pythonTools) {
        const listed = tools.find((tool) => tool.name === declared.name)!;
        expect(listed.inputSchema).toStrictEqual(declared.input_schema);
        expect(listed.outputSchema).toStrictEqual(declared.output_schema);
      }
      expect(server.stderr()).toMatch(/python-fixture 2\.0\.0: 20 tool\(s\) \(node v[\d.]+; python 3\.\d+\.\d+ \(\S+, from PATH\)\)/);
    });

    it("runs sync and async Python tools, and a TypeScript tool beside them", async () => {
      const counted = await call("count_words", { text: "one two  three" });
      expect(counted.isError).toBeFalsy();
      expect(counted.structuredContent).toEqual({ count: 3 });
      expect(JSON.parse(text(counted))).toEqual({ count: 3 });
      expect((await call("echo_later", { text: "later", delay_ms: 20 })).structuredContent).toEqual({ text: "later" });
      expect((await call("whole", { text: "a" })).structuredContent).toEqual({ got: { text: "a" } });
      expect(text(await call("shout", { text: "hey" }))).toBe("hey!");
      const first = (await call("count_calls")).structuredContent as { calls: number };
      expect((await call("count_calls")).structuredContent).toEqual({ calls: first.calls + 1 });
    });

    it("validates arguments and results as for TypeScript tools", async () => {
      expect(text(await call("count_words", { text: 42 }))).toBe("invalid arguments for tool 'count_words': arguments/text: must be string");
      expect(text(await call("show_resources", { label: "x", _resources: {} }))).toContain("arguments/_resources: is reserved");
      const bad = await call("bad_output");
      expect(bad.isError).toBe(true);
      expect(text(bad)).toBe("tool 'bad_output' returned an invalid result: result/count: must be integer");
      const notJson = await call("not_json");
      expect(notJson.isError).toBe(true);
      expect(text(notJson)).toContain("tool 'not_json' returned an invalid result: returned a value that is not JSON");
      await expectAlive();
    });

    it("binds the resources to a function with a _resources parameter", async () => {
      expect((await call("show_resources", { label: "r" })).structuredContent).toEqual({
        label: "r",
        resources: { evidence, team: "green" },
      });
    });

    it("answers a raised exception with its type, message, file and line, and stays up", async () => {
      const thrown = await call("fail", { reason: "sync" });
      expect(thrown.isError).toBe(true);
      expect(text(thrown)).toBe(`tool 'fail' failed: tools.py:${lineOf('raise ValueError("boom: "')}: ValueError: boom: sync`);
      const rejected = await call("reject", { reason: "async" });
      expect(text(rejected)).toBe(`tool 'reject' failed: tools.py:${lineOf('raise RuntimeError("rejected: "')}: RuntimeError: rejected: async`);
      await expectAlive();
      await expect.poll(() => server.stderr()).toContain('raise ValueError("boom: " + reason)'); // the traceback, in the log
    });

    it("cancels an async tool that never returns, and answers the next call", async () => {
      const result = await call("sleep_forever");
      expect(text(result)).toBe(`tool 'sleep_forever' timed out after ${TIMEOUT_MS} ms`);
      await expectAlive();
    });

    it("cancels an async Python call when the client cancels it (notifications/cancelled), and logs it", async () => {
      const controller = new AbortController();
      const pending = server.client.callTool({ name: "wait_cancel", arguments: { marker: "by-client" } }, undefined, { signal: controller.signal });
      setTimeout(() => controller.abort("stopped by the test"), 300);
      await expect(pending).rejects.toThrow(/stopped by the test/);
      await expect.poll(() => server.stderr()).toContain("cancelled by-client"); // the asyncio task got CancelledError
      await expectAlive();
      await expect
        .poll(async () => (await readFile(auditLog, "utf8")).split("\n").filter((line) => line.includes('"wait_cancel"')).map((line) => JSON.parse(line).error))
        .toEqual([{ code: "TOOL_CANCELLED", message: "tool 'wait_cancel' cancelled by the client" }]);
    });

    it("times out a sync tool stuck in its thread; calls sent meanwhile are answered", async () => {
      const [blocked, meanwhile] = await Promise.all([
        call("block"),
        new Promise<CallToolResult>((resolve) => setTimeout(() => resolve(call("echo_later", { text: "meanwhile" })), 100)),
      ]);
      expect(text(blocked)).toBe(`tool 'block' timed out after ${TIMEOUT_MS} ms`);
      expect(meanwhile.structuredContent).toEqual({ text: "meanwhile" });
      await expectAlive();
    });

    it("restarts the Python process after os._exit, the crashing call an error", async () => {
      const crashed = await call("exit_now");
      expect(crashed.isError).toBe(true);
      expect(text(crashed)).toBe("tool 'exit_now' failed: the tool process exited (code 1) while the call ran");
      await expectAlive();
      expect((await call("count_calls")).structuredContent).toEqual({ calls: 1 }); // a fresh process: fresh module state
    });

    it("ignores a made-up answer a tool writes on the channel, and survives a tool closing it", async () => {
      expect((await call("forge")).structuredContent).toEqual({ forged: true });
      await expect.poll(() => server.stderr()).toContain("ignored a message on the tool channel that answers no pending call");
      const closed = await call("close_channel");
      // The host ends itself and its process group at once, instead of waiting out the time limit.
      expect(text(closed)).toMatch(/^tool 'close_channel' failed: the tool process exited \((SIGKILL|code 1)\) while the call ran$/);
      await expectAlive();
    });

    it("keeps what a tool prints off the protocol, in the server's log", async () => {
      expect((await call("noisy")).structuredContent).toEqual({ quiet: false });
      await expectAlive();
      for (const noise of ["noise from print", "noise on sys.stdout", "noise on fd 1", "noise on stderr"]) {
        await expect.poll(() => server.stderr()).toContain(noise);
      }
    });

    it("answers 200 concurrent sync, async and raising calls, and logs each one intact", async () => {
      const calls = Array.from({ length: 200 }, (_, index) => {
        const marker = `burst-${index}`;
        if (index % 5 === 4) return { index, name: "fail", args: { reason: marker } };
        if (index % 2 === 0) return { index, name: "count_words", args: { text: `${marker} ${"w ".repeat(index % 7)}` } };
        return { index, name: "echo_later", args: { text: marker, delay_ms: index % 13 } };
      });
      const results = await Promise.all(calls.map(({ name, args }) => call(name, args)));
      for (const [position, { index, name }] of calls.entries()) {
        const result = results[position]!;
        if (name === "fail") expect(text(result)).toContain(`ValueError: boom: burst-${index}`);
        else if (name === "count_words") expect(result.structuredContent).toEqual({ count: 1 + (index % 7) });
        else expect(result.structuredContent).toEqual({ text: `burst-${index}` });
      }
      const lines = (await readFile(auditLog, "utf8")).split("\n");
      expect(lines.pop()).toBe("");
      const header = JSON.parse(lines.shift()!) as { session: { runtimes: string[] } };
      expect(header.session.runtimes).toEqual([`node ${process.version}`, expect.stringMatching(/^python 3\.\d+\.\d+ \(\S+, from PATH\)$/)]);
      const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      const burst = records.filter((record) => JSON.stringify(record.arguments).includes("burst-"));
      expect(burst).toHaveLength(200);
      for (const { name, args } of calls) {
        const record = burst.find((entry) => JSON.stringify(entry.arguments) === JSON.stringify(args))!;
        expect(record.tool).toBe(name);
        expect("error" in record).toBe(name === "fail");
      }
      const crash = records.find((record) => record.tool === "exit_now")!;
      expect(crash.error).toEqual({ code: "TOOL_FAILED", message: "tool 'exit_now' failed: the tool process exited (code 1) while the call ran" });
    });
  });
}

describe.skipIf(skipBecause(noPython))("hermit serve without Python", () => {
  it("exits 2 with PYTHON_UNAVAILABLE naming the tool, before serving anything", async () => {
    await ensureBuilt();
    const adapter = await testdir(pythonTree());
    const child = spawn(process.execPath, [hermitCli, "serve", "--adapter", adapter], {
      env: { ...process.env, PATH: await tempDir() }, // an empty folder: no python3
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/PYTHON_UNAVAILABLE: tool 'count_words' \(entrypoint tools\.py:count_words\) needs Python 3\.8 or later, and no python3 is on PATH; install it, or set HERMIT_PYTHON/);
  });
});
