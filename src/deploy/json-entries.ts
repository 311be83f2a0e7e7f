/**
 * Hermit's own entries in a JSON/JSONC file of the user's project, edited as text: an entry
 * is inserted after the last member of its object or array in the file's own indentation and
 * line endings, its value replaced in place, and removed by cutting exactly the text that was
 * inserted, so the rest of the file keeps every byte (comments, order, trailing commas).
 * `jsonc-parser` locates the nodes; its `modify` removes an entry whose surroundings the user
 * has reformatted since (it reformats nearby text, so it is never used to insert). Pure.
 */
import { createRequire } from "node:module";
import type { Node, ParseError } from "jsonc-parser";
import { sha256 } from "../adapter/files.js";
import type { ConfigEntry } from "../hosts/types.js";
import type { RecordedEntry } from "./record.js";

let parser: typeof import("jsonc-parser") | undefined;

/**
 * jsonc-parser, required at its first use (it is CommonJS): most deploys and no-op redeploys
 * (every Codex one) edit no JSON file, and loading it cost about 10 ms of a process's CPU.
 */
function jsonc(): typeof import("jsonc-parser") {
  parser ??= createRequire(import.meta.url)("jsonc-parser") as typeof import("jsonc-parser");
  return parser;
}

/** What hermit starts a JSON file it creates from; a file back at this after undeploy is removed. */
export const EMPTY_JSON = "{}\n";

/** The file's indentation unit and line ending (two spaces and LF when it shows none). */
export interface JsonStyle {
  unit: string;
  eol: string;
}

export function jsonStyle(text: string): JsonStyle {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const indented = /^([ \t]+)["}\]]/m.exec(text);
  return { unit: indented ? (indented[1].startsWith("\t") ? "\t" : indented[1]) : "  ", eol };
}

/** The parse tree of a JSON/JSONC document whose root is an object, or what is wrong with it. */
export function parseDocument(text: string): { root: Node } | { problem: string } {
  const errors: ParseError[] = [];
  const root = jsonc().parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const { error, offset } = errors[0];
    const line = text.slice(0, offset).split("\n").length;
    return { problem: `not valid JSON (${jsonc().printParseErrorCode(error)} at line ${line}); hermit edits only files it can parse` };
  }
  if (!root || root.type !== "object") return { problem: "is not a JSON object; hermit adds its entries only to an object" };
  return { root };
}

/** sha256 of a value as compact JSON: how entries are recorded and compared. */
export function valueHash(value: unknown): string {
  return sha256(JSON.stringify(value));
}

/** How an entry is found: its key path, and the member for an array member. */
export interface EntryLocation {
  key: string[];
  member?: string;
}

/** Where a config entry of the projection is found (a member entry is found by its value). */
export function locationOf(config: ConfigEntry): EntryLocation {
  return config.member ? { key: config.key, member: String(config.value) } : { key: config.key };
}

/** `a.b` or `a["member"]`, for messages and matching. */
export function entryName(entry: EntryLocation): string {
  const key = entry.key.join(".");
  return entry.member !== undefined ? `${key}[${JSON.stringify(entry.member)}]` : key;
}

/** The node of an entry: the property (`key`) or the array member; undefined when absent. */
export function findEntry(root: Node, entry: EntryLocation): Node | undefined {
  const node = jsonc().findNodeAtLocation(root, entry.key);
  if (!node) return undefined;
  if (entry.member === undefined) return node.parent;
  return node.type === "array" ? node.children?.find((child) => child.type === "string" && child.value === entry.member) : undefined;
}

/** The value an entry's node holds. */
export function entryValue(node: Node): unknown {
  return jsonc().getNodeValue(node.type === "property" ? (node.children?.[1] as Node) : node);
}

/** Where a new entry goes: its container, or the container to create first (one level). */
function containerOf(root: Node, config: ConfigEntry): { node: Node } | { create: string; kind: "object" | "array" } | { problem: string } {
  const path = config.member ? config.key : config.key.slice(0, -1);
  const node = path.length === 0 ? root : jsonc().findNodeAtLocation(root, path);
  const kind = config.member ? "array" : "object";
  if (node) return node.type === kind ? { node } : { problem: `'${path.join(".")}' is not ${kind === "array" ? "an array" : "an object"}` };
  if (path.length === 1) return { create: path[0], kind };
  return { problem: `'${path.join(".")}' does not exist` };
}

