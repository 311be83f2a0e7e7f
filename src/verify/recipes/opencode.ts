/**
 * OpenCode 1.18.33 (docs/hosts.md): `opencode run` against a Chat Completions stub
 * declared as an `@ai-sdk/openai-compatible` provider in a config file passed with
 * `OPENCODE_CONFIG` (the project's `opencode.json` still applies). No trust gate. Subagents
 * appear in the `task` tool's description, skills in `<available_skills>`, MCP tools as
 * `<server>_<tool>`.
 */
import { healthLine, jsonFile } from "./shared.js";
import type { HostRecipe, Launch, RecipeContext } from "./types.js";

const CONFIG_FILE = ".config/hermit-verify/opencode.json";

export const opencodeRecipe: HostRecipe = {
  host: "opencode",
  protocol: "openai-chat",

  launch(context: RecipeContext): Launch {
    const config = {
      $schema: "https://opencode.ai/config.json",
      provider: {
        "hermit-stub": {
          npm: "@ai-sdk/openai-compatible",
          name: "hermit verify stub",
          options: { baseURL: `${context.stubUrl}/v1`, apiKey: "hermit-verify" },
          models: { "hermit-stub-model": {} },
        },
      },
      model: "hermit-stub/hermit-stub-model",
      share: "disabled",
      autoupdate: false,
    };
    return {
      homeFiles: [{ path: CONFIG_FILE, content: jsonFile(config) }],
      env: {
        OPENCODE_CONFIG: `${context.home}/${CONFIG_FILE}`,
        OPENCODE_DISABLE_MODELS_FETCH: "1",
        OPENCODE_DISABLE_AUTOUPDATE: "1",
        OPENCODE_DISABLE_SHARE: "1",
        OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      },
      args: ["run", context.prompt],
      performed: [],
    };
  },

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
