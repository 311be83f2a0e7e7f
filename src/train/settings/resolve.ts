/**
 * Resolving a run's settings (pure): layers of raw values — a config file, then the command line
 * or a `train()` call — over the table's defaults. Each value is parsed with the base of the
 * layer that gave it, and a bad value is reported where it was given: `--steps: …` for a flag,
 * `train.yaml: 'steps' …` for a config key, `train options: 'steps' …` for a library option.
 */
import { HermitError } from "../../errors.js";
import { didYouMean } from "../../suggest.js";
import { configKey, flagName, type Setting } from "./define.js";
import { SettingProblem, type Kind, type KnownNames } from "./kinds.js";
import { resolvePluginOptions, type OptionsLayer, type OptionsOwner } from "./plugin-options.js";
import { SETTING_ALIASES, SETTINGS, type SettingName, type TrainSettings } from "./table.js";

/** Where a layer's values came from. `file` is the config file as the user named it. */
export type SettingsSource = { kind: "flags" } | { kind: "options" } | { kind: "file"; file: string };

/** One layer of raw settings, keyed by setting name. */
export interface SettingsLayer {
  source: SettingsSource;
  /** Relative paths in this layer are relative to this directory. */
  base: string;
  values: Partial<Record<SettingName, unknown>>;
  /** A plugin option set through an alias, by `<setting>.<option>`: how it was spelled (`--pool`, `pool`). */
  spelled?: Record<string, string>;
}

/** The loaded plugins, whose option schemas check `taskOptions` and `evolverOptions`. */
export interface PluginSchemas {
  task?: OptionsOwner;
  evolver?: OptionsOwner;
}

const table = SETTINGS as Record<SettingName, Setting>;
const names = Object.keys(SETTINGS) as SettingName[];
const pluginOf: Partial<Record<SettingName, keyof PluginSchemas>> = { taskOptions: "task", evolverOptions: "evolver" };

/** `text` about setting `name` (or one of its plugin options), naming where the value was given. */
export function located(source: SettingsSource, name: SettingName, text: string, option?: string, spelled?: string): string {
  const setting = table[name];
  if (source.kind === "flags") return `${spelled ?? `--${flagName(name, setting)}${option ? ` ${option}` : ""}`}: ${text}`;
  const key = spelled ?? (option ? configKey(name, setting).replace(/\*$/, option) : configKey(name, setting));
  if (source.kind === "file") return `${source.file}: '${key}' ${text}`;
  return `train options: '${option ? `${name}.${option}` : name}' ${text}`;
}

function usage(message: string, data: Record<string, unknown> = {}): HermitError {
  return new HermitError("USAGE", message, data);
}

/** Parse one setting from the last layer that gives it (or undefined when none does). */
export function resolveOne(layers: SettingsLayer[], name: SettingName, known: KnownNames = {}): unknown {
  const layer = [...layers].reverse().find((candidate) => candidate.values[name] !== undefined && candidate.values[name] !== null);
  if (!layer) return undefined;
  try {
    return (table[name].kind as Kind<unknown>).parse(layer.values[name], layer.base, known);
  } catch (error) {
    if (!(error instanceof SettingProblem)) throw error;
    throw usage(located(layer.source, name, error.message), { setting: name, ...(layer.source.kind === "file" ? { path: layer.source.file } : {}) });
  }
}

/** Aliases a caller passes by their flag's name in camelCase (`pool`). */
const aliasByField = new Map(SETTING_ALIASES.filter((alias) => alias.flag).map((alias) => [alias.flag!.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()), alias]));

/**
 * A `train()` call's settings as layers: what an alias sets (`pool`) first, so the setting it
 * stands for, given too, wins. The command line hands its flags over the same way, as `flags`.
 */
export function inputLayers(input: Record<string, unknown>, kind: "flags" | "options", base: string): SettingsLayer[] {
  const main: SettingsLayer = { source: { kind }, base, values: {} };
  const viaAlias: SettingsLayer = { source: { kind }, base, values: {}, spelled: {} };
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    const alias = aliasByField.get(key);
    if (alias?.option) {
      viaAlias.values[alias.setting] = { ...(viaAlias.values[alias.setting] as object | undefined), [alias.option]: value };
      viaAlias.spelled![`${alias.setting}.${alias.option}`] = kind === "flags" ? `--${alias.flag}` : key;
    } else if (key in SETTINGS) main.values[key as SettingName] = value;
    else unknown.push(key);
  }
  if (unknown.length > 0) {
    throw usage(`train options: unknown setting${unknown.length > 1 ? "s" : ""} ${unknown.map((key) => `'${key}'`).join(", ")}${didYouMean(unknown[0]!, names)}`);
  }
  return [viaAlias, main];
}

