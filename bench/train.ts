/**
 * The Trainer's own overhead per step, with instant rollouts and the no-op Evolver (accept
 * always, so every step commits, moves the branch, tags a checkpoint and refreshes the
 * checkout), next to committing the same tree with the `git` CLI (`git add -A` + `git commit`)
 * measured in the same run; then the wall time and peak memory of a 200-step run.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { train } from "../src/builtins.js";
import { defineTask } from "../src/plugin.js";
import { table } from "./lib.js";

const exec = promisify(execFile);
const steps = Number(process.env.BENCH_TRAIN_STEPS ?? 30);
const longSteps = Number(process.env.BENCH_TRAIN_LONG_STEPS ?? 200);
const scratch = await mkdtemp(join(tmpdir(), "hermit-bench-train-"));

/** An adapter with a context, 10 skills and a fixed README, that is its own template. */
async function makeAdapter(dir: string): Promise<string> {
  const files: Record<string, string> = {
    "adapter.yaml": [
      "contract: 1.0.0",
      "name: bench",
      "version: 0.1.0",
      "description: Trainer benchmark adapter.",
      "template: { name: bench, version: 1 }",
      "exports: { context: ADAPTER.md, skills: skills }",
      "structure:",
      "  fixed: [README.md]",
      "  learnable:",
      "    - { path: ADAPTER.md, format: markdown, max_bytes: 16384 }",
      '    - { path: "skills/*/SKILL.md", format: skill, max_files: 16, max_bytes: 16384 }',
      "",
    ].join("\n"),
    "ADAPTER.md": "# Bench\n\nAnswer briefly.\n",
    "README.md": "Fixed.\n",
  };
  for (let i = 0; i < 10; i++) files[`skills/skill-${i}/SKILL.md`] = `---\nname: skill-${i}\ndescription: Skill ${i}.\n---\nDo thing ${i}.\n`;
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

const instant = defineTask({
  name: "instant",
  instances: (split) => [1, 2, 3, 4].map((n) => ({ id: `${split}-${n}` })),
  rollout: () => ({ score: 1 }),
});

async function run(stepCount: number, name: string) {
  const adapter = await makeAdapter(join(scratch, `${name}-adapter`));
  const start = performance.now();
  const result = await train({ adapter, template: adapter, task: instant, evolver: "noop", steps: stepCount, accept: "always", runsDir: join(scratch, "runs"), runId: name });
  const total = performance.now() - start;
  const records = await Promise.all(
    result.steps.map(async (step) => JSON.parse(await readFile(join(result.runDir, "steps", String(step.step), "step.json"), "utf8")) as { durationMs: number }),
  );
  return { total, stepMs: records.map((record) => record.durationMs) };
}

/** Committing the same tree with the git CLI, per commit (median over `count`). */
async function gitCliCommit(count: number): Promise<number> {
  const repo = await makeAdapter(join(scratch, "git-cli"));
  const git = (...args: string[]) => exec("git", ["-c", "user.name=bench", "-c", "user.email=bench@localhost", ...args], { cwd: repo });
  await git("init", "-q");
  const times: number[] = [];
  for (let i = 0; i <= count; i++) {
    await writeFile(join(repo, "ADAPTER.md"), `# Bench\n\nAnswer briefly.\n${i}\n`);
    const start = performance.now();
    await git("add", "-A");
    await git("commit", "-q", "-m", `step ${i}`);
    if (i > 0) times.push(performance.now() - start);
  }
  return median(times);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

// Warm the module graph. A step's full cost (pointer moves and checkout refresh included) is
// the difference between a run of N steps and a run of 0 steps (same setup and final phase).
await run(2, "warmup");
const empty = await run(0, "zero");
const trainer = await run(steps, "overhead");
const perStep = (trainer.total - empty.total) / steps;
const cli = await gitCliCommit(steps);

table(`Trainer overhead per step (${steps} steps, noop Evolver, instant rollouts, accept=always)`, [
  { measure: "Trainer step, all included (ms)", value: perStep },
  { measure: "  of which inside the step record, up to the commit point (median ms)", value: median(trainer.stepMs) },
  { measure: "git CLI add + commit of the same tree (median ms)", value: cli },
  { measure: "ratio (Trainer step / git CLI commit)", value: perStep / cli },
]);

let peak = process.memoryUsage().rss;
const before = peak;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
const long = await run(longSteps, "long");
clearInterval(sampler);
table(`A ${longSteps}-step run`, [
  { measure: "wall time (s)", value: long.total / 1000 },
  { measure: "per step, all included (ms)", value: (long.total - empty.total) / longSteps },
  { measure: "first 20 steps, mean up to the commit point (ms)", value: long.stepMs.slice(0, 20).reduce((a, b) => a + b, 0) / 20 },
  { measure: "last 20 steps, mean up to the commit point (ms)", value: long.stepMs.slice(-20).reduce((a, b) => a + b, 0) / 20 },
  { measure: "RSS before (MB)", value: before / 2 ** 20 },
  { measure: "peak RSS during the run (MB)", value: peak / 2 ** 20 },
]);
