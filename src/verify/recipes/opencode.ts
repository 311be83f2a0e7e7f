/**
 * OpenCode 1.18.33 (docs/hosts.md): `opencode run` with a config file passed in
 * `OPENCODE_CONFIG` (the project's `opencode.json` still applies) that declares the endpoint
 * as a provider of its own, with the AI SDK package of the endpoint's protocol (the stub speaks
 * Chat Completions) and the key read from the environment. No trust gate. Subagents appear in
 * the `task` tool's description, skills in `<available_skills>`, MCP tools as `<server>_<tool>`.
 */
import { ALL_PROTOCOLS, KEY_VARIABLE, PLACEHOLDER_KEY, healthLine, jsonFile, withoutVersion } from "./shared.js";
import type { HeadlessOptions, HostRecipe, Prepared, RecipeContext } from "./types.js";

const CONFIG_FILE = ".config/hermit/opencode.json";
const PROVIDER = "hermit";
const STUB_MODEL = "hermit-stub-model";

/** The AI SDK package OpenCode loads for each protocol, and the base URL it takes. */
const SDK = {
  "openai-chat": { npm: "@ai-sdk/openai-compatible", url: (root: string) => root },
  "openai-responses": { npm: "@ai-sdk/openai", url: (root: string) => root },
  "anthropic-messages": { npm: "@ai-sdk/anthropic", url: (root: string) => root },
  gemini: { npm: "@ai-sdk/google", url: (root: string) => `${withoutVersion(root)}/v1beta` },
} as const;

export const opencodeRecipe: HostRecipe = {
  host: "opencode",
  protocol: "openai-chat",
  protocols: ALL_PROTOCOLS,

  prepare(context: RecipeContext): Prepared {
    const { baseUrl, model, apiKey, protocol } = context.endpoint;
    const sdk = SDK[protocol];
    const modelId = model ?? STUB_MODEL;
    const headless = context.headless;
    const learning = headless?.purpose === "learn";
    const config = {
      $schema: "https://opencode.ai/config.json",
      provider: {
        [PROVIDER]: {
          npm: sdk.npm,
          name: "hermit",
          options: { baseURL: sdk.url(baseUrl), apiKey: `{env:${KEY_VARIABLE}}` },
          models: { [modelId]: {} },
        },
      },
      model: `${PROVIDER}/${modelId}`,
      share: "disabled",
      autoupdate: false,
      // `opencode run` cannot ask: what a working run needs is allowed, the web denied to a learner.
      ...(headless ? { permission: { edit: "allow", bash: "allow", webfetch: learning ? "deny" : "allow" } } : {}),
      ...(learning ? { tools: { webfetch: false, websearch: false } } : {}),
      ...(headless?.maxTurns !== undefined ? { agent: { build: { steps: headless.maxTurns } } } : {}),
    };
    return {
      homeFiles: [{ path: CONFIG_FILE, content: jsonFile(config) }],
      env: {
        [KEY_VARIABLE]: apiKey ?? PLACEHOLDER_KEY,
        OPENCODE_CONFIG: `${context.home}/${CONFIG_FILE}`,
        OPENCODE_DISABLE_MODELS_FETCH: "1",
        OPENCODE_DISABLE_AUTOUPDATE: "1",
        OPENCODE_DISABLE_SHARE: "1",
        OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      },
      performed: [],
    };
  },

  discoveryArgs: (prompt) => ["run", prompt],

  headlessArgs: (options: HeadlessOptions) => ["run", "--format", "json", options.prompt],

  listings: [
    {
      args: ["mcp", "list"],
      label: "opencode mcp list",
      kinds: ["tool"],
      find: (output, _kind, server) => healthLine(output, server, /\bconnected\b/),
    },
    {
      args: ["agent", "list"],
      label: "opencode agent list",
      kinds: ["agent"],
      find: (output, _kind, name) => healthLine(output, name, /\((subagent|all)\)/),
    },
  ],

  toolNames: (server, tool) => [`${server}_${tool}`],
};
