/** Finding bubblewrap and wrapping a command in it: no network, own PIDs, the whole file system read-only. */
import { spawnSync } from "node:child_process";

let cached: string | null | undefined;

/** Absolute path of a working `bwrap`, or undefined when the machine has none (or it cannot run). */
export function findBwrap(): string | undefined {
  if (cached === undefined) {
    const which = spawnSync("sh", ["-c", "command -v bwrap"], { encoding: "utf8" });
    const path = which.stdout.trim();
    const works =
      path !== "" && spawnSync(path, ["--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "--", "true"]).status === 0;
    cached = works ? path : null;
  }
  return cached ?? undefined;
}

/**
 * argv that runs `command` inside bubblewrap with no network and nothing writable. The
 * command gets its own PID namespace, so every process it starts dies with it.
 */
export function bwrapArgv(bwrap: string, command: string[], writable: string[] = []): string[] {
  return [
    bwrap,
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--proc", "/proc",
    ...writable.flatMap((dir) => ["--bind", dir, dir]),
    "--unshare-net",
    "--unshare-pid",
    "--die-with-parent",
    "--new-session",
    "--",
    ...command,
  ];
}
