/**
 * Who the agent learner is and its limits: the learner host and model (the run's
 * `--learner-host`, `--learner-model`, `--learner-base-url`, or the same as evolver options
 * `host`, `model`, `base-url`), the step's time limit, the host's turn limit, and the
 * spending limit Claude Code takes. Checked before anything runs; a problem is a usage error
 * that names the setting.
 */
import { DURATION_HINT, parseDuration } from "../../duration.js";
import { HermitError } from "../../errors.js";
import { getHost } from "../../hosts/index.js";
import type { HostId } from "../../hosts/types.js";
import { resolveModel } from "../../models/providers.js";
import { recipes } from "../../verify/recipes/index.js";
import type { ModelEndpoint } from "../../verify/recipes/types.js";

/** The learner settings the Trainer passes (from the run's settings), when it does. */
export interface LearnerSettings {
  host?: string;
  model?: string;
  baseUrl?: string;
  hostBin?: string;
  maxTurns?: number;
  /** The time limit of one step, in seconds. */
  timeout?: number;
  /** What is left of the run's learning budget, in USD (Claude Code's `--max-budget-usd`). */
  budgetUsd?: number;
}

export interface Learner {
  host: HostId;
  endpoint: ModelEndpoint;
  /** `provider:model-id`, to price usage the host reports without a cost. */
  modelName: string;
  hostBin?: string;
  maxTurns: number;
  timeoutMs: number;
  budgetUsd?: number;
}

export const DEFAULT_MAX_TURNS = 40;
export const DEFAULT_TIMEOUT_SECONDS = 15 * 60;

function option(options: Record<string, unknown>, ...names: string[]): unknown {
  for (const name of names) if (options[name] !== undefined) return options[name];
  return undefined;
}

function text(value: unknown, setting: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.trim() === "") throw new HermitError("USAGE", `${setting} must be a non-empty string, not ${JSON.stringify(value)}`, { setting });
  return value.trim();
}

function positive(value: unknown, setting: string, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof number !== "number" || !Number.isFinite(number) || number <= 0 || (integer && !Number.isInteger(number))) {
    throw new HermitError("USAGE", `${setting} must be a positive ${integer ? "integer" : "number"}, not ${JSON.stringify(value)}`, { setting });
  }
  return number;
}

/**
 * The learner from the run's settings, else the evolver's options. Throws USAGE for a missing
 * host or model, an unknown host, a host that cannot speak the model's protocol, or a missing
 * key (named by the model layer).
 */
export function readLearner(settings: LearnerSettings, options: Record<string, unknown>, env: Readonly<Record<string, string | undefined>>): Learner {
  const hostName = settings.host ?? text(option(options, "host", "learner-host"), "evolver option 'host'");
  if (hostName === undefined) throw new HermitError("USAGE", "the agent Evolver needs a learner host: give --learner-host (claude-code, codex, gemini, opencode, pi)", { setting: "learner-host" });
  const host = getHost(hostName).id;
  const modelName = settings.model ?? text(option(options, "model", "learner-model"), "evolver option 'model'");
  if (modelName === undefined) throw new HermitError("USAGE", "the agent Evolver needs a learner model: give --learner-model provider:model-id", { setting: "learner-model" });
  const baseUrl = settings.baseUrl ?? text(option(options, "base-url", "learner-base-url"), "evolver option 'base-url'");
  const model = resolveModel(modelName, { env, setting: "--learner-model", ...(baseUrl !== undefined ? { baseUrl, baseUrlSetting: "--learner-base-url" } : {}) });
  const recipe = recipes[host];
  if (!recipe.protocols.includes(model.provider.protocol)) {
    throw new HermitError(
      "USAGE",
      `--learner-host ${host} speaks ${recipe.protocols.join(" or ")} to its model, and --learner-model ${model.name} speaks ${model.provider.protocol}`,
      { setting: "learner-model" },
    );
  }
  const seconds = settings.timeout ?? (option(options, "timeout") === undefined ? DEFAULT_TIMEOUT_SECONDS : parseDuration(option(options, "timeout")));
  if (seconds === undefined) throw new HermitError("USAGE", `evolver option 'timeout' must be ${DURATION_HINT}`, { setting: "timeout" });
  const hostBin = settings.hostBin ?? text(option(options, "host-bin"), "evolver option 'host-bin'");
  const budgetUsd = settings.budgetUsd ?? positive(option(options, "max-budget-usd"), "evolver option 'max-budget-usd'", false);
  return {
    host,
    endpoint: { baseUrl: model.baseUrl, protocol: model.provider.protocol, model: model.modelId, ...(model.apiKey !== undefined ? { apiKey: model.apiKey } : {}) },
    modelName: model.name,
    ...(hostBin !== undefined ? { hostBin } : {}),
    maxTurns: settings.maxTurns ?? positive(option(options, "max-turns"), "evolver option 'max-turns'", true) ?? DEFAULT_MAX_TURNS,
    timeoutMs: Math.round(seconds * 1000),
    ...(budgetUsd !== undefined ? { budgetUsd } : {}),
  };
}
