/**
 * Crash-safe file writes: the content goes to a temp file created exclusively beside the
 * target (so never through a link), then is renamed over it. A `kill -9` leaves either the old
 * or the new content, never half, plus at most a temp file of hermit's own naming, which
 * `sweepTempFiles` removes once its writer is gone.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { readdir, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { alive } from "./process.js";

/** `.hermit-tmp-<pid>-<12 hex>`: the names of every temp file hermit writes. */
export const TEMP_NAME = /^\.hermit-tmp-(\d+)-[0-9a-f]{12}$/;

/**
 * Temp names count up from a random start: unique within the process without asking the
 * system for randomness at every write, and unlike a leftover of an earlier process that had
 * the same pid.
 */
let nextTemp = randomBytes(6).readUIntBE(0, 6);

/** A fresh temp file name in `dir`, unique on this machine. */
export function tempPath(dir: string): string {
  nextTemp = (nextTemp + 1) % 2 ** 48;
  return join(dir, `.hermit-tmp-${process.pid}-${nextTemp.toString(16).padStart(12, "0")}`);
}

export interface AtomicWriteOptions {
  /** The file's mode; default 0644 less the umask. Applied with chmod, so the umask cannot narrow it. */
  mode?: number;
  /** Create the target's folder when it is missing. */
  mkdir?: boolean;
  /**
   * Where the temp file goes (default: beside the target; same file system required). A Git
   * store puts it outside `refs/` and `objects/`, where git would read a stray one.
   */
  tempDir?: string;
}

/**
 * Write `data` to `file` atomically. The work is done synchronously: a record is a few KB, and
 * the thread pool's four round trips (open, write, close, rename) cost more than the write
 * itself. An error names `file`, not the temp file.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  writeFileAtomicSync(file, data, options);
}

/**
 * `writeFileAtomic` for callers that are synchronous themselves. The folders (`mkdir`, a
 * `tempDir`) are made when the write finds them missing, not looked for at every write.
 */
export function writeFileAtomicSync(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const temp = tempPath(options.tempDir ?? dirname(file));
  const write = () => writeFileSync(temp, data, { flag: "wx", ...(options.mode !== undefined ? { mode: options.mode } : {}) });
  try {
    retryMissing(write, () => mkdirSync(dirname(temp), { recursive: true }), options.mkdir === true || options.tempDir !== undefined);
    if (options.mode !== undefined) chmodSync(temp, options.mode);
    retryMissing(() => renameSync(temp, file), () => mkdirSync(dirname(file), { recursive: true }), options.mkdir === true);
  } catch (error) {
    rmSync(temp, { force: true });
    const failure = error as NodeJS.ErrnoException;
    if (failure?.path === temp) failure.path = file;
    throw error;
  }
}

/** Run `act`; when it fails for a missing folder and `make` may create it, create it and run `act` again. */
function retryMissing(act: () => void, make: () => void, allowed: boolean): void {
  try {
    act();
  } catch (error) {
    if (!allowed || (error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    make();
    act();
  }
}

/** Remove, from `dir`, the temp files of writers that are gone (never a live process's). */
export async function sweepTempFiles(dir: string): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const match = TEMP_NAME.exec(name);
    if (match && Number(match[1]) !== process.pid && !alive(Number(match[1]))) {
      await unlink(join(dir, name)).then(() => removed.push(name), () => undefined);
    }
  }
  return removed;
}
