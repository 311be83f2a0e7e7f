/**
 * The read side of deploy's IO shell: resolve the workspace, check it against the adapter,
 * and snapshot the bytes of every path the plan may touch. Never writes.
 */
import type { Stats } from "node:fs";
import { lstat, readFile, readdir, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { HermitError } from "../errors.js";
import { FILE_CONCURRENCY, forEachLimit } from "./concurrency.js";
import type { FileState, WorkspaceSnapshot } from "./plan.js";
import { LOCK_FILE, PENDING_FILE, RECORD_FILE, parseRecord } from "./record.js";

/**
 * The absolute real path `path` has or will have: the real path of its nearest existing
 * ancestor joined with the rest, so symlinked temp dirs resolve as hosts will see them.
 */
export async function resolveRealPath(path: string): Promise<string> {
  const absolute = resolve(path);
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      return join(await realpath(current), ...missing.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return absolute;
      missing.push(basename(current));
      current = parent;
    }
  }
}

function contains(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** Adapter and workspace must not contain one another (WORKSPACE_INVALID). */
export function assertSeparate(adapterRoot: string, workspace: string): void {
  if (contains(adapterRoot, workspace) || contains(workspace, adapterRoot)) {
    const which = contains(adapterRoot, workspace) ? "is inside the adapter" : "contains the adapter";
    throw new HermitError(
      "WORKSPACE_INVALID",
      `${workspace}: the workspace ${which} (${adapterRoot}); adapter and workspace must not contain one another`,
      { path: workspace, adapter: adapterRoot },
    );
  }
}

/** State of one path, refusing to look through a symlinked or non-directory parent. */
class StateReader {
  /** Folder checks, shared by concurrent reads. */
  private readonly folders = new Map<string, Promise<string | undefined>>();

  constructor(private readonly root: string) {}

  /** Why the folder `rel` cannot hold hermit's files, or undefined when it is fine (or absent). */
  private folderProblem(rel: string): Promise<string | undefined> {
    if (rel === "" || rel === ".") return Promise.resolve(undefined);
    let problem = this.folders.get(rel);
    if (!problem) {
      problem = this.checkFolder(rel);
      this.folders.set(rel, problem);
    }
    return problem;
  }

  private async checkFolder(rel: string): Promise<string | undefined> {
    const above = await this.folderProblem(dirname(rel));
    if (above !== undefined) return above;
    const looked = await lstatOrProblem(join(this.root, rel));
    if (typeof looked === "string") return `'${rel}' ${looked}`;
    const info = looked;
    if (info?.isSymbolicLink()) return `'${rel}' is a symlink; hermit does not write through symlinks`;
    if (info && !info.isDirectory()) return `'${rel}' is not a folder`;
    return undefined;
  }

  async state(rel: string): Promise<FileState> {
    const problem = await this.folderProblem(dirname(rel));
    if (problem) return { kind: "blocked", problem };
    const full = join(this.root, rel);
    const info = await lstatOrProblem(full);
    if (typeof info === "string") return { kind: "blocked", problem: info };
    if (!info) return { kind: "missing" };
    if (info.isSymbolicLink()) return { kind: "blocked", problem: "is a symlink; hermit does not write through symlinks" };
    if (!info.isFile()) return { kind: "blocked", problem: info.isDirectory() ? "is a folder where hermit writes a file" : "is not a regular file" };
    try {
      return { kind: "file", bytes: await readFile(full) };
    } catch (error) {
      return { kind: "blocked", problem: unreadable(error) };
    }
  }
}

/** Why a file system call failed, as a problem: `cannot be read (EACCES: permission denied)`. */
function unreadable(error: unknown): string {
  const cause = error as NodeJS.ErrnoException;
  const what = (cause?.message ?? String(error)).replace(/^[A-Z]+: /, "").replace(/, \w+ '.*'$/, "");
  return `cannot be read (${cause?.code ? `${cause.code}: ` : ""}${what})`;
}

/** `lstat`, undefined when nothing is there, or the problem when it cannot be looked at. */
async function lstatOrProblem(path: string): Promise<Stats | undefined | string> {
  try {
    return await lstat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? undefined : unreadable(error);
  }
}

/** Everything deploy, undeploy and status read from the workspace. */
export interface WorkspaceReader {
  snapshot: WorkspaceSnapshot;
  /** True when the workspace holds a regular file at `rel`. */
  isFile(rel: string): Promise<boolean>;
  /** Add the states of more paths to the snapshot. */
  read(paths: Iterable<string>): Promise<void>;
}

/** Open a workspace for reading: existence, top-level entries, the record and a pending (interrupted) deploy's report. */
export async function openWorkspace(workspace: string): Promise<WorkspaceReader> {
  const info = await lstat(workspace).catch(() => undefined);
  if (info && !info.isDirectory()) {
    throw new HermitError("WORKSPACE_INVALID", `${workspace}: workspace exists and is not a folder`, { path: workspace });
  }
  let names: string[] = [];
  try {
    names = info ? await readdir(workspace) : [];
  } catch (error) {
    throw new HermitError("INPUT_UNREADABLE", `${workspace}: workspace ${unreadable(error)}`, { path: workspace });
  }
  const entries = names.filter((name) => name !== LOCK_FILE).sort();
  const reader = new StateReader(workspace);
  const files = new Map<string, FileState>();
  const snapshot: WorkspaceSnapshot = { workspace, exists: info !== undefined, entries, files };
  for (const [name, key] of [[RECORD_FILE, "record"], [PENDING_FILE, "pending"]] as const) {
    const state = info ? await reader.state(name) : ({ kind: "missing" } as const);
    files.set(name, state);
    if (state.kind === "file") snapshot[key] = parseRecord(new TextDecoder().decode(state.bytes));
    else if (state.kind === "blocked") snapshot[key] = { invalid: `${name} ${state.problem}` };
  }
  return {
    snapshot,
    async isFile(rel) {
      return (await reader.state(rel)).kind === "file";
    },
    async read(paths) {
      const wanted = [...new Set(paths)].filter((path) => !files.has(path));
      await forEachLimit(wanted, FILE_CONCURRENCY, async (path) => {
        files.set(path, info ? await reader.state(path) : { kind: "missing" });
      });
    },
  };
}
