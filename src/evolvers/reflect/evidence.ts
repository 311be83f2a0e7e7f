/**
 * Reading what a rollout left behind, for the reflective dataset: the text files of its evidence
 * directory (transcripts, answers, logs) and the tool calls of its audit log beside it. Bounded:
 * a few files, each read up to a cap, binary files skipped, symlinks not followed.
 */
import { constants } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { decodeUtf8 } from "../../adapter/files.js";

const MAX_FILES = 24;
const FILE_BYTES = 48 * 1024;
/** The task's own record: its score and feedback are shown apart. */
const SKIPPED = new Set(["rollout.json"]);

/** The rollout's evidence as one text (files headed by their names), or undefined when there is none. */
export async function readEvidence(evidenceDir: string): Promise<string | undefined> {
  const parts: string[] = [];
  for (const path of await listFiles(evidenceDir)) {
    const text = await readHead(join(evidenceDir, path));
    if (text !== undefined && text.trim() !== "") parts.push(`--- ${path} ---\n${text.trim()}`);
  }
  const audit = await readHead(`${evidenceDir}.audit.jsonl`);
  if (audit?.trim()) parts.push(`--- tool calls (audit log) ---\n${audit.trim()}`);
  return parts.length > 0 ? parts.join("\n") : undefined;
}

/** Regular files up to two folders deep, sorted, at most MAX_FILES. */
async function listFiles(root: string): Promise<string[]> {
  const found: string[] = [];
  let level = [""];
  for (let depth = 0; depth < 3 && level.length > 0 && found.length < MAX_FILES; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      const entries = await readdir(join(root, dir), { withFileTypes: true }).catch(() => []);
      for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
        if (entry.isDirectory()) next.push(path);
        else if (entry.isFile() && !SKIPPED.has(path) && found.length < MAX_FILES) found.push(path);
      }
    }
    level = next;
  }
  return found;
}

/** The first FILE_BYTES of a regular file as UTF-8 (with a marker when cut); undefined when binary or missing. */
async function readHead(file: string): Promise<string | undefined> {
  // O_NOFOLLOW: a file swapped for a link after the listing is refused, not followed.
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const info = await handle.stat();
    if (!info.isFile()) return undefined;
    const buffer = Buffer.alloc(Math.min(info.size, FILE_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    let bytes = buffer.subarray(0, bytesRead);
    if (bytes.includes(0)) return undefined;
    // A cut may split a multi-byte character: drop its partial tail before decoding.
    if (info.size > FILE_BYTES) while (bytes.length > 0 && (bytes[bytes.length - 1]! & 0xc0) === 0x80) bytes = bytes.subarray(0, -1);
    const text = decodeUtf8(info.size > FILE_BYTES ? bytes.subarray(0, Math.max(0, bytes.length - 1)) : bytes);
    if (text === undefined) return undefined;
    return info.size > FILE_BYTES ? `${text}\n[… ${(info.size - bytesRead).toLocaleString("en-US")} more bytes not read …]` : text;
  } finally {
    await handle.close();
  }
}
