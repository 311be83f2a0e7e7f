/**
 * Knowing when a process is really gone. A SIGKILL is only a request: the kernel ends the
 * process (and, for the first process of a PID namespace, every other process of that
 * namespace) some time later. Code that promises "nothing you started outlives this call"
 * must wait for it. Linux `/proc` only; elsewhere nothing can be observed and the waits
 * return at once.
 */
import { readFile } from "node:fs/promises";

/** A process named by pid and start time, so that a reused pid is never mistaken for it. */
export interface ProcessIdentity {
  pid: number;
  /** Start time in clock ticks after boot (`/proc/<pid>/stat` field 22). */
  start: string;
}

interface ProcessStat {
  /** One letter: R running, S sleeping, Z zombie (exited, not yet reaped), X dead, … */
  state: string;
  start: string;
}

async function readStat(pid: number): Promise<ProcessStat | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  // The command name (field 2) is in parentheses and may itself hold spaces or parentheses.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] ?? "", start: fields[19] ?? "" };
}

/** The identity of a live process, or undefined when there is none with that pid. */
export async function identifyProcess(pid: number): Promise<ProcessIdentity | undefined> {
  const stat = await readStat(pid);
  return stat && !isFinished(stat.state) ? { pid, start: stat.start } : undefined;
}

/** A zombie has exited; only its parent's bookkeeping remains. */
const isFinished = (state: string) => state === "Z" || state === "X";

/** Whether the process has ended (exited, or its pid now names another process). */
export async function hasEnded(process: ProcessIdentity): Promise<boolean> {
  const stat = await readStat(process.pid);
  return stat === undefined || stat.start !== process.start || isFinished(stat.state);
}

const POLL_MS = 10;

/**
 * Wait until `process` has ended, at most `timeoutMs`. Resolves true when it ended, false
 * when the time ran out. When it is the first process of a PID namespace, its end means
 * every process of that namespace has ended: the kernel kills and reaps them before it.
 */
export async function waitUntilEnded(process: ProcessIdentity, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await hasEnded(process))) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}
