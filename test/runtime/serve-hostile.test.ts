/**
 * `hermit serve` and `Session` against tools and clients that try to break them: tools that
 * write straight to file descriptor 1 or return huge values, malformed `tools/call` params,
 * inherited names as entrypoints, foreign Host and Origin headers, incomplete tool calls.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Session } from "../../src/runtime/session.js";
import { noBwrap, skipBecause, testdir } from "../helpers.js";
import { ensureBuilt, hermitCli } from "./fixture.js";

const TOOLS = `import { writeSync } from "node:fs";
import { spawnSync } from "node:child_process";

export function rawFd() {
  writeSync(1, "RAW ON FD 1\\n");
  return { wrote: true };
}

export function inheritStdio() {
  spawnSync("echo", ["FROM A CHILD WITH INHERITED STDIO"], { stdio: "inherit" });
  return { spawned: true };
}

export function huge() {
  return "x".repeat(9 * 1024 * 1024);
}

export function big() {
  return "x".repeat(5 * 1024 * 1024);
}

export function echo(args: unknown) {
  return { args };
}
`;

const tool = (name: string, entrypoint: string, input_schema: object = { type: "object" }) => ({
  name,
  description: `The ${name} tool.`,
  entrypoint,
  input_schema,
});

function hostileTree(tools = TOOLS, entry = "tools.ts:rawFd") {
  return {
    "adapter.yaml": stringify({
      contract: "1.0.0",
      name: "hostile",
      version: "0.0.1",
      description: "Tools that misbehave.",
      exports: {
        tools: [
          tool("raw_fd", entry),
          tool("inherit_stdio", "tools.ts:inheritStdio"),
          tool("huge", "tools.ts:huge"),
          tool("big", "tools.ts:big"),
          tool("echo", "tools.ts:echo"),
          tool("strict", "tools.ts:echo", { type: "object", properties: { a: { type: "integer" } }, additionalProperties: false }),
        ],
      },
    }),
    "ADAPTER.md": "# Hostile\n",
    "tools.ts": tools,
  };
}

/** `hermit serve` over stdio, read line by line; every stdout line must be JSON. */
class RawServer {
  readonly lines: Array<Record<string, unknown>> = [];
  readonly nonJson: string[] = [];
  stderr = "";
  private waiters: Array<() => void> = [];
  readonly child: ChildProcess;

  constructor(adapter: string) {
    this.child = spawn(process.execPath, [hermitCli, "serve", "--adapter", adapter], { stdio: "pipe" });
    createInterface({ input: this.child.stdout! }).on("line", (line) => {
      try {
        this.lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        this.nonJson.push(line);
      }
      this.waiters.splice(0).forEach((wake) => wake());
    });
    this.child.stderr!.on("data", (chunk: Buffer) => (this.stderr += chunk.toString("utf8")));
  }

  send(message: object): void {
    this.child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  }

