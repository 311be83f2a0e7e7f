/**
 * Token usage as data (pure): one normalised shape for every model call and every host run,
 * filled only with what the provider reported. A field a provider did not send stays
 * `undefined` — never 0 — so totals can say "at least" or "unknown" instead of lying.
 */

/** Tokens one model call or one host run used, as reported. `undefined`: not reported. */
export interface TokenUsage {
  /** All input (prompt) tokens, cached ones included. */
  input?: number;
  /** All output tokens, reasoning included. */
  output?: number;
  /** Of `input`, the tokens read from the provider's prompt cache. */
  cached?: number;
  /** Of `output`, the reasoning ("thinking") tokens. */
  reasoning?: number;
}

/** The fields of {@link TokenUsage}, in display order. */
export const TOKEN_FIELDS = ["input", "output", "cached", "reasoning"] as const;
export type TokenField = (typeof TOKEN_FIELDS)[number];

/** A finite, non-negative number, or undefined. */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Keep only reported, valid fields (drops `undefined`, negatives, NaN, non-numbers). */
export function cleanTokenUsage(usage: unknown): TokenUsage | undefined {
  if (usage === null || typeof usage !== "object") return undefined;
  const out: TokenUsage = {};
  for (const field of TOKEN_FIELDS) {
    const value = tokenCount((usage as Record<string, unknown>)[field]);
    if (value !== undefined) out[field] = value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** input + output when both are reported, else undefined (a partial sum is not a total). */
export function totalTokens(usage: TokenUsage | undefined): number | undefined {
  if (usage?.input === undefined || usage.output === undefined) return undefined;
  return usage.input + usage.output;
}

/**
 * A rough, deliberately high token count for `text` (UTF-8 bytes / 3): used only to decide
 * before a call whether it could pass a budget, and to fit a prompt into a token budget.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, "utf8") / 3);
}
