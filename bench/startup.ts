/** Start-up: `hermit --version` (the built CLI, whole process) against `node -e 0`. */
import { join } from "node:path";
import { compare } from "./lib.js";

const cli = join(import.meta.dirname, "..", "dist", "cli.js");
await compare(
  "version",
  { label: "hermit --version", command: [process.execPath, cli, "--version"] },
  { label: "node -e 0", command: [process.execPath, "-e", "0"] },
  { pairs: Number(process.env.BENCH_PAIRS ?? 15) },
);
