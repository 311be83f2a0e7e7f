/**
 * The bundled example: its data, its scripted agent acting through a real Session, and the
 * README's first command (train from examples/train.yaml, offline, then deploy).
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { addFragment, readPlacement, readPool } from "../../src/evolvers/pool.js";
import { Session } from "../../src/runtime/session.js";
import { copyDir, exampleAdapter, repoRoot, tempDir } from "../helpers.js";
import { referenceCount } from "./fixtures/wordcount-reference.js";
import { ensureBuilt, fsck, git } from "./helpers.js";

const exampleDir = join(repoRoot, "examples", "wordcount-task");
const poolDir = join(repoRoot, "examples", "pool");

interface Instance {
  id: string;
  split: string;
  text: string;
  expected: number;
}

const data = async () => (JSON.parse(await readFile(join(exampleDir, "data.json"), "utf8")) as { instances: Instance[] }).instances;

/** The scripted agent answering every instance through one Session on `adapter`. */
async function answers(adapter: string): Promise<Map<string, number | null>> {
  // The example imports its types from the built package; here the agent meets src's Session.
  const { answerWordCount } = (await import(join(exampleDir, "agent.ts"))) as {
    answerWordCount(session: Session, text: string): Promise<{ answer: number | null }>;
  };
  const session = new Session(adapter);
  try {
    const out = new Map<string, number | null>();
    for (const instance of await data()) out.set(instance.id, (await answerWordCount(session, instance.text)).answer);
    return out;
  } finally {
    await session.close();
  }
}

async function withFragments(ids: string[]): Promise<string> {
  const adapter = await copyDir(exampleAdapter);
  const pool = await readPool(poolDir);
  const where = await readPlacement(adapter);
  for (const id of ids) await addFragment(adapter, pool.find((fragment) => fragment.id === id)!, where);
  return adapter;
}

const helpful = ["skills/skip-numbers", "skills/ignore-markdown-markers", "skills/skip-code-blocks", "sections/html-comments", "sections/em-dashes"];

describe("the wordcount example", () => {
  it("labels every instance with the count the house rules give", async () => {
    const instances = await data();
    expect(instances.map((instance) => instance.split).filter((split) => split === "train")).toHaveLength(8);
    expect(new Set(instances.map((instance) => instance.id)).size).toBe(instances.length);
    for (const instance of instances) expect(referenceCount(instance.text), instance.id).toBe(instance.expected);
  });

  it("acts through the version under test: the base counts raw words, the right fragments make it exact, a wrong one hurts", async () => {
    const instances = await data();
    const naive = (text: string) => text.split(/\s+/).filter(Boolean).length;
    const base = await answers(exampleAdapter);
    for (const instance of instances) expect(base.get(instance.id), instance.id).toBe(naive(instance.text));
    expect(instances.filter((instance) => base.get(instance.id) === instance.expected).length).toBeLessThan(instances.length / 2);

    const trained = await answers(await withFragments(helpful));
    for (const instance of instances) expect(trained.get(instance.id), instance.id).toBe(instance.expected);

    const harmed = await answers(await withFragments([...helpful, "skills/split-hyphenated-words"]));
    const wrong = instances.filter((instance) => harmed.get(instance.id) !== instance.expected);
    expect(wrong.map((instance) => instance.id)).toEqual(expect.arrayContaining(["release-notes", "hardware-spec"]));
    expect(wrong.every((instance) => (harmed.get(instance.id) ?? 0) > instance.expected)).toBe(true);
  });
});

describe("the README's first command", () => {
  beforeAll(ensureBuilt, 180_000);

  it("trains the example offline, improves the sealed test score, and deploys the result", async () => {
    const dir = await tempDir("hermit-readme-");
    const runsDir = join(dir, "runs");
    const workspace = join(dir, "demo-workspace");
    const result = spawnSync(
      process.execPath,
      [join(repoRoot, "dist", "cli.js"), "train", "--config", "examples/train.yaml", "--runs-dir", runsDir, "--deploy", `claude-code:${workspace}`, "--json"],
      { cwd: repoRoot, encoding: "utf8" },
    );
    expect(result.status, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(Object.keys(json)).toEqual(expect.arrayContaining(["run", "status", "runDir", "acceptedCommit", "finalTag", "steps"]));
    expect(json.test.final).toBe(1);
    expect(json.test.base).toBeLessThan(0.5);
    expect(json.steps.filter((step: { status: string }) => step.status === "accepted").length).toBeGreaterThanOrEqual(5);
    expect(result.stderr).toMatch(/step 1\/12: acting 8\/8 rollouts/);

    // The gate works (issue 9.9): the search tries a fragment that contradicts the house rules, and
    // validation turns it down, saying why, in the summary and on the card.
    const rejected = json.steps.filter((step: { status: string }) => step.status === "rejected");
    expect(rejected.length).toBeGreaterThanOrEqual(1);
    expect(rejected.map((step: { summary: string }) => step.summary).join("\n")).toMatch(/added skill (split-hyphenated-words|skip-urls)|added section skip-short-words/);
    expect(rejected[0].summary).toMatch(/\(difference -[\d.]+ is not more than margin 0\)$/);
    const card = await readFile(join(json.runDir, "CARD.md"), "utf8");
    expect(card).toMatch(/\| \d+ \| rejected \| [\d.]+ \| [\d.]+ \| `[0-9a-f]{12}` \| added (skill|section) [a-z-]+ .*\(difference -[\d.]+ is not more than margin 0\) \|/);

    // The deployed workspace carries the trained skills and context for Claude Code.
    const skills = (await readdir(join(workspace, ".claude", "skills"))).sort();
    expect(skills).toEqual(expect.arrayContaining(["skip-code-blocks", "skip-numbers", "ignore-markdown-markers"]));
    const claude = await readFile(join(workspace, "CLAUDE.md"), "utf8");
    expect(claude).toContain("are not part of the text: leave them out of the count.");
    expect(existsSync(join(workspace, ".mcp.json"))).toBe(true);

    // The evidence of a rollout shows the agent used the adapter's tool on the prepared text.
    const transcript = JSON.parse(await readFile(join(json.runDir, "steps", "1", "rollouts", "install-guide", "transcript.json"), "utf8"));
    expect(transcript.toolCalls[0]).toMatchObject({ tool: "count_words", result: { count: transcript.answer } });
    const audit = (await readFile(join(json.runDir, "steps", "1", "rollouts", "install-guide.audit.jsonl"), "utf8")).trim().split("\n");
    // The first line says what ran the calls (runtimes, sandbox grants); the calls follow.
    expect(JSON.parse(audit[0])).toMatchObject({ session: { via: "session", name: "file-example" } });
    expect(JSON.parse(audit[1])).toMatchObject({ tool: "count_words", result: { count: transcript.answer } });
    expect(fsck(join(runsDir, "versions.git")).status).toBe(0);
    expect(git(["--git-dir", join(runsDir, "versions.git"), "rev-parse", `${json.finalTag}^{commit}`])).toBe(json.finalCommit);
  }, 420_000);
});
