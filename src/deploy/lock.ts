/**
 * One deploy (or undeploy) at a time per workspace: `.hermit-deploy.lock`, created with
 * O_EXCL and holding the owner's pid and host name. A lock whose process is gone (same
 * machine) is stale and taken over.
 */
import { hostname } from "node:os";
import { join } from "node:path";
import { open, readFile, unlink } from "node:fs/promises";
import { HermitError } from "../errors.js";
import { LOCK_FILE } from "./record.js";

interface LockOwner {
  pid: number;
  hostname: string;
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

async function readOwner(path: string): Promise<LockOwner | undefined> {
  try {
    const owner = JSON.parse(await readFile(path, "utf8")) as LockOwner;
    return typeof owner.pid === "number" ? owner : undefined;
  } catch {
    return undefined;
  }
}

/** Take the workspace lock; returns its release. WORKSPACE_LOCKED (exit 2) while another process holds it. */
export async function acquireLock(workspace: string): Promise<() => Promise<void>> {
  const path = join(workspace, LOCK_FILE);
  const owner: LockOwner = { pid: process.pid, hostname: hostname(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const handle = await open(path, "wx");
      await handle.writeFile(`${JSON.stringify(owner)}\n`);
      await handle.close();
      return async () => {
        await unlink(path).catch(() => undefined);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = await readOwner(path);
      const stale = holder !== undefined && holder.hostname === owner.hostname && !alive(holder.pid);
      if (attempt === 0 && stale) {
        await unlink(path).catch(() => undefined);
        continue;
      }
      const who = holder ? `process ${holder.pid} on ${holder.hostname} since ${holder.since}` : "another process";
      throw new HermitError(
        "WORKSPACE_LOCKED",
        `${workspace}: another hermit deploy is running here (${who}); if it is not, remove ${path}`,
        { path, holder },
      );
    }
  }
  throw new HermitError("WORKSPACE_LOCKED", `${workspace}: could not take ${path}`, { path });
}
