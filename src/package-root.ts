import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** hermit's own install directory (holds package.json, dist/, schemas/, templates/). */
export const packageRoot: string = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

function findPackageRoot(start: string): string {
  let dir = start;
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string };
      if (pkg.name === "hermit") return dir;
    } catch {
      // not here; keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`hermit's package.json not found above ${start}`);
    dir = parent;
  }
}

export const hermitVersion: string = (
  JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { version: string }
).version;

/** The built CLI that host MCP entries and child processes start. */
export const hermitCli: string = join(packageRoot, "dist", "cli.js");

/** The adapter contract this hermit implements; an adapter must share its major. */
export const CONTRACT_VERSION = "1.0.0";
