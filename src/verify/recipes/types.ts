/**
 * A verify recipe: how to run one host program against the stub model in an isolated home
 * (docs/hosts.md). Recipes are pure: they describe files, environment and
 * argv; the verify shell writes and runs them.
 */
import type { ActivationStep, HostId } from "../../hosts/types.js";
import type { StubProtocol } from "../stub-model.js";

/** What a recipe knows about the run it prepares. */
export interface RecipeContext {
  /** Real absolute path of the workspace (the host's cwd). */
  workspace: string;
  /** The isolated home (absolute). */
  home: string;
  /** `http://127.0.0.1:<port>` of the stub model. */
  stubUrl: string;
  /** The activation steps the deployment report lists. */
  activation: readonly ActivationStep[];
  /** The deployed subagent files, with the sha256 of their current bytes (for acknowledgments). */
  agentFiles: ReadonlyArray<{ name: string; path: string; sha256: string }>;
  /** The prompt to send. */
  prompt: string;
}

/** A file the recipe needs in the isolated home. `path` is relative to the home. */
export interface HomeFile {
  path: string;
  content: string;
}

/** Everything needed to launch the host once. */
export interface Launch {
  homeFiles: HomeFile[];
  /** Variables added to the isolated base environment (HOME, TMPDIR, XDG_* are set by the shell). */
  env: Record<string, string>;
  /** Arguments after the program. */
  args: string[];
  /** Activation steps of the report this recipe performed, by id. */
  performed: string[];
  /** How a performed step differed from the report's wording, for the report's warnings. */
  notes?: string[];
}

/** What kind of item the lines of a listing name. */
export type ListedKind = "skill" | "agent" | "tool";

/** A line of a listing that names an item; `ok` is false when it names it as failed or disabled. */
export interface ListedLine {
  line: string;
  ok: boolean;
}

/** A host's own listing command and how to read it. */
export interface ListingCommand {
  /**
   * Arguments after the program, e.g. `["mcp", "list"]`; absent for a listing read from the
   * stub run's own output (Claude Code's init event).
   */
  args?: string[];
  /** How the evidence names it, e.g. `claude mcp list`. */
  label: string;
  /** Which kinds of item its lines name. */
  kinds: readonly ListedKind[];
  /** The line that shows `name` (for tools: the MCP server name, `tool` the tool's name). */
  find(output: string, kind: ListedKind, name: string, tool?: string): ListedLine | undefined;
}

export interface HostRecipe {
  host: HostId;
  protocol: StubProtocol;
  /** Pure: home files, environment and argv for one run against the stub. */
  launch(context: RecipeContext): Launch;
  listings: readonly ListingCommand[];
  /** The names under which the host offers MCP tool `tool` of server `server` to the model. */
  toolNames(server: string, tool: string): string[];
  /**
   * For hosts whose one-shot mode may start the turn before their MCP servers are up: a
   * second launch, told to wait for `servers`, used only when the first run's requests lack
   * some of their tools. Undefined when the host cannot be told to wait.
   */
  waitForServers?(first: Launch, servers: readonly string[]): Launch | undefined;
}
