/**
 * Gemini CLI's `-p -o stream-json` output: `tool_use` / `tool_result` events, `message`
 * events (the assistant's text in deltas) and a final `result` with `stats` (`input_tokens`
 * with the cache included, `cached`, `output_tokens` without the thoughts, `total_tokens`;
 * no cost). The `-o json` document (one
 * `response` and `stats.models[<model>].tokens {prompt, candidates, cached, thoughts}`) is
 * read too.
 */
import type { HostToolCall, HostTranscript } from "../types.js";
import { UsageSum, count, isObject, jsonEvents, transcript, settle } from "./shared.js";

/** Usage of a `-o json` document: summed over `stats.models`. */
function documentUsage(stats: Record<string, unknown>): HostTranscript["usage"] {
  if (!isObject(stats.models)) return undefined;
  const sum = new UsageSum();
  const names = Object.keys(stats.models);
  for (const model of Object.values(stats.models)) {
    const tokens = isObject(model) && isObject(model.tokens) ? model.tokens : {};
    const candidates = count(tokens.candidates);
    const thoughts = count(tokens.thoughts);
    sum.add({
      input: count(tokens.prompt),
      cached: count(tokens.cached),
      // Gemini counts thoughts apart from candidates; output includes reasoning.
      output: candidates === undefined ? undefined : candidates + (thoughts ?? 0),
      reasoning: thoughts,
    });
  }
  return sum.result(names.length === 1 ? names[0] : undefined);
}

/**
 * Usage of a stream's `result.stats`. Its `output_tokens` are the candidates alone; the
 * thoughts are only in `total_tokens` (prompt + candidates + thoughts), so output with
 * reasoning is `total_tokens - input_tokens`.
 */
function streamUsage(stats: Record<string, unknown>): HostTranscript["usage"] {
  const input = count(stats.input_tokens);
  const candidates = count(stats.output_tokens);
  const total = count(stats.total_tokens);
  const withThoughts = total !== undefined && input !== undefined && candidates !== undefined && total - input >= candidates;
  const output = withThoughts ? total - input : candidates;
  const sum = new UsageSum();
  sum.add({
    input: input,
    cached: count(stats.cached),
    output: output,
    reasoning: withThoughts ? total - input - candidates : undefined,
  });
  const names = isObject(stats.models) ? Object.keys(stats.models) : [];
  return sum.result(names.length === 1 ? names[0] : undefined);
}

export function readGemini(stdout: string): HostTranscript {
  const events = jsonEvents(stdout);
  const calls = new Map<string, HostToolCall>();
  const toolCalls: HostToolCall[] = [];
  let finalMessage: string | undefined;
  let pending = "";
  let error: string | undefined;
  let usage: HostTranscript["usage"];
  for (const event of events) {
    if (event.type === "tool_use") {
      const call: HostToolCall = { name: String(event.tool_name), arguments: event.parameters ?? {} };
      calls.set(String(event.tool_id), call);
      toolCalls.push(call);
      pending = "";
    } else if (event.type === "tool_result") {
      const problem = isObject(event.error) ? String(event.error.message) : undefined;
      settle(calls, event.tool_id, typeof event.output === "string" ? event.output : problem, event.status === "error");
    } else if (event.type === "message" && event.role === "assistant" && typeof event.content === "string") {
      // Deltas of one message arrive in order; a tool call starts the next message.
      pending = event.delta === true ? pending + event.content : event.content;
      if (pending.trim()) finalMessage = pending;
    } else if (event.type === "result") {
      if (event.status === "error" || isObject(event.error)) error = isObject(event.error) ? String(event.error.message) : "error";
      if (isObject(event.stats)) usage = streamUsage(event.stats);
    } else if ("response" in event || "stats" in event) {
      if (typeof event.response === "string" && event.response.trim()) finalMessage = event.response;
      if (isObject(event.error)) error = String(event.error.message);
      if (isObject(event.stats)) usage = documentUsage(event.stats);
    }
  }
  return transcript({ finalMessage, toolCalls, usage, error, events: events.length });
}
