/**
 * The deploy plan, pure: given the projected virtual files and a snapshot of the workspace's
 * current bytes, decide per file create / replace / block or entry edit / delete / unchanged,
 * and collect drift. Actions are computed as if `--force` were given; the caller refuses when
 * drift remains that the user did not (or cannot) override. The planners of each kind of
 * file live beside this one: `plan-file.ts` (whole files), `plan-block.ts` (managed blocks),
 * `plan-keys.ts` (entries in a user's JSON config).
 */
import { HermitError } from "../errors.js";
import type { VirtualFile } from "../hosts/types.js";
import { planBlock, planBlockRemoval } from "./plan-block.js";
import { planFileRemoval, planWholeFile } from "./plan-file.js";
import { planKeys, planKeysRemoval } from "./plan-keys.js";
import type { DriftIssue, Plan, PlanContext, PlannedAction } from "./plan-types.js";
import { reportTrustProblems } from "./proof.js";
import { GENERATED, renderRecord, type DeploymentReport, type RecordedFile } from "./record.js";
import {
  adapterNames,
  encoder,
  knownEntry,
  knownFiles,
  sameBytes,
  trusted,
  type FileState,
  type KnownFile,
  type WorkspaceSnapshot,
} from "./snapshot.js";
import { checkWorkspace, validateVirtualFiles } from "./workspace-rules.js";

export * from "./plan-types.js";
export { hashOnDisk, isOurs, knownFiles, type FileState, type KnownFile, type WorkspaceSnapshot } from "./snapshot.js";
export { checkWorkspace, validateVirtualFiles } from "./workspace-rules.js";

export interface DeployPlanInput {
  files: readonly VirtualFile[];
  /** The new report without its `files` (filled in by the plan). */
  report: Omit<DeploymentReport, "files">;
  snapshot: WorkspaceSnapshot;
}

const MISSING: FileState = { kind: "missing" };

/** Plan a deploy. Pure; throws only for a workspace that may not be deployed into at all. */
export function planDeploy(input: DeployPlanInput): Plan {
  const { files, snapshot, report } = input;
  const names = snapshot.names ?? GENERATED;
  validateVirtualFiles(files, report.adapter.path);
  checkWorkspace(snapshot, report.host);
  const drift = reportDrift(snapshot);
  if (drift.length > 0) return { actions: [], drift, names };
  const context: PlanContext = { existing: names.existing, adapters: adapterNames(report.adapter.name, snapshot), drift };
  const known = knownFiles(snapshot);
  if (names.existing) claimFolders(snapshot, known, context);

  const actions: PlannedAction[] = [];
  const entries: RecordedFile[] = [];
  for (const file of files) {
    const state = snapshot.files.get(file.path) ?? MISSING;
    const before = known.get(file.path) ?? {};
    const entry: RecordedFile = { path: file.path, sha256: file.sha256, operation: file.intent, owner: file.owner, header: file.header };
    if (file.intent === "block") {
      const planned = planBlock(file, state, before, context);
      if (planned) {
        actions.push(planned.action);
        entries.push({ ...entry, block: planned.block });
      }
    } else if (file.intent === "keys") {
      const planned = planKeys(file, state, before, context);
      if (planned) {
        actions.push(planned.action);
        entries.push({ ...entry, keys: planned.keys });
      }
    } else {
      actions.push(planWholeFile(file, state, before, context));
      entries.push(entry);
    }
  }
  const wanted = new Set(files.map((file) => file.path));
  const vacated: string[] = [];
  for (const [path, old] of known) {
    if (wanted.has(path)) continue;
    vacated.push(path);
    const removal = planRemoval(old, snapshot.files.get(path) ?? MISSING, context);
    if (removal) actions.push(removal);
  }

  const { exports, capabilities, activation, notes, ...identity } = report;
  const record: DeploymentReport = { ...identity, ...(names.existing ? { existing: true } : {}), files: entries, exports, capabilities, activation, notes };
  actions.push(planRecordWrite(record, snapshot));
  actions.push(...pendingRemoval(snapshot));
  return { actions, drift, record, journal: encoder.encode(renderRecord(record)), vacated, names, sweep: sweepPaths(snapshot, known) };
}

/** Where a killed writer can have left temp files: beside what a report names and what exists. */
function sweepPaths(snapshot: WorkspaceSnapshot, known: ReadonlyMap<string, KnownFile>): string[] {
  return [...new Set([...known.keys(), ...[...snapshot.files].flatMap(([path, state]) => (state.kind === "missing" ? [] : [path]))])];
}

