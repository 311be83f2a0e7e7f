/**
 * The run's actor: the host that does the work when a task acts through one (`ctx.act`,
 * `hostTask`), from `--actor-host`, `--actor-model`, `--actor-base-url`, `--actor-timeout` and
 * `--actor-max-turns`. Resolved once, before the run writes anything: an unknown provider, a
 * missing key or a host that cannot speak the model's protocol is a usage error naming the
 * setting. The key stays in the environment; the run records only the model's name.
 */
import type { ActorSettings } from "../acting/act.js";
import { HermitError } from "../errors.js";
import { hostPricesItsModel } from "../acting/usage.js";
import { priceOf, priceTable } from "../models/prices.js";
import { resolveModel, type ResolvedModel } from "../models/providers.js";
import type { HostId } from "../hosts/types.js";
import { recipes } from "../verify/recipes/index.js";
import type { TrainSettings } from "./settings/table.js";

export type ActorFields = Pick<TrainSettings, "actorHost" | "actorModel" | "actorBaseUrl" | "actorTimeout" | "actorMaxTurns" | "rolloutTimeout" | "price" | "maxCostUsd">;

/** The time limit of one host turn: `--actor-timeout`, else 80% of `--rollout-timeout` (so the host is stopped, and its usage read, before the rollout is). */
export function actorTimeoutSeconds(settings: Pick<ActorFields, "actorTimeout" | "rolloutTimeout">): number {
  return settings.actorTimeout ?? Math.max(1, Math.floor(settings.rolloutTimeout * 0.8));
}

/** The actor of a run, or undefined when it names none (a task that acts then fails with `noActor`). */
export function resolveActor(settings: ActorFields, env: Readonly<Record<string, string | undefined>> = process.env): ActorSettings | undefined {
  const { actorHost: host, actorModel: modelName } = settings;
  if (host === undefined && modelName === undefined) {
    if (settings.actorBaseUrl !== undefined) throw new HermitError("USAGE", "--actor-base-url needs --actor-host and --actor-model", { setting: "actor-base-url" });
    return undefined;
  }
  if (host === undefined) throw new HermitError("USAGE", "--actor-model needs --actor-host: the host that runs on it (claude-code, codex, gemini, opencode, pi)", { setting: "actor-host" });
  if (modelName === undefined) throw new HermitError("USAGE", `--actor-host ${host} needs --actor-model provider:model-id: the model it runs on`, { setting: "actor-model" });
  const model = resolveModel(modelName, {
    env,
    setting: "--actor-model",
    ...(settings.actorBaseUrl !== undefined ? { baseUrl: settings.actorBaseUrl, baseUrlSetting: "--actor-base-url" } : {}),
  });
  checkHostSpeaks(host, model, "actor");
  const prices = priceTable(settings.price ?? []);
  const costLimit = settings.maxCostUsd?.acting ?? settings.maxCostUsd?.total;
  if (costLimit !== undefined && !hostPricesItsModel(host) && !priceOf(model.name, prices)) {
    throw new HermitError(
      "USAGE",
      `--max-cost-usd: ${host} reports no cost and the actor model ${model.name} has no price in hermit's table, so acting's cost is unknown and a budget in USD cannot hold it; give its price with --price ${model.name}=IN/OUT (USD per million input/output tokens), or budget tokens with --max-tokens`,
      { setting: "max-cost-usd", model: model.name },
    );
  }
  return {
    host,
    endpoint: { baseUrl: model.baseUrl, protocol: model.provider.protocol, model: model.modelId, ...(model.apiKey !== undefined ? { apiKey: model.apiKey } : {}) },
    modelName: model.name,
    prices,
    env,
    timeoutMs: Math.round(actorTimeoutSeconds(settings) * 1000),
    ...(settings.actorMaxTurns !== undefined ? { maxTurns: settings.actorMaxTurns } : {}),
  };
}

/** Throw USAGE when `host` cannot speak the protocol of `model` (`--actor-host codex` on an `anthropic:` model). */
export function checkHostSpeaks(host: HostId, model: ResolvedModel, role: "actor" | "learner"): void {
  const recipe = recipes[host];
  if (!recipe.protocols.includes(model.provider.protocol)) {
    throw new HermitError(
      "USAGE",
      `--${role}-host ${host} speaks ${recipe.protocols.join(" or ")} to its model, and --${role}-model ${model.name} speaks ${model.provider.protocol}`,
      { setting: `${role}-model` },
    );
  }
}

/** The run's learner host (`--learner-host`), checked against its model before anything runs. */
export function checkLearnerHost(settings: Pick<TrainSettings, "learnerHost" | "learnerModel">, model: ResolvedModel | undefined): void {
  if (settings.learnerHost === undefined) return;
  if (!model) throw new HermitError("USAGE", `--learner-host ${settings.learnerHost} needs --learner-model provider:model-id: the model it runs on`, { setting: "learner-model" });
  checkHostSpeaks(settings.learnerHost, model, "learner");
}

/** What `ctx.act` throws in a run without an actor. */
export function noActor(): HermitError {
  return new HermitError("USAGE", "ctx.act: this run has no actor: give --actor-host and --actor-model (docs/acting.md)", { setting: "actor-host" });
}
