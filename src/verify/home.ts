/**
 * The isolated home every host run gets (verify, acting, the agent learner): a fresh
 * directory under the system temp dir standing in for HOME, XDG dirs and TMPDIR, and an
 * environment that carries nothing of the user's but PATH, the locale and the variables a
 * caller passes on by name. Cleaning up kills whatever the run left behind (found by the
 * run's marker or the home in its environment) and removes the directory.
 */
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { resolveInside } from "../adapter/files.js";
import { killMarked } from "./process.js";

/** Inherited from the caller's environment; everything else is set here. */
const PASSED_ENV = ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "SYSTEMROOT"];
const HOME_DIRS = ["tmp", ".config", ".cache", ".local/share", ".local/state"];

/** A file for the isolated home. `path` is relative to the home. */
export interface HomeFile {
  path: string;
  content: string;
}

export interface IsolatedHome {
  /** Real absolute path of the home directory. */
  dir: string;
  /** The base environment of every process of the run. */
  env: Record<string, string>;
  /** `NAME=value` entries that mark the run's processes (for `killMarked`). */
  markers: string[];
  /** Write files into the home (parents created; paths may not leave it). */
  write(files: readonly HomeFile[]): Promise<void>;
  /** Kill whatever the run left running; remove the home unless `keep`. Idempotent. */
  dispose(keep?: boolean): Promise<void>;
}

export interface HomeOptions {
  /** Prefix of the temp directory name, e.g. `hermit-verify-`. */
  prefix: string;
  /** Name of the run marker variable, e.g. `HERMIT_VERIFY_RUN`. */
  marker: string;
  /** Where PATH, the locale and `pass` come from. Default `process.env`. */
  from?: Readonly<Record<string, string | undefined>>;
  /** Further variables of `from` to pass on by name (credentials the host needs), when set. */
  pass?: readonly string[];
}

/** Create an isolated home and its base environment. */
export async function createIsolatedHome(options: HomeOptions): Promise<IsolatedHome> {
  const from = options.from ?? process.env;
  const dir = await realpath(await mkdtemp(join(tmpdir(), options.prefix)));
  for (const sub of HOME_DIRS) await mkdir(join(dir, sub), { recursive: true });
  const runId = randomUUID();
  const inherited: Record<string, string> = {};
  for (const name of [...PASSED_ENV, ...(options.pass ?? [])]) {
    const value = from[name];
    if (value !== undefined && value !== "") inherited[name] = value;
  }
  const env: Record<string, string> = {
    ...inherited,
    HOME: dir,
    USERPROFILE: dir,
    XDG_CONFIG_HOME: join(dir, ".config"),
    XDG_DATA_HOME: join(dir, ".local", "share"),
    XDG_STATE_HOME: join(dir, ".local", "state"),
    XDG_CACHE_HOME: join(dir, ".cache"),
    TMPDIR: join(dir, "tmp"),
    TERM: "dumb",
    NO_COLOR: "1",
    CI: "1",
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    [options.marker]: runId,
  };
  const markers = [`${options.marker}=${runId}`, `HOME=${dir}`];
  let disposed: Promise<void> | undefined;
  return {
    dir,
    env,
    markers,
    async write(files) {
      for (const file of files) {
        const path = resolveInside(dir, file.path);
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, file.content);
      }
    },
    dispose(keep = false) {
      disposed ??= (async () => {
        // Whatever a host left running (an MCP server in its own session) carries the run's
        // marker or the isolated HOME in its environment, or works inside the home.
        killMarked(markers, dir);
        if (!keep) await rm(dir, { recursive: true, force: true });
      })();
      return disposed;
    },
  };
}
