/**
 * Crash-safe file writes: the content goes to a temp file created exclusively beside the
 * target (so never through a link), then is renamed over it. A `kill -9` leaves either the old
 * or the new content, never half, plus at most a temp file of hermit's own naming, which
 * `sweepTempFiles` removes once its writer is gone.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, readdir, rename, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { alive } from "./process.js";

/** `.hermit-tmp-<pid>-<12 hex>`: the names of every temp file hermit writes. */
export const TEMP_NAME = /^\.hermit-tmp-(\d+)-[0-9a-f]{12}$/;

/** 48 bits: a random start per process, then counted up (one random draw per file cost as much as its write). */
const TEMP_SPACE = 2 ** 48;
let tempCount = randomBytes(6).readUIntBE(0, 6);

/** A fresh temp file name in `dir`, unique on this machine (the pid, then a number no other name of this process had). */
export function tempPath(dir: string): string {
  tempCount = (tempCount + 1) % TEMP_SPACE;
  return join(dir, `.hermit-tmp-${process.pid}-${tempCount.toString(16).padStart(12, "0")}`);
}

export interface AtomicWriteOptions {
  /** The file's mode; default 0644 less the umask. Applied with chmod, so the umask cannot narrow it. */
  mode?: number;
  /** Create the target's folder first. */
  mkdir?: boolean;
  /**
   * Where the temp file goes (default: beside the target; same file system required). A Git
   * store puts it outside `refs/` and `objects/`, where git would read a stray one.
   */
  tempDir?: string;
}

/** Write `data` to `file` atomically. An error names `file`, not the temp file. */
export async function writeFileAtomic(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  if (options.mkdir) await mkdir(dirname(file), { recursive: true });
  if (options.tempDir) await mkdir(options.tempDir, { recursive: true });
  const temp = tempPath(options.tempDir ?? dirname(file));
  try {
    await writeFile(temp, data, { flag: "wx", ...(options.mode !== undefined ? { mode: options.mode } : {}) });
    if (options.mode !== undefined) await chmod(temp, options.mode);
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    const failure = error as NodeJS.ErrnoException;
    if (failure?.path === temp) failure.path = file;
    throw error;
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
