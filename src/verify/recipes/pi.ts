/**
 * Pi 0.73.1: with a base URL, a custom provider in `$PI_CODING_AGENT_DIR/models.json`
 * speaking Chat Completions (the stub, a local server); without, Pi's own provider
 * (`--provider anthropic --model <id>`) with its key from the environment. Pi lists skills
 * in `<available_skills>` XML; it has no subagents and no MCP of its own (the
 * pi-mcp-adapter extension the report asks for is not installed here, so tools stay
 * best-effort).
 */
import { credentialOf, jsonFile, providerKeyVariables } from "./shared.js";
import type { HeadlessOptions, HostRecipe, Prepared, RecipeContext } from "./types.js";

const PROVIDER = "hermit";
const STUB_MODEL = "hermit-stub-model";

/** Pi's default provider and model for the endpoint: its own custom provider when a base URL is given. */
function defaults(context: RecipeContext): { defaultProvider?: string; defaultModel: string } {
  const { baseUrl, model } = context.endpoint;
  if (baseUrl !== undefined || !model) return { defaultProvider: PROVIDER, defaultModel: model?.id ?? STUB_MODEL };
  return { ...(model.provider ? { defaultProvider: model.provider } : {}), defaultModel: model.id };
}

export const piRecipe: HostRecipe = {
  host: "pi",
  protocol: "openai-chat",

  credentialVariables: (provider) => providerKeyVariables(provider),

  prepare(context: RecipeContext): Prepared {
    const { baseUrl, model } = context.endpoint;
    const agentDir = `${context.home}/.pi/agent`;
    const custom = baseUrl !== undefined || !model;
    const keys = providerKeyVariables(model?.provider);
    const models = {
      providers: {
        [PROVIDER]: {
          baseUrl: baseUrl ?? "http://127.0.0.1:9/v1",
          api: "openai-completions",
          apiKey: credentialOf(context, keys),
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          models: [{ id: model?.id ?? STUB_MODEL }],
        },
      },
    };
    const passed = Object.fromEntries(keys.flatMap((name) => (context.endpoint.credentials[name] ? [[name, context.endpoint.credentials[name]!]] : [])));
    // The model is chosen in Pi's own settings, so the argv is the same for every endpoint.
    return {
      homeFiles: [
        { path: ".pi/agent/settings.json", content: jsonFile(defaults(context)) },
        ...(custom ? [{ path: ".pi/agent/models.json", content: jsonFile(models) }] : []),
      ],
      env: { ...(custom ? {} : passed), PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" },
      performed: [],
    };
  },

  discoveryArgs: (prompt) => ["--no-session", "-p", prompt],

  headlessArgs: (options: HeadlessOptions) => ["--mode", "json", "--no-session", "-p", options.prompt],

  listings: [],

  // pi-mcp-adapter's direct tools are `<server>_<tool>` (`pidemo_count_words` for server `pidemo`).
  toolNames: (server, tool) => [`${server.replace(/[^A-Za-z0-9]/g, "")}_${tool}`, `${server}_${tool}`],
};
