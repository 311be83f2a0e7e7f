/**
 * `hermit/plugin`: what a Task or Evolver module needs — the define helpers, the plugin API
 * version they stamp, and the types of what a plugin is given and returns. Pinned by
 * `test/api.test.ts`.
 */
import { hostTask as hostTaskShape, type HostTaskOptions } from "./acting/host-task.js";
import { defineTask } from "./train/define.js";
import type { Split, Task, TaskDefinition, TaskInstance } from "./train/types.js";

export { defineEvolver, defineTask, PLUGIN_API_VERSION } from "./train/define.js";

/**
 * Declare a Task acted by a real host (docs/acting.md): per rollout one host turn in a fresh
 * workspace holding the instance's `files` and the version under test, scored by `score` from
 * what the host left there. A turn that could not finish is a `null` score, never a 0.
 */
export function hostTask<Instance extends TaskInstance>(options: HostTaskOptions<Instance, [Split]>): Task<Instance> {
  return defineTask(hostTaskShape(options) as unknown as TaskDefinition<Instance>);
}
export type { ActingContext, HostRolloutResult, HostScore, HostTaskOptions } from "./acting/host-task.js";
export type { ActRequest } from "./acting/act.js";
export type { ActResult, AdapterToolCall, AdapterUse, HostToolCall, HostUsage } from "./acting/types.js";
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
export type { LearnerModel, LearnerResult, GenerateRequest } from "./models/client.js";
export type { TokenUsage } from "./models/usage.js";
export type { Issue } from "./check/types.js";
export type { RepairAction } from "./check/repair.js";
export type { Session, SessionOptions } from "./runtime/session.js";
