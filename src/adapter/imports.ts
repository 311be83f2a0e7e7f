/**
 * Which imports of an adapter's code leave the adapter. An adapter is a portable artifact: its
 * code may import its own files, packages from its own `node_modules` and Node's built-ins,
 * nothing else. What is read is what jiti will run: each file transpiled as jiti transpiles it
 * (type-only imports are gone), parsed, and every `import`, `export … from`, `import()` and
 * `require()` with a literal specifier resolved as jiti resolves it. A specifier computed at
 * run time cannot be known here; an unresolvable one is left to fail when it is imported.
 */
import { readFile, realpath } from "node:fs/promises";
import { isBuiltin } from "node:module";
import { extname, isAbsolute, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";
import type { Node } from "acorn";
import type { Jiti } from "jiti";
import { LIMITS } from "./files.js";

/** One import that resolves outside the adapter. */
export interface OutsideImport {
  /** The adapter file that holds the import (relative POSIX path). */
  file: string;
  /** The specifier as written (`../../outside/evil.ts`). */
  specifier: string;
  /** The absolute path it resolves to. */
  resolved: string;
}

/** Files jiti transpiles; other files (JSON) hold no imports. */
const CODE = /\.(c|m)?(j|t)sx?$/;
/** Calls that load a module in jiti's output: `require(…)`, `jitiImport(…)`, and `import(…)`. */
const LOADERS = new Set(["require", "jitiImport"]);

/**
 * The imports of `entry` (absolute, inside `root`) and of every adapter file it imports, in
 * turn, that resolve outside `root`. Packages in `root/node_modules` are not followed.
 */
export async function findOutsideImports(jiti: Jiti, root: string, entry: string): Promise<OutsideImport[]> {
  const realRoot = await realpath(root);
  const modules = `${realRoot}${sep}node_modules${sep}`;
  const outside: OutsideImport[] = [];
  const seen = new Set<string>();
  const queue = [await realpath(entry)];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const { specifier, esm } of await specifiersOf(jiti, file)) {
      if (isBuiltin(specifier)) continue;
      const resolved = resolve(jiti, specifier, file, esm);
      if (resolved === undefined) continue;
      const real = await realpath(resolved).catch(() => resolved);
      if (!isInside(realRoot, real)) {
        outside.push({ file: relative(realRoot, file).split(sep).join("/"), specifier, resolved: real });
      } else if (!real.startsWith(modules)) {
        queue.push(real);
      }
    }
  }
  return outside;
}

/** "tools.ts imports '../x.ts' (/abs/x.ts), outside the adapter", for each import. */
export function describeOutsideImports(imports: OutsideImport[]): string {
  const each = imports.map(({ file, specifier, resolved }) => `${file} imports '${specifier}' (${resolved})`);
  return (
    `${each.join("; ")}: outside the adapter; ` +
    "an adapter's code may import only its own files, packages in its own node_modules and Node's built-ins"
  );
}

function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function resolve(jiti: Jiti, specifier: string, from: string, esm: boolean): string | undefined {
  const parentURL = pathToFileURL(from).href;
  try {
    const conditions = esm ? ["node", "import"] : ["node", "require"];
    const url = jiti.esmResolve(specifier, { parentURL, try: true, conditions });
    if (typeof url !== "string") return undefined;
    return url.startsWith("file:") ? new URL(url).pathname : url.startsWith("/") ? url : undefined;
  } catch {
    return undefined;
  }
}

async function specifiersOf(jiti: Jiti, file: string): Promise<Array<{ specifier: string; esm: boolean }>> {
  if (!CODE.test(extname(file))) return [];
  const source = await readFile(file, "utf8").catch(() => undefined);
  if (source === undefined || source.length > LIMITS.fileBytes) return [];
  let program: Node;
  try {
    // `async: true` is how jiti transpiles for `import`: ESM imports become `jitiImport(…)` calls.
    const code = jiti.transform({ source, filename: file, ts: /\.(c|m)?tsx?$/.test(file), async: true, jsx: false });
    const { parse } = await import("acorn");
    program = parse(code, { ecmaVersion: "latest", sourceType: "script", allowAwaitOutsideFunction: true, allowReturnOutsideFunction: true, allowHashBang: true });
  } catch {
    return []; // a syntax error: importing the file reports it
  }
  const found: Array<{ specifier: string; esm: boolean }> = [];
  visit(program, (node) => {
    const call = node as Node & { callee?: Node & { name?: string }; arguments?: Node[]; source?: Node };
    const argument =
      node.type === "ImportExpression" ? call.source : node.type === "CallExpression" && LOADERS.has(call.callee?.name ?? "") ? call.arguments?.[0] : undefined;
    const value = (argument as (Node & { value?: unknown }) | undefined)?.value;
    if (argument?.type === "Literal" && typeof value === "string") {
      found.push({ specifier: value, esm: node.type === "ImportExpression" || call.callee?.name === "jitiImport" });
    }
  });
  return found;
}

/** Every node of the tree, depth first. */
function visit(node: Node, each: (node: Node) => void): void {
  each(node);
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) visit(item, each);
    } else if (isNode(value)) {
      visit(value, each);
    }
  }
}

function isNode(value: unknown): value is Node {
  return value !== null && typeof value === "object" && typeof (value as { type?: unknown }).type === "string";
}

