/**
 * Evolve: the Evolver edits a fresh copy of the accepted version in `workspace/adapter`. What it
 * may only read (the template root, the accepted version) is put back as recorded afterwards, a
 * deleted candidate folder fails the step, and how it went is kept in `steps/<n>/evolver.json`.
 */
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { errorMessage } from "../../errors.js";
import { writeJson } from "../../fs/json.js";
import type { EvolverOutcome } from "../records.js";
import { cleanUsage } from "../rollouts/run-attempt.js";
import type { EvolverContext, LearningMaterial, StepResult } from "../types.js";
import { usd } from "../../models/budget.js";
import { runMeter, stepLearner, type StepCalls, type StepLearner } from "../learner.js";
import { usageByRole, type AcceptedVersion, type RunEnvironment, type RunState } from "./run-state.js";

/** What one step gives its stages: its number, its folder and where its model calls are recorded. */
export interface StepScope {
  step: number;
  /** `steps/<n>/`. */
  dir: string;
  /** `steps/<n>/calls/`: every model call a learner or actor makes in this step is recorded here. */
  callsDir: string;
}

/**
 * The context the Evolver gets. Everything a step offers a learner is added here (e.g. the
 * learner model, recording its calls under `scope.callsDir`).
 */
export function evolverContext(env: RunEnvironment, state: RunState, scope: StepScope, material: LearningMaterial, learner?: StepLearner): EvolverContext {
  const learnerSettings = learnerHostSettings(env, state);
  return {
    run: state.run.run,
    step: scope.step,
    workspace: { adapter: env.paths.candidate, state: env.paths.state },
    root: env.paths.root,
    rolloutAdapter: env.paths.rolloutAdapter,
    learningMaterial: material,
    signal: env.signal,
    seed: env.settings.seed,
    options: env.settings.evolverOptions,
    log: (line) => env.progress.note(`${env.evolver.name}: ${line}`),
    ...(learner ? { model: learner.model } : {}),
    ...(learnerSettings ? { learner: learnerSettings } : {}),
  };
}

/** The learner host the run names (`--learner-host`), with what is left of the USD budget for learning. */
function learnerHostSettings(env: RunEnvironment, state: RunState): EvolverContext["learner"] {
  const { settings } = env;
  if (settings.learnerHost === undefined) return undefined;
  const meter = runMeter(settings, usageByRole(env.batches.cache, state.steps));
  const left = (["learning", "total"] as const).flatMap((scope) => {
    const limit = meter.budgets[scope].maxCostUsd;
    return limit === undefined ? [] : [Math.max(0, limit - meter.spent(scope).costUsd)];
  });
  return {
    host: settings.learnerHost,
    ...(settings.learnerModel !== undefined ? { model: settings.learnerModel } : {}),
    ...(settings.learnerBaseUrl !== undefined ? { baseUrl: settings.learnerBaseUrl } : {}),
    ...(settings.learnerTimeout !== undefined ? { timeout: settings.learnerTimeout } : {}),
    ...(left.length > 0 ? { budgetUsd: Math.min(...left) } : {}),
  };
}

/** This step's learner model, metered against what the run has spent so far (this step's acting batch included). */
function learnerFor(env: RunEnvironment, state: RunState, scope: StepScope): StepLearner | undefined {
  if (!env.learner) return undefined;
  const { settings } = env;
  return stepLearner(env.learner, {
    callsDir: scope.callsDir,
    meter: runMeter(settings, usageByRole(env.batches.cache, state.steps)),
    signal: env.signal,
    ...(settings.learnerTimeout !== undefined ? { timeoutSeconds: settings.learnerTimeout } : {}),
    ...(settings.learnerRetries !== undefined ? { retries: settings.learnerRetries } : {}),
  });
}

/** The outcome with the step's learner calls; a call a budget refused fails the step (the run then ends with status `budget`). */
function withCalls(outcome: EvolverOutcome, calls: StepCalls | undefined): EvolverOutcome {
  if (!calls) return outcome;
  if (!calls.refused) return { ...outcome, calls };
  return { ...outcome, status: "failed", summary: `budget reached: a learner call was not made (${calls.refused})`, calls };
}

function describeCalls(calls: StepCalls): string {
  const tokens = calls.usage.reported.inputTokens === calls.count && calls.usage.reported.outputTokens === calls.count ? `${calls.usage.known.inputTokens} in / ${calls.usage.known.outputTokens} out tokens` : "tokens not all reported";
  const cost = calls.usage.reported.costUsd === calls.count ? usd(calls.usage.known.costUsd) : "cost unknown";
  return `${calls.count} learner call${calls.count === 1 ? "" : "s"}, ${tokens}, ${cost}`;
}

/** Evolve a candidate from `accepted`; the outcome says how the Evolver's step went. */
export async function evolveCandidate(env: RunEnvironment, state: RunState, scope: StepScope, material: LearningMaterial): Promise<EvolverOutcome> {
  const { store, paths } = env;
  const accepted = state.run.accepted;
  await store.exportTree(accepted.tree, paths.candidate);
  mkdirSync(paths.state, { recursive: true });
  const learner = learnerFor(env, state, scope);
  let outcome = withCalls(await runEvolver(env, evolverContext(env, state, scope, material, learner)), learner?.calls());
  if (outcome.calls && outcome.calls.count > 0) env.progress.note(`${env.evolver.name}: ${describeCalls(outcome.calls)}`);
  // A stray write to the template root or the accepted version must not change what candidates
  // are checked against, or what the cache believes the accepted version scored.
  await restoreReadOnly(env, state.run.template.tree, accepted);
  if (!isDirectory(paths.candidate)) {
    if (outcome.status !== "threw" && outcome.status !== "failed") {
      outcome = { ...outcome, status: "failed", summary: `the Evolver removed its candidate directory workspace/adapter (${outcome.summary})` };
    }
    await store.exportTree(accepted.tree, paths.candidate);
  }
  await writeJson(join(scope.dir, "evolver.json"), outcome);
  return outcome;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

async function restoreReadOnly(env: RunEnvironment, templateTree: string, accepted: AcceptedVersion): Promise<void> {
  await env.store.exportTree(templateTree, env.paths.root);
  await env.store.exportTree(accepted.tree, env.paths.rolloutAdapter);
  mkdirSync(env.paths.state, { recursive: true });
}

async function runEvolver(env: RunEnvironment, context: EvolverContext): Promise<EvolverOutcome> {
  const started = performance.now();
  const duration = () => Math.round(performance.now() - started);
  try {
    const result = (await env.evolver.step(context)) as StepResult | undefined;
    const problem = resultProblem(result);
    if (problem) return { status: "failed", summary: `the Evolver returned an invalid result: ${problem}`, durationMs: duration() };
    const usage = cleanUsage(result!.usage);
    return { status: result!.status, summary: result!.summary.trim(), ...(usage ? { usage } : {}), durationMs: duration() };
  } catch (error) {
    env.signal.throwIfAborted();
    return { status: "threw", summary: `the Evolver threw: ${errorMessage(error)}`, error: (error as Error)?.stack ?? errorMessage(error), durationMs: duration() };
  }
}

const STATUSES = new Set(["done", "skipped", "failed", "stop"]);

function resultProblem(result: StepResult | undefined): string | undefined {
  if (result === null || typeof result !== "object") return `${result === null ? "null" : typeof result}, not { status, summary }`;
  if (!STATUSES.has(result.status)) return `status ${JSON.stringify(result.status)} is not one of done, skipped, failed, stop`;
  if (typeof result.summary !== "string") return "summary must be a string";
  return undefined;
}
