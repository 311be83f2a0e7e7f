/**
 * Model names (`provider:model-id`) and the providers hermit knows (pure). Everything a provider
 * needs from the environment — its key, its base URL — is resolved here from an explicit `env`
 * record, before any rollout runs, so a missing key is a usage error that names the variable.
 */
import { HermitError } from "../errors.js";
import { didYouMean } from "../suggest.js";

/** The wire protocol a provider speaks. */
export type WireProtocol = "openai-responses" | "anthropic-messages" | "gemini" | "openai-chat";

/** A provider: where its key and base URL come from, and what it speaks. */
export interface ProviderSpec {
  id: string;
  /** Environment variables that may hold the key, in order of preference. */
  keyVariables: readonly string[];
  /** False for local servers (Ollama) that take no key. */
  keyRequired: boolean;
  /** Environment variables that may hold the base URL, in order of preference. */
  baseUrlVariables: readonly string[];
  /** Used when no base URL is given; undefined: one must be given. */
  defaultBaseUrl?: string;
  protocol: WireProtocol;
  /** A base URL as the provider's own tools write it, turned into the API root the SDK wants. */
  apiRoot(url: string): string;
}

const asGiven = (url: string) => url;
/** Append `suffix` unless the URL's path already ends with one of `accepted`. */
const withVersion = (suffix: string, accepted: readonly string[]) => (url: string) =>
  accepted.some((ending) => new URL(url).pathname.replace(/\/+$/, "").endsWith(ending)) ? url : `${url}${suffix}`;

/** The providers, by the prefix of a model name. */
export const PROVIDERS: Readonly<Record<string, ProviderSpec>> = {
  openai: {
    id: "openai",
    keyVariables: ["OPENAI_API_KEY"],
    keyRequired: true,
    baseUrlVariables: ["OPENAI_BASE_URL"],
    defaultBaseUrl: "https://api.openai.com/v1",
    protocol: "openai-responses",
    apiRoot: asGiven,
  },
  anthropic: {
    id: "anthropic",
    keyVariables: ["ANTHROPIC_API_KEY"],
    keyRequired: true,
    baseUrlVariables: ["ANTHROPIC_BASE_URL"],
    defaultBaseUrl: "https://api.anthropic.com/v1",
    protocol: "anthropic-messages",
    // Anthropic's SDKs and Claude Code take the host without /v1 (ANTHROPIC_BASE_URL=https://api.anthropic.com).
    apiRoot: withVersion("/v1", ["/v1"]),
  },
  google: {
    id: "google",
    keyVariables: ["GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"],
    keyRequired: true,
    baseUrlVariables: ["GOOGLE_GENERATIVE_AI_BASE_URL", "GOOGLE_GEMINI_BASE_URL"],
    defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta",
    protocol: "gemini",
    // Gemini CLI's GOOGLE_GEMINI_BASE_URL is the host; the API root is <host>/v1beta.
    apiRoot: withVersion("/v1beta", ["/v1beta", "/v1", "/v1alpha"]),
  },
  "openai-compatible": {
    id: "openai-compatible",
    keyVariables: ["OPENAI_COMPATIBLE_API_KEY"],
    keyRequired: false,
    baseUrlVariables: ["OPENAI_COMPATIBLE_BASE_URL"],
    protocol: "openai-chat",
    apiRoot: asGiven,
  },
  ollama: {
    id: "ollama",
    keyVariables: ["OLLAMA_API_KEY"],
    keyRequired: false,
    baseUrlVariables: ["OLLAMA_HOST"],
    defaultBaseUrl: "http://127.0.0.1:11434/v1",
    protocol: "openai-chat",
    // OLLAMA_HOST is `host:port` or a URL without the OpenAI-compatible /v1 root.
    apiRoot: withVersion("/v1", ["/v1"]),
  },
};

export const PROVIDER_NAMES = Object.keys(PROVIDERS);

/** A parsed model name. */
export interface ModelName {
  /** `provider:model-id`, as given. */
  name: string;
  provider: ProviderSpec;
  modelId: string;
}

const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$/;

