/**
 * Tool schemas that cannot fail to compile are not compiled while an adapter is read (Ajv is
 * not loaded for them); every other schema is. What `compilesSurely` accepts must compile.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { compilesSurely } from "../../src/adapter/json-schema.js";
import { validateJsonSchema } from "../../src/adapter/json-schema-validator.generated.js";

const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, validateSchema: false });

function compiles(schema: object): boolean {
  try {
    ajv.compile(schema);
    return true;
  } catch {
    return false;
  } finally {
    ajv.removeSchema(schema);
  }
}

/** A small seeded generator, so a failure names a reproducible schema. */
function random(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return (state >>> 8) % n;
  };
}

const VALUES: unknown[] = [0, 1, -1, 2.5, "", "x", "object", "string", "(", "[z-a]", "\\c", "^a+$", true, false, null, [], ["a"], ["a", "b"], {}, { a: 1 }];
const KEYWORDS = [
  "type", "enum", "const", "default", "description", "required", "format", "minimum", "exclusiveMinimum", "multipleOf", "minLength",
  "uniqueItems", "minContains", "pattern", "items", "additionalProperties", "not", "if", "then", "contains", "propertyNames",
  "unevaluatedProperties", "properties", "dependentSchemas", "patternProperties", "allOf", "anyOf", "prefixItems", "nullable",
  "$ref", "$defs", "$id", "$anchor", "discriminator", "unknown",
];
const ONE = new Set(["items", "additionalProperties", "not", "if", "then", "contains", "propertyNames", "unevaluatedProperties"]);
const MAP = new Set(["properties", "dependentSchemas", "patternProperties", "$defs"]);
const ARRAY = new Set(["allOf", "anyOf", "prefixItems"]);

function schema(pick: (n: number) => number, depth: number): unknown {
  if (pick(6) === 0) return pick(2) === 0;
  const out: Record<string, unknown> = {};
  for (let count = pick(5); count > 0; count--) {
    const keyword = KEYWORDS[pick(KEYWORDS.length)]!;
    const value = () => VALUES[pick(VALUES.length)];
    const sub = () => (depth > 0 && pick(4) > 0 ? schema(pick, depth - 1) : value());
    if (ONE.has(keyword)) out[keyword] = sub();
    else if (MAP.has(keyword)) out[keyword] = pick(5) > 0 ? { [["a", "x", "(", "[z-a]"][pick(4)]!]: sub() } : value();
    else if (ARRAY.has(keyword)) out[keyword] = pick(5) > 0 ? [sub()] : value();
    else if (keyword === "type") out[keyword] = ["string", "object", "null", ["string", "null"], "other"][pick(5)];
    else if (keyword === "$ref") out[keyword] = ["#", "#/$defs/x", "other.json"][pick(3)];
    else out[keyword] = value();
  }
  return out;
}

describe("compilesSurely", () => {
  it("accepts plain schemas and refuses what needs a compile to judge", () => {
    expect(compilesSurely({ type: "object", properties: { text: { type: "string", pattern: "^a+$" } }, required: ["text"] })).toBe(true);
    expect(compilesSurely({ type: "object", properties: { a: { $ref: "#/$defs/a" } }, $defs: { a: { type: "string" } } })).toBe(false);
    expect(compilesSurely({ type: "object", properties: { a: { enum: [] } } })).toBe(false);
    expect(compilesSurely({ type: "object", properties: { a: { type: "string", pattern: "(" } } })).toBe(false);
    expect(compilesSurely({ type: "object", patternProperties: { "[z-a]": true } })).toBe(false);
    expect(compilesSurely({ type: "object", nullable: true })).toBe(false);
    // A property named like a keyword is a name, not a keyword.
    expect(compilesSurely({ type: "object", properties: { $ref: { type: "string" }, nullable: { type: "boolean" } } })).toBe(true);
  });

  it("never accepts a meta-schema-valid schema that Ajv fails to compile", () => {
    const pick = random(17);
    let accepted = 0;
    let refusedByAjv = 0;
    for (let run = 0; run < 3000; run++) {
      const candidate = schema(pick, 3);
      if (candidate === null || typeof candidate !== "object" || !validateJsonSchema(candidate)) continue;
      const compiled = compiles(candidate);
      if (!compiled) refusedByAjv++;
      if (!compilesSurely(candidate)) continue;
      accepted++;
      expect(compiled, JSON.stringify(candidate)).toBe(true);
    }
    // The generator reaches both sides: schemas accepted, and schemas only Ajv refuses.
    expect(accepted).toBeGreaterThan(300);
    expect(refusedByAjv).toBeGreaterThan(20);
  });
});
