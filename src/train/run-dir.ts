/**
 * The run directory (docs/trainer.md): where each part of a run lives, and the refs a run
 * owns in the version store. Pure path arithmetic; the loop does the IO.
 */
import { join } from "node:path";
import type { Split } from "./types.js";

export interface RunPaths {
  dir: string;
  runJson: string;
  lock: string;
  /** The template reference the candidate is checked against. */
  root: string;
  rolloutAdapter: string;
  workspace: string;
  candidate: string;
  state: string;
  checkout: string;
  steps: string;
  card: string;
  /** Finished rollouts, one JSON line each: the cache and the resume record. */
  rollouts: string;
}

export function runPaths(runsDir: string, runId: string): RunPaths {
  const dir = join(runsDir, runId);
  return {
    dir,
    runJson: join(dir, "run.json"),
    lock: join(dir, ".lock"),
    root: join(dir, "root"),
    rolloutAdapter: join(dir, "rollout_adapter"),
    workspace: join(dir, "workspace"),
    candidate: join(dir, "workspace", "adapter"),
    state: join(dir, "workspace", "state"),
    checkout: join(dir, "checkout"),
    steps: join(dir, "steps"),
    card: join(dir, "CARD.md"),
    rollouts: join(dir, "rollouts.jsonl"),
  };
}

/** `steps/<n>/` or `steps/final/`. */
export function stepDir(paths: RunPaths, step: number | "final"): string {
  return join(paths.steps, String(step));
}

/** A file-name-safe rendering of an instance id (ids are the task's; anything may be in them). */
export function safeSegment(id: string): string {
  const cleaned = id.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_").slice(0, 100);
  return cleaned === "" ? "_" : cleaned;
}

/**
 * Where one rollout's evidence goes. The acting batch uses `steps/<n>/rollouts/<instance>/`
 * (docs/trainer.md); evaluations on `val` and `test` go under `<split>/<role>/`, role being the
 * version (`accepted`, `candidate`, `base`, `final`). A trial index is added when `trials > 1`.
 */
export function evidenceDir(stepPath: string, split: Split, role: string, instance: string, trial: number, trials: number): string {
  // The acting batch's evidence is `rollouts/`; a candidate screened on the same instances has its own, `screen/`.
  const trainDir = role === "candidate" ? "screen" : "rollouts";
  const base = split === "train" ? join(stepPath, trainDir, safeSegment(instance)) : join(stepPath, split, role, safeSegment(instance));
  return trials > 1 ? join(base, `trial-${trial}`) : base;
}

/** The refs a run owns in the version store. */
export function runRefs(runId: string) {
  return {
    /** The accepted lineage. */
    branch: `refs/heads/hermit/${runId}`,
    branchName: `hermit/${runId}`,
    base: `refs/hermit/${runId}/base`,
    /** The evolver's state, committed beside (never into) the adapter. */
    state: `refs/hermit/${runId}/state`,
    candidates: `refs/hermit/${runId}/candidates`,
    candidate: (step: number) => `refs/hermit/${runId}/candidates/step-${step}`,
    invalid: (step: number) => `refs/hermit/${runId}/invalid/step-${step}`,
    checkpoint: (step: number) => `hermit/${runId}/step-${step}`,
    final: `hermit/${runId}/final`,
  };
}

/** The ref keeping a template tree reachable, so a card can name it. */
export function templateRef(tree: string): string {
  return `refs/hermit/templates/${tree}`;
}

/** Where the Trainer keeps the tool-call audit log of the rollout whose evidence is in `evidenceDir`. */
export function auditLogFor(evidenceDir: string): string {
  return `${evidenceDir}.audit.jsonl`;
}
