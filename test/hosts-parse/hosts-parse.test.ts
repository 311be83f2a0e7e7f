/**
 * The real host programs (test/hosts/node_modules/.bin, the versions docs/hosts.md lists) parse what
 * `hermit deploy` wrote, offline, each in an isolated HOME / CODEX_HOME / XDG dirs / TMPDIR
 * with the activation steps of the deployment report performed there (never in the real ~).
 * A host whose binary is absent is skipped with the reason; the "connected" checks need the
 * built `hermit serve` (dist/cli.js) and are skipped with the reason when it is missing.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stringify as stringifyToml } from "smol-toml";
import { beforeAll, describe, expect, it } from "vitest";
import { deploy, status } from "../../src/deploy/deploy.js";
import type { DeploymentReport } from "../../src/deploy/record.js";
import { exampleAdapter, hostBinDir, noHost, skipBecause, tempDir } from "../helpers.js";

const BIN = hostBinDir;

interface Sandbox {
  home: string;
  workspace: string;
  report: DeploymentReport;
  env: NodeJS.ProcessEnv;
}

/** Deploy the example adapter for `host` into a fresh workspace, with an isolated home beside it. */
async function sandbox(host: string): Promise<Sandbox> {
  const root = await tempDir(`hermit-parse-${host}-`);
  const home = join(root, "home");
  const workspace = join(root, "ws");
  for (const dir of ["tmp", ".config", ".cache", ".local/share", ".local/state", ".codex"]) await mkdir(join(home, dir), { recursive: true });
  const result = await deploy({ adapter: exampleAdapter, workspace, host });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    USERPROFILE: home,
    CODEX_HOME: join(home, ".codex"),
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_STATE_HOME: join(home, ".local/state"),
    TMPDIR: join(home, "tmp"),
    NO_COLOR: "1",
    CI: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
  };
  return { home, workspace, report: result.report as DeploymentReport, env };
}

/** Run a host CLI in the workspace; resolves with its output even when it exits non-zero. */
function host(box: Sandbox, name: string, args: string[]): Promise<{ code: number; output: string; stdout: string }> {
  return new Promise((resolve) => {
    execFile(join(BIN, name), args, { cwd: box.workspace, env: box.env, timeout: 90_000, encoding: "utf8" }, (error, stdout, stderr) => {
      // eslint-disable-next-line no-control-regex
      const clean = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, "");
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: clean(stdout + stderr), stdout: clean(stdout) });
    });
  });
}

/** The activation data of a step, as the report gives it. */
function activation(report: DeploymentReport, id: string): Record<string, unknown> {
  const step = report.activation.find((candidate) => candidate.id === id);
  if (!step) throw new Error(`the report has no activation step ${id}`);
  return step.data;
}

const serverLine = (report: DeploymentReport) => [report.server!.command, ...report.server!.args].join(" ");

/** After a host ran in the workspace, hermit still sees no drift and a redeploy writes nothing. */
async function expectUntouched(box: Sandbox, hostId: string) {
  expect((await status({ workspace: box.workspace })).clean).toBe(true);
  expect((await deploy({ adapter: exampleAdapter, workspace: box.workspace, host: hostId })).changed).toBe(false);
}

describe.skipIf(skipBecause(noHost("claude")))("claude-code (claude mcp list)", () => {
  let box: Sandbox;
  let listing: { code: number; output: string };
  beforeAll(async () => {
    box = await sandbox("claude-code");
    const { claudeJson } = activation(box.report, "claude-code.trust-folder") as { claudeJson: object };
    await writeFile(join(box.home, ".claude.json"), JSON.stringify(claudeJson));
    listing = await host(box, "claude", ["mcp", "list"]);
  });

  it("lists our server from .mcp.json with our exact command", async () => {
    expect(listing.output).toContain(`file-example: ${serverLine(box.report)} - `);
    expect(listing.output).not.toContain("Pending approval");
    await expectUntouched(box, "claude-code");
  });

  it("reports it ✔ Connected", () => {
    expect(listing.output).toContain(`file-example: ${serverLine(box.report)} - ✔ Connected`);
  });
});

