/**
 * The loop's decisions, pure: which train instances a step acts on, what a step's status and
 * summary are, whether a budget is used up, and how a run ended. No IO, tested on their own.
 */
import { mean, tidy, type Decision } from "../acceptance.js";
import type { RepairRecord } from "../../check/repair.js";
import { sample, seededRandom } from "../random.js";
import type { EvolverOutcome } from "../records.js";
import type { CommittedSteps } from "./run-state.js";
import { evidenceDir } from "../run-dir.js";
import type { BatchItem } from "../rollouts/batch.js";
import type { TrainSettings } from "../settings/table.js";
import type { RunStatus, Split, StepStatus, TaskInstance } from "../types.js";
import type { Role } from "../../models/budget.js";
import { runMeter } from "../learner.js";
import { mergeUsage, type UsageTotals } from "../usage.js";

/** The train instances step `step` acts on: all of them, or a seeded sample of `batch-size`. */
export function actingInstances(train: TaskInstance[], settings: Pick<TrainSettings, "batchSize" | "seed">, step: number): TaskInstance[] {
  return sample(train, settings.batchSize, seededRandom(settings.seed, step));
}

/** Every (instance, trial) of a list, with its evidence directory under `stepPath`. */
export function batchItems(list: TaskInstance[], trials: number, stepPath: string, split: Split, role: string): BatchItem[] {
  return list.flatMap((instance) => Array.from({ length: trials }, (_, trial) => ({ instance, trial, evidenceDir: evidenceDir(stepPath, split, role, instance.id, trial, trials) })));
}

/** The status an Evolver's own result settles (its candidate is then neither checked nor evaluated), or undefined. */
export function statusFromEvolver(evolver: EvolverOutcome): StepStatus | undefined {
  if (evolver.status === "threw" || evolver.status === "failed") return "failed";
  if (evolver.status === "stop") return "stopped";
  if (evolver.status === "skipped") return "skipped";
  return undefined;
}

/** The step's status: what the Evolver's result settled, else an invalid candidate, else the acceptance decision. */
export function stepStatus(evolver: EvolverOutcome, invalid: boolean, decision: Decision | undefined): StepStatus {
  const settled = statusFromEvolver(evolver) ?? (invalid ? "invalid" : decision?.status);
  if (!settled) throw new Error("a step reached its decision without a validation decision");
  return settled;
}

/** One line: what the repair did. */
export function describeRepair(repair: RepairRecord): string {
  const actions = repair.actions.map((action) => {
    if (action.op === "restore") return `restore ${action.path} from ${action.from}`;
    if (action.op === "delete") return `delete ${action.path}`;
    if (action.op === "restore-sections") return `restore ${action.path} sections ${action.sections.join(", ")}`;
    return "reset to the previous accepted version";
  });
  const issues = repair.before.map((issue) => `${issue.path}: ${issue.problem}`).join("; ");
  return `${repair.before.length} issue${repair.before.length === 1 ? "" : "s"} (${issues}): ${actions.join("; ")}${repair.after.passed ? "" : " (still invalid)"}`;
}

/** The step's one-line summary: the Evolver's, why a candidate was not accepted, and what a repair did. */
export function stepSummary(status: StepStatus, evolver: EvolverOutcome, decision: Decision | undefined, repair: RepairRecord | undefined): string {
  const first = evolver.summary.split("\n")[0] || "(no summary)";
  if (status === "invalid") return `${first} (invalid, repair failed: ${repair?.after.issues.map((issue) => `${issue.path}: ${issue.problem}`).join("; ")})`;
  const repaired = repair ? ` [repaired: ${describeRepair(repair)}]` : "";
  // Why a candidate was not accepted is part of what happened; an accepted one speaks for itself.
  if (decision && status !== "accepted") return `${first} (${decision.reason})${repaired}`;
  return `${first}${repaired}`;
}

/** What the budgets are measured against. */
export interface BudgetUse {
  rollouts: number;
  elapsedSeconds: number;
  /** Usage by role (acting, learning); their sum is the run's. */
  usage: Record<Role, UsageTotals>;
}

