/**
 * Processes a tool starts, attached, detached (a new session) or daemonized (its parent gone,
 * a session of its own), die with the server that ran the tool: when stdin closes, on SIGTERM,
 * on SIGINT, when the server is killed outright, and when a Session closes.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { stringify } from "yaml";
import { beforeAll, describe, expect, it } from "vitest";
import { Session } from "../../src/runtime/session.js";
import { skipBecause, testdir } from "../helpers.js";
import { ensureBuilt, hermitCli } from "./fixture.js";
import { noPython } from "./python-fixture.js";

const TOOLS = `import { spawn, spawnSync } from "node:child_process";

export function spawnChildren() {
  const attached = spawn("sleep", ["1000"], { stdio: "ignore" });
  const detached = spawn("sleep", ["1001"], { stdio: "ignore", detached: true });
  detached.unref();
  // A daemon: started by a shell that exits at once (its parent is gone), in a session of its own.
  const daemon = spawnSync("sh", ["-c", "setsid sleep 1002 </dev/null >/dev/null 2>&1 & echo $!"], { encoding: "utf8" });
  return { pids: [attached.pid, detached.pid, Number(daemon.stdout.trim())] };
}
`;

/** The same three kinds of process, started by a Python tool. */
const TOOLS_PY = `import subprocess


def spawn_children():
    attached = subprocess.Popen(["sleep", "1000"])
    detached = subprocess.Popen(["sleep", "1001"], start_new_session=True)
    daemon = subprocess.run(["sh", "-c", "setsid sleep 1002 </dev/null >/dev/null 2>&1 & echo $!"], capture_output=True, text=True)
    return {"pids": [attached.pid, detached.pid, int(daemon.stdout.strip())]}
`;

function tree(language: "ts" | "py" = "ts") {
  const entrypoint = language === "ts" ? "tools.ts:spawnChildren" : "tools.py:spawn_children";
  return {
    "adapter.yaml": stringify({
      contract: "1.0.0",
      name: "spawner",
      version: "0.0.1",
      description: "Starts processes.",
      exports: { tools: [{ name: "spawn_children", description: "Start three sleeps.", entrypoint, input_schema: { type: "object" } }] },
    }),
    "ADAPTER.md": "# Spawner\n",
    ...(language === "ts" ? { "tools.ts": TOOLS } : { "tools.py": TOOLS_PY }),
  };
}

/** Running, and not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

async function expectGone(pids: number[]): Promise<void> {
  await expect.poll(() => pids.filter(alive), { timeout: 10_000, interval: 100 }).toEqual([]);
}

/** Start `hermit serve` over stdio, call the tool, return the children's pids and the server. */
async function serveAndSpawn(adapter: string) {
  const server = spawn(process.execPath, [hermitCli, "serve", "--adapter", adapter, "--quiet"], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: server.stdout! });
  const answers = new Map<number, Record<string, unknown>>();
  const waiting = new Map<number, () => void>();
  lines.on("line", (line) => {
    const message = JSON.parse(line) as { id: number };
    answers.set(message.id, message);
    waiting.get(message.id)?.();
  });
  const request = (id: number, method: string, params: object) => {
    server.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    return new Promise<Record<string, unknown>>((resolve) => {
      if (answers.has(id)) resolve(answers.get(id)!);
      else waiting.set(id, () => resolve(answers.get(id)!));
    });
  };
  await request(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } });
  const result = (await request(2, "tools/call", { name: "spawn_children", arguments: {} })) as { result: { structuredContent: { pids: number[] } } };
  const pids = result.result.structuredContent.pids;
  expect(pids.filter(alive)).toEqual(pids);
  const exited = new Promise<number | null>((resolve) => server.once("exit", (code) => resolve(code)));
  return { server, pids, exited };
}

// Python tools too, where a python3 3.8+ is on PATH (skipBecause prints why not).
const languages = skipBecause(noPython) ? (["ts"] as const) : (["ts", "py"] as const);

describe.skipIf(process.platform !== "linux").each(languages)("what a tool (%s) starts dies with the server", (language) => {
  let adapter: string;
  beforeAll(async () => {
    await ensureBuilt();
    adapter = await testdir(tree(language));
  });

  it("when stdin closes", async () => {
    const { server, pids, exited } = await serveAndSpawn(adapter);
    server.stdin!.end();
    expect(await exited).toBe(0);
    await expectGone(pids);
  });

  it.each(["SIGTERM", "SIGINT"] as const)("on %s", async (signal) => {
    const { server, pids, exited } = await serveAndSpawn(adapter);
    server.kill(signal);
    expect(await exited).toBe(0);
    await expectGone(pids);
  });

  it("when the server is killed outright (SIGKILL): the tool process ends its own", async () => {
    const { server, pids, exited } = await serveAndSpawn(adapter);
    server.kill("SIGKILL");
    await exited;
    await expectGone(pids);
  });

  it("when a Session closes", async () => {
    const session = new Session(adapter);
    const { pids } = (await session.call("spawn_children")) as { pids: number[] };
    expect(pids.filter(alive)).toEqual(pids);
    await session.close();
    await expectGone(pids);
  });
});
