/**
 * A stub model endpoint on loopback that speaks every wire protocol a supported host uses:
 * Anthropic Messages, OpenAI Responses, OpenAI Chat Completions and Gemini
 * `generateContent` / `streamGenerateContent`, streamed or not. It records every request.
 *
 * By default every answer is one short text, so the host ends its turn after the first
 * answer (what `hermit verify` needs). With an `agent`, the stub plays a scripted agent: the
 * agent reads each request as a `Conversation` (system prompt, messages, tool calls and
 * results, tools offered) and answers with text and tool calls, in the host's own protocol,
 * reporting the usage it chooses. It never calls a real model.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { answerAnthropic, readAnthropic } from "./stub/anthropic.js";
import { answerChat, readChat } from "./stub/chat.js";
import { answerGemini, geminiRoute, readGemini, sideQuestionReply } from "./stub/gemini.js";
import { answerResponses, readResponses } from "./stub/responses.js";
import type { Answer, Conversation, RecordedRequest, StubAgent, StubProtocol, StubTurn } from "./stub/types.js";

export type * from "./stub/types.js";

export interface StubModelOptions {
  /** The text of every answer the agent leaves to the stub. Default `"hermit verify: ok"`. */
  reply?: string;
  /** Port to listen on; default 0 (a free port chosen by the system). */
  port?: number;
  /** A scripted agent that decides each answer (text, tool calls, usage) from the request. */
  agent?: StubAgent;
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
    void handle(request, response, requests, (record) => respond(record, reply, options.agent));
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
  requests: RecordedRequest[],
  answerFor: (record: RecordedRequest) => Promise<Answer>,
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
  let answer: Answer;
  try {
    answer = await answerFor(record);
  } catch (error) {
    // A scripted agent that throws is a bug in the script: say so to the host, which fails.
    answer = { status: 500, json: { error: { message: `hermit stub model: the scripted agent failed: ${(error as Error).message}` } } };
  }
  record.status = answer.status;
  // The host may have given up (or the stub closed) while a slow agent decided.
  if (response.destroyed || response.writableEnded) return;
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

/** The conversation a model request carries, or undefined for anything else. */
export function conversationOf(record: RecordedRequest): Conversation | undefined {
  const body = record.body;
  if (body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
  const fields = body as Record<string, unknown>;
  const path = record.url.split("?")[0] ?? "";
  switch (record.protocol) {
    case "anthropic-messages":
      return path.endsWith("/count_tokens") ? undefined : readAnthropic(fields);
    case "openai-responses":
      return readResponses(fields);
    case "openai-chat":
      return readChat(fields);
    case "gemini": {
      const { model, method } = geminiRoute(path);
      return method === "countTokens" ? undefined : readGemini(fields, model);
    }
    default:
      return undefined;
  }
}

async function respond(record: RecordedRequest, reply: string, agent: StubAgent | undefined): Promise<Answer> {
  const path = record.url.split("?")[0] ?? "";
  const body = (record.body ?? {}) as Record<string, unknown>;
  if (record.method === "GET" && path.endsWith("/models")) return { status: 200, json: modelList(path) };
  if (record.method === "HEAD" || record.method === "GET") return { status: 200, json: {} };
  if (record.protocol === "anthropic-messages" && path.endsWith("/count_tokens")) {
    return { status: 200, json: { input_tokens: estimateTokens(record.bodyText) } };
  }
  const gemini = record.protocol === "gemini" ? geminiRoute(path) : undefined;
  if (gemini?.method === "countTokens") return { status: 200, json: { totalTokens: estimateTokens(record.bodyText) } };
  const conversation = conversationOf(record);
  if (!conversation) return { status: 404, json: { error: { message: `hermit stub model: no route for ${record.method} ${path}` } } };

  const side = gemini ? sideQuestionReply(record.body, reply) : undefined;
  const turn: StubTurn = side !== undefined ? { text: side } : ((await agent?.(conversation, record)) ?? { text: reply });
  record.turn = turn;
  if (turn.error) return { status: turn.error.status, json: errorBody(record.protocol, turn.error.status, turn.error.message) };
  const context = { model: conversation.model, index: record.index };
  switch (record.protocol) {
    case "anthropic-messages":
      return answerAnthropic(turn, { ...context, stream: body.stream === true });
    case "openai-responses":
      return answerResponses(turn, { ...context, stream: body.stream !== false });
    case "openai-chat":
      return answerChat(turn, { ...context, stream: body.stream === true }, body);
    default:
      return answerGemini(turn, conversation.model, gemini?.method, record.url);
  }
}

/** An error body in the shape each provider uses. */
function errorBody(protocol: StubProtocol, status: number, message: string): unknown {
  if (protocol === "anthropic-messages") return { type: "error", error: { type: status === 401 ? "authentication_error" : "api_error", message } };
  if (protocol === "gemini") return { error: { code: status, message, status: status === 401 ? "UNAUTHENTICATED" : "INTERNAL" } };
  return { error: { message, type: status === 401 ? "invalid_request_error" : "server_error", code: status === 401 ? "invalid_api_key" : null } };
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function modelList(path: string): unknown {
  if (path.includes("v1beta")) return { models: [{ name: "models/stub-model", supportedGenerationMethods: ["generateContent"] }] };
  return { object: "list", data: [{ id: "stub-model", object: "model", created: 0, owned_by: "hermit" }] };
}
