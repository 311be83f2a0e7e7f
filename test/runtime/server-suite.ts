/**
 * The behaviour every transport of `hermit serve` must show, driven with the SDK's real
 * `Client`. `serve-stdio.test.ts` and `serve-http.test.ts` run it against a `hermit serve`
 * child process on their transport.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../helpers.js";
import { declaredTools, ensureBuilt, fixtureAdapter, hermitCli } from "./fixture.js";

/** Per-call limit the suite's servers run with; the slow tools exceed it. */
export const SUITE_TIMEOUT_MS = 1500;

export interface ServerUnderTest {
  client: Client;
  /** Everything the server wrote on stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

export interface SuiteSetup {
  adapter: string;
  auditLog: string;
  resourcesFile: string;
  evidence: string;
}

/** `hermit serve` argv (after node) for a suite setup. */
export function serveArgs(setup: SuiteSetup, extra: string[] = []): string[] {
  return [
    hermitCli,
    "serve",
    "--adapter",
    setup.adapter,
    "--audit-log",
    setup.auditLog,
    "--resources",
    setup.resourcesFile,
    "--timeout-ms",
    String(SUITE_TIMEOUT_MS),
    ...extra,
  ];
}

/** `hermit serve` (argv after node) on stdio, with the SDK's client connected. */
export async function connectStdio(args: string[]): Promise<ServerUnderTest> {
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: "pipe" });
  let stderr = "";
  transport.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "hermit-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** Start `hermit serve ... --http 0` and read the URL it prints on stderr. */
export async function startHttp(args: string[]): Promise<{ child: ChildProcess; url: URL; stderr: () => string }> {
  const child = spawn(process.execPath, [...args, "--http", "0"], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  let stdout = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  const url = await new Promise<URL>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      const match = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (match) resolve(new URL(match[1]!));
    });
    child.once("exit", (code) => reject(new Error(`hermit serve exited with ${code}: ${stderr}`)));
  });
  expect(stdout).toBe("");
  return { child, url, stderr: () => stderr };
}

