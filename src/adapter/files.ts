/**
 * Reading an adapter directory safely: relative POSIX paths only, no symlink that leaves
 * the directory, bounded sizes, strict UTF-8. This is the only module of `adapter/` that
 * touches the file system directly.
 */
import { createHash } from "node:crypto";
import { lstat, readdir, readFile, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, relative } from "node:path";
import { HermitError } from "../errors.js";
import type { Problem } from "./types.js";

/** Entries (folders, or a worktree's `.git` file) that are never part of an adapter's source tree. */
export const IGNORED_DIRS: ReadonlySet<string> = new Set([".git", "node_modules"]);
/**
 * Upper bounds that keep a hostile adapter from exhausting memory: entries walked (files,
 * folders and anything else), bytes of one file read, bytes of all files read together
 * (sparse files make big sizes cheap on disk), bytes of `adapter.yaml`.
 */
export const LIMITS = {
  files: 20_000,
  fileBytes: 8 * 1024 * 1024,
  totalBytes: 256 * 1024 * 1024,
  manifestBytes: 1024 * 1024,
};

export interface TreeFile {
  /** Relative POSIX path. */
  path: string;
  size: number;
}

export interface Tree {
  files: TreeFile[];
  problems: Problem[];
}

/** Why a manifest-supplied relative path is unsafe, or undefined when it is fine. */
export function unsafePathReason(path: string): string | undefined {
  if (path.length === 0) return "is empty";
  if (path.includes("\0")) return "contains a NUL byte";
  if (path.includes("\\")) return "uses a backslash; write POSIX paths";
  if (isAbsolute(path) || /^[A-Za-z]:/.test(path)) return "is absolute; paths must be relative to the adapter";
  if (path.split("/").includes("..")) return "contains '..'; paths must stay inside the adapter";
  return undefined;
}

/** Resolve a relative path inside `root`, refusing anything that could leave it. */
export function resolveInside(root: string, path: string): string {
  const reason = unsafePathReason(path);
  if (reason) throw new HermitError("PATH_UNSAFE", `${path}: path ${reason}`, { path });
  return join(root, ...path.split("/"));
}


function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * Every regular file under `root` (sorted). A symlink to a file inside the adapter counts as
 * that file; a symlink that leaves the adapter, or points at a folder, is a problem and is
 * not followed. A name that is not UTF-8 or holds a control character (a newline, say) is a
 * problem and is not followed either: no report or host could name it faithfully. More than
 * `LIMITS.files` entries throw INPUT_TOO_LARGE.
 */
export async function walkTree(root: string): Promise<Tree> {
  const realRoot = await realpath(root);
  const files: TreeFile[] = [];
  const problems: Problem[] = [];
  let entriesSeen = 0;
  let pending = [""];
  while (pending.length > 0) {
    const next: string[] = [];
    // One level at a time, every entry of the level in parallel.
    await Promise.all(
      pending.map(async (dir) => {
        const entries = await readdir(join(realRoot, dir), { withFileTypes: true, encoding: "buffer" }).catch(
          (error: NodeJS.ErrnoException) => {
            if (dir === "") {
              throw new HermitError("INPUT_UNREADABLE", `${root}: cannot read the folder: ${error.message}`, { path: root });
            }
            // Gone since its parent was read (ENOENT) or not readable: reported, not a crash.
            problems.push({ path: dir, check: "path", problem: `folder cannot be read (${error.code ?? error.message})` });
            return [];
          },
        );
        entriesSeen += entries.length;
        if (entriesSeen > LIMITS.files) {
          throw new HermitError("INPUT_TOO_LARGE", `${root}: more than ${LIMITS.files} files and folders`, { path: root });
        }
        await Promise.all(
          entries.map(async (entry) => {
            const name = decodeUtf8(entry.name);
            const shown = name ?? entry.name.toString("utf8");
            const rel = dir === "" ? shown : `${dir}/${shown}`;
            if (name === undefined) {
              problems.push({ path: rel, check: "path", problem: `file name ${JSON.stringify(shown)} is not valid UTF-8` });
              return;
            }
            // `.git` may also be a file (a linked worktree's pointer): never part of the adapter.
            if (IGNORED_DIRS.has(name)) return;
            if (CONTROL_CHARACTER.test(name)) {
              problems.push({ path: rel, check: "path", problem: `file name ${JSON.stringify(name)} contains a control character` });
              return;
            }
            if (entry.isDirectory()) {
              next.push(rel);
            } else if (entry.isFile()) {
              const info = await lstat(join(realRoot, rel)).catch((error: NodeJS.ErrnoException) => error);
              if (info instanceof Error) {
                // Gone since the folder was read: not a file of the adapter any more.
                if (info.code !== "ENOENT") problems.push({ path: rel, check: "path", problem: `cannot be read (${info.code})` });
              } else if (info.isFile()) files.push({ path: rel, size: info.size });
            } else if (entry.isSymbolicLink()) {
              const found = await followLink(realRoot, rel);
              if ("size" in found) files.push(found);
              else problems.push(found);
            } else {
              problems.push({ path: rel, check: "path", problem: "is not a regular file" });
            }
          }),
        );
      }),
    );
    pending = next;
  }
  const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  return { files: files.sort(byPath), problems: problems.sort(byPath) };
}

