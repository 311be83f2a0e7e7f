/** The records a run writes: `run.json` and `steps/<n>/step.json`. Plain data. */
import type { Decision } from "./acceptance.js";
import type { RepairRecord } from "../check/repair.js";
import type { SpecResult } from "../check/types.js";
import type { TrainSettings } from "./settings/table.js";
import type { RunStatus, StepResult, StepStatus, Usage } from "./types.js";
import type { AdapterUseTotals } from "./adapter-use.js";
import type { StepCalls } from "./learner.js";
import type { UsageTotals } from "./usage.js";

/** Scores of one version on one split. */
export interface Evaluation {
  commit: string;
  tree: string;
  /** Mean over measured scores; null when none was measured. */
  score: number | null;
  measured: number;
  missing: number;
}

export interface DeploymentRecord {
  host: string;
  workspace: string;
  changed: boolean;
  /** The deployment the workspace held before, when hermit had deployed there. */
  replaced?: { adapter: string; version: string; from: string; host: string };
  /** Files written, by action (`create`, `replace`, `block-edit`, `delete`). */
  actions?: Record<string, number>;
  error?: string;
}

/** `run.json`. */
export interface RunRecord {
  format: "hermit-run";
  formatVersion: 1;
  run: string;
  hermitVersion: string;
  status: RunStatus;
  /** Why the run ended early (Evolver stop, budget), or what failed. */
  reason?: string;
  createdAt: string;
  updatedAt: string;
  settings: TrainSettings;
  branch: string;
  base: { commit: string; tree: string; from?: string; adapterName: string; adapterVersion: string };
  template: { commit: string; tree: string; path: string; name?: string; version?: string | number };
  task: string;
  evolver: string;
  accepted: { commit: string; tree: string; step: number; score: number | null };
  /** The last step whose commit is in the store. */
  lastStep: number;
  /** Seconds spent running, summed over every process that worked on the run. */
  elapsedSeconds: number;
  rollouts: { ran: number; cached: number };
  usage: UsageTotals;
  /** Did the acting host use the adapter, over every rollout that ran (absent in runs before it was recorded). */
  adapterUse?: AdapterUseTotals;
  /** The same usage by role: acting (rollouts) and learning (the Evolver and its learner model calls). */
  usageByRole?: { acting: UsageTotals; learning: UsageTotals };
  final?: { commit: string; tag: string; test: { base: Evaluation; final: Evaluation } };
  /** The folder the final version was exported to (`--export`). */
  exported?: string;
  deployments?: DeploymentRecord[];
}

/** How the Evolver's step went. */
export interface EvolverOutcome {
  status: StepResult["status"] | "threw";
  summary: string;
  error?: string;
  /** What the Evolver reported itself (spending outside `ctx.model`). */
  usage?: Usage;
  /** Its `ctx.model` calls (`steps/<n>/calls/`), counted by the Trainer. */
  calls?: StepCalls;
  durationMs: number;
}

/** `steps/<n>/step.json`. */
export interface StepRecord {
  step: number;
  status: StepStatus;
  /** One line: the Evolver's summary, or what went wrong. */
  summary: string;
  evolver: EvolverOutcome;
  /** The step's commit (ref `refs/hermit/<run>/candidates/step-<n>`). */
  commit: string;
  tree: string;
  /** The candidate as the Evolver left it, before repair (ref `…/invalid/step-<n>`). */
  invalidCommit?: string;
  acceptedBefore: string;
  acceptedAfter: string;
  /** Validation means: the candidate's and the accepted version's. */
  score: number | null;
  acceptedScore: number | null;
  batchScore: number | null;
  decision?: Decision;
  /** Validation scores per instance (mean over trials) of both versions, when validation ran. */
  validation?: { candidate: Record<string, number>; accepted: Record<string, number> };
  /** The screening on the acting batch's instances, when the candidate was screened. */
  screening?: { candidateScore: number | null; acceptedScore: number | null; passed: boolean; instances: number };
  check?: SpecResult;
  repair?: RepairRecord;
  rollouts: { ran: number; cached: number };
  usage: UsageTotals;
  /** Did the acting host use the adapter, over the rollouts this step ran. */
  adapterUse?: AdapterUseTotals;
  durationMs: number;
  /** True when rebuilt from Git alone after a crash (fewer details). */
  rebuilt?: boolean;
}
