import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../helpers.js";
import { ensureBuilt, fixtureAdapter, hermitCli } from "./fixture.js";
import { connectStdio, serveArgs, serverSuite } from "./server-suite.js";

serverSuite("stdio", (setup) => connectStdio(serveArgs(setup)));

/** A raw stdio session: write lines, read every stdout line as JSON. */
class RawSession {
  readonly lines: unknown[] = [];
  private waiters: Array<() => void> = [];
  stderr = "";

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on("line", (line) => {
      this.lines.push(JSON.parse(line)); // a line that is not JSON fails the test here
      this.waiters.splice(0).forEach((wake) => wake());
    });
    child.stderr.on("data", (chunk: Buffer) => (this.stderr += chunk.toString("utf8")));
  }

  send(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** The first response with this id (null for the id-less error responses, in order). */
  async response(id: string | number | null, nth = 0): Promise<Record<string, unknown>> {
    for (;;) {
      const found = this.lines.filter((line) => (line as { id?: unknown }).id === id)[nth];
      if (found) return found as Record<string, unknown>;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }
}

describe("hermit serve over stdio, malformed input", () => {
  let session: RawSession;

  beforeAll(async () => {
    await ensureBuilt();
    const adapter = await fixtureAdapter();
    session = new RawSession(spawn(process.execPath, [hermitCli, "serve", "--adapter", adapter], { stdio: "pipe" }));
  });
  afterAll(() => {
    session?.child.kill();
  });

  it("answers garbage with JSON-RPC errors and keeps serving", async () => {
    session.send("this is not json");
    expect((await session.response(null, 0)).error).toMatchObject({ code: -32700 });
    session.send('{"jsonrpc":"2.0","id":7,"params":{}}');
    expect((await session.response(7)).error).toMatchObject({ code: -32600 });
    session.send('{"foo": 1}');
    expect((await session.response(null, 1)).error).toMatchObject({ code: -32600 });
    session.send("[1, 2, 3]");
    expect((await session.response(null, 2)).error).toMatchObject({ code: -32600 });
    session.send("");

    session.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      }),
    );
    expect((await session.response(1)).result).toMatchObject({ serverInfo: { name: "runtime-fixture", version: "1.2.3" } });
    session.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    session.send('{"jsonrpc":"2.0","id":2,"method":"no/such/method"}');
    expect((await session.response(2)).error).toMatchObject({ code: -32601 });
    session.send('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"noisy","arguments":{}}}');
    expect((await session.response(3)).result).toMatchObject({ structuredContent: { quiet: false } });
    session.send('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"count_words"');
    expect((await session.response(null, 3)).error).toMatchObject({ code: -32700 });
    session.send('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"count_words","arguments":{"text":"a b"}}}');
    expect((await session.response(5)).result).toMatchObject({ structuredContent: { count: 2 } });
    // Every stdout line was a JSON-RPC message (the parse above would have thrown otherwise).
    expect(session.lines.every((line) => (line as { jsonrpc?: string }).jsonrpc === "2.0")).toBe(true);
    expect(session.child.exitCode).toBeNull();
  });

  it("exits cleanly when stdin closes", async () => {
    const exited = new Promise<number | null>((resolve) => session.child.once("exit", (code) => resolve(code)));
    session.child.stdin.end();
    expect(await exited).toBe(0);
    expect(session.stderr).toContain(`hermit serve: runtime-fixture 1.2.3: 19 tool(s) (node ${process.version}) on stdio`);
  });
});

describe("hermit serve over stdio, the direct lane of tools/call", () => {
  let session: RawSession;
  let auditLog: string;
  const call = (id: number, params: Record<string, unknown>) => session.send(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params }));
  const auditErrors = async (tool: string) =>
    (await readFile(auditLog, "utf8").catch(() => ""))
      .split("\n")
      .filter((line) => line.includes(`"tool":"${tool}"`))
      .map((line) => (JSON.parse(line) as { error?: unknown }).error);

  beforeAll(async () => {
    await ensureBuilt();
    const adapter = await fixtureAdapter();
    auditLog = join(await tempDir(), "audit.jsonl");
    session = new RawSession(spawn(process.execPath, [hermitCli, "serve", "--adapter", adapter, "--audit-log", auditLog], { stdio: "pipe" }));
  });
  afterAll(() => {
    session?.child.kill();
  });

  it("answers a plain call byte for byte as the SDK's path answers the same call", async () => {
    // The lane takes the plain call and the one with a progress token; an unknown params key
    // (which the SDK's schema strips) sends the third through the SDK.
    for (const [name, args] of [
      ["count_words", { text: "a b c" }],
      ["upper", { text: "x" }],
      ["fail", { reason: "boom" }],
      ["count_words", { text: 3 }],
    ] as const) {
      call(10, { name, arguments: args });
      call(11, { name, arguments: args, _meta: { progressToken: "p" } });
      call(12, { name, arguments: args, unknownKey: true });
      const [plain, meta, viaSdk] = [await session.response(10), await session.response(11), await session.response(12)];
      expect(JSON.stringify(plain.result)).toBe(JSON.stringify(viaSdk.result));
      expect(JSON.stringify(meta.result)).toBe(JSON.stringify(viaSdk.result));
      session.lines.splice(0);
    }
  });

  it("stops a call the client cancels: no answer, and the audit log records TOOL_CANCELLED", async () => {
    call(20, { name: "sleep", arguments: { ms: 60_000 } });
    session.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 20, reason: "enough" } }));
    await expect.poll(() => auditErrors("sleep")).toEqual([{ code: "TOOL_CANCELLED", message: "tool 'sleep' cancelled by the client" }]);
    call(21, { name: "count_words", arguments: { text: "still here" } });
    expect((await session.response(21)).result).toMatchObject({ structuredContent: { count: 2 } });
    expect(session.lines.filter((line) => (line as { id?: unknown }).id === 20)).toEqual([]);
  });

  it("cancels a call still running when stdin closes, logs it, and exits 0", async () => {
    call(30, { name: "echo_later", arguments: { text: "late", delayMs: 60_000 } });
    const exited = new Promise<number | null>((resolve) => session.child.once("exit", (code) => resolve(code)));
    session.child.stdin.end();
    expect(await exited).toBe(0);
    expect(await auditErrors("echo_later")).toEqual([{ code: "TOOL_CANCELLED", message: "tool 'echo_later' cancelled by the client" }]);
    expect(session.lines.filter((line) => (line as { id?: unknown }).id === 30)).toEqual([]);
  });
});
