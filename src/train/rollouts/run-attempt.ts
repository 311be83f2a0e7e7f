/**
 * One attempt at a rollout: a fresh evidence directory, the task's `rollout` raced against the
 * time limit, its return value checked. An attempt that throws or times out ends `error` /
 * `timeout` with a null score: missing data, never 0. So does one whose task says what ran it
 * failed (`failed`: a host that crashed or ran out of time), keeping what it measured (usage,
 * adapter use).
 */
import { lstatSync, mkdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { errorMessage } from "../../errors.js";
import { auditLogFor } from "../run-dir.js";
import type { AdapterUse } from "../../acting/types.js";
import type { RolloutResult, RolloutStatus, Task, Usage } from "../types.js";
import { createRolloutContext, type RolloutServices } from "./context.js";
import type { RolloutJob } from "./executor.js";

export interface AttemptResult {
  status: RolloutStatus;
  score: number | null;
  feedback?: string;
  error?: string;
  usage?: Usage;
  usageUnknown?: string;
  adapterUse?: AdapterUse;
  durationMs: number;
}

class RolloutTimeout extends Error {
  constructor(seconds: number) {
    super(`rollout timed out after ${seconds} s`);
  }
}

/** Run `job` once. Rejects only when `signal` (the run) was aborted: an unfinished rollout is not recorded. */
export async function runAttempt(task: Task, job: RolloutJob, services: RolloutServices, signal: AbortSignal): Promise<AttemptResult> {
  // An attempt starts from nothing: no evidence or audit log of an earlier attempt (or of a
  // crash). Usually there is none: looking costs less than a removal through the thread pool.
  const auditLog = auditLogFor(job.evidenceDir);
  if (lstatSync(job.evidenceDir, { throwIfNoEntry: false })) await rm(job.evidenceDir, { recursive: true, force: true });
  if (lstatSync(auditLog, { throwIfNoEntry: false })) await rm(auditLog, { force: true });
  mkdirSync(job.evidenceDir, { recursive: true });
  const controller = new AbortController();
  let stopped: (reason: unknown) => void = () => undefined;
  // The run stopping ends the attempt at once, even if the task ignores its signal.
  const runStopped = new Promise<never>((_, reject) => (stopped = reject));
  runStopped.catch(() => undefined);
  const stopWithRun = () => {
    controller.abort(signal.reason);
    stopped(signal.reason);
  };
  signal.addEventListener("abort", stopWithRun, { once: true });
  const attempt = createRolloutContext(job, services, controller.signal);
  const started = performance.now();
  const duration = () => Math.round(performance.now() - started);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new RolloutTimeout(job.timeoutMs / 1000);
      controller.abort(error);
      reject(error);
    }, job.timeoutMs);
  });
  try {
    const value = await Promise.race([Promise.resolve().then(() => task.rollout(job.instance, attempt.context)), timedOut, runStopped]);
    const result = validateResult(value);
    if (typeof result === "string") return { status: "error", score: null, error: result, durationMs: duration() };
    const { failed, ...measured } = result;
    if (failed) return { ...measured, status: failed.status, score: null, error: failed.reason, durationMs: duration() };
    return { status: "ok", ...measured, durationMs: duration() };
  } catch (error) {
    signal.throwIfAborted();
    if (error instanceof RolloutTimeout) return { status: "timeout", score: null, error: error.message, durationMs: duration() };
    return { status: "error", score: null, error: errorMessage(error), durationMs: duration() };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", stopWithRun);
    await attempt.close();
  }
}

type CheckedResult = Omit<RolloutResult, "usage"> & { usage?: Usage };

/** The rollout's return value, or why it is not a valid result. */
function validateResult(value: unknown): CheckedResult | string {
  if (value === null || typeof value !== "object") return `rollout returned ${value === null ? "null" : typeof value}, not { score, feedback? }`;
  const { score, feedback, usage, usageUnknown, adapterUse, failed } = value as Record<string, unknown>;
  if (score !== null && (typeof score !== "number" || !Number.isFinite(score))) {
    const shown = typeof score === "number" ? String(score) : score === undefined ? "undefined" : JSON.stringify(score) ?? typeof score;
    return `rollout returned score ${shown}; a score is a finite number, or null when it could not be measured`;
  }
  if (feedback !== undefined && typeof feedback !== "string") return "rollout feedback must be a string";
  if (usageUnknown !== undefined && typeof usageUnknown !== "string") return "rollout usageUnknown must be a string";
  const failure = checkFailed(failed, score);
  if (typeof failure === "string") return failure;
  const use = checkAdapterUse(adapterUse);
  if (typeof use === "string") return use;
  const cleaned = cleanUsage(usage);
  return {
    score: score as number | null,
    ...(feedback !== undefined ? { feedback: feedback as string } : {}),
    ...(cleaned ? { usage: cleaned } : {}),
    ...(usageUnknown !== undefined ? { usageUnknown: usageUnknown as string } : {}),
    ...(use ? { adapterUse: use } : {}),
    ...(failure ? { failed: failure } : {}),
  };
}

function checkFailed(failed: unknown, score: unknown): RolloutResult["failed"] | string {
  if (failed === undefined) return undefined;
  const { status, reason } = (failed ?? {}) as Record<string, unknown>;
  if ((status !== "error" && status !== "timeout") || typeof reason !== "string") return "rollout failed must be { status: 'error' | 'timeout', reason: string }";
  if (score !== null) return "a rollout that failed has a null score: it could not be measured";
  return { status, reason };
}

const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === "string");

/** The adapter-use evidence a task (or a worker) reported, or why it is malformed. */
export function checkAdapterUse(value: unknown): AdapterUse | undefined | string {
  if (value === undefined) return undefined;
  const { skillsRead, toolsCalled, used } = (value ?? {}) as Record<string, unknown>;
  if (!strings(skillsRead) || !strings(toolsCalled) || typeof used !== "boolean") return "rollout adapterUse must be { skillsRead: string[], toolsCalled: string[], used: boolean }";
  return { skillsRead: [...skillsRead], toolsCalled: [...toolsCalled], used };
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
