/**
 * The Trainer's contracts: what a Task and an Evolver implement, what they are given, and the
 * records a run leaves behind (docs/trainer.md). Everything here is plain data or a
 * plugin interface; the loop lives in `loop/`.
 */
import type { ActRequest } from "../acting/act.js";
import type { ActResult, AdapterUse } from "../acting/types.js";
import type { LearnerModel } from "../models/client.js";
import type { Session, SessionOptions } from "../runtime/session.js";
import type { RepairAction } from "../check/repair.js";
import type { Issue } from "../check/types.js";
import type { OptionsSchema } from "./settings/plugin-options.js";

export type { OptionsSchema };

/** A plugin's options, as `ctx.options` hands them over (checked against its `options` schema). */
export type PluginOptions = Record<string, unknown>;

/** The three splits of a task. `test` is sealed: scored once, at the end, never shown to the learner. */
export type Split = "train" | "val" | "test";

/** One task instance. `id` is unique within its split; every other key is the task's business. */
export interface TaskInstance {
  id: string;
  [key: string]: unknown;
}

/**
 * Usage a rollout or an Evolver step reports. A field left out was not reported: the Trainer
 * counts it as unknown, never as zero.
 */
export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
}

/** What `Task.rollout` returns. `score: null` means the rollout could not be measured. */
export interface RolloutResult {
  score: number | null;
  /** What went right or wrong, for the learner. */
  feedback?: string;
  usage?: Usage;
  /** Why a usage field is missing, when one is (e.g. the host reported no cost and the price table has no price for the model). */
  usageUnknown?: string;
  /** Did the acting host use the adapter: the skills it read, the adapter tools it called (`hostTask` fills it from `ctx.act`). */
  adapterUse?: AdapterUse;
  /**
   * The rollout could not be measured because what ran it failed — the host crashed, exited
   * non-zero or ran out of time — rather than the task judging it: recorded as `error` or
   * `timeout` with a null score (never 0), retried under `--retries`, never reused as a result.
   */
  failed?: { status: "error" | "timeout"; reason: string };
}

/** What a rollout is given. */
export interface RolloutContext<Options extends PluginOptions = PluginOptions> {
  /** Absolute path of the adapter version under test (read-only by convention). */
  adapter: string;
  /** Git tree id of that version: the rollout cache key. */
  tree: string;
  split: Split;
  /** 0-based repetition index (`--trials`). */
  trial: number;
  /** The step whose batch runs this rollout (0 before any step), or `final` for the sealed test. */
  step: number | "final";
  /** A fresh directory for this rollout's evidence; the learner reads it. */
  evidenceDir: string;
  /** Aborted when the rollout times out or the run stops. */
  signal: AbortSignal;
  /** The run's seed, for tasks that sample. */
  seed: number;
  /** The task's options (`--task-option`, the `task:` section of the config), checked against its `options` schema. */
  options: Options;
  /**
   * Open a `Session` on the version under test, with this rollout's evidence directory and an
   * audit log beside it (`<evidenceDir>.audit.jsonl`, out of a sandboxed tool's reach). Closed
   * by the Trainer when the rollout ends.
   */
  session(options?: Omit<SessionOptions, "evidence" | "auditLog">): Promise<Session>;
  /** Deploy the version under test into `workspace` for `host` (a real host can then be launched there). */
  deploy(host: string, workspace: string): Promise<unknown>;
  /**
   * One turn of a real host on this instance (docs/acting.md): a fresh workspace with `files`,
   * the version under test deployed there, the host (`--actor-host`, or `host`) run headless
   * against `--actor-model`. The workspace stays readable until the rollout returns. Throws a
   * usage error when the run has no actor (`--actor-host`, `--actor-model`).
   */
  act(request: ActRequest): Promise<ActResult>;
}

/** What `Task.instances` is given besides the split. */
export interface InstancesContext<Options extends PluginOptions = PluginOptions> {
  options: Options;
  seed: number;
}

