/**
 * Loading adapter code (tool entrypoints, agent exporters, custom checks, plugins).
 * TypeScript loads without a build step through jiti; the module's own `node_modules`
 * resolve from its location.
 */
import { stat } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { createJiti } from "jiti";
import { HermitError } from "../errors.js";
import { resolveInside } from "./files.js";
import type { Entrypoint } from "./types.js";

// The jiti instance transpiles per file; no disk cache, so a candidate never sees a stale
// transpilation of a file the Evolver just edited.
const jiti = createJiti(import.meta.url, { fsCache: false, moduleCache: false, interopDefault: true });

/** Import a module by absolute path (TypeScript or JavaScript). */
export async function importModule(absolutePath: string): Promise<Record<string, unknown>> {
  return (await jiti.import(pathToFileURL(absolutePath).href)) as Record<string, unknown>;
}

export type LoadedFunction = (...args: unknown[]) => unknown;

/** Import `entry.file` inside `root` and return the named function, or throw naming both. */
export async function loadExport(root: string, entry: Entrypoint): Promise<LoadedFunction> {
  const file = resolveInside(root, entry.file);
  const spec = `${entry.file}:${entry.function}`;
  if (!(await stat(file).catch(() => undefined))?.isFile()) {
    throw new HermitError("ADAPTER_INVALID", `${spec}: file ${entry.file} not found`, { path: file });
  }
  let module: Record<string, unknown>;
  try {
    module = await importModule(file);
  } catch (error) {
    throw new HermitError("ADAPTER_INVALID", `${spec}: could not import ${entry.file}: ${(error as Error).message}`, {
      path: file,
    });
  }
  const fn = exportedFunction(module, entry.function);
  if (typeof fn !== "function") {
    throw new HermitError("ADAPTER_INVALID", `${spec}: ${missingExport(entry.file, entry.function, fn)}`, {
      path: file,
      function: entry.function,
    });
  }
  return fn as LoadedFunction;
}

/**
 * The module's own export `name` (or its default export object's own member `name`), or
 * undefined. Inherited members never count: `constructor`, `toString` or `__proto__` would
 * otherwise "export" `Object` and friends from every module.
 */
export function exportedFunction(module: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(module, name)) return module[name];
  const fallback = Object.hasOwn(module, "default") ? module.default : undefined;
  if (fallback !== null && typeof fallback === "object" && Object.hasOwn(fallback, name)) {
    return (fallback as Record<string, unknown>)[name];
  }
  return undefined;
}

/** "f.ts has no exported function 'x'", saying what `x` is when it is something else. */
export function missingExport(file: string, name: string, value: unknown): string {
  const kind = value === null ? "null" : typeof value;
  const what = value === undefined ? "" : ` (it is ${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind})`;
  return `${file} has no exported function '${name}'${what}`;
}
