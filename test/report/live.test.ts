/**
 * The report a Trainer keeps current: real training runs, with `report.html` read back after
 * every committed step (through the Trainer's observer seam, told after the report's own
 * observer) and compared with the step records on disk; a run killed with SIGKILL mid-step —
 * and at random moments — leaves a whole page of its committed steps, which a real browser
 * opens without an error.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { train } from "../../src/builtins.js";
import type { Progress } from "../../src/train/progress.js";
import type { StepRecord } from "../../src/train/records.js";
import type { ReportData } from "../../src/report/types.js";
import { silentProgress } from "../../src/train/progress.js";
import { repoRoot, skipBecause, tempDir } from "../helpers.js";
import { addCheck, addNoise, ensureBuilt, lightAdapter, markerTask, scriptedEvolver, setup } from "../train/helpers.js";
import { noChromium, openReport, pageFacts } from "./browser.js";
import { cli, interruptedRun } from "./runs.js";

beforeAll(ensureBuilt, 180_000);

/** The data a report page embeds, after checking the file is a whole page. */
async function pageData(dir: string): Promise<ReportData> {
  const html = await readFile(join(dir, "report.html"), "utf8");
  expect(html.trimEnd().endsWith("</html>")).toBe(true);
  const embedded = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html);
  expect(embedded).not.toBeNull();
  return JSON.parse(embedded![1]) as ReportData;
}

/** Every `steps/<n>/step.json` of a run, oldest first. */
async function stepRecords(dir: string): Promise<StepRecord[]> {
  const names = (await readdir(join(dir, "steps")).catch(() => [] as string[])).filter((name) => /^\d+$/.test(name));
  const records: StepRecord[] = [];
  for (const name of names.sort((a, b) => Number(a) - Number(b))) {
    const file = join(dir, "steps", name, "step.json");
    if (existsSync(file)) records.push(JSON.parse(await readFile(file, "utf8")) as StepRecord);
  }
  return records;
}

const shown = (data: ReportData) => data.steps.filter((step) => step.status !== "interrupted").map(({ step, status, summary, commit }) => ({ step, status, summary, commit }));
const recorded = (records: StepRecord[]) => records.map(({ step, status, summary, commit }) => ({ step, status, summary, commit }));

