/**
 * The speed goals, one row each: what is compared with what, the bound on the median ratio,
 * and which ratio the bound is on. `npm run bench` prints every row, measured or not.
 * Ratios are subject / baseline, measured in one run, paired and interleaved (bench/lib.ts).
 * A row without `max` is shown for context, not judged.
 */
export interface Goal {
  /** The row as people name it. */
  measure: string;
  /** The bound on the median per-pair ratio; undefined for a row judged otherwise (memory). */
  max?: number;
  /** Which ratio the bound is on: CPU time (steadier on a shared machine) or wall time. */
  on: "cpu" | "wall";
  /** The goal as printed. */
  text: string;
  /** The benchmark file that measures it. */
  bench: string;
}

export const GOALS = {
  "cold-deploy": {
    measure: "cold deploy, 200 skills, codex / a Node script writing the same files",
    max: 2,
    on: "cpu",
    text: "≤ 2×",
    bench: "deploy",
  },
  "noop-redeploy": {
    measure: "no-op redeploy / cold deploy",
    max: 0.3,
    on: "cpu",
    text: "≤ 0.3×, zero writes",
    bench: "deploy",
  },
  "existing-noop": {
    measure: "no-op redeploy into a user's repository (--existing) / cold --existing deploy",
    max: 0.3,
    on: "cpu",
    text: "≤ 0.3×, zero writes",
    bench: "deploy",
  },
  version: {
    measure: "`hermit --version` / `node -e 0` (CPU)",
    max: 1.2,
    on: "cpu",
    text: "≤ 1.2×",
    bench: "startup",
  },
  "check-spec": {
    measure: "`checkSpec` / reading every file",
    max: 2,
    on: "cpu",
    text: "≤ 2×",
    bench: "spec",
  },
  "check-spec-floor": {
    measure: "`checkSpec` / reading every file synchronously (the I/O floor)",
    on: "cpu",
    text: "no goal: shows the distance to the floor",
    bench: "spec",
  },
  "command-startup": {
    measure: "`hermit spec check --help` / `node -e 0` (CPU): a command's start-up",
    on: "cpu",
    text: "no goal: start-up of a command, not only --version",
    bench: "startup",
  },
  "trainer-step": {
    measure: "Trainer step (candidate changes: check, repair, validation) / `git add` + `git commit` of the same change",
    max: 1.5,
    on: "wall",
    text: "≤ 1.5×",
    bench: "train",
  },
  "trainer-step-report": {
    measure: "Trainer step as `hermit train` runs it (the run report refreshed after it) / `git add` + `git commit` of the same change",
    on: "wall",
    text: "no goal: the report's share of a step",
    bench: "train",
  },
  "learner-step": {
    measure: "one `reflect` step, the model answering at once (prompt building, the SDK client, parsing, recording) / one `noop` step on the same context",
    on: "wall",
    text: "no goal: the learner's overhead beyond the model call (printed in ms)",
    bench: "learner",
  },
  "serve-p50": {
    measure: "`hermit serve` p50 round trip / minimal SDK server",
    max: 1.2,
    on: "wall",
    text: "≤ 1.2×",
    bench: "serve",
  },
  "serve-python-p50": {
    measure: "`hermit serve` p50 round trip of the Python tool (tools.py:count_words) / of the TypeScript tool (tools.ts:countWords)",
    on: "wall",
    text: "no goal: what running the tool in Python costs",
    bench: "serve",
  },
  "report-200": {
    measure: "`hermit report` of a 200-step run / reading and parsing the run's files",
    max: 15,
    on: "cpu",
    text: "≤ 15×",
    bench: "report",
  },
  "report-refresh": {
    measure: "the Trainer's report refresh after a step of a 200-step run / reading and parsing the run's files",
    max: 5,
    on: "cpu",
    text: "≤ 5×",
    bench: "report",
  },
  "run-memory": {
    measure: "200-step run: memory",
    on: "wall",
    text: "flat (no growth per step: heap after GC < 16 KB per step)",
    bench: "train",
  },
  "queue-4-workers": {
    measure: "200 rollouts of 200 ms on 4 `hermit worker` processes × 4 through Redis: ideal time / measured time (scheduling efficiency)",
    on: "wall",
    text: "≥ 90%",
    bench: "queue",
  },
} satisfies Record<string, Goal>;

export type GoalId = keyof typeof GOALS;
