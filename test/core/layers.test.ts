/**
 * The house rule, enforced: src/ is layered by pipeline stage, and an import only ever points
 * down (or sideways within a layer), never up, and never round in a circle between folders.
 * Reads every static and dynamic import of every src file (type-only imports included: a type
 * that points up is the same tangle).
 */
import { readFile } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers.js";
import { SRC, sourceFiles } from "./source-files.js";

/** Layers, lowest first. A unit is a folder under src/ or a top-level file (without extension). */
const LAYERS: string[][] = [
  ["errors", "fs", "sandbox", "duration", "suggest", "package-root"],
  ["adapter"],
  ["check"],
  ["hosts", "runtime", "models"],
  ["deploy", "verify", "acting"],
  ["train"],
  ["evolvers", "tasks", "report", "executors"],
  ["cli", "cli.ts", "index", "plugin", "builtins"],
];

/**
 * Edges that break the rule today and are being removed (issue 10): each must disappear, and
 * this list with it. A new violation fails the test.
 */
const KNOWN: string[] = [];

const IMPORT = /(?:^|[^.\w])(?:import|export)\s[^'"`;]*?from\s*["']([^"']+)["']|(?:^|[^.\w])import\s*\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm;


function unitOf(file: string): string {
  const rel = relative(SRC, file).split("/");
  return rel.length > 1 ? rel[0]! : rel[0]!.replace(/\.(ts|mts)$/, "") === "cli" ? "cli.ts" : rel[0]!.replace(/\.(ts|mts)$/, "");
}

function layerOf(unit: string): number {
  const index = LAYERS.findIndex((layer) => layer.includes(unit));
  if (index < 0) throw new Error(`src unit '${unit}' has no layer: add it to LAYERS in ${relative(repoRoot, import.meta.filename)}`);
  return index;
}

/** Every import edge between units: `from → to` with the file that makes it. */
async function edges(): Promise<Array<{ from: string; to: string; file: string }>> {
  const out: Array<{ from: string; to: string; file: string }> = [];
  for (const file of await sourceFiles(SRC)) {
    const text = (await readFile(file, "utf8")).replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? match[3];
      if (!specifier?.startsWith(".")) continue;
      const target = resolve(dirname(file), specifier);
      if (!target.startsWith(`${SRC}/`)) continue;
      const from = unitOf(file);
      const to = unitOf(target.replace(/\.js$/, ".ts"));
      if (from !== to) out.push({ from, to, file: relative(repoRoot, file) });
    }
  }
  return out;
}

/** Import edges between src files, type-only ones included (a type circle is the same tangle to a reader). */
async function fileEdges(): Promise<Map<string, Set<string>>> {
  const graph = new Map<string, Set<string>>();
  for (const file of await sourceFiles(SRC)) {
    const text = (await readFile(file, "utf8")).replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    const targets = new Set<string>();
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? match[3];
      if (!specifier?.startsWith(".")) continue;
      const target = resolve(dirname(file), specifier).replace(/\.js$/, ".ts");
      if (target.startsWith(`${SRC}/`)) targets.add(relative(repoRoot, target));
    }
    graph.set(relative(repoRoot, file), targets);
  }
  return graph;
}

/** Every circle of `graph`, each once, as "a → b → a". */
function circlesOf(graph: Map<string, Set<string>>): string[] {
  const circles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (node: string, path: string[]) => {
    if (state.get(node) === "done") return;
    if (state.get(node) === "open") {
      circles.push([...path.slice(path.indexOf(node)), node].join(" → "));
      return;
    }
    state.set(node, "open");
    for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
    state.set(node, "done");
  };
  for (const node of [...graph.keys()].sort()) visit(node, []);
  return circles;
}

describe("import layers", () => {
  it("every src folder and top-level file has a layer, and no import points up", async () => {
    const all = await edges();
    const upward = all
      .filter((edge) => layerOf(edge.to) > layerOf(edge.from))
      .map((edge) => `${edge.file}: ${edge.from} (layer ${layerOf(edge.from)}) imports ${edge.to} (layer ${layerOf(edge.to)})`);
    const unknown = upward.filter((line) => !KNOWN.some((known) => line.startsWith(known)));
    expect(unknown).toEqual([]);
  });

  it("no circle between folders", async () => {
    const graph = new Map<string, Set<string>>();
    for (const edge of await edges()) {
      if (!graph.has(edge.from)) graph.set(edge.from, new Set());
      graph.get(edge.from)!.add(edge.to);
    }
    expect(circlesOf(graph).filter((circle) => !KNOWN.includes(circle))).toEqual([]);
  });

  it("every known violation still exists: a fixed one leaves the list", async () => {
    const all = await edges();
    const upward = all.filter((edge) => layerOf(edge.to) > layerOf(edge.from)).map((edge) => `${edge.file}: ${edge.from} (layer ${layerOf(edge.from)}) imports ${edge.to}`);
    const folderGraph = new Map<string, Set<string>>();
    for (const edge of all) {
      if (!folderGraph.has(edge.from)) folderGraph.set(edge.from, new Set());
      folderGraph.get(edge.from)!.add(edge.to);
    }
    const seen = [...upward, ...circlesOf(folderGraph), ...circlesOf(await fileEdges())];
    expect(KNOWN.filter((known) => !seen.some((line) => line.startsWith(known)))).toEqual([]);
  });

  it("no circle between files, type-only imports included", async () => {
    expect(circlesOf(await fileEdges()).filter((circle) => !KNOWN.includes(circle))).toEqual([]);
  });
});
