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
import { protocolOf, startStubModel, type StubModel } from "../../src/verify/stub-model.js";
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
