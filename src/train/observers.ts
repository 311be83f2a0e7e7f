/**
 * The Trainer's observer seam: what a layer above it (the run report, a library caller's own
 * dashboard) hears while a run goes — the run opened, a step committed, the run ended — without
 * the Trainer knowing who listens. An observer is awaited (so what it writes after a step is
 * there before the next step starts), and an observer that throws never stops the run: its
 * error becomes a progress note.
 */
import { errorMessage } from "../errors.js";
import type { Progress } from "./progress.js";
import type { RunRecord, StepRecord } from "./records.js";
import type { VersionStore } from "./store.js";

/** The run an observer is told about. */
export interface ObservedRun {
  /** The runs folder (absolute) and the run's id and directory in it. */
  runsDir: string;
  runId: string;
  dir: string;
  /** The run's version store, open for the whole run (read from it; never write). */
  store: VersionStore;
}

/** How a run ended, as `runFinished` hears it. */
export interface RunEnding {
  /** `run.json` as last written. */
  record: RunRecord;
  /** The run stopped on an interruption (Ctrl-C, the signal) and can be resumed. */
  interrupted: boolean;
  /** What failed, when the run ended on an error. */
  error?: string;
}

export interface TrainObservers {
  /** The run is open: `run.json` is written, no step of this process has run yet. */
  runOpened?(run: ObservedRun, record: RunRecord): void | Promise<void>;
  /** A step committed: its record is in `steps/<n>/step.json` and the run's pointers moved. */
  stepCommitted?(run: ObservedRun, step: StepRecord, record: RunRecord): void | Promise<void>;
  /** The run ended: finished (tested, tagged, deployed), failed or interrupted. */
  runFinished?(run: ObservedRun, ending: RunEnding): void | Promise<void>;
}

type Event = keyof TrainObservers;

/** Several observers as one: each is told in turn, in the order given, even when one before it threw. */
export function combineObservers(...observers: Array<TrainObservers | undefined>): TrainObservers {
  const present = observers.filter((observer): observer is TrainObservers => observer !== undefined);
  const each =
    <E extends Event>(event: E) =>
    async (...args: Parameters<NonNullable<TrainObservers[E]>>) => {
      const errors: string[] = [];
      for (const observer of present) {
        try {
          await (observer[event] as ((...given: typeof args) => unknown) | undefined)?.(...args);
        } catch (error) {
          errors.push(errorMessage(error));
        }
      }
      if (errors.length > 0) throw new Error(errors.join("; "));
    };
  return { runOpened: each("runOpened"), stepCommitted: each("stepCommitted"), runFinished: each("runFinished") };
}

/**
 * The Trainer's side: tell the observers, one event at a time; an observer's error becomes a
 * progress note and the run goes on.
 */
export function notifier(observers: TrainObservers | undefined, run: ObservedRun, progress: Progress) {
  const tell = async (event: Event, call: () => unknown) => {
    try {
      await call();
    } catch (error) {
      progress.note(`a run observer failed on ${event} (the run goes on): ${errorMessage(error)}`);
    }
  };
  return {
    runOpened: (record: RunRecord) => tell("runOpened", () => observers?.runOpened?.(run, record)),
    stepCommitted: (step: StepRecord, record: RunRecord) => tell("stepCommitted", () => observers?.stepCommitted?.(run, step, record)),
    runFinished: (ending: RunEnding) => tell("runFinished", () => observers?.runFinished?.(run, ending)),
  };
}

export type RunNotifier = ReturnType<typeof notifier>;
