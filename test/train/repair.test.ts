/** Each repair case of docs/spec-check.md, inside a run: the raw candidate is kept, the repair is committed, the learner sees it next step. */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { train } from "../../src/builtins.js";
import { formatShow } from "../../src/cli/commands/train-format.js";
import { createProgress } from "../../src/train/progress.js";
import { showRun } from "../../src/train/runs.js";
import type { StepRecord } from "../../src/train/records.js";
import { addCheck, addNoise, appendTo, fsck, git, lsTree, markerTask, scriptedEvolver, setup, trailers } from "./helpers.js";

describe("train: repair", () => {
  it("repairs a fixed file edit, a deleted ADAPTER.md, an undeclared file and a fixed manifest section, and shows each repair to the learner", async () => {
    const { adapter, runsDir, template } = await setup("example");
    const { task } = markerTask();
    const { evolver, seen } = scriptedEvolver([
      async (context) => {
        await appendTo(context, "tools.ts", "\n// tampered\n");
        return addCheck(context);
      },
      async (context) => {
        await rm(join(context.workspace.adapter, "ADAPTER.md"));
        return { status: "done", summary: "deleted the context" };
      },
      async (context) => {
        await writeFile(join(context.workspace.adapter, "notes.txt"), "scratch\n");
        return addCheck(context);
      },
      async (context) => {
        const file = join(context.workspace.adapter, "adapter.yaml");
        const text = await readFile(file, "utf8");
        await writeFile(file, text.replace("fixed: [tools.ts, EVOLVER.md, README.md]", "fixed: [EVOLVER.md]"));
        return { status: "done", summary: "loosened the structure" };
      },
      addNoise,
    ]);
    const lines: string[] = [];
    const progress = createProgress({ write: (text: string) => lines.push(text) }, false);
    const result = await train({ adapter, template, task, evolver, steps: 5, runsDir, runId: "repairs", progress });
    const store = join(runsDir, "versions.git");
    const steps = await Promise.all(
      [1, 2, 3, 4].map(async (n) => JSON.parse(await readFile(join(result.runDir, "steps", String(n), "step.json"), "utf8")) as StepRecord),
    );

    const expectations = [
      { issue: { path: "tools.ts", check: "fixed" }, action: { op: "restore", path: "tools.ts", from: "root" }, status: "accepted", raw: "tools.ts" },
      { issue: { path: "ADAPTER.md", check: "required" }, action: { op: "restore", path: "ADAPTER.md", from: "previous" }, status: "rejected" },
      { issue: { path: "notes.txt", check: "undeclared" }, action: { op: "delete", path: "notes.txt" }, status: "accepted", raw: "notes.txt" },
      { issue: { path: "adapter.yaml#structure", check: "manifest" }, action: { op: "restore-sections", path: "adapter.yaml", sections: ["structure"] }, status: "rejected" },
    ] as const;
    for (const [index, expected] of expectations.entries()) {
      const step = index + 1;
      const record = steps[index];
      expect(record.check?.passed, `step ${step}`).toBe(false);
      expect(record.repair?.before, `step ${step}`).toContainEqual(expect.objectContaining(expected.issue));
      expect(record.repair?.actions, `step ${step}`).toContainEqual(expected.action);
      expect(record.repair?.after.passed, `step ${step}`).toBe(true);
      expect(record.status, `step ${step}`).toBe(expected.status);

      // The invalid candidate is kept as the Evolver left it; the step's commit holds the repaired one.
      const invalid = git(["--git-dir", store, "rev-parse", `refs/hermit/repairs/invalid/step-${step}`]);
      expect(record.invalidCommit).toBe(invalid);
      expect(trailers(store, invalid)["Hermit-Status"]).toBe("repaired");
      const stepTrailers = trailers(store, record.commit);
      expect(stepTrailers["Hermit-Repaired-From"]).toBe(invalid);
      expect(stepTrailers["Hermit-Repair"]).toMatch(/^\d+ issues? \(.*\): /);
      expect(git(["--git-dir", store, "rev-parse", `refs/hermit/repairs/candidates/step-${step}`])).toBe(record.commit);

      // The learner of the next step is told what was repaired.
      const next = seen[step];
      expect(next.repairs).toEqual([{ step, issues: record.repair!.before, actions: record.repair!.actions, passedAfter: true }]);
    }
    // What the repair changed, in Git.
    expect(git(["--git-dir", store, "show", `refs/hermit/repairs/invalid/step-1:tools.ts`])).toContain("// tampered");
    expect(git(["--git-dir", store, "show", `${steps[0].commit}:tools.ts`])).not.toContain("// tampered");
    expect(lsTree(store, "refs/hermit/repairs/invalid/step-2")).not.toContain("ADAPTER.md");
    expect(lsTree(store, steps[1].commit)).toContain("ADAPTER.md");
    expect(lsTree(store, "refs/hermit/repairs/invalid/step-3")).toContain("notes.txt");
    expect(lsTree(store, steps[2].commit)).not.toContain("notes.txt");
    expect(git(["--git-dir", store, "show", `refs/hermit/repairs/invalid/step-4:adapter.yaml`])).toContain("fixed: [EVOLVER.md]");
    expect(git(["--git-dir", store, "show", `${steps[3].commit}:adapter.yaml`])).toMatch(/fixed:\s*\n?\s*-?\s*\[?tools\.ts/);
    // No repair for a valid step: the learner of step 1 saw none, and step 5 had nothing to repair.
    expect(seen[0].repairs).toEqual([]);
    expect(result.steps[4].status).toBe("rejected");
    expect(fsck(store).status).toBe(0);

    // Repairs are visible where a person looks (issue 9.7): progress, the summary, runs show, the card.
    expect(lines.join("")).toMatch(/step 1\/5: accepted, candidate 0\.500, best 0\.500 — added a check \[repaired: 1 issue \(tools\.ts: [^)]*\): restore tools\.ts from root\]/);
    expect(result.steps[2].summary).toMatch(/\[repaired: 1 issue \(notes\.txt: [^)]*\): delete notes\.txt\]$/);
    const shown = formatShow(await showRun(runsDir, "repairs"), undefined, runsDir);
    expect(shown).toMatch(/\s+3\s+accepted\s+\S+\s+\S+\s+[0-9a-f]{10}\s+added a check \[repaired: 1 issue \(notes\.txt/);
    const card = await readFile(join(result.runDir, "CARD.md"), "utf8");
    expect(card).toContain("## Repairs");
    expect(card).toMatch(/\| 2 \| rejected \| ADAPTER\.md: [^|]* \| restore ADAPTER\.md \|/);
    expect(card).toMatch(/\| 3 \| accepted \| notes\.txt: [^|]* \| delete notes\.txt \|/);
  });
});
