/**
 * A scripted model server on loopback for tests of the learner: it speaks the wire protocols the
 * AI SDK providers use — OpenAI Responses, OpenAI Chat Completions, Anthropic Messages, Gemini
 * generateContent / streamGenerateContent — streaming and not, with usage objects shaped exactly
 * as each provider sends them, and the providers' own error bodies and retry headers.
 *
 * Each request gets the next scripted reply (or the script function's answer). Every request is
 * logged with its parsed body, so a test can read what the learner sent.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { protocolOf, type StubProtocol } from "../../src/verify/stub-model.js";

/** Token counts a reply reports, in hermit's terms; each protocol encodes them its own way. */
export interface StubUsage {
  input: number;
  output: number;
  cached?: number;
  reasoning?: number;
}

export interface ScriptedReply {
  text?: string;
  /** Default `{ input: 100, output: 20 }`. `null`: the reply carries no usage at all. */
  usage?: StubUsage | null;
  /** Leave out the cache/reasoning detail fields, as Ollama and some gateways do. */
  bareUsage?: boolean;
  /** `length`: the answer was cut at the output limit. */
  finish?: "stop" | "length";
  /** An HTTP error status instead of an answer (429, 500, …). */
  status?: number;
  /** With a 429: the `retry-after-ms` header OpenAI sends. */
  retryAfterMs?: number;
  /** Wait this long before answering. */
  delayMs?: number;
}

export interface StubRequest {
  index: number;
  protocol: StubProtocol;
  path: string;
  url: string;
  body: Record<string, unknown>;
  stream: boolean;
  /** Header names only: values (keys) are never kept. */
  headerNames: string[];
  reply?: ScriptedReply;
}

export type Script = ScriptedReply[] | ((request: StubRequest) => ScriptedReply);

export interface StubProvider {
  url: string;
  requests: StubRequest[];
  /** The usage of every successful reply, summed. */
  usageSum(): Required<StubUsage>;
  close(): Promise<void>;
}

const DEFAULT_USAGE: StubUsage = { input: 100, output: 20 };

