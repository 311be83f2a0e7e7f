/**
 * The IO shell of verify without a real host: process groups are killed, escaped processes
 * are found by their marker, the workspace is put back, and a missing host program or
 * deployment report is a usage error (exit 2) that says what to install. Two tests start a
 * real host program from test/hosts only to read its --version or warnings (skipped without it).
 */
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deploy } from "../../src/deploy/deploy.js";
import { HermitError } from "../../src/errors.js";
import { killMarked, processesMarked, runProcess } from "../../src/verify/process.js";
import { HOST_PROGRAMS, findHostProgram, hostOfVersionOutput, parseVersion } from "../../src/verify/programs.js";
import { restoreWorkspace, snapshotWorkspace } from "../../src/verify/workspace-guard.js";
import { runCli } from "../cli/run-cli.js";
import { exampleAdapter, hostBinDir, noHost, readTree, skipBecause, tempDir, testdir } from "../helpers.js";

/** True while `pid` exists and is not a zombie. */
async function alive(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

async function waitGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (!(await alive(pid))) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

describe("process groups", () => {
  it("kills the whole group, grandchildren included, when the time limit hits", async () => {
    const result = await runProcess({
      argv: ["sh", "-c", "sleep 300 & echo $!; sleep 300"],
      cwd: await tempDir(),
      env,
      timeoutMs: 300,
    });
    expect(result.timedOut).toBe(true);
    const grandchild = Number(result.stdout.trim());
    expect(grandchild).toBeGreaterThan(0);
    expect(await waitGone(grandchild)).toBe(true);
  });

  it("stops on abort and reports it", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await runProcess({ argv: ["sleep", "300"], cwd: await tempDir(), env, timeoutMs: 60_000, signal: controller.signal });
    expect(result).toMatchObject({ aborted: true, timedOut: false });
  });

  it("reports a program that cannot start", async () => {
    const result = await runProcess({ argv: ["/nonexistent/host"], cwd: await tempDir(), env, timeoutMs: 5_000 });
    expect(result.spawnError).toMatch(/ENOENT/);
  });

  it("finds and kills a process that left the group, by the marker in its environment", async () => {
    const marker = `HERMIT_VERIFY_RUN=test-${process.pid}-${Date.now()}`;
    const result = await runProcess({
      // Wait until the child has its own session (field 6 of /proc/<pid>/stat) before the group goes.
      argv: [
        "sh",
        "-c",
        'setsid sleep 300 > /dev/null 2>&1 & pid=$!; while [ "$(cut -d" " -f6 /proc/$pid/stat)" != "$pid" ]; do sleep 0.01; done; echo $pid',
      ],
      cwd: await tempDir(),
      env: { ...env, HERMIT_VERIFY_RUN: marker.split("=")[1] },
      timeoutMs: 5_000,
    });
    const escaped = Number(result.stdout.trim());
    expect(await alive(escaped)).toBe(true);
    expect(processesMarked([marker])).toContain(escaped);
    expect(killMarked([marker])).toContain(escaped);
    expect(await waitGone(escaped)).toBe(true);
  });
});

describe("workspace guard", () => {
  it("removes what a host added and puts back what it changed or deleted", async () => {
    const workspace = await testdir({ "AGENTS.md": "# A\n", ".opencode/agents/reviewer.md": "x\n", "keep/deleted.txt": "bytes\n" });
    const before = await readTree(workspace);
    const snapshot = await snapshotWorkspace(workspace);
    await writeFile(join(workspace, ".opencode/.gitignore"), "node_modules\n");
    await mkdir(join(workspace, ".cache/deep"), { recursive: true });
    await writeFile(join(workspace, ".cache/deep/file"), "x");
    await writeFile(join(workspace, "AGENTS.md"), "# A\nchanged by a host\n");
    await rm(join(workspace, "keep/deleted.txt"));
    const changes = await restoreWorkspace(snapshot);
    expect(await readTree(workspace)).toEqual(before);
    expect(changes).toEqual({ removed: [".cache", ".opencode/.gitignore"], restored: ["AGENTS.md", "keep/deleted.txt"], unrestorable: [] });
  });
});

