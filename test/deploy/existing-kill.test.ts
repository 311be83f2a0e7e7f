/**
 * `kill -9` during `hermit deploy --existing` into a user's repository, at points spread over
 * the whole run: `status` says what was left (an interrupted deploy, a stale lock), a re-run
 * converges to exactly the uninterrupted result, and undeploy then gives back every user byte.
 */
import { spawn } from "node:child_process";
import { existsSync, watch } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { deploy, status, undeploy } from "../../src/deploy/deploy.js";
import { hermitCli } from "../../src/package-root.js";
import { copyDir, exampleAdapter } from "../helpers.js";
import { bytesAndModes, userRepo } from "./user-repo.js";

/** The example adapter with many skills, so that a deploy takes long enough to be cut anywhere. */
async function manySkills(count = 40): Promise<string> {
  const tree: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    tree[`skills/extra-${i}/SKILL.md`] = `---\nname: extra-${i}\ndescription: Extra skill ${i}.\n---\n${"Body.\n".repeat(200)}`;
    tree[`skills/extra-${i}/notes/reference.md`] = `# Notes ${i}\n`;
  }
  return copyDir(exampleAdapter, tree);
}

const PENDING = ".hermit-deploy.claude-code.file-example.pending.json";

/**
 * Run the CLI deploy and kill it with SIGKILL: `at.afterStart` ms after it started, or
 * `at.afterPending` ms after its pending report appeared (inside apply); with neither, let
 * it finish. Resolves with the time from start to the pending report and to the end.
 */
function deployKilled(adapter: string, workspace: string, at: { afterStart?: number; afterPending?: number } = {}): Promise<{ pending: number; end: number }> {
  const start = performance.now();
  let pending = Number.NaN;
  const child = spawn(process.execPath, [hermitCli, "deploy", "--adapter", adapter, "--workspace", workspace, "--host", "claude-code", "--existing"], {
    stdio: "ignore",
  });
  const timers: NodeJS.Timeout[] = [];
  if (at.afterStart !== undefined) timers.push(setTimeout(() => child.kill("SIGKILL"), at.afterStart));
  const watcher = watch(workspace, () => {
    if (!Number.isNaN(pending) || !existsSync(join(workspace, PENDING))) return;
    pending = performance.now() - start;
    if (at.afterPending !== undefined) timers.push(setTimeout(() => child.kill("SIGKILL"), at.afterPending));
  });
  return new Promise((resolve) =>
    child.on("exit", () => {
      watcher.close();
      timers.forEach(clearTimeout);
      resolve({ pending, end: performance.now() - start });
    }),
  );
}

/** Every file's bytes with the machine-specific workspace path taken out, for comparing two repositories. */
async function normalized(repo: string): Promise<Record<string, string>> {
  const files = await bytesAndModes(repo);
  const record = Object.keys(files).find((path) => path.startsWith(".hermit-deploy."));
  if (record) files[record] = (await readFile(join(repo, record), "utf8")).split(repo).join("<repo>");
  return files;
}

describe("kill -9 during deploy --existing", () => {
  it("status reports what was left; a re-run converges to the uninterrupted result; undeploy restores every user byte", async () => {
    const adapter = await manySkills();
    const reference = await userRepo();
    const timing = await deployKilled(adapter, reference);
    expect(Number.isNaN(timing.pending)).toBe(false);
    const expected = await normalized(reference);
    const apply = timing.end - timing.pending;
    // Two kills before the pending report (lock taken or not), the rest spread over apply.
    const kills: Array<{ afterStart?: number; afterPending?: number }> = [{ afterStart: timing.pending * 0.6 }, { afterStart: timing.pending * 0.97 }];
    for (let k = 0; k < 8; k++) kills.push({ afterPending: (apply * k) / 8 });
    const outcomes: string[] = [];
    for (const at of kills) {
      const repo = await userRepo();
      const pristine = await bytesAndModes(repo);
      await deployKilled(adapter, repo, at);
      const left = await readdir(repo);
      const state = await status({ workspace: repo }).then(
        (report) => (report.interrupted ? "interrupted" : report.lock?.stale ? "stale lock" : report.clean ? "finished" : "drift"),
        (error: { code?: string }) => `no deployment (${error.code})`,
      );
      outcomes.push(state);
      expect(state).not.toBe("drift");
      if (state.startsWith("no deployment")) expect(left.filter((name) => name.startsWith(".hermit-deploy.") && name !== ".hermit-deploy.lock")).toEqual([]);
      await deploy({ adapter, workspace: repo, host: "claude-code", existing: true });
      expect(await normalized(repo)).toEqual(expected);
      expect((await status({ workspace: repo })).clean).toBe(true);
      await undeploy({ workspace: repo });
      expect(await bytesAndModes(repo)).toEqual(pristine);
    }
    console.info(`kill -9 outcomes: ${outcomes.join(", ")}`);
    expect(outcomes.filter((outcome) => outcome === "interrupted").length).toBeGreaterThan(0);
  }, 240_000);
});
