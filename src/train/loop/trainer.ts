/**
 * `train(options)`: open (or resume) a run, loop over steps within the budgets, finish. The
 * library function behind `hermit train`.
 */
import { join, resolve } from "node:path";
import PQueue from "p-queue";
import { deploy } from "../../deploy/deploy.js";
import { HermitError, errorMessage } from "../../errors.js";
import { readPool } from "../../evolvers/pool.js";
import { Session } from "../../runtime/session.js";
import { RolloutCache } from "../cache.js";
import { readRunConfig } from "../config.js";
import { loadEvolver, loadTask, shapeProblems } from "../plugins.js";
import { silentProgress, type Progress } from "../progress.js";
import type { DeploymentRecord, Evaluation } from "../records.js";
import { auditLogFor, runRefs } from "../run-dir.js";
import { absolutize, resolveSettings, resumeSettings, toSettingKeys, DEFAULTS, type DeployTarget, type RawSettings, type TrainSettings } from "../settings.js";
import type { Evolver, RunStatus, Split, StepStatus, Task, TaskInstance } from "../types.js";
import { knownTokens } from "../usage.js";
import { elapsedSeconds, loadInstances, saveRun, type RunContext } from "./context.js";
import { finishRun } from "./finish.js";
import { createRun, reopenRun, type OpenedRun } from "./prepare.js";
import { runStep } from "./step.js";

/** Settings as the library takes them: the flag names in camelCase, plus plugin objects. */
export interface TrainOptions {
  adapter?: string;
  template?: string;
  /** A built-in name, a module path, a package name, or a Task object. */
  task?: string | Task;
  /** A built-in name, a module path, a package name, or an Evolver object. */
  evolver?: string | Evolver;
  pool?: string;
  evolverOptions?: Record<string, unknown>;
  steps?: number;
  runsDir?: string;
  store?: string;
  runId?: string;
  from?: string;
  seed?: number;
  concurrency?: number;
  checkpointEvery?: number;
  accept?: "improve" | "always";
  margin?: number;
  trials?: number;
  marginSe?: number;
  batchSize?: number;
  /** Seconds, or a duration such as `90s`, `10m`. */
  rolloutTimeout?: number | string;
  maxRollouts?: number;
  maxTime?: number | string;
  maxTokens?: number;
  /** `HOST:DIR`, one or more. */
  deploy?: string | string[];
  /** A YAML file with the same settings (kebab-case keys); options given here override it. */
  config?: string;
  /** Resume this run id (in `runsDir`) after a crash, or extend it with more steps. */
  resume?: string;
  /** Base for relative paths given here (default: the working directory). */
  cwd?: string;
  progress?: Progress;
  signal?: AbortSignal;
}

export interface TrainStepSummary {
  step: number;
  status: StepStatus;
  score: number | null;
  commit: string;
}

export interface TrainResult {
  run: string;
  status: RunStatus;
  reason?: string;
  runDir: string;
  /** The last accepted version (the final commit's parent). */
  acceptedCommit: string;
  finalCommit: string;
  finalTag: string;
  steps: TrainStepSummary[];
  test: { base: Evaluation; final: Evaluation };
  rollouts: { ran: number; cached: number };
  deployments: DeploymentRecord[];
}

const CONTROL_KEYS = new Set(["config", "resume", "cwd", "progress", "signal", "task", "evolver"]);

