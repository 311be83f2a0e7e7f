/**
 * The MCP face of a tool backend: a low-level SDK `Server` that lists the declared tools with
 * their raw JSON Schemas (no zod round-trip) and answers every call with a result, never a
 * crash: failures come back as `isError` results carrying the message.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  RequestSchema,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { hermitVersion } from "../package-root.js";
import { isJsonObject } from "./published.js";
import type { PublishedTool, ToolBackend, ToolOutcome } from "./types.js";

/** `_meta` key of an error result: the hermit error code (`TOOL_TIMEOUT`, …). */
export const META_ERROR_CODE = "hermit/error";
/** `_meta` key of a success whose value is not a JSON object (so it has no `structuredContent`). */
export const META_VALUE = "hermit/value";

export interface ToolServerInfo {
  /** Reported as the server name; the adapter name. */
  name: string;
  /** Reported as the server version; the adapter version. */
  version: string;
}

/** An MCP server exposing exactly `tools`, running calls through `backend`. Connect it to a transport. */
export function createToolServer(tools: PublishedTool[], backend: ToolBackend, info: ToolServerInfo): Server {
  const server = new Server(
    { name: info.name, version: info.version, title: `${info.name} (hermit ${hermitVersion})` },
    { capabilities: { tools: { listChanged: false } } },
  );
  const listed = tools.map(toMcpTool);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(LooseCallToolRequestSchema, async (request, extra) => {
    // The SDK has checked the params against CallToolRequestSchema (-32602 when they are bad).
    const params = request.params as { name: string; arguments?: Record<string, unknown> };
    // A client's notifications/cancelled aborts extra.signal: the call is cancelled, and the SDK sends no answer.
    return toCallToolResult(await backend.call(params.name, params.arguments ?? {}, { signal: extra.signal }), params.name);
  });
  return server;
}

/**
 * `tools/call` with params left as sent. With the SDK's own schema, malformed params fail its
 * first parse as an internal error (-32603) and the arguments object is rebuilt (losing an
 * own `__proto__` key); with this one, the SDK's tools/call check answers malformed params
 * with -32602 Invalid params, and the arguments reach the tool backend exactly as sent.
 */
const LooseCallToolRequestSchema = RequestSchema.extend({ method: CallToolRequestSchema.shape.method });

/**
 * MCP requires an `outputSchema` to describe an object; a manifest output schema of another
 * type is still enforced by hermit but not listed.
 */
export function toMcpTool(tool: PublishedTool): Tool {
  const listed: Tool = { name: tool.name, description: tool.description, inputSchema: tool.inputSchema as Tool["inputSchema"] };
  if (tool.outputSchema?.type === "object") listed.outputSchema = tool.outputSchema as Tool["outputSchema"];
  return listed;
}

/**
 * Largest `tools/call` answer sent, in bytes of JSON. The MCP SDK's clients (those of most
 * hosts, and hermit's sandbox) drop the connection on a message over 10 MiB, and the answer
 * carries the value twice (text and value), the text escaped once more.
 */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * Structured content (for object values) plus a text rendering; errors as `isError` text.
 * Keys in the order the SDK's result check writes them (`_meta` first), so that an answer
 * reads the same whichever path sent it (`tool-call-lane.ts` sends it unchecked).
 */
export function toCallToolResult(outcome: ToolOutcome, tool = "the tool"): CallToolResult {
  if (!outcome.ok) return errorResult(outcome.code, outcome.message);
  const content: CallToolResult["content"] = [{ type: "text", text: outcome.text }];
  const result: CallToolResult = isJsonObject(outcome.value)
    ? { content, structuredContent: outcome.value }
    : { _meta: { [META_VALUE]: outcome.value }, content };
  // At most 3 bytes of UTF-8 per character, and escaping at most doubles the text: only a
  // large text can make the answer too long.
  if (outcome.text.length * 9 > MAX_RESPONSE_BYTES) {
    const bytes = Buffer.byteLength(JSON.stringify(result));
    if (bytes > MAX_RESPONSE_BYTES) {
      const message = `tool '${tool}' returned an invalid result: its MCP answer is ${bytes} bytes, over the limit of ${MAX_RESPONSE_BYTES}`;
      return errorResult("TOOL_RESULT_INVALID", message);
    }
  }
  return result;
}

function errorResult(code: string, message: string): CallToolResult {
  return { _meta: { [META_ERROR_CODE]: code }, content: [{ type: "text", text: message }], isError: true };
}
