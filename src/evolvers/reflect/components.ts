/**
 * The components `reflect` may rewrite (pure): the adapter's text files that the template
 * declares learnable — its context (ADAPTER.md), each skill's SKILL.md, each subagent, other
 * markdown and text files — plus a new skill or subagent where the learnable paths leave room.
 * One is chosen per step, by blame (the one the failures name) or round-robin.
 */
import picomatch from "picomatch";
import { contextPath } from "../../adapter/manifest.js";
import type { LearnableFormat, LearnableRule, Manifest } from "../../adapter/types.js";

export type ComponentKind = "context" | "skill" | "agent" | "text" | "new-skill" | "new-agent";

export interface Component {
  kind: ComponentKind;
  /** The file; for a new skill or subagent, the pattern it will be written under. */
  path: string;
  /** The skill's or subagent's name (from its path); absent for the context and other files. */
  name?: string;
  format: LearnableFormat;
  /** From the learnable rule; undefined: no limit. */
  maxBytes?: number;
}

const TEXT_FORMATS: ReadonlySet<LearnableFormat> = new Set(["markdown", "skill", "agent", "text"]);

/** The rule that governs `path` with a text format, if any (the most specific: the first listed). */
function textRule(rules: readonly LearnableRule[], path: string): LearnableRule | undefined {
  return rules.find((rule) => TEXT_FORMATS.has(rule.format ?? "any") && picomatch(rule.path, { dot: true })(path));
}

/** Every component of a candidate, from its file paths and the template's manifest. */
export function listComponents(paths: readonly string[], template: Manifest): Component[] {
  const rules = template.structure?.learnable ?? [];
  const isFixed = picomatch(template.structure?.fixed ?? [], { dot: true });
  const context = contextPath(template);
  const components: Component[] = [];
  for (const path of [...paths].sort()) {
    const rule = textRule(rules, path);
    if (path === context) {
      if (rule || !isFixed(path)) components.push({ kind: "context", path, format: rule?.format ?? "markdown", ...limit(rule) });
      continue;
    }
    if (!rule) continue;
    const format = rule.format!;
    if (format === "skill") components.push({ kind: "skill", path, name: path.split("/").at(-2)!, format, ...limit(rule) });
    else if (format === "agent") components.push({ kind: "agent", path, name: path.split("/").at(-1)!.replace(/\.md$/, ""), format, ...limit(rule) });
    else components.push({ kind: "text", path, format, ...limit(rule) });
  }
  for (const kind of ["skill", "agent"] as const) {
    const rule = rules.find((candidate) => candidate.format === kind);
    if (!rule) continue;
    const present = paths.filter((path) => picomatch(rule.path, { dot: true })(path)).length;
    if (rule.max_files === undefined || present < rule.max_files) {
      components.push({ kind: kind === "skill" ? "new-skill" : "new-agent", path: rule.path, format: kind, ...limit(rule) });
    }
  }
  return components;
}

function limit(rule: LearnableRule | undefined): { maxBytes?: number } {
  return rule?.max_bytes !== undefined ? { maxBytes: rule.max_bytes } : {};
}

/** Where a new skill or subagent named `name` goes, under its learnable pattern (`skills/*\/SKILL.md`). */
export function newComponentPath(component: Component, name: string): string | undefined {
  const parts = component.path.split("/");
  const star = parts.findIndex((part) => part === "*" || part === "*.md");
  if (star < 0 || parts.slice(star + 1).some((part) => part.includes("*"))) return undefined;
  parts[star] = parts[star] === "*.md" ? `${name}.md` : name;
  return parts.join("/");
}

/** What the failing rollouts say, lower-cased, for blame. */
export interface BlameEvidence {
  /** One text per failing rollout: its feedback, error and what it produced. */
  failures: string[];
}

/**
 * The component the failures implicate most: the one whose name or path appears in the most
 * failing rollouts (a skill the transcript shows was read, an agent the feedback names). None
 * when no component is named at all.
 */
export function blamed(components: readonly Component[], evidence: BlameEvidence): { component: Component; failures: number } | undefined {
  let best: { component: Component; failures: number } | undefined;
  for (const component of components) {
    if (component.kind === "new-skill" || component.kind === "new-agent" || component.kind === "context") continue;
    const needles = [component.path.toLowerCase(), ...(component.name && component.name.length >= 4 ? [component.name.toLowerCase()] : [])];
    const failures = evidence.failures.filter((text) => needles.some((needle) => text.includes(needle))).length;
    if (failures > 0 && (!best || failures > best.failures)) best = { component, failures };
  }
  return best;
}

/** The next component in a fixed order (context, skills, agents, other files, new ones), after `last`. */
export function roundRobin(components: readonly Component[], last: string | undefined): Component {
  const order = [...components].sort((a, b) => rank(a) - rank(b) || a.path.localeCompare(b.path));
  const at = last === undefined ? -1 : order.findIndex((component) => key(component) === last);
  return order[(at + 1) % order.length]!;
}

const RANKS: Record<ComponentKind, number> = { context: 0, skill: 1, agent: 2, text: 3, "new-skill": 4, "new-agent": 5 };
function rank(component: Component): number {
  return RANKS[component.kind];
}

/** A stable key: the path, with new-component slots told apart from files. */
export function key(component: Component): string {
  return component.kind === "new-skill" || component.kind === "new-agent" ? `${component.kind}:${component.path}` : component.path;
}
