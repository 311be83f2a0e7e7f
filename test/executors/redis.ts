/**
 * A real Redis for the queue tests: `redis-server` (Debian's, installed by .ci/run) on a free
 * loopback port in a temp dir, no persistence, `noeviction` (BullMQ's requirement); stopped,
 * or restarted empty on the same port (a Redis restart that lost its data). And `hermit worker`
 * child processes (dist/cli.js) whose stderr is kept for assertions. Free of vitest, so
 * bench/queue.ts uses it too.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const repoRoot = join(import.meta.dirname, "..", "..");

const which = spawnSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" });
/** Why the queue tests cannot run here (undefined: they can). */
export const noRedis = which.status === 0 ? undefined : "redis-server is not installed (.ci/run installs Debian's redis-server)";

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface TestRedis {
  url: string;
  port: number;
  /** Stop the server (SIGKILL: nothing saved) and start a new, empty one on the same port. */
  restart(): Promise<void>;
  /** Stop the server (SIGKILL: nothing saved), keeping its port for `up`. */
  down(): Promise<void>;
  /** Start a new, empty server on the same port. */
  up(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  const dir = await mkdtemp(join(tmpdir(), "hermit-redis-"));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = async () => {
    const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction", "--dir", dir];
    const started = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
    child = started;
    await new Promise<void>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 10_000);
      started.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("Ready to accept connections")) {
          clearTimeout(timer);
          resolve();
        }
      });
      started.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
    });
  };
  const kill = async () => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once("exit", () => resolve());
      running.kill("SIGKILL");
    });
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    restart: async () => {
      await kill();
      await launch();
    },
    down: kill,
    up: launch,
    stop: async () => {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface TestWorker {
  child: ChildProcess;
  /** Everything it wrote on stderr so far. */
  log(): string;
  /** Resolves when its stderr matches `pattern`. */
  waitFor(pattern: RegExp, ms?: number): Promise<void>;
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<number | null>;
}

/** `hermit worker --redis URL …` as a child process, started once it says it is taking rollouts. */
export async function startWorker(url: string, args: string[] = [], cwd = repoRoot): Promise<TestWorker> {
  const child = spawn(process.execPath, [join(repoRoot, "dist", "cli.js"), "worker", "--redis", url, ...args], { cwd, stdio: ["ignore", "ignore", "pipe"] });
  let text = "";
  const waiters: Array<() => void> = [];
  child.stderr!.on("data", (chunk: Buffer) => {
    text += chunk.toString();
    for (const waiter of waiters.splice(0)) waiter();
  });
  const waitFor = (pattern: RegExp, ms = 20_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`worker never printed ${pattern}; stderr:\n${text}`)), ms);
      const check = () => {
        if (pattern.test(text)) {
          clearTimeout(timer);
          resolve();
        } else if (child.exitCode !== null || child.signalCode !== null) {
          clearTimeout(timer);
          reject(new Error(`worker exited (${child.exitCode}) before printing ${pattern}; stderr:\n${text}`));
        } else waiters.push(check);
      };
      check();
    });
  await waitFor(/taking rollouts from/);
  return {
    child,
    log: () => text,
    waitFor,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once("exit", (code) => resolve(code));
        child.kill("SIGTERM");
      }),
  };
}
