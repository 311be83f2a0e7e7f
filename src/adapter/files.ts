/**
 * Reading an adapter directory safely: relative POSIX paths only, no symlink that leaves
 * the directory, bounded sizes, strict UTF-8. This is the only module of `adapter/` that
 * touches the file system directly.
 */
import { createHash } from "node:crypto";
import { closeSync, constants, openSync, readFileSync, realpathSync, statSync, type Stats } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { HermitError } from "../errors.js";
import type { Problem } from "./types.js";

/**
 * Entries (folders, or a worktree's `.git` file) that are never part of an adapter's source
 * tree: Git's, the adapter's installed dependencies (`node_modules`, a Python `.venv`) and
 * Python's byte-code cache.
 */
export const IGNORED_DIRS: ReadonlySet<string> = new Set([".git", "node_modules", ".venv", "__pycache__"]);
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


/** Whether `child` is `parent` or inside it (both absolute). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
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
 * missing, leaves the adapter, exceeds `maxBytes`, or is not UTF-8. Synchronous underneath: a
 * spec check reads two manifests (and a Trainer step four), and each of the six thread-pool
 * round trips (two realpaths, stat, open, read, close) costs more than the call.
 */
export async function readAdapterText(root: string, path: string, maxBytes = LIMITS.fileBytes): Promise<string> {
  const absolute = resolveInside(root, path);
  const where = join(root, path);
  let real: string;
  try {
    real = realpathSync.native(absolute);
  } catch {
    throw new HermitError("INPUT_NOT_FOUND", `${where}: file not found`, { path: where });
  }
  if (!isInside(realpathSync.native(root), real)) {
    throw new HermitError("PATH_UNSAFE", `${where}: symlink leaves the adapter`, { path: where });
  }
  const info = statSync(real);
  if (!info.isFile()) throw new HermitError("INPUT_UNREADABLE", `${where}: not a file`, { path: where });
  if (info.size > maxBytes) {
    throw new HermitError("INPUT_TOO_LARGE", `${where}: ${info.size} bytes, over the limit of ${maxBytes}`, {
      path: where,
      size: info.size,
      limit: maxBytes,
    });
  }
  const text = decodeUtf8(readFileSync(real));
  if (text === undefined) throw new HermitError("INPUT_NOT_UTF8", `${where}: not valid UTF-8`, { path: where });
  return text;
}

/**
 * Fail with a clear error unless `dir` is a readable directory. Synchronous underneath (a spec
 * check asks this of two folders each time; a thread-pool round trip costs more than the call).
 */
export async function assertDirectory(dir: string, what: string): Promise<void> {
  let info: Stats | undefined;
  try {
    info = statSync(dir);
  } catch {
    info = undefined;
  }
  if (!info) throw new HermitError("INPUT_NOT_FOUND", `${dir}: ${what} directory not found`, { path: dir });
  if (!info.isDirectory()) throw new HermitError("INPUT_UNREADABLE", `${dir}: ${what} is not a directory`, { path: dir });
  try {
    closeSync(openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY));
  } catch {
    throw new HermitError("INPUT_UNREADABLE", `${dir}: ${what} directory is not readable`, { path: dir });
  }
}

/** Line endings normalized so a CRLF checkout hashes like an LF one. */
export function normalizeEol(text: string): string {
  return text.replace(/\r\n/g, "\n");
}

export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
