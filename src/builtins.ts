/**
 * hermit's built-in plugins — the Tasks and Evolvers `--task` and `--evolver` take by name — and
 * the executors `--executor` takes by URL scheme, and the Trainer bound to them, as the library
 * and the CLI offer it. The Trainer itself (`src/train/`) knows no plugin: it is handed this
 * catalog.
 */
import { builtinEvolvers } from "./evolvers/index.js";
import { builtinExecutors } from "./executors/index.js";
import { reportObserver } from "./report/observer.js";
import { builtinTasks } from "./tasks/index.js";
import { combineObservers } from "./train/observers.js";
import type { PluginCatalog } from "./train/plugins.js";
import { train as runTraining, type TrainOptions, type TrainResult } from "./train/loop/trainer.js";
import { planTraining, type TrainPlan } from "./train/loop/plan.js";

export const builtinPlugins: PluginCatalog = { task: builtinTasks, evolver: builtinEvolvers, executor: builtinExecutors };

/**
 * Train an adapter (docs/trainer.md): open or resume a run, step within the budgets, finish with
 * the sealed test, the card, the final tag and optional deploys. `task` and `evolver` take a
 * built-in name, a module path, a package name or a plugin object. The run's `report.html`
 * (docs/report.md) is written when the run opens and refreshed after every step and at the end,
 * before the caller's own `observers` are told.
 */
export function train(options: TrainOptions): Promise<TrainResult> {
  return runTraining({ ...options, observers: combineObservers(reportObserver(), options.observers) }, builtinPlugins);
}

/** `train --dry-run`: every input checked, the plan and what can be estimated; nothing written or run. */
export function planTrain(options: TrainOptions): Promise<TrainPlan> {
  return planTraining(options, builtinPlugins);
}
