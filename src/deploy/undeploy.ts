/**
 * `undeploy` as a library function: remove one deployment's files, block and entries (what
 * their bytes prove is hermit's), its report, and the folders left empty; everything else
 * stays byte for byte.
 */
import { TEMP_NAME, sweepTempFiles } from "../fs/atomic.js";
import { alive } from "../fs/process.js";
import { isHermitError } from "../errors.js";
import { applyPlan } from "./apply.js";
import { refuseDrift, summarize, type DeployResult } from "./result.js";
import { selectDeployment, type DeploymentSelector } from "./deployments.js";
import { lockState, lockWorkspace, withWorkspaceLock } from "./lock.js";
import { hasChanges, planUndeploy, type PlannedAction } from "./plan.js";
import { LOCK_FILE, type DeploymentNames, type DeploymentReport } from "./record.js";
import { knownFiles } from "./snapshot.js";
import { openWorkspace, resolveRealPath, workspaceEntries } from "./workspace.js";

export interface UndeployOptions extends DeploymentSelector {
  workspace: string;
  dryRun?: boolean;
  /** Also remove generated files (or the block, or entries) that were edited by hand. */
  force?: boolean;
}

async function planFor(workspace: string, names: DeploymentNames) {
  const reader = await openWorkspace(workspace, names);
  await reader.read(knownFiles(reader.snapshot).keys());
  return { reader, plan: planUndeploy(reader.snapshot) };
}

/**
 * Remove hermit's projections of one deployment: every recorded file, the managed block (text
 * around it is kept byte for byte), hermit's entries in the user's config files, the record,
 * and folders left empty. User files stay. Refuses drift like deploy. A workspace that holds
 * no deployment, only the lock or temp files of a killed deploy, is cleaned of those.
 */
export async function undeploy(options: UndeployOptions): Promise<DeployResult> {
  const force = options.force ?? false;
  const workspace = await resolveRealPath(options.workspace);
  const listing = await workspaceEntries(workspace);
  let names: DeploymentNames;
  try {
    names = selectDeployment(workspace, listing.names, options).names;
  } catch (error) {
    const leftovers = isHermitError(error) && error.code === "WORKSPACE_INVALID" ? await killedDeployLeftovers(workspace, listing.names, options.dryRun) : [];
    if (leftovers.length === 0) throw error;
    const actions = leftovers.map((path): PlannedAction => ({ path, action: "delete", intent: "replace", owner: { export: "host" } }));
    const done = options.dryRun ? [] : leftovers;
    return { host: "", workspace, dryRun: options.dryRun ?? false, changed: true, actions: summarize({ actions }), forced: [], written: [], deleted: done };
  }
  let current = await planFor(workspace, names);
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
    current = await planFor(workspace, names);
    refuseDrift(workspace, current.plan, force);
    return applyPlan(workspace, current.plan);
  });
  return result(applied.written, applied.deleted);
}

/** The stale lock and dead writers' temp files a deploy killed before its first report left (removed unless `dryRun`). */
async function killedDeployLeftovers(workspace: string, entries: readonly string[], dryRun = false): Promise<string[]> {
  const found: string[] = [];
  if (entries.includes(LOCK_FILE) && (await lockState(workspace, true))?.stale) {
    found.push(LOCK_FILE);
    // Taking a stale lock over and releasing it removes it.
    if (!dryRun) await (await lockWorkspace(workspace))();
  }
  const temps = entries.filter((name) => {
    const match = TEMP_NAME.exec(name);
    return match !== null && !alive(Number(match[1]));
  });
  if (!dryRun) await sweepTempFiles(workspace);
  return [...found, ...temps];
}
