/**
 * The queue executor, the Trainer's side of `--executor redis://…`: each rollout becomes a
 * BullMQ job (id derived from run, step and cache key, so a duplicate add lands on the same
 * job), run by `hermit worker` processes. Results arrive by queue events and are accepted only
 * for the job they answer (`resultProblem`); the evidence they carry is written here, so the
 * Trainer stays the only writer of the run. A watchdog looks at every job still pending: one
 * finished while no event reached us is settled, one lost (a Redis restarted without its data)
 * is queued again, and a Redis that does not answer for `patienceMs` fails the jobs with
 * QUEUE_UNAVAILABLE (the run records failed and can be resumed).
 */
import { Queue, QueueEvents, type Job } from "bullmq";
import { HermitError, errorMessage } from "../../errors.js";
import { auditLogFor } from "../../train/run-dir.js";
import type { RemoteExecutorSetup, RolloutExecutor, RolloutJob } from "../../train/rollouts/executor.js";
import type { RolloutRecord } from "../../train/types.js";
import { connected, queueTarget, type QueueTarget } from "./connection.js";
import { packAdapter, unpackEvidence } from "./files.js";
import { JOB_NAME, jobData, jobIdFor, missingRecord, recordFromResult, resultProblem, ticketFor, type JobTicket, type RolloutJobResult } from "./protocol.js";

export interface QueueExecutorOptions extends RemoteExecutorSetup {
  /** How often pending jobs are looked at (default 2 s). */
  watchEveryMs?: number;
}

interface Pending {
  id: string;
  ticket: JobTicket;
  job: RolloutJob;
  promise: Promise<RolloutRecord>;
  resolve(record: RolloutRecord): void;
  reject(error: unknown): void;
  /** The job was added (its data is in `data` for a re-add). */
  added?: Promise<void>;
  settling?: boolean;
  /** When the watchdog last looked at its job. */
  lookedAt?: number;
}

const KEEP_FINISHED = { age: 24 * 3600 };
/** Jobs the watchdog looks at per tick. */
const WATCH_BATCH = 32;
/** A watchdog round that has no answer within this long (or the patience, if shorter) counts as Redis not answering. */
const ROUND_LIMIT_MS = 10_000;

export async function createQueueExecutor(options: QueueExecutorOptions): Promise<RolloutExecutor> {
  const target = queueTarget(options.url);
  // ioredis reconnects forever by default; once the executor gives up on Redis, its clients stop trying and end.
  const reconnect = { on: true };
  const connection = { ...target.connection, retryStrategy: (times: number) => (reconnect.on ? Math.min(times * 50, 2_000) : null) };
  const queue = new Queue(target.queue, { connection, streams: { events: { maxLen: 2000 } } });
  const events = new QueueEvents(target.queue, { connection });
  try {
    await connected([queue, events], target);
  } catch (error) {
    await Promise.allSettled([queue.close(), events.close()]);
    throw error;
  }
  return new QueueExecutor(options, target, queue, events, reconnect);
}

class QueueExecutor implements RolloutExecutor {
  private readonly pending = new Map<string, Pending>();
  private readonly snapshots = new Map<string, Promise<string>>();
  private readonly timer: NodeJS.Timeout;
  /** When Redis stopped answering (the start of the first watchdog round without an answer); undefined while it answers. */
  private silentSince: number | undefined;
  private watching = false;
  /** The last connection error a client reported (what a failure names). */
  private lastError: string | undefined;

  constructor(
    private readonly options: QueueExecutorOptions,
    private readonly target: QueueTarget,
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    private readonly reconnect: { on: boolean },
  ) {
    queue.on("error", (error) => (this.lastError = errorMessage(error)));
    events.on("error", (error) => (this.lastError = errorMessage(error)));
    // A look that fails (Redis away) is not lost: the watchdog looks again.
    events.on("completed", ({ jobId, returnvalue }) => void this.completed(jobId, returnvalue).catch(() => undefined));
    events.on("failed", ({ jobId }) => void this.look(jobId).catch(() => undefined));
    this.timer = setInterval(() => void this.watch(), options.watchEveryMs ?? 2_000);
    options.signal.addEventListener("abort", () => this.abortAll(options.signal.reason), { once: true });
  }

