/**
 * Codex's `exec --json` output: `item.completed` events carry the agent's messages and its
 * tool calls (`mcp_tool_call` with server and tool, `command_execution`, `file_change`,
 * `web_search`), `turn.completed` the usage (`input_tokens` with the cache included,
 * `cached_input_tokens`, `output_tokens`, `reasoning_output_tokens`; no cost), and
 * `turn.failed` / `error` what went wrong.
 */
import type { HostToolCall, HostTranscript } from "../types.js";
import { UsageSum, count, isObject, jsonEvents, transcript } from "./shared.js";

function toolCall(item: Record<string, unknown>): HostToolCall | undefined {
  const failed = item.status === "failed";
  switch (item.type) {
    case "mcp_tool_call": {
      const result = isObject(item.result) ? JSON.stringify(item.result.structured_content ?? item.result.content) : undefined;
      const problem = isObject(item.error) ? String(item.error.message) : undefined;
      return {
        name: `mcp__${String(item.server)}__${String(item.tool)}`,
        arguments: item.arguments ?? {},
        ...(result !== undefined ? { result } : problem !== undefined ? { result: problem } : {}),
        ...(failed || problem !== undefined ? { isError: true } : {}),
      };
    }
    case "command_execution":
      return {
        name: "command_execution",
        arguments: { command: item.command },
        ...(typeof item.aggregated_output === "string" ? { result: item.aggregated_output } : {}),
        ...(failed || (typeof item.exit_code === "number" && item.exit_code !== 0) ? { isError: true } : {}),
      };
    case "file_change":
      return { name: "file_change", arguments: { changes: item.changes }, ...(failed ? { isError: true } : {}) };
    case "web_search":
      return { name: "web_search", arguments: { query: item.query } };
    default:
      return undefined;
  }
}

export function readCodex(stdout: string): HostTranscript {
  const events = jsonEvents(stdout);
  const toolCalls: HostToolCall[] = [];
  const sum = new UsageSum();
  let finalMessage: string | undefined;
  let error: string | undefined;
  for (const event of events) {
    if (event.type === "item.completed" && isObject(event.item)) {
      const item = event.item;
      if (item.type === "agent_message" && typeof item.text === "string") finalMessage = item.text;
      const call = toolCall(item);
      if (call) toolCalls.push(call);
    } else if (event.type === "turn.completed" && isObject(event.usage)) {
      sum.add({
        input: count(event.usage.input_tokens),
        cached: count(event.usage.cached_input_tokens),
        output: count(event.usage.output_tokens),
        reasoning: count(event.usage.reasoning_output_tokens),
      });
    } else if (event.type === "turn.failed" && isObject(event.error)) {
      error = String(event.error.message);
    } else if (event.type === "error" && typeof event.message === "string") {
      error = event.message;
    }
  }
  const usage = sum.result();
  return transcript({ finalMessage, toolCalls, usage, error, events: events.length });
}
