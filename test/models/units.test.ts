/** The model layer's pure parts: names, keys and base URLs, the price table, budgets, usage. */
import { describe, expect, it } from "vitest";
import { Meter, budgetsFrom, parseLimit } from "../../src/models/budget.js";
import shipped from "../../src/models/prices.json" with { type: "json" };
import { costOf, parsePrice, priceOf, priceTable } from "../../src/models/prices.js";
import { parseModelName, resolveModel } from "../../src/models/providers.js";
import { usageFromWire } from "../../src/models/wire-usage.js";

describe("model names", () => {
  it("provider:model-id, with did-you-mean for a mistyped provider", () => {
    expect(parseModelName("anthropic:claude-sonnet-4-5")).toMatchObject({ name: "anthropic:claude-sonnet-4-5", modelId: "claude-sonnet-4-5" });
    expect(parseModelName("ollama:qwen3-coder:30b").modelId).toBe("qwen3-coder:30b");
    expect(() => parseModelName("gpt-5.1", "--learner-model")).toThrow(/--learner-model 'gpt-5.1': expected provider:model-id/);
    expect(() => parseModelName("antropic:claude")).toThrow(/unknown provider 'antropic'; did you mean 'anthropic'\?/);
    expect(() => parseModelName("openai:")).toThrow(/model id after 'openai:' is empty/);
  });
});

