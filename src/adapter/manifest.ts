/** `adapter.yaml`: parse, validate against the JSON Schema, negotiate the contract version. */
import { join } from "node:path";
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { HermitError } from "../errors.js";
import { CONTRACT_VERSION, packageRoot } from "../package-root.js";
import { validate } from "./manifest-validator.generated.js";
import type { Entrypoint, Manifest } from "./types.js";
import { parseYaml } from "./yaml.js";

export const MANIFEST_FILE = "adapter.yaml";
export const CONTEXT_FILE = "ADAPTER.md";
export const manifestSchemaPath = join(packageRoot, "schemas", "adapter.schema.json");

/** The schema, compiled when hermit is built (scripts/generate-validators.ts), not at each start. */
const validateManifestShape = validate as unknown as ValidateFunction<Manifest>;

function describeSchemaError(error: ErrorObject): string {
  const at = error.instancePath === "" ? "(top level)" : error.instancePath.slice(1).replaceAll("/", ".");
  if (error.keyword === "additionalProperties") {
    return `${at}: unknown key '${String(error.params.additionalProperty)}'`;
  }
  if (error.keyword === "not" && error.schemaPath.includes("/normalPath/")) {
    return `${at}: path must be written plainly: no '.' or empty segment, no trailing '/' (write 'a/b', not './a/b/')`;
  }
  if (error.keyword === "not" && error.schemaPath.includes("/literalPath/")) {
    return `${at}: must name one file or folder, not a glob (no * ? [ ] { })`;
  }
  if (error.keyword === "not" && /entrypoint|context|agents|skills|fixed|learnable/.test(at)) {
    return `${at}: path must be relative and stay inside the adapter (no '..', no absolute path, no backslash)`;
  }
  return `${at}: ${error.message ?? error.keyword}`;
}

/**
 * A path refused by a `not` rule also fails the `oneOf` around it (and the object branch's
 * `type`); only the `not` says what is wrong, so the others are dropped for that key.
 */
function mostSpecific(errors: ErrorObject[]): ErrorObject[] {
  const explained = new Set(errors.filter((error) => error.keyword === "not").map((error) => error.instancePath));
  return errors.filter(
    (error) => !(explained.has(error.instancePath) && (error.keyword === "oneOf" || error.keyword === "type")),
  );
}

/** Strict `X.Y.Z`, compatible iff the major equals hermit's. */
export function negotiateContract(contract: unknown, file: string): void {
  const text = String(contract);
  const match = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/.exec(text);
  if (!match || typeof contract !== "string") {
    throw new HermitError(
      "CONTRACT_VERSION",
      `${file}: contract '${text}' is not a strict X.Y.Z version (for example ${CONTRACT_VERSION})`,
      { path: file, contract: text },
    );
  }
  const ours = CONTRACT_VERSION.split(".")[0];
  if (match[1] !== ours) {
    throw new HermitError(
      "CONTRACT_MAJOR",
      `${file}: adapter contract ${text} is not compatible with hermit's contract ${CONTRACT_VERSION}: ` +
        `the major versions must match (${match[1]} ≠ ${ours})`,
      { path: file, contract: text, supported: CONTRACT_VERSION },
    );
  }
}

/** Validate already-parsed manifest data; `file` names it in errors. */
export function validateManifest(data: unknown, file: string): Manifest {
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new HermitError("MANIFEST_INVALID", `${file}: must be a YAML mapping`, { path: file });
  }
  if ("contract" in data) negotiateContract((data as { contract: unknown }).contract, file);
  if (!validateManifestShape(data)) {
    const problems = mostSpecific(validateManifestShape.errors ?? []).map(describeSchemaError);
    throw new HermitError("MANIFEST_INVALID", `${file}: ${[...new Set(problems)].join("; ")}`, {
      path: file,
      problems,
    });
  }
  return data;
}

/**
 * Valid manifests by their text: a Trainer step reads the same template and candidate
 * manifests several times (each spec check, each repair), and parsing the YAML was most of a
 * check's time. Bounded; each caller gets its own copy.
 */
const parsed = new Map<string, Manifest>();
const PARSED_MAX = 16;

/** Parse and validate the text of an `adapter.yaml`. */
export function parseManifest(text: string, file: string): Manifest {
  const known = parsed.get(text);
  if (known) return structuredClone(known);
  const manifest = validateManifest(parseYaml(text, file), file);
  if (parsed.size >= PARSED_MAX) parsed.delete(parsed.keys().next().value!);
  parsed.set(text, structuredClone(manifest));
  return manifest;
}

/** Split `file:function`. The schema has already vetted the shape. */
export function parseEntrypoint(spec: string): Entrypoint {
  const colon = spec.lastIndexOf(":");
  return { file: spec.slice(0, colon), function: spec.slice(colon + 1) };
}

/** Where the manifest says the context lives (ADAPTER.md unless `exports.context` says otherwise). */
export function contextPath(manifest: Manifest): string {
  return manifest.exports?.context ?? CONTEXT_FILE;
}

/** Manifest sections a candidate may not change. */
export const FIXED_SECTIONS = ["template", "exports", "structure", "check", "evolver_tools"] as const;
