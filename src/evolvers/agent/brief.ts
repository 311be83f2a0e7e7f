/**
 * The brief the learner host gets as its prompt (and as `learning/BRIEF.md`): what the
 * directory is, where the learning material is, the learnable paths and their limits from the
 * template's specification, what it must not touch, and what "done" means. Pure; the same for
 * every host.
 */
import type { LearnableRule, Manifest } from "../../adapter/types.js";

export interface BriefInput {
  manifest: Manifest;
  /** The run's task name. */
  task: string;
  step: number;
  /** True when the candidate or the template has an `EVOLVER.md`. */
  guide: boolean;
}

function limitsOf(rule: LearnableRule): string {
  const limits = [
    rule.format ? `format ${rule.format}` : undefined,
    rule.max_files !== undefined ? `at most ${rule.max_files} files` : undefined,
    rule.max_bytes !== undefined ? `at most ${rule.max_bytes} bytes each` : undefined,
  ].filter(Boolean);
  return limits.length > 0 ? ` (${limits.join(", ")})` : "";
}

export function buildBrief(input: BriefInput): string {
  const learnable = input.manifest.structure?.learnable ?? [];
  const fixed = input.manifest.structure?.fixed ?? [];
  const lines = [
    `You are improving an adapter for AI coding agents (step ${input.step} of a training run on the task "${input.task}").`,
    "The files in the current directory are the adapter: the instructions, skills and subagents an agent gets.",
    "",
    "Read first:",
    "- learning/summary.md: the score of each rollout of the current version, and the version's validation score;",
    "- learning/rollouts/: one folder per rollout with its score, feedback and evidence (what the agent did);",
    "- learning/repairs.md: what the previous candidate broke in the specification, and how it was repaired;",
    "- learning/history.md: what earlier steps changed and how they were judged;",
    ...(input.guide ? ["- EVOLVER.md: the adapter author's guidance for you."] : []),
    "",
    "Then change the adapter so that agents using it do better on the failing rollouts. You may change only these paths:",
    ...learnable.map((rule) => `- ${rule.path}${limitsOf(rule)}`),
    ...(fixed.length > 0 ? ["", `Do not change: ${fixed.join(", ")}.`] : []),
    "Anything you write outside the learnable paths (including under learning/) is ignored and reported.",
    "",
    "Edit the files in place with your own tools; prefer one focused change that addresses what the failures have in common.",
    "When you are done, reply with one or two sentences: what you changed and why. If nothing is worth changing, change nothing and say why.",
  ];
  return `${lines.join("\n")}\n`;
}
