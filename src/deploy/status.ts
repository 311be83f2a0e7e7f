/**
 * `hermit status`: how a deployment differs from its record, without writing. Pure over a
 * snapshot; the record's claims are checked like deploy checks them (a file counts as
 * hermit's only when its bytes prove it).
 */
import { markerStyleFor, scanBlocks } from "../hosts/managed-block.js";
import { checkOwnershipHeader, contentHash } from "../hosts/ownership.js";
import type { FileIntent, HostId } from "../hosts/types.js";
import { entryName, entryValue, findEntry, parseDocument, valueHash } from "./json-entries.js";
import type { LockState } from "./lock.js";
import type { DriftIssue } from "./plan-types.js";
import { reportTrustProblems, wholeFileOwnership } from "./proof.js";
import { GENERATED, type DeploymentReport, type RecordedAdapter } from "./record.js";
import { adapterNames, isOurs, knownEntry, knownFiles, plainText, textOf, trusted, type FileState, type KnownFile, type WorkspaceSnapshot } from "./snapshot.js";

/**
 * - `intact`: as hermit wrote it;
 * - `modified`: hermit's file, block or entry edited by hand (drift; deploy refuses without `--force`);
 * - `missing`: deleted (deploy recreates it);
 * - `damaged`: markers broken, unparsable, or the path is no longer a plain file (drift; never forced);
 * - `foreign`: the record claims it, but its bytes do not prove hermit wrote it, or its host
 *   never writes there (drift; hermit will not touch it).
 */
export type FileCondition = "intact" | "modified" | "missing" | "damaged" | "foreign";

export interface FileStatus {
  path: string;
  operation: FileIntent;
  condition: FileCondition;
  /** For files with an ownership header: whether the file still matches the hash it states. */
  header?: "intact" | "edited" | "absent";
  problems: Array<{ line?: number; problem: string }>;
}

export interface WorkspaceStatus {
  workspace: string;
  host: HostId;
  hermitVersion: string;
  adapter: RecordedAdapter;
  /** True for a deployment into the user's own project (`--existing`). */
  existing: boolean;
  /** The report file described. */
  record: string;
  /** True when the adapter's source no longer hashes to what was deployed; null when it could not be read. */
  adapterChanged: boolean | null;
  files: FileStatus[];
  /** Every problem, as deploy would report it. */
  drift: DriftIssue[];
  /**
   * True when a deploy was interrupted (its pending report is there): its files are reported
   * too, and deploying again finishes it (undeploy removes them).
   */
  interrupted: boolean;
  /** The workspace lock, when one is there: held by a running deploy, or `stale` (its process is gone). */
  lock?: LockState;
  /** True when no file is modified, damaged or foreign, no deploy was interrupted and no lock is left. */
  clean: boolean;
}

type Verdict = Pick<FileStatus, "condition" | "problems"> & Partial<Pick<FileStatus, "header">>;

function wholeFileVerdict(path: string, known: KnownFile, bytes: Uint8Array, adapters: readonly string[], header: boolean): Verdict {
  const text = plainText(bytes);
  const headerState = header && text !== undefined ? { header: checkOwnershipHeader(text).status } : {};
  const ownership = wholeFileOwnership(path, known, bytes, adapters);
  if (ownership.kind === "ours") return { condition: "intact", problems: [], ...headerState };
  return { condition: ownership.kind === "edited" ? "modified" : "foreign", problems: [{ problem: ownership.problem }], ...headerState };
}

function blockVerdict(path: string, known: KnownFile, bytes: Uint8Array, adapters: readonly string[], existing: boolean): Verdict {
  const text = textOf(bytes);
  if (text === undefined) return { condition: "damaged", problems: [{ problem: "not valid UTF-8" }] };
  const scan = scanBlocks(text, adapters, { style: markerStyleFor(path), foreign: existing ? "ignore" : "problem" });
  if (scan.problems.length > 0) return { condition: "damaged", problems: scan.problems };
  const block = scan.blocks[0];
  if (!block) return { condition: "missing", problems: [{ problem: "the managed block is gone" }] };
  if (!isOurs(known, contentHash(block.text))) {
    return { condition: "modified", problems: [{ line: block.start.line, problem: "the managed block was edited by hand" }] };
  }
  return { condition: "intact", problems: [] };
}

