/**
 * `checkSpec(adapter, root)`: does a candidate meet its template's specification and load?
 * Gathers the facts (the IO), runs the pure rules, then the child-process load check.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import picomatch from "picomatch";
import { assertDirectory } from "../adapter/files.js";
import { MANIFEST_FILE } from "../adapter/manifest.js";
import { inspectAdapter, readManifest, type Inspection } from "../adapter/read.js";
import { treeFile, walkTree } from "../adapter/tree.js";
import type { Manifest } from "../adapter/types.js";
import { HermitError, isHermitError } from "../errors.js";
import { runLoadCheck } from "./load-check.js";
import { fixedMatch, fixedPatterns, rules, uniqueIssues, type SpecFacts } from "./rules.js";
import type { CheckOptions, Issue, SpecResult } from "./types.js";

export async function checkSpec(adapterPath: string, rootPath: string, options: CheckOptions = {}): Promise<SpecResult> {
  const { timeoutMs } = options;
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) {
    throw new HermitError("USAGE", `checkSpec: timeoutMs must be a positive integer (got ${timeoutMs})`, { timeoutMs });
  }
  await assertDirectory(rootPath, "template root");
  await assertDirectory(adapterPath, "adapter");
  const rootManifest = await readManifest(rootPath);
  let inspection: Inspection;
  try {
    // The agent exporter is candidate code: it runs in the child process with the tool imports.
    inspection = await inspectAdapter(adapterPath, { runExporters: false });
  } catch (error) {
    if (options.manifestErrors !== "issue" || !isHermitError(error)) throw error;
    const problem = error.message.startsWith(adapterPath) ? error.message.slice(error.message.indexOf(": ") + 2) : error.message;
    // Too many files or bytes is about the whole candidate, not its manifest.
    const whole = error.code === "INPUT_TOO_LARGE" && error.data.path === adapterPath;
    const issue = whole ? { path: ".", check: "size", problem } : { path: MANIFEST_FILE, check: "manifest", problem };
    return { passed: false, issues: [issue], isolation: "not-run" };
  }
  const adapter = inspection.adapter;
  const facts = await gatherFacts(rootPath, inspection, rootManifest, await rootFixedFiles(rootPath, rootManifest));

  const issues: Issue[] = [...inspection.problems];
  for (const rule of rules) issues.push(...rule(facts));
  const load = await runLoadCheck(adapter, { path: rootPath, manifest: rootManifest }, options, facts.candidate.sizes);
  issues.push(...load.issues);
  const unique = uniqueIssues(issues);
  return { passed: unique.length === 0, issues: unique, isolation: load.isolation };
}

/**
 * The root's files under a fixed pattern. When every pattern names one file (the usual
 * `fixed: [tools.ts, README.md]`), those paths are looked up; only a glob walks the template.
 */
async function rootFixedFiles(rootPath: string, manifest: Manifest): Promise<Set<string>> {
  const patterns = fixedPatterns(manifest);
  if (patterns.some((pattern) => picomatch.scan(pattern).isGlob)) {
    const isFixed = fixedMatch(manifest);
    return new Set((await walkTree(rootPath)).files.map((file) => file.path).filter(isFixed));
  }
  const found = await Promise.all(patterns.map((pattern) => treeFile(rootPath, pattern)));
  return new Set(found.flatMap((file) => (file ? [file.path] : [])));
}

async function gatherFacts(
  rootPath: string,
  inspection: Inspection,
  rootManifest: Manifest,
  rootFiles: Set<string>,
): Promise<SpecFacts> {
  const sizes = new Map(inspection.tree.files.map((file) => [file.path, file.size]));
  const equal = new Map<string, boolean>();
  // Only fixed files are compared with the root.
  const isFixed = fixedMatch(rootManifest);
  for (const path of sizes.keys()) {
    if (!rootFiles.has(path) || !isFixed(path)) continue;
    const ours = inspection.bytes.get(path);
    equal.set(path, ours !== undefined && ours.equals(readFileSync(join(rootPath, path))));
  }
  return {
    candidate: {
      manifest: inspection.adapter.manifest,
      sizes,
      text: (path) => inspection.text(path),
      equalsRoot: (path) => equal.get(path) ?? false,
    },
    root: { manifest: rootManifest, files: rootFiles },
  };
}
