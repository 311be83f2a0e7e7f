/**
 * `defineEvolver` and `defineTask`: typed helpers for plugin modules that stamp the plugin API
 * version the plugin was built against. hermit loads a plugin only when that version's major
 * equals its own (`PLUGIN_API_VERSION`), so a plugin written for another contract is refused
 * with both versions named instead of failing deep inside a run.
 */
import type { Evolver, EvolverDefinition, PluginOptions, Task, TaskDefinition, TaskInstance } from "./types.js";

/** The plugin contract this hermit implements: `major.minor`. A minor adds only optional things. */
export const PLUGIN_API_VERSION = "1.0";

/** Declare an Evolver plugin; export it as the module's default (or as `evolver`). */
export function defineEvolver<Options extends PluginOptions = PluginOptions>(definition: EvolverDefinition<Options>): Evolver<Options> {
  return { ...definition, apiVersion: PLUGIN_API_VERSION };
}

/** Declare a Task plugin; export it as the module's default (or as `task`). */
export function defineTask<Instance extends TaskInstance = TaskInstance, Options extends PluginOptions = PluginOptions>(
  definition: TaskDefinition<Instance, Options>,
): Task<Instance, Options> {
  return { ...definition, apiVersion: PLUGIN_API_VERSION };
}

/** Why a plugin that declares `apiVersion` cannot run on this hermit, or undefined. */
export function apiVersionProblem(apiVersion: unknown): string | undefined {
  if (apiVersion === undefined) {
    return `has no 'apiVersion': declare it with defineEvolver / defineTask from "hermit/plugin" (which set it), or write apiVersion: "${PLUGIN_API_VERSION}"`;
  }
  if (typeof apiVersion !== "string" || !/^\d+\.\d+$/.test(apiVersion)) return `'apiVersion' must be a "major.minor" string such as "${PLUGIN_API_VERSION}", not ${JSON.stringify(apiVersion)}`;
  const major = (version: string) => version.split(".")[0];
  if (major(apiVersion) !== major(PLUGIN_API_VERSION)) {
    return `was built for hermit plugin API ${apiVersion}, but this hermit implements plugin API ${PLUGIN_API_VERSION} (the major versions must match; use a hermit for API ${major(apiVersion)}.x or rebuild the plugin)`;
  }
  return undefined;
}
