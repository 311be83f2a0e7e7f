/**
 * The committed steps' records, read back from disk when a whole list is needed: the history
 * the Evolver gets each step, and the card at the end. A run keeps only what decisions need of
 * its steps in memory (`CommittedSteps`); the records are `steps/<n>/step.json`.
 */
import { join } from "node:path";
import { HermitError } from "../../errors.js";
import { readJson } from "../../fs/json.js";
import { historyEntry } from "../learning.js";
import type { StepRecord } from "../records.js";
import { stepRecordFromCommit } from "../rebuild.js";
import { stepDir } from "../run-dir.js";
import type { HistoryEntry, LearningMaterial } from "../types.js";
import type { CommittedSteps, RunEnvironment } from "./run-state.js";

/** Records read at once, at most. */
const BATCH = 32;

/**
 * The records of steps 1 to `count`, oldest first. A record that cannot be read (lost, or not
 * JSON) is rebuilt from the step's commit, as a resume rebuilds it.
 */
export async function committedRecords(env: Pick<RunEnvironment, "paths" | "refs" | "store">, count: number): Promise<StepRecord[]> {
  const records: StepRecord[] = [];
  for (let from = 1; from <= count; from += BATCH) {
    const steps = Array.from({ length: Math.min(BATCH, count - from + 1) }, (_, index) => from + index);
    records.push(...(await Promise.all(steps.map((step) => committedRecord(env, step)))));
  }
  return records;
}

async function committedRecord(env: Pick<RunEnvironment, "paths" | "refs" | "store">, step: number): Promise<StepRecord> {
  const saved = await readJson<StepRecord>(join(stepDir(env.paths, step), "step.json")).catch(() => undefined);
  if (saved?.step === step && typeof saved.commit === "string") return saved;
  const commit = await env.store.getRef(env.refs.candidate(step));
  if (!commit) throw new HermitError("RUN_INVALID", `${env.paths.dir}: step ${step} has neither a record nor a commit`, { path: stepDir(env.paths, step) });
  const info = await env.store.readCommit(commit);
  return stepRecordFromCommit(step, info, info.parents[0] ?? commit);
}

/**
 * The history the Evolver gets: every committed step, oldest first. The last step's learning
 * material holds the entries before it (it was that step's history), so one file is read, not
 * one per step; when that file is missing or does not list exactly the earlier steps, the
 * records are read instead.
 */
export async function committedHistory(env: Pick<RunEnvironment, "paths" | "refs" | "store">, steps: CommittedSteps): Promise<HistoryEntry[]> {
  const { last } = steps;
  if (!last) return [];
  const material = await readJson<LearningMaterial>(join(stepDir(env.paths, last.step), "learning.json")).catch(() => undefined);
  const before = material?.history;
  const whole = Array.isArray(before) && before.length === last.step - 1 && before.every((entry, index) => entry?.step === index + 1);
  return [...(whole ? before : (await committedRecords(env, last.step - 1)).map(historyEntry)), historyEntry(last)];
}
