/**
 * Budgets in tokens and US dollars, counted for acting (rollouts) and learning (the learner's
 * model calls) separately and together (pure). The meter only counts what was reported: usage a
 * source did not report, and cost of a model without a price, are counted as unknown — never as
 * 0 — and shown as such.
 */
import { HermitError } from "../errors.js";
import { totalTokens, type TokenUsage } from "./usage.js";

/** Who spent it: the acting batch (rollouts) or the learner (Evolver model calls). */
export type Role = "acting" | "learning";
export const ROLES: readonly Role[] = ["acting", "learning"];

/** Limits for one scope. */
export interface Limits {
  maxCostUsd?: number;
  maxTokens?: number;
}

/** Limits on the total and on each role. */
export interface Budgets {
  total: Limits;
  acting: Limits;
  learning: Limits;
}

export type Scope = keyof Budgets;

/** What one role has spent, as far as it was reported. */
export interface Spent {
  /** Reported input + output tokens. */
  tokens: number;
  /** Known cost. */
  costUsd: number;
  /** Sources (calls, rollouts) counted. */
  sources: number;
  /** Sources whose tokens were not reported (their tokens are unknown). */
  tokensUnknown: number;
  /** Sources whose cost is unknown (no price, or no tokens to price). */
  costUnknown: number;
}

export function emptySpent(): Spent {
  return { tokens: 0, costUsd: 0, sources: 0, tokensUnknown: 0, costUnknown: 0 };
}

/** Add one source's usage and cost (undefined: unknown). */
export function addSpent(spent: Spent, usage: TokenUsage | undefined, costUsd: number | undefined): Spent {
  const tokens = totalTokens(usage);
  return {
    tokens: spent.tokens + (tokens ?? 0),
    costUsd: spent.costUsd + (costUsd ?? 0),
    sources: spent.sources + 1,
    tokensUnknown: spent.tokensUnknown + (tokens === undefined ? 1 : 0),
    costUnknown: spent.costUnknown + (costUsd === undefined ? 1 : 0),
  };
}

export function sumSpent(a: Spent, b: Spent): Spent {
  return {
    tokens: a.tokens + b.tokens,
    costUsd: a.costUsd + b.costUsd,
    sources: a.sources + b.sources,
    tokensUnknown: a.tokensUnknown + b.tokensUnknown,
    costUnknown: a.costUnknown + b.costUnknown,
  };
}

/** What the next call may cost at most; a field left out is not known in advance. */
export interface Estimate {
  tokens?: number;
  costUsd?: number;
}

/**
 * The run's meter: spending per role, checked against the budgets before each call or rollout.
 * It never makes a call itself; `refusal` says whether one may start.
 */
export class Meter {
  private readonly spentBy: Record<Role, Spent>;

  constructor(
    readonly budgets: Budgets,
    spent: Partial<Record<Role, Spent>> = {},
  ) {
    this.spentBy = { acting: spent.acting ?? emptySpent(), learning: spent.learning ?? emptySpent() };
  }

  /** What `role` has spent; `total` for both. */
  spent(scope: Scope): Spent {
    return scope === "total" ? sumSpent(this.spentBy.acting, this.spentBy.learning) : { ...this.spentBy[scope] };
  }

  record(role: Role, usage: TokenUsage | undefined, costUsd: number | undefined): void {
    this.spentBy[role] = addSpent(this.spentBy[role], usage, costUsd);
  }

  /**
   * Why a call or rollout of `role` that may cost up to `estimate` must not start, or undefined
   * when it may. A call is refused when what is spent already reached a limit, or when its
   * worst case would pass one.
   */
  refusal(role: Role, estimate: Estimate = {}): string | undefined {
    for (const scope of [role, "total"] as const) {
      const limits = this.budgets[scope];
      const spent = this.spent(scope);
      const label = scope === "total" ? "the run" : role;
      if (limits.maxTokens !== undefined) {
        const after = spent.tokens + (estimate.tokens ?? 0);
        if (spent.tokens >= limits.maxTokens || after > limits.maxTokens) {
          return `${label} token budget: ${spent.tokens} of ${limits.maxTokens} tokens spent${estimate.tokens ? `, and the next call may use up to ${estimate.tokens}` : ""}`;
        }
      }
      if (limits.maxCostUsd !== undefined) {
        const after = spent.costUsd + (estimate.costUsd ?? 0);
        if (spent.costUsd >= limits.maxCostUsd || after > limits.maxCostUsd) {
          return `${label} cost budget: ${usd(spent.costUsd)} of ${usd(limits.maxCostUsd)} spent${estimate.costUsd ? `, and the next call may cost up to ${usd(estimate.costUsd)}` : ""}`;
        }
      }
    }
    return undefined;
  }
}

/** `$0.0123` — four decimals, enough for single calls. */
export function usd(value: number): string {
  return `$${value.toFixed(4)}`;
}

/** True when any USD limit is set for a scope that includes `role`. */
export function hasCostLimit(budgets: Budgets, role: Role): boolean {
  return budgets.total.maxCostUsd !== undefined || budgets[role].maxCostUsd !== undefined;
}

export function noBudgets(): Budgets {
  return { total: {}, acting: {}, learning: {} };
}

const BUDGET_ENTRY = /^\s*(?:(total|acting|learning)\s*=\s*)?(\d+(?:\.\d+)?)\s*$/;

/**
 * Parse a budget setting: a number (the total), or entries `acting=N`, `learning=N`,
 * `total=N` — as a list, a comma-separated string, or a mapping `{ learning: 2, total: 5 }`.
 */
export function parseLimit(value: unknown, setting: string): Partial<Record<Scope, number>> {
  const out: Partial<Record<Scope, number>> = {};
  const put = (scope: Scope, amount: number, shown: unknown) => {
    if (!Number.isFinite(amount) || amount < 0) {
      throw new HermitError("USAGE", `${setting} '${String(shown)}': must be a non-negative number`, { setting });
    }
    out[scope] = amount;
  };
  const entries: unknown[] = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : [value];
  for (const entry of entries) {
    if (typeof entry === "number") put("total", entry, entry);
    else if (typeof entry === "string") {
      const match = BUDGET_ENTRY.exec(entry);
      if (!match) {
        throw new HermitError("USAGE", `${setting} '${entry}': expected a number, or acting=N, learning=N, total=N`, { setting, value: entry });
      }
      put((match[1] as Scope | undefined) ?? "total", Number(match[2]), entry);
    } else if (entry !== null && typeof entry === "object") {
      for (const [scope, amount] of Object.entries(entry)) {
        if (scope !== "total" && scope !== "acting" && scope !== "learning") {
          throw new HermitError("USAGE", `${setting}: unknown part '${scope}' (use total, acting or learning)`, { setting });
        }
        put(scope, Number(amount), amount);
      }
    } else {
      throw new HermitError("USAGE", `${setting}: expected a number, or acting=N, learning=N, total=N`, { setting });
    }
  }
  return out;
}

/** Budgets from the two settings' parsed values. */
export function budgetsFrom(maxCostUsd: Partial<Record<Scope, number>> = {}, maxTokens: Partial<Record<Scope, number>> = {}): Budgets {
  const limits = (scope: Scope): Limits => ({
    ...(maxCostUsd[scope] !== undefined ? { maxCostUsd: maxCostUsd[scope] } : {}),
    ...(maxTokens[scope] !== undefined ? { maxTokens: maxTokens[scope] } : {}),
  });
  return { total: limits("total"), acting: limits("acting"), learning: limits("learning") };
}
