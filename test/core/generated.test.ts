/** Generated code stays what its generator writes from its source (`npm run generate:validators`). */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { describe, expect, it } from "vitest";
import { generatedValidators } from "../../scripts/generate-validators.js";
import { repoRoot } from "../helpers.js";

describe("validators compiled at build time", () => {
  it.each(generatedValidators().map((generated) => [relative(repoRoot, generated.file), generated] as const))(
    "%s is current (run npm run generate:validators after editing a schema or upgrading Ajv)",
    (_name, { file, source }) => {
      expect(readFileSync(file, "utf8")).toBe(source);
    },
  );
});
