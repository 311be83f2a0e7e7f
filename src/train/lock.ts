/**
 * One process per run: `runs/<run-id>/.lock` holds the owner's pid. A lock whose owner is gone
 * (a crash, a `kill -9`) is stale and taken over; a live owner refuses the second process.
 */
import { rmSync } from "node:fs";
import { open, readFile, rm, stat } from "node:fs/promises";
import { hostname } from "node:os";
import { HermitError } from "../errors.js";

export interface RunLock {
  file: string;
  release(): Promise<void>;
}

interface LockInfo {
  pid: number;
  host: string;
  since: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Take the lock at `file` or throw RUN_LOCKED naming the process that holds it. */
export async function acquireLock(file: string, runId: string): Promise<RunLock> {
  const info: LockInfo = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(file, "wx");
      await handle.writeFile(`${JSON.stringify(info)}\n`);
      await handle.close();
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
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = await readHolder(file);
    if (holder && holder.host === hostname() && alive(holder.pid)) {
      throw new HermitError(
        "RUN_LOCKED",
        `run '${runId}' is being run by process ${holder.pid} (since ${holder.since}); ${file} is its lock`,
        { path: file, pid: holder.pid },
      );
    }
    if (holder && holder.host !== hostname()) {
      throw new HermitError("RUN_LOCKED", `run '${runId}' is locked by process ${holder.pid} on ${holder.host}; remove ${file} if that process is gone`, {
        path: file,
        pid: holder.pid,
        host: holder.host,
      });
    }
    if (!holder) {
      // Unreadable: either torn by a crash or being written right now by another process.
      const age = Date.now() - ((await stat(file).catch(() => undefined))?.mtimeMs ?? 0);
      if (age < 5_000) {
        throw new HermitError("RUN_LOCKED", `run '${runId}' is being started by another process; ${file} is its lock`, { path: file });
      }
    }
    // The owner is gone: a stale lock from a crash.
    await rm(file, { force: true });
  }
  throw new HermitError("RUN_LOCKED", `run '${runId}': could not take the lock ${file}`, { path: file });
}

async function readHolder(file: string): Promise<LockInfo | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, "utf8")) as LockInfo;
    return typeof parsed.pid === "number" ? parsed : undefined;
  } catch {
    return undefined;
  }
}
