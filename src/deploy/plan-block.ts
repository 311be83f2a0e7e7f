/**
 * Planning a managed block: the context's block in a shared instruction file, or (in the
 * user's own project) hermit's TOML tables between `#` markers in `.codex/config.toml`.
 * Every byte outside the block is the user's and stays. Pure.
 */
import { parse as parseToml } from "smol-toml";
import { markerStyleFor, scanBlocks, type BlockScan, type LocatedBlock } from "../hosts/managed-block.js";
import { contentHash } from "../hosts/ownership.js";
import type { ConfigEntry, VirtualFile } from "../hosts/types.js";
import type { PlanContext, PlannedAction } from "./plan-types.js";
import type { RecordedBlock } from "./record.js";
import { encoder, isOurs, knownEntry, textOf, type FileState, type KnownFile } from "./snapshot.js";

export interface BlockPlan {
  action: PlannedAction;
  block: RecordedBlock;
}

/** The file's text and its blocks, or undefined after reporting why the block cannot be located. */
function scanFile(path: string, state: FileState, context: PlanContext): { text: string; scan: BlockScan } | undefined {
  if (state.kind === "blocked") {
    context.drift.push({ path, problem: state.problem, forceable: false });
    return undefined;
  }
  const text = state.kind === "file" ? textOf(state.bytes) : "";
  if (text === undefined) {
    context.drift.push({ path, problem: "shared file is not valid UTF-8", forceable: false });
    return undefined;
  }
  const scan = scanBlocks(text, context.adapters, { style: markerStyleFor(path), foreign: context.existing ? "ignore" : "problem" });
  if (scan.problems.length > 0) {
    for (const problem of scan.problems) context.drift.push({ path, line: problem.line, problem: problem.problem, forceable: false });
    return undefined;
  }
  return { text, scan };
}

/** Decide the block of one virtual file (`intent: "block"`). */
export function planBlock(file: VirtualFile, state: FileState, known: KnownFile, context: PlanContext): BlockPlan | undefined {
  const name = file.blockName as string;
  const before = known.recorded ?? known.pending;
  const base = { path: file.path, intent: file.intent, owner: file.owner };
  const desired = typeof file.content === "string" ? file.content : (textOf(file.content) as string);
  const read = scanFile(file.path, state, context);
  if (!read || state.kind === "blocked") return undefined;
  if (state.kind === "missing") {
    const content = `${desired}\n`;
    if (file.entries && !tomlReadsBack(file.path, content, file.entries, context)) return undefined;
    return {
      action: { ...base, action: "create", content: encoder.encode(content), ...(known.recorded ? { note: "was deleted; recreated" } : {}) },
      block: { name, createdFile: true, separator: "" },
    };
  }
  const { text, scan } = read;
  const found = scan.blocks[0];
  if (file.entries && !tomlFree(file.path, found ? withoutBlock(text, found) : text, file.entries, context)) return undefined;
  // Keep the line endings the block already has; a new block follows the file's first line ending.
  const eol = (found ? found.text : firstLine(text)).includes("\r\n") ? "\r\n" : "\n";
  const rendered = eol === "\n" ? desired : desired.replace(/\n/g, eol);
  let next: string;
  let block: RecordedBlock;
  let note: string | undefined;
  if (found) {
    block = { name, createdFile: before?.block?.createdFile ?? false, separator: before?.block?.separator ?? "" };
    next = text.slice(0, found.start.offset) + rendered + text.slice(found.end.textEnd);
    if (next === text) return { action: { ...base, action: "unchanged" }, block };
    if (before && !isOurs(known, contentHash(found.text))) {
      context.drift.push({ path: file.path, line: found.start.line, problem: "the managed block was edited by hand (its sha256 differs from the deployment record)", forceable: true });
      note = "overwrites a hand edit of the block";
    }
  } else {
    const separator = text === "" ? "" : text.endsWith("\n") ? eol : eol + eol;
    block = { name, createdFile: before?.block?.createdFile ?? false, separator };
    next = `${text}${separator}${rendered}${eol}`;
    if (known.recorded) note = "block was removed; added again";
  }
  if (file.entries && !tomlReadsBack(file.path, next, file.entries, context)) return undefined;
  return { action: { ...base, action: "block-edit", content: encoder.encode(next), previous: state.bytes, ...(note ? { note } : {}) }, block };
}

