/**
 * The kinds of value a training setting takes, each a pure parser from what a user wrote (a
 * flag's string, a YAML value, a library option) to the value the run records. A parser throws
 * `SettingProblem` with what is wrong; the resolver adds where the value came from.
 */
import { isAbsolute, resolve } from "node:path";
import { DURATION_HINT, parseDuration } from "../../duration.js";
import { didYouMean } from "../../suggest.js";
import { parseLimit, type Scope } from "../../models/budget.js";
import { parsePrice } from "../../models/prices.js";
import { parseModelName } from "../../models/providers.js";

/** What a value is wrong about, without saying where it came from (the resolver knows that). */
export class SettingProblem extends Error {}

/**
 * Names a value is checked against, handed in by the caller (the Trainer passes the host
 * registry's ids), so that importing the table stays cheap for `--help`.
 */
export interface KnownNames {
  hosts?: readonly string[];
}

/** One kind of value; `Input` is what a `train()` caller may pass for it. */
export interface Kind<Value, Input = Value | string> {
  /** The value's placeholder in `--help` (`--steps <n>`). */
  placeholder: string;
  /** `base` resolves relative paths: the config file's folder, or the working directory for flags. */
  parse(raw: unknown, base: string, known: KnownNames): Value;
  /** A value as `--help` and the docs show it (defaults). */
  show(value: Value): string;
  /** The flag may be given more than once (each occurrence adds to a list). */
  repeatable?: boolean;
  /** Phantom field carrying `Input` for the derived types. */
  readonly input?: Input;
}

const shown = (value: unknown) => JSON.stringify(value) ?? String(value);

function text(raw: unknown): string {
  if (typeof raw === "number") return String(raw);
  if (typeof raw !== "string" || raw === "") throw new SettingProblem(`must be a non-empty string, not ${shown(raw)}`);
  return raw;
}

/** A non-empty string. */
export const string: Kind<string, string> = { placeholder: "text", parse: text, show: (value) => value };

/** A path; relative paths are resolved against the base of the layer that gave them. */
export const path: Kind<string, string> = { placeholder: "dir", parse: (raw, base) => resolve(base, text(raw)), show: (value) => value };

/** A plugin specifier: a path-like one (`./x.ts`, `/abs`, `x.mjs`) becomes absolute; a bare name (built-in, package) stays. */
export const pluginSpecifier: Kind<string, string> = {
  placeholder: "name",
  parse(raw, base) {
    const value = text(raw);
    const pathLike = value.startsWith(".") || isAbsolute(value) || /\.(m?[jt]s|c[jt]s)$/.test(value);
    return pathLike ? resolve(base, value) : value;
  },
  show: (value) => value,
};

/** A number ≥ `min`. */
export function number(min: number): Kind<number> {
  return {
    placeholder: "x",
    parse(raw) {
      const parsed = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : NaN;
      if (!Number.isFinite(parsed) || parsed < min) throw new SettingProblem(`must be a number ≥ ${min}, not ${shown(raw)}`);
      return parsed;
    },
    show: String,
  };
}

/** A whole number ≥ `min`. */
export function integer(min: number): Kind<number> {
  const asNumber = number(min);
  return {
    placeholder: "n",
    parse(raw, base, known) {
      let value: number;
      try {
        value = asNumber.parse(raw, base, known);
      } catch {
        value = NaN;
      }
      if (!Number.isInteger(value)) throw new SettingProblem(`must be a whole number ≥ ${min}, not ${shown(raw)}`);
      return value;
    },
    show: String,
  };
}

/** A duration, recorded in seconds: plain seconds or `500ms`, `90s`, `10m`, `1.5h`. */
export const duration: Kind<number> = {
  placeholder: "duration",
  parse(raw) {
    const seconds = parseDuration(raw);
    if (seconds === undefined) throw new SettingProblem(`must be ${DURATION_HINT}, not ${shown(raw)}`);
    return seconds;
  },
  show: (seconds) => `${seconds}s`,
};

/** One of a fixed set of words. */
export function choice<const Word extends string>(...words: Word[]): Kind<Word, Word> {
  return {
    placeholder: words.join("|"),
    parse(raw) {
      if (typeof raw !== "string" || !(words as string[]).includes(raw)) {
        throw new SettingProblem(`must be ${words.map((word) => `'${word}'`).join(" or ")}, not ${shown(raw)}${typeof raw === "string" ? didYouMean(raw, words) : ""}`);
      }
      return raw as Word;
    },
    show: (value) => value,
  };
}

