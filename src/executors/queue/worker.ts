/**
 * `hermit worker`'s engine: a BullMQ worker that takes rollout jobs and runs them with the
 * Trainer's own rollout code (`runWithRetries`: Session, sandbox, real-host acting). Before
 * running anything it loads the job's task (and checks it is the task the Trainer keyed the
 * rollout by) and unpacks the adapter snapshot (and checks it is the job's tree); a failure of
 * either fails the job at once with a message that says which worker and why. Its evidence goes
 * back in the result. A worker killed mid-job leaves the job locked until its lock runs out;
 * BullMQ's stalled-job check then hands it to another worker (a second stall fails it: missing
 * data, not a hung run).
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { UnrecoverableError, Worker, type Job } from "bullmq";
import { errorMessage } from "../../errors.js";
import { resolveActor } from "../../train/actor.js";
import { loadTask, pluginSource, type PluginCatalog } from "../../train/plugins.js";
import type { RolloutServices } from "../../train/rollouts/context.js";
import { taskIdentity } from "../../train/rollouts/key.js";
import { runWithRetries } from "../../train/rollouts/local.js";
import { localServices } from "../../train/rollouts/services.js";
import { auditLogFor } from "../../train/run-dir.js";
import { VersionStore } from "../../train/store.js";
import type { RolloutRecord, Task } from "../../train/types.js";
import { connected, queueTarget, type QueueTarget } from "./connection.js";
import { packEvidence, unpackAdapter } from "./files.js";
import { RESULT_FORMAT, jobDataProblem, type RolloutJobData, type RolloutJobResult, type RolloutOutcome } from "./protocol.js";

export interface WorkerOptions {
  /** The queue URL (`redis://host:port[/db][?queue=NAME]`). */
  url: string;
  /** Overrides the URL's `?queue=`. */
  queue?: string;
  /** Jobs run at once. */
  concurrency: number;
  /** Seconds without a lock renewal after which a job counts as stalled and goes to another worker. */
  stallSeconds: number;
  /** Built-in tasks by name (the CLI's catalog). */
  catalog: PluginCatalog;
  /** Where relative task paths and package names resolve. */
  cwd: string;
  /** A line on stderr. */
  log(line: string): void;
}

export interface RunningWorker {
  name: string;
  target: QueueTarget;
  /** Stop taking jobs; `force`: also leave the running ones (they are handed to other workers once their lock runs out). */
  close(force?: boolean): Promise<void>;
}

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const target = queueTarget(options.url, options.queue);
  const name = `${hostname()}:${process.pid}`;
  const workDir = await mkdtemp(join(tmpdir(), "hermit-worker-"));
  const tasks = new TaskShelf(options);
  const stop = new AbortController();
  const processor = rolloutProcessor({
    name,
    workDir,
    tasks,
    adapterFor: adapterShelf(await VersionStore.open(join(workDir, "trees.git")), workDir),
    servicesFor: actorServices(name),
    signal: stop.signal,
    log: options.log,
  });
  const worker = queueWorker(target, processor, options, name);
  try {
    await connected([worker], target);
  } catch (error) {
    await worker.close(true).catch(() => undefined);
    await rm(workDir, { recursive: true, force: true });
    throw error;
  }
  void worker.run().catch((error: unknown) => options.log(`hermit worker ${name}: stopped: ${errorMessage(error)}`));
  options.log(`hermit worker ${name}: taking rollouts from ${target.shown}, ${options.concurrency} at a time`);
  return {
    name,
    target,
    async close(force = false) {
      await worker.close(force);
      await tasks.close();
      await rm(workDir, { recursive: true, force: true });
    },
  };
}

/** The adapter directory of a job's version: unpacked (and checked against its tree id) once per tree. */
function adapterShelf(store: VersionStore, workDir: string): (data: RolloutJobData) => Promise<string> {
  const trees = new Map<string, Promise<string>>();
  return (data) => {
    const tree = data.job.key.tree;
    let dir = trees.get(tree);
    if (!dir) {
      const target = join(workDir, "trees", tree);
      dir = unpackAdapter(store, tree, data.adapter, target).then(() => target);
      dir.catch(() => trees.delete(tree));
      trees.set(tree, dir);
    }
    return dir;
  };
}

/** The rollout services for a job's actor settings, one per distinct settings; the API key comes from this worker's environment, never from the job. */
function actorServices(name: string): (data: RolloutJobData) => RolloutServices {
  const actors = new Map<string, RolloutServices>();
  return (data) => {
    const key = JSON.stringify(data.actor ?? null);
    let services = actors.get(key);
    if (!services) {
      try {
        services = localServices(data.actor ? resolveActor(data.actor) : undefined);
      } catch (error) {
        throw new UnrecoverableError(`worker ${name}: cannot act as the run's actor: ${errorMessage(error)}`);
      }
      actors.set(key, services);
    }
    return services;
  };
}

interface ProcessorParts {
  name: string;
  workDir: string;
  tasks: TaskShelf;
  adapterFor(data: RolloutJobData): Promise<string>;
  servicesFor(data: RolloutJobData): RolloutServices;
  signal: AbortSignal;
  log(line: string): void;
}

