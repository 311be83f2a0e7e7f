/**
 * Reading a run for its report (the IO shell): `run.json`, the step records, `rollouts.jsonl`,
 * each step's learning material (for the acting batch) and the Git store (candidate refs, the
 * trees to diff). Read-only: the store is never created or cleaned, so a report can be made
 * while a Trainer works on the run. Git is the source of truth for which steps committed; a
 * step whose record a crash lost is rebuilt from its commit's trailers.
 */
import { join } from "node:path";
import { errorMessage } from "../errors.js";
import { readJson, readJsonLines } from "../fs/json.js";
import { diffFiles } from "../train/card.js";
import type { StepRecord } from "../train/records.js";
import { runPaths, runRefs, stepDir, type RunPaths } from "../train/run-dir.js";
import { showRun } from "../train/runs.js";
import { VersionStore } from "../train/store.js";
import { parseScore } from "../train/trailers.js";
import type { LearningMaterial, RolloutRecord, StepStatus } from "../train/types.js";
import { emptyUsage } from "../train/usage.js";
import { fileDiff } from "./diff.js";
import type { ReportInput, ReportStep } from "./model.js";
import type { FileDiff } from "./types.js";

/**
 * What stays true between two reads of the same run: diffs of two trees and the batch of a
 * committed step never change, so a Trainer refreshing its report after every step computes
 * each once.
 */
export class ReportMemo {
  readonly diffs = new Map<string, FileDiff[]>();
  readonly batches = new Map<string, Array<{ instance: string; trial: number }> | undefined>();
}

export interface ReadOptions {
  /** An already open store (the Trainer's own), instead of opening `settings.store`. */
  store?: VersionStore;
  memo?: ReportMemo;
}

/** Gather everything the report of run `runId` shows. */
export async function readReportInput(runsDir: string, runId: string, options: ReadOptions = {}): Promise<ReportInput> {
  const details = await showRun(runsDir, runId);
  const run = details.record;
  const paths = runPaths(runsDir, runId);
  const memo = options.memo ?? new ReportMemo();
  const notes: string[] = [];
  const store = options.store ?? (await VersionStore.openExisting(run.settings.store));
  if (!store) notes.push(`${run.settings.store}: the version store is not there, so diffs and steps a crash left unrecorded cannot be shown`);

  const records = new Map(details.stepRecords.map((record) => [record.step, record]));
  if (store) {
    for (const [step, commit] of await committedSteps(store, runId)) {
      const saved = records.get(step);
      if (saved?.commit === commit) continue;
      try {
        records.set(step, await stepFromCommit(store, step, commit));
      } catch (error) {
        notes.push(`step ${step}: commit ${commit.slice(0, 12)} could not be read (${errorMessage(error)})`);
      }
    }
  }
  const ordered = [...records.values()].sort((a, b) => a.step - b.step);
  const trees = new Map<string, string>([[run.base.commit, run.base.tree], ...ordered.map((record) => [record.commit, record.tree] as [string, string])]);

  const steps: ReportStep[] = [];
  for (const record of ordered) {
    const step: ReportStep = { record, batch: await actingBatch(paths, record, memo) };
    if (store) {
      try {
        const parentTree = trees.get(record.acceptedBefore) ?? (await store.readCommit(record.acceptedBefore)).tree;
        step.diff = await treeDiff(store, parentTree, record.tree, memo);
        if (record.invalidCommit) step.repairDiff = await treeDiff(store, (await store.readCommit(record.invalidCommit)).tree, record.tree, memo);
      } catch (error) {
        step.diffNote = `the diff could not be read from the version store: ${errorMessage(error)}`;
      }
    } else {
      step.diffNote = "the version store is not available";
    }
    steps.push(step);
  }
  const rollouts = (await readJsonLines<RolloutRecord>(paths.rollouts)).filter(
    (record) => typeof record?.tree === "string" && typeof record.instance === "string" && typeof record.split === "string",
  );
  return { run, status: details.status, live: details.status === "running", dir: paths.dir, steps, rollouts, notes };
}

/** Step number → candidate commit, from the refs (a step is done once its ref exists). */
async function committedSteps(store: VersionStore, runId: string): Promise<Map<number, string>> {
  const refs = runRefs(runId);
  const out = new Map<number, string>();
  for (const ref of await store.listRefs(refs.candidates).catch(() => [] as string[])) {
    const step = Number(/\/step-(\d+)$/.exec(ref)?.[1]);
    const commit = Number.isInteger(step) ? await store.getRef(ref) : undefined;
    if (commit) out.set(step, commit);
  }
  return out;
}

/** A step record from its commit alone (its `step.json` was lost to a crash): fewer details. */
async function stepFromCommit(store: VersionStore, step: number, commit: string): Promise<StepRecord> {
  const info = await store.readCommit(commit);
  const trailers = info.message.trailers;
  const status = (trailers["Hermit-Status"] ?? "failed") as StepStatus;
  const summary = info.message.subject.replace(/^step \d+: \S+ — /, "");
  const parent = info.parents[0] ?? commit;
  return {
    step,
    status,
    summary,
    evolver: { status: status === "failed" ? "failed" : "done", summary, durationMs: 0 },
    commit,
    tree: info.tree,
    ...(trailers["Hermit-Repaired-From"] ? { invalidCommit: trailers["Hermit-Repaired-From"] } : {}),
    acceptedBefore: parent,
    acceptedAfter: status === "accepted" ? commit : parent,
    score: parseScore(trailers["Hermit-Score"]),
    acceptedScore: parseScore(trailers["Hermit-Accepted-Score"]),
    batchScore: null,
    rollouts: { ran: 0, cached: 0 },
    usage: emptyUsage(),
    durationMs: 0,
    rebuilt: true,
  };
}

/** The files that differ between two trees, each with its line diff. */
async function treeDiff(store: VersionStore, before: string, after: string, memo: ReportMemo): Promise<FileDiff[]> {
  const key = `${before}..${after}`;
  const known = memo.diffs.get(key);
  if (known) return known;
  const [oldFiles, newFiles] = [await store.readFileMap(before), await store.readFileMap(after)];
  const diffs: FileDiff[] = [];
  for (const change of diffFiles(oldFiles, newFiles)) {
    const oldEntry = oldFiles.get(change.path);
    const newEntry = newFiles.get(change.path);
    diffs.push(fileDiff(change, oldEntry ? await store.readBlob(oldEntry.oid) : undefined, newEntry ? await store.readBlob(newEntry.oid) : undefined));
  }
  memo.diffs.set(key, diffs);
  return diffs;
}

/** The acting batch's (instance, trial) pairs, from the step's learning material. */
async function actingBatch(paths: RunPaths, record: StepRecord, memo: ReportMemo): Promise<Array<{ instance: string; trial: number }> | undefined> {
  const key = `${record.step}:${record.commit}`;
  if (memo.batches.has(key)) return memo.batches.get(key);
  const material = await readJson<LearningMaterial>(join(stepDir(paths, record.step), "learning.json")).catch(() => undefined);
  const batch = Array.isArray(material?.rollouts)
    ? material.rollouts.filter((item) => typeof item?.instance === "string").map((item) => ({ instance: item.instance, trial: item.trial }))
    : undefined;
  memo.batches.set(key, batch);
  return batch;
}
