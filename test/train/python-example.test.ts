/**
 * `hermit train` on the example written the Python way (`examples/train_py.yaml`:
 * `tools.py:count_words`, the template's `check.py:check`): the same offline run as the
 * README's, its rollouts calling the Python tool, its candidates checked by the Python checker.
 */
import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { repoRoot, skipBecause, tempDir } from "../helpers.js";
import { noPython } from "../runtime/python-fixture.js";
import { ensureBuilt, fsck } from "./helpers.js";

describe.skipIf(skipBecause(noPython))("hermit train on the Python example", () => {
  beforeAll(ensureBuilt, 180_000);

  it("trains offline, improves the sealed test score, and its rollouts run the Python tool", async () => {
    const runsDir = join(await tempDir("hermit-train-py-"), "runs");
    const result = spawnSync(
      process.execPath,
      [join(repoRoot, "dist", "cli.js"), "train", "--config", "examples/train_py.yaml", "--runs-dir", runsDir, "--json"],
      { cwd: repoRoot, encoding: "utf8" },
    );
    expect(result.status, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.test.base).toBeLessThan(0.5);
    expect(json.test.final).toBe(1);
    expect(json.steps.filter((step: { status: string }) => step.status === "accepted").length).toBeGreaterThanOrEqual(4);

    const transcript = JSON.parse(await readFile(join(json.runDir, "steps", "1", "rollouts", "install-guide", "transcript.json"), "utf8"));
    expect(transcript.toolCalls[0]).toMatchObject({ tool: "count_words", result: { count: transcript.answer } });
    const audit = (await readFile(join(json.runDir, "steps", "1", "rollouts", "install-guide.audit.jsonl"), "utf8")).trim().split("\n");
    const header = JSON.parse(audit[0]!) as { session: { name: string; runtimes: string[] } };
    expect(header.session.name).toBe("file-example-py");
    expect(header.session.runtimes).toEqual([expect.stringMatching(/^python 3\.\d+\.\d+ \(\S+, from PATH\)$/)]);
    expect(JSON.parse(audit[1]!)).toMatchObject({ tool: "count_words", result: { count: transcript.answer } });
    expect(fsck(join(runsDir, "versions.git")).status).toBe(0);
  }, 420_000);
});
