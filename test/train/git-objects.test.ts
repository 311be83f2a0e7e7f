/**
 * The version store's own object encoding (src/train/git-objects.ts) against isomorphic-git's
 * writer and the `git` CLI: the same input gives the same object id, and git reads back what
 * hermit wrote.
 */
import { mkdir } from "node:fs/promises";
import * as nodeFs from "node:fs";
import { join } from "node:path";
import git from "isomorphic-git";
import { describe, expect, it } from "vitest";
import { blobObject, commitObject, tagObject, treeObject, type Signature } from "../../src/train/git-objects.js";
import { VersionStore } from "../../src/train/store.js";
import { tempDir } from "../helpers.js";
import { fsck, git as gitCli } from "./helpers.js";

async function bareRepo(): Promise<string> {
  const gitdir = join(await tempDir(), "iso.git");
  await mkdir(gitdir, { recursive: true });
  await git.init({ fs: nodeFs, gitdir, bare: true });
  return gitdir;
}

const signature = (timezoneOffset: number): Signature => ({ name: "hermit", email: "hermit@localhost", timestamp: 1_760_000_000, timezoneOffset });

describe("git object encoding", () => {
  it("gives the ids isomorphic-git gives for blobs, trees (folders sorted as git sorts them), commits and tags", async () => {
    const gitdir = await bareRepo();
    const fs = nodeFs;
    for (const bytes of [Buffer.alloc(0), Buffer.from("# A\r\nline\n"), Buffer.from([0, 255, 10, 13]), Buffer.from("é ✓\n")]) {
      expect(blobObject(bytes).oid).toBe(await git.writeBlob({ fs, gitdir, blob: bytes }));
    }
    const blob = blobObject(Buffer.from("x\n")).oid;
    const sub = treeObject([{ path: "SKILL.md", mode: "100644", oid: blob }]).oid;
    // "a.b" sorts before the folder "a" (git compares "a/" with "a.b"); "a-b" before both.
    const entries = [
      { path: "a", mode: "040000", oid: sub },
      { path: "a.b", mode: "100644", oid: blob },
      { path: "a-b", mode: "100755", oid: blob },
      { path: "Z", mode: "100644", oid: blob },
      { path: "é", mode: "100644", oid: blob },
    ];
    await git.writeTree({ fs, gitdir, tree: [{ path: "SKILL.md", mode: "100644", oid: blob, type: "blob" }] });
    expect(treeObject(entries).oid).toBe(
      await git.writeTree({ fs, gitdir, tree: entries.map((entry) => ({ ...entry, type: entry.mode === "040000" ? ("tree" as const) : ("blob" as const) })) }),
    );
    const tree = treeObject(entries).oid;
    for (const [offset, message] of [
      [0, "step 1: accepted — a rule\n\nHermit-Run: r\nHermit-Step: 1\n"],
      [-120, "\n\nleading blank lines\r\nand CRLF\n\n\n"],
      [330, "no final newline"],
    ] as const) {
      const input = { tree, parents: [] as string[], author: signature(offset), committer: signature(offset), message };
      expect(commitObject(input).oid).toBe(await git.writeCommit({ fs, gitdir, commit: { ...input, parent: input.parents } }));
    }
    const parent = commitObject({ tree, parents: [], author: signature(0), committer: signature(0), message: "base\n" }).oid;
    const input = { tree, parents: [parent], author: signature(0), committer: signature(0), message: "child\n" };
    const child = await git.writeCommit({ fs, gitdir, commit: { ...input, parent: input.parents } });
    expect(commitObject(input).oid).toBe(child);
    await git.annotatedTag({ fs, gitdir, ref: "hermit/r/step-1", object: child, message: "accepted after step 1\n", tagger: signature(0) });
    const tag = await git.resolveRef({ fs, gitdir, ref: "refs/tags/hermit/r/step-1" });
    expect(tagObject({ object: child, tag: "hermit/r/step-1", tagger: signature(0), message: "accepted after step 1\n" }).oid).toBe(tag);
  });

  it("writes a store the git CLI reads back and fsck finds clean", async () => {
    const gitdir = join(await tempDir(), "versions.git");
    const store = await VersionStore.open(gitdir);
    const files = new Map([
      ["a.b", { oid: await store.writeBlob(Buffer.from("dot\n")), mode: "100644" }],
      ["a/x.md", { oid: await store.writeBlob(Buffer.from("in a folder\n")), mode: "100755" }],
    ]);
    const tree = await store.writeFileMap(files);
    const commit = await store.commit({ tree, parents: [], message: { subject: "one", trailers: { "Hermit-Step": "1" } } });
    await store.setRef("refs/heads/hermit/t", commit);
    await store.pointHead("refs/heads/hermit/t");
    await store.tag("hermit/t/step-1", commit, "step 1");
    expect(gitCli(["--git-dir", gitdir, "ls-tree", "-r", "--format=%(objectmode) %(path)", "hermit/t/step-1"]).split("\n")).toEqual(["100644 a.b", "100755 a/x.md"]);
    expect(gitCli(["--git-dir", gitdir, "cat-file", "-p", "hermit/t/step-1"])).toContain(`object ${commit}\ntype commit\ntag hermit/t/step-1`);
    expect(gitCli(["--git-dir", gitdir, "show", "-s", "--format=%s|%an|%ae", commit])).toBe("one|hermit|hermit@localhost");
    expect(fsck(gitdir)).toEqual({ status: 0, output: "" });
  });
});