function pluginOptionLayers(layers: SettingsLayer[], name: SettingName, known: KnownNames): OptionsLayer[] {
  return layers.flatMap((layer) => {
    const raw = layer.values[name];
    if (raw === undefined || raw === null) return [];
    let values: Record<string, unknown>;
    try {
      values = (table[name].kind as Kind<Record<string, unknown>>).parse(raw, layer.base, known);
    } catch (error) {
      if (!(error instanceof SettingProblem)) throw error;
      throw usage(located(layer.source, name, error.message), { setting: name });
    }
    return [{ values, base: layer.base, problem: (option, text) => located(layer.source, name, text, option, layer.spelled?.[`${name}.${option}`]) }];
  });
}

export interface ResolveContext {
  /** The working directory: defaults that are paths are relative to it. */
  cwd: string;
  /** The loaded plugins; without them plugin options are merged but not checked. */
  plugins?: PluginSchemas;
  /** Values already resolved (a resumed run's record): layers override them, defaults fill the rest. */
  start?: Partial<TrainSettings>;
  /** Names values are checked against (the host ids `deploy` takes). */
  known?: KnownNames;
}

/** Validate and resolve the layers (later layers win) into a run's settings. */
export function resolveSettings(layers: SettingsLayer[], context: ResolveContext): TrainSettings {
  const settings: Record<string, unknown> = { ...context.start };
  for (const name of names) {
    const setting = table[name];
    const plugin = pluginOf[name];
    if (plugin) {
      const start: OptionsLayer[] = settings[name] ? [{ values: settings[name] as Record<string, unknown>, base: context.cwd, problem: (option, text) => `${name}.${option} ${text}` }] : [];
      const owner = context.plugins?.[plugin];
      const options = pluginOptionLayers(layers, name, context.known ?? {});
      settings[name] = owner ? resolvePluginOptions(owner, [...start, ...options]) : Object.assign({}, ...[...start, ...options].map((layer) => layer.values));
      continue;
    }
    const value = resolveOne(layers, name, context.known) ?? settings[name];
    if (value !== undefined) settings[name] = value;
    else if (typeof setting.default === "function") settings[name] = setting.default(settings, context.cwd);
    else if (setting.default !== undefined) settings[name] = structuredClone(setting.default);
    else if (setting.required) throw usage(`'${configKey(name, setting)}' is required: give --${flagName(name, setting)}, or '${configKey(name, setting)}' in the config file`, { setting: name });
  }
  if (settings.adapter === undefined && settings.from === undefined) {
    throw usage("'adapter' is required (or 'from', a version in the store): give --adapter DIR or --from REF, or either in the config file", { setting: "adapter" });
  }
  return settings as unknown as TrainSettings;
}

/** Which settings the layers give. */
export function givenNames(layers: SettingsLayer[]): SettingName[] {
  return names.filter((name) => layers.some((layer) => layer.values[name] !== undefined && layer.values[name] !== null));
}

/**
 * The settings of a resumed run: the recorded ones, with what the layers give. A setting that may
 * change on resume takes the new value; any other may be given only with its recorded value (the
 * same command re-run with `--resume`), else it is a usage error naming it.
 */
export function resumeSettings(recorded: TrainSettings, layers: SettingsLayer[], context: ResolveContext): TrainSettings {
  const next = resolveSettings(layers, { ...context, start: recorded });
  const changed = givenNames(layers).filter((name) => !table[name].resumable && JSON.stringify(next[name]) !== JSON.stringify(recorded[name]));
  if (changed.length > 0) {
    const layer = [...layers].reverse().find((candidate) => candidate.values[changed[0]!] !== undefined)!;
    const resumable = names.filter((name) => table[name].resumable).map((name) => configKey(name, table[name]));
    throw usage(
      located(layer.source, changed[0]!, `cannot change when resuming (recorded: ${JSON.stringify(recorded[changed[0]!])}); only ${resumable.join(", ")} may change`),
      { settings: changed },
    );
  }
  return next;
}
