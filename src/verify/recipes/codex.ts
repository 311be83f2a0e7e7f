/**
 * Codex CLI 0.169: `codex exec` against an OpenAI Responses endpoint declared as a model
 * provider in `$CODEX_HOME/config.toml` (the stub, or the provider's API root, the key in a
 * variable the provider's `env_key` names); the project trust the report lists is added to the
 * same file. Roles
 * appear in `spawn_agent`'s `agent_type` description, MCP tools in a `mcp__<server>`
 * namespace (hyphens become underscores).
 */
import { stringify as stringifyToml } from "smol-toml";
import { KEY_VARIABLE, PLACEHOLDER_KEY, deepMerge, healthLine, stepData } from "./shared.js";
import type { HeadlessOptions, HostRecipe, Launch, Prepared, RecipeContext } from "./types.js";

const PROVIDER = "hermit";
/** The model verify names: unknown to Codex, so it offers its generic tool set. */
const STUB_MODEL = "hermit-stub-model";

/** Codex's name for a server's tool namespace: `mcp__` + the name with every non-word character as `_`. */
export function codexNamespace(server: string): string {
  return `mcp__${server.replace(/[^A-Za-z0-9_]/g, "_")}`;
}

/** `-c mcp_servers.<server>.<key>=<value>` for each server, when `-c` can address them all (no dots, no quotes). */
function serverOverrides(servers: readonly string[], settings: Record<string, string>): string[] | undefined {
  if (servers.some((server) => !/^[A-Za-z0-9_-]+$/.test(server))) return undefined;
  return servers.flatMap((server) => Object.entries(settings).flatMap(([key, value]) => ["-c", `mcp_servers.${server}.${key}=${value}`]));
}

export const codexRecipe: HostRecipe = {
  host: "codex",
  protocol: "openai-responses",

  protocols: ["openai-responses"],

  prepare(context: RecipeContext): Prepared {
    const { baseUrl, model, apiKey } = context.endpoint;
    const base: Record<string, unknown> = {
      model: model ?? STUB_MODEL,
      model_provider: PROVIDER,
      model_providers: {
        [PROVIDER]: { name: "hermit", base_url: baseUrl, wire_api: "responses", env_key: KEY_VARIABLE },
      },
    };
    const trust = stepData(context, "codex.trust-project", "codexHomeConfig");
    const config = trust ? deepMerge(base, trust) : base;
    return {
      homeFiles: [{ path: ".codex/config.toml", content: stringifyToml(config) }],
      env: { CODEX_HOME: `${context.home}/.codex`, [KEY_VARIABLE]: apiKey ?? PLACEHOLDER_KEY },
      performed: trust ? ["codex.trust-project"] : [],
    };
  },

  discoveryArgs: (prompt) => ["exec", "--skip-git-repo-check", "--color", "never", prompt],

  headlessArgs(options: HeadlessOptions): string[] {
    // `codex exec` starts its turn without waiting for MCP servers unless they are `required`,
    // cannot ask to approve a tool call, and gives servers only the variables named in `env_vars`.
    const servers = serverOverrides(options.servers, {
      required: "true",
      default_tools_approval_mode: '"approve"',
      ...(options.serverEnv?.length ? { env_vars: JSON.stringify(options.serverEnv) } : {}),
    }) ?? [];
    // Inside hermit's jail Codex's own sandbox cannot nest; outside it, the workspace is writable.
    const sandbox = options.jailed ? ["--dangerously-bypass-approvals-and-sandbox"] : ["--sandbox", "workspace-write"];
    return [
      "exec",
      "--json",
      "--ephemeral",
      "--skip-git-repo-check",
      "--color",
      "never",
      ...sandbox,
      ...servers,
      ...(options.purpose === "learn" ? ["-c", 'web_search="disabled"'] : []),
      options.prompt,
    ];
  },

  listings: [
    {
      args: ["mcp", "list"],
      label: "codex mcp list",
      kinds: ["tool"],
      find: (output, _kind, server) => healthLine(output, server, /\benabled\b/),
    },
  ],

  toolNames: (server, tool) => [`${codexNamespace(server)}__${tool}`],

  // The override only makes sense on the project's own server entry, which Codex reads only
  // in a trusted project: without the trust step there is nothing to wait for.
  waitForServers(first: Launch, servers: readonly string[]): Launch | undefined {
    if (!first.performed.includes("codex.trust-project") || servers.length === 0) return undefined;
    const overrides = serverOverrides(servers, { required: "true" });
    if (!overrides) return undefined;
    const [command, ...rest] = first.args;
    return { ...first, args: [command!, ...overrides, ...rest] };
  },
};