/** Parse `provider:model-id`; a usage error names what is wrong and the known providers. */
export function parseModelName(text: string, setting = "model"): ModelName {
  const name = text.trim();
  const colon = name.indexOf(":");
  const known = PROVIDER_NAMES.join(", ");
  if (colon <= 0) {
    throw new HermitError("USAGE", `${setting} '${text}': expected provider:model-id, e.g. openai:gpt-5.1 (providers: ${known})`, { setting, value: text });
  }
  const prefix = name.slice(0, colon).toLowerCase();
  const modelId = name.slice(colon + 1);
  const provider = PROVIDERS[prefix];
  if (!provider) {
    throw new HermitError("USAGE", `${setting} '${text}': unknown provider '${prefix}'${didYouMean(prefix, PROVIDER_NAMES)} (providers: ${known})`, { setting, value: text });
  }
  if (!MODEL_ID.test(modelId)) {
    throw new HermitError("USAGE", `${setting} '${text}': the model id after '${prefix}:' is empty or has characters a model id does not use`, { setting, value: text });
  }
  return { name: `${prefix}:${modelId}`, provider, modelId };
}

/** A model ready to call: its name, API root and key (never written anywhere). */
export interface ResolvedModel extends ModelName {
  /** The API root the SDK calls. */
  baseUrl: string;
  /** Where the base URL came from: the setting's name, `env:VAR`, or `default`. */
  baseUrlFrom: string;
  /** The key; undefined for a local server that takes none. */
  apiKey?: string;
  /** The variable the key came from. */
  keyVariable?: string;
}

export interface ResolveOptions {
  /** A base URL from a flag or the config file, which wins over the environment. */
  baseUrl?: string;
  /** The name of the setting `baseUrl` came from, for messages (`--learner-base-url`). */
  baseUrlSetting?: string;
  /** The setting the model name came from, for messages (`--learner-model`). */
  setting?: string;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * Resolve a model name against the environment: its API root and key. A missing key or base URL
 * is a `USAGE` error naming the variable(s) to set; so is a base URL that is not http(s).
 */
export function resolveModel(text: string, options: ResolveOptions): ResolvedModel {
  const setting = options.setting ?? "model";
  const parsed = parseModelName(text, setting);
  const { provider } = parsed;
  const fromEnv = firstSet(options.env, provider.baseUrlVariables);
  const given = options.baseUrl?.trim() || undefined;
  const raw = given ?? fromEnv?.value ?? provider.defaultBaseUrl;
  const baseUrlFrom = given ? (options.baseUrlSetting ?? "base URL") : fromEnv ? `env:${fromEnv.name}` : "default";
  if (raw === undefined) {
    throw new HermitError(
      "USAGE",
      `${setting} '${parsed.name}' needs a base URL: give ${options.baseUrlSetting ?? "a base URL"} or set ${provider.baseUrlVariables.join(" or ")}`,
      { setting, variables: provider.baseUrlVariables },
    );
  }
  const baseUrl = provider.apiRoot(normalizeUrl(raw, baseUrlFrom, setting)).replace(/\/+$/, "");
  const key = firstSet(options.env, provider.keyVariables);
  if (!key && provider.keyRequired) {
    const names = provider.keyVariables;
    throw new HermitError(
      "USAGE",
      `${setting} '${parsed.name}' needs an API key: set ${names.length === 1 ? names[0] : `one of ${names.join(", ")}`}`,
      { setting, variables: names },
    );
  }
  return { ...parsed, baseUrl, baseUrlFrom, ...(key ? { apiKey: key.value, keyVariable: key.name } : {}) };
}

function firstSet(env: ResolveOptions["env"], names: readonly string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  return undefined;
}

/** `host:port` becomes `http://host:port`; anything that is not http(s) is refused. */
function normalizeUrl(raw: string, from: string, setting: string): string {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new HermitError("USAGE", `${setting}: base URL '${raw}' (from ${from}) is not a URL`, { setting, from });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new HermitError("USAGE", `${setting}: base URL '${raw}' (from ${from}) must be http or https`, { setting, from });
  }
  if (url.username || url.password) {
    throw new HermitError("USAGE", `${setting}: base URL (from ${from}) must not carry credentials; use the provider's key variable`, { setting, from });
  }
  return url.toString().replace(/\/+$/, "");
}
