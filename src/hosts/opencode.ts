/**
 * OpenCode (docs/hosts.md): context in AGENTS.md, skills in `.opencode/skills/<name>/`,
 * subagents in `.opencode/agents/<name>.md` with `mode: subagent` (the file name is the
 * agent's name), MCP in `opencode.json` `mcp`. No trust gate.
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

const AGENT_KEYS: ReadonlySet<string> = new Set(["name", "description"]);
/** Milliseconds OpenCode waits for the server's tool list (its default, 5000, is tight for a cold start). */
const MCP_TIMEOUT_MS = 30_000;

function agentFile(adapter: Adapter, options: ProjectOptions, index: number): VirtualFile {
  const agent = adapter.agents[index];
  return agentMarkdownFile(adapter, options, agent, `.opencode/agents/${agent.name}.md`, {
    description: agent.description,
    mode: "subagent",
  });
}

export const opencode = {
  id: "opencode",
  displayName: "OpenCode",
  instructionFile: "AGENTS.md",
  workspacePaths: WORKSPACE_PATHS.opencode,
  capabilities: {
    version: 1,
    hostVersion: "1.18.33",
    exports: {
      context: {
        level: "guaranteed",
        evidence: "verified",
        verifiedWith: "1.18.33",
        location: "AGENTS.md (managed block)",
      },
      skills: {
        level: "guaranteed",
        evidence: "verified",
        verifiedWith: "1.18.33",
        location: ".opencode/skills/<name>/",
      },
      agents: {
        level: "guaranteed",
        evidence: "verified",
        verifiedWith: "1.18.33",
        location: ".opencode/agents/<name>.md (mode: subagent)",
      },
      tools: {
        level: "guaranteed",
        evidence: "verified",
        verifiedWith: "1.18.33",
        location: "opencode.json mcp.<adapter>",
      },
    },
  },

  project(adapter: Adapter, options: ProjectOptions): VirtualFile[] {
    const files: VirtualFile[] = [instructionBlock(adapter, "AGENTS.md")];
    files.push(...skillFiles(adapter, options, ".opencode/skills"));
    files.push(...adapter.agents.map((_, index) => agentFile(adapter, options, index)));
    if (adapter.tools.length > 0) {
      const { command, args } = serverCommand(options);
      const entry = { type: "local", command: [command, ...args], enabled: true, timeout: MCP_TIMEOUT_MS };
      const config = { $schema: "https://opencode.ai/config.json", mcp: { [adapter.manifest.name]: entry } };
      files.push(configFile("opencode.json", config, adapter, options));
    }
    return files;
  },

  activation(): ActivationStep[] {
    return [];
  },

  notes(adapter: Adapter): ProjectionNote[] {
    return adapter.agents.flatMap((agent) => {
      const dropped = droppedKeys(agent.frontmatter, AGENT_KEYS);
      return dropped.length === 0
        ? []
        : [{ item: `agent ${agent.name}`, note: `frontmatter ${dropped.join(", ")} not written: OpenCode's agent keys differ (only description and mode are set)` }];
    });
  },
} as const satisfies Host;
