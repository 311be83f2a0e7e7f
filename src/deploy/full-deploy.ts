/**
 * The full deploy, when the fast path could not show that nothing changes: read the adapter
 * and the workspace, project, plan, refuse drift, apply under the workspace lock.
 */
import { stat } from "node:fs/promises";
import type { Adapter } from "../adapter/types.js";
import { describeInterpreter, isPythonFile, resolvePython } from "../adapter/python.js";
import { assertSupported, exportedItems, getHost } from "../hosts/index.js";
import { READS_AGENTS_MD } from "../hosts/ids.js";
import type { ProjectionNote, VirtualFile } from "../hosts/types.js";
import { hermitCli, hermitVersion } from "../package-root.js";
import { applyPlan, sweepPlanFolders } from "./apply.js";
import { serverCommandFor, type DeployOptions } from "./options.js";
import { inputsHash } from "./inputs.js";
import { lockWorkspace, withWorkspaceLock } from "./lock.js";
import { hasChanges, planDeploy, type Plan } from "./plan.js";
import { GENERATED, LOCK_FILE, RECORD_FORMAT, RECORD_FORMAT_VERSION, existingNames, type DeploymentReport } from "./record.js";
import { refuseDrift, summarize, type DeployResult } from "./result.js";
import { knownFiles, sameSnapshot, type WorkspaceSnapshot } from "./snapshot.js";
import { loadAdapter, type LoadedAdapter } from "./sources.js";
import { assertSeparate, openWorkspace, resolveRealPath } from "./workspace.js";

interface Prepared {
  workspace: string;
  plan: Plan;
  files: VirtualFile[];
  /** What the plan was made from, to tell whether it still holds under the lock. */
  snapshot: WorkspaceSnapshot;
  workspaceHasAgentsMd: boolean;
}

/** Notes about this machine (a missing hermit build) added to the host's notes. */
function machineNotes(adapter: Adapter, cliBuilt: boolean): ProjectionNote[] {
  if (adapter.tools.length === 0 || cliBuilt) return [];
  return [{ item: "tools", note: `the MCP entry starts ${hermitCli}, which does not exist yet: build hermit (npm run build) before starting the host` }];
}

/**
 * Read the workspace, project and plan. With `before` (the same deploy prepared a moment
 * ago, outside the lock), a workspace read exactly as before keeps that plan: projection and
 * plan are pure, so they would come out the same.
 */
async function prepareDeploy(options: DeployOptions, loaded: LoadedAdapter, cliBuilt: boolean, before?: Prepared): Promise<Prepared> {
  const { adapter } = loaded;
  const host = getHost(options.host);
  const existing = options.existing ?? false;
  const workspace = await resolveRealPath(options.workspace);
  assertSeparate(adapter.root, workspace);
  const reader = await openWorkspace(workspace, existing ? existingNames(host.id, adapter.manifest.name) : GENERATED);
  const server = serverCommandFor(adapter.root);
  const workspaceHasAgentsMd = await reader.isFile("AGENTS.md");
  const reuse = before?.workspace === workspace && before.workspaceHasAgentsMd === workspaceHasAgentsMd ? before : undefined;
  const files = reuse?.files ?? host.project(adapter, { ...loaded, server, hermitVersion, workspaceHasAgentsMd, existing });
  await reader.read([...files.map((file) => file.path), ...knownFiles(reader.snapshot).keys()]);
  if (existing) await reader.listFolders(skillFolders(files));
  if (reuse && sameSnapshot(reuse.snapshot, reader.snapshot)) return reuse;
  const items = exportedItems(adapter);
  const report: Omit<DeploymentReport, "files"> = {
    format: RECORD_FORMAT,
    formatVersion: RECORD_FORMAT_VERSION,
    host: host.id,
    hermitVersion,
    workspace,
    adapter: { name: adapter.manifest.name, version: adapter.manifest.version, path: adapter.root, sourceHash: adapter.sourceHash },
    ...(adapter.tools.length > 0 ? { server } : {}),
    ...(await pythonFor(adapter)),
    inputsHash: inputsHash({ server, workspaceHasAgentsMd: READS_AGENTS_MD.has(host.id) && workspaceHasAgentsMd, existing, executables: [...loaded.executables], cliBuilt }),
    exports: { context: items.context[0], skills: items.skills, agents: items.agents, tools: items.tools },
    capabilities: host.capabilities,
    activation: host.activation(adapter, workspace, files),
    notes: [...host.notes(adapter), ...machineNotes(adapter, cliBuilt)],
  };
  return { workspace, files, snapshot: reader.snapshot, workspaceHasAgentsMd, plan: planDeploy({ files, report, snapshot: reader.snapshot }) };
}

/**
 * The Python the served Python tools will run on, for the report; PYTHON_UNAVAILABLE when
 * there is none (the host would start a server whose tools cannot run).
 */
async function pythonFor(adapter: Adapter): Promise<{ python?: string }> {
  const tool = adapter.tools.find((candidate) => isPythonFile(candidate.entry.file));
  if (!tool) return {};
  return { python: describeInterpreter(await resolvePython(adapter.root, `tool '${tool.name}' (entrypoint ${tool.entrypoint})`)) };
}

/** The folder of every skill a projection writes (`.agents/skills/<name>`). */
function skillFolders(files: readonly VirtualFile[]): string[] {
  return files.flatMap((file) => {
    if (file.owner.export !== "skills" || file.owner.item === undefined) return [];
    const marker = `/${file.owner.item}/`;
    return [file.path.slice(0, file.path.indexOf(marker) + marker.length - 1)];
  });
}

/** The deploy of `deploy.ts` past the fast path. */
export async function fullDeploy(options: DeployOptions, cliBuilt: boolean): Promise<DeployResult> {
  const force = options.force ?? false;
  const host = getHost(options.host);
  const loaded = await loadAdapter(options.adapter);
  assertSupported(host, loaded.adapter);
  let prepared = await prepareDeploy(options, loaded, cliBuilt);
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
  if (options.dryRun) return result();
  if (!hasChanges(prepared.plan)) {
    await cleanUpAfterCrash(prepared.workspace, prepared.plan);
    return result();
  }
  const applied = await withWorkspaceLock(prepared.workspace, async () => {
    // Plan again under the lock: another process may have changed the workspace meanwhile.
    prepared = await prepareDeploy(options, loaded, cliBuilt, prepared);
    refuseDrift(prepared.workspace, prepared.plan, force);
    return applyPlan(prepared.workspace, prepared.plan);
  });
  return result(applied.written, applied.deleted);
}

/**
 * Nothing to change, but a killed run may have left its lock or temp files: a stale lock is
 * taken over and released, dead writers' temp files swept.
 */
async function cleanUpAfterCrash(workspace: string, plan: Plan): Promise<void> {
  const listing = await stat(`${workspace}/${LOCK_FILE}`).then(() => true, () => false);
  if (listing) {
    const release = await lockWorkspace(workspace).catch(() => undefined);
    await release?.();
  }
  await sweepPlanFolders(workspace, plan);
}
