/**
 * bubblewrap, in one place: finding a `bwrap` that can create the namespaces hermit uses
 * (probed once per process), and building its argument lists. The spec check's child and the
 * tool sandbox both run through here, and so do the tests' decisions to skip.
 */
import { execFile } from "node:child_process";
import { constants } from "node:fs";
import { access } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { HermitError } from "../errors.js";

/** Whether this machine can sandbox, and if not, why. */
export type BwrapProbe = { available: true; path: string } | { available: false; reason: string };

/** Probes by PATH: the answer depends on which `bwrap` PATH finds. */
const probes = new Map<string, Promise<BwrapProbe>>();

/**
 * Find `bwrap` on PATH and check that it can run a command with every namespace hermit uses
 * (network, PID, user, mount); cached for the process (per PATH). Never throws.
 */
export function probeBwrap(): Promise<BwrapProbe> {
  const key = process.env.PATH ?? "";
  let probe = probes.get(key);
  if (!probe) {
    probe = runProbe();
    probes.set(key, probe);
  }
  return probe;
}

/** A working bwrap's path, or throw SANDBOX_UNAVAILABLE saying why. */
export async function locateBwrap(): Promise<string> {
  const found = await probeBwrap();
  if (!found.available) throw new HermitError("SANDBOX_UNAVAILABLE", found.reason);
  return found.path;
}

async function runProbe(): Promise<BwrapProbe> {
  if (process.platform !== "linux") return { available: false, reason: `the sandbox needs Linux with bubblewrap; this is ${process.platform}` };
  const path = await findOnPath("bwrap");
  if (!path) {
    return { available: false, reason: "the sandbox needs bubblewrap, and no 'bwrap' is on PATH; install it (apt-get install bubblewrap)" };
  }
  const args = ["--unshare-all", "--die-with-parent", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--", "true"];
  const failure = await new Promise<string | undefined>((resolve) => {
    execFile(path, args, { timeout: 10_000 }, (error, _stdout, stderr) => resolve(error ? stderr.trim() || error.message : undefined));
  });
  return failure === undefined ? { available: true, path } : { available: false, reason: `${path} cannot create a sandbox here: ${failure}` };
}

/** The first executable `name` in a folder of PATH, or undefined. */
export async function findOnPath(name: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (await access(candidate, constants.X_OK).then(() => true, () => false)) return candidate;
  }
  return undefined;
}

/** Options of `isolatedArgv`. */
export interface IsolationOptions {
  /** Keep the network (a coding-agent host must reach its model). Default false: no network. */
  network?: boolean;
  /** Directories hidden behind an empty, read-only tmpfs (e.g. the user's real home). */
  hidden?: readonly string[];
  /** A descriptor bwrap reports the namespace's first process on. */
  infoFd?: number;
}

/**
 * argv that runs `command` inside bubblewrap with the file system read-only but `writable`,
 * and no network unless asked. The command gets its own PID namespace, so every process it
 * starts dies with it. With `infoFd`, bwrap writes `{ "child-pid": <pid> }` on that
 * descriptor: the host pid of the namespace's first process, whose end means the whole
 * namespace has ended (`waitUntilEnded` in `processes.ts`).
 */
export function isolatedArgv(bwrap: string, command: string[], writable: readonly string[] = [], options: IsolationOptions = {}): string[] {
  return [
    bwrap,
    ...(options.infoFd === undefined ? [] : ["--info-fd", String(options.infoFd)]),
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--proc", "/proc",
    ...(options.hidden ?? []).flatMap((dir) => ["--tmpfs", dir, "--remount-ro", dir]),
    ...writable.flatMap((dir) => ["--bind", dir, dir]),
    ...(options.network ? [] : ["--unshare-net"]),
    "--unshare-pid",
    "--die-with-parent",
    "--new-session",
    "--",
    ...command,
  ];
}

/** What a sandboxed process sees: each folder at its own path. */
export interface SandboxLayout {
  /** Folders and files visible read-only (each at its own path). */
  readOnly: string[];
  /** Files to show at a path of their own (`source` on the host, read-only at `path` inside), e.g. a made-up `/etc/passwd`. */
  files?: Array<{ source: string; path: string }>;
  /** Keep the host's network (a granted exception); by default the sandbox has only its own loopback. */
  shareNetwork?: boolean;
  /** Folders visible and writable (the evidence directory). */
  writable: string[];
  /** Top-level symlinks to recreate, e.g. `/bin → usr/bin` on merged-/usr systems. */
  symlinks: Array<{ path: string; target: string }>;
  /** Environment of the sandboxed process (everything else is cleared). */
  env: Record<string, string>;
  /** Working directory inside the sandbox. */
  cwd: string;
}

/**
 * bubblewrap's arguments for `layout` (pure): every namespace unshared, no capabilities, an
 * empty read-only root with only the layout's folders in it. Mounts go parent-first, so a
 * folder nested in another keeps its own mode: an adapter inside the evidence directory stays
 * read-only.
 */
export function bwrapArguments(layout: SandboxLayout): string[] {
  const mounts = [
    ...layout.readOnly.map((path) => ({ path, flag: "--ro-bind" })),
    ...layout.writable.map((path) => ({ path, flag: "--bind" })),
  ].sort((a, b) => depth(a.path) - depth(b.path) || (a.flag === "--bind" ? 1 : -1));
  return [
    "--unshare-all",
    ...(layout.shareNetwork ? ["--share-net"] : []),
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--clearenv",
    ...Object.entries(layout.env).flatMap(([name, value]) => ["--setenv", name, value]),
    ...layout.symlinks.flatMap(({ path, target }) => ["--symlink", target, path]),
    ...mounts.flatMap(({ path, flag }) => [flag, path, path]),
    ...(layout.files ?? []).flatMap(({ source, path }) => ["--ro-bind", source, path]),
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    // The root bwrap builds the mounts in is a tmpfs: make it read-only too.
    "--remount-ro",
    "/",
    "--chdir",
    layout.cwd,
    "--",
  ];
}

function depth(path: string): number {
  return path.split("/").filter(Boolean).length;
}
