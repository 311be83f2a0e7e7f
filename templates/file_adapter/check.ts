/**
 * Custom check of the file_adapter template, run by `hermit spec check` in a child process.
 * Receives the candidate's and the root's absolute paths; returns a list of issues.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";

interface Issue {
  path: string;
  check: string;
  problem: string;
}

export async function check(input: { adapter: string; root: string }): Promise<Issue[]> {
  const issues: Issue[] = [];
  const context = await readFile(join(input.adapter, "ADAPTER.md"), "utf8");
  if (!/^# \S/m.test(context)) {
    issues.push({ path: "ADAPTER.md", check: "custom", problem: "needs a top-level '# ' heading" });
  }
  if (!context.includes("count_words")) {
    issues.push({ path: "ADAPTER.md", check: "custom", problem: "must tell the agent about the count_words tool" });
  }
  return issues;
}
