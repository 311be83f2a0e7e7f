/**
 * What a host run needs from a deployed workspace's report: the report itself (checked),
 * its activation steps for the workspace where the host runs now, and the deployed agent
 * files with the hash of their current bytes (Gemini acknowledges exact bytes).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { sha256 } from "../adapter/files.js";
import { GENERATED, parseRecord, type DeploymentNames, type DeploymentReport } from "../deploy/record.js";
import { HermitError } from "../errors.js";

/** A deployed agent file and the sha256 of its current bytes. */
export interface AgentFile {
  name: string;
  path: string;
  sha256: string;
}

/** Read and check the deployment report (`.hermit-deploy.json`, or a named one); WORKSPACE_INVALID (exit 2) names the problem. */
export async function readDeployment(workspace: string, names: DeploymentNames = GENERATED): Promise<DeploymentReport> {
  const file = join(workspace, names.record);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw new HermitError("WORKSPACE_INVALID", `${file}: not found; deploy an adapter there first (hermit deploy)`, { path: file });
  }
  const report = parseRecord(text);
  if ("invalid" in report) {
    throw new HermitError("WORKSPACE_INVALID", `${file}: deployment report is invalid: ${report.invalid}`, { path: file });
  }
  if (!report.exports || !Array.isArray(report.exports.skills) || !Array.isArray(report.exports.agents) || !Array.isArray(report.exports.tools)) {
    throw new HermitError("WORKSPACE_INVALID", `${file}: deployment report has no 'exports' lists`, { path: file });
  }
  return report;
}

/** The deployed agent files and the sha256 of their current bytes (missing files left out). */
export async function agentFiles(workspace: string, report: DeploymentReport): Promise<AgentFile[]> {
  const out: AgentFile[] = [];
  for (const file of report.files) {
    if (file.owner.export !== "agents" || !file.owner.item) continue;
    const bytes = await readFile(join(workspace, file.path)).catch(() => undefined);
    if (bytes) out.push({ name: file.owner.item, path: file.path, sha256: sha256(bytes) });
  }
  return out;
}

/** The report's activation steps with the deploy-time workspace path replaced by `workspace`. */
export function remapWorkspace(report: DeploymentReport, workspace: string): DeploymentReport["activation"] {
  if (report.workspace === workspace) return report.activation;
  const swap = (value: unknown): unknown => {
    if (typeof value === "string") return value === report.workspace ? workspace : value;
    if (Array.isArray(value)) return value.map(swap);
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key === report.workspace ? workspace : key, swap(inner)]));
    }
    return value;
  };
  return report.activation.map((step) => ({ ...step, data: swap(step.data) as Record<string, unknown> }));
}
