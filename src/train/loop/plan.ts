/**
 * `hermit train --dry-run`: every input checked as a real run checks it (settings, plugins and
 * their options, the splits, the learner's key and price), then the plan — splits, rollouts per
 * step, steps, budgets — and what can be estimated, with nothing written and nothing run. What
 * cannot be known in advance (the learner's calls and their size, rollouts' usage) says so.
 */
import { emptyCatalog, type PluginCatalog } from "../plugins.js";
import type { TrainSettings } from "../settings/table.js";
import type { Split } from "../types.js";
import { prepareNewRun, type OpenedTraining } from "./open.js";
import type { TrainOptions } from "./trainer.js";

export interface TrainPlan {
  task: string;
  evolver: string;
  steps: number;
  splits: Record<Split, number>;
  trials: number;
  /** Rollouts of one step, at most (the cache makes repeated ones free). */
  perStep: { acting: number; screening: number; validation: number };
  screen: boolean;
  /** The accepted version's validation is run once, then cached. */
  firstValidation: number;
  /** Base and final version on the sealed test split. */
  finalTest: number;
  /** Every rollout the run can start, at most. */
  maxRollouts: number;
  learner?: { model: string; baseUrl: string; key?: string; price?: { input: number; output: number; source: string }; costKnown: boolean };
  budgets: Pick<TrainSettings, "maxRollouts" | "maxTime" | "maxTokens" | "maxCostUsd">;
  /** What cannot be estimated before the run, and why. */
  unknown: string[];
}

/** The plan of a new run (`options` as `train()` takes them), after every input was checked. */
export async function planTraining(options: TrainOptions, catalog: PluginCatalog = emptyCatalog): Promise<TrainPlan> {
  const { task, evolver, config, cwd = process.cwd(), source = "options", resume: _resume, progress: _progress, signal: _signal, ...given } = options;
  const named = { ...(typeof task === "string" ? { task } : {}), ...(typeof evolver === "string" ? { evolver } : {}) };
  const objects = { ...(typeof task === "object" ? { task } : {}), ...(typeof evolver === "object" ? { evolver } : {}) };
  const { settings, prepared } = await prepareNewRun({ settings: { ...given, ...named }, ...objects, config, cwd, source }, catalog);
  return trainPlan(settings, prepared);
}

/** The plan, from checked settings and plugins (pure). */
export function trainPlan(settings: TrainSettings, prepared: Omit<OpenedTraining, "opened">): TrainPlan {
  const splits = { train: prepared.instances.train.length, val: prepared.instances.val.length, test: prepared.instances.test.length };
  const trials = settings.trials;
  const batch = Math.min(settings.batchSize ?? splits.train, splits.train);
  const screen = settings.screen ?? prepared.evolver.screen ?? false;
  const perStep = { acting: batch * trials, screening: screen ? batch * trials : 0, validation: splits.val * trials };
  const firstValidation = settings.steps > 0 ? splits.val * trials : 0;
  const finalTest = 2 * splits.test * trials;
  const stepRollouts = perStep.acting + perStep.screening + perStep.validation;
  const learner = prepared.learner;
  const unknown = ["rollouts' tokens and cost: tasks report them as they run"];
  if (learner) unknown.push("the learner's calls per step and their size: the Evolver decides");
  if (learner && !learner.price) unknown.push(`the learner's cost: ${learner.model.name} has no price (give --price ${learner.model.name}=IN/OUT)`);
  return {
    task: prepared.task.name,
    evolver: prepared.evolver.name,
    steps: settings.steps,
    splits,
    trials,
    perStep,
    screen,
    firstValidation,
    finalTest,
    maxRollouts: settings.steps * stepRollouts + firstValidation + finalTest,
    ...(learner
      ? {
          learner: {
            model: learner.model.name,
            baseUrl: learner.model.baseUrl,
            ...(learner.model.keyVariable ? { key: learner.model.keyVariable } : {}),
            ...(learner.price ? { price: { input: learner.price.input, output: learner.price.output, source: learner.price.source } } : {}),
            costKnown: learner.price !== undefined,
          },
        }
      : {}),
    budgets: {
      ...(settings.maxRollouts !== undefined ? { maxRollouts: settings.maxRollouts } : {}),
      ...(settings.maxTime !== undefined ? { maxTime: settings.maxTime } : {}),
      ...(settings.maxTokens !== undefined ? { maxTokens: settings.maxTokens } : {}),
      ...(settings.maxCostUsd !== undefined ? { maxCostUsd: settings.maxCostUsd } : {}),
    },
    unknown,
  };
}

/** The plan in words. */
export function formatPlan(plan: TrainPlan): string {
  const { perStep } = plan;
  const limits = (value: Partial<Record<string, number>> | undefined) =>
    value ? Object.entries(value).map(([scope, amount]) => (scope === "total" ? String(amount) : `${scope}=${amount}`)).join(",") : undefined;
  const budgets = [
    plan.budgets.maxRollouts !== undefined ? `max-rollouts ${plan.budgets.maxRollouts}` : undefined,
    plan.budgets.maxTime !== undefined ? `max-time ${plan.budgets.maxTime}s` : undefined,
    plan.budgets.maxTokens ? `max-tokens ${limits(plan.budgets.maxTokens)}` : undefined,
    plan.budgets.maxCostUsd ? `max-cost-usd ${limits(plan.budgets.maxCostUsd)}` : undefined,
  ].filter(Boolean);
  const lines = [
    `dry run: nothing written, nothing run`,
    `  task ${plan.task}; evolver ${plan.evolver}; ${plan.steps} step(s); trials ${plan.trials}`,
    `  splits: train ${plan.splits.train}, val ${plan.splits.val}, test ${plan.splits.test} (sealed)`,
    `  per step, at most: acting ${perStep.acting}${plan.screen ? `, screening ${perStep.screening}` : ""}, validation ${perStep.validation} rollouts (the accepted version's ${plan.firstValidation} validation rollouts once, then cached)`,
    `  final: ${plan.finalTest} rollouts (base and final version on the test split)`,
    `  rollouts in all, at most: ${plan.maxRollouts} (the cache makes repeated ones free)`,
  ];
  if (plan.learner) {
    const price = plan.learner.price ? `$${plan.learner.price.input}/$${plan.learner.price.output} per million input/output tokens (${plan.learner.price.source})` : "no price: cost unknown";
    lines.push(`  learner: ${plan.learner.model} at ${plan.learner.baseUrl}${plan.learner.key ? `, key from ${plan.learner.key}` : ""}; ${price}`);
  }
  lines.push(`  budgets: ${budgets.length > 0 ? budgets.join("; ") : "none"}`);
  for (const item of plan.unknown) lines.push(`  not known in advance: ${item}`);
  return lines.join("\n");
}
