/** How a deployment of the final version is told to a person (pure; the CLI and progress lines share it). */
import type { DeploymentRecord } from "./records.js";

/** One line: where it went, what changed, what it replaced. */
export function describeDeployment(record: DeploymentRecord): string {
  if (record.error) return `deploy ${record.host} → ${record.workspace}: FAILED: ${record.error}`;
  const changes = Object.entries(record.actions ?? {})
    .map(([action, count]) => `${count} ${action}`)
    .join(", ");
  const replaced = record.replaced
    ? `; replaced ${record.replaced.adapter} ${record.replaced.version} (deployed there from ${record.replaced.from})`
    : "; the workspace held no hermit deployment before";
  return `deployed ${record.host} → ${record.workspace}${record.changed ? ` (${changes || "updated"})` : " (already up to date)"}${replaced}`;
}
