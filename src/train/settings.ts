/**
 * Run settings: the keys a run takes (as `--flags` or as the same keys in `--config run.yaml`),
 * validated and resolved into `TrainSettings`. Pure: paths are resolved against a given base,
 * nothing is read.
 */
import { isAbsolute, resolve } from "node:path";
import { DURATION_HINT, parseDuration } from "../duration.js";
import { HermitError } from "../errors.js";
import { didYouMean } from "../suggest.js";
import { HOST_IDS } from "../hosts/index.js";

export type AcceptPolicy = "improve" | "always";

/** Where to deploy the final version: `HOST:DIR`. */
export interface DeployTarget {
  host: string;
  workspace: string;
}

/** A run's resolved settings, as recorded in `run.json`. Paths are absolute. */
export interface TrainSettings {
  /** The base adapter; required unless `from` names a version in the store. */
  adapter?: string;
  /** The template root (its `adapter.yaml` carries the specification). */
  template: string;
  /** Task specifier: a built-in name, a module path (absolute once resolved) or a package name. */
  task: string;
  /** Evolver specifier, like `task`. */
  evolver: string;
  /** `--pool DIR`: fragments for the `select` Evolver (any Evolver sees it as `ctx.pool`). */
  pool?: string;
  /** Free-form settings handed to the Evolver as `ctx.options`. */
  evolverOptions: Record<string, unknown>;
  steps: number;
  runsDir: string;
  /** The version store (a bare Git repository), default `<runs-dir>/versions.git`. */
  store: string;
  runId?: string;
  /** Start from this ref (or commit) of the store instead of importing `adapter`. */
  from?: string;
  seed: number;
  concurrency: number;
  checkpointEvery: number;
  accept: AcceptPolicy;
  margin: number;
  trials: number;
  marginSe: number;
  /** Train instances per acting batch (a seeded sample each step); all of them when absent. */
  batchSize?: number;
  /** Per-rollout limit, in seconds. */
  rolloutTimeout: number;
  maxRollouts?: number;
  /** Wall-time budget, in seconds. */
  maxTime?: number;
  /** Token budget over reported usage (unreported usage is unknown and not counted). */
  maxTokens?: number;
  deploy: DeployTarget[];
}

/** Every settings key, as written in a config file and (with `--`) on the command line. */
export const SETTING_KEYS = [
  "adapter",
  "template",
  "task",
  "evolver",
  "pool",
  "evolver-options",
  "steps",
  "runs-dir",
  "store",
  "run-id",
  "from",
  "seed",
  "concurrency",
  "checkpoint-every",
  "accept",
  "margin",
  "trials",
  "margin-se",
  "batch-size",
  "rollout-timeout",
  "max-rollouts",
  "max-time",
  "max-tokens",
  "deploy",
] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

/** Raw values from flags or a config file, keyed like the flags. */
export type RawSettings = Partial<Record<SettingKey, unknown>>;

/** Keys that may change when a run is resumed: budgets, parallelism and deployment. */
export const RESUMABLE_KEYS: ReadonlySet<SettingKey> = new Set([
  "steps",
  "concurrency",
  "rollout-timeout",
  "max-rollouts",
  "max-time",
  "max-tokens",
  "deploy",
]);

export const DEFAULTS = {
  steps: 10,
  seed: 0,
  concurrency: 4,
  checkpointEvery: 1,
  accept: "improve" as AcceptPolicy,
  margin: 0,
  trials: 1,
  marginSe: 0,
  rolloutTimeout: 300,
  runsDir: "runs",
};

const RUN_ID = /^[a-z0-9](?:[a-z0-9_-]|\.(?!\.)){0,63}$/i;

/** Why `id` cannot name a run (it becomes a directory and part of Git ref names), or undefined. */
export function runIdProblem(id: string): string | undefined {
  if (!RUN_ID.test(id)) return "must be 1-64 characters of letters, digits, '.', '_' or '-', starting with a letter or digit";
  if (id.endsWith(".lock") || id.endsWith(".")) return "must not end with '.lock' or '.'";
  return undefined;
}

/**
 * Validate and resolve raw settings. `base` resolves relative paths (the config file's folder,
 * or the working directory for flags); `source` names where the values came from in errors.
 */
