/**
 * The agent Evolver with a real host as the learner, against the scripted stub model: the
 * host edits the scratch copy with its own tools; only learnable paths reach the candidate;
 * writes outside the scratch directory fail inside the jail; a host that hangs or fails is a
 * `failed` step; one that writes nothing is `skipped`. One host per test file.
 */
import { existsSync, readdirSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agent } from "../../src/evolvers/agent/agent.js";
import type { HostId } from "../../src/hosts/types.js";
import type { EvolverContext, LearningMaterial, StepResult } from "../../src/train/types.js";
import { HOST_PROGRAMS } from "../../src/verify/programs.js";
import { conversationOf, startStubModel, type StubAgent, type StubModel } from "../../src/verify/stub-model.js";
import { copyDir, hostBinDir, noBwrap, skipBecause, tempDir } from "../helpers.js";
import { EXAMPLE_ADAPTER, hostProcesses, ownTmpdir, skipReason, uninstructedAdapter } from "./fixtures.js";
import { ADDED_INSTRUCTION, learnerAgent } from "./learner-agent.js";

const LEARNER_MODEL: Partial<Record<HostId, { name: string; key: string }>> = {
  "claude-code": { name: "anthropic:claude-sonnet-4-5", key: "ANTHROPIC_API_KEY" },
  codex: { name: "openai:gpt-5.5", key: "OPENAI_API_KEY" },
};

interface Setup {
  candidate: string;
  template: string;
  state: string;
  runDir: string;
  context(stub: StubModel, timeoutSeconds?: number): EvolverContext & Record<string, unknown>;
}

async function setup(host: HostId): Promise<Setup> {
  const template = await uninstructedAdapter();
  const candidate = await copyDir(template);
  const state = await tempDir("hermit-agent-state-");
  const runDir = await tempDir("hermit-agent-run-");
  const evidenceDir = join(runDir, "steps", "1", "rollouts", "clamp");
  await mkdir(join(evidenceDir, "act"), { recursive: true });
  await writeFile(join(evidenceDir, "act", "act.json"), `${JSON.stringify({ adapterUse: { used: false } })}\n`);
  const material: LearningMaterial = {
    run: "r",
    step: 1,
    task: "fix-tests",
    accepted: { commit: "c0", tree: "t0", score: 0 },
    rollouts: [
      { tree: "t0", split: "train", instance: "clamp", instanceHash: "h0", task: "fix-tests", trial: 0, status: "ok", attempts: 1, score: 0, feedback: "The tests still fail.\nadapter used: no", durationMs: 9000, evidenceDir, ranAt: 1 },
    ],
    trainInstances: 3,
    batchScore: 0,
    repairs: [],
    history: [],
    file: join(runDir, "steps", "1", "learning.json"),
  };
  const model = LEARNER_MODEL[host]!;
  return {
    candidate,
    template,
    state,
    runDir,
    context: (stub, timeoutSeconds = 150) => ({
      run: "r",
      step: 1,
      workspace: { adapter: candidate, state },
      root: template,
      rolloutAdapter: template,
      learningMaterial: material,
      signal: new AbortController().signal,
      seed: 1,
      options: {},
      log: () => undefined,
      learner: { host, model: model.name, baseUrl: `${stub.url}/v1`, hostBin: join(hostBinDir, HOST_PROGRAMS[host].bin), timeout: timeoutSeconds },
      env: { ...process.env, [model.key]: "hermit-test-key" },
    }),
  };
}

