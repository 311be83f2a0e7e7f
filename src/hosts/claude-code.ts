/**
 * Claude Code (docs/hosts.md): context in CLAUDE.md (with an `@AGENTS.md` line when
 * the workspace holds an AGENTS.md, since a CLAUDE.md otherwise stops AGENTS.md loading),
 * skills in `.claude/skills/<name>/` (the folder name is the skill's identity), subagents in
 * `.claude/agents/<name>.md`, MCP in `.mcp.json`, approved in `.claude/settings.json`.
 */
import type { Adapter } from "../adapter/types.js";
import { WORKSPACE_PATHS } from "./ids.js";
import {
  agentMarkdownFile,
  configFile,
  droppedKeys,
  instructionBlock,
  serverCommand,
  skillFiles,
} from "./render.js";
import type { ActivationStep, Host, ProjectOptions, ProjectionNote, VirtualFile } from "./types.js";

/** Subagent frontmatter keys the Claude Code 2.1.328 binary knows (docs/hosts.md). */
const AGENT_KEYS: ReadonlySet<string> = new Set([
  "name",
  "description",
  "tools",
  "disallowedTools",
  "model",
  "effort",
  "permissionMode",
  "mcpServers",
  "hooks",
  "maxTurns",
  "autoCompactWindow",
  "skills",
  "initialPrompt",
  "memory",
  "background",
  "omitClaudeMd",
  "isolation",
  "color",
]);

function agentFile(adapter: Adapter, options: ProjectOptions, index: number): VirtualFile {
  const agent = adapter.agents[index];
  const extra = Object.fromEntries(
    Object.entries(agent.frontmatter).filter(([key]) => AGENT_KEYS.has(key) && key !== "name" && key !== "description"),
  );
  return agentMarkdownFile(adapter, options, agent, `.claude/agents/${agent.name}.md`, {
    name: agent.name,
    description: agent.description,
    ...extra,
  });
}

export const claudeCode = {
  id: "claude-code",
  displayName: "Claude Code",
  instructionFile: "CLAUDE.md",
  workspacePaths: WORKSPACE_PATHS["claude-code"],
  capabilities: {
    version: 1,
    hostVersion: "2.1.328 (Claude Code)",
    exports: {
      context: {
        level: "guaranteed",
        evidence: "verified",
        verifiedWith: "2.1.328 (Claude Code)",
        location: "CLAUDE.md (managed block; @AGENTS.md when present)",
      },
      skills: {
        level: "guaranteed",
        evidence: "verified",
        verifiedWith: "2.1.328 (Claude Code)",
        location: ".claude/skills/<name>/",
      },
      agents: {
        level: "guaranteed",
        evidence: "verified",
        verifiedWith: "2.1.328 (Claude Code)",
        location: ".claude/agents/<name>.md",
      },
      tools: {
        level: "guaranteed",
        evidence: "verified",
        verifiedWith: "2.1.328 (Claude Code)",
        location: ".mcp.json mcpServers.<adapter>, approved in .claude/settings.json enabledMcpjsonServers",
      },
    },
  },

  project(adapter: Adapter, options: ProjectOptions): VirtualFile[] {
    const lead = options.workspaceHasAgentsMd ? ["@AGENTS.md"] : [];
    const files: VirtualFile[] = [instructionBlock(adapter, "CLAUDE.md", lead)];
    files.push(...skillFiles(adapter, options, ".claude/skills"));
    files.push(...adapter.agents.map((_, index) => agentFile(adapter, options, index)));
    if (adapter.tools.length > 0) {
      const name = adapter.manifest.name;
      files.push(configFile(".mcp.json", { mcpServers: { [name]: { type: "stdio", ...serverCommand(options) } } }, adapter, options));
      files.push(configFile(".claude/settings.json", { enabledMcpjsonServers: [name] }, adapter, options));
    }
    return files;
  },

  activation(adapter: Adapter, workspace: string): ActivationStep[] {
    if (adapter.tools.length === 0) return [];
    const entry = { hasTrustDialogAccepted: true };
    return [
      {
        id: "claude-code.trust-folder",
        summary:
          "Trust the workspace in Claude Code, or the MCP server stays 'Pending approval': start `claude` in it once and " +
          "accept the trust dialog (this sets projects[<workspace>].hasTrustDialogAccepted in ~/.claude.json).",
        file: "~/.claude.json",
        snippet: JSON.stringify({ projects: { [workspace]: entry } }, null, 2),
        data: { claudeJson: { projects: { [workspace]: entry } } },
      },
    ];
  },

  notes(adapter: Adapter): ProjectionNote[] {
    return adapter.agents.flatMap((agent) => {
      const dropped = droppedKeys(agent.frontmatter, AGENT_KEYS);
      return dropped.length === 0
        ? []
        : [{ item: `agent ${agent.name}`, note: `frontmatter ${dropped.join(", ")} not written: Claude Code does not know these keys` }];
    });
  },
} as const satisfies Host;
