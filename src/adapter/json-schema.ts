/**
 * Tool schemas are raw JSON Schema 2020-12. Each is vetted against the meta-schema by code
 * compiled when hermit is built (`json-schema-validator.generated.ts`); one that could still
 * fail to compile (a `$ref`, an `$id`, a keyword outside the plain ones) is compiled by one Ajv
 * instance to find out, loaded only then or when a tool's validator is first needed.
 */
import { createRequire } from "node:module";
import type { Ajv2020 as Ajv, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { validateJsonSchema } from "./json-schema-validator.generated.js";

/** The meta-schema's validator, typed. */
const isJsonSchema = validateJsonSchema as unknown as ValidateFunction;

let instance: Ajv | undefined;

function ajv(): Ajv {
  if (!instance) {
    // Required lazily (Ajv is CommonJS): most commands read adapters without ever needing it.
    const { Ajv2020 } = createRequire(import.meta.url)("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
    // validateSchema: false — every schema was vetted against the meta-schema already, and
    // vetting it again would compile the meta-schema (~100 ms) at the first compile.
    instance = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, validateSchema: false });
  }
  return instance;
}

/** What is wrong with a tool's schema, or undefined when it is a valid object schema. */
export function toolSchemaProblem(schema: unknown, which: "input_schema" | "output_schema"): string | undefined {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return `${which} must be an object`;
  if (which === "input_schema" && (schema as { type?: unknown }).type !== "object") {
    return `${which} must have type: object`;
  }
  if (!isJsonSchema(schema)) {
    // As Ajv's errorsText writes them.
    const errors = (isJsonSchema.errors ?? []).map((error) => `${which}${error.instancePath} ${error.message ?? error.keyword}`);
    return `${which} is not a valid JSON Schema: ${errors.join(", ")}`;
  }
  if (compilesSurely(schema)) return undefined;
  try {
    validatorFor(schema);
  } catch (error) {
    return `${which} is not a valid JSON Schema: ${(error as Error).message}`;
  }
  return undefined;
}

/** Keywords whose value is one subschema, a map of them, or an array of them. */
const SUBSCHEMA = new Set(["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties"]);
const SUBSCHEMA_MAP = new Set(["properties", "dependentSchemas"]);
const SUBSCHEMA_ARRAY = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
/**
 * Keywords Ajv (strict off, formats not validated) compiles from any value the meta-schema
 * allows, without a look elsewhere: no references, identifiers or options they depend on.
 */
const PLAIN = new Set([
  "type", "const", "default", "examples", "title", "description", "$comment", "deprecated", "readOnly", "writeOnly",
  "required", "dependentRequired", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
  "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "minContains", "maxContains", "minProperties", "maxProperties",
]);

/** A `pattern` compiles as Ajv compiles it (a Unicode RegExp). */
function compilesAsPattern(pattern: unknown): boolean {
  try {
    new RegExp(pattern as string, "u");
    return true;
  } catch {
    return false;
  }
}

/**
 * True when a schema the meta-schema accepted is sure to compile: it uses only keywords that
 * cannot fail at compile time (no `$ref`, `$id`, `$defs`, …) and its patterns are valid. Such
 * a schema is not compiled while an adapter is read, so reading it (deploy, the spec check)
 * never loads Ajv; its validator is compiled when a tool is first called. Anything else is
 * compiled to find out.
 */
export function compilesSurely(schema: unknown): boolean {
  if (typeof schema === "boolean") return true;
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return false;
  for (const [keyword, value] of Object.entries(schema)) {
    if (PLAIN.has(keyword)) continue;
    if (keyword === "enum") {
      if (!Array.isArray(value) || value.length === 0) return false; // Ajv refuses an empty enum
    } else if (keyword === "pattern") {
      if (!compilesAsPattern(value)) return false;
    } else if (SUBSCHEMA.has(keyword)) {
      if (!compilesSurely(value)) return false;
    } else if (SUBSCHEMA_MAP.has(keyword) || keyword === "patternProperties") {
      if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
      for (const [name, subschema] of Object.entries(value)) {
        if (keyword === "patternProperties" && !compilesAsPattern(name)) return false;
        if (!compilesSurely(subschema)) return false;
      }
    } else if (SUBSCHEMA_ARRAY.has(keyword)) {
      if (!Array.isArray(value) || !value.every(compilesSurely)) return false;
    } else {
      return false;
    }
  }
  return true;
}

const compiled = new WeakMap<object, ValidateFunction>();

/**
 * A cached validator for a schema already vetted by `toolSchemaProblem`. The schema is not
 * left registered in the shared Ajv instance: a `$id` would otherwise make every later
 * compile of an equal schema (the same adapter read again, a candidate of it) fail with
 * "schema with key or id … already exists", and the instance would keep every schema it
 * ever saw.
 */
export function validatorFor(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    try {
      validate = ajv().compile(schema);
    } finally {
      ajv().removeSchema(schema);
    }
    compiled.set(schema, validate);
  }
  return validate;
}

/** Human text for validation errors, each naming the path inside the data. */
export function describeValidationErrors(errors: ErrorObject[] | null | undefined, root: string): string {
  return (errors ?? [])
    .map((error) => `${root}${error.instancePath || ""}: ${error.message ?? error.keyword}`)
    .join("; ");
}
