/**
 * OpenCode 1.18.33: `opencode run` with a config file passed in `OPENCODE_CONFIG` (the
 * project's `opencode.json` still applies): with a base URL, an `@ai-sdk/openai-compatible`
 * provider pointing at it (the stub speaks Chat Completions); without, the provider's own
 * (`anthropic/<id>`, `openai/<id>`, …) with its key from the environment. No trust gate.
 * Subagents appear in the `task` tool's description, skills in `<available_skills>`, MCP
 * tools as `<server>_<tool>`.
 */
import { credentialOf, healthLine, jsonFile, providerKeyVariables } from "./shared.js";
import type { HeadlessOptions, HostRecipe, Prepared, RecipeContext } from "./types.js";

const CONFIG_FILE = ".config/hermit/opencode.json";
const PROVIDER = "hermit";
const STUB_MODEL = "hermit-stub-model";

/** `provider/id` as OpenCode names a model: its own custom provider when a base URL is given. */
function modelName(context: RecipeContext): string {
  const { baseUrl, model } = context.endpoint;
  if (baseUrl !== undefined || !model) return `${PROVIDER}/${model?.id ?? STUB_MODEL}`;
  return model.provider ? `${model.provider}/${model.id}` : model.id;
}

export const opencodeRecipe: HostRecipe = {
  host: "opencode",
  protocol: "openai-chat",

  credentialVariables: (provider) => providerKeyVariables(provider),

  prepare(context: RecipeContext): Prepared {
    const { baseUrl, model } = context.endpoint;
    const custom = baseUrl !== undefined || !model;
    const learning = context.headless?.purpose === "learn";
    const config = {
      $schema: "https://opencode.ai/config.json",
      ...(custom
        ? {
            provider: {
              [PROVIDER]: {
                npm: "@ai-sdk/openai-compatible",
                name: "hermit",
                options: { baseURL: baseUrl ?? "http://127.0.0.1:9/v1", apiKey: credentialOf(context, providerKeyVariables(model?.provider)) },
                models: { [model?.id ?? STUB_MODEL]: {} },
              },
            },
          }
        : {}),
      model: modelName(context),
      share: "disabled",
      autoupdate: false,
      // `opencode run` cannot ask: what a working run needs is allowed, the web denied to a learner.
      ...(context.headless ? { permission: { edit: "allow", bash: "allow", webfetch: learning ? "deny" : "allow" } } : {}),
      ...(learning ? { tools: { webfetch: false, websearch: false } } : {}),
      ...(context.headless?.maxTurns !== undefined ? { agent: { build: { steps: context.headless.maxTurns } } } : {}),
    };
    const keys = custom ? {} : Object.fromEntries(providerKeyVariables(model?.provider).flatMap((name) => {
      const value = context.endpoint.credentials[name];
      return value ? [[name, value]] : [];
    }));
    return {
      homeFiles: [{ path: CONFIG_FILE, content: jsonFile(config) }],
      env: {
        ...keys,
        OPENCODE_CONFIG: `${context.home}/${CONFIG_FILE}`,
        ...(custom ? { OPENCODE_DISABLE_MODELS_FETCH: "1" } : {}),
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
