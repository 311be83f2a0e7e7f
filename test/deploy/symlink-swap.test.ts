/**
 * A folder of the workspace swapped for a symlink to somewhere outside while a deploy runs
 * (after the plan looked, before apply writes): apply must not write through it. It stops with
 * WORKSPACE_CHANGED (exit 3), removes what it created outside, restores what it wrote, and keeps
 * the pending report, so `status` reports the interrupted deploy and a re-run recovers.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { lstat, mkdir, readdir, readFile, rename, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyPlan } from "../../src/deploy/apply.js";
import { deploy, status } from "../../src/deploy/deploy.js";
import type { Plan } from "../../src/deploy/plan.js";
import { PENDING_FILE, RECORD_FILE } from "../../src/deploy/record.js";
import { WorkspaceWriter } from "../../src/deploy/safe-fs.js";
import { hermitCli } from "../../src/package-root.js";
import { copyDir, exampleAdapter, readTree, tempDir, testdir } from "../helpers.js";

const bytes = (text: string) => new TextEncoder().encode(text);
const owner = { export: "skills" as const };

/** Every entry below `dir`, for "nothing landed here" assertions. */
async function everything(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { recursive: true })) out.push(String(entry));
  return out.sort();
}

describe("a folder swapped for a symlink between plan and apply", () => {
  it.each([
    ["the file's folder", "a/b"],
    ["a folder above it", "a"],
  ])("%s: WORKSPACE_CHANGED, nothing outside, the pending report kept", async (_name, swapped) => {
    const workspace = await testdir({ "a/b/old.md": "old", "keep.md": "mine" });
    const outside = await tempDir();
    const plan: Plan = {
      drift: [],
      journal: bytes('{"pending":true}\n'),
      actions: [
        { path: "keep.md", action: "unchanged", intent: "create", owner },
        { path: "a/b/new.md", action: "create", intent: "create", owner, content: bytes("new") },
        { path: "a/b/c/deeper.md", action: "create", intent: "create", owner, content: bytes("deeper") },
        { path: RECORD_FILE, action: "create", intent: "replace", owner: { export: "host" }, content: bytes("{}\n") },
      ],
    };
    // The attacker: the folder the plan saw is moved away, a link to `outside` put in its place.
    await rename(join(workspace, swapped), join(outside, "..", `${outside.split("/").pop()}-moved`));
    await symlink(outside, join(workspace, swapped));
    const error = await applyPlan(workspace, plan).catch((caught: { code?: string; message: string }) => caught);
    expect(error).toMatchObject({ code: "WORKSPACE_CHANGED" });
    expect((error as { message: string }).message).toMatch(/while hermit was writing/);
    expect(await everything(outside)).toEqual([]);
    expect(existsSync(join(workspace, RECORD_FILE))).toBe(false);
    expect(await readFile(join(workspace, PENDING_FILE), "utf8")).toBe('{"pending":true}\n');
    expect(await readFile(join(workspace, "keep.md"), "utf8")).toBe("mine");
  });
});

/** The example adapter with many skills, so the deploy writes long enough for a swap to land. */
async function manySkills(count = 60): Promise<string> {
  const tree: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    tree[`skills/s${i}/SKILL.md`] = `---\nname: s${i}\ndescription: Skill ${i}.\n---\n${"Body.\n".repeat(100)}`;
    tree[`skills/s${i}/refs/a.md`] = `# A ${i}\n`;
  }
  return copyDir(exampleAdapter, tree);
}

describe("a folder moved away mid-swap (the link not there yet)", () => {
  it("is WORKSPACE_CHANGED, not an unwritable workspace, and nothing is written", async () => {
    const workspace = await testdir({ "keep.md": "mine" });
    const writer = new WorkspaceWriter(workspace);
    writer.ensureFolder("a/b");
    await rename(join(workspace, "a/b"), join(workspace, "moved"));
    let caught: unknown;
    try {
      writer.writeFile("a/b/new.md", bytes("new"));
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: "WORKSPACE_CHANGED" });
    expect(await everything(workspace)).toEqual(["a", "keep.md", "moved"]);
  });
});

describe("ensureFolder on what is already there", () => {
  it("refuses a symlink where a folder goes (to a folder outside, or dangling) and creates nothing through it", async () => {
    for (const target of ["outside", "gone"]) {
      const workspace = await testdir({ "keep.md": "mine" });
      const outside = await tempDir();
      await symlink(target === "outside" ? outside : join(outside, "missing"), join(workspace, "a"));
      const writer = new WorkspaceWriter(workspace);
      expect(() => writer.ensureFolder("a/b"), target).toThrow(expect.objectContaining({ code: "WORKSPACE_CHANGED" }));
      expect(await everything(outside), target).toEqual([]);
    }
  });

  it("names a file where a folder goes as ENOTDIR, and takes a real folder as it is", async () => {
    const workspace = await testdir({ "a/b/old.md": "old", "file": "x" });
    const writer = new WorkspaceWriter(workspace);
    writer.ensureFolder("a/b/c");
    expect(await everything(workspace)).toEqual(["a", "a/b", "a/b/c", "a/b/old.md", "file"]);
    expect(() => writer.ensureFolder("file/d")).toThrow(expect.objectContaining({ code: "ENOTDIR", syscall: "mkdir" }));
  });
});

describe("a concurrent attacker swapping skill folders during a real deploy", () => {
  it("never gets a file written outside the workspace; the deploy succeeds or stops with WORKSPACE_CHANGED and recovers", async () => {
    const adapter = await manySkills();
    const outcomes: string[] = [];
    for (let trial = 0; trial < 3; trial++) {
      const root = await tempDir();
      const workspace = join(root, "ws");
      const outside = join(root, "outside");
      const moved = join(root, "moved");
      await mkdir(outside);
      await mkdir(moved);
      const child = spawn(process.execPath, [hermitCli, "deploy", "--adapter", adapter, "--workspace", workspace, "--host", "codex"], { stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      let running = true;
      const exited = new Promise<number>((resolve) => child.on("exit", (code) => ((running = false), resolve(code ?? -1))));
      const swapped = new Set<string>();
      while (running) {
        const skills = join(workspace, ".agents/skills");
        for (const name of await readdir(skills).catch(() => [] as string[])) {
          if (swapped.has(name) || swapped.size >= 20) continue;
          const info = await lstat(join(skills, name)).catch(() => undefined);
          if (!info?.isDirectory()) continue;
          swapped.add(name);
          await mkdir(join(outside, name));
          await rename(join(skills, name), join(moved, name)).catch(() => undefined);
          await symlink(join(outside, name), join(skills, name)).catch(() => undefined);
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      const code = await exited;
      outcomes.push(`${code}${stderr.includes("WORKSPACE_CHANGED") ? " WORKSPACE_CHANGED" : ""} (${swapped.size} swapped)`);
      expect(await everything(outside), `trial ${trial}: ${stderr}`).toEqual([...swapped].sort());
      expect([0, 3], `trial ${trial}: ${stderr}`).toContain(code);
      if (code === 3) {
        expect(stderr).toContain("WORKSPACE_CHANGED");
        expect((await status({ workspace })).interrupted).toBe(true);
      }
      // The user removes the links; the next deploy finishes the job.
      for (const name of swapped) await rm(join(workspace, ".agents/skills", name), { force: true });
      await deploy({ adapter, workspace, host: "codex" });
      expect((await status({ workspace })).clean).toBe(true);
      expect(Object.keys(await readTree(join(workspace, ".agents/skills"))).length).toBe(61 * 2 - 1);
    }
    console.info(`swap trials (exit code): ${outcomes.join(", ")}`);
  }, 180_000);
});
