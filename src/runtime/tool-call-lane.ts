/**
 * The direct lane of `tools/call` over stdio. A request of the plain shape clients send (a
 * tool name, an arguments object, at most a `_meta` that names no task) is answered here,
 * straight from the tool backend, instead of through the MCP SDK's request machinery, which
 * checks each request six times with zod (the transport's message check, three in dispatch,
 * two in the tools/call wrapper) and answers through a chain of promise turns: a third of a
 * call's round trip (bench/serve.ts). Anything else, malformed or unusual, takes the SDK's
 * path as before (malformed params still get its -32602, a task-augmented call its answer),
 * so this lane accepts a strict subset of what the SDK would, and answers it the same way:
 * a `CallToolResult` built by `toCallToolResult`; no answer to a call the client cancelled
 * (`notifications/cancelled`) or that was in flight when the server closed, both of which
 * abort the call's signal; a thrown failure as a JSON-RPC error, as the SDK answers one.
 */
import { ErrorCode, RELATED_TASK_META_KEY, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { toCallToolResult } from "./mcp-server.js";
import { isJsonObject } from "./published.js";
import type { CallSignal, ToolBackend } from "./types.js";

/** What the lane needs of the transport and the server it sits beside. */
export interface LaneWiring {
  backend: ToolBackend;
  send(message: JSONRPCMessage): Promise<void>;
  /** Where a failure to answer goes (the server's `onerror`). */
  onerror(error: Error): void;
}

interface PlainToolCall {
  id: RequestId;
  name: string;
  args: Record<string, unknown>;
}

export class ToolCallLane {
  /** Calls answered by the lane and not yet answered, by request id. */
  private readonly inFlight = new Map<RequestId, Cancellation>();
  private closed = false;

  constructor(private readonly wiring: LaneWiring) {}

  /**
   * Take `message` (parsed JSON, not yet checked as JSON-RPC) when it is a plain tools/call
   * request: it is answered here and the server never sees it. False for anything else.
   */
  take(message: unknown): boolean {
    const call = plainToolCall(message);
    if (!call || this.closed) return false;
    void this.answer(call);
    return true;
  }

  /** See a checked message on its way to the server: a cancellation of one of the lane's calls aborts it. */
  observe(message: JSONRPCMessage): void {
    if (!("method" in message) || "id" in message || message.method !== "notifications/cancelled") return;
    const { requestId } = (message.params ?? {}) as { requestId?: RequestId };
    if (requestId !== undefined) this.inFlight.get(requestId)?.abort();
  }

  /** Abort every call in flight (none is answered) and take no more. */
  close(): void {
    this.closed = true;
    for (const cancellation of this.inFlight.values()) cancellation.abort();
    this.inFlight.clear();
  }

  private async answer({ id, name, args }: PlainToolCall): Promise<void> {
    const cancellation = new Cancellation();
    this.inFlight.set(id, cancellation);
    let response: JSONRPCMessage;
    try {
      const result = toCallToolResult(await this.wiring.backend.call(name, args, { signal: cancellation }), name);
      response = { result, jsonrpc: "2.0", id };
    } catch (error) {
      // As the SDK answers a handler that throws (an audit line that could not be written).
      const { code, message, data } = error as { code?: unknown; message?: string; data?: unknown };
      const failure = { code: Number.isSafeInteger(code) ? (code as number) : ErrorCode.InternalError, message: message ?? "Internal error" };
      response = { jsonrpc: "2.0", id, error: data === undefined ? failure : { ...failure, data } };
    } finally {
      if (this.inFlight.get(id) === cancellation) this.inFlight.delete(id);
    }
    if (cancellation.aborted) return;
    await this.wiring.send(response).catch((error: unknown) => this.wiring.onerror(new Error(`Failed to send response: ${String(error)}`)));
  }
}

/** A call's cancellation: an `AbortSignal` for "abort" listeners, without its cost (see `CallSignal`). */
class Cancellation implements CallSignal {
  aborted = false;
  private listeners: Array<() => void> = [];

  addEventListener(_type: "abort", listener: () => void): void {
    if (!this.aborted && !this.listeners.includes(listener)) this.listeners.push(listener);
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    this.listeners = this.listeners.filter((other) => other !== listener);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}

/**
 * The call, when `message` is a JSON-RPC tools/call request the SDK would accept and answer
 * the same way: only the keys the lane knows, each of the type the SDK's schemas demand.
 */
function plainToolCall(message: unknown): PlainToolCall | undefined {
  if (!isJsonObject(message) || message.method !== "tools/call" || message.jsonrpc !== "2.0") return undefined;
  const { id, params } = message;
  if (!(typeof id === "string" || Number.isSafeInteger(id)) || !isJsonObject(params)) return undefined;
  if (!onlyKeys(message, ["jsonrpc", "id", "method", "params"]) || !onlyKeys(params, ["name", "arguments", "_meta"])) return undefined;
  const { name, arguments: args, _meta: meta } = params;
  if (typeof name !== "string" || (args !== undefined && !isJsonObject(args))) return undefined;
  if (meta !== undefined && !plainMeta(meta)) return undefined;
  return { id: id as RequestId, name, args: args ?? {} };
}

/** A request `_meta` that asks nothing of this server: no task, a progress token of the right type if any. */
function plainMeta(meta: unknown): boolean {
  if (!isJsonObject(meta) || Object.prototype.hasOwnProperty.call(meta, RELATED_TASK_META_KEY)) return false;
  const token = meta.progressToken;
  return token === undefined || typeof token === "string" || Number.isSafeInteger(token);
}

function onlyKeys(object: Record<string, unknown>, keys: string[]): boolean {
  for (const key in object) if (!keys.includes(key)) return false;
  return true;
}
