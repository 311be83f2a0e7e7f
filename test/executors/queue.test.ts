/**
 * The queue executor against a real Redis and real `hermit worker` processes, one job at a
 * time: a worker that cannot load the task (or has another version of it) says so and the
 * rollout is missing, never 0; a duplicate job runs once; a result for another job or with
 * evidence outside its folder is refused; a snapshot that is not the job's version is refused
 * by the worker; a Redis restarted empty mid-job loses nothing.
 */
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { Worker } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createQueueExecutor } from "../../src/executors/queue/executor.js";
import { RESULT_FORMAT, jobIdFor, ticketFor, type RolloutJobResult } from "../../src/executors/queue/protocol.js";
import { loadTask } from "../../src/train/plugins.js";
import type { RolloutExecutor, RolloutJob } from "../../src/train/rollouts/executor.js";
import { instanceHash, taskIdentity } from "../../src/train/rollouts/key.js";
import { VersionStore } from "../../src/train/store.js";
import { exampleAdapter, skipBecause, tempDir } from "../helpers.js";
import { ensureBuilt } from "../train/helpers.js";
import { noRedis, startRedis, startWorker, type TestRedis, type TestWorker } from "./redis.js";

const sleepTask = join(import.meta.dirname, "fixtures", "sleep-task.ts");