function firstLine(text: string): string {
  const newline = text.indexOf("\n");
  return newline === -1 ? text : text.slice(0, newline + 1);
}

function withoutBlock(text: string, found: LocatedBlock): string {
  return text.slice(0, found.start.offset) + text.slice(found.end.lineEnd);
}

/** Remove hermit's block from a shared file (the file too, when hermit created it and nothing else is left). */
export function planBlockRemoval(known: KnownFile, state: FileState, context: PlanContext): PlannedAction | undefined {
  const old = knownEntry(known);
  const base = { path: old.path, intent: old.operation, owner: old.owner };
  if (state.kind === "missing") return undefined;
  const read = scanFile(old.path, state, context);
  const found = read?.scan.blocks[0];
  if (!read || !found || state.kind !== "file") return undefined;
  let note: string | undefined;
  if (!isOurs(known, contentHash(found.text))) {
    context.drift.push({ path: old.path, line: found.start.line, problem: "the managed block was edited by hand (its sha256 differs from the deployment record)", forceable: true });
    note = "removes a hand-edited block";
  }
  let head = read.text.slice(0, found.start.offset);
  const separator = old.block?.separator ?? "";
  if (separator !== "" && head.endsWith(separator)) head = head.slice(0, head.length - separator.length);
  const next = head + read.text.slice(found.end.lineEnd);
  const extra = { previous: state.bytes, ...(note ? { note } : {}) };
  if (next === "" && old.block?.createdFile) return { ...base, action: "delete", ...extra };
  return { ...base, action: "block-edit", content: encoder.encode(next), ...extra };
}

/** The value at a key path of parsed TOML, or undefined. */
function valueAt(data: unknown, key: readonly string[]): unknown {
  let current = data;
  for (const part of key) {
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function parseOrReport(path: string, text: string, context: PlanContext, what: string): unknown {
  try {
    return parseToml(text);
  } catch (error) {
    const reason = (error as Error).message.split("\n")[0];
    context.drift.push({ path, problem: `${what} cannot be parsed as TOML (${reason}); hermit edits only files it can read`, forceable: false });
    return undefined;
  }
}

/** The user's TOML (hermit's block taken out) parses and holds none of hermit's tables. */
function tomlFree(path: string, userText: string, entries: readonly ConfigEntry[], context: PlanContext): boolean {
  const data = parseOrReport(path, userText, context, "the file");
  if (data === undefined) return false;
  const taken = entries.filter((entry) => valueAt(data, entry.key) !== undefined);
  for (const entry of taken) {
    context.drift.push({
      path,
      problem: `already has [${entry.key.join(".")}], which is not hermit's: hermit never overwrites your settings (rename yours, or the adapter)`,
      forceable: false,
    });
  }
  return taken.length === 0;
}

/** Sorted-key JSON, to compare parsed TOML with what hermit meant to write. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );
}

/** The file with hermit's block parses, and hermit's tables read back exactly as written. */
function tomlReadsBack(path: string, text: string, entries: readonly ConfigEntry[], context: PlanContext): boolean {
  const data = parseOrReport(path, text, context, "with hermit's tables, the file");
  if (data === undefined) return false;
  const changed = entries.filter((entry) => canonical(valueAt(data, entry.key)) !== canonical(entry.value));
  for (const entry of changed) {
    context.drift.push({
      path,
      problem: `[${entry.key.join(".")}] would not read back as hermit writes it (a key of yours below hermit's block falls into its table?); move your keys above the '# hermit:' markers`,
      forceable: false,
    });
  }
  return changed.length === 0;
}
