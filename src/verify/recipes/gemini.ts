/**
 * Gemini CLI 0.61: `gemini -p` against the Gemini API at `GOOGLE_GEMINI_BASE_URL`, with
 * API-key auth selected in `~/.gemini/settings.json`, and the folder trust and agent
 * acknowledgments the report lists. `--approval-mode yolo` keeps MCP tools in headless mode.
 * Skills are listed in `<available_skills>`, subagents as `name -> description`, MCP tools as
 * `mcp_<server>_<tool>`.
 */
import { PLACEHOLDER_KEY, healthLine, jsonFile, stepData, withoutVersion } from "./shared.js";
import type { HeadlessOptions, HomeFile, HostRecipe, Prepared, RecipeContext } from "./types.js";

const DEFAULT_MODEL = "gemini-2.5-flash";
/** Gemini CLI's web tools, excluded for a learner. */
const WEB_TOOLS = ["web_fetch", "google_web_search"];

/** The acknowledgments the report lists, with the current hash of each agent file, and notes where they changed. */
function acknowledgments(context: RecipeContext): { file?: HomeFile; notes: string[] } {
  const listed = stepData(context, "gemini.acknowledge-agents", "agentAcknowledgments");
  if (!listed) return { notes: [] };
  // Gemini acknowledges exact bytes. A person acknowledges the agent files as they are when
  // Gemini asks, so the current hash of each agent the step names is recorded.
  const notes: string[] = [];
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
  return { file: { path: ".gemini/acknowledgments/agents.json", content: jsonFile(acknowledged) }, notes };
}

export const geminiRecipe: HostRecipe = {
  host: "gemini",
  protocol: "gemini",

  protocols: ["gemini"],

  prepare(context: RecipeContext): Prepared {
    const headless = context.headless;
    const settings = {
      security: { auth: { selectedType: "gemini-api-key" } },
      privacy: { usageStatisticsEnabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      // Gemini CLI has no turn or web flags: its settings carry both.
      ...(headless?.maxTurns !== undefined ? { model: { maxSessionTurns: headless.maxTurns } } : {}),
      ...(headless?.purpose === "learn" ? { tools: { exclude: WEB_TOOLS } } : {}),
    };
    const homeFiles: HomeFile[] = [{ path: ".gemini/settings.json", content: jsonFile(settings) }];
    const performed: string[] = [];
    const trust = stepData(context, "gemini.trust-folder", "trustedFolders");
    if (trust || context.trustWorkspace) {
      homeFiles.push({ path: ".gemini/trustedFolders.json", content: jsonFile(trust ?? { [context.workspace]: "TRUST_FOLDER" }) });
      if (trust) performed.push("gemini.trust-folder");
    }
    const acknowledged = acknowledgments(context);
    if (acknowledged.file) {
      homeFiles.push(acknowledged.file);
      performed.push("gemini.acknowledge-agents");
    }
    const { baseUrl, apiKey } = context.endpoint;
    return {
      homeFiles,
      env: {
        // Gemini CLI appends /v1beta/models/… itself.
        GOOGLE_GEMINI_BASE_URL: withoutVersion(baseUrl),
        GEMINI_API_KEY: apiKey ?? PLACEHOLDER_KEY,
        GEMINI_CLI_NO_RELAUNCH: "true",
      },
      performed,
      notes: acknowledged.notes,
    };
  },

  // Without yolo (or --allowed-tools), `-p` drops MCP tools; the discovery stub never calls a tool.
  discoveryArgs: (prompt) => ["-p", prompt, "-m", DEFAULT_MODEL, "--approval-mode", "yolo", "-o", "json"],

  headlessArgs: (options: HeadlessOptions) => [
    "-p",
    options.prompt,
    "-m",
    options.model ?? DEFAULT_MODEL,
    "--approval-mode",
    "yolo",
    "-o",
    "stream-json",
  ],

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