  run(job: RolloutJob): Promise<RolloutRecord> {
    if (this.options.signal.aborted) return Promise.reject(this.options.signal.reason);
    const ticket = ticketFor(this.options.run, job);
    const id = jobIdFor(ticket);
    const existing = this.pending.get(id);
    if (existing) return existing.promise;
    let resolve!: (record: RolloutRecord) => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<RolloutRecord>((yes, no) => ((resolve = yes), (reject = no)));
    const entry: Pending = { id, ticket, job, promise, resolve, reject };
    this.pending.set(id, entry);
    entry.added = this.add(entry).then(
      () => this.look(id).catch(() => undefined),
      (error) => this.settle(entry, () => Promise.reject(error)),
    );
    return promise;
  }

  /** Queue the job; one that failed before (a crashed or interrupted earlier process) is run again. */
  private async add(entry: Pending): Promise<void> {
    let snapshot = this.snapshots.get(entry.job.key.tree);
    if (!snapshot) this.snapshots.set(entry.job.key.tree, (snapshot = packAdapter(entry.job.adapterDir)));
    const data = jobData(entry.ticket, entry.job, this.options.task, this.options.actor, await snapshot);
    const job = await this.queue.add(JOB_NAME, data, { jobId: entry.id, attempts: 1, removeOnComplete: KEEP_FINISHED, removeOnFail: KEEP_FINISHED });
    this.silentSince = undefined;
    if ((await job.getState()) === "failed") await job.retry("failed");
  }

  private async completed(id: string, value: unknown): Promise<void> {
    const entry = this.pending.get(id);
    if (entry) await this.settle(entry, () => this.accept(entry, value));
  }

  /** Settle `id` if its job finished; re-add it if Redis no longer knows it. */
  private async look(id: string): Promise<void> {
    const entry = this.pending.get(id);
    if (!entry) return;
    // The state first, then the job: a job read before it finished has no result yet.
    const state = await this.queue.getJobState(id);
    this.silentSince = undefined;
    if (state === "unknown") {
      if (!this.pending.has(id) || entry.settling) return;
      this.options.note(`queue: rollout ${entry.job.key.instance} (${entry.job.split}, trial ${entry.job.key.trial}) was lost from ${this.target.shown}; queued again`);
      return this.add(entry);
    }
    if (state !== "completed" && state !== "failed") return;
    const job = await this.queue.getJob(id);
    if (!job) return;
    if (state === "completed") await this.settle(entry, () => this.accept(entry, job.returnvalue));
    else await this.settle(entry, async () => this.failed(entry, job));
  }

  private failed(entry: Pending, job: Job): RolloutRecord {
    const reason = job.failedReason || "the job failed without a reason";
    const stalled = /stalled more than allowable limit/.test(reason);
    const error = stalled ? `the workers running it stopped (killed or crashed) more than once: ${reason}` : reason;
    this.options.note(`queue: rollout ${entry.job.key.instance} (${entry.job.split}) failed: ${error}`);
    return missingRecord(entry.job, error);
  }

  /** A result for exactly this job, its evidence written into the run; anything else is refused (missing data). */
  private async accept(entry: Pending, value: unknown): Promise<RolloutRecord> {
    const problem = resultProblem(entry.ticket, value);
    const worker = typeof (value as { worker?: unknown })?.worker === "string" ? (value as { worker: string }).worker : "a worker";
    if (problem) {
      this.options.note(`queue: refused the result of ${worker} for rollout ${entry.job.key.instance}: ${problem}`);
      return missingRecord(entry.job, `refused the result of ${worker}: ${problem}`);
    }
    const result = value as RolloutJobResult;
    try {
      await unpackEvidence(result.evidence, entry.job.evidenceDir, auditLogFor(entry.job.evidenceDir));
    } catch (error) {
      return missingRecord(entry.job, `refused the result of ${worker}: its evidence could not be written: ${errorMessage(error)}`);
    }
    return recordFromResult(entry.job, result);
  }

