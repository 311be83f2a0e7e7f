/**
 * Managed blocks: the marker-delimited region hermit owns inside a shared instruction file
 * (`AGENTS.md`, `CLAUDE.md`, `GEMINI.md`), or, in a user's own TOML config, between comment
 * markers. Rendering, heading nesting and the marker scan that finds the block or the
 * reasons it cannot be trusted. Pure.
 */

/** `html`: `<!-- hermit:<name>:start -->` (markdown); `hash`: `# hermit:<name>:start` (TOML). */
export type MarkerStyle = "html" | "hash";

/** The marker style of a file: `#` comments for TOML, HTML comments otherwise. */
export function markerStyleFor(path: string): MarkerStyle {
  return path.toLowerCase().endsWith(".toml") ? "hash" : "html";
}

/** `<!-- hermit:<name>:start -->` / `<!-- hermit:<name>:end -->` (or `# hermit:<name>:start` / `end`). */
export function markerLine(name: string, which: "start" | "end", style: MarkerStyle = "html"): string {
  return style === "hash" ? `# hermit:${name}:${which}` : `<!-- hermit:${name}:${which} -->`;
}

/** A block of TOML between `#` markers; `toml` ends with a line break or is empty. */
export function renderTomlBlock(name: string, toml: string): string {
  return `${markerLine(name, "start", "hash")}\n${toml}${markerLine(name, "end", "hash")}`;
}

/** The section title the adapter's context sits under. */
export function sectionTitle(adapterName: string): string {
  return `# Adapter: ${adapterName}`;
}

/**
 * The block text, from the start marker to the end marker (no trailing line break): the
 * generated section title, optional lines under it, then the context with its headings
 * nested one level below the title.
 */
export function renderBlock(name: string, context: string, leadLines: readonly string[] = []): string {
  const body = nestHeadings(context.replace(/\r\n/g, "\n")).replace(/^\n+|\s+$/g, "");
  const parts = [markerLine(name, "start"), sectionTitle(name), ""];
  if (leadLines.length > 0) parts.push(...leadLines, "");
  if (body !== "") parts.push(body);
  parts.push(markerLine(name, "end"));
  return parts.join("\n");
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX = /^( {0,3})(#{1,6})(?=[ \t]|$)/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
/** Lines a setext underline cannot follow: blank, list items, quotes, headings, tables, indented code. */
const NOT_PARAGRAPH = /^(\s*$| {4}|\t| {0,3}([-*+]|\d+[.)])(\s|$)| {0,3}>| {0,3}#| {0,3}\|)/;

/**
 * Every heading one level deeper (`# Foo` → `## Foo`, a setext `Foo\n===` → `## Foo`),
 * skipping fenced code blocks; level 6 stays 6.
 */
export function nestHeadings(markdown: string): string {
  const lines = markdown.split("\n");
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of lines) {
    const fenceMatch = FENCE.exec(line);
    if (fence !== undefined) {
      if (fenceMatch && fenceMatch[1][0] === fence[0] && fenceMatch[1].length >= fence.length && line.trim() === fenceMatch[0].trim()) {
        fence = undefined;
      }
      out.push(line);
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1];
      out.push(line);
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      const level = Math.min(atx[2].length + 1, 6);
      out.push(`${atx[1]}${"#".repeat(level)}${line.slice(atx[0].length)}`);
      continue;
    }
    const setext = SETEXT.exec(line);
    const previous = out.at(-1);
    if (setext && previous !== undefined && !NOT_PARAGRAPH.test(previous) && !isMarkerLike(previous)) {
      const level = setext[1][0] === "=" ? 2 : 3;
      out[out.length - 1] = `${"#".repeat(level)} ${previous.trim()}`;
      continue;
    }
    out.push(line);
  }
  return out.join("\n");
}

/** A marker found in a file. */
export interface Marker {
  name: string;
  which: "start" | "end";
  /** 1-based line. */
  line: number;
  /** Offset of the line's first character. */
  offset: number;
  /** Offset just past the line's text (before its line break). */
  textEnd: number;
  /** Offset just past the line break (or the end of the file). */
  lineEnd: number;
}

/** A reason the markers of a file cannot be trusted. */
export interface MarkerProblem {
  line: number;
  problem: string;
}

/** A well-formed block. `text` runs from the start marker to the end of the end marker's text. */
export interface LocatedBlock {
  name: string;
  start: Marker;
  end: Marker;
  text: string;
}

export interface BlockScan {
  blocks: LocatedBlock[];
  problems: MarkerProblem[];
}

const EXACT_MARKER: Readonly<Record<MarkerStyle, RegExp>> = {
  html: /^[ \t]*<!-- hermit:([a-z0-9]+(?:-[a-z0-9]+)*):(start|end) -->[ \t]*$/,
  hash: /^[ \t]*# hermit:([a-z0-9]+(?:-[a-z0-9]+)*):(start|end)[ \t]*$/,
};
/** Anything that looks like an attempt at a hermit marker. */
const MARKER_LIKE: Readonly<Record<MarkerStyle, RegExp>> = {
  html: /<!--\s*hermit\b|\bhermit:[^\s:]*:(start|end)\b/i,
  hash: /^\s*#.*\bhermit:[^\s:]*:(start|end)\b/i,
};

