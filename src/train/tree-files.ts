/**
 * A folder to the version store and back: record every file of a folder as a tree, and make a
 * folder hold exactly a recorded tree. The Trainer does both several times a step on the same
 * small adapter, so files are read and compared synchronously (no thread-pool round trip per
 * file), compared by size before their bytes, and only what differs is written or chmod-ed.
 */
import { chmodSync, closeSync, constants, fchmodSync, fstatSync, mkdirSync, openSync, readdirSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { IGNORED_DIRS, decodeUtf8 } from "../adapter/files.js";
import { CONTROL_CHARACTER, readOpenFile, walkTree } from "../adapter/tree.js";

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
 * Make `dir` hold exactly the files of `tree`, in one pass over the folder: a file of the tree
 * whose bytes are already right is left alone (its mode put right), anything else is removed (a
 * link itself, never its target; a special file; a name that is not UTF-8) along with the
 * folders it leaves empty, and then what is missing is written. Entries the tree walk never
 * lists (`.git`, `node_modules`, …) are left alone.
 */
export async function exportTreeTo(store: TreeStore, tree: string, dir: string): Promise<FileMap> {
  const files = await store.readFileMap(tree);
  const wanted = new Map<string, Wanted>();
  for (const [path, entry] of files) wanted.set(path, { bytes: await store.readBlob(entry.oid), mode: entry.mode === "100755" ? 0o755 : 0o644 });
  mkdirSync(dir, { recursive: true });
  const settled = new Set<string>();
  pruneFolder(dir, "", wanted, settled);
  for (const [path, { bytes, mode }] of wanted) {
    if (settled.has(path)) continue;
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    // A folder still standing where the file belongs (it holds a `.git`, say) goes as well.
    rmSync(target, { force: true, recursive: true });
    writeFileSync(target, bytes);
    chmodSync(target, mode);
  }
  return files;
}

interface Wanted {
  bytes: Uint8Array;
  mode: number;
}

/**
 * Remove from the folder `rel` of `root` what `wanted` does not hold as it is there; the files
 * that already hold their bytes go to `settled`. True when the folder is left empty.
 */
function pruneFolder(root: string, rel: string, wanted: ReadonlyMap<string, Wanted>, settled: Set<string>): boolean {
  const folder = rel === "" ? root : join(root, rel);
  let empty = true;
  for (const entry of readdirSync(folder, { withFileTypes: true, encoding: "buffer" })) {
    const name = decodeUtf8(entry.name);
    if (name === undefined) {
      // Not UTF-8: never a file of a tree.
      rmSync(Buffer.concat([Buffer.from(`${folder}/`), entry.name]), { force: true, recursive: true });
      continue;
    }
    if (IGNORED_DIRS.has(name)) {
      empty = false;
      continue;
    }
    const [path, absolute] = [rel === "" ? name : `${rel}/${name}`, join(folder, name)];
    const file = entry.isFile() ? wanted.get(path) : undefined;
    if (entry.isDirectory() && !CONTROL_CHARACTER.test(name)) {
      if (folderPruned(root, path, absolute, wanted, settled)) rmdirSync(absolute);
      else empty = false;
    } else if (file && holds(absolute, file)) {
      settled.add(path);
      empty = false;
    } else {
      rmSync(absolute, { force: true, recursive: true });
    }
  }
  return empty;
}

/** `pruneFolder` on a subfolder; a folder that cannot be read is removed, as the tree walk reports it. */
function folderPruned(root: string, rel: string, absolute: string, wanted: ReadonlyMap<string, Wanted>, settled: Set<string>): boolean {
  try {
    return pruneFolder(root, rel, wanted, settled);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).syscall !== "scandir") throw error;
    rmSync(absolute, { force: true, recursive: true });
    return true;
  }
}

/** Whether the regular file at `path` holds `file`'s bytes (its mode is put right if not). Opened without following a link or blocking. */
function holds(path: string, file: Wanted): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.size !== file.bytes.length || !readOpenFile(fd, info.size).equals(file.bytes)) return false;
    if ((info.mode & 0o777) !== file.mode) fchmodSync(fd, file.mode);
    return true;
  } finally {
    closeSync(fd);
  }
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
