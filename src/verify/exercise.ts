/**
 * `hermit verify --exercise-tools`: beyond discovery, the stub model plays an agent that calls
 * each of the adapter's tools once, under the host's name for it (looking deferred tools up
 * first, as Claude Code and Codex require). Then, for every tool: the call reached hermit's
 * server (its audit log has it) and the server's answer came back to the model (a later
 * request carries it). Pure but for the agent's bookkeeping of the conversation.
 */
import { sampleFor } from "./stub/gemini.js";
import type { HostRecipe } from "./recipes/types.js";
import { conversationOf, type Conversation, type OfferedTool, type RecordedRequest, type StubAgent, type StubTurn } from "./stub-model.js";

/** An adapter tool to exercise: its MCP server (the adapter's name) and its name. */
export interface ToolUnderTest {
  server: string;
  name: string;
  /** True when the host's declaration guarantees tools (the result counts toward `passed`). */
  counted: boolean;
}

/** What hermit's server recorded for one call (an audit line). */
export interface ServedCall {
  tool: string;
  ok: boolean;
  result?: unknown;
  error?: string;
}

/** One tool put through the host. */
export interface ToolExercise {
  tool: string;
  /** The name under which the host offered it to the model; absent when it never did. */
  offeredAs?: string;
  /** The request whose answer called it. */
  calledIn?: number;
  /** True when hermit's server ran the call (the audit log has it). */
  reachedServer: boolean;
  /** What the server answered: the result, or the tool's error. */
  served?: ServedCall;
  /** The first later request that carried the server's answer back to the model. */
  returnedIn?: number;
  counted: boolean;
  passed: boolean;
  /** Why it did not pass. */
  reason?: string;
}

/** The prompt of an exercising run. */
export function exercisePrompt(tools: readonly ToolUnderTest[]): string {
  return `Call each of these tools once: ${tools.map((tool) => tool.name).join(", ")}. Then reply DONE.`;
}

/** The name a tool is called by: `<namespace>__<name>` where the host groups it (Codex), else its name. */
function fullName(tool: { name: string; namespace?: string }): string {
  return tool.namespace ? `${tool.namespace}__${tool.name}` : tool.name;
}

function offered(conversation: Conversation, tool: ToolUnderTest, recipe: HostRecipe): OfferedTool | undefined {
  const names = recipe.toolNames(tool.server, tool.name);
  return conversation.tools.find((candidate) => names.includes(fullName(candidate)));
}

interface ObjectSchema {
  properties?: Record<string, unknown>;
  required?: unknown;
}

/**
 * The least a call can send: each required property, sampled from its schema. Optional ones are
 * left out: hosts add their own (Gemini offers a `wait_for_previous` flag it does not remove).
 */
function arguments_(tool: OfferedTool): Record<string, unknown> {
  const schema = (tool.schema ?? {}) as ObjectSchema;
  const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === "string") : [];
  return Object.fromEntries(required.map((name) => [name, sampleFor(schema.properties?.[name] as Parameters<typeof sampleFor>[0], "hermit verify")]));
}

/** The stub's agent: one adapter tool per turn, each once; deferred tools looked up first; then DONE. */
export function exerciseAgent(tools: readonly ToolUnderTest[], recipe: HostRecipe): StubAgent {
  return (conversation): StubTurn => {
    if (conversation.tools.length === 0) return { text: "hermit verify" };
    const called = new Set(conversation.items.flatMap((item) => (item.type === "tool-call" ? [fullName(item)] : [])));
    const pending = tools.filter((tool) => !recipe.toolNames(tool.server, tool.name).some((name) => called.has(name)));
    for (const tool of pending) {
      const found = offered(conversation, tool, recipe);
      if (found) return { toolCalls: [{ name: found.name, ...(found.namespace ? { namespace: found.namespace } : {}), kind: found.kind, arguments: arguments_(found) }] };
    }
    const unoffered = pending.flatMap((tool) => recipe.toolNames(tool.server, tool.name).slice(0, 1));
    const lookup = conversation.tools.find((tool) => tool.name === "ToolSearch");
    if (unoffered.length > 0 && lookup && !called.has("ToolSearch")) {
      return { toolCalls: [{ name: "ToolSearch", arguments: { query: `select:${unoffered.join(",")}`, max_results: unoffered.length } }] };
    }
    const search = conversation.tools.find((tool) => tool.kind === "tool-search");
    if (unoffered.length > 0 && search && !called.has(search.name)) {
      return { toolCalls: [{ name: search.name, kind: "tool-search", arguments: { query: pending.map((tool) => tool.name).join(" "), limit: pending.length } }] };
    }
    return { text: "DONE" };
  };
}