export async function startStubProvider(script: Script): Promise<StubProvider> {
  const requests: StubRequest[] = [];
  const served: StubUsage[] = [];
  let position = 0;
  const next = (request: StubRequest): ScriptedReply => {
    if (typeof script === "function") return script(request);
    const reply = script[Math.min(position, script.length - 1)];
    position += 1;
    return reply ?? { text: "" };
  };
  const server = createServer((request, response) => {
    void handle(request, response, requests, next, served);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    usageSum: () =>
      served.reduce<Required<StubUsage>>(
        (sum, usage) => ({ input: sum.input + usage.input, output: sum.output + usage.output, cached: sum.cached + (usage.cached ?? 0), reasoning: sum.reasoning + (usage.reasoning ?? 0) }),
        { input: 0, output: 0, cached: 0, reasoning: 0 },
      ),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  requests: StubRequest[],
  next: (request: StubRequest) => ScriptedReply,
  served: StubUsage[],
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const url = request.url ?? "/";
  const path = url.split("?")[0] ?? "";
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
  } catch {
    // not JSON: left empty
  }
  const protocol = protocolOf(request.method ?? "GET", url);
  const stream = protocol === "gemini" ? path.endsWith(":streamGenerateContent") : body.stream === true;
  const record: StubRequest = { index: requests.length + 1, protocol, path, url, body, stream, headerNames: Object.keys(request.headers) };
  requests.push(record);
  const reply = next(record);
  record.reply = reply;
  if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
  if (protocol === "unknown") return send(response, 404, { error: { message: `no route for ${path}` } });
  if (reply.status && reply.status >= 400) return sendError(response, protocol, reply);
  const usage = reply.usage === null ? undefined : (reply.usage ?? DEFAULT_USAGE);
  if (usage) served.push(usage);
  const answer = { text: reply.text ?? "", usage, bare: reply.bareUsage === true, length: reply.finish === "length", model: String(body.model ?? modelInPath(path)) };
  if (stream) return sendStream(response, protocol, answer, body);
  return send(response, 200, whole(protocol, answer));
}

interface Answer {
  text: string;
  usage?: StubUsage;
  bare: boolean;
  length: boolean;
  model: string;
}

function modelInPath(path: string): string {
  return /\/models\/([^/:]+):/.exec(path)?.[1] ?? "stub-model";
}

function send(response: ServerResponse, status: number, json: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(json);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  response.end(text);
}

/** Each provider's own error body. */
function sendError(response: ServerResponse, protocol: StubProtocol, reply: ScriptedReply): void {
  const status = reply.status!;
  const message = status === 429 ? "Rate limit reached for requests" : "The server had an error while processing your request.";
  const headers: Record<string, string> = reply.retryAfterMs !== undefined ? { "retry-after-ms": String(reply.retryAfterMs) } : {};
  if (protocol === "anthropic-messages") {
    return send(response, status, { type: "error", error: { type: status === 429 ? "rate_limit_error" : "api_error", message } }, headers);
  }
  if (protocol === "gemini") {
    return send(response, status, { error: { code: status, message, status: status === 429 ? "RESOURCE_EXHAUSTED" : "INTERNAL" } }, headers);
  }
  return send(response, status, { error: { message, type: status === 429 ? "requests" : "server_error", param: null, code: null } }, headers);
}

function whole(protocol: StubProtocol, answer: Answer): unknown {
  switch (protocol) {
    case "openai-responses":
      return responsesObject(answer, "completed");
    case "openai-chat":
      return {
        id: "chatcmpl-stub",
        object: "chat.completion",
        created: 1,
        model: answer.model,
        choices: [{ index: 0, message: { role: "assistant", content: answer.text }, finish_reason: answer.length ? "length" : "stop" }],
        ...(answer.usage ? { usage: chatUsage(answer.usage, answer.bare) } : {}),
      };
    case "anthropic-messages":
      return {
        id: "msg_stub",
        type: "message",
        role: "assistant",
        model: answer.model,
        content: [{ type: "text", text: answer.text }],
        stop_reason: answer.length ? "max_tokens" : "end_turn",
        stop_sequence: null,
        usage: anthropicUsage(answer.usage),
      };
    default:
      return geminiChunk(answer, answer.text, true);
  }
}

// ---- usage objects, as each provider sends them ------------------------------------------------

function responsesUsage(usage: StubUsage, bare: boolean): unknown {
  return {
    input_tokens: usage.input,
    ...(bare ? {} : { input_tokens_details: { cached_tokens: usage.cached ?? 0 } }),
    output_tokens: usage.output,
    ...(bare ? {} : { output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 } }),
    total_tokens: usage.input + usage.output,
  };
}

function chatUsage(usage: StubUsage, bare: boolean): unknown {
  return {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    ...(bare ? {} : { prompt_tokens_details: { cached_tokens: usage.cached ?? 0 }, completion_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 } }),
  };
}

/** Anthropic counts cache reads apart from `input_tokens`. */
function anthropicUsage(usage: StubUsage | undefined): Record<string, number> {
  if (!usage) return { input_tokens: 0, output_tokens: 0 };
  return { input_tokens: usage.input - (usage.cached ?? 0), cache_creation_input_tokens: 0, cache_read_input_tokens: usage.cached ?? 0, output_tokens: usage.output };
}

/** Gemini's `candidatesTokenCount` leaves out thinking, reported as `thoughtsTokenCount`. */
function geminiUsage(usage: StubUsage, bare: boolean): unknown {
  return {
    promptTokenCount: usage.input,
    candidatesTokenCount: usage.output - (usage.reasoning ?? 0),
    totalTokenCount: usage.input + usage.output,
    ...(bare ? {} : { cachedContentTokenCount: usage.cached ?? 0, thoughtsTokenCount: usage.reasoning ?? 0 }),
  };
}

// ---- OpenAI Responses ---------------------------------------------------------------------------

