/**
 * `hermit/plugin`: what a Task or Evolver module needs — the define helpers, the plugin API
 * version they stamp, and the types of what a plugin is given and returns. Pinned by
 * `test/api.test.ts`.
 */
export { defineEvolver, defineTask, PLUGIN_API_VERSION } from "./train/define.js";
export type {
  Evolver,
  EvolverContext,
  EvolverDefinition,
  HistoryEntry,
  InstancesContext,
  LearningMaterial,
  OptionsSchema,
  PluginOptions,
  RepairFeedback,
  RolloutContext,
  RolloutRecord,
  RolloutResult,
  RolloutStatus,
  Split,
  StepResult,
  StepStatus,
  Task,
  TaskDefinition,
  TaskInstance,
  Usage,
} from "./train/types.js";
export type { Issue } from "./check/types.js";
export type { RepairAction } from "./check/repair.js";
export type { Session, SessionOptions } from "./runtime/session.js";
