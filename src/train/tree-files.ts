/**
 * A folder to the version store and back: record every file of a folder as a tree, and make a
 * folder hold exactly a recorded tree. The Trainer does both several times a step on the same
 * small adapter, so files are read and compared synchronously (no thread-pool round trip per
 * file), compared by size before their bytes, and only what differs is written or chmod-ed.
 */
import { chmodSync, closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readOpenFile, walkTree } from "../adapter/tree.js";

/** A file of a recorded tree. */
export interface TreeEntryInfo {
  oid: string;
  /** `100644` or `100755`. */
  mode: string;
}

/** path → blob, the flat view of a tree. */
export type FileMap = Map<string, TreeEntryInfo>;

/** What moving a folder to and from the store needs of it (the version store is one). */
export interface TreeStore {
  writeBlob(bytes: Uint8Array): Promise<string>;
  writeFileMap(files: FileMap): Promise<string>;
  readFileMap(tree: string): Promise<FileMap>;
  readBlob(oid: string): Promise<Uint8Array>;
}

/** Record every file of `dir` (as `walkTree` sees it: no `.git`, no `node_modules`, no escaping symlink). */
export async function recordDirectory(store: TreeStore, dir: string): Promise<{ tree: string; files: FileMap }> {
  const { files } = await walkTree(dir);
  const map: FileMap = new Map();
  for (const file of files) {
    const read = readRegularFile(join(dir, file.path));
    // Gone, or no longer a regular file, since the folder was walked: not a file of the tree.
    if (read) map.set(file.path, { oid: await store.writeBlob(read.bytes), mode: read.executable ? "100755" : "100644" });
  }
  return { tree: await store.writeFileMap(map), files: map };
}

/**
 * Make `dir` hold exactly the files of `tree`: files not in the tree (and anything walkTree
 * refuses: links out, special files) are removed, changed ones rewritten, equal ones left alone.
 */
export async function exportTreeTo(store: TreeStore, tree: string, dir: string): Promise<FileMap> {
  const files = await store.readFileMap(tree);
  mkdirSync(dir, { recursive: true });
  const present = await walkTree(dir);
  for (const file of present.files) if (!files.has(file.path)) rmSync(join(dir, file.path), { force: true });
  for (const problem of present.problems) rmSync(join(dir, problem.path), { force: true, recursive: true });
  removeEmptyDirs(dir);
  for (const [path, entry] of files) {
    const target = join(dir, path);
    const bytes = await store.readBlob(entry.oid);
    const info = lstatSync(target, { throwIfNoEntry: false });
    const same = info?.isFile() === true && info.size === bytes.length && readFileSync(target).equals(bytes);
    if (!same) {
      mkdirSync(dirname(target), { recursive: true });
      rmSync(target, { force: true, recursive: true });
      writeFileSync(target, bytes);
    }
    const mode = entry.mode === "100755" ? 0o755 : 0o644;
    if (!same || (info!.mode & 0o777) !== mode) chmodSync(target, mode);
  }
  return files;
}

/**
 * A file's bytes and whether it is executable, opened without blocking (a FIFO put in its
 * place never hangs the Trainer); undefined when it is gone or not a regular file.
 */
function readRegularFile(path: string): { bytes: Buffer; executable: boolean } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return undefined;
    return { bytes: readOpenFile(fd, info.size), executable: (info.mode & 0o111) !== 0 };
  } finally {
    closeSync(fd);
  }
}

/** Remove the folders under `dir` that hold no file (never `.git`); true when `dir` itself is left empty. */
function removeEmptyDirs(dir: string): boolean {
  let empty = true;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && entry.name !== ".git") {
      if (removeEmptyDirs(join(dir, entry.name))) rmdirSync(join(dir, entry.name));
      else empty = false;
    } else empty = false;
  }
  return empty;
}