/** The indentation of the line `offset` is on, when only whitespace precedes it there; else undefined (inline). */
function lineIndent(text: string, offset: number): string | undefined {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  const lead = text.slice(start, offset);
  return /^[ \t]*$/.test(lead) ? lead : undefined;
}

/** Offset of a comma that follows `from` (skipping whitespace and comments) before `limit`, or -1. */
function trailingComma(text: string, from: number, limit: number): number {
  let at = from;
  while (at < limit) {
    if (/\s/.test(text[at])) at += 1;
    else if (text.startsWith("//", at)) at = text.indexOf("\n", at) === -1 ? limit : text.indexOf("\n", at);
    else if (text.startsWith("/*", at)) at = text.indexOf("*/", at) === -1 ? limit : text.indexOf("*/", at) + 2;
    else return text[at] === "," ? at : -1;
  }
  return -1;
}

interface Insertion {
  text: string;
  prefix: string;
  suffix: string;
  /** True when a comma was also added right after the member before (a comment ended its line). */
  comma?: boolean;
}

/**
 * Where the line of a member ending at `from` ends, when only a comma, whitespace and a
 * comment follow it there (so a new member can go on the next line, leaving the comment
 * with its member); undefined when something else follows on that line.
 */
function lineEndAfter(text: string, from: number): number | undefined {
  const rest = /^,?[ \t]*(\/\/[^\r\n]*|\/\*[^\r\n]*?\*\/[ \t]*)?(?=\r?\n)/.exec(text.slice(from));
  return rest && rest[1] !== undefined ? from + rest[0].length : undefined;
}

/** Insert `render(indent)` as the last member of `container` (an object or array node). */
function insertInto(text: string, container: Node, style: JsonStyle, render: (indent: string | undefined) => string): Insertion {
  const open = container.offset;
  const close = container.offset + container.length - 1;
  const children = container.children ?? [];
  let at: number;
  let prefix: string;
  let suffix = "";
  let indent: string | undefined;
  if (children.length === 0) {
    at = open + 1;
    if (container.type === "array") {
      prefix = "";
    } else {
      const base = /^[ \t]*/.exec(text.slice(text.lastIndexOf("\n", open - 1) + 1))![0];
      indent = base + style.unit;
      prefix = style.eol + indent;
      if (close === open + 1) suffix = style.eol + base;
    }
  } else {
    const last = children[children.length - 1];
    const end = last.offset + last.length;
    indent = lineIndent(text, last.offset);
    const separator = indent === undefined ? " " : style.eol + indent;
    const comma = trailingComma(text, end, close);
    const lineEnd = indent === undefined ? undefined : lineEndAfter(text, end);
    if (lineEnd !== undefined) {
      // A comment ends the last member's line: the new member goes below it, the comment stays where it is.
      const piece = render(indent);
      const suffixHere = comma >= 0 ? "," : "";
      const withEntry = text.slice(0, lineEnd) + separator + piece + suffixHere + text.slice(lineEnd);
      if (comma >= 0) return { text: withEntry, prefix: separator, suffix: suffixHere };
      return { text: `${withEntry.slice(0, end)},${withEntry.slice(end)}`, prefix: separator, suffix: "", comma: true };
    }
    if (comma >= 0) {
      at = comma + 1;
      prefix = separator;
      suffix = ",";
    } else {
      at = end;
      prefix = `,${separator}`;
    }
  }
  const piece = render(indent);
  return { text: text.slice(0, at) + prefix + piece + suffix + text.slice(at), prefix, suffix };
}

/** `value` as JSON at `indent` (compact when inline). */
function renderValue(value: unknown, style: JsonStyle, indent: string | undefined): string {
  if (indent === undefined) return JSON.stringify(value);
  return JSON.stringify(value, null, style.unit).split("\n").join(style.eol + indent);
}

function render(config: ConfigEntry | { key: string[]; value: unknown; member?: false }, style: JsonStyle, indent: string | undefined): string {
  const value = renderValue(config.value, style, indent);
  return config.member ? value : `${JSON.stringify(config.key[config.key.length - 1])}: ${value}`;
}

/**
 * Add `config` to the document `text` (which must not hold it yet). Returns the new text
 * and the record of exactly what was inserted, or the problem that prevents it.
 */
