/**
 * Walking an adapter's tree, and reading it: every regular file under the root, no `.git` or
 * `node_modules`, no symlink that leaves the root, no special file, bounded in entries and
 * bytes. The file system is read synchronously: for the thousands of small files of an
 * adapter that costs a third of the CPU of promise-based reads (no thread-pool round trip per
 * call), and a file is opened with O_NONBLOCK | O_NOFOLLOW, so a FIFO or a symlink swapped in
 * after the folder was listed never blocks or redirects a read.
 */
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, realpathSync, statSync, type Dirent } from "node:fs";
import { join } from "node:path";
import { HermitError } from "../errors.js";
import { IGNORED_DIRS, LIMITS, decodeUtf8, isInside, normalizeEol, type Tree, type TreeFile } from "./files.js";
import type { Problem } from "./types.js";

/** A tree and the bytes of each of its files (those over `LIMITS.fileBytes` left out). */
export interface ReadTree extends Tree {
  bytes: Map<string, Buffer>;
  /** The files read whose mode has an executable bit, as the open file had it when read. */
  executables: Set<string>;
}

/** C0 controls and DEL: a newline in a file name would forge lines in every report. */
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Every regular file under `root` (sorted). A symlink to a file inside the adapter counts as
 * that file; a symlink that leaves the adapter, or points at a folder, is a problem and is
 * not followed. A name that is not UTF-8 or holds a control character (a newline, say) is a
 * problem and is not followed either: no report or host could name it faithfully. More than
 * `LIMITS.files` entries throw INPUT_TOO_LARGE.
 */
export async function walkTree(root: string): Promise<Tree> {
  const { files, problems } = scan(root, undefined);
  return { files, problems };
}

/**
 * The file at `rel` as `walkTree` would list it (a regular file, or a symlink to one inside
 * the root; never under `.git` or `node_modules`), or undefined. Looks at that path only.
 */
export async function treeFile(root: string, rel: string): Promise<TreeFile | undefined> {
  if (rel.split("/").some((segment) => IGNORED_DIRS.has(segment) || CONTROL_CHARACTER.test(segment))) return undefined;
  let realRoot: string;
  try {
    realRoot = realpathSync.native(root);
    const info = lstatSync(join(realRoot, rel));
    if (info.isFile()) return isInside(realRoot, realpathSync(join(realRoot, rel))) ? { path: rel, size: info.size } : undefined;
    if (!info.isSymbolicLink()) return undefined;
  } catch {
    return undefined;
  }
  const target = followLink(realRoot, rel);
  return typeof target === "string" ? { path: rel, size: statSync(target).size } : undefined;
}

/**
 * `walkTree` and the bytes of every file, each file opened once (the size comes from the
 * open file, so it is the size of what was read). Throws INPUT_TOO_LARGE when the files
 * total more than `LIMITS.totalBytes` (files over `LIMITS.fileBytes` are not read or counted).
 */
export async function readTree(root: string): Promise<ReadTree> {
  const bytes = new Map<string, Buffer>();
  const executables = new Set<string>();
  const tree = scan(root, bytes, executables);
  return { ...tree, bytes, executables };
}

/**
 * The bytes of the files of a tree `walkTree` returned, read once each. Throws
 * INPUT_TOO_LARGE when they total more than `LIMITS.totalBytes`.
 */
export async function readTreeBytes(root: string, files: TreeFile[]): Promise<Map<string, Buffer>> {
  const bytes = new Map<string, Buffer>();
  const readable = files.filter((file) => file.size <= LIMITS.fileBytes);
  const total = readable.reduce((sum, file) => sum + file.size, 0);
  if (total > LIMITS.totalBytes) throw tooManyBytes(root, total);
  for (const file of readable) {
    const read = readFileAt(join(root, file.path));
    if (read && "data" in read && read.data) bytes.set(file.path, read.data);
  }
  return bytes;
}

/** sha256 over the sorted (path, bytes) pairs of a tree; CRLF in text files counts as LF. */
export function hashTree(files: TreeFile[], bytes: ReadonlyMap<string, Buffer>): string {
  const hash = createHash("sha256");
  for (const file of files) {
    const data = bytes.get(file.path);
    // Only text with a CR or a byte-order mark hashes differently from its bytes (decoding drops
    // the mark): everything else hashes as it is, undecoded.
    const text = data === undefined || !(data.includes(13) || hasByteOrderMark(data)) ? undefined : decodeUtf8(data);
    hash.update(file.path).update("\0").update(text === undefined ? (data ?? `size:${file.size}`) : normalizeEol(text)).update("\0");
  }
  return hash.digest("hex");
}

const hasByteOrderMark = (data: Buffer) => data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf;

function tooManyBytes(root: string, total: number): HermitError {
  return new HermitError(
    "INPUT_TOO_LARGE",
    `${root}: its files total ${total} bytes, over the limit of ${LIMITS.totalBytes} (files over ${LIMITS.fileBytes} bytes not counted)`,
    { path: root, size: total, limit: LIMITS.totalBytes },
  );
}

