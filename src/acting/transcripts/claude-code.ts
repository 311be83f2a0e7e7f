/**
 * Claude Code's `-p --output-format stream-json --verbose` (or `json`) output: `assistant`
 * events carry text and `tool_use` blocks, `user` events the `tool_result`s, and the final
 * `result` event the usage (`input_tokens` without the cache, `cache_read_input_tokens`,
 * `cache_creation_input_tokens`, `output_tokens`), `total_cost_usd` (Claude Code's own
 * pricing of the model id), `modelUsage` and the final text.
 */
import type { HostToolCall, HostTranscript } from "../types.js";
import { UsageSum, count, isObject, jsonEvents, transcript, settle, textOf } from "./shared.js";

export function readClaudeCode(stdout: string): HostTranscript {
  const events = jsonEvents(stdout);
  const calls = new Map<string, HostToolCall>();
  const toolCalls: HostToolCall[] = [];
  let finalMessage: string | undefined;
  let error: string | undefined;
  let usage: HostTranscript["usage"];
  for (const event of events) {
    const content = isObject(event.message) && Array.isArray(event.message.content) ? event.message.content : [];
    if (event.type === "assistant") {
      for (const block of content) {
        if (!isObject(block)) continue;
        if (block.type === "text" && typeof block.text === "string" && block.text.trim()) finalMessage = block.text;
        if (block.type === "tool_use") {
          const call: HostToolCall = { name: String(block.name), arguments: block.input ?? {} };
          calls.set(String(block.id), call);
          toolCalls.push(call);
        }
      }
    } else if (event.type === "user") {
      for (const block of content) {
        if (isObject(block) && block.type === "tool_result") settle(calls, block.tool_use_id, textOf(block.content), block.is_error === true);
      }
    } else if (event.type === "result") {
      if (typeof event.result === "string" && event.result.trim()) finalMessage = event.result;
      if (event.is_error === true || (typeof event.subtype === "string" && event.subtype !== "success")) {
        const said = typeof event.result === "string" && event.result.trim() ? event.result : undefined;
        error = [event.subtype !== "success" ? event.subtype : undefined, said].filter(Boolean).join(": ") || "error";
      }
      usage = resultUsage(event);
    }
  }
  return transcript({ finalMessage, toolCalls, usage, error, events: events.length });
}

function resultUsage(event: Record<string, unknown>): HostTranscript["usage"] {
  if (!isObject(event.usage)) return undefined;
  const fresh = count(event.usage.input_tokens);
  const read = count(event.usage.cache_read_input_tokens) ?? 0;
  const written = count(event.usage.cache_creation_input_tokens) ?? 0;
  const sum = new UsageSum();
  sum.add({
    input: fresh === undefined ? undefined : fresh + read + written,
    cached: count(event.usage.cache_read_input_tokens),
    output: count(event.usage.output_tokens),
    costUsd: count(event.total_cost_usd),
  });
  const models = isObject(event.modelUsage) ? Object.keys(event.modelUsage) : [];
  return sum.result(models.length === 1 ? models[0] : undefined);
}
