/**
 * `deploy`, `undeploy` and `status` as library functions: read → project (pure) → plan
 * (pure) → apply (the only writer). The CLI and the Trainer call these.
 */
import { mkdir, readFile, rmdir, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { assertDirectory, hashTree, readTreeBytes, resolveInside, walkTree } from "../adapter/files.js";
import { readAdapter } from "../adapter/read.js";
import type { Adapter } from "../adapter/types.js";
import { HermitError } from "../errors.js";
import { assertSupported, exportedItems, getHost } from "../hosts/index.js";
import type { FileIntent, ProjectOptions, ProjectionNote, ServerCommand, VirtualFile } from "../hosts/types.js";
import { hermitCli, hermitVersion } from "../package-root.js";
import { applyPlan, unwritable } from "./apply.js";
import { FILE_CONCURRENCY, forEachLimit } from "./concurrency.js";
import { lockWorkspace } from "./lock.js";
import {
  blockingDrift,
  hasChanges,
  knownFiles,
  planDeploy,
  planUndeploy,
  type ActionKind,
  type DriftIssue,
  type Plan,
} from "./plan.js";
import { PENDING_FILE, RECORD_FILE, RECORD_FORMAT, RECORD_FORMAT_VERSION, type DeploymentReport } from "./record.js";
import { workspaceStatus, type WorkspaceStatus } from "./status.js";
import { assertSeparate, openWorkspace, resolveRealPath } from "./workspace.js";

export interface DeployOptions {
  /** Path of the adapter directory, or an adapter already read with `readAdapter`. */
  adapter: string | Adapter;
  workspace: string;
  /** Host id: codex, claude-code, pi, opencode, gemini. */
  host: string;
  /** Plan and report, write nothing. */
  dryRun?: boolean;
  /** Overwrite hand-edited generated files (never damaged markers). */
  force?: boolean;
}

/** One line of the plan as reported. */
export interface ActionSummary {
  path: string;
  action: ActionKind;
  /** `block` for a managed block inside a shared file. */
  intent: FileIntent;
  note?: string;
}

/** What `deploy` and `undeploy` return. */
export interface DeployResult {
  host: string;
  /** Absolute real path of the workspace. */
  workspace: string;
  dryRun: boolean;
  /** True when the plan wrote (or, dry, would write) anything. */
  changed: boolean;
  actions: ActionSummary[];
  /** Drift that `--force` overrode (empty unless forced). */
  forced: DriftIssue[];
  written: string[];
  deleted: string[];
  /** The deployment report (as written to `.hermit-deploy.json`); absent for undeploy. */
  report?: DeploymentReport;
}

/** The MCP entry every host config launches: this node, this hermit, the adapter's absolute path. */
export function serverCommandFor(adapterRoot: string): ServerCommand {
  return { command: process.execPath, args: [hermitCli, "serve", "--adapter", adapterRoot] };
}

async function loadAdapter(source: string | Adapter): Promise<Adapter> {
  if (typeof source !== "string") return { ...source, root: await resolveRealPath(source.root) };
  await assertDirectory(source, "adapter");
  return readAdapter(await resolveRealPath(source));
}

/** Bytes and executable bits of every skill file (the projection copies whole skill folders). */
async function readSources(adapter: Adapter): Promise<Pick<ProjectOptions, "sources" | "executables">> {
  const sources = new Map<string, Uint8Array>();
  const executables = new Set<string>();
  const paths = adapter.skills.flatMap((skill) => skill.files.map((file) => `${skill.dir}/${file}`));
  await forEachLimit(paths, FILE_CONCURRENCY, async (path) => {
    const full = resolveInside(adapter.root, path);
    sources.set(path, await readFile(full));
    if (((await stat(full)).mode & 0o111) !== 0) executables.add(path);
  });
  return { sources, executables };
}

function describeDrift(workspace: string, issues: readonly DriftIssue[]): string {
  return issues.map((issue) => `  ${workspace}/${issue.path}${issue.line ? `:${issue.line}` : ""}: ${issue.problem}`).join("\n");
}

function refuseDrift(workspace: string, plan: Plan, force: boolean): void {
  const blocking = blockingDrift(plan, force);
  if (blocking.length === 0) return;
  const forceable = blocking.every((issue) => issue.forceable);
  throw new HermitError(
    "DRIFT",
    `${workspace}: drift refused, nothing written:\n${describeDrift(workspace, blocking)}\n` +
      (forceable
        ? "Keep your edits in the adapter instead, or rerun with --force to overwrite them."
        : "Repair these by hand (restore the markers or the files); --force does not override them."),
    { path: workspace, drift: blocking },
  );
}

function summarize(plan: Plan): ActionSummary[] {
  return plan.actions.map((action) => ({
    path: action.path,
    action: action.action,
    intent: action.intent,
    ...(action.note ? { note: action.note } : {}),
  }));
}

interface Prepared {
  workspace: string;
  plan: Plan;
  files: VirtualFile[];
}

/** Inputs read once per deploy, before planning (and planning again under the lock). */
interface DeployInputs extends Pick<ProjectOptions, "sources" | "executables"> {
  /** Notes about this machine (a missing hermit build) added to the host's notes. */
  notes: ProjectionNote[];
}

async function readInputs(adapter: Adapter): Promise<DeployInputs> {
  const notes: ProjectionNote[] = [];
  if (adapter.tools.length > 0 && !(await stat(hermitCli).then((info) => info.isFile(), () => false))) {
    notes.push({
      item: "tools",
      note: `the MCP entry starts ${hermitCli}, which does not exist yet: build hermit (npm run build) before starting the host`,
    });
  }
  return { ...(await readSources(adapter)), notes };
}

async function prepareDeploy(options: DeployOptions, adapter: Adapter, inputs: DeployInputs): Promise<Prepared> {
  const host = getHost(options.host);
  const workspace = await resolveRealPath(options.workspace);
  assertSeparate(adapter.root, workspace);
  const reader = await openWorkspace(workspace);
  const files = host.project(adapter, {
    sources: inputs.sources,
    executables: inputs.executables,
    server: serverCommandFor(adapter.root),
    hermitVersion,
    workspaceHasAgentsMd: await reader.isFile("AGENTS.md"),
  });
  await reader.read([...files.map((file) => file.path), ...knownFiles(reader.snapshot).keys()]);
  const items = exportedItems(adapter);
  const report: Omit<DeploymentReport, "files"> = {
    format: RECORD_FORMAT,
    formatVersion: RECORD_FORMAT_VERSION,
    host: host.id,
    hermitVersion,
    workspace,
    adapter: { name: adapter.manifest.name, version: adapter.manifest.version, path: adapter.root, sourceHash: adapter.sourceHash },
    ...(adapter.tools.length > 0 ? { server: serverCommandFor(adapter.root) } : {}),
    exports: { context: items.context[0], skills: items.skills, agents: items.agents, tools: items.tools },
    capabilities: host.capabilities,
    activation: host.activation(adapter, workspace, files),
    notes: [...host.notes(adapter), ...inputs.notes],
  };
  return { workspace, files, plan: planDeploy({ files, report, snapshot: reader.snapshot }) };
}

/**
 * Deploy an adapter into a workspace for one host. Refuses (HermitError) an unknown host
 * (HOST_UNKNOWN), exports the host cannot take (HOST_UNSUPPORTED), a workspace that is
 * neither empty nor generated for this host (WORKSPACE_INVALID), and drift (DRIFT, exit 3)
 * unless forced; in every refusal nothing is written. A deploy that changes nothing writes
 * nothing.
 */
export async function deploy(options: DeployOptions): Promise<DeployResult> {
  const force = options.force ?? false;
  const host = getHost(options.host);
  const adapter = await loadAdapter(options.adapter);
  assertSupported(host, adapter);
  const inputs = await readInputs(adapter);
  let prepared = await prepareDeploy(options, adapter, inputs);
  refuseDrift(prepared.workspace, prepared.plan, force);
  const result = (written: string[] = [], deleted: string[] = []): DeployResult => ({
    host: host.id,
    workspace: prepared.workspace,
    dryRun: options.dryRun ?? false,
    changed: hasChanges(prepared.plan),
    actions: summarize(prepared.plan),
    forced: force ? prepared.plan.drift.filter((issue) => issue.forceable) : [],
    written,
    deleted,
    report: prepared.plan.record,
  });
  if (options.dryRun || !hasChanges(prepared.plan)) return result();

  const applied = await withWorkspaceLock(prepared.workspace, async () => {
    // Plan again under the lock: another process may have changed the workspace meanwhile.
    prepared = await prepareDeploy(options, adapter, inputs);
    refuseDrift(prepared.workspace, prepared.plan, force);
    const executables = new Set(prepared.files.filter((file) => file.executable).map((file) => file.path));
    return applyPlan(prepared.workspace, prepared.plan, executables);
  });
  return result(applied.written, applied.deleted);
}

/**
 * Run `action` holding the workspace lock. Folders created only to hold the lock are
 * removed again when the action fails, so a refused deploy leaves no trace.
 */
async function withWorkspaceLock<T>(workspace: string, action: () => Promise<T>): Promise<T> {
  let firstCreated: string | undefined;
  let release: () => Promise<void>;
  try {
    firstCreated = await mkdir(workspace, { recursive: true });
    release = await lockWorkspace(workspace);
  } catch (error) {
    if (firstCreated !== undefined) await removeEmptyChain(workspace, firstCreated);
    throw unwritable(workspace, error, "nothing was written");
  }
  let failed = false;
  try {
    return await action();
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await release();
    if (failed && firstCreated !== undefined) await removeEmptyChain(workspace, firstCreated);
  }
}

async function removeEmptyChain(leaf: string, top: string): Promise<void> {
  let folder = leaf;
  for (;;) {
    try {
      await rmdir(folder);
    } catch {
      return;
    }
    if (folder === top) return;
    folder = dirname(folder);
  }
}

export interface UndeployOptions {
  workspace: string;
  dryRun?: boolean;
  /** Also remove generated files (or the block) that were edited by hand. */
  force?: boolean;
}

/**
 * Remove hermit's projections from a workspace: every recorded file, the managed block (text
 * around it is kept byte for byte), the record, and folders left empty. User files stay.
 * Refuses drift like deploy.
 */
export async function undeploy(options: UndeployOptions): Promise<DeployResult> {
  const force = options.force ?? false;
  const plan = async (workspace: string) => {
    const reader = await openWorkspace(workspace);
    await reader.read(knownFiles(reader.snapshot).keys());
    return { reader, plan: planUndeploy(reader.snapshot) };
  };
  const workspace = await resolveRealPath(options.workspace);
  let current = await plan(workspace);
  refuseDrift(workspace, current.plan, force);
  const { record, pending } = current.reader.snapshot;
  const result = (written: string[] = [], deleted: string[] = []): DeployResult => ({
    host: ((record ?? pending) as DeploymentReport).host,
    workspace,
    dryRun: options.dryRun ?? false,
    changed: hasChanges(current.plan),
    actions: summarize(current.plan),
    forced: force ? current.plan.drift.filter((issue) => issue.forceable) : [],
    written,
    deleted,
  });
  if (options.dryRun) return result();
  const applied = await withWorkspaceLock(workspace, async () => {
    current = await plan(workspace);
    refuseDrift(workspace, current.plan, force);
    return applyPlan(workspace, current.plan);
  });
  return result(applied.written, applied.deleted);
}

export interface StatusOptions {
  workspace: string;
}

/** Drift report of a generated workspace; never writes. WORKSPACE_INVALID when it is not one. */
export async function status(options: StatusOptions): Promise<WorkspaceStatus> {
  const workspace = await resolveRealPath(options.workspace);
  const reader = await openWorkspace(workspace);
  const { record, pending } = reader.snapshot;
  if (!reader.snapshot.exists) {
    throw new HermitError("WORKSPACE_INVALID", `${workspace}: workspace not found`, { path: workspace });
  }
  if (!record && !pending) {
    throw new HermitError("WORKSPACE_INVALID", `${workspace}: not a hermit workspace (no ${RECORD_FILE})`, { path: workspace });
  }
  for (const [file, report] of [[RECORD_FILE, record], [PENDING_FILE, pending]] as const) {
    if (report && "invalid" in report) {
      throw new HermitError("DRIFT", `${workspace}/${file}: ${file === RECORD_FILE ? "deployment record" : "report of an interrupted deploy"} cannot be read: ${report.invalid}`, {
        path: `${workspace}/${file}`,
      });
    }
  }
  const described = (record ?? pending) as DeploymentReport;
  await reader.read(knownFiles(reader.snapshot).keys());
  return workspaceStatus(reader.snapshot, described, await currentSourceHash(described.adapter.path));
}

/** The adapter's source hash now, or undefined when it cannot be read. */
async function currentSourceHash(root: string): Promise<string | undefined> {
  try {
    const tree = await walkTree(root);
    return hashTree(tree.files, await readTreeBytes(root, tree.files));
  } catch {
    return undefined;
  }
}
