/**
 * Repair: restore what the check rejected. `planRepair` is pure (issues + what exists where →
 * actions); `applyRepair` is the only writer; `repairCandidate` checks, plans, applies and
 * checks again, and falls back to the previous accepted version if the targeted repair
 * was not enough.
 */
import { cp, mkdir, readFile, rm, writeFile, rename } from "node:fs/promises";
import { dirname, join } from "node:path";
import picomatch from "picomatch";
import { parseDocument } from "yaml";
import { resolveInside, walkTree } from "../adapter/files.js";
import { FIXED_SECTIONS, MANIFEST_FILE } from "../adapter/manifest.js";
import { readManifest } from "../adapter/read.js";
import type { Manifest } from "../adapter/types.js";
import { checkSpec } from "./check.js";
import type { CheckOptions, Issue, SpecResult } from "./types.js";

export type RepairAction =
  | { op: "restore"; path: string; from: "root" | "previous" }
  | { op: "delete"; path: string }
  | { op: "restore-sections"; path: typeof MANIFEST_FILE; sections: string[] }
  /** Last resort: the candidate becomes the previous accepted version again. */
  | { op: "reset"; path: "."; from: "previous" };

export interface RepairRecord {
  /** The issues of the invalid candidate, before any repair. */
  before: Issue[];
  actions: RepairAction[];
  /** The check after the repair. */
  after: SpecResult;
}

export interface RepairFacts {
  candidateFiles: ReadonlySet<string>;
  rootFiles: ReadonlySet<string>;
  previousFiles: ReadonlySet<string>;
  rootManifest: Manifest;
}

/** Decide how to repair each issue. Pure. */
export function planRepair(issues: Issue[], facts: RepairFacts): RepairAction[] {
  const actions = new Map<string, RepairAction>();
  const sections = new Set<string>();
  const add = (action: RepairAction) => {
    if (!actions.has(action.path)) actions.set(action.path, action);
  };
  // A learnable file goes back to its accepted state; one the accepted version lacked goes away.
  const restoreOrDelete = (path: string) => {
    if (facts.previousFiles.has(path)) add({ op: "restore", path, from: "previous" });
    else if (facts.candidateFiles.has(path)) add({ op: "delete", path });
  };
  for (const issue of issues) {
    const [file, section] = issue.path.split("#");
    if (issue.check === "manifest" && section && (FIXED_SECTIONS as readonly string[]).includes(section)) {
      sections.add(section);
    } else if (issue.check === "manifest" || file === MANIFEST_FILE) {
      restoreOrDelete(MANIFEST_FILE);
    } else if (issue.check === "fixed") {
      if (facts.rootFiles.has(file)) add({ op: "restore", path: file, from: "root" });
      else add({ op: "delete", path: file });
    } else if (issue.check === "required") {
      if (facts.previousFiles.has(file)) add({ op: "restore", path: file, from: "previous" });
      else if (facts.rootFiles.has(file)) add({ op: "restore", path: file, from: "root" });
    } else if (issue.check === "undeclared") {
      add({ op: "delete", path: file });
    } else if (issue.check === "count") {
      // Too many files under one pattern: drop those the previous version did not have.
      const match = picomatch(file, { dot: true });
      for (const path of facts.candidateFiles) if (match(path) && !facts.previousFiles.has(path)) add({ op: "delete", path });
    } else {
      restoreOrDelete(file);
    }
  }
  const planned = [...actions.values()];
  if (sections.size > 0 && !actions.has(MANIFEST_FILE)) {
    planned.push({ op: "restore-sections", path: MANIFEST_FILE, sections: [...sections].sort() });
  }
  return planned;
}

/** Apply actions to the candidate. The only writer of repair; every write is atomic. */
export async function applyRepair(
  candidate: string,
  sources: { root: string; previous: string },
  actions: RepairAction[],
): Promise<void> {
  for (const action of actions) {
    if (action.op === "reset") {
      await resetTo(candidate, sources.previous);
    } else if (action.op === "delete") {
      await rm(resolveInside(candidate, action.path), { force: true, recursive: true });
    } else if (action.op === "restore") {
      const from = action.from === "root" ? sources.root : sources.previous;
      await atomicWrite(resolveInside(candidate, action.path), await readFile(resolveInside(from, action.path)));
    } else {
      await restoreSections(candidate, sources.root, action.sections);
    }
  }
}

async function atomicWrite(file: string, data: Uint8Array | string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.hermit-tmp-${process.pid}`;
  await writeFile(temp, data);
  await rename(temp, file);
}

/** Copy the root's fixed sections into the candidate's manifest, keeping the rest (and comments). */
async function restoreSections(candidate: string, root: string, sections: string[]): Promise<void> {
  const rootManifest = await readManifest(root);
  const file = join(candidate, MANIFEST_FILE);
  const doc = parseDocument(await readFile(file, "utf8"));
  for (const section of sections) {
    const value = rootManifest[section as keyof Manifest];
    if (value === undefined) doc.delete(section);
    else doc.set(section, doc.createNode(value));
  }
  await atomicWrite(file, doc.toString());
}

async function resetTo(candidate: string, previous: string): Promise<void> {
  const current = await walkTree(candidate);
  await Promise.all(current.files.map((file) => rm(join(candidate, file.path), { force: true })));
  await Promise.all(current.problems.map((problem) => rm(join(candidate, problem.path), { force: true, recursive: true })));
  await cp(previous, candidate, { recursive: true, filter: (source) => !/[/\\](\.git|node_modules)$/.test(source) });
}

/**
 * Check the candidate; if it fails, repair it in place from `root` (fixed files and manifest
 * sections) and `previous` (the last accepted version: learnable files), then check again.
 */
export async function repairCandidate(
  candidate: string,
  root: string,
  previous: string,
  options: CheckOptions = {},
): Promise<RepairRecord> {
  const checkOptions: CheckOptions = { ...options, manifestErrors: "issue" };
  const first = await checkSpec(candidate, root, checkOptions);
  if (first.passed) return { before: [], actions: [], after: first };
  const [candidateTree, rootTree, previousTree, rootManifest] = await Promise.all([
    walkTree(candidate),
    walkTree(root),
    walkTree(previous),
    readManifest(root),
  ]);
  const names = (tree: { files: { path: string }[] }) => new Set(tree.files.map((f) => f.path));
  // Unfollowed symlinks and special files are never kept; they go first, before any write.
  const actions: RepairAction[] = candidateTree.problems.map((problem) => ({ op: "delete", path: problem.path }));
  actions.push(...planRepair(first.issues, {
    candidateFiles: names(candidateTree),
    rootFiles: names(rootTree),
    previousFiles: names(previousTree),
    rootManifest,
  }).filter((action) => !actions.some((done) => done.path === action.path)));
  await applyRepair(candidate, { root, previous }, actions);
  let after = await checkSpec(candidate, root, checkOptions);
  if (!after.passed) {
    const reset: RepairAction = { op: "reset", path: ".", from: "previous" };
    await applyRepair(candidate, { root, previous }, [reset]);
    actions.push(reset);
    after = await checkSpec(candidate, root, checkOptions);
  }
  return { before: first.issues, actions, after };
}