const RUN_ID = /^[a-z0-9](?:[a-z0-9_-]|\.(?!\.)){0,63}$/i;

/** Why `id` cannot name a run (it becomes a directory and part of Git ref names), or undefined. */
export function runIdProblem(id: string): string | undefined {
  if (!RUN_ID.test(id)) return "must be 1-64 characters of letters, digits, '.', '_' or '-', starting with a letter or digit";
  if (id.endsWith(".lock") || id.endsWith(".")) return "must not end with '.lock' or '.'";
  return undefined;
}

/** A run's name: it becomes a directory and part of Git ref names. */
export const runId: Kind<string, string> = {
  placeholder: "id",
  parse(raw) {
    const id = text(raw);
    const problem = runIdProblem(id);
    if (problem) throw new SettingProblem(`'${id}' ${problem}`);
    return id;
  },
  show: (value) => value,
};

/** Where to deploy the final version: `HOST:DIR`. */
export interface DeployTarget {
  host: string;
  workspace: string;
}

/** `HOST:DIR`, one or a list; the host is checked now, not after the whole run (the deploy is its last act). */
export const deployTargets: Kind<DeployTarget[], string | string[]> = {
  placeholder: "host:dir",
  repeatable: true,
  parse(raw, base, known) {
    return (Array.isArray(raw) ? raw : [raw]).map((item) => {
      if (typeof item !== "string") throw new SettingProblem(`must be HOST:DIR, not ${shown(item)}`);
      const colon = item.indexOf(":");
      if (colon <= 0 || colon === item.length - 1) throw new SettingProblem(`value '${item}' must be HOST:DIR, e.g. claude-code:runs/demo-workspace`);
      const host = item.slice(0, colon);
      if (known.hosts && !known.hosts.includes(host)) {
        throw new SettingProblem(`value '${item}' names unknown host '${host}'${didYouMean(host, known.hosts)}; valid hosts: ${known.hosts.join(", ")}`);
      }
      return { host, workspace: resolve(base, item.slice(colon + 1)) };
    });
  },
  show: (targets) => targets.map((target) => `${target.host}:${target.workspace}`).join(", "),
};

/**
 * A plugin's options: a mapping (config section, library option) or `KEY=VALUE` strings (the
 * repeatable flag). Values stay as written; the plugin's own schema checks them once it is
 * loaded (see `plugin-options.ts`), which also resolves the ones it declares as paths.
 */
export const pluginOptions: Kind<Record<string, unknown>, Record<string, unknown> | string[]> = {
  placeholder: "key=value",
  repeatable: true,
  parse(raw) {
    if (Array.isArray(raw)) {
      const options: Record<string, unknown> = {};
      for (const item of raw) {
        const equals = typeof item === "string" ? item.indexOf("=") : -1;
        if (equals <= 0) throw new SettingProblem(`must be KEY=VALUE, not ${shown(item)}`);
        options[(item as string).slice(0, equals)] = (item as string).slice(equals + 1);
      }
      return options;
    }
    if (raw === null || typeof raw !== "object") throw new SettingProblem(`must be a mapping of option names to values, not ${shown(raw)}`);
    return { ...(raw as Record<string, unknown>) };
  },
  show: (options) => (Object.keys(options).length === 0 ? "" : JSON.stringify(options)),
};

/** On or off: `true`/`false`, `on`/`off`, `yes`/`no` (flags give strings, YAML gives booleans). */
export const toggle: Kind<boolean, boolean | string> = {
  placeholder: "on|off",
  parse(raw) {
    if (typeof raw === "boolean") return raw;
    const word = typeof raw === "string" ? raw.trim().toLowerCase() : "";
    if (["true", "on", "yes", "1"].includes(word)) return true;
    if (["false", "off", "no", "0"].includes(word)) return false;
    throw new SettingProblem(`must be on or off (true/false), not ${shown(raw)}`);
  },
  show: (value) => (value ? "on" : "off"),
};

