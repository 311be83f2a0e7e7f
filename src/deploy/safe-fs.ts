/**
 * Writes and deletes confined to one workspace, safe against a folder swapped for a symlink
 * while a deploy runs (between plan and apply, or between two writes). Right before each
 * create, rename, unlink and rmdir the folder chain from the workspace down is checked with
 * `lstat` (every part a real folder); a new file is created exclusively (`O_EXCL`) without
 * following a final symlink (`O_NOFOLLOW`), and on Linux the open file's real path
 * (`/proc/self/fd`) must be inside the workspace before a byte is written and again after
 * the rename. A swap found at any of these points is WORKSPACE_CHANGED; what hermit had
 * created outside is removed again.
 */
import { constants } from "node:fs";
import { lstat, mkdir, open, readlink, rename, rmdir, unlink, type FileHandle } from "node:fs/promises";
import { dirname, join } from "node:path";
import { HermitError, isHermitError } from "../errors.js";
import { tempPath } from "../fs/atomic.js";

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
const UMASK = process.umask();
const HAS_PROC_FD = process.platform === "linux";

/** The error for a workspace that changed under a running deploy. */
export function workspaceChanged(workspace: string, rel: string, what: string): HermitError {
  return new HermitError(
    "WORKSPACE_CHANGED",
    `${workspace}/${rel}: ${what} while hermit was writing (something else changed the workspace during the deploy); ` +
      "hermit stopped without writing through it",
    { path: `${workspace}/${rel}`, problem: what },
  );
}

/** Writer of one workspace; `root` is its absolute real path. Paths are relative POSIX paths. */
export class WorkspaceWriter {
  constructor(readonly root: string) {}

  private full(rel: string): string {
    return rel === "." || rel === "" ? this.root : join(this.root, ...rel.split("/"));
  }

  /** Every folder from the workspace down to `folder` (relative) is a real folder, now. */
  async checkFolders(folder: string, target: string = folder): Promise<void> {
    const info = await lstat(this.root).catch(() => undefined);
    if (!info?.isDirectory()) throw workspaceChanged(this.root, ".", "the workspace folder is gone or no longer a folder");
    if (folder === "." || folder === "") return;
    let current = "";
    for (const part of folder.split("/")) {
      current = current === "" ? part : `${current}/${part}`;
      const found = await lstat(this.full(current)).catch((error: NodeJS.ErrnoException) => error);
      if (found instanceof Error) {
        if (found.code === "ENOENT") throw workspaceChanged(this.root, target, `'${current}' disappeared`);
        throw found;
      }
      if (found.isSymbolicLink()) throw workspaceChanged(this.root, target, `'${current}' became a symlink`);
      if (!found.isDirectory()) throw workspaceChanged(this.root, target, `'${current}' is no longer a folder`);
    }
  }

  /** Create `folder` and the folders above it, one at a time, never through a symlink. */
  async ensureFolder(folder: string): Promise<void> {
    if (folder === "." || folder === "") return;
    let current = "";
    for (const part of folder.split("/")) {
      current = current === "" ? part : `${current}/${part}`;
      const found = await lstat(this.full(current)).catch(() => undefined);
      if (found?.isSymbolicLink()) throw workspaceChanged(this.root, folder, `'${current}' became a symlink`);
      if (found?.isDirectory()) continue;
      if (found) {
        const error = new Error(`ENOTDIR: not a directory, mkdir '${this.full(current)}'`) as NodeJS.ErrnoException;
        Object.assign(error, { code: "ENOTDIR", syscall: "mkdir", path: this.full(current) });
        throw error;
      }
      await this.checkFolders(dirname(current), folder);
      await mkdir(this.full(current)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "EEXIST") throw error;
      });
    }
    await this.checkFolders(folder);
  }

  /** The real path of an open file (Linux), to prove where it was created; undefined elsewhere. */
  private async whereIs(handle: FileHandle): Promise<string | undefined> {
    if (!HAS_PROC_FD) return undefined;
    return readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
  }

  /** The file at `where` (a real path) is hermit's fresh one and outside where it belongs: remove it, then refuse. */
  private async escaped(where: string, rel: string): Promise<never> {
    await unlink(where).catch(() => undefined);
    throw workspaceChanged(this.root, rel, `a folder was swapped for a link to '${dirname(where)}'`);
  }

  /** Write `data` to `rel` atomically (temp file beside it, renamed into place) with exactly `mode`. */
  async writeFile(rel: string, data: Uint8Array, mode = 0o644): Promise<void> {
    const folder = dirname(rel);
    const target = this.full(rel);
    const temp = tempPath(dirname(target));
    await this.checkFolders(folder, rel);
    const handle = await open(temp, CREATE, mode).catch((error: NodeJS.ErrnoException) => {
      if (error.path === temp) error.path = target;
      throw error;
    });
    let renamed = false;
    try {
      const created = await this.whereIs(handle);
      if (created !== undefined && created !== temp) await this.escaped(created, rel);
      await handle.writeFile(data);
      // The umask may have narrowed the mode; widen it only when it did.
      if ((mode & ~UMASK) !== mode) await handle.chmod(mode);
      await this.checkFolders(folder, rel);
      await rename(temp, target);
      renamed = true;
      const landed = await this.whereIs(handle);
      if (landed !== undefined && landed !== target) await this.escaped(landed, rel);
    } catch (error) {
      if (!renamed) await unlink(temp).catch(() => undefined);
      const failure = error as NodeJS.ErrnoException;
      if (failure?.path === temp) failure.path = target;
      throw error;
    } finally {
      await handle.close();
    }
  }

  /** Remove the file `rel` (a missing file is fine), never through a swapped folder. */
  async unlink(rel: string): Promise<void> {
    await this.checkFolders(dirname(rel), rel);
    await unlink(this.full(rel)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
    await this.checkFolders(dirname(rel), rel);
  }

  /** Remove the folder `rel` if it is empty; false when it is not (or is gone). */
  async removeEmptyFolder(rel: string): Promise<boolean> {
    try {
      await this.checkFolders(dirname(rel), rel);
      const info = await lstat(this.full(rel));
      if (!info.isDirectory()) return false;
      await rmdir(this.full(rel));
      return true;
    } catch (error) {
      if (isHermitError(error)) throw error;
      return false;
    }
  }
}
