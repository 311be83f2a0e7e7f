/**
 * Pi 0.73.1 (docs/hosts.md): a Chat Completions stub declared as a custom provider in
 * `$PI_CODING_AGENT_DIR/models.json`. Pi lists skills in `<available_skills>` XML; it has no
 * subagents and no MCP of its own (the pi-mcp-adapter extension the report asks for is not
 * installed by verify, so the tools stay best-effort).
 */
import { jsonFile } from "./shared.js";
import type { HostRecipe, Launch, RecipeContext } from "./types.js";

const PROVIDER = "hermit-stub";
const MODEL = "hermit-stub-model";

export const piRecipe: HostRecipe = {
  host: "pi",
  protocol: "openai-chat",

  launch(context: RecipeContext): Launch {
    const agentDir = `${context.home}/.pi/agent`;
    const models = {
      providers: {
        [PROVIDER]: {
          baseUrl: `${context.stubUrl}/v1`,
          api: "openai-completions",
          apiKey: "hermit-verify",
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          models: [{ id: MODEL }],
        },
      },
    };
    return {
      homeFiles: [{ path: ".pi/agent/models.json", content: jsonFile(models) }],
      env: { PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" },
      args: ["--provider", PROVIDER, "--model", MODEL, "--no-session", "-p", context.prompt],
      performed: [],
    };
  },

  listings: [],

  // pi-mcp-adapter's direct tools are `<server>_<tool>` (docs/hosts.md: the extension's direct tools).
  toolNames: (server, tool) => [`${server.replace(/[^A-Za-z0-9]/g, "")}_${tool}`, `${server}_${tool}`],
};
