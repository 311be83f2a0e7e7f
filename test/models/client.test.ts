/**
 * The model client through the real AI SDK providers against a stub server speaking each
 * provider's wire protocol: usage read as each provider reports it, cost from the price table,
 * retries, failures, budgets, aborts and what a call record keeps.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Meter, budgetsFrom, noBudgets } from "../../src/models/budget.js";
import { callRecorder } from "../../src/models/calls.js";
import { createModelClient } from "../../src/models/client.js";
import { priceOf, priceTable } from "../../src/models/prices.js";
import { resolveModel } from "../../src/models/providers.js";
import { tempDir } from "../helpers.js";
import { startStubProvider, type Script, type StubProvider } from "./stub-provider.js";

const KEY = "sk-test-secret-key-0123456789";
let stub: StubProvider | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function client(model: string, script: Script, options: { stream?: boolean; retries?: number; meter?: Meter; dir?: string; prices?: string[]; timeoutMs?: number } = {}) {
  stub = await startStubProvider(script);
  // OpenAI's base URL carries /v1 (OPENAI_BASE_URL=https://api.openai.com/v1); the others are given as hosts.
  const baseUrl = model.startsWith("openai:") ? `${stub.url}/v1` : stub.url;
  const resolved = resolveModel(model, { baseUrl, env: { OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: KEY, GEMINI_API_KEY: KEY } });
  return createModelClient({
    model: resolved,
    price: priceOf(resolved.name, priceTable(options.prices)),
    ...(options.stream !== undefined ? { stream: options.stream } : {}),
    retries: options.retries ?? 2,
    ...(options.meter ? { meter: options.meter } : {}),
    ...(options.dir ? { recorder: callRecorder(options.dir, [KEY]) } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
}

const USAGE = { input: 1200, output: 300, cached: 200, reasoning: 50 };

describe("the four providers, streaming and not", () => {
  const cases = [
    { model: "openai:gpt-5.1", protocol: "openai-responses", path: "/v1/responses" },
    { model: "anthropic:claude-sonnet-4-5-20250929", protocol: "anthropic-messages", path: "/v1/messages" },
    { model: "google:gemini-2.5-pro", protocol: "gemini", path: "/v1beta/models/gemini-2.5-pro:generateContent" },
    { model: "ollama:qwen3-coder", protocol: "openai-chat", path: "/v1/chat/completions" },
  ] as const;
  for (const { model, protocol, path } of cases) {
    for (const stream of [false, true]) {
      it(`${model} (${stream ? "streaming" : "one response"}): text, finish reason and usage as reported`, async () => {
        const dir = await tempDir();
        const learner = await client(model, [{ text: "new instructions", usage: USAGE }], { stream, dir });
        const result = await learner.generate({ system: "You improve instructions.", prompt: "Rewrite this.", maxOutputTokens: 500, purpose: "test" });
        expect(result.text).toBe("new instructions");
        expect(result.finishReason).toBe("stop");
        // Anthropic reports no reasoning count on a text answer: it stays unknown, not 0.
        const expected = protocol === "anthropic-messages" ? { input: 1200, output: 300, cached: 200 } : USAGE;
        expect(result.usage).toEqual(expected);
        const request = stub!.requests[0]!;
        expect(request.protocol).toBe(protocol);
        expect(request.path).toBe(stream && protocol === "gemini" ? path.replace(":generateContent", ":streamGenerateContent") : path);
        expect(request.stream).toBe(stream);
        expect(JSON.stringify(request.body)).toContain("Rewrite this.");
        const record = JSON.parse(await readFile(join(dir, "0001.json"), "utf8"));
        expect(record).toMatchObject({ index: 1, status: "ok", model: result.record.model, protocol, purpose: "test", response: { text: "new instructions", finishReason: "stop" }, usage: expected });
        expect(record.attempts).toEqual([expect.objectContaining({ status: 200 })]);
        expect(record.request.body).toBeDefined();
      });
    }
  }

  it("usage a provider leaves out stays unknown (an Ollama-style bare usage object)", async () => {
    const learner = await client("ollama:llama3", [{ text: "ok", usage: { input: 10, output: 4 }, bareUsage: true }]);
    const result = await learner.generate({ prompt: "hi" });
    expect(result.usage).toEqual({ input: 10, output: 4 });
    expect(result.costUsd).toBeUndefined();
  });

  it("no usage at all: usage and cost unknown, never 0", async () => {
    const learner = await client("openai:gpt-5.1", [{ text: "ok", usage: null }]);
    const result = await learner.generate({ prompt: "hi" });
    expect(result.usage).toBeUndefined();
    expect(result.costUsd).toBeUndefined();
  });

  it("a truncated answer says so: finish reason length, for every protocol", async () => {
    for (const model of ["openai:gpt-5.1", "anthropic:claude-haiku-4-5", "google:gemini-2.5-flash", "openai-compatible:m"]) {
      const learner = await client(model, [{ text: "cut he", finish: "length" }]);
      expect((await learner.generate({ prompt: "go", maxOutputTokens: 10 })).finishReason).toBe("length");
      await stub!.close();
    }
  });

  it("a schema asks for a JSON object and returns it parsed", async () => {
    const learner = await client("openai:gpt-5.1", [{ text: '{"component":"ADAPTER.md"}' }]);
    const result = await learner.generate({ prompt: "pick", schema: { type: "object", properties: { component: { type: "string" } }, required: ["component"] } });
    expect(result.object).toEqual({ component: "ADAPTER.md" });
    expect(JSON.stringify(stub!.requests[0]!.body)).toContain("json_schema");
  });
});

describe("cost", () => {
  it("comes from the shipped table: uncached input, cached input and output at their prices", async () => {
    const learner = await client("openai:gpt-5.1", [{ text: "x", usage: USAGE }]);
    const result = await learner.generate({ prompt: "hi" });
    // gpt-5.1: $1.25 in, $0.125 cached, $10 out per million.
    expect(result.costUsd).toBeCloseTo((1000 * 1.25 + 200 * 0.125 + 300 * 10) / 1e6, 12);
    expect(result.record.price).toMatchObject({ input: 1.25, output: 10, source: expect.stringMatching(/^https:\/\//), date: expect.any(String) });
  });

  it("a dated snapshot id finds its model's row; --price overrides and adds", async () => {
    const table = priceTable(["openai:gpt-5.1=2/20", "ollama:qwen3=0/0"]);
    expect(priceOf("anthropic:claude-sonnet-4-5-20250929", table)?.input).toBe(3);
    expect(priceOf("openai:gpt-5.1", table)).toMatchObject({ input: 2, output: 20, source: "--price" });
    expect(priceOf("ollama:qwen3", table)).toMatchObject({ input: 0, output: 0 });
    expect(priceOf("ollama:qwen2", table)).toBeUndefined();
  });

  it("a model without a price has an unknown cost", async () => {
    const learner = await client("google:gemini-2.5-pro", [{ text: "x", usage: USAGE }]);
    expect((await learner.generate({ prompt: "hi" })).costUsd).toBeUndefined();
  });
});

describe("failures", () => {
  it("429 then success: retried after the provider's retry-after, both attempts recorded", async () => {
    const dir = await tempDir();
    const learner = await client("openai:gpt-5.1", [{ status: 429, retryAfterMs: 20 }, { text: "after the wait" }], { dir });
    const result = await learner.generate({ prompt: "hi" });
    expect(result.text).toBe("after the wait");
    expect(stub!.requests).toHaveLength(2);
    expect(result.record.attempts.map((attempt) => attempt.status)).toEqual([429, 200]);
  });

  it("a 500 on every attempt fails after the retries, with the status and the provider's message", async () => {
    const dir = await tempDir();
    const learner = await client("anthropic:claude-haiku-4-5", [{ status: 500, retryAfterMs: 5 }], { dir, retries: 1 });
    const failure = await learner.generate({ prompt: "hi" }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "MODEL_CALL_FAILED" });
    expect((failure as Error).message).toMatch(/HTTP 500: The server had an error.*gave up after 2 attempts/);
    expect(stub!.requests).toHaveLength(2);
    const record = JSON.parse(await readFile(join(dir, "0001.json"), "utf8"));
    expect(record).toMatchObject({ status: "error", attempts: [{ status: 500 }, { status: 500 }] });
    expect(record.usage).toBeUndefined();
  });

  it("a connection refused is a network error, retried", async () => {
    const closed = await startStubProvider([]);
    await closed.close();
    const resolved = resolveModel("openai:gpt-5.1", { baseUrl: closed.url, env: { OPENAI_API_KEY: KEY } });
    const learner = createModelClient({ model: resolved, retries: 1 });
    const failure = await learner.generate({ prompt: "hi" }).catch((error: unknown) => error);
    expect((failure as Error).message).toMatch(/network error: .*ECONNREFUSED.*gave up after 2 attempts/);
  }, 20_000);

  it("the per-call timeout ends a call that does not answer", async () => {
    const learner = await client("openai:gpt-5.1", [{ text: "late", delayMs: 3_000 }], { timeoutMs: 200, retries: 0 });
    await expect(learner.generate({ prompt: "hi" })).rejects.toThrow(/no answer within the call timeout/);
  });

  it("the caller's signal aborts a call; it is recorded as aborted", async () => {
    const dir = await tempDir();
    const learner = await client("openai:gpt-5.1", [{ text: "late", delayMs: 3_000 }], { dir });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(learner.generate({ prompt: "hi", signal: controller.signal })).rejects.toMatchObject({ name: "AbortError" });
    expect(JSON.parse(await readFile(join(dir, "0001.json"), "utf8")).status).toBe("aborted");
  });
});

describe("budgets", () => {
  it("a call whose worst case would pass the budget is not made, and is recorded as refused", async () => {
    const dir = await tempDir();
    // gpt-5.1 at $10 per million output tokens: 1,000 output tokens may cost $0.01; the first call costs $0.0045.
    const meter = new Meter(budgetsFrom({ total: 0.014 }));
    const learner = await client("openai:gpt-5.1", [{ text: "a", usage: { input: 400, output: 400 } }], { meter, dir });
    await learner.generate({ prompt: "first", maxOutputTokens: 1000 });
    expect(meter.spent("learning").costUsd).toBeCloseTo((400 * 1.25 + 400 * 10) / 1e6, 12);
    await expect(learner.generate({ prompt: "second", maxOutputTokens: 1000 })).rejects.toMatchObject({ code: "BUDGET_EXCEEDED" });
    expect(stub!.requests).toHaveLength(1);
    expect(await readdir(dir)).toEqual(["0001.json", "0002.json"]);
    expect(JSON.parse(await readFile(join(dir, "0002.json"), "utf8"))).toMatchObject({ status: "refused", error: expect.stringMatching(/cost budget/) });
  });

  it("a token budget works for a model without a price", async () => {
    const meter = new Meter(budgetsFrom({}, { learning: 1000 }));
    const learner = await client("google:gemini-2.5-pro", [{ text: "a", usage: { input: 700, output: 200 } }], { meter });
    await learner.generate({ prompt: "first", maxOutputTokens: 50 });
    expect(meter.spent("learning")).toMatchObject({ tokens: 900, costUnknown: 1 });
    await expect(learner.generate({ prompt: "second", maxOutputTokens: 200 })).rejects.toThrow(/learning token budget: 900 of 1000/);
  });

  it("a failed call counts as unknown usage, never as zero", async () => {
    const meter = new Meter(noBudgets());
    const learner = await client("openai:gpt-5.1", [{ status: 500 }], { meter, retries: 0 });
    await learner.generate({ prompt: "x" }).catch(() => undefined);
    expect(meter.spent("learning")).toMatchObject({ sources: 1, tokensUnknown: 1, costUnknown: 1, tokens: 0 });
  });
});

describe("records keep no credentials", () => {
  it("no header, no key: not even where a provider echoes it back", async () => {
    const dir = await tempDir();
    const learner = await client("openai:gpt-5.1", () => ({ text: `you sent ${KEY}` }), { dir });
    await learner.generate({ prompt: `my key is ${KEY}` });
    const text = await readFile(join(dir, "0001.json"), "utf8");
    expect(text).not.toContain(KEY);
    expect(text).toContain("<redacted>");
    expect(stub!.requests[0]!.headerNames).toContain("authorization");
  });
});
