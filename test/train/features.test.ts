/** The rollout cache, trials, starting from another run's tag, deploy, budgets, usage, the lock, config files. */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HermitError } from "../../src/errors.js";
import { train } from "../../src/builtins.js";
import { describeDeployment } from "../../src/train/deployments.js";
import { lockRun } from "../../src/train/lock.js";
import type { RunRecord } from "../../src/train/records.js";
import { tempDir } from "../helpers.js";
import { addCheck, addNoise, fsck, git, lsTree, markerTask, scriptedEvolver, setup } from "./helpers.js";

const keyOf = (call: { tree: string; split: string; instance: string; trial: number }) => `${call.tree} ${call.split} ${call.instance} ${call.trial}`;

describe("train: the rollout cache", () => {
  it("never runs a version twice on the same instance and trial, and counts what it reused", async () => {
    const { adapter, runsDir, template } = await setup();
    const { task, calls } = markerTask({ train: ["t1", "t2", "t3"], val: ["v1", "v2"], test: ["x1", "x2"] });
    const { evolver } = scriptedEvolver([addCheck, addNoise, addNoise, addCheck]);
    const result = await train({ adapter, template, task, evolver, steps: 4, runsDir, runId: "cache", trials: 2 });
    expect(result.steps.map((step) => step.status)).toEqual(["accepted", "rejected", "rejected", "accepted"]);

    const keys = calls.map(keyOf);
    expect(new Set(keys).size).toBe(keys.length);
    expect(calls.every((call) => call.trial === 0 || call.trial === 1)).toBe(true);
    // Runs: acting on base (6) + val base (4) + val step-1 candidate (4); step 2: acting on v1 (6) + candidate (4);
    // step 3: acting and validating the accepted version again are cached, the candidate equals step 2's (cached);
    // step 4: candidate (4), then acting on v2 is never needed; test: base (4) + final (4).
    expect(result.rollouts.ran).toBe(calls.length);
    expect(calls.length).toBe(6 + 4 + 4 + 6 + 4 + 4 + 4 + 4);
    const lines = (await readFile(join(result.runDir, "rollouts.jsonl"), "utf8")).trim().split("\n");
    expect(lines).toHaveLength(calls.length);
    const run = JSON.parse(await readFile(join(result.runDir, "run.json"), "utf8")) as RunRecord;
    expect(run.rollouts.ran).toBe(calls.length);
    // Reused: val of the accepted version in steps 2-4 (4 each), step 3's acting batch (6) and candidate (4), step 4's acting batch (6).
    expect(result.rollouts.cached).toBe(4 + 4 + 6 + 4 + 4 + 6);
    expect(run.rollouts.cached).toBe(result.rollouts.cached);
  });
});

describe("train: versions across runs", () => {
  it("starts a run from another run's final tag in the shared store", async () => {
    const { adapter, runsDir, template } = await setup();
    const first = await train({ adapter, template, task: markerTask().task, evolver: scriptedEvolver([addCheck]).evolver, steps: 1, runsDir, runId: "first" });
    const second = await train({
      from: "hermit/first/final",
      template,
      task: markerTask().task,
      evolver: scriptedEvolver([addCheck]).evolver,
      steps: 1,
      runsDir,
      runId: "second",
    });
    const store = join(runsDir, "versions.git");
    const run = JSON.parse(await readFile(join(second.runDir, "run.json"), "utf8")) as RunRecord;
    expect(run.base).toMatchObject({ commit: first.finalCommit, from: "hermit/first/final" });
    expect(second.test.base.score).toBe(0.5);
    expect(second.test.final.score).toBe(1);
    // The second run's lineage continues the first's.
    expect(git(["--git-dir", store, "merge-base", "--is-ancestor", first.finalCommit, "hermit/second/final"])).toBe("");
    expect(git(["--git-dir", store, "branch", "--list", "hermit/*", "--format=%(refname:short)"]).split("\n").sort()).toEqual(["hermit/first", "hermit/second"]);
    expect(fsck(store).status).toBe(0);
  });

  it("refuses a --from that names nothing, before creating the run", async () => {
    const { adapter, runsDir, template } = await setup();
    await train({ adapter, template, task: markerTask().task, evolver: scriptedEvolver([addNoise]).evolver, steps: 0, runsDir, runId: "seed" });
    const attempt = train({ from: "hermit/nope/final", template, task: markerTask().task, evolver: scriptedEvolver([addNoise]).evolver, runsDir, runId: "orphan" });
    await expect(attempt).rejects.toMatchObject({ code: "INPUT_NOT_FOUND" });
    expect(existsSync(join(runsDir, "orphan"))).toBe(false);
  });

  it("refuses a base adapter that fails the template's specification", async () => {
    const { adapter, runsDir, template } = await setup();
    await writeFile(join(adapter, "stray.bin"), "x");
    const attempt = train({ adapter, template, task: markerTask().task, evolver: scriptedEvolver([addNoise]).evolver, runsDir, runId: "bad-base" });
    await expect(attempt).rejects.toMatchObject({ code: "RUN_INVALID", message: expect.stringMatching(/stray\.bin/) });
  });
});

