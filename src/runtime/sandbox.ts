/**
 * The `sandbox` option of `Session`: `true` for the strict sandbox, or a `Sandbox` object that
 * grants more, each grant explicit. Checked once into `SandboxGrants` (absolute, existing
 * paths), which the tool launcher turns into a bubblewrap layout (`src/sandbox/tool-layout.ts`)
 * and the audit log's first line reports.
 */
import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { HermitError } from "../errors.js";
import type { SandboxGrants } from "../sandbox/tool-layout.js";

export type { SandboxGrants } from "../sandbox/tool-layout.js";

/**
 * A sandbox that grants more than the strict one (`sandbox: true`). Every field is optional
 * and grants nothing when left out.
 */
export interface Sandbox {
  /** Keep the host's network (default false: only the sandbox's own loopback). */
  network?: boolean;
  /** Files or folders the tools may read, besides the adapter, the runtime and hermit's own files. */
  read?: string[];
  /** Folders the tools may write, besides the evidence directory. */
  write?: string[];
  /** Names of environment variables passed through (default: none; the sandbox sets PATH, HOME=/ and LANG). */
  env?: string[];
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The grants of a `sandbox` option, or undefined when it is off. Relative paths resolve
 * against the working directory; a path that does not exist, or a field of the wrong type,
 * throws USAGE naming it (`where` says whose option it is).
 */
export async function sandboxGrants(option: boolean | Sandbox | undefined, where: string): Promise<SandboxGrants | undefined> {
  if (option === undefined || option === false) return undefined;
  if (option === true) return { network: false, read: [], write: [], env: [] };
  if (option === null || typeof option !== "object" || Array.isArray(option)) {
    throw new HermitError("USAGE", `${where}: sandbox must be true, false or an object { network?, read?, write?, env? }`);
  }
  const known = new Set(["network", "read", "write", "env"]);
  const unknown = Object.keys(option).filter((key) => !known.has(key));
  if (unknown.length > 0) {
    throw new HermitError("USAGE", `${where}: sandbox.${unknown[0]} is not a sandbox setting (network, read, write, env)`);
  }
  if (option.network !== undefined && typeof option.network !== "boolean") {
    throw new HermitError("USAGE", `${where}: sandbox.network must be true or false`);
  }
  const env = stringList(option.env, "env", where);
  const badName = env.find((name) => !ENV_NAME.test(name));
  if (badName !== undefined) throw new HermitError("USAGE", `${where}: sandbox.env: '${badName}' is not an environment variable name`);
  return {
    network: option.network ?? false,
    read: await existing(stringList(option.read, "read", where), "read", where, false),
    write: await existing(stringList(option.write, "write", where), "write", where, true),
    env,
  };
}

function stringList(value: unknown, field: string, where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string" && item !== "")) {
    throw new HermitError("USAGE", `${where}: sandbox.${field} must be a list of non-empty strings`);
  }
  return value as string[];
}

async function existing(paths: string[], field: string, where: string, folders: boolean): Promise<string[]> {
  const found: string[] = [];
  for (const path of paths) {
    const absolute = isAbsolute(path) ? path : resolve(path);
    const info = await stat(absolute).catch(() => undefined);
    if (!info || (folders && !info.isDirectory())) {
      const what = folders ? "an existing folder" : "an existing file or folder";
      throw new HermitError("USAGE", `${where}: sandbox.${field}: ${absolute} is not ${what}`, { path: absolute });
    }
    found.push(absolute);
  }
  return found;
}