/** A budget the run has used up, described; undefined while within every budget. */
export function budgetReached(settings: Pick<TrainSettings, "maxRollouts" | "maxTime" | "maxTokens" | "maxCostUsd">, use: BudgetUse): string | undefined {
  if (settings.maxRollouts !== undefined && use.rollouts >= settings.maxRollouts) return `max-rollouts ${settings.maxRollouts} (${use.rollouts} rollouts run)`;
  if (settings.maxTime !== undefined && use.elapsedSeconds >= settings.maxTime) return `max-time ${settings.maxTime} s (${use.elapsedSeconds.toFixed(1)} s spent)`;
  // Spent at or past a limit (no estimate: nothing is about to start yet).
  const meter = runMeter(settings, use.usage);
  const refusal = meter.refusal("acting") ?? meter.refusal("learning");
  if (!refusal) return undefined;
  const total = mergeUsage(use.usage.acting, use.usage.learning);
  const unreported = total.sources - Math.min(total.reported.inputTokens, total.reported.outputTokens);
  return `${refusal}${unreported > 0 ? ` (${unreported} sources did not report usage)` : ""}`;
}

/** How a run's steps ended it. */
export interface RunEnd {
  status: Exclude<RunStatus, "running">;
  reason?: string;
}

/**
 * How a run ended, from its steps and whether a budget stopped it: `stopped` by the Evolver,
 * `budget`, `failed` when steps ran and not one succeeded (every one `failed`), else `completed`.
 */
export function runEnd(steps: CommittedSteps, budget: string | undefined): RunEnd {
  const { last, first } = steps;
  if (last?.status === "stopped") return { status: "stopped", reason: `the Evolver stopped at step ${last.step}: ${last.summary}` };
  // A learner call a budget refused ended the run mid-step: that step failed for want of budget.
  if (budget && last?.evolver.calls?.refused) return { status: "budget", reason: budget };
  if (first && steps.allFailed) {
    return { status: "failed", reason: `no step succeeded: every one of the ${steps.count} step${steps.count === 1 ? "" : "s"} failed (step ${first.step}: ${first.summary})` };
  }
  if (budget) return { status: "budget", reason: budget };
  return { status: "completed" };
}

/** What screening found: both versions' means over the (instance, trial) pairs both measured. */
export interface Screening {
  candidateScore: number | null;
  acceptedScore: number | null;
  passed: boolean;
  /** Pairs measured for both versions. */
  instances: number;
}

/** Screening (DESIGN §7): the candidate passes only when it beats the accepted version on the acting batch's own pairs. */
export function screenDecision(candidate: ScoredRollout[], accepted: ScoredRollout[]): Screening {
  const before = new Map(accepted.map((item) => [`${item.instance}\0${item.trial}`, item.score]));
  const pairs = candidate.flatMap((item) => {
    const other = before.get(`${item.instance}\0${item.trial}`);
    return item.score !== null && other !== null && other !== undefined ? [[item.score, other] as const] : [];
  });
  const candidateScore = tidy(mean(pairs.map(([score]) => score)));
  const acceptedScore = tidy(mean(pairs.map(([, score]) => score)));
  const passed = candidateScore !== null && acceptedScore !== null && candidateScore > acceptedScore;
  return { candidateScore, acceptedScore, passed, instances: pairs.length };
}

/** One line: why a candidate was screened out. */
export function describeScreening(screening: Screening): string {
  const fmt = (score: number | null) => (score === null ? "none" : String(score));
  if (screening.instances === 0) return "screened out: no acting instance was measured for both versions";
  return `screened out: ${fmt(screening.candidateScore)} against the accepted version's ${fmt(screening.acceptedScore)} on the ${screening.instances} acting rollout(s)`;
}

type ScoredRollout = { instance: string; trial: number; score: number | null };

/** Validation scores per instance, the mean over its measured trials. */
export function perInstance(records: ScoredRollout[]): Record<string, number> {
  const scores = new Map<string, number[]>();
  for (const record of records) if (record.score !== null) scores.set(record.instance, [...(scores.get(record.instance) ?? []), record.score]);
  return Object.fromEntries([...scores].map(([instance, values]) => [instance, tidy(mean(values))!]));
}