/** Remove a recorded (or pending) file, block or entries. Shared with undeploy. */
export function planRemoval(known: KnownFile, state: FileState, context: PlanContext): PlannedAction | undefined {
  const operation = knownEntry(known).operation;
  if (operation === "block") return planBlockRemoval(known, state, context);
  if (operation === "keys") return planKeysRemoval(known, state, context);
  return planFileRemoval(known, state, context);
}

/**
 * In the user's own project, a skill folder hermit writes must be hermit's alone: a folder
 * that holds a file hermit did not write is the user's skill of the same name.
 */
function claimFolders(snapshot: WorkspaceSnapshot, known: ReadonlyMap<string, KnownFile>, context: PlanContext): void {
  for (const [folder, listing] of snapshot.folders ?? []) {
    const foreign = (listing ?? []).filter((path) => !known.has(path));
    if (foreign.length === 0) continue;
    context.drift.push({
      path: `${folder}/`,
      problem: `already exists and is not hermit's (it holds ${foreign.slice(0, 3).join(", ")}${foreign.length > 3 ? ", …" : ""}): rename your skill or the adapter's`,
      forceable: false,
    });
  }
}

/** A record or pending report that cannot be read, or that claims what hermit never writes: nothing can be planned safely. */
function reportDrift(snapshot: WorkspaceSnapshot): DriftIssue[] {
  const names = snapshot.names ?? GENERATED;
  const drift: DriftIssue[] = [];
  const record = snapshot.record;
  if (record && "invalid" in record) {
    drift.push({ path: names.record, problem: `deployment record cannot be read: ${record.invalid}; restore it (for example from version control) or use a new workspace`, forceable: false });
  }
  const pending = snapshot.pending;
  if (pending && "invalid" in pending) {
    drift.push({
      path: names.pending,
      problem: `the report of an interrupted deploy cannot be read: ${pending.invalid}; check the files it would name by hand, then delete it`,
      forceable: false,
    });
  }
  for (const [report, file] of [[trusted(record), names.record], [trusted(pending), names.pending]] as const) {
    if (report) drift.push(...reportTrustProblems(report, file));
  }
  return drift;
}

/** Delete the report an interrupted deploy left (after the record is written). */
function pendingRemoval(snapshot: WorkspaceSnapshot): PlannedAction[] {
  const path = (snapshot.names ?? GENERATED).pending;
  const state = snapshot.files.get(path);
  if (state?.kind !== "file") return [];
  return [{ path, action: "delete", intent: "replace", owner: { export: "host" }, previous: state.bytes, note: "left by an interrupted deploy" }];
}

function planRecordWrite(record: DeploymentReport, snapshot: WorkspaceSnapshot): PlannedAction {
  const path = (snapshot.names ?? GENERATED).record;
  const content = encoder.encode(renderRecord(record));
  const state = snapshot.files.get(path) ?? MISSING;
  const base = { path, intent: "replace" as const, owner: { export: "host" as const } };
  if (state.kind !== "file") return { ...base, action: "create", content };
  if (sameBytes(state.bytes, content)) return { ...base, action: "unchanged" };
  return { ...base, action: "replace", content, previous: state.bytes };
}

/**
 * Plan an undeploy: remove every recorded file (or block, or entry), the record itself, and
 * what an interrupted deploy's pending report names.
 */
export function planUndeploy(snapshot: WorkspaceSnapshot): Plan {
  const names = snapshot.names ?? GENERATED;
  if (!snapshot.record && !snapshot.pending) {
    throw new HermitError("WORKSPACE_INVALID", `${snapshot.workspace}: not a hermit workspace (no ${names.record})`, { path: snapshot.workspace });
  }
  const drift = reportDrift(snapshot);
  if (drift.length > 0) return { actions: [], drift, names };
  const context: PlanContext = { existing: names.existing, adapters: adapterNames(undefined, snapshot), drift };
  const actions: PlannedAction[] = [];
  const vacated: string[] = [];
  for (const [path, known] of knownFiles(snapshot)) {
    vacated.push(path);
    const removal = planRemoval(known, snapshot.files.get(path) ?? MISSING, context);
    if (removal) actions.push(removal);
  }
  const state = snapshot.files.get(names.record);
  if (snapshot.record) {
    actions.push({ path: names.record, action: "delete", intent: "replace", owner: { export: "host" }, ...(state?.kind === "file" ? { previous: state.bytes } : {}) });
  }
  actions.push(...pendingRemoval(snapshot));
  return { actions, drift, vacated, names, sweep: sweepPaths(snapshot, knownFiles(snapshot)) };
}