describe("the report a Trainer keeps current", () => {
  it("is written when the run opens, matches the records after every committed step, and shows the end", async () => {
    const { adapter, runsDir } = await setup("light");
    const { task } = markerTask();
    const { evolver } = scriptedEvolver([addCheck, addNoise, addCheck, addNoise]);
    const dir = join(runsDir, "live");
    const seen: Array<{ step: number; shown: ReturnType<typeof shown>; recorded: ReturnType<typeof recorded>; live: boolean }> = [];
    let opened: ReportData | undefined;
    const result = await train({
      adapter, template: lightAdapter, task, evolver, steps: 4, runsDir, runId: "live",
      observers: {
        runOpened: async (run) => {
          expect(run.dir).toBe(dir);
          opened = await pageData(run.dir);
        },
        stepCommitted: async (run, step) => {
          const data = await pageData(run.dir);
          seen.push({ step: step.step, shown: shown(data), recorded: recorded(await stepRecords(run.dir)), live: data.run.live });
        },
      },
    });
    expect(opened?.run.status).toBe("running");
    expect(opened?.steps).toEqual([]);
    expect(seen.map((item) => item.step)).toEqual([1, 2, 3, 4]);
    for (const item of seen) {
      // The page after step n shows exactly the n committed steps, as their records say.
      expect(item.shown).toHaveLength(item.step);
      expect(item.shown).toEqual(item.recorded);
      expect(item.live).toBe(true);
    }
    expect(seen.map((item) => item.shown[item.shown.length - 1].status)).toEqual(["accepted", "rejected", "accepted", "rejected"]);
    // The last refresh, at the end: the final status and the sealed test scores.
    const final = await pageData(dir);
    expect(final.run.status).toBe(result.status);
    expect(final.run.live).toBe(false);
    expect(final.test?.final.commit).toBe(result.acceptedCommit);
    expect(shown(final)).toEqual(recorded(await stepRecords(dir)));
  }, 120_000);

  it("an observer that throws is a progress line; the run and the report go on", async () => {
    const { adapter, runsDir } = await setup("light");
    const { task } = markerTask();
    const { evolver } = scriptedEvolver([addCheck]);
    const notes: string[] = [];
    const progress: Progress = { ...silentProgress, note: (text) => notes.push(text) };
    const result = await train({
      adapter, template: lightAdapter, task, evolver, steps: 2, runsDir, runId: "throws", progress,
      observers: {
        stepCommitted: (_run, step) => {
          throw new Error(`observer broke on step ${step.step}`);
        },
      },
    });
    expect(result.steps.map((step) => step.step)).toEqual([1, 2]);
    expect(notes.filter((note) => note.includes("observer broke"))).toEqual([
      "a run observer failed on stepCommitted (the run goes on): observer broke on step 1",
      "a run observer failed on stepCommitted (the run goes on): observer broke on step 2",
    ]);
    expect(shown(await pageData(join(runsDir, "throws")))).toEqual(recorded(await stepRecords(join(runsDir, "throws"))));
  }, 120_000);

  it.skipIf(skipBecause(noChromium))("a run of one step: the page the Trainer leaves opens in a browser with one point, one row, one column", async () => {
    const { adapter, runsDir } = await setup("light");
    const { task } = markerTask();
    const { evolver } = scriptedEvolver([addCheck]);
    await train({ adapter, template: lightAdapter, task, evolver, steps: 1, runsDir, runId: "one" });
    const file = join(runsDir, "one", "report.html");
    const opened = await openReport(file);
    try {
      const facts = await pageFacts(opened.page);
      expect(opened.problems).toEqual([]);
      expect(opened.requests).toEqual([`file://${file}`]);
      expect(facts.chartX).toEqual([1]);
      expect(facts.chartCandidate).toEqual([0.5]);
      expect(facts.rows.map((row) => row.status)).toEqual(["accepted"]);
      // Validation: the base column and step 1's, for v1 and v2; all scored.
      const validation = facts.heatmaps.find((map) => map.id === "validation")!;
      expect(validation.cells.map((cell) => `${cell.row}:${cell.col}:${cell.state}`).sort()).toEqual(["0:0:score", "0:1:score", "1:0:score", "1:1:score"]);
      expect(facts.embedded.run.status).toBe("completed");
    } finally {
      await opened.close();
    }
  }, 120_000);

  it("kill -9 during a step leaves the page of the committed steps, whole, and a browser opens it cleanly", async () => {
    // `hermit train` killed during step 3's validation: steps 1 and 2 are committed.
    const run = await interruptedRun();
    const data = await pageData(run.dir);
    const records = await stepRecords(run.dir);
    expect(records.map((record) => record.step)).toEqual([1, 2]);
    expect(shown(data)).toEqual(recorded(records));
    expect(data.run.status).toBe("running");
    if (skipBecause(noChromium)) return;
    const opened = await openReport(join(run.dir, "report.html"));
    try {
      const facts = await pageFacts(opened.page);
      expect(opened.problems).toEqual([]);
      expect(opened.requests).toEqual([`file://${join(run.dir, "report.html")}`]);
      expect(facts.chartX).toEqual([1, 2]);
      expect(facts.rows.map((row) => row.step)).toEqual([1, 2]);
    } finally {
      await opened.close();
    }
  }, 240_000);

  it("kill -9 at random moments of a run: the page is always whole and shows only committed steps", async () => {
    const trainFixtures = join(repoRoot, "test", "train", "fixtures");
    const delays = [2000, 2600, 3200, 4000];
    for (const [index, delay] of delays.entries()) {
      const runsDir = join(await tempDir("hermit-report-kill-"), "runs");
      const runId = `kill-${index}`;
      const child = spawn(
        process.execPath,
        [cli, "train", "--adapter", lightAdapter, "--template", lightAdapter, "--task", join(trainFixtures, "crash-task.ts"), "--evolver", join(trainFixtures, "crash-evolver.ts"), "--steps", "40", "--runs-dir", runsDir, "--run-id", runId],
        { stdio: "ignore" },
      );
      await new Promise((resolve) => setTimeout(resolve, delay));
      child.kill("SIGKILL");
      await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once("exit", resolve)));
      const dir = join(runsDir, runId);
      if (!existsSync(join(dir, "report.html"))) {
        // Killed before the run opened: nothing was committed either.
        expect(await stepRecords(dir)).toEqual([]);
        continue;
      }
      const data = await pageData(dir);
      const records = recorded(await stepRecords(dir));
      // The page was written after some committed step k and before the next refresh: it shows
      // steps 1..k exactly as recorded, and at most the one step committed after it is missing.
      const pageSteps = shown(data);
      expect(pageSteps).toEqual(records.slice(0, pageSteps.length));
      expect(records.length - pageSteps.length).toBeLessThanOrEqual(1);
      console.log(`killed after ${delay} ms: ${records.length} steps committed, the page shows ${pageSteps.length}`);
    }
  }, 240_000);
});
