/**
 * The learner model a run offers its Evolver as `ctx.model` (docs/models.md): resolved from
 * `--learner-model` and the provider's variables before anything runs (a missing key is a usage
 * error naming the variable), priced from the shipped table or `--price`, and, each step, a
 * client whose calls are recorded under `steps/<n>/calls/`, metered against the run's budgets
 * and summed into the step's usage. Knows no plugin: any Evolver may call it.
 */
import { HermitError } from "../errors.js";
import { budgetsFrom, emptySpent, Meter, type Budgets, type Role, type Spent } from "../models/budget.js";
import { callRecorder, type CallRecord } from "../models/calls.js";
import { createModelClient, learnerModel, type LearnerModel } from "../models/client.js";
import { priceOf, priceTable, type Price } from "../models/prices.js";
import { resolveModel, type ResolvedModel } from "../models/providers.js";
import type { TrainSettings } from "./settings/table.js";
import type { Usage } from "./types.js";
import { addUsage, emptyUsage, mergeUsage, type UsageTotals } from "./usage.js";

/** The run's learner: the model to call and its price (undefined: its cost is unknown). */
export interface RunLearner {
  model: ResolvedModel;
  price?: Price;
}

type LearnerSettings = Pick<TrainSettings, "learnerModel" | "learnerBaseUrl" | "price" | "maxCostUsd" | "maxTokens">;

/**
 * The learner of a run's settings, or undefined without `--learner-model`. Throws `USAGE` for a
 * missing key or base URL (naming the variable), and for a USD budget on learning the learner's
 * price cannot enforce.
 */
export function resolveLearner(settings: LearnerSettings, env: Readonly<Record<string, string | undefined>>): RunLearner | undefined {
  if (settings.learnerModel === undefined) return undefined;
  const model = resolveModel(settings.learnerModel, {
    env,
    setting: "--learner-model",
    ...(settings.learnerBaseUrl !== undefined ? { baseUrl: settings.learnerBaseUrl, baseUrlSetting: "--learner-base-url" } : {}),
  });
  const price = priceOf(model.name, priceTable(settings.price ?? []));
  const costLimit = settings.maxCostUsd?.learning ?? settings.maxCostUsd?.total;
  if (costLimit !== undefined && !price) {
    throw new HermitError(
      "USAGE",
      `--max-cost-usd: the learner model ${model.name} has no price in hermit's table, so its cost is unknown and a budget in USD cannot hold it; give its price with --price ${model.name}=IN/OUT (USD per million input/output tokens), or budget tokens with --max-tokens`,
      { setting: "max-cost-usd", model: model.name },
    );
  }
  return { model, ...(price ? { price } : {}) };
}

/** The run's budgets from its settings. */
export function runBudgets(settings: Pick<TrainSettings, "maxCostUsd" | "maxTokens">): Budgets {
  return budgetsFrom(settings.maxCostUsd, settings.maxTokens);
}

/** What the meter counts from the records' totals. */
export function spentOf(totals: UsageTotals): Spent {
  const bothReported = Math.min(totals.reported.inputTokens, totals.reported.outputTokens);
  return {
    ...emptySpent(),
    tokens: totals.known.inputTokens + totals.known.outputTokens,
    costUsd: totals.known.costUsd,
    sources: totals.sources,
    tokensUnknown: totals.sources - bothReported,
    costUnknown: totals.sources - totals.reported.costUsd,
  };
}

/** A meter over what each role has spent so far. */
export function runMeter(settings: Pick<TrainSettings, "maxCostUsd" | "maxTokens">, spent: Record<Role, UsageTotals>): Meter {
  return new Meter(runBudgets(settings), { acting: spentOf(spent.acting), learning: spentOf(spent.learning) });
}

/** The learner's calls in one step: how many were made, their usage, and the budget that refused one. */
export interface StepCalls {
  count: number;
  usage: UsageTotals;
  /** Why a call was not made (a budget), when one was refused. */
  refused?: string;
}

/** One step's `ctx.model`, and what its calls added up to once the Evolver is done. */
export interface StepLearner {
  model: LearnerModel;
  calls(): StepCalls;
}

export interface StepLearnerOptions {
  callsDir: string;
  meter: Meter;
  signal: AbortSignal;
  timeoutSeconds?: number;
  retries?: number;
}

/** The learner for one step: its calls recorded in `callsDir`, metered and budgeted. */
export function stepLearner(learner: RunLearner, options: StepLearnerOptions): StepLearner {
  const recorded: CallRecord[] = [];
  const record = callRecorder(options.callsDir, learner.model.apiKey ? [learner.model.apiKey] : []);
  const client = createModelClient({
    model: learner.model,
    ...(learner.price ? { price: learner.price } : {}),
    ...(options.timeoutSeconds !== undefined ? { timeoutMs: Math.round(options.timeoutSeconds * 1000) } : {}),
    ...(options.retries !== undefined ? { retries: options.retries } : {}),
    signal: options.signal,
    meter: options.meter,
    role: "learning",
    recorder: async (call) => {
      const full = await record(call);
      recorded.push(full);
      return full;
    },
  });
  return { model: learnerModel(client), calls: () => summarizeCalls(recorded) };
}

/** The calls' usage (a refused call was not made and counts for nothing; a failed one's usage is unknown). */
export function summarizeCalls(calls: readonly CallRecord[]): StepCalls {
  const made = calls.filter((call) => call.status !== "refused");
  const refused = calls.find((call) => call.status === "refused");
  const usage = made.reduce((sum, call) => addUsage(sum, callUsage(call)), emptyUsage());
  return { count: made.length, usage, ...(refused ? { refused: (refused.error ?? "").replace(/^not made: /, "") } : {}) };
}

function callUsage(call: CallRecord): Usage | undefined {
  const usage: Usage = {
    ...(call.usage?.input !== undefined ? { inputTokens: call.usage.input } : {}),
    ...(call.usage?.output !== undefined ? { outputTokens: call.usage.output } : {}),
    ...(call.costUsd !== undefined ? { costUsd: call.costUsd } : {}),
  };
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/**
 * The learning usage of one Evolver step: its `ctx.model` calls, plus what it reported itself.
 * An Evolver that reported nothing counts as one source of unknown usage — unless it was
 * offered `ctx.model`: then its spending is its calls (none: nothing spent).
 */
export function evolverUsage(outcome: { usage?: Usage; calls?: StepCalls }): UsageTotals {
  const calls = outcome.calls?.usage ?? emptyUsage();
  if (outcome.usage === undefined && outcome.calls !== undefined) return calls;
  return mergeUsage(addUsage(emptyUsage(), outcome.usage), calls);
}
