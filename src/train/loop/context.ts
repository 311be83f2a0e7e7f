/** What every part of the loop shares for one run, and small helpers over it. */
import { HermitError, errorMessage } from "../../errors.js";
import { writeJson } from "../../fs/json.js";
import type { RolloutCache } from "../cache.js";
import type { Progress } from "../progress.js";
import type { RunRecord, StepRecord } from "../records.js";
import { evidenceDir, runRefs, type RunPaths } from "../run-dir.js";
import type { BatchItem, RolloutEnvironment } from "../rollouts.js";
import type { TrainSettings } from "../settings/table.js";
import type { VersionStore } from "../store.js";
import type { Evolver, InstancesContext, RolloutRecord, Split, Task, TaskInstance } from "../types.js";
import type { Evaluation } from "../records.js";
import { mean, tidy } from "../acceptance.js";
import type { SpecResult } from "../../check/types.js";
import { addUsage, emptyUsage, mergeUsage, type UsageTotals } from "../usage.js";

export interface AcceptedVersion {
  commit: string;
  tree: string;
  /** The step that accepted it (0: the base). */
  step: number;
  /** Its mean validation score, once measured. */
  score: number | null;
}

export interface RunContext {
  settings: TrainSettings;
  paths: RunPaths;
  refs: ReturnType<typeof runRefs>;
  store: VersionStore;
  cache: RolloutCache;
  task: Task;
  evolver: Evolver;
  run: RunRecord;
  /** Committed steps, oldest first. */
  steps: StepRecord[];
  accepted: AcceptedVersion;
  /** The latest commit of the Evolver's state (ref `refs/hermit/<run>/state`). */
  stateCommit?: string;
  rollouts: Omit<RolloutEnvironment, "onSettled">;
  progress: Progress;
  signal: AbortSignal;
  /** `performance.now()` when this process took over the run. */
  startedAt: number;
  instanceCache: Map<Split, TaskInstance[]>;
  /** Spec check results by candidate tree: the check is a function of the files, so one tree is checked once. */
  checkCache: Map<string, SpecResult>;
}

/** The task's instances of `split`, checked once per run (see `loadInstances`). */
export async function instances(context: RunContext, split: Split): Promise<TaskInstance[]> {
  const known = context.instanceCache.get(split);
  if (known) return known;
  const list = await loadInstances(context.task, split, { options: context.settings.taskOptions, seed: context.settings.seed });
  context.instanceCache.set(split, list);
  return list;
}

/** `task.instances(split)`, checked: an array of objects with unique, non-empty string ids. */
export async function loadInstances(task: Task, split: Split, context: InstancesContext): Promise<TaskInstance[]> {
  let list: unknown;
  try {
    list = await task.instances(split, context);
  } catch (error) {
    throw new HermitError("PLUGIN_INVALID", `task '${task.name}': instances('${split}') failed: ${errorMessage(error)}`, { split });
  }
  if (!Array.isArray(list)) throw new HermitError("PLUGIN_INVALID", `task '${task.name}': instances('${split}') must return an array`, { split });
  const seen = new Set<string>();
  for (const [index, item] of list.entries()) {
    const id = (item as TaskInstance | null)?.id;
    if (typeof id !== "string" || id === "") {
      throw new HermitError("PLUGIN_INVALID", `task '${task.name}': instances('${split}')[${index}] needs a non-empty string 'id'`, { split, index });
    }
    if (seen.has(id)) throw new HermitError("PLUGIN_INVALID", `task '${task.name}': instance id '${id}' appears twice in split '${split}'`, { split, id });
    seen.add(id);
  }
  return list as TaskInstance[];
}

/** Every (instance, trial) of a list, with its evidence directory. */
export function batchItems(context: RunContext, list: TaskInstance[], stepPath: string, split: Split, role: string): BatchItem[] {
  const trials = context.settings.trials;
  return list.flatMap((instance) =>
    Array.from({ length: trials }, (_, trial) => ({ instance, trial, evidenceDir: evidenceDir(stepPath, split, role, instance.id, trial, trials) })),
  );
}

/** Scores of one version, summarized. */
export function summarize(commit: string, tree: string, records: RolloutRecord[]): Evaluation {
  const scores = records.flatMap((record) => (record.score === null ? [] : [record.score]));
  return {
    commit,
    tree,
    score: tidy(mean(scores)),
    measured: scores.length,
    missing: records.length - scores.length,
  };
}

/** Seconds this run has been worked on, over every process. */
export function elapsedSeconds(context: RunContext): number {
  return context.run.elapsedSeconds + (performance.now() - context.startedAt) / 1000;
}

/** Write `run.json` (atomically) with the current elapsed time. */
export async function saveRun(context: RunContext): Promise<void> {
  const elapsed = elapsedSeconds(context);
  context.run.elapsedSeconds = Number(elapsed.toFixed(3));
  context.startedAt = performance.now();
  context.run.updatedAt = new Date().toISOString();
  context.run.rollouts.ran = context.cache.size;
  context.run.usage = runUsage(context);
  await writeJson(context.paths.runJson, context.run);
}

/**
 * The run's usage: every rollout that ran (from the cache, so the sealed test and rollouts a
 * crash interrupted count) plus every committed Evolver step.
 */
export function runUsage(context: Pick<RunContext, "cache" | "steps">): UsageTotals {
  return mergeUsage(context.cache.usage, context.steps.reduce((sum, record) => addUsage(sum, record.evolver.usage), emptyUsage()));
}
