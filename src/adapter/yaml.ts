import { parseDocument, type YAMLError } from "yaml";
import { HermitError } from "../errors.js";

/** Aliases beyond this count are treated as an alias bomb. */
const MAX_ALIAS_COUNT = 100;
/** Longer source lines are shown as a window around the error's column. */
const EXCERPT_WIDTH = 100;

export interface YamlOptions {
  /** The line of `file` on which `text` starts (frontmatter starts on line 2). Default 1. */
  firstLine?: number;
}

/**
 * Parse YAML text from `file`, refusing syntax errors (with the line, an excerpt and a caret
 * under the column), duplicate keys and alias bombs. Returns plain data.
 */
export function parseYaml(text: string, file: string, options: YamlOptions = {}): unknown {
  const flat = parseFlatMapping(text);
  if (flat) return flat;
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true, strict: true });
  const error = doc.errors[0];
  if (error) throw syntaxError(error, text, file, options.firstLine ?? 1);
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    throw new HermitError(
      "YAML_UNSAFE",
      `${file}: YAML refused: ${(error as Error).message} (more than ${MAX_ALIAS_COUNT} alias expansions)`,
      { path: file },
    );
  }
}

/** `name: value` on one line: a plain key, one space, a plain scalar with no space at its ends. */
const FLAT_LINE = /^([A-Za-z_][A-Za-z0-9_-]*): (\S(?:[^\n]*\S)?)$/;
/** Plain scalars that are not strings in YAML 1.2 (null, booleans, numbers), or could be in YAML 1.1. */
const NOT_A_STRING = /^(?:[-+.~0-9]|(?:true|false|null|yes|no|on|off|y|n)$)/i;
/** A character that starts anything but a plain scalar (an indicator), or one the fast path leaves to the parser. */
const SPECIAL_START = /^[-?:,[\]{}#&*!|>'"%@`]/;
/** Printable characters but tabs, surrogates and the byte-order mark. */
const PRINTABLE = /^[\u0020-\u007e\u00a0-\ud7ff\ue000-\ufefe\uff00-\ufffd]*$/;

/**
 * The common frontmatter (`name: x` and `description: Some text.`, one per line) without the
 * YAML parser, which costs about as much as the rest of reading a skill. Only text whose
 * meaning is certain is read here: each line a key and a plain string scalar (no quotes,
 * comments, ` #`, `: `, tabs, a value that could be a number, a boolean or null), blank
 * lines, no key twice. Anything else returns undefined, for the parser to read (and refuse).
 */
export function parseFlatMapping(text: string): Record<string, string> | undefined {
  const data: Record<string, string> = {};
  let keys = 0;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const match = FLAT_LINE.exec(line);
    if (!match) return undefined;
    const [, key, value] = match as unknown as [string, string, string];
    if (key === "__proto__" || Object.hasOwn(data, key) || NOT_A_STRING.test(key)) return undefined;
    if (SPECIAL_START.test(value) || NOT_A_STRING.test(value) || value.includes(": ") || value.includes(" #") || value.endsWith(":")) return undefined;
    if (!PRINTABLE.test(value)) return undefined;
    data[key] = value;
    keys++;
  }
  return keys > 0 ? data : undefined;
}

function syntaxError(error: YAMLError, text: string, file: string, firstLine: number): HermitError {
  // yaml's own message ends in " at line 4, column 63:" and an excerpt of its own; ours
  // counts lines of the file (not of the frontmatter) and shows one line.
  const what = error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
  const position = error.linePos?.[0];
  if (!position) return new HermitError("YAML_SYNTAX", `${file}: YAML syntax error: ${what}`, { path: file });
  const line = position.line + firstLine - 1;
  const excerpt = excerptAt(text.split("\n")[position.line - 1] ?? "", line, position.col);
  return new HermitError("YAML_SYNTAX", `${file}:${line}: YAML syntax error: ${what} (line ${line}, column ${position.col})\n${excerpt}`, {
    path: file,
    line,
    column: position.col,
  });
}

/**
 * `  4 | description: a: b` and a caret under `column` (1-based) on the next line. Control
 * characters (tabs) are shown as spaces so the caret stays in place and the text stays printable.
 */
export function excerptAt(source: string, line: number, column: number): string {
  let shown = source.replace(/\r$/, "").replace(/[\u0000-\u001f\u007f]/g, " ");
  let caret = Math.max(0, column - 1);
  if (shown.length > EXCERPT_WIDTH) {
    const start = Math.max(0, Math.min(caret - EXCERPT_WIDTH / 2, shown.length - EXCERPT_WIDTH));
    const head = start > 0 ? "…" : "";
    const tail = start + EXCERPT_WIDTH < shown.length ? "…" : "";
    shown = `${head}${shown.slice(start, start + EXCERPT_WIDTH)}${tail}`;
    caret = caret - start + head.length;
  }
  const gutter = String(line);
  return `  ${gutter} | ${shown}\n  ${" ".repeat(gutter.length)} | ${" ".repeat(caret)}^`;
}
