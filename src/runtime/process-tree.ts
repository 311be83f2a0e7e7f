/**
 * Ending a tool process together with everything it started. The process leads its own
 * process group, which reaches the children it started attached; children it started
 * detached (a new session or group) are found by walking the parent links in `/proc`
 * (Linux) before anything is killed. A process that daemonized (its parent already exited)
 * is out of reach of both: only the sandbox's PID namespace contains that.
 */
import { readdirSync, readFileSync } from "node:fs";

const tracked = new Set<number>();
let exitHookInstalled = false;

/**
 * Kill every descendant of `pid`, then `pid`'s process group and `pid` itself, now (SIGKILL).
 * A process may call it on itself: it dies last.
 */
export function killTree(pid: number | undefined): void {
  if (pid === undefined) return;
  for (const victim of descendants(pid)) signal(victim);
  signal(-pid);
  signal(pid);
}

/** Remember a live tool process, so that it is killed when hermit exits without closing it. */
export function trackProcess(pid: number | undefined): void {
  if (pid === undefined) return;
  tracked.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const live of tracked) killTree(live);
  });
}

export function untrackProcess(pid: number | undefined): void {
  if (pid !== undefined) tracked.delete(pid);
}

/** Every process whose chain of parents leads to `pid` (empty where `/proc` cannot be read). */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(entry);
    if (parent === undefined) continue;
    const list = children.get(parent) ?? [];
    list.push(Number(entry));
    children.set(parent, list);
  }
  const found: number[] = [];
  const pending = [pid];
  while (pending.length > 0) {
    for (const child of children.get(pending.pop()!) ?? []) {
      found.push(child);
      pending.push(child);
    }
  }
  return found;
}

function parentOf(pid: string): number | undefined {
  try {
    // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[1]);
  } catch {
    return undefined; // gone meanwhile
  }
}

function signal(target: number): void {
  try {
    process.kill(target, "SIGKILL");
  } catch {
    // already gone
  }
}
