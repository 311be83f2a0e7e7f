/**
 * A stub model endpoint on loopback that speaks, well enough for a one-turn text answer,
 * every wire protocol a supported host uses: Anthropic Messages, OpenAI Responses, OpenAI
 * Chat Completions and Gemini `generateContent` / `streamGenerateContent`. It records every
 * request it receives, so `hermit verify` can read what the host discovered.
 *
 * It never calls a real model and never answers with a tool call, so the host ends its turn
 * after the first answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

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
}

export interface StubModelOptions {
  /** The text of every answer. Default `"hermit verify: ok"`. */
  reply?: string;
  /** Port to listen on; default 0 (a free port chosen by the system). */
  port?: number;
}

/** A running stub. Stop it with `close()`; it is idempotent. */
export interface StubModel {
  /** `http://127.0.0.1:<port>` (no trailing slash, no `/v1`). */
  readonly url: string;
  readonly port: number;
  /** Every request received so far (live array; copy it to keep a snapshot). */
  readonly requests: readonly RecordedRequest[];
  close(): Promise<void>;
}

const DEFAULT_REPLY = "hermit verify: ok";
const MAX_BODY_BYTES = 64 * 1024 * 1024;
const SECRET_HEADERS = new Set(["authorization", "x-api-key", "x-goog-api-key", "api-key", "cookie"]);

/** Start the stub on 127.0.0.1. Resolves once it is listening. */
export async function startStubModel(options: StubModelOptions = {}): Promise<StubModel> {
  const reply = options.reply ?? DEFAULT_REPLY;
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    void handle(request, response, reply, requests);
  });
  // Hosts keep connections alive; close() must not wait for them.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () => (closing ??= closeServer(server)),
  };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Which protocol a request speaks, from its method and path alone. */
export function protocolOf(method: string, url: string): StubProtocol {
  const path = url.split("?")[0] ?? "";
  if (method !== "POST") return "unknown";
  if (/\/messages(\/count_tokens)?$/.test(path)) return "anthropic-messages";
  if (/\/responses$/.test(path)) return "openai-responses";
  if (/\/chat\/completions$/.test(path)) return "openai-chat";
  if (/\/models\/[^/]+:(generateContent|streamGenerateContent|countTokens)$/.test(path)) return "gemini";
  return "unknown";
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  reply: string,
  requests: RecordedRequest[],
): Promise<void> {
  const method = request.method ?? "GET";
  const url = request.url ?? "/";
  let bodyText = "";
  try {
    bodyText = await readBody(request);
  } catch {
    response.writeHead(413).end();
    return;
  }
  let body: unknown;
  try {
    body = bodyText.length > 0 ? JSON.parse(bodyText) : undefined;
  } catch {
    body = undefined;
  }
  const record: RecordedRequest = {
    index: requests.length + 1,
    method,
    url,
    protocol: protocolOf(method, url),
    headers: redactHeaders(request.headers),
    bodyText,
    body,
    status: 200,
  };
  requests.push(record);
  const answer = respond(record, reply);
  record.status = answer.status;
  if (answer.sse) {
    response.writeHead(answer.status, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    for (const chunk of answer.sse) response.write(chunk);
    response.end();
  } else {
    const text = JSON.stringify(answer.json ?? {});
    response.writeHead(answer.status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    response.end(text);
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error("request body too large"));
        request.destroy();
      } else chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function redactHeaders(headers: IncomingMessage["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = SECRET_HEADERS.has(name) ? "<redacted>" : Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

interface Answer {
  status: number;
  json?: unknown;
  /** Server-sent event chunks, written in order. */
  sse?: string[];
}

function respond(record: RecordedRequest, reply: string): Answer {
  const path = record.url.split("?")[0] ?? "";
  const body = (record.body ?? {}) as Record<string, unknown>;
  const model = typeof body.model === "string" ? body.model : "stub-model";
  if (record.method === "GET" && path.endsWith("/models")) return { status: 200, json: modelList(path) };
  if (record.method === "HEAD" || record.method === "GET") return { status: 200, json: {} };
  switch (record.protocol) {
    case "anthropic-messages":
      if (path.endsWith("/count_tokens")) return { status: 200, json: { input_tokens: estimateTokens(record.bodyText) } };
      return body.stream === true
        ? { status: 200, sse: anthropicStream(model, reply, record.index) }
        : { status: 200, json: anthropicMessage(model, reply, record.index) };
    case "openai-responses":
      return body.stream === false
        ? { status: 200, json: responsesObject(model, reply, record.index) }
        : { status: 200, sse: responsesStream(model, reply, record.index) };
    case "openai-chat":
      return body.stream === true
        ? { status: 200, sse: chatStream(model, reply, record.index, body) }
        : { status: 200, json: chatCompletion(model, reply, record.index) };
    case "gemini":
      return geminiAnswer(path, record, reply);
    default:
      return { status: 404, json: { error: { message: `hermit stub model: no route for ${record.method} ${path}` } } };
  }
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function modelList(path: string): unknown {
  if (path.includes("v1beta")) return { models: [{ name: "models/stub-model", supportedGenerationMethods: ["generateContent"] }] };
  return { object: "list", data: [{ id: "stub-model", object: "model", created: 0, owned_by: "hermit" }] };
}

function sse(event: string | undefined, data: unknown): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`;
}

// ---- Anthropic Messages -------------------------------------------------------------------

function anthropicMessage(model: string, reply: string, index: number): unknown {
  return {
    id: `msg_hermit_${index}`,
    type: "message",
    role: "assistant",
    model,
    content: [{ type: "text", text: reply }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}

function anthropicStream(model: string, reply: string, index: number): string[] {
  const message = { ...(anthropicMessage(model, reply, index) as object), content: [], stop_reason: null };
  return [
    sse("message_start", { type: "message_start", message }),
    sse("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: reply } }),
    sse("content_block_stop", { type: "content_block_stop", index: 0 }),
    sse("message_delta", {
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 1 },
    }),
    sse("message_stop", { type: "message_stop" }),
  ];
}

// ---- OpenAI Responses ---------------------------------------------------------------------

function responsesObject(model: string, reply: string, index: number, status = "completed"): Record<string, unknown> {
  return {
    id: `resp_hermit_${index}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    model,
    output: status === "completed" ? [responsesMessage(reply, index)] : [],
    usage:
      status === "completed"
        ? {
            input_tokens: 1,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 1,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 2,
          }
        : null,
  };
}

function responsesMessage(reply: string, index: number): Record<string, unknown> {
  return {
    type: "message",
    id: `msg_hermit_${index}`,
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text: reply, annotations: [] }],
  };
}

function responsesStream(model: string, reply: string, index: number): string[] {
  const item = responsesMessage(reply, index);
  const part = { type: "output_text", text: reply, annotations: [] };
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) => sse(type, { type, sequence_number: sequence++, ...data });
  return [
    event("response.created", { response: responsesObject(model, reply, index, "in_progress") }),
    event("response.in_progress", { response: responsesObject(model, reply, index, "in_progress") }),
    event("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", content: [] } }),
    event("response.content_part.added", {
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      part: { ...part, text: "" },
    }),
    event("response.output_text.delta", { item_id: item.id, output_index: 0, content_index: 0, delta: reply }),
    event("response.output_text.done", { item_id: item.id, output_index: 0, content_index: 0, text: reply }),
    event("response.content_part.done", { item_id: item.id, output_index: 0, content_index: 0, part }),
    event("response.output_item.done", { output_index: 0, item }),
    event("response.completed", { response: responsesObject(model, reply, index) }),
  ];
}

