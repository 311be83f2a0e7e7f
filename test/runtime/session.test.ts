import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HermitError } from "../../src/errors.js";
import { Session } from "../../src/runtime/session.js";
import { exampleAdapter, tempDir, testdir } from "../helpers.js";
import { declaredTools, fixtureAdapter, fixtureTree } from "./fixture.js";

/** Expect a promise to reject with a HermitError of `code` whose message contains `text`. */
async function rejectsWith(promise: Promise<unknown>, code: string, text = ""): Promise<HermitError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(HermitError);
  expect((error as HermitError).code).toBe(code);
  expect((error as HermitError).message).toContain(text);
  return error as HermitError;
}

// Constraints the two APIs document for tool definitions.
const OPENAI_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ANTHROPIC_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

describe("Session (in process)", () => {
  let session: Session;
  let adapter: string;
  let evidence: string;
  let auditLog: string;

  beforeAll(async () => {
    adapter = await fixtureAdapter();
    const dir = await tempDir();
    evidence = join(dir, "evidence", "run-1");
    auditLog = join(dir, "audit.jsonl");
    session = new Session(adapter, {
      evidence,
      deployment: { host: "claude-code", files: [] },
      learningMaterial: { scores: [0.5] },
      resources: { team: "blue" },
      auditLog,
      timeoutMs: 1000,
    });
  });
  afterAll(async () => {
    await session?.close();
  });

  it("gives the context, agents and skills", async () => {
    expect(await session.context()).toBe("# Runtime fixture\n\nUse the tools.\n");
    expect((await session.agents()).map((agent) => [agent.name, agent.body.trim()])).toEqual([
      ["checker", "Check every result twice."],
    ]);
    expect((await session.skills()).map((skill) => skill.name)).toEqual(["recount"]);
  });

  it("knows its tools", async () => {
    expect(await session.hasTool("count_words")).toBe(true);
    expect(await session.hasTool("count-words")).toBe(false);
  });

  it("gives OpenAI Chat Completions tool definitions", async () => {
    const specs = await session.toolSpecs("openai");
    expect(specs).toHaveLength(declaredTools.length);
    for (const [index, spec] of specs.entries()) {
      const declared = declaredTools[index]!;
      expect(Object.keys(spec)).toEqual(["type", "function"]);
      expect(spec.type).toBe("function");
      expect(spec.function.name).toMatch(OPENAI_NAME);
      expect(spec.function.name).toBe(declared.name);
      expect(spec.function.description).toBe(declared.description);
      expect(spec.function.parameters.type).toBe("object");
      expect(JSON.stringify(spec.function.parameters)).not.toContain("_resources");
      if (declared.name !== "show_resources") expect(spec.function.parameters).toStrictEqual(declared.input_schema);
    }
  });

  it("gives Anthropic Messages tool definitions", async () => {
    const specs = await session.toolSpecs("anthropic");
    expect(specs).toHaveLength(declaredTools.length);
    for (const [index, spec] of specs.entries()) {
      const declared = declaredTools[index]!;
      expect(Object.keys(spec)).toEqual(["name", "description", "input_schema"]);
      expect(spec.name).toMatch(ANTHROPIC_NAME);
      expect(spec.input_schema.type).toBe("object");
      if (declared.name !== "show_resources") expect(spec.input_schema).toStrictEqual(declared.input_schema);
    }
    expect(specs.find((spec) => spec.name === "show_resources")!.input_schema).toStrictEqual({
      type: "object",
      properties: { label: { type: "string" } },
      required: ["label"],
      additionalProperties: false,
    });
  });

  it("refuses an unknown tool format", async () => {
    await rejectsWith(session.toolSpecs("gemini" as "openai"), "USAGE", "unknown tool format 'gemini'");
  });

  it("calls sync, async, .mjs and .js tools", async () => {
    expect(await session.call("count_words", { text: "a b c" })).toEqual({ count: 3 });
    expect(await session.call("echo_later", { text: "x", delayMs: 5 })).toEqual({ text: "x" });
    expect(await session.call("upper", { text: "up" })).toBe("UP");
    expect(await session.call("shout_mjs", { text: "hi" })).toBe("hi!");
    expect(await session.call("twice_js", { text: "yo" })).toEqual({ text: "yo yo" });
  });

  it("throws tool failures as HermitErrors with their codes", async () => {
    await rejectsWith(session.call("fail", { reason: "x" }), "TOOL_FAILED", "tool 'fail' failed: boom: x");
    await rejectsWith(session.call("reject", { reason: "y" }), "TOOL_FAILED", "rejected: y");
    await rejectsWith(session.call("count_words", { text: 1 }), "TOOL_ARGUMENTS_INVALID", "arguments/text: must be string");
    await rejectsWith(session.call("bad_output"), "TOOL_RESULT_INVALID", "result/count: must be integer");
    await rejectsWith(session.call("nope"), "TOOL_UNKNOWN", "unknown tool 'nope'");
    await rejectsWith(session.call("sleep", { ms: 600_000 }), "TOOL_TIMEOUT", "tool 'sleep' timed out after 1000 ms");
    await rejectsWith(session.call("spin"), "TOOL_TIMEOUT", "tool 'spin' timed out after 1000 ms");
    expect(await session.call("count_words", { text: "after the spin" })).toEqual({ count: 3 });
  });

  it("replaces a thread blocked after an await, and runs the calls queued behind it", async () => {
    const blocked = session.call("spin_later");
    await new Promise((resolve) => setTimeout(resolve, 100));
    const queued = session.call("count_words", { text: "queued behind" });
    await rejectsWith(blocked, "TOOL_TIMEOUT", "tool 'spin_later' timed out after 1000 ms");
    expect(await queued).toEqual({ count: 2 });
  });

  it("survives a tool's stray timer error and unhandled rejection on the same thread", async () => {
    const before = (await session.call("count_calls")) as { calls: number };
    expect(await session.call("stray_error")).toEqual({ answered: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await session.call("count_words", { text: "still fine" })).toEqual({ count: 2 });
    // Module state survived: the thread was not restarted.
    expect(await session.call("count_calls")).toEqual({ calls: before.calls + 1 });
  });

  it("binds resources to tools that declare _resources, and only to them", async () => {
    expect(await session.call("show_resources", { label: "L" })).toEqual({
      label: "L",
      resources: {
        team: "blue",
        deployment: { host: "claude-code", files: [] },
        learningMaterial: { scores: [0.5] },
        evidence,
      },
    });
    expect(await session.call("destructured_resources", { label: "D" })).toEqual({ label: "D", evidence });
    expect(await session.call("no_resources")).toEqual({ argumentCount: 1 });
    await rejectsWith(
      session.call("show_resources", { label: "L", _resources: { evidence: "/" } }),
      "TOOL_ARGUMENTS_INVALID",
      "arguments/_resources: is reserved",
    );
  });

  it("creates the evidence directory, which tools may write to", async () => {
    const file = join(evidence, "note.txt");
    expect(await session.call("write_file", { path: file, text: "kept" })).toEqual({ written: file });
    expect(await readFile(file, "utf8")).toBe("kept");
  });

  it("answers an OpenAI tool call with a tool message", async () => {
    expect(
      await session.respond({
        id: "call_1",
        type: "function",
        function: { name: "count_words", arguments: '{"text":"one two"}' },
      }),
    ).toEqual({ role: "tool", tool_call_id: "call_1", content: '{"count":2}' });
    expect(
      await session.respond({ id: "call_2", type: "function", function: { name: "fail", arguments: '{"reason":"r"}' } }),
    ).toEqual({ role: "tool", tool_call_id: "call_2", content: "Error: tool 'fail' failed: boom: r" });
    expect(
      await session.respond({ id: "call_3", type: "function", function: { name: "count_words", arguments: '{"text":' } }),
    ).toMatchObject({ role: "tool", tool_call_id: "call_3", content: expect.stringMatching(/^Error: invalid arguments for tool 'count_words': arguments are not valid JSON/) });
    expect(await session.respond({ id: "call_4", type: "function", function: { name: "upper", arguments: '{"text":"a"}' } })).toEqual({
      role: "tool",
      tool_call_id: "call_4",
      content: "A",
    });
  });

  it("answers an Anthropic tool_use with a tool_result block", async () => {
    expect(await session.respond({ type: "tool_use", id: "toolu_1", name: "count_words", input: { text: "x y z" } })).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_1",
      content: '{"count":3}',
    });
    expect(await session.respond({ type: "tool_use", id: "toolu_2", name: "nope", input: {} })).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_2",
      content: "unknown tool 'nope'; the adapter's tools are " + declaredTools.map((tool) => tool.name).join(", "),
      is_error: true,
    });
  });

  it("answers an OpenAI Responses function_call with a function_call_output", async () => {
    expect(
      await session.respond({ type: "function_call", call_id: "fc_1", name: "count_words", arguments: '{"text":"a"}' }),
    ).toEqual({ type: "function_call_output", call_id: "fc_1", output: '{"count":1}' });
  });

  it("refuses a value that is no tool call", async () => {
    await rejectsWith(session.respond({ role: "assistant" } as never), "USAGE", "respond() takes an OpenAI tool call");
  });

  it("writes one audit line per call, refused ones included, after a first line saying what ran them", async () => {
    const [first, ...lines] = (await readFile(auditLog, "utf8")).trimEnd().split("\n");
    expect(JSON.parse(first!)).toMatchObject({ session: { via: "session", sandbox: false, runtimes: [`node ${process.version}`] } });
    const records = lines.map((line) => JSON.parse(line) as { tool: string; arguments: unknown; result?: unknown; error?: { code: string } });
    expect(records.find((record) => record.tool === "twice_js")).toMatchObject({
      arguments: { text: "yo" },
      result: { text: "yo yo" },
    });
    expect(records.filter((record) => record.error?.code === "TOOL_TIMEOUT").map((record) => record.tool)).toEqual([
      "sleep",
      "spin",
      "spin_later",
    ]);
    expect(records.find((record) => record.arguments === '{"text":')).toMatchObject({
      tool: "count_words",
      error: { code: "TOOL_ARGUMENTS_INVALID" },
    });
  });
});

