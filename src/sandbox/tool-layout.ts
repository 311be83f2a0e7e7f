/**
 * What a sandboxed tool process sees (bubblewrap, see `bwrap.ts`): only what it needs to
 * run, read-only — the system's programs and libraries (`/usr`, `/bin`, `/lib*`), a few
 * files of `/etc` the dynamic linker and the C library read, the runtime's own folders
 * (node's, or the Python prefixes), hermit's runtime files, and the adapter — and nothing
 * writable but the evidence directory. Everything else is absent: the rest of `/etc`
 * (`/etc/shadow`), hermit's examples and task data, run directories, the user's home.
 * Each extra the caller grants (`read`, `write`, `network`, `env`) is explicit.
 */
import { lstat, readlink, realpath } from "node:fs/promises";
import type { SandboxLayout } from "./bwrap.js";

/** System folders made visible read-only (those that exist; top-level symlinks are recreated as symlinks). */
const SYSTEM_PATHS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
/** What every process needs from /etc: the dynamic linker's cache, name-service and time-zone settings. */
const ETC_FILES = ["/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/nsswitch.conf", "/etc/alternatives"];
/** Added when the network is granted: name resolution and TLS certificates. */
const ETC_NETWORK_FILES = ["/etc/resolv.conf", "/etc/hosts", "/etc/host.conf", "/etc/gai.conf", "/etc/services", "/etc/protocols", "/etc/ssl", "/etc/ca-certificates"];

/** Extras granted beyond the strict sandbox, each path absolute. */
export interface SandboxGrants {
  /** Keep the host's network. */
  network: boolean;
  /** Extra files or folders visible read-only. */
  read: string[];
  /** Extra folders visible and writable. */
  write: string[];
  /** Names of environment variables passed through from hermit's environment. */
  env: string[];
}

export interface ToolLayoutInput {
  /** The adapter directory (read-only; the working directory). */
  adapter: string;
  /** The evidence directory (writable), when bound. */
  evidence?: string;
  /** Folders the runtime needs (node's folder, a Python prefix), read-only. */
  runtime: string[];
  /** hermit's files the tool process runs (read-only). */
  hermit: string[];
  /** Made-up files shown at their paths (`/etc/passwd`, `/etc/group`). */
  files: Array<{ source: string; path: string }>;
  grants: SandboxGrants;
}

/** The layout for a tool process; every path is resolved (a link is bound as what it points to). */
export async function toolSandboxLayout(input: ToolLayoutInput): Promise<SandboxLayout> {
  const env: Record<string, string> = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: "/", LANG: "C.UTF-8" };
  for (const name of input.grants.env) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  const layout: SandboxLayout = {
    readOnly: [],
    writable: [],
    symlinks: [],
    files: [...input.files],
    shareNetwork: input.grants.network,
    env,
    cwd: await realpath(input.adapter),
  };
  for (const path of SYSTEM_PATHS) {
    const info = await lstat(path).catch(() => undefined);
    if (!info) continue;
    if (info.isSymbolicLink()) layout.symlinks.push({ path, target: await readlink(path) });
    else layout.readOnly.push(path);
  }
  for (const path of input.grants.network ? [...ETC_FILES, ...ETC_NETWORK_FILES] : ETC_FILES) {
    const real = await realpath(path).catch(() => undefined);
    if (real === undefined) continue; // this system lacks it
    // A link (/etc/localtime → /usr/share/zoneinfo/…) is bound as what it points to, at its own path.
    if (real === path) layout.readOnly.push(path);
    else layout.files!.push({ source: real, path });
  }
  for (const path of [...input.runtime, ...input.hermit, input.adapter, ...input.grants.read]) {
    const real = await realpath(path);
    if (!covered(layout.readOnly, real)) layout.readOnly.push(real);
  }
  for (const path of [...(input.evidence ? [input.evidence] : []), ...input.grants.write]) layout.writable.push(await realpath(path));
  return layout;
}

function covered(parents: string[], path: string): boolean {
  return parents.some((parent) => path === parent || path.startsWith(`${parent}/`));
}
