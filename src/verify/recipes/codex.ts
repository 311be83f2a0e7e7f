/**
 * Codex CLI 0.169 (docs/hosts.md): `codex exec` against an OpenAI Responses stub named
 * as a model provider in `$CODEX_HOME/config.toml`; the project trust the report lists is
 * added to the same file. Roles appear in `spawn_agent`'s `agent_type` description, MCP
 * tools in a `mcp__<server>` namespace (hyphens become underscores).
 */
import { stringify as stringifyToml } from "smol-toml";
import { deepMerge, healthLine, stepData } from "./shared.js";
import type { HostRecipe, Launch, RecipeContext } from "./types.js";

const PROVIDER = "hermit-stub";
const API_KEY_VAR = "HERMIT_STUB_API_KEY";

/** Codex's name for a server's tool namespace: `mcp__` + the name with every non-word character as `_`. */
function namespaceOf(server: string): string {
  return `mcp__${server.replace(/[^A-Za-z0-9_]/g, "_")}`;
}

export const codexRecipe: HostRecipe = {
  host: "codex",
  protocol: "openai-responses",

  launch(context: RecipeContext): Launch {
    const base: Record<string, unknown> = {
      model: "hermit-stub-model",
      model_provider: PROVIDER,
      model_providers: {
        [PROVIDER]: { name: "hermit verify stub", base_url: `${context.stubUrl}/v1`, wire_api: "responses", env_key: API_KEY_VAR },
      },
    };
    const trust = stepData(context, "codex.trust-project", "codexHomeConfig");
    const config = trust ? deepMerge(base, trust) : base;
    return {
      homeFiles: [{ path: ".codex/config.toml", content: stringifyToml(config) }],
      env: { CODEX_HOME: `${context.home}/.codex`, [API_KEY_VAR]: "hermit-verify" },
      args: ["exec", "--skip-git-repo-check", "--color", "never", context.prompt],
      performed: trust ? ["codex.trust-project"] : [],
    };
  },

  listings: [
    {
      args: ["mcp", "list"],
      label: "codex mcp list",
      kinds: ["tool"],
      find: (output, _kind, server) => healthLine(output, server, /\benabled\b/),
    },
  ],

  toolNames: (server, tool) => [`${namespaceOf(server)}__${tool}`],

  // `codex exec` starts its turn without waiting for MCP servers unless one is `required`.
  // The override only makes sense on the project's own server entry, which Codex reads only
  // in a trusted project: without the trust step there is nothing to wait for.
  waitForServers(first: Launch, servers: readonly string[]): Launch | undefined {
    if (!first.performed.includes("codex.trust-project") || servers.length === 0) return undefined;
    // `-c` splits its key path on dots and takes quotes literally; adapter names have neither.
    if (servers.some((server) => !/^[A-Za-z0-9_-]+$/.test(server))) return undefined;
    const overrides = servers.flatMap((server) => ["-c", `mcp_servers.${server}.required=true`]);
    const [command, ...rest] = first.args;
    return { ...first, args: [command!, ...overrides, ...rest] };
  },
};
