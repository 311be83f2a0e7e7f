/**
 * The report model (pure): a run's records and diffs in, the `ReportData` the page shows and
 * `hermit report --json` prints out. No IO here; `read.ts` gathers the input.
 */
import { dirname } from "node:path";
import type { RunRecord, StepRecord } from "../train/records.js";
import type { RolloutRecord } from "../train/types.js";
import { buildHeatmaps, type HeatStep } from "./heatmap.js";
import { commandLine, reproduceCommands } from "./reproduce.js";
import type { FileDiff, LineageNode, ReportData, StepView, UsageView } from "./types.js";
import { addSource, budgets, emptyUsageView, sumUsage } from "./usage.js";
import { addAdapterUse, emptyAdapterUse } from "../train/adapter-use.js";

/** One committed step with what the store says about it. */
export interface ReportStep {
  record: StepRecord;
  /** The candidate against its parent; absent when the store could not be read. */
  diff?: FileDiff[];
  diffNote?: string;
  /** The raw candidate against the repaired one, when the step needed a repair. */
  repairDiff?: FileDiff[];
  /** The acting batch's (instance, trial) pairs, from the step's learning material. */
  batch?: Array<{ instance: string; trial: number }>;
  /** Usage of each model call the learner made in this step, when recorded. */
  calls?: unknown[];
}

export interface ReportInput {
  run: RunRecord;
  /** The run's status as `hermit runs` shows it (`interrupted` for a dead `running` run). */
  status: string;
  /** A live process holds the run. */
  live: boolean;
  /** The run directory, where it is now (it may have moved since it ran). */
  dir: string;
  /** The version store the report read, or the recorded one when none was found. */
  store: string;
  steps: ReportStep[];
  /** Every finished rollout (`rollouts.jsonl`). */
  rollouts: RolloutRecord[];
  notes: string[];
}

/** Build the report of a run. */
export function buildReport(input: ReportInput): ReportData {
  const { run } = input;
  const steps = input.steps.map((step) => stepView(step, input.rollouts));
  const lastCommitted = steps.length > 0 ? steps[steps.length - 1].step : 0;
  const interrupted = interruptedStep(input, lastCommitted);
  if (interrupted) steps.push(interrupted);

  const heatSteps: HeatStep[] = input.steps.map(({ record, batch }) => ({
    step: record.step,
    ...(validated(record) ? { validatedTree: record.tree } : {}),
    ...(record.rebuilt ? {} : { actingTree: treeOf(input, record.acceptedBefore) }),
    ...(batch ? { batch } : {}),
  }));
  if (interrupted) heatSteps.push({ step: interrupted.step, interrupted: true });

  const acting = input.rollouts.reduce<UsageView>((view, record) => addSource(view, record.usage), emptyUsageView());
  const learning = sumUsage(steps.map((step) => step.usage.learning));
  const total = sumUsage([acting, learning]);
  const settings = run.settings;
  const adapterUse = input.rollouts.reduce((sum, record) => addAdapterUse(sum, record.adapterUse), emptyAdapterUse());
  const actedThroughHost = settings.actorHost !== undefined || adapterUse.rollouts > 0;
  return {
    format: "hermit-report",
    formatVersion: 1,
    run: {
      id: run.run,
      status: input.status,
      ...(run.reason ? { reason: run.reason } : {}),
      dir: input.dir,
      live: input.live,
      stepsDone: lastCommitted,
      stepsPlanned: run.settings.steps,
      elapsedSeconds: run.elapsedSeconds,
      rollouts: { ran: run.rollouts.ran, cached: run.rollouts.cached },
    },
    provenance: {
      run: run.run,
      hermitVersion: run.hermitVersion,
      branch: run.branch,
      ...(run.final ? { finalTag: run.final.tag } : {}),
      store: input.store,
      template: run.template,
      base: run.base,
      task: run.task,
      evolver: run.evolver,
      seed: run.settings.seed,
      settings: commandLine(run.settings),
      createdAt: run.createdAt,
      updatedAt: run.updatedAt,
    },
    reproduce: reproduceCommands(run, lastCommitted, { runsDir: dirname(input.dir), store: input.store }),
    ...(run.final
      ? {
          test: {
            base: evaluation(run.final.test.base),
            final: evaluation(run.final.test.final),
          },
        }
      : {}),
    steps,
    lineage: lineage(input, steps),
    heatmaps: buildHeatmaps({
      rollouts: input.rollouts,
      steps: heatSteps,
      base: { tree: run.base.tree },
      ...(run.final ? { final: { tree: run.final.test.final.tree } } : {}),
    }),
    usage: { acting, learning, budgets: budgets({ settings, rolloutsRan: run.rollouts.ran, elapsedSeconds: run.elapsedSeconds, total, acting, learning }) },
    ...(actedThroughHost ? { acting: { ...(settings.actorHost ? { host: settings.actorHost } : {}), ...(settings.actorModel ? { model: settings.actorModel } : {}), adapterUse } } : {}),
    notes: input.notes,
  };
}

const evaluation = (value: { commit: string; score: number | null; measured: number; missing: number }) => ({
  commit: value.commit,
  score: value.score,
  measured: value.measured,
  missing: value.missing,
});

/** The candidate was scored on the validation split (a decision was made from its scores). */
function validated(record: StepRecord): boolean {
  return record.decision !== undefined && (record.status as string) !== "screened-out";
}

