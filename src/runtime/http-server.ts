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

/** Listen on 127.0.0.1:`port` (0 picks a free port); `newServer` makes the MCP server of each session. */
export async function listenHttp(port: number, newServer: () => Server, log: (line: string) => void): Promise<HttpEndpoint> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let allowedHosts: string[] = [];
  let active = 0;
  const waiting: Array<() => void> = [];
  /** A slot for one POST, given back once its answer is sent (or the connection is gone). */
  const slot = async (response: ServerResponse): Promise<void> => {
    if (active < MAX_CONCURRENT_REQUESTS) active += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve)); // a finished request hands its slot over
    response.once("close", () => {
      const next = waiting.shift();
      if (next) next();
      else active -= 1;
    });
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    // Before anything else, whatever the path or body: a foreign Host is a DNS-rebinding
    // attempt, a foreign Origin a web page reaching for the loopback address.
    const foreign = foreignHeader(request, allowedHosts);
    if (foreign) return reply(response, 403, null, -32000, foreign);
    const path = new URL(request.url ?? "/", "http://127.0.0.1").pathname;
    if (path !== MCP_PATH) return reply(response, 404, null, ErrorCode.InvalidRequest, `Not found: serve path is ${MCP_PATH}`);
    const sessionId = request.headers["mcp-session-id"];
    let body: unknown;
    if (request.method === "POST") {
      await slot(response);
      const text = await readBody(request);
      if (text === undefined) return reply(response, 413, null, ErrorCode.InvalidRequest, "Request body too large");
      try {
        body = JSON.parse(text);
      } catch (error) {
        return reply(response, 400, null, ErrorCode.ParseError, `Parse error: ${(error as Error).message}`);
      }
      const messages = Array.isArray(body) ? body : [body];
      if (messages.length === 0 || !messages.every((message) => JSONRPCMessageSchema.safeParse(message).success)) {
        const id = (body as { id?: unknown } | null)?.id;
        const message = "Invalid Request: not a JSON-RPC 2.0 request, notification or response";
        return reply(response, 400, typeof id === "string" || typeof id === "number" ? id : null, ErrorCode.InvalidRequest, message);
      }
    }
    if (typeof sessionId === "string") {
      const transport = sessions.get(sessionId);
      if (!transport) return reply(response, 404, null, -32001, "Session not found");
      return transport.handleRequest(request, response, body);
    }
    if (request.method !== "POST" || !isInitializeRequest(body)) {
      return reply(response, 400, null, ErrorCode.InvalidRequest, "Bad Request: no valid session ID (send initialize first)");
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      enableDnsRebindingProtection: true,
      allowedHosts,
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await newServer().connect(transport);
    await transport.handleRequest(request, response, body);
  };

  const http: HttpServer = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      log(`hermit serve: HTTP request failed: ${(error as Error)?.stack ?? String(error)}`);
      if (!response.headersSent) reply(response, 500, null, ErrorCode.InternalError, "Internal error");
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", (error: NodeJS.ErrnoException) =>
      reject(new HermitError("USAGE", `cannot listen on 127.0.0.1:${port}: ${error.message}`, { port })),
    );
    http.listen(port, "127.0.0.1", () => resolve());
  });
  const bound = (http.address() as AddressInfo).port;
  allowedHosts = [`127.0.0.1:${bound}`, `localhost:${bound}`];
  return {
    url: `http://127.0.0.1:${bound}${MCP_PATH}`,
    port: bound,
    async close() {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
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

function reply(response: ServerResponse, status: number, id: string | number | null, code: number, message: string): void {
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
