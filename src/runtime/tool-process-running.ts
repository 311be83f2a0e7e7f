/**
 * A running tool process as the protocol side holds it (`tool-process.ts`): the process, its
 * request stream, the calls it was sent and not yet answered, its pending pings. Here too the
 * few things done to one process on its own: writing a request, asking whether it may have
 * begun a call, pinging it after a time-out, and stopping it with everything it started.
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import { killTree, untrackProcess } from "./process-tree.js";
import type { FromHost, HostTool, ToHost } from "./tool-channel.js";
import type { ToolLaunch } from "./tool-launch.js";
import type { ToolResources } from "./types.js";

/** What a tool process reports for one call, before the toolbox validates the result. */
export type ProcessOutcome =
  | { ok: true; value: unknown }
  | { ok: false; code: "TOOL_FAILED" | "TOOL_TIMEOUT" | "TOOL_CANCELLED" | "TOOL_RESULT_INVALID"; message: string };

export interface ToolProcessOptions {
  launch: ToolLaunch;
  root: string;
  tools: Array<HostTool & { entrypoint: string }>;
  resources: ToolResources;
  /** Limit for importing the tool modules. */
  loadTimeoutMs: number;
  /** Calls sent to the process at once; the rest wait. */
  maxInFlight: number;
  /** Where the process's stdout and stderr go (they never reach a protocol stream). */
  output: (chunk: Buffer) => void;
}

/** A call asked of the tool runtime: waiting, or sent to `process`. */
export interface PendingCall {
  id: number;
  key: string;
  tool: string;
  args: Record<string, unknown>;
  timeoutMs: number;
  timer?: NodeJS.Timeout;
  process?: RunningProcess;
  settle: (outcome: ProcessOutcome) => void;
}

/** A call the process was sent and has not answered; `call` is gone once it timed out. */
export interface SentCall {
  key: string;
  announced: boolean;
  call?: PendingCall;
}

/** The answer to a ping: no answer within the grace period means the process is blocked. */
export type Health = { blocked: true } | { blocked: false; stuck: number };

export interface RunningProcess {
  child: ChildProcess;
  /** Its `HERMIT_TOOL_TREE` value (process-tree.ts). */
  mark: string;
  requests: Writable;
  answers: Readable;
  sent: Map<number, SentCall>;
  pings: Map<number, { key: string; answer: (stuck: number) => void }>;
  check?: Promise<Health>;
  /** Serves no new calls; killed once its pending calls are answered. */
  retiring: boolean;
  gone: boolean;
  forged: number;
  /** While starting: receives `ready` or `load-failed`. */
  onStart?: (message: Extract<FromHost, { t: "ready" | "load-failed" }>) => void;
}

/** How long a process may take to answer a ping after a time-out before it counts as blocked. */
const LIVENESS_GRACE_MS = 1000;

/** Write one request line, unless the process is gone. */
export function sendToHost(running: RunningProcess, message: ToHost): void {
  if (!running.gone) running.requests.write(`${JSON.stringify(message)}\n`);
}

/** Whether any call the process was sent still waits for its answer. */
export function hasCallsInFlight(running: RunningProcess): boolean {
  for (const sent of running.sent.values()) if (sent.call) return true;
  return false;
}

/**
 * Whether the process may have started call `id`: it announced it, or it is the oldest call
 * with neither answer nor announcement (the host announces a call whenever another one is
 * running, so a later unannounced call was never read).
 */
export function mayHaveBegun(running: RunningProcess, id: number): boolean {
  const sent = running.sent.get(id);
  if (!sent || sent.announced) return true;
  for (const [other, entry] of running.sent) if (other < id && !entry.announced) return false;
  return true;
}

/** Ping the process (`id` unique among its requests); one check at a time. */
export function checkHealth(running: RunningProcess, id: number): Promise<Health> {
  running.check ??= new Promise<Health>((resolve) => {
    const key = randomUUID();
    const timer = setTimeout(() => {
      running.pings.delete(id);
      resolve({ blocked: true });
    }, LIVENESS_GRACE_MS);
    running.pings.set(id, {
      key,
      answer: (stuck) => {
        clearTimeout(timer);
        running.pings.delete(id);
        resolve({ blocked: false, stuck });
      },
    });
    sendToHost(running, { t: "ping", id, key });
  }).finally(() => {
    running.check = undefined;
  });
  return running.check;
}

/** Kill the process, its group and everything marked as its own; resolves once it exited. */
export async function stopProcess(running: RunningProcess): Promise<void> {
  if (running.gone) return;
  running.gone = true;
  running.requests.destroy();
  running.child.ref(); // wait for its exit even when nothing else keeps hermit running
  const exited = new Promise<void>((resolve) => {
    if (running.child.exitCode !== null || running.child.signalCode !== null) resolve();
    else running.child.once("exit", () => resolve());
  });
  killTree(running.child.pid, running.mark);
  untrackProcess(running.child.pid);
  await exited;
}
