/**
 * Opening a run: a new one (validate inputs, record the template and the base version, lay out
 * the run directory) or a resumed one (rebuild the run's state from Git, the source of truth,
 * plus the step records, and redo any pointer move a crash interrupted).
 */
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readManifest } from "../../adapter/read.js";
import { HermitError } from "../../errors.js";
import { hermitVersion } from "../../package-root.js";
import { checkSpec } from "../../check/check.js";
import { readJson, writeJson } from "../../fs/json.js";
import { syncCheckout } from "../checkout.js";
import { lockRun, type RunLock } from "../lock.js";
import type { RunRecord, StepRecord } from "../records.js";
import { runPaths, runRefs, stepDir, templateRef, type RunPaths } from "../run-dir.js";
import { stepRecordFromCommit } from "../rebuild.js";
import { runIdProblem } from "../settings/kinds.js";
import type { TrainSettings } from "../settings/table.js";
import { VersionStore } from "../store.js";
import { emptyUsage } from "../usage.js";
import type { AcceptedVersion } from "./context.js";
import { tagCheckpoint } from "./pointers.js";

/** What opening a run yields; the trainer adds the plugins, cache and progress. */
export interface OpenedRun {
  settings: TrainSettings;
  paths: RunPaths;
  lock: RunLock;
  store: VersionStore;
  run: RunRecord;
  steps: StepRecord[];
  accepted: AcceptedVersion;
  stateCommit?: string;
}