// ---- OpenAI Chat Completions --------------------------------------------------------------

function chatCompletion(model: string, reply: string, index: number): unknown {
  return {
    id: `chatcmpl-hermit-${index}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: "assistant", content: reply }, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

function chatStream(model: string, reply: string, index: number, body: Record<string, unknown>): string[] {
  const base = { id: `chatcmpl-hermit-${index}`, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model };
  const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
  const wantsUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  const chunks = [
    sse(undefined, { ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] }),
    sse(undefined, { ...base, choices: [{ index: 0, delta: { content: reply }, finish_reason: null }] }),
    sse(undefined, { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
  ];
  if (wantsUsage) chunks.push(sse(undefined, { ...base, choices: [], usage }));
  chunks.push(sse(undefined, "[DONE]"));
  return chunks;
}

// ---- Gemini -------------------------------------------------------------------------------

function geminiResponse(reply: string, model: string): unknown {
  return {
    candidates: [{ content: { role: "model", parts: [{ text: reply }] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    modelVersion: model,
    responseId: "hermit-stub",
  };
}

function geminiAnswer(path: string, record: RecordedRequest, reply: string): Answer {
  const match = /\/models\/([^/:]+):(\w+)$/.exec(path);
  const model = match?.[1] ?? "stub-model";
  const method = match?.[2];
  if (method === "countTokens") return { status: 200, json: { totalTokens: estimateTokens(record.bodyText) } };
  const text = geminiReplyFor(record, reply);
  if (method === "streamGenerateContent") {
    // alt=sse is what the Gen AI SDK asks for; without it the API streams one JSON array.
    if (/[?&]alt=sse\b/.test(record.url)) return { status: 200, sse: [sse(undefined, geminiResponse(text, model))] };
    return { status: 200, json: [geminiResponse(text, model)] };
  }
  return { status: 200, json: geminiResponse(text, model) };
}

/**
 * Gemini CLI asks side questions with a JSON response schema (e.g. "who speaks next");
 * answering those with plain text would make it retry, so give them schema-shaped JSON.
 */
function geminiReplyFor(record: RecordedRequest, reply: string): string {
  const config = (record.body as { generationConfig?: { responseMimeType?: string; responseJsonSchema?: unknown; responseSchema?: unknown } })
    ?.generationConfig;
  if (config?.responseMimeType !== "application/json") return reply;
  const schema = (config.responseJsonSchema ?? config.responseSchema) as JsonSchemaLike | undefined;
  return JSON.stringify(sampleFor(schema, reply));
}

interface JsonSchemaLike {
  type?: string | string[];
  properties?: Record<string, JsonSchemaLike>;
  required?: string[];
  enum?: unknown[];
  items?: JsonSchemaLike;
}

/** A minimal value that satisfies a simple JSON schema (objects, enums, scalars). */
function sampleFor(schema: JsonSchemaLike | undefined, reply: string): unknown {
  if (!schema) return {};
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  const type = (Array.isArray(schema.type) ? schema.type[0] : schema.type)?.toLowerCase();
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(schema.properties ?? {})) out[key] = sampleFor(value, reply);
      return out;
    }
    case "array":
      return [];
    case "string":
      return reply;
    case "number":
    case "integer":
      return 0;
    case "boolean":
      return false;
    default:
      return {};
  }
}
