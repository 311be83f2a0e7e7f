/**
 * The custom checker's contract: `check(adapterPath, { root })`, the candidate's absolute path
 * as a plain string first (the original Hermit `def check(adapter_path)`), extras second. A
 * checker written for `check({ adapter, root })` gets one clear `custom` issue.
 */
import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { checkSpec } from "../../src/check/check.js";
import { copyDir, exampleAdapter, exampleTemplate, repoRoot, tempDir } from "../helpers.js";
import { ensureBuilt, lightAdapter } from "../train/helpers.js";

/** A checker in the original contract: one string argument, a list of issues back. */
const ORIGINAL_CONTRACT = [
  "import { existsSync, readFileSync } from 'node:fs';",
  "import { join } from 'node:path';",
  "export function check(adapter_path) {",
  "  if (typeof adapter_path !== 'string') throw new Error('expected a path string, got ' + typeof adapter_path);",
  "  if (!existsSync(join(adapter_path, 'README.md'))) return [{ path: 'README.md', problem: 'missing' }];",
  "  return readFileSync(join(adapter_path, 'ADAPTER.md'), 'utf8').includes('FORBIDDEN')",
  "    ? [{ path: 'ADAPTER.md', problem: 'says FORBIDDEN' }]",
  "    : [];",
  "}",
  "",
].join("\n");

const SIGNATURE =
  "custom check check.ts:check reads '.adapter' of its first argument, which is the candidate's absolute path as a string: " +
  "a checker is called as check(adapterPath, { root }) (write `export function check(adapterPath: string, { root }: { root: string })`)";

const rootWithCheck = (source: string) => copyDir(exampleTemplate, { "check.ts": source });

describe("the custom checker's signature", () => {
  it("calls the checker with the candidate's path as a string and the root as an extra", async () => {
    const root = await rootWithCheck(
      "export const check = (adapterPath, extras) => [{ path: 'x', problem: JSON.stringify([typeof adapterPath, adapterPath, Object.keys(extras), extras.root]) }];\n",
    );
    const adapter = await copyDir(exampleAdapter);
    const { issues } = await checkSpec(adapter, root);
    expect(issues).toEqual([{ path: "x", check: "custom", problem: JSON.stringify(["string", adapter, ["root"], root]) }]);
  });

  it("runs a checker written to the original contract, check(adapter_path)", async () => {
    const root = await rootWithCheck(ORIGINAL_CONTRACT);
    expect(await checkSpec(await copyDir(exampleAdapter), root)).toMatchObject({ passed: true, issues: [] });
    const bad = await copyDir(exampleAdapter, { "ADAPTER.md": "# Words\n\ncount_words, FORBIDDEN\n" });
    expect((await checkSpec(bad, root)).issues).toEqual([{ path: "ADAPTER.md", check: "custom", problem: "says FORBIDDEN" }]);
  });

  it.each([
    ["destructures { adapter, root }", "export function check({ adapter, root }) { return []; }\n"],
    [
      "reads input.adapter",
      "import { join } from 'node:path';\nexport const check = (input) => (join(input.adapter, 'ADAPTER.md') ? [] : []);\n",
    ],
    [
      "swallows the error",
      "export function check(input) { try { return input.adapter ? [] : []; } catch { return []; } }\n",
    ],
  ])("explains the signature to a checker that %s", async (_what, source) => {
    const root = await rootWithCheck(source);
    const { passed, issues } = await checkSpec(await copyDir(exampleAdapter), root);
    expect(passed).toBe(false);
    expect(issues).toEqual([{ path: "check.ts", check: "custom", problem: SIGNATURE }]);
  });
});

describe("hermit train on a template whose checker follows the original contract", () => {
  beforeAll(ensureBuilt, 180_000);

  it("starts, checks every candidate and finishes", async () => {
    const template = await copyDir(lightAdapter, { "check.ts": ORIGINAL_CONTRACT });
    const manifest = join(template, "adapter.yaml");
    await writeFile(manifest, `${await readFile(manifest, "utf8")}check: check.ts:check\n`);
    const adapter = await copyDir(template);
    const dir = await tempDir();
    const fixtures = join(repoRoot, "test", "train", "fixtures");
    const trained = spawnSync(
      process.execPath,
      [
        join(repoRoot, "dist", "cli.js"),
        "train",
        "--adapter", adapter,
        "--template", template,
        "--task", join(fixtures, "crash-task.ts"),
        "--evolver", join(fixtures, "crash-evolver.ts"),
        "--steps", "1",
        "--runs-dir", join(dir, "runs"),
        "--run-id", "original-contract",
        "--json",
      ],
      { cwd: dir, encoding: "utf8", env: { ...process.env, HERMIT_TEST_BLOCK: "" } },
    );
    expect(trained.status, trained.stderr).toBe(0);
    expect(JSON.parse(trained.stdout)).toMatchObject({ status: "completed", steps: [{ step: 1, status: "accepted" }] });
  }, 120_000);
});
