/**
 * The specification rules (docs/spec-check.md), pure: each takes the gathered facts about a
 * candidate and its root and returns issues. The IO shell in `check.ts` gathers the facts.
 */
import picomatch from "picomatch";
import { LIMITS } from "../adapter/files.js";
import { CONTEXT_FILE, FIXED_SECTIONS, MANIFEST_FILE } from "../adapter/manifest.js";
import { parseAgent, parseSkill } from "../adapter/rules.js";
import type { LearnableRule, Manifest } from "../adapter/types.js";
import type { Issue } from "./types.js";

/** Files every adapter may hold whatever its structure says. */
export const ALWAYS_DECLARED: ReadonlySet<string> = new Set([MANIFEST_FILE, CONTEXT_FILE, "CARD.md"]);

export interface SpecFacts {
  candidate: {
    manifest: Manifest;
    /** path → size in bytes */
    sizes: Map<string, number>;
    /** path → UTF-8 text, or undefined when not UTF-8; only for learnable files with a format */
    text: (path: string) => string | undefined;
    /** path → true when the bytes equal the root's file */
    equalsRoot: (path: string) => boolean;
  };
  /** The root's files under a fixed pattern (the only ones the rules look at). */
  root: { manifest: Manifest; files: Set<string> };
}

export type Rule = (facts: SpecFacts) => Issue[];

const compiled = new Map<string, (path: string) => boolean>();

/**
 * A pattern's matcher, compiled once: manifests are handed out as fresh copies (see
 * `parseManifest`), so the rules see the same patterns in new objects at every check.
 */
function matcher(pattern: string): (path: string) => boolean {
  let match = compiled.get(pattern);
  if (!match) {
    if (compiled.size >= 1024) compiled.clear();
    match = picomatch(pattern, { dot: true });
    compiled.set(pattern, match);
  }
  return match;
}

/** The manifest's fixed patterns: `structure.fixed` and the custom checker's file. */
export function fixedPatterns(manifest: Manifest): string[] {
  const patterns = [...(manifest.structure?.fixed ?? [])];
  if (manifest.check) patterns.push(manifest.check.slice(0, manifest.check.lastIndexOf(":")));
  return patterns;
}

const fixedMatchers = new WeakMap<Manifest, (path: string) => boolean>();

/** Whether a path is fixed by the manifest: under a `fixed` pattern, or the custom checker. */
export function fixedMatch(manifest: Manifest): (path: string) => boolean {
  let isFixed = fixedMatchers.get(manifest);
  if (!isFixed) {
    const matchers = fixedPatterns(manifest).map(matcher);
    isFixed = (path) => matchers.some((match) => match(path));
    fixedMatchers.set(manifest, isFixed);
  }
  return isFixed;
}

/** Each learnable rule of `manifest` with its matcher. */
function learnableRules(manifest: Manifest): Array<{ rule: LearnableRule; match: (path: string) => boolean }> {
  return (manifest.structure?.learnable ?? []).map((rule) => ({ rule, match: matcher(rule.path) }));
}

/** True for a path a candidate may change: one a learnable pattern of `manifest` matches and no fixed one does. */
export function learnableMatch(manifest: Manifest): (path: string) => boolean {
  const isFixed = fixedMatch(manifest);
  const rules = learnableRules(manifest);
  return (path) => !isFixed(path) && rules.some(({ match }) => match(path));
}

export const fixedFilesRule: Rule = ({ candidate, root }) => {
  const isFixed = fixedMatch(root.manifest);
  const issues: Issue[] = [];
  const checkFile = root.manifest.check?.slice(0, root.manifest.check.lastIndexOf(":"));
  for (const path of root.files) {
    // The template's own checker lives in the root; a candidate need not carry a copy.
    if (!isFixed(path) || path === checkFile) continue;
    if (!candidate.sizes.has(path)) issues.push({ path, check: "fixed", problem: "fixed file is missing" });
    else if (!candidate.equalsRoot(path)) {
      issues.push({ path, check: "fixed", problem: "fixed file differs from the template" });
    }
  }
  for (const path of candidate.sizes.keys()) {
    if (!isFixed(path) || root.files.has(path) || ALWAYS_DECLARED.has(path)) continue;
    issues.push({ path, check: "fixed", problem: "matches a fixed path but is not in the template" });
  }
  if (checkFile && candidate.sizes.has(checkFile) && !candidate.equalsRoot(checkFile)) {
    issues.push({ path: checkFile, check: "fixed", problem: "the custom checker differs from the template's" });
  }
  return issues;
};

