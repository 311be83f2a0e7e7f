/**
 * The read side of deploy's IO shell: resolve the workspace, check it against the adapter,
 * and snapshot the bytes of every path the plan may touch. Never writes.
 */
import { lstatSync, readFileSync, readdirSync, type Dirent, type Stats } from "node:fs";
import { lstat, readdir, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { HermitError } from "../errors.js";
import { TEMP_NAME } from "../fs/atomic.js";
import { inBatches } from "./concurrency.js";
import { selectDeployment, type DeploymentSelector, type FoundDeployment } from "./deployments.js";
import { GENERATED, LOCK_FILE, isBookkeeping, parseRecordAt, type DeploymentNames } from "./record.js";
import type { FileState, WorkspaceSnapshot } from "./snapshot.js";

/**
 * The largest workspace file hermit reads to edit, replace or check (a shared instruction
 * file, a config file, one of its own files): anything bigger is not something hermit wrote,
 * and reading it whole could exhaust memory.
 */
export const WORKSPACE_FILE_LIMIT = 16 * 1024 * 1024;
/** The most entries one listed folder (an `--existing` skill folder) may hold. */
const FOLDER_LISTING_LIMIT = 10_000;

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

/** What a folder check found: fine, absent (so is everything below it), or a problem. */
type FolderCheck = { kind: "ok" } | { kind: "absent" } | { kind: "problem"; problem: string };

/**
 * State of one path, refusing to look through a symlinked or non-directory parent. The calls
 * are synchronous (for many small files they cost half the CPU of the thread pool's round
 * trips); `read` yields to the event loop between batches.
 */
class StateReader {
  private readonly folders = new Map<string, FolderCheck>();

  constructor(private readonly root: string) {}

  /** Whether the folder `rel` can hold hermit's files (cached per run). */
  private folder(rel: string): FolderCheck {
    if (rel === "" || rel === ".") return { kind: "ok" };
    let check = this.folders.get(rel);
    if (!check) {
      check = this.checkFolder(rel);
      this.folders.set(rel, check);
    }
    return check;
  }

  private checkFolder(rel: string): FolderCheck {
    const above = this.folder(dirname(rel));
    if (above.kind !== "ok") return above;
    const info = lstatOrProblem(join(this.root, rel));
    if (typeof info === "string") return { kind: "problem", problem: `'${rel}' ${info}` };
    if (!info) return { kind: "absent" };
    if (info.isSymbolicLink()) return { kind: "problem", problem: `'${rel}' is a symlink; hermit does not write through symlinks` };
    if (!info.isDirectory()) return { kind: "problem", problem: `'${rel}' is not a folder` };
    return { kind: "ok" };
  }

  /** What is at `rel`; the bytes of a file only when `withBytes` (an empty array otherwise). */
  state(rel: string, withBytes = true): FileState {
    const folder = this.folder(dirname(rel));
    if (folder.kind === "problem") return { kind: "blocked", problem: folder.problem };
    if (folder.kind === "absent") return { kind: "missing" };
    const full = join(this.root, rel);
    const info = lstatOrProblem(full);
    if (typeof info === "string") return { kind: "blocked", problem: info };
    if (!info) return { kind: "missing" };
    if (info.isSymbolicLink()) return { kind: "blocked", problem: "is a symlink; hermit does not write through symlinks" };
    if (!info.isFile()) return { kind: "blocked", problem: info.isDirectory() ? "is a folder where hermit writes a file" : "is not a regular file" };
    if (info.size > WORKSPACE_FILE_LIMIT) {
      return { kind: "blocked", problem: `is ${info.size} bytes, over the ${WORKSPACE_FILE_LIMIT} bytes hermit reads of a file it may edit or replace` };
    }
    if (!withBytes) return { kind: "file", bytes: new Uint8Array(), mode: info.mode & 0o7777 };
    try {
      return { kind: "file", bytes: readFileSync(full), mode: info.mode & 0o7777 };
    } catch (error) {
      return { kind: "blocked", problem: unreadable(error) };
    }
  }

  /** Every file below the folder `rel` but hermit's temp files (relative to the workspace, symlinks not followed), or undefined when it is absent. */
  list(rel: string): string[] | undefined {
    const folder = this.folder(dirname(rel));
    if (folder.kind === "absent") return undefined;
    const info = folder.kind === "problem" ? "unusable" : lstatOrProblem(join(this.root, rel));
    if (typeof info === "string") return [rel];
    if (!info) return undefined;
    if (!info.isDirectory()) return [rel];
    const out: string[] = [];
    const pending = [rel];
    while (pending.length > 0 && out.length < FOLDER_LISTING_LIMIT) {
      const current = pending.pop() as string;
      let entries: Dirent[] = [];
      try {
        entries = readdirSync(join(this.root, current), { withFileTypes: true });
      } catch {
        entries = [];
      }
      for (const entry of entries) {
        const path = `${current}/${entry.name}`;
        // A temp file a killed hermit left is hermit's own, swept when the deploy writes.
        if (TEMP_NAME.test(entry.name)) continue;
        if (entry.isDirectory()) pending.push(path);
        else out.push(path);
      }
    }
    return out.sort();
  }
}

/** Why a file system call failed, as a problem: `cannot be read (EACCES: permission denied)`. */
function unreadable(error: unknown): string {
  const cause = error as NodeJS.ErrnoException;
  const what = (cause?.message ?? String(error)).replace(/^[A-Z]+: /, "").replace(/, \w+ '.*'$/, "");
  return `cannot be read (${cause?.code ? `${cause.code}: ` : ""}${what})`;
}

/** `lstat`, undefined when nothing is there, or the problem when it cannot be looked at. */
function lstatOrProblem(path: string): Stats | undefined | string {
  try {
    return lstatSync(path);
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
  /** Add the listings of folders hermit must own whole (`--existing` skill folders). */
  listFolders(folders: Iterable<string>): Promise<void>;
}

/** The top-level names of a workspace (none when it does not exist); INPUT_UNREADABLE when it cannot be listed. */
export async function workspaceEntries(workspace: string): Promise<{ exists: boolean; names: string[] }> {
  const info = await lstat(workspace).catch(() => undefined);
  if (info && !info.isDirectory()) {
    throw new HermitError("WORKSPACE_INVALID", `${workspace}: workspace exists and is not a folder`, { path: workspace });
  }
  if (!info) return { exists: false, names: [] };
  try {
    return { exists: true, names: (await readdir(workspace)).sort() };
  } catch (error) {
    throw new HermitError("INPUT_UNREADABLE", `${workspace}: workspace ${unreadable(error)}`, { path: workspace });
  }
}

/**
 * Open a workspace for reading one deployment (`names`: the generated workspace's, or an
 * `--existing` deployment's): existence, top-level entries, the deployment's record and the
 * pending report of an interrupted deploy, the names of other deployments' reports.
 */
export async function openWorkspace(workspace: string, names: DeploymentNames = GENERATED): Promise<WorkspaceReader> {
  const listing = await workspaceEntries(workspace);
  const entries = listing.names.filter((name) => !isBookkeeping(name) && !TEMP_NAME.test(name));
  const otherReports = listing.names.filter((name) => isBookkeeping(name) && name !== LOCK_FILE && name !== names.record && name !== names.pending);
  const reader = new StateReader(workspace);
  const files = new Map<string, FileState>();
  const folders = new Map<string, string[] | undefined>();
  const snapshot: WorkspaceSnapshot = { workspace, exists: listing.exists, entries, names, otherReports, files, folders };
  for (const [name, key] of [[names.record, "record"], [names.pending, "pending"]] as const) {
    const state = listing.names.includes(name) ? reader.state(name) : ({ kind: "missing" } as const);
    files.set(name, state);
    if (state.kind === "file") snapshot[key] = parseRecordAt(name, new TextDecoder().decode(state.bytes));
    else if (state.kind === "blocked") snapshot[key] = { invalid: `${name} ${state.problem}` };
  }
  return {
    snapshot,
    async isFile(rel) {
      return listing.exists && reader.state(rel, false).kind === "file";
    },
    async read(paths) {
      const wanted = [...new Set(paths)].filter((path) => !files.has(path));
      await inBatches(wanted, (path) => files.set(path, listing.exists ? reader.state(path) : { kind: "missing" }));
    },
    async listFolders(paths) {
      await inBatches([...new Set(paths)], (folder) => folders.set(folder, listing.exists ? reader.list(folder) : undefined));
    },
  };
}

/**
 * The deployment of a workspace that `selector` picks, by the names of its reports: the
 * generated workspace's, or one `--existing` deployment's (see `selectDeployment`).
 */
export async function locateDeployment(workspace: string, selector: DeploymentSelector = {}): Promise<FoundDeployment> {
  return selectDeployment(workspace, (await workspaceEntries(workspace)).names, selector);
}
