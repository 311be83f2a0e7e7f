/** One deploy (or undeploy) at a time per workspace: `.hermit-deploy.lock` (see `src/fs/lock.ts`). */
import { mkdir, rmdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { HermitError } from "../errors.js";
import { acquireLock, isStale, readHolder, type LockHolder } from "../fs/lock.js";
import { unwritable } from "./apply.js";
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

/** The workspace lock as `status` reports it: who holds it, and whether that process is gone. */
export interface LockState {
  /** Undefined when the lock file cannot be read. */
  holder?: LockHolder;
  /** True when its owner is gone: the next deploy or undeploy takes it over. */
  stale: boolean;
}

/** The state of the workspace lock, or undefined when there is none. */
export async function lockState(workspace: string, present: boolean): Promise<LockState | undefined> {
  if (!present) return undefined;
  const holder = await readHolder(join(workspace, LOCK_FILE));
  return { ...(holder ? { holder } : {}), stale: isStale(holder) };
}

/**
 * Run `action` holding the workspace lock. Folders created only to hold the lock are
 * removed again when the action fails, so a refused deploy leaves no trace.
 */
export async function withWorkspaceLock<T>(workspace: string, action: () => Promise<T>): Promise<T> {
  let firstCreated: string | undefined;
  let release: () => Promise<void>;
  try {
    firstCreated = await mkdir(workspace, { recursive: true });
    release = await lockWorkspace(workspace);
  } catch (error) {
    if (firstCreated !== undefined) await removeEmptyChain(workspace, firstCreated);
    throw unwritable(workspace, error, "nothing was written");
  }
  let failed = false;
  try {
    return await action();
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await release();
    if (failed && firstCreated !== undefined) await removeEmptyChain(workspace, firstCreated);
  }
}

async function removeEmptyChain(leaf: string, top: string): Promise<void> {
  let folder = leaf;
  for (;;) {
    try {
      await rmdir(folder);
    } catch {
      return;
    }
    if (folder === top) return;
    folder = dirname(folder);
  }
}
