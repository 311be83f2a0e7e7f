/**
 * Runs in a child process (inside bubblewrap when available): imports every tool entrypoint
 * and runs the template's custom check. Reads one JSON request on stdin, writes one JSON
 * response on stdout. Anything the adapter code prints goes to stderr.
 */
import { loadExport } from "../adapter/module-loader.js";
import type { Entrypoint } from "../adapter/types.js";
import type { Issue } from "./types.js";

export interface ChildRequest {
  adapter: string;
  root: string;
  tools: Array<{ name: string; entry: Entrypoint }>;
  check?: Entrypoint;
}

export interface ChildResponse {
  tools: Array<{ name: string; problem?: string }>;
  custom?: { issues: Issue[] } | { error: string };
}

function normalizeCheckResult(value: unknown, spec: string): { issues: Issue[] } | { error: string } {
  const list = Array.isArray(value) ? value : (value as { issues?: unknown } | null)?.issues;
  if (!Array.isArray(list)) {
    return { error: `custom check ${spec} returned ${JSON.stringify(value) ?? typeof value}, not a list of issues` };
  }
  const issues: Issue[] = [];
  for (const item of list) {
    const issue = item as Partial<Issue> | null;
    if (!issue || typeof issue.problem !== "string" || (issue.path !== undefined && typeof issue.path !== "string")) {
      return { error: `custom check ${spec} returned a malformed issue: ${JSON.stringify(item)}` };
    }
    issues.push({ path: issue.path ?? ".", check: "custom", problem: issue.problem });
  }
  return { issues };
}

async function handle(request: ChildRequest): Promise<ChildResponse> {
  const tools: ChildResponse["tools"] = [];
  for (const tool of request.tools) {
    try {
      await loadExport(request.adapter, tool.entry);
      tools.push({ name: tool.name });
    } catch (error) {
      tools.push({ name: tool.name, problem: (error as Error).message });
    }
  }
  if (!request.check) return { tools };
  const spec = `${request.check.file}:${request.check.function}`;
  try {
    const check = await loadExport(request.root, request.check);
    const value = await check({ adapter: request.adapter, root: request.root });
    return { tools, custom: normalizeCheckResult(value, spec) };
  } catch (error) {
    return { tools, custom: { error: `custom check ${spec} failed: ${(error as Error).message}` } };
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

// Adapter code must not write on our protocol channel.
const write = process.stdout.write.bind(process.stdout);
console.log = console.info = console.warn = console.error;

const response = await handle(JSON.parse(await readStdin()) as ChildRequest);
write(`${JSON.stringify(response)}\n`, () => process.exit(0));
