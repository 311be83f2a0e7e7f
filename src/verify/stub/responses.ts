/** OpenAI Responses for the stub model: reading a request, answering a turn (JSON or SSE). */
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

function readItem(item: unknown, system: string[], items: ConversationItem[], tools: OfferedTool[]): void {
  if (!isObject(item)) return;
  const type = item.type ?? (item.role !== undefined ? "message" : undefined);
  if (type === "message") {
    const text = textOf(item.content);
    if (item.role === "system" || item.role === "developer") system.push(text);
    else items.push({ type: "text", role: item.role === "assistant" ? "assistant" : "user", text });
  } else if (type === "function_call") {
    items.push({
      type: "tool-call",
      id: String(item.call_id),
      name: String(item.name),
      ...(typeof item.namespace === "string" ? { namespace: item.namespace } : {}),
      arguments: parseArguments(item.arguments),
    });
  } else if (type === "custom_tool_call") {
    items.push({ type: "tool-call", id: String(item.call_id), name: String(item.name), arguments: item.input });
  } else if (type === "tool_search_call") {
    items.push({ type: "tool-call", id: String(item.call_id), name: "tool_search", arguments: item.arguments ?? {} });
  } else if (type === "function_call_output" || type === "custom_tool_call_output") {
    items.push({ type: "tool-result", id: String(item.call_id), text: textOf(item.output) });
  } else if (type === "tool_search_output") {
    // The tools a search loaded are callable from now on.
    const loaded = readTools(item.tools);
    tools.push(...loaded);
    items.push({ type: "tool-result", id: String(item.call_id), text: JSON.stringify(item.tools ?? []) });
  }
}

function readTools(list: unknown, namespace?: string): OfferedTool[] {
  const tools: OfferedTool[] = [];
  for (const tool of Array.isArray(list) ? list : []) {
    if (isObject(tool) && tool.type === "tool_search") {
      tools.push({ name: "tool_search", description: textOf(tool.description), schema: tool.parameters, kind: "tool-search" });
      continue;
    }
    if (!isObject(tool) || typeof tool.name !== "string") continue;
    if (tool.type === "namespace") {
      tools.push(...readTools(tool.tools, tool.name));
      continue;
    }
    tools.push({
      name: tool.name,
      ...(namespace !== undefined ? { namespace } : {}),
      description: textOf(tool.description),
      ...(tool.type === "custom" ? {} : { schema: tool.parameters }),
      kind: tool.type === "custom" ? "custom" : "function",
    });
  }
  return tools;
}

/** The conversation of a `POST /v1/responses` body. */
export function readResponses(body: Record<string, unknown>): Conversation {
  const system = typeof body.instructions === "string" ? [body.instructions] : [];
  const items: ConversationItem[] = [];
  const tools = readTools(body.tools);
  if (typeof body.input === "string") items.push({ type: "text", role: "user", text: body.input });
  else for (const item of Array.isArray(body.input) ? body.input : []) readItem(item, system, items, tools);
  return {
    protocol: "openai-responses",
    model: typeof body.model === "string" ? body.model : "stub-model",
    system: system.join("\n"),
    items,
    tools,
  };
}

function outputItems(turn: StubTurn, index: number): Array<Record<string, unknown>> {
  const output: Array<Record<string, unknown>> = [];
  if (turn.text !== undefined) {
    output.push({
      type: "message",
      id: `msg_hermit_${index}`,
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: turn.text, annotations: [] }],
    });
  }
  (turn.toolCalls ?? []).forEach((call, position) => {
    const ids = { id: `fc_hermit_${index}_${position}`, call_id: `call_hermit_${index}_${position}` };
    if (call.kind === "tool-search") {
      output.push({ type: "tool_search_call", ...ids, status: "completed", execution: "client", arguments: call.arguments ?? {} });
    } else if (call.input !== undefined || call.kind === "custom") {
      output.push({ type: "custom_tool_call", ...ids, status: "completed", name: call.name, input: call.input ?? "" });
    } else {
      output.push({
        type: "function_call",
        ...ids,
        status: "completed",
        name: call.name,
        ...(call.namespace !== undefined ? { namespace: call.namespace } : {}),
        arguments: JSON.stringify(call.arguments ?? {}),
      });
    }
  });
  return output;
}

function responseObject(turn: StubTurn, context: AnswerContext, status: "in_progress" | "completed"): Record<string, unknown> {
  const usage = turn.usage ?? DEFAULT_USAGE;
  return {
    id: `resp_hermit_${context.index}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: context.model,
    output: status === "completed" ? outputItems(turn, context.index) : [],
    usage:
      status === "completed"
        ? {
            input_tokens: usage.input,
            input_tokens_details: { cached_tokens: usage.cached ?? 0 },
            output_tokens: usage.output,
            output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
            total_tokens: usage.input + usage.output,
          }
        : null,
  };
}

/** The answer to a Responses request: a response object, or its event stream. */
export function answerResponses(turn: StubTurn, context: AnswerContext): Answer {
  if (!context.stream) return { status: 200, json: responseObject(turn, context, "completed") };
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) => sse(type, { type, sequence_number: sequence++, ...data });
  const events = [
    event("response.created", { response: responseObject(turn, context, "in_progress") }),
    event("response.in_progress", { response: responseObject(turn, context, "in_progress") }),
  ];
  outputItems(turn, context.index).forEach((item, output_index) => {
    if (item.type === "message") {
      const part = (item.content as Array<Record<string, unknown>>)[0]!;
      const at = { item_id: item.id, output_index, content_index: 0 };
      events.push(
        event("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } }),
        event("response.content_part.added", { ...at, part: { ...part, text: "" } }),
        event("response.output_text.delta", { ...at, delta: part.text }),
        event("response.output_text.done", { ...at, text: part.text }),
        event("response.content_part.done", { ...at, part }),
      );
    } else if (item.type === "function_call") {
      events.push(
        event("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } }),
        event("response.function_call_arguments.delta", { item_id: item.id, output_index, delta: item.arguments }),
        event("response.function_call_arguments.done", { item_id: item.id, output_index, arguments: item.arguments }),
      );
    } else if (item.type === "custom_tool_call") {
      events.push(
        event("response.output_item.added", { output_index, item: { ...item, status: "in_progress", input: "" } }),
        event("response.custom_tool_call_input.delta", { item_id: item.id, output_index, delta: item.input }),
        event("response.custom_tool_call_input.done", { item_id: item.id, output_index, input: item.input }),
      );
    } else {
      events.push(event("response.output_item.added", { output_index, item: { ...item, status: "in_progress" } }));
    }
    events.push(event("response.output_item.done", { output_index, item }));
  });
  events.push(event("response.completed", { response: responseObject(turn, context, "completed") }));
  return { status: 200, sse: events };
}