describe("train: deploy", () => {
  it("exports the final version to a stable folder, deploys it from there for each --deploy HOST:DIR, and says what a deploy replaced", async () => {
    const { adapter, runsDir, template } = await setup();
    const workspace = join(await tempDir(), "ws");
    const result = await train({
      adapter,
      template,
      task: markerTask().task,
      evolver: scriptedEvolver([addCheck]).evolver,
      steps: 1,
      runsDir,
      runId: "deployed",
      deploy: `claude-code:${workspace}`,
    });
    expect(result.deployments).toEqual([{ host: "claude-code", workspace: expect.stringContaining("ws"), changed: true, actions: expect.objectContaining({ create: expect.any(Number) }) }]);
    expect(result.exported).toBe(join(result.runDir, "final"));
    const report = JSON.parse(await readFile(join(workspace, ".hermit-deploy.json"), "utf8"));
    expect(report.host).toBe("claude-code");
    // Deployed from the export, never from checkout/, which the next step or run may rewrite.
    expect(report.adapter.path).toBe(result.exported);
    expect(await readFile(join(result.exported, "CARD.md"), "utf8")).toBe(await readFile(join(result.runDir, "CARD.md"), "utf8"));
    const claude = await readFile(join(workspace, "CLAUDE.md"), "utf8");
    expect(claude).toContain("<!-- hermit:light:start -->");
    expect(claude).toContain("Check the result.");
    const run = JSON.parse(await readFile(join(result.runDir, "run.json"), "utf8")) as RunRecord;
    expect(run.deployments).toEqual(result.deployments);

    // A second run deploys into the same workspace, from an export folder of its own, and says what it replaced.
    const exportTo = join(await tempDir(), "shipped");
    const second = await train({ adapter, template, task: markerTask().task, evolver: scriptedEvolver([addCheck, addCheck]).evolver, steps: 2, runsDir, runId: "redeployed", export: exportTo, deploy: `claude-code:${workspace}` });
    expect(second.deployments[0]).toMatchObject({ changed: true, replaced: { adapter: "light", from: result.exported, host: "claude-code" } });
    expect(describeDeployment(second.deployments[0]!)).toMatch(/^deployed claude-code → .*ws \(\d+ \S+.*\); replaced light \S+ \(deployed there from .*deployed\/final\)$/);
    expect(JSON.parse(await readFile(join(workspace, ".hermit-deploy.json"), "utf8")).adapter.path).toBe(exportTo);
    // --export refuses a folder of the user's.
    const mine = await tempDir();
    await writeFile(join(mine, "notes.txt"), "mine\n");
    await expect(train({ adapter, template, task: markerTask().task, evolver: scriptedEvolver([addCheck]).evolver, steps: 1, runsDir, runId: "no-export", export: mine })).rejects.toMatchObject({
      code: "USAGE",
      message: expect.stringMatching(/--export needs a new or empty folder/),
    });
    expect(await readFile(join(mine, "notes.txt"), "utf8")).toBe("mine\n");
  });
});

