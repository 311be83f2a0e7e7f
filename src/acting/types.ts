/**
 * The acting layer's shapes: what a host said it did in a headless run (its transcript, read
 * from its own JSON output), the usage it reported, and what a rollout acted through a host
 * returns to the task's scorer.
 */
import type { HostId } from "../hosts/types.js";
import type { TokenUsage } from "../models/usage.js";

/** One tool call the host reported in its output. */
export interface HostToolCall {
  /** The tool's name as the host called it (`Write`, `exec_command`, `mcp__file-example__count_words`). */
  name: string;
  /** Its arguments (parsed JSON where the host gave JSON). */
  arguments: unknown;
  /** The result text, where the host reported it. */
  result?: string;
  /** True when the host reported the call as failed. */
  isError?: boolean;
}

/**
 * Usage as one host reported it, in the model layer's shape (`input` includes cached tokens,
 * `output` includes reasoning): a field left out was not reported — unknown, never zero.
 * `costSource` says where `costUsd` came from.
 */
export interface HostUsage extends TokenUsage {
  costUsd?: number;
  /** `host`: the host computed it; `price-table`: hermit priced the tokens; absent with no cost: unknown. */
  costSource?: "host" | "price-table";
  /** The model the host named in its report, where it did. */
  model?: string;
}

/** What a host's headless JSON output says happened. */
export interface HostTranscript {
  /** The agent's last text message. */
  finalMessage?: string;
  toolCalls: HostToolCall[];
  /** Undefined when the output carried no usage at all. */
  usage?: HostUsage;
  /** An error the host reported in its output (e.g. Claude's `error_max_turns`). */
  error?: string;
  /** How many JSON events (lines or documents) the output held. */
  events: number;
}

/** A reader of one host's headless output (stdout). Pure; never throws on bad output. */
export type TranscriptReader = (stdout: string) => HostTranscript;

/** An adapter tool call as hermit's server recorded it (the audit log). */
export interface AdapterToolCall {
  tool: string;
  arguments: unknown;
  ok: boolean;
  /** The result, as the server sent it back. */
  result?: unknown;
  /** The error message, when the call failed. */
  error?: string;
  time?: string;
}

/** Did the agent use the adapter: the skills it read and the adapter tools it called. */
export interface AdapterUse {
  /** Deployed skills the host read (its skill tool, or a read of the skill's files). */
  skillsRead: string[];
  /** Adapter tools called, from the served adapter's audit log (each once). */
  toolsCalled: string[];
  /** True when any skill was read or any adapter tool called. */
  used: boolean;
}

/** What `act` returns: the host's turn in a deployed workspace, for the task to score. */
export interface ActResult {
  host: HostId;
  /** The host's stdout: its JSON events, as it printed them. */
  transcript: string;
  finalMessage?: string;
  /** Tool calls the host reported, in order. */
  toolCalls: HostToolCall[];
  /** Adapter tool calls hermit's server ran (the audit log), in order. */
  adapterToolCalls: AdapterToolCall[];
  /** Deployed skills the host read. */
  skillsRead: string[];
  adapterUse: AdapterUse;
  /** Undefined when the host reported no usage (unknown, never zero). */
  usage?: HostUsage;
  /** Why the usage, or its cost, is unknown, when it is. */
  usageUnknown?: string;
  /** The host's exit code; null when it was killed (time limit, interruption) or never started. */
  exitCode: number | null;
  timedOut: boolean;
  /** What the host said went wrong, in its output (e.g. Claude's `error_max_turns`), or why it did not start. */
  hostError?: string;
  /** The last lines of the host's stderr. */
  stderrTail: string;
  durationMs: number;
  /** The workspace the host worked in; readable until the rollout's scoring is done. */
  workspace: string;
}
