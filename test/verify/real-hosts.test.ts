/**
 * `hermit verify` with the real host programs at the version hermit was verified withs (test/hosts, installed
 * by scripts/setup-hosts.sh). One file, run in sequence, so that no two hosts run at once.
 *
 * 1. The full matrix: deployments of the example adapter for all five hosts, each verified
 *    through the CLI (`--json --host-bin`) with HOME pointed at an empty folder standing for
 *    the user's real home; then no process is left, the isolated home is gone, and nothing
 *    outside it was written.
 * 2. Deployments broken on purpose: verify reports the item that vanished, with a reason.
 *
 * A host whose program is absent is skipped with the reason.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { appendFile, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deploy } from "../../src/deploy/deploy.js";
import { getHost } from "../../src/hosts/index.js";
import type { HostId } from "../../src/hosts/types.js";
import { hermitCli } from "../../src/package-root.js";
import { parseVersion } from "../../src/verify/programs.js";
import { verifyWorkspace, type VerifyReport } from "../../src/verify/verify.js";
import { runCli } from "../cli/run-cli.js";
import { exampleAdapter, readTree, skipBecause, tempDir } from "../helpers.js";
import { ALL_HOSTS, HOST_BIN_DIR, adapterFor, hostBin, missingReason, verifyProcesses } from "./fixtures.js";

/** What each host must show for the example adapter: [kind, name, discovered, counted]. */
const MATRIX: Record<HostId, Array<[string, string, boolean, boolean]>> = {
  codex: [
    ["context", "AGENTS.md", true, true],
    ["skill", "verify-output", true, true],
    ["agent", "reviewer", true, true],
    ["tool", "count_words", true, true],
  ],
  "claude-code": [
    ["context", "CLAUDE.md", true, true],
    ["skill", "verify-output", true, true],
    ["agent", "reviewer", true, true],
    ["tool", "count_words", true, true],
  ],
  // Pi takes no subagents (the adapter is deployed without them) and has no MCP of its own:
  // the tool is best-effort, reported and not counted.
  pi: [
    ["context", "AGENTS.md", true, true],
    ["skill", "verify-output", true, true],
    ["tool", "count_words", false, false],
  ],
  opencode: [
    ["context", "AGENTS.md", true, true],
    ["skill", "verify-output", true, true],
    ["agent", "reviewer", true, true],
    ["tool", "count_words", true, true],
  ],
  gemini: [
    ["context", "GEMINI.md", true, true],
    ["skill", "verify-output", true, true],
    ["agent", "reviewer", true, true],
    ["tool", "count_words", true, true],
  ],
};

const KIND_OF: Record<string, "context" | "skills" | "agents" | "tools"> = { context: "context", skill: "skills", agent: "agents", tool: "tools" };

describe.sequential("hermit verify with the real hosts", () => {
  for (const host of ALL_HOSTS) {
    const bin = hostBin(host);
    it.skipIf(skipBecause(whyNot(host)))(
      `${host}: every export the declaration guarantees is discovered`,
      async () => {
        const adapter = await adapterFor(host);
        const workspace = await tempDir(`hermit-vtest-${host}-`);
        await deploy({ adapter, workspace, host });
        const realHome = await tempDir("hermit-fake-user-home-");
        // verify's isolated home goes under TMPDIR: one of its own, so this run's leftovers are told apart.
        const tmp = await tempDir("hermit-vtmp-");
        const workspaceBefore = await readTree(workspace);
        const adapterBefore = await readTree(adapter);

        const run = await runCli(["verify", "--workspace", workspace, "--json", "--host-bin", bin!], {
          env: { ...process.env, HOME: realHome, TMPDIR: tmp },
        });
        expect(run.stderr).not.toContain("internal error");
        const report = JSON.parse(run.stdout) as VerifyReport;

        expect(report.host).toBe(host);
        expect(report.hostVersion).toBe(report.expectedHostVersion);
        expect(report.items.map((item) => [item.kind, item.name, item.discovered, item.counted])).toEqual(MATRIX[host]);
        expect(report.passed).toBe(true);
        expect(run.code).toBe(0);
        for (const item of report.items.filter((entry) => entry.discovered)) {
          expect(item.evidence[0]).toMatchObject({ request: expect.any(Number), field: expect.any(String), excerpt: expect.any(String) });
        }
        for (const item of report.items.filter((entry) => !entry.discovered)) expect(item.reason).toMatch(/best-effort/);
        // Every activation step the report lists was performed in the isolated home, except
        // installing Pi's MCP extension, which verify does not do.
        expect(report.activation.notPerformed.map((step) => step.id)).toEqual(host === "pi" ? ["pi.install-mcp-adapter"] : []);

        // The declaration guarantees what verify proved; evidence it calls verified names this version.
        const declaration = getHost(host).capabilities;
        for (const item of report.items) {
          const capability = declaration.exports[KIND_OF[item.kind]];
          if (capability.level === "guaranteed") expect(item.discovered, `${host} ${item.kind} ${item.name}`).toBe(true);
          if (capability.evidence === "verified") {
            expect(item.discovered).toBe(true);
            expect(parseVersion(capability.verifiedWith ?? "")).toBe(report.hostVersion);
          }
        }

        // Nothing left behind: no process, no isolated home (nothing at all in TMPDIR), no byte outside it.
        expect(verifyProcesses(tmp)).toEqual([]);
        expect(readdirSync(tmp)).toEqual([]);
        expect(await readTree(workspace)).toEqual(workspaceBefore);
        expect(await readTree(adapter)).toEqual(adapterBefore);
        expect(await readTree(realHome)).toEqual({});
      },
      180_000,
    );
  }
});

