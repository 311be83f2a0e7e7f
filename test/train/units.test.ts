/** The Trainer's pure parts and the version store, on their own. */
import { chmod, lstat, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decide, type ScoredItem } from "../../src/train/acceptance.js";
import { diffFiles } from "../../src/train/card.js";
import { sample, seededRandom } from "../../src/train/random.js";
import { VersionStore } from "../../src/train/store.js";
import { formatMessage, parseMessage } from "../../src/train/trailers.js";
import { addUsage, describeTotals, describeUsage, emptyUsage } from "../../src/train/usage.js";
import { tempDir, testdir } from "../helpers.js";
import { fsck, git } from "./helpers.js";

const items = (...scores: Array<number | null>): ScoredItem[] => scores.map((score, index) => ({ instance: `i${index}`, trial: 0, score }));
const improve = { accept: "improve" as const, margin: 0, marginSe: 0 };

describe("acceptance", () => {
  it("accepts only a candidate whose paired mean beats the accepted version by more than the margin", () => {
    expect(decide(items(0.6, 0.8), items(0.5, 0.5), improve)).toMatchObject({ status: "accepted", difference: 0.2, candidateScore: 0.7, acceptedScore: 0.5 });
    expect(decide(items(0.5, 0.5), items(0.5, 0.5), improve)).toMatchObject({ status: "rejected", difference: 0 });
    expect(decide(items(0.6, 0.6), items(0.5, 0.5), { ...improve, margin: 0.1 })).toMatchObject({ status: "rejected" });
    expect(decide(items(0.7, 0.6), items(0.5, 0.5), { ...improve, margin: 0.1 })).toMatchObject({ status: "accepted" });
  });

  it("leaves missing scores out (never 0) and calls a candidate missing more than half indecisive, even under always", () => {
    // Candidate i1 is missing: compared on i0 and i2 only; the mean is over measured scores.
    expect(decide(items(0.9, null, 0.9), items(0.5, 0.5, 0.5), improve)).toMatchObject({ status: "accepted", candidateScore: 0.9, pairs: 2, missing: { candidate: 1, accepted: 0, total: 3 } });
    expect(decide(items(1, null, null), items(0, 0, 0), improve)).toMatchObject({ status: "indecisive" });
    expect(decide(items(1, null, null), items(0, 0, 0), { ...improve, accept: "always" })).toMatchObject({ status: "indecisive" });
    expect(decide(items(0.1, 0.1), items(0.9, 0.9), { ...improve, accept: "always" })).toMatchObject({ status: "accepted" });
    expect(decide([], [], improve)).toMatchObject({ status: "indecisive" });
    expect(decide([], [], { ...improve, accept: "always" })).toMatchObject({ status: "accepted" });
  });

  it("needs measured pairs for at least half the items, whichever side is missing the rest (issue 9.3)", () => {
    // Means 0.067 vs 0.1: one pair of three cannot show an improvement.
    expect(decide(items(0.2, 0, 0), items(0.1, null, null), improve)).toMatchObject({
      status: "indecisive",
      pairs: 1,
      missing: { candidate: 0, accepted: 2, total: 3 },
      reason: expect.stringMatching(/only 1 of 3 validation items were measured for both versions \(candidate missing 0, accepted version missing 2\)/),
    });
    // An accepted version never measured does not make any candidate better.
    expect(decide(items(0.1), items(null), improve)).toMatchObject({ status: "indecisive", acceptedScore: null });
    expect(decide(items(0.1, 0.9), items(null, null), improve).status).toBe("indecisive");
    // Exactly half is enough.
    expect(decide(items(0.9, 0.9, null, null), items(0.1, 0.1, 0.5, 0.5), improve)).toMatchObject({ status: "accepted", pairs: 2 });
  });

  it("demands K standard errors of the paired difference with --margin-se", () => {
    // Differences 0.1, 0.3, 0.2: mean 0.2, sd 0.1, SE 0.0577.
    const candidate = items(0.6, 0.8, 0.7);
    const accepted = items(0.5, 0.5, 0.5);
    expect(decide(candidate, accepted, { ...improve, marginSe: 3 })).toMatchObject({ status: "accepted" });
    const strict = decide(candidate, accepted, { ...improve, marginSe: 4 });
    expect(strict.status).toBe("rejected");
    expect(strict.standardError).toBeCloseTo(0.057735, 5);
    expect(strict.reason).toMatch(/not more than margin 0 \+ 4 × SE 0.057735/);
    expect(decide(items(0.9), items(0.1), { ...improve, marginSe: 1 })).toMatchObject({ status: "rejected", reason: expect.stringMatching(/needs at least 2 paired scores/) });
  });
});

