/**
 * Finding exported items in what a host sent to the stub model. Pure: works on recorded
 * requests (parsed JSON bodies) and listing-command output; no IO.
 *
 * A host sends, in its first request, the instruction text, the names and descriptions of
 * the skills and subagents it discovered (never their bodies) and the tools it connected
 * (docs/hosts.md). Matching is on normalized text: XML/HTML entities decoded and runs
 * of whitespace collapsed, because hosts embed descriptions in XML, JSON and Markdown.
 */
import type { RecordedRequest } from "./stub-model.js";

/** Where an item was seen: a field of a recorded request, or a line of a listing command. */
export type Evidence = RequestEvidence | CommandEvidence;

export interface RequestEvidence {
  /** 1-based index of the request in the stub's record. */
  request: number;
  /** JSON path of the field inside the request body, e.g. `messages[0].content[1].text`. */
  field: string;
  /** The matched text with a little context (at most about 200 characters). */
  excerpt: string;
}

export interface CommandEvidence {
  /** The listing command as a person would type it, e.g. `claude mcp list`. */
  command: string;
  /** The line of its output that names the item. */
  line: string;
}

/** One string found in a request body, with its JSON path. */
export interface StringField {
  request: number;
  field: string;
  text: string;
  /** `text` normalized (see `normalizeText`). */
  normalized: string;
}

const EXCERPT_CHARS = 200;
const NAME_CHAR = "A-Za-z0-9_\\-";

/** Decode the XML/HTML entities hosts use and collapse whitespace. */
export function normalizeText(text: string): string {
  return text
    .replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos|nbsp);/gi, (_, entity: string) => {
      const lower = entity.toLowerCase();
      if (lower.startsWith("#x")) return String.fromCodePoint(Number.parseInt(lower.slice(2), 16));
      if (lower.startsWith("#")) return String.fromCodePoint(Number.parseInt(lower.slice(1), 10));
      return { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " }[lower] ?? entity;
    })
    .replace(/\s+/g, " ")
    .trim();
}

/** Every string inside `value`, with its JSON path (`a.b[2].c`). */
export function stringFieldsOf(value: unknown, request: number): StringField[] {
  const out: StringField[] = [];
  const walk = (node: unknown, path: string) => {
    if (typeof node === "string") {
      out.push({ request, field: path, text: node, normalized: normalizeText(node) });
    } else if (Array.isArray(node)) {
      node.forEach((child, index) => walk(child, `${path}[${index}]`));
    } else if (node !== null && typeof node === "object") {
      for (const [key, child] of Object.entries(node)) walk(child, path === "" ? key : `${path}.${key}`);
    }
  };
  walk(value, "");
  return out;
}

/** The string fields of every model request (those the stub understood), in request order. */
export function modelFields(requests: readonly RecordedRequest[]): StringField[] {
  return requests.filter((request) => request.protocol !== "unknown").flatMap((request) => stringFieldsOf(request.body, request.index));
}

