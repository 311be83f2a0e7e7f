/**
 * Planning hermit's entries in a JSON/JSONC config file of the user's project
 * (`mcpServers.<adapter>`, `mcp.<adapter>`, `enabledMcpjsonServers[<adapter>]`): add them,
 * update them in place, remove exactly them. A key of the user's at a name hermit needs is a
 * conflict `--force` does not override. Pure.
 */
import type { VirtualFile } from "../hosts/types.js";
import {
  EMPTY_JSON,
  entryName,
  entryValue,
  findEntry,
  insertEntry,
  locationOf,
  parseDocument,
  removeEntry,
  replaceEntryValue,
  valueHash,
} from "./json-entries.js";
import type { PlanContext, PlannedAction } from "./plan-types.js";
import type { RecordedEntry, RecordedKeys } from "./record.js";
import { encoder, knownEntry, textOf, type FileState, type KnownFile } from "./snapshot.js";

export interface KeysPlan {
  action: PlannedAction;
  keys: RecordedKeys;
}

/** The entries the record and the pending report claim in this file, by name (record first). */
function claims(known: KnownFile): Map<string, RecordedEntry[]> {
  const out = new Map<string, RecordedEntry[]>();
  for (const entry of [...(known.recorded?.keys?.entries ?? []), ...(known.pending?.keys?.entries ?? [])]) {
    out.set(entryName(entry), [...(out.get(entryName(entry)) ?? []), entry]);
  }
  return out;
}

/** The file's text, or undefined after reporting why hermit cannot edit it. */
function readText(path: string, state: FileState, context: PlanContext): string | undefined {
  if (state.kind === "blocked") {
    context.drift.push({ path, problem: state.problem, forceable: false });
    return undefined;
  }
  const text = state.kind === "file" ? textOf(state.bytes) : EMPTY_JSON;
  const problem = text === undefined ? "is not valid UTF-8" : (parseDocument(text) as { problem?: string }).problem;
  if (problem) {
    context.drift.push({ path, problem, forceable: false });
    return undefined;
  }
  return text;
}

/** Decide hermit's entries of one virtual file (`intent: "keys"`). */
export function planKeys(file: VirtualFile, state: FileState, known: KnownFile, context: PlanContext): KeysPlan | undefined {
  const text = readText(file.path, state, context);
  if (text === undefined || state.kind === "blocked") return undefined;
  const claimed = claims(known);
  const wanted = new Set((file.entries ?? []).map((config) => entryName(locationOf(config))));
  const entries: RecordedEntry[] = [];
  const notes: string[] = [];
  const driftBefore = context.drift.length;
  let next = text;
  for (const config of file.entries ?? []) {
    const name = entryName(locationOf(config));
    const mine = claimed.get(name);
    const node = findEntry((parseDocument(next) as { root: never }).root, locationOf(config));
    if (!node) {
      const inserted = insertEntry(next, config);
      if ("problem" in inserted) context.drift.push({ path: file.path, problem: `cannot add '${name}': ${inserted.problem}`, forceable: false });
      else {
        next = inserted.text;
        entries.push(inserted.entry);
        if (mine) notes.push(`'${name}' was removed; added again`);
      }
      continue;
    }
    if (!mine) {
      context.drift.push({
        path: file.path,
        problem: `already has '${name}', which is not hermit's: hermit never overwrites your settings (rename yours, or the adapter)`,
        forceable: false,
      });
      continue;
    }
    const hash = valueHash(entryValue(node));
    if (!mine.some((entry) => entry.sha256 === hash)) {
      context.drift.push({ path: file.path, problem: `hermit's entry '${name}' was edited by hand (its sha256 differs from the deployment record)`, forceable: true });
      notes.push(`overwrites a hand edit of '${name}'`);
    }
    if (hash !== valueHash(config.value) && !config.member) next = replaceEntryValue(next, node, config.value);
    entries.push({ ...mine[0], sha256: valueHash(config.value) });
  }
  for (const [name, [old]] of claimed) {
    if (wanted.has(name)) continue;
    const removed = removeEntry(next, old);
    if (removed) next = removed.text;
  }
  if (context.drift.length > driftBefore && context.drift.slice(driftBefore).some((issue) => !issue.forceable)) return undefined;
  const before = knownEntry(known) as ReturnType<typeof knownEntry> | undefined;
  const keys: RecordedKeys = { createdFile: state.kind === "missing" || (before?.keys?.createdFile ?? false), entries };
  const base = { path: file.path, intent: file.intent, owner: file.owner, ...(notes.length > 0 ? { note: notes.join("; ") } : {}) };
  if (state.kind === "missing") return { action: { ...base, action: "create", content: encoder.encode(next) }, keys };
  if (next === text) return { action: { path: file.path, intent: file.intent, owner: file.owner, action: "unchanged" }, keys };
  return { action: { ...base, action: "keys-edit", content: encoder.encode(next), previous: state.bytes }, keys };
}

/** Remove exactly hermit's entries from a config file (the file too, when hermit created it and only `{}` is left). */
export function planKeysRemoval(known: KnownFile, state: FileState, context: PlanContext): PlannedAction | undefined {
  const old = knownEntry(known);
  if (state.kind === "missing") return undefined;
  const text = readText(old.path, state, context);
  if (text === undefined || state.kind !== "file") return undefined;
  const notes: string[] = [];
  let next = text;
  for (const [name, mine] of claims(known)) {
    const node = findEntry((parseDocument(next) as { root: never }).root, mine[0]);
    if (!node) continue;
    if (!mine.some((entry) => entry.sha256 === valueHash(entryValue(node)))) {
      context.drift.push({ path: old.path, problem: `hermit's entry '${name}' was edited by hand (its sha256 differs from the deployment record)`, forceable: true });
      notes.push(`removes a hand-edited '${name}'`);
    }
    const removed = removeEntry(next, mine[0]);
    if (!removed) continue;
    if (!removed.exact) notes.push(`the text around '${name}' changed since the deploy; removed with a JSON editor`);
    next = removed.text;
  }
  if (next === text) return undefined;
  const base = { path: old.path, intent: old.operation, owner: old.owner, previous: state.bytes, ...(notes.length > 0 ? { note: notes.join("; ") } : {}) };
  if (old.keys?.createdFile && /^\s*\{\s*\}\s*$/.test(next)) return { ...base, action: "delete" };
  return { ...base, action: "keys-edit", content: encoder.encode(next) };
}