/**
 * Text as hosts re-encode it (JSON inside a JSON string, pretty-printed, wrapped): escapes of
 * any depth undone, whitespace (escaped or not) removed.
 */
function squeeze(text: string): string {
  return text.replace(/\\+[nrt]/g, " ").replace(/\\+(["\\/])/g, "$1").replace(/\s+/g, "");
}

/** What a tool result must contain to be the server's answer. */
function answerText(call: ServedCall): string {
  return squeeze(call.ok ? JSON.stringify(call.result ?? null) : (call.error ?? ""));
}

/** The first request after `from` whose conversation carries, for a call of `names`, a result containing `expected`. */
function returnedIn(requests: readonly RecordedRequest[], from: number, names: readonly string[], expected: string): number | undefined {
  for (const request of requests) {
    if (request.index <= from) continue;
    const conversation = conversationOf(request);
    if (!conversation) continue;
    const ids = new Set(conversation.items.flatMap((item) => (item.type === "tool-call" && names.includes(fullName(item)) ? [item.id] : [])));
    const carried = conversation.items.some((item) => item.type === "tool-result" && ids.has(item.id) && squeeze(item.text).includes(expected));
    if (carried) return request.index;
  }
  return undefined;
}

/** Judge each tool from the stub's requests and the server's audit log. */
export function judgeExercise(tools: readonly ToolUnderTest[], recipe: HostRecipe, requests: readonly RecordedRequest[], served: readonly ServedCall[]): ToolExercise[] {
  return tools.map((tool) => {
    const names = recipe.toolNames(tool.server, tool.name);
    let offeredAs: string | undefined;
    let calledIn: number | undefined;
    for (const request of requests) {
      const conversation = conversationOf(request);
      const found = conversation ? offered(conversation, tool, recipe) : undefined;
      if (found && offeredAs === undefined) offeredAs = fullName(found);
      if (calledIn === undefined && request.turn?.toolCalls?.some((call) => names.includes(fullName(call)))) calledIn = request.index;
    }
    const call = served.find((entry) => entry.tool === tool.name);
    const back = call && calledIn !== undefined ? returnedIn(requests, calledIn, names, answerText(call)) : undefined;
    const base = {
      tool: tool.name,
      ...(offeredAs !== undefined ? { offeredAs } : {}),
      ...(calledIn !== undefined ? { calledIn } : {}),
      reachedServer: call !== undefined,
      ...(call ? { served: call } : {}),
      ...(back !== undefined ? { returnedIn: back } : {}),
      counted: tool.counted,
    };
    const reason =
      offeredAs === undefined
        ? `the host never offered it to the model (looked for ${names.join(" or ")})`
        : calledIn === undefined
          ? "the model was offered it but the exercise never called it"
          : !call
            ? `the model called it (request ${calledIn}) but hermit's server has no record of the call`
            : back === undefined
              ? `hermit's server ran it, but no later request carried its ${call.ok ? "result" : "error"} back to the model`
              : undefined;
    return { ...base, passed: reason === undefined, ...(reason ? { reason } : {}) };
  });
}