/** `hermit serve` (argv after node) over Streamable HTTP, with the SDK's client connected. */
export async function connectHttp(args: string[]): Promise<ServerUnderTest> {
  const { child, url, stderr } = await startHttp(args);
  const client = new Client({ name: "hermit-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url));
  return {
    client,
    stderr,
    async close() {
      await client.close();
      child.kill("SIGTERM");
    },
  };
}

export const text = (result: CallToolResult) =>
  result.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");

export function serverSuite(transport: string, start: (setup: SuiteSetup) => Promise<ServerUnderTest>): void {
  describe(`hermit serve over ${transport}`, () => {
    let server: ServerUnderTest;
    let setup: SuiteSetup;
    const call = async (name: string, args: Record<string, unknown> = {}) =>
      (await server.client.callTool({ name, arguments: args })) as CallToolResult;
    const expectAlive = async () => {
      expect((await call("count_words", { text: "still here" })).structuredContent).toEqual({ count: 2 });
    };

    beforeAll(async () => {
      await ensureBuilt();
      const dir = await tempDir();
      setup = {
        adapter: await fixtureAdapter(),
        auditLog: join(dir, "logs", "audit.jsonl"),
        resourcesFile: join(dir, "resources.json"),
        evidence: join(dir, "evidence"),
      };
      await writeFile(setup.resourcesFile, JSON.stringify({ evidence: "evidence", team: "blue", limits: { max: 3 } }));
      server = await start(setup);
    });
    afterAll(async () => {
      await server?.close();
    });

    it("lists exactly the declared tools with their schemas unchanged", async () => {
      const { tools } = await server.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(declaredTools.map((tool) => tool.name));
      for (const declared of declaredTools) {
        const listed = tools.find((tool) => tool.name === declared.name)!;
        expect(listed.description).toBe(declared.description);
        if (declared.name === "show_resources") continue; // checked below: _resources is removed
        expect(listed.inputSchema).toStrictEqual(declared.input_schema);
        expect(listed.outputSchema).toStrictEqual(declared.output_schema);
      }
    });

    it("never publishes the reserved _resources parameter", async () => {
      const { tools } = await server.client.listTools();
      const listed = tools.find((tool) => tool.name === "show_resources")!;
      expect(listed.inputSchema).toStrictEqual({
        type: "object",
        properties: { label: { type: "string" } },
        required: ["label"],
        additionalProperties: false,
      });
    });

    it("runs a sync tool: structured content plus a text rendering", async () => {
      const result = await call("count_words", { text: "one two  three" });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ count: 3 });
      expect(JSON.parse(text(result))).toEqual({ count: 3 });
    });

    it("runs an async tool", async () => {
      const result = await call("echo_later", { text: "later", delayMs: 20 });
      expect(result.structuredContent).toEqual({ text: "later" });
    });

    it("renders a result that is not an object as text", async () => {
      const result = await call("upper", { text: "loud" });
      expect(result.isError).toBeFalsy();
      expect(text(result)).toBe("LOUD");
      expect(result.structuredContent).toBeUndefined();
    });

    it("loads JavaScript entrypoints and the adapter's own node_modules", async () => {
      expect(text(await call("shout_mjs", { text: "hey" }))).toBe("hey!");
      expect((await call("twice_js", { text: "ab" })).structuredContent).toEqual({ text: "ab ab" });
    });

    it("answers bad arguments with an error result naming the path", async () => {
      const wrongType = await call("count_words", { text: 42 });
      expect(wrongType.isError).toBe(true);
      expect(text(wrongType)).toBe("invalid arguments for tool 'count_words': arguments/text: must be string");
      const missing = await call("count_words", {});
      expect(text(missing)).toContain("arguments: must have required property 'text'");
      const extra = await call("echo_later", { text: "x", delayMs: -1, colour: "red" });
      expect(text(extra)).toContain("arguments/delayMs: must be >= 0");
      expect(text(extra)).toContain("must NOT have additional properties");
      await expectAlive();
    });

    it("refuses a caller's _resources", async () => {
      const result = await call("show_resources", { label: "x", _resources: { evidence: "/" } });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain("arguments/_resources: is reserved");
      await expectAlive();
    });

    it("binds the resources file for tools that declare _resources", async () => {
      const result = await call("show_resources", { label: "r" });
      expect(result.structuredContent).toEqual({
        label: "r",
        resources: { evidence: setup.evidence, team: "blue", limits: { max: 3 } },
      });
      expect((await call("destructured_resources", { label: "d" })).structuredContent).toEqual({
        label: "d",
        evidence: setup.evidence,
      });
      expect((await call("no_resources")).structuredContent).toEqual({ argumentCount: 1 });
    });

    it("returns thrown and rejected errors as error results and stays up", async () => {
      const thrown = await call("fail", { reason: "sync" });
      expect(thrown.isError).toBe(true);
      expect(text(thrown)).toBe("tool 'fail' failed: boom: sync");
      await expectAlive();
      const rejected = await call("reject", { reason: "async" });
      expect(rejected.isError).toBe(true);
      expect(text(rejected)).toBe("tool 'reject' failed: rejected: async");
      await expectAlive();
    });

    it("checks results against the output schema", async () => {
      const result = await call("bad_output");
      expect(result.isError).toBe(true);
      expect(text(result)).toBe("tool 'bad_output' returned an invalid result: result/count: must be integer");
      await expectAlive();
    });

    it("answers an unknown tool with an error result", async () => {
      const result = await call("no_such_tool");
      expect(result.isError).toBe(true);
      expect(text(result)).toContain("unknown tool 'no_such_tool'");
      await expectAlive();
    });

    it("times out a slow async tool and stays up", async () => {
      const result = await call("sleep", { ms: 600_000 });
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(`tool 'sleep' timed out after ${SUITE_TIMEOUT_MS} ms`);
      await expectAlive();
    });

    it("times out a sync tool that blocks its thread, and the next call still works", async () => {
      const [blocked, queued] = await Promise.all([
        call("spin"),
        // Sent while the thread is blocked: it must run on the fresh thread, not fail.
        new Promise<CallToolResult>((resolve) => setTimeout(() => resolve(call("count_words", { text: "queued" })), 100)),
      ]);
      expect(blocked.isError).toBe(true);
      expect(text(blocked)).toBe(`tool 'spin' timed out after ${SUITE_TIMEOUT_MS} ms`);
      expect(text(queued)).toBe('{"count":1}');
      expect(queued.structuredContent).toEqual({ count: 1 });
      await expectAlive();
    });

    it("keeps a tool's console output off the protocol channel", async () => {
      expect((await call("noisy")).structuredContent).toEqual({ quiet: false });
      await expectAlive();
      await expect.poll(() => server.stderr()).toContain("noise on stdout");
    });

    it("survives a burst of 200 concurrent calls and logs each one intact", async () => {
      const calls = Array.from({ length: 200 }, (_, index) => {
        const marker = `burst-${index}`;
        if (index % 5 === 4) return { index, name: "fail", args: { reason: marker } };
        if (index % 2 === 0) return { index, name: "count_words", args: { text: `${marker} ${"w ".repeat(index % 7)}` } };
        return { index, name: "echo_later", args: { text: marker, delayMs: index % 13 } };
      });
      const results = await Promise.all(calls.map(({ name, args }) => call(name, args)));
      for (const [position, { index, name, args }] of calls.entries()) {
        const result = results[position]!;
        if (name === "fail") expect(text(result)).toBe(`tool 'fail' failed: boom: burst-${index}`);
        else if (name === "count_words") expect(result.structuredContent).toEqual({ count: 1 + (index % 7) });
        else expect(result.structuredContent).toEqual({ text: `burst-${index}` });
      }
      const lines = (await readFile(setup.auditLog, "utf8")).split("\n");
      expect(lines.pop()).toBe(""); // every line, the last included, is complete
      // The first line says what ran the calls: no sandbox here, and the runtime it used.
      const header = JSON.parse(lines.shift()!) as { session: Record<string, unknown> };
      expect(header.session).toMatchObject({ via: "serve", adapter: setup.adapter, name: "runtime-fixture", sandbox: false });
      expect(header.session.runtimes).toEqual([`node ${process.version}`]);
      const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      for (const record of records) {
        expect(Object.keys(record)).toEqual(["time", "tool", "arguments", "error" in record ? "error" : "result", "duration_ms"]);
        expect(Number.isNaN(Date.parse(record.time as string))).toBe(false);
        expect(record.duration_ms).toBeGreaterThanOrEqual(0);
      }
      const burst = records.filter((record) => JSON.stringify(record.arguments).includes("burst-"));
      expect(burst).toHaveLength(200);
      for (const { index, name, args } of calls) {
        const record = burst.find((entry) => JSON.stringify(entry.arguments) === JSON.stringify(args))!;
        expect(record.tool).toBe(name);
        if (name === "fail") {
          expect(record.error).toEqual({ code: "TOOL_FAILED", message: `tool 'fail' failed: boom: burst-${index}` });
        } else {
          expect(record.result).toEqual(name === "count_words" ? { count: 1 + (index % 7) } : { text: `burst-${index}` });
        }
      }
      const timeout = records.find((record) => record.tool === "sleep")!;
      expect(timeout.error).toEqual({ code: "TOOL_TIMEOUT", message: `tool 'sleep' timed out after ${SUITE_TIMEOUT_MS} ms` });
    });
  });
}
