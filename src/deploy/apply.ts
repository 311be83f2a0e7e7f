/**
 * The only writer of deploy: carries out a checked plan. Each file is written to a temp file
 * beside it and renamed into place, never through a symlinked folder (`safe-fs.ts`);
 * deletions prune the folders they empty. Independent files are written in parallel
 * (bounded); the deployment record is written last. A deploy's pending report is written
 * before the first change and removed after the record, so an interrupted apply can be
 * finished or undone by a re-run. Temp files a killed writer left in the folders the plan
 * touches are swept first. If anything fails, the files already touched are restored from
 * the plan's `previous` bytes (and modes), and the failure is a WORKSPACE_UNWRITABLE error
 * naming the file; a folder swapped for a symlink meanwhile is WORKSPACE_CHANGED, and the
 * pending report stays so the next run can recover.
 */
import { lstatSync } from "node:fs";
import { dirname, join } from "node:path";
import { HermitError, isHermitError } from "../errors.js";
import { sweepTempFiles } from "../fs/atomic.js";
import { FILE_CONCURRENCY, forEachLimit, inBatches } from "./concurrency.js";
import type { Plan, PlannedAction } from "./plan-types.js";
import { GENERATED } from "./record.js";
import { WorkspaceWriter } from "./safe-fs.js";

