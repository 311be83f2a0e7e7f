/**
 * Claude Code 2.1.328: `claude -p` against the Anthropic Messages API at
 * `ANTHROPIC_BASE_URL`, with the folder trust the report lists written to `~/.claude.json`.
 * Skills and subagents appear as `- name: description` lists in a message; MCP tools as
 * `mcp__<server>__<tool>` (deferred: listed by name, their schema fetched with ToolSearch).
 * The run's `stream-json` init event is Claude's own listing of what it loaded.
 */
import { PLACEHOLDER_KEY, healthLine, jsonFile, stepData, withoutVersion } from "./shared.js";
import type { HeadlessOptions, HostRecipe, ListedKind, ListedLine, Prepared, RecipeContext } from "./types.js";

interface InitEvent {
  type?: string;
  subtype?: string;
  skills?: unknown[];
  agents?: unknown[];
  tools?: unknown[];
  mcp_servers?: Array<{ name?: string; status?: string }>;
}

/** The `system/init` event of `--output-format stream-json` output. */
export function initEvent(output: string): InitEvent | undefined {
  for (const line of output.split(/\r?\n/)) {
    if (!line.startsWith("{")) continue;
    try {
      const event = JSON.parse(line) as InitEvent;
      if (event.type === "system" && event.subtype === "init") return event;
    } catch {
      // not an event line
    }
  }
  return undefined;
}

function fromInit(output: string, kind: ListedKind, name: string, tool?: string): ListedLine | undefined {
  const init = initEvent(output);
  if (!init) return undefined;
  const names = (list: unknown[] | undefined) => (list ?? []).filter((entry): entry is string => typeof entry === "string");
  if (kind === "skill" && names(init.skills).includes(name)) return { line: `init event: skills [… ${JSON.stringify(name)} …]`, ok: true };
  if (kind === "agent" && names(init.agents).includes(name)) return { line: `init event: agents [… ${JSON.stringify(name)} …]`, ok: true };
  if (kind === "tool") {
    const server = init.mcp_servers?.find((entry) => entry.name === name);
    if (!server) return undefined;
    const qualified = `mcp__${name}__${tool ?? ""}`;
    const offered = names(init.tools).includes(qualified);
    const line = `init event: mcp_servers [{"name":${JSON.stringify(name)},"status":${JSON.stringify(server.status)}}]` +
      (offered ? `, tools [… ${JSON.stringify(qualified)} …]` : "");
    return { line, ok: server.status === "connected" && offered };
  }
  return undefined;
}

/** How long Claude Code may wait for MCP servers before its first request (it stops as soon as they are up). */
const MCP_STARTUP_WAIT_MS = 30_000;
/** The tools a working run may use without asking: files, shell, skills, deferred-tool lookup. */
const WORK_TOOLS = ["Read", "Edit", "Write", "MultiEdit", "Glob", "Grep", "Bash", "Skill", "ToolSearch", "TodoWrite"];
const WEB_TOOLS = ["WebFetch", "WebSearch"];

export const claudeCodeRecipe: HostRecipe = {
  host: "claude-code",
  protocol: "anthropic-messages",

  protocols: ["anthropic-messages"],

  prepare(context: RecipeContext): Prepared {
    const listed = stepData(context, "claude-code.trust-folder", "claudeJson");
    const trust = listed ?? (context.trustWorkspace ? { projects: { [context.workspace]: { hasTrustDialogAccepted: true } } } : undefined);
    const { baseUrl, apiKey } = context.endpoint;
    return {
      homeFiles: trust ? [{ path: ".claude.json", content: jsonFile(trust) }] : [],
      env: {
        // Claude Code appends /v1/messages itself.
        ANTHROPIC_BASE_URL: withoutVersion(baseUrl),
        ANTHROPIC_API_KEY: apiKey ?? PLACEHOLDER_KEY,
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
        DISABLE_AUTOUPDATER: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        // `claude -p` otherwise sends its first request while MCP servers are still starting
        // (they show as "pending"); this is Claude Code's own bound on waiting for them.
        CLAUDE_CODE_MCP_STARTUP_WAIT_MS: String(MCP_STARTUP_WAIT_MS),
      },
      performed: listed ? ["claude-code.trust-folder"] : [],
    };
  },

  discoveryArgs: (prompt) => ["-p", prompt, "--output-format", "stream-json", "--verbose", "--max-turns", "1"],

  headlessArgs(options: HeadlessOptions): string[] {
    // `-p` cannot ask for permission: the tools a run needs are allowed up front (an MCP
    // server's name allows all its tools), the web tools are denied.
    const allowed = [...WORK_TOOLS, ...options.servers.map((server) => `mcp__${server}`)];
    return [
      "-p",
      options.prompt,
      "--output-format",
      "stream-json",
      "--verbose",
      ...(options.model !== undefined ? ["--model", options.model] : []),
      "--permission-mode",
      "acceptEdits",
      "--allowedTools",
      allowed.join(","),
      "--disallowedTools",
      WEB_TOOLS.join(","),
      ...(options.maxTurns !== undefined ? ["--max-turns", String(options.maxTurns)] : []),
      ...(options.maxBudgetUsd !== undefined ? ["--max-budget-usd", String(options.maxBudgetUsd)] : []),
    ];
  },

  listings: [
    { label: "claude -p (init event)", kinds: ["skill", "agent", "tool"], find: fromInit },
    {
      args: ["mcp", "list"],
      label: "claude mcp list",
      kinds: ["tool"],
      find: (output, _kind, server) => healthLine(output, server, /Connected/),
    },
  ],

  toolNames: (server, tool) => [`mcp__${server}__${tool}`],
};
