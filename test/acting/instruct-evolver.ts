/**
 * An Evolver for the acting training test: it writes the example adapter's instruction ("call
 * the `run_tests` tool …") into the candidate's ADAPTER.md, the one learnable file it touches.
 * A version with it lets the acting host fix the project; the base without it does not.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

const instructed = join(import.meta.dirname, "..", "..", "examples", "fix-tests-task", "adapter", "ADAPTER.md");

export const evolver = {
  apiVersion: "1.0",
  name: "instruct",
  async step(context: { workspace: { adapter: string } }) {
    const file = join(context.workspace.adapter, "ADAPTER.md");
    const text = await readFile(instructed, "utf8");
    if ((await readFile(file, "utf8")) === text) return { status: "skipped" as const, summary: "the instruction is already there" };
    await writeFile(file, text);
    return { status: "done" as const, summary: "told the agent to run the tests with run_tests before and after fixing" };
  },
};
