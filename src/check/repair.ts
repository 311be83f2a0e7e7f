/**
 * Repair: restore what the check rejected. `planRepair` is pure (issues + what exists where →
 * actions); `applyRepair` is the only writer; `repairCandidate` checks, plans, applies and
 * checks again, and falls back to the previous accepted version if the targeted repair
 * was not enough.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cp, lstat, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import picomatch from "picomatch";
import { parseDocument } from "yaml";
import { IGNORED_DIRS, resolveInside, type Tree } from "../adapter/files.js";
import { walkTree } from "../adapter/tree.js";
import { FIXED_SECTIONS, MANIFEST_FILE } from "../adapter/manifest.js";
import { readManifest } from "../adapter/read.js";
import type { Manifest } from "../adapter/types.js";
import { HermitError, isHermitError } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic.js";
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

/**
 * Apply actions to the candidate. The only writer of repair; every write is atomic (a temp
 * file renamed into place). Links are replaced, never followed: a symlink standing where a
 * folder of the path should be is removed (restore) or means the path is not in the
 * candidate at all (delete), so nothing outside the candidate is ever written or deleted.
 */
export async function applyRepair(
  candidate: string,
  sources: { root: string; previous: string },
  actions: RepairAction[],
): Promise<void> {
  for (const action of actions) {
    if (action.op === "reset") {
      await resetTo(candidate, sources.previous);
    } else if (action.op === "delete") {
      const target = resolveInside(candidate, action.path);
      if (await insideFolders(candidate, action.path, "check")) {
        // A path longer than PATH_MAX cannot be named; the check after the repair fails and
        // the reset removes it from the top.
        await rm(target, { force: true, recursive: true }).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== "ENAMETOOLONG") throw error;
        });
      }
    } else if (action.op === "restore") {
      const from = action.from === "root" ? sources.root : sources.previous;
      const data = await readFile(resolveInside(from, action.path));
      const target = resolveInside(candidate, action.path);
      await insideFolders(candidate, action.path, "make");
      // A folder where the file belongs cannot be renamed over: it goes first.
      if ((await lstat(target).catch(() => undefined))?.isDirectory()) await removeTree(target);
      await writeFileAtomic(target, data);
    } else {
      await restoreSections(candidate, sources.root, action.sections);
    }
  }
}

/**
 * Whether every folder on the way to `path` is a real folder of the candidate. With "make",
 * missing folders are created and anything else in their place (a symlink, a file) is
 * removed first, so the answer is always true.
 */
async function insideFolders(candidate: string, path: string, mode: "check" | "make"): Promise<boolean> {
  const parts = path.split("/").slice(0, -1);
  let current = candidate;
  for (const part of parts) {
    current = join(current, part);
    const info = await lstat(current).catch(() => undefined);
    if (info?.isDirectory()) continue;
    if (mode === "check") return false;
    if (info) await removeTree(current);
    await mkdir(current);
  }
  return true;
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
  await writeFileAtomic(file, doc.toString());
}

/** Remove a file, link or folder (a link itself, never its target). */
async function removeTree(path: string | Buffer): Promise<void> {
  await rm(path, { force: true, recursive: true }).catch(async (error: NodeJS.ErrnoException) => {
    // fs.rm walks with whole paths; a tree nested past PATH_MAX needs rm(1), which does not.
    if (error.code !== "ENAMETOOLONG" || process.platform === "win32") throw error;
    await promisify(execFile)("rm", ["-rf", "--", Buffer.isBuffer(path) ? path.toString("utf8") : path]);
  });
}

/**
 * The candidate becomes a copy of `previous`: everything but `.git` and `node_modules` is
 * removed (links themselves, never their targets; names need not be UTF-8), then copied.
 */
async function resetTo(candidate: string, previous: string): Promise<void> {
  const entries = await readdir(candidate, { encoding: "buffer" });
  for (const name of entries) {
    if (IGNORED_DIRS.has(name.toString("utf8"))) continue;
    await removeTree(Buffer.concat([Buffer.from(`${candidate}/`), name]));
  }
  await cp(previous, candidate, {
    recursive: true,
    filter: (source) => !IGNORED_DIRS.has(basename(source)) || source === previous,
  });
}

/**
 * Check the candidate; if it fails, repair it in place from `root` (fixed files and manifest
 * sections) and `previous` (the last accepted version: learnable files), then check again.
 * `checked`: the check of the candidate as it is now, when the caller has just run it (with
 * `manifestErrors: "issue"`), so it is not run twice.
 */
export async function repairCandidate(
  candidate: string,
  root: string,
  previous: string,
  options: CheckOptions & { checked?: SpecResult } = {},
): Promise<RepairRecord> {
  const { checked, ...rest } = options;
  const checkOptions: CheckOptions = { ...rest, manifestErrors: "issue" };
  const first = checked ?? (await checkSpec(candidate, root, checkOptions));
  if (first.passed) return { before: [], actions: [], after: first };
  const [candidateTree, rootTree, previousTree, rootManifest] = await Promise.all([
    // A candidate with more entries than hermit walks cannot be repaired file by file.
    walkTree(candidate).catch((error: unknown) => {
      if (isHermitError(error) && error.code === "INPUT_TOO_LARGE") return undefined;
      throw error;
    }),
    walkTree(root),
    walkTree(previous),
    readManifest(root),
  ]);
  const actions: RepairAction[] = [];
  let after: SpecResult | undefined;
  if (candidateTree) {
    actions.push(...targetedRepair(first.issues, candidateTree, rootTree, previousTree, rootManifest));
    await applyRepair(candidate, { root, previous }, actions);
    after = await checkSpec(candidate, root, checkOptions);
  }
  if (!after?.passed) {
    const reset: RepairAction = { op: "reset", path: ".", from: "previous" };
    await applyRepair(candidate, { root, previous }, [reset]);
    actions.push(reset);
    after = await checkSpec(candidate, root, checkOptions);
  }
  return { before: first.issues, actions, after };
}

function targetedRepair(issues: Issue[], candidate: Tree, root: Tree, previous: Tree, rootManifest: Manifest): RepairAction[] {
  const names = (tree: Tree) => new Set(tree.files.map((f) => f.path));
  // Unfollowed symlinks and special files are never kept; they go first, before any write.
  const removed: RepairAction[] = candidate.problems.map((problem) => ({ op: "delete", path: problem.path }));
  const gone = new Set(removed.map((action) => action.path));
  const planned = planRepair(issues, {
    candidateFiles: names(candidate),
    rootFiles: names(root),
    previousFiles: names(previous),
    rootManifest,
  });
  // A link deleted above may still need its real file restored in its place.
  return [...removed, ...planned.filter((action) => !(action.op === "delete" && gone.has(action.path)))];
}
