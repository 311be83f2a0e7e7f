/**
 * Reading the learner model's answer (pure): exactly one fenced block holding the component's
 * full new text. A truncated answer (finish reason `length`), no block, an unclosed block, more
 * than one block, an empty or unchanged text, one over the size limit or one that breaks the
 * component's format is not adopted; the reason says which.
 */
import { normalizeEol } from "../../adapter/files.js";
import { parseAgent, parseSkill, SKILL_NAME, AGENT_NAME } from "../../adapter/rules.js";
import { errorMessage } from "../../errors.js";
import { newComponentPath, type Component } from "./components.js";

export type Proposal = { ok: true; path: string; text: string; name?: string } | { ok: false; reason: string };

const FENCE = /^( {0,3})(`{3,}|~{3,})(.*)$/;

interface Block {
  text: string;
  closed: boolean;
}

/** The top-level fenced blocks of `answer` (CommonMark rules: a closing fence is at least as long as its opener). */
export function fencedBlocks(answer: string): Block[] {
  const blocks: Block[] = [];
  let open: { char: string; length: number; lines: string[] } | undefined;
  for (const line of normalizeEol(answer).split("\n")) {
    const match = FENCE.exec(line);
    if (!open) {
      if (match && !(match[2]!.startsWith("`") && match[3]!.includes("`"))) open = { char: match[2]![0]!, length: match[2]!.length, lines: [] };
      continue;
    }
    const closes = match && match[2]![0] === open.char && match[2]!.length >= open.length && match[3]!.trim() === "";
    if (closes) {
      blocks.push({ text: open.lines.join("\n"), closed: true });
      open = undefined;
    } else open.lines.push(line);
  }
  if (open) blocks.push({ text: open.lines.join("\n"), closed: false });
  return blocks;
}

export interface ProposalInput {
  answer: string;
  finishReason: string;
  maxOutputTokens?: number;
  component: Component;
  /** The component's current text (undefined for a new skill or subagent). */
  current?: string;
  /** Paths the candidate already has (a new component must not take one). */
  existing: ReadonlySet<string>;
}

/** Check an answer and take the new text out of it. */
export function readProposal(input: ProposalInput): Proposal {
  if (input.finishReason === "length") {
    return fail(`truncated: the answer stopped at the output limit${input.maxOutputTokens ? ` (${input.maxOutputTokens} tokens)` : ""} before it was complete`);
  }
  const blocks = fencedBlocks(input.answer);
  if (blocks.length === 0) return fail(input.answer.trim() === "" ? "empty: the answer was empty" : "malformed: the answer has no fenced block with the new text");
  if (blocks.some((block) => !block.closed)) return fail("malformed: the fenced block is never closed");
  if (blocks.length > 1) {
    return fail(`malformed: the answer has ${blocks.length} fenced blocks, expected exactly one (a text that contains fences must be wrapped in a longer fence, e.g. \`\`\`\`)`);
  }
  const text = `${blocks[0]!.text.trim()}\n`;
  if (text.trim() === "") return fail("empty: the fenced block is empty");
  if (input.current !== undefined && normalizeEol(input.current).trim() === text.trim()) return fail(`unchanged: the proposed ${input.component.path} is the current text`);
  const bytes = Buffer.byteLength(text, "utf8");
  if (input.component.maxBytes !== undefined && bytes > input.component.maxBytes) {
    return fail(`too large: ${bytes} bytes, over the limit of ${input.component.maxBytes} for ${input.component.path}`);
  }
  return checkFormat(input, text);
}

function fail(reason: string): Proposal {
  return { ok: false, reason };
}

function checkFormat(input: ProposalInput, text: string): Proposal {
  const { component } = input;
  try {
    if (component.format === "skill") return skillProposal(input, text);
    if (component.format === "agent") return agentProposal(input, text);
  } catch (error) {
    return fail(`malformed: ${component.path}: ${errorMessage(error)}`);
  }
  return { ok: true, path: component.path, text };
}

function skillProposal(input: ProposalInput, text: string): Proposal {
  const { component } = input;
  const name = component.kind === "new-skill" ? nameIn(text) : component.name!;
  if (component.kind === "new-skill" && (!name || !SKILL_NAME.test(name))) {
    return fail("malformed: a new skill needs frontmatter 'name' of 1-64 chars of a-z, 0-9 and single hyphens");
  }
  const path = component.kind === "new-skill" ? newComponentPath(component, name!) : component.path;
  if (!path) return fail(`malformed: no place for a new skill under ${component.path}`);
  if (component.kind === "new-skill" && [...input.existing].some((existing) => existing.startsWith(path.slice(0, path.lastIndexOf("/") + 1)))) {
    return fail(`malformed: a skill named '${name}' already exists`);
  }
  const parsed = parseSkill(text, path, path.split("/").at(-2)!);
  if (Array.isArray(parsed)) return fail(`malformed: ${path}: ${parsed.join("; ")}`);
  return { ok: true, path, text, name: parsed.name };
}

function agentProposal(input: ProposalInput, text: string): Proposal {
  const { component } = input;
  const name = component.kind === "new-agent" ? nameIn(text) : component.name!;
  if (component.kind === "new-agent" && (!name || !AGENT_NAME.test(name))) {
    return fail("malformed: a new subagent needs frontmatter 'name' of 1-64 chars of a-z, 0-9, '-' or '_'");
  }
  const path = component.kind === "new-agent" ? newComponentPath(component, name!) : component.path;
  if (!path) return fail(`malformed: no place for a new subagent under ${component.path}`);
  if (component.kind === "new-agent" && input.existing.has(path)) return fail(`malformed: a subagent named '${name}' already exists`);
  const parsed = parseAgent(text, path);
  if (Array.isArray(parsed)) return fail(`malformed: ${path}: ${parsed.join("; ")}`);
  if (component.kind === "agent" && parsed.name !== component.name) {
    return fail(`malformed: ${path}: the subagent's name changed from '${component.name}' to '${parsed.name}'`);
  }
  return { ok: true, path, text, name: parsed.name };
}

/** The frontmatter `name:` of a markdown text, read without a YAML parser (for choosing a path). */
function nameIn(text: string): string | undefined {
  const frontmatter = /^---\n([\s\S]*?)\n---/.exec(normalizeEol(text))?.[1];
  return frontmatter ? /^name:\s*["']?([^"'\n]+?)["']?\s*$/m.exec(frontmatter)?.[1] : undefined;
}
