/**
 * OpenCode's `run --format json` output: `tool_use` parts (tool, input, output, status),
 * `text` parts, and per step a `step_finish` part with `tokens {input, output, reasoning,
 * cache {read, write}}` (`input` without the cache) and `cost`, summed over the steps. The
 * title OpenCode asks its model for first is not one of the steps.
 */
import type { HostToolCall, HostTranscript } from "../types.js";
import { UsageSum, count, isObject, jsonEvents, transcript } from "./shared.js";

export function readOpencode(stdout: string): HostTranscript {
  const events = jsonEvents(stdout);
  const toolCalls: HostToolCall[] = [];
  const sum = new UsageSum();
  let finalMessage: string | undefined;
  let error: string | undefined;
  for (const event of events) {
    const part = isObject(event.part) ? event.part : {};
    if (event.type === "tool_use" && isObject(part.state)) {
      const state = part.state;
      const output = typeof state.output === "string" ? state.output : typeof state.error === "string" ? state.error : undefined;
      toolCalls.push({
        name: String(part.tool),
        arguments: state.input ?? {},
        ...(output !== undefined ? { result: output } : {}),
        ...(state.status === "error" ? { isError: true } : {}),
      });
    } else if (event.type === "text" && typeof part.text === "string" && part.text.trim()) {
      finalMessage = part.text;
    } else if (event.type === "step_finish" && isObject(part.tokens)) {
      const tokens = part.tokens;
      const cache = isObject(tokens.cache) ? tokens.cache : {};
      const fresh = count(tokens.input);
      const output = count(tokens.output);
      const reasoning = count(tokens.reasoning);
      sum.add({
        input: fresh === undefined ? undefined : fresh + (count(cache.read) ?? 0) + (count(cache.write) ?? 0),
        cached: count(cache.read),
        // OpenCode counts reasoning apart from output; output includes reasoning.
        output: output === undefined ? undefined : output + (reasoning ?? 0),
        reasoning: reasoning,
        costUsd: count(part.cost),
      });
    } else if (event.type === "error") {
      const detail = isObject(event.error) ? event.error : {};
      error = isObject(detail.data) && typeof detail.data.message === "string" ? detail.data.message : String(detail.name ?? "error");
    }
  }
  const usage = sum.result();
  return transcript({ finalMessage, toolCalls, usage, error, events: events.length });
}
