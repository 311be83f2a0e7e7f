/**
 * The deploy plan, pure: given the projected virtual files and a snapshot of the workspace's
 * current bytes, decide per file create / replace / block-edit / delete / unchanged, and
 * collect drift. Actions are computed as if `--force` were given; the caller refuses when
 * drift remains that the user did not (or cannot) override.
 */
import { HermitError } from "../errors.js";
import { scanBlocks } from "../hosts/managed-block.js";
import { contentHash } from "../hosts/ownership.js";
import type { FileIntent, FileOwner, VirtualFile } from "../hosts/types.js";
import {
  LOCK_FILE,
  PENDING_FILE,
  RECORD_FILE,
  isSafeRelative,
  renderRecord,
  type DeploymentReport,
  type RecordedBlock,
  type RecordedFile,
} from "./record.js";

/** What is on disk at one workspace path. */
export type FileState =
  | { kind: "file"; bytes: Uint8Array }
  | { kind: "missing" }
  /** A directory, symlink or special file, or a parent that is not a plain directory. */
  | { kind: "blocked"; problem: string };

/** Everything the plan needs to know about the workspace, read by the IO shell. */
export interface WorkspaceSnapshot {
  /** Absolute real path. */
  workspace: string;
  exists: boolean;
  /** Top-level entry names, the lock file excluded. */
  entries: string[];
  /** The parsed `.hermit-deploy.json`, or why it cannot be trusted; absent when there is none. */
  record?: DeploymentReport | { invalid: string };
  /** The report an interrupted deploy left in `.hermit-deploy.pending.json`; absent when there is none. */
  pending?: DeploymentReport | { invalid: string };
  /** State of every path the plan may touch: projected, recorded, the record itself. */
  files: ReadonlyMap<string, FileState>;
}

export type ActionKind = "create" | "replace" | "block-edit" | "delete" | "unchanged";

/** One decision of the plan. */
export interface PlannedAction {
  path: string;
  action: ActionKind;
  intent: FileIntent;
  owner: FileOwner;
  /** The full bytes to write (create, replace, block-edit). */
  content?: Uint8Array;
  /** The bytes on disk before, kept to roll back a failed apply. */
  previous?: Uint8Array;
  /** Why, when it is not the plain case (recreated after deletion, forced over a hand edit). */
  note?: string;
}

/** Something in the workspace hermit cannot reconcile without losing someone's work. */
export interface DriftIssue {
  path: string;
  /** 1-based line, for marker problems. */
  line?: number;
  problem: string;
  /** True when `--force` may overwrite it; marker damage and unsafe paths never are. */
  forceable: boolean;
}

export interface Plan {
  actions: PlannedAction[];
  drift: DriftIssue[];
  /** The report to write (absent for undeploy). */
  record?: DeploymentReport;
  /** Bytes apply writes to `.hermit-deploy.pending.json` before its first change (deploy only). */
  journal?: Uint8Array;
  /**
   * Paths hermit no longer keeps a file at (deleted now, or already gone, such as files an
   * interrupted deploy never wrote): apply removes the folders above them that are left empty.
   */
  vacated?: string[];
}

/** True when applying the plan would write or delete anything. */
export function hasChanges(plan: Plan): boolean {
  return plan.actions.some((action) => action.action !== "unchanged");
}