describe("Session lifecycle and errors", () => {
  it("refuses calls after close, and close is idempotent", async () => {
    const session = new Session(exampleAdapter);
    expect(await session.call("count_words", { text: "a" })).toEqual({ count: 1 });
    await session.close();
    await session.close();
    await rejectsWith(session.call("count_words", { text: "a" }), "USAGE", "is closed");
  });

  it("reports a missing tool function with the tool's name and entrypoint", async () => {
    const tree = fixtureTree();
    const adapter = await testdir({
      ...tree,
      "tools.ts": (tree["tools.ts"] as string).replace("export function fail(", "function fail("),
    });
    const session = new Session(adapter);
    const error = await rejectsWith(
      session.context(),
      "ADAPTER_INVALID",
      "tool 'fail' (entrypoint tools.ts:fail): tools.ts has no exported function 'fail'",
    );
    expect(error.data.problems).toHaveLength(1);
    await session.close();
  });

  it("reports a tool module that fails to import", async () => {
    const adapter = await testdir({ ...fixtureTree(), "lib/shout.mjs": "export function shout( {\n" });
    const session = new Session(adapter);
    await rejectsWith(session.hasTool("shout_mjs"), "ADAPTER_INVALID", "tool 'shout_mjs' (entrypoint lib/shout.mjs:shout): could not import lib/shout.mjs");
    await session.close();
  });

  it("serves an adapter without tools", async () => {
    const session = new Session(
      await testdir({
        "adapter.yaml": "contract: 1.0.0\nname: bare\nversion: 0.0.1\ndescription: No tools.\n",
        "ADAPTER.md": "Just context.\n",
      }),
    );
    expect(await session.context()).toBe("Just context.\n");
    expect(await session.toolSpecs("openai")).toEqual([]);
    await rejectsWith(session.call("anything"), "TOOL_UNKNOWN", "unknown tool 'anything'; the adapter has no tools");
    await session.close();
  });

  it("refuses resources that collide with the named ones", async () => {
    const session = new Session(exampleAdapter, { evidence: "/tmp/e", resources: { evidence: "/elsewhere" } });
    await rejectsWith(session.context(), "USAGE", "'evidence' is given both as a named resource and in the mapping");
  });

  it("refuses a bad time limit at construction", () => {
    expect(() => new Session(exampleAdapter, { timeoutMs: 0 })).toThrow(HermitError);
  });
});
