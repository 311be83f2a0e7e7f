/**
 * A pid lock file, created with O_EXCL: one process at a time holds it. A lock whose owner is
 * gone (a crash, a `kill -9`, same machine) is stale and taken over; a live owner, an owner on
 * another machine, or a lock being written right now refuses the second process.
 * Deploy locks a workspace with it (`lockWorkspace`), the Trainer a run (`lockRun`).
 */
import { rmSync } from "node:fs";
import { open, readFile, rm, stat } from "node:fs/promises";
import { hostname } from "node:os";
import type { HermitError } from "../errors.js";

export interface LockHolder {
  pid: number;
  host: string;
  since: string;
}

export interface Lock {
  file: string;
  release(): Promise<void>;
}

/** Builds the error for a lock held by someone else (`holder` undefined: unreadable, just created). */
export type LockedError = (holder: LockHolder | undefined) => HermitError;

/** A lock file younger than this that cannot be read is being written by its owner. */
const FRESH_MS = 5_000;

/** Whether a process with this pid runs on this machine (EPERM: it does, as another user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function readHolder(file: string): Promise<LockHolder | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, "utf8")) as LockHolder;
    return typeof parsed.pid === "number" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Take the lock at `file`, or throw `locked(holder)`. The lock is also released if the process exits. */
export async function acquireLock(file: string, locked: LockedError): Promise<Lock> {
  const info: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(file, "wx");
      await handle.writeFile(`${JSON.stringify(info)}\n`);
      await handle.close();
      return held(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = await readHolder(file);
    if (holder && (holder.host !== info.host || alive(holder.pid))) throw locked(holder);
    if (!holder) {
      const age = Date.now() - ((await stat(file).catch(() => undefined))?.mtimeMs ?? 0);
      if (age < FRESH_MS) throw locked(undefined);
    }
    // The owner is gone: a stale lock from a crash.
    await rm(file, { force: true });
  }
  throw locked(await readHolder(file));
}

function held(file: string): Lock {
  let released = false;
  const releaseSync = () => {
    if (!released) {
      released = true;
      // Synchronous on exit: the event loop is gone by then.
      rmSync(file, { force: true });
    }
  };
  process.once("exit", releaseSync);
  return {
    file,
    release: async () => {
      process.removeListener("exit", releaseSync);
      if (!released) {
        released = true;
        await rm(file, { force: true });
      }
    },
  };
}