export function insertEntry(text: string, config: ConfigEntry): { text: string; entry: RecordedEntry } | { problem: string } {
  const style = jsonStyle(text);
  const parsed = parseDocument(text);
  if ("problem" in parsed) return parsed;
  const container = containerOf(parsed.root, config);
  if ("problem" in container) return container;
  let current = text;
  let root = parsed.root;
  let parent: RecordedEntry["parent"];
  if ("create" in container) {
    const empty = { key: [container.create], value: container.kind === "array" ? [] : {} };
    const created = insertInto(current, root, style, (indent) => render(empty, style, indent));
    parent = { prefix: created.prefix, suffix: created.suffix };
    current = created.text;
    root = (parseDocument(current) as { root: Node }).root;
  }
  const target = jsonc().findNodeAtLocation(root, config.member ? config.key : config.key.slice(0, -1)) ?? root;
  const inserted = insertInto(current, target, style, (indent) => render(config, style, indent));
  const entry: RecordedEntry = {
    key: config.key,
    ...(config.member ? { member: String(config.value) } : {}),
    sha256: valueHash(config.value),
    prefix: inserted.prefix,
    suffix: inserted.suffix,
    ...(inserted.comma ? { comma: true } : {}),
    ...(parent ? { parent } : {}),
  };
  return { text: inserted.text, entry };
}

/** Replace the value of the entry at `node` (a property) with `value`, in the file's style. */
export function replaceEntryValue(text: string, node: Node, value: unknown): string {
  const valueNode = node.children?.[1] as Node;
  const indent = lineIndent(text, node.offset);
  const rendered = renderValue(value, jsonStyle(text), indent);
  return text.slice(0, valueNode.offset) + rendered + text.slice(valueNode.offset + valueNode.length);
}

/** Cut `[start, end)` with exactly `prefix` before it and `suffix` after it; undefined when they are not there. */
function cutExactly(text: string, start: number, end: number, prefix: string, suffix: string): string | undefined {
  if (text.slice(start - prefix.length, start) !== prefix || text.slice(end, end + suffix.length) !== suffix) return undefined;
  return text.slice(0, start - prefix.length) + text.slice(end + suffix.length);
}

/** Remove the comma hermit added after the member before its entry, once that member is last again. */
function withoutAddedComma(text: string, entry: RecordedEntry): string {
  const parsed = parseDocument(text);
  if ("problem" in parsed) return text;
  const container = jsonc().findNodeAtLocation(parsed.root, entry.member !== undefined ? entry.key : entry.key.slice(0, -1));
  const last = container?.children?.at(-1);
  if (!container || !last) return text;
  const end = last.offset + last.length;
  const comma = trailingComma(text, end, container.offset + container.length - 1);
  return comma === end ? text.slice(0, end) + text.slice(end + 1) : text;
}

/** Remove `path` with jsonc-parser (the surroundings were reformatted since hermit inserted it). */
function removeWithEditor(text: string, path: Array<string | number>): string {
  const style = jsonStyle(text);
  const options = { formattingOptions: { insertSpaces: style.unit !== "\t", tabSize: style.unit === "\t" ? 1 : style.unit.length, eol: style.eol } };
  return jsonc().applyEdits(text, jsonc().modify(text, path, undefined, options));
}

/**
 * Remove a recorded entry (and the object or array hermit created for it, once empty).
 * `exact` is false when the text around it had changed and an editor removed it instead.
 * Undefined when the entry is not in `text` (or `text` cannot be parsed).
 */
export function removeEntry(text: string, entry: RecordedEntry): { text: string; exact: boolean } | undefined {
  const parsed = parseDocument(text);
  if ("problem" in parsed) return undefined;
  const node = findEntry(parsed.root, entry);
  if (!node) return undefined;
  let exact = true;
  let next = cutExactly(text, node.offset, node.offset + node.length, entry.prefix, entry.suffix);
  if (next === undefined) {
    exact = false;
    const index = entry.member !== undefined ? (node.parent?.children ?? []).indexOf(node) : undefined;
    next = removeWithEditor(text, index === undefined ? entry.key : [...entry.key, index]);
  } else if (entry.comma) {
    next = withoutAddedComma(next, entry);
  }
  if (entry.parent) {
    const containerPath = entry.member !== undefined ? entry.key : entry.key.slice(0, -1);
    const reparsed = parseDocument(next);
    const container = "root" in reparsed ? jsonc().findNodeAtLocation(reparsed.root, containerPath) : undefined;
    const property = container?.parent;
    if (container && property && (container.children ?? []).length === 0 && container.length === 2) {
      const cut = cutExactly(next, property.offset, property.offset + property.length, entry.parent.prefix, entry.parent.suffix);
      if (cut !== undefined) next = cut;
      else {
        exact = false;
        next = removeWithEditor(next, containerPath);
      }
    }
  }
  return { text: next, exact };
}
