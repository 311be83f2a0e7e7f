/**
 * A batch of rollouts of one version on one split, as the Trainer runs it: each (instance,
 * trial) looked up in the cache, the rest handed to the executor as jobs, each finished record
 * written beside its evidence and appended to the cache. The Trainer stays the only writer of
 * the run, whatever executor runs the jobs.
 */
import { join } from "node:path";
import { writeJson } from "../../fs/json.js";
import type { RolloutRecord, Split, TaskInstance } from "../types.js";
import type { RolloutCache } from "./cache.js";
import type { RolloutExecutor, RolloutJob } from "./executor.js";
import { instanceHash, keyString, type RolloutKey } from "./key.js";

export interface BatchItem {
  instance: TaskInstance;
  trial: number;
  evidenceDir: string;
}

/** A version of the adapter: its tree (the cache key) and a directory holding it. */
export interface BatchVersion {
  tree: string;
  dir: string;
}

/** What every batch of a run shares. */
export interface BatchEnvironment {
  executor: RolloutExecutor;
  cache: RolloutCache;
  /** The task's identity, part of every key (see `taskIdentity`). */
  task: string;
  timeoutMs: number;
  retries: number;
  seed: number;
  taskOptions: Record<string, unknown>;
  /** Called as each rollout is settled (run or found in the cache). */
  onSettled?(record: RolloutRecord, cached: boolean): void;
}

export interface BatchOutcome {
  /** One record per item, in item order. */
  records: RolloutRecord[];
  /** The records of rollouts that ran now (not from the cache). */
  fresh: RolloutRecord[];
  ran: number;
  cached: number;
}

/** The key of one item of a batch. Pure. */
export function rolloutKey(version: BatchVersion, split: Split, item: BatchItem, task: string): RolloutKey {
  return { tree: version.tree, split, instance: item.instance.id, instanceHash: instanceHash(item.instance), task, trial: item.trial };
}

/** Run (or reuse) every item of the batch on `version`. */
export async function runBatch(version: BatchVersion, split: Split, items: BatchItem[], step: number | "final", env: BatchEnvironment): Promise<BatchOutcome> {
  const fresh: RolloutRecord[] = [];
  let cached = 0;
  const records = await Promise.all(
    items.map(async (item) => {
      const key = rolloutKey(version, split, item, env.task);
      const hit = await env.cache.get(key);
      if (hit) {
        cached += 1;
        env.onSettled?.(hit, true);
        return hit;
      }
      const record = await env.executor.run(jobFor(key, version, item, step, env));
      await writeJson(join(item.evidenceDir, "rollout.json"), record);
      await env.cache.put(record);
      fresh.push(record);
      env.onSettled?.(record, false);
      return record;
    }),
  );
  return { records, fresh, ran: fresh.length, cached };
}

function jobFor(key: RolloutKey, version: BatchVersion, item: BatchItem, step: number | "final", env: BatchEnvironment): RolloutJob {
  return {
    id: keyString(key),
    key,
    instance: item.instance,
    adapterDir: version.dir,
    evidenceDir: item.evidenceDir,
    step,
    split: key.split,
    timeoutMs: env.timeoutMs,
    retries: env.retries,
    seed: env.seed,
    taskOptions: env.taskOptions,
  };
}
