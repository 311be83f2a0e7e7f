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

/** The key a host gets when the endpoint takes none (the stub, a local server). */
export const PLACEHOLDER_KEY = "hermit-no-key";

/**
 * The variable that carries the model's key to hosts whose config can name a variable
 * (Codex `env_key`, OpenCode `{env:…}`, Pi's `apiKey`): the key itself is never written to a file.
 */
export const KEY_VARIABLE = "HERMIT_MODEL_API_KEY";

/**
 * The API root without its trailing version segment (`/v1`, `/v1beta`): for clients that
 * append the version themselves (Anthropic's and Google's SDKs).
 */
export function withoutVersion(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "").replace(/\/v1(beta|alpha)?$/, "");
}

/** Every wire protocol: hosts whose providers are pluggable speak them all. */
export const ALL_PROTOCOLS = ["openai-responses", "anthropic-messages", "gemini", "openai-chat"] as const;
