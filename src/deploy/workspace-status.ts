/** `status` as a library function: read one deployment of a workspace and report its drift; never writes. */
import { hashTree, readTreeBytes, walkTree } from "../adapter/tree.js";
import { HermitError } from "../errors.js";
import { selectDeployment, type DeploymentSelector } from "./deployments.js";
import { lockState } from "./lock.js";
import { LOCK_FILE, type DeploymentReport } from "./record.js";
import { knownFiles } from "./snapshot.js";
import { workspaceStatus, type WorkspaceStatus } from "./status.js";
import { openWorkspace, resolveRealPath, workspaceEntries } from "./workspace.js";

export interface StatusOptions extends DeploymentSelector {
  workspace: string;
}

/** The adapter's source hash now, or undefined when it cannot be read. */
export async function currentSourceHash(root: string): Promise<string | undefined> {
  try {
    const tree = await walkTree(root);
    return hashTree(tree.files, await readTreeBytes(root, tree.files));
  } catch {
    return undefined;
  }
}

/**
 * Drift report of one deployment; never writes. WORKSPACE_INVALID when the workspace holds
 * none, USAGE when it holds several and `host`/`name` do not pick one, DRIFT when the
 * deployment's report itself cannot be read.
 */
export async function status(options: StatusOptions): Promise<WorkspaceStatus> {
  const workspace = await resolveRealPath(options.workspace);
  const listing = await workspaceEntries(workspace);
  if (!listing.exists) throw new HermitError("WORKSPACE_INVALID", `${workspace}: workspace not found`, { path: workspace });
  const found = selectDeployment(workspace, listing.names, options);
  const reader = await openWorkspace(workspace, found.names);
  const { record, pending } = reader.snapshot;
  for (const [file, report] of [[found.names.record, record], [found.names.pending, pending]] as const) {
    if (report && "invalid" in report) {
      const what = file === found.names.record ? "deployment record" : "report of an interrupted deploy";
      throw new HermitError("DRIFT", `${workspace}/${file}: ${what} cannot be read: ${report.invalid}`, { path: `${workspace}/${file}` });
    }
  }
  const described = (record ?? pending) as DeploymentReport;
  await reader.read(knownFiles(reader.snapshot).keys());
  const lock = await lockState(workspace, listing.names.includes(LOCK_FILE));
  return workspaceStatus(reader.snapshot, described, await currentSourceHash(described.adapter.path), lock);
}
