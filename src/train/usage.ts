/**
 * Usage totals (pure). A rollout or Evolver step that did not report a field leaves it
 * unknown: the totals keep a count of what was reported and what was not, and a total is
 * shown as a lower bound (or "unknown") whenever anything went unreported. Never zero.
 */
import type { Usage } from "./types.js";

type Field = keyof Usage;
const FIELDS: Field[] = ["inputTokens", "outputTokens", "costUsd"];

export interface UsageTotals {
  /** Sum of what was reported, per field. */
  known: Required<Usage>;
  /** How many reports carried each field. */
  reported: Record<Field, number>;
  /** How many rollouts and Evolver steps there were in all. */
  sources: number;
}

export function emptyUsage(): UsageTotals {
  return { known: { inputTokens: 0, outputTokens: 0, costUsd: 0 }, reported: { inputTokens: 0, outputTokens: 0, costUsd: 0 }, sources: 0 };
}

/** Add one source's usage (undefined: it reported nothing). */
export function addUsage(totals: UsageTotals, usage: Usage | undefined): UsageTotals {
  const next: UsageTotals = { known: { ...totals.known }, reported: { ...totals.reported }, sources: totals.sources + 1 };
  for (const field of FIELDS) {
    const value = usage?.[field];
    if (typeof value === "number") {
      next.known[field] += value;
      next.reported[field] += 1;
    }
  }
  return next;
}

export function mergeUsage(a: UsageTotals, b: UsageTotals): UsageTotals {
  const next: UsageTotals = { known: { ...a.known }, reported: { ...a.reported }, sources: a.sources + b.sources };
  for (const field of FIELDS) {
    next.known[field] += b.known[field];
    next.reported[field] += b.reported[field];
  }
  return next;
}

/** Known tokens (input + output): a lower bound when some source did not report them. */
export function knownTokens(totals: UsageTotals): number {
  return totals.known.inputTokens + totals.known.outputTokens;
}

/** "unknown", an exact figure, or "≥ figure (k of n unreported)". */
export function describeUsage(totals: UsageTotals, field: Field): string {
  const reported = totals.reported[field];
  if (totals.sources === 0) return "none";
  if (reported === 0) return "unknown (not reported)";
  const value = field === "costUsd" ? `$${totals.known[field].toFixed(4)}` : String(totals.known[field]);
  return reported === totals.sources ? value : `≥ ${value} (${totals.sources - reported} of ${totals.sources} unreported)`;
}

/**
 * The usage of a rollout over its attempts (each was paid for): a field every attempt reported
 * is summed; a field some attempt did not report is left out — unknown, never a partial sum
 * passed off as the whole. `unknown` says which attempts lacked what.
 */
export function attemptsUsage(attempts: ReadonlyArray<Usage | undefined>): { usage?: Usage; unknown?: string } {
  if (attempts.length === 1) return attempts[0] ? { usage: attempts[0] } : {};
  const usage: Usage = {};
  const missing: string[] = [];
  for (const field of FIELDS) {
    const values = attempts.map((attempt) => attempt?.[field]);
    const lacking = values.flatMap((value, index) => (value === undefined ? [index + 1] : []));
    if (lacking.length === 0) usage[field] = values.reduce<number>((sum, value) => sum + value!, 0);
    else if (lacking.length < attempts.length) missing.push(`${field} (attempt ${lacking.join(", ")} did not report it)`);
  }
  return { ...(Object.keys(usage).length > 0 ? { usage } : {}), ...(missing.length > 0 ? { unknown: `unknown over the attempts: ${missing.join("; ")}` } : {}) };
}

/** A usage figure as `--json` and `runs show --json` give it: null (with the reason) when not every source reported it. */
export interface UsageFigureJson {
  /** The sum when every source reported it; null otherwise (never a 0 for what was not reported). */
  value: number | null;
  /** What was reported: a lower bound when `value` is null. */
  known: number;
  reported: number;
  sources: number;
  reason?: string;
}

export function usageJson(totals: UsageTotals): Record<Field, UsageFigureJson> {
  const out = {} as Record<Field, UsageFigureJson>;
  for (const field of FIELDS) {
    const reported = totals.reported[field];
    const complete = reported === totals.sources;
    const what = field === "costUsd" ? "cost (no usage, or no price for the model)" : "token counts";
    out[field] = {
      value: complete ? totals.known[field] : null,
      known: totals.known[field],
      reported,
      sources: totals.sources,
      ...(complete ? {} : { reason: `${totals.sources - reported} of ${totals.sources} sources did not report ${what}` }),
    };
  }
  return out;
}

/** One line: tokens and cost of one role (`sources` names what reports: rollouts, Evolver steps). */
export function describeTotals(totals: UsageTotals, sources = "sources"): string {
  if (totals.sources === 0) return "none";
  if (FIELDS.every((field) => totals.reported[field] === 0)) return `unknown: none of ${totals.sources} ${sources} reported tokens or cost`;
  return `${describeUsage(totals, "inputTokens")} in / ${describeUsage(totals, "outputTokens")} out tokens, cost ${describeUsage(totals, "costUsd")}`;
}
