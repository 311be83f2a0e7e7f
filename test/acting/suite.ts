/**
 * The acting suite, run for one host per test file (one real host at a time on a small
 * machine): the example task's rollout through the real host program against the scripted
 * stub model, with and without the adapter's instruction; a host that hangs; a host that
 * fails.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { HostId } from "../../src/hosts/types.js";
import { conversationOf, startStubModel, type StubAgent, type StubModel } from "../../src/verify/stub-model.js";
import { skipBecause, tempDir } from "../helpers.js";
import { fixTestsAgent } from "./fix-agent.js";
import { EXAMPLE, actorFor, hostProcesses, ownTmpdir, instructedAdapter, runRollout, skipReason, stubUsage, uninstructedAdapter } from "./fixtures.js";

export interface SuiteOptions {
  /** False for a host that offers no MCP tool (Pi without its extension): the skill path is taken. */
  callsTool: boolean;
  /** Indexes of requests the host does not count in its usage (OpenCode's title request). */
  uncounted?: (stub: StubModel) => number[];
  /** Usage fields the host reports (Claude Code has no reasoning count; Pi neither). */
  fields: ReadonlyArray<"input" | "output" | "cached" | "reasoning">;
  /**
   * What the host does when its model refuses the call: exit non-zero; exit 0 but say so in its
   * output (Pi); or wait forever (OpenCode 1.18.33's `run`, anomalyco/opencode#8203), which the
   * time limit ends.
   */
  onProviderError: "exits" | "reports" | "hangs";
}

const TURN_TIMEOUT_MS = 150_000;

