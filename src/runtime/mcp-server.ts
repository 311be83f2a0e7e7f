/**
 * The MCP face of a tool backend: a low-level SDK `Server` that lists the declared tools with
 * their raw JSON Schemas (no zod round-trip) and answers every call with a result, never a
 * crash: failures come back as `isError` results carrying the message.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
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
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    toCallToolResult(await backend.call(request.params.name, request.params.arguments ?? {})),
  );
  return server;
}

/**
 * MCP requires an `outputSchema` to describe an object; a manifest output schema of another
 * type is still enforced by hermit but not listed.
 */
export function toMcpTool(tool: PublishedTool): Tool {
  const listed: Tool = { name: tool.name, description: tool.description, inputSchema: tool.inputSchema as Tool["inputSchema"] };
  if (tool.outputSchema?.type === "object") listed.outputSchema = tool.outputSchema as Tool["outputSchema"];
  return listed;
}

/** Structured content (for object values) plus a text rendering; errors as `isError` text. */
export function toCallToolResult(outcome: ToolOutcome): CallToolResult {
  if (!outcome.ok) {
    return { content: [{ type: "text", text: outcome.message }], isError: true, _meta: { [META_ERROR_CODE]: outcome.code } };
  }
  const result: CallToolResult = { content: [{ type: "text", text: outcome.text }] };
  if (isJsonObject(outcome.value)) result.structuredContent = outcome.value;
  else result._meta = { [META_VALUE]: outcome.value };
  return result;
}
