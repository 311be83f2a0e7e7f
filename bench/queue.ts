/**
 * The queue executor's scheduling: the same 200 sleep-rollouts (200 ms each, the queue tests'
 * sleep task) in-process at concurrency 4, and through a real Redis on 1, 2 and 4 `hermit
 * worker` processes of concurrency 4. For each: measured time, the ideal (the fewest waves of
 * 200 ms that hold every rollout: ⌈rollouts / rollouts at once⌉ × 200 ms; 200 rollouts on 16
 * slots take 13 waves, the last one half full, so 2.6 s, not 2.5), scheduling efficiency (ideal / measured) and the per-rollout overhead
 * ((measured − ideal) × rollouts at once / rollouts). The goal is on 4 workers.
 */
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createQueueExecutor } from "../src/executors/queue/executor.js";
import type { RolloutExecutor, RolloutJob } from "../src/train/rollouts/executor.js";
import { instanceHash, taskIdentity } from "../src/train/rollouts/key.js";
import { createLocalExecutor } from "../src/train/rollouts/local.js";
import { localServices } from "../src/train/rollouts/services.js";
import { VersionStore } from "../src/train/store.js";
import type { Task } from "../src/train/types.js";
import { startRedis, startWorker, type TestWorker } from "../test/executors/redis.js";
import { observe, table } from "./lib.js";

const repoRoot = join(import.meta.dirname, "..");
const exampleAdapter = join(repoRoot, "examples", "file_adapter");
const tempDir = () => mkdtemp(join(tmpdir(), "hermit-bench-queue-"));
const ROLLOUTS = 200;
const MS = 200;
const PER_WORKER = 4;
const sleepTask = join(repoRoot, "test", "executors", "fixtures", "sleep-task.ts");

// Imported directly: under the bench's jiti hook, the loader's own jiti would wrap the module once more.
const task = ((await import(sleepTask)) as { default: Task }).default;
const identity = taskIdentity(task, await readFile(sleepTask), { ms: MS });
const tree = (await (await VersionStore.open(join(await tempDir(), "store.git"))).writeDirectory(exampleAdapter)).tree;

async function jobs(round: string): Promise<RolloutJob[]> {
  const dir = await tempDir();
  return Array.from({ length: ROLLOUTS }, (_, index) => {
    const instance = { id: `${round}-${index}` };
    const key = { tree, split: "train" as const, instance: instance.id, instanceHash: instanceHash(instance), task: identity, trial: 0 };
    return { id: instance.id, key, instance, adapterDir: exampleAdapter, evidenceDir: join(dir, instance.id), step: 1, split: "train", timeoutMs: 60_000, retries: 0, seed: 0, taskOptions: { ms: MS } };
  });
}

/** Seconds to run every job (all handed over at once, as a batch is). */
async function timed(executor: RolloutExecutor, round: string): Promise<number> {
  const batch = await jobs(round);
  const started = performance.now();
  const records = await Promise.all(batch.map((job) => executor.run(job)));
  const seconds = (performance.now() - started) / 1000;
  if (records.some((record) => record.score !== 1)) throw new Error(`round ${round}: a rollout did not score 1`);
  return seconds;
}

const rows: Array<Record<string, string | number>> = [];
function row(label: string, slots: number, seconds: number): number {
  const ideal = (Math.ceil(ROLLOUTS / slots) * MS) / 1000;
  const efficiency = ideal / seconds;
  rows.push({ executor: label, "rollouts at once": String(slots), "measured s": seconds, "ideal s": ideal, efficiency: `${(efficiency * 100).toFixed(1)}%`, "overhead ms/rollout": ((seconds - ideal) * 1000 * slots) / ROLLOUTS });
  return efficiency;
}

const local = createLocalExecutor({ task, concurrency: PER_WORKER, signal: new AbortController().signal, services: localServices() });
row("in-process, concurrency 4", PER_WORKER, await timed(local, "local"));
await local.close();

const redis = await startRedis();
const workers: TestWorker[] = [];
let lastEfficiency = 0;
try {
  for (const count of [1, 2, 4]) {
    while (workers.length < count) workers.push(await startWorker(redis.url, ["--concurrency", String(PER_WORKER), "--queue", "bench"]));
    const executor = await createQueueExecutor({ url: `${redis.url}?queue=bench`, run: `bench-${count}`, task: { specifier: sleepTask }, signal: new AbortController().signal, note: () => {}, patienceMs: 120_000, resume: "(a bench: nothing to resume)", watchEveryMs: Number(process.env.BENCH_WATCH_MS ?? 2000) });
    // One warm-up round (each worker loads the task and unpacks the version once).
    await timed(executor, `warm-${count}`);
    lastEfficiency = row(`${count} worker${count > 1 ? "s" : ""} × 4 via Redis`, count * PER_WORKER, await timed(executor, `run-${count}`));
    await executor.close();
  }
} finally {
  await Promise.all(workers.map((worker) => worker.stop()));
  await redis.stop();
}
table(`${ROLLOUTS} rollouts of ${MS} ms`, rows);
observe("queue-4-workers", `${(lastEfficiency * 100).toFixed(1)}%`, lastEfficiency >= 0.9);
