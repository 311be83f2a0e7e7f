/**
 * The stub model's shapes: a request as the stub recorded it, the conversation a request
 * carries (one normalized view over the four wire protocols), and the turn a scripted agent
 * answers with (text, tool calls, the usage to report).
 */

/** The wire protocols the stub speaks. */
export type StubProtocol = "anthropic-messages" | "openai-responses" | "openai-chat" | "gemini" | "unknown";

/** One HTTP request the stub received, in arrival order. */
export interface RecordedRequest {
  /** 1-based position in arrival order. */
  index: number;
  method: string;
  /** Path and query string, as sent. */
  url: string;
  protocol: StubProtocol;
  /** Request headers, with credentials replaced by `<redacted>`. */
  headers: Record<string, string>;
  /** The raw body text. */
  bodyText: string;
  /** The parsed JSON body, or undefined when it is not JSON. */
  body: unknown;
  /** The HTTP status the stub answered with. */
  status: number;
  /** The model turn the stub answered with (a model request only), usage included. */
  turn?: StubTurn;
}

/** A tool the host offered the model in a request. */
export interface OfferedTool {
  /** The tool's name as the model calls it (inside its namespace, where there is one). */
  name: string;
  /** The namespace the host grouped it under (Codex groups MCP tools: `mcp__<server>`). */
  namespace?: string;
  description: string;
  /** The JSON schema of its arguments; absent for free-form tools. */
  schema?: unknown;
  /**
   * `custom`: a free-form tool that takes one text input (Codex's `apply_patch` on some
   * models); `tool-search`: the Responses API's client-executed tool search (Codex's
   * `tool_search`, which loads deferred MCP tools).
   */
  kind: "function" | "custom" | "tool-search";
}

/** One item of a conversation, in order. */
export type ConversationItem =
  | { type: "text"; role: "system" | "user" | "assistant"; text: string }
  | { type: "tool-call"; id: string; name: string; namespace?: string; arguments: unknown }
  | { type: "tool-result"; id: string; name?: string; text: string };

/** What a model request carries, the same for every protocol. */
export interface Conversation {
  protocol: Exclude<StubProtocol, "unknown">;
  model: string;
  /** The system prompt (system, instructions, developer or systemInstruction text), joined. */
  system: string;
  items: ConversationItem[];
  tools: OfferedTool[];
}

/** Token usage the stub reports for one answer, in each protocol's own fields. */
export interface StubUsage {
  input: number;
  output: number;
  /** Input tokens served from cache (part of `input`). */
  cached?: number;
  /** Reasoning tokens (part of `output`). */
  reasoning?: number;
}

/** A tool call the stub makes. `arguments` for function tools, `input` for a free-form (custom) tool. */
export interface StubToolCall {
  name: string;
  namespace?: string;
  /** The kind of the offered tool (default `function`; `input` implies `custom`). */
  kind?: OfferedTool["kind"];
  arguments?: Record<string, unknown>;
  input?: string;
}

/** One answer of the model: text, tool calls, or both, and the usage it reports; or a provider error. */
export interface StubTurn {
  text?: string;
  toolCalls?: StubToolCall[];
  usage?: StubUsage;
  /** Answer with this HTTP error instead (a provider refusing the call: 401, 429, 500…). */
  error?: { status: number; message: string };
}

/**
 * A scripted agent: decides each answer from what the host sent. Undefined answers with the
 * stub's plain text reply. It may answer later (a promise); one that never settles plays a
 * model that never answers.
 */
export type StubAgent = (conversation: Conversation, request: RecordedRequest) => StubTurn | undefined | Promise<StubTurn | undefined>;

/** How the stub answers one HTTP request. */
export interface Answer {
  status: number;
  json?: unknown;
  /** Server-sent event chunks, written in order. */
  sse?: string[];
}

/** What a protocol's encoder needs beyond the turn. */
export interface AnswerContext {
  model: string;
  /** The request's index: ids derived from it are unique within a run. */
  index: number;
  stream: boolean;
}

/** The usage of a turn that did not say. */
export const DEFAULT_USAGE: StubUsage = { input: 1, output: 1 };

/** One server-sent event. */
export function sse(event: string | undefined, data: unknown): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`;
}

type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The text of a content value that may be a string, a list of parts with `text`, or other JSON. */
export function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(textOf).filter((text) => text.length > 0).join("\n");
  if (isObject(value)) {
    if (typeof value.text === "string") return value.text;
    if (typeof value.output === "string") return value.output;
    if ("content" in value) return textOf(value.content);
    return JSON.stringify(value);
  }
  return value === undefined || value === null ? "" : String(value);
}

/** Parsed JSON arguments, or the raw text when they are not JSON. */
export function parseArguments(value: unknown): unknown {
  if (typeof value !== "string") return value ?? {};
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
