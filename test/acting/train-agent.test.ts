/**
 * `hermit train --evolver agent` end to end: a real host is the learner (Claude Code through
 * the Evolver's options, Codex through `--learner-host`/`--learner-model`) and Claude Code acts, each against its own scripted stub model. The learner reads the
 * learning material in its jailed scratch copy and adds the instruction to ADAPTER.md with its
 * own edit tool (and edits a fixed file, and writes a note: both dropped); the acting host then
 * calls `run_tests` and fixes the projects, and validation accepts the candidate.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { StepRecord } from "../../src/train/records.js";
import type { HostId } from "../../src/hosts/types.js";
import { noBwrap, skipBecause, tempDir } from "../helpers.js";
import { ensureBuilt } from "../train/helpers.js";
import { fixTestsAgent } from "./fix-agent.js";
import { EXAMPLE, EXAMPLE_ADAPTER, hostProcesses, ownTmpdir, skipReason } from "./fixtures.js";
import { ADDED_INSTRUCTION, learnerAgent } from "./learner-agent.js";
import { BASE_CONTEXT_LINE, actorFlags, baseAdapter, hermit, readJson, withStub } from "./train-fixtures.js";

const LEARNER_MODEL: Partial<Record<HostId, string>> = { "claude-code": "anthropic:claude-sonnet-4-5", codex: "openai:gpt-5.5" };
const tmpdir = ownTmpdir("hermit-train-agent-");

beforeAll(ensureBuilt, 180_000);

describe.sequential("hermit train with the agent Evolver", () => {
  for (const learner of ["claude-code", "codex"] as const) {
    const skip = skipBecause(skipReason(learner) ?? skipReason("claude-code") ?? noBwrap);
    it.skipIf(skip)(`${learner} as the learner adds the instruction; Claude Code acting with it fixes the projects; the candidate is accepted`, { timeout: 600_000 }, async () => {
      const dir = await tempDir("hermit-train-agent-run-");
      const escape = join(dir, "runs", "escaped.txt");
      await withStub(learnerAgent({ escapes: [escape] }), (learnerStub) =>
        withStub(fixTestsAgent(), async (actorStub) => {
          // The learner named by the run's settings (Codex), or by the Evolver's options (Claude Code).
          const evolver =
            learner === "codex"
              ? ["--evolver", "agent", "--learner-host", learner, "--learner-model", LEARNER_MODEL[learner]!, "--learner-base-url", `${learnerStub.url}/v1`]
              : ["--evolver", "agent", "--evolver-option", `host=${learner}`, "--evolver-option", `model=${LEARNER_MODEL[learner]}`, "--evolver-option", `base-url=${learnerStub.url}/v1`];
          const args = ["train", "--adapter", await baseAdapter(), "--template", EXAMPLE_ADAPTER, "--task", join(EXAMPLE, "task.ts"), ...evolver, ...actorFlags(actorStub)];
          const run = await hermit([...args, "--steps", "1", "--batch-size", "1", "--concurrency", "2", "--retries", "0", "--runs-dir", "runs", "--run-id", "agent", "--json"], dir, tmpdir());
          expect(run.status, run.stderr).toBe(0);
          const result = JSON.parse(run.stdout);
          expect(result.steps).toMatchObject([{ step: 1, status: "accepted", score: 1 }]);
          expect(result.test).toEqual({ base: 0, final: 1 });

          const runDir = join(dir, "runs", "agent");
          const step = await readJson<StepRecord>(join(runDir, "steps", "1", "step.json"));
          expect(step.evolver.status).toBe("done");
          expect(step.summary).toMatch(/^Added an instruction to call run_tests/);
          expect(step.summary).toContain("dropped, not learnable: learning/notes.md (learning material, not the adapter), tools.ts (not a learnable path)");
          // The learner's usage, from its own output, is the step's Evolver usage.
          expect(step.evolver.usage?.inputTokens).toBeGreaterThan(0);
          expect(step.adapterUse).toEqual({ rollouts: 5, used: 2, skillsRead: {}, toolsCalled: { run_tests: 2 } });

          // Only the learnable change reached the accepted version.
          const final = await readFile(join(runDir, "final", "ADAPTER.md"), "utf8");
          expect(final).toContain(BASE_CONTEXT_LINE);
          expect(final).toContain(ADDED_INSTRUCTION);
          expect(await readFile(join(runDir, "final", "tools.ts"), "utf8")).toBe(await readFile(join(EXAMPLE_ADAPTER, "tools.ts"), "utf8"));
          expect(existsSync(escape)).toBe(false);
          expect(hostProcesses(tmpdir())).toEqual([]);
        }),
      );
    });
  }
});