export function resolveSettings(raw: RawSettings, base: string, source: string): TrainSettings {
  const unknown = Object.keys(raw).filter((key) => !(SETTING_KEYS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    throw usage(source, `unknown setting${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => `'${k}'`).join(", ")}; known: ${SETTING_KEYS.join(", ")}`);
  }
  const path = (key: SettingKey) => {
    const value = optionalString(raw, key, source);
    return value === undefined ? undefined : resolve(base, value);
  };
  const required = (key: SettingKey) => {
    const value = optionalString(raw, key, source);
    if (value === undefined) throw usage(source, `'${key}' is required`);
    return value;
  };
  const adapter = path("adapter");
  const from = optionalString(raw, "from", source);
  if (adapter === undefined && from === undefined) throw usage(source, "'adapter' is required (or 'from', a version in the store)");
  const runsDir = path("runs-dir") ?? resolve(base, DEFAULTS.runsDir);
  const runId = optionalString(raw, "run-id", source);
  if (runId !== undefined) {
    const problem = runIdProblem(runId);
    if (problem) throw usage(source, `run-id '${runId}' ${problem}`);
  }
  const accept = optionalString(raw, "accept", source) ?? DEFAULTS.accept;
  if (accept !== "improve" && accept !== "always") throw usage(source, `accept must be 'improve' or 'always', not '${accept}'`);
  const evolverOptions = raw["evolver-options"] ?? {};
  if (typeof evolverOptions !== "object" || evolverOptions === null || Array.isArray(evolverOptions)) {
    throw usage(source, "'evolver-options' must be a mapping");
  }
  return {
    adapter,
    template: resolve(base, required("template")),
    task: pluginSpecifier(required("task"), base),
    evolver: pluginSpecifier(required("evolver"), base),
    pool: path("pool"),
    evolverOptions: evolverOptions as Record<string, unknown>,
    steps: integer(raw, "steps", source, 0) ?? DEFAULTS.steps,
    runsDir,
    store: path("store") ?? resolve(runsDir, "versions.git"),
    runId,
    from,
    seed: integer(raw, "seed", source, 0) ?? DEFAULTS.seed,
    concurrency: integer(raw, "concurrency", source, 1) ?? DEFAULTS.concurrency,
    checkpointEvery: integer(raw, "checkpoint-every", source, 1) ?? DEFAULTS.checkpointEvery,
    accept,
    margin: number(raw, "margin", source, 0) ?? DEFAULTS.margin,
    trials: integer(raw, "trials", source, 1) ?? DEFAULTS.trials,
    marginSe: number(raw, "margin-se", source, 0) ?? DEFAULTS.marginSe,
    batchSize: integer(raw, "batch-size", source, 1),
    rolloutTimeout: duration(raw, "rollout-timeout", source) ?? DEFAULTS.rolloutTimeout,
    maxRollouts: integer(raw, "max-rollouts", source, 0),
    maxTime: duration(raw, "max-time", source),
    maxTokens: integer(raw, "max-tokens", source, 0),
    deploy: deployTargets(raw.deploy, base, source),
  };
}

/**
 * The settings of a resumed run: the recorded ones, with the keys a resume may change taken
 * from `raw`. Giving any other key is fine when it resolves to the recorded value (the same
 * command line, re-run with --resume) and an error when it would change the run's rules.
 */
export function resumeSettings(recorded: TrainSettings, raw: RawSettings, base: string, source: string): TrainSettings {
  const next = resolveSettings({ ...settingsToRaw(recorded), ...raw }, base, source);
  const field = (key: SettingKey) => key.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()) as keyof TrainSettings;
  const changed = (Object.keys(raw) as SettingKey[]).filter(
    (key) => !RESUMABLE_KEYS.has(key) && JSON.stringify(next[field(key)]) !== JSON.stringify(recorded[field(key)]),
  );
  if (changed.length > 0) {
    throw usage(source, `cannot change ${changed.map((k) => `'${k}'`).join(", ")} when resuming; only ${[...RESUMABLE_KEYS].join(", ")} may change`);
  }
  return { ...recorded, ...Object.fromEntries([...RESUMABLE_KEYS].map((key) => [field(key), next[field(key)]])) };
}