/** C0 controls and DEL: a newline in a file name would forge lines in every report. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

async function followLink(realRoot: string, rel: string): Promise<TreeFile | Problem> {
  const target = await realpath(join(realRoot, rel)).catch(() => undefined);
  if (target === undefined) return { path: rel, check: "path", problem: "symlink is broken (or loops)" };
  if (!isInside(realRoot, target)) return { path: rel, check: "path", problem: "symlink leaves the adapter" };
  const info = await stat(target).catch(() => undefined);
  if (info?.isDirectory()) return { path: rel, check: "path", problem: "symlink to a folder is not allowed" };
  if (!info?.isFile()) return { path: rel, check: "path", problem: "symlink to something that is not a regular file" };
  return { path: rel, size: info.size };
}

/**
 * The bytes of every file of a tree (files over `LIMITS.fileBytes` are left out), read once
 * and in parallel. Throws INPUT_TOO_LARGE when they total more than `LIMITS.totalBytes`.
 * Only paths `walkTree` returned are read, so no read leaves the adapter.
 */
export async function readTreeBytes(root: string, files: TreeFile[]): Promise<Map<string, Buffer>> {
  const bytes = new Map<string, Buffer>();
  const readable = files.filter((file) => file.size <= LIMITS.fileBytes);
  const total = readable.reduce((sum, file) => sum + file.size, 0);
  if (total > LIMITS.totalBytes) {
    throw new HermitError(
      "INPUT_TOO_LARGE",
      `${root}: its files total ${total} bytes, over the limit of ${LIMITS.totalBytes} (files over ${LIMITS.fileBytes} bytes not counted)`,
      { path: root, size: total, limit: LIMITS.totalBytes },
    );
  }
  const batch = 64;
  for (let i = 0; i < readable.length; i += batch) {
    await Promise.all(
      readable.slice(i, i + batch).map(async (file) => bytes.set(file.path, await readFile(join(root, file.path)))),
    );
  }
  return bytes;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Decode strictly; undefined when the bytes are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Read a file of the adapter as UTF-8 text. Throws HermitError naming the file when it is
 * missing, leaves the adapter, exceeds `maxBytes`, or is not UTF-8.
 */
export async function readAdapterText(root: string, path: string, maxBytes = LIMITS.fileBytes): Promise<string> {
  const absolute = resolveInside(root, path);
  const where = join(root, path);
  let real: string;
  try {
    real = await realpath(absolute);
  } catch {
    throw new HermitError("INPUT_NOT_FOUND", `${where}: file not found`, { path: where });
  }
  if (!isInside(await realpath(root), real)) {
    throw new HermitError("PATH_UNSAFE", `${where}: symlink leaves the adapter`, { path: where });
  }
  const info = await stat(real);
  if (!info.isFile()) throw new HermitError("INPUT_UNREADABLE", `${where}: not a file`, { path: where });
  if (info.size > maxBytes) {
    throw new HermitError("INPUT_TOO_LARGE", `${where}: ${info.size} bytes, over the limit of ${maxBytes}`, {
      path: where,
      size: info.size,
      limit: maxBytes,
    });
  }
  const text = decodeUtf8(await readFile(real));
  if (text === undefined) throw new HermitError("INPUT_NOT_UTF8", `${where}: not valid UTF-8`, { path: where });
  return text;
}

/** Fail with a clear error unless `dir` is a readable directory. */
export async function assertDirectory(dir: string, what: string): Promise<void> {
  const info = await stat(dir).catch(() => undefined);
  if (!info) throw new HermitError("INPUT_NOT_FOUND", `${dir}: ${what} directory not found`, { path: dir });
  if (!info.isDirectory()) throw new HermitError("INPUT_UNREADABLE", `${dir}: ${what} is not a directory`, { path: dir });
  await readdir(dir).catch(() => {
    throw new HermitError("INPUT_UNREADABLE", `${dir}: ${what} directory is not readable`, { path: dir });
  });
}

/** Line endings normalized so a CRLF checkout hashes like an LF one. */
export function normalizeEol(text: string): string {
  return text.replace(/\r\n/g, "\n");
}

export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** sha256 over the sorted (path, bytes) pairs of a tree; CRLF in text files counts as LF. */
export function hashTree(files: TreeFile[], bytes: ReadonlyMap<string, Buffer>): string {
  const hash = createHash("sha256");
  for (const file of files) {
    const data = bytes.get(file.path);
    const text = data === undefined ? undefined : decodeUtf8(data);
    hash.update(file.path).update("\0").update(text === undefined ? (data ?? `size:${file.size}`) : normalizeEol(text)).update("\0");
  }
  return hash.digest("hex");
}
