/**
 * A step record from its commit alone (pure), for a step whose `step.json` a crash lost: the
 * commit's subject and `Hermit-*` trailers carry its status, scores and repair. Used by a resume
 * (which writes it back) and by the report (which only shows it). Marked `rebuilt`.
 */
import type { StepRecord } from "./records.js";
import type { CommitInfo } from "./store.js";
import { parseScore } from "./trailers.js";
import type { StepStatus } from "./types.js";
import { emptyUsage } from "./usage.js";

export function stepRecordFromCommit(step: number, info: CommitInfo, acceptedBefore: string): StepRecord {
  const trailers = info.message.trailers;
  const status = (trailers["Hermit-Status"] ?? "failed") as StepStatus;
  const summary = info.message.subject.replace(/^step \d+: \S+ — /, "");
  return {
    step,
    status,
    summary,
    evolver: { status: status === "failed" ? "failed" : "done", summary, durationMs: 0 },
    commit: info.oid,
    tree: info.tree,
    ...(trailers["Hermit-Repaired-From"] ? { invalidCommit: trailers["Hermit-Repaired-From"] } : {}),
    acceptedBefore,
    acceptedAfter: status === "accepted" ? info.oid : acceptedBefore,
    score: parseScore(trailers["Hermit-Score"]),
    acceptedScore: parseScore(trailers["Hermit-Accepted-Score"]),
    batchScore: null,
    rollouts: { ran: 0, cached: 0 },
    usage: emptyUsage(),
    durationMs: 0,
    rebuilt: true,
  };
}
