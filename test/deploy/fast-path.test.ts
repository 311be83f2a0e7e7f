/**
 * The no-op redeploy stops before the adapter is parsed when nothing changed — and only then:
 * a changed recorded file, a changed adapter file, a changed mode of a copied file, an
 * AGENTS.md appearing for Claude Code, a leftover of a killed run all take the full path.
 */
import { chmod, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deploy, serverCommandFor, status } from "../../src/deploy/deploy.js";
import { unchangedRedeploy } from "../../src/deploy/fast-path.js";
import type { HostId } from "../../src/hosts/ids.js";
import { copyDir, exampleAdapter, tempDir, writeTree } from "../helpers.js";
import { fingerprint } from "./fixtures.js";
import { userRepo } from "./user-repo.js";

const input = (adapter: string, workspace: string, host: HostId, existing = false) => ({ adapter, workspace, host, existing, cliBuilt: true, serverFor: serverCommandFor });

async function deployed(host: HostId = "codex", existing = false): Promise<{ adapter: string; workspace: string }> {
  const adapter = await copyDir(exampleAdapter, { "skills/verify-output/run.sh": "#!/bin/sh\necho ok\n" });
  const workspace = existing ? await userRepo() : await tempDir();
  await deploy({ adapter, workspace, host, existing });
  return { adapter, workspace };
}

describe("the no-op fast path", () => {
  it("answers 'unchanged' for an untouched workspace, and a no-op redeploy writes nothing", async () => {
    for (const existing of [false, true]) {
      const { adapter, workspace } = await deployed("claude-code", existing);
      expect(await unchangedRedeploy(input(adapter, workspace, "claude-code", existing))).toMatchObject({ changed: false, written: [] });
      const before = await fingerprint(workspace);
      const again = await deploy({ adapter, workspace, host: "claude-code", existing });
      expect(again).toMatchObject({ changed: false, written: [], deleted: [] });
      expect(await fingerprint(workspace)).toEqual(before);
    }
  });

  it("a hand-edited recorded file takes the full path (and is refused as drift)", async () => {
    const { adapter, workspace } = await deployed();
    await writeFile(join(workspace, ".codex/agents/reviewer.toml"), "# mine\n", { flag: "a" });
    expect(await unchangedRedeploy(input(adapter, workspace, "codex"))).toBeUndefined();
    await expect(deploy({ adapter, workspace, host: "codex" })).rejects.toMatchObject({ code: "DRIFT" });
  });

  it("a changed or added adapter file takes the full path and is deployed", async () => {
    const { adapter, workspace } = await deployed();
    await writeFile(join(adapter, "skills/verify-output/notes.md"), "More notes.\n");
    expect(await unchangedRedeploy(input(adapter, workspace, "codex"))).toBeUndefined();
    const result = await deploy({ adapter, workspace, host: "codex" });
    expect(result.written).toContain(".agents/skills/verify-output/notes.md");
  });

  it("a deleted recorded file, a changed mode of a copied file, an AGENTS.md for Claude Code: full path", async () => {
    const first = await deployed();
    await rm(join(first.workspace, ".agents/skills/verify-output/SKILL.md"));
    expect(await unchangedRedeploy(input(first.adapter, first.workspace, "codex"))).toBeUndefined();
    expect((await deploy({ adapter: first.adapter, workspace: first.workspace, host: "codex" })).written).toEqual([".agents/skills/verify-output/SKILL.md"]);

    const second = await deployed();
    await chmod(join(second.adapter, "skills/verify-output/run.sh"), 0o755);
    expect(await unchangedRedeploy(input(second.adapter, second.workspace, "codex"))).toBeUndefined();
    await deploy({ adapter: second.adapter, workspace: second.workspace, host: "codex" });
    expect(((await import("node:fs")).statSync(join(second.workspace, ".agents/skills/verify-output/run.sh")).mode & 0o777).toString(8)).toBe("755");

    const third = await deployed("claude-code");
    await writeFile(join(third.workspace, "AGENTS.md"), "# Mine\n");
    expect(await unchangedRedeploy(input(third.adapter, third.workspace, "claude-code"))).toBeUndefined();
    await deploy({ adapter: third.adapter, workspace: third.workspace, host: "claude-code" });
    expect(await readFile(join(third.workspace, "CLAUDE.md"), "utf8")).toContain("@AGENTS.md");
  });

  it("a killed run's leftovers (lock, temp file, pending report) take the full path, which clears them", async () => {
    const { adapter, workspace } = await deployed();
    await writeTree(workspace, { ".hermit-deploy.lock": "", ".hermit-tmp-999999-0123456789ab": "half" });
    expect(await unchangedRedeploy(input(adapter, workspace, "codex"))).toBeUndefined();
    const result = await deploy({ adapter, workspace, host: "codex" });
    expect(result.changed).toBe(false);
    expect((await import("node:fs")).readdirSync(workspace).filter((name) => name.startsWith(".hermit-") && name !== ".hermit-deploy.json")).toEqual([]);
    expect((await status({ workspace })).clean).toBe(true);
  });

  it("a user file added to hermit's skill folder (--existing) takes the full path, which reports it", async () => {
    const { adapter, workspace } = await deployed("codex", true);
    await writeFile(join(workspace, ".agents/skills/verify-output/mine.md"), "mine\n");
    expect(await unchangedRedeploy(input(adapter, workspace, "codex", true))).toBeUndefined();
    await expect(deploy({ adapter, workspace, host: "codex", existing: true })).rejects.toThrow(/verify-output\/: already exists and is not hermit's/);
  });
});