/** A short excerpt of `text` around `[start, end)`. */
export function excerpt(text: string, start: number, end: number): string {
  const room = Math.max(0, EXCERPT_CHARS - (end - start));
  const from = Math.max(0, start - Math.floor(room / 4));
  const to = Math.min(text.length, Math.max(end, from + EXCERPT_CHARS));
  return `${from > 0 ? "…" : ""}${text.slice(from, to)}${to < text.length ? "…" : ""}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A regular expression matching `name` as a whole name (not part of a longer name). */
export function wholeName(name: string): RegExp {
  return new RegExp(`(?<![${NAME_CHAR}])${escapeRegExp(name)}(?![${NAME_CHAR}])`, "g");
}

/** How far after an item's name its description may start (hosts list `name: description`). */
const DESCRIPTION_WINDOW = 400;
/** Descriptions are compared on their first characters; hosts may shorten long ones. */
const DESCRIPTION_PREFIX = 80;

export interface NamedMatch {
  evidence?: RequestEvidence;
  /** Where the name alone was seen, when no field held it with its description. */
  nameOnly?: RequestEvidence;
}

/**
 * Find `name` followed closely by (the start of) `description` in one field: how hosts
 * present discovered skills and subagents (`- reviewer: Reviews…`, `<name>…</name>
 * <description>…`, `reviewer -> Reviews…`, `reviewer: {\nReviews…`). A name in
 * parentheses is an alias, not the identity the host uses, and does not count.
 */
export function findNamed(fields: readonly StringField[], name: string, description: string): NamedMatch {
  const wanted = normalizeText(description).slice(0, DESCRIPTION_PREFIX);
  let nameOnly: RequestEvidence | undefined;
  for (const field of fields) {
    const text = field.normalized;
    for (const match of text.matchAll(wholeName(name))) {
      const after = match.index + name.length;
      // `- other-name (name): …` is Claude Code listing a skill under its folder name, with
      // the frontmatter name as an alias in parentheses; the item is not known as `name`.
      if (text[match.index - 1] === "(" && text[after] === ")") {
        nameOnly ??= { request: field.request, field: field.field, excerpt: excerpt(text, Math.max(0, match.index - 60), after + 1) };
        continue;
      }
      const window = text.slice(after, after + DESCRIPTION_WINDOW + wanted.length);
      const at = wanted === "" ? -1 : window.indexOf(wanted);
      if (at >= 0) {
        return { evidence: { request: field.request, field: field.field, excerpt: excerpt(text, match.index, after + at + wanted.length) } };
      }
      nameOnly ??= { request: field.request, field: field.field, excerpt: excerpt(text, match.index, after) };
    }
  }
  return nameOnly ? { nameOnly } : {};
}

export interface ContextMatch {
  evidence?: RequestEvidence;
  /** Lines of the block that reached the model in the best field, and how many there are. */
  found: number;
  total: number;
  /** The first block line missing from the best field. */
  missing?: string;
  /** Where the most lines were seen, when no field held them all. */
  partial?: RequestEvidence;
}

/**
 * The lines of a managed block a host must show the model: every non-blank line between
 * the markers, except the markers themselves (hosts may strip HTML comments) and `@path`
 * import lines (Claude Code replaces them with the imported file).
 */
export function contextLines(block: string): string[] {
  return block
    .split(/\r?\n/)
    .map((line) => normalizeText(line))
    .filter((line) => line !== "" && !/^<!--.*-->$/.test(line) && !/^@\S+$/.test(line));
}

/** Find the field that holds every line of the block; else report the best partial match. */
export function findContext(fields: readonly StringField[], lines: readonly string[]): ContextMatch {
  let best: { field: StringField; found: number; missing?: string } | undefined;
  for (const field of fields) {
    let found = 0;
    let missing: string | undefined;
    for (const line of lines) {
      if (field.normalized.includes(line)) found++;
      else missing ??= line;
    }
    if (found > (best?.found ?? 0)) best = { field, found, missing };
    if (found === lines.length) break;
  }
  if (!best) return { found: 0, total: lines.length, missing: lines[0] };
  const first = lines.find((line) => best.field.normalized.includes(line)) ?? "";
  const at = best.field.normalized.indexOf(first);
  const evidence = { request: best.field.request, field: best.field.field, excerpt: excerpt(best.field.normalized, at, at + first.length) };
  if (best.found === lines.length) return { evidence, found: best.found, total: lines.length };
  return { found: best.found, total: lines.length, ...(best.missing !== undefined ? { missing: best.missing } : {}), partial: evidence };
}

/**
 * The fields with the managed block's own text blanked out, so that a skill, subagent or tool
 * the adapter's context merely mentions (`- reviewer: Reviews…`, "call
 * `mcp__x__count_words`") is not taken for the host having discovered it. The block's lines
 * are looked for in order, starting with the block's generated title; the search stops at the
 * first line a field lacks. Only the runs of block lines are blanked, not what lies between
 * them (Claude Code puts an imported `@AGENTS.md` there), so a listing the host placed
 * elsewhere in the same field is kept.
 */
export function withoutContext(fields: readonly StringField[], lines: readonly string[]): StringField[] {
  if (lines.length === 0) return [...fields];
  return fields.map((field) => {
    const text = field.normalized;
    const spans: Array<[number, number]> = [];
    let cursor = 0;
    for (const line of lines) {
      const at = text.indexOf(line, cursor);
      if (at < 0) break;
      const last = spans.at(-1);
      if (last && text.slice(last[1], at).trim() === "") last[1] = at + line.length;
      else spans.push([at, at + line.length]);
      cursor = at + line.length;
    }
    if (spans.length === 0) return field;
    let out = "";
    let from = 0;
    for (const [start, end] of spans) {
      out += `${text.slice(from, start)} `;
      from = end;
    }
    return { ...field, normalized: normalizeText(out + text.slice(from)) };
  });
}

/** A tool a request offered the model, under its full name (`mcp__server__tool`, …). */
export interface OfferedTool {
  request: number;
  name: string;
  field: string;
}

/**
 * The tools each request declares, in the shape of its protocol: Anthropic `tools[].name`,
 * OpenAI Responses `tools[].name` and namespaces `tools[].tools[].name` (named
 * `<namespace>__<tool>`), Chat Completions `tools[].function.name`, Gemini
 * `tools[].functionDeclarations[].name`.
 */
export function offeredTools(requests: readonly RecordedRequest[]): OfferedTool[] {
  const out: OfferedTool[] = [];
  for (const request of requests) {
    const tools = (request.body as { tools?: unknown } | undefined)?.tools;
    if (!Array.isArray(tools)) continue;
    tools.forEach((tool: Record<string, unknown>, i) => {
      if (tool === null || typeof tool !== "object") return;
      if (typeof tool.name === "string") out.push({ request: request.index, name: tool.name, field: `tools[${i}].name` });
      const fn = tool.function as { name?: unknown } | undefined;
      if (typeof fn?.name === "string") out.push({ request: request.index, name: fn.name, field: `tools[${i}].function.name` });
      if (Array.isArray(tool.tools) && typeof tool.name === "string") {
        (tool.tools as Array<{ name?: unknown }>).forEach((inner, j) => {
          if (typeof inner?.name === "string") {
            out.push({ request: request.index, name: `${tool.name as string}__${inner.name}`, field: `tools[${i}].tools[${j}].name` });
          }
        });
      }
      if (Array.isArray(tool.functionDeclarations)) {
        (tool.functionDeclarations as Array<{ name?: unknown }>).forEach((declaration, j) => {
          if (typeof declaration?.name === "string") {
            out.push({ request: request.index, name: declaration.name, field: `tools[${i}].functionDeclarations[${j}].name` });
          }
        });
      }
    });
  }
  return out;
}

/**
 * Find a tool under any of the names the host gives it: first among the declared tools,
 * then in text (hosts that defer MCP tools list their names in a message instead).
 */
export function findTool(
  requests: readonly RecordedRequest[],
  fields: readonly StringField[],
  names: readonly string[],
): RequestEvidence | undefined {
  const offered = offeredTools(requests);
  for (const name of names) {
    const hit = offered.find((tool) => tool.name === name);
    if (hit) return { request: hit.request, field: hit.field, excerpt: name };
  }
  for (const name of names) {
    for (const field of fields) {
      const match = wholeName(name).exec(field.normalized);
      if (match) return { request: field.request, field: field.field, excerpt: excerpt(field.normalized, match.index, match.index + name.length) };
    }
  }
  return undefined;
}

/** Remove ANSI escape sequences (colors, cursor moves) from program output. */
export function stripAnsi(text: string): string {
  return text.replace(/\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007/g, "");
}

/** The first output line of a listing command that names `name` as a whole name and satisfies `accept`. */
export function listingLine(output: string, name: string, accept: (line: string) => boolean = () => true): string | undefined {
  for (const raw of stripAnsi(output).split(/\r?\n/)) {
    const line = raw.trim();
    if (wholeName(name).test(line) && accept(line)) return line;
  }
  return undefined;
}