/** What a plugin declares besides its behaviour: its name and its options. */
interface PluginBase<Options extends PluginOptions> {
  /** Shown in progress lines, commit trailers and the card. */
  name: string;
  /**
   * A JSON Schema (`type: "object"`) of the options the plugin takes. hermit checks what the user
   * gives against it before the run starts (unknown keys, types, required ones), fills its
   * defaults, converts flag strings to the declared types, and resolves a string property with
   * `format: "path"` against the config file's folder (or the working directory for a flag).
   * Without a schema, options are passed through unchecked.
   */
  options?: OptionsSchema;
  /**
   * Called once with the checked options before the run writes anything (also on resume): throw
   * to refuse them (e.g. a missing directory). Errors are reported as usage errors.
   */
  validate?(options: Options): void | Promise<void>;
  /** Called once when the run ends, whatever happened. */
  close?(): void | Promise<void>;
}

/** A Task as its module writes it (`defineTask` adds `apiVersion`). */
export interface TaskDefinition<Instance extends TaskInstance = TaskInstance, Options extends PluginOptions = PluginOptions> extends PluginBase<Options> {
  /**
   * Part of every rollout's cache key. Without it the task's module file is hashed instead; bump
   * it when scoring changes outside that file (another module, a data file the instances do not
   * carry), so no old score is reused.
   */
  version?: string;
  /** True when its rollouts act through a host (`ctx.act`; `hostTask` sets it): the run then needs `--actor-host` and `--actor-model`. */
  acts?: boolean;
  /** The instances of a split, each with a unique, non-empty string `id`. Called once per split and run. */
  instances(split: Split, context: InstancesContext<Options>): Instance[] | Promise<Instance[]>;
  rollout(instance: Instance, context: RolloutContext<Options>): RolloutResult | Promise<RolloutResult>;
}

/** A Task plugin: instances per split and a scored rollout. */
export interface Task<Instance extends TaskInstance = TaskInstance, Options extends PluginOptions = PluginOptions> extends TaskDefinition<Instance, Options> {
  /** The plugin API version it was built against (`PLUGIN_API_VERSION` of the hermit that defined it). */
  apiVersion: string;
}

/** What `Evolver.step` returns. */
export interface StepResult {
  /** `done`: the candidate is ready; `skipped`: nothing this step; `failed`: the step failed; `stop`: end the run. */
  status: "done" | "skipped" | "failed" | "stop";
  summary: string;
  usage?: Usage;
}

/** An Evolver as its module writes it (`defineEvolver` adds `apiVersion`). */
export interface EvolverDefinition<Options extends PluginOptions = PluginOptions> extends PluginBase<Options> {
  /**
   * `required`: the Evolver calls `ctx.model`, so a run without `--learner-model` is refused
   * before it starts. Default: `ctx.model` is offered when the run has a learner model.
   */
  model?: "required" | "optional";
  /** Whether candidates are screened on the acting batch before validation when `--screen` is not given (default false). */
  screen?: boolean;
  step(context: EvolverContext<Options>): StepResult | Promise<StepResult>;
}

/** An Evolver plugin: edits the candidate in `workspace.adapter`. */
export interface Evolver<Options extends PluginOptions = PluginOptions> extends EvolverDefinition<Options> {
  /** The plugin API version it was built against (`PLUGIN_API_VERSION` of the hermit that defined it). */
  apiVersion: string;
}

/** What the Evolver is given each step. */
export interface EvolverContext<Options extends PluginOptions = PluginOptions> {
  run: string;
  step: number;
  workspace: {
    /** The candidate: a copy of the accepted version; edit it in place. */
    adapter: string;
    /** The Evolver's own directory, kept across steps (and across a resume); never part of the adapter. */
    state: string;
  };
  /** The template root the candidate is checked against. */
  root: string;
  /** The accepted version the acting batch used (read-only). */
  rolloutAdapter: string;
  learningMaterial: LearningMaterial;
  signal: AbortSignal;
  seed: number;
  /** The Evolver's options (`--evolver-option`, the `evolver:` section of the config), checked against its `options` schema. */
  options: Options;
  /** A progress line on stderr. */
  log(line: string): void;
  /**
   * The learner the run names, for an Evolver that runs one itself (the agent Evolver runs a
   * host): `--learner-host`, `--learner-model`, `--learner-base-url`, the time limit
   * (`--learner-timeout`), and what is left of the run's USD budget for learning. Absent
   * without `--learner-host`.
   */
  learner?: { host: string; model?: string; baseUrl?: string; timeout?: number; budgetUsd?: number };
  /**
   * The run's learner model (`--learner-model`), when it has one: `generate({ system, prompt,
   * maxOutputTokens, schema? })`. Every call is recorded under `steps/<n>/calls/`, metered and
   * priced; a call that would pass a budget is not made (it throws `BUDGET_EXCEEDED`, and the
   * run ends with status `budget`).
   */
  model?: LearnerModel;
}