export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${randomBytes(2).toString("hex")}`;
}

/** Start a new run. Inputs are validated before anything is written. */
export async function createRun(input: TrainSettings, names: { task: string; evolver: string }): Promise<OpenedRun> {
  const settings = { ...input, runId: input.runId ?? newRunId() };
  const runId = settings.runId;
  const paths = runPaths(settings.runsDir, runId);
  if (await readJson(paths.runJson)) {
    throw new HermitError("RUN_INVALID", `${paths.dir}: run '${runId}' already exists; resume it with --resume ${runId}, or choose another --run-id`, { path: paths.dir });
  }
  await requireDirectory(settings.template, "template");
  const templateManifest = await readManifest(settings.template);
  const storeExists = (await stat(join(settings.store, "HEAD")).catch(() => undefined)) !== undefined;
  if (settings.from && !storeExists) {
    throw new HermitError("INPUT_NOT_FOUND", `${settings.store}: no version store here to start --from '${settings.from}' (set --store, or --runs-dir to the runs that made it)`, {
      path: settings.store,
    });
  }
  const existingStore = storeExists ? await VersionStore.open(settings.store) : undefined;
  if (existingStore) await checkRunIdFree(existingStore, runId);
  const fromCommit = settings.from && existingStore ? await existingStore.resolveCommit(settings.from) : undefined;
  await checkBase(settings, existingStore, fromCommit);

  await mkdir(paths.dir, { recursive: true });
  const lock = await lockRun(paths.lock, runId);
  try {
    // Leftovers of a preparation that crashed before run.json was written.
    for (const entry of await readdir(paths.dir)) if (entry !== ".lock") await rm(join(paths.dir, entry), { recursive: true, force: true });
    const store = existingStore ?? (await VersionStore.open(settings.store));
    const refs = runRefs(runId);

    const template = await store.writeDirectory(settings.template);
    let templateCommit = await store.getRef(templateRef(template.tree));
    if (!templateCommit) {
      templateCommit = await store.commit({
        tree: template.tree,
        parents: [],
        message: { subject: `template ${templateManifest.template?.name ?? templateManifest.name} v${templateManifest.template?.version ?? templateManifest.version}`, trailers: {} },
      });
      await store.setRef(templateRef(template.tree), templateCommit);
    }
    await store.exportTree(template.tree, paths.root);

    let baseCommit: string;
    let baseTree: string;
    if (fromCommit) {
      baseCommit = fromCommit;
      baseTree = (await store.readCommit(fromCommit)).tree;
    } else {
      baseTree = (await store.writeDirectory(settings.adapter!)).tree;
      const manifest = await readManifest(settings.adapter!);
      baseCommit = await store.commit({
        tree: baseTree,
        parents: [],
        message: { subject: `base: ${manifest.name} ${manifest.version} from ${settings.adapter}`, trailers: { "Hermit-Run": runId, "Hermit-Step": "0", "Hermit-Status": "base" } },
      });
    }
    await store.setRef(refs.base, baseCommit);
    await store.setRef(refs.branch, baseCommit);
    await store.pointHead(refs.branch);
    await store.exportTree(baseTree, paths.rolloutAdapter);
    await store.exportTree(baseTree, paths.candidate);
    await mkdir(paths.state, { recursive: true });
    await mkdir(paths.steps, { recursive: true });
    await syncCheckout(store.gitdir, paths.checkout, refs.branchName);
    const baseManifest = await readManifest(paths.rolloutAdapter);

    const now = new Date().toISOString();
    const accepted: AcceptedVersion = { commit: baseCommit, tree: baseTree, step: 0, score: null };
    const run: RunRecord = {
      format: "hermit-run",
      formatVersion: 1,
      run: runId,
      hermitVersion,
      status: "running",
      createdAt: now,
      updatedAt: now,
      settings,
      branch: refs.branchName,
      base: { commit: baseCommit, tree: baseTree, ...(settings.from ? { from: settings.from } : {}), adapterName: baseManifest.name, adapterVersion: baseManifest.version },
      template: { commit: templateCommit, tree: template.tree, path: settings.template, name: templateManifest.template?.name, version: templateManifest.template?.version },
      task: names.task,
      evolver: names.evolver,
      accepted,
      lastStep: 0,
      elapsedSeconds: 0,
      rollouts: { ran: 0, cached: 0 },
      usage: emptyUsage(),
    };
    return { settings, paths, lock, store, run, steps: [], accepted };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/**
 * A run id names refs in a store shared by runs: a new run must not take over the steps and tags
 * of an earlier run of the same name (whose run directory was deleted, or lives in another
 * runs directory). Refs of a run that crashed before its first step hold nothing and are reused.
 */
async function checkRunIdFree(store: VersionStore, runId: string): Promise<void> {
  const refs = runRefs(runId);
  const steps = await store.listRefs(refs.candidates);
  const final = await store.getRef(`refs/tags/${refs.final}`);
  if (steps.length > 0 || final) {
    throw new HermitError(
      "RUN_INVALID",
      `${store.gitdir}: the version store already holds run '${runId}' (${steps.length} step${steps.length === 1 ? "" : "s"}${final ? `, tag ${refs.final}` : ""}); choose another --run-id, or start from it with --from ${final ? refs.final : refs.branchName}`,
      { path: store.gitdir, run: runId },
    );
  }
}

/** A setting that names a directory must name one (checked before anything is written). */
async function requireDirectory(dir: string, what: string): Promise<void> {
  if (!(await stat(dir).catch(() => undefined))?.isDirectory()) {
    throw new HermitError("INPUT_NOT_FOUND", `${dir}: ${what} directory not found`, { path: dir });
  }
}

/** The base must meet the template's specification before a run starts from it. */
async function checkBase(settings: TrainSettings, store: VersionStore | undefined, fromCommit: string | undefined): Promise<void> {
  let dir = settings.adapter!;
  let scratch: string | undefined;
  if (fromCommit && store) {
    scratch = await mkdtemp(join(tmpdir(), "hermit-base-"));
    dir = join(scratch, "adapter");
    await store.exportTree((await store.readCommit(fromCommit)).tree, dir);
  }
  try {
    const result = await checkSpec(dir, settings.template, { manifestErrors: "issue" });
    if (!result.passed) {
      const where = settings.from ? `${settings.from} (in ${settings.store})` : dir;
      throw new HermitError(
        "RUN_INVALID",
        `${where}: the base adapter does not meet the template's specification (${settings.template}):\n  ${result.issues.map((i) => `${i.path}: ${i.problem} (${i.check})`).join("\n  ")}`,
        { path: where, issues: result.issues },
      );
    }
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

