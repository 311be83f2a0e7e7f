/** Rewrite the generated settings section of docs/trainer.md from src/train/settings/table.ts. */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { replaceSettingsDocs } from "../src/train/settings/docs.js";

const file = join(import.meta.dirname, "..", "docs", "trainer.md");
await writeFile(file, replaceSettingsDocs(await readFile(file, "utf8")));
console.log(`updated ${file}`);