async function deployed(host: HostId): Promise<string> {
  const workspace = await tempDir(`hermit-vbreak-${host}-`);
  await deploy({ adapter: exampleAdapter, workspace, host });
  return workspace;
}

async function edit(file: string, change: (text: string) => string): Promise<void> {
  const text = await readFile(file, "utf8");
  const changed = change(text);
  if (changed === text) throw new Error(`${file}: the edit changed nothing`);
  await writeFile(file, changed);
}

async function verify(workspace: string): Promise<VerifyReport> {
  return verifyWorkspace({ workspace, env: { ...process.env, PATH: `${HOST_BIN_DIR}:${process.env.PATH ?? ""}` } });
}

function verdicts(report: VerifyReport): Array<[string, string, boolean]> {
  return report.items.map((item) => [item.kind, item.name, item.discovered]);
}

/** Why `host` cannot be verified here, or undefined. */
function whyNot(host: HostId): string | undefined {
  if (!existsSync(hermitCli)) return `${hermitCli} is missing: build hermit first (npm run build)`;
  return hostBin(host) ? undefined : missingReason(host);
}
const skipUnless = (host: HostId) => skipBecause(whyNot(host));
const title = (host: HostId, text: string) => `${host}: ${text}${hostBin(host) ? "" : ` (skipped: ${missingReason(host)})`}`;

