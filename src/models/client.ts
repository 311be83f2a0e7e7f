/**
 * The model client: one `generate` that calls a provider through the AI SDK, retrying 429, 5xx
 * and network errors with backoff (the SDK's, which honours `retry-after`), with a per-call
 * timeout and the caller's abort signal. Every call — answered, failed, refused by a budget or
 * aborted — is recorded, metered and priced; a call that would pass a budget is never made.
 */
import { generateText, jsonSchema, Output, streamText, type LanguageModel } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { HermitError } from "../errors.js";
import type { Meter, Role } from "./budget.js";
import type { CallAttempt, CallRecord, CallRecorder } from "./calls.js";
import { describeFailure, isAbort } from "./failures.js";
import { costOf, worstCaseCost, type Price } from "./prices.js";
import type { ResolvedModel } from "./providers.js";
import { estimateTokens, type TokenUsage } from "./usage.js";
import { usageFromWire, type SdkUsage } from "./wire-usage.js";

/** What a caller asks for. `schema` (JSON Schema) asks for a JSON object instead of text. */
export interface GenerateRequest {
  system?: string;
  prompt: string;
  maxOutputTokens?: number;
  schema?: Record<string, unknown>;
  /** What the call is for, kept in its record (e.g. `reflect: propose ADAPTER.md`). */
  purpose?: string;
  /** Aborts this call (the client's own signal aborts every call). */
  signal?: AbortSignal;
}

/** What a call returned. */
export interface GenerateResult {
  text: string;
  /** The parsed object, when a schema was given. */
  object?: unknown;
  /** `stop`, `length` (cut off at `maxOutputTokens`), `content-filter`, `error`, `other`. */
  finishReason: string;
  /** As reported; undefined when the provider reported nothing. */
  usage?: TokenUsage;
  /** Undefined when unknown (no price for the model, or no usage). */
  costUsd?: number;
  latencyMs: number;
  /** The call's record (its `index` names `calls/<index>.json`). */
  record: CallRecord;
}

/** A model ready to call. */
export interface ModelClient {
  readonly model: ResolvedModel;
  readonly price?: Price;
  generate(request: GenerateRequest): Promise<GenerateResult>;
}

export interface ModelClientOptions {
  model: ResolvedModel;
  /** The model's price; undefined: its cost is unknown. */
  price?: Price;
  /** Per call, all retries included. Default 10 minutes. */
  timeoutMs?: number;
  /** Retries after the first attempt, on 429, 5xx and network errors. Default 2. */
  retries?: number;
  /** Stream the answer (some gateways only stream). Default false. */
  stream?: boolean;
  /** Aborts every call (the run's signal). */
  signal?: AbortSignal;
  /** Checked before and fed after every call. */
  meter?: Meter;
  /** The role the meter counts these calls under. Default `learning`. */
  role?: Role;
  /** Where calls are recorded; without one they are not kept. */
  recorder?: CallRecorder;
  /** The HTTP client (tests and benchmarks pass the global one explicitly). */
  fetch?: typeof globalThis.fetch;
}

const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/** A client for one model. */
export function createModelClient(options: ModelClientOptions): ModelClient {
  return {
    model: options.model,
    ...(options.price ? { price: options.price } : {}),
    generate: (request) => generate(options, request),
  };
}

