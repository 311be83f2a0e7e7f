/**
 * How one training setting is declared (`table.ts` holds them all), and the types derived from
 * the table: `TrainSettings` (what a run records) and `SettingsInput` (what a caller may give).
 */
import type { Kind } from "./kinds.js";

/** Headings that group the settings in `--help` and in the docs, in this order. */
export const SETTING_GROUPS = {
  inputs: "What to train",
  plugins: "Task and Evolver",
  learner: "Learner model",
  run: "The run",
  acting: "Acting through a host",
  acceptance: "Acceptance",
  budgets: "Budgets",
  output: "At the end",
} as const;
export type SettingGroup = keyof typeof SETTING_GROUPS;

/** A setting's declaration. `Presence` says whether a resolved run always has a value for it. */
export interface Setting<Value = unknown, Presence extends "always" | "optional" = "always" | "optional", Input = unknown> {
  kind: Kind<Value, Input>;
  /** One line for `--help` and the docs table. */
  help: string;
  group: SettingGroup;
  /** May change when a run is resumed (budgets, parallelism, what happens at the end). */
  resumable: boolean;
  /**
   * The key in `run.yaml`: kebab-case at the top level (`rollout-timeout`), `section.key` inside a
   * section (`learner.base_url`, given as `learner: { base_url: … }`). Default: the field name in
   * kebab-case. `section.*` collects a plugin's options: every other key of that section.
   */
  key?: string;
  /** The flag without `--`. Default: the config key with `.` and `_` turned into `-`. */
  flag?: string;
  /** The flag's value placeholder, when the kind's is not telling (`--adapter <dir>`). */
  placeholder?: string;
  /**
   * The value when none is given; a function of the settings resolved before it (in table
   * order) and the working directory when it depends on them.
   */
  default?: Value | ((settings: Record<string, unknown>, cwd: string) => Value);
  /** How `--help` and the docs show the default when it is not a plain value (`a timestamp`). */
  defaultText?: string;
  /** Unit of the recorded value, for the docs (`seconds`). */
  unit?: string;
  /** The run cannot start without it. */
  required?: boolean;
  /** Phantom field carrying `Presence` for the derived types. */
  readonly presence?: Presence;
}

type Spec<Value> = Omit<Setting<Value>, "kind" | "presence" | "default" | "required">;

/** A setting a run may leave unset. */
export function optional<Value, Input>(kind: Kind<Value, Input>, spec: Spec<Value>): Setting<Value, "optional", Input> {
  return { kind, ...spec };
}

/** A setting with a default value. */
export function withDefault<Value, Input>(
  kind: Kind<Value, Input>,
  spec: Spec<NoInfer<Value>> & { default: NoInfer<Value> | ((settings: Record<string, unknown>, cwd: string) => NoInfer<Value>) },
): Setting<Value, "always", Input> {
  return { kind, ...spec };
}

/** A setting every run must give. */
export function required<Value, Input>(kind: Kind<Value, Input>, spec: Spec<Value>): Setting<Value, "always", Input> {
  return { kind, ...spec, required: true };
}

type ValueOf<S> = S extends Setting<infer Value, "always" | "optional", infer _Input> ? Value : never;
type InputOf<S> = S extends Setting<infer _Value, "always" | "optional", infer Input> ? Input : never;
type AlwaysKeys<Table> = { [Name in keyof Table]: Table[Name] extends Setting<infer _Value, "always", infer _Input> ? Name : never }[keyof Table];
type OptionalKeys<Table> = Exclude<keyof Table, AlwaysKeys<Table>>;

/** The resolved settings a table describes: fields with a default or required are always present. */
export type ResolvedSettings<Table> = { [Name in AlwaysKeys<Table>]: ValueOf<Table[Name]> } & { [Name in OptionalKeys<Table>]?: ValueOf<Table[Name]> };

/** What a caller may pass for each setting of a table (every one optional). */
export type SettingsInputOf<Table> = { [Name in keyof Table]?: InputOf<Table[Name]> };

/** kebab-case of a camelCase name. */
export function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** The config key of a setting named `name`. */
export function configKey(name: string, setting: Setting): string {
  return setting.key ?? kebab(name);
}

/** The flag (without `--`) of a setting named `name`. */
export function flagName(name: string, setting: Setting): string {
  return setting.flag ?? configKey(name, setting).replace(/[._]/g, "-");
}

/** The default as `--help` and the docs show it, or undefined when there is none to show (none, or empty). */
export function defaultText(setting: Setting): string | undefined {
  if (setting.defaultText !== undefined) return setting.defaultText;
  if (setting.default === undefined || typeof setting.default === "function") return undefined;
  return (setting.kind as Kind<unknown>).show(setting.default) || undefined;
}
