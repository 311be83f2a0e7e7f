/**
 * The repository stands alone: code, errors, docs and tests never send a reader to a document
 * outside it. What hermit relies on about hosts is in docs/hosts.md.
 */
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers.js";

const OUTSIDE = /HOSTS\.md|DESIGN\.md|STYLE\.md|\.\.\/shared\b/;
const SKIP = new Set(["node_modules", "dist", ".git", "runs"]);

async function* textFiles(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* textFiles(path);
    else if (/\.(ts|mts|js|mjs|md|json|yaml|yml|sh|py|toml)$/.test(entry.name) || entry.name === "run") yield path;
  }
}

describe("the repository stands alone", () => {
  it("no file points at documents outside the repository", async () => {
    const offenders: string[] = [];
    for (const top of ["src", "docs", "test", "scripts", "examples", "templates", "bench", ".ci"]) {
      for await (const file of textFiles(join(repoRoot, top))) {
        if (file === import.meta.filename) continue;
        const lines = (await readFile(file, "utf8")).split("\n");
        lines.forEach((line, index) => OUTSIDE.test(line) && offenders.push(`${relative(repoRoot, file)}:${index + 1}: ${line.trim()}`));
      }
    }
    for (const file of ["README.md", "AGENTS.md", "package.json"]) {
      const text = await readFile(join(repoRoot, file), "utf8");
      if (OUTSIDE.test(text)) offenders.push(file);
    }
    expect(offenders).toEqual([]);
  });
});
