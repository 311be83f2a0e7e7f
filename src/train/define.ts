/** `defineEvolver` and `defineTask`: typed identity helpers for plugin modules. */
import type { Evolver, Task } from "./types.js";

/** Declare an Evolver plugin; export it as the module's default (or as `evolver`). */
export function defineEvolver<T extends Evolver>(evolver: T): T {
  return evolver;
}

/** Declare a Task plugin; export it as the module's default (or as `task`). */
export function defineTask<T extends Task>(task: T): T {
  return task;
}