/** The tree of a version the run knows by commit (the base or an accepted step). */
function treeOf(input: ReportInput, commit: string): string | undefined {
  if (commit === input.run.base.commit) return input.run.base.tree;
  return input.steps.find((step) => step.record.commit === commit)?.record.tree;
}

/** Screening scores where the step record carries them (the field is newer than some runs). */
function screeningScore(record: StepRecord): number | null {
  const screening = (record as StepRecord & { screening?: { score?: number | null; candidateScore?: number | null } }).screening;
  const value = screening?.candidateScore ?? screening?.score;
  return typeof value === "number" ? value : null;
}

function reasonOf(record: StepRecord): string {
  if (record.decision?.reason) return record.decision.reason;
  if (record.status === "invalid" && record.repair) {
    return `the repair could not make the candidate pass: ${record.repair.after.issues.map((issue) => `${issue.path}: ${issue.problem}`).join("; ")}`;
  }
  if (record.rebuilt) return `${record.summary} (rebuilt from the version store after a crash)`;
  return record.evolver?.summary || record.summary;
}

function stepView(step: ReportStep, rollouts: RolloutRecord[]): StepView {
  const { record } = step;
  const acting = rollouts.filter((rollout) => rollout.ranAt === record.step).reduce<UsageView>((view, rollout) => addSource(view, rollout.usage), emptyUsageView());
  const learning = step.calls ? step.calls.reduce<UsageView>((view, call) => addSource(view, call), emptyUsageView()) : record.rebuilt ? emptyUsageView() : addSource(emptyUsageView(), record.evolver?.usage);
  const repaired = record.repair !== undefined || record.invalidCommit !== undefined;
  return {
    step: record.step,
    status: record.status,
    repaired,
    summary: record.summary,
    reason: reasonOf(record),
    commit: record.commit,
    parent: record.acceptedBefore,
    ...(record.invalidCommit ? { rawCommit: record.invalidCommit } : {}),
    scores: { candidate: record.score, accepted: record.acceptedScore, batch: record.batchScore, screening: screeningScore(record) },
    ...(record.decision
      ? { decision: { difference: record.decision.difference, standardError: record.decision.standardError, pairs: record.decision.pairs, missing: record.decision.missing } }
      : {}),
    rollouts: { ...record.rollouts },
    usage: { acting, learning },
    durationMs: record.rebuilt ? null : record.durationMs,
    evolverMs: record.rebuilt ? null : (record.evolver?.durationMs ?? null),
    ...(record.repair
      ? {
          repair: {
            issues: record.repair.before.map((issue) => ({ path: issue.path, problem: issue.problem })),
            actions: record.repair.actions.map(describeAction),
            passedAfter: record.repair.after.passed,
            diff: step.repairDiff ?? [],
          },
        }
      : {}),
    diff: step.diff ?? [],
    ...(step.diffNote ? { diffNote: step.diffNote } : {}),
    rebuilt: record.rebuilt === true,
  };
}

function describeAction(action: NonNullable<StepRecord["repair"]>["actions"][number]): string {
  if (action.op === "restore") return `restore ${action.path} from ${action.from === "root" ? "the template" : "the accepted version"}`;
  if (action.op === "delete") return `delete ${action.path}`;
  if (action.op === "restore-sections") return `restore ${action.path} sections ${action.sections.join(", ")} from the template`;
  return "reset to the accepted version";
}

/** A step that started after the last committed one and never committed: a crash cut it short. */
function interruptedStep(input: ReportInput, lastCommitted: number): StepView | undefined {
  if (input.live || input.run.final) return undefined;
  const next = lastCommitted + 1;
  const ran = input.rollouts.filter((rollout) => rollout.ranAt === next);
  if (ran.length === 0 && input.status !== "interrupted") return undefined;
  if (next > input.run.settings.steps) return undefined;
  const acting = ran.reduce<UsageView>((view, rollout) => addSource(view, rollout.usage), emptyUsageView());
  return {
    step: next,
    status: "interrupted",
    repaired: false,
    summary: `the run stopped during this step (${ran.length} rollout${ran.length === 1 ? "" : "s"} had finished)`,
    reason: "no commit: the process ended before the step was recorded; `hermit train --resume` redoes it, reusing the finished rollouts",
    scores: { candidate: null, accepted: null, batch: null, screening: null },
    rollouts: { ran: ran.length, cached: 0 },
    usage: { acting, learning: emptyUsageView() },
    durationMs: null,
    evolverMs: null,
    diff: [],
    rebuilt: false,
  };
}

function lineage(input: ReportInput, steps: StepView[]): LineageNode[] {
  const { run } = input;
  const nodes: LineageNode[] = [
    { id: "base", kind: "base", step: 0, status: "base", commit: run.base.commit, label: `base: ${run.base.adapterName} ${run.base.adapterVersion}${run.base.from ? ` (from ${run.base.from})` : ""}` },
  ];
  for (const step of steps) {
    if (!step.commit) continue;
    nodes.push({ id: `step-${step.step}`, kind: "candidate", step: step.step, status: step.status, commit: step.commit, ...(step.parent ? { parent: step.parent } : {}), label: `step ${step.step}: ${step.status}${step.repaired ? " (repaired)" : ""} — ${step.summary}` });
  }
  if (run.final) {
    const lastStep = steps.reduce((top, step) => Math.max(top, step.step), 0);
    nodes.push({ id: "final", kind: "final", step: lastStep + 1, status: "final", commit: run.final.commit, parent: run.accepted.commit, label: `final: ${run.final.tag}` });
  }
  return nodes;
}
