/**
 * Which deployments a workspace holds, by the names of their reports: a generated
 * workspace's one (`.hermit-deploy.json`), or in the user's own project one per adapter and
 * host (`.hermit-deploy.<host>.<adapter>.json`). `status`, `undeploy` and `verify` act on
 * one; several are told apart by host and adapter name. Pure.
 */
import { HermitError } from "../errors.js";
import type { HostId } from "../hosts/ids.js";
import { GENERATED, PENDING_FILE, RECORD_FILE, existingNames, parseReportName, type DeploymentNames } from "./record.js";

/** One deployment found in a workspace. */
export interface FoundDeployment {
  names: DeploymentNames;
  /** Host and adapter as the report names say (`--existing` deployments only). */
  host?: HostId;
  adapter?: string;
}

/** Which deployment to act on: by host, by adapter name, or both. */
export interface DeploymentSelector {
  host?: string;
  /** The adapter's name (from its `adapter.yaml`). */
  name?: string;
}

/** Every deployment whose report (or pending report) is among a workspace's top-level names. */
export function listDeployments(entries: readonly string[]): FoundDeployment[] {
  const found: FoundDeployment[] = [];
  if (entries.includes(RECORD_FILE) || entries.includes(PENDING_FILE)) found.push({ names: GENERATED });
  const seen = new Set<string>();
  for (const entry of entries) {
    const named = parseReportName(entry);
    if (!named || seen.has(`${named.host}/${named.adapter}`)) continue;
    seen.add(`${named.host}/${named.adapter}`);
    found.push({ names: existingNames(named.host, named.adapter), host: named.host, adapter: named.adapter });
  }
  return found;
}

function describe(deployment: FoundDeployment): string {
  return deployment.adapter ? `${deployment.adapter} for ${deployment.host} (${deployment.names.record})` : RECORD_FILE;
}

/**
 * The one deployment `selector` picks among `entries`: WORKSPACE_INVALID when there is
 * none, USAGE (listing them) when several match.
 */
export function selectDeployment(workspace: string, entries: readonly string[], selector: DeploymentSelector = {}): FoundDeployment {
  const all = listDeployments(entries);
  const matching = all.filter(
    (found) =>
      (selector.host === undefined || found.host === undefined || found.host === selector.host) &&
      (selector.name === undefined || found.adapter === undefined || found.adapter === selector.name),
  );
  if (matching.length === 1) return matching[0];
  if (all.length === 0) {
    throw new HermitError(
      "WORKSPACE_INVALID",
      `${workspace}: not a hermit workspace (no ${RECORD_FILE}, and no .hermit-deploy.<host>.<adapter>.json of a deploy with --existing)`,
      { path: workspace },
    );
  }
  const listed = all.map(describe).join(", ");
  if (matching.length === 0) {
    throw new HermitError("WORKSPACE_INVALID", `${workspace}: no deployment matches --host ${selector.host ?? "*"} --name ${selector.name ?? "*"}; found: ${listed}`, {
      path: workspace,
      deployments: all.map(describe),
    });
  }
  throw new HermitError("USAGE", `${workspace}: holds several deployments (${listed}); pick one with --host and --name (the adapter's name)`, {
    path: workspace,
    deployments: all.map(describe),
  });
}