  async response(id: number): Promise<Record<string, unknown>> {
    for (;;) {
      const found = this.lines.find((line) => line.id === id);
      if (found) return found;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  async call(id: number, params: unknown): Promise<Record<string, unknown>> {
    this.send({ id, method: "tools/call", params });
    return this.response(id);
  }
}

describe("hermit serve over stdio, hostile tools and params", () => {
  let server: RawServer;
  let nextId = 100;

  beforeAll(async () => {
    await ensureBuilt();
    server = new RawServer(await testdir(hostileTree()));
    server.send({
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    await server.response(0);
  });
  afterAll(() => {
    server?.child.kill();
  });

  it("keeps what tools write to file descriptor 1 (directly or through a child) off the protocol", async () => {
    expect((await server.call(1, { name: "raw_fd", arguments: {} })).result).toMatchObject({ structuredContent: { wrote: true } });
    expect((await server.call(2, { name: "inherit_stdio", arguments: {} })).result).toMatchObject({
      structuredContent: { spawned: true },
    });
    expect(server.nonJson).toEqual([]);
    expect(server.stderr).toContain("RAW ON FD 1\n");
    expect(server.stderr).toContain("FROM A CHILD WITH INHERITED STDIO\n");
  });

  it("refuses a result too large to send, and answers the next call", async () => {
    const result = (await server.call(3, { name: "huge", arguments: {} })).result as Record<string, unknown>;
    expect(result).toMatchObject({ isError: true, _meta: { "hermit/error": "TOOL_RESULT_INVALID" } });
    expect(JSON.stringify(result.content)).toContain("characters of JSON, over the limit of 8388608");
    expect((await server.call(4, { name: "echo", arguments: { a: 1 } })).result).toMatchObject({
      structuredContent: { args: { a: 1 } },
    });
  });

  it.each([
    ["arguments that are an array", { name: "echo", arguments: [1] }],
    ["arguments that are null", { name: "echo", arguments: null }],
    ["a name that is a number", { name: 5 }],
    ["no params at all", undefined],
  ])("answers %s with -32602 Invalid params", async (_what, params) => {
    const id = nextId++;
    const answer = await server.call(id, params);
    expect(answer.error).toMatchObject({ code: -32602 });
    expect((answer.error as { message: string }).message).toContain("Invalid tools/call request");
  });

  it("checks arguments exactly as sent: an own __proto__ key is an additional property", async () => {
    server.child.stdin!.write(
      '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"strict","arguments":{"a":1,"__proto__":{"a":"x"}}}}\n',
    );
    const result = (await server.response(5)).result as Record<string, unknown>;
    expect(result).toMatchObject({ isError: true, _meta: { "hermit/error": "TOOL_ARGUMENTS_INVALID" } });
    expect(JSON.stringify(result.content)).toContain("must NOT have additional properties");
  });
});

describe("hermit serve with the SDK's client", () => {
  it("refuses an answer the client could not read (over 8 MiB), and the client stays connected", async () => {
    await ensureBuilt();
    const adapter = await testdir(hostileTree());
    const transport = new StdioClientTransport({ command: process.execPath, args: [hermitCli, "serve", "--adapter", adapter], stderr: "pipe" });
    const client = new Client({ name: "hermit-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: "big", arguments: {} });
      expect(result).toMatchObject({ isError: true, _meta: { "hermit/error": "TOOL_RESULT_INVALID" } });
      expect(JSON.stringify(result.content)).toMatch(/its MCP answer is \d+ bytes, over the limit of 8388608/);
      expect(await client.callTool({ name: "echo", arguments: { a: 1 } })).toMatchObject({ structuredContent: { args: { a: 1 } } });
    } finally {
      await client.close();
    }
  });
});

describe("hermit serve start-up", () => {
  beforeAll(ensureBuilt);

  it.each(["constructor", "toString"])("refuses the inherited member tools.ts:%s as an entrypoint (exit 2)", async (name) => {
    const adapter = await testdir(hostileTree(TOOLS, `tools.ts:${name}`));
    const child = spawn(process.execPath, [hermitCli, "serve", "--adapter", adapter], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain(`tool 'raw_fd' (entrypoint tools.ts:${name}): tools.ts has no exported function '${name}'`);
  });
});

/** One raw HTTP request. */
function send(url: URL, method: string, body: string | undefined, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, { method, headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("hermit serve over HTTP, foreign headers and bodies", () => {
  let child: ChildProcess;
  let url: URL;
  const init = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });

  beforeAll(async () => {
    await ensureBuilt();
    const adapter = await testdir(hostileTree());
    child = spawn(process.execPath, [hermitCli, "serve", "--adapter", adapter, "--http", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    url = await new Promise<URL>((resolve, reject) => {
      child.stderr!.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
        const match = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
        if (match) resolve(new URL(match[1]!));
      });
      child.once("exit", (code) => reject(new Error(`hermit serve exited with ${code}: ${stderr}`)));
    });
  });
  afterAll(() => {
    child?.kill("SIGTERM");
  });

  it("answers 403 to a foreign Host on any request, before reading the body", async () => {
    for (const [method, body] of [["GET", undefined], ["POST", "{not json"], ["POST", init], ["DELETE", undefined]] as const) {
      const answer = await send(url, method, body, { host: `evil.example:${url.port}` });
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body).error.message).toBe(`Invalid Host header: evil.example:${url.port}`);
    }
  });

  it("answers 403 to a foreign Origin, and serves a loopback one", async () => {
    const foreign = await send(url, "POST", init, { origin: "http://evil.example" });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body).error.message).toBe("Invalid Origin header: http://evil.example");
    expect((await send(url, "POST", init, { origin: "http://localhost:6274" })).status).toBe(200);
  });

  it("answers JSON that is not JSON-RPC with 400 -32600, inside a session too", async () => {
    const opened = await new Promise<string>((resolve, reject) => {
      const req = request(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" } }, (res) => {
        res.resume();
        res.on("end", () => resolve(String(res.headers["mcp-session-id"])));
      });
      req.on("error", reject);
      req.end(init);
    });
    const headers = { "mcp-session-id": opened, "mcp-protocol-version": "2025-06-18" };
    for (const body of ['{"x":1,"id":7}', "[]", "[1]"]) {
      const answer = await send(url, "POST", body, headers);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body).error.code).toBe(-32600);
    }
    const ping = await send(url, "POST", '{"jsonrpc":"2.0","id":8,"method":"ping"}', headers);
    expect(JSON.parse(ping.body)).toMatchObject({ id: 8, result: {} });
  });
});

