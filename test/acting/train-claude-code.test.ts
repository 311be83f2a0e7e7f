/**
 * `hermit train` with a real acting host: the CLI runs the fix-tests example with
 * `--actor-host claude-code` (the real Claude Code of test/hosts) against the scripted stub
 * model. The base version lacks the instruction, so the host leaves the projects failing; the
 * Evolver writes it in, the host then calls the adapter's `run_tests` tool through hermit's
 * server and fixes the code; validation accepts the candidate. The records carry every
 * rollout's usage and adapter-use evidence, and `hermit runs show` says whether the host used
 * the adapter. A host that fails is a missing score (null), retried, never a 0.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunRecord, StepRecord } from "../../src/train/records.js";
import type { RolloutRecord } from "../../src/train/types.js";
import type { StubAgent } from "../../src/verify/stub-model.js";
import { skipBecause, tempDir } from "../helpers.js";
import { ensureBuilt } from "../train/helpers.js";
import { fixTestsAgent } from "./fix-agent.js";
import { EXAMPLE, EXAMPLE_ADAPTER, hostProcesses, ownTmpdir, skipReason, stubUsage } from "./fixtures.js";
import { actorFlags, baseAdapter, hermit as runCli, readJson, readLines, withStub } from "./train-fixtures.js";

const skip = skipBecause(skipReason("claude-code"));
const tmpdir = ownTmpdir("hermit-train-act-");
const hermit = (args: string[], cwd: string, env: Record<string, string> = {}) => runCli(args, cwd, tmpdir(), env);

beforeAll(ensureBuilt, 180_000);

describe.sequential("hermit train with Claude Code acting", () => {
  it.skipIf(skip)("accepts the candidate that makes the host fix the projects, with usage and adapter-use evidence in every record", { timeout: 600_000 }, async () => {
    await withStub(fixTestsAgent(), async (stub) => {
      const dir = await tempDir("hermit-train-act-run-");
      const base = await baseAdapter();
      const args = ["train", "--adapter", base, "--template", EXAMPLE_ADAPTER, "--task", join(EXAMPLE, "task.ts"), "--evolver", join(import.meta.dirname, "instruct-evolver.ts")];
      const run = await hermit([...args, ...actorFlags(stub), "--steps", "1", "--batch-size", "1", "--concurrency", "2", "--retries", "0", "--runs-dir", "runs", "--run-id", "acting", "--json"], dir);
      expect(run.status, run.stderr).toBe(0);
      const result = JSON.parse(run.stdout);
      expect(result.steps).toMatchObject([{ step: 1, status: "accepted", score: 1 }]);
      expect(result.test).toEqual({ base: 0, final: 1 });

      const runDir = join(dir, "runs", "acting");
      const rollouts = await readLines<RolloutRecord>(join(runDir, "rollouts.jsonl"));
      // 1 train (base) + 2 val (candidate) + 2 val (base) + 2 test (base, final).
      expect(rollouts).toHaveLength(7);
      for (const rollout of rollouts) {
        expect(rollout.status, rollout.error).toBe("ok");
        // Claude Code prices its model itself; tokens as the stub reported them.
        expect(rollout.usage).toMatchObject({ inputTokens: expect.any(Number), outputTokens: expect.any(Number), costUsd: expect.any(Number) });
        expect(rollout.usage!.costUsd).toBeGreaterThan(0);
        expect(rollout.usageUnknown).toBeUndefined();
      }
      const instructed = rollouts.filter((rollout) => rollout.score === 1);
      const plain = rollouts.filter((rollout) => rollout.score === 0);
      expect(instructed).toHaveLength(3); // the candidate on val (2) and the final version on test (1)
      expect(plain).toHaveLength(4);
      for (const rollout of instructed) expect(rollout.adapterUse).toEqual({ skillsRead: [], toolsCalled: ["run_tests"], used: true });
      for (const rollout of plain) expect(rollout.adapterUse).toEqual({ skillsRead: [], toolsCalled: [], used: false });
      // The tool call reached hermit's server: the audit log beside a scored rollout's evidence.
      const audit = await readFile(`${instructed[0]!.evidenceDir}.audit.jsonl`, "utf8");
      expect(audit).toMatch(/"tool":"run_tests"/);

      // Usage sums: the rollouts' tokens equal what the stub reported for the agent's turns; the run's record sums them.
      const sent = stubUsage(stub);
      const sum = (field: "inputTokens" | "outputTokens") => rollouts.reduce((total, rollout) => total + rollout.usage![field]!, 0);
      expect(sum("inputTokens")).toBe(sent.input);
      expect(sum("outputTokens")).toBe(sent.output);
      const record = await readJson<RunRecord>(join(runDir, "run.json"));
      expect(record.settings).toMatchObject({ actorHost: "claude-code", actorModel: "anthropic:claude-sonnet-4-5" });
      expect(JSON.stringify(record)).not.toContain("stub-key");
      expect(record.usage.known.inputTokens).toBe(sent.input);
      // Seven rollouts reported their cost; the Evolver's step reported no usage (unknown, not 0).
      expect(record.usage.sources).toBe(8);
      expect(record.usage.reported.costUsd).toBe(7);
      expect(record.adapterUse).toEqual({ rollouts: 7, used: 3, skillsRead: {}, toolsCalled: { run_tests: 3 } });
      const step = await readJson<StepRecord>(join(runDir, "steps", "1", "step.json"));
      expect(step.adapterUse).toEqual({ rollouts: 5, used: 2, skillsRead: {}, toolsCalled: { run_tests: 2 } });
      expect(step.usage.reported.inputTokens).toBe(5);

      const card = await readFile(join(runDir, "CARD.md"), "utf8");
      expect(card).toContain("| acting | claude-code on anthropic:claude-sonnet-4-5; adapter used in 3 of 7 acted rollouts (tool run_tests 3) |");
      const report = await readFile(join(runDir, "report.html"), "utf8");
      expect(report).toContain("Acting: claude-code on anthropic:claude-sonnet-4-5; adapter used in 3 of 7 acted rollouts (tool run_tests 3).");

      const shown = await hermit(["runs", "show", "acting", "--runs-dir", "runs", "--rollouts"], dir);
      expect(shown.status, shown.stderr).toBe(0);
      expect(shown.stdout).toContain("acting: claude-code on anthropic:claude-sonnet-4-5; adapter used in 3 of 7 acted rollouts (tool run_tests 3)");
      expect(shown.stdout).toMatch(/accepted .*\[adapter used in 2 of 5 acted rollouts \(tool run_tests 2\)\]/);
      expect(shown.stdout).toMatch(/ val +average +#0 +ok +1\.000 +adapter used \(tools: run_tests\) +\d+\/\d+ tokens +\$\d/);
      expect(shown.stdout).toMatch(/ train +\S+ +#0 +ok +0\.000 +adapter not used/);
      // The Evolver's step reported no usage: the run's totals are lower bounds, and say so.
      expect(shown.stdout).toMatch(/usage: input ≥ \d+ \(1 of 8 unreported\) tokens, output ≥ \d+ \(1 of 8 unreported\) tokens, cost ≥ \$\d+\.\d+ \(1 of 8 unreported\)/);
      expect(hostProcesses(tmpdir())).toEqual([]);
    });
  });

  it.skipIf(skip)("a host that fails is a missing score: recorded as an error with the host's reason, retried, never a 0", { timeout: 300_000 }, async () => {
    const refuse: StubAgent = (conversation) => (conversation.tools.length === 0 ? { text: "title" } : { error: { status: 400, message: "hermit stub: refused" } });
    await withStub(refuse, async (stub) => {
      const dir = await tempDir("hermit-train-act-fail-");
      const args = ["train", "--adapter", EXAMPLE_ADAPTER, "--template", EXAMPLE_ADAPTER, "--task", join(EXAMPLE, "task.ts"), "--evolver", "noop"];
      const run = await hermit([...args, ...actorFlags(stub), "--steps", "0", "--retries", "1", "--runs-dir", "runs", "--run-id", "failing", "--json"], dir);
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).test.base).toBeNull();
      // The base and the final version (the same, with no step) on the sealed test: a failure is never reused.
      const rollouts = await readLines<RolloutRecord>(join(dir, "runs", "failing", "rollouts.jsonl"));
      expect(rollouts.map((rollout) => rollout.ranAt)).toEqual(["final", "final"]);
      for (const rollout of rollouts) {
        expect(rollout).toMatchObject({ split: "test", status: "error", score: null, attempts: 2 });
        expect(rollout.error).toMatch(/claude-code exited with code [1-9]/);
        expect(rollout.retried).toEqual([expect.stringMatching(/^error: claude-code exited with code/)]);
        expect(rollout.adapterUse).toEqual({ skillsRead: [], toolsCalled: [], used: false });
      }
      const shown = await hermit(["runs", "show", "failing", "--runs-dir", "runs", "--rollouts"], dir);
      expect(shown.stdout).toMatch(/ test +word-count +#0 +error: claude-code exited with code \d+.* +— +adapter not used/);
      expect(hostProcesses(tmpdir())).toEqual([]);
    });
  });

  it.skipIf(skip)("a host whose model never answers is stopped at --actor-timeout: a timeout rollout, null, no process left", { timeout: 300_000 }, async () => {
    const never: StubAgent = (conversation) => (conversation.tools.length === 0 ? { text: "title" } : new Promise(() => undefined));
    await withStub(never, async (stub) => {
      const dir = await tempDir("hermit-train-act-hang-");
      const args = ["train", "--adapter", EXAMPLE_ADAPTER, "--template", EXAMPLE_ADAPTER, "--task", join(EXAMPLE, "task.ts"), "--evolver", "noop"];
      const started = Date.now();
      const run = await hermit([...args, ...actorFlags(stub), "--actor-timeout", "8s", "--steps", "0", "--retries", "0", "--runs-dir", "runs", "--run-id", "hanging", "--json"], dir);
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).test).toEqual({ base: null, final: null });
      const rollouts = await readLines<RolloutRecord>(join(dir, "runs", "hanging", "rollouts.jsonl"));
      expect(rollouts).toHaveLength(2);
      for (const rollout of rollouts) {
        expect(rollout).toMatchObject({ status: "timeout", score: null, attempts: 1 });
        expect(rollout.error).toMatch(/claude-code did not finish within the time limit and was stopped/);
      }
      // Stopped by the actor's limit (8 s a turn), long before the rollout's own (300 s).
      expect(Date.now() - started).toBeLessThan(120_000);
      expect(hostProcesses(tmpdir())).toEqual([]);
    });
  });

  it("refuses a run whose task acts without an actor, or with an actor that cannot work, before writing anything", async () => {
    const dir = await tempDir("hermit-train-act-usage-");
    const args = ["train", "--adapter", EXAMPLE_ADAPTER, "--template", EXAMPLE_ADAPTER, "--task", join(EXAMPLE, "task.ts"), "--evolver", "noop", "--runs-dir", "runs"];
    const cases: Array<[string[], RegExp, Record<string, string>?]> = [
      [[], /task 'fix-tests' acts through a host: give --actor-host and --actor-model/],
      [["--actor-host", "codex", "--actor-model", "anthropic:claude-sonnet-4-5"], /--actor-host codex speaks openai-responses .* --actor-model anthropic:claude-sonnet-4-5 speaks anthropic-messages/],
      [["--actor-host", "claude-code", "--actor-model", "anthropic:claude-sonnet-4-5"], /--actor-model 'anthropic:claude-sonnet-4-5' needs an API key: set ANTHROPIC_API_KEY/, { ANTHROPIC_API_KEY: "" }],
      [["--actor-model", "anthropic:claude-sonnet-4-5"], /--actor-model needs --actor-host/],
      [["--actor-host", "claude", "--actor-model", "anthropic:claude-sonnet-4-5"], /--actor-host: must be .* not "claude"; did you mean 'claude-code'\?/],
      [
        ["--actor-host", "opencode", "--actor-model", "openai-compatible:qwen3-coder", "--actor-base-url", "http://127.0.0.1:9/v1", "--max-cost-usd", "1"],
        /--max-cost-usd: opencode reports no cost and the actor model openai-compatible:qwen3-coder has no price/,
        { OPENAI_COMPATIBLE_API_KEY: "stub-key" },
      ],
      [["--actor-host", "claude-code", "--actor-model", "anthropic:claude-sonnet-4-5", "--learner-host", "codex"], /--learner-host codex needs --learner-model/],
      [
        ["--actor-host", "claude-code", "--actor-model", "anthropic:claude-sonnet-4-5", "--learner-host", "codex", "--learner-model", "anthropic:claude-sonnet-4-5"],
        /--learner-host codex speaks openai-responses .* --learner-model anthropic:claude-sonnet-4-5 speaks anthropic-messages/,
      ],
    ];
    for (const [flags, message, env] of cases) {
      const ran = await hermit([...args, ...flags], dir, env);
      expect(ran.status, ran.stderr).toBe(2);
      expect(ran.stderr).toMatch(message);
    }
    await expect(readFile(join(dir, "runs", "versions.git", "HEAD"))).rejects.toThrow();
  });
});
