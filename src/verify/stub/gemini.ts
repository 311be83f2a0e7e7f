/**
 * Gemini `generateContent` / `streamGenerateContent` / `countTokens` for the stub model:
 * reading a request, answering a turn, and answering Gemini CLI's side questions (asked with
 * a JSON response schema) with schema-shaped JSON so that it does not retry.
 */
import {
  DEFAULT_USAGE,
  isObject,
  sse,
  textOf,
  type Answer,
  type Conversation,
  type ConversationItem,
  type OfferedTool,
  type StubTurn,
} from "./types.js";

/** The conversation of a Gemini request body. */
export function readGemini(body: Record<string, unknown>, model: string): Conversation {
  const items: ConversationItem[] = [];
  for (const content of Array.isArray(body.contents) ? body.contents : []) {
    if (!isObject(content)) continue;
    const role = content.role === "model" ? "assistant" : "user";
    for (const part of Array.isArray(content.parts) ? content.parts : []) {
      if (!isObject(part)) continue;
      if (typeof part.text === "string" && part.thought !== true) items.push({ type: "text", role, text: part.text });
      else if (isObject(part.functionCall)) {
        const call = part.functionCall;
        // Without ids, a call and its response pair up by the function's name.
        items.push({ type: "tool-call", id: String(call.id ?? call.name), name: String(call.name), arguments: call.args ?? {} });
      } else if (isObject(part.functionResponse)) {
        const response = part.functionResponse;
        items.push({
          type: "tool-result",
          id: String(response.id ?? response.name),
          name: String(response.name),
          text: typeof response.response === "string" ? response.response : JSON.stringify(response.response ?? {}),
        });
      }
    }
  }
  const tools: OfferedTool[] = [];
  for (const group of Array.isArray(body.tools) ? body.tools : []) {
    if (!isObject(group)) continue;
    for (const declaration of Array.isArray(group.functionDeclarations) ? group.functionDeclarations : []) {
      if (!isObject(declaration) || typeof declaration.name !== "string") continue;
      tools.push({
        name: declaration.name,
        description: textOf(declaration.description),
        schema: declaration.parametersJsonSchema ?? declaration.parameters,
        kind: "function",
      });
    }
  }
  return { protocol: "gemini", model, system: textOf(body.systemInstruction), items, tools };
}

function geminiResponse(turn: StubTurn, model: string): unknown {
  const usage = turn.usage ?? DEFAULT_USAGE;
  const parts: Array<Record<string, unknown>> = [];
  if (turn.text !== undefined) parts.push({ text: turn.text });
  for (const call of turn.toolCalls ?? []) parts.push({ functionCall: { name: call.name, args: call.arguments ?? {} } });
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    // Gemini counts thoughts apart from the candidates.
    usageMetadata: {
      promptTokenCount: usage.input,
      candidatesTokenCount: usage.output - (usage.reasoning ?? 0),
      totalTokenCount: usage.input + usage.output,
      ...(usage.cached ? { cachedContentTokenCount: usage.cached } : {}),
      ...(usage.reasoning ? { thoughtsTokenCount: usage.reasoning } : {}),
    },
    modelVersion: model,
    responseId: "hermit-stub",
  };
}

/** The model and method of a Gemini path (`…/models/<model>:<method>`). */
export function geminiRoute(path: string): { model: string; method: string | undefined } {
  const match = /\/models\/([^/:]+):(\w+)$/.exec(path);
  return { model: match?.[1] ?? "stub-model", method: match?.[2] };
}

/** The answer to a Gemini request for `turn`, in the framing the URL asks for. */
export function answerGemini(turn: StubTurn, model: string, method: string | undefined, url: string): Answer {
  const response = geminiResponse(turn, model);
  if (method === "streamGenerateContent") {
    // alt=sse is what the Gen AI SDK asks for; without it the API streams one JSON array.
    if (/[?&]alt=sse\b/.test(url)) return { status: 200, sse: [sse(undefined, response)] };
    return { status: 200, json: [response] };
  }
  return { status: 200, json: response };
}

interface JsonSchemaLike {
  type?: string | string[];
  properties?: Record<string, JsonSchemaLike>;
  enum?: unknown[];
}

/**
 * For a side question asked with a JSON response schema (e.g. "who speaks next"): the
 * schema-shaped JSON text to answer with; undefined for an ordinary request.
 */
export function sideQuestionReply(body: unknown, reply: string): string | undefined {
  const config = (body as { generationConfig?: { responseMimeType?: string; responseJsonSchema?: unknown; responseSchema?: unknown } })
    ?.generationConfig;
  if (config?.responseMimeType !== "application/json") return undefined;
  const schema = (config.responseJsonSchema ?? config.responseSchema) as JsonSchemaLike | undefined;
  return JSON.stringify(sampleFor(schema, reply));
}

/** A minimal value that satisfies a simple JSON schema (objects, enums, scalars). */
export function sampleFor(schema: JsonSchemaLike | undefined, text: string): unknown {
  if (!schema) return {};
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  const type = (Array.isArray(schema.type) ? schema.type[0] : schema.type)?.toLowerCase();
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(schema.properties ?? {})) out[key] = sampleFor(value, text);
      return out;
    }
    case "array":
      return [];
    case "string":
      return text;
    case "number":
    case "integer":
      return 0;
    case "boolean":
      return false;
    default:
      return {};
  }
}
