/**
 * `hermit train --deploy HOST:DIR --deploy-into existing`: the final version goes into the
 * user's own project as `deploy --existing` puts it there — beside their files, never over them.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { train } from "../../src/builtins.js";
import { undeploy } from "../../src/deploy/deploy.js";
import { addCheck, markerTask, scriptedEvolver, setup } from "../train/helpers.js";
import { bytesAndModes, USER_REPO, userRepo } from "./user-repo.js";

describe("train --deploy with --deploy-into existing", () => {
  it("deploys the final version into the user's repository with --existing; undeploy gives it back byte for byte", async () => {
    const { adapter, runsDir, template } = await setup();
    const repo = await userRepo();
    const pristine = await bytesAndModes(repo);
    const result = await train({
      adapter,
      template,
      task: markerTask().task,
      evolver: scriptedEvolver([addCheck]).evolver,
      steps: 1,
      runsDir,
      runId: "into-existing",
      deploy: `claude-code:${repo}`,
      deployInto: "existing",
    });
    expect(result.deployments).toMatchObject([{ host: "claude-code", workspace: repo, changed: true }]);
    expect(result.deployments[0]).not.toHaveProperty("error");
    const report = JSON.parse(await readFile(join(repo, ".hermit-deploy.claude-code.light.json"), "utf8"));
    expect(report).toMatchObject({ existing: true, adapter: { path: join(result.runDir, "final") } });
    const claude = await readFile(join(repo, "CLAUDE.md"), "utf8");
    expect(claude.startsWith(USER_REPO["CLAUDE.md"])).toBe(true);
    expect(claude).toContain("Check the result.");
    await undeploy({ workspace: repo });
    expect(await bytesAndModes(repo)).toEqual(pristine);
  });
});
