/**
 * Delivering the final version: exported to a stable folder (`--export`, default
 * `runs/<id>/final/`) that no later step or run rewrites, and deployed from there — so a
 * deployed MCP entry never points into `checkout/`, and deleting old runs' checkouts breaks
 * nothing. Each deploy says what it replaced.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { MANIFEST_FILE } from "../../adapter/manifest.js";
import { parseYaml } from "../../adapter/yaml.js";
import { deploy, type DeployResult } from "../../deploy/deploy.js";
import { parseRecord, RECORD_FILE } from "../../deploy/record.js";
import { HermitError, errorMessage } from "../../errors.js";
import { describeDeployment } from "../deployments.js";
import type { DeploymentRecord } from "../records.js";
import type { RunEnvironment } from "./run-state.js";

/** Where the final version is exported. */
export function exportDir(env: Pick<RunEnvironment, "settings" | "paths">): string {
  return env.settings.export ?? join(env.paths.dir, "final");
}

/**
 * `--export DIR` must not take over a folder of the user's: it may be missing, empty, or an
 * earlier export (an adapter whose `adapter.yaml` carries `origin`). Checked before the run starts.
 */
export async function checkExportDir(dir: string): Promise<void> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  if (entries.length === 0) return;
  const manifest = await readFile(join(dir, MANIFEST_FILE), "utf8").catch(() => undefined);
  const origin = manifest === undefined ? undefined : (parseYamlQuietly(manifest, join(dir, MANIFEST_FILE)) as { origin?: { run?: unknown } } | undefined)?.origin;
  if (typeof origin?.run !== "string") {
    throw new HermitError("USAGE", `${dir}: --export needs a new or empty folder, or an earlier export of hermit (this one holds other files)`, { path: dir });
  }
}

function parseYamlQuietly(text: string, file: string): unknown {
  try {
    return parseYaml(text, file);
  } catch {
    return undefined;
  }
}

/** Write the final tree to the export folder (only differing files are rewritten). */
export async function exportFinal(env: RunEnvironment, tree: string): Promise<string> {
  const dir = exportDir(env);
  await env.store.exportTree(tree, dir);
  return dir;
}

/** Deploy the exported version to every `--deploy` target; a failure is recorded, not thrown. */
export async function deployFinal(env: RunEnvironment, exported: string): Promise<DeploymentRecord[]> {
  const deployments: DeploymentRecord[] = [];
  for (const target of env.settings.deploy) {
    env.progress.note(`deploying the final version to ${target.workspace} for ${target.host}`);
    const replaced = await previousDeployment(target.workspace);
    try {
      const result = await deploy({ adapter: exported, workspace: target.workspace, host: target.host, existing: env.settings.deployInto === "existing" });
      const record: DeploymentRecord = { host: target.host, workspace: result.workspace, changed: result.changed, ...(replaced ? { replaced } : {}), actions: countActions(result) };
      env.progress.note(describeDeployment(record));
      deployments.push(record);
    } catch (error) {
      env.progress.note(`deploy to ${target.workspace} failed: ${errorMessage(error)}`);
      deployments.push({ host: target.host, workspace: target.workspace, changed: false, error: errorMessage(error) });
    }
  }
  return deployments;
}

/** What the workspace held before: the adapter its deployment record names. */
async function previousDeployment(workspace: string): Promise<DeploymentRecord["replaced"]> {
  const text = await readFile(join(workspace, RECORD_FILE), "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  const record = parseRecord(text);
  if ("invalid" in record) return undefined;
  return { adapter: record.adapter.name, version: record.adapter.version, from: record.adapter.path, host: record.host };
}

function countActions(result: DeployResult): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const action of result.actions) if (action.action !== "unchanged") counts[action.action] = (counts[action.action] ?? 0) + 1;
  return counts;
}
