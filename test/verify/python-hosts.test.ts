/**
 * The Python example (`examples/file_adapter_py`, `tools.py:count_words`) deployed to real
 * hosts: the deployment report names the Python, and `hermit verify --exercise-tools` finds
 * every export and sees the host call the Python tool through hermit's server.
 */
import { readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deploy } from "../../src/deploy/deploy.js";
import type { HostId } from "../../src/hosts/ids.js";
import { hermitCli } from "../../src/package-root.js";
import type { VerifyReport } from "../../src/verify/verify.js";
import { runCli } from "../cli/run-cli.js";
import { repoRoot, skipBecause, tempDir } from "../helpers.js";
import { noPython } from "../runtime/python-fixture.js";
import { hostBin, missingReason, verifyProcesses } from "./fixtures.js";

const pyExample = join(repoRoot, "examples", "file_adapter_py");
const HOSTS: HostId[] = ["claude-code", "codex"];

describe.sequential("the Python example with the real hosts", () => {
  for (const host of HOSTS) {
    const bin = hostBin(host);
    const skip = skipBecause(noPython) || skipBecause(bin ? undefined : missingReason(host)) || !existsSync(hermitCli);
    it.skipIf(skip)(
      `${host}: deployed with the Python named in the report; verify discovers the tool and the host calls it`,
      async () => {
        const workspace = await tempDir(`hermit-vpython-${host}-`);
        await deploy({ adapter: pyExample, workspace, host });
        const record = JSON.parse(await readFile(join(workspace, ".hermit-deploy.json"), "utf8")) as { python?: string; exports: { tools: string[] } };
        expect(record.python).toMatch(/^python 3\.\d+\.\d+ \(\S+, from PATH\)$/);
        expect(record.exports.tools).toEqual(["count_words"]);
        const tmp = await tempDir("hermit-vtmp-");
        const run = await runCli(["verify", "--workspace", workspace, "--json", "--exercise-tools", "--host-bin", bin!], {
          env: { ...process.env, TMPDIR: tmp },
        });
        const report = JSON.parse(run.stdout) as VerifyReport;
        expect(report.passed, run.stdout.slice(0, 2000)).toBe(true);
        expect(run.code).toBe(0);
        expect(report.exercise).toEqual([
          expect.objectContaining({ tool: "count_words", counted: true, passed: true, reachedServer: true, served: expect.objectContaining({ ok: true, result: { count: 2 } }) }),
        ]);
        expect(verifyProcesses(tmp)).toEqual([]);
      },
      240_000,
    );
  }
});
