import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { toCallToolResult, toMcpTool } from "../../src/runtime/mcp-server.js";
import { publishTool } from "../../src/runtime/published.js";
import { LineTransport } from "../../src/runtime/stdio-transport.js";
import { parseToolCall, toolMessage, toolSpecs } from "../../src/runtime/tool-formats.js";

const declaration = {
  name: "report",
  description: "Report.",
  entrypoint: "tools.ts:report",
  input_schema: {
    type: "object",
    properties: { label: { type: "string" }, _resources: { type: "object" } },
    required: ["label", "_resources"],
  },
  output_schema: { type: "string" },
};

describe("publishTool", () => {
  it("removes _resources from a copy and leaves the manifest untouched", () => {
    const before = structuredClone(declaration);
    const published = publishTool(declaration);
    expect(published.inputSchema).toEqual({ type: "object", properties: { label: { type: "string" } }, required: ["label"] });
    expect(declaration).toEqual(before);
  });

  it("keeps the manifest's own schema object when there is nothing to remove", () => {
    const schema = { type: "object", properties: { text: { type: "string" } } };
    expect(publishTool({ ...declaration, input_schema: schema }).inputSchema).toBe(schema);
  });

  it("does not list an output schema MCP cannot carry", () => {
    expect(toMcpTool(publishTool(declaration)).outputSchema).toBeUndefined();
    const objectOutput = { type: "object", properties: { n: { type: "integer" } } };
    expect(toMcpTool(publishTool({ ...declaration, output_schema: objectOutput })).outputSchema).toBe(objectOutput);
  });
});

describe("MCP results", () => {
  it("carries objects as structured content, other values in _meta, errors with their code", () => {
    expect(toCallToolResult({ ok: true, value: { n: 1 }, text: '{"n":1}' })).toEqual({
      content: [{ type: "text", text: '{"n":1}' }],
      structuredContent: { n: 1 },
    });
    expect(toCallToolResult({ ok: true, value: [1, 2], text: "[1,2]" })).toEqual({
      content: [{ type: "text", text: "[1,2]" }],
      _meta: { "hermit/value": [1, 2] },
    });
    expect(toCallToolResult({ ok: false, code: "TOOL_TIMEOUT", message: "tool 'x' timed out after 5 ms" })).toEqual({
      content: [{ type: "text", text: "tool 'x' timed out after 5 ms" }],
      isError: true,
      _meta: { "hermit/error": "TOOL_TIMEOUT" },
    });
  });
});

describe("tool formats", () => {
  const tools = [publishTool(declaration)];

  it("builds OpenAI and Anthropic definitions", () => {
    expect(toolSpecs(tools, "openai")).toEqual([
      { type: "function", function: { name: "report", description: "Report.", parameters: tools[0]!.inputSchema } },
    ]);
    expect(toolSpecs(tools, "anthropic")).toEqual([
      { name: "report", description: "Report.", input_schema: tools[0]!.inputSchema },
    ]);
  });

  it("reads each API's tool call", () => {
    expect(parseToolCall({ id: "c", type: "function", function: { name: "n", arguments: '{"a":1}' } })).toEqual({
      kind: "openai",
      id: "c",
      name: "n",
      arguments: { a: 1 },
    });
    expect(parseToolCall({ id: "c", type: "function", function: { name: "n", arguments: "" } }).arguments).toEqual({});
    expect(parseToolCall({ id: "c", type: "function", function: { name: "n", arguments: "{" } })).toMatchObject({
      arguments: "{",
      argumentsError: expect.stringContaining("arguments are not valid JSON"),
    });
    expect(parseToolCall({ type: "tool_use", id: "t", name: "n", input: { a: 1 } })).toEqual({
      kind: "anthropic",
      id: "t",
      name: "n",
      arguments: { a: 1 },
    });
    expect(parseToolCall({ type: "function_call", call_id: "f", name: "n", arguments: "{}" })).toEqual({
      kind: "responses",
      id: "f",
      name: "n",
      arguments: {},
    });
    expect(() => parseToolCall("count_words")).toThrow("respond() takes");
  });

  it("answers with each API's tool message, errors as text", () => {
    const failed = { ok: false as const, code: "TOOL_FAILED" as const, message: "tool 'n' failed: no" };
    const anthropic = parseToolCall({ type: "tool_use", id: "t", name: "n", input: {} });
    expect(toolMessage(anthropic, failed)).toEqual({ type: "tool_result", tool_use_id: "t", content: "tool 'n' failed: no", is_error: true });
    const responses = parseToolCall({ type: "function_call", call_id: "f", name: "n", arguments: "{}" });
    expect(toolMessage(responses, failed)).toEqual({ type: "function_call_output", call_id: "f", output: "Error: tool 'n' failed: no" });
  });
});

describe("LineTransport", () => {
  it("refuses an oversized line with a parse error and reads the next line", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const received: unknown[] = [];
    const transport = new LineTransport(input, output, 64);
    transport.onmessage = (message) => received.push(message);
    await transport.start();
    input.write(`{"jsonrpc":"2.0","method":"x","params":{"pad":"${"y".repeat(50)}`);
    input.write(`${"z".repeat(50)}"}}\n`);
    input.write('{"jsonrpc":"2.0","method":"ok"}\r\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(received).toEqual([{ jsonrpc: "2.0", method: "ok" }]);
    const lines = String(output.read()).trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(lines).toEqual([{ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: message longer than 64 bytes" } }]);
  });

  it("closes when its input ends", async () => {
    const input = new PassThrough();
    const transport = new LineTransport(input, new PassThrough());
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    await transport.start();
    input.end();
    await closed;
  });
});
