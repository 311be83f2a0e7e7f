/**
 * An isolated home for running a real host program (HOME, CODEX_HOME, XDG dirs, TMPDIR),
 * a deployment beside it, and the report's activation steps performed there — never in the
 * real home.
 */
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stringify as stringifyToml } from "smol-toml";
import { deploy } from "../../src/deploy/deploy.js";
import type { DeploymentReport } from "../../src/deploy/record.js";
import { exampleAdapter, hostBinDir, tempDir } from "../helpers.js";

const BIN = hostBinDir;

export interface Sandbox {
  home: string;
  workspace: string;
  report: DeploymentReport;
  env: NodeJS.ProcessEnv;
}

/** Deploy the example adapter for `host` into a fresh workspace, with an isolated home beside it. */
export async function sandbox(host: string, options: { workspace?: string; adapter?: string; existing?: boolean } = {}): Promise<Sandbox> {
  const root = await tempDir(`hermit-parse-${host}-`);
  const home = join(root, "home");
  const workspace = options.workspace ?? join(root, "ws");
  for (const dir of ["tmp", ".config", ".cache", ".local/share", ".local/state", ".codex"]) await mkdir(join(home, dir), { recursive: true });
  const result = await deploy({ adapter: options.adapter ?? exampleAdapter, workspace, host, existing: options.existing });
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
export function host(box: Sandbox, name: string, args: string[]): Promise<{ code: number; output: string; stdout: string }> {
  return new Promise((resolve) => {
    execFile(join(BIN, name), args, { cwd: box.workspace, env: box.env, timeout: 90_000, encoding: "utf8" }, (error, stdout, stderr) => {
      // eslint-disable-next-line no-control-regex
      const clean = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, "");
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: clean(stdout + stderr), stdout: clean(stdout) });
    });
  });
}

/** The activation data of a step, as the report gives it. */
export function activation(report: DeploymentReport, id: string): Record<string, unknown> {
  const step = report.activation.find((candidate) => candidate.id === id);
  if (!step) throw new Error(`the report has no activation step ${id}`);
  return step.data;
}

export const serverLine = (report: DeploymentReport) => [report.server!.command, ...report.server!.args].join(" ");


/** Perform the report's activation steps in the sandbox's home (trust the workspace, as the user would). */
export async function activate(box: Sandbox): Promise<void> {
  const ids = box.report.activation.map((step) => step.id);
  if (ids.includes("claude-code.trust-folder")) {
    const { claudeJson } = activation(box.report, "claude-code.trust-folder") as { claudeJson: object };
    await writeFile(join(box.home, ".claude.json"), JSON.stringify(claudeJson));
  }
  if (ids.includes("codex.trust-project")) {
    const { codexHomeConfig } = activation(box.report, "codex.trust-project") as { codexHomeConfig: Record<string, unknown> };
    await writeFile(join(box.home, ".codex", "config.toml"), stringifyToml(codexHomeConfig));
  }
  if (ids.includes("gemini.trust-folder")) {
    const { trustedFolders } = activation(box.report, "gemini.trust-folder") as { trustedFolders: object };
    await mkdir(join(box.home, ".gemini"), { recursive: true });
    await writeFile(join(box.home, ".gemini", "trustedFolders.json"), JSON.stringify(trustedFolders));
  }
}
