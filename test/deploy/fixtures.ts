/** Shared helpers of the deploy tests: adapter variants, tree snapshots with mtimes, path normalization. */
import { lstat, readFile, readdir, readlink, stat } from "node:fs/promises";
import { join } from "node:path";
import { hermitCli } from "../../src/package-root.js";
import type { HostId } from "../../src/hosts/types.js";
import { copyDir, exampleAdapter } from "../helpers.js";

export const ALL_HOSTS: HostId[] = ["codex", "claude-code", "pi", "opencode", "gemini"];
/** Hosts that take the example adapter as is (Pi refuses its subagent). */
export const AGENT_HOSTS: HostId[] = ["codex", "claude-code", "opencode", "gemini"];

/** A temp copy of the example adapter without `exports.agents` (what Pi can take). */
export async function adapterWithoutAgents(): Promise<string> {
  const manifest = await readFile(join(exampleAdapter, "adapter.yaml"), "utf8");
  const withoutAgents = manifest.replace(/^ {2}agents: agents\n/m, "");
  if (withoutAgents === manifest) throw new Error("example adapter.yaml no longer has 'agents: agents'");
  return copyDir(exampleAdapter, { "adapter.yaml": withoutAgents });
}

/** The example adapter, or its agent-less copy for Pi. */
export async function adapterFor(host: HostId): Promise<string> {
  return host === "pi" ? adapterWithoutAgents() : exampleAdapter;
}

export interface Entry {
  bytes: string;
  mtimeMs: number;
  mode: number;
}

/** Every file and folder under `dir` with bytes (base64) and mtime, for "nothing changed" assertions. */
export async function fingerprint(dir: string): Promise<Record<string, Entry | "dir">> {
  const out: Record<string, Entry | "dir"> = {};
  const walk = async (rel: string) => {
    for (const entry of await readdir(join(dir, rel), { withFileTypes: true })) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        out[`${path}/`] = "dir";
        await walk(path);
      } else if (entry.isSymbolicLink()) {
        out[path] = { bytes: `symlink:${await readlink(join(dir, path))}`, mtimeMs: (await lstat(join(dir, path))).mtimeMs, mode: 0 };
      } else {
        const info = await stat(join(dir, path));
        out[path] = { bytes: (await readFile(join(dir, path))).toString("base64"), mtimeMs: info.mtimeMs, mode: info.mode };
      }
    }
  };
  await walk("");
  return out;
}

/** Replace machine-specific paths and hashes so snapshots are stable. */
export function normalize(text: string, paths: { workspace: string; adapter: string }): string {
  return text
    .split(paths.workspace)
    .join("<workspace>")
    .split(paths.adapter)
    .join("<adapter>")
    .split(hermitCli)
    .join("<hermit>/dist/cli.js")
    .split(process.execPath)
    .join("<node>")
    .replace(/\b[0-9a-f]{64}\b/g, "<sha256>");
}
