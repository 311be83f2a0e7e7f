/**
 * Pi (docs/hosts.md): context in AGENTS.md, skills in `.pi/skills/<name>/` (read from
 * the launch directory), no subagents (refused), and no MCP in core: tools go to
 * `.pi/mcp.json` for the third-party pi-mcp-adapter extension, best-effort.
 */
import type { Adapter } from "../adapter/types.js";
import { WORKSPACE_PATHS } from "./ids.js";
import { HermitError } from "../errors.js";
import { configFile, instructionBlock, serverCommand, skillFiles } from "./render.js";
import type { ActivationStep, Host, ProjectOptions, ProjectionNote, VirtualFile } from "./types.js";

const NO_SUBAGENTS =
  'Pi has no subagents (Pi 0.73.1 README: "No sub-agents. … build your own with extensions"); only an example ' +
  "extension reads .pi/agents/*.md, and it is not active by default";
const MCP_VIA_EXTENSION =
  "Pi core has no MCP (README: \"No MCP.\"); the third-party pi-mcp-adapter extension reads .pi/mcp.json and must " +
  "be installed separately (`pi install npm:pi-mcp-adapter`); its releases since 2.6 also need the " +
  "@earendil-works/pi-coding-agent and @earendil-works/pi-tui packages beside it under Pi 0.73.1";

export const pi = {
  id: "pi",
  displayName: "Pi",
  instructionFile: "AGENTS.md",
  workspacePaths: WORKSPACE_PATHS.pi,
  capabilities: {
    version: 1,
    hostVersion: "0.73.1",
    exports: {
      context: {
        level: "guaranteed",
        evidence: "verified",
        verifiedWith: "0.73.1",
        location: "AGENTS.md (managed block)",
      },
      skills: {
        level: "guaranteed",
        evidence: "verified",
        verifiedWith: "0.73.1",
        location: ".pi/skills/<name>/ (launch Pi in the workspace)",
      },
      agents: { level: "unsupported", reason: NO_SUBAGENTS, evidence: "declared", location: "(none)" },
      tools: {
        level: "best-effort",
        reason: MCP_VIA_EXTENSION,
        evidence: "declared",
        location: ".pi/mcp.json mcpServers.<adapter>",
      },
    },
  },

  project(adapter: Adapter, options: ProjectOptions): VirtualFile[] {
    if (adapter.agents.length > 0) {
      const names = adapter.agents.map((agent) => agent.name);
      throw new HermitError(
        "HOST_UNSUPPORTED",
        `${adapter.root}: adapter '${adapter.manifest.name}' exports subagents (${names.join(", ")}) and Pi cannot take them: ${NO_SUBAGENTS}`,
        { host: "pi", export: "agents", items: names, reason: NO_SUBAGENTS },
      );
    }
    const files: VirtualFile[] = [instructionBlock(adapter, "AGENTS.md")];
    files.push(...skillFiles(adapter, options, ".pi/skills"));
    if (adapter.tools.length > 0) {
      // eager + directTools: the extension starts the server with Pi and exposes each tool by name (docs/hosts.md).
      const entry = { ...serverCommand(options), lifecycle: "eager", directTools: true };
      files.push(configFile(".pi/mcp.json", { mcpServers: { [adapter.manifest.name]: entry } }, adapter, options));
    }
    return files;
  },

  activation(adapter: Adapter): ActivationStep[] {
    if (adapter.tools.length === 0) return [];
    return [
      {
        id: "pi.install-mcp-adapter",
        summary:
          "Install the pi-mcp-adapter extension so Pi can reach the tools (Pi has no MCP of its own); under Pi 0.73.1 " +
          "its recent releases also need @earendil-works/pi-coding-agent and @earendil-works/pi-tui installed beside it.",
        snippet: "pi install npm:pi-mcp-adapter -l",
        data: { command: ["pi", "install", "npm:pi-mcp-adapter", "-l"] },
      },
    ];
  },

  notes(adapter: Adapter): ProjectionNote[] {
    return adapter.tools.length > 0 ? [{ item: "tools", note: `best-effort: ${MCP_VIA_EXTENSION}` }] : [];
  },
} as const satisfies Host;
