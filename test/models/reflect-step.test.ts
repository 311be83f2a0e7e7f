/**
 * One `reflect` step on its own: a copy of the example adapter, rollouts with evidence on disk,
 * and the real AI SDK client against the stub provider. (The whole loop, through the Trainer, is
 * in reflect-train.test.ts.)
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { reflect } from "../../src/evolvers/reflect/reflect.js";
import { createModelClient, learnerModel } from "../../src/models/client.js";
import { resolveModel } from "../../src/models/providers.js";
import type { EvolverContext, RolloutRecord } from "../../src/train/types.js";
import { copyDir, exampleAdapter, exampleTemplate, tempDir } from "../helpers.js";
import { startStubProvider, type Script, type StubProvider } from "./stub-provider.js";

let stub: StubProvider | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function setUp(script: Script) {
  stub = await startStubProvider(script);
  const work = await tempDir();
  const adapter = await copyDir(exampleAdapter);
  const state = join(work, "state");
  await mkdir(state, { recursive: true });
  const rollouts: RolloutRecord[] = [];
  for (const [instance, score, feedback] of [
    ["code-block", 0.4, "Answered 14 words, expected 9 (5 too many). The text has a fenced code block."],
    ["plain", 1, "Correct: 6 words."],
  ] as const) {
    const evidenceDir = join(work, "rollouts", instance);
    await mkdir(evidenceDir, { recursive: true });
    await writeFile(join(evidenceDir, "transcript.json"), JSON.stringify({ answer: 14, procedures: [] }));
    rollouts.push({ tree: "t", split: "train", instance, instanceHash: "h", task: "wordcount", trial: 0, status: "ok", attempts: 1, score, feedback, durationMs: 1, evidenceDir, ranAt: 1 });
  }
  const model = learnerModel(createModelClient({ model: resolveModel("anthropic:claude-haiku-4-5", { baseUrl: stub.url, env: { ANTHROPIC_API_KEY: "sk-ant-test-0000000000" } }), retries: 0 }));
  const context = {
    run: "r",
    step: 1,
    workspace: { adapter, state },
    root: exampleTemplate,
    rolloutAdapter: exampleAdapter,
    learningMaterial: { run: "r", step: 1, task: "wordcount", accepted: { commit: "c0", tree: "t0", score: null }, rollouts, trainInstances: 8, batchScore: 0.7, repairs: [], history: [], file: join(work, "learning.json") },
    signal: new AbortController().signal,
    seed: 0,
    options: {},
    log: () => undefined,
    model,
  } as unknown as EvolverContext;
  return { context, adapter, state };
}

const NEW = "# Word counting\n\nUse `count_words`.\n\n```procedure\ndrop fenced-code-blocks\n```\n";

describe("one reflect step", () => {
  it("adopts the fenced text, after showing the model the failure's feedback and evidence", async () => {
    const { context, adapter, state } = await setUp([{ text: `Here it is.\n\n\`\`\`\`markdown\n${NEW}\`\`\`\`\n` }]);
    const result = await reflect.step(context);
    expect(result).toMatchObject({ status: "done", summary: expect.stringMatching(/^rewrote ADAPTER\.md \(next in turn; 1 failing rollout\(s\) shown\)$/) });
    expect(await readFile(join(adapter, "ADAPTER.md"), "utf8")).toBe(NEW);
    const sent = JSON.stringify(stub!.requests[0]!.body);
    expect(sent).toContain("expected 9 (5 too many). The text has a fenced code block.");
    expect(sent).toContain("transcript.json");
    expect(sent).toContain("Prefer one small, testable change per step.");
    const memory = JSON.parse(await readFile(join(state, "reflect.json"), "utf8"));
    expect(memory.programs.map((program: { id: string }) => program.id)).toEqual(["base", "step-1"]);
  });

  it("a truncated answer is not adopted; the reason is kept for the next step's prompt", async () => {
    const { context, adapter, state } = await setUp([{ text: "````markdown\n# Word counting\n\nUse", finish: "length" }]);
    const result = await reflect.step(context);
    expect(result).toMatchObject({ status: "failed", summary: expect.stringMatching(/not adopted: truncated/) });
    expect(await readFile(join(adapter, "ADAPTER.md"), "utf8")).toBe(await readFile(join(exampleAdapter, "ADAPTER.md"), "utf8"));
    expect(JSON.parse(await readFile(join(state, "reflect.json"), "utf8")).lastFailure).toMatchObject({ step: 1, component: "ADAPTER.md", reason: expect.stringMatching(/^truncated/) });
  });

  it("a provider failure fails the step with the provider's status", async () => {
    const { context } = await setUp([{ status: 500 }]);
    expect(await reflect.step(context)).toMatchObject({ status: "failed", summary: expect.stringMatching(/the learner model failed: .*HTTP 500/) });
  });
});
