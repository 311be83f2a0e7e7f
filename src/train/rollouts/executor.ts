/**
 * Where rollouts run. The Trainer hands an executor plain-data jobs and gets records back; it
 * alone reads and writes the cache and the run (see `batch.ts`). Today's executor runs jobs in
 * this process (`local.ts`, p-queue, `--concurrency`); one on a shared queue (BullMQ) takes the
 * same jobs — a job's `id` is its cache key, so a retried or duplicated job lands on the same
 * record — and a worker exports `key.tree` from the version store itself.
 */
import type { ActorFields } from "../actor.js";
import type { RolloutRecord, Split, TaskInstance } from "../types.js";
import type { RolloutKey } from "./key.js";

/** One rollout to run: everything a worker needs, as plain data. */
export interface RolloutJob {
  /** `keyString(key)`: the job's id, stable across retries and duplicates. */
  id: string;
  key: RolloutKey;
  instance: TaskInstance;
  /** A directory holding `key.tree` on this machine (a remote worker exports the tree instead). */
  adapterDir: string;
  /** A fresh directory for the rollout's evidence (cleared before each attempt). */
  evidenceDir: string;
  /** The step whose batch runs it, or `final` for the sealed test. */
  step: number | "final";
  split: Split;
  /** Limit per attempt. */
  timeoutMs: number;
  /** Attempts after the first, for a crash or time-out. */
  retries: number;
  seed: number;
  taskOptions: Record<string, unknown>;
}

export interface RolloutExecutor {
  /** Run a job to its record: `ok` with a score (a number, or null when unmeasurable), or the last attempt's `error`/`timeout`. */
  run(job: RolloutJob): Promise<RolloutRecord>;
  /** Stop taking jobs and release what the executor holds. */
  close(): Promise<void>;
}

/** What the Trainer hands an executor that runs jobs elsewhere (`--executor URL`). */
export interface RemoteExecutorSetup {
  /** The `--executor` URL. */
  url: string;
  /** The run id: every job and result is tied to it. */
  run: string;
  /** How a worker loads the task: a built-in name, a module path or a package name (its identity must be each job's `key.task`). */
  task: { specifier: string };
  /** The run's actor settings (`ctx.act`), when it has an actor: a worker resolves them with its own API keys. */
  actor?: ActorFields;
  /** Aborting it fails the jobs in flight: unfinished rollouts are not recorded. */
  signal: AbortSignal;
  /** How long the queue may not answer before the jobs in flight fail with QUEUE_UNAVAILABLE (`--queue-patience`). */
  patienceMs: number;
  /** The command that continues this run (`hermit train --resume …`), for a failure that says how to go on. */
  resume: string;
  /** A progress line (a lost job queued again, a worker's failure). */
  note(line: string): void;
}

/** Makes the executor for an `--executor` URL scheme; handed to the Trainer from above (src/builtins.ts). */
export type RemoteExecutorFactory = (setup: RemoteExecutorSetup) => Promise<RolloutExecutor>;
