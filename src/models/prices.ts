/**
 * Prices and cost (pure). The shipped table (`prices.json`) is data: every row names the public
 * page it was copied from and the date. `--price provider:model-id=IN/OUT` adds or overrides a
 * row. A model without a price, or usage without token counts, has an unknown cost — never 0.
 */
import shipped from "./prices.json" with { type: "json" };
import { HermitError } from "../errors.js";
import { parseModelName } from "./providers.js";
import type { TokenUsage } from "./usage.js";

/** USD per million tokens for one model. */
export interface Price {
  /** `provider:model-id`. */
  model: string;
  input: number;
  output: number;
  /** Input tokens read from the prompt cache; when absent they are charged at `input`. */
  cached?: number;
  /** Where the price came from: a URL, or `--price` for one given on the command line. */
  source: string;
  /** When it was read (YYYY-MM-DD); absent for a price the user gave. */
  date?: string;
}

/** A price table: model name → price. */
export type PriceTable = ReadonlyMap<string, Price>;

interface ShippedRow extends Price {
  aliases?: string[];
}

/** The table hermit ships, keyed by model name and alias. */
export function shippedPrices(): PriceTable {
  const table = new Map<string, Price>();
  for (const row of (shipped as { prices: ShippedRow[] }).prices) {
    const { aliases, ...price } = row;
    for (const name of [row.model, ...(aliases ?? [])]) table.set(name, price);
  }
  return table;
}

const PRICE_SPEC = /^(.+)=\s*(\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)\s*$/;

/** Parse one `--price provider:model-id=IN/OUT` (USD per million input/output tokens). */
export function parsePrice(text: string): Price {
  const match = PRICE_SPEC.exec(text.trim());
  if (!match) {
    throw new HermitError("USAGE", `--price '${text}': expected provider:model-id=IN/OUT in USD per million tokens, e.g. openai:gpt-5.1=1.25/10`, { value: text });
  }
  const { name } = parseModelName(match[1]!, "--price");
  return { model: name, input: Number(match[2]), output: Number(match[3]), source: "--price" };
}

/** The shipped table with the user's prices on top. */
export function priceTable(overrides: readonly string[] = []): PriceTable {
  const table = new Map(shippedPrices());
  for (const text of overrides) {
    const price = parsePrice(text);
    table.set(price.model, price);
  }
  return table;
}

/**
 * The price of `model` (`provider:model-id`): an exact row, else the row of the same id without
 * a dated snapshot suffix (`claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`,
 * `gpt-5-mini-2025-08-07` → `gpt-5-mini`). Undefined when neither is in the table.
 */
export function priceOf(model: string, table: PriceTable): Price | undefined {
  const exact = table.get(model);
  if (exact) return exact;
  const undated = model.replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, "");
  return undated !== model ? table.get(undated) : undefined;
}

/**
 * USD for `usage` at `price`: uncached input at `input`, cached input at `cached` (or `input`),
 * output at `output`. Undefined — unknown, never 0 — when there is no price or the provider did
 * not report input or output tokens.
 */
export function costOf(usage: TokenUsage | undefined, price: Price | undefined): number | undefined {
  if (!price || usage?.input === undefined || usage.output === undefined) return undefined;
  const cached = Math.min(usage.cached ?? 0, usage.input);
  const dollars = (usage.input - cached) * price.input + cached * (price.cached ?? price.input) + usage.output * price.output;
  return dollars / 1_000_000;
}

/** The most a call can cost: `inputTokens` of uncached input and `maxOutputTokens` of output. */
export function worstCaseCost(inputTokens: number, maxOutputTokens: number, price: Price | undefined): number | undefined {
  return costOf({ input: inputTokens, output: maxOutputTokens }, price);
}
