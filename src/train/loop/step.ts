/**
 * One step, top to bottom: export the accepted version → act → learning material → evolve →
 * check and repair → validate → decide → commit (the candidate ref is the commit point) → move
 * the pointers. Each stage is one function with explicit inputs and outputs; the decisions are
 * pure (`decisions.ts`, `acceptance.ts`, `step-record.ts`).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { decide } from "../acceptance.js";
import { writeJson } from "../../fs/json.js";
import { buildLearningMaterial } from "../learning.js";
import { stepDir } from "../run-dir.js";
import type { BatchOutcome, BatchVersion } from "../rollouts/batch.js";
import type { StepRecord } from "../records.js";
import type { LearningMaterial, RolloutRecord } from "../types.js";
import { actingBatch, runVersionBatch, validationBatches, type Validation } from "./act.js";
import { commitStep } from "./commit.js";
import { committedHistory } from "./history.js";
import { actingInstances, describeScreening, perInstance, screenDecision, statusFromEvolver, stepStatus, stepSummary, type Screening } from "./decisions.js";
import { evolveCandidate, type StepScope } from "./evolve.js";
import { movePointers } from "./pointers.js";
import type { RunEnvironment, RunState } from "./run-state.js";
import { vetCandidate } from "./vet.js";

export async function runStep(env: RunEnvironment, state: RunState, step: number): Promise<RunState> {
  const started = performance.now();
  const scope = await openStep(env, step);
  const accepted = state.run.accepted;
  const acceptedVersion: BatchVersion = { tree: accepted.tree, dir: env.paths.rolloutAdapter };
  await env.store.exportTree(accepted.tree, env.paths.rolloutAdapter);

  const acting = await actingBatch(env, acceptedVersion, step, scope.dir);
  const material = await learningMaterial(env, state, scope, acting);
  const evolver = await evolveCandidate(env, state, scope, material);
  const vetted = await vetCandidate(env, accepted.tree, statusFromEvolver(evolver) === undefined, scope.dir);
  const evaluate = statusFromEvolver(evolver) === undefined && !vetted.invalid;
  const candidate: BatchVersion = { tree: vetted.tree, dir: env.paths.candidate };
  const screen = evaluate && (env.settings.screen ?? env.evolver.screen ?? false) ? await screeningBatch(env, candidate, acting, scope) : undefined;
  const validation = evaluate && screen?.screening.passed !== false ? await validationBatches(env, { accepted: acceptedVersion, candidate }, step, scope.dir) : undefined;
  const decision = validation ? decide(validation.candidate.records.map(scored), validation.accepted.records.map(scored), env.settings) : undefined;
  const screenedOut = screen !== undefined && !screen.screening.passed;
  const status = screenedOut ? "screened-out" : stepStatus(evolver, vetted.invalid, decision);
  const summary = stepSummary(status, evolver, decision, vetted.repair);

  const committed = await commitStep(
    env,
    state,
    {
      step,
      run: state.run.run,
      evolverName: env.evolver.name,
      accepted,
      evolver,
      vetted,
      status,
      summary: screenedOut ? `${summary} (${describeScreening(screen.screening)})` : summary,
      ...(decision ? { decision } : {}),
      ...(validation ? { validation: { candidate: perInstance(validation.candidate.records), accepted: perInstance(validation.accepted.records) } } : {}),
      ...(screen ? { screening: screen.screening } : {}),
      batchScore: material.batchScore,
      batches: [acting, ...(screen ? [screen.batch] : []), ...batchesOf(validation)],
      durationMs: Math.round(performance.now() - started),
    },
    scope.dir,
  );
  const next = await movePointers(env, state, committed);
  reportStep(env, next, committed.record);
  return next;
}

async function openStep(env: RunEnvironment, step: number): Promise<StepScope> {
  const dir = stepDir(env.paths, step);
  mkdirSync(dir, { recursive: true });
  env.progress.stepStarted(step, env.settings.steps);
  return { step, dir, callsDir: join(dir, "calls") };
}

/** The learning material, also written to `steps/<n>/learning.json`. */
async function learningMaterial(env: RunEnvironment, state: RunState, scope: StepScope, acting: BatchOutcome): Promise<LearningMaterial> {
  const { accepted } = state.run;
  const material = buildLearningMaterial({
    run: state.run.run,
    step: scope.step,
    task: env.task.name,
    accepted: { commit: accepted.commit, tree: accepted.tree, score: accepted.score },
    rollouts: acting.records,
    trainInstances: env.instances.train.length,
    history: await committedHistory(env, state.steps),
    ...(state.steps.last ? { previous: state.steps.last } : {}),
    file: join(scope.dir, "learning.json"),
  });
  await writeJson(material.file, material);
  return material;
}

/** Screen: the candidate on the acting batch's own instances, against the accepted version's scores there. */
async function screeningBatch(env: RunEnvironment, candidate: BatchVersion, acting: BatchOutcome, scope: StepScope): Promise<{ batch: BatchOutcome; screening: Screening }> {
  const instances = actingInstances(env.instances.train, env.settings, scope.step);
  const batch = await runVersionBatch(env, { version: candidate, split: "train", instances, role: "candidate", label: "screening candidate", stepPath: scope.dir, step: scope.step });
  return { batch, screening: screenDecision(batch.records.map(scored), acting.records.map(scored)) };
}

function batchesOf(validation: Validation | undefined): BatchOutcome[] {
  return validation ? [validation.accepted, validation.candidate] : [];
}

function scored(record: RolloutRecord) {
  return { instance: record.instance, trial: record.trial, score: record.score };
}

function reportStep(env: RunEnvironment, state: RunState, record: StepRecord): void {
  const [accepted, current] = [state.steps.bestAccepted, state.run.accepted.score];
  const best = accepted === null ? current : current === null ? accepted : Math.max(accepted, current);
  env.progress.stepFinished(record.step, record.status, record.score, best, record.summary);
}
