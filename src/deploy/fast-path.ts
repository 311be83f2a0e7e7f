/**
 * The no-op redeploy, decided before the adapter is parsed: when the deployment's record
 * names this host, this hermit version, this adapter with the same source hash and the same
 * projection inputs, and every recorded file, block and entry is on disk exactly as recorded
 * (no pending report, no lock, no temp file), a full plan could only conclude "unchanged".
 * So it stops there, writing nothing. Anything else — a changed byte anywhere, an unreadable
 * path — returns undefined and the full plan decides.
 */
import { lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { resolveInside } from "../adapter/files.js";
import { hashTree, readTree } from "../adapter/tree.js";
import type { Adapter } from "../adapter/types.js";
import { TEMP_NAME } from "../fs/atomic.js";
import { READS_AGENTS_MD, type HostId } from "../hosts/ids.js";
import type { ServerCommand } from "../hosts/types.js";
import { hermitVersion } from "../package-root.js";
import type { DeployResult } from "./result.js";
import { GENERATED, LOCK_FILE, parseRecordAt, parseReportName, renderRecord, type DeploymentNames, type DeploymentReport } from "./record.js";
import { knownFiles } from "./snapshot.js";
import { inputsHash } from "./inputs.js";
import { workspaceStatus } from "./status.js";
import { openWorkspace, resolveRealPath, workspaceEntries } from "./workspace.js";

export interface FastPathInput {
  adapter: string | Adapter;
  workspace: string;
  host: HostId;
  existing?: boolean;
  /** Whether `dist/cli.js` exists. */
  cliBuilt: boolean;
  serverFor(adapterRoot: string): ServerCommand;
}

interface AdapterSource {
  root: string;
  sourceHash: string;
  /** The executable files as read for the hash (undefined for an adapter read before: then they are looked at). */
  executables?: ReadonlySet<string>;
}

/** The adapter's real root and source hash now; undefined when it cannot be read cleanly. */
async function adapterSource(adapter: string | Adapter): Promise<AdapterSource | undefined> {
  if (typeof adapter !== "string") return { root: await resolveRealPath(adapter.root), sourceHash: adapter.sourceHash };
  const root = await resolveRealPath(adapter);
  const tree = await readTree(root);
  return tree.problems.length > 0 ? undefined : { root, sourceHash: hashTree(tree.files, tree.bytes), executables: tree.executables };
}

/** The report names of this deployment, found among the workspace's names. */
async function findNames(workspace: string, entries: readonly string[], host: HostId, existing: boolean, root: string): Promise<DeploymentNames | undefined> {
  if (!existing) return GENERATED;
  for (const entry of entries) {
    const named = parseReportName(entry);
    if (!named || named.pending || named.host !== host) continue;
    const report = parseRecordAt(entry, readFileSync(`${workspace}/${entry}`, "utf8"));
    if (!("invalid" in report) && report.adapter.path === root) return { record: entry, pending: entry.replace(/\.json$/, ".pending.json"), existing: true };
  }
  return undefined;
}

/** What the projection depends on besides the source, as the record's `inputsHash` hashes it. */
async function currentInputsHash(input: FastPathInput, source: AdapterSource, record: DeploymentReport, workspace: string, entries: readonly string[]): Promise<string> {
  const { root } = source;
  const sources = [...new Set(record.files.flatMap((file) => (file.owner.export === "skills" && file.owner.sourcePath ? [file.owner.sourcePath] : [])))];
  const executable = (path: string) => source.executables?.has(path) ?? (statSync(resolveInside(root, path)).mode & 0o111) !== 0;
  const executables = sources.filter(executable);
  const agentsMd = READS_AGENTS_MD.has(input.host) && entries.includes("AGENTS.md") && lstatSync(`${workspace}/AGENTS.md`).isFile();
  return inputsHash({ server: input.serverFor(root), workspaceHasAgentsMd: agentsMd, existing: input.existing ?? false, executables, cliBuilt: input.cliBuilt });
}

/** The result of a deploy that would change nothing, or undefined when the full plan must decide. */
export async function unchangedRedeploy(input: FastPathInput): Promise<Omit<DeployResult, "dryRun"> | undefined> {
  try {
    return await check(input);
  } catch {
    return undefined; // anything unreadable or odd: the full path reports it properly
  }
}

async function check(input: FastPathInput): Promise<Omit<DeployResult, "dryRun"> | undefined> {
  const existing = input.existing ?? false;
  const workspace = await resolveRealPath(input.workspace);
  const listing = await workspaceEntries(workspace);
  if (!listing.exists || listing.names.includes(LOCK_FILE) || listing.names.some((name) => TEMP_NAME.test(name))) return undefined;
  const source = await adapterSource(input.adapter);
  if (!source) return undefined;
  const names = await findNames(workspace, listing.names, input.host, existing, source.root);
  if (!names || !listing.names.includes(names.record) || listing.names.includes(names.pending)) return undefined;
  const text = readFileSync(`${workspace}/${names.record}`, "utf8");
  const record = parseRecordAt(names.record, text);
  if ("invalid" in record || renderRecord(record) !== text) return undefined;
  const same =
    record.host === input.host &&
    record.hermitVersion === hermitVersion &&
    (record.existing ?? false) === existing &&
    record.workspace === workspace &&
    record.adapter.path === source.root &&
    record.adapter.sourceHash === source.sourceHash &&
    record.inputsHash === (await currentInputsHash(input, source, record, workspace, listing.names));
  if (!same) return undefined;
  if (tempFilesBeside(workspace, record)) return undefined;
  const reader = await openWorkspace(workspace, names);
  await reader.read(knownFiles(reader.snapshot).keys());
  const state = workspaceStatus(reader.snapshot, record, source.sourceHash);
  if (!state.clean || state.files.some((file) => file.condition !== "intact")) return undefined;
  if (existing && !(await skillFoldersOwned(reader, record))) return undefined;
  return {
    host: record.host,
    workspace,
    changed: false,
    actions: [
      ...record.files.map((file) => ({ path: file.path, action: "unchanged" as const, intent: file.operation })),
      { path: names.record, action: "unchanged" as const, intent: "replace" as const },
    ],
    forced: [],
    written: [],
    deleted: [],
    report: record,
  };
}

/**
 * Whether a killed writer left temp files where hermit edits files in place (beside its
 * blocks, entries and config files; a killed deploy also leaves its pending report, a killed
 * undeploy its record): the full path sweeps them.
 */
function tempFilesBeside(workspace: string, record: DeploymentReport): boolean {
  const folders = new Set(record.files.filter((file) => file.operation !== "create").map((file) => dirname(file.path)));
  return [...folders].some((folder) => {
    try {
      return readdirSync(join(workspace, folder)).some((name) => TEMP_NAME.test(name));
    } catch {
      return false;
    }
  });
}

/** In the user's own project, every skill folder hermit wrote still holds only hermit's files. */
async function skillFoldersOwned(reader: Awaited<ReturnType<typeof openWorkspace>>, record: DeploymentReport): Promise<boolean> {
  const folders = new Set<string>();
  for (const file of record.files) {
    const item = file.owner.export === "skills" ? file.owner.item : undefined;
    if (item !== undefined) folders.add(file.path.slice(0, file.path.indexOf(`/${item}/`) + item.length + 1));
  }
  await reader.listFolders(folders);
  const known = new Set(record.files.map((file) => file.path));
  return [...(reader.snapshot.folders?.values() ?? [])].every((listing) => (listing ?? []).every((path: string) => known.has(path)));
}
