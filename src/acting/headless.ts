/**
 * The headless runner: one host program, in an isolated home prepared by its recipe (the
 * activation steps performed there), run once to do work — in a deployed workspace
 * (acting) or in a scratch copy of the candidate (the agent learner) — with its JSON output
 * read into a transcript. The host is the leader of its own process group, optionally inside
 * bubblewrap; at the time limit, on abort, or when it exits, the group is killed, and so is
 * anything the run left behind. The home is removed before this returns.
 */
import { realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, relative, isAbsolute } from "node:path";
import type { ActivationStep, HostId } from "../hosts/types.js";
import { isolatedArgv, locateBwrap } from "../sandbox/bwrap.js";
import type { AgentFile } from "../verify/deployment.js";
import { createIsolatedHome } from "../verify/home.js";
import { runProcess, type RunResult } from "../verify/process.js";
import { findHostProgram } from "../verify/programs.js";
import { recipes } from "../verify/recipes/index.js";
import type { HeadlessOptions, ModelEndpoint } from "../verify/recipes/types.js";
import { transcriptReaders } from "./transcripts/index.js";
import type { HostTranscript } from "./types.js";

export interface HeadlessRunOptions {
  host: HostId;
  /** The host executable; default: found on `PATH` of `env`. */
  hostBin?: string;
  /** The directory the host works in (its cwd). */
  cwd: string;
  prompt: string;
  purpose: HeadlessOptions["purpose"];
  /** The host's model: API root, protocol, model id, key (resolved by the model layer, or the stub). */
  endpoint: ModelEndpoint;
  /** Where PATH and the locale come from. Default `process.env`. Nothing else of it reaches the host. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The deployment's activation steps (already mapped to `cwd`). */
  activation?: readonly ActivationStep[];
  agentFiles?: readonly AgentFile[];
  /** Trust `cwd` whatever the activation steps say (a directory hermit prepared itself). */
  trustWorkspace?: boolean;
  /** MCP servers (adapter names) to wait for. */
  servers?: readonly string[];
  maxTurns?: number;
  maxBudgetUsd?: number;
  /** Variables added to the host's environment (e.g. `HERMIT_AUDIT_LOG`). */
  extraEnv?: Readonly<Record<string, string>>;
  /**
   * Run the host inside bubblewrap, with nothing writable but these directories (and the
   * isolated home). Throws SANDBOX_UNAVAILABLE without a working bwrap.
   */
  jail?: { writable: readonly string[] };
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface HeadlessRun {
  host: HostId;
  /** The host executable that ran. */
  program: string;
  /** The argv, as run (inside bwrap's when jailed). */
  argv: readonly string[];
  process: RunResult;
  transcript: HostTranscript;
  /** Activation steps of the report performed in the isolated home. */
  performed: string[];
}

const RUN_MARKER = "HERMIT_HOST_RUN";
const STDERR_TAIL_LINES = 20;

/** How a host's turn ended, as a scorer or a learner step judges it. */
export interface TurnEnd {
  host: HostId;
  /** The exit code; null when the host was stopped (time limit, interruption) or never started. */
  exitCode: number | null;
  timedOut: boolean;
  /** What the host said went wrong in its output, or why it could not start. */
  hostError?: string;
  /** The last lines of its stderr. */
  stderrTail: string;
}

/** The end of a run, from its process and its transcript. */
export function turnEnd(run: HeadlessRun): TurnEnd {
  const { process: result, transcript } = run;
  const hostError = result.spawnError !== undefined ? `could not start: ${result.spawnError}` : transcript.error;
  return {
    host: run.host,
    exitCode: result.timedOut || result.aborted ? null : result.exitCode,
    timedOut: result.timedOut,
    ...(hostError !== undefined ? { hostError } : {}),
    stderrTail: result.stderr.trimEnd().split(/\r?\n/).slice(-STDERR_TAIL_LINES).join("\n"),
  };
}

/**
 * Why a turn could not be measured, or undefined when it finished: the host timed out, was
 * stopped, exited non-zero, or said in its output that the turn failed (Pi exits 0 when its
 * model call fails; a turn or budget limit cut it short).
 */
export function unmeasured(end: TurnEnd): string | undefined {
  const tail = end.stderrTail.trim() ? `\n${end.stderrTail.trim()}` : "";
  const said = end.hostError ? ` (${end.hostError})` : "";
  if (end.timedOut) return `${end.host} did not finish within the time limit and was stopped${tail}`;
  if (end.exitCode === null) return `${end.host} was stopped before it finished${said}${tail}`;
  if (end.exitCode !== 0) return `${end.host} exited with code ${end.exitCode}${said}${tail}`;
  if (end.hostError) return `${end.host} reported that its turn failed${said}${tail}`;
  return undefined;
}

/** Run the host once, headless; never throws for what the host did (see `process`). */
export async function runHeadless(options: HeadlessRunOptions): Promise<HeadlessRun> {
  const env = options.env ?? process.env;
  const recipe = recipes[options.host];
  const program = findHostProgram(options.host, { ...(options.hostBin !== undefined ? { hostBin: options.hostBin } : {}), path: env.PATH ?? "" });
  const cwd = await realpath(options.cwd);
  const home = await createIsolatedHome({ prefix: "hermit-host-", marker: RUN_MARKER, from: env });
  try {
    const headless: HeadlessOptions = {
      prompt: options.prompt,
      purpose: options.purpose,
      servers: options.servers ?? [],
      serverEnv: Object.keys(options.extraEnv ?? {}),
      jailed: options.jail !== undefined,
      ...(options.endpoint.model !== undefined ? { model: options.endpoint.model } : {}),
      ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
      ...(options.maxBudgetUsd !== undefined ? { maxBudgetUsd: options.maxBudgetUsd } : {}),
    };
    const prepared = recipe.prepare({
      workspace: cwd,
      home: home.dir,
      endpoint: options.endpoint,
      activation: options.activation ?? [],
      agentFiles: options.agentFiles ?? [],
      ...(options.trustWorkspace ? { trustWorkspace: true } : {}),
      headless,
    });
    await home.write(prepared.homeFiles);
    const command = [program, ...recipe.headlessArgs(headless)];
    const argv = options.jail ? await jailed(command, [cwd, home.dir, ...options.jail.writable], program) : command;
    const result = await runProcess({
      argv,
      cwd,
      env: { ...home.env, ...prepared.env, ...options.extraEnv },
      timeoutMs: options.timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { host: options.host, program, argv, process: result, transcript: transcriptReaders[options.host](result.stdout), performed: prepared.performed };
  } finally {
    await home.dispose();
  }
}

function inside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * `command` inside bubblewrap: the whole file system read-only but `writable`, the user's
 * real home hidden (unless something the run needs lives in it), a PID namespace that dies
 * with the run. The network stays: the host must reach its model.
 */
async function jailed(command: string[], writable: string[], program: string): Promise<string[]> {
  const bwrap = await locateBwrap();
  const realHome = await realpath(homedir()).catch(() => homedir());
  const needed = [...writable, await realpath(program).catch(() => program), dirname(process.execPath)];
  const hideHome = realHome !== "/" && !needed.some((path) => inside(realHome, path));
  return isolatedArgv(bwrap, command, writable, { network: true, hidden: hideHome ? [realHome] : [] });
}
