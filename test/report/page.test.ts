/**
 * The report as a person sees it: real runs made by the real Trainer, `hermit report` run as a
 * child process, the page opened in headless Chromium with every request intercepted. Each run
 * asserts what a reader relies on: no console error, no request leaving the page, one chart
 * point and one status mark per step, one heatmap cell per (instance, column) in the state the
 * run's scenario dictates, and the diff of a known step showing its known line. Screenshots
 * are kept in the test's temp dir.
 */
import { spawnSync } from "node:child_process";
import { cp, mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { skipBecause, tempDir } from "../helpers.js";
import { ensureBuilt } from "../train/helpers.js";
import { noChromium, openReport, openStep, pageFacts, screenshot, sectionShots, type OpenedPage } from "./browser.js";
import { cli, HOSTILE_FILE_LINE, HOSTILE_SUMMARY, interruptedRun, longRun, mixedRun, reportCli, type MadeRun } from "./runs.js";

beforeAll(ensureBuilt, 180_000);

let shots: string;
beforeAll(async () => {
  // Kept in the test's temp dir; HERMIT_REPORT_SHOTS=DIR keeps them after the run, to look at.
  shots = process.env.HERMIT_REPORT_SHOTS ? await mkdir(process.env.HERMIT_REPORT_SHOTS, { recursive: true }).then(() => process.env.HERMIT_REPORT_SHOTS!) : await tempDir("hermit-report-shots-");
  console.log(`screenshots: ${shots}`);
});

/** `hermit report` writes the page; open it; check what every page must satisfy. */
async function openChecked(run: MadeRun, name: string): Promise<{ opened: OpenedPage; facts: Awaited<ReturnType<typeof pageFacts>>; json: unknown }> {
  const written = reportCli(run);
  expect(written.stderr).toBe("");
  expect(written.status).toBe(0);
  const file = join(run.dir, "report.html");
  expect(written.stdout).toContain(`wrote ${file}`);
  const opened = await openReport(file);
  const facts = await pageFacts(opened.page);
  await screenshot(opened, shots, name);
  await sectionShots(opened, shots, name);
  const html = await readFile(file, "utf8");
  console.log(`${name}: ${facts.embedded.steps.length} steps, ${(Buffer.byteLength(html) / 1024).toFixed(0)} KB, rendered in ${opened.renderMs} ms`);
  expect(opened.problems).toEqual([]);
  expect(opened.requests).toEqual([`file://${file}`]);
  const json = JSON.parse(reportCli(run, "--json").stdout);
  return { opened, facts, json };
}

type Cells = Array<{ row: number; col: number; state: string }>;
const grid = (cells: Cells) => {
  const rows: string[][] = [];
  for (const cell of cells) (rows[cell.row] ??= [])[cell.col] = cell.state;
  return rows;
};

describe.skipIf(skipBecause(noChromium))("hermit report in a browser", () => {
  it("a run with accepted, rejected, repaired, failed and indecisive steps and a crashing rollout", async () => {
    const run = await mixedRun();
    const { opened, facts, json } = await openChecked(run, "mixed");
    try {
      // --json prints exactly what the page embeds and shows; `hermit runs show` says where the page is.
      expect(json).toEqual(facts.embedded);
      const shown = spawnSync(process.execPath, [cli, "runs", "show", run.runId, "--runs-dir", run.runsDir], { encoding: "utf8" });
      expect(shown.stdout).toContain(`report: ${join(run.dir, "report.html")}`);
      const statuses = ["accepted", "rejected", "accepted", "failed", "indecisive", "rejected"];
      expect(facts.chartX).toEqual([1, 2, 3, 4, 5, 6]);
      expect(facts.chartCandidate).toEqual([0.5, 0.5, 1, null, null, 1]);
      expect(facts.strip.map((mark) => mark.status)).toEqual(statuses);
      expect(facts.strip.map((mark) => mark.repaired)).toEqual([false, false, true, false, false, false]);
      expect(facts.rows.map((row) => row.status)).toEqual(statuses);
      expect(facts.rows[3].text).toContain("the Evolver threw: the learner model was unreachable");
      expect(facts.rows[4].text).toMatch(/indecisive|missing/);

      // Validation: rows v1 v2 v3, columns base and steps 1–6. Step 4 never reached validation;
      // step 5's candidate returned no score anywhere; step 6's crashed on v2 only.
      const validation = facts.heatmaps.find((map) => map.id === "validation")!;
      const S = "score", F = "failed", N = "not-evaluated";
      expect(grid(validation.cells)).toEqual([
        [S, S, S, S, N, F, S],
        [S, S, S, S, N, F, F],
        [S, S, S, S, N, F, S],
      ]);
      const acting = facts.heatmaps.find((map) => map.id === "acting")!;
      expect(grid(acting.cells)).toEqual([Array(6).fill(S), Array(6).fill(S)]);
      const test = facts.heatmaps.find((map) => map.id === "test")!;
      expect(grid(test.cells)).toEqual([[S, S], [S, S]]);
      // A failed cell is hatched (a pattern, not a colour alone); a not-evaluated one is plain.
      expect(validation.cells.find((cell) => cell.state === F)!.fill).toBe("url(#hatch-failed)");

      // Lineage: base, six candidates, final; each candidate made from the version accepted before it.
      expect(facts.lineage.map((node) => node.node)).toEqual(["base", "step-1", "step-2", "step-3", "step-4", "step-5", "step-6", "final"]);
      const commitOf = (node: string) => facts.lineage.find((item) => item.node === node)!.commit;
      expect(facts.lineage.find((node) => node.node === "step-2")!.parent).toBe(commitOf("step-1"));
      expect(facts.lineage.find((node) => node.node === "step-6")!.parent).toBe(commitOf("step-3"));

      // Hostile text is shown as text: nothing ran, nothing was fetched (checked above for every page).
      expect(facts.rows[1].text).toContain(HOSTILE_SUMMARY);
      await openStep(opened.page, "step-2");
      expect(await opened.page.locator("#step-2").innerText()).toContain(`+Be brief. ${HOSTILE_FILE_LINE}`);
      expect(await opened.page.evaluate("window.pwned")).toBeUndefined();

      // The diff of step 1 shows the line it added; step 3 shows its repair.
      await openStep(opened.page, "step-1");
      const step1 = await opened.page.locator("#step-1").innerText();
      expect(step1).toContain("ADAPTER.md");
      expect(step1).toContain("+Check the result.");
      await openStep(opened.page, "step-3");
      const step3 = await opened.page.locator("#step-3").innerText();
      expect(step3).toContain("delete notes.txt");
      expect(step3).toContain("notes.txt: outside the learnable paths");
      await screenshot(opened, shots, "mixed-open");

      // Hovering a failed cell names the error.
      await opened.page.hover('svg[data-heatmap="validation"] rect[data-row="1"][data-col="6"]');
      expect(await opened.page.locator("#tip").innerText()).toContain("the agent crashed on v2");
      // Opening diffs and hovering fetched nothing either.
      expect(opened.requests).toEqual([`file://${join(run.dir, "report.html")}`]);
      expect(opened.problems).toEqual([]);
    } finally {
      await opened.close();
    }
  }, 240_000);

  it("a run killed with SIGKILL mid-step: committed steps, then the interrupted one with its finished rollouts", async () => {
    const run = await interruptedRun();
    const { opened, facts, json } = await openChecked(run, "interrupted");
    try {
      expect(json).toEqual(facts.embedded);
      expect(facts.embedded.run.status).toBe("interrupted");
      expect(facts.chartX).toEqual([1, 2, 3]);
      expect(facts.strip.map((mark) => mark.status).slice(2)).toEqual(["interrupted"]);
      const validation = grid(facts.heatmaps.find((map) => map.id === "validation")!.cells);
      // Step 3 (column 3) validated v1, then hung on v2 and was killed.
      expect(validation.map((row) => row[3])).toEqual(["score", "not-evaluated", "not-evaluated"]);
      const acting = grid(facts.heatmaps.find((map) => map.id === "acting")!.cells);
      expect(acting.map((row) => row[2])).toEqual(["score", "score"]);
      // No sealed test yet: the run never finished.
      expect(facts.embedded.heatmaps.find((map: { id: string }) => map.id === "test").rows).toEqual([]);
      expect(await opened.page.locator("#heatmap-test").innerText()).toContain("No rollouts on this split yet.");
      const text = await opened.page.locator("#reproduce").evaluate((node) => node.parentElement!.textContent);
      expect(text).toContain(`hermit train --resume crashed --runs-dir ${run.runsDir}`);
    } finally {
      await opened.close();
    }
  }, 240_000);

  it("a run made before reports existed, moved to another directory, one step record lost, then its store lost", async () => {
    const runsDir = join(await tempDir("hermit-report-old-"), "runs");
    await cp(join(import.meta.dirname, "fixtures", "before-report"), runsDir, { recursive: true });
    const run: MadeRun = { runsDir, runId: "before-report", dir: join(runsDir, "before-report") };
    // Its recorded store path (/tmp/oldrun/…) is gone: the store beside the run is found instead.
    let checked = await openChecked(run, "before-report");
    try {
      expect(checked.facts.chartX).toEqual([1, 2, 3]);
      expect(checked.facts.strip.map((mark) => mark.status)).toEqual(["accepted", "accepted", "rejected"]);
      expect(checked.facts.embedded.notes).toEqual([]);
      const validation = grid(checked.facts.heatmaps.find((map) => map.id === "validation")!.cells);
      expect(validation).toEqual(Array(3).fill(Array(4).fill("score")));
      await openStep(checked.opened.page, "step-2");
      expect(await checked.opened.page.locator("#step-2").innerText()).toContain("+Rule 2.");
    } finally {
      await checked.opened.close();
    }

    // A crash lost step 3's record: Git still has the step; the page rebuilds it from the commit.
    await rm(join(run.dir, "steps", "3", "step.json"));
    checked = await openChecked(run, "before-report-rebuilt");
    try {
      expect(checked.facts.strip.map((mark) => mark.status)).toEqual(["accepted", "accepted", "rejected"]);
      expect(checked.facts.embedded.steps[2]).toMatchObject({ rebuilt: true, summary: "added rule 3", scores: { candidate: 0.3 } });
      expect(checked.facts.rows[2].text).toContain("rebuilt from the version store");
    } finally {
      await checked.opened.close();
    }

    // Without its store, the page still shows every recorded step and says what it cannot show.
    await rm(join(runsDir, "versions.git"), { recursive: true });
    await cp(join(import.meta.dirname, "fixtures", "before-report", "before-report", "steps", "3", "step.json"), join(run.dir, "steps", "3", "step.json"));
    checked = await openChecked(run, "before-report-no-store");
    try {
      expect(checked.facts.chartX).toEqual([1, 2, 3]);
      expect(checked.facts.embedded.notes[0]).toContain("the version store is not there");
      expect(await checked.opened.page.locator("#notes").innerText()).toContain("the version store is not there");
    } finally {
      await checked.opened.close();
    }
  }, 240_000);

  it("a 200-step run with sampled batches", async () => {
    const run = await longRun(200);
    const { opened, facts } = await openChecked(run, "long-200");
    try {
      const steps = Array.from({ length: 200 }, (_, index) => index + 1);
      expect(facts.chartX).toEqual(steps);
      expect(facts.timeX).toEqual(steps);
      expect(facts.strip).toHaveLength(200);
      // Every 7th candidate's rollout on v3 (row 2) fails; the rest are scored.
      const validation = grid(facts.heatmaps.find((map) => map.id === "validation")!.cells);
      expect(validation).toHaveLength(3);
      for (const [row, cells] of validation.entries()) {
        expect(cells).toHaveLength(201);
        expect(cells.slice(1)).toEqual(steps.map((step) => (row === 2 && step % 7 === 0 ? "failed" : "score")));
      }
      // Each batch samples 2 of the 4 train instances: 2 scored cells and 2 not evaluated per step.
      const acting = grid(facts.heatmaps.find((map) => map.id === "acting")!.cells);
      expect(acting).toHaveLength(4);
      for (const step of steps) {
        const column = acting.map((row) => row[step - 1]);
        expect(column.filter((state) => state === "score")).toHaveLength(2);
        expect(column.filter((state) => state === "not-evaluated")).toHaveLength(2);
      }
      await openStep(opened.page, "step-150");
      expect(await opened.page.locator("#step-150").innerText()).toContain("+Rule 150.");
    } finally {
      await opened.close();
    }
  }, 600_000);
});
