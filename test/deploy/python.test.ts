/**
 * Deploying an adapter with Python tools: the report names the Python the served tools will
 * run on; with no usable Python the deploy fails with PYTHON_UNAVAILABLE and writes nothing.
 * (Real hosts calling the deployed Python tool: test/verify/python-hosts.test.ts.)
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deploy } from "../../src/deploy/deploy.js";
import { exampleAdapter, repoRoot, skipBecause, tempDir } from "../helpers.js";
import { failure } from "../runtime/fixture.js";
import { noPython } from "../runtime/python-fixture.js";

const pyExample = join(repoRoot, "examples", "file_adapter_py");

describe.skipIf(skipBecause(noPython))("deploying Python tools", () => {
  it("names the Python in the report; a TypeScript adapter's report has none", async () => {
    const workspace = await tempDir();
    await deploy({ adapter: pyExample, workspace, host: "codex" });
    const record = JSON.parse(await readFile(join(workspace, ".hermit-deploy.json"), "utf8")) as { python?: string };
    expect(record.python).toMatch(/^python 3\.\d+\.\d+ \(\S+, from PATH\)$/);
    const other = await tempDir();
    await deploy({ adapter: exampleAdapter, workspace: other, host: "codex" });
    expect(JSON.parse(await readFile(join(other, ".hermit-deploy.json"), "utf8"))).not.toHaveProperty("python");
  });

  it("fails with PYTHON_UNAVAILABLE, writing nothing, when no Python can run the tools", async () => {
    const workspace = await tempDir();
    const path = process.env.PATH;
    process.env.PATH = await tempDir(); // an empty folder: no python3
    try {
      const error = await failure(deploy({ adapter: pyExample, workspace, host: "claude-code" }));
      expect(error.code).toBe("PYTHON_UNAVAILABLE");
      expect(error.message).toContain("tool 'count_words' (entrypoint tools.py:count_words) needs Python 3.8 or later");
    } finally {
      process.env.PATH = path;
    }
    expect(await readdir(workspace)).toEqual([]);
  });
});