export async function train(options: TrainOptions): Promise<TrainResult> {
  const cwd = options.cwd ?? process.cwd();
  const progress = options.progress ?? silentProgress;
  const signal = options.signal ?? new AbortController().signal;
  const flags: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) if (!CONTROL_KEYS.has(key)) flags[key] = value;
  if (typeof options.task === "string") flags.task = options.task;
  if (typeof options.evolver === "string") flags.evolver = options.evolver;
  const fromFlags = absolutize(toSettingKeys(flags), cwd);
  const fromConfig = options.config ? await readRunConfig(resolve(cwd, options.config)) : {};
  const raw: RawSettings = { ...fromConfig, ...fromFlags };
  const source = options.config ?? "train options";
  const objectTask = typeof options.task === "object" ? options.task : undefined;
  const objectEvolver = typeof options.evolver === "object" ? options.evolver : undefined;
  if (objectTask) raw.task = `object:${objectTask.name}`;
  if (objectEvolver) raw.evolver = `object:${objectEvolver.name}`;

  let opened: OpenedRun;
  let task: Task;
  let evolver: Evolver;
  const instanceCache = new Map<Split, TaskInstance[]>();
  /** Fail fast on a task whose splits are unusable, before anything is written. */
  const checkSplits = async (accept: string) => {
    const [trainSplit, valSplit] = [await loadInstances(task, "train"), await loadInstances(task, "val")];
    if (trainSplit.length === 0) throw new HermitError("PLUGIN_INVALID", `task '${task.name}': the train split is empty`);
    if (valSplit.length === 0 && accept === "improve") {
      throw new HermitError("PLUGIN_INVALID", `task '${task.name}': the val split is empty, so no candidate can be shown to improve (use --accept always, or add val instances)`);
    }
    instanceCache.set("train", trainSplit).set("val", valSplit);
  };
  if (options.resume) {
    const runsDir = typeof raw["runs-dir"] === "string" ? raw["runs-dir"] : join(cwd, DEFAULTS.runsDir);
    const overrides: RawSettings = { ...raw };
    delete overrides["runs-dir"];
    if (objectTask) delete overrides.task;
    if (objectEvolver) delete overrides.evolver;
    opened = await reopenRun(runsDir, options.resume, (recorded) => resumeSettings(recorded, overrides, cwd, source));
    try {
      task = await plugin("task", opened.settings.task, objectTask, cwd);
      evolver = await plugin("evolver", opened.settings.evolver, objectEvolver, cwd);
      await checkSplits(opened.settings.accept);
      await checkSelectPool(opened.settings);
    } catch (error) {
      await opened.lock.release();
      throw error;
    }
    progress.note(`resuming run ${opened.run.run} after step ${opened.run.lastStep}`);
  } else {
    const settings = resolveSettings(raw, cwd, source);
    task = await plugin("task", settings.task, objectTask, cwd);
    evolver = await plugin("evolver", settings.evolver, objectEvolver, cwd);
    await checkSplits(settings.accept);
    await checkSelectPool(settings);
    opened = await createRun(settings, { task: describe(settings.task, task), evolver: describe(settings.evolver, evolver) });
    progress.note(`run ${opened.run.run} in ${opened.paths.dir}`);
  }

  const { settings } = opened;
  const cache = await RolloutCache.open(opened.paths.rollouts).catch(async (error) => {
    await opened.lock.release();
    throw error;
  });
  const context: RunContext = {
    ...opened,
    refs: runRefs(opened.run.run),
    cache,
    task,
    evolver,
    rollouts: {
      task,
      cache,
      queue: new PQueue({ concurrency: settings.concurrency }),
      timeoutMs: Math.round(settings.rolloutTimeout * 1000),
      seed: settings.seed,
      signal,
      // The audit log sits beside the evidence directory, not in it: a sandboxed tool may write
      // its evidence directory, and must not be able to edit the record of its own calls.
      openSession: async (adapter, evidence, sessionOptions) =>
        new Session(adapter, { ...sessionOptions, evidence, auditLog: auditLogFor(evidence) }),
      deploy: (adapter, host, workspace) => deploy({ adapter, host, workspace }),
    },
    progress,
    signal,
    startedAt: performance.now(),
    instanceCache,
    checkCache: new Map(),
  };

  let status: RunStatus = "completed";
  let reason: string | undefined;
  try {
    await saveRun(context);
    const last = context.steps[context.steps.length - 1];
    if (last?.status === "stopped") {
      status = "stopped";
      reason = `the Evolver stopped at step ${last.step}: ${last.summary}`;
    } else {
      for (let step = context.run.lastStep + 1; step <= settings.steps; step++) {
        const budget = budgetReached(context);
        if (budget) {
          status = "budget";
          reason = budget;
          progress.note(`budget reached: ${budget}`);
          break;
        }
        const record = await runStep(context, step);
        if (record.status === "stopped") {
          status = "stopped";
          reason = `the Evolver stopped at step ${step}: ${record.summary}`;
          break;
        }
      }
    }
    progress.note("scoring the sealed test split (base and final version)");
    const finished = await finishRun(context, status, reason);
    for (const deployment of finished.deployments) {
      progress.note(deployment.error ? `deploy to ${deployment.workspace} failed: ${deployment.error}` : `deployed to ${deployment.workspace} (${deployment.host})${deployment.changed ? "" : ", already up to date"}`);
    }
    return {
      run: context.run.run,
      status,
      ...(reason ? { reason } : {}),
      runDir: context.paths.dir,
      acceptedCommit: context.accepted.commit,
      finalCommit: finished.commit,
      finalTag: finished.tag,
      steps: context.steps.map((step) => ({ step: step.step, status: step.status, score: step.score, commit: step.commit })),
      test: finished.test,
      rollouts: { ...context.run.rollouts },
      deployments: finished.deployments,
    };
  } catch (error) {
    context.run.status = "failed";
    context.run.reason = errorMessage(error);
    await saveRun(context).catch(() => undefined);
    throw error;
  } finally {
    progress.close();
    await Promise.allSettled([Promise.resolve().then(() => task.close?.()), Promise.resolve().then(() => evolver.close?.())]);
    await opened.lock.release();
  }
}