describe("finding the host program", () => {
  it("names the npm package and the version hermit was verified with when the program is not on PATH", () => {
    const error = (() => {
      try {
        findHostProgram("codex", { path: "/nonexistent" });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(HermitError);
    expect(error).toMatchObject({ code: "HOST_NOT_INSTALLED", exitCode: 2, data: { npmPackage: "@openai/codex", version: "0.169.0" } });
    expect((error as Error).message).toContain("npm install -g @openai/codex@0.169.0");
  });

  it("takes --host-bin or the first executable on PATH", async () => {
    const dir = await testdir({ "gemini": "#!/bin/sh\necho 0.61.0\n", "not-executable/gemini": "#!/bin/sh\n" });
    await chmod(join(dir, "gemini"), 0o755);
    expect(findHostProgram("gemini", { path: `${join(dir, "not-executable")}:${dir}` })).toBe(join(dir, "gemini"));
    expect(findHostProgram("gemini", { hostBin: join(dir, "gemini"), path: "" })).toBe(join(dir, "gemini"));
    expect(() => findHostProgram("gemini", { hostBin: join(dir, "not-executable", "gemini") })).toThrow(/not an executable file.*@google\/gemini-cli@0\.61\.0/);
  });

  it("parses the versions the five programs print", () => {
    expect(parseVersion("2.1.328 (Claude Code)")).toBe("2.1.328");
    expect(parseVersion("codex-cli 0.169.0")).toBe("0.169.0");
    expect(parseVersion("0.73.1\n")).toBe("0.73.1");
    expect(parseVersion("no version")).toBeUndefined();
    expect(Object.values(HOST_PROGRAMS).map((program) => `${program.npmPackage}@${program.version}`)).toEqual([
      "@openai/codex@0.169.0",
      "@anthropic-ai/claude-code@2.1.328",
      "@mariozechner/pi-coding-agent@0.73.1",
      "opencode-ai@1.18.33",
      "@google/gemini-cli@0.61.0",
    ]);
  });
});

describe("hermit verify: bad input (exit 2)", () => {
  it("refuses a folder without a deployment report", async () => {
    const run = await runCli(["verify", "--workspace", await tempDir()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/WORKSPACE_INVALID: .*\.hermit-deploy\.json: not found/);
  });

  it("says which package to install when the host program is missing, and writes nothing", async () => {
    const workspace = await tempDir();
    await deploy({ adapter: exampleAdapter, workspace, host: "codex" });
    const before = await readTree(workspace);
    const run = await runCli(["verify", "--workspace", workspace, "--json"], { env: { ...process.env, PATH: "/nonexistent" } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("HOST_NOT_INSTALLED");
    expect(run.stderr).toContain("npm install -g @openai/codex@0.169.0");
    expect(await readTree(workspace)).toEqual(before);
  });

  it("rejects a bad --timeout (a duration: seconds, 90s, 10m), with --json as one JSON document", async () => {
    const workspace = await tempDir();
    await deploy({ adapter: exampleAdapter, workspace, host: "opencode" });
    const run = await runCli(["verify", "--workspace", workspace, "--timeout", "soon"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--timeout must be a positive duration such as 90, 90s, 10m or 1h");
    const json = await runCli(["verify", "--workspace", workspace, "--timeout", "0", "--json"]);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: "USAGE", option: "timeout", value: "0" } });
  });

  it("knows the programs whose --version names them", () => {
    expect(hostOfVersionOutput("2.1.328 (Claude Code)")).toBe("claude-code");
    expect(hostOfVersionOutput("codex-cli 0.169.0")).toBe("codex");
    expect(hostOfVersionOutput("0.61.0")).toBeUndefined();
  });

  const codexBin = join(hostBinDir, "codex");
  it.skipIf(skipBecause(noHost("codex")))("warns when a deploy was interrupted in the workspace", async () => {
    const workspace = await tempDir();
    await deploy({ adapter: exampleAdapter, workspace, host: "codex" });
    await writeFile(join(workspace, ".hermit-deploy.pending.json"), await readFile(join(workspace, ".hermit-deploy.json")));
    const run = await runCli(["verify", "--workspace", workspace, "--host-bin", codexBin, "--json"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).warnings).toContain(
      "a deploy was interrupted here (.hermit-deploy.pending.json): the files may be half updated; run the deploy again, then verify",
    );
  });

  const claudeBin = join(hostBinDir, "claude");
  it.skipIf(skipBecause(noHost("claude")))("refuses another host's program given as --host-bin, naming both", async () => {
    const workspace = await tempDir();
    await deploy({ adapter: exampleAdapter, workspace, host: "codex" });
    const before = await readTree(workspace);
    const run = await runCli(["verify", "--workspace", workspace, "--host-bin", claudeBin, "--json"]);
    expect(run.code).toBe(2);
    const error = JSON.parse(run.stdout).error;
    expect(error).toMatchObject({ code: "HOST_NOT_INSTALLED", host: "codex", found: "claude-code", path: claudeBin });
    expect(error.message).toContain("this is the claude-code program");
    expect(error.message).toContain("npm install -g @openai/codex@0.169.0");
    expect(await readTree(workspace)).toEqual(before);
  });
});
