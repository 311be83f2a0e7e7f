/**
 * The acting layer's pure parts: each host's headless output read into a transcript (on
 * outputs the real host programs printed in a run against the scripted stub, beside the
 * usage the stub reported), usage pricing, "did the agent use the adapter", the audit log.
 */
import { readFileSync } from "node:fs";
import { appendFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { adapterToolCalls, adapterUse, skillsRead } from "../../src/acting/evidence.js";
import { auditLogSize } from "../../src/runtime/audit-log.js";
import { transcriptReaders } from "../../src/acting/transcripts/index.js";
import { UsageSum } from "../../src/acting/transcripts/shared.js";
import { priceUsage } from "../../src/acting/usage.js";
import type { DeploymentReport } from "../../src/deploy/record.js";
import type { HostId } from "../../src/hosts/types.js";
import { shippedPrices } from "../../src/models/prices.js";
import { tempDir } from "../helpers.js";

const OUTPUTS = join(import.meta.dirname, "outputs");

interface StubRecord {
  index: number;
  counted: boolean;
  usage: { input: number; output: number; cached: number; reasoning: number };
}

/** What the stub reported over the requests the host counts. */
function reported(host: HostId) {
  const records = JSON.parse(readFileSync(join(OUTPUTS, `${host}.stub.json`), "utf8")) as StubRecord[];
  const sum = { input: 0, output: 0, cached: 0, reasoning: 0 };
  for (const record of records.filter((entry) => entry.counted)) {
    for (const key of Object.keys(sum) as Array<keyof typeof sum>) sum[key] += record.usage[key];
  }
  return sum;
}

describe("transcripts: each host's own output, as it printed it", () => {
  const cases: Array<[HostId, Array<"input" | "output" | "cached" | "reasoning">, string[]]> = [
    ["claude-code", ["input", "output", "cached"], ["Skill", "ToolSearch", "mcp__fix-tests__run_tests", "Read", "Edit", "mcp__fix-tests__run_tests"]],
    ["codex", ["input", "output", "cached", "reasoning"], ["command_execution", "mcp__fix-tests__run_tests", "file_change", "mcp__fix-tests__run_tests"]],
    ["gemini", ["input", "output", "cached", "reasoning"], ["activate_skill", "mcp_fix-tests_run_tests", "read_file", "replace", "mcp_fix-tests_run_tests"]],
    ["opencode", ["input", "output", "cached", "reasoning"], ["skill", "fix-tests_run_tests", "read", "edit", "fix-tests_run_tests"]],
    ["pi", ["input", "output", "cached"], ["read", "bash", "read", "edit"]],
  ];
  for (const [host, fields, calls] of cases) {
    it(`${host}: tool calls in order, the final message, and usage equal to what the model reported`, () => {
      const transcript = transcriptReaders[host](readFileSync(join(OUTPUTS, `${host}.jsonl`), "utf8"));
      expect(transcript.toolCalls.map((call) => call.name)).toEqual(calls);
      expect(transcript.finalMessage).toBe("Fixed src/clamp.js; the tests pass now.");
      expect(transcript.error).toBeUndefined();
      const sent = reported(host);
      for (const field of fields) expect(transcript.usage?.[field], field).toBe(sent[field]);
      // A field the host does not report stays unknown, never 0.
      for (const field of ["input", "output", "cached", "reasoning"] as const) if (!fields.includes(field)) expect(transcript.usage?.[field]).toBeUndefined();
    });
  }

  it("results are attached to their calls; a failing test run is visible to the learner", () => {
    const transcript = transcriptReaders["claude-code"](readFileSync(join(OUTPUTS, "claude-code.jsonl"), "utf8"));
    const runs = transcript.toolCalls.filter((call) => call.name.endsWith("run_tests"));
    expect(runs[0]!.result).toMatch(/"passed":false/);
    expect(runs[1]!.result).toMatch(/"passed":true/);
  });

  it("errors each host reports in its output", () => {
    expect(transcriptReaders.codex('{"type":"turn.failed","error":{"message":"unexpected status 400"}}\n').error).toBe("unexpected status 400");
    expect(transcriptReaders["claude-code"]('{"type":"result","subtype":"error_max_turns","is_error":true,"usage":{"input_tokens":5,"output_tokens":1}}').error).toBe("error_max_turns");
    expect(transcriptReaders.gemini('{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: 400]"},"stats":{}}').error).toBe("[API Error: 400]");
    expect(transcriptReaders.opencode('{"type":"error","error":{"name":"APIError","data":{"message":"Unauthorized"}}}').error).toBe("Unauthorized");
    expect(transcriptReaders.pi('{"type":"message_end","message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"400 refused"}}').error).toBe("400 refused");
  });

  it("a killed host's half-written last line is skipped; no usage is unknown usage", () => {
    const transcript = transcriptReaders["claude-code"]('{"type":"assistant","message":{"content":[{"type":"text","text":"working"}]}}\n{"type":"resu');
    expect(transcript.finalMessage).toBe("working");
    expect(transcript.usage).toBeUndefined();
    expect(transcript.events).toBe(1);
  });

  it("Gemini's -o json document: thoughts are counted in the output, as reasoning", () => {
    const document = JSON.stringify({ response: "done", stats: { models: { "gemini-2.5-pro": { tokens: { prompt: 120, candidates: 30, cached: 20, thoughts: 10, total: 160 } } } } });
    expect(transcriptReaders.gemini(document)).toMatchObject({ finalMessage: "done", usage: { input: 120, output: 40, cached: 20, reasoning: 10, model: "gemini-2.5-pro" } });
  });

  it("a sum over steps knows a field only when every step reported it", () => {
    const sum = new UsageSum();
    sum.add({ input: 10, output: 2, costUsd: 0.5 });
    sum.add({ input: 5, output: 1 });
    expect(sum.result()).toEqual({ input: 15, output: 3 });
    expect(new UsageSum().result()).toBeUndefined();
  });
});

describe("cost of a turn", () => {
  const prices = shippedPrices();
  it("Claude Code prices its model itself: its cost is kept", () => {
    expect(priceUsage("claude-code", { input: 100, output: 10, costUsd: 0.0045 }, "anthropic:claude-sonnet-4-5", prices)).toEqual({ input: 100, output: 10, costUsd: 0.0045, costSource: "host" });
  });
  it("a cost the host computed from a provider hermit declared without prices (OpenCode, Pi) is not a measurement: priced from the table", () => {
    const priced = priceUsage("opencode", { input: 1_000_000, output: 0, costUsd: 0 }, "anthropic:claude-sonnet-4-5", prices);
    expect(priced?.costSource).toBe("price-table");
    expect(priced?.costUsd).toBeGreaterThan(0);
  });
  it("a model the table does not know has an unknown cost, never 0", () => {
    const priced = priceUsage("pi", { input: 100, output: 10, costUsd: 0 }, "openai-compatible:qwen3-coder", prices);
    expect(priced).toEqual({ input: 100, output: 10 });
    expect(priceUsage("codex", { input: 100 }, "openai:gpt-5.1", prices)).toEqual({ input: 100 });
  });
});

describe("did the agent use the adapter", () => {
  const report = {
    exports: { context: "ADAPTER.md", skills: ["fix-failing-tests", "other"], agents: [], tools: ["run_tests"] },
    files: [
      { path: ".claude/skills/fix-failing-tests/SKILL.md", owner: { export: "skills", item: "fix-failing-tests" } },
      { path: ".claude/skills/other/SKILL.md", owner: { export: "skills", item: "other" } },
    ],
  } as unknown as DeploymentReport;

  it("a skill loaded by name through the host's skill tool, or read from its deployed folder", () => {
    expect(skillsRead([{ name: "Skill", arguments: { skill: "fix-failing-tests" } }], report)).toEqual(["fix-failing-tests"]);
    expect(skillsRead([{ name: "command_execution", arguments: { command: "cat /ws/.claude/skills/other/SKILL.md" } }], report)).toEqual(["other"]);
  });
  it("a skill name said in passing is not a read", () => {
    expect(skillsRead([{ name: "Bash", arguments: { command: "echo fix-failing-tests" } }, { name: "Skill", arguments: { skill: "fix-failing-tests-v2" } }], report)).toEqual([]);
  });
  it("adapter tools come from the audit log, from this run's offset on; a torn last line is skipped", async () => {
    const file = join(await tempDir(), "audit.jsonl");
    await writeFile(file, `${JSON.stringify({ time: "t0", tool: "run_tests", arguments: { dir: "/old" }, result: { passed: true } })}\n`);
    const offset = await auditLogSize(file);
    await appendFile(file, `${JSON.stringify({ time: "t1", tool: "run_tests", arguments: { dir: "/ws" }, error: { code: "TOOL_FAILED", message: "boom" } })}\n{"time":"t2","to`);
    const calls = await adapterToolCalls(file, offset);
    expect(calls).toEqual([{ tool: "run_tests", arguments: { dir: "/ws" }, ok: false, error: "boom", time: "t1" }]);
    expect(adapterUse([], calls)).toEqual({ skillsRead: [], toolsCalled: ["run_tests"], used: true });
    expect(await adapterToolCalls(join(file, "missing"))).toEqual([]);
  });
});
