/** The built-in `select` Evolver: the pool, ranking by failure feedback, memory of tried moves, and a real search. */
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { addFragment, isIncluded, readPlacement, readPool, removeFragment } from "../../src/evolvers/pool.js";
import { commonWords, failures, rankFragments } from "../../src/evolvers/relevance.js";
import { chooseMove, select, type SelectState } from "../../src/evolvers/select.js";
import { train } from "../../src/builtins.js";
import { defineTask } from "../../src/plugin.js";
import { copyDir, exampleAdapter, repoRoot, testdir } from "../helpers.js";
import { setup, lsTree, fsck } from "./helpers.js";
import type { RolloutRecord } from "../../src/train/types.js";

const examplePool = join(repoRoot, "examples", "pool");

const rollout = (score: number | null, feedback: string): RolloutRecord => ({
  tree: "t",
  split: "train",
  instance: feedback.slice(0, 8),
  instanceHash: "h",
  task: "t",
  trial: 0,
  status: score === null ? "error" : "ok",
  attempts: 1,
  score,
  feedback,
  durationMs: 1,
  evidenceDir: "/x",
  ranAt: 1,
});

describe("select: the pool", () => {
  it("reads skills and sections with their descriptions", async () => {
    const pool = await readPool(examplePool);
    expect(pool.map((fragment) => fragment.id)).toEqual([
      "sections/em-dashes",
      "sections/html-comments",
      "sections/skip-short-words",
      "skills/ignore-markdown-markers",
      "skills/skip-code-blocks",
      "skills/skip-numbers",
      "skills/skip-urls",
      "skills/split-hyphenated-words",
    ]);
    expect(pool.find((fragment) => fragment.id === "skills/skip-numbers")?.description).toBe("Whether figures and amounts count as words of a text.");
  });

  it("adds and removes a section and a skill, leaving the adapter as it was", async () => {
    const adapter = await copyDir(exampleAdapter);
    const original = await readFile(join(adapter, "ADAPTER.md"), "utf8");
    const pool = await readPool(examplePool);
    const where = await readPlacement(adapter);
    const section = pool.find((fragment) => fragment.id === "sections/html-comments")!;
    const skill = pool.find((fragment) => fragment.id === "skills/skip-code-blocks")!;
    await addFragment(adapter, section, where);
    await addFragment(adapter, skill, where);
    const context = await readFile(join(adapter, "ADAPTER.md"), "utf8");
    expect(context).toContain("<!-- pool:html-comments -->\n## Hidden notes");
    expect(context).toContain("leave them out of the count.\n<!-- /pool:html-comments -->\n");
    expect(await isIncluded(adapter, section, where)).toBe(true);
    expect(await readdir(join(adapter, "skills"))).toEqual(["skip-code-blocks", "verify-output"]);
    await removeFragment(adapter, section, where);
    await removeFragment(adapter, skill, where);
    expect(await readFile(join(adapter, "ADAPTER.md"), "utf8")).toBe(original);
    expect(await readdir(join(adapter, "skills"))).toEqual(["verify-output"]);
  });
});

