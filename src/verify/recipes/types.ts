/**
 * A host recipe: how to run one host program in an isolated home against a model endpoint
 * (the stub model, or the user's provider), once for discovery (`hermit verify`) or
 * headless to do work (acting, the agent learner). Recipes are pure: they describe files,
 * environment and argv; the shells write and run them.
 */
import type { ActivationStep, HostId } from "../../hosts/types.js";
import type { AgentFile } from "../deployment.js";
import type { HomeFile } from "../home.js";
import type { WireProtocol } from "../../models/providers.js";
import type { StubProtocol } from "../stub-model.js";

export type { HomeFile };

/**
 * Where the host's model is: the stub model (verify, tests) or the user's provider, resolved
 * by the model layer (API root, key). The key reaches the host only through its environment.
 */
export interface ModelEndpoint {
  /** The API root, version segment included: `https://api.openai.com/v1`, `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  /** The wire protocol the endpoint speaks. */
  protocol: WireProtocol;
  /** The model id the host asks for; undefined: the recipe's stub model name. */
  model?: string;
  /** The API key; undefined: a placeholder (the stub, a local server that takes none). */
  apiKey?: string;
}

/** What a recipe knows about the run it prepares. */
export interface RecipeContext {
  /** Real absolute path of the workspace (the host's cwd). */
  workspace: string;
  /** The isolated home (absolute). */
  home: string;
  endpoint: ModelEndpoint;
  /** The activation steps the deployment report lists (none for an undeployed directory). */
  activation: readonly ActivationStep[];
  /** The deployed subagent files, with the sha256 of their current bytes (for acknowledgments). */
  agentFiles: readonly AgentFile[];
  /**
   * Trust the workspace whether or not the report lists a step for it: for a directory
   * hermit prepared itself (the learner's scratch copy), not for a deployment under test.
   */
  trustWorkspace?: boolean;
  /** The headless run being prepared; undefined for a discovery run. Some hosts take its limits from their home's settings. */
  headless?: HeadlessOptions;
}

/** The home files and environment of a run, and the activation steps performed in them. */
export interface Prepared {
  homeFiles: HomeFile[];
  /** Variables added to the isolated base environment (HOME, TMPDIR, XDG_* are set by the shell). */
  env: Record<string, string>;
  /** Activation steps of the report this recipe performed, by id. */
  performed: string[];
  /** How a performed step differed from the report's wording, for the report's warnings. */
  notes?: string[];
}

/** Everything needed to launch the host once. */
export interface Launch extends Prepared {
  /** Arguments after the program. */
  args: string[];
}

/** What a headless run that does work is for, and its limits. */
export interface HeadlessOptions {
  prompt: string;
  /** The model id (the endpoint's); hosts that take it as a flag get it there. */
  model?: string;
  /** `act`: do the task in a deployed workspace; `learn`: edit an adapter copy (web tools denied). */
  purpose: "act" | "learn";
  /** The MCP servers (adapter names) the run should wait for before its first request, and whose tools it may call. */
  servers: readonly string[];
  /** Variables of the host's environment its MCP servers must receive (e.g. `HERMIT_AUDIT_LOG`). */
  serverEnv?: readonly string[];
  /** The host's own turn limit, where it has one. */
  maxTurns?: number;
  /** The host's own spending limit, where it has one (Claude Code). */
  maxBudgetUsd?: number;
  /** True when hermit runs the host inside its own jail (the host's own sandbox is then turned off). */
  jailed?: boolean;
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
  /** The wire protocol the host speaks to its model by default (the stub's protocol). */
  protocol: StubProtocol;
  /** The wire protocols the host can speak to its model (its own, or any for a host with pluggable providers). */
  protocols: readonly WireProtocol[];
  /** Pure: home files, environment and performed activation steps for one run. */
  prepare(context: RecipeContext): Prepared;
  /** Arguments of a one-turn discovery run (`hermit verify`). */
  discoveryArgs(prompt: string): string[];
  /** Arguments of a headless run that works, with JSON output on stdout. */
  headlessArgs(options: HeadlessOptions): string[];
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