describe("train: budgets and usage", () => {
  it("stops starting steps when --max-rollouts is used up, and still scores the test split", async () => {
    const { adapter, runsDir, template } = await setup();
    const { task } = markerTask();
    const result = await train({ adapter, template, task, evolver: scriptedEvolver([addCheck]).evolver, steps: 10, runsDir, runId: "budget", maxRollouts: 10 });
    expect(result.status).toBe("budget");
    expect(result.reason).toMatch(/max-rollouts 10/);
    // Step 1 runs 6 rollouts (acting 2, val 2 + 2); step 2 brings the count to 10; step 3 is never started.
    expect(result.steps.map((step) => step.step)).toEqual([1, 2]);
    expect(result.test.final.measured).toBe(1);
  });

  it("keeps unreported usage unknown, never zero", async () => {
    const { adapter, runsDir, template } = await setup();
    const { task } = markerTask();
    const reporting = { ...task, rollout: async (...args: Parameters<typeof task.rollout>) => ({ ...(await task.rollout(...args)), ...(args[0].id === "t1" ? { usage: { inputTokens: 100, outputTokens: 20 } } : {}) }) };
    const result = await train({ adapter, template, task: reporting, evolver: scriptedEvolver([addCheck]).evolver, steps: 1, runsDir, runId: "usage" });
    const run = JSON.parse(await readFile(join(result.runDir, "run.json"), "utf8")) as RunRecord;
    // Step 1: 6 rollouts and one Evolver step, then the sealed test (base and final: 2 rollouts);
    // only t1's acting rollout reported tokens.
    expect(run.usage.known.inputTokens).toBe(100);
    expect(run.usage.reported.inputTokens).toBe(1);
    expect(run.usage.reported.costUsd).toBe(0);
    expect(run.usage.sources).toBe(9);
    const card = await readFile(join(result.runDir, "CARD.md"), "utf8");
    expect(card).toContain("| tokens in / out | ≥ 100 (8 of 9 unreported) / ≥ 20 (8 of 9 unreported) |");
    expect(card).toContain("| cost | unknown (not reported) |");
  });
});

describe("train: one process per run", () => {
  it("refuses a run whose lock a live process holds", async () => {
    const { adapter, runsDir, template } = await setup();
    await train({ adapter, template, task: markerTask().task, evolver: scriptedEvolver([addCheck]).evolver, steps: 1, runsDir, runId: "locked" });
    const lock = await lockRun(join(runsDir, "locked", ".lock"), "locked");
    try {
      const attempt = train({ resume: "locked", runsDir, steps: 2, task: markerTask().task, evolver: scriptedEvolver([addCheck]).evolver });
      await expect(attempt).rejects.toSatisfy((error) => error instanceof HermitError && error.code === "RUN_LOCKED" && /process \d+/.test(error.message));
    } finally {
      await lock.release();
    }
    // Released: the run can be extended with more steps.
    const more = await train({ resume: "locked", runsDir, steps: 2, task: markerTask().task, evolver: scriptedEvolver([addNoise]).evolver });
    expect(more.steps.map((step) => step.status)).toEqual(["accepted", "rejected"]);
  });
});

