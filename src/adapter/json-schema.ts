/**
 * Tool schemas are raw JSON Schema 2020-12. Each is vetted against the meta-schema by code
 * compiled when hermit is built (`json-schema-validator.generated.ts`), then compiled by one
 * Ajv instance, loaded only when an adapter declares a tool.
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
  try {
    validatorFor(schema);
  } catch (error) {
    return `${which} is not a valid JSON Schema: ${(error as Error).message}`;
  }
  return undefined;
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
