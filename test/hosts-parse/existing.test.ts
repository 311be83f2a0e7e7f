/**
 * `hermit deploy --existing` into a realistic user repository, read by the real host
 * programs: each host's own listing still shows the user's MCP servers and now hermit's too,
 * and `hermit verify` on that repository passes without changing a byte of it. One host at a
 * time (they are heavy); a missing host binary skips its test with the reason.
 */
import { describe, expect, it } from "vitest";
import { status, undeploy } from "../../src/deploy/deploy.js";
import type { HostId } from "../../src/hosts/types.js";
import { verifyWorkspace } from "../../src/verify/verify.js";
import { hostBinDir, noHost, skipBecause } from "../helpers.js";
import { bytesAndModes, userRepo } from "../deploy/user-repo.js";
import { activate, host, sandbox } from "./host-sandbox.js";

const CASES: Array<{ host: HostId; bin: string; list: string[]; users: string[] }> = [
  { host: "claude-code", bin: "claude", list: ["mcp", "list"], users: ["github", "files"] },
  { host: "codex", bin: "codex", list: ["mcp", "list"], users: ["other"] },
  { host: "opencode", bin: "opencode", list: ["mcp", "list"], users: ["other"] },
  { host: "gemini", bin: "gemini", list: ["mcp", "list"], users: ["other"] },
];

describe.sequential("deploy --existing, read by the real hosts", () => {
  for (const { host: hostId, bin, list, users } of CASES) {
    it.skipIf(skipBecause(noHost(bin)))(
      `${hostId}: '${bin} ${list.join(" ")}' lists the user's servers and hermit's; hermit verify passes and leaves the repository as it was`,
      async () => {
        const repo = await userRepo();
        const pristine = await bytesAndModes(repo);
        const box = await sandbox(hostId, { workspace: repo, existing: true });
        await activate(box);
        const deployed = await bytesAndModes(repo);
        const report = await verifyWorkspace({ workspace: repo, env: { ...process.env, PATH: `${hostBinDir}:${process.env.PATH ?? ""}` } });
        expect(report.passed, JSON.stringify(report.items, null, 2)).toBe(true);
        expect(await bytesAndModes(repo)).toEqual(deployed);

        const listing = await host(box, bin, list);
        for (const name of [...users, "file-example"]) expect(listing.output, listing.output).toMatch(new RegExp(`\\b${name}\\b`));
        // What the host program wrote itself (OpenCode adds .opencode/.gitignore to any project it runs in).
        const listed = await bytesAndModes(repo);
        const byHost = Object.fromEntries(Object.entries(listed).filter(([path]) => deployed[path] === undefined));
        expect(Object.keys(byHost)).toEqual(hostId === "opencode" ? [".opencode/.gitignore"] : []);
        for (const path of Object.keys(deployed)) expect(listed[path]).toBe(deployed[path]);
        expect((await status({ workspace: repo })).clean).toBe(true);

        await undeploy({ workspace: repo });
        expect(await bytesAndModes(repo)).toEqual({ ...pristine, ...byHost });
      },
      480_000,
    );
  }
});
