/**
 * `hermit verify` on a repository that holds several deployments (deploys with `--existing`
 * for different hosts): without `--host`/`--name` it refuses and lists them; with them it
 * verifies the one they pick with its real host; a selector that matches none names what is
 * there. Real Claude Code and Codex; a missing host binary skips with the reason.
 */
import { describe, expect, it } from "vitest";
import { deploy } from "../../src/deploy/deploy.js";
import type { VerifyReport } from "../../src/verify/verify.js";
import { runCli } from "../cli/run-cli.js";
import { exampleAdapter, hostBinDir, noHost, skipBecause } from "../helpers.js";
import { bytesAndModes, userRepo } from "../deploy/user-repo.js";

const missing = noHost("claude") ?? noHost("codex");
const env = { ...process.env, PATH: `${hostBinDir}:${process.env.PATH ?? ""}` };

describe("verify picks one of several deployments", () => {
  it.skipIf(skipBecause(missing))(
    "refuses without --host (listing the deployments), verifies the one --host picks, names what is there when nothing matches",
    async () => {
      const repo = await userRepo();
      for (const host of ["claude-code", "codex"]) await deploy({ adapter: exampleAdapter, workspace: repo, host, existing: true });
      const deployed = await bytesAndModes(repo);

      const ambiguous = await runCli(["verify", "--workspace", repo, "--json"], { env });
      expect(ambiguous.code, ambiguous.stderr).toBe(2);
      expect(JSON.parse(ambiguous.stdout)).toMatchObject({ error: { code: "USAGE" } });
      expect(ambiguous.stdout).toContain("file-example for claude-code");
      expect(ambiguous.stdout).toContain("file-example for codex");

      for (const host of ["codex", "claude-code"] as const) {
        const picked = await runCli(["verify", "--workspace", repo, "--host", host, "--name", "file-example", "--json"], { env });
        expect(picked.code, picked.stderr).toBe(0);
        const report = JSON.parse(picked.stdout) as VerifyReport;
        expect(report.host).toBe(host);
        expect(report.passed).toBe(true);
      }

      const none = await runCli(["verify", "--workspace", repo, "--host", "gemini"], { env });
      expect(none.code).toBe(2);
      expect(none.stderr).toMatch(/WORKSPACE_INVALID: .*no deployment matches --host gemini .*found: file-example for claude-code/);

      // verify leaves the repository as deploy left it.
      const after = await bytesAndModes(repo);
      for (const path of Object.keys(deployed)) expect(after[path], path).toBe(deployed[path]);
    },
    300_000,
  );
});
