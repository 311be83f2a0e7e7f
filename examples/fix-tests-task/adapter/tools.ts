/** The fix-tests adapter's tool. Fixed: a candidate may not change this file. */
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";

export interface RunTestsInput {
  dir: string;
}

export interface RunTestsResult {
  passed: boolean;
  /** The runner's counts, e.g. `tests 1, pass 0, fail 1`. */
  summary: string;
  /** The runner's report (the end of it, when long). */
  output: string;
}

const MAX_OUTPUT = 6000;

/** Run `node --test` in `dir` (an absolute path to a project directory). */
export function runTests(input: RunTestsInput): RunTestsResult {
  if (!isAbsolute(input.dir) || !statSync(input.dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new Error(`${input.dir}: not a directory; give the absolute path of the project`);
  }
  const run = spawnSync(process.execPath, ["--test", "--test-reporter=spec"], {
    cwd: input.dir,
    encoding: "utf8",
    timeout: 20_000,
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1" },
  });
  const output = `${run.stdout ?? ""}${run.stderr ?? ""}`;
  const counts = ["tests", "pass", "fail"].map((name) => `${name} ${new RegExp(`ℹ ${name} (\\d+)`).exec(output)?.[1] ?? "?"}`);
  return {
    passed: run.status === 0,
    summary: run.error ? `could not run the tests: ${run.error.message}` : counts.join(", "),
    output: output.length > MAX_OUTPUT ? `…${output.slice(-MAX_OUTPUT)}` : output,
  };
}
