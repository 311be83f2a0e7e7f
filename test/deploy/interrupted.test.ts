/**
 * A deploy cut short (kill -9, power loss) and a file system that refuses a write or a read:
 * the pending report lets a re-run finish the deploy or undeploy remove what it wrote; a
 * refused write is WORKSPACE_UNWRITABLE naming the file, with every touched file (and its
 * mode) restored; an unreadable file is reported, never an internal error.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, cp, mkdir, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyPlan } from "../../src/deploy/apply.js";
import { deploy, status, undeploy } from "../../src/deploy/deploy.js";
import type { Plan } from "../../src/deploy/plan.js";
import { PENDING_FILE, RECORD_FILE } from "../../src/deploy/record.js";
import { HermitError } from "../../src/errors.js";
import { hermitCli } from "../../src/package-root.js";
import { runCli } from "../cli/run-cli.js";
import { copyDir, exampleAdapter, readTree, repoRoot, skipBecause, tempDir, testdir } from "../helpers.js";

/** The pid of a process that has exited (so temp files named after it are stale). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(child.stdout);
}

/** The example adapter with a few more skills, several files each. */
async function biggerAdapter(skills = 6): Promise<string> {
  const tree: Record<string, string> = {};
  for (let i = 1; i <= skills; i++) {
    tree[`skills/extra-${i}/SKILL.md`] = `---\nname: extra-${i}\ndescription: Extra skill ${i}.\n---\nBody ${i}.\n`;
    tree[`skills/extra-${i}/refs/notes.md`] = `# Notes ${i}\n`;
    tree[`skills/extra-${i}/refs/deep/data.txt`] = `data ${i}\n`;
  }
  return copyDir(exampleAdapter, tree);
}

/** Every file of a workspace, the deployment record read without the machine-specific workspace path. */
async function contents(workspace: string): Promise<Record<string, string>> {
  const tree = await readTree(workspace);
  if (tree[RECORD_FILE]) tree[RECORD_FILE] = tree[RECORD_FILE].split(workspace).join("<workspace>");
  return tree;
}

/**
 * A workspace in the state a deploy killed half-way leaves: the pending report (the record
 * the deploy was about to write), some of its files, folders created for the others, and a
 * temp file of the dead process.
 */
async function interrupted(reference: string, previous?: string): Promise<string> {
  const workspace = await tempDir();
  if (previous) await cp(previous, workspace, { recursive: true });
  const record = await readFile(join(reference, RECORD_FILE), "utf8");
  const files = (JSON.parse(record) as { files: Array<{ path: string }> }).files.map((file) => file.path);
  await writeFile(join(workspace, PENDING_FILE), record.split(reference).join(workspace));
  for (const [index, path] of files.entries()) {
    await mkdir(join(workspace, path, ".."), { recursive: true });
    if (index % 2 === 0) await cp(join(reference, path), join(workspace, path));
  }
  const folder = join(workspace, files[files.length - 1], "..");
  await writeFile(join(folder, `.hermit-tmp-${deadPid()}-0123456789ab`), "half a file");
  return workspace;
}

