/**
 * `deploy` as a library function: read → project (pure) → plan (pure) → apply (the only
 * writer). The CLI and the Trainer call it. A redeploy whose inputs and files are exactly as
 * recorded stops before the adapter is parsed (`fast-path.ts`); only otherwise are the
 * reader, the hosts and the planner loaded (`full-deploy.ts`). `undeploy` and `status` live
 * beside it.
 */
import { stat } from "node:fs/promises";
import { HOST_IDS, type HostId } from "../hosts/ids.js";
import { hermitCli } from "../package-root.js";
import { unchangedRedeploy } from "./fast-path.js";
import { serverCommandFor, type DeployOptions } from "./options.js";
import type { DeployResult } from "./result.js";
import type { UndeployOptions } from "./undeploy.js";
import type { WorkspaceStatus } from "./status.js";
import type { StatusOptions } from "./workspace-status.js";

export { serverCommandFor, type DeployOptions } from "./options.js";
export { refuseDrift, summarize, type ActionSummary, type DeployResult } from "./result.js";
export type { StatusOptions, UndeployOptions };

/**
 * Deploy an adapter into a workspace for one host. Refuses (HermitError) an unknown host
 * (HOST_UNKNOWN), exports the host cannot take (HOST_UNSUPPORTED), a workspace that is
 * neither empty nor generated for this host without `existing` (WORKSPACE_INVALID), and
 * drift (DRIFT, exit 3) unless forced; in every refusal nothing is written. A deploy that
 * changes nothing writes nothing.
 */
export async function deploy(options: DeployOptions): Promise<DeployResult> {
  const cliBuilt = await stat(hermitCli).then((info) => info.isFile(), () => false);
  if ((HOST_IDS as readonly string[]).includes(options.host)) {
    const unchanged = await unchangedRedeploy({ ...options, host: options.host as HostId, cliBuilt, serverFor: serverCommandFor });
    if (unchanged) return { ...unchanged, dryRun: options.dryRun ?? false };
  }
  const { fullDeploy } = await import("./full-deploy.js");
  return fullDeploy(options, cliBuilt);
}

/** Remove a deployment's files, block and entries; see `undeploy.ts`. */
export async function undeploy(options: UndeployOptions): Promise<DeployResult> {
  return (await import("./undeploy.js")).undeploy(options);
}

/** Drift report of one deployment; see `workspace-status.ts`. */
export async function status(options: StatusOptions): Promise<WorkspaceStatus> {
  return (await import("./workspace-status.js")).status(options);
}
