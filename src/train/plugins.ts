/**
 * Loading Task and Evolver plugins by specifier: a built-in name, a module path (TypeScript
 * loads without a build step) or an installed package name. The module's default export (or
 * its `task` / `evolver` export) is shape-checked; a mismatch is a PLUGIN_INVALID error that
 * says what is wrong and where.
 */
import { stat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";
import { createJiti } from "jiti";
import { HermitError, errorMessage } from "../errors.js";
import { builtinEvolvers } from "../evolvers/index.js";
import { builtinTasks } from "../tasks/index.js";
import type { Evolver, Task } from "./types.js";

type Kind = "task" | "evolver";

interface Shape {
  required: Record<string, "string" | "function">;
  optional: Record<string, "function">;
}

const SHAPES: Record<Kind, Shape> = {
  task: { required: { name: "string", instances: "function", rollout: "function" }, optional: { close: "function" } },
  evolver: { required: { name: "string", step: "function" }, optional: { close: "function" } },
};

/** What is wrong with `value` as a plugin of `kind`; empty when it fits. Pure. */
export function shapeProblems(value: unknown, kind: Kind): string[] {
  if (value === null || typeof value !== "object") return [`is ${value === null ? "null" : typeof value}, not an object`];
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const [key, type] of Object.entries(SHAPES[kind].required)) {
    const actual = record[key];
    if (actual === undefined) problems.push(`has no '${key}' (${type})`);
    else if (type === "string" && actual === "") problems.push(`'${key}' must not be empty`);
    else if (typeof actual !== type) problems.push(`'${key}' must be a ${type === "string" ? "non-empty string" : type}, not ${typeof actual}`);
  }
  for (const [key, type] of Object.entries(SHAPES[kind].optional)) {
    if (record[key] !== undefined && typeof record[key] !== type) problems.push(`'${key}' must be a ${type} when present`);
  }
  return problems;
}

export async function loadTask(specifier: string, base = process.cwd()): Promise<Task> {
  return (await loadPlugin("task", specifier, base)) as Task;
}

export async function loadEvolver(specifier: string, base = process.cwd()): Promise<Evolver> {
  return (await loadPlugin("evolver", specifier, base)) as Evolver;
}

async function loadPlugin(kind: Kind, specifier: string, base: string): Promise<unknown> {
  const builtins: Record<string, () => Promise<unknown>> = kind === "task" ? builtinTasks : builtinEvolvers;
  const builtin = builtins[specifier];
  if (builtin) return checked(kind, await builtin(), `built-in ${kind} '${specifier}'`);

  const file = await resolveModule(kind, specifier, base, Object.keys(builtins));
  let module: Record<string, unknown>;
  try {
    module = await importPlugin(file);
  } catch (error) {
    throw new HermitError("PLUGIN_INVALID", `${file}: could not load the ${kind} module: ${errorMessage(error)}`, { path: file });
  }
  return checked(kind, pickExport(module, kind), file);
}

let pluginLoader: ReturnType<typeof createJiti> | undefined;

/**
 * Import a plugin module (TypeScript loads without a build step). `import … from "hermit"` in
 * it is this running hermit, so a plugin written as the docs show works from any folder, with
 * or without hermit installed beside it, and shares hermit's classes (`Session`, errors).
 */
async function importPlugin(file: string): Promise<Record<string, unknown>> {
  pluginLoader ??= createJiti(import.meta.url, {
    fsCache: false,
    moduleCache: false,
    interopDefault: true,
    virtualModules: { hermit: await import("../index.js") },
  });
  return (await pluginLoader.import(pathToFileURL(file).href)) as Record<string, unknown>;
}

/** The default export, unless it is missing (or merely the namespace) and the named one is there. */
function pickExport(module: Record<string, unknown>, kind: Kind): unknown {
  const fallback = module[kind];
  const preferred = module.default;
  const key = kind === "task" ? "rollout" : "step";
  const defaultFits = preferred !== null && typeof preferred === "object" && key in (preferred as object) && preferred !== module;
  if (defaultFits || fallback === undefined) return preferred === module ? undefined : preferred;
  return fallback;
}

function checked(kind: Kind, value: unknown, where: string): unknown {
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

async function resolveModule(kind: Kind, specifier: string, base: string, builtins: string[]): Promise<string> {
  if (PATH_LIKE.test(specifier) || isAbsolute(specifier)) {
    const file = isAbsolute(specifier) ? specifier : join(base, specifier);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) throw new HermitError("PLUGIN_INVALID", `${file}: ${kind} module not found`, { path: file });
    return file;
  }
  const jiti = createJiti(pathToFileURL(join(base, "_.js")).href);
  const resolved = jiti.esmResolve(specifier, { parentURL: pathToFileURL(join(base, "_.js")).href, try: true });
  if (!resolved) {
    throw new HermitError(
      "PLUGIN_INVALID",
      `${kind} '${specifier}' is not a built-in (${builtins.join(", ")}), a module path, or a package installed under ${base}`,
      { specifier, builtins },
    );
  }
  return resolved.startsWith("file:") ? fileURLToPath(resolved) : resolved;
}
