/**
 * `.hermit-deploy.json`, the deployment report: which host and adapter a workspace was
 * generated for, every file with its sha256 and operation, what was exported, the
 * capability levels and the activation steps. It carries no timestamp, so an unchanged
 * redeploy renders the same bytes. In the user's own project (`--existing`) each deployment
 * has its own report, `.hermit-deploy.<host>.<adapter>.json`, so several adapters can live
 * side by side. Pure.
 */
import { HOST_IDS } from "../hosts/ids.js";
import type {
  ActivationStep,
  CapabilityDeclaration,
  FileIntent,
  FileOwner,
  HostId,
  ProjectionNote,
} from "../hosts/types.js";

export const RECORD_FILE = ".hermit-deploy.json";
export const LOCK_FILE = ".hermit-deploy.lock";
/**
 * The report of a deploy in progress, in the same format as `.hermit-deploy.json`: apply
 * writes it before its first change and removes it after the record. Found later (the lock
 * is free), it names the files an interrupted deploy may have written, so a re-run can
 * finish the job and undeploy can remove them.
 */
export const PENDING_FILE = ".hermit-deploy.pending.json";
export const RECORD_FORMAT = "hermit-deploy";
export const RECORD_FORMAT_VERSION = 1;

/** Where one deployment keeps its report and the pending report of an interrupted deploy. */
export interface DeploymentNames {
  record: string;
  pending: string;
  /** True for a deployment into the user's own project (`--existing`). */
  existing: boolean;
}

/** The generated workspace's one deployment. */
export const GENERATED: DeploymentNames = { record: RECORD_FILE, pending: PENDING_FILE, existing: false };

/** The report names of a deployment of `adapter` for `host` into the user's own project. */
export function existingNames(host: string, adapter: string): DeploymentNames {
  return { record: `.hermit-deploy.${host}.${adapter}.json`, pending: `.hermit-deploy.${host}.${adapter}.pending.json`, existing: true };
}

const EXISTING_REPORT = new RegExp(`^\\.hermit-deploy\\.(${HOST_IDS.join("|")})\\.([a-z0-9]+(?:-[a-z0-9]+)*)(\\.pending)?\\.json$`);

/** The host and adapter a top-level name of an `--existing` report belongs to, or undefined. */
export function parseReportName(name: string): { host: HostId; adapter: string; pending: boolean } | undefined {
  const match = EXISTING_REPORT.exec(name);
  return match ? { host: match[1] as HostId, adapter: match[2], pending: match[3] !== undefined } : undefined;
}

/** True for a top-level name hermit keeps its own bookkeeping in (reports, pending reports, the lock). */
export function isBookkeeping(name: string): boolean {
  return name === RECORD_FILE || name === PENDING_FILE || name === LOCK_FILE || parseReportName(name) !== undefined;
}

/** The part of a shared instruction file (or a user's TOML config) hermit owns. */
export interface RecordedBlock {
  /** Adapter name in the markers. */
  name: string;
  /** True when hermit created the file (undeploy deletes it if nothing else is left). */
  createdFile: boolean;
  /** What hermit inserted before the start marker when it appended to existing text. */
  separator: string;
}

/** One entry hermit added to a JSON/JSONC config file of the user's project. */
export interface RecordedEntry {
  /** Key path from the root; for a member, the array's path. */
  key: string[];
  /** The array member hermit added (`enabledMcpjsonServers`), when the entry is one. */
  member?: string;
  /** sha256 of the entry's value as compact JSON. */
  sha256: string;
  /** The exact text hermit inserted before the entry's key (or member) and after its value, so undeploy restores the bytes. */
  prefix: string;
  suffix: string;
  /** True when hermit also put a comma after the member before its entry (whose line ends in a comment). */
  comma?: boolean;
  /** Set when hermit also created the object or array holding the entry: the text it inserted around it. */
  parent?: { prefix: string; suffix: string };
}

/** Hermit's entries in one JSON/JSONC config file. */
export interface RecordedKeys {
  /** True when hermit created the file (undeploy deletes it when nothing but `{}` is left). */
  createdFile: boolean;
  entries: RecordedEntry[];
}

/** One generated file. */
export interface RecordedFile {
  /** Relative POSIX path in the workspace. */
  path: string;
  /** sha256 of the file (of the block alone for `block` files; of the entries for `keys` files), CRLF counted as LF. */
  sha256: string;
  /**
   * How hermit treats the file: its own (`create`), a config rewritten whole (`replace`), a
   * managed block (`block`), its entries in a user's config file (`keys`).
   */
  operation: FileIntent;
  owner: FileOwner;
  /** True when the file carries an ownership header. */
  header: boolean;
  block?: RecordedBlock;
  keys?: RecordedKeys;
}

export interface RecordedAdapter {
  name: string;
  version: string;
  /** Absolute real path of the adapter directory. */
  path: string;
  sourceHash: string;
}