/** Reopen a run after a crash (or to extend it): rebuild its state from Git and the step records. */
export async function reopenRun(runsDir: string, runId: string, override: (recorded: TrainSettings) => Promise<TrainSettings>): Promise<OpenedRun> {
  const problem = runIdProblem(runId);
  if (problem) throw new HermitError("USAGE", `--resume '${runId}': a run id ${problem}`, { run: runId });
  const paths = runPaths(runsDir, runId);
  const recorded = await readJson<RunRecord>(paths.runJson);
  if (!recorded) {
    throw new HermitError("RUN_INVALID", `${paths.runJson}: no run '${runId}' to resume in ${runsDir} (it may have crashed while being prepared; start it again)`, {
      path: paths.runJson,
    });
  }
  if (recorded.format !== "hermit-run") throw new HermitError("RUN_INVALID", `${paths.runJson}: not a hermit run record`, { path: paths.runJson });
  const settings = await override(recorded.settings);
  const lock = await lockRun(paths.lock, runId);
  try {
    const store = await VersionStore.open(settings.store);
    const refs = runRefs(runId);
    const stepRefs = await store.listRefs(refs.candidates);
    const numbers = stepRefs.map((ref) => Number(/step-(\d+)$/.exec(ref)?.[1])).filter(Number.isInteger).sort((a, b) => a - b);
    numbers.forEach((n, index) => {
      if (n !== index + 1) throw new HermitError("RUN_INVALID", `${settings.store}: run '${runId}' has step commits ${numbers.join(", ")}; step ${index + 1} is missing`, { path: settings.store });
    });

    const base = await store.getRef(refs.base);
    if (!base) throw new HermitError("RUN_INVALID", `${settings.store}: run '${runId}' has no base ref ${refs.base}`, { path: settings.store });
    const baseTree = (await store.readCommit(base)).tree;
    const run: RunRecord = { ...recorded, settings, status: "running" };
    delete run.reason;
    const opened: OpenedRun = { settings, paths, lock, store, run, steps: [], accepted: { commit: base, tree: baseTree, step: 0, score: null } };
    let stateCommit: string | undefined;
    for (const step of numbers) {
      const commit = (await store.getRef(refs.candidate(step)))!;
      const saved = await readJson<StepRecord>(join(stepDir(paths, step), "step.json"));
      let record = saved;
      if (!record || record.commit !== commit) {
        record = await rebuildStepRecord(store, step, commit, opened.accepted);
        await writeJson(join(stepDir(paths, step), "step.json"), record);
      }
      if (record.status === "accepted") opened.accepted = { commit: record.commit, tree: record.tree, step, score: record.score };
      if (step % settings.checkpointEvery === 0) await tagCheckpoint(store, runId, step, opened.accepted);
      stateCommit = (await store.readCommit(commit)).message.trailers["Hermit-State"] ?? stateCommit;
      opened.steps.push(record);
    }
    await store.setRef(refs.branch, opened.accepted.commit);
    if (stateCommit) await store.setRef(refs.state, stateCommit);
    // The Evolver's state as of the last committed step (a crashed step's edits are dropped).
    const stateTree = stateCommit ? (await store.readCommit(stateCommit)).tree : await store.writeFileMap(new Map());
    await store.exportTree(stateTree, paths.state);
    await store.exportTree(opened.accepted.tree, paths.rolloutAdapter);
    await syncCheckout(store.gitdir, paths.checkout, refs.branchName);

    run.lastStep = numbers.length;
    run.accepted = { ...opened.accepted };
    run.rollouts = { ran: recorded.rollouts.ran, cached: opened.steps.reduce((sum, record) => sum + record.rollouts.cached, 0) };
    return { ...opened, run, stateCommit };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** A step record from its commit alone, for a step whose `step.json` a crash lost. */
async function rebuildStepRecord(store: VersionStore, step: number, commit: string, acceptedBefore: AcceptedVersion): Promise<StepRecord> {
  return stepRecordFromCommit(step, await store.readCommit(commit), acceptedBefore.commit);
}
