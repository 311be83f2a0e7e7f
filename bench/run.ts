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
// A benchmark that fails is reported and the others still run; the run then exits 1.
const failed: string[] = [];
for (const name of names) {
  console.log(`\n# bench/${name}.ts`);
  try {
    await import(join(dir, `${name}.ts`));
  } catch (error) {
    failed.push(name);
    console.log(`bench/${name}.ts failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
}
closeTimer();
printSummary();
if (failed.length > 0) {
  console.log(`\nfailed: ${failed.map((name) => `bench/${name}.ts`).join(", ")} (their goals are "not measured" above)`);
  process.exitCode = 1;
}
