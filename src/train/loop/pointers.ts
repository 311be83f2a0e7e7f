/**
 * Moving a run's pointers after a step's commit point: the accepted version, the run branch, the
 * Evolver's state ref, the checkpoint tag, `rollout_adapter/`, `checkout/`, `run.json`. Every
 * operation is idempotent, so a resume can redo them from Git after a crash. This is the one
 * place a step moves the run's state on.
 */
import { updateCheckout } from "../checkout.js";
import { runRefs } from "../run-dir.js";
import type { VersionStore } from "../store.js";
import type { CommittedStep } from "./commit.js";
import { saveRun, withStep, type AcceptedVersion, type RunEnvironment, type RunState } from "./run-state.js";

/** The run's state after a committed step (pure). */
export function stateAfter(state: RunState, { record, stateCommit }: CommittedStep): RunState {
  // A rejected step still measured the accepted version: its score is known from then on.
  const accepted: AcceptedVersion =
    record.status === "accepted" ? { commit: record.commit, tree: record.tree, step: record.step, score: record.score } : { ...state.run.accepted, score: record.acceptedScore };
  return {
    run: { ...state.run, accepted, lastStep: record.step, rollouts: { ...state.run.rollouts, cached: state.run.rollouts.cached + record.rollouts.cached } },
    steps: withStep(state.steps, record),
    stateCommit,
  };
}

/** Apply a committed step: branch, state ref, checkpoint tag, the accepted version's folders, `run.json`. */
export async function movePointers(env: RunEnvironment, state: RunState, committed: CommittedStep): Promise<RunState> {
  const { store, refs, settings } = env;
  const next = stateAfter(state, committed);
  const accepted = next.run.accepted;
  await store.setRef(refs.branch, accepted.commit);
  await store.setRef(refs.state, committed.stateCommit);
  if (committed.record.step % settings.checkpointEvery === 0) await tagCheckpoint(store, next.run.run, committed.record.step, accepted);
  // The worktree follows the branch; its files only need rewriting when the tree changed.
  if (accepted.tree !== state.run.accepted.tree) {
    await store.exportTree(accepted.tree, env.paths.rolloutAdapter);
    await updateCheckout(store, env.paths.checkout, refs.branchName, accepted.tree);
  }
  return { ...next, run: await saveRun(env, next) };
}

/** Tag `hermit/<run>/step-<n>` on the version accepted as of step n. */
export async function tagCheckpoint(store: VersionStore, runId: string, step: number, accepted: AcceptedVersion): Promise<void> {
  await store.tag(runRefs(runId).checkpoint(step), accepted.commit, `hermit run ${runId}: accepted version after step ${step} (accepted at step ${accepted.step})`);
}
