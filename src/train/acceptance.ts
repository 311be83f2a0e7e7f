/**
 * Acceptance (pure): does a candidate replace the accepted version? Scores are paired by
 * (instance, trial) on the validation split. A missing score (null: crashed, timed out, not
 * measurable) is missing data: it is left out, never counted as 0. A decision needs measured
 * pairs for at least half of the validation items, whichever side is missing the rest;
 * otherwise the step is `indecisive` and nothing is accepted.
 */
import type { TrainSettings } from "./settings/table.js";

export type AcceptPolicy = TrainSettings["accept"];

export interface ScoredItem {
  instance: string;
  trial: number;
  score: number | null;
}

export interface AcceptanceRule {
  accept: AcceptPolicy;
  /** The candidate's mean must exceed the accepted version's by more than this. */
  margin: number;
  /** …plus this many standard errors of the paired difference. */
  marginSe: number;
}

export interface Decision {
  status: "accepted" | "rejected" | "indecisive";
  /** Mean over the candidate's measured scores. */
  candidateScore: number | null;
  /** Mean over the accepted version's measured scores. */
  acceptedScore: number | null;
  /** Mean paired difference (candidate − accepted) over items both measured. */
  difference: number | null;
  standardError: number | null;
  /** Items measured for both versions. */
  pairs: number;
  /** How many scores each side is missing, out of `total`. */
  missing: { candidate: number; accepted: number; total: number };
  reason: string;
}

export function mean(values: number[]): number | null {
  return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Standard error of the mean; null with fewer than two values. */
export function standardError(values: number[]): number | null {
  if (values.length < 2) return null;
  const m = mean(values)!;
  const variance = values.reduce((sum, value) => sum + (value - m) ** 2, 0) / (values.length - 1);
  return Math.sqrt(variance / values.length);
}

const measured = (items: ScoredItem[]) => items.flatMap((item) => (item.score === null ? [] : [item.score]));
const round = (value: number) => Number(value.toFixed(6));
/** Reported figures lose floating-point noise (0.39999999999999997 → 0.4); decisions use the exact values. */
export const tidy = (value: number | null) => (value === null ? null : Number(value.toFixed(9)));

/** Decide on a candidate from its validation scores and the accepted version's, under `rule`. */
export function decide(candidate: ScoredItem[], accepted: ScoredItem[], rule: AcceptanceRule): Decision {
  const total = candidate.length;
  const candidateMissing = candidate.filter((item) => item.score === null).length;
  const acceptedMissing = accepted.filter((item) => item.score === null).length;
  const acceptedByKey = new Map(accepted.map((item) => [`${item.instance}\0${item.trial}`, item.score]));
  const differences: number[] = [];
  for (const item of candidate) {
    const other = acceptedByKey.get(`${item.instance}\0${item.trial}`);
    if (item.score !== null && other !== null && other !== undefined) differences.push(item.score - other);
  }
  const base = {
    candidateScore: tidy(mean(measured(candidate))),
    acceptedScore: tidy(mean(measured(accepted))),
    difference: tidy(mean(differences)),
    standardError: tidy(standardError(differences)),
    pairs: differences.length,
    missing: { candidate: candidateMissing, accepted: acceptedMissing, total },
  };
  const result = (status: Decision["status"], reason: string): Decision => ({ status, ...base, reason });

  if (total === 0) {
    return rule.accept === "always"
      ? result("accepted", "accept=always with no validation instances: every valid candidate is accepted")
      : result("indecisive", "no validation instance was scored");
  }
  // accept=always compares nothing: it needs the candidate measured, not pairs.
  if (rule.accept === "always") {
    return candidateMissing * 2 > total
      ? result("indecisive", `the candidate is missing ${candidateMissing} of ${total} validation scores (more than half)`)
      : result("accepted", "accept=always: every valid, measured candidate is accepted");
  }
  if (differences.length * 2 < total) {
    return result(
      "indecisive",
      `only ${differences.length} of ${total} validation items were measured for both versions (candidate missing ${candidateMissing}, accepted version missing ${acceptedMissing}); a decision needs at least half`,
    );
  }

  const difference = mean(differences)!;
  let threshold = rule.margin;
  let thresholdText = `margin ${rule.margin}`;
  if (rule.marginSe > 0) {
    if (base.standardError === null) {
      return result("rejected", `margin-se ${rule.marginSe} needs at least 2 paired scores, have ${differences.length}`);
    }
    threshold += rule.marginSe * standardError(differences)!;
    thresholdText += ` + ${rule.marginSe} × SE ${round(base.standardError)}`;
  }
  return difference > threshold
    ? result("accepted", `improved by ${round(difference)} > ${thresholdText}`)
    : result("rejected", `difference ${round(difference)} is not more than ${thresholdText}`);
}
