/**
 * Ending a tool process together with everything it started. The process leads its own
 * process group, which reaches the children it started attached; children it started
 * detached (a new session or group) are found by walking the parent links in `/proc`
 * (Linux) before anything is killed. A process that daemonized (its parent already exited,
 * so no parent link leads to it) is found by its mark: every tool process is started with
 * `HERMIT_TOOL_TREE=<a value of its own>` in its environment, which what it starts inherits.
 * Only a process that also cleared its environment escapes that; the sandbox's PID namespace
 * contains even that one.
 */
import { readdirSync, readFileSync } from "node:fs";

/** The environment variable that marks a tool process and everything it starts. */
export const TREE_MARK = "HERMIT_TOOL_TREE";

const tracked = new Map<number, string | undefined>();
let exitHookInstalled = false;

/**
 * Kill every descendant of `pid` and every process carrying `mark`, then `pid`'s process
 * group and `pid` itself, now (SIGKILL). A process may call it on itself: it dies last.
 */
export function killTree(pid: number | undefined, mark?: string): void {
  if (pid === undefined) return;
  for (const victim of descendants(pid)) signal(victim);
  if (mark) for (const victim of marked(mark)) if (victim !== process.pid) signal(victim);
  signal(-pid);
  signal(pid);
}

/** Remember a live tool process (and its mark), so that it is killed when hermit exits without closing it. */
export function trackProcess(pid: number | undefined, mark?: string): void {
  if (pid === undefined) return;
  tracked.set(pid, mark);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const [live, liveMark] of tracked) killTree(live, liveMark);
  });
}

export function untrackProcess(pid: number | undefined): void {
  if (pid !== undefined) tracked.delete(pid);
}

/** Every process whose environment holds `TREE_MARK=mark` (empty where `/proc` cannot be read). */
export function marked(mark: string): number[] {
  const needle = Buffer.from(`\0${TREE_MARK}=${mark}\0`);
  const found: number[] = [];
  for (const entry of processIds()) {
    try {
      // NUL-separated; a leading NUL lets the first variable match too.
      const environ = Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${entry}/environ`)]);
      if (environ.includes(needle)) found.push(Number(entry));
    } catch {
      // gone meanwhile, or another user's process
    }
  }
  return found;
}

/** Every process whose chain of parents leads to `pid` (empty where `/proc` cannot be read). */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of processIds()) {
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

/** The ids of every process (`/proc`'s numeric entries; none where `/proc` cannot be read). */
function processIds(): string[] {
  try {
    return readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
  } catch {
    return [];
  }
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