export const requiredFilesRule: Rule = ({ candidate }) =>
  [MANIFEST_FILE, CONTEXT_FILE]
    .filter((path) => !candidate.sizes.has(path))
    .map((path) => ({ path, check: "required", problem: "required file is missing" }));

function formatProblems(rule: LearnableRule, path: string, size: number, text: string | undefined): string[] {
  if (!rule.format || rule.format === "any") return [];
  if (size > LIMITS.fileBytes) return [`is over the limit of ${LIMITS.fileBytes} bytes hermit reads`];
  if (text === undefined) return ["is not valid UTF-8 text"];
  if (rule.format === "agent") return asProblems(() => parseAgent(text, path));
  if (rule.format === "skill") {
    const parts = path.split("/");
    return asProblems(() => parseSkill(text, path, parts[parts.length - 2] ?? ""));
  }
  return [];
}

function asProblems(parse: () => unknown): string[] {
  try {
    const result = parse();
    return Array.isArray(result) ? (result as string[]) : [];
  } catch (error) {
    return [(error as Error).message.replace(/^.*?: /, "")];
  }
}

/** Learnable paths: every candidate file must be declared; declared files meet format, size and count. */
export const learnableRule: Rule = ({ candidate, root }) => {
  const rules = learnableRules(root.manifest);
  const isFixed = fixedMatch(root.manifest);
  const issues: Issue[] = [];
  const counts = new Map<LearnableRule, string[]>();
  for (const [path, size] of candidate.sizes) {
    const applying = rules.filter(({ match }) => match(path));
    if (applying.length === 0) {
      if (!isFixed(path) && !ALWAYS_DECLARED.has(path)) {
        issues.push({ path, check: "undeclared", problem: "outside the learnable paths" });
      }
      continue;
    }
    for (const { rule } of applying) {
      const matched = counts.get(rule);
      if (matched) matched.push(path);
      else counts.set(rule, [path]);
      if (rule.max_bytes !== undefined && size > rule.max_bytes) {
        issues.push({ path, check: "size", problem: `${size} bytes, over the limit of ${rule.max_bytes} (${rule.path})` });
      }
      for (const problem of formatProblems(rule, path, size, candidate.text(path))) {
        issues.push({ path, check: "format", problem: `${problem} (format ${rule.format})` });
      }
    }
  }
  for (const [rule, paths] of counts) {
    if (rule.max_files !== undefined && paths.length > rule.max_files) {
      issues.push({
        path: rule.path,
        check: "count",
        problem: `${paths.length} files match, over the limit of ${rule.max_files}`,
      });
    }
  }
  return issues;
};

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

export const fixedSectionsRule: Rule = ({ candidate, root }) =>
  FIXED_SECTIONS.filter((section) => canonical(candidate.manifest[section]) !== canonical(root.manifest[section])).map(
    (section) => ({
      path: `${MANIFEST_FILE}#${section}`,
      check: "manifest",
      problem: `fixed manifest section '${section}' differs from the template`,
    }),
  );

/** In the order they are reported. */
export const rules: readonly Rule[] = [requiredFilesRule, fixedSectionsRule, fixedFilesRule, learnableRule];

/**
 * Drop duplicates, keep order. The reader checks agents and skills in the export folders and
 * a learnable rule with a format checks the same files again; the rule's copy of a problem
 * only adds which format (" (format agent)"), so one issue is reported, the first.
 */
export function uniqueIssues(issues: Issue[]): Issue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const problem = issue.check === "format" ? issue.problem.replace(/ \(format [a-z]+\)$/, "") : issue.problem;
    const key = `${issue.path}\0${issue.check}\0${problem}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
