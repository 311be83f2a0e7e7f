/**
 * The real host programs (test/hosts/node_modules/.bin, the versions docs/hosts.md lists) parse what
 * `hermit deploy` wrote, offline, each in an isolated HOME / CODEX_HOME / XDG dirs / TMPDIR
 * with the activation steps of the deployment report performed there (never in the real ~).
 * A host whose binary is absent is skipped with the reason; the "connected" checks need the
 * built `hermit serve` (dist/cli.js) and are skipped with the reason when it is missing.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stringify as stringifyToml } from "smol-toml";
import { beforeAll, describe, expect, it } from "vitest";
import { deploy, status } from "../../src/deploy/deploy.js";
import { exampleAdapter, noHost, skipBecause } from "../helpers.js";
import { activation, host, sandbox, serverLine, type Sandbox } from "./host-sandbox.js";

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