export function actingSuite(host: HostId, options: SuiteOptions): void {
  const skip = skipBecause(skipReason(host));
  const task = async () => (await import(join(EXAMPLE, "task.ts"))).default;

  const tmpdir = ownTmpdir(`hermit-act-${host}-`);

  async function withStub<T>(agent: StubAgent, run: (stub: StubModel) => Promise<T>): Promise<T> {
    const stub = await startStubModel({ agent });
    try {
      return await run(stub);
    } finally {
      await stub.close();
    }
  }

  describe.sequential(`acting through ${host}`, () => {
    it.skipIf(skip)("fixes the project when the adapter says how: score 1, the adapter used, usage as the stub reported", { timeout: 300_000 }, async () => {
      await withStub(fixTestsAgent(), async (stub) => {
        const adapter = await instructedAdapter();
        const rollout = await runRollout(await task(), { id: "clamp" }, adapter, actorFor(host, stub, TURN_TIMEOUT_MS));
        const { result, act } = rollout;
        expect(act.exitCode, act.stderrTail).toBe(0);
        expect(result.score, result.feedback).toBe(1);
        expect(result.feedback).toMatch(/The tests pass\./);
        // The project really was fixed by the host's own edit tool, in the workspace.
        expect(act.toolCalls.map((call) => call.name).join(" ")).toMatch(/Edit|edit|replace|file_change/);

        // Did the agent use the adapter: the skill, and (where the host has MCP) the tool, through hermit's server.
        expect(act.skillsRead).toEqual(["fix-failing-tests"]);
        expect(result.adapterUse?.skillsRead).toEqual(["fix-failing-tests"]);
        expect(result.feedback).toMatch(/adapter used: yes/);
        if (options.callsTool) {
          expect(act.adapterToolCalls.length).toBeGreaterThanOrEqual(2);
          const first = act.adapterToolCalls[0]!;
          expect(first).toMatchObject({ tool: "run_tests", ok: true, arguments: { dir: act.workspace } });
          expect(first.result).toMatchObject({ passed: false });
          expect(act.adapterToolCalls.at(-1)!.result).toMatchObject({ passed: true });
          expect(result.adapterUse?.toolsCalled).toEqual(["run_tests"]);
          const audit = await readFile(rollout.auditLog, "utf8");
          // One header line per server start, then one line per call.
          expect(audit.trim().split("\n").filter((line) => line.includes('"tool":'))).toHaveLength(act.adapterToolCalls.length);
          // The result came back to the model: a later request carries the failure the server returned.
          const failure = (first.result as { output: string }).output;
          const carried = stub.requests.filter((request) => {
            const conversation = conversationOf(request);
            return conversation?.items.some((item) => item.type === "tool-result" && item.text.includes("clamp.test.js") && item.text.includes(failure.slice(0, 40).trim().split("\n")[0]!));
          });
          expect(carried.length).toBeGreaterThan(0);
        } else {
          expect(act.adapterToolCalls).toEqual([]);
        }

        // Usage: what the host reported equals what the stub sent, field by field.
        const uncounted = new Set(options.uncounted?.(stub) ?? []);
        const sent = stubUsage(stub, (index) => !uncounted.has(index));
        for (const field of options.fields) expect(act.usage?.[field], field).toBe(sent[field]);
        expect(result.tokens).toEqual(act.usage);
        if (act.usage?.costSource === "host") expect(act.usage.costUsd).toBeGreaterThan(0);

        // Evidence for the learner, and nothing left behind.
        const evidence = JSON.parse(await readFile(join(rollout.evidenceDir, "act", "act.json"), "utf8"));
        expect(evidence.adapterUse).toEqual(act.adapterUse);
        expect(await readFile(join(rollout.evidenceDir, "act", "transcript.jsonl"), "utf8")).toBe(act.transcript);
        await expect(readFile(join(act.workspace, "src", "clamp.js"))).rejects.toThrow();
        expect(hostProcesses(tmpdir())).toEqual([]);
      });
    });

    it.skipIf(skip)("leaves the project failing when the version lacks the instruction: score 0", { timeout: 300_000 }, async () => {
      await withStub(fixTestsAgent(), async (stub) => {
        const adapter = await uninstructedAdapter();
        const { result, act } = await runRollout(await task(), { id: "range" }, adapter, actorFor(host, stub, TURN_TIMEOUT_MS));
        expect(act.exitCode, act.stderrTail).toBe(0);
        expect(result.score).toBe(0);
        expect(result.feedback).toMatch(/The tests still fail/);
        expect(result.adapterUse).toEqual({ skillsRead: [], toolsCalled: [], used: false });
        expect(result.feedback).toMatch(/adapter used: no/);
        expect(hostProcesses(tmpdir())).toEqual([]);
      });
    });

    it.skipIf(skip)("a host whose model never answers is stopped at the time limit: null score, no process left", { timeout: 120_000 }, async () => {
      const never: StubAgent = (conversation) => (conversation.tools.length === 0 ? { text: "title" } : new Promise(() => undefined));
      await withStub(never, async (stub) => {
        const started = Date.now();
        const { result, act } = await runRollout(await task(), { id: "clamp" }, await instructedAdapter(), actorFor(host, stub, 12_000));
        expect(act.timedOut).toBe(true);
        expect(act.exitCode).toBeNull();
        expect(result.score).toBeNull();
        expect(result.feedback).toMatch(/did not finish within the time limit/);
        expect(Date.now() - started).toBeLessThan(60_000);
        expect(hostProcesses(tmpdir())).toEqual([]);
      });
    });

    const refusal = {
      exits: "a host that exits non-zero is a null score with its reason and stderr tail as feedback",
      reports: "a host that reports a failed turn (and exits 0) is a null score with its reason as feedback",
      hangs: "a host that waits forever after its model refuses the call is stopped at the time limit: null score",
    }[options.onProviderError];
    it.skipIf(skip)(refusal, { timeout: 180_000 }, async () => {
      const refuse: StubAgent = (conversation) => (conversation.tools.length === 0 ? { text: "title" } : { error: { status: 400, message: "hermit stub: refused" } });
      await withStub(refuse, async (stub) => {
        const limit = options.onProviderError === "hangs" ? 15_000 : 120_000;
        const { result, act } = await runRollout(await task(), { id: "clamp" }, await instructedAdapter(), actorFor(host, stub, limit));
        expect(result.score).toBeNull();
        if (options.onProviderError === "hangs") {
          expect(act.timedOut).toBe(true);
          expect(result.feedback).toMatch(/did not finish within the time limit/);
        } else {
          expect(act.timedOut).toBe(false);
          if (options.onProviderError === "exits") {
            expect(act.exitCode).not.toBe(0);
            expect(act.exitCode).not.toBeNull();
            expect(result.feedback).toMatch(new RegExp(`exited with code ${act.exitCode}`));
          } else {
            expect(act.exitCode).toBe(0);
            expect(result.feedback).toMatch(/reported that its turn failed/);
          }
          expect(`${act.hostError ?? ""}\n${act.stderrTail}`).toMatch(/hermit stub: refused|400/);
          if (act.stderrTail.trim()) expect(result.feedback).toContain(act.stderrTail.trim().split("\n").at(-1));
          if (act.hostError) expect(result.feedback).toContain(act.hostError);
        }
        expect(hostProcesses(tmpdir())).toEqual([]);
      });
    });
  });
}

