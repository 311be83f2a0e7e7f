/**
 * What travels through the queue, and the checks on it (pure). A job carries everything a
 * worker needs and nothing secret: the ticket (run, step, cache key), the instance, the task's
 * specifier, the limits and a snapshot of the adapter tree. A result echoes the
 * ticket; the Trainer accepts it only for the exact job it queued, with a well-formed outcome.
 */
import { createHash } from "node:crypto";
import { unsafePathReason } from "../../adapter/files.js";
import { checkAdapterUse, cleanUsage, type AttemptResult } from "../../train/rollouts/run-attempt.js";
import type { ActorFields } from "../../train/actor.js";
import type { RolloutJob } from "../../train/rollouts/executor.js";
import { keyString } from "../../train/rollouts/key.js";
import type { RolloutRecord, RolloutStatus, TaskInstance } from "../../train/types.js";

export const JOB_NAME = "rollout";
export const JOB_FORMAT = "hermit-rollout-job/1";
export const RESULT_FORMAT = "hermit-rollout-result/1";

/** What a job is for: a result for anything else is refused. */
export interface JobTicket {
  run: string;
  step: number | "final";
  /** `keyString(key)`: version, split, instance (and its content), task, trial. */
  key: string;
}

/** A file, as a job's adapter snapshot and a result's evidence carry it. */
export interface PackedFile {
  path: string;
  /** `100644` or `100755` (the adapter's files; evidence files are `100644`). */
  mode: "100644" | "100755";
  /** The bytes, base64. */
  data: string;
}

export interface RolloutJobData {
  format: typeof JOB_FORMAT;
  ticket: JobTicket;
  job: Omit<RolloutJob, "adapterDir" | "evidenceDir" | "id">;
  /** How the worker loads the task; what it loads must have the identity `job.key.task`. */
  task: { specifier: string };
  /** The run's actor settings, resolved on the worker with its own API keys (none travel in the job). */
  actor?: ActorFields;
  /**
   * The files of `job.key.tree` (`PackedFile[]` as gzipped JSON, base64): decoded only by a worker
   * that has not unpacked that tree yet, which checks they hash to it before running anything.
   */
  adapter: string;
}

/** How the rollout ended, as the worker ran it (`runWithRetries`). */
export interface RolloutOutcome extends AttemptResult {
  attempts: number;
  retried?: string[];
}

export interface RolloutJobResult {
  format: typeof RESULT_FORMAT;
  ticket: JobTicket;
  /** `host:pid` of the worker that ran it. */
  worker: string;
  outcome: RolloutOutcome;
  /** The evidence directory's files, and the audit log kept beside it. */
  evidence: { files: PackedFile[]; auditLog?: string; dropped: string[] };
}

export function ticketFor(run: string, job: RolloutJob): JobTicket {
  return { run, step: job.step, key: keyString(job.key) };
}

/** The queue's job id: one per ticket, so a duplicate add lands on the same job. */
export function jobIdFor(ticket: JobTicket): string {
  return `r${createHash("sha256").update(JSON.stringify([ticket.run, ticket.step, ticket.key])).digest("hex").slice(0, 40)}`;
}

const STATUSES: readonly string[] = ["ok", "error", "timeout"] satisfies RolloutStatus[];
const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/** Why `files` is not a list of packed files with safe relative paths, or undefined. */
export function packedFilesProblem(files: unknown, what: string): string | undefined {
  if (!Array.isArray(files)) return `${what} is not a list`;
  for (const file of files) {
    if (!isObject(file) || typeof file.path !== "string" || typeof file.data !== "string" || (file.mode !== "100644" && file.mode !== "100755")) return `${what} holds an entry that is not { path, mode, data }`;
    const unsafe = unsafePathReason(file.path) ?? (file.path.split("/").some((part) => part === "" || part === ".") ? "has an empty or '.' segment" : undefined);
    if (unsafe) return `${what}: path '${file.path}' ${unsafe}`;
  }
  return undefined;
}

/** Why `value` is not a job this worker can run, or undefined. */
export function jobDataProblem(value: unknown): string | undefined {
  if (!isObject(value) || value.format !== JOB_FORMAT) return `not a ${JOB_FORMAT} job (format ${JSON.stringify(isObject(value) ? value.format : typeof value)}): is this worker's hermit older or newer than the Trainer's?`;
  const { job, task, ticket } = value;
  if (!isObject(ticket) || typeof ticket.run !== "string" || typeof ticket.key !== "string") return "the job has no ticket";
  if (!isObject(task) || typeof task.specifier !== "string") return "the job names no task";
  if (!isObject(job) || !isObject(job.key) || typeof job.key.tree !== "string" || !isObject(job.instance)) return "the job has no rollout";
  if (keyString(job.key as unknown as RolloutJob["key"]) !== ticket.key) return "the job's rollout is not the one its ticket names";
  return typeof value.adapter === "string" ? undefined : "the job has no adapter snapshot";
}

