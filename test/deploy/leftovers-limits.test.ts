/**
 * What a killed run leaves (a lock, temp files) never blocks the next one, and what an adapter
 * holds cannot exhaust hermit's memory:
 * - a lock whose owner is gone is taken over at once, whatever its age (a dead pid, a pid now
 *   used by a later process, an empty file); `status` reports it; a run with nothing to change,
 *   and an undeploy where no deployment was ever recorded, remove it;
 * - temp files of hermit's naming left by dead writers are swept on every run;
 * - a skill file over the adapter reader's limits is INPUT_TOO_LARGE (exit 2) naming it, before
 *   anything is written.
 */
import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { open, readdir, readFile, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readAdapter } from "../../src/adapter/read.js";
import { deploy, status, undeploy } from "../../src/deploy/deploy.js";
import { LOCK_FILE } from "../../src/deploy/record.js";
import { processStart } from "../../src/fs/process.js";
import { runCli } from "../cli/run-cli.js";
import { copyDir, exampleAdapter, tempDir, writeTree } from "../helpers.js";
import { fingerprint } from "./fixtures.js";

function deadPid(): number {
  return Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);
}

const holder = (pid: number, start?: string) => JSON.stringify({ pid, host: hostname(), since: new Date().toISOString(), ...(start ? { start } : {}) });

describe("a lock left by a killed run", () => {
  it.each([
    ["an empty lock file, just written", () => ""],
    ["a lock of a dead process, just written", () => holder(deadPid(), "x:1")],
    ["a lock whose pid now belongs to a process that started later", () => holder(process.pid, "another-boot:1")],
  ])("%s is taken over at once", async (_name, content) => {
    const workspace = await tempDir();
    await writeFile(join(workspace, LOCK_FILE), content());
    await deploy({ adapter: exampleAdapter, workspace, host: "codex" });
    expect(await readdir(workspace)).not.toContain(LOCK_FILE);
    expect((await status({ workspace })).clean).toBe(true);
  });

  it("a lock of this very process (live, same start) refuses the deploy", async () => {
    const workspace = await tempDir();
    await writeFile(join(workspace, LOCK_FILE), holder(process.pid, processStart(process.pid)));
    await expect(deploy({ adapter: exampleAdapter, workspace, host: "codex" })).rejects.toMatchObject({ code: "WORKSPACE_LOCKED" });
  });

  it("status reports a stale lock; a deploy with nothing to change removes it", async () => {
    const workspace = await tempDir();
    await deploy({ adapter: exampleAdapter, workspace, host: "gemini" });
    const pid = deadPid();
    await writeFile(join(workspace, LOCK_FILE), holder(pid));
    const report = await status({ workspace });
    expect(report).toMatchObject({ clean: false, lock: { stale: true, holder: { pid } } });
    const cli = await runCli(["status", "--workspace", workspace]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain(`stale lock (.hermit-deploy.lock of process ${pid} on ${hostname()}`);
    const again = await deploy({ adapter: exampleAdapter, workspace, host: "gemini" });
    expect(again.changed).toBe(false);
    expect(await readdir(workspace)).not.toContain(LOCK_FILE);
    expect((await status({ workspace })).clean).toBe(true);
  });

  it("undeploy where a killed first deploy left only its lock and a temp file removes them", async () => {
    const workspace = await tempDir();
    const temp = `.hermit-tmp-${deadPid()}-0123456789ab`;
    await writeTree(workspace, { [LOCK_FILE]: "", [temp]: "half" });
    const result = await undeploy({ workspace });
    expect(result).toMatchObject({ host: "", changed: true, deleted: [LOCK_FILE, temp] });
    expect(await readdir(workspace)).toEqual([]);
    await expect(undeploy({ workspace })).rejects.toMatchObject({ code: "WORKSPACE_INVALID" });
  });
});

describe("temp files of dead writers", () => {
  it("are swept by the next run and never make the workspace 'not empty'", async () => {
    const workspace = await tempDir();
    const dead = deadPid();
    await writeTree(workspace, { [`.hermit-tmp-${dead}-0123456789ab`]: "half an AGENTS.md" });
    await deploy({ adapter: exampleAdapter, workspace, host: "codex" });
    expect((await readdir(workspace)).filter((name) => name.startsWith(".hermit-tmp-"))).toEqual([]);
    // An undeploy killed while rewriting the config leaves one beside it: the next deploy sweeps it.
    await writeTree(workspace, { [`.codex/.hermit-tmp-${dead}-abcdefabcdef`]: "half a config" });
    await deploy({ adapter: exampleAdapter, workspace, host: "codex" });
    expect((await readdir(join(workspace, ".codex"))).filter((name) => name.startsWith(".hermit-tmp-"))).toEqual([]);
  });
});

describe("adapter files over the reader's limits", () => {
  it("a 3 GB (sparse) skill file: INPUT_TOO_LARGE, exit 2, naming the file; nothing written", async () => {
    const adapter = await copyDir(exampleAdapter);
    const big = join(adapter, "skills/verify-output/huge.bin");
    await (await open(big, "w")).close();
    await truncate(big, 3 * 1024 ** 3);
    const workspace = await tempDir();
    const cli = await runCli(["deploy", "--adapter", adapter, "--workspace", workspace, "--host", "codex"]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain(`INPUT_TOO_LARGE: ${big}: 3221225472 bytes, over the limit of 8388608`);
    expect(cli.stderr).not.toMatch(/\n\s+at /);
    expect(await fingerprint(workspace)).toEqual({});
    // The same through the library with an adapter read beforehand.
    const read = await readAdapter(adapter);
    await expect(deploy({ adapter: read, workspace, host: "codex" })).rejects.toMatchObject({ code: "INPUT_TOO_LARGE", data: { path: big } });
  });

  it("files that are each allowed but together too many bytes: INPUT_TOO_LARGE before anything is read", async () => {
    const adapter = await copyDir(exampleAdapter);
    for (let i = 0; i < 40; i++) {
      const file = join(adapter, `skills/verify-output/part-${i}.bin`);
      await (await open(file, "w")).close();
      await truncate(file, 7 * 1024 ** 2);
    }
    const workspace = await tempDir();
    await expect(deploy({ adapter, workspace, host: "codex" })).rejects.toMatchObject({ code: "INPUT_TOO_LARGE" });
    expect(await fingerprint(workspace)).toEqual({});
    expect(await readFile(join(adapter, "adapter.yaml"), "utf8")).toContain("name: file-example");
  });
});