export function learnerSuite(host: HostId): void {
  const skip = skipBecause(skipReason(host) ?? noBwrap);
  const tmpdir = ownTmpdir(`hermit-learn-${host}-`);

  async function step(setupOf: Setup, agentScript: StubAgent, timeoutSeconds?: number): Promise<{ result: StepResult; stub: StubModel }> {
    const stub = await startStubModel({ agent: agentScript });
    try {
      const result = await agent.step(setupOf.context(stub, timeoutSeconds) as never);
      return { result, stub };
    } finally {
      await stub.close();
    }
  }

  describe.sequential(`the agent Evolver with ${host} as the learner`, () => {
    it.skipIf(skip)("edits a learnable file with the host's own tool; drops the rest, reported; nothing escapes the scratch directory", { timeout: 300_000 }, async () => {
      const s = await setup(host);
      const escapes = [join(s.candidate, "ADAPTER.md"), join(s.runDir, "escaped.txt"), join(homedir(), `hermit-escape-${process.pid}.txt`)];
      const before = await readFile(join(s.candidate, "ADAPTER.md"), "utf8");
      const { result, stub } = await step(s, learnerAgent({ escapes }));
      try {
        expect(result.status, result.summary).toBe("done");
        // The learnable change reached the candidate; the fixed file and the note did not.
        const after = await readFile(join(s.candidate, "ADAPTER.md"), "utf8");
        expect(after).toContain(ADDED_INSTRUCTION);
        expect(after).toContain(before.trim().split("\n")[0]!);
        expect(await readFile(join(s.candidate, "tools.ts"), "utf8")).toBe(await readFile(join(EXAMPLE_ADAPTER, "tools.ts"), "utf8"));
        expect(existsSync(join(s.candidate, "learning"))).toBe(false);
        expect(result.summary).toMatch(/^Added an instruction to call run_tests/);
        expect(result.summary).toMatch(/changed ADAPTER\.md \(\+2 −0\)/);
        expect(result.summary).toContain("; dropped, not learnable: learning/notes.md (learning material, not the adapter), tools.ts (not a learnable path)");

        // Every write outside the scratch directory failed inside the jail.
        const shellResults = stub.requests.flatMap((request) => conversationOf(request)?.items.filter((item) => item.type === "tool-result") ?? []);
        const refused = shellResults.find((item) => item.text.includes("REFUSED"));
        expect(refused?.text).toBeDefined();
        for (const path of escapes) expect(refused!.text).toContain(`REFUSED ${path}`);
        expect(refused!.text).toMatch(/Read-only file system/);
        expect(shellResults.some((item) => item.text.includes("WROTE"))).toBe(false);
        expect(existsSync(join(s.runDir, "escaped.txt"))).toBe(false);
        expect(existsSync(escapes[2]!)).toBe(false);
        expect(after).not.toContain("escaped");

        // Usage from the host's own output; history kept in the state directory for the next step.
        const sent = stub.requests.filter((request) => request.turn?.usage && conversationOf(request)?.tools.length).reduce((sum, request) => sum + request.turn!.usage!.input, 0);
        expect(result.usage?.inputTokens).toBe(sent);
        const history = await readFile(join(s.state, "history.md"), "utf8");
        expect(history).toMatch(/## Step 1/);
        expect(history).toMatch(/Changed: ADAPTER\.md/);
        expect(history).toMatch(/Dropped \(not learnable\): learning\/notes\.md, tools\.ts/);
        expect(hostProcesses(tmpdir())).toEqual([]);
        expect(readdirSync(tmpdir()).filter((name) => name.startsWith("hermit-learn-") || name.startsWith("hermit-host-"))).toEqual([]);
      } finally {
        for (const path of escapes.slice(1)) if (existsSync(path)) await writeFile(path, "");
      }
    });

    it.skipIf(skip)("a learner that writes nothing learnable is a skipped step", { timeout: 300_000 }, async () => {
      const s = await setup(host);
      const before = await readFile(join(s.candidate, "ADAPTER.md"), "utf8");
      const { result } = await step(s, learnerAgent({ escapes: [], idle: true }));
      expect(result.status).toBe("skipped");
      expect(result.summary).toMatch(/changed no learnable file: Nothing in the material calls for a change/);
      expect(await readFile(join(s.candidate, "ADAPTER.md"), "utf8")).toBe(before);
    });

    it.skipIf(skip)("a learner that hangs is stopped at the time limit, and the step failed", { timeout: 120_000 }, async () => {
      const s = await setup(host);
      const started = Date.now();
      const { result } = await step(s, (conversation) => (conversation.tools.length === 0 ? { text: "t" } : new Promise(() => undefined)), 12);
      expect(result.status).toBe("failed");
      expect(result.summary).toMatch(/did not finish within the time limit/);
      expect(Date.now() - started).toBeLessThan(60_000);
      expect(hostProcesses(tmpdir())).toEqual([]);
    });

    it.skipIf(skip)("a learner that exits non-zero is a failed step with its reason", { timeout: 180_000 }, async () => {
      const s = await setup(host);
      const { result } = await step(s, () => ({ error: { status: 400, message: "hermit stub: refused" } }));
      expect(result.status).toBe("failed");
      expect(result.summary).toMatch(/exited with code [1-9]/);
      expect(result.summary).toMatch(/hermit stub: refused|400/);
      expect(hostProcesses(tmpdir())).toEqual([]);
    });
  });
}