/** The drift the caller must refuse on: everything unforceable, and the rest unless forced. */
export function blockingDrift(plan: Plan, force: boolean): DriftIssue[] {
  return plan.drift.filter((issue) => !issue.forceable || !force);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

function bytesOf(content: string | Uint8Array): Uint8Array {
  return typeof content === "string" ? encoder.encode(content) : content;
}

function textOf(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

/** Hash of what is on disk, the way records and virtual files hash (CRLF as LF for text). */
export function hashOnDisk(bytes: Uint8Array): string {
  const text = textOf(bytes);
  return contentHash(text !== undefined && !text.includes("\0") ? text : bytes);
}

const RESERVED = new Set([RECORD_FILE, LOCK_FILE, PENDING_FILE]);
/** Top-level names that do not make a workspace "not empty". */
const IGNORED_ENTRIES = new Set([".git"]);

/**
 * Render-time safety: every path relative, normalized, unique (also by case), none a folder
 * of another. `adapterRoot` names the source file of an unsafe path in the error.
 */
export function validateVirtualFiles(files: readonly VirtualFile[], adapterRoot?: string): void {
  const seen = new Map<string, string>();
  for (const file of files) {
    if (!isSafeRelative(file.path) || RESERVED.has(file.path)) {
      const source = file.owner.sourcePath ? `${adapterRoot ? `${adapterRoot}/` : ""}${file.owner.sourcePath}: ` : "";
      const item = file.owner.item !== undefined ? ` (from ${file.owner.export} item '${file.owner.item}')` : "";
      throw new HermitError("PATH_UNSAFE", `${source}projection produced an unsafe path '${file.path}'${item}`, {
        path: file.path,
        ...(file.owner.sourcePath ? { source: file.owner.sourcePath } : {}),
      });
    }
    const key = file.path.toLowerCase();
    const other = seen.get(key);
    if (other !== undefined) {
      throw new HermitError("PATH_UNSAFE", `two projected files collide: '${other}' and '${file.path}'`, { path: file.path });
    }
    seen.set(key, file.path);
  }
  for (const file of files) {
    const parts = file.path.toLowerCase().split("/");
    for (let depth = 1; depth < parts.length; depth += 1) {
      const folder = seen.get(parts.slice(0, depth).join("/"));
      if (folder !== undefined) {
        throw new HermitError("PATH_UNSAFE", `projected file '${folder}' is also a folder of '${file.path}'`, { path: file.path });
      }
    }
  }
}

/**
 * The workspace rules: empty, or generated by hermit for the same host (its record, or the
 * pending report of an interrupted deploy, says so). Throws WORKSPACE_INVALID.
 */
export function checkWorkspace(snapshot: WorkspaceSnapshot, hostId: string): void {
  for (const report of [snapshot.record, snapshot.pending]) {
    if (!report || "invalid" in report || report.host === hostId) continue;
    const what = report === snapshot.record ? "this workspace was generated" : `an interrupted deploy (${PENDING_FILE}) left files here`;
    throw new HermitError(
      "WORKSPACE_INVALID",
      `${snapshot.workspace}: ${what} for host '${report.host}', not '${hostId}'; ` +
        `use another workspace, or run 'hermit undeploy --workspace ${snapshot.workspace}' first`,
      { path: snapshot.workspace, recordedHost: report.host, host: hostId },
    );
  }
  if (snapshot.record || snapshot.pending) return;
  const foreign = snapshot.entries.filter((name) => !IGNORED_ENTRIES.has(name));
  if (foreign.length > 0) {
    const shown = foreign.slice(0, 5).join(", ") + (foreign.length > 5 ? `, … (${foreign.length} entries)` : "");
    throw new HermitError(
      "WORKSPACE_INVALID",
      `${snapshot.workspace}: workspace is not empty and was not generated by hermit (no ${RECORD_FILE}): ${shown}; ` +
        "deploy into an empty or new directory",
      { path: snapshot.workspace, entries: foreign },
    );
  }
}

export interface DeployPlanInput {
  files: readonly VirtualFile[];
  /** The new report without its `files` (filled in by the plan). */
  report: Omit<DeploymentReport, "files">;
  snapshot: WorkspaceSnapshot;
}

/** Plan a deploy. Pure; throws only for a workspace that may not be deployed into at all. */
export function planDeploy(input: DeployPlanInput): Plan {
  const { files, snapshot, report } = input;
  validateVirtualFiles(files, report.adapter.path);
  checkWorkspace(snapshot, report.host);
  const drift = reportDrift(snapshot);
  if (drift.length > 0) return { actions: [], drift };
  const known = knownFiles(snapshot);
  const allowedBlocks = blockNames(report.adapter.name, snapshot);

  const actions: PlannedAction[] = [];
  const entries: RecordedFile[] = [];
  for (const file of files) {
    const state = snapshot.files.get(file.path) ?? { kind: "missing" };
    const before = known.get(file.path) ?? {};
    if (file.intent === "block") {
      const planned = planBlock(file, state, before, allowedBlocks, drift);
      if (planned) {
        actions.push(planned.action);
        entries.push(recordedEntry(file, planned.block));
      }
    } else {
      actions.push(planWholeFile(file, state, before, drift));
      entries.push(recordedEntry(file));
    }
  }
  const wanted = new Set(files.map((file) => file.path));
  const vacated: string[] = [];
  for (const [path, old] of known) {
    if (wanted.has(path)) continue;
    vacated.push(path);
    const removal = planRemoval(old, snapshot.files.get(path) ?? { kind: "missing" }, allowedBlocks, drift);
    if (removal) actions.push(removal);
  }

  const { exports, capabilities, activation, notes, ...identity } = report;
  const record: DeploymentReport = { ...identity, files: entries, exports, capabilities, activation, notes };
  actions.push(planRecordWrite(record, snapshot));
  actions.push(...pendingRemoval(snapshot));
  return { actions, drift, record, journal: encoder.encode(renderRecord(record)), vacated };
}

/** What is known about one workspace path: its entry in the record and in an interrupted deploy's report. */
export interface KnownFile {
  recorded?: RecordedFile;
  pending?: RecordedFile;
}

/** Every path the record or the pending report names, record order first. */
export function knownFiles(snapshot: WorkspaceSnapshot): Map<string, KnownFile> {
  const known = new Map<string, KnownFile>();
  for (const [key, report] of [["recorded", snapshot.record], ["pending", snapshot.pending]] as const) {
    if (!report || "invalid" in report) continue;
    for (const file of report.files) known.set(file.path, { ...known.get(file.path), [key]: file });
  }
  return known;
}

/** True when `hash` is what hermit wrote (or was writing) at this path. */
export function isOurs(known: KnownFile, hash: string): boolean {
  return known.recorded?.sha256 === hash || known.pending?.sha256 === hash;
}

/** The adapter names whose markers may appear: the one deployed now, and those recorded or pending. */
function blockNames(current: string | undefined, snapshot: WorkspaceSnapshot): string[] {
  const names = [current, ...[snapshot.record, snapshot.pending].map((report) => (report && !("invalid" in report) ? report.adapter.name : undefined))];
  return [...new Set(names.filter((name): name is string => name !== undefined))];
}

/** A record or pending report that cannot be read: nothing can be planned safely. */
function reportDrift(snapshot: WorkspaceSnapshot): DriftIssue[] {
  const drift: DriftIssue[] = [];
  const record = snapshot.record;
  if (record && "invalid" in record) {
    drift.push({ path: RECORD_FILE, problem: `deployment record cannot be read: ${record.invalid}; restore it (for example from version control) or use a new workspace`, forceable: false });
  }
  const pending = snapshot.pending;
  if (pending && "invalid" in pending) {
    drift.push({
      path: PENDING_FILE,
      problem: `the report of an interrupted deploy cannot be read: ${pending.invalid}; check the files it would name by hand, then delete it`,
      forceable: false,
    });
  }
  return drift;
}

/** Delete the report an interrupted deploy left (after the record is written). */
function pendingRemoval(snapshot: WorkspaceSnapshot): PlannedAction[] {
  const state = snapshot.files.get(PENDING_FILE);
  if (state?.kind !== "file") return [];
  return [{ path: PENDING_FILE, action: "delete", intent: "replace", owner: { export: "host" }, previous: state.bytes, note: "left by an interrupted deploy" }];
}

function recordedEntry(file: VirtualFile, block?: RecordedBlock): RecordedFile {
  const entry: RecordedFile = { path: file.path, sha256: file.sha256, operation: file.intent, owner: file.owner, header: file.header };
  return block ? { ...entry, block } : entry;
}

function planRecordWrite(record: DeploymentReport, snapshot: WorkspaceSnapshot): PlannedAction {
  const content = encoder.encode(renderRecord(record));
  const state = snapshot.files.get(RECORD_FILE) ?? { kind: "missing" };
  const base = { path: RECORD_FILE, intent: "replace" as const, owner: { export: "host" as const } };
  if (state.kind !== "file") return { ...base, action: "create", content };
  if (sameBytes(state.bytes, content)) return { ...base, action: "unchanged" };
  return { ...base, action: "replace", content, previous: state.bytes };
}

function planWholeFile(file: VirtualFile, state: FileState, before: KnownFile, drift: DriftIssue[]): PlannedAction {
  const content = bytesOf(file.content);
  const base = { path: file.path, intent: file.intent, owner: file.owner };
  if (state.kind === "blocked") {
    drift.push({ path: file.path, problem: state.problem, forceable: false });
    return { ...base, action: "unchanged" };
  }
  if (state.kind === "missing") {
    return { ...base, action: "create", content, ...(before.recorded ? { note: "was deleted; recreated" } : {}) };
  }
  const onDisk = hashOnDisk(state.bytes);
  if (sameBytes(state.bytes, content) || onDisk === file.sha256) return { ...base, action: "unchanged" };
  if (isOurs(before, onDisk)) return { ...base, action: "replace", content, previous: state.bytes };
  const generated = before.recorded !== undefined || before.pending !== undefined;
  drift.push({
    path: file.path,
    problem: generated
      ? "generated file was edited by hand (its sha256 differs from the deployment record)"
      : "file exists but was not generated by hermit (move it away, or --force to overwrite it)",
    forceable: true,
  });
  return { ...base, action: "replace", content, previous: state.bytes, note: generated ? "overwrites a hand edit" : "overwrites a file hermit did not write" };
}

interface BlockPlan {
  action: PlannedAction;
  block: RecordedBlock;
}

function planBlock(
  file: VirtualFile,
  state: FileState,
  known: KnownFile,
  allowed: readonly string[],
  drift: DriftIssue[],
): BlockPlan | undefined {
  const name = file.blockName as string;
  const before = known.recorded ?? known.pending;
  const base = { path: file.path, intent: file.intent, owner: file.owner };
  const desired = typeof file.content === "string" ? file.content : (textOf(file.content) as string);
  if (state.kind === "blocked") {
    drift.push({ path: file.path, problem: state.problem, forceable: false });
    return undefined;
  }
  if (state.kind === "missing") {
    return {
      action: { ...base, action: "create", content: encoder.encode(`${desired}\n`), ...(known.recorded ? { note: "was deleted; recreated" } : {}) },
      block: { name, createdFile: true, separator: "" },
    };
  }
  const text = textOf(state.bytes);
  if (text === undefined) {
    drift.push({ path: file.path, problem: "shared instruction file is not valid UTF-8", forceable: false });
    return undefined;
  }
  const scan = scanBlocks(text, allowed);
  if (scan.problems.length > 0) {
    for (const problem of scan.problems) drift.push({ path: file.path, line: problem.line, problem: problem.problem, forceable: false });
    return undefined;
  }
  const found = scan.blocks[0];
  // Keep the line endings the block already has; a new block follows the file's first line ending.
  const eol = (found ? found.text : firstLine(text)).includes("\r\n") ? "\r\n" : "\n";
  const rendered = eol === "\n" ? desired : desired.replace(/\n/g, eol);
  if (found) {
    const block: RecordedBlock = { name, createdFile: before?.block?.createdFile ?? false, separator: before?.block?.separator ?? "" };
    const next = text.slice(0, found.start.offset) + rendered + text.slice(found.end.textEnd);
    if (next === text) return { action: { ...base, action: "unchanged" }, block };
    const onDisk = contentHash(found.text);
    let note: string | undefined;
    if (before && !isOurs(known, onDisk)) {
      drift.push({
        path: file.path,
        line: found.start.line,
        problem: "the managed block was edited by hand (its sha256 differs from the deployment record)",
        forceable: true,
      });
      note = "overwrites a hand edit of the block";
    }
    return { action: { ...base, action: "block-edit", content: encoder.encode(next), previous: state.bytes, ...(note ? { note } : {}) }, block };
  }
  const separator = text === "" ? "" : text.endsWith("\n") ? eol : eol + eol;
  const next = `${text}${separator}${rendered}${eol}`;
  return {
    action: { ...base, action: "block-edit", content: encoder.encode(next), previous: state.bytes, ...(known.recorded ? { note: "block was removed; added again" } : {}) },
    block: { name, createdFile: before?.block?.createdFile ?? false, separator },
  };
}

function firstLine(text: string): string {
  const newline = text.indexOf("\n");
  return newline === -1 ? text : text.slice(0, newline + 1);
}

/** Remove a recorded (or pending) file, or hermit's block from a shared file. Shared with undeploy. */
export function planRemoval(
  known: KnownFile,
  state: FileState,
  allowed: readonly string[],
  drift: DriftIssue[],
): PlannedAction | undefined {
  const old = (known.recorded ?? known.pending) as RecordedFile;
  const base = { path: old.path, intent: old.operation, owner: old.owner };
  if (state.kind === "missing") return undefined;
  if (state.kind === "blocked") {
    drift.push({ path: old.path, problem: state.problem, forceable: false });
    return undefined;
  }
  if (old.operation !== "block") {
    if (!isOurs(known, hashOnDisk(state.bytes))) {
      drift.push({ path: old.path, problem: "generated file was edited by hand (its sha256 differs from the deployment record)", forceable: true });
      return { ...base, action: "delete", previous: state.bytes, note: "deletes a hand-edited file" };
    }
    return { ...base, action: "delete", previous: state.bytes };
  }
  const text = textOf(state.bytes);
  if (text === undefined) {
    drift.push({ path: old.path, problem: "shared instruction file is not valid UTF-8", forceable: false });
    return undefined;
  }
  const scan = scanBlocks(text, allowed);
  if (scan.problems.length > 0) {
    for (const problem of scan.problems) drift.push({ path: old.path, line: problem.line, problem: problem.problem, forceable: false });
    return undefined;
  }
  const found = scan.blocks[0];
  if (!found) return undefined;
  let note: string | undefined;
  if (!isOurs(known, contentHash(found.text))) {
    drift.push({ path: old.path, line: found.start.line, problem: "the managed block was edited by hand (its sha256 differs from the deployment record)", forceable: true });
    note = "removes a hand-edited block";
  }
  let head = text.slice(0, found.start.offset);
  const separator = old.block?.separator ?? "";
  if (separator !== "" && head.endsWith(separator)) head = head.slice(0, head.length - separator.length);
  const next = head + text.slice(found.end.lineEnd);
  if (next === "" && old.block?.createdFile) return { ...base, action: "delete", previous: state.bytes, ...(note ? { note } : {}) };
  return { ...base, action: "block-edit", content: encoder.encode(next), previous: state.bytes, ...(note ? { note } : {}) };
}

/**
 * Plan an undeploy: remove every recorded file (or block), the record itself, and what an
 * interrupted deploy's pending report names.
 */
export function planUndeploy(snapshot: WorkspaceSnapshot): Plan {
  if (!snapshot.record && !snapshot.pending) {
    throw new HermitError("WORKSPACE_INVALID", `${snapshot.workspace}: not a hermit workspace (no ${RECORD_FILE})`, {
      path: snapshot.workspace,
    });
  }
  const drift = reportDrift(snapshot);
  if (drift.length > 0) return { actions: [], drift };
  const actions: PlannedAction[] = [];
  const allowed = blockNames(undefined, snapshot);
  const vacated: string[] = [];
  for (const [path, known] of knownFiles(snapshot)) {
    vacated.push(path);
    const removal = planRemoval(known, snapshot.files.get(path) ?? { kind: "missing" }, allowed, drift);
    if (removal) actions.push(removal);
  }
  const state = snapshot.files.get(RECORD_FILE);
  if (snapshot.record) {
    actions.push({
      path: RECORD_FILE,
      action: "delete",
      intent: "replace",
      owner: { export: "host" },
      ...(state?.kind === "file" ? { previous: state.bytes } : {}),
    });
  }
  actions.push(...pendingRemoval(snapshot));
  return { actions, drift, vacated };
}
