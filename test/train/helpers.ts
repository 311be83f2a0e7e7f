/**
 * Instant Tasks and Evolvers for Trainer tests, and Git helpers. The tasks stand in for an
 * acting pipeline: they read the version under test from `ctx.adapter` and score it at once.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { defineEvolver, defineTask } from "../../src/plugin.js";
import type { EvolverContext, LearningMaterial, RolloutContext, StepResult, TaskInstance } from "../../src/train/types.js";
import { copyDir, exampleAdapter, exampleTemplate, repoRoot, tempDir } from "../helpers.js";

export { exampleTemplate };

export interface RolloutCall {
  split: string;
  instance: string;
  trial: number;
  tree: string;
  step: number | "final";
}

export interface MarkerTaskOptions {
  train?: string[];
  val?: string[];
  test?: string[];
  /** Score from the version's ADAPTER.md (default: occurrences of "Check the result." / 2, capped at 1). */
  score?: (context: string, instance: TaskInstance, rollout: RolloutContext) => number | null | Promise<number | null>;
}

/** A task whose score is the number of "Check the result." lines in the version's ADAPTER.md. */
export function markerTask(options: MarkerTaskOptions = {}) {
  const calls: RolloutCall[] = [];
  const splits = { train: options.train ?? ["t1", "t2"], val: options.val ?? ["v1", "v2"], test: options.test ?? ["x1"] };
  const task = defineTask({
    name: "marker",
    instances: (split) => splits[split].map((id) => ({ id })),
    async rollout(instance, context) {
      calls.push({ split: context.split, instance: instance.id, trial: context.trial, tree: context.tree, step: context.step });
      const text = await readFile(join(context.adapter, "ADAPTER.md"), "utf8").catch(() => "");
      const score = options.score ? await options.score(text, instance, context) : Math.min(1, countChecks(text) / 2);
      return { score, feedback: `found ${countChecks(text)} checks` };
    },
  });
  return { task, calls };
}

export const countChecks = (text: string) => (text.match(/^Check the result\.$/gm) ?? []).length;

export type Edit = (context: EvolverContext) => Promise<StepResult | void> | StepResult | void;

/** An Evolver that plays one edit per step (the last one repeats) and records what it was given. */
export function scriptedEvolver(edits: Edit[]) {
  const seen: LearningMaterial[] = [];
  let closed = 0;
  const evolver = defineEvolver({
    name: "scripted",
    async step(context) {
      seen.push(context.learningMaterial);
      const edit = edits[Math.min(context.step - 1, edits.length - 1)];
      const result = await edit(context);
      return result ?? { status: "done", summary: `edit ${context.step}` };
    },
    close() {
      closed += 1;
    },
  });
  return { evolver, seen, closed: () => closed };
}

export async function appendTo(context: EvolverContext, file: string, text: string): Promise<void> {
  const path = join(context.workspace.adapter, file);
  await writeFile(path, (await readFile(path, "utf8")) + text);
}

export const addCheck: Edit = async (context) => {
  await appendTo(context, "ADAPTER.md", "\nCheck the result.\n");
  return { status: "done", summary: "added a check" };
};

export const addNoise: Edit = async (context) => {
  await appendTo(context, "ADAPTER.md", "\nBe brief.\n");
  return { status: "done", summary: "added noise" };
};

/**
 * A light adapter (no tools, no custom check: its spec check takes milliseconds) that is its
 * own template. The repair and example tests use the real example instead.
 */
export const lightAdapter = join(import.meta.dirname, "fixtures", "light");

/** A fresh copy of an adapter (the light one by default, or the example) and a runs directory. */
export async function setup(kind: "light" | "example" = "light"): Promise<{ adapter: string; runsDir: string; template: string }> {
  const source = kind === "light" ? lightAdapter : exampleAdapter;
  return {
    adapter: await copyDir(source),
    runsDir: join(await tempDir("hermit-train-"), "runs"),
    template: kind === "light" ? lightAdapter : exampleTemplate,
  };
}

/** `git` against a repository or worktree; throws on failure. */
export function git(args: string[], cwd?: string): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_DIR: undefined } as NodeJS.ProcessEnv }).trim();
}

export function fsck(store: string): { status: number; output: string } {
  const result = spawnSync("git", ["--git-dir", store, "fsck", "--strict", "--no-progress"], { encoding: "utf8" });
  return { status: result.status ?? -1, output: `${result.stdout}${result.stderr}`.trim() };
}

/** The trailers of a commit, as a map. */
export function trailers(store: string, ref: string): Record<string, string> {
  const body = git(["--git-dir", store, "log", "-1", "--format=%B", ref]);
  const out: Record<string, string> = {};
  for (const line of body.split("\n")) {
    const match = /^(Hermit-[A-Za-z-]+): (.*)$/.exec(line);
    if (match) out[match[1]] = match[2];
  }
  return out;
}

export function lsTree(store: string, ref: string): string[] {
  return git(["--git-dir", store, "ls-tree", "-r", "--name-only", ref]).split("\n").filter(Boolean);
}

/**
 * Child processes run dist/cli.js: build it when it is missing or older than any source file
 * (a stale build would test old code).
 */
export async function ensureBuilt(): Promise<void> {
  const built = (await stat(join(repoRoot, "dist", "train", "loop", "trainer.js")).catch(() => undefined))?.mtimeMs ?? 0;
  const sources = await readdir(join(repoRoot, "src"), { recursive: true });
  let newest = 0;
  for (const file of sources) if (file.endsWith(".ts")) newest = Math.max(newest, (await stat(join(repoRoot, "src", file))).mtimeMs);
  if (newest > built) spawnSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: repoRoot, stdio: "ignore" });
  if (!(await stat(join(repoRoot, "dist", "cli.js")).catch(() => undefined))) throw new Error("dist/cli.js is missing: run npm run build");
}
