/**
 * Per-instance heatmaps (pure): which version scored what on which instance, telling a score,
 * a rollout that failed or timed out, and an instance that was not evaluated apart. Rollouts
 * are matched to steps by the cache key: (adapter tree, split, instance, trial).
 */
import type { RolloutRecord, Split } from "../train/types.js";
import type { HeatCell, Heatmap } from "./types.js";

/** What the heatmaps need to know about one step. */
export interface HeatStep {
  step: number;
  /** The candidate's tree when it was evaluated on the validation split. */
  validatedTree?: string;
  /** The accepted version the acting batch ran. */
  actingTree?: string;
  /** The acting batch's (instance, trial) pairs, when recorded; otherwise every train rollout of `actingTree`. */
  batch?: Array<{ instance: string; trial: number }>;
  /** For a step a crash cut short: its rollouts, found by where they ran. */
  interrupted?: boolean;
}

export interface HeatInput {
  rollouts: RolloutRecord[];
  steps: HeatStep[];
  base: { tree: string };
  /** The version the sealed test scored as final, once the run finished. */
  final?: { tree: string };
}

/** Finished rollouts by (tree, split, instance), one record per trial (the latest wins). */
class RolloutIndex {
  private readonly byKey = new Map<string, Map<number, RolloutRecord>>();
  readonly instances: Record<Split, Set<string>> = { train: new Set(), val: new Set(), test: new Set() };

  constructor(records: RolloutRecord[]) {
    for (const record of records) {
      const key = RolloutIndex.key(record.tree, record.split, record.instance);
      let trials = this.byKey.get(key);
      if (!trials) this.byKey.set(key, (trials = new Map()));
      trials.set(record.trial, record);
      this.instances[record.split]?.add(record.instance);
    }
  }

  static key(tree: string, split: Split, instance: string): string {
    return `${tree}\u0000${split}\u0000${instance}`;
  }

  trials(tree: string, split: Split, instance: string): RolloutRecord[] {
    return [...(this.byKey.get(RolloutIndex.key(tree, split, instance))?.values() ?? [])];
  }
}

/** One cell from the trials of one (version, instance). */
export function cellOf(records: RolloutRecord[]): HeatCell {
  if (records.length === 0) return { state: "not-evaluated" };
  const scores = records.flatMap((record) => (record.score === null ? [] : [record.score]));
  if (scores.length === 0) {
    const errors = records.map((record) => record.error ?? (record.status === "timeout" ? "timed out" : "no score (the task could not measure it)"));
    return { state: "failed", trials: records.length, error: [...new Set(errors)].join("; ") };
  }
  const score = scores.reduce((sum, value) => sum + value, 0) / scores.length;
  return { state: "score", score: Number(score.toFixed(6)), trials: records.length, missing: records.length - scores.length };
}

const sorted = (set: Set<string>) => [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** The validation, acting-batch and sealed-test heatmaps of a run. */
export function buildHeatmaps(input: HeatInput): Heatmap[] {
  const index = new RolloutIndex(input.rollouts);
  return [validation(input, index), acting(input, index), test(input, index)];
}

function validation(input: HeatInput, index: RolloutIndex): Heatmap {
  const instances = sorted(index.instances.val);
  const columns = [{ key: "base", label: "base" }, ...input.steps.map((step) => ({ key: String(step.step), label: String(step.step) }))];
  const rows = instances.map((instance) => {
    const base = cellOf(index.trials(input.base.tree, "val", instance));
    const cells = input.steps.map((step): HeatCell => {
      if (step.interrupted) return cellOf(input.rollouts.filter((r) => r.split === "val" && r.instance === instance && ranAs(r, step.step, "val/candidate")));
      return step.validatedTree ? cellOf(index.trials(step.validatedTree, "val", instance)) : { state: "not-evaluated" };
    });
    return { instance, cells: [base, ...cells] };
  });
  return {
    id: "validation",
    title: "Validation: each step's candidate",
    description: "The candidate's score per validation instance (mean over trials); the first column is the base version.",
    columns,
    rows,
  };
}

function acting(input: HeatInput, index: RolloutIndex): Heatmap {
  const instances = sorted(index.instances.train);
  const rows = instances.map((instance) => ({
    instance,
    cells: input.steps.map((step): HeatCell => {
      if (step.interrupted) return cellOf(input.rollouts.filter((r) => r.split === "train" && r.instance === instance && ranAs(r, step.step, "rollouts")));
      if (!step.actingTree) return { state: "not-evaluated" };
      const trials = index.trials(step.actingTree, "train", instance);
      if (!step.batch) return cellOf(trials);
      const wanted = new Set(step.batch.filter((item) => item.instance === instance).map((item) => item.trial));
      return cellOf(trials.filter((record) => wanted.has(record.trial)));
    }),
  }));
  return {
    id: "acting",
    title: "Acting batch: the accepted version on train instances",
    description: "What the learner saw each step: the accepted version's score per train instance in the step's batch.",
    columns: input.steps.map((step) => ({ key: String(step.step), label: String(step.step) })),
    rows,
  };
}

function test(input: HeatInput, index: RolloutIndex): Heatmap {
  const instances = sorted(index.instances.test);
  const versions = [{ key: "base", label: "base", tree: input.base.tree }, ...(input.final ? [{ key: "final", label: "final", tree: input.final.tree }] : [])];
  return {
    id: "test",
    title: "Sealed test: base and final version",
    description: "Scored once, when the run ends.",
    columns: versions.map(({ key, label }) => ({ key, label })),
    rows: instances.map((instance) => ({ instance, cells: versions.map((version) => cellOf(index.trials(version.tree, "test", instance))) })),
  };
}

/** Did this rollout run in step `step`'s batch of kind `where` (`rollouts`, `val/candidate`)? */
function ranAs(record: RolloutRecord, step: number, where: string): boolean {
  if (record.ranAt !== step) return false;
  const path = record.evidenceDir.split("\\").join("/");
  return path.includes(`/steps/${step}/${where}/`);
}
