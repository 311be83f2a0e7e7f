/** `hermit runs list` and `hermit runs show`: reading runs back from their directories. */
import { readdir, readFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { HermitError } from "../errors.js";
import { readJson, readJsonLines } from "../fs/json.js";
import type { RunRecord, StepRecord } from "./records.js";
import type { RolloutRecord } from "./types.js";
import { runPaths, stepDir } from "./run-dir.js";
import { runIdProblem } from "./settings/kinds.js";

export interface RunSummary {
  run: string;
  /** The recorded status, or `interrupted` for a `running` run that no live process holds. */
  status: RunRecord["status"] | "interrupted";
  reason?: string;
  createdAt: string;
  updatedAt: string;
  lastStep: number;
  steps: number;
  acceptedScore: number | null;
  test?: { base: number | null; final: number | null };
  finalTag?: string;
  dir: string;
}

export interface RunDetails extends RunSummary {
  record: RunRecord;
  stepRecords: StepRecord[];
  /** Every rollout that ran, in the order they finished (`rollouts.jsonl`), when asked for. */
  rollouts?: RolloutRecord[];
}

/** Every run under `runsDir`, newest first. */
export async function listRuns(runsDir: string): Promise<RunSummary[]> {
  const entries = await readdir(runsDir, { withFileTypes: true }).catch(() => []);
  const runs: RunSummary[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const paths = runPaths(runsDir, entry.name);
    const record = await readJson<RunRecord>(paths.runJson).catch(() => undefined);
    if (record?.format === "hermit-run") runs.push(await summarize(record, paths.dir, paths.lock));
  }
  return runs.sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
}

export async function showRun(runsDir: string, runId: string, options: { rollouts?: boolean } = {}): Promise<RunDetails> {
  const problem = runIdProblem(runId);
  if (problem) throw new HermitError("USAGE", `run id '${runId}' ${problem}`, { run: runId });
  const paths = runPaths(runsDir, runId);
  const record = await readJson<RunRecord>(paths.runJson);
  if (!record) throw new HermitError("INPUT_NOT_FOUND", `${paths.runJson}: no run '${runId}' in ${runsDir}`, { path: paths.runJson });
  const stepRecords: StepRecord[] = [];
  for (let step = 1; step <= record.lastStep; step++) {
    const saved = await readJson<StepRecord>(join(stepDir(paths, step), "step.json"));
    if (saved) stepRecords.push(saved);
  }
  const rollouts = options.rollouts ? { rollouts: await readJsonLines<RolloutRecord>(paths.rollouts) } : {};
  return { ...(await summarize(record, paths.dir, paths.lock)), record, stepRecords, ...rollouts };
}

async function summarize(record: RunRecord, dir: string, lock: string): Promise<RunSummary> {
  return {
    run: record.run,
    status: record.status === "running" && !(await heldByLiveProcess(lock)) ? "interrupted" : record.status,
    ...(record.reason ? { reason: record.reason } : {}),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    lastStep: record.lastStep,
    steps: record.settings.steps,
    acceptedScore: record.accepted.score,
    ...(record.final ? { test: { base: record.final.test.base.score, final: record.final.test.final.score }, finalTag: record.final.tag } : {}),
    dir,
  };
}

/** Does a live process hold this run's `.lock` (a lock from another host counts as held)? */
export async function heldByLiveProcess(lock: string): Promise<boolean> {
  try {
    const holder = JSON.parse(await readFile(lock, "utf8")) as { pid: number; host: string };
    if (holder.host !== hostname()) return true;
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
