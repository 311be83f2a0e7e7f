/**
 * Start-up, whole processes from the build: `hermit --version` against `node -e 0` (the goal),
 * and the start-up of a real command (`hermit spec check --help`: the command tree and the
 * command's module, no work) for context.
 */
import { join } from "node:path";
import { compare } from "./lib.js";

const cli = join(import.meta.dirname, "..", "dist", "cli.js");
const node = { label: "node -e 0", command: [process.execPath, "-e", "0"] };
const pairs = Number(process.env.BENCH_PAIRS ?? 15);
await compare("version", { label: "hermit --version", command: [process.execPath, cli, "--version"] }, node, { pairs });
await compare("command-startup", { label: "hermit spec check --help", command: [process.execPath, cli, "spec", "check", "--help"] }, node, { pairs });
