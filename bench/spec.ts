/**
 * `checkSpec` of a generated adapter (200 skills × 3 files, 50 agents, no code to load) in
 * this process, from the build; each check parses cold, as a fresh `hermit spec check` does.
 * The goal's baseline reads every file as a Node program reads a set of files without
 * blocking (fs/promises, all at once); the floor reads them one by one with readFileSync,
 * the cheapest way Node has.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { clearFrontmatterCache } from "../dist/adapter/frontmatter.js";
import { checkSpec } from "../dist/check/check.js";
import { compare, generateAdapter, readAll, type CallSide } from "./lib.js";

const { adapter, root, files } = await generateAdapter({ skills: 200, agents: 50, tools: 0 });
const check: CallSide = {
  label: `checkSpec (${files.length} files)`,
  prepare: clearFrontmatterCache,
  run: async () => {
    const result = await checkSpec(adapter, root);
    if (!result.passed) throw new Error(`generated adapter fails its check: ${JSON.stringify(result.issues.slice(0, 3))}`);
  },
};
await compare("check-spec", check, { label: "read every file (fs/promises)", run: () => readAll(adapter, files) });
await compare("check-spec-floor", check, {
  label: "read every file (readFileSync)",
  run: () => files.map((file) => readFileSync(join(adapter, file))),
});
