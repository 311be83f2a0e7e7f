/**
 * Crash and resume: a child `hermit train` process is killed with SIGKILL at chosen points
 * (a fixture Task or Evolver hangs there and drops a marker file), then `--resume` finishes
 * the run. The resumed history must equal an uninterrupted run's, no finished rollout may run
 * twice, and `git fsck --strict` must be clean after every crash.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { train } from "../../src/builtins.js";
import type { RunRecord } from "../../src/train/records.js";
import { repoRoot, tempDir } from "../helpers.js";
import { addCheck, addNoise, ensureBuilt, fsck, git, lightAdapter, markerTask, scriptedEvolver, setup } from "./helpers.js";

const cli = join(repoRoot, "dist", "cli.js");
const fixtures = join(import.meta.dirname, "fixtures");

beforeAll(ensureBuilt, 180_000);

interface Run {
  runsDir: string;
  log: string;
  marker: string;
}

async function newRun(): Promise<Run> {
  const dir = await tempDir("hermit-crash-");
  return { runsDir: join(dir, "runs"), log: join(dir, "rollouts.log"), marker: join(dir, "marker") };
}

const trainArgs = (run: Run, runId: string) => [
  cli, "train",
  "--adapter", lightAdapter,
  "--template", lightAdapter,
  "--task", join(fixtures, "crash-task.ts"),
  "--evolver", join(fixtures, "crash-evolver.ts"),
  "--steps", "5",
  "--checkpoint-every", "2",
  "--concurrency", "1",
  "--runs-dir", run.runsDir,
  "--run-id", runId,
  "--json",
];

function env(run: Run, block?: string): NodeJS.ProcessEnv {
  return { ...process.env, HERMIT_TEST_LOG: run.log, HERMIT_TEST_MARKER: run.marker, HERMIT_TEST_BLOCK: block ?? "" };
}

/** Start a child, wait until it blocks at `block`, kill it with SIGKILL. */
async function crashAt(run: Run, args: string[], block: string): Promise<void> {
  const child: ChildProcess = spawn(process.execPath, args, { env: env(run, block), stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
  const deadline = Date.now() + 60_000;
  while (!existsSync(run.marker)) {
    if (child.exitCode !== null) throw new Error(`the child exited (${child.exitCode}) before blocking at ${block}:\n${stderr}`);
    if (Date.now() > deadline) throw new Error(`the child never blocked at ${block}:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill("SIGKILL");
  expect(await exited, "the child died of SIGKILL").toBe("SIGKILL");
  await rm(run.marker);
}

function finish(run: Run, runId: string, block?: string) {
  const result = spawnSync(process.execPath, [cli, "train", "--resume", runId, "--runs-dir", run.runsDir, "--json"], { env: env(run, block), encoding: "utf8" });
  return { status: result.status, json: result.stdout ? JSON.parse(result.stdout) : undefined, stderr: result.stderr };
}

async function finishedRollouts(run: Run): Promise<string[]> {
  const text = await readFile(run.log, "utf8").catch(() => "");
  return text.trim().split("\n").filter(Boolean).map((line) => {
    const entry = JSON.parse(line);
    return `${entry.tree} ${entry.split} ${entry.instance} ${entry.trial}`;
  });
}

/** What must not depend on crashes: per step status, score and tree; the tags; the final accepted tree. */
function history(run: Run, runId: string, json: { steps: Array<{ step: number; status: string; score: number | null; commit: string }>; acceptedCommit: string }) {
  const store = join(run.runsDir, "versions.git");
  return {
    steps: json.steps.map((step) => ({ ...step, commit: undefined, tree: git(["--git-dir", store, "rev-parse", `${step.commit}^{tree}`]) })),
    accepted: git(["--git-dir", store, "rev-parse", `${json.acceptedCommit}^{tree}`]),
    tags: git(["--git-dir", store, "tag", "--list", `hermit/${runId}/*`]).split("\n").map((tag) => tag.replace(runId, "RUN")),
    lineage: git(["--git-dir", store, "log", "--format=%s", `hermit/${runId}`]).split("\n").map((line) => line.replace(runId, "RUN")),
  };
}

describe("train: resume after kill -9", () => {
  let reference: ReturnType<typeof history>;

  beforeAll(async () => {
    const run = await newRun();
    const result = spawnSync(process.execPath, trainArgs(run, "ref"), { env: env(run), encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    reference = history(run, "ref", JSON.parse(result.stdout));
    expect(reference.steps.map((step) => step.status)).toEqual(["accepted", "accepted", "rejected", "accepted", "accepted"]);
  }, 120_000);

  const points = [
    { name: "an acting rollout of step 2", blocks: ["train:2:t2"] },
    { name: "the Evolver of step 3 (after it edited its state)", blocks: ["evolver:3"] },
    { name: "a validation rollout of step 4's candidate", blocks: ["val:4:v2"] },
    { name: "the sealed test rollouts", blocks: ["test:final:x2"] },
    { name: "step 2, then again in the resumed process at step 5", blocks: ["train:2:t1", "evolver:5"] },
  ];

  for (const point of points) {
    it(`continues from the last committed step after a kill in ${point.name}`, async () => {
      const run = await newRun();
      await crashAt(run, trainArgs(run, "crash"), point.blocks[0]);
      const store = join(run.runsDir, "versions.git");
      expect(fsck(store).status).toBe(0);
      for (const block of point.blocks.slice(1)) {
        await crashAt(run, [cli, "train", "--resume", "crash", "--runs-dir", run.runsDir], block);
        expect(fsck(store).status).toBe(0);
      }
      const resumed = finish(run, "crash");
      expect(resumed.status, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(/resuming run crash after step \d/);
      expect(history(run, "crash", resumed.json)).toEqual(reference);

      const finished = await finishedRollouts(run);
      expect(finished.length - new Set(finished).size, "finished rollouts run twice").toBe(0);
      expect(fsck(store)).toMatchObject({ status: 0 });
      const record = JSON.parse(await readFile(join(run.runsDir, "crash", "run.json"), "utf8")) as RunRecord;
      expect(record.status).toBe("completed");
      expect(record.rollouts.ran).toBe(finished.length);
      // Usage counts every rollout that ran, in the killed processes too, and the sealed test.
      expect(record.usage.known.inputTokens).toBe(finished.length);
      // The Evolver's state holds exactly one entry per committed step: the crashed step's edit was dropped.
      expect((await readFile(join(run.runsDir, "crash", "workspace", "state", "steps.txt"), "utf8")).trim().split("\n")).toEqual(["1", "2", "3", "4", "5"]);
      expect(git(["status", "--porcelain"], join(run.runsDir, "crash", "checkout"))).toBe("");
      expect(existsSync(join(run.runsDir, "crash", ".lock"))).toBe(false);
    }, 120_000);
  }

  it("stops on Ctrl-C after the last committed step, says how to resume, and resumes to the same history", async () => {
    const run = await newRun();
    const child = spawn(process.execPath, trainArgs(run, "ctrl-c"), { env: env(run, "train:3:t1"), stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    // "close", not "exit": stderr is read to its end.
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const deadline = Date.now() + 60_000;
    while (!existsSync(run.marker)) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the child never blocked:\n${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await rm(run.marker);
    child.kill("SIGINT");
    expect(await exited).toBe(1);
    expect(stderr).toContain("interrupted; stopping after the rollouts in flight");
    expect(stderr).toContain(`run ctrl-c interrupted after step 2 (every committed step is kept); continue it with: hermit train --resume ctrl-c --runs-dir ${run.runsDir}`);
    const listed = spawnSync(process.execPath, [cli, "runs", "list", "--runs-dir", run.runsDir, "--json"], { encoding: "utf8" });
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ run: "ctrl-c", status: "interrupted", lastStep: 2 })]);
    const resumed = finish(run, "ctrl-c");
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(history(run, "ctrl-c", resumed.json)).toEqual(reference);
  }, 120_000);

  it("from another folder, says where to look for the run", async () => {
    const run = await newRun();
    const elsewhere = await tempDir();
    const result = spawnSync(process.execPath, [cli, "train", "--resume", "somewhere"], { cwd: elsewhere, encoding: "utf8" });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/no run 'somewhere' to resume in .*\/runs\. If it lives elsewhere, give the same --runs-dir \(or the same --config\) the run was started with/);
    void run;
  });

  it("refuses a second process while the first holds the run, and takes over a dead one's lock", async () => {
    const run = await newRun();
    const child = spawn(process.execPath, trainArgs(run, "held"), { env: env(run, "evolver:2"), stdio: "ignore" });
    const deadline = Date.now() + 60_000;
    while (!existsSync(run.marker) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const second = finish(run, "held");
    expect(second.status).toBe(2);
    expect(second.stderr).toMatch(/RUN_LOCKED: run 'held' is being run by process \d+/);
    child.kill("SIGKILL");
    await new Promise((resolve) => child.on("exit", resolve));
    const third = finish(run, "held");
    expect(third.status, third.stderr).toBe(0);
    expect(third.json.status).toBe("completed");
  }, 120_000);
});

describe("train: reconciling from Git", () => {
  it("redoes the pointer moves a crash cut short after a step's commit point", async () => {
    const { adapter, runsDir, template } = await setup();
    const store = join(runsDir, "versions.git");
    const first = await train({ adapter, template, task: markerTask().task, evolver: scriptedEvolver([addCheck, addCheck]).evolver, steps: 2, runsDir, runId: "cut" });
    const [step1, step2] = first.steps.map((step) => step.commit);
    const stateAfter2 = git(["--git-dir", store, "rev-parse", "refs/hermit/cut/state"]);
    // Undo everything after step 2's commit point: branch, tag, state ref, step record, run.json.
    git(["--git-dir", store, "update-ref", "refs/heads/hermit/cut", step1]);
    git(["--git-dir", store, "update-ref", "refs/hermit/cut/state", git(["--git-dir", store, "rev-parse", "refs/hermit/cut/state~1"])]);
    git(["--git-dir", store, "tag", "-d", "hermit/cut/step-2", "hermit/cut/final"]);
    await rm(join(first.runDir, "steps", "2", "step.json"));
    const record = JSON.parse(await readFile(join(first.runDir, "run.json"), "utf8")) as RunRecord;
    await writeFile(join(first.runDir, "run.json"), JSON.stringify({ ...record, status: "running", lastStep: 1, final: undefined, accepted: { ...record.accepted, commit: step1 } }));

    const { task, calls } = markerTask();
    const resumed = await train({ resume: "cut", runsDir, steps: 3, task, evolver: scriptedEvolver([addNoise]).evolver });
    expect(resumed.steps.map((step) => [step.step, step.status, step.commit])).toEqual([
      [1, "accepted", step1],
      [2, "accepted", step2],
      [3, "rejected", resumed.steps[2].commit],
    ]);
    expect(git(["--git-dir", store, "rev-parse", "hermit/cut/step-2^{commit}"])).toBe(step2);
    expect(git(["--git-dir", store, "rev-parse", `${resumed.steps[2].commit}^`])).toBe(step2);
    expect(git(["--git-dir", store, "rev-parse", "refs/hermit/cut/state~1"])).toBe(stateAfter2);
    const rebuilt = JSON.parse(await readFile(join(first.runDir, "steps", "2", "step.json"), "utf8"));
    expect(rebuilt).toMatchObject({ step: 2, status: "accepted", commit: step2, score: 1, rebuilt: true });
    // Step 3 ran the acting batch on step 2's version (new) and its candidate; step 2's version's
    // validation scores came from the cache (run when it was step 2's candidate).
    expect(calls.filter((call) => call.split !== "test").map((call) => `${call.split}:${call.step}`)).toEqual(["train:3", "train:3", "val:3", "val:3"]);
    const treeOf = (commit: string) => git(["--git-dir", store, "rev-parse", `${commit}^{tree}`]);
    expect(calls.filter((call) => call.split === "val").every((call) => call.tree === treeOf(resumed.steps[2].commit))).toBe(true);
    expect(fsck(store).status).toBe(0);
  });
});
