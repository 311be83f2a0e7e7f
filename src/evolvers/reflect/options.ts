/** `reflect`'s options (`evolver-options` in the run config), checked, with their defaults. */
import { HermitError } from "../../errors.js";

export interface ReflectOptions {
  /** How a component is chosen: the one the failures name (else round-robin), or plain round-robin. */
  component: "blame" | "round-robin";
  /** The most tokens the rollouts may take in the prompt. */
  datasetTokens: number;
  /** Passing rollouts shown after the failures. */
  successes: number;
  /** The learner's output limit per proposal (reasoning tokens count against it). */
  maxOutputTokens: number;
  /** Try a merge of two front versions every this many steps (0: never). */
  mergeEvery: number;
}

export const REFLECT_DEFAULTS: ReflectOptions = { component: "blame", datasetTokens: 16_000, successes: 2, maxOutputTokens: 16_000, mergeEvery: 5 };

/** Read `component`, `dataset-tokens`, `successes`, `max-output-tokens`, `merge-every`; a bad value is a usage error. */
export function readOptions(options: Record<string, unknown>): ReflectOptions {
  const out = { ...REFLECT_DEFAULTS };
  const component = options.component;
  if (component !== undefined) {
    if (component !== "blame" && component !== "round-robin") throw bad("component", component, "blame or round-robin");
    out.component = component;
  }
  const count = (name: string, min: number): number | undefined => {
    const value = options[name];
    if (value === undefined) return undefined;
    if (typeof value !== "number" || !Number.isInteger(value) || value < min) throw bad(name, value, `an integer of at least ${min}`);
    return value;
  };
  out.datasetTokens = count("dataset-tokens", 500) ?? out.datasetTokens;
  out.successes = count("successes", 0) ?? out.successes;
  out.maxOutputTokens = count("max-output-tokens", 256) ?? out.maxOutputTokens;
  out.mergeEvery = count("merge-every", 0) ?? out.mergeEvery;
  return out;
}

function bad(name: string, value: unknown, expected: string): HermitError {
  return new HermitError("USAGE", `evolver option '${name}' of reflect is ${JSON.stringify(value)}: expected ${expected}`, { option: name });
}
