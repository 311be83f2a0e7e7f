/**
 * Loading adapter code (tool entrypoints, agent exporters, custom checks, plugins).
 * TypeScript loads without a build step through jiti; the module's own `node_modules`
 * resolve from its location. jiti itself is loaded only when there is code to load.
 */
import { stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import type { Jiti, TransformOptions, TransformResult } from "jiti";
import { HermitError } from "../errors.js";
import { resolveInside } from "./files.js";
import { describeOutsideImports, findOutsideImports } from "./imports.js";
import type { Entrypoint } from "./types.js";

let loader: Jiti | undefined;

/** Transpilations kept (the import check and the import transpile the same files). */
const TRANSPILED_LIMIT = 256;

/**
 * The jiti instance: it transpiles per file with no disk cache, so a candidate never sees a
 * stale transpilation of a file the Evolver just edited. Transpilations are remembered by
 * file, options and source within the process: `importAdapterModule` transpiles each file to
 * read its imports, then jiti needs the same transpilation to run it.
 */
async function jiti(): Promise<Jiti> {
  if (!loader) {
    // jiti's CommonJS entry: importing it as ESM would first have Node scan its 190 kB bundle for exports.
    const { createJiti } = createRequire(import.meta.url)("jiti") as typeof import("jiti");
    const options = { fsCache: false, moduleCache: false, interopDefault: true } as const;
    const plain = createJiti(import.meta.url, options);
    const transpiled = new Map<string, string>();
    const transform = (input: TransformOptions): TransformResult => {
      const { source, ...rest } = input;
      const settings = Object.keys(rest).sort().map((name) => `${name}=${JSON.stringify(rest[name as keyof typeof rest])}`);
      const key = `${settings.join("&")}\0${source}`;
      let code = transpiled.get(key);
      if (code === undefined) {
        code = plain.transform(input);
        if (transpiled.size >= TRANSPILED_LIMIT) transpiled.clear();
        transpiled.set(key, code);
      }
      return { code };
    };
    loader = createJiti(import.meta.url, { ...options, transform });
  }
  return loader;
}

/** Import a module by absolute path (TypeScript or JavaScript). */
export async function importModule(absolutePath: string): Promise<Record<string, unknown>> {
  return (await (await jiti()).import(pathToFileURL(absolutePath).href)) as Record<string, unknown>;
}

/**
 * Import a module of the adapter (or template) in `root`, by absolute path. Refuses, before
 * running any of it, a module that imports code outside `root`, directly or through the
 * adapter's other files (`imports.ts`): ADAPTER_INVALID naming each file and import. Tool
 * runtimes, the spec check and agent exporters load adapter code through here.
 */
export async function importAdapterModule(root: string, absolutePath: string): Promise<Record<string, unknown>> {
  const outside = await findOutsideImports(await jiti(), root, absolutePath);
  if (outside.length > 0) {
    throw new HermitError("ADAPTER_INVALID", describeOutsideImports(outside), { path: absolutePath, imports: outside });
  }
  return importModule(absolutePath);
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
    module = await importAdapterModule(root, file);
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
