/** Helpers three or more recipes use: merging activation data, reading a listing line. Pure. */
import { listingLine } from "../evidence.js";
import type { RecipeContext } from "./types.js";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `base` with `extra` merged in, objects recursively, anything else replaced. Returns a new object. */
export function deepMerge(base: Json, extra: Json): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    out[key] = isObject(value) && isObject(out[key]) ? deepMerge(out[key] as Json, value) : value;
  }
  return out;
}

/**
 * The `data[key]` object of every listed activation step with id `stepId`, merged, or
 * undefined when the report lists no such step (then the recipe does not perform it).
 */
export function stepData(context: RecipeContext, stepId: string, key: string): Json | undefined {
  let merged: Json | undefined;
  for (const step of context.activation) {
    if (step.id !== stepId) continue;
    const value = step.data[key];
    if (isObject(value)) merged = deepMerge(merged ?? {}, value);
  }
  return merged;
}

/** JSON as a host writes its own files. */
export function jsonFile(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** A listing line naming `name` that also matches `healthy`; or the unhealthy line, marked. */
export function healthLine(output: string, name: string, healthy: RegExp): { line: string; ok: boolean } | undefined {
  const good = listingLine(output, name, (line) => healthy.test(line));
  if (good !== undefined) return { line: good, ok: true };
  const any = listingLine(output, name);
  return any === undefined ? undefined : { line: any, ok: false };
}

/** The key a host gets when it talks to a base URL for which the caller had no credential (a local server, the stub). */
export const PLACEHOLDER_KEY = "hermit-no-key";

/**
 * The base URL without its trailing API version segment (`/v1`, `/v1beta`): for hosts whose
 * client appends the version itself (Anthropic's and Google's SDKs).
 */
export function withoutVersion(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "").replace(/\/v1(beta)?$/, "");
}

/** The first credential of `names` the caller chose, or the placeholder. */
export function credentialOf(context: RecipeContext, names: readonly string[]): string {
  for (const name of names) {
    const value = context.endpoint.credentials[name];
    if (value) return value;
  }
  return PLACEHOLDER_KEY;
}

/** The variables that usually hold a provider's API key (the providers' SDK conventions). */
export function providerKeyVariables(provider: string | undefined): string[] {
  switch (provider) {
    case "anthropic":
      return ["ANTHROPIC_API_KEY"];
    case "openai":
    case "openai-compatible":
      return ["OPENAI_API_KEY"];
    case "google":
      return ["GEMINI_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY", "GOOGLE_API_KEY"];
    case undefined:
      return [];
    default:
      return [`${provider.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_API_KEY`];
  }
}
