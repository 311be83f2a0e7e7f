/**
 * A deployment record is a plain file in the workspace: edited, or copied from another
 * workspace, it must not make hermit delete or replace a user's file. A file is hermit's only
 * when its bytes prove it (an intact ownership header naming the adapter where the format has
 * one; else bytes hashing to what the record says) and it sits where its host writes; anything
 * else is refused with exit 3 and nothing is written, `--force` or not.
 */
import { createHash } from "node:crypto";
import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deploy, status, undeploy } from "../../src/deploy/deploy.js";
import { RECORD_FILE, type DeploymentReport } from "../../src/deploy/record.js";
import { exampleAdapter, tempDir, writeTree } from "../helpers.js";
import { fingerprint } from "./fixtures.js";

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

const USER_FILES = {
  "README.md": "# My project\n\nDo not delete me.\n",
  ".agents/skills/mine/SKILL.md": "---\nname: mine\ndescription: My own skill.\n---\nMine.\n",
  ".agents/skills/mine/data.txt": "my data\n",
};

/** A codex workspace of the example adapter plus user files, with the record rewritten by `tamper`. */
async function tampered(tamper: (report: DeploymentReport) => void): Promise<string> {
  const workspace = await tempDir();
  await deploy({ adapter: exampleAdapter, workspace, host: "codex" });
  await writeTree(workspace, USER_FILES);
  const file = join(workspace, RECORD_FILE);
  const report = JSON.parse(await readFile(file, "utf8")) as DeploymentReport;
  tamper(report);
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  return workspace;
}

const claim = (path: string, text: string) => ({
  path,
  sha256: sha(text),
  operation: "create" as const,
  owner: { export: "skills" as const, item: "mine" },
  header: true,
});

async function expectRefused(workspace: string, run: () => Promise<unknown>, path: string, problem: RegExp) {
  const before = await fingerprint(workspace);
  const error = await run().then(
    () => undefined,
    (caught: unknown) => caught as { code?: string; exitCode?: number; message: string; data: { drift: Array<{ path: string; forceable: boolean }> } },
  );
  expect(error?.code).toBe("DRIFT");
  expect(error?.exitCode).toBe(3);
  expect(error?.message).toMatch(problem);
  expect(error?.data.drift.find((issue) => issue.path === path)?.forceable).toBe(false);
  expect(await fingerprint(workspace)).toEqual(before);
}

describe("a tampered or copied deployment record", () => {
  it("listing a user's markdown file without an ownership header: undeploy refuses (also with --force) and deletes nothing", async () => {
    const workspace = await tampered((report) => report.files.push(claim(".agents/skills/mine/SKILL.md", USER_FILES[".agents/skills/mine/SKILL.md"])));
    for (const force of [false, true]) {
      await expectRefused(workspace, () => undeploy({ workspace, force }), ".agents/skills/mine/SKILL.md", /carries no hermit ownership header/);
    }
    const report = await status({ workspace });
    expect(report.files.find((file) => file.path === ".agents/skills/mine/SKILL.md")?.condition).toBe("foreign");
    expect(report.clean).toBe(false);
  });

  it("listing a path its host never writes (even with the right hash): refused by undeploy and by deploy", async () => {
    const workspace = await tampered((report) => report.files.push({ ...claim("README.md", USER_FILES["README.md"]), header: false }));
    await expectRefused(workspace, () => undeploy({ workspace, force: true }), "README.md", /never writes/);
    // The adapter no longer exports what the record says: deploy would remove it.
    await expectRefused(workspace, () => deploy({ adapter: exampleAdapter, workspace, host: "codex", force: true }), "README.md", /never writes/);
    expect((await status({ workspace })).files.find((file) => file.path === "README.md")?.condition).toBe("foreign");
  });

  it("listing a header-less user file whose bytes differ from the record: refused, --force or not", async () => {
    const workspace = await tampered((report) => report.files.push({ ...claim(".agents/skills/mine/data.txt", "other bytes\n"), header: false }));
    await expectRefused(workspace, () => undeploy({ workspace, force: true }), ".agents/skills/mine/data.txt", /cannot tell a hand edit/);
  });

  it("copied from another workspace into a user's project: undeploy refuses and the user's files stay", async () => {
    const source = await tempDir();
    await deploy({ adapter: exampleAdapter, workspace: source, host: "codex" });
    const project = await tempDir();
    await writeTree(project, {
      ...USER_FILES,
      ".agents/skills/verify-output/SKILL.md": "---\nname: verify-output\ndescription: Mine, same name.\n---\nMine.\n",
      ".codex/config.toml": 'model = "o3"\n',
    });
    await cp(join(source, RECORD_FILE), join(project, RECORD_FILE));
    await expectRefused(project, () => undeploy({ workspace: project, force: true }), ".agents/skills/verify-output/SKILL.md", /no hermit ownership header/);
    expect(await readFile(join(project, ".codex/config.toml"), "utf8")).toBe('model = "o3"\n');
  });

  it("a generated file with an intact header of another adapter is not this record's to remove", async () => {
    const workspace = await tampered((report) => {
      report.adapter.name = "someone-else";
      for (const file of report.files) if (file.block) file.block.name = "someone-else";
    });
    await expectRefused(workspace, () => undeploy({ workspace, force: true }), ".agents/skills/verify-output/SKILL.md", /names adapter 'file-example'/);
  });
});
