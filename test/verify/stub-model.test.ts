/**
 * The stub model speaks each protocol well enough for the vendors' own client SDKs (the
 * versions the host CLIs ship, from test/hosts/node_modules) to complete a streamed
 * one-turn answer, and records every request.
 */
import { existsSync } from "node:fs";
import { createConnection } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { conversationOf, protocolOf, startStubModel, type StubAgent, type StubModel } from "../../src/verify/stub-model.js";
import { hostBinDir, skipBecause } from "../helpers.js";

/** The host CLIs' own node_modules (beside their .bin folder). */
const HOST_MODULES = join(hostBinDir, "..");
const sdk = (name: string) => join(HOST_MODULES, ...name.split("/"));
/** Why the vendor SDK `name` (shipped inside the host CLIs) cannot be loaded here, or undefined. */
const noSdk = (name: string) =>
  existsSync(join(sdk(name), "package.json")) ? undefined : `${name} is not in ${HOST_MODULES} (it comes with the host CLIs: npm run setup:hosts)`;
const importSdk = async (name: string, entry: string) => import(pathToFileURL(join(sdk(name), entry)).href);

let stub: StubModel | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("stub model: routes", () => {
  it("classifies requests by path", () => {
    expect(protocolOf("POST", "/v1/messages?beta=true")).toBe("anthropic-messages");
    expect(protocolOf("POST", "/v1/messages/count_tokens")).toBe("anthropic-messages");
    expect(protocolOf("POST", "/v1/responses")).toBe("openai-responses");
    expect(protocolOf("POST", "/v1/chat/completions")).toBe("openai-chat");
    expect(protocolOf("POST", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse")).toBe("gemini");
    expect(protocolOf("POST", "/v1beta/models/gemini-2.5-flash:generateContent")).toBe("gemini");
    expect(protocolOf("GET", "/v1/models")).toBe("unknown");
    expect(protocolOf("POST", "/v1/embeddings")).toBe("unknown");
  });

  it("records every request in order, redacts credentials, answers unknown routes 404, and closes its port", async () => {
    stub = await startStubModel({ reply: "hi" });
    expect(stub.url).toBe(`http://127.0.0.1:${stub.port}`);
    const chat = await fetch(`${stub.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer secret-key" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hello" }] }),
    });
    expect(await chat.json()).toMatchObject({ choices: [{ message: { role: "assistant", content: "hi" }, finish_reason: "stop" }] });
    const missing = await fetch(`${stub.url}/v1/embeddings`, { method: "POST", body: "not json" });
    expect(missing.status).toBe(404);

    expect(stub.requests.map((request) => [request.index, request.method, request.url, request.protocol, request.status])).toEqual([
      [1, "POST", "/v1/chat/completions", "openai-chat", 200],
      [2, "POST", "/v1/embeddings", "unknown", 404],
    ]);
    expect(stub.requests[0].headers.authorization).toBe("<redacted>");
    expect(stub.requests[0].body).toEqual({ model: "m", messages: [{ role: "user", content: "hello" }] });
    expect(stub.requests[1].body).toBeUndefined();
    expect(stub.requests[1].bodyText).toBe("not json");

    const port = stub.port;
    await stub.close();
    await stub.close();
    expect(await portOpen(port)).toBe(false);
  });

  it("answers a Gemini side question that demands JSON with schema-shaped JSON", async () => {
    stub = await startStubModel({ reply: "fine" });
    const response = await fetch(`${stub.url}/v1beta/models/gemini-2.5-flash:generateContent`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        contents: [{ role: "user", parts: [{ text: "who speaks next?" }] }],
        generationConfig: {
          responseMimeType: "application/json",
          responseJsonSchema: {
            type: "object",
            properties: { reasoning: { type: "string" }, next_speaker: { type: "string", enum: ["user", "model"] } },
            required: ["reasoning", "next_speaker"],
          },
        },
      }),
    });
    const body = (await response.json()) as { candidates: Array<{ content: { parts: Array<{ text: string }> } }> };
    expect(JSON.parse(body.candidates[0].content.parts[0].text)).toEqual({ reasoning: "fine", next_speaker: "user" });
  });
});

describe("stub model: the vendors' SDKs complete a streamed answer", () => {
  it.skipIf(skipBecause(noSdk("@anthropic-ai/sdk")))("Anthropic Messages (streaming)", async () => {
    stub = await startStubModel({ reply: "anthropic ok" });
    const { default: Anthropic } = await importSdk("@anthropic-ai/sdk", "index.mjs");
    const client = new Anthropic({ apiKey: "x", baseURL: stub.url, maxRetries: 0 });
    const stream = client.messages.stream({ model: "claude-test", max_tokens: 16, messages: [{ role: "user", content: "hello" }] });
    const message = await stream.finalMessage();
    expect(message.content.map((block: { type: string; text?: string }) => [block.type, block.text])).toEqual([["text", "anthropic ok"]]);
    expect(message.stop_reason).toBe("end_turn");
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0]).toMatchObject({ protocol: "anthropic-messages", body: { stream: true, model: "claude-test" } });
  });

  it.skipIf(skipBecause(noSdk("openai")))("OpenAI Responses (streaming)", async () => {
    stub = await startStubModel({ reply: "responses ok" });
    const { default: OpenAI } = await importSdk("openai", "index.mjs");
    const client = new OpenAI({ apiKey: "x", baseURL: `${stub.url}/v1`, maxRetries: 0 });
    const stream = client.responses.stream({ model: "gpt-test", input: "hello" });
    let deltas = "";
    for await (const event of stream) if (event.type === "response.output_text.delta") deltas += event.delta;
    const response = await stream.finalResponse();
    expect(deltas).toBe("responses ok");
    expect(response.status).toBe("completed");
    expect(response.output).toMatchObject([{ type: "message", role: "assistant", content: [{ type: "output_text", text: "responses ok" }] }]);
    expect(stub.requests[0]).toMatchObject({ protocol: "openai-responses", body: { stream: true } });
  });

  it.skipIf(skipBecause(noSdk("openai")))("OpenAI Chat Completions (streaming, with usage)", async () => {
    stub = await startStubModel({ reply: "chat ok" });
    const { default: OpenAI } = await importSdk("openai", "index.mjs");
    const client = new OpenAI({ apiKey: "x", baseURL: `${stub.url}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "hello" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let finish: string | null = null;
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect({ text, finish }).toEqual({ text: "chat ok", finish: "stop" });
    expect(usage).toMatchObject({ total_tokens: 2 });
  });

  it.skipIf(skipBecause(noSdk("@google/genai")))("Gemini streamGenerateContent and generateContent", async () => {
    stub = await startStubModel({ reply: "gemini ok" });
    const { GoogleGenAI } = await importSdk("@google/genai", "dist/node/index.mjs");
    const client = new GoogleGenAI({ apiKey: "x", httpOptions: { baseUrl: stub.url } });
    let text = "";
    for await (const chunk of await client.models.generateContentStream({ model: "gemini-2.5-flash", contents: "hello" })) {
      text += chunk.text ?? "";
    }
    expect(text).toBe("gemini ok");
    const whole = await client.models.generateContent({ model: "gemini-2.5-flash", contents: "hello" });
    expect(whole.text).toBe("gemini ok");
    expect(stub.requests.map((request) => request.url)).toEqual([
      "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
      "/v1beta/models/gemini-2.5-flash:generateContent",
    ]);
  });
});

describe("stub model: a scripted agent's tool calls reach the vendors' SDKs", () => {
  const usage = { input: 40, output: 9, cached: 4, reasoning: 3 };
  const agent: StubAgent = (conversation) => {
    const result = conversation.items.find((item) => item.type === "tool-result");
    if (result) return { text: `saw ${result.text}`, usage };
    return { toolCalls: [{ name: conversation.tools[0]!.name, arguments: { text: "a b c" } }], usage };
  };

  it.skipIf(skipBecause(noSdk("@anthropic-ai/sdk")))("Anthropic Messages: a streamed tool_use, then the tool_result read back", async () => {
    stub = await startStubModel({ agent });
    const { default: Anthropic } = await importSdk("@anthropic-ai/sdk", "index.mjs");
    const client = new Anthropic({ apiKey: "x", baseURL: stub.url, maxRetries: 0 });
    const tools = [{ name: "count", description: "count", input_schema: { type: "object", properties: { text: { type: "string" } } } }];
    const first = await client.messages.stream({ model: "m", max_tokens: 64, tools, messages: [{ role: "user", content: "go" }] }).finalMessage();
    expect(first.stop_reason).toBe("tool_use");
    const call = first.content.find((block: { type: string }) => block.type === "tool_use");
    expect(call).toMatchObject({ name: "count", input: { text: "a b c" } });
    expect(first.usage).toMatchObject({ input_tokens: 36, cache_read_input_tokens: 4, output_tokens: 9 });
    const second = await client.messages.create({
      model: "m",
      max_tokens: 64,
      tools,
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "3" }] },
      ],
    });
    expect(second.content).toEqual([{ type: "text", text: "saw 3" }]);
    expect(conversationOf(stub.requests[1]!)?.items.at(-1)).toEqual({ type: "tool-result", id: call.id, text: "3" });
  });

  it.skipIf(skipBecause(noSdk("openai")))("OpenAI Responses: function calls (in a namespace), free-form calls and tool search", async () => {
    stub = await startStubModel({
      agent: () => ({
        toolCalls: [
          { name: "count", namespace: "mcp__x", arguments: { text: "a" } },
          { name: "apply_patch", kind: "custom", input: "*** Begin Patch\n*** End Patch\n" },
          { name: "tool_search", kind: "tool-search", arguments: { query: "count" } },
        ],
        usage,
      }),
    });
    const { default: OpenAI } = await importSdk("openai", "index.mjs");
    const client = new OpenAI({ apiKey: "x", baseURL: `${stub.url}/v1`, maxRetries: 0 });
    const stream = client.responses.stream({ model: "gpt-test", input: "go" });
    const response = await stream.finalResponse();
    expect(response.output.map((item: { type: string }) => item.type)).toEqual(["function_call", "custom_tool_call", "tool_search_call"]);
    expect(response.output[0]).toMatchObject({ name: "count", namespace: "mcp__x", arguments: '{"text":"a"}' });
    expect(response.output[1]).toMatchObject({ name: "apply_patch", input: "*** Begin Patch\n*** End Patch\n" });
    expect(response.usage).toMatchObject({ input_tokens: 40, output_tokens: 9, input_tokens_details: { cached_tokens: 4 }, output_tokens_details: { reasoning_tokens: 3 } });
  });

  it.skipIf(skipBecause(noSdk("openai")))("OpenAI Chat Completions: streamed tool_calls with finish_reason tool_calls", async () => {
    stub = await startStubModel({ agent });
    const { default: OpenAI } = await importSdk("openai", "index.mjs");
    const client = new OpenAI({ apiKey: "x", baseURL: `${stub.url}/v1`, maxRetries: 0 });
    const tools = [{ type: "function", function: { name: "count", parameters: { type: "object", properties: { text: { type: "string" } } } } }];
    const stream = client.chat.completions.stream({ model: "m", tools, messages: [{ role: "user", content: "go" }], stream_options: { include_usage: true } });
    const completion = await stream.finalChatCompletion();
    expect(completion.choices[0].finish_reason).toBe("tool_calls");
    expect(completion.choices[0].message.tool_calls).toMatchObject([{ type: "function", function: { name: "count", arguments: '{"text":"a b c"}' } }]);
    expect(completion.usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 9 });
  });

  it.skipIf(skipBecause(noSdk("@google/genai")))("Gemini: a functionCall part, and thoughts counted apart from the candidates", async () => {
    stub = await startStubModel({ agent });
    const { GoogleGenAI } = await importSdk("@google/genai", "dist/node/index.mjs");
    const client = new GoogleGenAI({ apiKey: "x", httpOptions: { baseUrl: stub.url } });
    const response = await client.models.generateContent({
      model: "gemini-2.5-flash",
      contents: "go",
      config: { tools: [{ functionDeclarations: [{ name: "count", parametersJsonSchema: { type: "object", properties: { text: { type: "string" } } } }] }] },
    });
    expect(response.functionCalls).toMatchObject([{ name: "count", args: { text: "a b c" } }]);
    expect(response.usageMetadata).toMatchObject({ promptTokenCount: 40, candidatesTokenCount: 6, thoughtsTokenCount: 3, cachedContentTokenCount: 4, totalTokenCount: 49 });
  });

  it("a provider error, in the provider's own shape; an agent that throws is a 500", async () => {
    stub = await startStubModel({ agent: (conversation) => (conversation.tools.length === 0 ? { error: { status: 401, message: "no key" } } : (() => { throw new Error("bad script"); })()) });
    const refused = await fetch(`${stub.url}/v1/messages`, { method: "POST", body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }) });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ type: "error", error: { type: "authentication_error", message: "no key" } });
    const broken = await fetch(`${stub.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m", messages: [], tools: [{ type: "function", function: { name: "f" } }] }) });
    expect(broken.status).toBe(500);
    expect(JSON.stringify(await broken.json())).toMatch(/scripted agent failed: bad script/);
  });
});
