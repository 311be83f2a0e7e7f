/** Shared by the real-host verify tests: host binaries, adapter variants, leftover checks. */
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { HostId } from "../../src/hosts/types.js";
import { HOST_PROGRAMS } from "../../src/verify/programs.js";
import { copyDir, exampleAdapter, hostBinDir, repoRoot } from "../helpers.js";

export const HOST_BIN_DIR = hostBinDir;
export const ALL_HOSTS: HostId[] = ["codex", "claude-code", "pi", "opencode", "gemini"];

/** The host's executable in test/hosts, or undefined when `scripts/setup-hosts.sh` has not installed it. */
export function hostBin(host: HostId): string | undefined {
  const path = join(HOST_BIN_DIR, HOST_PROGRAMS[host].bin);
  return existsSync(path) ? path : undefined;
}

export function missingReason(host: HostId): string {
  const program = HOST_PROGRAMS[host];
  return `${program.bin} is not in ${HOST_BIN_DIR} (npm run setup:hosts installs ${program.npmPackage}@${program.version}; or set HERMIT_HOST_BIN_DIR)`;
}

/** The example adapter; for Pi (no subagents) a copy without `exports.agents`. */
export async function adapterFor(host: HostId): Promise<string> {
  if (host !== "pi") return exampleAdapter;
  const manifest = await readFile(join(exampleAdapter, "adapter.yaml"), "utf8");
  const withoutAgents = manifest.replace(/^ {2}agents: agents\n/m, "");
  if (withoutAgents === manifest) throw new Error("examples/file_adapter/adapter.yaml no longer has 'agents: agents'");
  return copyDir(exampleAdapter, { "adapter.yaml": withoutAgents });
}

/**
 * Live processes of a verify run whose TMPDIR was `root`: their environment names an
 * isolated home under it, or their working directory is inside one. Zombies are dead and
 * skipped.
 */
export function verifyProcesses(root: string): string[] {
  return processesIn(join(root, "hermit-verify-"));
}

/** Live processes whose HOME, or working directory, starts with `homePrefix` (zombies skipped). */
export function processesIn(homePrefix: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      if (/^\d+ \(.*\) [ZX]/.test(stat)) continue;
      const environ = readFileSync(`/proc/${entry}/environ`, "latin1").split("\0");
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      if (environ.some((variable) => variable.startsWith(`HOME=${homePrefix}`)) || cwd.startsWith(homePrefix)) {
        found.push(`${entry}: ${readFileSync(`/proc/${entry}/cmdline`, "latin1").replace(/\0/g, " ").trim()}`);
      }
    } catch {
      // exited, or not readable
    }
  }
  return found;
}
