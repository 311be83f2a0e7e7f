/**
 * One step of the loop: acting batch → learning material → `evolver.step` → check → repair →
 * validation → decision → commit (the candidate ref is the commit point) → move the pointers.
 */
import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage } from "../../errors.js";
import { repairCandidate, type RepairRecord } from "../../check/repair.js";
import { checkSpec } from "../../check/check.js";
import type { SpecResult } from "../../check/types.js";
import { decide, type Decision } from "../acceptance.js";
import { writeJson } from "../../fs/json.js";
import { buildLearningMaterial } from "../learning.js";
import { sample, seededRandom } from "../random.js";
import type { EvolverOutcome, StepRecord } from "../records.js";
import { stepDir } from "../run-dir.js";
import { runBatch, cleanUsage, type BatchOutcome, type BatchVersion } from "../rollouts.js";
import { formatScore, type Trailers } from "../trailers.js";
import type { LearningMaterial, RolloutRecord, Split, StepResult, StepStatus } from "../types.js";
import { addUsage, emptyUsage } from "../usage.js";
import { batchItems, instances, type RunContext } from "./context.js";
import { applyCommittedStep, ensureRolloutAdapter } from "./pointers.js";

export async function runStep(context: RunContext, step: number): Promise<StepRecord> {
  const started = performance.now();
  const { store, paths, settings, refs } = context;
  const dir = stepDir(paths, step);
  await mkdir(dir, { recursive: true });
  context.progress.stepStarted(step, settings.steps);
  const acceptedBefore = { ...context.accepted };
  await ensureRolloutAdapter(context);
  const accepted: BatchVersion = { tree: acceptedBefore.tree, dir: paths.rolloutAdapter };
  let usage = emptyUsage();
  const counts = { ran: 0, cached: 0 };
  const batch = async (version: BatchVersion, split: Split, role: string, label: string): Promise<BatchOutcome> => {
    const list = split === "train" ? sample(await instances(context, "train"), settings.batchSize, seededRandom(settings.seed, step)) : await instances(context, split);
    const items = batchItems(context, list, dir, split, role);
    context.progress.batchStarted(label, items.length);
    const outcome = await runBatch(version, split, items, step, {
      ...context.rollouts,
      onSettled: (_record, cached) => context.progress.rolloutSettled(cached),
    });
    context.progress.batchFinished();
    counts.ran += outcome.ran;
    counts.cached += outcome.cached;
    for (const record of outcome.fresh) usage = addUsage(usage, record.usage);
    return outcome;
  };

  // 1. The acting batch, with the accepted version.
  const acting = await batch(accepted, "train", "accepted", "acting");

  // 2. Learning material.
  const material = buildLearningMaterial({
    run: settings.runId!,
    step,
    task: context.task.name,
    accepted: { commit: acceptedBefore.commit, tree: acceptedBefore.tree, score: acceptedBefore.score },
    rollouts: acting.records,
    trainInstances: (await instances(context, "train")).length,
    history: context.steps,
    file: join(dir, "learning.json"),
  });
  await writeJson(material.file, material);

  // 3. The Evolver edits a fresh copy of the accepted version.
  await store.exportTree(acceptedBefore.tree, paths.candidate);
  await mkdir(paths.state, { recursive: true });
  let evolver = await runEvolver(context, step, material);
  usage = addUsage(usage, evolver.usage);
  // What the Evolver may only read is put back as recorded: a stray write to the template
  // root or to the accepted version must not change what candidates are checked against or
  // what the cache believes the accepted version scored.
  await store.exportTree(context.run.template.tree, paths.root);
  await ensureRolloutAdapter(context);
  await mkdir(paths.state, { recursive: true });
  if (!(await stat(paths.candidate).catch(() => undefined))?.isDirectory()) {
    if (evolver.status !== "threw" && evolver.status !== "failed") {
      evolver = { ...evolver, status: "failed", summary: `the Evolver removed its candidate directory workspace/adapter (${evolver.summary})` };
    }
    await store.exportTree(acceptedBefore.tree, paths.candidate);
  }
  await writeJson(join(dir, "evolver.json"), evolver);

  // 4. Check, repair, evaluate, decide.
  const raw = await store.writeDirectory(paths.candidate);
  let status: StepStatus | undefined =
    evolver.status === "threw" || evolver.status === "failed" ? "failed" : evolver.status === "stop" ? "stopped" : evolver.status === "skipped" ? "skipped" : undefined;
  let tree = raw.tree;
  let check: SpecResult | undefined;
  let repair: RepairRecord | undefined;
  let decision: Decision | undefined;
  if (status === undefined && raw.tree !== acceptedBefore.tree) {
    check = context.checkCache.get(raw.tree) ?? (await checkSpec(paths.candidate, paths.root, { manifestErrors: "issue" }));
    context.checkCache.set(raw.tree, check);
    await writeJson(join(dir, "check.json"), check);
    if (!check.passed) {
      repair = await repairCandidate(paths.candidate, paths.root, paths.rolloutAdapter);
      await writeJson(join(dir, "repair.json"), repair);
      if (repair.after.passed) tree = (await store.writeDirectory(paths.candidate)).tree;
      else status = "invalid";
    }
  }
  if (status === undefined) {
    const candidate: BatchVersion = { tree, dir: paths.candidate };
    // The accepted version's scores come from the cache after its first validation.
    const old = await batch(accepted, "val", "accepted", "validating accepted");
    const fresh = await batch(candidate, "val", "candidate", "validating candidate");
    decision = decide(fresh.records.map(scored), old.records.map(scored), settings);
    status = decision.status;
    if (decision.acceptedScore !== null) context.accepted.score = decision.acceptedScore;
  }

  // 5. Commit: the Evolver's state, the raw candidate when it was repaired, the step's candidate.
  const summary = stepSummary(status, evolver, decision, repair);
  const stateTree = (await store.writeDirectory(paths.state)).tree;
  const stateCommit = await store.commit({
    tree: stateTree,
    parents: context.stateCommit ? [context.stateCommit] : [],
    message: { subject: `state of evolver ${context.evolver.name} after step ${step}`, trailers: { "Hermit-Run": settings.runId, "Hermit-Step": String(step) } },
  });
  const base: Trailers = { "Hermit-Run": settings.runId, "Hermit-Step": String(step), "Hermit-Evolver": context.evolver.name };
  const repairText = repair ? describeRepair(repair) : undefined;
  let invalidCommit: string | undefined;
  if (repair && status !== "invalid") {
    invalidCommit = await store.commit({
      tree: raw.tree,
      parents: [acceptedBefore.commit],
      message: { subject: `step ${step}: repaired — the candidate as the Evolver left it`, body: evolver.summary, trailers: { ...base, "Hermit-Status": "repaired", "Hermit-Repair": repairText } },
    });
    await store.setRef(refs.invalid(step), invalidCommit);
  }
  const commitTree = status === "invalid" ? raw.tree : tree;
  const commit = await store.commit({
    tree: commitTree,
    parents: [acceptedBefore.commit],
    message: {
      subject: `step ${step}: ${status} — ${summary}`,
      body: evolver.summary !== summary ? evolver.summary : undefined,
      trailers: {
        ...base,
        "Hermit-Status": status,
        "Hermit-Score": formatScore(decision?.candidateScore),
        "Hermit-Accepted-Score": formatScore(decision?.acceptedScore ?? acceptedBefore.score),
        "Hermit-Repair": repairText,
        "Hermit-Repaired-From": invalidCommit,
        "Hermit-State": stateCommit,
      },
    },
  });
  const record: StepRecord = {
    step,
    status,
    summary,
    evolver,
    commit,
    tree: commitTree,
    ...(invalidCommit ? { invalidCommit } : {}),
    acceptedBefore: acceptedBefore.commit,
    acceptedAfter: status === "accepted" ? commit : acceptedBefore.commit,
    score: decision?.candidateScore ?? null,
    acceptedScore: decision?.acceptedScore ?? acceptedBefore.score,
    batchScore: material.batchScore,
    ...(decision ? { decision } : {}),
    ...(check ? { check } : {}),
    ...(repair ? { repair } : {}),
    rollouts: counts,
    usage,
    durationMs: Math.round(performance.now() - started),
  };
  await writeJson(join(dir, "step.json"), record);
  // The commit point: once this ref exists, the step is done and a resume starts after it.
  await store.setRef(refs.candidate(step), commit);
  await applyCommittedStep(context, record, stateCommit);
  const best = context.steps.reduce<number | null>((top, item) => (item.status === "accepted" && item.score !== null && (top === null || item.score > top) ? item.score : top), context.accepted.score);
  context.progress.stepFinished(step, status, record.score, best, summary);
  return record;
}

