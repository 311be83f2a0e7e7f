/**
 * `act`: one turn of a real host on one task instance. A fresh workspace gets the instance's
 * starting files and the version under test deployed into it; the host runs headless there
 * (isolated home, activation steps performed, its own process group, a time limit), with
 * hermit's server recording adapter tool calls in the rollout's audit log. The result — what
 * the host said and did, what it used, the workspace — goes to the task's scorer; the
 * workspace is removed when the rollout's acting scope closes.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { resolveInside } from "../adapter/files.js";
import { deploy } from "../deploy/deploy.js";
import { DURATION_HINT, parseDuration } from "../duration.js";
import { HermitError } from "../errors.js";
import { writeJson } from "../fs/json.js";
import { getHost } from "../hosts/index.js";
import type { HostId } from "../hosts/types.js";
import type { PriceTable } from "../models/prices.js";
import { AUDIT_LOG_ENV, auditLogSize } from "../runtime/audit-log.js";
import { recipes } from "../verify/recipes/index.js";
import type { ModelEndpoint } from "../verify/recipes/types.js";
import { adapterToolCalls as servedCalls, adapterUse, skillsRead } from "./evidence.js";
import { runHeadless, turnEnd } from "./headless.js";
import { priceUsage } from "./usage.js";
import type { ActResult } from "./types.js";

/** How a run acts: which host, against which model, within which limits. */
export interface ActorSettings {
  host: HostId;
  endpoint: ModelEndpoint;
  /** `provider:model-id` of the endpoint, to price usage the host reports without a cost. */
  modelName?: string;
  /** The price table (the model layer's); without it an unpriced usage has an unknown cost. */
  prices?: PriceTable;
  /** The host executable; default: found on `PATH`. */
  hostBin?: string;
  /** Where PATH and the locale come from. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The time limit of one host turn, unless the task asks for another. */
  timeoutMs: number;
  /** The host's own turn limit, where it has one. */
  maxTurns?: number;
  /** Where workspaces are created. Default: the system temp dir. */
  workRoot?: string;
}

/** What a task asks for: `ctx.act({ prompt, files, host?, timeout? })`. */
export interface ActRequest {
  prompt: string;
  /** Starting files of the workspace: relative path → contents. */
  files?: Readonly<Record<string, string | Uint8Array>>;
  /** The host; default: the run's actor host. */
  host?: string;
  /** The time limit of this turn: seconds, or a duration such as `90s`, `10m`. */
  timeout?: number | string;
}

/** The rollout an act belongs to. */
export interface ActRollout {
  /** The adapter version under test. */
  adapter: string;
  /** The rollout's evidence directory: each act leaves `act[-k]/` there. */
  evidenceDir: string;
  /** The audit log hermit's server appends to. */
  auditLog: string;
  signal?: AbortSignal;
}

/** The acting of one rollout: its acts, and the removal of their workspaces once scored. */
export interface RolloutActing {
  act(request: ActRequest): Promise<ActResult>;
  /** Remove the workspaces of every act (after scoring). Idempotent. */
  close(): Promise<void>;
}

