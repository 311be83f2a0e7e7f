/**
 * Issue 18.6: a tool (or a host) may leave anything in its evidence directory, symlinks
 * included. hermit reads evidence for the learner — the reflective dataset (`readEvidence`)
 * and the agent Evolver's `learning/` folder (`writeMaterial`) — and must never follow a link
 * out of it: a link to a secret file, or to a folder of secrets, is left out, and the files
 * beside them are still read.
 */
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeMaterial } from "../../src/evolvers/agent/material.js";
import { readEvidence } from "../../src/evolvers/reflect/evidence.js";
import type { LearningMaterial, RolloutRecord } from "../../src/train/types.js";
import { readTree, tempDir } from "../helpers.js";

const SECRET = "the sealed test labels: x1=42";

/** An evidence directory with a real transcript and links out to a secret file and a folder of secrets. */
async function plantedEvidence(): Promise<string> {
  const root = await tempDir("hermit-evidence-");
  const outside = join(root, "outside");
  await mkdir(join(outside, "labels"), { recursive: true });
  await writeFile(join(outside, "secret.txt"), `${SECRET}\n`);
  await writeFile(join(outside, "labels", "test.json"), `${SECRET}\n`);
  const evidence = join(root, "evidence");
  await mkdir(join(evidence, "logs"), { recursive: true });
  await writeFile(join(evidence, "transcript.txt"), "the agent counted the words\n");
  await symlink(join(outside, "secret.txt"), join(evidence, "answer.txt"));
  await symlink(join(outside, "labels"), join(evidence, "data"));
  await symlink(join(outside, "secret.txt"), join(evidence, "logs", "run.log"));
  await symlink("../../outside/secret.txt", join(evidence, "logs", "relative.log"));
  return evidence;
}

describe("evidence a tool left links in", () => {
  it("the reflective dataset reads its files and follows no link out", async () => {
    const evidence = await plantedEvidence();
    const text = await readEvidence(evidence);
    expect(text).toContain("the agent counted the words");
    expect(text).not.toContain(SECRET);
  });

  it("the agent Evolver's learning/ folder copies its files and follows no link out", async () => {
    const evidence = await plantedEvidence();
    const record = { instance: "t1", trial: 0, split: "train", status: "ok", attempts: 1, score: 0.5, feedback: "fine", durationMs: 1, evidenceDir: evidence, ranAt: 1 } as unknown as RolloutRecord;
    const material = {
      run: "r", step: 1, task: "t", accepted: { commit: "c", tree: "t", score: null }, rollouts: [record], trainInstances: 1, batchScore: 0.5, repairs: [], history: [], file: "/dev/null",
    } as LearningMaterial;
    const scratch = await tempDir("hermit-learning-");
    await writeMaterial(scratch, material, [], "brief");
    const files = await readTree(join(scratch, "learning"));
    expect(files["rollouts/t1/evidence/transcript.txt"]).toBe("the agent counted the words\n");
    expect(Object.values(files).some((content) => content.includes(SECRET))).toBe(false);
    expect(Object.keys(files).filter((path) => path.includes("answer") || path.includes("data/") || path.endsWith(".log"))).toEqual([]);
  });
});
