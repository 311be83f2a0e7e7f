/** apply, the only writer: atomic writes, folder pruning, and rollback when a write fails. */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyPlan } from "../../src/deploy/apply.js";
import type { Plan } from "../../src/deploy/plan.js";
import { readTree, testdir } from "../helpers.js";

const bytes = (text: string) => new TextEncoder().encode(text);
const owner = { export: "skills" as const };

describe("applyPlan", () => {
  it("writes, replaces and deletes, prunes emptied folders, and leaves no temp files", async () => {
    const workspace = await testdir({ "keep.md": "user", "a/b/old.md": "old", "c.md": "before" });
    const plan: Plan = {
      drift: [],
      actions: [
        { path: "a/b/old.md", action: "delete", intent: "create", owner, previous: bytes("old") },
        { path: "c.md", action: "replace", intent: "create", owner, content: bytes("after"), previous: bytes("before") },
        { path: "d/e/new.md", action: "create", intent: "create", owner, content: bytes("new") },
        { path: "keep.md", action: "unchanged", intent: "create", owner },
      ],
    };
    const result = await applyPlan(workspace, plan);
    expect(result).toEqual({ written: ["c.md", "d/e/new.md"], deleted: ["a/b/old.md"] });
    expect(await readTree(workspace)).toEqual({ "c.md": "after", "d/e/new.md": "new", "keep.md": "user" });
    expect(await readdir(workspace)).not.toContain("a");
  });

  it("restores what it already touched when a later step fails", async () => {
    const workspace = await testdir({ "gone.md": "keep me", "blocker": "a file where a folder is needed" });
    const plan: Plan = {
      drift: [],
      actions: [
        { path: "gone.md", action: "delete", intent: "create", owner, previous: bytes("keep me") },
        { path: "blocker/x.md", action: "create", intent: "create", owner, content: bytes("x") },
      ],
    };
    await expect(applyPlan(workspace, plan)).rejects.toThrow(/EEXIST|ENOTDIR/);
    expect(await readFile(join(workspace, "gone.md"), "utf8")).toBe("keep me");
    expect(await readTree(workspace)).toEqual({ "blocker": "a file where a folder is needed", "gone.md": "keep me" });
  });
});
