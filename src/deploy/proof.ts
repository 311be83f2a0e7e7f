/**
 * What a deployment record may make hermit do. A record is a plain file in the workspace:
 * it may be edited, or copied from another workspace. So hermit replaces or removes a file
 * only when the file's own bytes prove hermit wrote it — an intact ownership header naming
 * the adapter where the format has one, else bytes that hash to what the record says — and
 * only at paths its host can write; entries in a user's config file only under the
 * adapter's own name. Everything else is a problem `--force` does not override. Pure.
 */
import { isHostPath } from "../hosts/ids.js";
import { checkOwnershipHeader, headerStyleFor } from "../hosts/ownership.js";
import type { DriftIssue } from "./plan-types.js";
import type { DeploymentReport } from "./record.js";
import { hashOnDisk, isOurs, plainText, type KnownFile } from "./snapshot.js";

/**
 * - `ours`: the bytes prove hermit wrote what the record (or the pending report) says;
 * - `edited`: hermit's file, changed by hand (its header no longer matches, or the record differs);
 * - `unproven`: the record claims it but nothing in the bytes shows hermit wrote it.
 */
export type Ownership = { kind: "ours" } | { kind: "edited" | "unproven"; problem: string };

const UNPROVEN_HINT = "hermit will not replace or remove it, --force or not; if it is hermit's, move it away and deploy again";

/** Whether the bytes at a recorded whole-file path (`create` or `replace`) prove hermit wrote them. */
export function wholeFileOwnership(path: string, known: KnownFile, bytes: Uint8Array, adapters: readonly string[]): Ownership {
  const text = plainText(bytes);
  const recorded = isOurs(known, hashOnDisk(bytes));
  if (text !== undefined && headerStyleFor(path) !== undefined) {
    const header = checkOwnershipHeader(text);
    if (header.status === "absent") {
      return { kind: "unproven", problem: `the deployment record lists it, but it carries no hermit ownership header; ${UNPROVEN_HINT}` };
    }
    if (!adapters.includes(header.header.adapterName)) {
      return {
        kind: "unproven",
        problem: `its ownership header names adapter '${header.header.adapterName}', not '${adapters.join("' or '")}'; ${UNPROVEN_HINT}`,
      };
    }
    if (header.status === "edited") return { kind: "edited", problem: "generated file was edited by hand (its ownership header's hash no longer matches)" };
    return recorded ? { kind: "ours" } : { kind: "edited", problem: "generated file was edited by hand (its sha256 differs from the deployment record)" };
  }
  if (recorded) return { kind: "ours" };
  return {
    kind: "unproven",
    problem: `its sha256 differs from the deployment record and its format carries no ownership header, so hermit cannot tell a hand edit from a file that was never hermit's; ${UNPROVEN_HINT}`,
  };
}

/**
 * Entries of a report that its host could never have written: paths outside the host's
 * locations, and config entries not named after the adapter. Each is a problem `--force`
 * does not override: the report was edited or copied from elsewhere.
 */
export function reportTrustProblems(report: DeploymentReport, reportFile: string): DriftIssue[] {
  const host = report.host;
  const problems: DriftIssue[] = [];
  const untrusted = (path: string, what: string) =>
    problems.push({
      path,
      problem: `${reportFile} claims ${what}, which a ${host} deployment of '${report.adapter.name}' never writes: the report was edited or copied from another workspace; hermit will not touch it`,
      forceable: false,
    });
  for (const file of report.files) {
    if (!isHostPath(host, file.path)) {
      untrusted(file.path, `'${file.path}'`);
      continue;
    }
    if (file.operation === "block" && file.block?.name !== report.adapter.name) untrusted(file.path, `a block named '${file.block?.name}'`);
    for (const entry of file.keys?.entries ?? []) {
      const name = entry.member ?? entry.key[entry.key.length - 1];
      if (name !== report.adapter.name || entry.key.length > 2) untrusted(file.path, `the entry '${entry.key.join(".")}'`);
    }
  }
  return problems;
}