function isMarkerLike(line: string, style: MarkerStyle = "html"): boolean {
  return MARKER_LIKE[style].test(line);
}

export interface ScanOptions {
  style?: MarkerStyle;
  /**
   * `problem` (a generated workspace: every block is this deployment's) or `ignore` (the
   * user's own project: well-formed blocks of other adapters are other deployments' text).
   */
  foreign?: "problem" | "ignore";
}

/**
 * Find the managed blocks of `text`. Every marker must be well formed, on its own line,
 * paired start-before-end with the same name, and not nested; the name must be one of
 * `allowed` (the adapter being deployed and, on a switch, the one recorded before) unless
 * `options.foreign` is `ignore`, and at most one block of these names may exist. Anything
 * else is a problem, with its line. `blocks` holds only the blocks of `allowed` names.
 */
export function scanBlocks(text: string, allowed: readonly string[], options: ScanOptions = {}): BlockScan {
  const { markers, problems } = findMarkers(text, options.style ?? "html");
  const { blocks, problems: pairing } = pairMarkers(markers, allowed, options.foreign ?? "problem");
  problems.push(...pairing);
  problems.sort((a, b) => a.line - b.line);
  return { blocks: blocks.map((block) => ({ ...block, text: text.slice(block.start.offset, block.end.textEnd) })), problems };
}

function findMarkers(text: string, style: MarkerStyle): { markers: Marker[]; problems: MarkerProblem[] } {
  const markers: Marker[] = [];
  const problems: MarkerProblem[] = [];
  let offset = 0;
  let lineNumber = 0;
  while (offset < text.length) {
    lineNumber += 1;
    const newline = text.indexOf("\n", offset);
    const lineEnd = newline === -1 ? text.length : newline + 1;
    const textEnd = newline === -1 ? text.length : newline > offset && text[newline - 1] === "\r" ? newline - 1 : newline;
    const line = text.slice(offset, textEnd);
    if (isMarkerLike(line, style)) {
      const exact = EXACT_MARKER[style].exec(line);
      if (exact) {
        markers.push({ name: exact[1], which: exact[2] as "start" | "end", line: lineNumber, offset, textEnd, lineEnd });
      } else if (style === "html" && /<!--/.test(line) && !/-->/.test(line.slice(line.indexOf("<!--")))) {
        problems.push({ line: lineNumber, problem: `truncated marker (no closing '-->'): ${clip(line)}` });
      } else {
        const expected = style === "html" ? "'<!-- hermit:<adapter>:start -->' or ':end -->'" : "'# hermit:<adapter>:start' or ':end'";
        problems.push({ line: lineNumber, problem: `malformed marker (expected ${expected} alone on its line): ${clip(line)}` });
      }
    }
    offset = lineEnd;
  }
  return { markers, problems };
}

function pairMarkers(
  markers: readonly Marker[],
  allowed: readonly string[],
  foreign: "problem" | "ignore",
): { blocks: Array<Omit<LocatedBlock, "text">>; problems: MarkerProblem[] } {
  const problems: MarkerProblem[] = [];
  const blocks: Array<Omit<LocatedBlock, "text">> = [];
  let open: Marker | undefined;
  for (const [index, marker] of markers.entries()) {
    if (!allowed.includes(marker.name) && foreign === "problem") {
      problems.push({ line: marker.line, problem: `foreign marker for adapter '${marker.name}' (this workspace belongs to '${allowed[0]}')` });
    }
    if (marker.which === "start") {
      if (open) {
        problems.push({ line: marker.line, problem: `nested start marker '${marker.name}' inside the block opened at line ${open.line}` });
        continue;
      }
      open = marker;
      continue;
    }
    if (!open) {
      const laterStart = markers.slice(index + 1).find((m) => m.which === "start" && m.name === marker.name);
      problems.push({
        line: marker.line,
        problem: laterStart
          ? `reversed markers: end marker '${marker.name}' comes before its start marker at line ${laterStart.line}`
          : `unmatched end marker '${marker.name}' (no start marker before it)`,
      });
      continue;
    }
    if (marker.name !== open.name) {
      problems.push({ line: marker.line, problem: `end marker '${marker.name}' closes the block '${open.name}' opened at line ${open.line}` });
      open = undefined;
      continue;
    }
    if (allowed.includes(open.name)) blocks.push({ name: open.name, start: open, end: marker });
    open = undefined;
  }
  if (open) problems.push({ line: open.line, problem: `unmatched start marker '${open.name}': no end marker after it (truncated block?)` });
  for (const duplicate of blocks.slice(1)) {
    problems.push({ line: duplicate.start.line, problem: `duplicate block '${duplicate.name}' (another block starts at line ${blocks[0].start.line})` });
  }
  return { blocks, problems };
}

function clip(line: string): string {
  const trimmed = line.trim();
  return trimmed.length > 80 ? `${trimmed.slice(0, 77)}...` : trimmed;
}

/** True when `text` contains something a marker scan would treat as a marker. */
export function containsMarker(text: string): boolean {
  return text.split("\n").some((line) => isMarkerLike(line));
}
