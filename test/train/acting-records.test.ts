/** The pure parts of acting's records: usage over a rollout's attempts, adapter use summed and described, carried by a queue worker's result. */
import { describe, expect, it } from "vitest";
import { addAdapterUse, describeAdapterUse, describeRolloutUse, emptyAdapterUse } from "../../src/train/adapter-use.js";
import { RESULT_FORMAT, recordFromResult, resultProblem } from "../../src/executors/queue/protocol.js";
import { attemptsUsage } from "../../src/train/usage.js";

describe("usage over a rollout's attempts", () => {
  it("sums a field every attempt reported, and leaves out (with the reason) one some attempt did not", () => {
    expect(attemptsUsage([{ inputTokens: 10, outputTokens: 2, costUsd: 0.5 }])).toEqual({ usage: { inputTokens: 10, outputTokens: 2, costUsd: 0.5 } });
    expect(attemptsUsage([undefined])).toEqual({});
    const summed = attemptsUsage([{ inputTokens: 10, outputTokens: 2 }, { inputTokens: 5, outputTokens: 1, costUsd: 0.25 }]);
    expect(summed.usage).toEqual({ inputTokens: 15, outputTokens: 3 });
    expect(summed.unknown).toBe("unknown over the attempts: costUsd (attempt 1 did not report it)");
    // An attempt the Trainer's time limit cut off reported nothing: every field is unknown, not the other attempt's alone.
    const cut = attemptsUsage([undefined, { inputTokens: 5, outputTokens: 1 }]);
    expect(cut.usage).toBeUndefined();
    expect(cut.unknown).toMatch(/inputTokens \(attempt 1 did not report it\); outputTokens \(attempt 1/);
  });
});

describe("adapter use over rollouts", () => {
  it("counts rollouts with evidence, those that used the adapter, and each skill and tool once per rollout", () => {
    let totals = emptyAdapterUse();
    totals = addAdapterUse(totals, { skillsRead: ["fix"], toolsCalled: ["run_tests", "run_tests"], used: true });
    totals = addAdapterUse(totals, { skillsRead: [], toolsCalled: [], used: false });
    totals = addAdapterUse(totals, undefined);
    expect(totals).toEqual({ rollouts: 2, used: 1, skillsRead: { fix: 1 }, toolsCalled: { run_tests: 1 } });
    expect(describeAdapterUse(totals)).toBe("adapter used in 1 of 2 acted rollouts (skill fix 1; tool run_tests 1)");
    expect(describeAdapterUse(emptyAdapterUse())).toBeUndefined();
    expect(describeRolloutUse(undefined)).toBe("no evidence");
    expect(describeRolloutUse({ skillsRead: [], toolsCalled: [], used: false })).toBe("not used");
    expect(describeRolloutUse({ skillsRead: ["fix"], toolsCalled: ["run_tests"], used: true })).toBe("used (skills: fix; tools: run_tests)");
  });
});

describe("a queue worker's result carries the acting evidence", () => {
  const ticket = { run: "r", step: 1, key: "k" };
  const job = {
    id: "k",
    key: { tree: "t", split: "train" as const, instance: "a", instanceHash: "h", task: "fix-tests", trial: 0 },
    instance: { id: "a" },
    adapterDir: "/a",
    evidenceDir: "/e",
    step: 1,
    split: "train" as const,
    timeoutMs: 1000,
    retries: 0,
    seed: 0,
    taskOptions: {},
  };
  const result = (outcome: Record<string, unknown>) => ({
    format: RESULT_FORMAT,
    ticket,
    worker: "w:1",
    outcome: { status: "ok", score: 1, durationMs: 5, attempts: 1, ...outcome },
    evidence: { files: [], dropped: [] },
  });

  it("keeps adapter use and why usage is unknown in the record, and refuses them malformed", () => {
    const use = { skillsRead: [], toolsCalled: ["run_tests"], used: true };
    const good = result({ adapterUse: use, usageUnknown: "codex reported no cost", usage: { inputTokens: 3 } });
    expect(resultProblem(ticket, good)).toBeUndefined();
    expect(recordFromResult(job, good as never)).toMatchObject({ adapterUse: use, usageUnknown: "codex reported no cost", usage: { inputTokens: 3 } });
    expect(resultProblem(ticket, result({ adapterUse: { used: "yes" } }))).toMatch(/adapterUse must be/);
    expect(resultProblem(ticket, result({ usageUnknown: 7 }))).toBe("its usageUnknown is not a string");
  });
});
