/** One process per run: `runs/<run-id>/.lock` (see `src/fs/lock.ts`); a crashed owner's lock is taken over. */
import { HermitError } from "../errors.js";
import { acquireLock, type Lock } from "../fs/lock.js";

export type RunLock = Lock;

/** Take the lock at `file` or throw RUN_LOCKED naming the process that holds it. */
export function lockRun(file: string, runId: string): Promise<RunLock> {
  return acquireLock(file, (holder) => {
    if (!holder) {
      return new HermitError("RUN_LOCKED", `run '${runId}' is being started by another process; ${file} is its lock`, {
        path: file,
      });
    }
    return new HermitError(
      "RUN_LOCKED",
      `run '${runId}' is being run by process ${holder.pid} on ${holder.host} (since ${holder.since}); ${file} is its lock`,
      { path: file, pid: holder.pid, host: holder.host },
    );
  });
}
