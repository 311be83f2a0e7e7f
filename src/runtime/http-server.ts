/**
 * MCP over Streamable HTTP on 127.0.0.1 only, at `/mcp`. Each MCP session (created by an
 * `initialize` request) gets its own SDK `Server` and transport; all share one tool backend.
 * Host headers other than the loopback address, and Origin headers of other sites, are
 * refused with 403 before anything else is read (DNS-rebinding protection).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ErrorCode, JSONRPCMessageSchema, isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { HermitError } from "../errors.js";

export const MCP_PATH = "/mcp";
/** Largest request body accepted (bytes). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/**
 * POST requests handled at once; more wait, unread, until one is answered and its answer
 * sent. Bounds the memory held by answers that slow clients have not read yet.
 */
const MAX_CONCURRENT_REQUESTS = 64;

export interface HttpEndpoint {
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** What every request to one endpoint shares. */
interface EndpointState {
  /** Open MCP sessions by id. */
  sessions: Map<string, StreamableHTTPServerTransport>;
  /** `127.0.0.1:<port>` and `localhost:<port>`, once the port is bound (empty before: every Host is foreign). */
  allowedHosts: string[];
  /** Waits for a slot for one POST (see `requestSlots`). */
  takeSlot: (response: ServerResponse) => Promise<void>;
  /** Makes the MCP server of a new session. */
  newServer: () => Server;
}

/** An error reply: HTTP status, JSON-RPC id and code, message. */
interface ErrorReply {
  status: number;
  id: string | number | null;
  code: number;
  message: string;
}

/** Listen on 127.0.0.1:`port` (0 picks a free port); `newServer` makes the MCP server of each session. */
export async function listenHttp(port: number, newServer: () => Server, log: (line: string) => void): Promise<HttpEndpoint> {
  const state: EndpointState = { sessions: new Map(), allowedHosts: [], takeSlot: requestSlots(MAX_CONCURRENT_REQUESTS), newServer };
  const http: HttpServer = createServer((request, response) => {
    handleRequest(state, request, response).catch((error: unknown) => {
      log(`hermit serve: HTTP request failed: ${(error as Error)?.stack ?? String(error)}`);
      if (!response.headersSent) reply(response, { status: 500, id: null, code: ErrorCode.InternalError, message: "Internal error" });
      else response.end();
    });
  });
  const bound = await listenOnLoopback(http, port);
  state.allowedHosts = [`127.0.0.1:${bound}`, `localhost:${bound}`];
  return {
    url: `http://127.0.0.1:${bound}${MCP_PATH}`,
    port: bound,
    async close() {
      await Promise.all([...state.sessions.values()].map((transport) => transport.close()));
      state.sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** Start `http` listening on 127.0.0.1:`port`; the port it bound. A port it cannot have is a USAGE error. */
async function listenOnLoopback(http: HttpServer, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    http.once("error", (error: NodeJS.ErrnoException) =>
      reject(new HermitError("USAGE", `cannot listen on 127.0.0.1:${port}: ${error.message}`, { port })),
    );
    http.listen(port, "127.0.0.1", () => resolve());
  });
  return (http.address() as AddressInfo).port;
}

/**
 * At most `limit` POSTs handled at once: the function returned waits for a slot and gives it
 * back once the answer is sent (or the connection is gone).
 */
function requestSlots(limit: number): (response: ServerResponse) => Promise<void> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (response) => {
    if (active < limit) active += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve)); // a finished request hands its slot over
    response.once("close", () => {
      const next = waiting.shift();
      if (next) next();
      else active -= 1;
    });
  };
}

/** Answer one HTTP request: refuse it, hand it to its session, or open a session with it. */
async function handleRequest(state: EndpointState, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const refusal = refuseAddress(request, state.allowedHosts);
  if (refusal) return reply(response, refusal);
  let body: unknown;
  if (request.method === "POST") {
    await state.takeSlot(response);
    const read = await readJsonRpcBody(request);
    if ("status" in read) return reply(response, read);
    body = read.body;
  }
  const sessionId = request.headers["mcp-session-id"];
  if (typeof sessionId === "string") {
    const transport = state.sessions.get(sessionId);
    if (!transport) return reply(response, { status: 404, id: null, code: -32001, message: "Session not found" });
    return transport.handleRequest(request, response, body);
  }
  if (request.method !== "POST" || !isInitializeRequest(body)) {
    const message = "Bad Request: no valid session ID (send initialize first)";
    return reply(response, { status: 400, id: null, code: ErrorCode.InvalidRequest, message });
  }
  const transport = openSession(state);
  await state.newServer().connect(transport);
  await transport.handleRequest(request, response, body);
}

/**
 * Why the request may not be answered whatever its body, or undefined. First a foreign Host
 * (a DNS-rebinding attempt) or Origin (a web page reaching for the loopback address), then a
 * path other than `/mcp`.
 */
function refuseAddress(request: IncomingMessage, allowedHosts: string[]): ErrorReply | undefined {
  const foreign = foreignHeader(request, allowedHosts);
  if (foreign) return { status: 403, id: null, code: -32000, message: foreign };
  const path = new URL(request.url ?? "/", "http://127.0.0.1").pathname;
  if (path !== MCP_PATH) return { status: 404, id: null, code: ErrorCode.InvalidRequest, message: `Not found: serve path is ${MCP_PATH}` };
  return undefined;
}

/** A POST body parsed as JSON-RPC 2.0 (one message or a batch), or why it is refused. */
async function readJsonRpcBody(request: IncomingMessage): Promise<{ body: unknown } | ErrorReply> {
  const text = await readBody(request);
  if (text === undefined) return { status: 413, id: null, code: ErrorCode.InvalidRequest, message: "Request body too large" };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return { status: 400, id: null, code: ErrorCode.ParseError, message: `Parse error: ${(error as Error).message}` };
  }
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0 || !messages.every((message) => JSONRPCMessageSchema.safeParse(message).success)) {
    const id = (body as { id?: unknown } | null)?.id;
    const message = "Invalid Request: not a JSON-RPC 2.0 request, notification or response";
    return { status: 400, id: typeof id === "string" || typeof id === "number" ? id : null, code: ErrorCode.InvalidRequest, message };
  }
  return { body };
}

/** A transport for a new MCP session, in `state.sessions` from its initialization until it closes. */
function openSession(state: EndpointState): StreamableHTTPServerTransport {
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: true,
    enableDnsRebindingProtection: true,
    allowedHosts: state.allowedHosts,
    onsessioninitialized: (id) => {
      state.sessions.set(id, transport);
    },
    onsessionclosed: (id) => {
      state.sessions.delete(id);
    },
  });
  transport.onclose = () => {
    if (transport.sessionId) state.sessions.delete(transport.sessionId);
  };
  return transport;
}

/** Why the Host or Origin header is not this server's loopback address, or undefined. */
function foreignHeader(request: IncomingMessage, allowedHosts: string[]): string | undefined {
  const host = request.headers.host;
  if (host === undefined || !allowedHosts.includes(host.toLowerCase())) return `Invalid Host header: ${host ?? "(none)"}`;
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  let hostname: string | undefined;
  try {
    hostname = new URL(origin).hostname;
  } catch {
    hostname = undefined;
  }
  return hostname === "127.0.0.1" || hostname === "localhost" || hostname === "[::1]" ? undefined : `Invalid Origin header: ${origin}`;
}

/** Answer with a JSON-RPC error. */
function reply(response: ServerResponse, { status, id, code, message }: ErrorReply): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }));
}

/** The body as text, or undefined when it exceeds the limit. */
async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
