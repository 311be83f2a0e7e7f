/** OpenAI Chat Completions for the stub model: reading a request, answering a turn (JSON or SSE). */
import {
  DEFAULT_USAGE,
  isObject,
  parseArguments,
  sse,
  textOf,
  type Answer,
  type AnswerContext,
  type Conversation,
  type ConversationItem,
  type OfferedTool,
  type StubTurn,
} from "./types.js";

/** The conversation of a `POST /v1/chat/completions` body. */
export function readChat(body: Record<string, unknown>): Conversation {
  const system: string[] = [];
  const items: ConversationItem[] = [];
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    if (!isObject(message)) continue;
    const text = textOf(message.content);
    if (message.role === "system" || message.role === "developer") system.push(text);
    else if (message.role === "tool") items.push({ type: "tool-result", id: String(message.tool_call_id), text });
    else {
      const role = message.role === "assistant" ? "assistant" : "user";
      if (text.length > 0) items.push({ type: "text", role, text });
      for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
        if (!isObject(call) || !isObject(call.function)) continue;
        items.push({ type: "tool-call", id: String(call.id), name: String(call.function.name), arguments: parseArguments(call.function.arguments) });
      }
    }
  }
  const tools: OfferedTool[] = [];
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    if (!isObject(tool) || !isObject(tool.function) || typeof tool.function.name !== "string") continue;
    tools.push({ name: tool.function.name, description: textOf(tool.function.description), schema: tool.function.parameters, kind: "function" });
  }
  return { protocol: "openai-chat", model: typeof body.model === "string" ? body.model : "stub-model", system: system.join("\n"), items, tools };
}

function toolCalls(turn: StubTurn, index: number): Array<Record<string, unknown>> {
  return (turn.toolCalls ?? []).map((call, position) => ({
    id: `call_hermit_${index}_${position}`,
    type: "function",
    function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
  }));
}

function usageFields(turn: StubTurn): Record<string, unknown> {
  const usage = turn.usage ?? DEFAULT_USAGE;
  return {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
  };
}

/** The answer to a Chat Completions request: a completion, or its chunk stream. */
export function answerChat(turn: StubTurn, context: AnswerContext, body: Record<string, unknown>): Answer {
  const calls = toolCalls(turn, context.index);
  const finish = calls.length > 0 ? "tool_calls" : "stop";
  const base = { id: `chatcmpl-hermit-${context.index}`, created: Math.floor(Date.now() / 1000), model: context.model };
  if (!context.stream) {
    const message = { role: "assistant", content: turn.text ?? null, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
    return { status: 200, json: { ...base, object: "chat.completion", choices: [{ index: 0, message, finish_reason: finish }], usage: usageFields(turn) } };
  }
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    sse(undefined, { ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finishReason }] });
  const chunks = [chunk({ role: "assistant", content: "" })];
  if (turn.text !== undefined) chunks.push(chunk({ content: turn.text }));
  calls.forEach((call, position) => chunks.push(chunk({ tool_calls: [{ index: position, ...call }] })));
  chunks.push(chunk({}, finish));
  const wantsUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  if (wantsUsage) chunks.push(sse(undefined, { ...base, object: "chat.completion.chunk", choices: [], usage: usageFields(turn) }));
  chunks.push(sse(undefined, "[DONE]"));
  return { status: 200, sse: chunks };
}
