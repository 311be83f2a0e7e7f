/**
 * JSON records on disk: whole documents written atomically, and append-only JSON lines whose
 * torn last line (a crash mid-append) is skipped when read. One line is appended or read back
 * synchronously: a few KB, cheaper than the thread pool's round trips (open, IO, close).
 */
import { appendFileSync, closeSync, openSync, readSync } from "node:fs";
import { appendFile, readFile } from "node:fs/promises";
import { HermitError, type ErrorCode } from "../errors.js";
import { writeFileAtomic } from "./atomic.js";

/** Write `value` as indented JSON to `file` atomically, creating its folder. */
export async function writeJson(file: string, value: unknown): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`, { mkdir: true });
}

/** Read a JSON file; undefined when it does not exist; a HermitError (`code`) naming it when it is not JSON. */
export async function readJson<T>(file: string, code: ErrorCode = "RUN_INVALID"): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new HermitError(code, `${file}: not valid JSON: ${(error as Error).message}`, { path: file });
  }
}

/** Append one JSON line; returns its length in bytes. A line cut short by a crash is skipped by `readJsonLines`. */
export async function appendJsonLine(file: string, value: unknown): Promise<number> {
  const line = `${JSON.stringify(value)}\n`;
  appendFileSync(file, line);
  return Buffer.byteLength(line);
}

/** Every complete JSON line of `file` (a torn last line from a crash is ignored). */
export async function readJsonLines<T>(file: string): Promise<T[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const out: T[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      // a torn line: the record never finished
    }
  }
  return out;
}

/**
 * Visit every complete JSON line of `file` with the byte offset it starts at, after sealing a
 * torn last line (so the next append starts a line of its own); returns the file's size. A line
 * that is not JSON (torn by a crash) is skipped.
 */
export async function scanJsonLines<T>(file: string, visit: (value: T, offset: number) => void): Promise<number> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw error;
  }
  let size = bytes.length;
  if (size > 0 && bytes[size - 1] !== 0x0a) {
    await appendFile(file, "\n");
    size += 1;
  }
  for (let start = 0; start < bytes.length; ) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? bytes.length : newline;
    if (end > start) {
      try {
        visit(JSON.parse(bytes.toString("utf8", start, end)) as T, start);
      } catch {
        // a torn line: the record never finished
      }
    }
    start = end + 1;
  }
  return size;
}

/** The JSON line of `file` that starts at byte `offset`; undefined when there is none or it is not JSON. */
export async function readJsonLineAt<T>(file: string, offset: number): Promise<T | undefined> {
  const fd = openSync(file, "r");
  try {
    const chunks: Buffer[] = [];
    for (let position = offset, size = 4096; ; position += size, size *= 2) {
      const chunk = Buffer.alloc(size);
      const bytesRead = readSync(fd, chunk, 0, size, position);
      const newline = chunk.subarray(0, bytesRead).indexOf(0x0a);
      chunks.push(chunk.subarray(0, newline === -1 ? bytesRead : newline));
      if (newline !== -1 || bytesRead < size) break;
    }
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as T;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
