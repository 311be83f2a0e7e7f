/**
 * Shared by the `hermit train` tests with real hosts: the CLI run as a user runs it (hosts on
 * PATH, a stub key, the test file's own TMPDIR), a stub model per test, the actor flags, the
 * records read back, and the base version whose context does not tell the host what to do.
 */
import { spawn } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { startStubModel, type StubAgent, type StubModel } from "../../src/verify/stub-model.js";
import { copyDir, hostBinDir, repoRoot } from "../helpers.js";
import { EXAMPLE_ADAPTER } from "./fixtures.js";

const cli = join(repoRoot, "dist", "cli.js");

export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI (asynchronously: the stub model answers from this process), with `tmpdir` as its TMPDIR. */
export function hermit(args: string[], cwd: string, tmpdir: string, env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd,
      env: { ...process.env, PATH: `${hostBinDir}:${process.env.PATH ?? ""}`, ANTHROPIC_API_KEY: "stub-key", OPENAI_API_KEY: "stub-key", TMPDIR: tmpdir, ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

export async function withStub<T>(agent: StubAgent, run: (stub: StubModel) => Promise<T>): Promise<T> {
  const stub = await startStubModel({ agent });
  try {
    return await run(stub);
  } finally {
    await stub.close();
  }
}

export const readJson = async <T>(file: string) => JSON.parse(await readFile(file, "utf8")) as T;
export const readLines = async <T>(file: string) => (await readFile(file, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as T);

/** Claude Code acting on the stub. */
export function actorFlags(stub: StubModel): string[] {
  return ["--actor-host", "claude-code", "--actor-model", "anthropic:claude-sonnet-4-5", "--actor-base-url", `${stub.url}/v1`];
}

/** The first line of the base's context: where a learner adds the instruction. */
export const BASE_CONTEXT_LINE = "You fix the code of a small Node.js project so that its tests pass.";

/**
 * The base version: the example's manifest (so it meets the template), a context without the
 * instruction and a skill that says nothing about the tests — the host has no reason to look.
 */
export async function baseAdapter(): Promise<string> {
  const dir = await copyDir(EXAMPLE_ADAPTER, {
    "ADAPTER.md": `# Fixing failing tests\n\n${BASE_CONTEXT_LINE}\n`,
    "skills/project-notes/SKILL.md": "---\nname: project-notes\ndescription: Notes on the layout of small Node.js projects - code in src/, tests in test/.\n---\n# Project notes\n\nCode lives in `src/`, tests in `test/`.\n",
  });
  await rm(join(dir, "skills", "fix-failing-tests"), { recursive: true });
  return dir;
}