/** What the worker does with one job: check it, load its task and version, run the rollout, pack the result with its evidence. */
function rolloutProcessor({ name, workDir, tasks, adapterFor, servicesFor, signal, log }: ProcessorParts): (job: Job) => Promise<RolloutJobResult> {
  return async (job) => {
    const problem = jobDataProblem(job.data);
    if (problem) throw new UnrecoverableError(`worker ${name} refused job ${job.id}: ${problem}`);
    const data = job.data as RolloutJobData;
    const what = `${data.ticket.run} step ${data.ticket.step} ${data.job.split}/${data.job.key.instance} trial ${data.job.key.trial}`;
    const task = await tasks.get(data).catch((error: unknown) => {
      log(`hermit worker ${name}: ${what}: ${errorMessage(error)}`);
      throw new UnrecoverableError(`worker ${name}: ${errorMessage(error)}`);
    });
    const adapterDir = await adapterFor(data).catch((error: unknown) => {
      throw new UnrecoverableError(`worker ${name}: ${errorMessage(error)}`);
    });
    const jobDir = await mkdtemp(join(workDir, "job-"));
    const evidenceDir = join(jobDir, "evidence");
    log(`hermit worker ${name}: running ${what}`);
    try {
      const record = await runWithRetries(task, servicesFor(data), signal, { ...data.job, id: String(job.id), adapterDir, evidenceDir });
      log(`hermit worker ${name}: ${what}: ${record.status}, score ${record.score ?? "none"}${record.error ? ` (${record.error})` : ""}`);
      return { format: RESULT_FORMAT, ticket: data.ticket, worker: name, outcome: outcomeOf(record), evidence: await packEvidence(evidenceDir, auditLogFor(evidenceDir)) };
    } finally {
      await rm(jobDir, { recursive: true, force: true });
    }
  };
}

/** The part of a rollout's record a result carries (the rest — key, evidence folder, step — the Trainer knows). */
function outcomeOf(record: RolloutRecord): RolloutOutcome {
  const { status, score, feedback, error, usage, usageUnknown, adapterUse, durationMs, attempts, retried } = record;
  return {
    status,
    score,
    durationMs,
    attempts,
    ...(feedback !== undefined ? { feedback } : {}),
    ...(error !== undefined ? { error } : {}),
    ...(usage ? { usage } : {}),
    ...(usageUnknown !== undefined ? { usageUnknown } : {}),
    ...(adapterUse ? { adapterUse } : {}),
    ...(retried ? { retried } : {}),
  };
}

/** The BullMQ worker (not yet running): locks renewed every `stallSeconds`, one stall allowed; queue errors logged once each. */
function queueWorker(target: QueueTarget, processor: (job: Job) => Promise<RolloutJobResult>, options: WorkerOptions, name: string): Worker {
  const worker = new Worker(target.queue, processor, {
    connection: target.connection,
    concurrency: options.concurrency,
    lockDuration: options.stallSeconds * 1000,
    stalledInterval: options.stallSeconds * 1000,
    maxStalledCount: 1,
    autorun: false,
  });
  // One line per distinct error: a Redis that is down fails every reconnect attempt the same way.
  let lastError = "";
  worker.on("error", (error) => {
    const message = errorMessage(error);
    if (message !== lastError) options.log(`hermit worker ${name}: queue error: ${message}`);
    lastError = message;
  });
  worker.on("ready", () => (lastError = ""));
  return worker;
}

/** The tasks this worker has loaded, by specifier; each job's task identity is checked against the one loaded. */
class TaskShelf {
  private readonly loaded = new Map<string, Promise<{ task: Task; module?: Buffer }>>();

  constructor(private readonly options: Pick<WorkerOptions, "catalog" | "cwd">) {}

  async get(data: RolloutJobData): Promise<Task> {
    const { specifier } = data.task;
    const identity = data.job.key.task;
    let entry = this.loaded.get(specifier);
    if (!entry) {
      entry = this.load(specifier);
      entry.catch(() => this.loaded.delete(specifier));
      this.loaded.set(specifier, entry);
    }
    const { task, module } = await entry;
    const mine = taskIdentity(task, module, data.job.taskOptions);
    if (mine !== identity) {
      throw new Error(`task '${specifier}' here is ${mine}, not ${identity} as the Trainer keyed it: install the same task (same module or version) on this worker`);
    }
    return task;
  }

  private async load(specifier: string): Promise<{ task: Task; module?: Buffer }> {
    try {
      const task = await loadTask(specifier, { base: this.options.cwd, catalog: this.options.catalog });
      const source = pluginSource(task);
      return { task, ...(source ? { module: await readFile(source) } : {}) };
    } catch (error) {
      throw new Error(`cannot load task '${specifier}': ${errorMessage(error)}`);
    }
  }

  async close(): Promise<void> {
    const tasks = await Promise.allSettled(this.loaded.values());
    for (const entry of tasks) if (entry.status === "fulfilled") await Promise.resolve().then(() => entry.value.task.close?.()).catch(() => undefined);
  }
}