/** The rollout's acting scope: `ctx.act` of a Task. */
export function actingFor(settings: ActorSettings, rollout: ActRollout): RolloutActing {
  const workspaces: string[] = [];
  let acts = 0;
  return {
    async act(request) {
      acts += 1;
      const evidence = join(rollout.evidenceDir, acts === 1 ? "act" : `act-${acts}`);
      return act(settings, rollout, request, evidence, (workspace) => workspaces.push(workspace));
    },
    async close() {
      await Promise.all(workspaces.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}

function checkRequest(settings: ActorSettings, request: ActRequest): { host: HostId; timeoutMs: number } {
  if (request === null || typeof request !== "object") throw new HermitError("USAGE", "ctx.act: expected { prompt, files?, host?, timeout? }");
  if (typeof request.prompt !== "string" || request.prompt.trim() === "") throw new HermitError("USAGE", "ctx.act: 'prompt' must be a non-empty string");
  const host = request.host === undefined ? settings.host : getHost(request.host).id;
  const recipe = recipes[host];
  if (!recipe.protocols.includes(settings.endpoint.protocol)) {
    throw new HermitError(
      "USAGE",
      `ctx.act: ${host} speaks ${recipe.protocols.join(" or ")} to its model, and the actor model${settings.modelName ? ` ${settings.modelName}` : ""} speaks ${settings.endpoint.protocol}`,
      { host, protocol: settings.endpoint.protocol },
    );
  }
  let timeoutMs = settings.timeoutMs;
  if (request.timeout !== undefined) {
    const seconds = parseDuration(request.timeout);
    if (seconds === undefined) throw new HermitError("USAGE", `ctx.act: timeout '${String(request.timeout)}' is not ${DURATION_HINT}`);
    timeoutMs = Math.round(seconds * 1000);
  }
  return { host, timeoutMs };
}

/** Write the instance's starting files into the fresh workspace (the deployment comes after, beside them). */
async function writeStartingFiles(workspace: string, files: ActRequest["files"]): Promise<void> {
  for (const [path, content] of Object.entries(files ?? {})) {
    if (typeof content !== "string" && !(content instanceof Uint8Array)) {
      throw new HermitError("USAGE", `ctx.act: files['${path}'] must be a string or bytes`, { path });
    }
    const target = resolveInside(workspace, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content, { flag: "wx" });
  }
}

/** One act; `keep` is told the workspace (so the scope removes it later). */
async function act(settings: ActorSettings, rollout: ActRollout, request: ActRequest, evidence: string, keep: (dir: string) => void): Promise<ActResult> {
  const { host, timeoutMs } = checkRequest(settings, request);
  const workspace = await realpath(await mkdtemp(join(settings.workRoot ?? tmpdir(), "hermit-act-")));
  keep(workspace);
  await writeStartingFiles(workspace, request.files);
  // Deployed as into a user's project: a managed block in an instruction file the instance
  // brings, hermit's entries beside its own in a config file it brings.
  const deployed = await deploy({ adapter: rollout.adapter, workspace, host, existing: true });
  const report = deployed.report!;
  const offset = await auditLogSize(rollout.auditLog);
  const run = await runHeadless({
    host,
    ...(settings.hostBin !== undefined ? { hostBin: settings.hostBin } : {}),
    cwd: workspace,
    prompt: request.prompt,
    purpose: "act",
    endpoint: settings.endpoint,
    ...(settings.env ? { env: settings.env } : {}),
    activation: report.activation,
    servers: report.exports.tools.length > 0 ? [report.adapter.name] : [],
    ...(settings.maxTurns !== undefined ? { maxTurns: settings.maxTurns } : {}),
    extraEnv: { [AUDIT_LOG_ENV]: rollout.auditLog },
    timeoutMs,
    ...(rollout.signal ? { signal: rollout.signal } : {}),
  });
  const adapterToolCalls = await servedCalls(rollout.auditLog, offset);
  const skills = skillsRead(run.transcript.toolCalls, report);
  const usage = priceUsage(host, run.transcript.usage, settings.modelName, settings.prices);
  const usageUnknown = unknownUsage(host, usage, settings.modelName);
  const result: ActResult = {
    ...turnEnd(run),
    transcript: run.process.stdout,
    ...(run.transcript.finalMessage !== undefined ? { finalMessage: run.transcript.finalMessage } : {}),
    toolCalls: run.transcript.toolCalls,
    adapterToolCalls,
    skillsRead: skills,
    adapterUse: adapterUse(skills, adapterToolCalls),
    ...(usage ? { usage } : {}),
    ...(usageUnknown ? { usageUnknown } : {}),
    durationMs: run.process.durationMs,
    workspace,
  };
  await mkdir(evidence, { recursive: true });
  await writeFile(join(evidence, "transcript.jsonl"), run.process.stdout);
  await writeFile(join(evidence, "stderr.txt"), run.process.stderr);
  const { transcript: _transcript, ...summary } = result;
  await writeJson(join(evidence, "act.json"), { ...summary, argv: run.argv, performed: run.performed });
  return result;
}

/** Why a turn's usage or cost is unknown (undefined when both are known). */
function unknownUsage(host: HostId, usage: ActResult["usage"], modelName: string | undefined): string | undefined {
  if (!usage) return `${host} reported no usage in its output`;
  const tokens = [usage.input === undefined ? "input" : "", usage.output === undefined ? "output" : ""].filter(Boolean);
  const cost = usage.costUsd === undefined ? `${host} reported no cost and the price table has no price for ${modelName ?? "the actor model"}` : "";
  const parts = [tokens.length > 0 ? `${host} reported no ${tokens.join(" or ")} tokens` : "", cost].filter(Boolean);
  return parts.length > 0 ? parts.join("; ") : undefined;
}
