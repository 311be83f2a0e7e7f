/**
 * `runs/<run-id>/checkout/`: a linked worktree of the version store on the run branch, made
 * and refreshed with the real `git` CLI (through simple-git) so `git -C checkout status` and
 * `git -C checkout log` work as anyone expects. The Trainer writes the store with
 * isomorphic-git and then brings this worktree to the branch tip.
 */
import { readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { simpleGit, type SimpleGit } from "simple-git";
import { HermitError, errorMessage } from "../errors.js";

function gitAt(baseDir: string): SimpleGit {
  return simpleGit({
    baseDir,
    // No user hook runs when the Trainer touches the worktree.
    config: ["core.hooksPath=/dev/null"],
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
  const text = await readFile(join(dir, ".git"), "utf8").catch(() => undefined);
  const match = text ? /^gitdir: (.+)$/m.exec(text) : null;
  return match ? match[1].trim() : undefined;
}

/**
 * Make `dir` a worktree of `store` on `branch` holding the branch tip. Repairs what a crash
 * can leave: a half-made worktree, a stale `index.lock`, a worktree whose files lag behind a
 * branch the Trainer moved.
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
  } catch (error) {
    throw new HermitError("RUN_INVALID", `${dir}: could not prepare the checkout worktree with git: ${errorMessage(error)}`, {
      path: dir,
    });
  }
}
