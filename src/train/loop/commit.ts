/**
 * Commit: the Evolver's state, the raw candidate when it was repaired (ref
 * `…/invalid/step-<n>`), then the step's candidate with its status in trailers, `step.json`, and
 * the candidate ref — the step's commit point: once it exists, a resume starts after this step.
 */
import { join } from "node:path";
import { writeJson } from "../../fs/json.js";
import type { StepRecord } from "../records.js";
import { baseTrailers, committedTree, stepRecord, stepTrailers, type StepOutcome } from "./step-record.js";
import { describeRepair } from "./decisions.js";
import type { RunEnvironment, RunState } from "./run-state.js";

export interface CommittedStep {
  record: StepRecord;
  stateCommit: string;
}

export async function commitStep(env: RunEnvironment, state: RunState, outcome: StepOutcome, stepDir: string): Promise<CommittedStep> {
  const { store, paths, refs } = env;
  const stateCommit = await store.commit({
    tree: (await store.writeDirectory(paths.state)).tree,
    parents: state.stateCommit ? [state.stateCommit] : [],
    message: { subject: `state of evolver ${outcome.evolverName} after step ${outcome.step}`, trailers: { "Hermit-Run": outcome.run, "Hermit-Step": String(outcome.step) } },
  });
  let invalidCommit: string | undefined;
  const repair = outcome.vetted.repair;
  if (repair && outcome.status !== "invalid") {
    invalidCommit = await store.commit({
      tree: outcome.vetted.raw,
      parents: [outcome.accepted.commit],
      message: {
        subject: `step ${outcome.step}: repaired — the candidate as the Evolver left it`,
        body: outcome.evolver.summary,
        trailers: { ...baseTrailers(outcome), "Hermit-Status": "repaired", "Hermit-Repair": describeRepair(repair) },
      },
    });
    await store.setRef(refs.invalid(outcome.step), invalidCommit);
  }
  const commit = await store.commit({
    tree: committedTree(outcome),
    parents: [outcome.accepted.commit],
    message: {
      subject: `step ${outcome.step}: ${outcome.status} — ${outcome.summary}`,
      body: outcome.evolver.summary !== outcome.summary ? outcome.evolver.summary : undefined,
      trailers: stepTrailers(outcome, { invalidCommit, stateCommit }),
    },
  });
  const record = stepRecord(outcome, commit, invalidCommit);
  await writeJson(join(stepDir, "step.json"), record);
  // The commit point.
  await store.setRef(refs.candidate(outcome.step), commit);
  return { record, stateCommit };
}
