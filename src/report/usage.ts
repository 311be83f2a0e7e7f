/**
 * Usage as the report shows it (pure): tokens and cost per role, summed over sources that may
 * not all have reported them, and the run's budgets against what was used. A figure nobody
 * reported stays unknown: `known` is a lower bound whenever `reported < sources`.
 */
import type { BudgetView, UsageFigure, UsageView } from "./types.js";

const FIGURES = ["input", "output", "cached", "reasoning", "costUsd"] as const;
type Figure = (typeof FIGURES)[number];

/**
 * The names a usage record may carry a figure under: the models layer's token usage
 * (`input`, `output`, `cached`, `reasoning`) and the older rollout/Evolver usage
 * (`inputTokens`, `outputTokens`).
 */
const ALIASES: Record<Figure, string[]> = {
  input: ["input", "inputTokens"],
  output: ["output", "outputTokens"],
  cached: ["cached", "cachedTokens", "cachedInputTokens"],
  reasoning: ["reasoning", "reasoningTokens"],
  costUsd: ["costUsd"],
};

export function emptyUsageView(): UsageView {
  const figure = (): UsageFigure => ({ known: 0, reported: 0, sources: 0 });
  return { input: figure(), output: figure(), cached: figure(), reasoning: figure(), costUsd: figure() };
}

/** The figures one usage record reports (an unreported one is absent). */
export function usageFigures(usage: unknown): Partial<Record<Figure, number>> {
  const out: Partial<Record<Figure, number>> = {};
  if (usage === null || typeof usage !== "object") return out;
  const record = usage as Record<string, unknown>;
  // A nested `tokens` object (usage as the models layer records it) counts like top-level fields.
  const nested = record.tokens !== null && typeof record.tokens === "object" ? (record.tokens as Record<string, unknown>) : {};
  for (const figure of FIGURES) {
    for (const name of ALIASES[figure]) {
      const value = record[name] ?? nested[name];
      if (typeof value === "number" && Number.isFinite(value) && value >= 0) {
        out[figure] = value;
        break;
      }
    }
  }
  return out;
}

/** Add one source (a rollout, an Evolver step, a model call); `usage` undefined: it reported nothing. */
export function addSource(view: UsageView, usage: unknown): UsageView {
  const figures = usageFigures(usage);
  const next = emptyUsageView();
  for (const figure of FIGURES) {
    const value = figures[figure];
    next[figure] = {
      known: view[figure].known + (value ?? 0),
      reported: view[figure].reported + (value === undefined ? 0 : 1),
      sources: view[figure].sources + 1,
    };
  }
  return next;
}

export function sumUsage(views: UsageView[]): UsageView {
  const total = emptyUsageView();
  for (const view of views) {
    for (const figure of FIGURES) {
      total[figure] = {
        known: total[figure].known + view[figure].known,
        reported: total[figure].reported + view[figure].reported,
        sources: total[figure].sources + view[figure].sources,
      };
    }
  }
  return total;
}

/** "none", "unknown", an exact figure, or "≥ figure". */
export function describeFigure(figure: UsageFigure, format: (value: number) => string = String): string {
  if (figure.sources === 0) return "none";
  if (figure.reported === 0) return "unknown";
  return figure.reported === figure.sources ? format(figure.known) : `≥ ${format(figure.known)}`;
}

/**
 * Input + output tokens: exact only when every source reported both, a lower bound when any
 * source reported either (a task that reports only input tokens still shows them), unknown
 * when none reported any.
 */
export function describeTokens(view: Pick<UsageView, "input" | "output">): string {
  const { input, output } = view;
  if (input.sources === 0) return "none";
  if (input.reported === 0 && output.reported === 0) return "unknown";
  const known = input.known + output.known;
  return input.reported === input.sources && output.reported === output.sources ? String(known) : `≥ ${known}`;
}

/** A budget as recorded: a number (older runs: the total) or limits per scope. */
type Limit = number | Partial<Record<"total" | "acting" | "learning", number>>;

export interface BudgetFacts {
  settings: { maxRollouts?: number; maxTime?: number; maxTokens?: Limit; maxCostUsd?: Limit };
  rolloutsRan: number;
  elapsedSeconds: number;
  total: UsageView;
  /** Per role, for limits on acting or learning alone. */
  acting?: UsageView;
  learning?: UsageView;
}

/** Each budget the run set, against what it used. */
export function budgets(facts: BudgetFacts): BudgetView[] {
  const { settings } = facts;
  const out: BudgetView[] = [];
  if (typeof settings.maxRollouts === "number") out.push({ name: "max-rollouts", limit: settings.maxRollouts, used: facts.rolloutsRan, unit: "rollouts", lowerBound: false });
  if (typeof settings.maxTime === "number") out.push({ name: "max-time", limit: settings.maxTime, used: round(facts.elapsedSeconds), unit: "s", lowerBound: false });
  for (const [scope, limit] of scopedLimits(settings.maxTokens)) {
    const view = scope === "total" ? facts.total : facts[scope];
    if (!view) continue;
    const lowerBound = view.input.reported < view.input.sources || view.output.reported < view.output.sources;
    out.push({ name: scoped("max-tokens", scope), limit, used: view.input.known + view.output.known, unit: "tokens", lowerBound });
  }
  for (const [scope, limit] of scopedLimits(settings.maxCostUsd)) {
    const view = scope === "total" ? facts.total : facts[scope];
    if (!view) continue;
    out.push({ name: scoped("max-cost-usd", scope), limit, used: round(view.costUsd.known, 6), unit: "USD", lowerBound: view.costUsd.reported < view.costUsd.sources });
  }
  return out;
}

function scopedLimits(limit: Limit | undefined): Array<["total" | "acting" | "learning", number]> {
  if (typeof limit === "number") return [["total", limit]];
  if (limit === undefined || limit === null || typeof limit !== "object") return [];
  return (["total", "acting", "learning"] as const).flatMap((scope) => (typeof limit[scope] === "number" ? [[scope, limit[scope]!] as ["total" | "acting" | "learning", number]] : []));
}

const scoped = (name: string, scope: string) => (scope === "total" ? name : `${name} ${scope}`);

const round = (value: number, digits = 3) => Number(value.toFixed(digits));
