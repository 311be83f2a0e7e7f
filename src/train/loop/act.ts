/**
 * The step's rollouts: the acting batch (the accepted version on the step's train instances)
 * and the validation batches (the accepted version and the candidate on the val split), each
 * with its progress line. Which instances run is decided in `decisions.ts`.
 */
import type { BatchOutcome, BatchVersion } from "../rollouts/batch.js";
import { runBatch } from "../rollouts/batch.js";
import type { Split, TaskInstance } from "../types.js";
import { actingInstances, batchItems } from "./decisions.js";
import type { RunEnvironment } from "./run-state.js";

export interface BatchRequest {
  version: BatchVersion;
  split: Split;
  instances: TaskInstance[];
  /** The version's role, which names its evidence folder (`accepted`, `candidate`, `base`, `final`). */
  role: string;
  /** The progress label. */
  label: string;
  /** Where the step's evidence goes (`steps/<n>/`, `steps/final/`). */
  stepPath: string;
  step: number | "final";
}

/** One version on one split, with progress. */
export async function runVersionBatch(env: RunEnvironment, request: BatchRequest): Promise<BatchOutcome> {
  const items = batchItems(request.instances, env.settings.trials, request.stepPath, request.split, request.role);
  env.progress.batchStarted(request.label, items.length);
  const outcome = await runBatch(request.version, request.split, items, request.step, {
    ...env.batches,
    onSettled: (_record, cached) => env.progress.rolloutSettled(cached),
  });
  env.progress.batchFinished();
  return outcome;
}

/** Act: the accepted version on this step's train instances. */
export function actingBatch(env: RunEnvironment, accepted: BatchVersion, step: number, stepPath: string): Promise<BatchOutcome> {
  const instances = actingInstances(env.instances.train, env.settings, step);
  return runVersionBatch(env, { version: accepted, split: "train", instances, role: "accepted", label: "acting", stepPath, step });
}

export interface Validation {
  accepted: BatchOutcome;
  candidate: BatchOutcome;
}

/** Validate: the accepted version (from the cache after its first validation) and the candidate on the val split. */
export async function validationBatches(env: RunEnvironment, versions: { accepted: BatchVersion; candidate: BatchVersion }, step: number, stepPath: string): Promise<Validation> {
  const instances = env.instances.val;
  const accepted = await runVersionBatch(env, { version: versions.accepted, split: "val", instances, role: "accepted", label: "validating accepted", stepPath, step });
  const candidate = await runVersionBatch(env, { version: versions.candidate, split: "val", instances, role: "candidate", label: "validating candidate", stepPath, step });
  return { accepted, candidate };
}
