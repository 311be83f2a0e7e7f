/**
 * The README's first command, then its report in a real browser: the page a new user sees
 * first. Cross-checked against the run's own records, not against the report's model.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunRecord, StepRecord } from "../../src/train/records.js";
import { skipBecause, tempDir } from "../helpers.js";
import { ensureBuilt } from "../train/helpers.js";
import { noChromium, openReport, openStep, pageFacts, screenshot, sectionShots } from "./browser.js";
import { demoRun, reportCli } from "./runs.js";

beforeAll(ensureBuilt, 180_000);

describe.skipIf(skipBecause(noChromium))("the README demo's report", () => {
  it("shows every step of the demo run as its records have it", async () => {
    const run = await demoRun();
    const record = JSON.parse(await readFile(join(run.dir, "run.json"), "utf8")) as RunRecord;
    const steps: StepRecord[] = [];
    for (let step = 1; step <= record.lastStep; step++) steps.push(JSON.parse(await readFile(join(run.dir, "steps", String(step), "step.json"), "utf8")));
    const written = reportCli(run);
    expect(written.status).toBe(0);
    const file = join(run.dir, "report.html");
    const opened = await openReport(file);
    try {
      const shots = process.env.HERMIT_REPORT_SHOTS ?? (await tempDir("hermit-report-shots-"));
      await screenshot(opened, shots, "demo");
      await sectionShots(opened, shots, "demo");
      console.log(`demo: ${steps.length} steps, rendered in ${opened.renderMs} ms, screenshots in ${shots}`);
      expect(opened.problems).toEqual([]);
      expect(opened.requests).toEqual([`file://${file}`]);
      const facts = await pageFacts(opened.page);
      expect(JSON.parse(reportCli(run, "--json").stdout)).toEqual(facts.embedded);

      expect(facts.chartX).toEqual(steps.map((step) => step.step));
      expect(facts.chartCandidate).toEqual(steps.map((step) => step.score));
      expect(facts.strip.map((mark) => mark.status)).toEqual(steps.map((step) => step.status));
      // One cell per validation instance for the base and each step; per train instance for each step.
      const rollouts = (await readFile(join(run.dir, "rollouts.jsonl"), "utf8")).trim().split("\n").map((line) => JSON.parse(line) as { split: string; instance: string });
      const instances = (split: string) => new Set(rollouts.filter((item) => item.split === split).map((item) => item.instance)).size;
      const heatmap = (id: string) => facts.heatmaps.find((map) => map.id === id)!.cells;
      expect(heatmap("validation")).toHaveLength(instances("val") * (steps.length + 1));
      expect(heatmap("acting")).toHaveLength(instances("train") * steps.length);
      expect(heatmap("test")).toHaveLength(instances("test") * 2);
      expect(heatmap("test").every((cell) => cell.state === "score")).toBe(true);
      // Steps that reached validation have a scored cell per instance; the stopped step has none.
      const stoppedColumn = steps.findIndex((step) => step.status === "stopped") + 1;
      expect(heatmap("validation").filter((cell) => cell.col === stoppedColumn).every((cell) => cell.state === "not-evaluated")).toBe(true);
      expect(facts.embedded.test).toMatchObject({ base: { score: record.final!.test.base.score }, final: { score: record.final!.test.final.score } });

      // Step 1 added a skill from the pool (its record's summary names it): the diff shows its lines.
      const added = /added skill (\S+)/.exec(steps[0]!.summary)?.[1];
      expect(added, steps[0]!.summary).toBeTruthy();
      await openStep(opened.page, "step-1");
      const step1 = await opened.page.locator("#step-1").innerText();
      expect(step1).toContain(`skills/${added}/SKILL.md`);
      expect(step1).toContain(`+name: ${added}`);
      await screenshot(opened, shots, "demo-step-1");
    } finally {
      await opened.close();
    }
  }, 900_000);
});
