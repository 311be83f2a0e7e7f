/** The learning material the Evolver gets each step (pure). */
import { mean, tidy } from "./acceptance.js";
import type { StepRecord } from "./records.js";
import type { HistoryEntry, LearningMaterial, RepairFeedback, RolloutRecord } from "./types.js";

export interface LearningInput {
  run: string;
  step: number;
  task: string;
  accepted: LearningMaterial["accepted"];
  rollouts: RolloutRecord[];
  trainInstances: number;
  /** Every earlier step, oldest first. */
  history: HistoryEntry[];
  /** The previous step's record (its repair is fed back). */
  previous?: StepRecord;
  file: string;
}

export function historyEntry(record: StepRecord): HistoryEntry {
  return {
    step: record.step,
    status: record.status,
    summary: record.summary,
    score: record.score,
    acceptedScore: record.acceptedScore,
    commit: record.commit,
    ...(record.validation ? { validation: record.validation } : {}),
  };
}

/** The previous step's repair, when its candidate failed the check. */
export function repairFeedback(previous: StepRecord | undefined): RepairFeedback[] {
  const repair = previous?.repair;
  if (!previous || !repair || repair.before.length === 0) return [];
  return [{ step: previous.step, issues: repair.before, actions: repair.actions, passedAfter: repair.after.passed }];
}

export function buildLearningMaterial(input: LearningInput): LearningMaterial {
  const scores = input.rollouts.flatMap((record) => (record.score === null ? [] : [record.score]));
  return {
    run: input.run,
    step: input.step,
    task: input.task,
    accepted: input.accepted,
    rollouts: input.rollouts,
    trainInstances: input.trainInstances,
    batchScore: tidy(mean(scores)),
    repairs: repairFeedback(input.previous),
    history: input.history,
    file: input.file,
  };
}
