/**
 * The only writer of deploy: carries out a checked plan. Each file is written to a temp file
 * beside it and renamed into place; deletions prune the folders they empty. Independent files
 * are written in parallel (bounded); the deployment record is written last. A deploy's
 * pending report (`.hermit-deploy.pending.json`) is written before the first change and
 * removed after the record, so an interrupted apply can be finished or undone by a re-run.
 * If anything fails, the files already touched are restored from the plan's `previous` bytes
 * (and modes), and the failure is a WORKSPACE_UNWRITABLE error naming the file.
 */
import { chmod, lstat, mkdir, readdir, rename, rmdir, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { HermitError, isHermitError } from "../errors.js";
import type { PlannedAction, Plan } from "./plan.js";
import { FILE_CONCURRENCY, forEachLimit } from "./concurrency.js";
import { PENDING_FILE, RECORD_FILE } from "./record.js";
import { sweepTempFiles, writeFileAtomic } from "../fs/atomic.js";

/** What apply touched, as relative paths. */
export interface ApplyResult {
  written: string[];
  deleted: string[];
}

/** Remove the folders a deletion left empty, up to (not including) the workspace. */
async function pruneEmptyFolders(workspace: string, rel: string): Promise<void> {
  let folder = dirname(rel);
  while (folder !== "." && folder !== "") {
    try {
      await rmdir(join(workspace, folder));
    } catch {
      return; // not empty (or already gone): stop
    }
    folder = dirname(folder);
  }
}

/**
 * Remove the temp files an interrupted apply left in the folders this plan touches (only
 * hermit's own names, only of processes that are gone), so emptied folders can be pruned.
 */
async function sweepPlanFolders(workspace: string, plan: Plan): Promise<void> {
  const folders = new Set<string>(["."]);
  for (const path of [...plan.actions.map((action) => action.path), ...(plan.vacated ?? [])]) {
    for (let folder = dirname(path); folder !== "." && folder !== ""; folder = dirname(folder)) folders.add(folder);
  }
  await forEachLimit([...folders], FILE_CONCURRENCY, (folder) => sweepTempFiles(join(workspace, folder)).then(() => undefined));
}

/**
 * A file system failure (EACCES, EROFS, ENOSPC, …) as a WORKSPACE_UNWRITABLE HermitError
 * naming the file, followed by `outcome` (what became of the workspace). Anything else is
 * returned unchanged.
 */
export function unwritable(workspace: string, error: unknown, outcome: string): unknown {
  const cause = error as NodeJS.ErrnoException;
  if (isHermitError(error) || typeof cause?.code !== "string" || !cause.syscall) return error;
  const path = cause.path ?? workspace;
  const what = cause.message.replace(/^[A-Z]+: /, "").replace(/, \w+ '.*'$/, "");
  return new HermitError("WORKSPACE_UNWRITABLE", `${path}: cannot ${cause.syscall} (${cause.code}: ${what}); ${outcome}`, {
    path,
    errno: cause.code,
    syscall: cause.syscall,
  });
}

/**
 * Apply `plan` to `workspace` (created if needed). `executables` lists paths written 0755.
 * Returns the touched paths; on failure restores what it had touched and throws
 * WORKSPACE_UNWRITABLE (file system errors) or the original error.
 */
export async function applyPlan(workspace: string, plan: Plan, executables: ReadonlySet<string> = new Set()): Promise<ApplyResult> {
  const steps = plan.actions.filter((action) => action.action !== "unchanged");
  const bookkeeping = (step: PlannedAction) => step.path === RECORD_FILE || step.path === PENDING_FILE;
  const deletions = steps.filter((step) => step.action === "delete" && !bookkeeping(step));
  const writes = steps.filter((step) => step.action !== "delete" && !bookkeeping(step));
  const record = steps.filter((step) => step.path === RECORD_FILE); // after the files: it describes what is done
  const stalePending = steps.find((step) => step.path === PENDING_FILE);
  const done: PlannedAction[] = [];
  /** Modes of files before apply replaced or deleted them, to restore them exactly. */
  const modes = new Map<string, number>();
  const result: ApplyResult = { written: [], deleted: [] };
  const fileOf = (path: string) => join(workspace, ...path.split("/"));
  const rememberMode = async (step: PlannedAction) => {
    if (!step.previous) return;
    const info = await lstat(fileOf(step.path)).catch(() => undefined);
    if (info) modes.set(step.path, info.mode & 0o7777);
  };
  const carryOut = async (step: PlannedAction) => {
    const file = fileOf(step.path);
    await rememberMode(step);
    if (step.action === "delete") {
      await unlink(file).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
      done.push(step);
      result.deleted.push(step.path);
    } else {
      await writeFileAtomic(file, step.content as Uint8Array, { mode: executables.has(step.path) ? 0o755 : 0o644 });
      done.push(step);
      result.written.push(step.path);
    }
  };
  try {
    await mkdir(workspace, { recursive: true });
    if (steps.length > 0 && plan.journal) {
      // First: the report of what is about to be written, for a re-run after an interruption.
      const journal: PlannedAction = {
        path: PENDING_FILE,
        action: stalePending ? "replace" : "create",
        intent: "replace",
        owner: { export: "host" },
        content: plan.journal,
        ...(stalePending?.previous ? { previous: stalePending.previous } : {}),
      };
      await rememberMode(journal);
      await writeFileAtomic(fileOf(PENDING_FILE), plan.journal, { mode: 0o644 });
      done.push(journal);
    }
    if (stalePending) await sweepPlanFolders(workspace, plan);
    await forEachLimit(deletions, FILE_CONCURRENCY, carryOut);
    // Deepest first, one at a time: a folder is removed only once nothing else is left in it.
    for (const folder of emptiedFolders([...deletions.map((step) => step.path), ...(plan.vacated ?? [])])) {
      await rmdir(join(workspace, folder)).catch(() => undefined);
    }
    const folders = [...new Set(writes.map((step) => dirname(step.path)).filter((folder) => folder !== "."))];
    await forEachLimit(folders, FILE_CONCURRENCY, (folder) => mkdir(join(workspace, folder), { recursive: true }).then(() => undefined));
    await forEachLimit(writes, FILE_CONCURRENCY, carryOut);
    for (const step of record) await carryOut(step);
    // Last: the job is done, the pending report (ours, or one an interrupted run left) goes.
    if (done.some((step) => step.path === PENDING_FILE) || stalePending) {
      await unlink(fileOf(PENDING_FILE)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
      if (stalePending) result.deleted.push(PENDING_FILE);
    }
  } catch (error) {
    const restored = await rollback(workspace, done, modes);
    throw unwritable(
      workspace,
      error,
      restored
        ? "nothing was changed (the files already written were restored)"
        : "some files could not be restored; run the command again once the cause is fixed",
    );
  }
  const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return { written: sortedLike(plan, result.written), deleted: result.deleted.sort(byPath) };
}

/** `paths` in the order the plan lists them (completion order is not deterministic). */
function sortedLike(plan: Plan, paths: string[]): string[] {
  const index = new Map(plan.actions.map((action, position) => [action.path, position]));
  return paths.sort((a, b) => (index.get(a) ?? 0) - (index.get(b) ?? 0));
}

/** Every folder above the vacated paths, deepest first (rmdir leaves the non-empty ones). */
function emptiedFolders(paths: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const path of paths) {
    for (let folder = dirname(path); folder !== "." && folder !== ""; folder = dirname(folder)) folders.add(folder);
  }
  return [...folders].sort((a, b) => b.split("/").length - a.split("/").length || (a < b ? -1 : 1));
}

/** Undo `done`, newest first; true when every step was undone. */
async function rollback(workspace: string, done: PlannedAction[], modes: ReadonlyMap<string, number>): Promise<boolean> {
  let complete = true;
  for (const step of done.reverse()) {
    const file = join(workspace, ...step.path.split("/"));
    try {
      if (step.previous) {
        await mkdir(dirname(file), { recursive: true });
        await writeFileAtomic(file, step.previous, { mode: modes.get(step.path) ?? 0o644 });
      } else {
        await unlink(file);
        await pruneEmptyFolders(workspace, step.path);
      }
    } catch {
      complete = false; // best effort: the error that caused the rollback is the one to report
    }
  }
  return complete;
}