function scored(record: RolloutRecord) {
  return { instance: record.instance, trial: record.trial, score: record.score };
}

async function runEvolver(context: RunContext, step: number, material: LearningMaterial): Promise<EvolverOutcome> {
  const started = performance.now();
  const duration = () => Math.round(performance.now() - started);
  try {
    const result = (await context.evolver.step({
      run: context.settings.runId!,
      step,
      workspace: { adapter: context.paths.candidate, state: context.paths.state },
      root: context.paths.root,
      rolloutAdapter: context.paths.rolloutAdapter,
      learningMaterial: material,
      signal: context.signal,
      seed: context.settings.seed,
      options: context.settings.evolverOptions,
      log: (line) => context.progress.note(`${context.evolver.name}: ${line}`),
    })) as StepResult | undefined;
    const problem = resultProblem(result);
    if (problem) return { status: "failed", summary: `the Evolver returned an invalid result: ${problem}`, durationMs: duration() };
    const usage = cleanUsage(result!.usage);
    return { status: result!.status, summary: result!.summary.trim(), ...(usage ? { usage } : {}), durationMs: duration() };
  } catch (error) {
    context.signal.throwIfAborted();
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

function stepSummary(status: StepStatus, evolver: EvolverOutcome, decision: Decision | undefined, repair: RepairRecord | undefined): string {
  const first = evolver.summary.split("\n")[0] || "(no summary)";
  if (status === "invalid") return `${first} (invalid, repair failed: ${repair?.after.issues.map((i) => `${i.path}: ${i.problem}`).join("; ")})`;
  if (decision && status !== "accepted" && status !== "rejected") return `${first} (${decision.reason})`;
  return first;
}

/** One line: what the repair did. */
export function describeRepair(repair: RepairRecord): string {
  const actions = repair.actions.map((action) => {
    if (action.op === "restore") return `restore ${action.path} from ${action.from}`;
    if (action.op === "delete") return `delete ${action.path}`;
    if (action.op === "restore-sections") return `restore ${action.path} sections ${action.sections.join(", ")}`;
    return "reset to the previous accepted version";
  });
  return `${repair.before.length} issue${repair.before.length === 1 ? "" : "s"}: ${actions.join("; ")}${repair.after.passed ? "" : " (still invalid)"}`;
}