/** What apply touched, as relative paths. */
export interface ApplyResult {
  written: string[];
  deleted: string[];
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

/** Every folder above `paths` (and the workspace itself), deepest first. */
function foldersAbove(paths: Iterable<string>): string[] {
  const folders = new Set<string>();
  for (const path of paths) {
    for (let folder = dirname(path); folder !== "." && folder !== ""; folder = dirname(folder)) folders.add(folder);
  }
  return [...folders].sort((a, b) => b.split("/").length - a.split("/").length || (a < b ? -1 : 1));
}

/**
 * Remove the temp files an interrupted writer left (only hermit's own names, only of
 * processes that are gone) in the workspace and the folders this plan touches, so the
 * workspace is clean and emptied folders can be pruned.
 */
export async function sweepPlanFolders(workspace: string, plan: Plan): Promise<void> {
  const paths = plan.sweep ?? [...plan.actions.map((action) => action.path), ...(plan.vacated ?? [])];
  const folders = [".", ...foldersAbove(paths)];
  await forEachLimit(folders, FILE_CONCURRENCY, (folder) => sweepTempFiles(join(workspace, folder)).then(() => undefined));
}

interface Progress {
  done: PlannedAction[];
  /** Modes of files before apply replaced or deleted them, to restore them exactly. */
  modes: Map<string, number>;
  result: ApplyResult;
}

/**
 * Apply `plan` to `workspace` (created if needed). `executables` lists more paths written
 * 0755 (besides the plan's own modes). Returns the touched paths; on failure restores what
 * it had touched and throws WORKSPACE_UNWRITABLE (file system errors), WORKSPACE_CHANGED, or
 * the original error.
 */
export async function applyPlan(workspace: string, plan: Plan, executables: ReadonlySet<string> = new Set()): Promise<ApplyResult> {
  const names = plan.names ?? GENERATED;
  const writer = new WorkspaceWriter(workspace);
  const steps = plan.actions.filter((action) => action.action !== "unchanged");
  const bookkeeping = (step: PlannedAction) => step.path === names.record || step.path === names.pending;
  const deletions = steps.filter((step) => step.action === "delete" && !bookkeeping(step));
  const writes = steps.filter((step) => step.action !== "delete" && !bookkeeping(step));
  const record = steps.filter((step) => step.path === names.record); // after the files: it describes what is done
  const stalePending = steps.find((step) => step.path === names.pending);
  const progress: Progress = { done: [], modes: new Map(), result: { written: [], deleted: [] } };
  const carryOut = (step: PlannedAction) => carryOutStep(writer, step, executables, progress);
  try {
    writer.ensureFolder(".");
    if (steps.length > 0 && plan.journal) {
      // First: the report of what is about to be written, for a re-run after an interruption.
      const journal: PlannedAction = {
        path: names.pending,
        action: stalePending ? "replace" : "create",
        intent: "replace",
        owner: { export: "host" },
        content: plan.journal,
        ...(stalePending?.previous ? { previous: stalePending.previous } : {}),
      };
      rememberMode(writer, journal, progress);
      writer.writeFile(names.pending, plan.journal);
      progress.done.push(journal);
    }
    await sweepPlanFolders(workspace, plan);
    await inBatches(deletions, carryOut);
    // Deepest first, one at a time: a folder is removed only once nothing else is left in it.
    for (const folder of foldersAbove([...deletions.map((step) => step.path), ...(plan.vacated ?? [])])) {
      writer.removeEmptyFolder(folder);
    }
    const folders = [...new Set(writes.map((step) => dirname(step.path)).filter((folder) => folder !== "."))];
    await inBatches(folders, (folder) => writer.ensureFolder(folder));
    await inBatches(writes, carryOut);
    for (const step of record) carryOut(step);
    // Last: the job is done, the pending report (ours, or one an interrupted run left) goes.
    if (progress.done.some((step) => step.path === names.pending) || stalePending) {
      writer.unlink(names.pending);
      if (stalePending) progress.result.deleted.push(names.pending);
    }
  } catch (error) {
    throw failed(writer, plan, progress, error);
  }
  const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return { written: sortedLike(plan, progress.result.written), deleted: progress.result.deleted.sort(byPath) };
}

function rememberMode(writer: WorkspaceWriter, step: PlannedAction, progress: Progress): void {
  if (!step.previous) return;
  const info = lstatSync(join(writer.root, ...step.path.split("/")), { throwIfNoEntry: false });
  if (info) progress.modes.set(step.path, info.mode & 0o7777);
}

function carryOutStep(writer: WorkspaceWriter, step: PlannedAction, executables: ReadonlySet<string>, progress: Progress): void {
  rememberMode(writer, step, progress);
  if (step.action === "delete") {
    writer.unlink(step.path);
    progress.done.push(step);
    progress.result.deleted.push(step.path);
    return;
  }
  const mode = step.mode ?? (executables.has(step.path) ? 0o755 : (progress.modes.get(step.path) ?? 0o644));
  writer.writeFile(step.path, step.content as Uint8Array, mode);
  progress.done.push(step);
  progress.result.written.push(step.path);
}

/** Restore what was done and turn `error` into the one to report. */
function failed(writer: WorkspaceWriter, plan: Plan, progress: Progress, error: unknown): unknown {
  const changed = isHermitError(error) && error.code === "WORKSPACE_CHANGED";
  // After a swap the pending report stays: it names what this run may have written, for the next one.
  const pending = (plan.names ?? GENERATED).pending;
  const undo = changed ? progress.done.filter((step) => step.path !== pending) : progress.done;
  const restored = rollback(writer, undo, progress.modes);
  if (changed) {
    const outcome = restored
      ? "the files already written were restored"
      : `some files could not be restored; ${pending} names them: run 'hermit status', then deploy again or undeploy`;
    return new HermitError(error.code, `${error.message}; ${outcome}`, error.data);
  }
  return unwritable(
    writer.root,
    error,
    restored
      ? "nothing was changed (the files already written were restored)"
      : "some files could not be restored; run the command again once the cause is fixed",
  );
}

/** `paths` in the order the plan lists them (completion order is not deterministic). */
function sortedLike(plan: Plan, paths: string[]): string[] {
  const index = new Map(plan.actions.map((action, position) => [action.path, position]));
  return paths.sort((a, b) => (index.get(a) ?? 0) - (index.get(b) ?? 0));
}

/** Undo `done`, newest first; true when every step was undone. */
function rollback(writer: WorkspaceWriter, done: readonly PlannedAction[], modes: ReadonlyMap<string, number>): boolean {
  let complete = true;
  for (const step of [...done].reverse()) {
    try {
      if (step.previous) {
        writer.ensureFolder(dirname(step.path));
        writer.writeFile(step.path, step.previous, modes.get(step.path) ?? 0o644);
      } else {
        writer.unlink(step.path);
        for (const folder of foldersAbove([step.path])) {
          if (!writer.removeEmptyFolder(folder)) break;
        }
      }
    } catch {
      complete = false; // best effort: the error that caused the rollback is the one to report
    }
  }
  return complete;
}
