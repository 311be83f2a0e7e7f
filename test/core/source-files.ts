/** The TypeScript files under src/ (declaration files left out), for the tests that read the whole source: layers, size. */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { repoRoot } from "../helpers.js";

export const SRC = join(repoRoot, "src");

/** Every `.ts`/`.mts` file under `dir` (default src/), sorted; `.d.ts` files left out. */
export async function sourceFiles(dir = SRC): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sourceFiles(path)));
    else if (/\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(path);
  }
  return out.sort();
}
