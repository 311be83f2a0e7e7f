/**
 * Pi's `--mode json` output: `message_end` events of the assistant carry its text, its
 * `toolCall` blocks and `usage {input, output, cacheRead, cacheWrite, cost {total}}` (`input`
 * without the cache), summed over messages; `tool_execution_end` carries each result.
 */
import type { HostToolCall, HostTranscript } from "../types.js";
import { UsageSum, count, isObject, jsonEvents, transcript, settle, textOf } from "./shared.js";

export function readPi(stdout: string): HostTranscript {
  const events = jsonEvents(stdout);
  const calls = new Map<string, HostToolCall>();
  const toolCalls: HostToolCall[] = [];
  const sum = new UsageSum();
  let finalMessage: string | undefined;
  let error: string | undefined;
  let model: string | undefined;
  for (const event of events) {
    if (event.type === "message_end" && isObject(event.message) && event.message.role === "assistant") {
      const message = event.message;
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (!isObject(block)) continue;
        if (block.type === "text" && typeof block.text === "string" && block.text.trim()) finalMessage = block.text;
        if (block.type === "toolCall") {
          const call: HostToolCall = { name: String(block.name), arguments: block.arguments ?? {} };
          calls.set(String(block.id), call);
          toolCalls.push(call);
        }
      }
      if (message.stopReason === "error" || message.stopReason === "aborted") error = String(message.errorMessage ?? message.stopReason);
      if (typeof message.model === "string") model = message.model;
      const usage = isObject(message.usage) ? message.usage : undefined;
      if (usage) {
        const fresh = count(usage.input);
        sum.add({
          input: fresh === undefined ? undefined : fresh + (count(usage.cacheRead) ?? 0) + (count(usage.cacheWrite) ?? 0),
          cached: count(usage.cacheRead),
          output: count(usage.output),
          costUsd: isObject(usage.cost) ? count(usage.cost.total) : undefined,
        });
      }
    } else if (event.type === "tool_execution_end") {
      settle(calls, event.toolCallId, isObject(event.result) ? textOf(event.result.content) : undefined, event.isError === true);
    }
  }
  const usage = sum.result(model);
  return transcript({ finalMessage, toolCalls, usage, error, events: events.length });
}