describe("commit messages", () => {
  it("round-trips subject, body and trailers, folding trailer values onto one line", () => {
    const text = formatMessage({ subject: "step 3: accepted — added a check", body: "Why:\nHermit-Step: fake\n\nmore", trailers: { "Hermit-Step": "3", "Hermit-Repair": "2 issues:\n restore a; delete b" } });
    expect(text).toBe("step 3: accepted — added a check\n\nWhy:\n  Hermit-Step: fake\n\nmore\n\nHermit-Step: 3\nHermit-Repair: 2 issues: restore a; delete b\n");
    expect(parseMessage(text)).toEqual({ subject: "step 3: accepted — added a check", body: "Why:\n  Hermit-Step: fake\n\nmore", trailers: { "Hermit-Step": "3", "Hermit-Repair": "2 issues: restore a; delete b" } });
  });
});


describe("small pure helpers", () => {
  it("samples the same subset for the same seed and step", () => {
    const list = ["a", "b", "c", "d", "e"];
    expect(sample(list, 2, seededRandom(1, 4))).toEqual(sample(list, 2, seededRandom(1, 4)));
    expect(sample(list, 9, seededRandom(1, 4))).toEqual(list);
    const seen = new Set([1, 2, 3, 4, 5, 6].map((step) => sample(list, 2, seededRandom(1, step)).join()));
    expect(seen.size).toBeGreaterThan(1);
  });

  it("reports usage nobody reported as unknown, and partial usage as a lower bound", () => {
    let totals = emptyUsage();
    expect(describeUsage(totals, "inputTokens")).toBe("none");
    totals = addUsage(totals, undefined);
    expect(describeUsage(totals, "inputTokens")).toBe("unknown (not reported)");
    totals = addUsage(totals, { inputTokens: 40, costUsd: 0.5 });
    expect(describeUsage(totals, "inputTokens")).toBe("≥ 40 (1 of 2 unreported)");
    expect(describeUsage(addUsage(emptyUsage(), { costUsd: 0.25 }), "costUsd")).toBe("$0.2500");
  });

  it("says once that a role reported nothing, and per field when it reported some", () => {
    const silent = addUsage(addUsage(emptyUsage(), undefined), undefined);
    expect(describeTotals(silent, "rollouts")).toBe("unknown: none of 2 rollouts reported tokens or cost");
    expect(describeTotals(addUsage(silent, { outputTokens: 7 }), "rollouts")).toBe(
      "unknown (not reported) in / ≥ 7 (2 of 3 unreported) out tokens, cost unknown (not reported)",
    );
    expect(describeTotals(emptyUsage())).toBe("none");
  });

  it("lists added, modified and deleted files between two trees", () => {
    const before = new Map([["a", { oid: "1", mode: "100644" }], ["b", { oid: "2", mode: "100644" }], ["c", { oid: "3", mode: "100644" }]]);
    const after = new Map([["a", { oid: "1", mode: "100755" }], ["b", { oid: "2", mode: "100644" }], ["d", { oid: "4", mode: "100644" }]]);
    expect(diffFiles(before, after)).toEqual([
      { path: "a", change: "modified" },
      { path: "c", change: "deleted" },
      { path: "d", change: "added" },
    ]);
  });
});

