/**
 * `train(options)`: open (or resume) a run, loop over steps within the budgets, finish. The
 * library function behind `hermit train`.
 */
import PQueue from "p-queue";
import { deploy } from "../../deploy/deploy.js";
import { errorMessage } from "../../errors.js";
import { Session } from "../../runtime/session.js";
import { RolloutCache } from "../cache.js";
import { emptyCatalog, type PluginCatalog } from "../plugins.js";
import { silentProgress, type Progress } from "../progress.js";
import type { DeploymentRecord, Evaluation } from "../records.js";
import { auditLogFor, runRefs } from "../run-dir.js";
import type { SettingsInput } from "../settings/table.js";
import type { Evolver, RunStatus, StepStatus, Task } from "../types.js";
import { knownTokens } from "../usage.js";
import { elapsedSeconds, saveRun, type RunContext } from "./context.js";
import { finishRun } from "./finish.js";
import { openTraining } from "./open.js";
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

/**
 * Run (or resume) a training run. `catalog` names the built-in plugins `task` and `evolver` may
 * refer to by name; the library's `train` (src/builtins.ts) passes hermit's own.
 */
export async function train(options: TrainOptions, catalog: PluginCatalog = emptyCatalog): Promise<TrainResult> {
  const { task, evolver, config, resume, cwd = process.cwd(), source = "options", progress = silentProgress, signal = new AbortController().signal, ...given } = options;
  const objects = { task: typeof task === "object" ? task : undefined, evolver: typeof evolver === "object" ? evolver : undefined };
  const named = { ...(typeof task === "string" ? { task } : {}), ...(typeof evolver === "string" ? { evolver } : {}) };
  const opening = await openTraining({ settings: { ...given, ...named }, ...objects, config, resume, cwd, source }, catalog, progress);
  const { opened } = opening;
  const { settings } = opened;
  const cache = await RolloutCache.open(opened.paths.rollouts).catch(async (error) => {
    await opened.lock.release();
    throw error;
  });
  const context: RunContext = {
    ...opened,
    refs: runRefs(opened.run.run),
    cache,
    task: opening.task,
    evolver: opening.evolver,
    rollouts: {
      task: opening.task,
      cache,
      queue: new PQueue({ concurrency: settings.concurrency }),
      timeoutMs: Math.round(settings.rolloutTimeout * 1000),
      seed: settings.seed,
      options: settings.taskOptions,
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
    instanceCache: opening.instances,
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
    await Promise.allSettled([Promise.resolve().then(() => opening.task.close?.()), Promise.resolve().then(() => opening.evolver.close?.())]);
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