/** How one rollout ended. */
export type RolloutStatus = "ok" | "error" | "timeout";

/** What a rollout's result depends on: its cache key. Changing any part runs it again. */
export interface RolloutKey {
  /** Git tree id of the version under test. */
  tree: string;
  split: Split;
  instance: string;
  /** Hash of the instance's content: a changed instance is a different rollout. */
  instanceHash: string;
  /** The task's identity (name and version, or module hash, and options). */
  task: string;
  trial: number;
}

/** One finished rollout, as cached and as shown to the learner. */
export interface RolloutRecord extends RolloutKey {
  /** How the last attempt ended; `error` and `timeout` are infrastructure failures, never reused as results. */
  status: RolloutStatus;
  /** Attempts made (`--retries` more after a crash or time-out). */
  attempts: number;
  /** Why earlier attempts failed, oldest first. */
  retried?: string[];
  /** Null when the rollout crashed, timed out or the task could not measure it: missing data, never 0. */
  score: number | null;
  feedback?: string;
  error?: string;
  /** Usage over every attempt; a field some attempt did not report is left out (unknown, never 0). */
  usage?: Usage;
  /** Why a usage field is missing, when the task or the Trainer knows. */
  usageUnknown?: string;
  /** Did the acting host use the adapter (rollouts acted through a host). */
  adapterUse?: AdapterUse;
  durationMs: number;
  /** Absolute path of the evidence directory. */
  evidenceDir: string;
  /** The step whose batch ran it (0 = before the first step, "final" = the sealed test). */
  ranAt: number | "final";
}

/** The repair the previous step needed, as the learner sees it. */
export interface RepairFeedback {
  step: number;
  issues: Issue[];
  actions: RepairAction[];
  passedAfter: boolean;
}

/** One past step, as the learner sees it. */
export interface HistoryEntry {
  step: number;
  status: StepStatus;
  summary: string;
  score: number | null;
  acceptedScore: number | null;
  commit: string;
  /** Validation scores per instance (mean over trials) of the candidate and the accepted version, when validation ran. */
  validation?: { candidate: Record<string, number>; accepted: Record<string, number> };
}

/** What the Evolver learns from (also written to `steps/<n>/learning.json`). */
export interface LearningMaterial {
  run: string;
  step: number;
  task: string;
  /** The accepted version the batch ran: its commit, tree and mean validation score (null before any is known). */
  accepted: { commit: string; tree: string; score: number | null };
  /** The acting batch on the train split, with scores, feedback and evidence. */
  rollouts: RolloutRecord[];
  /** How many instances the train split has: the batch is a sample of them under `--batch-size`. */
  trainInstances: number;
  /** Mean train score of the batch over measured rollouts; null when none was measured. */
  batchScore: number | null;
  /** The previous step's repair, when its candidate needed one. */
  repairs: RepairFeedback[];
  history: HistoryEntry[];
  /** Absolute path of this file on disk. */
  file: string;
}

/**
 * Final status of one step. `indecisive`: too few validation items were measured for both
 * versions to decide. `screened-out`: the candidate did not beat the accepted version on the
 * acting batch's instances (`--screen`), so it was not validated.
 */
export type StepStatus = "accepted" | "rejected" | "indecisive" | "invalid" | "failed" | "skipped" | "stopped" | "screened-out";

/** Status of a whole run. */
export type RunStatus = "running" | "completed" | "stopped" | "budget" | "failed";
