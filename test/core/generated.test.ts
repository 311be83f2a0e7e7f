/** Generated code stays what its generator writes from its source (`npm run generate:validators`). */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generatedFile, manifestValidatorSource, schemaFile } from "../../scripts/generate-validators.js";

describe("the manifest validator compiled at build time", () => {
  it("is the current schema's (run npm run generate:validators after editing schemas/adapter.schema.json)", () => {
    const schema = JSON.parse(readFileSync(schemaFile, "utf8")) as object;
    expect(readFileSync(generatedFile, "utf8")).toBe(manifestValidatorSource(schema));
  });
});
