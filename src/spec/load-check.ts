/**
 * The child-process half of the check: tool imports and the custom checker run outside
 * hermit's process, bounded in time, without network when bubblewrap is present. A crash,
 * timeout or malformed answer becomes an issue, never a hermit crash.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { parseEntrypoint } from "../adapter/manifest.js";
import type { Adapter, Manifest } from "../adapter/types.js";
import { packageRoot } from "../package-root.js";
import type { ChildRequest, ChildResponse } from "./check-child.js";
import { bwrapArgv, findBwrap } from "./sandbox.js";
import type { Isolation, Issue } from "./types.js";

export const DEFAULT_CHECK_TIMEOUT_MS = 120_000;
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
const childScript = join(packageRoot, "dist", "spec", "check-child.js");

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
  const request: ChildRequest = {
    adapter: adapter.root,
    root: root.path,
    // A missing entrypoint file was already reported by the reader.
    tools: adapter.tools.filter((tool) => present.has(tool.entry.file)).map((tool) => ({ name: tool.name, entry: tool.entry })),
    check: root.manifest.check ? parseEntrypoint(root.manifest.check) : undefined,
  };
  if (request.tools.length === 0 && !request.check) return { issues: [], isolation: "not-run" };
  const bwrap = options.isolate === false ? undefined : findBwrap();
  const command = [process.execPath, childScript];
  const argv = bwrap ? bwrapArgv(bwrap, command) : command;
  const where = request.check ? `${request.check.file}` : "adapter.yaml";
  const outcome = await runChild(argv, JSON.stringify(request), options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS);
  const isolation: Isolation = bwrap ? "bwrap" : "none";
  if ("failure" in outcome) {
    return { isolation, issues: [{ path: where, check: request.check ? "custom" : "load", problem: outcome.failure }] };
  }
  const issues: Issue[] = [];
  for (const tool of outcome.response.tools) {
    const declared = adapter.tools.find((t) => t.name === tool.name);
    if (tool.problem) {
      issues.push({ path: declared?.entry.file ?? "adapter.yaml", check: "load", problem: `tool '${tool.name}': ${tool.problem}` });
    }
  }
  const custom = outcome.response.custom;
  if (custom && "error" in custom) issues.push({ path: where, check: "custom", problem: custom.error });
  else if (custom) issues.push(...custom.issues);
  return { issues, isolation };
}

type ChildOutcome = { response: ChildResponse } | { failure: string };

function runChild(argv: string[], input: string, timeoutMs: number): Promise<ChildOutcome> {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let settled = false;
    const finish = (outcome: ChildOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish({ failure: `check timed out after ${timeoutMs} ms` });
    }, timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      if (stdout.length > MAX_OUTPUT_BYTES) child.kill("SIGKILL");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += chunk.toString("utf8");
    });
    child.on("error", (error) => finish({ failure: `check could not start: ${error.message}` }));
    child.on("close", (code, signal) => {
      const line = stdout.trim().split("\n").pop() ?? "";
      try {
        finish({ response: JSON.parse(line) as ChildResponse });
      } catch {
        const detail = stderr.trim().split("\n").slice(-3).join(" | ");
        finish({ failure: `check crashed (${signal ?? `exit ${code}`})${detail ? `: ${detail}` : ""}` });
      }
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
  });
}