describe("an interrupted first deploy", () => {
  it("is reported by status, and a re-run finishes it: the same files as an uninterrupted deploy, no leftovers", async () => {
    const adapter = await biggerAdapter();
    const reference = await tempDir();
    await deploy({ adapter, workspace: reference, host: "claude-code" });
    const workspace = await interrupted(reference);

    const report = await status({ workspace });
    expect(report.interrupted).toBe(true);
    expect(report.clean).toBe(false);
    expect(report.files.some((file) => file.condition === "missing")).toBe(true);
    expect(report.drift).toEqual([]);
    const cli = await runCli(["status", "--workspace", workspace]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain("a deploy was interrupted (.hermit-deploy.pending.json): run 'hermit deploy' again to finish it");

    const result = await deploy({ adapter, workspace, host: "claude-code" });
    expect(result.actions.find((action) => action.path === PENDING_FILE)).toMatchObject({ action: "delete", note: "left by an interrupted deploy" });
    expect(result.actions.filter((action) => action.action === "create").length).toBeGreaterThan(0);
    expect(await contents(workspace)).toEqual(await contents(reference));
    expect((await status({ workspace })).clean).toBe(true);
    const again = await deploy({ adapter, workspace, host: "claude-code" });
    expect(again.changed).toBe(false);
  });

  it("undeploy removes what it wrote, the temp files and the emptied folders; user files stay", async () => {
    const adapter = await biggerAdapter();
    const reference = await tempDir();
    await deploy({ adapter, workspace: reference, host: "opencode" });
    const workspace = await interrupted(reference);
    await writeFile(join(workspace, "NOTES.md"), "mine\n");
    const result = await undeploy({ workspace });
    expect(result.host).toBe("opencode");
    expect(await readTree(workspace)).toEqual({ "NOTES.md": "mine\n" });
    expect(await readdir(workspace)).toEqual(["NOTES.md"]);
  });

  it("refuses another host while its files are there, naming the interrupted deploy", async () => {
    const reference = await tempDir();
    await deploy({ adapter: exampleAdapter, workspace: reference, host: "gemini" });
    const workspace = await interrupted(reference);
    await expect(deploy({ adapter: exampleAdapter, workspace, host: "codex" })).rejects.toThrow(
      /an interrupted deploy \(\.hermit-deploy\.pending\.json\) left files here for host 'gemini', not 'codex'/,
    );
  });
});

describe("an interrupted redeploy", () => {
  it("undeploy removes the files of both versions, and the block, without --force", async () => {
    const adapter = await biggerAdapter(2);
    const before = await tempDir();
    await deploy({ adapter, workspace: before, host: "codex" });
    await writeFile(join(before, "AGENTS.md"), `# Mine\n\n${await readFile(join(before, "AGENTS.md"), "utf8")}`);
    // The next version: one skill renamed, the context changed.
    const next = await copyDir(adapter, { "ADAPTER.md": "# Counting\n\nCount carefully.\n" });
    await rm(join(next, "skills", "extra-2"), { recursive: true });
    await cp(join(adapter, "skills", "extra-2"), join(next, "skills", "renamed"), { recursive: true });
    await writeFile(join(next, "skills", "renamed", "SKILL.md"), "---\nname: renamed\ndescription: Renamed.\n---\nBody.\n");
    const after = await copyDir(before);
    await deploy({ adapter: next, workspace: after, host: "codex" });
    const workspace = await interrupted(after, before);
    // The block was being rewritten: take the new one.
    await cp(join(after, "AGENTS.md"), join(workspace, "AGENTS.md"));

    const result = await undeploy({ workspace });
    expect(result.forced).toEqual([]);
    expect(await readTree(workspace)).toEqual({ "AGENTS.md": "# Mine\n\n" });
  });
});

describe("kill -9 during a real deploy", () => {
  it("a re-run of the same deploy ends with exactly the uninterrupted result", async () => {
    const adapter = await biggerAdapter(60);
    const reference = await tempDir();
    await deploy({ adapter, workspace: reference, host: "gemini" });
    const workspace = join(await tempDir(), "ws");
    const child = spawn(process.execPath, [hermitCli, "deploy", "--adapter", adapter, "--workspace", workspace, "--host", "gemini"], {
      stdio: "ignore",
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    // Kill it as soon as it has started writing (the pending report comes first); if it
    // finished before the kill lands, the re-run must still end the same.
    for (let i = 0; i < 4000; i++) {
      if (await stat(join(workspace, PENDING_FILE)).then(() => true, () => false)) break;
      if (child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    child.kill("SIGKILL");
    await exited;

    const rerun = await runCli(["deploy", "--adapter", adapter, "--workspace", workspace, "--host", "gemini"]);
    expect(rerun.stderr).toBe("");
    expect(rerun.code).toBe(0);
    expect(await contents(workspace)).toEqual(await contents(reference));
  });
});

describe("a write the file system refuses", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  const owner = { export: "skills" as const };

  it("is WORKSPACE_UNWRITABLE naming the file; what was touched is restored with its mode", async () => {
    const workspace = await testdir({ "run.sh": "#!/bin/sh\necho old\n", "blocker": "a file where a folder is needed" });
    await chmod(join(workspace, "run.sh"), 0o755);
    const plan: Plan = {
      drift: [],
      journal: bytes("{}\n"),
      actions: [
        { path: "run.sh", action: "replace", intent: "create", owner, content: bytes("#!/bin/sh\necho new\n"), previous: bytes("#!/bin/sh\necho old\n") },
        { path: "blocker/x.md", action: "create", intent: "create", owner, content: bytes("x") },
      ],
    };
    const error = await applyPlan(workspace, plan, new Set(["run.sh"])).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(HermitError);
    expect(error).toMatchObject({ code: "WORKSPACE_UNWRITABLE", exitCode: 2, data: { path: join(workspace, "blocker") } });
    expect((error as Error).message).toMatch(/\/blocker: cannot mkdir \((EEXIST|ENOTDIR): .*\); nothing was changed \(the files already written were restored\)$/);
    expect(await readTree(workspace)).toEqual({ "blocker": "a file where a folder is needed", "run.sh": "#!/bin/sh\necho old\n" });
    expect((await stat(join(workspace, "run.sh"))).mode & 0o777).toBe(0o755);
  });
});

/** The unprivileged user the permission tests run as, when this process is root (root reads and writes anything). */
const NOBODY = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"];

/** Whether the unprivileged user can read `file` (every folder above it must be traversable). */
function nobodyCanRead(file: string): boolean {
  const probe = `require("fs").accessSync(${JSON.stringify(file)}, require("fs").constants.R_OK)`;
  return spawnSync(NOBODY[0], [...NOBODY.slice(1), process.execPath, "-e", probe]).status === 0;
}

/**
 * hermit's CLI where the unprivileged user can run it: the checkout's own `dist/cli.js`, or, when
 * the checkout sits under a folder that user cannot traverse (a clone in root's home), a copy of
 * what the CLI needs (hard links where the file system allows) in a folder it can read.
 */
async function cliForNobody(): Promise<string | undefined> {
  if (nobodyCanRead(hermitCli)) return hermitCli;
  const copy = await tempDir("hermit-cli-copy-");
  await chmod(copy, 0o755);
  for (const entry of ["package.json", "dist", "schemas", "templates", "node_modules"]) {
    const from = join(repoRoot, entry);
    if (!existsSync(from)) continue;
    const linked = spawnSync("cp", ["-al", from, copy]).status === 0;
    if (!linked && spawnSync("cp", ["-a", from, copy]).status !== 0) return undefined;
  }
  const cli = join(copy, "dist", "cli.js");
  return nobodyCanRead(cli) ? cli : undefined;
}

/** argv that runs the CLI as an unprivileged user, or why it cannot be done here. */
async function unprivileged(): Promise<{ argv?: string[]; reason?: string }> {
  if (process.getuid?.() !== 0) return { argv: [process.execPath, hermitCli] };
  if (!existsSync(NOBODY[0])) return { reason: "running as root without /usr/bin/setpriv, so no unprivileged user to run hermit as" };
  if (!nobodyCanRead(process.execPath)) return { reason: `the unprivileged user (uid 65534) cannot run ${process.execPath}` };
  const cli = await cliForNobody();
  return cli ? { argv: [...NOBODY, process.execPath, cli] } : { reason: "the unprivileged user (uid 65534) cannot read hermit's files, even copied to a temp folder" };
}

describe("files the user running hermit may not read or write", async () => {
  const { argv, reason } = await unprivileged();
  const runAs = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(argv![0], [...argv!.slice(1), ...args], { stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });

  it.skipIf(skipBecause(reason))("are reported with the file and the reason (status, deploy, undeploy), never as an internal error", async () => {
    const parent = await tempDir();
    await chmod(parent, 0o777);
    const adapter = join(parent, "adapter");
    await cp(exampleAdapter, adapter, { recursive: true });
    await chmod(adapter, 0o755);
    const workspace = join(parent, "ws");
    await mkdir(workspace, { mode: 0o777 });
    await chmod(workspace, 0o777);
    expect((await runAs(["deploy", "--adapter", adapter, "--workspace", workspace, "--host", "claude-code"])).code).toBe(0);
    const skill = join(workspace, ".claude", "skills", "verify-output", "SKILL.md");
    await chmod(skill, 0o000);

    const state = await runAs(["status", "--workspace", workspace]);
    expect(state.code).toBe(1);
    expect(state.stdout).toContain("damaged   .claude/skills/verify-output/SKILL.md: cannot be read (EACCES: permission denied)");
    const again = await runAs(["deploy", "--adapter", adapter, "--workspace", workspace, "--host", "claude-code", "--json"]);
    expect(again.code).toBe(3);
    expect(JSON.parse(again.stdout).error.drift).toEqual([
      { path: ".claude/skills/verify-output/SKILL.md", problem: "cannot be read (EACCES: permission denied)", forceable: false },
    ]);
    await chmod(skill, 0o644);

    // A folder it may not write into: refused with the file named, nothing left behind.
    await writeFile(join(adapter, "ADAPTER.md"), "# Changed\n\nNew words.\n");
    const folder = join(workspace, ".claude", "agents");
    await chmod(folder, 0o555);
    const before = await readTree(workspace);
    const refused = await runAs(["deploy", "--adapter", adapter, "--workspace", workspace, "--host", "claude-code"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^hermit: error WORKSPACE_UNWRITABLE: .*\/\.claude\/agents\/reviewer\.md: cannot open \(EACCES: permission denied\); nothing was changed/,
    );
    expect(await readTree(workspace)).toEqual(before);
    await chmod(folder, 0o755);
    expect((await runAs(["undeploy", "--workspace", workspace])).code).toBe(0);
  });
});
