/**
 * `npm run bench`: every benchmark in sequence (or those named on the command line), then one
 * line per speed goal (bench/goals.ts) with its measured ratio, or that it was not measured.
 * Run with the `jiti` CLI, not `node --import jiti/register`: under Node 20's loader hooks, a
 * CommonJS package the model layer loads (`ai` → `@vercel/oidc`) fails to `require` its files.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { closeTimer, printSummary } from "./lib.js";

const dir = import.meta.dirname;
const wanted = process.argv.slice(2);
const names = (await readdir(dir))
  .filter((file) => file.endsWith(".ts") && !["run.ts", "lib.ts", "goals.ts"].includes(file))
  .map((file) => file.replace(/\.ts$/, ""))
  .filter((name) => wanted.length === 0 || wanted.includes(name))
  .sort();
for (const name of names) {
  console.log(`\n# bench/${name}.ts`);
  await import(join(dir, `${name}.ts`));
}
closeTimer();
printSummary();
