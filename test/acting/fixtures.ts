/**
 * Shared by the real-host acting tests: the example task's adapter with and without its
 * instruction, actor settings pointing a host at the stub model, the Task run the way the
 * Trainer runs a rollout, and the check that nothing of a host run is left alive.
 */
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { actingFor, type ActorSettings } from "../../src/acting/act.js";
import type { HostRolloutResult } from "../../src/acting/host-task.js";
import type { ActResult } from "../../src/acting/types.js";
import type { HostId } from "../../src/hosts/types.js";
import type { WireProtocol } from "../../src/models/providers.js";
import { shippedPrices } from "../../src/models/prices.js";
import { HOST_PROGRAMS } from "../../src/verify/programs.js";
import type { StubModel } from "../../src/verify/stub-model.js";
import { afterAll, beforeAll } from "vitest";
import { copyDir, hostBinDir, noHost, repoRoot, tempDir } from "../helpers.js";
import { processesIn } from "../verify/fixtures.js";

export const EXAMPLE = join(repoRoot, "examples", "fix-tests-task");
export const EXAMPLE_ADAPTER = join(EXAMPLE, "adapter");

/** The model each host is pointed at (through the stub): a name hermit's price table knows where it can. */
export const ACTOR_MODEL: Record<HostId, { name: string; protocol: WireProtocol }> = {
  "claude-code": { name: "anthropic:claude-sonnet-4-5", protocol: "anthropic-messages" },
  // gpt-5.5 is a model Codex 0.169 knows: it offers apply_patch and defers MCP tools behind tool_search.
  codex: { name: "openai:gpt-5.5", protocol: "openai-responses" },
  gemini: { name: "google:gemini-2.5-flash", protocol: "gemini" },
  opencode: { name: "openai-compatible:qwen3-coder", protocol: "openai-chat" },
  pi: { name: "openai-compatible:qwen3-coder", protocol: "openai-chat" },
};

export function skipReason(host: HostId): string | undefined {
  return noHost(HOST_PROGRAMS[host].bin);
}

/** The example adapter as shipped: its context tells the agent to call `run_tests`, its skill says how. */
export function instructedAdapter(): Promise<string> {
  return copyDir(EXAMPLE_ADAPTER);
}

/** The same adapter without the instruction and without the skill: the tool is still served. */
export async function uninstructedAdapter(): Promise<string> {
  const manifest = await readFile(join(EXAMPLE_ADAPTER, "adapter.yaml"), "utf8");
  const withoutSkills = manifest.replace(/^ {2}skills: skills\n/m, "");
  if (withoutSkills === manifest) throw new Error("examples/fix-tests-task/adapter/adapter.yaml no longer has 'skills: skills'");
  const dir = await copyDir(EXAMPLE_ADAPTER, {
    "adapter.yaml": withoutSkills,
    "ADAPTER.md": "# Fixing failing tests\n\nYou fix the code of a small Node.js project so that its tests pass.\n",
  });
  const { rm } = await import("node:fs/promises");
  await rm(join(dir, "skills"), { recursive: true, force: true });
  return dir;
}

export function actorFor(host: HostId, stub: StubModel, timeoutMs: number): ActorSettings {
  const model = ACTOR_MODEL[host];
  return {
    host,
    endpoint: { baseUrl: `${stub.url}/v1`, protocol: model.protocol, model: model.name.slice(model.name.indexOf(":") + 1) },
    modelName: model.name,
    prices: shippedPrices(),
    hostBin: join(hostBinDir, HOST_PROGRAMS[host].bin),
    timeoutMs,
  };
}

export interface Rollout {
  result: HostRolloutResult;
  /** The act the rollout made (captured before the scope closed). */
  act: ActResult;
  evidenceDir: string;
  auditLog: string;
}

/** Run one rollout of `task` the way the Trainer does: an acting scope, closed after scoring. */
export async function runRollout(
  task: { rollout(instance: never, context: never): Promise<HostRolloutResult> },
  instance: { id: string },
  adapter: string,
  actor: ActorSettings,
): Promise<Rollout> {
  const root = await tempDir("hermit-act-rollout-");
  const evidenceDir = join(root, "evidence");
  await mkdir(evidenceDir, { recursive: true });
  const auditLog = `${evidenceDir}.audit.jsonl`;
  const controller = new AbortController();
  const acting = actingFor(actor, { adapter, evidenceDir, auditLog, signal: controller.signal });
  let captured: ActResult | undefined;
  const context = {
    act: async (request: Parameters<typeof acting.act>[0]) => (captured = await acting.act(request)),
    signal: controller.signal,
    evidenceDir,
  };
  try {
    const result = await (task.rollout as (i: unknown, c: unknown) => Promise<HostRolloutResult>)(instance, context);
    return { result, act: captured!, evidenceDir, auditLog };
  } finally {
    await acting.close();
  }
}

/** The sum of the usage the stub reported for the requests that offered tools (the agent's turns). */
export function stubUsage(stub: StubModel, counted: (index: number) => boolean = () => true) {
  const sum = { input: 0, output: 0, cached: 0, reasoning: 0 };
  for (const request of stub.requests) {
    const usage = request.turn?.usage;
    if (!usage || !counted(request.index)) continue;
    sum.input += usage.input;
    sum.output += usage.output;
    sum.cached += usage.cached ?? 0;
    sum.reasoning += usage.reasoning ?? 0;
  }
  return sum;
}

/** Live processes of a host run under `root` (the TMPDIR of the test): an isolated home there, or a cwd inside it. */
export function hostProcesses(root: string): string[] {
  return processesIn(`${root}/`);
}

/**
 * Give the test file a TMPDIR of its own (isolated homes and workspaces go there, so what a
 * run leaves behind is told apart from other runs on the machine); returns its path getter.
 */
export function ownTmpdir(prefix: string): () => string {
  let tmp = "";
  let saved: string | undefined;
  beforeAll(async () => {
    tmp = await tempDir(prefix);
    saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  });
  return () => tmp;
}
