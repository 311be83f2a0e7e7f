/**
 * Reopening a recorded run (after a crash, or to extend it): its state rebuilt from Git, the
 * source of truth, plus the step records; any pointer move a crash interrupted redone.
 */
import { join } from "node:path";
import { HermitError } from "../../errors.js";
import { readJson, writeJson } from "../../fs/json.js";
import { syncCheckout } from "../checkout.js";
import { lockRun } from "../lock.js";
import type { RunRecord, StepRecord } from "../records.js";
import { runPaths, runRefs, stepDir, type RunPaths } from "../run-dir.js";
import { runIdProblem } from "../settings/kinds.js";
import type { TrainSettings } from "../settings/table.js";
import { VersionStore } from "../store.js";
import { stepRecordFromCommit } from "../rebuild.js";
import type { OpenedRun } from "./create-run.js";
import { tagCheckpoint } from "./pointers.js";
import { noSteps, withStep, type AcceptedVersion } from "./run-state.js";

/** Reopen run `runId` of `runsDir`; `override` gives the settings it continues with (checked against the record). */
export async function reopenRun(runsDir: string, runId: string, override: (recorded: TrainSettings) => Promise<TrainSettings>): Promise<OpenedRun> {
  const problem = runIdProblem(runId);
  if (problem) throw new HermitError("USAGE", `--resume '${runId}': a run id ${problem}`, { run: runId });
  const paths = runPaths(runsDir, runId);
  const recorded = await readJson<RunRecord>(paths.runJson);
  if (!recorded) {
    throw new HermitError(
      "RUN_INVALID",
      `${paths.runJson}: no run '${runId}' to resume in ${runsDir}. If it lives elsewhere, give the same --runs-dir (or the same --config) the run was started with; if it crashed while being prepared, start it again`,
      { path: paths.runJson },
    );
  }
  if (recorded.format !== "hermit-run") throw new HermitError("RUN_INVALID", `${paths.runJson}: not a hermit run record`, { path: paths.runJson });
  const settings = await override(upgradeSettings(recorded.settings));
  const lock = await lockRun(paths.lock, runId);
  try {
    const store = await VersionStore.open(settings.store);
    const { steps, accepted, stateCommit } = await replaySteps(store, settings, paths, runId);
    const refs = runRefs(runId);
    await store.setRef(refs.branch, accepted.commit);
    if (stateCommit) await store.setRef(refs.state, stateCommit);
    // The Evolver's state as of the last committed step (a crashed step's edits are dropped).
    const stateTree = stateCommit ? (await store.readCommit(stateCommit)).tree : await store.writeFileMap(new Map());
    await store.exportTree(stateTree, paths.state);
    await store.exportTree(accepted.tree, paths.rolloutAdapter);
    await syncCheckout(store.gitdir, paths.checkout, refs.branchName);
    const { reason: _reason, ...rest } = recorded;
    const run: RunRecord = {
      ...rest,
      settings,
      status: "running",
      lastStep: steps.length,
      accepted,
      rollouts: { ran: recorded.rollouts.ran, cached: steps.reduce((sum, record) => sum + record.rollouts.cached, 0) },
    };
    return { settings, paths, lock, store, state: { run, steps: steps.reduce(withStep, noSteps), ...(stateCommit ? { stateCommit } : {}) } };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** A run recorded by an earlier hermit: `pool` was a Trainer setting, it is now the select Evolver's option; `max-tokens` was a number. */
function upgradeSettings(recorded: TrainSettings & { pool?: string }): TrainSettings {
  // Earlier hermits recorded max-tokens as one number: the run's total.
  const oldTokens = recorded.maxTokens as unknown;
  const settings = typeof oldTokens === "number" ? { ...recorded, maxTokens: { total: oldTokens } } : recorded;
  const { pool, ...rest } = settings;
  if (pool === undefined) return settings;
  return { ...rest, evolverOptions: { ...rest.evolverOptions, pool } };
}

/** The committed steps, in order, with the accepted version and the Evolver's state after the last; checkpoint tags redone. */
async function replaySteps(store: VersionStore, settings: TrainSettings, paths: RunPaths, runId: string) {
  const refs = runRefs(runId);
  const numbers = (await store.listRefs(refs.candidates))
    .map((ref) => Number(/step-(\d+)$/.exec(ref)?.[1]))
    .filter(Number.isInteger)
    .sort((a, b) => a - b);
  numbers.forEach((n, index) => {
    if (n !== index + 1) throw new HermitError("RUN_INVALID", `${settings.store}: run '${runId}' has step commits ${numbers.join(", ")}; step ${index + 1} is missing`, { path: settings.store });
  });
  const base = await store.getRef(refs.base);
  if (!base) throw new HermitError("RUN_INVALID", `${settings.store}: run '${runId}' has no base ref ${refs.base}`, { path: settings.store });
  let accepted: AcceptedVersion = { commit: base, tree: (await store.readCommit(base)).tree, step: 0, score: null };
  let stateCommit: string | undefined;
  const steps: StepRecord[] = [];
  for (const step of numbers) {
    const commit = (await store.getRef(refs.candidate(step)))!;
    let record = await readJson<StepRecord>(join(stepDir(paths, step), "step.json"));
    if (!record || record.commit !== commit) {
      record = stepRecordFromCommit(step, await store.readCommit(commit), accepted.commit);
      await writeJson(join(stepDir(paths, step), "step.json"), record);
    }
    accepted = record.status === "accepted" ? { commit: record.commit, tree: record.tree, step, score: record.score } : { ...accepted, score: record.acceptedScore };
    if (step % settings.checkpointEvery === 0) await tagCheckpoint(store, runId, step, accepted);
    stateCommit = (await store.readCommit(commit)).message.trailers["Hermit-State"] ?? stateCommit;
    steps.push(record);
  }
  return { steps, accepted, stateCommit };
}
