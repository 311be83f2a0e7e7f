/**
 * `.hermit-deploy.json`, the deployment report: which host and adapter a workspace was
 * generated for, every file with its sha256 and operation, what was exported, the
 * capability levels and the activation steps. It carries no timestamp, so an unchanged
 * redeploy renders the same bytes. Pure.
 */
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

/** The part of a shared instruction file hermit owns. */
export interface RecordedBlock {
  /** Adapter name in the markers. */
  name: string;
  /** True when hermit created the file (undeploy deletes it if nothing else is left). */
  createdFile: boolean;
  /** What hermit inserted before the start marker when it appended to existing text. */
  separator: string;
}

/** One generated file. */
export interface RecordedFile {
  /** Relative POSIX path in the workspace. */
  path: string;
  /** sha256 of the file (of the block alone for `block` files), CRLF counted as LF. */
  sha256: string;
  /** How hermit treats the file: its own (`create`), a config rewritten whole (`replace`), a managed block (`block`). */
  operation: FileIntent;
  owner: FileOwner;
  /** True when the file carries an ownership header. */
  header: boolean;
  block?: RecordedBlock;
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
  adapter: RecordedAdapter;
  /** The MCP server entry the host config launches (absent without tools). */
  server?: { command: string; args: string[] };
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
  if (typeof report.host !== "string") return { invalid: "'host' is missing" };
  const adapter = report.adapter;
  if (!adapter || typeof adapter.name !== "string" || typeof adapter.path !== "string") {
    return { invalid: "'adapter' must have a name and a path" };
  }
  if (!Array.isArray(report.files)) return { invalid: "'files' must be a list" };
  for (const [index, file] of report.files.entries()) {
    const entry = file as Partial<RecordedFile> | null;
    if (!entry || typeof entry.path !== "string" || typeof entry.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(entry.sha256)) {
      return { invalid: `files[${index}] needs a path and a sha256` };
    }
    if (!["create", "replace", "block"].includes(entry.operation as string)) {
      return { invalid: `files[${index}] (${entry.path}): unknown operation '${String(entry.operation)}'` };
    }
    if (entry.operation === "block" && (typeof entry.block?.name !== "string" || typeof entry.block.separator !== "string")) {
      return { invalid: `files[${index}] (${entry.path}): a block entry needs block.name and block.separator` };
    }
    if (!isSafeRelative(entry.path)) return { invalid: `files[${index}]: path '${entry.path}' is not a safe relative path` };
  }
  return report as DeploymentReport;
}

/** Normalized relative POSIX path that stays inside the workspace. */
export function isSafeRelative(path: string): boolean {
  if (path === "" || path.startsWith("/") || path.includes("\\") || path.includes("\0") || /^[A-Za-z]:/.test(path)) {
    return false;
  }
  return path.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}
