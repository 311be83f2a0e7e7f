/** Format rules shared by the reader and the spec check (pure). */
import { parseFrontmatter } from "./frontmatter.js";

export const SKILL_NAME = /^(?=.{1,64}$)[a-z0-9]+(-[a-z0-9]+)*$/;
export const AGENT_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export interface ParsedAgent {
  name: string;
  description: string;
  body: string;
  frontmatter: Record<string, unknown>;
}

/** Returns the agent, or the list of what is wrong with it. Throws only HermitError from YAML. */
export function parseAgent(text: string, file: string): ParsedAgent | string[] {
  const { data, body } = parseFrontmatter(text, file);
  const { name, description } = data;
  const problems = agentProblems(name, description, body, "frontmatter ");
  if (problems.length > 0) return problems;
  return { name: name as string, description: (description as string).trim(), body, frontmatter: data };
}

/**
 * What is wrong with an agent's name, description and body (empty when nothing). The same
 * rules hold for agent files and for what an `exports.agents.exporter` returns: the name
 * becomes a file name in every host.
 */
export function agentProblems(name: unknown, description: unknown, body: unknown, where = ""): string[] {
  const problems: string[] = [];
  if (typeof name !== "string" || name.trim() === "") problems.push(`${where}'name' is missing or empty`);
  else if (!AGENT_NAME.test(name)) {
    const shown = name.replace(/[\u0000-\u001f\u007f]/g, "?").slice(0, 80);
    problems.push(`agent name '${shown}' must be 1-64 chars of a-z, 0-9, '-' or '_'`);
  }
  if (typeof description !== "string" || description.trim() === "") {
    problems.push(`${where}'description' is missing or empty`);
  }
  if (typeof body !== "string" || body.trim() === "") problems.push("body (the agent's instructions) is empty");
  return problems;
}

export interface ParsedSkill {
  name: string;
  description: string;
  body: string;
  frontmatter: Record<string, unknown>;
}

/** Agent Skills rules: name = folder, 1-64 chars [a-z0-9-], description 1-1024 chars. */
export function parseSkill(text: string, file: string, folderName: string): ParsedSkill | string[] {
  const { data, body } = parseFrontmatter(text, file);
  const problems: string[] = [];
  const { name, description, compatibility } = data;
  if (typeof name !== "string" || name === "") problems.push("frontmatter 'name' is missing");
  else {
    if (!SKILL_NAME.test(name)) {
      problems.push(`skill name '${name}' must be 1-64 chars of a-z, 0-9 and single hyphens, not at either end`);
    }
    if (name !== folderName) problems.push(`skill name '${name}' differs from its folder name '${folderName}'`);
  }
  if (typeof description !== "string" || description.trim() === "") {
    problems.push("frontmatter 'description' is missing or empty");
  } else if (description.length > 1024) {
    problems.push(`description is ${description.length} chars, over the limit of 1024`);
  }
  if (compatibility !== undefined && (typeof compatibility !== "string" || compatibility.length > 500)) {
    problems.push("'compatibility' must be a string of at most 500 chars");
  }
  if (problems.length > 0) return problems;
  return { name: name as string, description: (description as string).trim(), body, frontmatter: data };
}
