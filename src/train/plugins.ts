/**
 * Loading Task and Evolver plugins by specifier: a built-in name (from the catalog the caller
 * passes: the Trainer knows no plugin itself), a module path (TypeScript loads without a build
 * step) or an installed package name. The module's default export (or its `task` / `evolver`
 * export) is shape-checked and its plugin API version compared with ours; a mismatch is a
 * PLUGIN_INVALID error that says what is wrong and where.
 */
import { stat } from "node:fs/promises";
import { extname, isAbsolute, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createJiti } from "jiti";
import { HermitError, errorMessage } from "../errors.js";
import { apiVersionProblem } from "./define.js";
import { optionsSchemaProblem } from "./settings/plugin-options.js";
import type { RemoteExecutorFactory } from "./rollouts/executor.js";
import type { Evolver, Task } from "./types.js";

export type PluginKind = "task" | "evolver";

/** Built-in plugins by the names `--task` and `--evolver` take, each loaded lazily. */
export interface PluginCatalog {
  task: Record<string, () => Promise<Task>>;
  evolver: Record<string, () => Promise<Evolver>>;
  /** Executors by `--executor` URL scheme (`redis`), each loaded lazily; `local` is the Trainer's own. */
  executor?: Record<string, () => Promise<RemoteExecutorFactory>>;
}

export const emptyCatalog: PluginCatalog = { task: {}, evolver: {} };

const FUNCTIONS: Record<PluginKind, { required: string[]; optional: string[] }> = {
  task: { required: ["instances", "rollout"], optional: ["validate", "close"] },
  evolver: { required: ["step"], optional: ["validate", "close"] },
};

/** What is wrong with `value` as a plugin of `kind`; empty when it fits. Pure. */
export function shapeProblems(value: unknown, kind: PluginKind): string[] {
  if (value === null || typeof value !== "object") return [`is ${value === null ? "null" : typeof value}, not an object`];
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof record.name !== "string" || record.name === "") problems.push(record.name === undefined ? "has no 'name' (string)" : "'name' must be a non-empty string");
  for (const key of FUNCTIONS[kind].required) {
    if (record[key] === undefined) problems.push(`has no '${key}' (function)`);
    else if (typeof record[key] !== "function") problems.push(`'${key}' must be a function, not ${typeof record[key]}`);
  }
  for (const key of FUNCTIONS[kind].optional) {
    if (record[key] !== undefined && typeof record[key] !== "function") problems.push(`'${key}' must be a function when present`);
  }
  if (record.options !== undefined) {
    const problem = optionsSchemaProblem(record.options);
    if (problem) problems.push(problem);
  }
  // The version matters only for something that otherwise looks like a plugin.
  if (problems.length === 0) {
    const problem = apiVersionProblem(record.apiVersion);
    if (problem) problems.push(problem);
  }
  return problems;
}

/** The module file each loaded plugin came from (part of a task's identity). */
const sources = new WeakMap<object, string>();

/** The module file `plugin` was loaded from, when it came from one. */
export function pluginSource(plugin: object): string | undefined {
  return sources.get(plugin);
}

export interface LoadOptions {
  /** Relative module paths and package names resolve from here. */
  base?: string;
  catalog?: PluginCatalog;
}

export async function loadTask(specifier: string, options: LoadOptions = {}): Promise<Task> {
  return (await loadPlugin("task", specifier, options)) as Task;
}

export async function loadEvolver(specifier: string, options: LoadOptions = {}): Promise<Evolver> {
  return (await loadPlugin("evolver", specifier, options)) as Evolver;
}

