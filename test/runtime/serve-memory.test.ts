/**
 * `hermit serve` under memory pressure: 400 concurrent calls of a tool returning a large
 * value, a client that stops reading its answers, and tools that allocate without end. The
 * server must stay up, answer every call, and keep its memory bounded. (The unbounded server
 * ran every call at once and held every answer: with 3 MiB values it reached 4.9 GB and
 * died. The values here are smaller so that the test stays quick on a busy machine; what is
 * checked is that calls are held back, not how much memory a machine has.)
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir, testdir } from "../helpers.js";
import { ensureBuilt, hermitCli } from "./fixture.js";

const MIB = 1024 * 1024;
/** The server's peak resident memory may not pass this (it grows with every answer held otherwise). */
const SERVER_MEMORY_BOUND = 400 * MIB;
/** Calls a server may run while its client reads nothing: the calls in flight, and a few answers a pipe holds. */
const HELD_BACK_BOUND = 64;

const TOOLS = `import { appendFileSync } from "node:fs";

/** Returns 256 KiB, and notes each run in RUN_LOG (how the test counts the calls that ran). */
export function big({ index }: { index: number }) {
  appendFileSync(process.env.RUN_LOG!, \`\${index}\\n\`);
  return String(index).padEnd(256 * 1024, "x");
}

export function hoard() {
  const kept: number[][] = [];
  for (;;) kept.push(new Array(10_000_000).fill(1.5));
}

export function huge() {
  return { length: Buffer.alloc(512 * 1024 * 1024).length };
}

export function echo({ text }: { text: string }) {
  return { text };
}
`;

function tree() {
  const tool = (name: string, entrypoint: string, input_schema: object = { type: "object" }) => ({
    name,
    description: `The ${name} tool.`,
    entrypoint,
    input_schema,
  });
  return {
    "adapter.yaml": stringify({
      contract: "1.0.0",
      name: "memory",
      version: "0.0.1",
      description: "Tools that use memory.",
      exports: {
        tools: [
          tool("big", "tools.ts:big", { type: "object", properties: { index: { type: "integer" } }, required: ["index"] }),
          tool("hoard", "tools.ts:hoard"),
          tool("huge", "tools.ts:huge"),
          tool("echo", "tools.ts:echo", { type: "object", properties: { text: { type: "string" } }, required: ["text"] }),
        ],
      },
    }),
    "ADAPTER.md": "# Memory\n",
    "tools.ts": TOOLS,
  };
}

/** A raw stdio client that reads answer lines without parsing megabytes of JSON. */
class Client {
  readonly child: ChildProcess;
  /** id → the answer's first 300 characters and its length. */
  readonly answers = new Map<number, { head: string; length: number }>();
  private pending: Buffer[] = [];
  private waiters: Array<() => void> = [];

  constructor(adapter: string, runLog: string) {
    this.child = spawn(process.execPath, [hermitCli, "serve", "--adapter", adapter, "--timeout", "60s", "--tool-memory", "256"], {
      stdio: "pipe",
      env: { ...process.env, RUN_LOG: runLog },
    });
    this.child.stderr!.resume();
    this.child.stdout!.on("data", (chunk: Buffer) => {
      // Chunks are kept until a line ends: joining strings per chunk would be quadratic.
      for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10)) {
        this.answer(Buffer.concat([...this.pending, chunk.subarray(0, newline)]).toString("utf8"));
        this.pending = [];
        chunk = chunk.subarray(newline + 1);
      }
      if (chunk.length > 0) this.pending.push(chunk);
      this.waiters.splice(0).forEach((wake) => wake());
    });
  }

  private answer(line: string): void {
    // The SDK writes the id last; an answer written the other way round has it first.
    const id = Number((/"id":(\d+)\}$/.exec(line.slice(-40)) ?? /"id":(\d+)[,}]/.exec(line.slice(0, 300)))?.[1]);
    this.answers.set(id, { head: line.slice(0, 300), length: line.length });
  }

  send(message: object): void {
    this.child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  }

  call(id: number, name: string, args: object): void {
    this.send({ id, method: "tools/call", params: { name, arguments: args } });
  }

  async answered(ids: number[]): Promise<void> {
    while (!ids.every((id) => this.answers.has(id))) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** The server's resident memory now, and at its peak (bytes). */
  memory(): { now: number; peak: number } {
    const status = readFileSync(`/proc/${this.child.pid}/status`, "utf8");
    const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
    return { now: kib("VmRSS"), peak: kib("VmHWM") };
  }
}

describe.skipIf(process.platform !== "linux")("hermit serve's memory", () => {
  let client: Client;
  let runLog: string;
  let nextId = 10;
  const ids = (count: number) => Array.from({ length: count }, () => nextId++);
  const runs = async () => (await readFile(runLog, "utf8").catch(() => "")).split("\n").filter(Boolean).length;

  beforeAll(async () => {
    await ensureBuilt();
    runLog = join(await tempDir(), "runs.log");
    client = new Client(await testdir(tree()), runLog);
    client.send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
    await client.answered([1]);
    client.send({ method: "notifications/initialized" });
  });
  afterAll(() => {
    client?.child.kill();
  });

  it("answers 400 concurrent calls of a tool returning 256 KiB, within bounded memory", async () => {
    const batch = ids(400);
    batch.forEach((id, index) => client.call(id, "big", { index }));
    await client.answered(batch);
    for (const [index, id] of batch.entries()) {
      const answer = client.answers.get(id)!;
      expect(answer.head).toContain(`"hermit/value":"${index}xxx`);
      expect(answer.length).toBeGreaterThan(512 * 1024); // the text and the value
    }
    expect(client.memory().peak).toBeLessThan(SERVER_MEMORY_BOUND);
  }, 300_000);

  it("holds calls back while its client reads nothing, and answers everything once it reads again", async () => {
    client.child.stdout!.pause();
    const before = await runs();
    const batch = ids(400);
    batch.forEach((id, index) => client.call(id, "big", { index }));
    // Long enough for an unbounded server to run all 400 calls and hold every answer.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect((await runs()) - before).toBeLessThanOrEqual(HELD_BACK_BOUND);
    expect(client.memory().now).toBeLessThan(SERVER_MEMORY_BOUND);
    client.child.stdout!.resume();
    await client.answered(batch);
    expect((await runs()) - before).toBe(400);
    expect(client.memory().peak).toBeLessThan(SERVER_MEMORY_BOUND);
  }, 300_000);

  it("fails a tool past its memory limit, and serves the next call", async () => {
    const [huge, hoard, echo] = ids(3);
    client.call(huge, "huge", {});
    await client.answered([huge]);
    expect(client.answers.get(huge)!.head).toContain('"isError":true');
    expect(client.answers.get(huge)!.head).toMatch(/allocation failed|out of memory/i);
    client.call(hoard, "hoard", {});
    await client.answered([hoard]);
    expect(client.answers.get(hoard)!.head).toContain("the tool process exited");
    client.call(echo, "echo", { text: "still here" });
    await client.answered([echo]);
    expect(client.answers.get(echo)!.head).toContain('"structuredContent":{"text":"still here"}');
  }, 120_000);
});
