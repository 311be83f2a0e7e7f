/** Facts about other processes of this machine, for locks and temp files left by crashed writers. */
import { readFileSync } from "node:fs";

/** Whether a process with this pid runs on this machine (EPERM: it does, as another user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

let bootId: string | undefined | null = null;

/** `<boot id>:<start tick>` of a process (Linux `/proc`), or undefined where it cannot be read. */
export function processStart(pid: number): string | undefined {
  try {
    if (bootId === null) bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 22 (starttime); the command name (field 2) may hold spaces, so count after its ')'.
    const tick = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    return bootId && tick ? `${bootId}:${tick}` : undefined;
  } catch {
    return undefined;
  }
}
