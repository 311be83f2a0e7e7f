/**
 * The only writer of deploy: carries out a checked plan. Each file is written to a temp file
 * beside it and renamed into place; deletions prune the folders they empty. Independent files
 * are written in parallel (bounded); the deployment record is written last. If anything
 * fails, the files already touched are restored from the plan's `previous` bytes.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, rename, rmdir, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { PlannedAction, Plan } from "./plan.js";
import { FILE_CONCURRENCY, forEachLimit } from "./concurrency.js";
import { RECORD_FILE } from "./record.js";

/** What apply touched, as relative paths. */
export interface ApplyResult {
  written: string[];
  deleted: string[];
}

async function writeAtomically(file: string, content: Uint8Array, executable: boolean): Promise<void> {
  const temp = join(dirname(file), `.hermit-tmp-${process.pid}-${randomBytes(6).toString("hex")}`);
  try {
    await writeFile(temp, content, { mode: executable ? 0o755 : 0o644 });
    if (executable) await chmod(temp, 0o755);
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
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
 * Apply `plan` to `workspace` (created if needed). `executables` lists paths written 0755.
 * Returns the touched paths; on failure restores what it had touched and rethrows.
 */
export async function applyPlan(workspace: string, plan: Plan, executables: ReadonlySet<string> = new Set()): Promise<ApplyResult> {
  const steps = plan.actions.filter((action) => action.action !== "unchanged");
  const deletions = steps.filter((step) => step.action === "delete" && step.path !== RECORD_FILE);
  const writes = steps.filter((step) => step.action !== "delete" && step.path !== RECORD_FILE);
  const record = steps.filter((step) => step.path === RECORD_FILE); // last: it describes what is done
  const done: PlannedAction[] = [];
  const result: ApplyResult = { written: [], deleted: [] };
  await mkdir(workspace, { recursive: true });
  const carryOut = async (step: PlannedAction) => {
    const file = join(workspace, ...step.path.split("/"));
    if (step.action === "delete") {
      await unlink(file).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
      done.push(step);
      result.deleted.push(step.path);
    } else {
      await writeAtomically(file, step.content as Uint8Array, executables.has(step.path));
      done.push(step);
      result.written.push(step.path);
    }
  };
  try {
    await forEachLimit(deletions, FILE_CONCURRENCY, carryOut);
    // Deepest first, one at a time: a folder is removed only once nothing else is left in it.
    for (const folder of emptiedFolders(deletions)) await rmdir(join(workspace, folder)).catch(() => undefined);
    const folders = [...new Set(writes.map((step) => dirname(step.path)).filter((folder) => folder !== "."))];
    await forEachLimit(folders, FILE_CONCURRENCY, (folder) => mkdir(join(workspace, folder), { recursive: true }).then(() => undefined));
    await forEachLimit(writes, FILE_CONCURRENCY, carryOut);
    for (const step of record) await carryOut(step);
  } catch (error) {
    await rollback(workspace, done);
    throw error;
  }
  const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return { written: sortedLike(plan, result.written), deleted: result.deleted.sort(byPath) };
}

/** `paths` in the order the plan lists them (completion order is not deterministic). */
function sortedLike(plan: Plan, paths: string[]): string[] {
  const index = new Map(plan.actions.map((action, position) => [action.path, position]));
  return paths.sort((a, b) => (index.get(a) ?? 0) - (index.get(b) ?? 0));
}

/** Every folder above the deleted files, deepest first (rmdir leaves the non-empty ones). */
function emptiedFolders(deletions: readonly PlannedAction[]): string[] {
  const folders = new Set<string>();
  for (const step of deletions) {
    for (let folder = dirname(step.path); folder !== "." && folder !== ""; folder = dirname(folder)) folders.add(folder);
  }
  return [...folders].sort((a, b) => b.split("/").length - a.split("/").length || (a < b ? -1 : 1));
}

async function rollback(workspace: string, done: PlannedAction[]): Promise<void> {
  for (const step of done.reverse()) {
    const file = join(workspace, ...step.path.split("/"));
    try {
      if (step.previous) {
        await mkdir(dirname(file), { recursive: true });
        await writeAtomically(file, step.previous, false);
      } else {
        await unlink(file);
        await pruneEmptyFolders(workspace, step.path);
      }
    } catch {
      // best effort: the error that caused the rollback is the one to report
    }
  }
}