describe("Session with malformed tool calls", () => {
  const variants = [{ sandbox: false }, ...(skipBecause(noBwrap) ? [] : [{ sandbox: true }])];

  it.each(variants)("refuses non-object arguments the same way in and out of the sandbox (%j)", async ({ sandbox }) => {
    await ensureBuilt();
    const adapter = await testdir(hostileTree());
    const session = new Session(adapter, { sandbox });
    try {
      const call = { id: "c1", type: "function" as const, function: { name: "echo", arguments: "[1, 2]" } };
      expect(await session.respond(call)).toEqual({
        role: "tool",
        tool_call_id: "c1",
        content: "Error: invalid arguments for tool 'echo': arguments: must be a JSON object",
      });
      const block = await session.respond({ type: "tool_use", id: "t1", name: "echo", input: "not an object" });
      expect(block).toEqual({
        type: "tool_result",
        tool_use_id: "t1",
        content: "invalid arguments for tool 'echo': arguments: must be a JSON object",
        is_error: true,
      });
      await expect(session.call("nope", [] as unknown as Record<string, unknown>)).rejects.toMatchObject({ code: "TOOL_UNKNOWN" });
      // An own __proto__ key reaches the tool as sent, in both modes.
      const parsed = await session.respond({ id: "c2", type: "function", function: { name: "echo", arguments: '{"__proto__":{"x":1},"b":2}' } });
      expect(JSON.parse(parsed.content)).toEqual({ args: JSON.parse('{"__proto__":{"x":1},"b":2}') });
    } finally {
      await session.close();
    }
  });

  it("says what an incomplete tool call lacks", async () => {
    const session = new Session(await testdir(hostileTree()));
    try {
      await expect(session.respond({ type: "function", function: { name: "echo", arguments: "{}" } } as never)).rejects.toMatchObject({
        code: "USAGE",
        message: "respond(): an OpenAI tool call needs a string id",
      });
      await expect(session.respond({ type: "tool_use", name: "echo", input: {} } as never)).rejects.toMatchObject({
        code: "USAGE",
        message: "respond(): an Anthropic tool_use block needs a string id",
      });
      await expect(session.respond({ type: "function_call", name: 3, arguments: "{}" } as never)).rejects.toMatchObject({
        code: "USAGE",
        message: "respond(): an OpenAI Responses function_call needs a string call_id and a string name",
      });
    } finally {
      await session.close();
    }
  });
});
