/**
 * Writes and deletes confined to one workspace, safe against a folder swapped for a symlink
 * while a deploy runs (between plan and apply, or between two writes). A new file is created
 * exclusively (`O_EXCL`) without following a final symlink (`O_NOFOLLOW`) beside its target.
 * Where the kernel tells (Linux `/proc/self/fd`), the open file's real path must be exactly
 * the intended one inside the workspace before a byte is written and again after the rename:
 * that proves where the file is, whatever happened to the folders in between, so no `lstat`
 * walk is needed around writes. Elsewhere the folder chain from the workspace down is checked
 * with `lstat` right before the create and before the rename. Every unlink and rmdir checks
 * the chain right before and after acting. A swap found at any of these points is
 * WORKSPACE_CHANGED; what hermit had created outside is removed again. The calls are synchronous: for hundreds of small files
 * that costs half the CPU of the thread pool's round trips, and apply yields to the event
 * loop between batches.
 */
import { closeSync, constants, existsSync, fchmodSync, lstatSync, mkdirSync, openSync, readlinkSync, renameSync, rmdirSync, unlinkSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { HermitError, isHermitError } from "../errors.js";
import { tempPath } from "../fs/atomic.js";

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
const OPEN_FOLDER = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);
const UMASK = process.umask();
/** Whether the kernel names an open file's real path (`/proc/self/fd/<fd>`). */
const HAS_PROC_FD = existsSync("/proc/self/fd");

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
  /**
   * Folders this writer found (or made) real folders. Where the kernel proves each file's
   * location (`/proc/self/fd`), a folder seen once is not looked at again: a swap of it
   * later is caught at the next file written below it.
   */
  private readonly seen = new Set<string>();

  constructor(readonly root: string) {}

  private full(rel: string): string {
    return rel === "." || rel === "" ? this.root : join(this.root, ...rel.split("/"));
  }

  /** Every folder from the workspace down to `folder` (relative) is a real folder, now. */
  checkFolders(folder: string, target: string = folder): void {
    const info = lstatSync(this.root, { throwIfNoEntry: false });
    if (!info?.isDirectory()) throw workspaceChanged(this.root, ".", "the workspace folder is gone or no longer a folder");
    if (folder === "." || folder === "") return;
    let current = "";
    for (const part of folder.split("/")) {
      current = current === "" ? part : `${current}/${part}`;
      const found = lstatSync(this.full(current), { throwIfNoEntry: false });
      if (!found) throw workspaceChanged(this.root, target, `'${current}' disappeared`);
      if (found.isSymbolicLink()) throw workspaceChanged(this.root, target, `'${current}' became a symlink`);
      if (!found.isDirectory()) throw workspaceChanged(this.root, target, `'${current}' is no longer a folder`);
    }
  }

  /**
   * A "no such file", "not a folder" or "too many links" failure below `folder` is what a
   * folder moved away or swapped (mid-swap, before the link appears) looks like: when the
   * chain is no longer whole, that is WORKSPACE_CHANGED, not an unwritable workspace.
   */
  private explainMissing(error: unknown, folder: string, target: string): void {
    const code = (error as NodeJS.ErrnoException)?.code;
    if (code !== "ENOENT" && code !== "ENOTDIR" && code !== "ELOOP") return;
    this.seen.clear();
    this.checkFolders(folder, target);
  }

  /** Create `folder` and the folders above it, one at a time, never through a symlink. */
  ensureFolder(folder: string): void {
    if (folder === "." || folder === "" || (HAS_PROC_FD && this.seen.has(folder))) return;
    let current = "";
    for (const part of folder.split("/")) {
      current = current === "" ? part : `${current}/${part}`;
      if (HAS_PROC_FD && this.seen.has(current)) continue;
      if (!HAS_PROC_FD) this.checkFolders(dirname(current), folder);
      // mkdir first (a new folder is the common case): it never follows a symlink in the
      // last place, so EEXIST is what is there already, looked at only then.
      try {
        mkdirSync(this.full(current));
      } catch (error) {
        this.explainMissing(error, dirname(current), folder);
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        this.existing(current, folder);
        this.seen.add(current);
        continue;
      }
      this.proveFolder(current, folder);
      this.seen.add(current);
    }
    if (!HAS_PROC_FD) this.checkFolders(folder);
  }

  /** What mkdir found at `rel` is a real folder (else WORKSPACE_CHANGED for a symlink, ENOTDIR for anything else). */
  private existing(rel: string, target: string): void {
    const found = lstatSync(this.full(rel), { throwIfNoEntry: false });
    if (found?.isDirectory()) return;
    if (!found) throw workspaceChanged(this.root, target, `'${rel}' disappeared`);
    if (found.isSymbolicLink()) throw workspaceChanged(this.root, target, `'${rel}' became a symlink`);
    const error = new Error(`ENOTDIR: not a directory, mkdir '${this.full(rel)}'`) as NodeJS.ErrnoException;
    Object.assign(error, { code: "ENOTDIR", syscall: "mkdir", path: this.full(rel) });
    throw error;
  }

  /** The real path of an open file (Linux), to prove where it was created; undefined elsewhere. */
  private whereIs(fd: number): string | undefined {
    if (!HAS_PROC_FD) return undefined;
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return undefined;
    }
  }

  /** Where the kernel tells, the folder just made at `rel` really is there (else it is removed again, and refused). */
  private proveFolder(rel: string, target: string): void {
    if (!HAS_PROC_FD) return;
    let fd: number;
    try {
      fd = openSync(this.full(rel), OPEN_FOLDER);
    } catch {
      throw workspaceChanged(this.root, target, `'${rel}' is no longer a folder`);
    }
    try {
      const where = this.whereIs(fd);
      if (where !== undefined && where !== this.full(rel)) {
        try {
          rmdirSync(where);
        } catch {
          // not empty, or gone: not hermit's to remove further
        }
        throw workspaceChanged(this.root, target, `a folder was swapped for a link to '${dirname(where)}'`);
      }
    } finally {
      closeSync(fd);
    }
  }

  /** The file at `where` (a real path) is hermit's fresh one and outside where it belongs: remove it, then refuse. */
  private escaped(where: string, rel: string): never {
    try {
      unlinkSync(where);
    } catch {
      // gone already
    }
    throw workspaceChanged(this.root, rel, `a folder was swapped for a link to '${dirname(where)}'`);
  }

  /** Write `data` to `rel` atomically (temp file beside it, renamed into place) with exactly `mode`. */
  writeFile(rel: string, data: Uint8Array, mode = 0o644): void {
    const folder = dirname(rel);
    const target = this.full(rel);
    const temp = tempPath(dirname(target));
    if (!HAS_PROC_FD) this.checkFolders(folder, rel);
    let fd: number;
    try {
      fd = openSync(temp, CREATE, mode);
    } catch (error) {
      this.explainMissing(error, folder, rel);
      const failure = error as NodeJS.ErrnoException;
      if (failure.path === temp) failure.path = target;
      throw error;
    }
    let renamed = false;
    try {
      // Where the kernel cannot say where the file is, the folder chain is checked instead.
      const created = this.whereIs(fd);
      if (created === undefined) this.checkFolders(folder, rel);
      else if (created !== temp) this.escaped(created, rel);
      for (let offset = 0; offset < data.byteLength; ) offset += writeSync(fd, data, offset);
      // The umask may have narrowed the mode; widen it only when it did.
      if ((mode & ~UMASK) !== mode) fchmodSync(fd, mode);
      if (created === undefined) this.checkFolders(folder, rel);
      renameSync(temp, target);
      renamed = true;
      const landed = this.whereIs(fd);
      if (landed === undefined) this.checkFolders(folder, rel);
      else if (landed !== target) this.escaped(landed, rel);
    } catch (error) {
      if (!renamed) {
        try {
          unlinkSync(temp);
        } catch {
          // not created, or gone
        }
      }
      this.explainMissing(error, folder, rel);
      const failure = error as NodeJS.ErrnoException;
      if (failure?.path === temp) failure.path = target;
      throw error;
    } finally {
      closeSync(fd);
    }
  }

  /** Remove the file `rel` (a missing file is fine), never through a swapped folder. */
  unlink(rel: string): void {
    this.checkFolders(dirname(rel), rel);
    try {
      unlinkSync(this.full(rel));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    this.checkFolders(dirname(rel), rel);
  }

  /** Remove the folder `rel` if it is empty; false when it is not (or is gone). */
  removeEmptyFolder(rel: string): boolean {
    try {
      this.checkFolders(dirname(rel), rel);
      const info = lstatSync(this.full(rel), { throwIfNoEntry: false });
      if (!info?.isDirectory()) return false;
      rmdirSync(this.full(rel));
      this.seen.delete(rel);
      return true;
    } catch (error) {
      if (isHermitError(error)) throw error;
      return false;
    }
  }
}
