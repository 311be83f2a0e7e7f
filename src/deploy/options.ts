/** What a deploy is asked to do, and the MCP command every host entry launches. */
import type { Adapter } from "../adapter/types.js";
import type { ServerCommand } from "../hosts/types.js";
import { hermitCli } from "../package-root.js";

export interface DeployOptions {
  /** Path of the adapter directory, or an adapter already read with `readAdapter`. */
  adapter: string | Adapter;
  workspace: string;
  /** Host id: codex, claude-code, pi, opencode, gemini. */
  host: string;
  /** Plan and report, write nothing. */
  dryRun?: boolean;
  /** Overwrite hand-edited generated files (never damaged markers, never what hermit cannot prove is its own). */
  force?: boolean;
  /**
   * Deploy into the user's own project (a non-empty folder, their repository): hermit adds
   * its own files, its managed block and its entries in existing config files, never changes
   * or removes anything else, and keeps its report in `.hermit-deploy.<host>.<adapter>.json`.
   */
  existing?: boolean;
}

/** The MCP entry every host config launches: this node, this hermit, the adapter's absolute path. */
export function serverCommandFor(adapterRoot: string): ServerCommand {
  return { command: process.execPath, args: [hermitCli, "serve", "--adapter", adapterRoot] };
}

