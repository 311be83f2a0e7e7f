/**
 * Codex CLI (docs/hosts.md): context in AGENTS.md, skills in `.agents/skills/`, agent roles
 * in `.codex/agents/<name>.toml` registered under `[agents.<name>]`, MCP in
 * `.codex/config.toml`. Role files are strict: an unknown key silently drops the role, so
 * only `name`, `description` and `developer_instructions` are written.
 */
import { createRequire } from "node:module";
import type { Adapter } from "../adapter/types.js";
import { WORKSPACE_PATHS } from "./ids.js";
import { configFile, droppedKeys, instructionBlock, ownedTextFile, ownershipMeta, serverCommand, skillFiles } from "./render.js";
import type { ActivationStep, Host, ProjectOptions, ProjectionNote, VirtualFile } from "./types.js";

/** smol-toml, required when TOML is written (an adapter with agents or tools), not when hermit starts. */
function stringifyToml(value: Record<string, unknown>): string {
  const { stringify } = createRequire(import.meta.url)("smol-toml") as typeof import("smol-toml");
  return stringify(value);
}

const ROLE_KEYS: ReadonlySet<string> = new Set(["name", "description"]);
/** Codex's default budget for all project docs together (`project_doc_max_bytes`). */
const PROJECT_DOC_MAX_BYTES = 32_768;

/**
 * A TOML multi-line basic string. Backslashes, quotes and control characters are escaped,
 * so any instructions survive; a leading newline after the opening quotes is trimmed by
 * TOML, which keeps the text readable.
 */
export function tomlMultiline(text: string): string {
  const escaped = text
    .replace(/\r\n/g, "\n")
    .replace(/\\/g, "\\\\")
    .replace(/"/g, '\\"')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return `"""\n${escaped}"""`;
}

function roleFile(adapter: Adapter, options: ProjectOptions, index: number): VirtualFile {
  const agent = adapter.agents[index];
  const head = stringifyToml({ name: agent.name, description: agent.description });
  const body = agent.body.replace(/\r\n/g, "\n").replace(/^\n+/, "");
  const text = `${head}developer_instructions = ${tomlMultiline(body.endsWith("\n") ? body : `${body}\n`)}\n`;
  return ownedTextFile(
    `.codex/agents/${agent.name}.toml`,
    text,
    { export: "agents", item: agent.name, sourcePath: agent.sourcePath },
    ownershipMeta(adapter, options),
  );
}

function configToml(adapter: Adapter, options: ProjectOptions): VirtualFile | undefined {
  const config: Record<string, unknown> = {};
  if (adapter.tools.length > 0) {
    config.mcp_servers = { [adapter.manifest.name]: serverCommand(options) };
  }
  if (adapter.agents.length > 0) {
    config.agents = Object.fromEntries(
      adapter.agents.map((agent) => [agent.name, { description: agent.description, config_file: `agents/${agent.name}.toml` }]),
    );
  }
  if (Object.keys(config).length === 0) return undefined;
  // Holds both the MCP entry and the role registrations, so it belongs to the host, not one export.
  const owner = { export: adapter.tools.length > 0 && adapter.agents.length === 0 ? "tools" : "host" } as const;
  return configFile(".codex/config.toml", config, adapter, options, owner);
}

export const codex = {
  id: "codex",
  displayName: "Codex CLI",
  instructionFile: "AGENTS.md",
  workspacePaths: WORKSPACE_PATHS.codex,
  capabilities: {
    version: 1,
    hostVersion: "codex-cli 0.169.0",
    exports: {
      context: {
        level: "guaranteed",
        evidence: "verified",
        verifiedWith: "codex-cli 0.169.0",
        location: "AGENTS.md (managed block)",
      },
      skills: {
        level: "guaranteed",
        evidence: "verified",
        verifiedWith: "codex-cli 0.169.0",
        location: ".agents/skills/<name>/",
      },
      agents: {
        level: "guaranteed",
        evidence: "verified",
        verifiedWith: "codex-cli 0.169.0",
        location: ".codex/agents/<name>.toml, registered as [agents.<name>] in .codex/config.toml",
      },
      tools: {
        level: "guaranteed",
        evidence: "verified",
        verifiedWith: "codex-cli 0.169.0",
        location: ".codex/config.toml [mcp_servers.<adapter>]",
      },
    },
  },

  project(adapter: Adapter, options: ProjectOptions): VirtualFile[] {
    const files: VirtualFile[] = [instructionBlock(adapter, "AGENTS.md")];
    files.push(...skillFiles(adapter, options, ".agents/skills"));
    files.push(...adapter.agents.map((_, index) => roleFile(adapter, options, index)));
    const config = configToml(adapter, options);
    if (config) files.push(config);
    return files;
  },

  activation(adapter: Adapter, workspace: string): ActivationStep[] {
    if (adapter.agents.length === 0 && adapter.tools.length === 0) return [];
    const snippet = stringifyToml({ projects: { [workspace]: { trust_level: "trusted" } } });
    return [
      {
        id: "codex.trust-project",
        summary:
          "Trust the workspace in Codex, or it ignores .codex/config.toml (the MCP server and the agent roles): " +
          "add this to ~/.codex/config.toml ($CODEX_HOME/config.toml), or accept the trust prompt when Codex starts there.",
        file: "~/.codex/config.toml",
        snippet,
        data: { codexHomeConfig: { projects: { [workspace]: { trust_level: "trusted" } } } },
      },
    ];
  },

  notes(adapter: Adapter): ProjectionNote[] {
    const notes: ProjectionNote[] = [];
    for (const agent of adapter.agents) {
      const dropped = droppedKeys(agent.frontmatter, ROLE_KEYS);
      if (dropped.length > 0) {
        notes.push({
          item: `agent ${agent.name}`,
          note: `frontmatter ${dropped.join(", ")} not written: Codex role files are strict and an unknown key drops the role`,
        });
      }
    }
    if (Buffer.byteLength(adapter.context.text) > PROJECT_DOC_MAX_BYTES) {
      notes.push({
        item: "context",
        note: `${adapter.context.sourcePath} is over Codex's project_doc_max_bytes (${PROJECT_DOC_MAX_BYTES}); Codex truncates it`,
      });
    }
    return notes;
  },
} as const satisfies Host;
