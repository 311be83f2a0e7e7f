/** Repair restores every rejected case; the repaired candidate passes. */
import { lstat, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { planRepair, repairCandidate } from "../../src/spec/repair.js";
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
