/**
 * The record of one model call (`steps/<n>/calls/<k>.json`): model, request, response, finish
 * reason, latency, every HTTP attempt, usage as reported and its cost. Credentials are never
 * part of it: headers are not kept, and the key's value is scrubbed from anything that echoes it.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { writeJson } from "../fs/json.js";
import type { Role } from "./budget.js";
import type { WireProtocol } from "./providers.js";
import type { TokenUsage } from "./usage.js";

/** One HTTP attempt of a call (a retried call has several). */
export interface CallAttempt {
  /** The HTTP status, when a response came. */
  status?: number;
  /** The network error, when none came. */
  error?: string;
  latencyMs: number;
}

/** How a call ended: answered, failed after its retries, refused by a budget, or aborted. */
export type CallStatus = "ok" | "error" | "refused" | "aborted";

export interface CallRecord {
  /** 1-based position among the calls of its directory. */
  index: number;
  role: Role;
  /** What the caller said the call is for, e.g. `reflect: propose ADAPTER.md`. */
  purpose?: string;
  /** `provider:model-id`. */
  model: string;
  protocol: WireProtocol;
  baseUrl: string;
  status: CallStatus;
  startedAt: string;
  latencyMs: number;
  request: {
    system?: string;
    prompt: string;
    maxOutputTokens?: number;
    schema?: unknown;
    stream: boolean;
    /** The JSON body of the first HTTP attempt, as sent. */
    body?: unknown;
  };
  response?: {
    text: string;
    object?: unknown;
    /** `stop`, `length` (truncated), `content-filter`, `error`, `other`, … */
    finishReason: string;
    /** The provider's own word for it (`end_turn`, `max_tokens`, `STOP`, …). */
    rawFinishReason?: string;
    id?: string;
    /** The model that answered, as the provider named it. */
    modelId?: string;
    /** The provider's response body (non-streaming calls). */
    body?: unknown;
  };
  attempts: CallAttempt[];
  /** As reported; absent when the provider reported none. */
  usage?: TokenUsage;
  /** From the price table; absent when unknown (no price, or no usage). */
  costUsd?: number;
  price?: { input: number; output: number; cached?: number; source: string; date?: string };
  error?: string;
}

/** Something that keeps call records, e.g. a step's `calls/` directory. */
export type CallRecorder = (record: Omit<CallRecord, "index">) => Promise<CallRecord>;

/**
 * A recorder writing `0001.json`, `0002.json`, … into `dir`, numbered after the files already
 * there (a step redone after a crash adds to its calls; it never overwrites one).
 */
export function callRecorder(dir: string, secrets: readonly string[] = []): CallRecorder {
  let next: Promise<number> | undefined;
  return async (record) => {
    next = (next ?? firstFreeIndex(dir)).then((index) => index + 1);
    const index = (await next) - 1;
    const full = { index, ...record } as CallRecord;
    await writeJson(join(dir, `${String(index).padStart(4, "0")}.json`), scrubbed(full, secrets));
    return full;
  };
}

async function firstFreeIndex(dir: string): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const used = names.map((name) => /^(\d+)\.json$/.exec(name)?.[1]).filter((value): value is string => value !== undefined).map(Number);
  return used.length > 0 ? Math.max(...used) + 1 : 1;
}

/** `value` with every occurrence of a secret (at least 8 characters) replaced by `<redacted>`. */
export function scrubbed<T>(value: T, secrets: readonly string[]): T {
  const worth = secrets.filter((secret) => secret.length >= 8);
  if (worth.length === 0) return value;
  let text = JSON.stringify(value);
  for (const secret of worth) text = text.split(JSON.stringify(secret).slice(1, -1)).join("<redacted>");
  return JSON.parse(text) as T;
}
