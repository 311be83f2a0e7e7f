/**
 * The run report as a Trainer observer: `runs/<id>/report.html` written when a run opens,
 * rewritten (atomically, reusing what the previous refresh read) after every committed step and
 * once more when the run ends — so a page kept open during a long run follows it, and a run
 * killed at any moment leaves a whole page of its committed steps. The CLI and the library's
 * `train` wire it in (src/builtins.ts); the Trainer knows it only as an observer.
 */
import type { TrainObservers } from "../train/observers.js";
import { RunReporter } from "./write.js";

export function reportObserver(): TrainObservers {
  let reporter: RunReporter | undefined;
  const refresh = async () => {
    const problem = await reporter?.refresh();
    if (problem) throw new Error(problem);
  };
  return {
    async runOpened(run) {
      reporter = new RunReporter(run.runsDir, run.runId, run.store);
      await refresh();
    },
    stepCommitted: refresh,
    runFinished: refresh,
  };
}
