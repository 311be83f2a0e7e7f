/**
 * `train(options)`: open (or resume) a run, step within the budgets, finish. The library
 * function behind `hermit train`.
 */
import { HermitError, errorMessage } from "../../errors.js";
import type { ActorFields } from "../actor.js";
import { notifier, type RunNotifier, type TrainObservers } from "../observers.js";
import { emptyCatalog, type PluginCatalog } from "../plugins.js";
import { silentProgress, type Progress } from "../progress.js";
import type { DeploymentRecord, Evaluation, RunRecord } from "../records.js";
import { runRefs } from "../run-dir.js";
import { RolloutCache } from "../rollouts/cache.js";
import type { RolloutExecutor } from "../rollouts/executor.js";
import { createLocalExecutor } from "../rollouts/local.js";
import { localServices } from "../rollouts/services.js";
import type { SettingsInput } from "../settings/table.js";
import type { Evolver, RunStatus, StepStatus, Task } from "../types.js";
import type { UsageTotals } from "../usage.js";
import { budgetReached, runEnd } from "./decisions.js";
import { finishRun } from "./finish.js";
import { openTraining, type OpenedTraining } from "./open.js";
import { elapsedSeconds, saveRun, usageByRole, type RunEnvironment, type RunState } from "./run-state.js";
import { runStep } from "./step.js";

/** Settings as the library takes them: the setting names of docs/trainer.md, plus plugin objects and run control. */
export interface TrainOptions extends Omit<SettingsInput, "task" | "evolver"> {
  /** A built-in name, a module path, a package name, or a Task object. */
  task?: string | Task;
  /** A built-in name, a module path, a package name, or an Evolver object. */
  evolver?: string | Evolver;
  /** Same as `evolverOptions: { pool }` (the select Evolver's pool of fragments). */
  pool?: string;
  /** A YAML file with the same settings (see docs/trainer.md); options given here override it. */
  config?: string;
  /** Resume this run id (in `runsDir`) after a crash, or extend it with more steps. */
  resume?: string;
  /** Base for relative paths given here (default: the working directory). */
  cwd?: string;
  /** How errors name a bad value: as command-line flags (`--steps: …`) or as these options' names (the default). */
  source?: "flags" | "options";
  progress?: Progress;
  /** Aborting it stops the run after its last committed step; it can be resumed. */
  signal?: AbortSignal;
  /** Told when the run opens, after each committed step and when the run ends (src/train/observers.ts). */
  observers?: TrainObservers;
}

export interface TrainStepSummary {
  step: number;
  status: StepStatus;
  score: number | null;
  commit: string;
  /** One line: the Evolver's summary, why a candidate was not accepted, what a repair did. */
  summary: string;
}

export interface TrainResult {
  run: string;
  /** `failed` when steps ran and none succeeded. */
  status: RunStatus;
  reason?: string;
  runDir: string;
  /** The last accepted version (the final commit's parent). */
  acceptedCommit: string;
  finalCommit: string;
  finalTag: string;
  /** The folder the final version was exported to (deploys come from here). */
  exported: string;
  steps: TrainStepSummary[];
  test: { base: Evaluation; final: Evaluation };
  rollouts: { ran: number; cached: number };
  /** Tokens and cost by role (acting: rollouts; learning: the Evolver and its learner calls) and in all. */
  usage: { acting: UsageTotals; learning: UsageTotals; total: UsageTotals };
  deployments: DeploymentRecord[];
}

/**
 * Run (or resume) a training run. `catalog` names the built-in plugins `task` and `evolver` may
 * refer to by name; the library's `train` (src/builtins.ts) passes hermit's own.
 */
