/**
 * Pi 0.73.1 (docs/hosts.md): the endpoint as a custom provider in
 * `$PI_CODING_AGENT_DIR/models.json` (its API by the endpoint's protocol; the stub speaks
 * Chat Completions), chosen as the default in Pi's `settings.json`, the key read from the
 * environment. Pi lists skills in `<available_skills>` XML; it has no subagents and no MCP of
 * its own (the pi-mcp-adapter extension the report asks for is not installed here, so tools
 * stay best-effort).
 */
import { ALL_PROTOCOLS, KEY_VARIABLE, PLACEHOLDER_KEY, jsonFile, withoutVersion } from "./shared.js";
import type { HeadlessOptions, HostRecipe, Prepared, RecipeContext } from "./types.js";

const PROVIDER = "hermit";
const STUB_MODEL = "hermit-stub-model";

/** Pi's `api` for each protocol, and the base URL its client takes. */
const API = {
  "openai-chat": { api: "openai-completions", url: (root: string) => root },
  "openai-responses": { api: "openai-responses", url: (root: string) => root },
  "anthropic-messages": { api: "anthropic-messages", url: withoutVersion },
  gemini: { api: "google-generative-ai", url: (root: string) => `${withoutVersion(root)}/v1beta` },
} as const;

export const piRecipe: HostRecipe = {
  host: "pi",
  protocol: "openai-chat",
  protocols: ALL_PROTOCOLS,

  prepare(context: RecipeContext): Prepared {
    const { baseUrl, model, apiKey, protocol } = context.endpoint;
    const modelId = model ?? STUB_MODEL;
    const models = {
      providers: {
        [PROVIDER]: {
          baseUrl: API[protocol].url(baseUrl),
          api: API[protocol].api,
          // Pi reads a value that names a variable from that variable.
          apiKey: KEY_VARIABLE,
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          models: [{ id: modelId }],
        },
      },
    };
    // The model is chosen in Pi's own settings, so the argv is the same for every endpoint.
    return {
      homeFiles: [
        { path: ".pi/agent/models.json", content: jsonFile(models) },
        { path: ".pi/agent/settings.json", content: jsonFile({ defaultProvider: PROVIDER, defaultModel: modelId }) },
      ],
      env: { [KEY_VARIABLE]: apiKey ?? PLACEHOLDER_KEY, PI_CODING_AGENT_DIR: `${context.home}/.pi/agent`, PI_OFFLINE: "1" },
      performed: [],
    };
  },

  discoveryArgs: (prompt) => ["--no-session", "-p", prompt],

  headlessArgs: (options: HeadlessOptions) => ["--mode", "json", "--no-session", "-p", options.prompt],

  listings: [],

  // pi-mcp-adapter's direct tools are `<server>_<tool>` (docs/hosts.md: the extension's direct tools).
  toolNames: (server, tool) => [`${server.replace(/[^A-Za-z0-9]/g, "")}_${tool}`, `${server}_${tool}`],
};
