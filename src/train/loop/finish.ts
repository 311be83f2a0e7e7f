/**
 * The end of a run: the sealed test split scored once for the base and the final version, the
 * final version (`origin` in `adapter.yaml`, `CARD.md`) committed and tagged — the phase's commit
 * point, everything after it is idempotent — exported to a stable folder, and deployed from there.
 */
import { join } from "node:path";
import { parseDocument } from "yaml";
import { MANIFEST_FILE } from "../../adapter/manifest.js";
import { hermitVersion } from "../../package-root.js";
import { writeFileAtomic } from "../../fs/atomic.js";
import { diffFiles, renderCard } from "../card.js";
import { syncCheckout } from "../checkout.js";
import type { DeploymentRecord, Evaluation, RunRecord, StepRecord } from "../records.js";
import { stepDir } from "../run-dir.js";
import type { BatchVersion } from "../rollouts/batch.js";
import type { RolloutRecord } from "../types.js";
import { mean, tidy } from "../acceptance.js";
import { runVersionBatch } from "./act.js";
import type { RunEnd } from "./decisions.js";
import { deployFinal, exportFinal } from "./deliver.js";
import { committedRecords } from "./history.js";
import { runUsage, saveRun, type RunEnvironment, type RunState } from "./run-state.js";

export interface FinishOutcome {
  state: RunState;
  commit: string;
  tag: string;
  test: { base: Evaluation; final: Evaluation };
  /** The folder holding the final version. */
  exported: string;
  deployments: DeploymentRecord[];
  /** Every committed step's record, oldest first (read back for the card). */
  records: StepRecord[];
}

export async function finishRun(env: RunEnvironment, state: RunState, end: RunEnd): Promise<FinishOutcome> {
  env.progress.note("scoring the sealed test split (base and final version)");
  const sealed = await scoreSealedTest(env, state);
  const ended: RunState = {
    ...state,
    run: {
      ...withEnd(state.run, end),
      rollouts: { ran: env.batches.cache.size, cached: state.run.rollouts.cached + sealed.cached },
      usage: runUsage(env.batches.cache, state.steps),
      ...(env.batches.cache.adapterUse.rollouts > 0 ? { adapterUse: env.batches.cache.adapterUse } : {}),
    },
  };
  const records = await committedRecords(env, state.steps.count);
  const final = await commitFinal(env, ended, records, sealed.test);
  const exported = await exportFinal(env, final.tree);
  const saved: RunState = { ...ended, run: await saveRun(env, { ...ended, run: { ...ended.run, final: { commit: final.commit, tag: env.refs.final, test: sealed.test }, exported } }) };
  const deployments = await deployFinal(env, exported);
  const done = deployments.length > 0 ? { ...saved, run: await saveRun(env, { ...saved, run: { ...saved.run, deployments } }) } : saved;
  return { state: done, commit: final.commit, tag: env.refs.final, test: sealed.test, exported, deployments, records };
}

function withEnd(run: RunRecord, end: RunEnd): RunRecord {
  const { reason: _previous, ...rest } = run;
  return { ...rest, status: end.status, ...(end.reason ? { reason: end.reason } : {}) };
}

/** The sealed test split, scored once per version (the cache makes a resume free). */
async function scoreSealedTest(env: RunEnvironment, state: RunState): Promise<{ test: FinishOutcome["test"]; cached: number }> {
  const { store, paths } = env;
  const dir = stepDir(paths, "final");
  const { base } = state.run;
  const accepted = state.run.accepted;
  env.progress.stepStarted(0, 0);
  await store.exportTree(accepted.tree, paths.rolloutAdapter);
  const finalVersion: BatchVersion = { tree: accepted.tree, dir: paths.rolloutAdapter };
  let baseVersion = finalVersion;
  if (base.tree !== accepted.tree) {
    baseVersion = { tree: base.tree, dir: join(dir, "base-version") };
    await store.exportTree(base.tree, baseVersion.dir);
  }
  const request = { split: "test" as const, instances: env.instances.test, stepPath: dir, step: "final" as const };
  const baseBatch = await runVersionBatch(env, { ...request, version: baseVersion, role: "base", label: "test (base)" });
  const finalBatch = await runVersionBatch(env, { ...request, version: finalVersion, role: "final", label: "test (final)" });
  return {
    test: { base: evaluation(base.commit, base.tree, baseBatch.records), final: evaluation(accepted.commit, accepted.tree, finalBatch.records) },
    cached: baseBatch.cached + finalBatch.cached,
  };
}

/** Scores of one version, summarized (pure). */
export function evaluation(commit: string, tree: string, records: RolloutRecord[]): Evaluation {
  const scores = records.flatMap((record) => (record.score === null ? [] : [record.score]));
  return { commit, tree, score: tidy(mean(scores)), measured: scores.length, missing: records.length - scores.length };
}

/** The final version — the last accepted one with `origin` and its card — committed and tagged. */
async function commitFinal(env: RunEnvironment, state: RunState, records: StepRecord[], test: FinishOutcome["test"]): Promise<{ commit: string; tree: string }> {
  const { store, paths, refs } = env;
  const { run } = state;
  const accepted = run.accepted;
  const files = await store.readFileMap(accepted.tree);
  const manifestEntry = files.get(MANIFEST_FILE)!;
  const manifest = parseDocument(Buffer.from(await store.readBlob(manifestEntry.oid)).toString("utf8"));
  const origin = { run: run.run, step: accepted.step, parent: accepted.commit, template: run.template.commit, base: run.base.commit, tag: refs.final, hermit: hermitVersion };
  manifest.set("origin", manifest.createNode(origin));
  const changes = diffFiles(await store.readFileMap(run.base.tree), files);
  const card = renderCard({ run, steps: records, test, changes, adapterName: run.base.adapterName, finalTag: refs.final });
  files.set(MANIFEST_FILE, { oid: await store.writeBlob(Buffer.from(manifest.toString())), mode: manifestEntry.mode });
  files.set("CARD.md", { oid: await store.writeBlob(Buffer.from(card)), mode: "100644" });
  const tree = await store.writeFileMap(files);

  const existing = await store.getRef(`refs/tags/${refs.final}`);
  const reusable = existing ? await store.readCommit(await store.peel(existing)) : undefined;
  const commit =
    reusable && reusable.tree === tree && reusable.parents[0] === accepted.commit
      ? reusable.oid
      : await store.commit({
          tree,
          parents: [accepted.commit],
          message: {
            subject: `final: ${run.base.adapterName} after ${run.lastStep} step${run.lastStep === 1 ? "" : "s"} of run ${run.run}`,
            body: `Test split: base ${fmt(test.base.score)}, final ${fmt(test.final.score)}.`,
            trailers: { "Hermit-Run": run.run, "Hermit-Step": String(run.lastStep), "Hermit-Status": "final", "Hermit-Parent": accepted.commit },
          },
        });
  // The commit point of the final phase.
  await store.tag(refs.final, commit, `hermit run ${run.run}: final version (test ${fmt(test.base.score)} → ${fmt(test.final.score)})`);
  await store.setRef(refs.branch, commit);
  await syncCheckout(store.gitdir, paths.checkout, refs.branchName);
  await writeFileAtomic(paths.card, card, { mkdir: true });
  return { commit, tree };
}

const fmt = (score: number | null) => (score === null ? "none" : score.toFixed(4));
