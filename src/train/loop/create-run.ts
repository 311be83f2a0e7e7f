/**
 * Opening a new run: inputs validated before anything is written (run id free, template and base
 * readable, the base meeting the template's specification, `--from` resolvable), then the
 * template and the base recorded in the store and the run directory laid out.
 */
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { readManifest } from "../../adapter/read.js";
import { checkSpec } from "../../check/check.js";
import { HermitError } from "../../errors.js";
import { readJson } from "../../fs/json.js";
import { hermitVersion } from "../../package-root.js";
import { syncCheckout } from "../checkout.js";
import { lockRun, type RunLock } from "../lock.js";
import type { RunRecord } from "../records.js";
import { runPaths, runRefs, templateRef, type RunPaths } from "../run-dir.js";
import type { TrainSettings } from "../settings/table.js";
import { VersionStore } from "../store.js";
import { emptyUsage } from "../usage.js";
import { noSteps, type RunState } from "./run-state.js";

/** What opening a run yields; the trainer adds the plugins, executor and progress. */
export interface OpenedRun {
  settings: TrainSettings;
  paths: RunPaths;
  lock: RunLock;
  store: VersionStore;
  state: RunState;
}

export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${randomBytes(2).toString("hex")}`;
}

/** Start a new run. `names` are how the card and `run.json` show the task and the Evolver. */
export async function createRun(input: TrainSettings, names: { task: string; evolver: string }): Promise<OpenedRun> {
  const settings = { ...input, runId: input.runId ?? newRunId() };
  const runId = settings.runId;
  const paths = runPaths(settings.runsDir, runId);
  const checked = await checkInputs(settings, paths);
  await mkdir(paths.dir, { recursive: true });
  const lock = await lockRun(paths.lock, runId);
  try {
    // Leftovers of a preparation that crashed before run.json was written.
    for (const entry of await readdir(paths.dir)) if (entry !== ".lock") await rm(join(paths.dir, entry), { recursive: true, force: true });
    const store = checked.store ?? (await VersionStore.open(settings.store));
    const template = await recordTemplate(store, settings.template);
    await store.exportTree(template.tree, paths.root);
    const base = await recordBase(store, settings, checked.fromCommit);
    const run = await layOut(store, settings, paths, base);
    const record: RunRecord = {
      ...run,
      template: { ...template, path: settings.template },
      task: names.task,
      evolver: names.evolver,
    };
    return { settings, paths, lock, store, state: { run: record, steps: noSteps } };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** Everything a new run needs, checked before anything is written. */
async function checkInputs(settings: TrainSettings, paths: RunPaths): Promise<{ store?: VersionStore; fromCommit?: string }> {
  if (await readJson(paths.runJson)) {
    throw new HermitError("RUN_INVALID", `${paths.dir}: run '${settings.runId}' already exists; resume it with --resume ${settings.runId}, or choose another --run-id`, { path: paths.dir });
  }
  await requireDirectory(settings.template, "template");
  await readManifest(settings.template);
  const storeExists = (await stat(join(settings.store, "HEAD")).catch(() => undefined)) !== undefined;
  if (settings.from && !storeExists) {
    throw new HermitError("INPUT_NOT_FOUND", `${settings.store}: no version store here to start --from '${settings.from}' (set --store, or --runs-dir to the runs that made it)`, {
      path: settings.store,
    });
  }
  const store = storeExists ? await VersionStore.open(settings.store) : undefined;
  if (store) await checkRunIdFree(store, settings.runId!);
  const fromCommit = settings.from && store ? await store.resolveCommit(settings.from) : undefined;
  await checkBase(settings, store, fromCommit);
  return { store, fromCommit };
}

/** The template, committed once per tree and kept reachable by a ref, so a card can name it. */
async function recordTemplate(store: VersionStore, dir: string): Promise<Omit<RunRecord["template"], "path">> {
  const manifest = await readManifest(dir);
  const { tree } = await store.writeDirectory(dir);
  let commit = await store.getRef(templateRef(tree));
  if (!commit) {
    const name = manifest.template?.name ?? manifest.name;
    const version = manifest.template?.version ?? manifest.version;
    commit = await store.commit({ tree, parents: [], message: { subject: `template ${name} v${version}`, trailers: {} } });
    await store.setRef(templateRef(tree), commit);
  }
  return { commit, tree, name: manifest.template?.name, version: manifest.template?.version };
}

/** The base: a version of the store (`--from`), or the adapter folder committed as a root commit. */
async function recordBase(store: VersionStore, settings: TrainSettings, fromCommit: string | undefined): Promise<{ commit: string; tree: string }> {
  if (fromCommit) return { commit: fromCommit, tree: (await store.readCommit(fromCommit)).tree };
  const { tree } = await store.writeDirectory(settings.adapter!);
  const manifest = await readManifest(settings.adapter!);
  // Named by its folder's name and its tree: the message travels with the store, the machine's paths do not.
  const commit = await store.commit({
    tree,
    parents: [],
    message: {
      subject: `base: ${manifest.name} ${manifest.version}, imported from a folder named ${basename(settings.adapter!)}`,
      trailers: { "Hermit-Run": settings.runId, "Hermit-Step": "0", "Hermit-Status": "base" },
    },
  });
  return { commit, tree };
}

/** Refs, folders and the checkout of a new run, and its first record. */
async function layOut(store: VersionStore, settings: TrainSettings, paths: RunPaths, base: { commit: string; tree: string }): Promise<Omit<RunRecord, "template" | "task" | "evolver">> {
  const runId = settings.runId!;
  const refs = runRefs(runId);
  await store.setRef(refs.base, base.commit);
  await store.setRef(refs.branch, base.commit);
  await store.pointHead(refs.branch);
  await store.exportTree(base.tree, paths.rolloutAdapter);
  await store.exportTree(base.tree, paths.candidate);
  await mkdir(paths.state, { recursive: true });
  await mkdir(paths.steps, { recursive: true });
  await syncCheckout(store.gitdir, paths.checkout, refs.branchName);
  const manifest = await readManifest(paths.rolloutAdapter);
  const now = new Date().toISOString();
  return {
    format: "hermit-run",
    formatVersion: 1,
    run: runId,
    hermitVersion,
    status: "running",
    createdAt: now,
    updatedAt: now,
    settings,
    branch: refs.branchName,
    base: { ...base, ...(settings.from ? { from: settings.from } : {}), adapterName: manifest.name, adapterVersion: manifest.version },
    accepted: { commit: base.commit, tree: base.tree, step: 0, score: null },
    lastStep: 0,
    elapsedSeconds: 0,
    rollouts: { ran: 0, cached: 0 },
    usage: emptyUsage(),
  };
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