/** The deployment report, as written to `.hermit-deploy.json`. */
export interface DeploymentReport {
  format: typeof RECORD_FORMAT;
  formatVersion: typeof RECORD_FORMAT_VERSION;
  host: HostId;
  hermitVersion: string;
  /** Absolute real path of the workspace at deploy time. */
  workspace: string;
  /** True for a deployment into the user's own project (`--existing`). */
  existing?: boolean;
  adapter: RecordedAdapter;
  /** The MCP server entry the host config launches (absent without tools). */
  server?: { command: string; args: string[] };
  /** The Python that runs the adapter's Python tools, as found at deploy time (absent without them). */
  python?: string;
  /**
   * sha256 of everything besides the adapter's source that shaped the projection (the MCP
   * command, whether the workspace had its own AGENTS.md, the mode bits of the copied files):
   * with an unchanged `sourceHash` and `hermitVersion`, an equal `inputsHash` means an
   * identical projection.
   */
  inputsHash?: string;
  files: RecordedFile[];
  exports: { context: string; skills: string[]; agents: string[]; tools: string[] };
  capabilities: CapabilityDeclaration;
  /** Steps the user performs outside the workspace; hermit never does. */
  activation: ActivationStep[];
  /** Where the projection differs from the adapter's wording, and why. */
  notes: ProjectionNote[];
}

/** The exact bytes of the report file. */
export function renderRecord(report: DeploymentReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

const SHA256 = /^[0-9a-f]{64}$/;

/** Why one file entry cannot be trusted, or undefined. */
function fileProblem(entry: Partial<RecordedFile> | null, index: number): string | undefined {
  if (!entry || typeof entry.path !== "string" || typeof entry.sha256 !== "string" || !SHA256.test(entry.sha256)) {
    return `files[${index}] needs a path and a sha256`;
  }
  const where = `files[${index}] (${entry.path})`;
  if (!["create", "replace", "block", "keys"].includes(entry.operation as string)) {
    return `${where}: unknown operation '${String(entry.operation)}'`;
  }
  if (entry.operation === "block" && (typeof entry.block?.name !== "string" || typeof entry.block.separator !== "string")) {
    return `${where}: a block entry needs block.name and block.separator`;
  }
  if (entry.operation === "keys") {
    const entries = entry.keys?.entries;
    if (!Array.isArray(entries)) return `${where}: a keys entry needs keys.entries`;
    for (const key of entries as Array<Partial<RecordedEntry> | null>) {
      const valid =
        key &&
        Array.isArray(key.key) &&
        key.key.length > 0 &&
        key.key.every((part) => typeof part === "string") &&
        typeof key.sha256 === "string" &&
        SHA256.test(key.sha256) &&
        typeof key.prefix === "string" &&
        typeof key.suffix === "string";
      if (!valid) return `${where}: every key needs key, sha256, prefix and suffix`;
    }
  }
  if (!isSafeRelative(entry.path) || isBookkeeping(entry.path)) return `files[${index}]: path '${entry.path}' is not a safe relative path`;
  return undefined;
}

/** Parse the report; returns the reason it cannot be trusted instead of throwing. */
export function parseRecord(text: string): DeploymentReport | { invalid: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { invalid: `not valid JSON (${(error as Error).message})` };
  }
  const report = data as Partial<DeploymentReport> | null;
  if (report === null || typeof report !== "object" || Array.isArray(report)) return { invalid: "not a JSON object" };
  if (report.format !== RECORD_FORMAT) return { invalid: `'format' is not '${RECORD_FORMAT}'` };
  if (report.formatVersion !== RECORD_FORMAT_VERSION) {
    return { invalid: `formatVersion ${String(report.formatVersion)} is not ${RECORD_FORMAT_VERSION}` };
  }
  if (typeof report.host !== "string" || !(HOST_IDS as readonly string[]).includes(report.host)) return { invalid: "'host' is missing or unknown" };
  const adapter = report.adapter;
  if (!adapter || typeof adapter.name !== "string" || typeof adapter.path !== "string") {
    return { invalid: "'adapter' must have a name and a path" };
  }
  if (!Array.isArray(report.files)) return { invalid: "'files' must be a list" };
  for (const [index, file] of report.files.entries()) {
    const problem = fileProblem(file as Partial<RecordedFile> | null, index);
    if (problem) return { invalid: problem };
  }
  return report as DeploymentReport;
}

/**
 * Parse the report found at `name` and check that it belongs there: an `--existing` report
 * must name the host and adapter of its file name, and say `existing`.
 */
export function parseRecordAt(name: string, text: string): DeploymentReport | { invalid: string } {
  const report = parseRecord(text);
  if ("invalid" in report) return report;
  const named = parseReportName(name);
  if (named && (named.host !== report.host || named.adapter !== report.adapter.name || report.existing !== true)) {
    return { invalid: `it describes adapter '${report.adapter.name}' for host '${report.host}', not what its name says` };
  }
  if (!named && report.existing === true) return { invalid: "it describes a deployment into an existing project, which keeps its report under its own name" };
  return report;
}

/** Normalized relative POSIX path that stays inside the workspace. */
export function isSafeRelative(path: string): boolean {
  if (path === "" || path.startsWith("/") || path.includes("\\") || path.includes("\0") || /^[A-Za-z]:/.test(path)) {
    return false;
  }
  return path.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}