  /** Settle `entry` once, with what `produce` gives (a record) or throws (the run's failure). */
  private async settle(entry: Pending, produce: () => Promise<RolloutRecord> | RolloutRecord): Promise<void> {
    if (entry.settling || this.pending.get(entry.id) !== entry) return;
    entry.settling = true;
    try {
      entry.resolve(await produce());
    } catch (error) {
      entry.reject(error);
    } finally {
      this.pending.delete(entry.id);
    }
  }

  private async watch(): Promise<void> {
    if (this.watching || this.pending.size === 0) return;
    this.watching = true;
    const started = Date.now();
    try {
      // A bounded round each tick, the longest unseen first: the check stays cheap with many jobs pending.
      const due = [...this.pending.values()].sort((x, y) => (x.lookedAt ?? 0) - (y.lookedAt ?? 0)).slice(0, WATCH_BATCH);
      for (const entry of due) entry.lookedAt = Date.now();
      await answerWithin(Promise.all(due.map((entry) => this.look(entry.id))), Math.min(ROUND_LIMIT_MS, this.options.patienceMs));
    } catch (error) {
      this.silentSince ??= started;
      const silentMs = Date.now() - this.silentSince;
      if (silentMs >= this.options.patienceMs) this.abortAll(this.unavailable(silentMs, error));
    } finally {
      this.watching = false;
    }
  }

  private unavailable(silentMs: number, error: unknown): HermitError {
    const message =
      `Redis at ${this.target.shown} has not answered for ${(silentMs / 1000).toFixed(1)} s (--queue-patience ${this.options.patienceMs / 1000}s; last error: ${this.lastError ?? errorMessage(error)}). ` +
      `Rollouts in flight are not recorded; every committed step and finished rollout is kept. Start Redis again (or fix the network), then continue with: ${this.options.resume}`;
    return new HermitError("QUEUE_UNAVAILABLE", message, { queue: this.target.queue, url: this.target.shown });
  }

  private abortAll(reason: unknown): void {
    for (const entry of this.pending.values()) {
      entry.settling = true;
      entry.reject(reason);
    }
    this.pending.clear();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    const silent = this.silentSince !== undefined;
    // Jobs nobody waits for any more are taken back (one a worker holds finishes there, unread).
    const left = silent ? [] : [...this.pending.keys()];
    this.abortAll(new HermitError("INTERRUPTED", "the queue executor was closed"));
    // Against a Redis that does not answer, a graceful close (QUIT) would wait for it forever: the clients stop
    // reconnecting, and end at their next attempt (a disconnect while one waits to reconnect would leave it waiting).
    if (silent) {
      this.reconnect.on = false;
      await settlesWithin(this.clientsEnded(), ROUND_LIMIT_MS);
    }
    const closed = (async () => {
      await Promise.allSettled(left.map((id) => this.queue.remove(id)));
      await Promise.allSettled([this.events.close(), this.queue.close()]);
    })();
    if (await settlesWithin(closed, ROUND_LIMIT_MS)) return;
    this.reconnect.on = false;
    await this.dropConnections();
    await settlesWithin(closed, ROUND_LIMIT_MS);
  }

  private async clients() {
    const found = await Promise.allSettled([this.queue.getBackend(), this.events.getBackend()].flatMap((backend) => [backend.client, backend.blockingClient]));
    return found.flatMap((client) => (client.status === "fulfilled" && client.value ? [client.value] : []));
  }

  /** Resolves once every client has ended (or is connected again). */
  private async clientsEnded(): Promise<void> {
    const waiting = (await this.clients()).filter((client) => client.status !== "end" && client.status !== "ready");
    await Promise.all(waiting.map((client) => new Promise((resolve) => client.once("end", resolve).once("ready", resolve))));
  }

  /** Disconnect the clients still connected (one waiting to reconnect ends at its next attempt: `reconnect.on` is off). */
  private async dropConnections(): Promise<void> {
    for (const client of await this.clients()) if (client.status !== "reconnecting") client.disconnect();
  }
}

/** Whether `promise` settled within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return answerWithin(promise, ms).then(
    () => true,
    () => false,
  );
}

/** `promise`, or a rejection when it has not settled within `ms` (a command queued while Redis is away waits for it). */
async function answerWithin<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
