/**
 * JSON records on disk: whole documents written atomically, and append-only JSON lines whose
 * torn last line (a crash mid-append) is skipped when read.
 */
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

/** Append one JSON line. A line cut short by a crash is skipped by `readJsonLines`. */
export async function appendJsonLine(file: string, value: unknown): Promise<void> {
  await appendFile(file, `${JSON.stringify(value)}\n`);
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

/** Make sure the next append starts on a fresh line (after a torn last line). */
export async function sealJsonLines(file: string): Promise<void> {
  const text = await readFile(file, "utf8").catch(() => "");
  if (text.length > 0 && !text.endsWith("\n")) await appendFile(file, "\n");
}
