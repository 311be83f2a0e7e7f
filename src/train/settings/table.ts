/**
 * Every training setting, declared once. The run's type (`TrainSettings`), the config-file keys,
 * the command-line flags and their help, what may change on `--resume`, and the table in
 * docs/trainer.md are all derived from this table. A new setting is one row here.
 */
import { join } from "node:path";
import { optional, required, withDefault, type ResolvedSettings, type Setting, type SettingsInputOf } from "./define.js";
import { HOST_IDS } from "../../hosts/ids.js";
import { choice, deployTargets, duration, executorUrl, integer, limits, modelName, number, path, pluginOptions, pluginSpecifier, prices, runId, string, toggle, url } from "./kinds.js";

export const SETTINGS = {
  adapter: optional(path, { group: "inputs", resumable: false, help: "the base adapter directory (or --from, a version in the store)" }),
  template: required(path, { group: "inputs", resumable: false, help: "the template root; its adapter.yaml holds the specification" }),
  from: optional(string, {
    group: "inputs",
    resumable: false,
    placeholder: "ref",
    help: "start from this ref, tag or commit of the store instead of --adapter (e.g. hermit/<run>/final)",
  }),

  task: required(pluginSpecifier, { group: "plugins", resumable: false, placeholder: "task", help: "a built-in task (wordcount), a module path (.ts loads without a build) or a package name" }),
  taskOptions: withDefault(pluginOptions, {
    group: "plugins",
    resumable: false,
    key: "task.*",
    flag: "task-option",
    default: {},
    help: "an option the task declares, KEY=VALUE (repeatable; in run.yaml, the keys of a task: section)",
  }),
  evolver: required(pluginSpecifier, { group: "plugins", resumable: false, placeholder: "evolver", help: "a built-in Evolver (select, reflect, agent, noop), a module path or a package name" }),
  evolverOptions: withDefault(pluginOptions, {
    group: "plugins",
    resumable: false,
    key: "evolver.*",
    flag: "evolver-option",
    default: {},
    help: "an option the Evolver declares, KEY=VALUE (repeatable; in run.yaml, the keys of an evolver: section)",
  }),

  learnerHost: optional(choice(...HOST_IDS), {
    group: "learner",
    resumable: true,
    key: "learner.host",
    placeholder: "host",
    help: "the coding-agent host the agent Evolver runs as the learner, on --learner-model: claude-code, codex, gemini, opencode, pi (docs/evolver.md)",
  }),
  learnerModel: optional(modelName, {
    group: "learner",
    resumable: true,
    key: "learner.model",
    placeholder: "model",
    help: "the model an Evolver may call as ctx.model (reflect needs one): provider:model-id, e.g. openai:gpt-5-mini, anthropic:claude-sonnet-4-5, google:gemini-2.5-flash, ollama:qwen3 (docs/models.md); its key comes from the provider's variable",
  }),
  learnerBaseUrl: optional(url, {
    group: "learner",
    resumable: true,
    key: "learner.base_url",
    help: "the learner's API root (a proxy, a gateway, a local server); default: the provider's variable (OPENAI_BASE_URL, ANTHROPIC_BASE_URL, OLLAMA_HOST, …), else its public API",
  }),
  learnerTimeout: optional(duration, { group: "learner", resumable: true, key: "learner.timeout", defaultText: "10m", unit: "seconds", help: "limit per learner call, retries included" }),
  learnerRetries: optional(integer(0), { group: "learner", resumable: true, key: "learner.retries", defaultText: "2", help: "retries of a learner call after a 429, a 5xx or a network error (with backoff)" }),
  price: optional(prices, {
    group: "learner",
    resumable: true,
    key: "prices",
    flag: "price",
    help: "a model's price in USD per million input/output tokens, provider:model-id=IN/OUT (repeatable); overrides the shipped table (src/models/prices.json)",
  }),
  screen: optional(toggle, {
    group: "acceptance",
    resumable: true,
    defaultText: "the Evolver's choice (on for reflect)",
    help: "screen each candidate on the step's train batch first: unless it beats the accepted version on those instances it is screened-out, without validation rollouts",
  }),

  steps: withDefault(integer(0), { group: "run", resumable: true, default: 10, help: "number of steps (0: only score the base on the test split, card and tag it)" }),
  runsDir: withDefault(path, { group: "run", resumable: false, default: (_settings, cwd) => join(cwd, "runs"), defaultText: "runs", help: "where runs live" }),
  store: withDefault(path, {
    group: "run",
    resumable: false,
    default: (settings) => join(String(settings.runsDir), "versions.git"),
    defaultText: "<runs-dir>/versions.git",
    help: "the Git version store (a bare repository), shared by runs",
  }),
  runId: optional(runId, { group: "run", resumable: false, defaultText: "a timestamp", help: "the run's name (letters, digits, '.', '_', '-'); a name the store already holds steps of is refused" }),
  seed: withDefault(integer(0), { group: "run", resumable: false, default: 0, help: "seeds batch sampling and the Evolver's tie-breaks" }),
  concurrency: withDefault(integer(1), { group: "run", resumable: true, default: 4, help: "rollouts run in parallel in this process (one queue for the whole run); with --executor redis://… each worker's own --concurrency applies" }),
  executor: withDefault(executorUrl, {
    group: "run",
    resumable: true,
    default: "local",
    help: "where rollouts run: local (this process, --concurrency at a time) or a queue redis://host:port[/db][?queue=NAME] served by hermit worker processes (docs/queue.md)",
  }),
  queuePatience: withDefault(duration, {
    group: "run",
    resumable: true,
    default: 120,
    unit: "seconds",
    help: "with --executor redis://…: how long Redis may not answer (a restart, a network cut) before the run fails with QUEUE_UNAVAILABLE; it can then be resumed once Redis is back",
  }),
  batchSize: optional(integer(1), { group: "run", resumable: false, defaultText: "all", help: "train instances per acting batch, a seeded sample each step" }),
  rolloutTimeout: withDefault(duration, { group: "run", resumable: true, default: 300, unit: "seconds", help: "limit per rollout attempt, e.g. 90s, 10m; a timed-out rollout is missing data, never 0" }),
  retries: withDefault(integer(0), {
    group: "run",
    resumable: true,
    default: 1,
    help: "attempts after a rollout crashed or timed out, before it counts as missing (a failure is never reused as a result)",
  }),
  checkpointEvery: withDefault(integer(1), { group: "run", resumable: false, default: 1, help: "tag hermit/<run>/step-<n> every n steps" }),

  actorHost: optional(choice(...HOST_IDS), {
    group: "acting",
    resumable: false,
    key: "actor.host",
    placeholder: "host",
    help: "the host that does the work when a task acts through one (ctx.act, hostTask): claude-code, codex, gemini, opencode, pi",
  }),
  actorModel: optional(string, {
    group: "acting",
    resumable: false,
    key: "actor.model",
    placeholder: "model",
    help: "the model the acting host runs on, provider:model-id (e.g. anthropic:claude-sonnet-4-5); its key comes from the provider's variable (ANTHROPIC_API_KEY, OPENAI_API_KEY, …), never a file",
  }),
  actorBaseUrl: optional(string, {
    group: "acting",
    resumable: false,
    key: "actor.base_url",
    placeholder: "url",
    help: "the actor model's API root, when not the provider's default (a proxy, a local server)",
  }),
  actorTimeout: optional(duration, {
    group: "acting",
    resumable: true,
    key: "actor.timeout",
    unit: "seconds",
    defaultText: "80% of --rollout-timeout",
    help: "limit of one host turn (a task may ask for another); the host is killed with its process group and the rollout is missing data, never 0",
  }),
  actorMaxTurns: optional(integer(1), { group: "acting", resumable: false, key: "actor.max_turns", placeholder: "n", help: "the host's own turn limit, where it has one" }),

  accept: withDefault(choice("improve", "always"), {
    group: "acceptance",
    resumable: false,
    placeholder: "rule",
    default: "improve",
    help: "improve: beat the accepted version on validation by more than the margin; always: accept every valid, measured candidate",
  }),
  margin: withDefault(number(0), { group: "acceptance", resumable: false, default: 0, help: "the improvement of the mean validation score a candidate must exceed" }),
  marginSe: withDefault(number(0), { group: "acceptance", resumable: false, placeholder: "k", default: 0, help: "also require k standard errors of the paired difference" }),
  trials: withDefault(integer(1), { group: "acceptance", resumable: false, default: 1, help: "repeat each rollout n times" }),

  maxRollouts: optional(integer(0), { group: "budgets", resumable: true, help: "stop starting steps once this many rollouts have run" }),
  maxTime: optional(duration, { group: "budgets", resumable: true, unit: "seconds", help: "stop starting steps after this much running time, e.g. 30m" }),
  maxTokens: optional(limits("n"), {
    group: "budgets",
    resumable: true,
    help: "a token budget: N for the run, or acting=N, learning=N, total=N (repeatable); no learner call starts that could pass it, no step starts once it is reached",
  }),
  maxCostUsd: optional(limits("usd"), {
    group: "budgets",
    resumable: true,
    help: "a budget in USD, like --max-tokens (acting=, learning=, total=); needs a price for the learner model; the run ends with status budget, resumable with a larger one",
  }),

  export: optional(path, {
    group: "output",
    resumable: true,
    defaultText: "<runs-dir>/<run-id>/final",
    help: "export the final version (its files, origin and CARD.md) into DIR: a stable copy, where --deploy deploys from",
  }),
  deploy: withDefault(deployTargets, { group: "output", resumable: true, default: [], help: "deploy the final version (from --export) for HOST into DIR (repeatable)" }),
  deployInto: optional(choice("generated", "existing"), {
    group: "output",
    resumable: true,
    placeholder: "kind",
    help: "existing: the --deploy folders are your own projects, deployed as with deploy --existing (only hermit's files, block and config entries are added); default generated",
  }),
} satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;

/** A run's resolved settings, as recorded in `run.json`. Paths are absolute; durations are seconds. */
export interface TrainSettings extends ResolvedSettings<typeof SETTINGS> {}

/**
 * Other spellings that set (part of) a setting: kept so older configs and commands work.
 * `option` names the plugin option an alias sets.
 */
export const SETTING_ALIASES: ReadonlyArray<{ key: string; flag?: string; placeholder?: string; setting: SettingName; option?: string; help: string }> = [
  { key: "pool", flag: "pool", placeholder: "dir", setting: "evolverOptions", option: "pool", help: "same as --evolver-option pool=DIR (the select Evolver's pool of fragments)" },
  { key: "evolver-options", setting: "evolverOptions", help: "older spelling of the evolver: section (a mapping)" },
];

/** Settings as a `train()` caller gives them: the same names, values as a flag or YAML would (`"10m"`, `"codex:ws"`). */
export type SettingsInput = SettingsInputOf<typeof SETTINGS>;