function responsesObject(answer: Answer, status: "completed" | "in_progress"): Record<string, unknown> {
  const done = status === "completed";
  return {
    id: "resp_stub",
    object: "response",
    created_at: 1,
    status: done && answer.length ? "incomplete" : status,
    ...(done && answer.length ? { incomplete_details: { reason: "max_output_tokens" } } : { incomplete_details: null }),
    model: answer.model,
    output: done ? [responsesMessage(answer.text)] : [],
    usage: done && answer.usage ? responsesUsage(answer.usage, answer.bare) : null,
  };
}

function responsesMessage(text: string): Record<string, unknown> {
  return { type: "message", id: "msg_stub", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] };
}

function sse(event: string | undefined, data: unknown): string {
  return `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

function responsesStream(answer: Answer): string[] {
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) => sse(type, { type, sequence_number: sequence++, ...data });
  const item = responsesMessage(answer.text);
  const part = { type: "output_text", text: answer.text, annotations: [] };
  const at = { item_id: "msg_stub", output_index: 0, content_index: 0 };
  const final = responsesObject(answer, "completed");
  return [
    event("response.created", { response: responsesObject(answer, "in_progress") }),
    event("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", content: [] } }),
    event("response.content_part.added", { ...at, part: { ...part, text: "" } }),
    event("response.output_text.delta", { ...at, delta: answer.text }),
    event("response.output_text.done", { ...at, text: answer.text }),
    event("response.content_part.done", { ...at, part }),
    event("response.output_item.done", { output_index: 0, item }),
    event(answer.length ? "response.incomplete" : "response.completed", { response: final }),
  ];
}

// ---- Chat Completions ---------------------------------------------------------------------------

function chatStream(answer: Answer, body: Record<string, unknown>): string[] {
  const base = { id: "chatcmpl-stub", object: "chat.completion.chunk", created: 1, model: answer.model };
  const wantsUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  const chunks = [
    sse(undefined, { ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] }),
    sse(undefined, { ...base, choices: [{ index: 0, delta: { content: answer.text }, finish_reason: null }] }),
    sse(undefined, { ...base, choices: [{ index: 0, delta: {}, finish_reason: answer.length ? "length" : "stop" }] }),
  ];
  if (wantsUsage && answer.usage) chunks.push(sse(undefined, { ...base, choices: [], usage: chatUsage(answer.usage, answer.bare) }));
  chunks.push(sse(undefined, "[DONE]"));
  return chunks;
}

// ---- Anthropic Messages ------------------------------------------------------------------------

function anthropicStream(answer: Answer): string[] {
  const usage = anthropicUsage(answer.usage);
  const message = { id: "msg_stub", type: "message", role: "assistant", model: answer.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } };
  return [
    sse("message_start", { type: "message_start", message }),
    sse("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: answer.text } }),
    sse("content_block_stop", { type: "content_block_stop", index: 0 }),
    sse("message_delta", { type: "message_delta", delta: { stop_reason: answer.length ? "max_tokens" : "end_turn", stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }),
    sse("message_stop", { type: "message_stop" }),
  ];
}

// ---- Gemini -------------------------------------------------------------------------------------

function geminiChunk(answer: Answer, text: string, last: boolean): unknown {
  return {
    candidates: [{ content: { role: "model", parts: [{ text }] }, ...(last ? { finishReason: answer.length ? "MAX_TOKENS" : "STOP" } : {}), index: 0 }],
    ...(last && answer.usage ? { usageMetadata: geminiUsage(answer.usage, answer.bare) } : {}),
    modelVersion: answer.model,
    responseId: "stub",
  };
}

function sendStream(response: ServerResponse, protocol: StubProtocol, answer: Answer, body: Record<string, unknown>): void {
  response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  const half = Math.ceil(answer.text.length / 2);
  const events =
    protocol === "openai-responses"
      ? responsesStream(answer)
      : protocol === "openai-chat"
        ? chatStream(answer, body)
        : protocol === "anthropic-messages"
          ? anthropicStream(answer)
          : [sse(undefined, geminiChunk(answer, answer.text.slice(0, half), false)), sse(undefined, geminiChunk(answer, answer.text.slice(half), true))];
  for (const event of events) response.write(event);
  response.end();
}