/** A budget the run has used up, described; undefined while within every budget. */
function budgetReached(context: RunContext): string | undefined {
  const { settings, run } = context;
  if (settings.maxRollouts !== undefined && context.cache.size >= settings.maxRollouts) {
    return `max-rollouts ${settings.maxRollouts} (${context.cache.size} rollouts run)`;
  }
  const elapsed = elapsedSeconds(context);
  if (settings.maxTime !== undefined && elapsed >= settings.maxTime) return `max-time ${settings.maxTime} s (${elapsed.toFixed(1)} s spent)`;
  if (settings.maxTokens !== undefined && knownTokens(run.usage) >= settings.maxTokens) {
    const unreported = run.usage.sources - Math.min(run.usage.reported.inputTokens, run.usage.reported.outputTokens);
    return `max-tokens ${settings.maxTokens} (${knownTokens(run.usage)} tokens reported${unreported > 0 ? `, ${unreported} sources did not report usage` : ""})`;
  }
  return undefined;
}

/** `select` searches a pool: without a readable one every step would fail, so refuse it at the start. */
async function checkSelectPool(settings: TrainSettings): Promise<void> {
  if (settings.evolver !== "select") return;
  const pool = settings.pool ?? (typeof settings.evolverOptions.pool === "string" ? settings.evolverOptions.pool : undefined);
  if (pool === undefined) throw new HermitError("USAGE", "the select Evolver needs a pool of fragments: pass --pool DIR (skills/, agents/, sections/)");
  await readPool(pool);
}

async function plugin(kind: "task", specifier: string, object: Task | undefined, cwd: string): Promise<Task>;
async function plugin(kind: "evolver", specifier: string, object: Evolver | undefined, cwd: string): Promise<Evolver>;
async function plugin(kind: "task" | "evolver", specifier: string, object: Task | Evolver | undefined, cwd: string): Promise<Task | Evolver> {
  if (specifier.startsWith("object:")) {
    if (!object) throw new HermitError("USAGE", `this run's ${kind} was given as an object (${specifier.slice(7)}); pass the same ${kind} object to resume it`);
    const problems = shapeProblems(object, kind);
    if (problems.length > 0) throw new HermitError("PLUGIN_INVALID", `${kind} object ${problems.join("; ")}`, { problems });
    return object;
  }
  return kind === "task" ? loadTask(specifier, cwd) : loadEvolver(specifier, cwd);
}

function describe(specifier: string, plugin: { name: string }): string {
  return specifier.startsWith("object:") || specifier === plugin.name ? plugin.name : `${plugin.name} (${specifier})`;
}
