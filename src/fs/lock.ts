/**
 * A pid lock file: one process at a time holds it. The holder's record (pid, host, start
 * time) is written to a temp file first and linked into place, so the lock file is never seen
 * empty or half written. A lock whose owner is gone — a crash, a `kill -9`, on this machine —
 * is stale and taken over at once: the pid is dead, or it now belongs to a process that
 * started later (the pid was reused). A live owner, or an owner on another machine, refuses
 * the second process. Deploy locks a workspace with it (`lockWorkspace`), the Trainer a run
 * (`lockRun`).
 */
import { readFileSync, rmSync } from "node:fs";
import { link, readFile, rename, rm, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname } from "node:path";
import type { HermitError } from "../errors.js";
import { tempPath } from "./atomic.js";
import { alive, processStart } from "./process.js";

export { alive, processStart } from "./process.js";

export interface LockHolder {
  pid: number;
  host: string;
  since: string;
  /** When the process started (boot id and start tick, Linux), to tell a reused pid from the owner. */
  start?: string;
}

export interface Lock {
  file: string;
  release(): Promise<void>;
}

/** Builds the error for a lock held by someone else (`holder` undefined: unreadable). */
export type LockedError = (holder: LockHolder | undefined) => HermitError;

/** The holder a lock file names, or undefined when it cannot be read. */
export async function readHolder(file: string): Promise<LockHolder | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, "utf8")) as LockHolder;
    return typeof parsed.pid === "number" && typeof parsed.host === "string" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the lock's owner is gone: the file cannot be read (hermit never leaves a lock file
 * unreadable), or it names a dead process of this machine, or a pid now used by a process
 * that started after the lock's owner.
 */
export function isStale(holder: LockHolder | undefined): boolean {
  if (!holder) return true;
  if (holder.host !== hostname()) return false;
  if (!alive(holder.pid)) return true;
  const start = holder.start === undefined ? undefined : processStart(holder.pid);
  return start !== undefined && start !== holder.start;
}

/** Take the lock at `file`, or throw `locked(holder)`. The lock is also released if the process exits. */
export async function acquireLock(file: string, locked: LockedError): Promise<Lock> {
  const start = processStart(process.pid);
  const info: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), ...(start ? { start } : {}) };
  const temp = tempPath(dirname(file));
  await writeFile(temp, `${JSON.stringify(info)}\n`, { flag: "wx", mode: 0o644 });
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await link(temp, file);
        return held(file, info);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = await readHolder(file);
      if (!isStale(holder)) throw locked(holder);
      await takeOver(file, holder);
    }
    throw locked(await readHolder(file));
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/**
 * Remove a stale lock. It is first renamed aside, so that a lock another process took over
 * in the meantime (and is fresh) can be told apart and put back instead of deleted.
 */
async function takeOver(file: string, stale: LockHolder | undefined): Promise<void> {
  const aside = tempPath(dirname(file));
  try {
    await rename(file, aside);
  } catch {
    return; // gone already: someone else took it over
  }
  const moved = await readHolder(aside);
  if (stale && moved && (moved.pid !== stale.pid || moved.since !== stale.since)) {
    await link(aside, file).catch(() => undefined);
  }
  await unlink(aside).catch(() => undefined);
}

function held(file: string, info: LockHolder): Lock {
  let released = false;
  const stillOurs = (text: string) => {
    try {
      const holder = JSON.parse(text) as LockHolder;
      return holder.pid === info.pid && holder.since === info.since;
    } catch {
      return false;
    }
  };
  const releaseSync = () => {
    if (released) return;
    released = true;
    // Synchronous on exit: the event loop is gone by then.
    try {
      if (stillOurs(readFileSync(file, "utf8"))) rmSync(file, { force: true });
    } catch {
      // already gone
    }
  };
  process.once("exit", releaseSync);
  return {
    file,
    release: async () => {
      process.removeListener("exit", releaseSync);
      if (released) return;
      released = true;
      const text = await readFile(file, "utf8").catch(() => "");
      if (stillOurs(text)) await rm(file, { force: true });
    },
  };
}
