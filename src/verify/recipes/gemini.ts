/**
 * Gemini CLI 0.61 (docs/hosts.md): `gemini -p` against a Gemini
 * `streamGenerateContent` stub through `GOOGLE_GEMINI_BASE_URL`, with API-key auth selected
 * in `~/.gemini/settings.json`, and the folder trust and agent acknowledgments the report
 * lists. `--approval-mode yolo` keeps MCP tools in headless mode (the stub never calls a
 * tool). Skills are listed in `<available_skills>`, subagents as `name -> description`, MCP
 * tools as `mcp_<server>_<tool>`.
 */
import { healthLine, jsonFile, stepData } from "./shared.js";
import type { HomeFile, HostRecipe, Launch, RecipeContext } from "./types.js";

export const geminiRecipe: HostRecipe = {
  host: "gemini",
  protocol: "gemini",

  launch(context: RecipeContext): Launch {
    const settings = {
      security: { auth: { selectedType: "gemini-api-key" } },
      privacy: { usageStatisticsEnabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
    };
    const homeFiles: HomeFile[] = [{ path: ".gemini/settings.json", content: jsonFile(settings) }];
    const performed: string[] = [];
    const trust = stepData(context, "gemini.trust-folder", "trustedFolders");
    if (trust) {
      homeFiles.push({ path: ".gemini/trustedFolders.json", content: jsonFile(trust) });
      performed.push("gemini.trust-folder");
    }
    // Gemini acknowledges exact bytes. A person acknowledges the agent files as they are when
    // Gemini asks, so verify records the current hash of each agent the step names.
    const listed = stepData(context, "gemini.acknowledge-agents", "agentAcknowledgments");
    const notes: string[] = [];
    if (listed) {
      const acknowledged: Record<string, Record<string, string>> = {};
      for (const [project, agents] of Object.entries(listed)) {
        acknowledged[project] = {};
        for (const [name, hash] of Object.entries(agents as Record<string, string>)) {
          const current = context.agentFiles.find((file) => file.name === name);
          acknowledged[project][name] = current?.sha256 ?? hash;
          if (current && current.sha256 !== hash) {
            notes.push(`${current.path} changed since deploy; acknowledged its current bytes (sha256 ${current.sha256.slice(0, 12)}…)`);
          }
        }
      }
      homeFiles.push({ path: ".gemini/acknowledgments/agents.json", content: jsonFile(acknowledged) });
      performed.push("gemini.acknowledge-agents");
    }
    return {
      homeFiles,
      env: { GOOGLE_GEMINI_BASE_URL: context.stubUrl, GEMINI_API_KEY: "hermit-verify", GEMINI_CLI_NO_RELAUNCH: "true" },
      args: ["-p", context.prompt, "-m", "gemini-2.5-flash", "--approval-mode", "yolo", "-o", "json"],
      performed,
      notes,
    };
  },

  listings: [
    {
      args: ["mcp", "list"],
      label: "gemini mcp list",
      kinds: ["tool"],
      find: (output, _kind, server) => healthLine(output, server, /Connected/),
    },
    {
      args: ["skills", "list"],
      label: "gemini skills list",
      kinds: ["skill"],
      find: (output, _kind, name) => healthLine(output, name, /\[Enabled\]/),
    },
  ],

  toolNames: (server, tool) => [`mcp_${server}_${tool}`],
};