describe("select: choosing a move", () => {
  it("ranks fragments by how well they match the failing rollouts' feedback", async () => {
    const pool = await readPool(examplePool);
    const found = failures([
      rollout(0.4, "Answered 31 words, expected 23 (8 too many). The text has a fenced code block."),
      rollout(0.45, "Answered 22 words, expected 14 (8 too many). The text has a fenced code block, numbers."),
      rollout(1, "Correct: 28 words. The text has URLs."),
    ]);
    expect(found).toHaveLength(2);
    const batch = [
      rollout(0.4, "Answered 31 words, expected 23 (8 too many). The text has a fenced code block."),
      rollout(0.45, "Answered 22 words, expected 14 (8 too many). The text has a fenced code block, numbers."),
      rollout(1, "Correct: 28 words. The text has URLs."),
    ];
    const ranked = rankFragments(pool, found, commonWords(batch)).sort((a, b) => b.score - a.score);
    expect(ranked[0].fragment.id).toBe("skills/skip-code-blocks");
    expect(ranked[0].matched).toEqual(["block", "code"]);
    expect(ranked.find((r) => r.fragment.id === "skills/skip-numbers")).toMatchObject({ matched: ["number"], failures: 1 });
    // URLs appear only in a correct answer's feedback: no evidence for skip-urls.
    expect(ranked.find((r) => r.fragment.id === "skills/skip-urls")!.score).toBe(0);
  });

  it("leaves out words every rollout's feedback shares: they tell no failure apart", () => {
    const batch = [
      rollout(0.4, "Answered 31 words, expected 23 (8 too many). The text has a fenced code block."),
      rollout(0.5, "Answered 14 words, expected 12 (2 too many). The text has numbers."),
      rollout(1, "Correct: 12 words. The text has numbers."),
    ];
    expect([...commonWords(batch)].sort()).toEqual(["text", "word"]);
    const fragments = [
      { id: "sections/a", kind: "section" as const, name: "a", description: "About a text and its numbers.", source: "/a" },
      { id: "sections/b", kind: "section" as const, name: "b", description: "Fenced code inside prose.", source: "/b" },
      { id: "sections/c", kind: "section" as const, name: "c", description: "Something else entirely.", source: "/c" },
    ];
    const withNoise = rankFragments(fragments, failures(batch));
    expect(withNoise.find((r) => r.fragment.id === "sections/a")!.matched).toEqual(["number", "text"]);
    const clean = rankFragments(fragments, failures(batch), commonWords(batch));
    expect(clean.find((r) => r.fragment.id === "sections/a")!.matched).toEqual(["number"]);
    expect(clean.find((r) => r.fragment.id === "sections/b")!.matched).toEqual(["code", "fenced"]);
  });

  it("retries only additions validation turned down, and counts a move whose step never evaluated it as untried", async () => {
    const pool = await readPool(examplePool);
    const where = { context: "ADAPTER.md", skills: "skills", agents: "agents" };
    const ranked = rankFragments(pool, failures([rollout(0.2, "The text has a fenced code block, numbers, HTML comment.")]));
    const base = ["skills/skip-numbers"];
    const state: SelectState = {
      version: 1,
      invalid: {},
      moves: [
        { step: 1, op: "add", fragment: "skills/skip-code-blocks", base: [], outcome: "rejected", relevance: 1 },
        { step: 2, op: "add", fragment: "sections/html-comments", base: [], outcome: "failed", relevance: 1 },
        { step: 3, op: "add", fragment: "skills/skip-numbers", base: [], outcome: "accepted", relevance: 1 },
      ],
    };
    // html-comments' step failed before evaluating it: it is still untried, and comes first.
    expect(chooseMove(pool, where, state, base, ranked, 0, 4)).toMatchObject({ op: "add", fragment: { id: "sections/html-comments" } });
    // With every other move used up, only the rejected addition is retried (from this new base); an accepted one never is.
    const exhausted: SelectState = { ...state, moves: [...state.moves] };
    for (const fragment of pool) {
      if (fragment.id === "skills/skip-code-blocks" || fragment.id === "skills/skip-numbers") continue;
      exhausted.moves.push({ step: 5, op: "add", fragment: fragment.id, base, outcome: "accepted", relevance: 0 });
    }
    exhausted.moves.push({ step: 6, op: "remove", fragment: "skills/skip-numbers", base, outcome: "rejected", relevance: 0 });
    const retry = chooseMove(pool, where, exhausted, base, ranked, 0, 7)!;
    expect(retry).toMatchObject({ op: "add", fragment: { id: "skills/skip-code-blocks" } });
    exhausted.moves.push({ step: 7, op: "add", fragment: "skills/skip-code-blocks", base, outcome: "rejected", relevance: 1 });
    expect(chooseMove(pool, where, exhausted, base, ranked, 0, 8)).toBeUndefined();
  });

  it("never repeats a move from the same starting point, and retries a rejected one only after the base changed", async () => {
    const pool = await readPool(examplePool);
    const where = { context: "ADAPTER.md", skills: "skills", agents: "agents" };
    const batch = [rollout(0.2, "The text has a fenced code block and numbers."), rollout(1, "Correct: 5 words. The text has nothing else.")];
    const ranked = rankFragments(pool, failures(batch), commonWords(batch));
    const state: SelectState = { version: 1, moves: [], invalid: {} };
    const first = chooseMove(pool, where, state, [], ranked, 0, 1)!;
    expect(first).toMatchObject({ op: "add", fragment: { id: "skills/skip-code-blocks" } });
    state.moves.push({ step: 1, op: "add", fragment: first.fragment.id, base: [], outcome: "rejected", relevance: 1 });
    const second = chooseMove(pool, where, state, [], ranked, 0, 2)!;
    expect(second.fragment.id).toBe("skills/skip-numbers");
    // After skip-numbers was accepted, the untried fragments come before a retry of skip-code-blocks.
    state.moves.push({ step: 2, op: "add", fragment: second.fragment.id, base: [], outcome: "accepted", relevance: 1 });
    const base = ["skills/skip-numbers"];
    const order: string[] = [];
    for (let step = 3; step < 20; step++) {
      const move = chooseMove(pool, where, state, base, ranked, 0, step);
      if (!move) break;
      order.push(`${move.op}:${move.fragment.id}`);
      state.moves.push({ step, op: move.op, fragment: move.fragment.id, base, outcome: "rejected", relevance: move.relevance.score });
    }
    expect(order.slice(0, 6).every((entry) => entry.startsWith("add:") && entry !== "add:skills/skip-code-blocks")).toBe(true);
    expect(order).toContain("remove:skills/skip-numbers");
    expect(order[order.length - 1]).toBe("add:skills/skip-code-blocks");
    expect(new Set(order).size).toBe(order.length);
    // Invalid fragments are never chosen.
    const fresh: SelectState = { version: 1, moves: [], invalid: { "skills/skip-code-blocks": "broke the spec" } };
    expect(chooseMove(pool, where, fresh, [], ranked, 0, 1)!.fragment.id).not.toBe("skills/skip-code-blocks");
  });
});