function keysVerdict(known: KnownFile, bytes: Uint8Array): Verdict {
  const text = textOf(bytes);
  const parsed = text === undefined ? { problem: "not valid UTF-8" } : parseDocument(text);
  if ("problem" in parsed) return { condition: "damaged", problems: [{ problem: parsed.problem }] };
  const claims = [...(known.recorded?.keys?.entries ?? []), ...(known.pending?.keys?.entries ?? [])];
  const problems: FileStatus["problems"] = [];
  let condition: FileCondition = "intact";
  for (const name of new Set(claims.map(entryName))) {
    const mine = claims.filter((entry) => entryName(entry) === name);
    const node = findEntry(parsed.root, mine[0]);
    if (!node) {
      problems.push({ problem: `hermit's entry '${name}' is gone` });
      if (condition === "intact") condition = "missing";
    } else if (!mine.some((entry) => entry.sha256 === valueHash(entryValue(node)))) {
      problems.push({ problem: `hermit's entry '${name}' was edited by hand` });
      condition = "modified";
    }
  }
  return { condition, problems };
}

function fileVerdict(known: KnownFile, state: FileState, adapters: readonly string[], existing: boolean): Verdict {
  const file = knownEntry(known);
  if (state.kind === "missing") return { condition: "missing", problems: [] };
  if (state.kind === "blocked") return { condition: "damaged", problems: [{ problem: state.problem }] };
  if (file.operation === "block") return blockVerdict(file.path, known, state.bytes, adapters, existing);
  if (file.operation === "keys") return keysVerdict(known, state.bytes);
  return wholeFileVerdict(file.path, known, state.bytes, adapters, file.header);
}

/**
 * Status of every recorded file (and of every file an interrupted deploy's pending report
 * names). `record` describes the deployment (the pending report when there is no record);
 * `currentSourceHash` is the adapter's hash now (undefined: unreadable).
 */
export function workspaceStatus(
  snapshot: WorkspaceSnapshot,
  record: DeploymentReport,
  currentSourceHash: string | undefined,
  lock?: LockState,
): WorkspaceStatus {
  const names = snapshot.names ?? GENERATED;
  const adapters = adapterNames(record.adapter.name, snapshot);
  const untrusted = [trusted(snapshot.record), trusted(snapshot.pending)].flatMap((report, index) =>
    report ? reportTrustProblems(report, index === 0 ? names.record : names.pending) : [],
  );
  const files = [...knownFiles(snapshot).values()].map((known): FileStatus => {
    const file = knownEntry(known);
    const base = { path: file.path, operation: file.operation };
    const claims = untrusted.filter((issue) => issue.path === file.path);
    if (claims.length > 0) return { ...base, condition: "foreign", problems: claims.map((issue) => ({ problem: issue.problem })) };
    return { ...base, ...fileVerdict(known, snapshot.files.get(file.path) ?? { kind: "missing" }, adapters, names.existing) };
  });
  const drift: DriftIssue[] = files.flatMap((file) =>
    file.condition === "modified" || file.condition === "damaged" || file.condition === "foreign"
      ? file.problems.map((p) => ({ path: file.path, ...(p.line ? { line: p.line } : {}), problem: p.problem, forceable: file.condition === "modified" }))
      : [],
  );
  const interrupted = snapshot.pending !== undefined;
  return {
    workspace: snapshot.workspace,
    host: record.host,
    hermitVersion: record.hermitVersion,
    adapter: record.adapter,
    existing: names.existing,
    record: names.record,
    adapterChanged: currentSourceHash === undefined ? null : currentSourceHash !== record.adapter.sourceHash,
    files,
    drift,
    interrupted,
    ...(lock ? { lock } : {}),
    clean: drift.length === 0 && !interrupted && lock === undefined,
  };
}
