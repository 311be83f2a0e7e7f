/**
 * `hermit train --executor redis://…` with real `hermit worker` processes and a real Redis:
 * the bundled example gives the same history as in-process with every rollout run on the two
 * workers, each counted once; a worker killed with kill -9 mid-rollout has that rollout run
 * again on another worker; a Trainer killed with kill -9 mid-batch is resumed on the queue; Redis
 * down past --queue-patience fails the run with QUEUE_UNAVAILABLE, and --resume once it is back
 * completes it with the in-process history.
 */
import { spawn } from "node:child_process";
import { readFile, readdir, writeFile } from "node:fs/promises";
import { basename } from "node:path";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorCodes } from "../../src/errors.js";
import { TEMP_NAME } from "../../src/fs/atomic.js";
import { exampleAdapter, exampleTemplate, repoRoot, skipBecause, tempDir } from "../helpers.js";
import { ensureBuilt } from "../train/helpers.js";
import { noRedis, startRedis, startWorker, type TestRedis, type TestWorker } from "./redis.js";

const examples = join(repoRoot, "examples");
const sleepTask = join(import.meta.dirname, "fixtures", "sleep-task.ts");

function train(args: string[], cwd = repoRoot, started?: (pid: number) => void): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(repoRoot, "dist", "cli.js"), "train", "--json", ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    started?.(child.pid!);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

interface Line {
  split: string;
  instance: string;
  instanceHash: string;
  task: string;
  trial: number;
  tree: string;
  status: string;
  score: number | null;
  feedback?: string;
  evidenceDir: string;
}

const lines = async (runDir: string) =>
  (await readFile(join(runDir, "rollouts.jsonl"), "utf8"))
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line);

const keyOf = (line: Line) => JSON.stringify([line.tree, line.split, line.instance, line.instanceHash, line.task, line.trial]);

async function filesUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => relative(dir, join(entry.parentPath, entry.name))).sort();
}