describe("select: a search in a run", () => {
  it("tries, rejects and remembers a harmful fragment, learns from a repair, keeps the helpful ones, and stops", async () => {
    const pool = await testdir({
      "skills/fix-alpha/SKILL.md": "---\nname: fix-alpha\ndescription: Repairs alpha mistakes in long texts with care and patience.\n---\nBody.\n",
      "skills/fix-bravo/SKILL.md": "---\nname: fix-bravo\ndescription: Repairs bravo mistakes.\n---\nBody.\n",
      "skills/loud-alpha/SKILL.md": "---\nname: loud-alpha\ndescription: Alpha mistakes, loudly.\n---\nBody.\n",
      "skills/misnamed/SKILL.md": "---\nname: other-name\ndescription: Bravo.\n---\nBody.\n",
    });
    const { adapter, runsDir, template } = await setup();
    // The task checks which skills the version under test has, standing in for an acting agent.
    const task = defineTask({
      name: "skills-present",
      instances: (split: string) => (split === "test" ? [{ id: "x" }] : [{ id: `${split}-alpha` }, { id: `${split}-bravo` }]),
      async rollout(instance: { id: string }, context: { adapter: string }) {
        const skills = await readdir(join(context.adapter, "skills")).catch(() => [] as string[]);
        const penalty = skills.includes("loud-alpha") ? 0.4 : 0;
        if (instance.id.endsWith("alpha")) return skills.includes("fix-alpha") ? { score: 1 - penalty, feedback: "right" } : { score: 0.2, feedback: "alpha mistakes left" };
        if (instance.id.endsWith("bravo")) return skills.includes("fix-bravo") ? { score: 1 - penalty, feedback: "right" } : { score: 0.3, feedback: "bravo mistakes left" };
        return { score: skills.length / 2 };
      },
    });
    const result = await train({ adapter, template, task, evolver: "select", pool, steps: 10, runsDir, runId: "search" });
    const summaries = await Promise.all(result.steps.map(async (step) => JSON.parse(await readFile(join(result.runDir, "steps", String(step.step), "step.json"), "utf8"))));
    const lines = summaries.map((record) => `${record.status}: ${record.summary}`);
    expect(lines).toEqual([
      "rejected: added skill misnamed (matches 'bravo' in 1 of 2 failing rollout(s)) (difference 0 is not more than margin 0) [repaired: 1 issue (skills/misnamed/SKILL.md: skill name 'other-name' differs from its folder name 'misnamed'): delete skills/misnamed/SKILL.md]",
      "accepted: added skill fix-bravo (matches 'bravo' in 1 of 2 failing rollout(s))",
      "rejected: added skill loud-alpha (matches 'alpha' in 1 of 1 failing rollout(s)) (difference -0.2 is not more than margin 0)",
      "accepted: added skill fix-alpha (matches 'alpha' in 1 of 1 failing rollout(s))",
      "stopped: every rollout of the batch got the best score; nothing left to fix",
    ]);
    // The misnamed skill broke the specification: the Trainer repaired it away, and the learner saw that.
    expect(summaries[0].repair.actions).toEqual([{ op: "delete", path: "skills/misnamed/SKILL.md" }]);
    expect(lines.find((line) => line.includes("misnamed"))).toMatch(/^rejected: added skill misnamed/);
    expect(lines.find((line) => line.includes("loud-alpha"))).toMatch(/^rejected: added skill loud-alpha/);
    expect(lines.filter((line) => /^accepted: added skill fix-(alpha|bravo)/.test(line))).toHaveLength(2);
    expect(result.status).toBe("stopped");
    expect(lines[lines.length - 1]).toMatch(/^stopped: every rollout of the batch got the best score/);
    // Every move was chosen for a reason found in the failures, and tried once.
    expect(lines.slice(0, -1).every((line) => /\(matches '(alpha|bravo)'/.test(line))).toBe(true);
    expect(new Set(lines.map((line) => line.replace(/ \(.*$/, ""))).size).toBe(lines.length);
    const state = JSON.parse(await readFile(join(result.runDir, "workspace", "state", "select.json"), "utf8")) as SelectState;
    expect(Object.keys(state.invalid)).toEqual(["skills/misnamed"]);
    expect(state.moves.map((move) => move.outcome)).toEqual(summaries.slice(0, -1).map((record) => record.status));
    const store = join(runsDir, "versions.git");
    expect(lsTree(store, result.acceptedCommit).filter((path) => path.startsWith("skills/"))).toEqual(["skills/fix-alpha/SKILL.md", "skills/fix-bravo/SKILL.md"]);
    expect(result.test).toMatchObject({ base: { score: 0 }, final: { score: 1 } });
    expect(fsck(store).status).toBe(0);
  });
});

describe("select: a batch without failures", () => {
  it("skips a step whose sampled batch had no failure, and stops only when the whole train split passed", async () => {
    const adapter = await copyDir(exampleAdapter);
    const state = await testdir({});
    const step = (trainInstances: number) =>
      select.step({
        run: "r",
        step: 1,
        workspace: { adapter, state },
        root: adapter,
        rolloutAdapter: adapter,
        learningMaterial: {
          run: "r",
          step: 1,
          task: "t",
          accepted: { commit: "c", tree: "t", score: 0.4 },
          rollouts: [rollout(1, "Alpha ok: 12 words."), rollout(1, "Bravo ok: 30 words.")],
          trainInstances,
          batchScore: 1,
          repairs: [],
          history: [],
          file: "/x",
        },
        signal: new AbortController().signal,
        seed: 0,
        options: { pool: examplePool },
        log: () => undefined,
      });
    expect(await step(8)).toEqual({ status: "skipped", summary: "no failure in this batch (a sample of 2 of 8 train instances); nothing to learn from it" });
    expect(await step(2)).toMatchObject({ status: "stop", summary: "every rollout of the batch got the best score; nothing left to fix" });
  });
});
