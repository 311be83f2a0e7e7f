/** checkSpec on a generated adapter (200 skills × 3 files, 50 agents) vs reading the same files. */
import { clearFrontmatterCache } from "../src/adapter/frontmatter.js";
import { checkSpec } from "../src/check/check.js";
import { generateAdapter, median, readAll, table } from "./lib.js";

const { adapter, root, files } = await generateAdapter({ skills: 200, agents: 50, tools: 0 });
const runs = Number(process.env.BENCH_RUNS ?? 7);
const read = await median(runs, () => readAll(adapter, files));
const check = await median(runs, async () => {
  clearFrontmatterCache(); // each run parses cold, as a fresh `hermit spec check` does
  const result = await checkSpec(adapter, root);
  if (!result.passed) throw new Error(`generated adapter fails its check: ${JSON.stringify(result.issues.slice(0, 3))}`);
});
table(`checkSpec (${files.length} files, median of ${runs})`, [
  { what: "read every file (baseline)", ms: read, ratio: 1 },
  { what: "checkSpec", ms: check, ratio: check / read },
]);
