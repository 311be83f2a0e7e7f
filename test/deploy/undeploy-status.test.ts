/** `undeploy` removes only hermit's projections; `status` reports drift without writing. */
import { appendFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deploy, status, undeploy } from "../../src/deploy/deploy.js";
import { readTree, tempDir } from "../helpers.js";
import { ALL_HOSTS, adapterFor, fingerprint } from "./fixtures.js";

const INSTRUCTION_FILE = { codex: "AGENTS.md", "claude-code": "CLAUDE.md", pi: "AGENTS.md", opencode: "AGENTS.md", gemini: "GEMINI.md" } as const;

describe("undeploy", () => {
  it.each(ALL_HOSTS)("%s: removes hermit's files and block, keeps user files and text byte for byte", async (host) => {
    const workspace = await tempDir();
    await deploy({ adapter: await adapterFor(host), workspace, host });
    const instructions = join(workspace, INSTRUCTION_FILE[host]);
    const generated = await readFile(instructions, "utf8");
    await writeFile(instructions, `# Mine\r\nabove\n${generated}below, no newline`);
    const skillDir = Object.keys(await readTree(workspace)).find((path) => path.endsWith("/SKILL.md"))!;
    const userInSkillDir = join(workspace, skillDir.replace("SKILL.md", "my-notes.txt"));
    await writeFile(userInSkillDir, "notes");
    await mkdir(join(workspace, "src"));
    await writeFile(join(workspace, "src/app.ts"), "export {};\n");

    const result = await undeploy({ workspace });
    expect(result.actions.find((action) => action.path === INSTRUCTION_FILE[host])?.action).toBe("block-edit");
    expect(await readTree(workspace)).toEqual({
      [INSTRUCTION_FILE[host]]: "# Mine\r\nabove\nbelow, no newline",
      [skillDir.replace("SKILL.md", "my-notes.txt")]: "notes",
      "src/app.ts": "export {};\n",
    });
  });

  it.each(ALL_HOSTS)("%s: on a fresh deploy leaves an empty workspace", async (host) => {
    const workspace = await tempDir();
    await deploy({ adapter: await adapterFor(host), workspace, host });
    await undeploy({ workspace });
    expect(await fingerprint(workspace)).toEqual({});
  });

  it("restores a user's instruction file exactly, including the separator hermit added", async () => {
    const workspace = await tempDir();
    await deploy({ adapter: await adapterFor("codex"), workspace, host: "codex" });
    await rm(join(workspace, "AGENTS.md"));
    await writeFile(join(workspace, "AGENTS.md"), "no trailing newline");
    await deploy({ adapter: await adapterFor("codex"), workspace, host: "codex" });
    expect(await readFile(join(workspace, "AGENTS.md"), "utf8")).toMatch(/^no trailing newline\n\n<!-- hermit/);
    await undeploy({ workspace });
    expect(await readFile(join(workspace, "AGENTS.md"), "utf8")).toBe("no trailing newline");
  });

  it("refuses a hand-edited generated file unless forced; dry run removes nothing", async () => {
    const workspace = await tempDir();
    await deploy({ adapter: await adapterFor("opencode"), workspace, host: "opencode" });
    await appendFile(join(workspace, ".opencode/agents/reviewer.md"), "my edit\n");
    const before = await fingerprint(workspace);
    await expect(undeploy({ workspace })).rejects.toMatchObject({ code: "DRIFT", exitCode: 3 });
    expect(await fingerprint(workspace)).toEqual(before);
    const dry = await undeploy({ workspace, dryRun: true, force: true });
    expect(dry.actions.find((action) => action.path === ".opencode/agents/reviewer.md")).toMatchObject({ action: "delete", note: "deletes a hand-edited file" });
    expect(await fingerprint(workspace)).toEqual(before);
    await undeploy({ workspace, force: true });
    expect(await fingerprint(workspace)).toEqual({});
  });

  it("refuses a folder that is not a hermit workspace", async () => {
    await expect(undeploy({ workspace: await tempDir() })).rejects.toMatchObject({ code: "WORKSPACE_INVALID" });
  });
});

describe("status", () => {
  it("reports a clean workspace, then each kind of drift, without writing", async () => {
    const workspace = await tempDir();
    const adapter = await adapterFor("codex");
    await deploy({ adapter, workspace, host: "codex" });
    const clean = await status({ workspace });
    expect(clean).toMatchObject({ clean: true, host: "codex", adapterChanged: false, drift: [] });
    expect(clean.files.map((file) => [file.path, file.condition])).toEqual([
      ["AGENTS.md", "intact"],
      [".agents/skills/verify-output/SKILL.md", "intact"],
      [".codex/agents/reviewer.toml", "intact"],
      [".codex/config.toml", "intact"],
    ]);
    expect(clean.files[2].header).toBe("intact");

    await appendFile(join(workspace, ".codex/agents/reviewer.toml"), "# mine\n");
    await rm(join(workspace, ".agents/skills/verify-output/SKILL.md"));
    const agents = await readFile(join(workspace, "AGENTS.md"), "utf8");
    await writeFile(join(workspace, "AGENTS.md"), agents.replace("<!-- hermit:file-example:end -->", ""));
    const before = await fingerprint(workspace);
    const drifted = await status({ workspace });
    expect(await fingerprint(workspace)).toEqual(before);
    expect(drifted.clean).toBe(false);
    expect(Object.fromEntries(drifted.files.map((file) => [file.path, [file.condition, file.header]]))).toEqual({
      "AGENTS.md": ["damaged", undefined],
      ".agents/skills/verify-output/SKILL.md": ["missing", undefined],
      ".codex/agents/reviewer.toml": ["modified", "edited"],
      ".codex/config.toml": ["intact", "intact"],
    });
    expect(drifted.drift).toEqual([
      { path: "AGENTS.md", line: 1, problem: expect.stringContaining("unmatched start marker"), forceable: false },
      { path: ".codex/agents/reviewer.toml", problem: expect.stringContaining("edited by hand"), forceable: true },
    ]);
  });
});
