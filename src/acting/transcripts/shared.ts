/** Helpers the transcript readers share: JSON lines, numbers, usage sums. Pure. */
import type { HostToolCall, HostTranscript, HostUsage } from "../types.js";

type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Every JSON object in `stdout`: one per line (a host's event stream), or one whole document. */
export function jsonEvents(stdout: string): Json[] {
  const events: Json[] = [];
  for (const line of stdout.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (!trimmed.startsWith("{")) continue;
    try {
      const value = JSON.parse(trimmed) as unknown;
      if (isObject(value)) events.push(value);
    } catch {
      // a partial line (the host was killed mid-write) or a pretty-printed document
    }
  }
  if (events.length > 0) return events;
  try {
    const whole = JSON.parse(stdout.trim()) as unknown;
    return isObject(whole) ? [whole] : [];
  } catch {
    return [];
  }
}

/** A finite non-negative number, or undefined. */
export function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The text of a tool result or message content (a string or a list of text parts). */
export function textOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    const parts = value.map((part) => (isObject(part) && typeof part.text === "string" ? part.text : typeof part === "string" ? part : undefined));
    const texts = parts.filter((part): part is string => part !== undefined);
    return texts.length > 0 ? texts.join("\n") : JSON.stringify(value);
  }
  if (value === undefined || value === null) return undefined;
  return JSON.stringify(value);
}

/**
 * Usage summed over several reports (steps, turns, messages): a field is known only when
 * every report gave it, so a partial sum never passes for a total.
 */
export class UsageSum {
  private readonly totals = new Map<keyof HostUsage, number | null>();
  private reports = 0;

  add(report: Partial<Record<"input" | "output" | "cached" | "reasoning" | "costUsd", number | undefined>>): void {
    this.reports += 1;
    for (const key of ["input", "output", "cached", "reasoning", "costUsd"] as const) {
      const value = report[key];
      const before = this.totals.get(key);
      if (before === null) continue;
      this.totals.set(key, value === undefined ? null : (before ?? 0) + value);
    }
  }

  /** The sums, with `costSource: "host"` when the cost was reported; undefined when nothing was. */
  result(model?: string): HostUsage | undefined {
    if (this.reports === 0) return undefined;
    const usage: HostUsage = {};
    for (const [key, value] of this.totals) if (typeof value === "number") (usage as Record<string, number>)[key] = value;
    if (usage.costUsd !== undefined) usage.costSource = "host";
    if (model !== undefined) usage.model = model;
    return Object.keys(usage).length > (model !== undefined ? 1 : 0) ? usage : undefined;
  }
}

/** Attach a result to the call with `id` (the last one, when ids repeat). */
export function settle(calls: Map<string, HostToolCall>, id: unknown, result: string | undefined, isError: boolean): void {
  const call = calls.get(String(id));
  if (!call) return;
  if (result !== undefined) call.result = result;
  if (isError) call.isError = true;
}

/** A transcript with only what was found (no `finalMessage`, `usage` or `error` keys when absent). */
export function transcript(parts: { finalMessage?: string; toolCalls: HostToolCall[]; usage?: HostUsage; error?: string; events: number }): HostTranscript {
  return {
    ...(parts.finalMessage !== undefined ? { finalMessage: parts.finalMessage } : {}),
    toolCalls: parts.toolCalls,
    ...(parts.usage ? { usage: parts.usage } : {}),
    ...(parts.error !== undefined ? { error: parts.error } : {}),
    events: parts.events,
  };
}
