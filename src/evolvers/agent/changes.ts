/**
 * What the learner changed in its scratch directory, and the copy back: only learnable paths
 * reach the candidate; everything else it wrote (a fixed file, a file outside the learnable
 * paths, a symlink, its notes under `learning/`) is reported and dropped. `applyChanges` is
 * the only writer of the candidate.
 */
import { lstat, mkdir, readdir, readFile, readlink, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { diffLines } from "diff";
import { resolveInside, sha256 } from "../../adapter/files.js";
import { writeFileAtomic } from "../../fs/atomic.js";

/** Each file of a directory tree: relative path → content hash, or `symlink:<target>`. */
export type Snapshot = Map<string, string>;

export async function snapshot(root: string): Promise<Snapshot> {
  const files: Snapshot = new Map();
  const walk = async (rel: string) => {
    for (const entry of await readdir(join(root, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isSymbolicLink()) files.set(path, `symlink:${await readlink(join(root, path))}`);
      else if (entry.isFile()) files.set(path, sha256(await readFile(join(root, path))));
      else files.set(path, "special");
    }
  };
  await walk("");
  return files;
}

export interface Changes {
  /** Learnable files the learner added or modified. */
  written: string[];
  /** Learnable files the learner deleted. */
  deleted: string[];
  /** Everything else it changed, with why it was dropped. */
  dropped: Array<{ path: string; reason: string }>;
}

/** Compare the scratch directory before and after the learner's turn (pure). */
export function diffSnapshots(before: Snapshot, after: Snapshot, learnable: (path: string) => boolean): Changes {
  const changes: Changes = { written: [], deleted: [], dropped: [] };
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  for (const path of paths) {
    const old = before.get(path);
    const now = after.get(path);
    if (old === now) continue;
    const inLearning = path === "learning" || path.startsWith("learning/");
    if (inLearning || !learnable(path)) {
      changes.dropped.push({ path, reason: inLearning ? "learning material, not the adapter" : "not a learnable path" });
    } else if (now === undefined) {
      changes.deleted.push(path);
    } else if (now.startsWith("symlink:") || now === "special") {
      changes.dropped.push({ path, reason: now === "special" ? "not a regular file" : "a symlink (only regular files are copied back)" });
    } else {
      changes.written.push(path);
    }
  }
  return changes;
}

/** Copy the learnable changes from `scratch` into the candidate `adapter`. Returns a line per file with its size of change. */
export async function applyChanges(scratch: string, adapter: string, changes: Changes): Promise<string[]> {
  const lines: string[] = [];
  for (const path of changes.written) {
    const source = resolveInside(scratch, path);
    // Checked again at copy time: the learner's processes are gone, but trust nothing.
    if (!(await lstat(source)).isFile()) continue;
    const bytes = await readFile(source);
    const target = resolveInside(adapter, path);
    const old = await readFile(target, "utf8").catch(() => undefined);
    await mkdir(dirname(target), { recursive: true });
    await writeFileAtomic(target, bytes);
    lines.push(`${old === undefined ? "added" : "changed"} ${path}${lineCounts(old ?? "", bytes.toString("utf8"))}`);
  }
  for (const path of changes.deleted) {
    await rm(resolveInside(adapter, path), { force: true });
    lines.push(`deleted ${path}`);
  }
  return lines;
}

function lineCounts(before: string, after: string): string {
  let added = 0;
  let removed = 0;
  for (const part of diffLines(before, after)) {
    if (part.added) added += part.count ?? 0;
    if (part.removed) removed += part.count ?? 0;
  }
  return ` (+${added} −${removed})`;
}
