/**
 * Gemini CLI (docs/hosts.md): context in GEMINI.md, skills in `.gemini/skills/<name>/`,
 * subagents in `.gemini/agents/<name>.md` whose frontmatter schema is strict (an unknown key
 * such as `mode` makes the agent fail to load), MCP in `.gemini/settings.json`
 * `mcpServers`. Project MCP, skills and agents need a trusted folder; agents also need an
 * acknowledgment of each file's hash.
 */
import type { Adapter } from "../adapter/types.js";
import { WORKSPACE_PATHS } from "./ids.js";
import { sha256 } from "../adapter/files.js";
import {
  agentMarkdownFile,
  configFile,
  droppedKeys,
  instructionBlock,
  serverCommand,
  skillFiles,
} from "./render.js";
import type { ActivationStep, Host, ProjectOptions, ProjectionNote, VirtualFile } from "./types.js";

/** The only frontmatter keys hermit writes; all are in Gemini's strict agent schema. */
const AGENT_KEYS: ReadonlySet<string> = new Set(["name", "description"]);

function agentFile(adapter: Adapter, options: ProjectOptions, index: number): VirtualFile {
  const agent = adapter.agents[index];
  return agentMarkdownFile(adapter, options, agent, `.gemini/agents/${agent.name}.md`, {
    name: agent.name,
    description: agent.description,
  });
}

export const gemini = {
  id: "gemini",
  displayName: "Gemini CLI",
  instructionFile: "GEMINI.md",
  workspacePaths: WORKSPACE_PATHS.gemini,
  capabilities: {
    version: 1,
    hostVersion: "0.61.0",
    exports: {
      context: {
        level: "guaranteed",
        evidence: "verified",
        verifiedWith: "0.61.0",
        location: "GEMINI.md (managed block)",
      },
      skills: {
        level: "guaranteed",
        evidence: "verified",
        verifiedWith: "0.61.0",
        location: ".gemini/skills/<name>/",
      },
      agents: {
        level: "guaranteed",
        evidence: "verified",
        verifiedWith: "0.61.0",
        location: ".gemini/agents/<name>.md",
      },
      tools: {
        level: "guaranteed",
        evidence: "verified",
        verifiedWith: "0.61.0",
        location: ".gemini/settings.json mcpServers.<adapter>",
      },
    },
  },

  project(adapter: Adapter, options: ProjectOptions): VirtualFile[] {
    const files: VirtualFile[] = [instructionBlock(adapter, "GEMINI.md")];
    files.push(...skillFiles(adapter, options, ".gemini/skills"));
    files.push(...adapter.agents.map((_, index) => agentFile(adapter, options, index)));
    if (adapter.tools.length > 0) {
      const config = { mcpServers: { [adapter.manifest.name]: serverCommand(options) } };
      files.push(configFile(".gemini/settings.json", config, adapter, options));
    }
    return files;
  },

  activation(adapter: Adapter, workspace: string, files: readonly VirtualFile[]): ActivationStep[] {
    const steps: ActivationStep[] = [];
    if (adapter.skills.length > 0 || adapter.agents.length > 0 || adapter.tools.length > 0) {
      steps.push({
        id: "gemini.trust-folder",
        summary:
          "Trust the workspace in Gemini CLI, or it skips the project's MCP server, skills and agents: accept the " +
          "trust prompt when gemini starts there, or add the workspace to ~/.gemini/trustedFolders.json.",
        file: "~/.gemini/trustedFolders.json",
        snippet: JSON.stringify({ [workspace]: "TRUST_FOLDER" }, null, 2),
        data: { trustedFolders: { [workspace]: "TRUST_FOLDER" } },
      });
    }
    const agents = files.filter((file) => file.owner.export === "agents");
    if (agents.length > 0) {
      // Gemini acknowledges the exact bytes of each agent file (sha256 of the file as written).
      const acknowledged = Object.fromEntries(
        agents.map((file) => [file.owner.item as string, sha256(file.content)]),
      );
      steps.push({
        id: "gemini.acknowledge-agents",
        summary:
          "Acknowledge the project agents in Gemini CLI (it prompts in interactive mode; headless runs skip " +
          "unacknowledged agents), or record their hashes in ~/.gemini/acknowledgments/agents.json.",
        file: "~/.gemini/acknowledgments/agents.json",
        snippet: JSON.stringify({ [workspace]: acknowledged }, null, 2),
        data: { agentAcknowledgments: { [workspace]: acknowledged } },
      });
    }
    return steps;
  },

  notes(adapter: Adapter): ProjectionNote[] {
    return adapter.agents.flatMap((agent) => {
      const dropped = droppedKeys(agent.frontmatter, AGENT_KEYS);
      return dropped.length === 0
        ? []
        : [{ item: `agent ${agent.name}`, note: `frontmatter ${dropped.join(", ")} not written: Gemini's agent schema is strict and rejects unknown keys` }];
    });
  },
} as const satisfies Host;
