/**
 * The host projection contract: one const object per host with a static capability
 * declaration and a pure `project(adapter, options) → VirtualFile[]` that performs no IO.
 */
import type { Adapter } from "../adapter/types.js";
import type { HostId } from "./ids.js";

export type { HostId } from "./ids.js";

/** The four kinds of export an adapter can have. */
export type ExportKind = "context" | "skills" | "agents" | "tools";
export const EXPORT_KINDS: readonly ExportKind[] = ["context", "skills", "agents", "tools"];

/**
 * How well a host supports one kind of export.
 * - `guaranteed`: the host's own program discovers it from the workspace files alone
 *   (activation steps aside).
 * - `best-effort`: it works only with something hermit cannot guarantee; `reason` says what.
 * - `unsupported`: the host has no such feature; deploying an adapter that needs it is refused.
 */
export type CapabilityLevel = "guaranteed" | "best-effort" | "unsupported";

/** One capability of one host. `hermit verify` may upgrade `evidence` to `verified`. */
export interface Capability {
  level: CapabilityLevel;
  /** Why it is best-effort or unsupported (quoted in reports and refusals). */
  reason?: string;
  /**
   * `declared`: stated from the host's docs and source (docs/hosts.md); `verified`: proven by
   * `hermit verify` against the real host program.
   */
  evidence: "verified" | "declared";
  /** The host version the evidence was obtained with, e.g. `codex-cli 0.169.0`. */
  verifiedWith?: string;
  /** Where the export lands in the workspace, e.g. `.claude/skills/<name>/`. */
  location: string;
}

/** A host's static, versioned capability declaration. */
export interface CapabilityDeclaration {
  /** Version of this declaration; bumped whenever a level or location changes. */
  version: number;
  /** The host program version the declaration was written against (docs/hosts.md). */
  hostVersion: string;
  exports: Readonly<Record<ExportKind, Capability>>;
}

/**
 * What a virtual file is to the workspace:
 * - `create`: a file hermit owns entirely (a skill file, an agent file);
 * - `replace`: a host config file hermit rewrites whole on every deploy (never merged);
 * - `block`: a managed block hermit owns inside a shared instruction file (or, in the user's
 *   own project, inside a TOML config between `#` markers); `content` is the block itself,
 *   markers included, and text outside it belongs to the user;
 * - `keys`: hermit's own entries inside a JSON/JSONC config file of the user's project
 *   (`entries`); every other byte of the file belongs to the user.
 */
export type FileIntent = "create" | "replace" | "block" | "keys";

/** One entry hermit owns inside a host config file. */
export interface ConfigEntry {
  /** Key path from the document root, e.g. `["mcpServers", "file-example"]`; for a member, the array's path. */
  key: string[];
  /** The value at `key`, or, for a `member` entry, the array member hermit adds. */
  value: unknown;
  /** True when `value` is one member of the array at `key` (`enabledMcpjsonServers`). */
  member?: boolean;
}

/** Which export (and source file) a virtual file comes from. */
export interface FileOwner {
  export: ExportKind | "host";
  /** The agent, skill or tool name; absent for context and host config. */
  item?: string;
  /** Relative POSIX path inside the adapter the content came from, when there is one. */
  sourcePath?: string;
}

/** One file a projection wants in the workspace. */
export interface VirtualFile {
  /** Normalized relative POSIX path inside the workspace. */
  path: string;
  /** UTF-8 text; raw bytes only for a non-text skill file copied as is. */
  content: string | Uint8Array;
  /** sha256 of `content` (text with CRLF counted as LF), hex. */
  sha256: string;
  owner: FileOwner;
  intent: FileIntent;
  /** True when the content carries an ownership header (formats with comments). */
  header: boolean;
  /** For `block` files: the adapter name in the markers. */
  blockName?: string;
  /** Config files in the user's own project: hermit's entries (`keys` files; TOML blocks, to check them). */
  entries?: ConfigEntry[];
  /** True for a copy of an executable skill file (written with mode 0755). */
  executable?: boolean;
}

/** The MCP server command a host entry launches (absolute paths). */
export interface ServerCommand {
  command: string;
  args: string[];
}

/** Everything a projection needs beyond the adapter; gathered by the IO shell. */
export interface ProjectOptions {
  /** Bytes of adapter files the projection copies (skill folders), by relative POSIX path. */
  sources: ReadonlyMap<string, Uint8Array>;
  /** Adapter files (relative POSIX paths) that are executable; their copies stay executable. */
  executables: ReadonlySet<string>;
  /** `<node> <hermit>/dist/cli.js serve --adapter /abs/adapter`. */
  server: ServerCommand;
  hermitVersion: string;
  /** True when the workspace holds an `AGENTS.md` hermit does not generate (Claude adds `@AGENTS.md`). */
  workspaceHasAgentsMd: boolean;
  /**
   * Deploying into the user's own project (`--existing`): config files get only hermit's
   * entries (JSON keys; TOML tables between `# hermit:<adapter>:start`/`end`), never whole.
   */
  existing?: boolean;
}

/**
 * A step the user must perform outside the workspace before the host uses everything
 * (hermit never edits global host configuration). `hermit verify` performs these in an
 * isolated home using `file` and `data`.
 */
export interface ActivationStep {
  /** Stable id, e.g. `codex.trust-project`. */
  id: string;
  /** One sentence a person can act on. */
  summary: string;
  /** The file to edit, with `~` for the user's home, or undefined for a command. */
  file?: string;
  /** The exact text to add, or the command to run. */
  snippet: string;
  /** Machine-readable values for tools (`hermit verify`). */
  data: Record<string, unknown>;
}

/** A note the report carries: something projected differently than written, never silently. */
export interface ProjectionNote {
  item: string;
  note: string;
}

/** One host: a const object implementing this interface. */
export interface Host {
  id: HostId;
  /** The program's name for people, e.g. `Claude Code`. */
  displayName: string;
  /** The shared instruction file the managed block goes into. */
  instructionFile: string;
  /** Every workspace path a projection for this host can write (`WORKSPACE_PATHS` of `ids.ts`). */
  workspacePaths: readonly string[];
  capabilities: CapabilityDeclaration;
  /** Pure: the files this host needs for `adapter`. Throws HermitError only for input the host cannot take. */
  project(adapter: Adapter, options: ProjectOptions): VirtualFile[];
  /** Pure: the activation steps for this workspace, given the projected files. */
  activation(adapter: Adapter, workspace: string, files: readonly VirtualFile[]): ActivationStep[];
  /** Pure: how the projection differs from the adapter's own wording (dropped frontmatter keys, …). */
  notes(adapter: Adapter): ProjectionNote[];
}
