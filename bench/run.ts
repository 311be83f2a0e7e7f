/** `npm run bench`: every benchmark in sequence (or those named on the command line). */
import { readdir } from "node:fs/promises";
import { join } from "node:path";

const dir = import.meta.dirname;
const wanted = process.argv.slice(2);
const names = (await readdir(dir))
  .filter((file) => file.endsWith(".ts") && !["run.ts", "lib.ts"].includes(file))
  .map((file) => file.replace(/\.ts$/, ""))
  .filter((name) => wanted.length === 0 || wanted.includes(name))
  .sort();
for (const name of names) {
  console.log(`\n# bench/${name}.ts`);
  await import(join(dir, `${name}.ts`));
}
