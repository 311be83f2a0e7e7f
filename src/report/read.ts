/**
 * Reading a run for its report (the IO shell): `run.json`, the step records, `rollouts.jsonl`,
 * each step's learning material (for the acting batch) and the Git store (candidate refs, the
 * trees to diff). Read-only: the store is never created or cleaned, so a report can be made
 * while a Trainer works on the run. Git is the source of truth for which steps committed; a
 * step whose record a crash lost is rebuilt from its commit's trailers.
 */
import { open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { HermitError, errorMessage } from "../errors.js";
import { readJson } from "../fs/json.js";
import { diffFiles } from "../train/card.js";
import type { RunRecord, StepRecord } from "../train/records.js";
import { stepRecordFromCommit } from "../train/rebuild.js";
import { runPaths, runRefs, stepDir, type RunPaths } from "../train/run-dir.js";
import { heldByLiveProcess } from "../train/runs.js";
import { runIdProblem } from "../train/settings/kinds.js";
import { VersionStore, type CommitInfo } from "../train/store.js";
import type { LearningMaterial, RolloutRecord } from "../train/types.js";
import { fileDiff } from "./diff.js";
import type { ReportInput, ReportStep } from "./model.js";
import type { FileDiff } from "./types.js";

/**
 * What stays true between two reads of the same run, so a Trainer refreshing its report after
 * every step reads each record once: a committed step's record, batch and diffs never change,
 * and `rollouts.jsonl` only grows (it is read on from where the last read stopped).
 */
export class ReportMemo {
  readonly diffs = new Map<string, FileDiff[]>();
  readonly batches = new Map<string, Array<{ instance: string; trial: number }> | undefined>();
  readonly records = new Map<number, StepRecord>();
  readonly calls = new Map<string, unknown[] | undefined>();
  rollouts: RolloutRecord[] = [];
  /** Bytes of `rollouts.jsonl` already parsed (up to the last complete line). */
  rolloutBytes = 0;
}

export interface ReadOptions {
  /** An already open store (the Trainer's own), instead of opening `settings.store`. */
  store?: VersionStore;
  memo?: ReportMemo;
}

/** Gather everything the report of run `runId` shows. */
export async function readReportInput(runsDir: string, runId: string, options: ReadOptions = {}): Promise<ReportInput> {
  const problem = runIdProblem(runId);
  if (problem) throw new HermitError("USAGE", `run id '${runId}' ${problem}`, { run: runId });
  const paths = runPaths(runsDir, runId);
  const run = await readJson<RunRecord>(paths.runJson);
  if (!run) throw new HermitError("INPUT_NOT_FOUND", `${paths.runJson}: no run '${runId}' in ${runsDir}`, { path: paths.runJson });
  if (run.format !== "hermit-run") throw new HermitError("RUN_INVALID", `${paths.runJson}: not a hermit run record`, { path: paths.runJson });
  const status = run.status === "running" && !(await heldByLiveProcess(paths.lock)) ? "interrupted" : run.status;
  const memo = options.memo ?? new ReportMemo();
  const notes: string[] = [];
  // A run directory moved with its runs folder still finds the store it recorded beside it.
  const store = options.store ?? (await VersionStore.openExisting(run.settings.store)) ?? (await VersionStore.openExisting(join(runsDir, "versions.git")));
  const storePath = store?.gitdir ?? run.settings.store;
  if (!store) notes.push(`${run.settings.store}: the version store is not there, so diffs and steps a crash left unrecorded cannot be shown`);

  const ordered = await stepRecords(paths, run, store, memo, notes);
  const trees = new Map<string, string>([[run.base.commit, run.base.tree], ...ordered.map((record) => [record.commit, record.tree] as [string, string])]);
  const steps: ReportStep[] = [];
  for (const record of ordered) {
    const calls = await learningCalls(paths, record, memo);
    const step: ReportStep = { record, batch: await actingBatch(paths, record, memo), ...(calls ? { calls } : {}) };
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
  return { run, status, live: status === "running", dir: paths.dir, store: storePath, steps, rollouts: await readRollouts(paths.rollouts, memo), notes };
}

/**
 * The committed steps, oldest first. `run.json` is saved after a step's commit point, so steps
 * up to its `lastStep` are committed and their records are final; past it, Git decides: a step
 * is committed once its candidate ref exists (its record is written just before the ref, so a
 * record without a ref is a step a crash cut short). A committed step whose record is missing
 * or names another commit is rebuilt from the commit's trailers.
 */
async function stepRecords(paths: RunPaths, run: RunRecord, store: VersionStore | undefined, memo: ReportMemo, notes: string[]): Promise<StepRecord[]> {
  const refs = runRefs(run.run);
  const out: StepRecord[] = [];
  for (let step = 1; ; step++) {
    const known = memo.records.get(step);
    if (known) {
      out.push(known);
      continue;
    }
    const saved = await readJson<StepRecord>(join(stepDir(paths, step), "step.json")).catch(() => undefined);
    const commit = store && (step > run.lastStep || !saved) ? await store.getRef(refs.candidate(step)).catch(() => undefined) : saved?.commit;
    if (!commit) {
      if (step <= run.lastStep) {
        notes.push(`step ${step}: no record and no commit found`);
        continue;
      }
      return out;
    }
    let record = saved?.commit === commit ? saved : undefined;
    if (!record && store) {
      const rebuilt = (info: CommitInfo) => stepRecordFromCommit(step, info, info.parents[0] ?? commit);
      record = await store.readCommit(commit).then(rebuilt, (error) => {
        notes.push(`step ${step}: commit ${commit.slice(0, 12)} could not be read (${errorMessage(error)})`);
        return undefined;
      });
    }
    if (!record) continue;
    // Final once committed: a refresh never reads it again.
    memo.records.set(step, record);
    out.push(record);
  }
}

/** `rollouts.jsonl`, read on from where the previous read stopped (it only grows; a torn last line is left for later). */
async function readRollouts(file: string, memo: ReportMemo): Promise<RolloutRecord[]> {
  let handle;
  try {
    handle = await open(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return memo.rollouts;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    if (size < memo.rolloutBytes) [memo.rollouts, memo.rolloutBytes] = [[], 0];
    if (size === memo.rolloutBytes) return memo.rollouts;
    const buffer = Buffer.alloc(size - memo.rolloutBytes);
    await handle.read(buffer, 0, buffer.length, memo.rolloutBytes);
    const complete = buffer.lastIndexOf(0x0a) + 1;
    for (const line of buffer.subarray(0, complete).toString("utf8").split("\n")) {
      if (line.trim() === "") continue;
      try {
        const record = JSON.parse(line) as RolloutRecord;
        if (typeof record?.tree === "string" && typeof record.instance === "string" && typeof record.split === "string") memo.rollouts.push(record);
      } catch {
        // a line torn by a crash, sealed by the next append: that rollout never finished
      }
    }
    memo.rolloutBytes += complete;
    return memo.rollouts;
  } finally {
    await handle.close();
  }
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

/**
 * The usage of each model call the learner made in a step (`steps/<n>/calls/*.json`), with its
 * cost; undefined when the step recorded no calls (an Evolver without a model, or a run from
 * before call records).
 */
async function learningCalls(paths: RunPaths, record: StepRecord, memo: ReportMemo): Promise<unknown[] | undefined> {
  const key = `${record.step}:${record.commit}`;
  if (memo.calls.has(key)) return memo.calls.get(key);
  const dir = join(stepDir(paths, record.step), "calls");
  const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => name.endsWith(".json")).sort();
  const calls: unknown[] = [];
  for (const name of names) {
    const call = await readJson<{ role?: string; status?: string; usage?: Record<string, unknown>; costUsd?: number }>(join(dir, name)).catch(() => undefined);
    // A call a budget refused was never made: it spent nothing, known or unknown.
    if (!call || (call.role !== undefined && call.role !== "learning") || call.status === "refused") continue;
    calls.push({ ...(call.usage ?? {}), ...(typeof call.costUsd === "number" ? { costUsd: call.costUsd } : {}) });
  }
  const out = names.length > 0 ? calls : undefined;
  memo.calls.set(key, out);
  return out;
}
