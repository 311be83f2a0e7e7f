/**
 * The cost of a host's turn. Claude Code prices its model itself (`total_cost_usd`); Codex and
 * Gemini CLI report no cost; OpenCode and Pi report the price of the provider hermit declares
 * for them, which carries none, so their 0 is not a measurement. Whatever the host did not
 * price is priced with the model layer's table, or left unknown — never 0.
 */
import type { HostId } from "../hosts/types.js";
import { costOf, priceOf, type PriceTable } from "../models/prices.js";
import type { HostUsage } from "./types.js";

/** Hosts whose reported cost is their own pricing of the model id. */
const PRICES_ITS_MODEL: Readonly<Record<HostId, boolean>> = {
  "claude-code": true,
  codex: false,
  gemini: false,
  opencode: false,
  pi: false,
};

/** Does the host price its model itself (its reported cost is kept)? */
export function hostPricesItsModel(host: HostId): boolean {
  return PRICES_ITS_MODEL[host];
}

/** `usage` with its cost from the host where it priced the model, else from `prices`, else none. */
export function priceUsage(host: HostId, usage: HostUsage | undefined, modelName: string | undefined, prices: PriceTable | undefined): HostUsage | undefined {
  if (!usage) return undefined;
  if (PRICES_ITS_MODEL[host] && usage.costUsd !== undefined) return { ...usage, costSource: "host" };
  const { costUsd: _dropped, costSource: _source, ...tokens } = usage;
  const cost = modelName && prices ? costOf(tokens, priceOf(modelName, prices)) : undefined;
  return cost === undefined ? tokens : { ...tokens, costUsd: cost, costSource: "price-table" };
}

/** Usage in the Trainer's record shape (`inputTokens`, `outputTokens`, `costUsd`): only what was reported. */
export function trainerUsage(usage: HostUsage | undefined): { inputTokens?: number; outputTokens?: number; costUsd?: number } | undefined {
  if (!usage) return undefined;
  const out = {
    ...(usage.input !== undefined ? { inputTokens: usage.input } : {}),
    ...(usage.output !== undefined ? { outputTokens: usage.output } : {}),
    ...(usage.costUsd !== undefined ? { costUsd: usage.costUsd } : {}),
  };
  return Object.keys(out).length > 0 ? out : undefined;
}
