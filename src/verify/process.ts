/**
 * Running a host program once, with a time limit, and leaving nothing behind: each child is
 * the leader of its own process group, and the whole group is killed when it exits, times
 * out, is aborted, or when this process exits. Processes that escaped the group (a host may
 * start its MCP servers in a new session) are found by the run's marker in their
 * environment and killed too.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export interface RunOptions {
  argv: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  /** Kill the process group after this many milliseconds. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Text written to stdin, then closed. Default: stdin closed at once. */
  input?: string;
}

export interface RunResult {
  argv: readonly string[];
  exitCode: number | null;
  /** The signal that ended the process, if any. */
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  stdout: string;
  stderr: string;
  /** Set when the program could not be started at all. */
  spawnError?: string;
  durationMs: number;
}

/** Output kept per stream; hosts can be chatty and only the start and end matter. */
const MAX_OUTPUT_CHARS = 4 * 1024 * 1024;
/** Between SIGTERM and SIGKILL of a group. */
const KILL_GRACE_MS = 1_500;

const liveGroups = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort: an unexpected exit of hermit still takes the host's process groups with it.
  process.on("exit", () => {
    for (const pgid of liveGroups) killGroup(pgid, "SIGKILL");
  });
}

/** Send `signal` to the process group `pgid`; false when the group is gone. */
export function killGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * True while a live (not zombie) process of group `pgid` exists. Dead members can linger as
 * zombies where PID 1 does not reap orphans (containers), and they hold nothing; on Linux
 * /proc tells them apart, elsewhere signal 0 answers for the whole group.
 */
export function groupAlive(pgid: number): boolean {
  let entries: string[] | undefined;
  try {
    entries = readdirSync("/proc");
  } catch {
    entries = undefined;
  }
  if (entries === undefined || !entries.includes("self")) {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "EPERM";
    }
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      // Fields after the command name: state ppid pgrp …
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pgid && state !== "Z" && state !== "X") return true;
    } catch {
      // exited meanwhile
    }
  }
  return false;
}

/** SIGTERM the group, then SIGKILL whatever is left after a grace period. */
export async function terminateGroup(pgid: number): Promise<void> {
  if (!killGroup(pgid, "SIGTERM")) return;
  const deadline = Date.now() + KILL_GRACE_MS;
  while (Date.now() < deadline) {
    if (!groupAlive(pgid)) return;
    await sleep(50);
  }
  killGroup(pgid, "SIGKILL");
  const hardDeadline = Date.now() + KILL_GRACE_MS;
  while (groupAlive(pgid) && Date.now() < hardDeadline) await sleep(50);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Run `argv` in its own process group; never rejects. The group is gone when this resolves. */
export function runProcess(options: RunOptions): Promise<RunResult> {
  installExitHook();
  const started = Date.now();
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let aborted = false;
    let settled = false;
    const [command, ...args] = options.argv;
    const child = spawn(command!, args, {
      cwd: options.cwd,
      env: { ...options.env },
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const pgid = child.pid;
    if (pgid !== undefined) liveGroups.add(pgid);
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      if (stdout.length < MAX_OUTPUT_CHARS) stdout += chunk;
    });
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < MAX_OUTPUT_CHARS) stderr += chunk;
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.input ?? "");

    const stop = (why: "timeout" | "abort") => {
      if (why === "timeout") timedOut = true;
      else aborted = true;
      if (pgid !== undefined) void terminateGroup(pgid);
    };
    const timer = setTimeout(() => stop("timeout"), options.timeoutMs);
    const onAbort = () => stop("abort");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();

    const finish = async (exitCode: number | null, signal: NodeJS.Signals | null, spawnError?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      // The leader is gone; its group (MCP servers, helpers) goes with it.
      if (pgid !== undefined) {
        await terminateGroup(pgid);
        liveGroups.delete(pgid);
      }
      resolve({
        argv: options.argv,
        exitCode,
        signal,
        timedOut,
        aborted,
        stdout,
        stderr,
        ...(spawnError !== undefined ? { spawnError } : {}),
        durationMs: Date.now() - started,
      });
    };
    child.on("error", (error) => void finish(null, null, error.message));
    child.on("close", (code, signal) => void finish(code, signal));
  });
}

/**
 * Pids of processes (other than this one) whose environment holds one of `markers`
 * (`NAME=value`) or whose working directory is inside `dir`. Linux only (reads /proc);
 * elsewhere empty.
 */
export function processesMarked(markers: readonly string[], dir?: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "latin1");
      const variables = environ.split("\0");
      if (markers.some((marker) => variables.includes(marker))) {
        found.push(pid);
        continue;
      }
      if (dir !== undefined) {
        const cwd = readlinkSync(`/proc/${pid}/cwd`);
        if (cwd === dir || cwd.startsWith(`${dir}/`)) found.push(pid);
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** Kill every process `processesMarked` finds (SIGKILL); returns the pids it signalled. */
export function killMarked(markers: readonly string[], dir?: string): number[] {
  const pids = processesMarked(markers, dir);
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  return pids;
}
