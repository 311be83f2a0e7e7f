/**
 * Keeping the workspace as verify found it. Host programs write into the folder they run in
 * (OpenCode adds `.opencode/.gitignore`); verify snapshots the workspace before the host
 * starts and afterwards removes what appeared and puts back the bytes of what changed.
 */
import { lstat, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

interface Entry {
  type: "file" | "dir" | "other";
  size: number;
  mtimeMs: number;
  /** Bytes of small files, to put them back if a host rewrites them. */
  bytes?: Buffer;
}

export interface WorkspaceBackup {
  root: string;
  entries: Map<string, Entry>;
  /** True when the walk stopped at the entry limit (changes beyond it are not tracked). */
  truncated: boolean;
}

export interface WorkspaceChanges {
  /** Paths the host created, removed again (relative, POSIX). */
  removed: string[];
  /** Files the host changed, written back. */
  restored: string[];
  /** Files the host changed or deleted that verify could not put back. */
  unrestorable: string[];
}

const MAX_ENTRIES = 20_000;
const MAX_BACKUP_FILE_BYTES = 1024 * 1024;
const MAX_BACKUP_TOTAL_BYTES = 64 * 1024 * 1024;
/** Never walked: version control data is not something a host run should touch. */
const SKIPPED = new Set([".git"]);

async function walk(root: string, visit: (path: string, entry: Entry) => Promise<boolean>): Promise<boolean> {
  const pending = [""];
  let count = 0;
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let names: string[];
    try {
      names = await readdir(join(root, dir));
    } catch {
      continue;
    }
    for (const name of names.sort()) {
      if (SKIPPED.has(name)) continue;
      const path = dir === "" ? name : `${dir}/${name}`;
      let info;
      try {
        info = await lstat(join(root, path));
      } catch {
        continue;
      }
      const entry: Entry = {
        type: info.isFile() ? "file" : info.isDirectory() ? "dir" : "other",
        size: info.size,
        mtimeMs: info.mtimeMs,
      };
      if (++count > MAX_ENTRIES) return false;
      const descend = await visit(path, entry);
      if (entry.type === "dir" && descend) pending.push(path);
    }
  }
  return true;
}

/** Record every entry of the workspace (and the bytes of its small files). */
export async function snapshotWorkspace(root: string): Promise<WorkspaceBackup> {
  const entries = new Map<string, Entry>();
  let backedUp = 0;
  const complete = await walk(root, async (path, entry) => {
    if (entry.type === "file" && entry.size <= MAX_BACKUP_FILE_BYTES && backedUp + entry.size <= MAX_BACKUP_TOTAL_BYTES) {
      try {
        entry.bytes = await readFile(join(root, path));
        backedUp += entry.size;
      } catch {
        // unreadable: tracked by size and time only
      }
    }
    entries.set(path, entry);
    return true;
  });
  return { root, entries, truncated: !complete };
}

/** Undo what happened to the workspace since `snapshot`; reports each path it touched. */
export async function restoreWorkspace(snapshot: WorkspaceBackup): Promise<WorkspaceChanges> {
  const changes: WorkspaceChanges = { removed: [], restored: [], unrestorable: [] };
  const seen = new Set<string>();
  await walk(snapshot.root, async (path, entry) => {
    const before = snapshot.entries.get(path);
    if (!before) {
      if (snapshot.truncated) return false;
      await rm(join(snapshot.root, path), { recursive: true, force: true });
      changes.removed.push(path);
      return false;
    }
    seen.add(path);
    if (before.type === "file" && entry.type === "file" && (entry.size !== before.size || entry.mtimeMs !== before.mtimeMs)) {
      const now = await readFile(join(snapshot.root, path)).catch(() => undefined);
      if (before.bytes && now && now.equals(before.bytes)) return true;
      if (before.bytes) {
        await writeFile(join(snapshot.root, path), before.bytes);
        changes.restored.push(path);
      } else changes.unrestorable.push(path);
    }
    return true;
  });
  for (const [path, before] of snapshot.entries) {
    if (seen.has(path) || [...SKIPPED].some((skip) => path === skip || path.startsWith(`${skip}/`))) continue;
    const parentGone = path.includes("/") && !seen.has(path.slice(0, path.lastIndexOf("/")));
    if (before.type === "file" && before.bytes && !parentGone) {
      await writeFile(join(snapshot.root, path), before.bytes).then(
        () => changes.restored.push(path),
        () => changes.unrestorable.push(path),
      );
    } else if (!parentGone) changes.unrestorable.push(path);
  }
  return changes;
}
