/**
 * Before the first step: settings from their layers, the plugins they name (with their options
 * checked), the task's splits, then a new run created or a recorded one reopened. Bad input of
 * any kind is refused here, before anything is written.
 */
import { readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import type { ActorSettings } from "../../acting/act.js";
import { HermitError, errorMessage, isHermitError } from "../../errors.js";
import { checkLearnerHost, resolveActor } from "../actor.js";
import { HOST_IDS } from "../../hosts/index.js";
import { checkedPlugin, loadEvolver, loadTask, pluginSource, type PluginCatalog, type PluginKind } from "../plugins.js";
import type { Progress } from "../progress.js";
import { readRunConfig } from "../settings/config-file.js";
import { inputLayers, resolveOne, resolveSettings, resumeSettings, type PluginSchemas, type SettingsLayer } from "../settings/resolve.js";
import type { TrainSettings } from "../settings/table.js";
import { taskIdentity } from "../rollouts/key.js";
import type { Evolver, Split, Task, TaskInstance } from "../types.js";
import { resolveLearner, type RunLearner } from "../learner.js";
import { createRun, type OpenedRun } from "./create-run.js";
import { checkExportDir } from "./deliver.js";
import { loadInstances } from "./instances.js";
import { reopenRun } from "./reopen-run.js";

/** The settings and plugin objects a caller gives (`TrainOptions` without run control). */
export interface OpenInput {
  settings: Record<string, unknown>;
  task?: Task;
  evolver?: Evolver;
  config?: string;
  resume?: string;
  cwd: string;
  source: "flags" | "options";
}

export interface OpenedTraining {
  opened: OpenedRun;
  task: Task;
  evolver: Evolver;
  /** Every split, loaded and checked once. */
  instances: Record<Split, TaskInstance[]>;
  /** The task's identity in every rollout's cache key. */
  taskIdentity: string;
  /** The host tasks act through (`ctx.act`), when the run names one. */
  actor?: ActorSettings;
  /** The learner model (`--learner-model`), resolved against the environment. */
  learner?: RunLearner;
}

type Plugins = { task: Task; evolver: Evolver };

/** Settings layers: the config file (when given), then the caller's values. */
async function settingsLayers(input: OpenInput): Promise<SettingsLayer[]> {
  const values = { ...input.settings };
  if (input.task) values.task = `object:${input.task.name}`;
  if (input.evolver) values.evolver = `object:${input.evolver.name}`;
  const config = input.config ? [await readRunConfig(input.config, input.cwd)] : [];
  return [...config, ...inputLayers(values, input.source, input.cwd)];
}

export async function openTraining(input: OpenInput, catalog: PluginCatalog, progress: Progress): Promise<OpenedTraining> {
  const layers = await settingsLayers(input);
  const objects = { task: input.task, evolver: input.evolver };
  if (input.resume) {
    const runsDir = (resolveOne(layers, "runsDir") as string | undefined) ?? join(input.cwd, "runs");
    // Where the run is found is not a setting to compare with the record.
    const overrides = layers.map((layer) => ({ ...layer, values: { ...layer.values, runsDir: undefined } }));
    let plugins: Plugins | undefined;
    let prepared: Omit<OpenedTraining, "opened"> | undefined;
    const opened = await reopenRun(runsDir, input.resume, async (recorded) => {
      plugins = await openPlugins(recorded, objects, input.cwd, catalog);
      const settings = resumeSettings(recorded, overrides, { cwd: input.cwd, plugins: schemas(plugins), known: { hosts: HOST_IDS } });
      prepared = await preparePlugins(plugins, settings);
      return settings;
    });
    progress.note(`resuming run ${opened.state.run.run} after step ${opened.state.run.lastStep}`);
    return { opened, ...prepared! };
  }
  const { settings, prepared } = await prepareNewRun(input, catalog, layers);
  const opened = await createRun(settings, { task: describe(settings.task, prepared.task), evolver: describe(settings.evolver, prepared.evolver) });
  progress.note(`run ${opened.state.run.run} in ${opened.paths.dir}`);
  return { opened, ...prepared };
}

/**
 * A new run's settings and plugins, every input checked (options, splits, the learner's key and
 * price), with nothing written: what `openTraining` starts from, and what `--dry-run` plans.
 */
export async function prepareNewRun(input: OpenInput, catalog: PluginCatalog, given?: SettingsLayer[]): Promise<{ settings: TrainSettings; prepared: Omit<OpenedTraining, "opened"> }> {
  const layers = given ?? (await settingsLayers(input));
  const specifiers = { task: resolveOne(layers, "task"), evolver: resolveOne(layers, "evolver") } as Partial<TrainSettings>;
  const plugins = await openPlugins(specifiers, { task: input.task, evolver: input.evolver }, input.cwd, catalog);
  const settings = resolveSettings(layers, { cwd: input.cwd, plugins: schemas(plugins), known: { hosts: HOST_IDS } });
  return { settings, prepared: await preparePlugins(plugins, settings) };
}

async function openPlugins(
  specifiers: Partial<Pick<TrainSettings, "task" | "evolver">>,
  objects: { task?: Task; evolver?: Evolver },
  cwd: string,
  catalog: PluginCatalog,
): Promise<Plugins> {
  const task = (await plugin("task", specifiers.task, objects.task, cwd, catalog)) as Task;
  const evolver = (await plugin("evolver", specifiers.evolver, objects.evolver, cwd, catalog)) as Evolver;
  return { task, evolver };
}

async function plugin(kind: PluginKind, specifier: string | undefined, object: Task | Evolver | undefined, cwd: string, catalog: PluginCatalog): Promise<Task | Evolver> {
  if (specifier === undefined) throw new HermitError("USAGE", `'${kind}' is required: give --${kind}, or '${kind}' in the config file`, { setting: kind });
  if (specifier.startsWith("object:")) {
    if (!object) throw new HermitError("USAGE", `this run's ${kind} was given as an object (${specifier.slice(7)}); pass the same ${kind} object to resume it`);
    return checkedPlugin(kind, object, `${kind} object`) as Task | Evolver;
  }
  return kind === "task" ? loadTask(specifier, { base: cwd, catalog }) : loadEvolver(specifier, { base: cwd, catalog });
}

/** Resolve the actor, let each plugin refuse its options, load and check the task's splits, check the export folder: all before anything is written. */
async function preparePlugins(plugins: Plugins, settings: TrainSettings): Promise<Omit<OpenedTraining, "opened">> {
  const { task, evolver } = plugins;
  const actor = resolveActor(settings);
  if (task.acts === true && !actor) {
    throw new HermitError("USAGE", `task '${task.name}' acts through a host: give --actor-host and --actor-model (actor.host, actor.model in run.yaml; docs/acting.md)`, { setting: "actor-host" });
  }
  // The learner's key and price are checked before any rollout runs.
  const learner = resolveLearner(settings, process.env);
  checkLearnerHost(settings, learner?.model);
  if (!learner && evolver.model === "required") {
    throw new HermitError("USAGE", `evolver '${evolver.name}' calls a learner model: give --learner-model provider:model-id (or learner: { model: … } in the config; see docs/models.md)`, {
      setting: "learner-model",
    });
  }
  for (const [kind, item, options] of [["task", task, settings.taskOptions], ["evolver", evolver, settings.evolverOptions]] as const) {
    try {
      await item.validate?.(options);
    } catch (error) {
      if (isHermitError(error)) throw error;
      throw new HermitError("USAGE", `${kind} '${item.name}' refused its options: ${errorMessage(error)}`, { [kind]: item.name });
    }
  }
  const context = { options: settings.taskOptions, seed: settings.seed };
  const instances = { train: await loadInstances(task, "train", context), val: await loadInstances(task, "val", context), test: await loadInstances(task, "test", context) };
  if (instances.train.length === 0) throw new HermitError("PLUGIN_INVALID", `task '${task.name}': the train split is empty`);
  if (instances.val.length === 0 && settings.accept === "improve") {
    throw new HermitError("PLUGIN_INVALID", `task '${task.name}': the val split is empty, so no candidate can be shown to improve (use --accept always, or add val instances)`);
  }
  if (settings.export !== undefined) await checkExportDir(settings.export);
  const source = pluginSource(task);
  const module = source ? await readFile(source) : undefined;
  return { task, evolver, instances, taskIdentity: taskIdentity(task, module, settings.taskOptions), ...(actor ? { actor } : {}), ...(learner ? { learner } : {}) };
}

/** The plugins' option schemas, for checking the options given to them. */
function schemas({ task, evolver }: { task: Task; evolver: Evolver }): PluginSchemas {
  return { task: { kind: "task", name: task.name, options: task.options }, evolver: { kind: "evolver", name: evolver.name, options: evolver.options } };
}

/** How the card names a plugin: its name, and the module's file name when it came from a path (never the machine's path). */
function describe(specifier: string, plugin: { name: string }): string {
  if (specifier.startsWith("object:") || specifier === plugin.name) return plugin.name;
  return `${plugin.name} (${specifier.startsWith("/") ? basename(specifier) : specifier})`;
}