async function loadPlugin(kind: PluginKind, specifier: string, { base = process.cwd(), catalog = emptyCatalog }: LoadOptions): Promise<unknown> {
  const builtins: Record<string, () => Promise<unknown>> = catalog[kind];
  const builtin = builtins[specifier];
  if (builtin) return checkedPlugin(kind, await builtin(), `built-in ${kind} '${specifier}'`);


  const file = await resolveModule(kind, specifier, base, Object.keys(builtins));
  let module: Record<string, unknown>;
  try {
    module = await importPlugin(file);
  } catch (error) {
    throw new HermitError("PLUGIN_INVALID", `${file}: could not load the ${kind} module: ${errorMessage(error)}`, { path: file });
  }
  const plugin = checkedPlugin(kind, pickExport(module, kind), file);
  sources.set(plugin as object, file);
  return plugin;
}

/** hermit's entry modules beside this one: `dist/*.js` when built, `src/*.ts` when run from source. */
function ownEntry(name: string): string {
  const extension = extname(fileURLToPath(import.meta.url));
  return fileURLToPath(new URL(`../${name}${extension}`, import.meta.url));
}

let pluginLoader: ReturnType<typeof createJiti> | undefined;

/**
 * Import a plugin module (TypeScript loads without a build step). `import … from "hermit"` (and
 * `"hermit/plugin"`) in it resolve to this hermit's entry modules, so a plugin written as the
 * docs show works from any folder, with or without hermit installed beside it; imported natively
 * when possible, it shares hermit's module instances. A second copy of hermit (a plugin with its
 * own install) still agrees on errors: they are recognised by a brand, not by class identity.
 */
async function importPlugin(file: string): Promise<Record<string, unknown>> {
  pluginLoader ??= createJiti(import.meta.url, {
    fsCache: false,
    moduleCache: false,
    interopDefault: true,
    tryNative: true,
    alias: { "hermit/plugin": ownEntry("plugin"), hermit: ownEntry("index") },
  });
  return (await pluginLoader.import(pathToFileURL(file).href)) as Record<string, unknown>;
}

/** The default export, unless it is missing (or merely the namespace) and the named one is there. */
function pickExport(module: Record<string, unknown>, kind: PluginKind): unknown {
  const fallback = module[kind];
  const preferred = module.default;
  const key = kind === "task" ? "rollout" : "step";
  const defaultFits = preferred !== null && typeof preferred === "object" && key in (preferred as object) && preferred !== module;
  if (defaultFits || fallback === undefined) return preferred === module ? undefined : preferred;
  return fallback;
}

/** `value` when it fits a plugin of `kind`, else a PLUGIN_INVALID error naming `where` and each problem. */
export function checkedPlugin(kind: PluginKind, value: unknown, where: string): unknown {
  const problems = shapeProblems(value, kind);
  if (problems.length > 0) {
    const expected = kind === "task" ? "{ name, instances(split), rollout(instance, ctx) }" : "{ name, step(ctx) }";
    throw new HermitError(
      "PLUGIN_INVALID",
      `${where}: the ${kind} (default export, or export '${kind}') ${problems.join("; ")}; expected ${expected} — see define${kind === "task" ? "Task" : "Evolver"}`,
      { path: where, problems },
    );
  }
  return value;
}

const PATH_LIKE = /^(\.{1,2}\/|\/)|\.(m?[jt]s|c[jt]s)$/;

async function resolveModule(kind: PluginKind, specifier: string, base: string, builtins: string[]): Promise<string> {
  if (PATH_LIKE.test(specifier) || isAbsolute(specifier)) {
    const file = isAbsolute(specifier) ? specifier : join(base, specifier);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) throw new HermitError("PLUGIN_INVALID", `${file}: ${kind} module not found`, { path: file });
    return file;
  }
  const parentURL = pathToFileURL(join(base, "_.js")).href;
  const resolved = createJiti(parentURL).esmResolve(specifier, { parentURL, try: true });
  if (!resolved) {
    throw new HermitError(
      "PLUGIN_INVALID",
      `${kind} '${specifier}' is not a built-in (${builtins.join(", ") || "none"}), a module path, or a package installed under ${base}`,
      { specifier, builtins },
    );
  }
  return resolved.startsWith("file:") ? fileURLToPath(resolved) : resolved;
}
