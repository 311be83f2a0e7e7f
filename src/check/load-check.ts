/**
 * The child-process half of the check: the custom checker, the agent exporter and the tool
 * imports run outside hermit's process, bounded in time, without network when bubblewrap
 * is present. A crash, timeout or malformed answer becomes an issue, never a hermit crash
 * or hang; processes the checker started do not outlive the check (bwrap's PID namespace;
 * without bwrap, only the child itself is stopped). The child itself: `child-process.ts`.
 */
import { randomBytes } from "node:crypto";
import { parseEntrypoint } from "../adapter/manifest.js";
import { agentsFromExporter } from "../adapter/read.js";
import type { Adapter, Manifest } from "../adapter/types.js";
import type { ChildRequest, ChildResponse } from "./check-child.js";
import { runCheckChild } from "./child-process.js";
import type { Isolation, Issue } from "./types.js";

export const DEFAULT_CHECK_TIMEOUT_MS = 120_000;

export interface LoadCheckResult {
  issues: Issue[];
  isolation: Isolation;
}

export async function runLoadCheck(
  adapter: Adapter,
  root: { path: string; manifest: Manifest },
  options: { timeoutMs?: number; isolate?: boolean },
  present: { has(path: string): boolean },
): Promise<LoadCheckResult> {
  const agents = adapter.manifest.exports?.agents;
  const exporter = typeof agents === "object" ? parseEntrypoint(agents.exporter) : undefined;
  const request: ChildRequest = {
    nonce: randomBytes(16).toString("hex"),
    adapter: adapter.root,
    root: root.path,
    // A missing entrypoint file was already reported by the reader.
    tools: adapter.tools.filter((tool) => present.has(tool.entry.file)).map((tool) => ({ name: tool.name, entry: tool.entry })),
    exporter: exporter && present.has(exporter.file) ? exporter : undefined,
    check: root.manifest.check ? parseEntrypoint(root.manifest.check) : undefined,
  };
  const issues: Issue[] = [];
  if (exporter && !request.exporter) {
    const spec = `${exporter.file}:${exporter.function}`;
    issues.push({ path: exporter.file, check: "load", problem: `agent exporter ${spec}: file ${exporter.file} not found` });
  }
  if (request.tools.length === 0 && !request.check && !request.exporter) return { issues, isolation: "not-run" };
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const { outcomes, isolation } = await runCheckChild(request, { timeoutMs, isolate: options.isolate });
  for (const outcome of outcomes) {
    if ("failure" in outcome) issues.push({ ...blame(outcome.step, request, adapter), problem: outcome.failure });
    else issues.push(...responseIssues(outcome.response, request, adapter));
  }
  return { issues, isolation };
}

/** The issues in one child's answer. */
function responseIssues(response: ChildResponse, request: ChildRequest, adapter: Adapter): Issue[] {
  const issues: Issue[] = [];
  const custom = response.custom;
  if (custom && "error" in custom) issues.push({ path: request.check!.file, check: "custom", problem: custom.error });
  else if (custom) issues.push(...custom.issues);
  if (request.exporter && response.agents) {
    const spec = `${request.exporter.file}:${request.exporter.function}`;
    const report = (path: string, check: string, problem: string) => issues.push({ path, check, problem });
    if ("error" in response.agents) report(request.exporter.file, "load", response.agents.error);
    else agentsFromExporter(response.agents.values, spec, request.exporter.file, report);
  }
  for (const tool of response.tools) {
    const declared = adapter.tools.find((t) => t.name === tool.name);
    if (tool.problem) {
      issues.push({ path: declared?.entry.file ?? "adapter.yaml", check: "load", problem: `tool '${tool.name}': ${tool.problem}` });
    }
  }
  return issues;
}

/** Which file and rule a crash or time-out during `step` is about. */
function blame(step: string | undefined, request: ChildRequest, adapter: Adapter): { path: string; check: string } {
  const [kind, ...rest] = (step ?? "").split(" ");
  const name = rest.join(" ");
  if (kind === "tool") {
    return { path: adapter.tools.find((tool) => tool.name === name)?.entry.file ?? "adapter.yaml", check: "load" };
  }
  if (kind === "exporter" && request.exporter) return { path: request.exporter.file, check: "load" };
  if (request.check) return { path: request.check.file, check: "custom" };
  return { path: "adapter.yaml", check: "load" };
}