describe.skipIf(skipBecause(noRedis))("hermit train --executor redis:// with hermit worker processes", () => {
  let redis: TestRedis;
  const workers: TestWorker[] = [];
  beforeAll(async () => {
    await ensureBuilt();
    redis = await startRedis();
  }, 180_000);
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    await redis?.stop();
  });

  it("the bundled example: the same history as in-process, every rollout run on the two workers, each counted once", async () => {
    const dir = await tempDir();
    const config = join(dir, "train.yaml");
    await writeFile(
      config,
      [`adapter: ${exampleAdapter}`, `template: ${exampleTemplate}`, `task: ${join(examples, "wordcount-task", "task.ts")}`, "evolver:", "  use: select", `  pool: ${join(examples, "pool")}`, "steps: 2", ""].join("\n"),
    );
    const pair = [await startWorker(redis.url, ["--concurrency", "3", "--queue", "example"]), await startWorker(redis.url, ["--concurrency", "3", "--queue", "example"])];
    workers.push(...pair);
    const [local, queued] = await Promise.all([
      train(["--config", config, "--runs-dir", join(dir, "local"), "--run-id", "same"]),
      train(["--config", config, "--runs-dir", join(dir, "queued"), "--run-id", "same", "--executor", `${redis.url}?queue=example`]),
    ]);
    expect(local.code, local.stderr).toBe(0);
    expect(queued.code, queued.stderr).toBe(0);
    const [a, b] = [JSON.parse(local.stdout), JSON.parse(queued.stdout)];
    const history = (result: typeof a) => ({ steps: result.steps.map((step: { status: string; score: number }) => [step.status, step.score]), test: result.test, tag: result.finalTag, rollouts: result.rollouts });
    expect(history(b)).toEqual(history(a));
    expect(b.steps.length).toBe(2);

    const [localLines, queuedLines] = [await lines(a.runDir), await lines(b.runDir)];
    const shown = (items: Line[]) => items.map((line) => [keyOf(line), line.status, line.score, line.feedback]).sort();
    expect(shown(queuedLines)).toEqual(shown(localLines));
    expect(new Set(queuedLines.map(keyOf)).size).toBe(queuedLines.length);
    expect(queuedLines.every((line) => line.status === "ok" && typeof line.score === "number")).toBe(true);
    // The evidence came back into the run, file for file.
    const evidence = async (runDir: string) => filesUnder(join(runDir, "steps"));
    expect(await evidence(b.runDir)).toEqual(await evidence(a.runDir));
    // Every rollout that ran, ran on a worker: both took some, together all.
    const ran = pair.map((worker) => (worker.log().match(/: running same step /g) ?? []).length);
    expect(ran.every((count) => count > 0), pair.map((worker) => worker.log()).join("\n")).toBe(true);
    expect(ran[0]! + ran[1]!).toBe(queuedLines.length);
    await Promise.all(pair.map((worker) => worker.stop()));
  }, 300_000);

  it("a worker killed with kill -9 mid-rollout: another worker runs it, every rollout counted once", async () => {
    const dir = await tempDir();
    const first = await startWorker(redis.url, ["--concurrency", "4", "--stall-timeout", "1s", "--queue", "kill"]);
    workers.push(first);
    const args = ["--adapter", exampleAdapter, "--template", exampleTemplate, "--task", sleepTask, "--evolver", "noop", "--steps", "1", "--accept", "always"];
    const run = train([...args, "--runs-dir", join(dir, "runs"), "--run-id", "killed", "--executor", `${redis.url}?queue=kill`]);
    await first.waitFor(/running killed step 1 train\/t0 /);
    first.child.kill("SIGKILL");
    const second = await startWorker(redis.url, ["--concurrency", "4", "--stall-timeout", "1s", "--queue", "kill"]);
    workers.push(second);
    const result = await run;
    expect(result.code, result.stderr).toBe(0);
    const recorded = await lines(JSON.parse(result.stdout).runDir);
    expect(new Set(recorded.map(keyOf)).size).toBe(recorded.length);
    expect(recorded.every((line) => line.status === "ok" && line.score === 1)).toBe(true);
    const t0 = recorded.filter((line) => line.instance === "t0");
    expect(t0).toHaveLength(1);
    expect(t0[0]!.feedback).toBe(`ran in ${second.child.pid}`);
    expect(second.log()).toMatch(/running killed step 1 train\/t0 /);
    const record = JSON.parse(await readFile(join(JSON.parse(result.stdout).runDir, "run.json"), "utf8"));
    expect(record.rollouts.ran).toBe(recorded.length);
  }, 180_000);

  it("a Trainer killed with kill -9 mid-batch: --resume on the queue completes the run, each rollout recorded once", async () => {
    const dir = await tempDir();
    const worker = await startWorker(redis.url, ["--concurrency", "2", "--queue", "resume"]);
    workers.push(worker);
    const runsDir = join(dir, "runs");
    const common = ["--runs-dir", runsDir, "--executor", `${redis.url}?queue=resume`];
    let pid = 0;
    const first = train(["--adapter", exampleAdapter, "--template", exampleTemplate, "--task", sleepTask, "--task-option", "train=8", "--evolver", "noop", "--steps", "1", "--accept", "always", "--run-id", "resumed", ...common], repoRoot, (started) => (pid = started));
    await worker.waitFor(/resumed step 1 train\/t\d trial 0: ok[\s\S]*resumed step 1 train\/t\d trial 0: ok/);
    process.kill(pid, "SIGKILL");
    expect((await first).code).toBeNull();
    const resumed = await train(["--resume", "resumed", ...common]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).status).toBe("completed");
    const recorded = await lines(join(runsDir, "resumed"));
    const ok = recorded.filter((line) => line.status === "ok");
    expect(new Set(ok.map(keyOf)).size).toBe(ok.length);
    expect(ok.filter((line) => line.split === "train")).toHaveLength(8);
  }, 180_000);

  it("Redis down past --queue-patience: QUEUE_UNAVAILABLE naming Redis and the resume command, run failed, nothing half-written; --resume once it is back completes it as in-process", async () => {
    const dir = await tempDir();
    const worker = await startWorker(redis.url, ["--concurrency", "2", "--queue", "down"]);
    workers.push(worker);
    const runsDir = join(dir, "runs");
    const args = ["--adapter", exampleAdapter, "--template", exampleTemplate, "--task", sleepTask, "--task-option", "train=8", "--evolver", "noop", "--steps", "2", "--accept", "always", "--run-id", "down"];
    const queued = ["--runs-dir", runsDir, "--executor", `${redis.url}?queue=down`, "--queue-patience", "3s"];
    const local = train([...args, "--runs-dir", join(dir, "local")]);
    const first = train([...args, ...queued]);
    await worker.waitFor(/down step 1 train\/t\d trial 0: ok[\s\S]*down step 1 train\/t\d trial 0: ok/);
    await redis.down();
    const failed = await first;
    // Redis stays down until the Trainer has given up: longer than the patience.
    expect(failed.code, failed.stderr).toBe(ErrorCodes.QUEUE_UNAVAILABLE);
    const error = JSON.parse(failed.stdout).error;
    expect(error.code).toBe("QUEUE_UNAVAILABLE");
    expect(error.message).toContain(`Redis at ${redis.url} (queue down) has not answered for`);
    expect(error.message).toMatch(/last error: connect ECONNREFUSED/);
    expect(error.message).toContain("--queue-patience 3s");
    expect(error.message).toContain(`Start Redis again (or fix the network), then continue with: hermit train --resume down --runs-dir ${runsDir}`);
    expect(failed.stderr).toContain("hermit: error QUEUE_UNAVAILABLE: Redis at");

    const runDir = join(runsDir, "down");
    const record = JSON.parse(await readFile(join(runDir, "run.json"), "utf8"));
    expect(record.status).toBe("failed");
    expect(record.reason).toBe(error.message);
    const before = await lines(runDir);
    expect(before.length).toBeGreaterThan(0);
    expect((await readFile(join(runDir, "rollouts.jsonl"), "utf8")).endsWith("\n")).toBe(true);
    expect(record.rollouts.ran).toBe(before.length);
    expect((await filesUnder(runDir)).filter((path) => TEMP_NAME.test(basename(path)))).toEqual([]);

    await redis.up();
    const resumed = await train(["--resume", "down", "--runs-dir", runsDir]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const [a, b] = [JSON.parse((await local).stdout), JSON.parse(resumed.stdout)];
    expect(b.status).toBe("completed");
    const history = (result: typeof a) => ({ steps: result.steps.map((step: { status: string; score: number }) => [step.status, step.score]), test: result.test });
    expect(history(b)).toEqual(history(a));
    const [localLines, queuedLines] = [await lines(a.runDir), await lines(runDir)];
    // Every rollout counted once: the ones recorded before Redis went down are reused, not run again.
    expect(new Set(queuedLines.map(keyOf)).size).toBe(queuedLines.length);
    const shown = (items: Line[]) => items.map((line) => [keyOf(line), line.status, line.score]).sort();
    expect(shown(queuedLines)).toEqual(shown(localLines));
    expect(queuedLines.slice(0, before.length)).toEqual(before);
    expect(JSON.parse(await readFile(join(runDir, "run.json"), "utf8")).rollouts.ran).toBe(queuedLines.length);
  }, 240_000);
});
