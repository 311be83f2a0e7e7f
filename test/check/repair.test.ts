/** Repair restores every rejected case; the repaired candidate passes. */
import { execFileSync } from "node:child_process";
import { lstat, mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { LIMITS } from "../../src/adapter/files.js";
import { applyRepair, planRepair, repairCandidate } from "../../src/check/repair.js";
import { copyDir, exampleAdapter, exampleTemplate, expectedIsolation, readTree, testdir } from "../helpers.js";

/** The previous accepted version: the example with a learned ADAPTER.md. */
const learnedContext = "# Word counting\n\nAlways call count_words; report the number only.\n";
const previousVersion = () => copyDir(exampleAdapter, { "ADAPTER.md": learnedContext });

async function repaired(edit: (dir: string) => Promise<void>) {
  const previous = await previousVersion();
  const candidate = await copyDir(previous);
  await edit(candidate);
  const record = await repairCandidate(candidate, exampleTemplate, previous);
  return { record, candidate, previous };
}

describe("repairCandidate", () => {
  it("leaves a valid candidate alone", async () => {
    const { record } = await repaired(async (dir) => writeFile(join(dir, "ADAPTER.md"), "# New\n\nUse count_words.\n"));
    expect(record).toEqual({ before: [], actions: [], after: { passed: true, issues: [], isolation: expectedIsolation } });
  });

  it("restores an edited fixed file from the template", async () => {
    const { record, candidate } = await repaired((dir) => writeFile(join(dir, "tools.ts"), "export {};\n"));
    expect(record.before).toContainEqual({ path: "tools.ts", check: "fixed", problem: "fixed file differs from the template" });
    expect(record.actions).toEqual([{ op: "restore", path: "tools.ts", from: "root" }]);
    expect(record.after.passed).toBe(true);
    expect(await readFile(join(candidate, "tools.ts"), "utf8")).toBe(await readFile(join(exampleTemplate, "tools.ts"), "utf8"));
  });

  it("restores a deleted ADAPTER.md from the previous accepted version", async () => {
    const { record, candidate } = await repaired((dir) => rm(join(dir, "ADAPTER.md")));
    expect(record.actions).toEqual([{ op: "restore", path: "ADAPTER.md", from: "previous" }]);
    expect(record.after).toMatchObject({ passed: true, issues: [] });
    expect(await readFile(join(candidate, "ADAPTER.md"), "utf8")).toBe(learnedContext);
  });

  it("deletes an undeclared file", async () => {
    const { record, candidate } = await repaired((dir) => writeFile(join(dir, "notes.txt"), "x"));
    expect(record.actions).toEqual([{ op: "delete", path: "notes.txt" }]);
    expect(record.after.passed).toBe(true);
    await expect(lstat(join(candidate, "notes.txt"))).rejects.toThrow();
  });

  it("restores changed fixed manifest sections and keeps the learnable ones", async () => {
    const { record, candidate } = await repaired(async (dir) => {
      const file = join(dir, "adapter.yaml");
      const doc = parseDocument(await readFile(file, "utf8"));
      doc.setIn(["structure", "fixed"], []);
      doc.setIn(["template", "version"], 9);
      doc.set("version", "0.3.0");
      await writeFile(file, doc.toString());
    });
    expect(record.actions).toEqual([{ op: "restore-sections", path: "adapter.yaml", sections: ["structure", "template"] }]);
    expect(record.after.passed).toBe(true);
    const manifest = parseDocument(await readFile(join(candidate, "adapter.yaml"), "utf8")).toJS();
    expect(manifest.version).toBe("0.3.0");
    expect(manifest.structure.fixed).toEqual(["tools.ts", "EVOLVER.md", "README.md"]);
  });

  it("restores a learnable file that broke its format or size from the previous version", async () => {
    const { record, candidate } = await repaired(async (dir) => {
      await writeFile(join(dir, "agents/reviewer.md"), "no frontmatter at all\n");
      await writeFile(join(dir, "ADAPTER.md"), `# Huge\n${"x".repeat(20_000)}`);
    });
    expect(record.actions).toEqual(
      expect.arrayContaining([
        { op: "restore", path: "agents/reviewer.md", from: "previous" },
        { op: "restore", path: "ADAPTER.md", from: "previous" },
      ]),
    );
    expect(record.after.passed).toBe(true);
    expect(await readFile(join(candidate, "ADAPTER.md"), "utf8")).toBe(learnedContext);
  });

  it("drops new files over max_files, keeping those the previous version had", async () => {
    const { record, candidate } = await repaired(async (dir) => {
      for (let i = 0; i < 8; i++) {
        await writeFile(join(dir, `agents/a${i}.md`), `---\nname: a${i}\ndescription: Agent ${i}.\n---\nDo ${i}.\n`);
      }
    });
    expect(record.before).toEqual([{ path: "agents/*.md", check: "count", problem: "9 files match, over the limit of 8" }]);
    expect(record.after.passed).toBe(true);
    expect(Object.keys(await readTree(join(candidate, "agents")))).toEqual(["reviewer.md"]);
  });

  it("removes a symlink that leaves the candidate without touching its target", async () => {
    const outside = await testdir({ "target.md": "outside\n" });
    const { record, candidate } = await repaired(async (dir) => {
      await rm(join(dir, "ADAPTER.md"));
      const { symlink } = await import("node:fs/promises");
      await symlink(join(outside, "target.md"), join(dir, "ADAPTER.md"));
    });
    expect(record.actions[0]).toEqual({ op: "delete", path: "ADAPTER.md" });
    expect(record.after.passed).toBe(true);
    expect((await lstat(join(candidate, "ADAPTER.md"))).isSymbolicLink()).toBe(false);
    expect(await readFile(join(candidate, "ADAPTER.md"), "utf8")).toBe(learnedContext);
    expect(await readFile(join(outside, "target.md"), "utf8")).toBe("outside\n");
  });

  it("restores an unparseable adapter.yaml from the previous version", async () => {
    const { record, candidate, previous } = await repaired((dir) => writeFile(join(dir, "adapter.yaml"), "name: [unclosed\n"));
    expect(record.before).toHaveLength(1);
    expect(record.before[0]).toMatchObject({ path: "adapter.yaml", check: "manifest" });
    expect(record.after.passed).toBe(true);
    expect(await readFile(join(candidate, "adapter.yaml"), "utf8")).toBe(await readFile(join(previous, "adapter.yaml"), "utf8"));
  });

  it("restores a file the custom check rejected", async () => {
    const { record } = await repaired((dir) => writeFile(join(dir, "ADAPTER.md"), "no heading, no tool\n"));
    expect(record.before.map((issue) => issue.check)).toEqual(["custom", "custom"]);
    expect(record.actions).toEqual([{ op: "restore", path: "ADAPTER.md", from: "previous" }]);
    expect(record.after.passed).toBe(true);
  });
});

describe("repair never reaches outside the candidate", () => {
  /** A template whose fixed files include one in a folder (lib/util.ts), and an accepted version of it. */
  async function withFixedFolder() {
    const text = (await readFile(join(exampleTemplate, "adapter.yaml"), "utf8")).replace(
      "fixed: [tools.ts, EVOLVER.md, README.md]",
      'fixed: [tools.ts, EVOLVER.md, README.md, "lib/**"]',
    );
    const root = await copyDir(exampleTemplate, { "adapter.yaml": text, "lib/util.ts": "export const x = 1;\n" });
    const previous = await copyDir(exampleAdapter, { "adapter.yaml": text, "lib/util.ts": "export const x = 1;\n" });
    return { root, previous };
  }

  it("applyRepair replaces a symlinked folder on the restore path instead of writing through it", async () => {
    const { root, previous } = await withFixedFolder();
    const outside = await testdir({ "keep.txt": "outside\n" });
    const candidate = await copyDir(previous);
    await rm(join(candidate, "lib"), { recursive: true });
    await symlink(outside, join(candidate, "lib"));
    await applyRepair(candidate, { root, previous }, [
      { op: "delete", path: "lib/keep.txt" },
      { op: "restore", path: "lib/util.ts", from: "root" },
    ]);
    expect(await readTree(outside)).toEqual({ "keep.txt": "outside\n" });
    expect((await lstat(join(candidate, "lib"))).isDirectory()).toBe(true);
    expect(await readTree(join(candidate, "lib"))).toEqual({ "util.ts": "export const x = 1;\n" });
  });

  it("repairCandidate restores a fixed file whose folder was swapped for a symlink", async () => {
    const { root, previous } = await withFixedFolder();
    const outside = await testdir({ "keep.txt": "outside\n" });
    const candidate = await copyDir(previous);
    await rm(join(candidate, "lib"), { recursive: true });
    await symlink(outside, join(candidate, "lib"));
    const record = await repairCandidate(candidate, root, previous);
    expect(record.actions).toEqual([
      { op: "delete", path: "lib" },
      { op: "restore", path: "lib/util.ts", from: "root" },
    ]);
    expect(record.after.passed).toBe(true);
    expect(await readTree(outside)).toEqual({ "keep.txt": "outside\n" });
  });

  it("restores a fixed file that was replaced by a folder", async () => {
    const { record, candidate } = await repaired(async (dir) => {
      await rm(join(dir, "tools.ts"));
      await mkdir(join(dir, "tools.ts"));
      await writeFile(join(dir, "tools.ts/inner.ts"), "export {};\n");
    });
    expect(record.actions.filter((action) => action.path === "tools.ts").map((action) => action.op)).toEqual(["restore"]);
    expect(record.actions.at(-1)?.op).not.toBe("reset");
    expect(record.after.passed).toBe(true);
    expect(await readFile(join(candidate, "tools.ts"), "utf8")).toBe(await readFile(join(exampleTemplate, "tools.ts"), "utf8"));
  });

  it("leaves no temp file behind", async () => {
    const { record, candidate } = await repaired((dir) => writeFile(join(dir, "tools.ts"), "export {};\n"));
    expect(record.after.passed).toBe(true);
    expect((await readdir(candidate)).filter((name) => name.includes("hermit-tmp"))).toEqual([]);
  });

  it("resets a candidate whose names are not UTF-8", async () => {
    const { record, candidate, previous } = await repaired(async (dir) => {
      await mkdir(Buffer.concat([Buffer.from(join(dir, "skills/")), Buffer.from([0x78, 0xff])]));
      await writeFile(join(dir, "agents/a\nb.md"), "x");
    });
    expect(record.after.passed).toBe(true);
    expect(record.actions.at(-1)).toEqual({ op: "reset", path: ".", from: "previous" });
    expect(await readTree(candidate)).toEqual(await readTree(previous));
  });

  it("resets a candidate nested deeper than PATH_MAX, instead of throwing", async () => {
    const { record, candidate, previous } = await repaired(async (dir) => {
      // Only relative steps can build it: the whole path is longer than the kernel accepts.
      const script =
        "const fs = require('node:fs'); process.chdir(process.argv[1]);" +
        "for (let i = 0; i < 1100; i++) { fs.mkdirSync('ddd'); process.chdir('ddd'); } fs.writeFileSync('f', 'x');";
      execFileSync(process.execPath, ["-e", script, join(dir, "skills/verify-output")]);
    });
    expect(record.before.some((issue) => issue.check === "path" && issue.problem.includes("ENAMETOOLONG"))).toBe(true);
    expect(record.actions.at(-1)).toEqual({ op: "reset", path: ".", from: "previous" });
    expect(record.after.passed).toBe(true);
    expect(await readTree(candidate)).toEqual(await readTree(previous));
  });

  it("resets a candidate with more entries than hermit walks, instead of throwing", async () => {
    const { record, candidate, previous } = await repaired(async (dir) => {
      await mkdir(join(dir, "skills/verify-output/many"));
      for (let i = 0; i <= LIMITS.files; i++) await writeFile(join(dir, `skills/verify-output/many/${i}`), "");
    });
    expect(record.before).toEqual([{ path: ".", check: "size", problem: `more than ${LIMITS.files} files and folders` }]);
    expect(record.actions).toEqual([{ op: "reset", path: ".", from: "previous" }]);
    expect(record.after.passed).toBe(true);
    expect(await readTree(candidate)).toEqual(await readTree(previous));
  });
});

describe("planRepair (pure)", () => {
  const facts = {
    candidateFiles: new Set(["ADAPTER.md", "adapter.yaml", "tools.ts", "skills/a/SKILL.md", "extra.txt"]),
    rootFiles: new Set(["ADAPTER.md", "adapter.yaml", "tools.ts"]),
    previousFiles: new Set(["ADAPTER.md", "adapter.yaml", "tools.ts"]),
    rootManifest: { contract: "1.0.0", name: "x", version: "1", description: "d" },
  };

  it("maps each kind of issue to one action per path", () => {
    expect(
      planRepair(
        [
          { path: "tools.ts", check: "fixed", problem: "" },
          { path: "extra.txt", check: "undeclared", problem: "" },
          { path: "skills/a/SKILL.md", check: "format", problem: "" },
          { path: "skills/a/SKILL.md", check: "size", problem: "" },
          { path: "adapter.yaml#exports", check: "manifest", problem: "" },
          { path: "ADAPTER.md", check: "custom", problem: "" },
        ],
        facts,
      ),
    ).toEqual([
      { op: "restore", path: "tools.ts", from: "root" },
      { op: "delete", path: "extra.txt" },
      { op: "delete", path: "skills/a/SKILL.md" },
      { op: "restore", path: "ADAPTER.md", from: "previous" },
      { op: "restore-sections", path: "adapter.yaml", sections: ["exports"] },
    ]);
  });
});