const sameTicket = (a: JobTicket, b: unknown) => isObject(b) && a.run === b.run && a.step === b.step && a.key === b.key;

/** Why `value` is not a well-formed result for `expected`, or undefined. */
export function resultProblem(expected: JobTicket, value: unknown): string | undefined {
  if (!isObject(value) || value.format !== RESULT_FORMAT) return `not a ${RESULT_FORMAT} result`;
  if (!sameTicket(expected, value.ticket)) {
    const got = isObject(value.ticket) ? `run ${String(value.ticket.run)}, step ${String(value.ticket.step)}, rollout ${String(value.ticket.key)}` : "no ticket";
    return `it is for ${got}, not run ${expected.run}, step ${expected.step}, rollout ${expected.key}`;
  }
  const outcome = value.outcome;
  if (!isObject(outcome) || typeof outcome.status !== "string" || !STATUSES.includes(outcome.status)) return "its outcome has no status ok, error or timeout";
  const { score, attempts, durationMs } = outcome;
  if (score !== null && (typeof score !== "number" || !Number.isFinite(score))) return `its score ${JSON.stringify(score)} is neither a finite number nor null`;
  if (outcome.status !== "ok" && score !== null) return `a ${outcome.status} outcome carries score ${String(score)}; a failed rollout has none`;
  if (typeof attempts !== "number" || !Number.isInteger(attempts) || attempts < 1) return "its attempts are not a whole number ≥ 1";
  if (typeof durationMs !== "number" || !(durationMs >= 0)) return "its duration is not a number ≥ 0";
  for (const field of ["feedback", "error", "usageUnknown"] as const) if (outcome[field] !== undefined && typeof outcome[field] !== "string") return `its ${field} is not a string`;
  const use = checkAdapterUse(outcome.adapterUse);
  if (typeof use === "string") return `its ${use.replace(/^rollout /, "")}`;
  if (outcome.retried !== undefined && !(Array.isArray(outcome.retried) && outcome.retried.every((line) => typeof line === "string"))) return "its retried list is not strings";
  const evidence = value.evidence;
  if (!isObject(evidence) || (evidence.auditLog !== undefined && typeof evidence.auditLog !== "string")) return "its evidence is malformed";
  return packedFilesProblem(evidence.files, "its evidence");
}

/** The Trainer's record of a result (checked with `resultProblem`) for `job`. */
export function recordFromResult(job: RolloutJob, result: RolloutJobResult): RolloutRecord {
  const { status, score, feedback, error, usage, usageUnknown, adapterUse, durationMs, attempts, retried } = result.outcome;
  const cleaned = cleanUsage(usage);
  const use = checkAdapterUse(adapterUse);
  return {
    ...job.key,
    status,
    score,
    attempts,
    ...(retried && retried.length > 0 ? { retried } : {}),
    ...(feedback !== undefined ? { feedback } : {}),
    ...(error !== undefined ? { error } : {}),
    ...(cleaned ? { usage: cleaned } : {}),
    ...(usageUnknown !== undefined ? { usageUnknown } : {}),
    ...(use && typeof use !== "string" ? { adapterUse: use } : {}),
    durationMs,
    evidenceDir: job.evidenceDir,
    ranAt: job.step,
  };
}

/** A rollout with no result (its job failed, or its result was refused): missing data, never 0. */
export function missingRecord(job: RolloutJob, error: string): RolloutRecord {
  return { ...job.key, status: "error", score: null, attempts: 1, error, durationMs: 0, evidenceDir: job.evidenceDir, ranAt: job.step };
}

/** The job's data; `instance` as the Trainer holds it. */
export function jobData(ticket: JobTicket, job: RolloutJob, task: RolloutJobData["task"], actor: ActorFields | undefined, adapter: string): RolloutJobData {
  const { adapterDir: _adapterDir, evidenceDir: _evidenceDir, id: _id, ...rest } = job;
  return { format: JOB_FORMAT, ticket, job: { ...rest, instance: rest.instance as TaskInstance }, task, ...(actor ? { actor } : {}), adapter };
}
