/**
 * What the plan knows about a workspace: the snapshot the IO shell reads (the bytes of every
 * path the plan may touch, the reports), and what the reports say about each path. Pure.
 */
import { contentHash } from "../hosts/ownership.js";
import type { DeploymentNames, DeploymentReport, RecordedFile } from "./record.js";

/** What is on disk at one workspace path. */
export type FileState =
  | { kind: "file"; bytes: Uint8Array; mode?: number }
  | { kind: "missing" }
  /** A directory, symlink or special file, too large, or a parent that is not a plain directory. */
  | { kind: "blocked"; problem: string };

/** A report file as read: the report, or why it cannot be trusted. */
export type ReadReport = DeploymentReport | { invalid: string };

/** Everything the plan needs to know about the workspace, read by the IO shell. */
export interface WorkspaceSnapshot {
  /** Absolute real path. */
  workspace: string;
  exists: boolean;
  /** Top-level entry names, hermit's bookkeeping (reports, lock, temp files) excluded. */
  entries: string[];
  /** Where this deployment keeps its report and pending report. */
  names: DeploymentNames;
  /** The parsed report (`names.record`), or why it cannot be trusted; absent when there is none. */
  record?: ReadReport;
  /** The report an interrupted deploy left (`names.pending`); absent when there is none. */
  pending?: ReadReport;
  /** Top-level names of other deployments' reports (the generated one, or other `--existing` ones). */
  otherReports: string[];
  /** State of every path the plan may touch: projected, recorded, the reports themselves. */
  files: ReadonlyMap<string, FileState>;
  /**
   * In the user's own project: the files under each folder hermit must own whole (a skill's
   * folder), relative to the workspace; undefined when the folder does not exist.
   */
  folders?: ReadonlyMap<string, string[] | undefined>;
}

/** What is known about one workspace path: its entry in the record and in an interrupted deploy's report. */
export interface KnownFile {
  recorded?: RecordedFile;
  pending?: RecordedFile;
}

/** The report, when it was read and can be trusted. */
export function trusted(report: ReadReport | undefined): DeploymentReport | undefined {
  return report && !("invalid" in report) ? report : undefined;
}

/** Every path the record or the pending report names, record order first. */
export function knownFiles(snapshot: Pick<WorkspaceSnapshot, "record" | "pending">): Map<string, KnownFile> {
  const known = new Map<string, KnownFile>();
  for (const [key, report] of [["recorded", snapshot.record], ["pending", snapshot.pending]] as const) {
    for (const file of trusted(report)?.files ?? []) known.set(file.path, { ...known.get(file.path), [key]: file });
  }
  return known;
}

/** The entry of a known path: the record's, else the pending report's. */
export function knownEntry(known: KnownFile): RecordedFile {
  return (known.recorded ?? known.pending) as RecordedFile;
}

/** True when `hash` is what hermit wrote (or was writing) at this path. */
export function isOurs(known: KnownFile, hash: string): boolean {
  return known.recorded?.sha256 === hash || known.pending?.sha256 === hash;
}

/** The adapter names whose markers and headers may appear: the one deployed now, and those recorded or pending. */
export function adapterNames(current: string | undefined, snapshot: Pick<WorkspaceSnapshot, "record" | "pending">): string[] {
  const names = [current, trusted(snapshot.record)?.adapter.name, trusted(snapshot.pending)?.adapter.name];
  return [...new Set(names.filter((name): name is string => name !== undefined))];
}

export const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

export function bytesOf(content: string | Uint8Array): Uint8Array {
  return typeof content === "string" ? encoder.encode(content) : content;
}

/** The bytes as UTF-8 text, or undefined when they are not. */
export function textOf(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The bytes as text when they are UTF-8 without NUL (the files hermit treats as text). */
export function plainText(bytes: Uint8Array): string | undefined {
  const text = textOf(bytes);
  return text !== undefined && !text.includes("\0") ? text : undefined;
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

function sameState(a: FileState | undefined, b: FileState | undefined): boolean {
  if (a === undefined || b === undefined || a.kind !== b.kind) return a === b;
  if (a.kind === "file") return b.kind === "file" && a.mode === b.mode && sameBytes(a.bytes, b.bytes);
  return a.kind === "missing" || (b.kind === "blocked" && a.problem === b.problem);
}

const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined) =>
  a === b || (a !== undefined && b !== undefined && a.length === b.length && a.every((item, index) => item === b[index]));

/**
 * Whether two reads of a workspace found exactly the same (paths, states, bytes, modes,
 * listings): a plan made from one holds for the other. The reports are parsed from the files.
 */
export function sameSnapshot(a: WorkspaceSnapshot, b: WorkspaceSnapshot): boolean {
  if (a.workspace !== b.workspace || a.exists !== b.exists || JSON.stringify(a.names) !== JSON.stringify(b.names)) return false;
  if (!sameList(a.entries, b.entries) || !sameList(a.otherReports, b.otherReports)) return false;
  if (a.files.size !== b.files.size || (a.folders?.size ?? 0) !== (b.folders?.size ?? 0)) return false;
  for (const [path, state] of a.files) if (!sameState(state, b.files.get(path))) return false;
  for (const [folder, listing] of a.folders ?? []) if (!b.folders?.has(folder) || !sameList(listing, b.folders.get(folder))) return false;
  return true;
}

/** Hash of what is on disk, the way records and virtual files hash (CRLF as LF for text). */
export function hashOnDisk(bytes: Uint8Array): string {
  return contentHash(plainText(bytes) ?? bytes);
}
