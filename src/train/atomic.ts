/**
 * Crash-safe file writes for the Trainer: every record is written to a temp file and renamed
 * over the target, so a `kill -9` leaves either the old or the new content, never half.
 */
import { randomBytes } from "node:crypto";
import { appendFile, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { HermitError } from "../errors.js";

let counter = 0;

/** A temp name unique within the machine (pid + counter + random), in `dir`. */
export function tempName(dir: string, prefix: string): string {
  counter += 1;
  return join(dir, `${prefix}${process.pid}-${counter}-${randomBytes(4).toString("hex")}`);
}

/** Write `data` to `file` atomically (temp file in the same folder, then rename). */
export async function atomicWrite(file: string, data: string | Uint8Array, tempDir = dirname(file)): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await mkdir(tempDir, { recursive: true });
  const temp = tempName(tempDir, `.${basename(file)}.tmp-`);
  try {
    await writeFile(temp, data);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

export async function writeJson(file: string, value: unknown): Promise<void> {
  await atomicWrite(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** Read a JSON file; undefined when it does not exist; HermitError naming it when it is not JSON. */
export async function readJson<T>(file: string): Promise<T | undefined> {
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
    throw new HermitError("RUN_INVALID", `${file}: not valid JSON: ${(error as Error).message}`, { path: file });
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
      // a torn line: the record never finished, so the rollout counts as not run
    }
  }
  return out;
}

/** Make sure the next append starts on a fresh line (after a torn last line). */
export async function sealJsonLines(file: string): Promise<void> {
  const text = await readFile(file, "utf8").catch(() => "");
  if (text.length > 0 && !text.endsWith("\n")) await appendFile(file, "\n");
}
