/** One deploy (or undeploy) at a time per workspace: `.hermit-deploy.lock` (see `src/fs/lock.ts`). */
import { join } from "node:path";
import { HermitError } from "../errors.js";
import { acquireLock } from "../fs/lock.js";
import { LOCK_FILE } from "./record.js";

/** Take the workspace lock; returns its release. WORKSPACE_LOCKED (exit 2) while another process holds it. */
export async function lockWorkspace(workspace: string): Promise<() => Promise<void>> {
  const path = join(workspace, LOCK_FILE);
  const lock = await acquireLock(path, (holder) => {
    const who = holder ? `process ${holder.pid} on ${holder.host} since ${holder.since}` : "another process";
    return new HermitError(
      "WORKSPACE_LOCKED",
      `${workspace}: another hermit deploy is running here (${who}); if it is not, remove ${path}`,
      { path, holder },
    );
  });
  return () => lock.release();
}
