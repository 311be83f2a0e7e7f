/**
 * `checkSpec` of a generated adapter (200 skills × 3 files, 50 agents, no code to load) in
 * this process, from the build, against reading the same files; each check parses cold, as a
 * fresh `hermit spec check` does.
 */
import { clearFrontmatterCache } from "../dist/adapter/frontmatter.js";
import { checkSpec } from "../dist/check/check.js";
import { compare, generateAdapter, readAll } from "./lib.js";

const { adapter, root, files } = await generateAdapter({ skills: 200, agents: 50, tools: 0 });
await compare(
  "check-spec",
  {
    label: `checkSpec (${files.length} files)`,
    prepare: clearFrontmatterCache,
    run: async () => {
      const result = await checkSpec(adapter, root);
      if (!result.passed) throw new Error(`generated adapter fails its check: ${JSON.stringify(result.issues.slice(0, 3))}`);
    },
  },
  { label: "read every file", run: () => readAll(adapter, files) },
);
