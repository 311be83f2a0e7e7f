/**
 * What `reflect` learns from the Trainer's history (pure): the outcome of each version it
 * proposed, which version was accepted at each step, and every version's validation scores
 * per instance — the input of the Pareto front.
 */
import type { HistoryEntry, LearningMaterial } from "../../train/types.js";
import type { Scores } from "./pareto.js";
import type { ReflectState } from "./state.js";

/** A history entry, with the per-instance validation scores the Trainer gives when it has them. */
export type HistoryWithScores = HistoryEntry & {
  validation?: { candidate?: Record<string, number>; accepted?: Record<string, number> };
};
export type History = HistoryWithScores[];

/**
 * Fold the history into the state: outcomes and commits of earlier proposals, the accepted
 * version of this step (registered with its files when reflect did not make it). Returns the
 * accepted version's program id.
 */
export function learnFromHistory(state: ReflectState, material: LearningMaterial, history: History, acceptedFiles: Record<string, string>): string {
  for (const program of state.programs) {
    if (program.step === undefined || program.outcome !== undefined) continue;
    const entry = history.find((item) => item.step === program.step);
    if (!entry) continue;
    program.outcome = entry.status;
    program.commit = entry.commit;
    if (material.repairs.some((repair) => repair.step === program.step)) program.repaired = true;
  }
  let accepted = state.programs.find((program) => program.commit === material.accepted.commit);
  if (!accepted) {
    accepted = { id: state.programs.length === 0 ? "base" : `accepted-${material.accepted.commit.slice(0, 10)}`, parents: [], files: acceptedFiles, changed: [], commit: material.accepted.commit };
    state.programs.push(accepted);
  }
  // What the Trainer accepted (after any repair) is what the scores belong to.
  accepted.files = acceptedFiles;
  delete accepted.repaired;
  state.acceptedAt[String(material.step)] = accepted.id;
  return accepted.id;
}

/** Validation scores per instance of every version reflect knows the text of. */
export function programScores(state: ReflectState, history: History): Scores {
  const known = new Map(state.programs.filter((program) => !program.repaired).map((program) => [program.id, program]));
  const scores = new Map<string, Map<string, number>>();
  const add = (id: string | undefined, values: Record<string, number> | undefined) => {
    if (!id || !values || !known.has(id)) return;
    const map = scores.get(id) ?? new Map<string, number>();
    for (const [instance, score] of Object.entries(values)) map.set(instance, score);
    scores.set(id, map);
  };
  for (const entry of history) {
    add(`step-${entry.step}`, entry.validation?.candidate);
    add(state.acceptedAt[String(entry.step)], entry.validation?.accepted);
  }
  return scores;
}

/** Lines for the prompt: how earlier rewrites of this component fared, and the last proposal not adopted. */
export function attemptNotes(state: ReflectState, history: History, componentKey: string): string[] {
  const notes: string[] = [];
  const tried = state.programs.filter((program) => program.step !== undefined && program.outcome !== undefined && program.changed.some((path) => componentKey === path || componentKey.endsWith(`:${path}`)));
  for (const program of tried.slice(-5)) {
    const entry = history.find((item) => item.step === program.step);
    const scores = entry && entry.score !== null ? ` (validation ${entry.score} against the accepted version's ${entry.acceptedScore ?? "unknown"})` : "";
    notes.push(`Step ${program.step} rewrote this file: ${program.outcome}${scores}.`);
  }
  const failure = state.lastFailure;
  if (failure) notes.push(`Step ${failure.step}'s proposal for ${failure.component} was not adopted: ${failure.reason}. Do not repeat that.`);
  return notes;
}