/** Walk `root`; with `bytes`, read each regular file into it (and note the executable ones in `executables`). */
function scan(root: string, bytes: Map<string, Buffer> | undefined, executables?: Set<string>): Tree {
  let realRoot: string;
  try {
    realRoot = realpathSync.native(root);
  } catch (error) {
    throw new HermitError("INPUT_UNREADABLE", `${root}: cannot read the folder: ${(error as Error).message}`, { path: root });
  }
  const files: TreeFile[] = [];
  const problems: Problem[] = [];
  const state = { entries: 0, bytes: 0 };
  const pending = [""];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    for (const entry of listFolder(root, realRoot, dir, problems)) {
      state.entries += 1;
      if (state.entries > LIMITS.files) {
        throw new HermitError("INPUT_TOO_LARGE", `${root}: more than ${LIMITS.files} files and folders`, { path: root });
      }
      const name = decodeUtf8(entry.name as unknown as Buffer);
      const shown = name ?? (entry.name as unknown as Buffer).toString("utf8");
      const rel = dir === "" ? shown : `${dir}/${shown}`;
      if (name === undefined) {
        problems.push({ path: rel, check: "path", problem: `file name ${JSON.stringify(shown)} is not valid UTF-8` });
        continue;
      }
      // `.git` may also be a file (a linked worktree's pointer): never part of the adapter.
      if (IGNORED_DIRS.has(name)) continue;
      if (CONTROL_CHARACTER.test(name)) {
        problems.push({ path: rel, check: "path", problem: `file name ${JSON.stringify(name)} contains a control character` });
        continue;
      }
      if (entry.isDirectory()) pending.push(rel);
      else if (entry.isFile()) addFile(root, join(realRoot, rel), rel, { files, problems, bytes, executables, state });
      else if (entry.isSymbolicLink()) {
        const target = followLink(realRoot, rel);
        if (typeof target === "string") addFile(root, target, rel, { files, problems, bytes, executables, state });
        else problems.push(target);
      } else {
        problems.push({ path: rel, check: "path", problem: "is not a regular file" });
      }
    }
  }
  const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  return { files: files.sort(byPath), problems: problems.sort(byPath) };
}

function listFolder(root: string, realRoot: string, dir: string, problems: Problem[]): Dirent[] {
  try {
    return readdirSync(join(realRoot, dir), { withFileTypes: true, encoding: "buffer" }) as unknown as Dirent[];
  } catch (error) {
    if (dir === "") {
      throw new HermitError("INPUT_UNREADABLE", `${root}: cannot read the folder: ${(error as Error).message}`, { path: root });
    }
    // Gone since its parent was read (ENOENT) or not readable: reported, not a crash.
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    problems.push({ path: dir, check: "path", problem: `folder cannot be read (${code})` });
    return [];
  }
}

interface Collect {
  files: TreeFile[];
  problems: Problem[];
  bytes: Map<string, Buffer> | undefined;
  executables: Set<string> | undefined;
  state: { bytes: number };
}

/** One regular file at `absolute`, listed as `rel`: its size, and its bytes when reading. */
function addFile(root: string, absolute: string, rel: string, into: Collect): void {
  if (!into.bytes) {
    let size: number | undefined;
    try {
      const info = lstatSync(absolute);
      if (!info.isFile()) return void into.problems.push({ path: rel, check: "path", problem: "is not a regular file" });
      size = info.size;
    } catch (error) {
      // Gone since the folder was read: not a file of the adapter any more.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT") into.problems.push({ path: rel, check: "path", problem: `cannot be read (${code})` });
      return;
    }
    into.files.push({ path: rel, size });
    return;
  }
  const read = readFileAt(absolute, (size) => {
    if (size > LIMITS.fileBytes) return false;
    into.state.bytes += size;
    if (into.state.bytes > LIMITS.totalBytes) throw tooManyBytes(root, into.state.bytes);
    return true;
  });
  if (read === undefined) return;
  if ("problem" in read) return void into.problems.push({ path: rel, check: "path", problem: read.problem });
  into.files.push({ path: rel, size: read.size });
  if (read.data) into.bytes.set(rel, read.data);
  if (read.executable) into.executables?.add(rel);
}

type FileRead = { size: number; data?: Buffer; executable?: boolean } | { problem: string };

/**
 * Open, check, read and close one file. `wanted(size)` says whether to read it (default:
 * when within `LIMITS.fileBytes`). Undefined when it is gone.
 */
function readFileAt(absolute: string, wanted = (size: number) => size <= LIMITS.fileBytes): FileRead | undefined {
  let fd: number;
  try {
    fd = openSync(absolute, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    // ELOOP: a symlink put where a file was listed.
    return { problem: code === "ELOOP" ? "is not a regular file" : `cannot be read (${code})` };
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return { problem: "is not a regular file" };
    if (!wanted(info.size)) return { size: info.size };
    const data = readOpenFile(fd, info.size);
    return { size: data.length, data, executable: (info.mode & 0o111) !== 0 };
  } catch (error) {
    if (error instanceof HermitError) throw error;
    return { problem: `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  } finally {
    closeSync(fd);
  }
}

/** Up to `size` bytes of the open file `fd` from its start; a file that shrank while read is what it was when read. */
export function readOpenFile(fd: number, size: number): Buffer {
  const data = Buffer.allocUnsafe(size);
  let offset = 0;
  while (offset < size) {
    const count = readSync(fd, data, offset, size - offset, offset);
    if (count === 0) break;
    offset += count;
  }
  return offset === size ? data : data.subarray(0, offset);
}

/** The real path of a symlink's target inside the root, or the problem with it. */
function followLink(realRoot: string, rel: string): string | Problem {
  let target: string;
  try {
    target = realpathSync(join(realRoot, rel));
  } catch {
    return { path: rel, check: "path", problem: "symlink is broken (or loops)" };
  }
  if (!isInside(realRoot, target)) return { path: rel, check: "path", problem: "symlink leaves the adapter" };
  const info = (() => {
    try {
      return statSync(target);
    } catch {
      return undefined;
    }
  })();
  if (info?.isDirectory()) return { path: rel, check: "path", problem: "symlink to a folder is not allowed" };
  if (!info?.isFile()) return { path: rel, check: "path", problem: "symlink to something that is not a regular file" };
  return target;
}
