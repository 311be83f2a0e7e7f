/**
 * The Trainer's step against committing the same change with the `git` CLI, and a 200-step
 * run's memory.
 *
 * 1. `trainer-step`: one whole step of a real run — export the accepted version, the acting
 *    batch, the Evolver's edit (a new line in ADAPTER.md, so the candidate changes every step,
 *    plus a stray file the template does not declare, so check, repair and the re-check run),
 *    validation of the new candidate (new rollouts: the tree is new), the decision, the commit,
 *    the pointer moves — paired and interleaved with `git add -A` + `git commit` of the same
 *    line in a plain repository. The run is held between steps by an observer the Trainer
 *    awaits after each committed step: releasing it times exactly one step. The Trainer alone
 *    (no report observer) is the goal's subject; the same step with the run report refreshed
 *    after it (what `hermit train` does) is a row for context.
 * 2. `run-memory`: a 200-step run as `hermit train` runs it (report included); after each
 *    step, a full GC and the heap in use. Flat means the heap after GC grows by less than
 *    FLAT_KB per step (a least-squares slope over the steps after the first 20): a step's own
 *    records (its step record in the run's state, the report's memo of its diff) are a few KB.
 */
import { execFile } from "node:child_process";
import { appendFile, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { builtinPlugins, train } from "../src/builtins.js";
import { defineEvolver, defineTask } from "../src/plugin.js";
import { train as trainerAlone, type TrainOptions } from "../src/train/loop/trainer.js";
import { compare, observe } from "./lib.js";

const exec = promisify(execFile);
const pairs = Number(process.env.BENCH_PAIRS ?? 9);
const longSteps = Number(process.env.BENCH_TRAIN_LONG_STEPS ?? 200);
const FLAT_KB = 16;
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

/** Step n adds "Rule n." (a new candidate every step) and, when `stray`, a file repair removes. */
const ruleEvolver = (stray: boolean) =>
  defineEvolver({
    name: "rules",
    async step(context) {
      await appendFile(join(context.workspace.adapter, "ADAPTER.md"), `\nRule ${context.step}.\n`);
      if (stray) await writeFile(join(context.workspace.adapter, "notes.txt"), `scratch ${context.step}\n`);
      return { status: "done", summary: `added rule ${context.step}` };
    },
  });

/**
 * A run held after every committed step: `next()` lets one more step run and resolves when it
 * has committed; `done` is the run's end.
 */
async function heldRun(name: string, steps: number, run: (options: TrainOptions) => Promise<unknown>) {
  const adapter = await makeAdapter(join(scratch, `${name}-adapter`));
  let committed: (() => void) | undefined;
  let release: (() => void) | undefined;
  const waitCommit = () => new Promise<void>((resolve) => (committed = resolve));
  let first: Promise<void> | undefined = waitCommit();
  const done = run({
    adapter, template: adapter, task: instant, evolver: ruleEvolver(true), steps, accept: "always", runsDir: join(scratch, `${name}-runs`), runId: name,
    observers: {
      stepCommitted: async () => {
        const gate = new Promise<void>((resolve) => (release = resolve));
        committed?.();
        await gate;
      },
    },
  });
  await first;
  first = undefined;
  return {
    async next() {
      const step = waitCommit();
      release!();
      await step;
    },
    async finish() {
      release!();
      await done;
    },
  };
}

/** `git add -A` + `git commit` of one new line, in a plain repository of the same files. */
async function gitRepo() {
  const repo = await makeAdapter(join(scratch, "git-cli"));
  const git = (...args: string[]) => exec("git", ["-c", "user.name=bench", "-c", "user.email=bench@localhost", ...args], { cwd: repo });
  await git("init", "-q");
  await git("add", "-A");
  await git("commit", "-q", "-m", "base");
  let n = 0;
  return async () => {
    n += 1;
    await appendFile(join(repo, "ADAPTER.md"), `\nRule ${n}.\n`);
    await git("add", "-A");
    await git("commit", "-q", "-m", `step ${n}`);
  };
}

const gitCommit = { label: "git add -A + git commit (same line)", run: await gitRepo() };
// Steps: the first (untimed, reaches the hold), compare's warm-up, the pairs, and one to finish.
const stepsNeeded = pairs + 2;

const alone = await heldRun("alone", stepsNeeded, (options) => trainerAlone(options, builtinPlugins));
await compare("trainer-step", { label: "Trainer step (check, repair, validation)", run: alone.next }, gitCommit, { pairs });
await alone.finish();

const reported = await heldRun("reported", stepsNeeded, train);
await compare("trainer-step-report", { label: "Trainer step + report refresh", run: reported.next }, gitCommit, { pairs });
await reported.finish();

// The memory of a long run, as `hermit train` runs it.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const heap: number[] = [];
let peak = process.memoryUsage().rss;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
const longAdapter = await makeAdapter(join(scratch, "long-adapter"));
const started = performance.now();
await train({
  adapter: longAdapter, template: longAdapter, task: instant, evolver: ruleEvolver(false), steps: longSteps, accept: "always", runsDir: join(scratch, "long-runs"), runId: "long",
  observers: {
    stepCommitted: () => {
      gc();
      heap.push(process.memoryUsage().heapUsed);
    },
  },
});
clearInterval(sampler);
const wall = (performance.now() - started) / 1000;
const tail = heap.slice(Math.min(20, Math.floor(heap.length / 2)));
const slopeKb = slope(tail) / 1024;
observe(
  "run-memory",
  `heap after GC ${(heap[0]! / 2 ** 20).toFixed(1)} MB after step 1, ${(heap[heap.length - 1]! / 2 ** 20).toFixed(1)} MB after step ${heap.length}; ` +
    `${slopeKb.toFixed(1)} KB per step (goal: < ${FLAT_KB} KB); peak RSS ${(peak / 2 ** 20).toFixed(0)} MB; ${wall.toFixed(1)} s`,
  slopeKb < FLAT_KB,
);

/** Least-squares slope of values over their index. */
function slope(values: number[]): number {
  const n = values.length;
  const meanX = (n - 1) / 2;
  const meanY = values.reduce((sum, value) => sum + value, 0) / n;
  let num = 0;
  let den = 0;
  values.forEach((value, x) => {
    num += (x - meanX) * (value - meanY);
    den += (x - meanX) ** 2;
  });
  return den === 0 ? 0 : num / den;
}
