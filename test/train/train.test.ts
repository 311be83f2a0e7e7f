/** End-to-end runs of the Trainer in temp directories, with instant in-test Tasks and Evolvers. */
import { existsSync } from "node:fs";
import { readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { hermitVersion } from "../../src/package-root.js";
import { train } from "../../src/builtins.js";
import type { RunRecord, StepRecord } from "../../src/train/records.js";
import { addCheck, addNoise, appendTo, fsck, git, lsTree, markerTask, scriptedEvolver, setup, trailers } from "./helpers.js";

describe("train: accept, reject, record", () => {
  it("accepts an improving edit, rejects one that does not improve, and records every candidate in Git", async () => {
    const { adapter, runsDir, template } = await setup();
    const { task } = markerTask();
    const { evolver, closed } = scriptedEvolver([
      async (context) => {
        await writeFile(join(context.workspace.state, "notes.txt"), "the evolver's memory\n");
        return addCheck(context);
      },
      addNoise,
      addCheck,
    ]);
    const result = await train({ adapter, template, task, evolver, steps: 3, runsDir, runId: "basic" });

    expect(result.status).toBe("completed");
    expect(result.steps.map((step) => [step.step, step.status, step.score])).toEqual([
      [1, "accepted", 0.5],
      [2, "rejected", 0.5],
      [3, "accepted", 1],
    ]);
    expect(result.test.base.score).toBe(0);
    expect(result.test.final.score).toBe(1);
    expect(closed()).toBe(1);

    const store = join(runsDir, "versions.git");
    const [step1, step2, step3] = result.steps.map((step) => step.commit);
    // Every candidate is reachable from a ref; the branch is the accepted lineage.
    expect(git(["--git-dir", store, "rev-parse", "refs/hermit/basic/candidates/step-2"])).toBe(step2);
    expect(git(["--git-dir", store, "rev-parse", "refs/heads/hermit/basic"])).toBe(result.finalCommit);
    expect(git(["--git-dir", store, "rev-parse", "refs/heads/hermit/basic~1"])).toBe(step3);
    expect(git(["--git-dir", store, "rev-parse", "refs/heads/hermit/basic~2"])).toBe(step1);
    expect(git(["--git-dir", store, "rev-parse", "hermit/basic/final^{commit}"])).toBe(result.finalCommit);
    expect(result.finalTag).toBe("hermit/basic/final");
    expect(result.acceptedCommit).toBe(step3);
    // Checkpoint tags name the accepted version as of each step.
    expect(git(["--git-dir", store, "rev-parse", "hermit/basic/step-1^{commit}"])).toBe(step1);
    expect(git(["--git-dir", store, "rev-parse", "hermit/basic/step-2^{commit}"])).toBe(step1);
    expect(git(["--git-dir", store, "rev-parse", "hermit/basic/step-3^{commit}"])).toBe(step3);
    expect(git(["--git-dir", store, "cat-file", "-t", "hermit/basic/step-3"])).toBe("tag");

    expect(trailers(store, step2)).toMatchObject({
      "Hermit-Run": "basic",
      "Hermit-Step": "2",
      "Hermit-Status": "rejected",
      "Hermit-Score": "0.5",
      "Hermit-Accepted-Score": "0.5",
      "Hermit-Evolver": "scripted",
    });
    expect(trailers(store, step3)["Hermit-Status"]).toBe("accepted");
    expect(trailers(store, result.finalCommit)["Hermit-Status"]).toBe("final");
    expect(git(["--git-dir", store, "log", "-1", "--format=%s", step2])).toBe("step 2: rejected — added noise (difference 0 is not more than margin 0)");

    // The Evolver's state is kept across steps and never committed into the adapter.
    for (const commit of [step1, step2, step3, result.finalCommit]) expect(lsTree(store, commit)).not.toContain("notes.txt");
    const stateCommit = trailers(store, step3)["Hermit-State"];
    expect(lsTree(store, stateCommit)).toEqual(["notes.txt"]);

    const fsckResult = fsck(store);
    expect(fsckResult.status).toBe(0);
    expect(fsckResult.output).not.toMatch(/error|warning|missing|broken|dangling commit/i);

    // The run directory, as docs/trainer.md shows it.
    const runDir = join(runsDir, "basic");
    for (const part of ["root/adapter.yaml", "rollout_adapter/ADAPTER.md", "workspace/adapter/ADAPTER.md", "workspace/state/notes.txt", "checkout/ADAPTER.md", "run.json", "CARD.md"]) {
      expect(existsSync(join(runDir, part)), part).toBe(true);
    }
    expect((await readdir(join(runDir, "steps"))).sort()).toEqual(["1", "2", "3", "final"]);
    for (const file of ["learning.json", "evolver.json", "step.json", "rollouts/t1/rollout.json", "val/candidate/v1/rollout.json"]) {
      expect(existsSync(join(runDir, "steps", "2", file)), file).toBe(true);
    }
    // checkout/ is a worktree the git CLI recognizes, holding the recorded version.
    const checkout = join(runDir, "checkout");
    expect(git(["rev-parse", "--abbrev-ref", "HEAD"], checkout)).toBe("hermit/basic");
    expect(git(["log", "-1", "--format=%H"], checkout)).toBe(result.finalCommit);
    expect(git(["status", "--porcelain"], checkout)).toBe("");

    const run = JSON.parse(await readFile(join(runDir, "run.json"), "utf8")) as RunRecord;
    expect(run.status).toBe("completed");
    expect(run.lastStep).toBe(3);
    expect(run.accepted.commit).toBe(step3);
    expect(run.final?.commit).toBe(result.finalCommit);

    // origin in the final adapter.yaml.
    const manifest = parse(await readFile(join(checkout, "adapter.yaml"), "utf8"));
    expect(manifest.origin).toMatchObject({ run: "basic", step: 3, parent: step3, template: run.template.commit, base: run.base.commit, tag: "hermit/basic/final" });
    expect(manifest.name).toBe("light");

    // CARD.md: provenance, a row per step, base vs final test scores, files changed.
    const card = await readFile(join(runDir, "CARD.md"), "utf8");
    expect(await readFile(join(checkout, "CARD.md"), "utf8")).toBe(card);
    expect(card).toContain(`| run | \`basic\`, branch \`hermit/basic\`, final tag \`hermit/basic/final\` |`);
    expect(card).toContain(`| hermit | ${hermitVersion} |`);
    expect(card).toContain(`commit \`${run.template.commit.slice(0, 12)}\``);
    expect(card).toContain(`| base | commit \`${run.base.commit.slice(0, 12)}\``);
    expect(card).toContain("| task | `marker` |");
    expect(card).toContain("| evolver | `scripted` |");
    expect(card).toContain("| seed | 0 |");
    expect(card).toMatch(/accept=improve, margin=0/);
    expect(card).toContain(`| 2 | rejected | 0.5000 | 0.5000 | \`${step2.slice(0, 12)}\` | added noise (difference 0 is not more than margin 0) |`);
    expect(card).toContain(`| base | \`${run.base.commit.slice(0, 12)}\` | 0.0000 | 1 | 0 |`);
    expect(card).toContain(`| final | \`${step3.slice(0, 12)}\` | 1.0000 | 1 | 0 |`);
    expect(card).toContain("- modified `ADAPTER.md`");
  });

  it("accept=always takes every valid candidate; improve takes only a better one", async () => {
    const runWith = async (accept: "always" | "improve") => {
      const { adapter, runsDir, template } = await setup();
      const { task } = markerTask();
      const { evolver } = scriptedEvolver([addNoise]);
      return train({ adapter, template, task, evolver, steps: 2, runsDir, runId: accept, accept });
    };
    const always = await runWith("always");
    const improve = await runWith("improve");
    expect(always.steps.map((step) => step.status)).toEqual(["accepted", "accepted"]);
    expect(always.acceptedCommit).toBe(always.steps[1].commit);
    expect(improve.steps.map((step) => step.status)).toEqual(["rejected", "rejected"]);
    const base = JSON.parse(await readFile(join(improve.runDir, "run.json"), "utf8")) as RunRecord;
    expect(improve.acceptedCommit).toBe(base.base.commit);
  });

  it("applies --margin and --margin-se to the paired validation difference", async () => {
    const { adapter, runsDir, template } = await setup();
    const { task } = markerTask();
    const { evolver } = scriptedEvolver([addCheck]);
    // One check lifts every validation score by 0.5: not more than a margin of 0.5.
    const result = await train({ adapter, template, task, evolver, steps: 1, runsDir, runId: "margin", margin: 0.5 });
    expect(result.steps[0].status).toBe("rejected");
    const record = JSON.parse(await readFile(join(result.runDir, "steps", "1", "step.json"), "utf8")) as StepRecord;
    expect(record.decision).toMatchObject({ difference: 0.5, pairs: 2, status: "rejected" });
    expect(record.decision?.reason).toMatch(/not more than margin 0.5/);
  });
});

describe("train: plugins that fail", () => {
  it("records a throwing Evolver's step as failed, keeps the accepted version, and goes on", async () => {
    const { adapter, runsDir, template } = await setup();
    const { task } = markerTask();
    const { evolver, seen } = scriptedEvolver([
      addCheck,
      async (context) => {
        await appendTo(context, "ADAPTER.md", "\nCheck the result.\n");
        throw new Error("model API unreachable");
      },
      async () => ({ status: "failed", summary: "gave up" }),
      addCheck,
    ]);
    const result = await train({ adapter, template, task, evolver, steps: 4, runsDir, runId: "throws" });
    expect(result.steps.map((step) => step.status)).toEqual(["accepted", "failed", "failed", "accepted"]);
    const store = join(runsDir, "versions.git");
    expect(trailers(store, result.steps[1].commit)["Hermit-Status"]).toBe("failed");
    expect(git(["--git-dir", store, "log", "-1", "--format=%s", result.steps[1].commit])).toMatch(/the Evolver threw: model API unreachable/);
    // The failed steps left the accepted version alone: step 4 starts from step 1's version.
    expect(git(["--git-dir", store, "rev-parse", `${result.steps[3].commit}^`])).toBe(result.steps[0].commit);
    expect(git(["--git-dir", store, "rev-parse", "hermit/throws/step-3^{commit}"])).toBe(result.steps[0].commit);
    expect(seen[2].history.map((entry) => entry.status)).toEqual(["accepted", "failed"]);
    const record = JSON.parse(await readFile(join(result.runDir, "steps", "2", "step.json"), "utf8")) as StepRecord;
    expect(record.evolver.status).toBe("threw");
    expect(record.evolver.error).toContain("model API unreachable");
    expect(fsck(store).status).toBe(0);
  });

  it("ends the run cleanly when the Evolver says stop", async () => {
    const { adapter, runsDir, template } = await setup();
    const { task } = markerTask();
    const { evolver } = scriptedEvolver([addCheck, async () => ({ status: "stop", summary: "nothing left to try" })]);
    const result = await train({ adapter, template, task, evolver, steps: 5, runsDir, runId: "stops" });
    expect(result.status).toBe("stopped");
    expect(result.reason).toMatch(/stopped at step 2: nothing left to try/);
    expect(result.steps.map((step) => step.status)).toEqual(["accepted", "stopped"]);
    expect(result.test.final.score).toBe(0.5);
    expect(git(["--git-dir", join(runsDir, "versions.git"), "rev-parse", "hermit/stops/final^{commit}"])).toBe(result.finalCommit);
  });

  it("scores a rollout that times out as null (missing), never 0, after a retry, and calls a mostly-missing candidate indecisive", async () => {
    const { adapter, runsDir, template } = await setup();
    const { task } = markerTask({
      train: ["quick", "stuck"],
      val: ["v1", "v2", "v3"],
      score: async (text, instance, rollout) => {
        const hang = instance.id === "stuck" || (rollout.split === "val" && text.includes("HANG"));
        if (hang) await new Promise((resolve) => rollout.signal.addEventListener("abort", resolve));
        return Math.min(1, (text.match(/^Check the result\.$/gm) ?? []).length / 2);
      },
    });
    const { evolver, seen } = scriptedEvolver([
      async (context) => {
        await appendTo(context, "ADAPTER.md", "\nCheck the result.\nCheck the result.\nHANG\n");
        return { status: "done", summary: "two checks and a hang" };
      },
      addCheck,
    ]);
    const result = await train({ adapter, template, task, evolver, steps: 2, runsDir, runId: "timeout", rolloutTimeout: "200ms" });
    expect(result.steps[0].status).toBe("indecisive");
    expect(result.steps[0].score).toBeNull();
    const record = JSON.parse(await readFile(join(result.runDir, "steps", "1", "step.json"), "utf8")) as StepRecord;
    expect(record.decision).toMatchObject({ status: "indecisive", pairs: 0, missing: { candidate: 3, accepted: 0, total: 3 } });
    const stuck = seen[0].rollouts.find((rollout) => rollout.instance === "stuck")!;
    // Retried once (--retries defaults to 1) before it counted as missing.
    expect(stuck).toMatchObject({ status: "timeout", score: null, attempts: 2, retried: ["timeout: rollout timed out after 0.2 s"] });
    expect(stuck.error).toMatch(/timed out after 0.2 s/);
    // The batch mean leaves the missing score out: it is not averaged in as 0.
    expect(seen[0].batchScore).toBe(0);
    expect(seen[1].rollouts.find((rollout) => rollout.instance === "quick")!.score).toBe(0);
    expect(result.steps[1]).toMatchObject({ status: "accepted", score: 0.5 });
  });
});