/** A model name, `provider:model-id` (the provider is checked now; its key when the run starts). */
export const modelName: Kind<string, string> = {
  placeholder: "provider:model-id",
  parse(raw) {
    try {
      return parseModelName(text(raw), "value").name;
    } catch (error) {
      throw new SettingProblem((error as Error).message.replace(/^value '[^']*': /, ""));
    }
  },
  show: (value) => value,
};

/** An http(s) URL, or `host:port` (taken as http). */
export const url: Kind<string, string> = {
  placeholder: "url",
  parse(raw) {
    const value = text(raw).trim();
    const full = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
    let parsed: URL;
    try {
      parsed = new URL(full);
    } catch {
      throw new SettingProblem(`must be an http(s) URL, not ${shown(raw)}`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new SettingProblem(`must be an http or https URL, not ${shown(raw)}`);
    if (parsed.username || parsed.password) throw new SettingProblem("must not carry credentials (give the key in the provider's variable)");
    return value;
  },
  show: (value) => value,
};

/** Prices, `provider:model-id=IN/OUT` in USD per million tokens (repeatable; a list in YAML). */
export const prices: Kind<string[], string | string[]> = {
  placeholder: "model=in/out",
  repeatable: true,
  parse(raw) {
    const items = Array.isArray(raw) ? raw : [raw];
    return items.map((item) => {
      if (typeof item !== "string") throw new SettingProblem(`must be provider:model-id=IN/OUT, not ${shown(item)}`);
      try {
        const price = parsePrice(item);
        return `${price.model}=${price.input}/${price.output}`;
      } catch (error) {
        throw new SettingProblem((error as Error).message.replace(/^--price '[^']*': /, ""));
      }
    });
  },
  show: (value) => value.join(", "),
};

/** Budget limits: a number (the run's total), or `acting=N`, `learning=N`, `total=N` (comma-separated, a list, or a mapping). */
export function limits(unit: string): Kind<Partial<Record<Scope, number>>, number | string | string[] | Partial<Record<Scope, number>>> {
  return {
    placeholder: unit,
    repeatable: true,
    parse(raw) {
      try {
        const parsed = parseLimit(raw, "value");
        if (Object.keys(parsed).length === 0) throw new SettingProblem("must give at least one limit");
        return parsed;
      } catch (error) {
        if (error instanceof SettingProblem) throw error;
        throw new SettingProblem((error as Error).message.replace(/^value( '[^']*')?:? ?/, ""));
      }
    },
    show: (value) => Object.entries(value).map(([scope, amount]) => (scope === "total" ? String(amount) : `${scope}=${amount}`)).join(","),
  };
}

/** A queue name as BullMQ takes it (no `:`, which its Redis keys use). */
export const QUEUE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * Where rollouts run: `local` (this process), or a BullMQ queue on Redis,
 * `redis://[user@]host:port[/db][?queue=NAME]` (`rediss://` for TLS). A password is refused:
 * the value is recorded in `run.json`; it comes from `HERMIT_REDIS_PASSWORD` instead.
 */
export const executorUrl: Kind<string, string> = {
  placeholder: "local|url",
  parse(raw) {
    const value = text(raw);
    if (value === "local") return value;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new SettingProblem(`must be 'local' or a queue URL redis://host:port[/db], not ${shown(raw)}`);
    }
    if (url.protocol === "postgres:" || url.protocol === "postgresql:") {
      throw new SettingProblem("postgres:// is not supported: hermit's queue executor runs on Redis (redis://host:port); see docs/queue.md");
    }
    if (url.protocol !== "redis:" && url.protocol !== "rediss:") throw new SettingProblem(`must be 'local' or a redis:// (or rediss://) URL, not ${shown(raw)}`);
    if (url.password !== "") throw new SettingProblem("holds a password, which run.json would record; give the password in the environment variable HERMIT_REDIS_PASSWORD instead");
    if (url.hostname === "") throw new SettingProblem(`names no host: ${shown(raw)}`);
    const db = url.pathname.replace(/^\//, "");
    if (db !== "" && !/^\d{1,2}$/.test(db)) throw new SettingProblem(`names database '${db}'; a Redis database is a number (redis://host:port/0)`);
    for (const key of url.searchParams.keys()) if (key !== "queue") throw new SettingProblem(`has unknown parameter '${key}' (only ?queue=NAME)`);
    const queue = url.searchParams.get("queue");
    if (queue !== null && !QUEUE_NAME.test(queue)) throw new SettingProblem(`names queue '${queue}'; a queue name is 1-64 letters, digits, '.', '_' or '-'`);
    return value;
  },
  show: (value) => value,
};