async function generate(options: ModelClientOptions, request: GenerateRequest): Promise<GenerateResult> {
  const role = options.role ?? "learning";
  const signal = anySignal(options.signal, request.signal);
  signal?.throwIfAborted();
  const startedAt = new Date();
  const base = baseRecord(options, request, startedAt);
  const inputTokens = estimateTokens(`${request.system ?? ""}\n${request.prompt}`);
  const refusal = options.meter?.refusal(role, {
    tokens: inputTokens + (request.maxOutputTokens ?? 0),
    ...(request.maxOutputTokens !== undefined ? { costUsd: worstCaseCost(inputTokens, request.maxOutputTokens, options.price) } : {}),
  });
  if (refusal) {
    await keep(options, { ...base, status: "refused", latencyMs: 0, error: `not made: ${refusal}` });
    throw new HermitError("BUDGET_EXCEEDED", `${options.model.name}: call not made: ${refusal}`, { model: options.model.name, reason: refusal });
  }
  const http = recordingFetch(options.fetch ?? globalThis.fetch);
  const started = performance.now();
  try {
    const answer = await callProvider(options, request, http.fetch, signal);
    const usage = usageFromWire(options.model.provider.protocol, answer.usage);
    const costUsd = costOf(usage, options.price);
    options.meter?.record(role, usage, costUsd);
    const latencyMs = Math.round(performance.now() - started);
    const record = await keep(options, {
      ...base,
      status: "ok",
      latencyMs,
      request: { ...base.request, body: http.requestBody() },
      response: answer.response,
      attempts: http.attempts,
      ...(usage ? { usage } : {}),
      ...(costUsd !== undefined ? { costUsd } : {}),
    });
    return { text: answer.response.text, ...(answer.response.object !== undefined ? { object: answer.response.object } : {}), finishReason: answer.response.finishReason, ...(usage ? { usage } : {}), ...(costUsd !== undefined ? { costUsd } : {}), latencyMs, record };
  } catch (error) {
    const aborted = signal?.aborted === true && isAbort(error);
    // No answer came back, so nothing was reported: the call's usage is unknown, not zero.
    options.meter?.record(role, undefined, undefined);
    const message = describeFailure(error, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    await keep(options, {
      ...base,
      status: aborted ? "aborted" : "error",
      latencyMs: Math.round(performance.now() - started),
      request: { ...base.request, body: http.requestBody() },
      attempts: http.attempts,
      error: message,
    });
    if (aborted) throw error;
    throw new HermitError("MODEL_CALL_FAILED", `${options.model.name}: ${message}`, { model: options.model.name, attempts: http.attempts });
  }
}

type Unnumbered = Omit<CallRecord, "index">;

function baseRecord(options: ModelClientOptions, request: GenerateRequest, startedAt: Date): Unnumbered {
  const { model, price } = options;
  return {
    role: options.role ?? "learning",
    ...(request.purpose ? { purpose: request.purpose } : {}),
    model: model.name,
    protocol: model.provider.protocol,
    baseUrl: model.baseUrl,
    status: "ok",
    startedAt: startedAt.toISOString(),
    latencyMs: 0,
    request: {
      ...(request.system !== undefined ? { system: request.system } : {}),
      prompt: request.prompt,
      ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
      ...(request.schema ? { schema: request.schema } : {}),
      stream: options.stream === true,
    },
    attempts: [],
    ...(price ? { price: { input: price.input, output: price.output, ...(price.cached !== undefined ? { cached: price.cached } : {}), source: price.source, ...(price.date ? { date: price.date } : {}) } } : {}),
  };
}

async function keep(options: ModelClientOptions, record: Unnumbered): Promise<CallRecord> {
  if (options.recorder) return options.recorder(record);
  return { index: 0, ...record };
}

interface ProviderAnswer {
  response: NonNullable<CallRecord["response"]>;
  usage: SdkUsage | undefined;
}

async function callProvider(options: ModelClientOptions, request: GenerateRequest, fetch: typeof globalThis.fetch, signal: AbortSignal | undefined): Promise<ProviderAnswer> {
  const settings = {
    model: languageModel(options.model, fetch),
    ...(request.system !== undefined ? { system: request.system } : {}),
    prompt: request.prompt,
    ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
    ...(request.schema ? { output: Output.object({ schema: jsonSchema(request.schema) }) } : {}),
    maxRetries: options.retries ?? 2,
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(signal ? { abortSignal: signal } : {}),
  };
  if (options.stream) return streamed(settings, request.schema !== undefined);
  const result = await generateText(settings);
  return {
    response: {
      text: result.text,
      ...(request.schema ? { object: result.output } : {}),
      finishReason: result.finishReason,
      ...(result.rawFinishReason !== undefined ? { rawFinishReason: result.rawFinishReason } : {}),
      id: result.response.id,
      modelId: result.response.modelId,
      ...(result.response.body !== undefined ? { body: result.response.body } : {}),
    },
    usage: result.usage,
  };
}

async function streamed(settings: Parameters<typeof streamText>[0], wantsObject: boolean): Promise<ProviderAnswer> {
  let failure: unknown;
  const result = streamText({ ...settings, onError: ({ error }) => void (failure ??= error) });
  try {
    const [text, finishReason, rawFinishReason, usage, response, output] = await Promise.all([
      result.text,
      result.finishReason,
      result.rawFinishReason,
      result.usage,
      result.response,
      wantsObject ? result.output : undefined,
    ]);
    return {
      response: {
        text,
        ...(wantsObject ? { object: output } : {}),
        finishReason,
        ...(rawFinishReason !== undefined ? { rawFinishReason } : {}),
        id: response.id,
        modelId: response.modelId,
      },
      usage,
    };
  } catch (error) {
    throw failure ?? error;
  }
}

/** The AI SDK model for a resolved name; every request goes through `fetch`. */
function languageModel(model: ResolvedModel, fetch: typeof globalThis.fetch): LanguageModel {
  const common = { baseURL: model.baseUrl, fetch, ...(model.apiKey ? { apiKey: model.apiKey } : {}) };
  switch (model.provider.id) {
    case "openai":
      return createOpenAI(common).responses(model.modelId);
    case "anthropic":
      return createAnthropic(common)(model.modelId);
    case "google":
      return createGoogleGenerativeAI(common)(model.modelId);
    default:
      return createOpenAICompatible({ ...common, name: model.provider.id, includeUsage: true })(model.modelId);
  }
}

/** A fetch that notes every attempt's status and latency, and the first request body. */
function recordingFetch(inner: typeof globalThis.fetch) {
  const attempts: CallAttempt[] = [];
  let body: string | undefined;
  const fetch: typeof globalThis.fetch = async (input, init) => {
    if (body === undefined && typeof init?.body === "string") body = init.body;
    const started = performance.now();
    try {
      const response = await inner(input, init);
      attempts.push({ status: response.status, latencyMs: Math.round(performance.now() - started) });
      return response;
    } catch (error) {
      attempts.push({ error: (error as Error)?.message ?? String(error), latencyMs: Math.round(performance.now() - started) });
      throw error;
    }
  };
  return {
    fetch,
    attempts,
    requestBody(): unknown {
      if (body === undefined) return undefined;
      try {
        return JSON.parse(body);
      } catch {
        return body;
      }
    },
  };
}

function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  return present.length <= 1 ? present[0] : AbortSignal.any(present);
}

/**
 * The learner API an Evolver gets as `ctx.model`: one `generate`, metered, budgeted and recorded
 * by the Trainer (`steps/<n>/calls/`). A call that would pass a budget throws a `BUDGET_EXCEEDED`
 * HermitError without being made; a provider failure after the retries, `MODEL_CALL_FAILED`.
 */
export interface LearnerModel {
  /** `provider:model-id`. */
  readonly name: string;
  /** True when hermit knows the model's price (else costs are unknown). */
  readonly priced: boolean;
  generate(request: Omit<GenerateRequest, "signal">): Promise<LearnerResult>;
}

/** What `ctx.model.generate` returns. */
export interface LearnerResult {
  text: string;
  object?: unknown;
  finishReason: string;
  usage?: TokenUsage;
  costUsd?: number;
  latencyMs: number;
  /** The call's number among the step's calls (`calls/<NNNN>.json`). */
  call: number;
}

/** `client` as the learner API. */
export function learnerModel(client: ModelClient): LearnerModel {
  return {
    name: client.model.name,
    priced: client.price !== undefined,
    async generate(request) {
      const { record, ...result } = await client.generate(request);
      return { ...result, call: record.index };
    },
  };
}