export async function train(options: TrainOptions, catalog: PluginCatalog = emptyCatalog): Promise<TrainResult> {
  const { task, evolver, config, resume, cwd = process.cwd(), source = "options", progress = silentProgress, signal = new AbortController().signal, observers, ...given } = options;
  const objects = { task: typeof task === "object" ? task : undefined, evolver: typeof evolver === "object" ? evolver : undefined };
  const named = { ...(typeof task === "string" ? { task } : {}), ...(typeof evolver === "string" ? { evolver } : {}) };
  const opening = await openTraining({ settings: { ...given, ...named }, ...objects, config, resume, cwd, source }, catalog, progress);
  let env: RunEnvironment | undefined;
  let tell: RunNotifier | undefined;
  // The last committed state: what a failure or an interruption records and reports.
  const latest = { state: opening.opened.state };
  try {
    env = await environment(opening, catalog, progress, signal);
    tell = notifier(observers, { runsDir: opening.opened.settings.runsDir, runId: opening.opened.state.run.run, dir: opening.opened.paths.dir, store: opening.opened.store }, progress);
    latest.state = { ...latest.state, run: await saveRun(env, latest.state) };
    await tell.runOpened(latest.state.run);
    const budget = await stepWithinBudgets(env, latest, tell);
    const finished = await finishRun(env, latest.state, runEnd(latest.state.steps, budget));
    await tell.runFinished({ record: finished.state.run, interrupted: false });
    return resultOf(env, finished);
  } catch (error) {
    if (env) {
      const record = await recordFailure(env, latest.state, error);
      await tell?.runFinished({ record, interrupted: signal.aborted, ...(signal.aborted ? {} : { error: errorMessage(error) }) });
    }
    if (signal.aborted) throw interrupted(opening, latest.state);
    throw error;
  } finally {
    progress.close();
    await env?.batches.executor.close();
    await Promise.allSettled([Promise.resolve().then(() => opening.task.close?.()), Promise.resolve().then(() => opening.evolver.close?.())]);
    await opening.opened.lock.release();
  }
}

/** The run's fixed services: the cache, the executor, the instances, the clock. */
async function environment(opening: OpenedTraining, catalog: PluginCatalog, progress: Progress, signal: AbortSignal): Promise<RunEnvironment> {
  const { opened, task, evolver } = opening;
  const { settings } = opened;
  const cache = await RolloutCache.open(opened.paths.rollouts);
  const executor = await executorFor(opening, catalog, progress, signal);
  return {
    settings,
    paths: opened.paths,
    refs: runRefs(opened.state.run.run),
    store: opened.store,
    task,
    evolver,
    instances: opening.instances,
    batches: { executor, cache, task: opening.taskIdentity, timeoutMs: Math.round(settings.rolloutTimeout * 1000), retries: settings.retries, seed: settings.seed, taskOptions: settings.taskOptions },
    checks: new Map(),
    ...(opening.learner ? { learner: opening.learner } : {}),
    progress,
    signal,
    clock: { openedAt: performance.now(), elapsedBefore: opened.state.run.elapsedSeconds },
  };
}

/** `--executor`: this process's p-queue (`local`), or the catalog's executor for the URL's scheme. */
async function executorFor(opening: OpenedTraining, catalog: PluginCatalog, progress: Progress, signal: AbortSignal): Promise<RolloutExecutor> {
  const { settings } = opening.opened;
  if (settings.executor === "local") return createLocalExecutor({ task: opening.task, concurrency: settings.concurrency, signal, services: localServices(opening.actor) });
  const scheme = new URL(settings.executor).protocol.replace(/:$/, "");
  const factory = catalog.executor?.[scheme];
  if (!factory) throw new HermitError("USAGE", `--executor ${settings.executor}: no executor for '${scheme}://' is available here (hermit's train offers redis://)`, { executor: settings.executor });
  if (settings.task.startsWith("object:")) {
    throw new HermitError("USAGE", `--executor ${settings.executor}: a task given as an object cannot be loaded by workers; give the task as a built-in name, a module path or a package name`);
  }
  const run = opening.opened.state.run.run;
  const setup = {
    url: settings.executor,
    run,
    task: { specifier: settings.task },
    ...(opening.actor ? { actor: actorFields(settings) } : {}),
    signal,
    note: (line: string) => progress.note(line),
    patienceMs: Math.round(settings.queuePatience * 1000),
    resume: resumeCommand(run, settings.runsDir),
  };
  return (await factory()).call(undefined, setup);
}