describe.skipIf(skipBecause(noHost("codex")))("codex (codex mcp get --json, debug prompt-input)", () => {
  let box: Sandbox;
  beforeAll(async () => {
    box = await sandbox("codex");
    const { codexHomeConfig } = activation(box.report, "codex.trust-project") as { codexHomeConfig: Record<string, unknown> };
    await writeFile(join(box.home, ".codex", "config.toml"), stringifyToml(codexHomeConfig));
  });

  it("prints our MCP entry from the trusted project's .codex/config.toml", async () => {
    const result = await host(box, "codex", ["mcp", "get", "file-example", "--json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      name: "file-example",
      enabled: true,
      transport: { type: "stdio", command: box.report.server!.command, args: box.report.server!.args },
    });
  });

  it("puts the block, the skill and the reviewer role into the model-visible prompt (a role with an unknown key would be dropped)", async () => {
    const prompt = await host(box, "codex", ["debug", "prompt-input", "hi"]);
    expect(prompt.code).toBe(0);
    expect(prompt.stdout).toContain(`# AGENTS.md instructions for ${box.workspace}`);
    expect(prompt.stdout).toContain("<!-- hermit:file-example:start -->\\n# Adapter: file-example\\n\\n## Word counting");
    expect(prompt.stdout).toContain("verify-output: Check a computed word count before reporting it.");
    expect(prompt.stdout).toContain("reviewer: {\\nReviews a word count against the source text and reports any mismatch.\\n}");
    await expectUntouched(box, "codex");
  });
});

describe.skipIf(skipBecause(noHost("opencode")))("opencode (mcp list, agent list, debug skill)", () => {
  let box: Sandbox;
  let listing: { code: number; output: string };
  beforeAll(async () => {
    box = await sandbox("opencode");
    listing = await host(box, "opencode", ["mcp", "list"]);
  });

  it("lists our server from opencode.json, the reviewer as a subagent, and the skill", async () => {
    expect(listing.output).toMatch(/file-example/);
    expect(listing.output).toContain(serverLine(box.report));
    const agents = await host(box, "opencode", ["agent", "list"]);
    expect(agents.output).toContain("reviewer (subagent)");
    const skills = JSON.parse((await host(box, "opencode", ["debug", "skill"])).stdout) as Array<{ name: string; location: string }>;
    expect(skills.find((skill) => skill.name === "verify-output")?.location).toBe(
      join(box.workspace, ".opencode/skills/verify-output/SKILL.md"),
    );
    await expectUntouched(box, "opencode");
  });

  it("reports it connected", () => {
    expect(listing.output).toMatch(/✓ file-example\s+connected/);
  });
});

describe.skipIf(skipBecause(noHost("gemini")))("gemini (mcp list, skills list)", () => {
  let box: Sandbox;
  let listing: { code: number; output: string };
  beforeAll(async () => {
    box = await sandbox("gemini");
    const { trustedFolders } = activation(box.report, "gemini.trust-folder") as { trustedFolders: object };
    await mkdir(join(box.home, ".gemini"), { recursive: true });
    await writeFile(join(box.home, ".gemini", "trustedFolders.json"), JSON.stringify(trustedFolders));
    listing = await host(box, "gemini", ["mcp", "list"]);
  });

  it("lists our server from .gemini/settings.json and the skill from .gemini/skills", async () => {
    expect(listing.output).toContain(`file-example: ${serverLine(box.report)} (stdio)`);
    expect(listing.output).not.toContain("untrusted");
    const skills = await host(box, "gemini", ["skills", "list"]);
    expect(skills.output).toContain("verify-output [Enabled]");
    await expectUntouched(box, "gemini");
  });

  it("reports it Connected", () => {
    expect(listing.output).toContain(`✓ file-example: ${serverLine(box.report)} (stdio) - Connected`);
  });
});
