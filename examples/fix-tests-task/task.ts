/**
 * Example Task acted by a real host: fix the code behind a failing test. Each instance is a
 * small Node.js project (`instances/<id>/`) whose tests fail; the host gets the project as its
 * workspace, with the version under test deployed into it, and one turn to fix it. The score
 * comes from the workspace alone: 1 when `node --test` passes afterwards with the tests
 * untouched, else 0. A turn that could not finish (time limit, crash) is missing data (`null`).
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { hostTask, type Split } from "hermit/plugin";

interface FixInstance {
  id: string;
  split: Split;
  [key: string]: unknown;
}

const here = dirname(fileURLToPath(import.meta.url));
const { instances } = JSON.parse(readFileSync(join(here, "instances.json"), "utf8")) as { instances: FixInstance[] };

export const PROMPT =
  "The tests of this Node.js project fail. Fix the code so that `node --test` passes in the project directory. " +
  "Do not change the tests.";

/** The starting files of an instance: every file of its project folder. */
export function startingFiles(id: string): Record<string, string> {
  const root = join(here, "instances", id);
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files[relative(root, path).split("\\").join("/")] = readFileSync(path, "utf8");
    }
  };
  walk(root);
  return files;
}

/** `node --test` in `dir`: whether it passed, and the end of its report. */
export function runTests(dir: string): Promise<{ passed: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--test", "--test-reporter=spec"],
      { cwd: dir, timeout: 60_000, env: { PATH: process.env.PATH ?? "", NO_COLOR: "1" }, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ passed: !error, output: `${stdout}${stderr}`.trim().slice(-1500) }),
    );
  });
}

export default hostTask({
  name: "fix-tests",
  instances: (split: Split) => instances.filter((instance) => instance.split === split),
  prompt: PROMPT,
  files: (instance: FixInstance) => startingFiles(instance.id),
  async score(result, instance) {
    const original = startingFiles(instance.id);
    for (const [path, content] of Object.entries(original)) {
      if (!path.startsWith("test/")) continue;
      const now = await readFile(join(result.workspace, path), "utf8").catch(() => undefined);
      if (now !== content) return { score: 0, feedback: `The agent changed or removed the test file ${path}; the tests must stay as they are.` };
    }
    const tests = await runTests(result.workspace);
    if (tests.passed) return { score: 1, feedback: "The tests pass." };
    return { score: 0, feedback: `The tests still fail:\n${tests.output}` };
  },
});
