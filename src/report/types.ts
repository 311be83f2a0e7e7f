/**
 * The run report's data: what the page shows and what `hermit report --json` prints, one
 * document. Plain data, built by `buildReport` from a run's records and its Git store.
 */
import type { AdapterUseTotals } from "../train/adapter-use.js";

/** A usage figure summed over sources that may not all have reported it. Never a silent zero. */
export interface UsageFigure {
  /** Sum of what was reported; a lower bound when `reported < sources`. */
  known: number;
  /** How many sources reported this figure. */
  reported: number;
  /** How many sources there were (rollouts, Evolver steps, model calls). */
  sources: number;
}

/** Tokens and cost of one role (acting = rollouts, learning = the Evolver and its model calls). */
export interface UsageView {
  input: UsageFigure;
  output: UsageFigure;
  cached: UsageFigure;
  reasoning: UsageFigure;
  costUsd: UsageFigure;
}

/** One budget of the run against what it has used. */
export interface BudgetView {
  /** The setting, as a flag name: `max-rollouts`, `max-time`, `max-tokens`, `max-cost-usd`. */
  name: string;
  limit: number;
  used: number;
  /** `s`, `rollouts`, `tokens`, `USD`. */
  unit: string;
  /** True when `used` is only a lower bound (some source did not report usage). */
  lowerBound: boolean;
}

/** One changed file of a candidate against its parent. */
export interface FileDiff {
  path: string;
  change: "added" | "modified" | "deleted";
  /** Lines added and removed (0 for a binary or skipped file). */
  added: number;
  removed: number;
  /** Unified hunks: each line starts with `+`, `-`, ` ` or `\`. */
  hunks: Array<{ oldStart: number; oldLines: number; newStart: number; newLines: number; lines: string[] }>;
  /** Why no line diff is shown (binary, too large, mode only), when none is. */
  note?: string;
}

/** A step as the report shows it. */
export interface StepView {
  step: number;
  /** The recorded status (`accepted`, `rejected`, `indecisive`, `screened-out`, `failed`, …), or `interrupted` for a step a crash cut short. */
  status: string;
  /** The candidate needed a repair (it was checked against the template and fixed). */
  repaired: boolean;
  /** One line: the Evolver's summary or what went wrong. */
  summary: string;
  /** Why the step ended as it did (the decision's reason, the repair's failure, the Evolver's error). */
  reason: string;
  /** The step's candidate commit; absent for an interrupted step. */
  commit?: string;
  /** The accepted version the candidate was made from. */
  parent?: string;
  /** The raw candidate before repair. */
  rawCommit?: string;
  scores: {
    /** Mean validation score of the candidate (null: not evaluated or nothing measured). */
    candidate: number | null;
    /** Mean validation score of the accepted version it was compared with. */
    accepted: number | null;
    /** Mean train score of the acting batch (the accepted version). */
    batch: number | null;
    /** Mean score of the candidate on the screening minibatch, where screening was used. */
    screening: number | null;
  };
  decision?: { difference: number | null; standardError: number | null; pairs: number; missing: { candidate: number; accepted: number; total: number } };
  rollouts: { ran: number; cached: number };
  usage: { acting: UsageView; learning: UsageView };
  /** Wall time of the step and of the Evolver within it; null when not recorded. */
  durationMs: number | null;
  evolverMs: number | null;
  repair?: { issues: Array<{ path: string; problem: string }>; actions: string[]; passedAfter: boolean; diff: FileDiff[] };
  /** The candidate against its parent. */
  diff: FileDiff[];
  /** Why the diff is missing or incomplete, when it is. */
  diffNote?: string;
  /** Rebuilt from the Git store alone (the step record was lost to a crash): fewer details. */
  rebuilt: boolean;
}

/** One cell of a heatmap. */
export type HeatCell =
  | { state: "score"; score: number; trials: number; missing: number }
  | { state: "failed"; trials: number; error: string }
  | { state: "not-evaluated" };

/** Instances × columns (steps, or versions for the sealed test). */
export interface Heatmap {
  id: "validation" | "acting" | "test";
  title: string;
  description: string;
  columns: Array<{ key: string; label: string }>;
  rows: Array<{ instance: string; cells: HeatCell[] }>;
}

/** A node of the candidate lineage: the base, each step's candidate, the final version. */
export interface LineageNode {
  id: string;
  kind: "base" | "candidate" | "final";
  step: number;
  status: string;
  commit?: string;
  parent?: string;
  label: string;
}

export interface Provenance {
  run: string;
  hermitVersion: string;
  branch: string;
  finalTag?: string;
  store: string;
  template: { commit: string; tree: string; path: string; name?: string; version?: string | number };
  base: { commit: string; tree: string; from?: string; adapterName: string; adapterVersion: string };
  task: string;
  evolver: string;
  seed: number;
  /** The run's settings as flag name → value, for display. */
  settings: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

/** The report of one run. */
export interface ReportData {
  format: "hermit-report";
  formatVersion: 1;
  run: {
    id: string;
    /** The recorded status, or `interrupted` for a `running` run that no live process holds. */
    status: string;
    reason?: string;
    dir: string;
    /** A live process is still working on it (the page reloads itself). */
    live: boolean;
    stepsDone: number;
    stepsPlanned: number;
    elapsedSeconds: number;
    rollouts: { ran: number; cached: number };
  };
  provenance: Provenance;
  /** Commands that reproduce, resume or continue the run. */
  reproduce: Array<{ label: string; command: string }>;
  test?: {
    base: { commit: string; score: number | null; measured: number; missing: number };
    final: { commit: string; score: number | null; measured: number; missing: number };
  };
  steps: StepView[];
  lineage: LineageNode[];
  heatmaps: Heatmap[];
  usage: { acting: UsageView; learning: UsageView; budgets: BudgetView[] };
  /** For a run whose task acted through a host: who acted, and whether the host used the adapter over every rollout. */
  acting?: { host?: string; model?: string; adapterUse: AdapterUseTotals };
  /** What the report could not show, and why (a missing store, unreadable records). */
  notes: string[];
}