describe.skipIf(skipBecause(noRedis))("the queue executor", () => {
  let redis: TestRedis;
  let tree: string;
  let identityFor: (ms: number) => string;
  const workers: TestWorker[] = [];
  const executors: RolloutExecutor[] = [];
  const notes: string[] = [];

  beforeAll(async () => {
    await ensureBuilt();
    redis = await startRedis();
    const store = await VersionStore.open(join(await tempDir(), "store.git"));
    tree = (await store.writeDirectory(exampleAdapter)).tree;
    const [task, module] = [await loadTask(sleepTask), await readFile(sleepTask)];
    identityFor = (ms) => taskIdentity(task, module, { ms });
  }, 180_000);
  afterAll(async () => {
    await Promise.all(executors.map((executor) => executor.close()));
    await Promise.all(workers.map((worker) => worker.stop()));
    await redis?.stop();
  });

  const queueUrl = (queue: string) => `${redis.url}?queue=${queue}`;

  async function executor(queue: string, task = { specifier: sleepTask }, run = "r1"): Promise<RolloutExecutor> {
    const created = await createQueueExecutor({ url: queueUrl(queue), run, task, signal: new AbortController().signal, note: (line) => notes.push(line), watchEveryMs: 300, patienceMs: 120_000, resume: `hermit train --resume ${run}` });
    executors.push(created);
    return created;
  }

  async function worker(queue: string, args: string[] = [], cwd?: string): Promise<TestWorker> {
    const started = await startWorker(queueUrl(queue), args, cwd);
    workers.push(started);
    return started;
  }

  async function job(id: string, step: number | "final" = 1, taskIdentityText?: string, ms = 100): Promise<RolloutJob> {
    const instance = { id };
    const key = { tree, split: "train" as const, instance: id, instanceHash: instanceHash(instance), task: taskIdentityText ?? identityFor(ms), trial: 0 };
    return { id: JSON.stringify(key), key, instance, adapterDir: exampleAdapter, evidenceDir: join(await tempDir(), "evidence"), step, split: "train", timeoutMs: 30_000, retries: 0, seed: 0, taskOptions: { ms } };
  }

  it("runs a job on a worker: its record, and its evidence written on the Trainer's side", async () => {
    const taker = await worker("plain");
    const record = await (await executor("plain")).run(await job("t1"));
    expect(record).toMatchObject({ status: "ok", score: 1, attempts: 1, instance: "t1", tree, ranAt: 1, feedback: `ran in ${taker.child.pid}` });
    expect(await readdir(record.evidenceDir)).toEqual([]);
  });

  it("a worker that cannot load the task says so, and the rollout is missing (null), not 0", async () => {
    const lacking = await worker("lacking", [], await tempDir());
    const run = await executor("lacking", { specifier: "no-such-task-package" });
    const record = await run.run(await job("t1", 1, "no-such-task-package"));
    expect(record.status).toBe("error");
    expect(record.score).toBeNull();
    expect(record.error).toMatch(/worker .*cannot load task 'no-such-task-package'.*not a built-in/);
    expect(lacking.log()).toMatch(/cannot load task 'no-such-task-package'/);
  });

  it("a worker whose task differs from the Trainer's (another version) refuses the job", async () => {
    await worker("other");
    const record = await (await executor("other")).run(await job("t1", 1, "sleep@0"));
    expect(record).toMatchObject({ status: "error", score: null });
    expect(record.error).toMatch(/task '.*sleep-task\.ts' here is sleep@1\+[0-9a-f]+, not sleep@0 as the Trainer keyed it/);
  });

  it("a duplicate job runs once: the same job twice, and from a second Trainer process", async () => {
    const taker = await worker("dup");
    const [first, second] = [await executor("dup"), await executor("dup")];
    const item = await job("t2", 1, undefined, 500);
    const records = await Promise.all([first.run(item), first.run(item), second.run({ ...item, evidenceDir: join(await tempDir(), "evidence") })]);
    expect(records.map((record) => record.score)).toEqual([1, 1, 1]);
    expect(taker.log().match(/running r1 step 1 train\/t2 /g)).toHaveLength(1);
  });

  it("a result for another job, or evidence outside its folder, is refused: the rollout is missing", async () => {
    const answers: Array<(result: RolloutJobResult) => unknown> = [
      (result) => ({ ...result, ticket: { ...result.ticket, step: 2 } }),
      (result) => ({ ...result, evidence: { files: [{ path: "../../escaped.txt", mode: "100644", data: "" }], dropped: [] } }),
      (result) => ({ ...result, outcome: { ...result.outcome, status: "error", score: 1 } }),
    ];
    let answer = answers[0]!;
    const rogue = new Worker(
      "rogue",
      async (received) => {
        const data = received.data as { ticket: RolloutJobResult["ticket"] };
        return answer({ format: RESULT_FORMAT, ticket: data.ticket, worker: "rogue", outcome: { status: "ok", score: 1, durationMs: 1, attempts: 1 }, evidence: { files: [], dropped: [] } });
      },
      { connection: { host: "127.0.0.1", port: redis.port, maxRetriesPerRequest: null } },
    );
    try {
      const run = await executor("rogue");
      const problems = [/it is for run r1, step 2, .* not run r1, step 1/, /path '\.\.\/\.\.\/escaped\.txt' contains '\.\.'/, /a error outcome carries score 1/];
      for (const [index, next] of answers.entries()) {
        answer = next;
        const record = await run.run(await job(`t${10 + index}`));
        expect(record).toMatchObject({ status: "error", score: null });
        expect(record.error).toMatch(problems[index]!);
      }
    } finally {
      await rogue.close();
    }
  });

  it("a worker refuses an adapter snapshot that is not the version its job names", async () => {
    const taker = await worker("tampered");
    const item = await job("t1");
    const record = await (await executor("tampered")).run({ ...item, key: { ...item.key, tree: "0".repeat(40) } });
    expect(record).toMatchObject({ status: "error", score: null });
    expect(record.error).toMatch(/snapshot is tree [0-9a-f]{40}, not the version 0{40} it names/);
    expect(taker.log()).not.toMatch(/running r1 step 1 train\/t1 /);
  });

  it("Redis restarted empty mid-job: the lost job is queued again and the rollout completes once", async () => {
    const taker = await worker("restart");
    const run = await executor("restart", undefined, "r2");
    const item = await job("t3", 1, undefined, 3000);
    const pending = run.run(item);
    await taker.waitFor(/running r2 step 1 train\/t3 /);
    await redis.restart();
    const record = await pending;
    expect(record).toMatchObject({ status: "ok", score: 1 });
    expect(notes.some((line) => line.includes("rollout t3 (train, trial 0) was lost"))).toBe(true);
    expect(jobIdFor(ticketFor("r2", item))).toMatch(/^r[0-9a-f]{40}$/);
  }, 60_000);
});
