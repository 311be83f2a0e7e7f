/**
 * `hermit status`: how a generated workspace differs from its deployment record, without
 * writing. Pure over a snapshot.
 */
import { scanBlocks } from "../hosts/managed-block.js";
import { checkOwnershipHeader, contentHash } from "../hosts/ownership.js";
import type { FileIntent, HostId } from "../hosts/types.js";
import { hashOnDisk, isOurs, knownFiles, type DriftIssue, type WorkspaceSnapshot } from "./plan.js";
import type { DeploymentReport, RecordedAdapter } from "./record.js";

/**
 * - `intact`: as hermit wrote it;
 * - `modified`: edited by hand (drift; deploy refuses without `--force`);
 * - `missing`: deleted (deploy recreates it);
 * - `damaged`: markers broken, or the path is no longer a plain file (drift; never forced).
 */
export type FileCondition = "intact" | "modified" | "missing" | "damaged";

export interface FileStatus {
  path: string;
  operation: FileIntent;
  condition: FileCondition;
  /** For files with an ownership header: whether the file still matches the hash it states. */
  header?: "intact" | "edited" | "absent";
  problems: Array<{ line?: number; problem: string }>;
}

export interface WorkspaceStatus {
  workspace: string;
  host: HostId;
  hermitVersion: string;
  adapter: RecordedAdapter;
  /** True when the adapter's source no longer hashes to what was deployed; null when it could not be read. */
  adapterChanged: boolean | null;
  files: FileStatus[];
  /** Every problem, as deploy would report it. */
  drift: DriftIssue[];
  /**
   * True when a deploy was interrupted (`.hermit-deploy.pending.json` is there): its files are
   * reported too, and deploying again finishes it (undeploy removes them).
   */
  interrupted: boolean;
  /** True when no file is modified or damaged and no deploy was interrupted. */
  clean: boolean;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Status of every recorded file (and of every file an interrupted deploy's pending report
 * names). `record` describes the workspace (the pending report when there is no record);
 * `currentSourceHash` is the adapter's hash now (undefined: unreadable).
 */
export function workspaceStatus(
  snapshot: WorkspaceSnapshot,
  record: DeploymentReport,
  currentSourceHash: string | undefined,
): WorkspaceStatus {
  const names = [record.adapter.name, ...[snapshot.record, snapshot.pending].flatMap((r) => (r && !("invalid" in r) ? [r.adapter.name] : []))];
  const files = [...knownFiles(snapshot).values()].map((known): FileStatus => {
    const file = (known.recorded ?? known.pending)!;
    const state = snapshot.files.get(file.path) ?? { kind: "missing" };
    const status: FileStatus = { path: file.path, operation: file.operation, condition: "intact", problems: [] };
    if (state.kind === "missing") return { ...status, condition: "missing" };
    if (state.kind === "blocked") return { ...status, condition: "damaged", problems: [{ problem: state.problem }] };
    let text: string | undefined;
    try {
      text = decoder.decode(state.bytes);
    } catch {
      text = undefined;
    }
    if (file.operation === "block") {
      if (text === undefined) return { ...status, condition: "damaged", problems: [{ problem: "not valid UTF-8" }] };
      const scan = scanBlocks(text, [...new Set(names)]);
      if (scan.problems.length > 0) return { ...status, condition: "damaged", problems: scan.problems };
      const block = scan.blocks[0];
      if (!block) return { ...status, condition: "missing", problems: [{ problem: "the managed block is gone" }] };
      if (!isOurs(known, contentHash(block.text))) {
        return { ...status, condition: "modified", problems: [{ line: block.start.line, problem: "the managed block was edited by hand" }] };
      }
      return status;
    }
    const withHeader: FileStatus = file.header && text !== undefined ? { ...status, header: checkOwnershipHeader(text).status } : status;
    if (!isOurs(known, hashOnDisk(state.bytes))) {
      return { ...withHeader, condition: "modified", problems: [{ problem: "edited by hand (sha256 differs from the deployment record)" }] };
    }
    return withHeader;
  });
  const drift: DriftIssue[] = files.flatMap((file) =>
    file.condition === "modified" || file.condition === "damaged"
      ? file.problems.map((p) => ({ path: file.path, ...(p.line ? { line: p.line } : {}), problem: p.problem, forceable: file.condition === "modified" }))
      : [],
  );
  return {
    workspace: snapshot.workspace,
    host: record.host,
    hermitVersion: record.hermitVersion,
    adapter: record.adapter,
    adapterChanged: currentSourceHash === undefined ? null : currentSourceHash !== record.adapter.sourceHash,
    files,
    drift,
    interrupted: snapshot.pending !== undefined,
    clean: drift.length === 0 && snapshot.pending === undefined,
  };
}

