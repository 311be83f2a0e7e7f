/**
 * Real training runs for the report tests, each made by the real Trainer: a run whose steps
 * end every way a step can (accepted, rejected, repaired, failed, unmeasured, a crashing
 * rollout), a run killed with SIGKILL mid-step, a long run with sampled batches, and the
 * README's demo run.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { train } from "../../src/builtins.js";
import { defineEvolver, defineTask } from "../../src/plugin.js";
import type { EvolverContext } from "../../src/train/types.js";
import { repoRoot, tempDir } from "../helpers.js";
import { appendTo, lightAdapter, setup } from "../train/helpers.js";
import { rulesRun } from "./fixtures/rules.js";

export const cli = join(repoRoot, "dist", "cli.js");
const trainFixtures = join(repoRoot, "test", "train", "fixtures");

export interface MadeRun {
  runsDir: string;
  runId: string;
  dir: string;
}

export const HOSTILE_SUMMARY = `<img src="https://example.invalid/x.png" onerror="window.pwned = 1">`;
export const HOSTILE_FILE_LINE = `</script><script>window.pwned = 2</script>`;

const countChecks = (text: string) => (text.match(/^Check the result\.$/gm) ?? []).length;

/**
 * Six steps, one of each kind: 1 accepted (adds the known line "Check the result."), 2 rejected
 * (no better), 3 repaired then accepted (an undeclared file removed), 4 failed (the Evolver
 * throws), 5 unmeasured (every candidate rollout returns no score), 6 rejected with instance
 * v2's rollout crashing.
 */
export async function mixedRun(): Promise<MadeRun> {
  const { adapter, runsDir } = await setup("light");
  const task = defineTask({
    name: "mixed",
    instances: (split) => ({ train: ["t1", "t2"], val: ["v1", "v2", "v3"], test: ["x1", "x2"] })[split].map((id) => ({ id })),
    async rollout(instance, context) {
      const text = await readFile(join(context.adapter, "ADAPTER.md"), "utf8");
      if (text.includes("Crash v2.") && instance.id === "v2") throw new Error("the agent crashed on v2");
      if (text.includes("Unmeasurable.")) return { score: null, feedback: "could not be measured" };
      const score = Math.min(1, countChecks(text) / 2);
      return { score, feedback: `found ${countChecks(text)} checks`, usage: { inputTokens: 100, outputTokens: 10 } };
    },
  });
  const edits: Array<(context: EvolverContext) => Promise<{ status: "done"; summary: string }>> = [
    async (context) => (await appendTo(context, "ADAPTER.md", "\nCheck the result.\n"), { status: "done", summary: "added a check" }),
    // Hostile text in a summary and in a file: the page must show it as text, never run or fetch it.
    async (context) => (
      await appendTo(context, "ADAPTER.md", `\nBe brief. ${HOSTILE_FILE_LINE}\n`), { status: "done", summary: `added noise ${HOSTILE_SUMMARY}` }
    ),
    async (context) => {
      await writeFile(join(context.workspace.adapter, "notes.txt"), "scratch notes the template does not declare\n");
      await appendTo(context, "ADAPTER.md", "\nCheck the result.\n");
      return { status: "done", summary: "added a second check and a stray file" };
    },
    async () => {
      throw new Error("the learner model was unreachable");
    },
    async (context) => (await appendTo(context, "ADAPTER.md", "\nUnmeasurable.\n"), { status: "done", summary: "made it unmeasurable" }),
    async (context) => (await appendTo(context, "ADAPTER.md", "\nCrash v2.\n"), { status: "done", summary: "made v2 crash" }),
  ];
  const evolver = defineEvolver({ name: "mixed-evolver", step: (context) => edits[context.step - 1](context) });
  await train({ adapter, template: lightAdapter, task, evolver, steps: edits.length, runsDir, runId: "mixed", concurrency: 2 });
  return { runsDir, runId: "mixed", dir: join(runsDir, "mixed") };
}

/** A run of `steps` steps of the rules scenario (see `fixtures/rules.ts`). */
export async function longRun(steps: number): Promise<MadeRun> {
  const { adapter, runsDir } = await setup("light");
  const settings = rulesRun(steps);
  await train({ ...settings, adapter, runsDir });
  return { runsDir, runId: settings.runId, dir: join(runsDir, settings.runId) };
}

/**
 * A run killed with SIGKILL during step 3's validation of the candidate, on instance v2: steps 1
 * and 2 are committed, step 3 left finished rollouts and no commit.
 */
export async function interruptedRun(): Promise<MadeRun> {
  const dir = await tempDir("hermit-report-crash-");
  const runsDir = join(dir, "runs");
  const marker = join(dir, "marker");
  const args = [
    cli, "train", "--adapter", lightAdapter, "--template", lightAdapter,
    "--task", join(trainFixtures, "crash-task.ts"), "--evolver", join(trainFixtures, "crash-evolver.ts"),
    "--steps", "5", "--concurrency", "1", "--runs-dir", runsDir, "--run-id", "crashed",
  ];
  const child = spawn(process.execPath, args, { env: { ...process.env, HERMIT_TEST_MARKER: marker, HERMIT_TEST_BLOCK: "val:3:v2" }, stdio: "ignore" });
  const deadline = Date.now() + 120_000;
  while (!existsSync(marker)) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill("SIGKILL");
      throw new Error(`the training child never reached step 3's validation (exit ${child.exitCode})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  await new Promise((resolve) => child.once("exit", resolve));
  return { runsDir, runId: "crashed", dir: join(runsDir, "crashed") };
}

/** The README's first command, with its runs and its deploy redirected into a temp dir. */
export async function demoRun(): Promise<MadeRun> {
  const dir = await tempDir("hermit-report-demo-");
  const runsDir = join(dir, "runs");
  const result = spawnSync(
    process.execPath,
    [cli, "train", "--config", join(repoRoot, "examples", "train.yaml"), "--runs-dir", runsDir, "--run-id", "demo", "--deploy", `claude-code:${join(dir, "workspace")}`],
    { encoding: "utf8", timeout: 600_000 },
  );
  if (result.status !== 0) throw new Error(`the README demo failed (exit ${result.status}): ${result.stderr}`);
  return { runsDir, runId: "demo", dir: join(runsDir, "demo") };
}

/** `hermit report` as a person runs it. */
export function reportCli(run: MadeRun, ...extra: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [cli, "report", run.runId, "--runs-dir", run.runsDir, ...extra], { encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
