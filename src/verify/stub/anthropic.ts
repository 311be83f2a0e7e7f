/** Anthropic Messages for the stub model: reading a request, answering a turn (JSON or SSE). */
import {
  DEFAULT_USAGE,
  isObject,
  sse,
  textOf,
  type Answer,
  type AnswerContext,
  type Conversation,
  type ConversationItem,
  type OfferedTool,
  type StubTurn,
} from "./types.js";

/** The conversation of a `POST /v1/messages` body. */
export function readAnthropic(body: Record<string, unknown>): Conversation {
  const items: ConversationItem[] = [];
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    if (!isObject(message)) continue;
    const role = message.role === "assistant" ? "assistant" : "user";
    const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    for (const block of Array.isArray(blocks) ? blocks : []) {
      if (!isObject(block)) continue;
      if (block.type === "text" && typeof block.text === "string") items.push({ type: "text", role, text: block.text });
      else if (block.type === "tool_use") items.push({ type: "tool-call", id: String(block.id), name: String(block.name), arguments: block.input ?? {} });
      else if (block.type === "tool_result") items.push({ type: "tool-result", id: String(block.tool_use_id), text: textOf(block.content) });
    }
  }
  const tools: OfferedTool[] = (Array.isArray(body.tools) ? body.tools : [])
    .filter((tool): tool is Record<string, unknown> => isObject(tool) && typeof tool.name === "string")
    .map((tool) => ({ name: tool.name as string, description: textOf(tool.description), schema: tool.input_schema, kind: "function" }));
  return {
    protocol: "anthropic-messages",
    model: typeof body.model === "string" ? body.model : "stub-model",
    system: textOf(body.system),
    items,
    tools,
  };
}

function contentBlocks(turn: StubTurn, index: number): Array<Record<string, unknown>> {
  const blocks: Array<Record<string, unknown>> = [];
  if (turn.text !== undefined) blocks.push({ type: "text", text: turn.text });
  (turn.toolCalls ?? []).forEach((call, position) => {
    blocks.push({ type: "tool_use", id: `toolu_hermit_${index}_${position}`, name: call.name, input: call.arguments ?? {} });
  });
  return blocks;
}

function usageFields(turn: StubTurn): Record<string, number> {
  const usage = turn.usage ?? DEFAULT_USAGE;
  const cached = usage.cached ?? 0;
  // Anthropic counts cache reads apart from `input_tokens`.
  return { input_tokens: usage.input - cached, cache_read_input_tokens: cached, cache_creation_input_tokens: 0, output_tokens: usage.output };
}

/** The answer to a Messages request (`count_tokens` is answered by the caller). */
export function answerAnthropic(turn: StubTurn, context: AnswerContext): Answer {
  const blocks = contentBlocks(turn, context.index);
  const stopReason = (turn.toolCalls ?? []).length > 0 ? "tool_use" : "end_turn";
  const usage = usageFields(turn);
  const message = {
    id: `msg_hermit_${context.index}`,
    type: "message",
    role: "assistant",
    model: context.model,
    content: blocks,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  };
  if (!context.stream) return { status: 200, json: message };
  const events = [
    sse("message_start", {
      type: "message_start",
      message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 0 } },
    }),
  ];
  blocks.forEach((block, position) => {
    if (block.type === "text") {
      events.push(sse("content_block_start", { type: "content_block_start", index: position, content_block: { type: "text", text: "" } }));
      events.push(sse("content_block_delta", { type: "content_block_delta", index: position, delta: { type: "text_delta", text: block.text } }));
    } else {
      events.push(sse("content_block_start", { type: "content_block_start", index: position, content_block: { ...block, input: {} } }));
      events.push(
        sse("content_block_delta", {
          type: "content_block_delta",
          index: position,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
        }),
      );
    }
    events.push(sse("content_block_stop", { type: "content_block_stop", index: position }));
  });
  events.push(
    sse("message_delta", {
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }),
    sse("message_stop", { type: "message_stop" }),
  );
  return { status: 200, sse: events };
}
