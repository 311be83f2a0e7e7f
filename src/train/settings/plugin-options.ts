/**
 * A plugin's options, checked against the JSON Schema the plugin declares (`options` in
 * `defineEvolver` / `defineTask`). Pure. The Trainer never interprets them: it resolves the
 * ones the schema marks `format: "path"` against the folder of the file (or the working
 * directory of the command line) that gave them, fills the schema's defaults, converts flag
 * strings to the declared types, and hands the result to the plugin as `ctx.options`.
 */
import { resolve } from "node:path";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { HermitError } from "../../errors.js";
import { didYouMean } from "../../suggest.js";

/** The JSON Schema of a plugin's options: an object schema (draft 2020-12). */
export interface OptionsSchema {
  type: "object";
  properties?: Record<string, { type?: string | string[]; description?: string; format?: string; default?: unknown; [keyword: string]: unknown }>;
  required?: string[];
  additionalProperties?: boolean | object;
  [keyword: string]: unknown;
}

/** Option values given in one place, with where relative paths are relative to and how to name a key there. */
export interface OptionsLayer {
  values: Record<string, unknown>;
  base: string;
  /** `text` about `option`, saying where it was given (`--evolver-option pool: …`, `run.yaml: 'evolver.pool' …`). */
  problem(option: string, text: string): string;
}

/** The plugin whose options these are. */
export interface OptionsOwner {
  kind: "task" | "evolver";
  name: string;
  options?: OptionsSchema;
}

// Flags give strings: coerce "3" to 3 where the schema wants a number; fill declared defaults.
const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, coerceTypes: true, useDefaults: true });
const compiled = new WeakMap<object, ValidateFunction>();

/** Why `schema` cannot describe a plugin's options, or undefined. */
export function optionsSchemaProblem(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return "'options' must be a JSON Schema object";
  if ((schema as { type?: unknown }).type !== "object") return "'options' must be a JSON Schema with type: object";
  if (!ajv.validateSchema(schema)) return `'options' is not a valid JSON Schema: ${ajv.errorsText(ajv.errors, { dataVar: "options" })}`;
  return undefined;
}

/** The options the plugin gets: layers merged (later wins per key), paths resolved, checked. */
export function resolvePluginOptions(owner: OptionsOwner, layers: OptionsLayer[]): Record<string, unknown> {
  const schema = owner.options;
  const values: Record<string, unknown> = {};
  const origin = new Map<string, OptionsLayer>();
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer.values)) {
      const isPath = schema?.properties?.[key]?.format === "path" && typeof value === "string" && value !== "";
      values[key] = isPath ? resolve(layer.base, value as string) : value;
      origin.set(key, layer);
    }
  }
  if (!schema) return values;
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(values)) return values;
  const problems = (validate.errors ?? []).map((error) => describe(error, owner, origin));
  throw new HermitError("USAGE", [...new Set(problems)].join("; "), { [owner.kind]: owner.name, problems });
}

function describe(error: ErrorObject, owner: OptionsOwner, origin: Map<string, OptionsLayer>): string {
  const known = Object.keys(owner.options?.properties ?? {});
  const flag = owner.kind === "task" ? "--task-option" : "--evolver-option";
  if (error.keyword === "required") {
    const key = String(error.params.missingProperty);
    return `${owner.kind} '${owner.name}' needs the option '${key}': give ${flag} ${key}=…, or '${key}' in the ${owner.kind}: section of the config file`;
  }
  if (error.keyword === "additionalProperties") {
    const key = String(error.params.additionalProperty);
    const list = known.length > 0 ? `its options: ${known.join(", ")}` : "it declares none";
    return located(origin, key, `is not an option of ${owner.kind} '${owner.name}'${didYouMean(key, known)}; ${list}`);
  }
  const key = error.instancePath.split("/")[1] ?? "";
  return located(origin, key, error.message ?? error.keyword);
}

function located(origin: Map<string, OptionsLayer>, key: string, text: string): string {
  return origin.get(key)?.problem(key, text) ?? `option '${key}' ${text}`;
}