/** Recorded settings back into raw keys (the inverse of `resolveSettings`). */
function settingsToRaw(settings: TrainSettings): RawSettings {
  const raw: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settings)) {
    if (value === undefined) continue;
    raw[key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)] = key === "deploy" ? (value as DeployTarget[]).map((t) => `${t.host}:${t.workspace}`) : value;
  }
  return raw as RawSettings;
}

/** A path-like specifier becomes absolute; a bare name (built-in or package) stays as given. */
function pluginSpecifier(value: string, base: string): string {
  const pathLike = value.startsWith(".") || value.startsWith("/") || isAbsolute(value) || /\.(m?[jt]s|cjs|cts)$/.test(value);
  return pathLike ? resolve(base, value) : value;
}

function deployTargets(value: unknown, base: string, source: string): DeployTarget[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((item) => {
    if (typeof item !== "string") throw usage(source, `deploy must be HOST:DIR, not ${JSON.stringify(item)}`);
    const colon = item.indexOf(":");
    if (colon <= 0 || colon === item.length - 1) throw usage(source, `deploy '${item}' must be HOST:DIR, e.g. claude-code:runs/demo-workspace`);
    const host = item.slice(0, colon);
    // Checked now, not after the whole run: the deploy is the run's last act.
    if (!(HOST_IDS as readonly string[]).includes(host)) throw usage(source, `deploy '${item}': unknown host '${host}'${didYouMean(host, HOST_IDS)}; valid hosts: ${HOST_IDS.join(", ")}`);
    return { host, workspace: resolve(base, item.slice(colon + 1)) };
  });
}

function optionalString(raw: RawSettings, key: SettingKey, source: string): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number") return String(value);
  if (typeof value !== "string" || value === "") throw usage(source, `'${key}' must be a non-empty string`);
  return value;
}

function number(raw: RawSettings, key: SettingKey, source: string, min: number): number | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  const parsed = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
  if (!Number.isFinite(parsed) || parsed < min) throw usage(source, `'${key}' must be a number ≥ ${min}, not ${JSON.stringify(value)}`);
  return parsed;
}

function integer(raw: RawSettings, key: SettingKey, source: string, min: number): number | undefined {
  const value = number(raw, key, source, min);
  if (value !== undefined && !Number.isInteger(value)) throw usage(source, `'${key}' must be a whole number, not ${value}`);
  return value;
}

/** Seconds, from a number (seconds) or a duration string (see `parseDuration`). */
function duration(raw: RawSettings, key: SettingKey, source: string): number | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  const seconds = parseDuration(value);
  if (seconds === undefined) throw usage(source, `'${key}' must be ${DURATION_HINT}, not ${JSON.stringify(value)}`);
  return seconds;
}

function usage(source: string, message: string): HermitError {
  return new HermitError("USAGE", `${source}: ${message}`, { path: source });
}

/** Keys whose values are paths (or, for `deploy`, `HOST:DIR`) resolved against a layer's base. */
const PATH_KEYS: SettingKey[] = ["adapter", "template", "pool", "runs-dir", "store"];

/**
 * Resolve the relative paths of one layer of settings (a config file, or the flags) against
 * that layer's base, so layers with different bases can be merged. Pure.
 */
export function absolutize(raw: RawSettings, base: string): RawSettings {
  const out: RawSettings = { ...raw };
  for (const key of PATH_KEYS) if (typeof out[key] === "string" && out[key] !== "") out[key] = resolve(base, out[key] as string);
  for (const key of ["task", "evolver"] as const) if (typeof out[key] === "string" && out[key] !== "") out[key] = pluginSpecifier(out[key] as string, base);
  if (out.deploy !== undefined) {
    const list = Array.isArray(out.deploy) ? out.deploy : [out.deploy];
    out.deploy = list.map((item) => {
      if (typeof item !== "string") return item;
      const colon = item.indexOf(":");
      return colon > 0 && colon < item.length - 1 ? `${item.slice(0, colon)}:${resolve(base, item.slice(colon + 1))}` : item;
    });
  }
  return out;
}

/** camelCase option names (as the library and commander use them) to the kebab-case setting keys. */
export function toSettingKeys(options: Record<string, unknown>): RawSettings {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    out[key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)] = value;
  }
  return out as RawSettings;
}
