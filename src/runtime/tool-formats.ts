/**
 * Model-API tool formats (pure): tool definitions for OpenAI Chat Completions and Anthropic
 * Messages, reading the tool calls those APIs return, and building the tool-result message
 * each expects. OpenAI Responses `function_call` items are read and answered as well.
 */
import { HermitError } from "../errors.js";
import type { PublishedTool, ToolOutcome } from "./types.js";

export type ToolFormat = "openai" | "anthropic";
export const TOOL_FORMATS: readonly ToolFormat[] = ["openai", "anthropic"];

/** OpenAI Chat Completions `tools[]` entry. */
export interface OpenAIToolSpec {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** Anthropic Messages `tools[]` entry. */
export interface AnthropicToolSpec {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** A Chat Completions `message.tool_calls[]` entry. */
export interface OpenAIToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** The Chat Completions answer to one tool call. Errors read `Error: <message>`. */
export interface OpenAIToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

/** An Anthropic `tool_use` content block. */
export interface AnthropicToolUse {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

/**
 * The Anthropic answer to one `tool_use`: a `tool_result` block. Put the blocks answering one
 * assistant turn together in one user message: `{ role: "user", content: [block, …] }`.
 */
export interface AnthropicToolResult {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error?: true;
}

/** An OpenAI Responses `function_call` output item. */
export interface ResponsesFunctionCall {
  type: "function_call";
  call_id: string;
  name: string;
  arguments: string;
  id?: string;
}

/** The Responses input item answering a `function_call`. */
export interface ResponsesFunctionCallOutput {
  type: "function_call_output";
  call_id: string;
  output: string;
}

export type ToolCall = OpenAIToolCall | AnthropicToolUse | ResponsesFunctionCall;
export type ToolMessage = OpenAIToolMessage | AnthropicToolResult | ResponsesFunctionCallOutput;

/** The tool message type that answers a given call type. */
export type ToolMessageFor<T extends ToolCall> = T extends AnthropicToolUse
  ? AnthropicToolResult
  : T extends ResponsesFunctionCall
    ? ResponsesFunctionCallOutput
    : OpenAIToolMessage;

export function toolSpecs(tools: PublishedTool[], format: "openai"): OpenAIToolSpec[];
export function toolSpecs(tools: PublishedTool[], format: "anthropic"): AnthropicToolSpec[];
export function toolSpecs(tools: PublishedTool[], format: ToolFormat): OpenAIToolSpec[] | AnthropicToolSpec[];
export function toolSpecs(tools: PublishedTool[], format: ToolFormat): OpenAIToolSpec[] | AnthropicToolSpec[] {
  if (format === "openai") {
    return tools.map((tool) => ({
      type: "function" as const,
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    }));
  }
  if (format === "anthropic") {
    return tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }));
  }
  throw new HermitError("USAGE", `unknown tool format '${String(format)}'; use one of: ${TOOL_FORMATS.join(", ")}`, {
    format,
  });
}

/** A tool call read from any supported API shape. `argumentsError` is set when its JSON could not be parsed. */
export interface ParsedToolCall {
  kind: "openai" | "anthropic" | "responses";
  id: string;
  name: string;
  arguments: unknown;
  argumentsError?: string;
}

/** Read a tool call; a value of no supported shape throws USAGE. */
export function parseToolCall(call: unknown): ParsedToolCall {
  const value = call as Record<string, unknown> | null;
  if (value && typeof value === "object") {
    if (value.type === "tool_use" && typeof value.id === "string" && typeof value.name === "string") {
      return { kind: "anthropic", id: value.id, name: value.name, arguments: value.input ?? {} };
    }
    const fn = value.function as Record<string, unknown> | undefined;
    if (typeof value.id === "string" && fn && typeof fn.name === "string") {
      return { kind: "openai", id: value.id, name: fn.name, ...jsonArguments(fn.arguments) };
    }
    if (value.type === "function_call" && typeof value.call_id === "string" && typeof value.name === "string") {
      return { kind: "responses", id: value.call_id, name: value.name, ...jsonArguments(value.arguments) };
    }
    // Recognisably one API's shape, but incomplete: say what is missing (no answer can be built without it).
    const missing = (what: string, fields: Record<string, unknown>) => {
      const absent = Object.entries(fields).filter(([, field]) => typeof field !== "string").map(([key]) => key);
      return new HermitError("USAGE", `respond(): ${what} needs a string ${absent.join(" and a string ")}`, { missing: absent });
    };
    if (value.type === "tool_use") throw missing("an Anthropic tool_use block", { id: value.id, name: value.name });
    if (value.type === "function_call") throw missing("an OpenAI Responses function_call", { call_id: value.call_id, name: value.name });
    if (value.type === "function" || fn) throw missing("an OpenAI tool call", { id: value.id, "function.name": fn?.name });
  }
  throw new HermitError(
    "USAGE",
    "respond() takes an OpenAI tool call ({ id, type: 'function', function: { name, arguments } }), " +
      "an Anthropic tool_use block ({ type: 'tool_use', id, name, input }) " +
      "or an OpenAI Responses function_call ({ type: 'function_call', call_id, name, arguments })",
  );
}

function jsonArguments(text: unknown): { arguments: unknown; argumentsError?: string } {
  if (typeof text !== "string") return { arguments: text ?? {} };
  if (text.trim() === "") return { arguments: {} };
  try {
    return { arguments: JSON.parse(text) };
  } catch (error) {
    return { arguments: text, argumentsError: `arguments are not valid JSON: ${(error as Error).message}` };
  }
}

/** The message answering `call` with `outcome`; errors come back as text. */
export function toolMessage(call: ParsedToolCall, outcome: ToolOutcome): ToolMessage {
  const text = outcome.ok ? outcome.text : outcome.message;
  if (call.kind === "anthropic") {
    const block: AnthropicToolResult = { type: "tool_result", tool_use_id: call.id, content: text };
    if (!outcome.ok) block.is_error = true;
    return block;
  }
  const content = outcome.ok ? text : `Error: ${text}`;
  if (call.kind === "responses") return { type: "function_call_output", call_id: call.id, output: content };
  return { role: "tool", tool_call_id: call.id, content };
}
