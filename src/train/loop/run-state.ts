/**
 * What a run's stages work with, in two parts. `RunEnvironment`: the services and inputs fixed
 * for the run (settings, paths, store, plugins, instances, the rollout batches) — read-only.
 * `RunState`: what the run has recorded so far (`run.json`, what decisions need of the committed
 * steps, the Evolver's state commit) — replaced, never edited, by the one function that moves it
 * on after a step's commit point (`pointers.ts`) and by the final phase. The committed steps'
 * records stay on disk (`steps/<n>/step.json`, read back by `history.ts` when the whole list is
 * needed), so a long run's memory does not grow with its steps.
 */
import { writeJson } from "../../fs/json.js";
import type { SpecResult } from "../../check/types.js";
import type { Progress } from "../progress.js";
import type { RunRecord, StepRecord } from "../records.js";
import type { RunPaths, runRefs } from "../run-dir.js";
import type { BatchEnvironment } from "../rollouts/batch.js";
import type { RolloutCache } from "../rollouts/cache.js";
import type { TrainSettings } from "../settings/table.js";
import type { VersionStore } from "../store.js";
import type { Evolver, Split, Task, TaskInstance } from "../types.js";
import type { Role } from "../../models/budget.js";
import { evolverUsage, type RunLearner } from "../learner.js";
import { emptyUsage, mergeUsage, type UsageTotals } from "../usage.js";

export interface RunEnvironment {
  settings: TrainSettings;
  paths: RunPaths;
  refs: ReturnType<typeof runRefs>;
  store: VersionStore;
  task: Task;
  evolver: Evolver;
  /** Every split's instances, loaded and checked once, at the start. */
  instances: Record<Split, TaskInstance[]>;
  /** How batches of rollouts run: the executor, the cache, the task's identity, limits. */
  batches: BatchEnvironment;
  /** Spec check results by candidate tree: the check is a function of the files, so one tree is checked once. */
  checks: Map<string, SpecResult>;
  progress: Progress;
  signal: AbortSignal;
  /** The learner model Evolvers get as `ctx.model` (`--learner-model`), resolved before anything ran. */
  learner?: RunLearner;
  /** When this process took the run over, and the running time recorded before it. */
  clock: { openedAt: number; elapsedBefore: number };
}

/** The version a step starts from (the run's `accepted`). */
export type AcceptedVersion = RunRecord["accepted"];

export interface RunState {
  run: RunRecord;
  /** What decisions need of the committed steps. */
  steps: CommittedSteps;
  /** The latest commit of the Evolver's state (ref `refs/hermit/<run>/state`). */
  stateCommit?: string;
}

/** What the run keeps in memory of its committed steps: running totals and the last record. */
export interface CommittedSteps {
  count: number;
  /** The last committed step's record (the next step's repair feedback; how the run ends). */
  last?: StepRecord;
  /** The first committed step, and whether every committed step failed (a run that ends `failed` says so). */
  first?: { step: number; summary: string };
  allFailed: boolean;
  /** Usage of every committed Evolver step and its learner calls. */
  learning: UsageTotals;
  /** The best validation score of an accepted candidate so far (null: none). */
  bestAccepted: number | null;
}

export const noSteps: CommittedSteps = { count: 0, allFailed: true, learning: emptyUsage(), bestAccepted: null };

/** The steps after one more committed step (pure). */
export function withStep(steps: CommittedSteps, record: StepRecord): CommittedSteps {
  const better = record.status === "accepted" && record.score !== null && (steps.bestAccepted === null || record.score > steps.bestAccepted);
  return {
    count: steps.count + 1,
    last: record,
    first: steps.first ?? { step: record.step, summary: record.summary },
    allFailed: steps.allFailed && record.status === "failed",
    learning: mergeUsage(steps.learning, evolverUsage(record.evolver)),
    bestAccepted: better ? record.score : steps.bestAccepted,
  };
}

/** The cache of the run's rollouts. */
export function cacheOf(env: RunEnvironment): RolloutCache {
  return env.batches.cache;
}

/** Seconds this run has been worked on, over every process. */
export function elapsedSeconds(env: Pick<RunEnvironment, "clock">): number {
  return env.clock.elapsedBefore + (performance.now() - env.clock.openedAt) / 1000;
}

/**
 * The run's usage: every rollout that ran (from the cache file, so the sealed test and rollouts a
 * crash interrupted count) plus every committed Evolver step.
 */
export function runUsage(cache: RolloutCache, steps: CommittedSteps): UsageTotals {
  const { acting, learning } = usageByRole(cache, steps);
  return mergeUsage(acting, learning);
}

/** The run's usage by role: acting (every rollout) and learning (every committed Evolver step and its model calls). */
export function usageByRole(cache: RolloutCache, steps: CommittedSteps): Record<Role, UsageTotals> {
  return { acting: cache.usage, learning: steps.learning };
}

/** Write `run.json` (atomically) with the current counters and running time; returns what was written. */
export async function saveRun(env: RunEnvironment, state: RunState): Promise<RunRecord> {
  const run: RunRecord = {
    ...state.run,
    elapsedSeconds: Number(elapsedSeconds(env).toFixed(3)),
    updatedAt: new Date().toISOString(),
    rollouts: { ...state.run.rollouts, ran: cacheOf(env).size },
    usage: runUsage(cacheOf(env), state.steps),
    ...(cacheOf(env).adapterUse.rollouts > 0 ? { adapterUse: cacheOf(env).adapterUse } : {}),
    usageByRole: usageByRole(cacheOf(env), state.steps),
  };
  await writeJson(env.paths.runJson, run);
  return run;
}