/** The actor settings as plain data (no key: a worker reads its own from its environment). */
function actorFields(settings: OpenedTraining["opened"]["settings"]): ActorFields {
  // The price table's overrides travel too (a worker prices the actor's tokens as the Trainer would); the budgets stay with the Trainer.
  const { actorHost, actorModel, actorBaseUrl, actorTimeout, actorMaxTurns, rolloutTimeout, price } = settings;
  return { actorHost, actorModel, actorBaseUrl, actorTimeout, actorMaxTurns, rolloutTimeout, ...(price ? { price } : {}) };
}

/**
 * Steps from the last committed one up to `steps`, until the Evolver stops or a budget is used
 * up (returned). `latest.state` follows every committed step.
 */
async function stepWithinBudgets(env: RunEnvironment, latest: { state: RunState }, tell: RunNotifier): Promise<string | undefined> {
  const stopped = () => latest.state.steps.last?.status === "stopped";
  for (let step = latest.state.run.lastStep + 1; step <= env.settings.steps && !stopped(); step++) {
    const budget = budgetReached(env.settings, { rollouts: env.batches.cache.size, elapsedSeconds: elapsedSeconds(env), usage: usageByRole(env.batches.cache, latest.state.steps) });
    if (budget) {
      env.progress.note(`budget reached: ${budget}`);
      return budget;
    }
    latest.state = await runStep(env, latest.state, step);
    await tell.stepCommitted(latest.state.steps.last!, latest.state.run);
    const refused = latest.state.steps.last?.evolver.calls?.refused;
    if (refused) {
      env.progress.note(`budget reached at step ${step}: ${refused}`);
      return refused;
    }
  }
  return undefined;
}

function resultOf(env: RunEnvironment, finished: Awaited<ReturnType<typeof finishRun>>): TrainResult {
  const { run, steps } = finished.state;
  const records = finished.records;
  return {
    run: run.run,
    status: run.status,
    ...(run.reason ? { reason: run.reason } : {}),
    runDir: env.paths.dir,
    acceptedCommit: run.accepted.commit,
    finalCommit: finished.commit,
    finalTag: finished.tag,
    exported: finished.exported,
    steps: records.map((step) => ({ step: step.step, status: step.status, score: step.score, commit: step.commit, summary: step.summary })),
    test: finished.test,
    rollouts: { ...run.rollouts },
    usage: { ...usageByRole(env.batches.cache, steps), total: run.usage },
    deployments: finished.deployments,
  };
}

/** A crash of the loop itself is recorded in `run.json`; an interruption leaves the run `running` (resumable, listed as interrupted). */
async function recordFailure(env: RunEnvironment, state: RunState, error: unknown): Promise<RunRecord> {
  const run = env.signal.aborted ? { ...state.run, reason: "interrupted" } : { ...state.run, status: "failed" as const, reason: errorMessage(error) };
  return saveRun(env, { ...state, run }).catch(() => run);
}

function interrupted(opening: OpenedTraining, state: RunState): HermitError {
  const { run } = state;
  const runsDir = opening.opened.settings.runsDir;
  return new HermitError(
    "INTERRUPTED",
    `run ${run.run} interrupted after step ${run.lastStep} (every committed step is kept); continue it with: ${resumeCommand(run.run, runsDir)}`,
    { run: run.run, lastStep: run.lastStep, runsDir },
  );
}

/** The command that continues run `run` of `runsDir` from its last committed step. */
function resumeCommand(run: string, runsDir: string): string {
  return `hermit train --resume ${run} --runs-dir ${runsDir}`;
}
