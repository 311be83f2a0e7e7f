/**
 * The host programs `hermit verify` launches: which executable, which npm package ships it,
 * and the version hermit was verified with (the version hermit's host declarations were written
 * against). Finding the program on `PATH`, or at `--host-bin`, and asking its version.
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { HermitError } from "../errors.js";
import type { HostId } from "../hosts/types.js";
import { runProcess } from "./process.js";

export interface HostProgram {
  host: HostId;
  /** Executable name on PATH. */
  bin: string;
  /** The npm package that installs it. */
  npmPackage: string;
  /** The version hermit was verified with (docs/hosts.md). */
  version: string;
}

/** One entry per host, in the order hermit lists hosts. */
export const HOST_PROGRAMS: Readonly<Record<HostId, HostProgram>> = {
  codex: { host: "codex", bin: "codex", npmPackage: "@openai/codex", version: "0.169.0" },
  "claude-code": { host: "claude-code", bin: "claude", npmPackage: "@anthropic-ai/claude-code", version: "2.1.328" },
  pi: { host: "pi", bin: "pi", npmPackage: "@mariozechner/pi-coding-agent", version: "0.73.1" },
  opencode: { host: "opencode", bin: "opencode", npmPackage: "opencode-ai", version: "1.18.33" },
  gemini: { host: "gemini", bin: "gemini", npmPackage: "@google/gemini-cli", version: "0.61.0" },
};

/** `npm install -g <package>@<version>`: what to tell a user whose host program is missing. */
export function installHint(program: HostProgram): string {
  return `npm install -g ${program.npmPackage}@${program.version}`;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The absolute path of the host's executable: `hostBin` when given (it must exist and be
 * executable), else the first match on `PATH`. Throws HOST_NOT_INSTALLED (exit 2) naming
 * the npm package and the version hermit was verified with.
 */
export function findHostProgram(host: HostId, options: { hostBin?: string; path?: string; cwd?: string } = {}): string {
  const program = HOST_PROGRAMS[host];
  const wanted = `${program.npmPackage}@${program.version}`;
  if (options.hostBin !== undefined) {
    const candidate = isAbsolute(options.hostBin) ? options.hostBin : resolve(options.cwd ?? process.cwd(), options.hostBin);
    if (isExecutableFile(candidate)) return candidate;
    throw new HermitError(
      "HOST_NOT_INSTALLED",
      `${candidate}: --host-bin is not an executable file; install the ${host} program with \`${installHint(program)}\` (${wanted}, the version hermit was verified with)`,
      { host, path: candidate, npmPackage: program.npmPackage, version: program.version },
    );
  }
  for (const dir of (options.path ?? process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, program.bin);
    if (isExecutableFile(candidate)) return candidate;
  }
  throw new HermitError(
    "HOST_NOT_INSTALLED",
    `\`${program.bin}\` (the ${host} program) is not on PATH; install it with \`${installHint(program)}\` (${wanted}, the version hermit was verified with) or pass --host-bin`,
    { host, bin: program.bin, npmPackage: program.npmPackage, version: program.version },
  );
}

/** The first `x.y.z` in a program's `--version` output. */
export function parseVersion(output: string): string | undefined {
  return /\b(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\b/.exec(output)?.[1];
}

/** Ask the program its version (`<bin> --version`), in the isolated environment. */
export async function hostVersion(
  bin: string,
  env: Readonly<Record<string, string>>,
  cwd: string,
  signal?: AbortSignal,
): Promise<{ version?: string; output: string }> {
  const result = await runProcess({ argv: [bin, "--version"], cwd, env, timeoutMs: 30_000, signal });
  const output = `${result.stdout}\n${result.stderr}`.trim();
  return { version: parseVersion(result.stdout) ?? parseVersion(output), output };
}

/** What a host's `--version` output says about which program it is, where it says it at all. */
const VERSION_SIGNATURES: ReadonlyArray<[HostId, RegExp]> = [
  ["codex", /\bcodex-cli\b/i],
  ["claude-code", /\(Claude Code\)/],
];

/**
 * The host whose program printed this `--version` output, when the output names it (Codex:
 * `codex-cli 0.169.0`, Claude Code: `2.1.328 (Claude Code)`); undefined for the hosts that
 * print a bare version.
 */
export function hostOfVersionOutput(output: string): HostId | undefined {
  return VERSION_SIGNATURES.find(([, signature]) => signature.test(output))?.[0];
}
