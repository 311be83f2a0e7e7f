/**
 * The run report on a 200-step run (the rules scenario of the report tests):
 * 1. `hermit report`'s work — read the records and the Git store, build the model, render and
 *    write the page — against the baseline of reading the run's own files (run.json, every
 *    step's step.json and learning.json, rollouts.jsonl: read and JSON-parsed), paired and
 *    interleaved in the same run (bench/lib.ts `compare`), CPU time.
 * 2. The Trainer's per-step refresh (diffs of earlier steps memoized) against the same baseline.
 * 3. The page's size, and its render time in headless Chromium (navigation start → charts drawn).
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { mkdtemp, readFile, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { readReportInput, ReportMemo } from "../src/report/read.js";
import { writeReport } from "../src/report/write.js";
import { train } from "../src/builtins.js";
import { VersionStore } from "../src/train/store.js";
import { lightAdapter, rulesRun } from "../test/report/fixtures/rules.js";
import { compare } from "./lib.js";

const steps = Number(process.env.BENCH_REPORT_STEPS ?? 200);
const rounds = Number(process.env.BENCH_REPORT_ROUNDS ?? 7);
const scratch = await mkdtemp(join(tmpdir(), "hermit-bench-report-"));
const runsDir = join(scratch, "runs");

const made = performance.now();
const settings = rulesRun(steps);
await train({ ...settings, adapter: lightAdapter, runsDir });
console.log(`made a ${steps}-step run in ${((performance.now() - made) / 1000).toFixed(1)} s: ${join(runsDir, settings.runId)}`);
const runDir = join(runsDir, settings.runId);

/** The baseline: every record of the run read and parsed, nothing computed. */
async function readFiles(): Promise<number> {
  let bytes = 0;
  const parse = async (file: string) => {
    const text = await readFile(file, "utf8").catch(() => "");
    bytes += text.length;
    if (!file.endsWith(".jsonl")) {
      if (text) JSON.parse(text);
      return;
    }
    for (const line of text.split("\n")) if (line) JSON.parse(line);
  };
  await parse(join(runDir, "run.json"));
  await parse(join(runDir, "rollouts.jsonl"));
  for (const entry of await readdir(join(runDir, "steps"))) {
    await parse(join(runDir, "steps", entry, "step.json"));
    await parse(join(runDir, "steps", entry, "learning.json"));
  }
  return bytes;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const out = join(scratch, "report.html");
const warmMemo = new ReportMemo();
const store = (await VersionStore.openExisting(join(runsDir, "versions.git")))!;
await readReportInput(runsDir, settings.runId, { memo: warmMemo, store });
let size = 0;
const readTheFiles = { label: "read and parse the run's files", run: readFiles };
await compare("report-200", { label: "hermit report (read, diffs, render, write)", run: async () => (size = (await writeReport({ runsDir, runId: settings.runId, out })).bytes) }, readTheFiles, { pairs: rounds });
await compare("report-refresh", { label: "Trainer's refresh (memoized diffs)", run: () => writeReport({ runsDir, runId: settings.runId, out, memo: warmMemo, store }) }, readTheFiles, { pairs: rounds });
console.log(`\npage size: ${(size / 1024).toFixed(0)} KB for ${steps} steps`);

const chromium = process.env.HERMIT_CHROMIUM ?? "/usr/bin/chromium";
if (!existsSync(chromium)) {
  console.log(`browser render: skipped (${chromium} not found)`);
} else {
  // Loaded with Node's own require: jiti's module interop breaks playwright-core's CommonJS bundle.
  const { chromium: driver } = createRequire(import.meta.url)("playwright-core") as typeof import("playwright-core");
  const context = await driver.launchPersistentContext(await mkdtemp(join(tmpdir(), "hermit-bench-chromium-")), {
    executablePath: chromium,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    viewport: { width: 1300, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const times: number[] = [];
  for (let load = 0; load < 5; load++) {
    await page.goto(`file://${out}`);
    await page.waitForFunction("window.hermitReport !== undefined");
    times.push(await page.evaluate("performance.getEntriesByName('hermit-report-drawn')[0].startTime"));
  }
  await context.close();
  console.log(`browser render (navigation start → charts drawn), 5 loads: median ${median(times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms (goal < 1000 ms)`);
}
