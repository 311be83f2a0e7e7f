/**
 * The files half of refreshing `checkout/` in the Trainer's process (`updateCheckout` in
 * `checkout.ts` holds the lock and places the index): compare the worktree with its index and
 * the new tree, rewrite what differs, remove what the tree no longer has, and return the new
 * index. What git's own `reset --hard` decides from the same facts, for the plain case only.
 * The few files of an adapter are looked at synchronously (no thread-pool round trip per file).
 */
import { lstatSync, mkdirSync, readFileSync, rmdirSync, unlinkSync, type BigIntStats } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomicSync } from "../fs/atomic.js";
import { blobObject } from "./git-objects.js";
import { decodeIndex, encodeIndex, indexStat, sameStat, type IndexEntry, type IndexStat } from "./git-index.js";
import type { TreeEntryInfo, VersionStore } from "./store.js";

/** Thrown inside the refresh when the worktree is not plain enough to refresh here. */
class NotPlain extends Error {}

/**
 * Refresh the files of the worktree `dir` (whose index is `indexFile`) to `tree`; the new
 * index's bytes, or undefined when the CLI must do it (the index is not in the plain form, a
 * folder or link stands where a file belongs).
 */
export async function refreshWorktree(store: VersionStore, dir: string, indexFile: string, tree: string): Promise<Buffer | undefined> {
  const indexInfo = lstatSync(indexFile, { bigint: true, throwIfNoEntry: false });
  const data = indexInfo ? readOptional(indexFile) : undefined;
  const old = data && indexInfo ? decodeIndex(data) : undefined;
  if (!old || !indexInfo) return undefined;
  const files = await store.readFileMap(tree);
  try {
    const recorded = new Map(old.map((entry) => [entry.path, entry]));
    for (const entry of old) if (!files.has(entry.path)) removeFile(dir, entry.path);
    const entries: IndexEntry[] = [];
    for (const [path, info] of files) {
      entries.push(await fileEntry(store, dir, path, info, recorded.get(path), indexInfo.mtimeNs));
    }
    return encodeIndex(entries);
  } catch (error) {
    if (error instanceof NotPlain) return undefined;
    throw error;
  }
}

/** The index entry of `path` after making the file hold `info`'s blob (rewritten only when it does not). */
async function fileEntry(store: VersionStore, dir: string, path: string, info: TreeEntryInfo, recorded: IndexEntry | undefined, indexMtime: bigint): Promise<IndexEntry> {
  const target = join(dir, path);
  const current = lstatSync(target, { bigint: true, throwIfNoEntry: false });
  if (current?.isDirectory() || current?.isSymbolicLink()) throw new NotPlain(path);
  if (current && recorded && recorded.oid === info.oid && recorded.mode === info.mode && unchanged(target, current, recorded, indexMtime)) {
    return { ...recorded, stat: indexStat(current) };
  }
  const bytes = await store.readBlob(info.oid);
  foldersFor(dir, path);
  writeFileAtomicSync(target, bytes, { mode: info.mode === "100755" ? 0o755 : 0o644 });
  return { path, oid: info.oid, mode: info.mode, stat: indexStat(lstatSync(target, { bigint: true })) };
}

/**
 * Whether the file still holds what the index recorded: its stat data is the recorded one and
 * it is not "racily clean" (changed in the same instant the index was written), or else its
 * content and executable bit match — git's own test.
 */
function unchanged(target: string, current: BigIntStats, recorded: IndexEntry, indexMtime: bigint): boolean {
  const now = indexStat(current);
  const executable = (current.mode & 0o111n) !== 0n;
  if (executable !== (recorded.mode === "100755")) return false;
  if (sameStat(now, recorded.stat) && mtimeNs(recorded.stat) < indexMtime) return true;
  return blobObject(readFileSync(target)).oid === recorded.oid;
}

/** The file's bytes, or undefined when it cannot be read. */
export function readOptional(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

function mtimeNs(stat: IndexStat): bigint {
  return BigInt(stat.mtimeSeconds) * 1_000_000_000n + BigInt(stat.mtimeNanoseconds);
}

/** Make the folders on the way to `path` (a file or link in their place is not plain). */
function foldersFor(dir: string, path: string): void {
  let current = dir;
  for (const part of path.split("/").slice(0, -1)) {
    current = join(current, part);
    const info = lstatSync(current, { throwIfNoEntry: false });
    if (info?.isDirectory()) continue;
    if (info) throw new NotPlain(path);
    mkdirSync(current);
  }
}

/** Remove a file the new tree does not have, and the folders it leaves empty. */
function removeFile(dir: string, path: string): void {
  const target = join(dir, path);
  const info = lstatSync(target, { throwIfNoEntry: false });
  if (info?.isDirectory()) throw new NotPlain(path);
  if (info) unlinkSync(target);
  for (let folder = dirname(target); folder.length > dir.length && folder.startsWith(`${dir}/`); folder = dirname(folder)) {
    try {
      rmdirSync(folder);
    } catch {
      break;
    }
  }
}
