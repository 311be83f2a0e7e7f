/**
 * Moving a run's pointers after a step's commit point: the run branch, the Evolver's state
 * ref, checkpoint tags, `rollout_adapter/`, `checkout/`, `run.json`. Every operation is
 * idempotent, so a resume can redo them from Git after a crash.
 */
import { syncCheckout } from "../checkout.js";
import type { StepRecord } from "../records.js";
import { runRefs } from "../run-dir.js";
import type { VersionStore } from "../store.js";
import { saveRun, type AcceptedVersion, type RunContext } from "./context.js";

/**
 * Make `rollout_adapter/` hold exactly the accepted version. Always compared file by file (cheap:
 * only differing files are written), since a task or an Evolver may have written into it.
 */
export async function ensureRolloutAdapter(context: RunContext): Promise<void> {
  await context.store.exportTree(context.accepted.tree, context.paths.rolloutAdapter);
}

/** Apply a committed step: accepted pointer, branch, state ref, checkpoint tag, records. */
export async function applyCommittedStep(context: RunContext, record: StepRecord, stateCommit: string | undefined): Promise<void> {
  const { store, refs, settings } = context;
  const treeBefore = context.accepted.tree;
  if (record.status === "accepted") {
    context.accepted = { commit: record.commit, tree: record.tree, step: record.step, score: record.score };
  }
  await store.setRef(refs.branch, context.accepted.commit);
  if (stateCommit) {
    await store.setRef(refs.state, stateCommit);
    context.stateCommit = stateCommit;
  }
  if (record.step % settings.checkpointEvery === 0) await tagCheckpoint(store, settings.runId!, record.step, context.accepted);
  context.steps.push(record);
  context.run.lastStep = record.step;
  context.run.accepted = { ...context.accepted };
  context.run.rollouts.cached += record.rollouts.cached;
  // The worktree follows the branch; its files only need rewriting when the tree changed.
  if (record.status === "accepted" && record.tree !== treeBefore) {
    await ensureRolloutAdapter(context);
    await syncCheckout(store.gitdir, context.paths.checkout, refs.branchName);
  }
  await saveRun(context);
}

/** Tag `hermit/<run>/step-<n>` on the version accepted as of step n. */
export async function tagCheckpoint(store: VersionStore, runId: string, step: number, accepted: AcceptedVersion): Promise<void> {
  await store.tag(
    runRefs(runId).checkpoint(step),
    accepted.commit,
    `hermit run ${runId}: accepted version after step ${step} (accepted at step ${accepted.step})`,
  );
}
