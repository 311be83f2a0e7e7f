/**
 * Usage as each wire protocol reports it, normalised once into {@link TokenUsage} (pure).
 *
 * The AI SDK's normalised usage fills 0 for cache and reasoning counts a provider did not send;
 * hermit reads the provider's own usage object (`usage.raw`) instead, so "not reported" stays
 * `undefined`. Each protocol counts differently:
 *
 * - OpenAI Responses: `input_tokens` (cached included), `input_tokens_details.cached_tokens`,
 *   `output_tokens` (reasoning included), `output_tokens_details.reasoning_tokens`.
 * - OpenAI Chat Completions (and compatible servers): `prompt_tokens`, `prompt_tokens_details.cached_tokens`,
 *   `completion_tokens`, `completion_tokens_details.reasoning_tokens`.
 * - Anthropic Messages: `input_tokens` excludes the cache, so input = `input_tokens` +
 *   `cache_creation_input_tokens` + `cache_read_input_tokens`; cached = `cache_read_input_tokens`.
 * - Gemini: `promptTokenCount` (cached included), `cachedContentTokenCount`; `candidatesTokenCount`
 *   excludes thinking, so output = candidates + `thoughtsTokenCount`; reasoning = `thoughtsTokenCount`.
 */
import type { WireProtocol } from "./providers.js";
import { cleanTokenUsage, tokenCount, type TokenUsage } from "./usage.js";

/** The part of the AI SDK's usage hermit reads. */
export interface SdkUsage {
  inputTokens?: number;
  outputTokens?: number;
  raw?: unknown;
}

type Json = Record<string, unknown>;

const object = (value: unknown): Json | undefined => (value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : undefined);
const at = (value: unknown, ...path: string[]): number | undefined => {
  let current: unknown = value;
  for (const key of path) current = object(current)?.[key];
  return tokenCount(current);
};
/** a + b when a is known (b unknown counts as none of it): used where b is an optional add-on. */
const plus = (a: number | undefined, ...rest: (number | undefined)[]) => (a === undefined ? undefined : rest.reduce<number>((sum, value) => sum + (value ?? 0), a));

/** Normalise one call's usage. Falls back to the SDK's input/output totals when there is no raw usage. */
export function usageFromWire(protocol: WireProtocol, usage: SdkUsage | undefined): TokenUsage | undefined {
  const raw = object(usage?.raw);
  if (!raw) return cleanTokenUsage({ input: usage?.inputTokens, output: usage?.outputTokens });
  switch (protocol) {
    case "openai-responses":
      return cleanTokenUsage({
        input: at(raw, "input_tokens"),
        output: at(raw, "output_tokens"),
        cached: at(raw, "input_tokens_details", "cached_tokens"),
        reasoning: at(raw, "output_tokens_details", "reasoning_tokens"),
      });
    case "openai-chat":
      return cleanTokenUsage({
        input: at(raw, "prompt_tokens"),
        output: at(raw, "completion_tokens"),
        cached: at(raw, "prompt_tokens_details", "cached_tokens"),
        reasoning: at(raw, "completion_tokens_details", "reasoning_tokens"),
      });
    case "anthropic-messages":
      return cleanTokenUsage({
        input: plus(at(raw, "input_tokens"), at(raw, "cache_creation_input_tokens"), at(raw, "cache_read_input_tokens")),
        output: at(raw, "output_tokens"),
        cached: at(raw, "cache_read_input_tokens"),
        reasoning: at(raw, "output_tokens_details", "thinking_tokens"),
      });
    case "gemini":
      return cleanTokenUsage({
        input: at(raw, "promptTokenCount"),
        output: plus(at(raw, "candidatesTokenCount"), at(raw, "thoughtsTokenCount")),
        cached: at(raw, "cachedContentTokenCount"),
        reasoning: at(raw, "thoughtsTokenCount"),
      });
  }
}
