/**
 * `checkout/` refreshed in the Trainer's process (src/train/checkout.ts): after each move of
 * the branch the worktree holds the tip exactly as `git reset --hard` would leave it — `git
 * status` clean, the index naming the tip's blobs — and whatever is not plain goes to the CLI.
 */
import { chmod, lstat, mkdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { syncCheckout, updateCheckout } from "../../src/train/checkout.js";
import { VersionStore, type FileMap } from "../../src/train/store.js";
import { tempDir } from "../helpers.js";
import { fsck, git } from "./helpers.js";

const BRANCH = "hermit/r";

/** A store with a run branch at a first version, and its checkout made by the CLI. */
async function storeWithCheckout() {
  const root = await tempDir();
  const store = await VersionStore.open(join(root, "versions.git"));
  const dir = join(root, "checkout");
  let parent: string | undefined;
  const version = async (files: Record<string, string | { text: string; mode: string }>) => {
    const map: FileMap = new Map();
    for (const [path, value] of Object.entries(files)) {
      const { text, mode } = typeof value === "string" ? { text: value, mode: "100644" } : value;
      map.set(path, { oid: await store.writeBlob(Buffer.from(text)), mode });
    }
    const tree = await store.writeFileMap(map);
    parent = await store.commit({ tree, parents: parent ? [parent] : [], message: { subject: `v ${Object.keys(files).length}`, trailers: {} } });
    await store.setRef(`refs/heads/${BRANCH}`, parent);
    return tree;
  };
  await version({ "ADAPTER.md": "# A\n", "skills/a/SKILL.md": "a\n", "skills/b/SKILL.md": "b\n", "README.md": "fixed\n" });
  await store.pointHead(`refs/heads/${BRANCH}`);
  await syncCheckout(store.gitdir, dir, BRANCH);
  return { store, dir, version };
}

/** The checkout holds exactly the branch tip: nothing staged, modified or untracked, the index names the tip's blobs. */
function expectAtTip(dir: string): void {
  expect(git(["status", "--porcelain", "--untracked-files=all"], dir)).toBe("");
  expect(git(["ls-files", "-s"], dir)).toBe(
    git(["ls-tree", "-r", "HEAD"], dir)
      .split("\n")
      .map((line) => line.replace(/^(\d+) blob (\w+)\t/, "$1 $2 0\t"))
      .join("\n"),
  );
  expect(git(["diff-files", "--quiet"], dir)).toBe("");
}

describe("checkout refresh", () => {
  it("writes what changed (a new folder, an edit, a mode, a deletion that empties a folder) and an index git reads as the tip", async () => {
    const { store, dir, version } = await storeWithCheckout();
    const unchanged = (await stat(join(dir, "README.md"))).ino;
    const second = await version({ "ADAPTER.md": "# A\n\nRule 1.\n", "skills/a/SKILL.md": "a\n", "skills/c/SKILL.md": "c\n", "README.md": "fixed\n", "run.sh": { text: "#!/bin/sh\n", mode: "100755" } });
    expect(await updateCheckout(store, dir, BRANCH, second)).toBe("in-process");
    expectAtTip(dir);
    expect(await readFile(join(dir, "ADAPTER.md"), "utf8")).toBe("# A\n\nRule 1.\n");
    expect((await stat(join(dir, "run.sh"))).mode & 0o111).not.toBe(0);
    expect(await lstat(join(dir, "skills", "b")).catch(() => "gone")).toBe("gone");
    expect((await stat(join(dir, "README.md"))).ino).toBe(unchanged);
    const third = await version({ "ADAPTER.md": "# A\n\nRule 1.\n", "skills/a/SKILL.md": "a\n", "README.md": "fixed\n", "run.sh": "#!/bin/sh\n" });
    expect(await updateCheckout(store, dir, BRANCH, third)).toBe("in-process");
    expectAtTip(dir);
    expect((await stat(join(dir, "run.sh"))).mode & 0o111).toBe(0);
    expect(fsck(store.gitdir)).toEqual({ status: 0, output: "" });
  });

  it("puts back a tracked file edited by hand (even within the same instant), keeps untracked files, as reset --hard does", async () => {
    const { store, dir, version } = await storeWithCheckout();
    await writeFile(join(dir, "README.md"), "FIXED\n");
    await writeFile(join(dir, "mine.txt"), "untracked\n");
    const second = await version({ "ADAPTER.md": "# A\n\nRule 1.\n", "skills/a/SKILL.md": "a\n", "skills/b/SKILL.md": "b\n", "README.md": "fixed\n" });
    expect(await updateCheckout(store, dir, BRANCH, second)).toBe("in-process");
    expect(await readFile(join(dir, "README.md"), "utf8")).toBe("fixed\n");
    expect(await readFile(join(dir, "mine.txt"), "utf8")).toBe("untracked\n");
    await rm(join(dir, "mine.txt"));
    expectAtTip(dir);
    // Right after a refresh: same size, same instant — the stat data alone cannot tell.
    await writeFile(join(dir, "skills/a/SKILL.md"), "A\n");
    await chmod(join(dir, "ADAPTER.md"), 0o755);
    const third = await version({ "ADAPTER.md": "# A\n\nRule 1.\n", "skills/a/SKILL.md": "a\n", "skills/b/SKILL.md": "b\n", "README.md": "fixed!\n" });
    expect(await updateCheckout(store, dir, BRANCH, third)).toBe("in-process");
    expect(await readFile(join(dir, "skills/a/SKILL.md"), "utf8")).toBe("a\n");
    expectAtTip(dir);
  });

  it("leaves to the git CLI a held index lock, a link where a folder belongs (never written through) and an index it does not read", async () => {
    const { store, dir, version } = await storeWithCheckout();
    const admin = git(["rev-parse", "--absolute-git-dir"], dir);
    await writeFile(join(admin, "index.lock"), "");
    const second = await version({ "ADAPTER.md": "# B\n", "skills/a/SKILL.md": "a\n", "skills/b/SKILL.md": "b\n", "README.md": "fixed\n" });
    expect(await updateCheckout(store, dir, BRANCH, second)).toBe("git");
    expectAtTip(dir);

    const outside = await tempDir();
    await rm(join(dir, "skills"), { recursive: true });
    await symlink(outside, join(dir, "skills"));
    const third = await version({ "ADAPTER.md": "# B\n", "skills/a/SKILL.md": "a!\n", "skills/b/SKILL.md": "b\n", "README.md": "fixed\n" });
    expect(await updateCheckout(store, dir, BRANCH, third)).toBe("git");
    expectAtTip(dir);
    expect(await readFile(join(outside, "a", "SKILL.md")).catch(() => "not written")).toBe("not written");

    git(["update-index", "--index-version", "4"], dir);
    const fourth = await version({ "ADAPTER.md": "# C\n", "README.md": "fixed\n" });
    expect(await updateCheckout(store, dir, BRANCH, fourth)).toBe("git");
    expectAtTip(dir);
  });

  it("after a refresh killed midway (a temp file, a stale lock, half the files), the resume's sync leaves the tip and no leftovers", async () => {
    const { store, dir, version } = await storeWithCheckout();
    const admin = git(["rev-parse", "--absolute-git-dir"], dir);
    await version({ "ADAPTER.md": "# killed\n", "skills/a/SKILL.md": "a\n", "skills/b/SKILL.md": "b\n", "README.md": "fixed\n" });
    await writeFile(join(admin, "index.lock"), "half");
    await mkdir(join(dir, "skills", "a"), { recursive: true });
    await writeFile(join(dir, "skills", "a", ".hermit-tmp-999999-0123456789ab"), "half-written");
    await writeFile(join(dir, "ADAPTER.md"), "# killed\n");
    await syncCheckout(store.gitdir, dir, BRANCH);
    expectAtTip(dir);
    expect(await readFile(join(dir, "ADAPTER.md"), "utf8")).toBe("# killed\n");
  });
});
