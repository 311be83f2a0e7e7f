/**
 * Provider failures in words (pure): the HTTP status and the provider's message, the number of
 * attempts a retried call made, a timeout, a refused connection.
 */
import { APICallError, RetryError } from "ai";
import { errorMessage } from "../errors.js";

/** True for an abort (the caller's signal) or a timeout. */
export function isAbort(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === "AbortError" || name === "TimeoutError" || name === "ResponseAborted";
}

/** One line: what went wrong with a call. */
export function describeFailure(error: unknown, timeoutMs: number): string {
  if (RetryError.isInstance(error)) {
    const attempts = error.errors.length;
    const last = describeOne(error.lastError, timeoutMs);
    return error.reason === "maxRetriesExceeded" ? `${last} (gave up after ${attempts} attempts)` : last;
  }
  return describeOne(error, timeoutMs);
}

function describeOne(error: unknown, timeoutMs: number): string {
  if (APICallError.isInstance(error)) {
    if (error.statusCode === undefined) return `network error: ${networkCause(error)}`;
    const detail = providerMessage(error.responseBody) ?? error.message;
    return `HTTP ${error.statusCode}: ${clip(detail)}`;
  }
  if ((error as { name?: unknown } | null)?.name === "TimeoutError") return `no answer within the call timeout (${Math.round(timeoutMs / 1000)}s)`;
  return clip(errorMessage(error));
}

/** The message inside a provider's JSON error body (`{ error: { message } }` and the like). */
function providerMessage(body: string | undefined): string | undefined {
  if (!body) return undefined;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const inner = typeof parsed.error === "object" ? parsed.error?.message : parsed.error ?? parsed.message;
    return typeof inner === "string" ? inner : body;
  } catch {
    return body;
  }
}

function networkCause(error: APICallError): string {
  const cause = error.cause as { cause?: { code?: string; message?: string }; message?: string } | undefined;
  return cause?.cause?.code ?? cause?.cause?.message ?? cause?.message ?? error.message;
}

function clip(text: string, limit = 400): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > limit ? `${line.slice(0, limit)}…` : line;
}