describe("version store", () => {
  it("records a directory, exports it back exactly, and stays fsck-clean with no temp files left", async () => {
    const source = await testdir({ "ADAPTER.md": "# A\n", "skills/x/SKILL.md": "skill\n", "skills.md": "flat\n", "run.sh": "#!/bin/sh\n", ".git/HEAD": "ignored\n" });
    await chmod(join(source, "run.sh"), 0o755);
    const gitdir = join(await tempDir(), "versions.git");
    const store = await VersionStore.open(gitdir);
    const { tree, files } = await store.writeDirectory(source);
    expect([...files.keys()].sort()).toEqual(["ADAPTER.md", "run.sh", "skills.md", "skills/x/SKILL.md"]);
    const commit = await store.commit({ tree, parents: [], message: { subject: "one", trailers: { "Hermit-Step": "1" } } });
    await store.setRef("refs/heads/hermit/t", commit);
    await store.pointHead("refs/heads/hermit/t");
    await store.tag("hermit/t/step-1", commit, "step 1");
    expect(await store.resolveCommit("hermit/t/step-1")).toBe(commit);
    expect(await store.resolveCommit(commit.slice(0, 8))).toBe(commit);
    expect(git(["--git-dir", gitdir, "ls-tree", "-r", "--format=%(objectmode) %(path)", "hermit/t"]).split("\n")).toEqual([
      "100644 ADAPTER.md",
      "100755 run.sh",
      "100644 skills.md",
      "100644 skills/x/SKILL.md",
    ]);

    const target = await testdir({ "stale.txt": "remove me\n", "ADAPTER.md": "old\n" });
    await store.exportTree(tree, target);
    expect((await readdir(target, { recursive: true })).sort()).toEqual(["ADAPTER.md", "run.sh", "skills", "skills.md", "skills/x", "skills/x/SKILL.md"]);
    expect(await readFile(join(target, "ADAPTER.md"), "utf8")).toBe("# A\n");
    expect((await stat(join(target, "run.sh"))).mode & 0o111).not.toBe(0);

    expect(fsck(gitdir)).toEqual({ status: 0, output: "" });
    expect(await readdir(join(gitdir, "hermit-tmp")).catch(() => [])).toEqual([]);
    await expect(store.resolveCommit("nope")).rejects.toMatchObject({ code: "INPUT_NOT_FOUND" });
  });

  it("exports over a folder in one pass: links, special names and emptied folders go, a wrong mode is put right, ignored folders stay", async () => {
    const store = await VersionStore.open(join(await tempDir(), "versions.git"));
    const { tree } = await store.writeDirectory(await testdir({ "ADAPTER.md": "# A\n", "skills/x/SKILL.md": "skill\n", "run.sh": "#!/bin/sh\n" }));
    const outside = await testdir({ "secret.txt": "keep\n" });
    const target = await testdir({ "skills/x/SKILL.md": "skill\n", "old/deep/file.txt": "gone\n", "empty/.keep": "", "node_modules/pkg/index.js": "kept\n", "run.sh": "#!/bin/sh\n" });
    await rm(join(target, "empty/.keep"));
    await symlink(join(outside, "secret.txt"), join(target, "ADAPTER.md"));
    await writeFile(Buffer.concat([Buffer.from(`${target}/`), Buffer.from([0x62, 0xff])]), "bad name\n");
    await chmod(join(target, "run.sh"), 0o755);
    const before = (await stat(join(target, "skills/x/SKILL.md"))).ino;

    await store.exportTree(tree, target);
    expect((await readdir(target, { recursive: true })).sort()).toEqual(["ADAPTER.md", "node_modules", "node_modules/pkg", "node_modules/pkg/index.js", "run.sh", "skills", "skills/x", "skills/x/SKILL.md"]);
    expect((await lstat(join(target, "ADAPTER.md"))).isFile()).toBe(true);
    expect(await readFile(join(target, "ADAPTER.md"), "utf8")).toBe("# A\n");
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("keep\n");
    expect((await stat(join(target, "run.sh"))).mode & 0o777).toBe(0o644);
    // An equal file is left in place, not rewritten.
    expect((await stat(join(target, "skills/x/SKILL.md"))).ino).toBe(before);
  });

  it("refuses a non-empty folder that is not a repository", async () => {
    const dir = await testdir({ "notes.txt": "mine\n" });
    await expect(VersionStore.open(dir)).rejects.toMatchObject({ code: "RUN_INVALID" });
  });
});

describe("progress", () => {
  const capture = (tty: boolean) => {
    const chunks: string[] = [];
    return { chunks, stream: { write: (text: string) => chunks.push(text), isTTY: tty, columns: 100 } };
  };

  it("redraws one status line with a bar on a TTY", async () => {
    const { createProgress } = await import("../../src/train/progress.js");
    const { chunks, stream } = capture(true);
    const progress = createProgress(stream, true);
    progress.stepStarted(2, 5);
    progress.batchStarted("acting", 4);
    progress.rolloutSettled(true);
    progress.rolloutSettled(false);
    expect(chunks[chunks.length - 1]).toBe("\r\x1b[Kstep 2/5 ██████████░░░░░░░░░░ acting 2/4 (1 cached) · best —");
    progress.batchFinished();
    progress.stepFinished(2, "accepted", 0.75, 0.75, "added a check");
    progress.close();
    expect(chunks.join("")).toContain("step 2/5: accepted, candidate 0.750, best 0.750 — added a check\n");
  });

  it("writes plain lines elsewhere", async () => {
    const { createProgress } = await import("../../src/train/progress.js");
    const { chunks, stream } = capture(false);
    const progress = createProgress(stream, false);
    progress.stepStarted(1, 3);
    progress.batchStarted("acting", 2);
    progress.rolloutSettled(false);
    progress.rolloutSettled(false);
    progress.batchFinished();
    expect(chunks).toEqual(["step 1/3: acting 2/2 rollouts\n"]);
  });
});
