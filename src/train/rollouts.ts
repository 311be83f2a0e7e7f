/**
 * Running a batch of rollouts: in parallel (p-queue, `--concurrency`), each bounded by a
 * timeout, each looked up in the cache first. A rollout that throws or times out is recorded
 * with `score: null` (missing data, never 0) and cached like any finished rollout.
 */
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type PQueue from "p-queue";
import { errorMessage } from "../errors.js";
import { writeJson } from "../fs/json.js";
import type { RolloutCache } from "./cache.js";
import type { Session, SessionOptions } from "../runtime/session.js";
import type { RolloutContext, RolloutRecord, Split, Task, TaskInstance, Usage } from "./types.js";
import { auditLogFor } from "./run-dir.js";

export interface BatchItem {
  instance: TaskInstance;
  trial: number;
  evidenceDir: string;
}

export interface BatchVersion {
  /** Git tree id: the cache key. */
  tree: string;
  /** Directory holding that tree. */
  dir: string;
}

export interface RolloutEnvironment {
  task: Task;
  cache: RolloutCache;
  /** Shared by every batch of a run, so concurrent batches together respect `--concurrency`. */
  queue: PQueue;
  timeoutMs: number;
  seed: number;
  /** The task's options, handed to every rollout. */
  options: Record<string, unknown>;
  /** Aborting it stops the batch; unfinished rollouts are not recorded. */
  signal: AbortSignal;
  openSession(adapter: string, evidenceDir: string, options?: SessionOptions): Promise<Session>;
  deploy(adapter: string, host: string, workspace: string): Promise<unknown>;
  /** Called as each rollout is settled (run or found in the cache). */
  onSettled?(record: RolloutRecord, cached: boolean): void;
}

export interface BatchOutcome {
  records: RolloutRecord[];
  /** The records of rollouts that ran now (not from the cache). */
  fresh: RolloutRecord[];
  ran: number;
  cached: number;
}

/** Run (or reuse) every item of the batch on `version`; records come back in item order. */
export async function runBatch(
  version: BatchVersion,
  split: Split,
  items: BatchItem[],
  ranAt: RolloutRecord["ranAt"],
  env: RolloutEnvironment,
): Promise<BatchOutcome> {
  const fresh: RolloutRecord[] = [];
  let cached = 0;
  const records = await Promise.all(
    items.map((item) => {
      const hit = env.cache.get({ tree: version.tree, split, instance: item.instance.id, trial: item.trial });
      if (hit) {
        cached += 1;
        env.onSettled?.(hit, true);
        return hit;
      }
      return env.queue.add(async () => {
        env.signal.throwIfAborted();
        const record = await runOne(version, split, item, ranAt, env);
        env.signal.throwIfAborted();
        await writeJson(join(item.evidenceDir, "rollout.json"), record);
        await env.cache.put(record);
        fresh.push(record);
        env.onSettled?.(record, false);
        return record;
      }) as Promise<RolloutRecord>;
    }),
  );
  return { records, fresh, ran: fresh.length, cached };
}

class RolloutTimeout extends Error {
  constructor(seconds: number) {
    super(`rollout timed out after ${seconds} s`);
  }
}

async function runOne(
  version: BatchVersion,
  split: Split,
  item: BatchItem,
  ranAt: RolloutRecord["ranAt"],
  env: RolloutEnvironment,
): Promise<RolloutRecord> {
  // A rollout a crash cut short starts again from nothing: its evidence and its audit log.
  await rm(item.evidenceDir, { recursive: true, force: true });
  await rm(auditLogFor(item.evidenceDir), { force: true });
  await mkdir(item.evidenceDir, { recursive: true });
  const controller = new AbortController();
  const stopWithRun = () => controller.abort(env.signal.reason);
  env.signal.addEventListener("abort", stopWithRun, { once: true });
  const sessions: Session[] = [];
  const context: RolloutContext = {
    adapter: version.dir,
    tree: version.tree,
    split,
    trial: item.trial,
    step: ranAt,
    evidenceDir: item.evidenceDir,
    signal: controller.signal,
    seed: env.seed,
    options: env.options,
    session: async (options) => {
      const session = await env.openSession(version.dir, item.evidenceDir, options);
      sessions.push(session);
      return session;
    },
    deploy: (host, workspace) => env.deploy(version.dir, host, workspace),
  };
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new RolloutTimeout(env.timeoutMs / 1000);
      controller.abort(error);
      reject(error);
    }, env.timeoutMs);
  });
  const base = { tree: version.tree, split, instance: item.instance.id, trial: item.trial, evidenceDir: item.evidenceDir, ranAt };
  try {
    const value = await Promise.race([Promise.resolve().then(() => env.task.rollout(item.instance, context)), timedOut]);
    const result = validateResult(value);
    const durationMs = Math.round(performance.now() - started);
    if (typeof result === "string") return { ...base, status: "error", score: null, error: result, durationMs };
    return {
      ...base,
      status: "ok",
      score: result.score,
      ...(result.feedback !== undefined ? { feedback: result.feedback } : {}),
      ...(result.usage ? { usage: result.usage } : {}),
      durationMs,
    };
  } catch (error) {
    env.signal.throwIfAborted();
    const durationMs = Math.round(performance.now() - started);
    if (error instanceof RolloutTimeout) return { ...base, status: "timeout", score: null, error: error.message, durationMs };
    return { ...base, status: "error", score: null, error: errorMessage(error), durationMs };
  } finally {
    clearTimeout(timer);
    env.signal.removeEventListener("abort", stopWithRun);
    await Promise.all(sessions.map((session) => session.close().catch(() => undefined)));
  }
}

/** The rollout's return value, or why it is not a valid result. */
function validateResult(value: unknown): { score: number | null; feedback?: string; usage?: Usage } | string {
  if (value === null || typeof value !== "object") return `rollout returned ${value === null ? "null" : typeof value}, not { score, feedback? }`;
  const { score, feedback, usage } = value as Record<string, unknown>;
  if (score !== null && (typeof score !== "number" || !Number.isFinite(score))) {
    const shown = typeof score === "number" ? String(score) : score === undefined ? "undefined" : JSON.stringify(score) ?? typeof score;
    return `rollout returned score ${shown}; a score is a finite number, or null when it could not be measured`;
  }
  if (feedback !== undefined && typeof feedback !== "string") return "rollout feedback must be a string";
  return { score: score as number | null, feedback: feedback as string | undefined, usage: cleanUsage(usage) };
}

/** Keep only the usage fields that were reported as numbers: a missing field stays unknown. */
export function cleanUsage(usage: unknown): Usage | undefined {
  if (usage === null || typeof usage !== "object") return undefined;
  const out: Usage = {};
  for (const key of ["inputTokens", "outputTokens", "costUsd"] as const) {
    const value = (usage as Record<string, unknown>)[key];
    if (typeof value === "number" && Number.isFinite(value) && value >= 0) out[key] = value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