describe("train: settings", () => {
  it("reads --config run.yaml with paths relative to it, and lets options override it", async () => {
    const { adapter, runsDir, template } = await setup();
    const dir = await tempDir();
    await writeFile(
      join(dir, "run.yaml"),
      `adapter: ${adapter}\ntemplate: ${template}\nsteps: 5\nruns-dir: ./runs\nrun-id: from-config\naccept: always\nseed: 7\n`,
    );
    const result = await train({ config: join(dir, "run.yaml"), steps: 1, task: markerTask().task, evolver: scriptedEvolver([addNoise]).evolver });
    expect(result.runDir).toBe(join(dir, "runs", "from-config"));
    expect(result.steps).toHaveLength(1);
    expect(result.steps[0].status).toBe("accepted");
    const run = JSON.parse(await readFile(join(result.runDir, "run.json"), "utf8")) as RunRecord;
    expect(run.settings).toMatchObject({ seed: 7, accept: "always", steps: 1, store: join(dir, "runs", "versions.git") });
    void runsDir;
  });

  it("rejects bad settings with the key and the source named, and refuses to change a resumed run's rules", async () => {
    const { adapter, runsDir, template } = await setup();
    const base = { adapter, template, task: markerTask().task, evolver: scriptedEvolver([addNoise]).evolver, runsDir };
    await expect(train({ ...base, accept: "sometimes" as "always" })).rejects.toMatchObject({ code: "USAGE", message: expect.stringMatching(/^train options: 'accept' must be 'improve' or 'always'/) });
    await expect(train({ ...base, trials: 0 })).rejects.toMatchObject({ code: "USAGE", message: expect.stringMatching(/^train options: 'trials' must be a whole number ≥ 1/) });
    await expect(train({ ...base, runId: "../escape" })).rejects.toMatchObject({ code: "USAGE", message: expect.stringMatching(/^train options: 'runId' '\.\.\/escape' must be/) });
    await expect(train({ ...base, maxTime: "soon" })).rejects.toMatchObject({ code: "USAGE", message: expect.stringMatching(/^train options: 'maxTime' must be a positive duration/) });
    await train({ ...base, steps: 1, runId: "fixed-rules" });
    await expect(train({ ...base, resume: "fixed-rules", margin: 0.2 })).rejects.toMatchObject({ code: "USAGE", message: expect.stringMatching(/^train options: 'margin' cannot change when resuming/) });
    // The same command line again, with --resume and more steps, is fine.
    const resumed = await train({ ...base, resume: "fixed-rules", steps: 2 });
    expect(resumed.steps.map((step) => step.step)).toEqual([1, 2]);
    await expect(train({ ...base, runId: "fixed-rules" })).rejects.toMatchObject({ code: "RUN_INVALID", message: expect.stringMatching(/already exists; resume it with --resume fixed-rules/) });
  });

  it("refuses a task whose splits are unusable before writing anything", async () => {
    const { adapter, runsDir, template } = await setup();
    const evolver = scriptedEvolver([addNoise]).evolver;
    await expect(train({ adapter, template, task: markerTask({ val: [] }).task, evolver, runsDir, runId: "no-val" })).rejects.toMatchObject({
      code: "PLUGIN_INVALID",
      message: expect.stringMatching(/the val split is empty, so no candidate can be shown to improve/),
    });
    await expect(train({ adapter, template, task: markerTask({ train: ["a", "a"] }).task, evolver, runsDir, runId: "twice" })).rejects.toMatchObject({
      code: "PLUGIN_INVALID",
      message: expect.stringMatching(/instance id 'a' appears twice in split 'train'/),
    });
    expect(existsSync(runsDir)).toBe(false);
    // Under accept=always an empty val split is allowed: every valid candidate is accepted.
    const always = await train({ adapter, template, task: markerTask({ val: [] }).task, evolver, runsDir, runId: "always-no-val", accept: "always", steps: 1 });
    expect(always.steps[0]).toMatchObject({ status: "accepted", score: null });
  });

  it("keeps the acting batch a seeded sample of --batch-size instances", async () => {
    const { adapter, runsDir, template } = await setup();
    const train6 = ["a", "b", "c", "d", "e", "f"];
    const runOnce = async (runId: string) => {
      const { task, calls } = markerTask({ train: train6 });
      await train({ adapter, template, task, evolver: scriptedEvolver([addCheck]).evolver, steps: 3, runsDir, runId, batchSize: 2, seed: 3 });
      return calls.filter((call) => call.split === "train").map((call) => `${call.step}:${call.instance}`).sort();
    };
    const first = await runOnce("sample-1");
    expect(await runOnce("sample-2")).toEqual(first);
    for (const step of [1, 2, 3]) expect(first.filter((entry) => entry.startsWith(`${step}:`))).toHaveLength(2);
    void lsTree;
  });
});