describe("keys and base URLs", () => {
  it("a missing key is a usage error naming the variable", () => {
    expect(() => resolveModel("openai:gpt-5.1", { env: {}, setting: "--learner-model" })).toThrow(
      expect.objectContaining({ code: "USAGE", message: "--learner-model 'openai:gpt-5.1' needs an API key: set OPENAI_API_KEY" }),
    );
    expect(() => resolveModel("google:gemini-2.5-pro", { env: {} })).toThrow(/set one of GOOGLE_GENERATIVE_AI_API_KEY, GEMINI_API_KEY, GOOGLE_API_KEY/);
  });

  it("each provider reads its usual variables; a flag wins over them", () => {
    expect(resolveModel("openai:gpt-5.1", { env: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "https://gw.example/v1/" } })).toMatchObject({ baseUrl: "https://gw.example/v1", baseUrlFrom: "env:OPENAI_BASE_URL", keyVariable: "OPENAI_API_KEY" });
    expect(resolveModel("anthropic:c", { env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "http://127.0.0.1:8080" } }).baseUrl).toBe("http://127.0.0.1:8080/v1");
    expect(resolveModel("anthropic:c", { env: { ANTHROPIC_API_KEY: "k" } }).baseUrl).toBe("https://api.anthropic.com/v1");
    expect(resolveModel("google:g", { env: { GEMINI_API_KEY: "k", GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:9000" } })).toMatchObject({ baseUrl: "http://127.0.0.1:9000/v1beta", keyVariable: "GEMINI_API_KEY" });
    expect(resolveModel("ollama:qwen3", { env: { OLLAMA_HOST: "0.0.0.0:11434" } })).toMatchObject({ baseUrl: "http://0.0.0.0:11434/v1" });
    expect(resolveModel("ollama:qwen3", { env: {} }).apiKey).toBeUndefined();
    expect(resolveModel("openai:m", { env: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "https://a/v1" }, baseUrl: "https://b/v1", baseUrlSetting: "--learner-base-url" })).toMatchObject({
      baseUrl: "https://b/v1",
      baseUrlFrom: "--learner-base-url",
    });
  });

  it("openai-compatible needs a base URL; a base URL must be http(s) without credentials", () => {
    expect(() => resolveModel("openai-compatible:m", { env: {}, baseUrlSetting: "--learner-base-url" })).toThrow(/needs a base URL: give --learner-base-url or set OPENAI_COMPATIBLE_BASE_URL/);
    expect(() => resolveModel("openai-compatible:m", { env: {}, baseUrl: "file:///etc/passwd" })).toThrow(/must be http or https/);
    expect(() => resolveModel("openai-compatible:m", { env: {}, baseUrl: "http://user:secret@host/v1" })).toThrow(/must not carry credentials/);
  });
});

describe("the price table", () => {
  it("every shipped row has positive prices, a date and the https page it came from", () => {
    const rows = (shipped as { prices: Record<string, unknown>[] }).prices;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(() => parseModelName(String(row.model))).not.toThrow();
      expect(row.input).toBeGreaterThan(0);
      expect(row.output).toBeGreaterThan(0);
      expect(row.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(row.source).toMatch(/^https:\/\/[^ ]+$/);
    }
  });

  it("--price is parsed strictly", () => {
    expect(parsePrice("openai:gpt-5.1=1.25/10")).toMatchObject({ model: "openai:gpt-5.1", input: 1.25, output: 10 });
    expect(() => parsePrice("openai:gpt-5.1=1.25")).toThrow(/expected provider:model-id=IN\/OUT/);
    expect(() => parsePrice("gpt=1/2")).toThrow(/expected provider:model-id/);
  });

  it("cost is unknown without a price or without both token counts, never 0", () => {
    const price = priceOf("openai:gpt-5.1", priceTable())!;
    expect(costOf({ input: 1000 }, price)).toBeUndefined();
    expect(costOf(undefined, price)).toBeUndefined();
    expect(costOf({ input: 1, output: 1 }, undefined)).toBeUndefined();
    expect(costOf({ input: 0, output: 0 }, price)).toBe(0);
  });
});

describe("budgets", () => {
  it("a number is the total; acting=/learning= set one role; a mapping works too", () => {
    expect(parseLimit(5, "--max-cost-usd")).toEqual({ total: 5 });
    expect(parseLimit(["5", "learning=1.5"], "--max-cost-usd")).toEqual({ total: 5, learning: 1.5 });
    expect(parseLimit("acting=100000,learning=2000", "--max-tokens")).toEqual({ acting: 100000, learning: 2000 });
    expect(parseLimit({ learning: 2 }, "max-cost-usd")).toEqual({ learning: 2 });
    expect(() => parseLimit("learner=2", "--max-cost-usd")).toThrow(/expected a number, or acting=N, learning=N, total=N/);
    expect(() => parseLimit({ teaching: 1 }, "max-cost-usd")).toThrow(/unknown part 'teaching'/);
  });

  it("acting and learning are counted apart and together", () => {
    const meter = new Meter(budgetsFrom({ total: 1, learning: 0.5 }, { acting: 100 }));
    meter.record("acting", { input: 60, output: 30 }, 0.3);
    meter.record("learning", { input: 10, output: 10 }, 0.4);
    expect(meter.spent("total")).toMatchObject({ tokens: 110, costUsd: 0.7 });
    expect(meter.refusal("acting", {})).toBeUndefined();
    expect(meter.refusal("acting", { tokens: 20 })).toMatch(/acting token budget: 90 of 100/);
    expect(meter.refusal("learning", { costUsd: 0.2 })).toMatch(/learning cost budget/);
    expect(meter.refusal("acting", { costUsd: 0.31 })).toMatch(/the run cost budget/);
  });
});

describe("usage as each protocol reports it", () => {
  it("Anthropic's input excludes its cache; Gemini's candidates exclude thinking", () => {
    expect(usageFromWire("anthropic-messages", { raw: { input_tokens: 50, cache_read_input_tokens: 30, cache_creation_input_tokens: 20, output_tokens: 9 } })).toEqual({ input: 100, output: 9, cached: 30 });
    expect(usageFromWire("gemini", { raw: { promptTokenCount: 100, candidatesTokenCount: 20, thoughtsTokenCount: 5 } })).toEqual({ input: 100, output: 25, reasoning: 5 });
    expect(usageFromWire("openai-chat", { raw: { prompt_tokens: 7, completion_tokens: 3 } })).toEqual({ input: 7, output: 3 });
    expect(usageFromWire("openai-responses", undefined)).toBeUndefined();
  });
});
