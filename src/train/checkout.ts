/**
 * `runs/<run-id>/checkout/`: a linked worktree of the version store on the run branch, so
 * `git -C checkout status` and `git -C checkout log` work as anyone expects. It is made, and
 * repaired when a run opens, resumes or finishes, with the real `git` CLI (through simple-git).
 * After a step moves the branch, the Trainer brings it to the new tip in its own process
 * (`updateCheckout`): it rewrites the files that changed and the worktree's index, as
 * `git reset --hard` would, and leaves the work to the CLI when anything is not as it left it.
 */
import { closeSync, openSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { simpleGit, type SimpleGit } from "simple-git";
import { HermitError, errorMessage } from "../errors.js";
import { TEMP_NAME, sweepTempFiles } from "../fs/atomic.js";
import { readOptional, refreshWorktree } from "./checkout-files.js";
import type { VersionStore } from "./store.js";

function gitAt(baseDir: string): SimpleGit {
  return simpleGit({
    baseDir,
    // No user hook runs when the Trainer touches the worktree; the index stays in the plain
    // form (version 2, not split, hashed) that `updateCheckout` reads.
    config: ["core.hooksPath=/dev/null", "index.version=2", "core.splitIndex=false", "index.skipHash=false", "index.sparse=false"],
    unsafe: { allowUnsafeHooksPath: true },
  }).env({ ...cleanEnv(), GIT_TERMINAL_PROMPT: "0" });
}

/**
 * A minimal environment: nothing that points git at another repository (GIT_DIR, …) or runs
 * a program (EDITOR, PAGER, askpass), which simple-git would refuse anyway.
 */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of ["PATH", "HOME", "USER", "LANG", "LC_ALL", "TMPDIR", "SystemRoot"]) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return env;
}

/** The admin directory git keeps for the worktree at `dir`, read from its `.git` file. */
async function worktreeGitdir(dir: string): Promise<string | undefined> {
  const text = readText(join(dir, ".git"));
  const match = /^gitdir: (.+)$/m.exec(text);
  return match ? match[1].trim() : undefined;
}

/**
 * Make `dir` a worktree of `store` on `branch` holding the branch tip. Repairs what a crash
 * can leave: a half-made worktree, a stale `index.lock`, a worktree whose files lag behind a
 * branch the Trainer moved, temp files of a refresh that was killed.
 */
export async function syncCheckout(store: string, dir: string, branch: string): Promise<void> {
  try {
    const admin = await worktreeGitdir(dir);
    const registered = admin !== undefined && (await stat(join(admin, "HEAD")).catch(() => undefined)) !== undefined;
    if (!registered) {
      await rm(dir, { recursive: true, force: true });
      const repo = gitAt(store);
      await repo.raw(["worktree", "prune"]);
      await repo.raw(["worktree", "add", "--force", dir, branch]);
      return;
    }
    await rm(join(admin, "index.lock"), { force: true });
    const tree = gitAt(dir);
    const head = (await readFile(join(admin, "HEAD"), "utf8").catch(() => "")).trim();
    if (head !== `ref: refs/heads/${branch}`) await tree.raw(["symbolic-ref", "HEAD", `refs/heads/${branch}`]);
    // Not --quiet: simple-git waits an extra 50 ms for a command that prints nothing.
    await tree.raw(["reset", "--hard", `refs/heads/${branch}`]);
    await sweepRefreshLeftovers(tree, dir);
  } catch (error) {
    throw new HermitError("RUN_INVALID", `${dir}: could not prepare the checkout worktree with git: ${errorMessage(error)}`, {
      path: dir,
    });
  }
}

/** A refresh killed between writing a temp file and renaming it leaves the temp file: remove it. */
async function sweepRefreshLeftovers(tree: SimpleGit, dir: string): Promise<void> {
  const untracked = (await tree.raw(["ls-files", "--others", "-z"])).split("\0").filter((path) => TEMP_NAME.test(path.split("/").pop() ?? ""));
  const folders = new Set(untracked.map((path) => join(dir, path, "..")));
  for (const folder of folders) await sweepTempFiles(folder);
}

/**
 * Bring the worktree at `dir` to `tree`, the commit `branch` now names, in this process: the
 * index (`git status`'s record of what is checked out) says which files are as checked out;
 * those that differ from `tree` — or were changed since — are rewritten (atomically), those
 * gone from `tree` removed, and a new index written under git's own lock (`index.lock`, then
 * renamed). Files are written as stored, with no line-ending conversion. When the worktree is
 * not as a refresh leaves it (no index in the plain form, another HEAD, a lock held, a folder
 * where a file belongs), `syncCheckout` does it with the `git` CLI instead. A kill at any
 * point leaves files the next refresh (or the resume's `syncCheckout`) puts right.
 */
export async function updateCheckout(store: VersionStore, dir: string, branch: string, tree: string): Promise<"in-process" | "git"> {
  const admin = await worktreeGitdir(dir);
  const head = admin ? readText(join(admin, "HEAD")).trim() : "";
  if (admin && head === `ref: refs/heads/${branch}` && (await refreshLocked(store, dir, join(admin, "index"), tree))) return "in-process";
  await syncCheckout(store.gitdir, dir, branch);
  return "git";
}

/**
 * The refresh under `index.lock`; false (nothing held, the worktree maybe partly refreshed) when
 * the CLI must finish it. The lock and the index are written synchronously: a few KB.
 */
async function refreshLocked(store: VersionStore, dir: string, index: string, tree: string): Promise<boolean> {
  const lock = `${index}.lock`;
  let fd: number | undefined;
  try {
    fd = openSync(lock, "wx");
  } catch {
    return false;
  }
  let done = false;
  try {
    // Whatever went wrong here, the CLI gets to do it (and reports what it cannot).
    const bytes = await refreshWorktree(store, dir, index, tree).catch(() => undefined);
    if (bytes) {
      writeFileSync(fd, bytes);
      closeSync(fd);
      fd = undefined;
      renameSync(lock, index);
      done = true;
    }
  } finally {
    if (fd !== undefined) closeSync(fd);
    if (!done) rmSync(lock, { force: true });
  }
  return done;
}

/** A file's text, or "" when it cannot be read. */
function readText(file: string): string {
  return readOptional(file)?.toString("utf8") ?? "";
}
