// The child of bench/learner.ts (plain ESM: the AI SDK does not load through jiti): times
// `reflect` and `noop` steps, interleaved, against the stub model at STUB_URL; prints JSON.
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const root = join(import.meta.dirname, "..");
const { noop } = await import("../dist/evolvers/noop.js");
const { reflect } = await import("../dist/evolvers/reflect/reflect.js");
const { createModelClient, learnerModel } = await import("../dist/models/client.js");
const { resolveModel } = await import("../dist/models/providers.js");
const exampleAdapter = join(root, "examples", "file_adapter");
const template = join(root, "templates", "file_adapter");
const scratch = await mkdtemp(join(tmpdir(), "hermit-bench-learner-"));
const pairs = Number(process.env.BENCH_PAIRS ?? 9);

try {
  const rollouts = [];
  for (let i = 0; i < 8; i++) {
    const evidenceDir = join(scratch, "evidence", `instance-${i}`);
    await mkdir(evidenceDir, { recursive: true });
    await writeFile(join(evidenceDir, "transcript.json"), JSON.stringify({ question: "word ".repeat(200), answer: 14, instructions: [] }, null, 2));
    rollouts.push({ tree: "t", split: "train", instance: `instance-${i}`, instanceHash: "h", task: "wordcount", trial: 0, status: "ok", attempts: 1, score: i % 2 === 0 ? 0.4 : 1, feedback: i % 2 === 0 ? "Answered 14 words, expected 9 (5 too many). The text has a fenced code block." : "Correct: 9 words.", durationMs: 1, evidenceDir, ranAt: 1 });
  }
  const calls = [];
  const recorder = async (record) => {
    calls.push(record.latencyMs);
    await writeFile(join(scratch, `call-${calls.length}.json`), JSON.stringify(record));
    return { index: calls.length, ...record };
  };
  const model = resolveModel("openai:gpt-5-mini", { baseUrl: `${process.env.STUB_URL}/v1`, env: { OPENAI_API_KEY: "sk-bench-0000000000" } });
  const learner = learnerModel(createModelClient({ model, retries: 0, recorder }));
  const adapter = join(scratch, "candidate");
  const state = join(scratch, "state");
  const context = {
    run: "bench",
    step: 1,
    workspace: { adapter, state },
    root: template,
    rolloutAdapter: exampleAdapter,
    learningMaterial: { run: "bench", step: 1, task: "wordcount", accepted: { commit: "c0", tree: "t0", score: null }, rollouts, trainInstances: 8, batchScore: 0.7, repairs: [], history: [], file: join(scratch, "learning.json") },
    signal: new AbortController().signal,
    seed: 0,
    options: { component: "round-robin" },
    log: () => undefined,
    model: learner,
  };
  // The Trainer gives each step a fresh copy of the accepted version and the Evolver's state.
  const timed = async (evolver) => {
    await rm(adapter, { recursive: true, force: true });
    await rm(state, { recursive: true, force: true });
    await cp(exampleAdapter, adapter, { recursive: true });
    await mkdir(state, { recursive: true });
    const started = performance.now();
    const result = await evolver.step(context);
    const ms = performance.now() - started;
    if (evolver === reflect && result.status !== "done") throw new Error(`reflect step: ${result.status}: ${result.summary}`);
    return ms;
  };
  await timed(reflect);
  await timed(noop);
  calls.length = 0;
  const samples = { reflect: [], noop: [] };
  for (let pair = 0; pair < pairs; pair++) {
    samples.reflect.push(await timed(reflect));
    samples.noop.push(await timed(noop));
  }
  process.stdout.write(JSON.stringify({ ...samples, calls }));
} finally {
  await rm(scratch, { recursive: true, force: true });
}
