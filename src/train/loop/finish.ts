/**
 * The end of a run: the sealed test split scored once for the base and the final version,
 * `origin` written into the final `adapter.yaml`, `CARD.md`, the final commit and tag, and the
 * optional deploys. The final tag is this phase's commit point; everything after it is
 * idempotent.
 */
import { join } from "node:path";
import { parseDocument } from "yaml";
import { MANIFEST_FILE } from "../../adapter/manifest.js";
import { deploy } from "../../deploy/deploy.js";
import { errorMessage } from "../../errors.js";
import { hermitVersion } from "../../package-root.js";
import { writeFileAtomic } from "../../fs/atomic.js";
import { diffFiles, renderCard } from "../card.js";
import { syncCheckout } from "../checkout.js";
import type { DeploymentRecord, Evaluation } from "../records.js";
import { stepDir } from "../run-dir.js";
import { runBatch, type BatchVersion } from "../rollouts.js";
import type { RunStatus } from "../types.js";
import { batchItems, instances, runUsage, saveRun, summarize, type RunContext } from "./context.js";
import { ensureRolloutAdapter } from "./pointers.js";

export interface FinishOutcome {
  commit: string;
  tag: string;
  test: { base: Evaluation; final: Evaluation };
  deployments: DeploymentRecord[];
}

export async function finishRun(context: RunContext, status: RunStatus, reason?: string): Promise<FinishOutcome> {
  const { store, paths, refs, run, settings } = context;
  const dir = stepDir(paths, "final");
  context.progress.stepStarted(0, 0);
  await ensureRolloutAdapter(context);
  const accepted = { ...context.accepted };

  // The sealed test split: scored once per version (the cache makes a resume free).
  const list = await instances(context, "test");
  const finalVersion: BatchVersion = { tree: accepted.tree, dir: paths.rolloutAdapter };
  let baseVersion = finalVersion;
  if (run.base.tree !== accepted.tree) {
    baseVersion = { tree: run.base.tree, dir: join(dir, "base-version") };
    await store.exportTree(run.base.tree, baseVersion.dir);
  }
  const evaluate = async (version: BatchVersion, role: "base" | "final") => {
    const items = batchItems(context, list, dir, "test", role);
    context.progress.batchStarted(`test (${role})`, items.length);
    const outcome = await runBatch(version, "test", items, "final", { ...context.rollouts, onSettled: (_r, cached) => context.progress.rolloutSettled(cached) });
    context.progress.batchFinished();
    run.rollouts.cached += outcome.cached;
    return outcome.records;
  };
  const test = {
    base: summarize(run.base.commit, run.base.tree, await evaluate(baseVersion, "base")),
    final: summarize(accepted.commit, accepted.tree, await evaluate(finalVersion, "final")),
  };

  run.status = status;
  run.rollouts.ran = context.cache.size;
  run.usage = runUsage(context);
  if (reason) run.reason = reason;
  else delete run.reason;

  // The final version: the last accepted one, with `origin` and its card.
  const files = await store.readFileMap(accepted.tree);
  const baseFiles = await store.readFileMap(run.base.tree);
  const manifestEntry = files.get(MANIFEST_FILE)!;
  const manifestText = Buffer.from(await store.readBlob(manifestEntry.oid)).toString("utf8");
  const origin = {
    run: run.run,
    step: accepted.step,
    parent: accepted.commit,
    template: run.template.commit,
    base: run.base.commit,
    tag: refs.final,
    hermit: hermitVersion,
  };
  const manifest = parseDocument(manifestText);
  manifest.set("origin", manifest.createNode(origin));
  const card = renderCard({ run, steps: context.steps, test, changes: diffFiles(baseFiles, files), adapterName: run.base.adapterName, finalTag: refs.final });
  files.set(MANIFEST_FILE, { oid: await store.writeBlob(Buffer.from(manifest.toString())), mode: manifestEntry.mode });
  files.set("CARD.md", { oid: await store.writeBlob(Buffer.from(card)), mode: "100644" });
  const tree = await store.writeFileMap(files);

  const existing = await store.getRef(`refs/tags/${refs.final}`);
  const existingCommit = existing ? await store.peel(existing) : undefined;
  const reusable = existingCommit ? await store.readCommit(existingCommit) : undefined;
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
  run.final = { commit, tag: refs.final, test };
  await saveRun(context);

  const deployments: DeploymentRecord[] = [];
  for (const target of settings.deploy) {
    context.progress.note(`deploying the final version to ${target.workspace} for ${target.host}`);
    try {
      const result = await deploy({ adapter: paths.checkout, workspace: target.workspace, host: target.host });
      deployments.push({ host: target.host, workspace: result.workspace, changed: result.changed });
    } catch (error) {
      deployments.push({ host: target.host, workspace: target.workspace, changed: false, error: errorMessage(error) });
    }
  }
  if (deployments.length > 0) {
    run.deployments = deployments;
    await saveRun(context);
  }
  return { commit, tag: refs.final, test, deployments };
}

const fmt = (score: number | null) => (score === null ? "none" : score.toFixed(4));
