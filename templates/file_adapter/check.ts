/**
 * Custom check of the file_adapter template, run by `hermit spec check` in a child process.
 * Called as `check(adapterPath, { root })`: the candidate's absolute path first, the
 * template root's second. Returns a list of issues (an empty list passes).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";

interface Issue {
  path: string;
  problem: string;
}

export async function check(adapterPath: string, _extras: { root: string }): Promise<Issue[]> {
  const issues: Issue[] = [];
  const context = await readFile(join(adapterPath, "ADAPTER.md"), "utf8");
  if (!/^# \S/m.test(context)) {
    issues.push({ path: "ADAPTER.md", problem: "needs a top-level '# ' heading" });
  }
  if (!context.includes("count_words")) {
    issues.push({ path: "ADAPTER.md", problem: "must tell the agent about the count_words tool" });
  }
  return issues;
}
