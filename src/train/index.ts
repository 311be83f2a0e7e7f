/** The Trainer's public surface. */
export { train } from "./loop/trainer.js";
export type { TrainOptions, TrainResult, TrainStepSummary } from "./loop/trainer.js";
export { defineEvolver, defineTask } from "./define.js";
export { decide } from "./acceptance.js";
export type { AcceptanceRule, Decision, ScoredItem } from "./acceptance.js";
export { listRuns, showRun } from "./runs.js";
export type { RunDetails, RunSummary } from "./runs.js";
export { createProgress, silentProgress } from "./progress.js";
export type { Progress } from "./progress.js";
export type { DeploymentRecord, Evaluation, EvolverOutcome, RunRecord, StepRecord } from "./records.js";
export type { AcceptPolicy, DeployTarget, TrainSettings } from "./settings.js";
export type {
  Evolver,
  EvolverContext,
  HistoryEntry,
  LearningMaterial,
  RepairFeedback,
  RolloutContext,
  RolloutRecord,
  RolloutResult,
  RolloutStatus,
  RunStatus,
  Split,
  StepResult,
  StepStatus,
  Task,
  TaskInstance,
  Usage,
} from "./types.js";
