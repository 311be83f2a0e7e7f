/**
 * Results a user can trust (issue 9.4–9.6, 9.8): a crashed or timed-out rollout is retried and
 * never reused as a result; the cache key covers the instance's content and the task; a run in
 * which no step succeeded says so; the card and the store name no path of the training machine.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { train } from "../../src/builtins.js";
import { defineTask } from "../../src/plugin.js";
import type { TaskInstance } from "../../src/train/types.js";
import { addCheck, addNoise, countChecks, git, markerTask, scriptedEvolver, setup } from "./helpers.js";

describe("train: failures are retried, never reused", () => {
  it("retries a crashed rollout, and runs a failure again the next time its key comes up instead of reusing it", async () => {
    const { adapter, runsDir, template } = await setup();
    const attempts = new Map<string, number>();
    const { task } = markerTask({
      train: ["flaky", "broken"],
      score: (text, instance, rollout) => {
        const key = `${rollout.split}:${instance.id}:${rollout.tree}`;
        attempts.set(key, (attempts.get(key) ?? 0) + 1);
        if (instance.id === "flaky" && attempts.get(key) === 1) throw new Error("connection reset");
        if (instance.id === "broken" && rollout.split === "train") throw new Error("host crashed");
        return Math.min(1, countChecks(text) / 2);
      },
    });
    const { evolver, seen } = scriptedEvolver([addNoise]);
    const result = await train({ adapter, template, task, evolver, steps: 2, runsDir, runId: "flaky" });
    const flaky = seen[0].rollouts.find((record) => record.instance === "flaky")!;
    expect(flaky).toMatchObject({ status: "ok", attempts: 2, retried: ["error: connection reset"], score: 0 });
    const broken = seen[0].rollouts.find((record) => record.instance === "broken")!;
    expect(broken).toMatchObject({ status: "error", score: null, attempts: 2, error: "host crashed" });
    // Step 2 acts with the same accepted version: the ok result is reused, the failure runs again.
    const trainTree = seen[0].accepted.tree;
    expect(attempts.get(`train:flaky:${trainTree}`)).toBe(2);
    expect(attempts.get(`train:broken:${trainTree}`)).toBe(4);
    expect(result.steps).toHaveLength(2);
  });

  it("runs earlier time-outs again when a resumed run has a longer --rollout-timeout", async () => {
    const { adapter, runsDir, template } = await setup();
    const { task, calls } = markerTask({
      train: ["slow"],
      score: async (text, instance, rollout) => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        rollout.signal.throwIfAborted();
        return Math.min(1, countChecks(text) / 2);
      },
    });
    const { evolver } = scriptedEvolver([addCheck]);
    const first = await train({ adapter, template, task, evolver, steps: 1, runsDir, runId: "slow", rolloutTimeout: "100ms", retries: 0 });
    expect(first.steps[0].status).toBe("indecisive");
    expect(first.test.base).toMatchObject({ measured: 0, missing: 1 });
    const before = calls.length;
    const resumed = await train({ task, evolver, resume: "slow", runsDir, steps: 1, rolloutTimeout: "5s" });
    // Nothing was reused: the sealed test's time-outs ran again, and are measured now.
    expect(calls.length - before).toBeGreaterThan(0);
    expect(resumed.test.base).toMatchObject({ measured: 1, missing: 0, score: 0 });
    const lines = (await readFile(join(resumed.runDir, "rollouts.jsonl"), "utf8")).trim().split("\n").map((line) => JSON.parse(line));
    expect(lines.filter((line) => line.split === "test" && line.status === "timeout").length).toBeGreaterThan(0);
    expect(lines.filter((line) => line.split === "test" && line.status === "ok").length).toBeGreaterThan(0);
  }, 60_000);
});

describe("train: the full cache key", () => {
  it("runs a rollout again when its instance's content or the task's version changed between a run and its resume", async () => {
    const { adapter, runsDir, template } = await setup();
    let text = "alpha";
    let version = "1";
    const ran: string[] = [];
    const makeTask = () =>
      defineTask<TaskInstance & { text: string }>({
        name: "keyed",
        version,
        instances: (split) => [{ id: `${split}-1`, text }],
        rollout(instance, rollout) {
          ran.push(`${rollout.split}:${instance.text}:${version}`);
          return { score: 0 };
        },
      });
    const { evolver } = scriptedEvolver([addNoise]);
    await train({ adapter, template, task: makeTask(), evolver, steps: 1, runsDir, runId: "keyed" });
    const firstRun = ran.length;
    // Same data, same version: everything comes from the cache.
    await train({ task: makeTask(), evolver, resume: "keyed", runsDir, steps: 1 });
    expect(ran.length).toBe(firstRun);
    text = "beta";
    await train({ task: makeTask(), evolver, resume: "keyed", runsDir, steps: 1 });
    expect(ran.slice(firstRun)).toContain("test:beta:1");
    const afterData = ran.length;
    version = "2";
    await train({ task: makeTask(), evolver, resume: "keyed", runsDir, steps: 1 });
    expect(ran.slice(afterData)).toContain("test:beta:2");
  });
});

describe("train: a run in which no step succeeded", () => {
  it("ends failed, says so, and still writes its card", async () => {
    const { adapter, runsDir, template } = await setup();
    const { evolver } = scriptedEvolver([
      () => {
        throw new Error("model API unreachable");
      },
    ]);
    const result = await train({ adapter, template, task: markerTask().task, evolver, steps: 3, runsDir, runId: "hopeless" });
    expect(result.status).toBe("failed");
    expect(result.reason).toMatch(/^no step succeeded: every one of the 3 steps failed \(step 1: the Evolver threw: model API unreachable\)/);
    const run = JSON.parse(await readFile(join(result.runDir, "run.json"), "utf8"));
    expect(run).toMatchObject({ status: "failed", reason: result.reason });
    expect(await readFile(join(result.runDir, "CARD.md"), "utf8")).toContain("(failed: no step succeeded");
  });
});

describe("train: the shipped adapter names no local path", () => {
  it("keeps absolute paths of the training machine out of CARD.md and the store's commit messages", async () => {
    const { adapter, runsDir, template } = await setup();
    const task = defineTask({ name: "paths", options: { type: "object", properties: { data: { type: "string", format: "path" } } }, instances: (split) => [{ id: split }], rollout: () => ({ score: 1 }) });
    const result = await train({ adapter, template, task, taskOptions: { data: runsDir }, evolver: scriptedEvolver([addCheck]).evolver, steps: 1, runsDir, runId: "portable" });
    const card = await readFile(join(result.exported, "CARD.md"), "utf8");
    const store = join(runsDir, "versions.git");
    const messages = git(["--git-dir", store, "log", "--all", "--format=%B"]);
    for (const local of [adapter, runsDir, template, "/tmp/"]) {
      expect(card).not.toContain(local);
      expect(messages).not.toContain(local);
    }
    expect(card).toMatch(/imported from a folder named `[^`/]+`/);
    expect(card).toContain("task.data=…/runs");
  });
});