describe.sequential("hermit verify reports a broken deployment", () => {
  it.skipIf(skipUnless("codex"))(title("codex", "a role file with an unknown key makes the role vanish"), async () => {
    const workspace = await deployed("codex");
    await appendFile(join(workspace, ".codex/agents/reviewer.toml"), 'color = "blue"\n');
    const report = await verify(workspace);
    expect(report.passed).toBe(false);
    expect(verdicts(report)).toEqual([
      ["context", "AGENTS.md", true],
      ["skill", "verify-output", true],
      ["agent", "reviewer", false],
      ["tool", "count_words", true],
    ]);
    const agent = report.items[2];
    expect(agent.evidence).toEqual([]);
    expect(agent.reason).toContain("no request lists agent 'reviewer' with its description");
    // Codex's own warning, which it shows only in its TUI or doctor output, is quoted.
    expect(agent.reason).toMatch(/host said: .*malformed agent role.*reviewer\.toml.*unknown field `color`/);
  }, 180_000);

  it.skipIf(skipUnless("claude-code"))(title("claude-code", "a skill folder renamed away from its name is not the skill"), async () => {
    const workspace = await deployed("claude-code");
    await rename(join(workspace, ".claude/skills/verify-output"), join(workspace, ".claude/skills/output-check"));
    const report = await verify(workspace);
    expect(report.passed).toBe(false);
    expect(verdicts(report)).toEqual([
      ["context", "CLAUDE.md", true],
      ["skill", "verify-output", false],
      ["agent", "reviewer", true],
      ["tool", "count_words", true],
    ]);
    // Claude lists the skill under its folder name, the frontmatter name only as an alias.
    expect(report.items[1].reason).toContain("- output-check (verify-output): Check a computed word count");
    expect(report.items[1].reason).toContain(".claude/skills/verify-output/SKILL.md is missing from the workspace");
  }, 180_000);

  it.skipIf(skipUnless("gemini"))(title("gemini", "an agent with an unknown frontmatter key fails to load"), async () => {
    const workspace = await deployed("gemini");
    await edit(join(workspace, ".gemini/agents/reviewer.md"), (text) => text.replace(/^---\n/, "---\nmode: subagent\n"));
    const report = await verify(workspace);
    expect(report.passed).toBe(false);
    expect(verdicts(report)).toEqual([
      ["context", "GEMINI.md", true],
      ["skill", "verify-output", true],
      ["agent", "reviewer", false],
      ["tool", "count_words", true],
    ]);
    // The edited file was acknowledged as it is now, so only the unknown key can explain it.
    expect(report.warnings.join("\n")).toContain(".gemini/agents/reviewer.md changed since deploy; acknowledged its current bytes");
    expect(report.items[2].reason).toMatch(/host said: .*Failed to load agent from .*reviewer\.md/);
  }, 180_000);

  it.skipIf(skipUnless("opencode"))(
    title("opencode", "an MCP entry pointing at a missing file loses the tool; the CLI exits 1 and leaves nothing behind"),
    async () => {
      const workspace = await deployed("opencode");
      await edit(join(workspace, "opencode.json"), (text) => text.replace(hermitCli, join(workspace, "missing", "cli.js")));
      const tmp = await tempDir("hermit-vtmp-");
      const run = await runCli(["verify", "--workspace", workspace, "--host-bin", hostBin("opencode")!], { env: { ...process.env, TMPDIR: tmp } });
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/^ {2}context +AGENTS\.md +✓/m);
      expect(run.stdout).toMatch(/^ {2}tool +count_words +✗ +guaranteed +no request offers the tool as 'file-example_count_words'; opencode mcp list: .*file-example.*failed/m);
      expect(run.stdout).toContain("FAILED: 3 of 4 guaranteed item(s) discovered");
      expect(verifyProcesses(tmp)).toEqual([]);
      expect(readdirSync(tmp)).toEqual([]);
    },
    180_000,
  );
});

describe.sequential("hermit verify waits for slow MCP servers", () => {
  it.skipIf(skipUnless("codex"))(title("codex", "a server slower than `codex exec`'s first turn is found by a run told to wait"), async () => {
    const workspace = await deployed("codex");
    // The same server, three seconds late: `codex exec` starts its turn without it.
    await edit(join(workspace, ".codex/config.toml"), (text) =>
      text.replace(/^command = "(.*)"\nargs = \[ /m, (_, node: string) => `command = "/bin/sh"\nargs = [ "-c", "sleep 3; exec \\"$0\\" \\"$@\\"", "${node}", `),
    );
    const report = await verify(workspace);
    expect(verdicts(report)).toEqual([
      ["context", "AGENTS.md", true],
      ["skill", "verify-output", true],
      ["agent", "reviewer", true],
      ["tool", "count_words", true],
    ]);
    expect(report.passed).toBe(true);
    expect(report.run.rerunWaitingForServers?.exitCode).toBe(0);
    expect(report.items[3].evidence[0]).toMatchObject({ request: 2, excerpt: "mcp__file_example__count_words" });
    expect(report.warnings.join("\n")).toContain("codex's first request lacked the tools of file-example; it was run again");
  }, 180_000);
});

describe.sequential("hermit verify interrupted", () => {
  it.skipIf(skipUnless("opencode"))(title("opencode", "Ctrl-C stops the host and its servers, removes the home and restores the workspace"), async () => {
    const workspace = await deployed("opencode");
    const before = await readTree(workspace);
    const tmp = await tempDir("hermit-vtmp-");
    const child = spawn(process.execPath, [hermitCli, "verify", "--workspace", workspace, "--host-bin", hostBin("opencode")!], {
      env: { ...process.env, TMPDIR: tmp },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    const started = new Promise<void>((resolve) => {
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
        if (stderr.includes("verify: opencode run")) resolve();
      });
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("close", (code, signal) => resolve({ code, signal })),
    );
    await started;
    // Interrupt once the host is running in its isolated home (its MCP server starting).
    for (let i = 0; i < 200 && verifyProcesses(tmp).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(verifyProcesses(tmp).length).toBeGreaterThan(0);
    child.kill("SIGINT");
    expect(await exited).toEqual({ code: null, signal: "SIGINT" });
    expect(stderr).toContain("SIGINT: stopping the host and cleaning up");
    expect(verifyProcesses(tmp)).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
    expect(await readTree(workspace)).toEqual(before);
  }, 180_000);
});
