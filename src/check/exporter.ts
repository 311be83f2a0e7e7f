/**
 * Running an adapter's agent exporter (`exports.agents.exporter`, adapter code) where it can
 * do no harm: in the spec check's child process, inside bubblewrap when present (no network,
 * the file system read-only, its own PID namespace), bounded in time. Only data comes back:
 * the JSON of what the exporter returned, checked by the same rules as agent files. Meant for
 * every reader that must not run adapter code in hermit's own process: deploy (also
 * `--dry-run`) and convert.
 */
import { randomBytes } from "node:crypto";
import { parseEntrypoint } from "../adapter/manifest.js";
import { agentsFromExporter, inspectAdapter, invalidAdapter } from "../adapter/read.js";
import type { Adapter, AgentDefinition, Problem } from "../adapter/types.js";
import { runCheckChild } from "./child-process.js";
import { DEFAULT_CHECK_TIMEOUT_MS } from "./load-check.js";
import type { Isolation } from "./types.js";

export interface IsolatedExportOptions {
  /** Limit for the child process. Default 120 000 ms, as the spec check. */
  timeoutMs?: number;
  /** Use bubblewrap when present (default true). */
  isolate?: boolean;
}

export interface IsolatedExport {
  agents: AgentDefinition[];
  /** What is wrong with the exporter or what it returned (`load` issues on its file). */
  problems: Problem[];
  /** `not-run` when the adapter has no exporter. */
  isolation: Isolation;
}

/** Run `adapter`'s agent exporter in the isolated child; an adapter without one gets `[]`. */
export async function exportAgentsIsolated(adapter: Adapter, options: IsolatedExportOptions = {}): Promise<IsolatedExport> {
  const spec = adapter.manifest.exports?.agents;
  if (typeof spec !== "object") return { agents: [], problems: [], isolation: "not-run" };
  const exporter = parseEntrypoint(spec.exporter);
  const request = { nonce: randomBytes(16).toString("hex"), adapter: adapter.root, root: adapter.root, tools: [], exporter };
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const { outcomes, isolation } = await runCheckChild(request, { timeoutMs, isolate: options.isolate });
  const outcome = outcomes[0]!; // one exporter: one child
  const problems: Problem[] = [];
  const report = (path: string, check: string, problem: string) => problems.push({ path, check, problem });
  if ("failure" in outcome) {
    report(exporter.file, "load", outcome.failure);
    return { agents: [], problems, isolation };
  }
  const answer = outcome.response.agents;
  if (answer === undefined || "error" in answer) {
    report(exporter.file, "load", answer?.error ?? `agent exporter ${spec.exporter} gave no answer`);
    return { agents: [], problems, isolation };
  }
  return { agents: agentsFromExporter(answer.values, spec.exporter, exporter.file, report), problems, isolation };
}

/**
 * `readAdapter` with the agent exporter run in the isolated child instead of hermit's own
 * process. Same contract: any problem (the reader's or the exporter's) throws ADAPTER_INVALID
 * listing them.
 */
export async function readAdapterIsolated(root: string, options: IsolatedExportOptions = {}): Promise<Adapter> {
  const { adapter, problems } = await inspectAdapter(root, { runExporters: false });
  const exported = await exportAgentsIsolated(adapter, options);
  const all = [...problems, ...exported.problems];
  if (all.length > 0) throw invalidAdapter(root, all);
  return exported.isolation === "not-run" ? adapter : { ...adapter, agents: exported.agents };
}
