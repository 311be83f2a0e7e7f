/**
 * What a step records (pure): its `step.json` and the trailers of its commits. Built from the
 * outcomes of the step's stages; the commit stage writes them.
 */
import type { Decision } from "../acceptance.js";
import type { EvolverOutcome, StepRecord } from "../records.js";
import type { BatchOutcome } from "../rollouts/batch.js";
import { formatScore, type Trailers } from "../trailers.js";
import type { StepStatus } from "../types.js";
import { addAdapterUse, emptyAdapterUse } from "../adapter-use.js";
import { evolverUsage } from "../learner.js";
import { addUsage, emptyUsage, mergeUsage } from "../usage.js";
import { describeRepair } from "./decisions.js";
import type { AcceptedVersion } from "./run-state.js";
import type { VettedCandidate } from "./vet.js";

/** Everything a step found out, before it is committed. */
export interface StepOutcome {
  step: number;
  run: string;
  evolverName: string;
  accepted: AcceptedVersion;
  evolver: EvolverOutcome;
  vetted: VettedCandidate;
  status: StepStatus;
  summary: string;
  decision?: Decision;
  validation?: StepRecord["validation"];
  screening?: StepRecord["screening"];
  batchScore: number | null;
  /** Every batch the step ran (acting, validation). */
  batches: BatchOutcome[];
  durationMs: number;
}

/** The trailers every commit of the step carries. */
export function baseTrailers(outcome: StepOutcome): Trailers {
  return { "Hermit-Run": outcome.run, "Hermit-Step": String(outcome.step), "Hermit-Evolver": outcome.evolverName };
}

/** The step commit's trailers: status, scores, repair, the raw candidate and the Evolver's state. */
export function stepTrailers(outcome: StepOutcome, links: { invalidCommit?: string; stateCommit: string }): Trailers {
  return {
    ...baseTrailers(outcome),
    "Hermit-Status": outcome.status,
    "Hermit-Score": formatScore(outcome.decision?.candidateScore),
    "Hermit-Accepted-Score": formatScore(outcome.decision?.acceptedScore ?? outcome.accepted.score),
    "Hermit-Repair": outcome.vetted.repair ? describeRepair(outcome.vetted.repair) : undefined,
    "Hermit-Repaired-From": links.invalidCommit,
    "Hermit-State": links.stateCommit,
  };
}

/** The tree the step's commit records: the raw candidate when the repair failed, else the one evaluated. */
export function committedTree(outcome: StepOutcome): string {
  return outcome.status === "invalid" ? outcome.vetted.raw : outcome.vetted.tree;
}

/** `steps/<n>/step.json`. */
export function stepRecord(outcome: StepOutcome, commit: string, invalidCommit: string | undefined): StepRecord {
  const { vetted, decision } = outcome;
  const fresh = outcome.batches.flatMap((batch) => batch.fresh);
  return {
    step: outcome.step,
    status: outcome.status,
    summary: outcome.summary,
    evolver: outcome.evolver,
    commit,
    tree: committedTree(outcome),
    ...(invalidCommit ? { invalidCommit } : {}),
    acceptedBefore: outcome.accepted.commit,
    acceptedAfter: outcome.status === "accepted" ? commit : outcome.accepted.commit,
    score: decision?.candidateScore ?? null,
    acceptedScore: decision?.acceptedScore ?? outcome.accepted.score,
    batchScore: outcome.batchScore,
    ...(decision ? { decision } : {}),
    ...(outcome.validation ? { validation: outcome.validation } : {}),
    ...(outcome.screening ? { screening: outcome.screening } : {}),
    ...(vetted.check ? { check: vetted.check } : {}),
    ...(vetted.repair ? { repair: vetted.repair } : {}),
    rollouts: { ran: fresh.length, cached: outcome.batches.reduce((sum, batch) => sum + batch.cached, 0) },
    ...(fresh.some((record) => record.adapterUse) ? { adapterUse: fresh.reduce((sum, record) => addAdapterUse(sum, record.adapterUse), emptyAdapterUse()) } : {}),
    usage: mergeUsage(fresh.reduce((sum, record) => addUsage(sum, record.usage), emptyUsage()), evolverUsage(outcome.evolver)),
    durationMs: outcome.durationMs,
  };
}
