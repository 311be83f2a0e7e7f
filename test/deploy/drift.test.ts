/**
 * Drift: every damaged-marker case and every hand edit is refused with exit 3, naming the
 * file and line, and nothing in the workspace changes. `--force` overrides hand edits only.
 */
import { appendFile, mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deploy, status } from "../../src/deploy/deploy.js";
import { HermitError } from "../../src/errors.js";
import { copyDir, exampleAdapter, tempDir } from "../helpers.js";
import { fingerprint } from "./fixtures.js";

const START = "<!-- hermit:file-example:start -->";
const END = "<!-- hermit:file-example:end -->";

/** Deploy, let `damage` edit the workspace, then expect the next deploy to refuse and change nothing. */
async function expectRefused(
  damage: (workspace: string, generated: string) => Promise<void>,
  expected: { file: string; line?: number; problem: RegExp },
  options: { force?: boolean; adapter?: string; host?: string } = {},
) {
  const workspace = await tempDir();
  const host = options.host ?? "codex";
  await deploy({ adapter: exampleAdapter, workspace, host });
  await damage(workspace, await readFile(join(workspace, "AGENTS.md"), "utf8").catch(() => ""));
  const before = await fingerprint(workspace);
  const error = await deploy({ adapter: options.adapter ?? exampleAdapter, workspace, host, force: options.force }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(HermitError);
  const refusal = error as HermitError;
  expect(refusal.code).toBe("DRIFT");
  expect(refusal.exitCode).toBe(3);
  const where = `${workspace}/${expected.file}${expected.line ? `:${expected.line}` : ""}: `;
  expect(refusal.message).toContain(where);
  expect(refusal.message).toMatch(expected.problem);
  expect(await fingerprint(workspace)).toEqual(before);
  return { workspace, refusal };
}

/** The generated AGENTS.md (8+ lines: start marker on line 1, end marker last). */
const markerCases: Array<[string, (text: string) => string, number, RegExp]> = [
  ["duplicate block", (text) => `${text}\n${text}`, 14, /duplicate block 'file-example'/],
  ["nested start marker", (text) => text.replace("## Word counting", `${START}\n## Word counting`), 4, /nested start marker/],
  ["reversed markers", (text) => text.replace(START, "@@").replace(END, START).replace("@@", END), 1, /reversed markers/],
  ["unmatched start (end marker lost)", (text) => text.replace(END, ""), 1, /unmatched start marker .*truncated/],
  ["unmatched end (start marker lost)", (text) => text.replace(START, ""), 12, /unmatched end marker/],
  ["foreign block", (text) => `<!-- hermit:other-adapter:start -->\nx\n<!-- hermit:other-adapter:end -->\n${text}`, 1, /foreign marker for adapter 'other-adapter'/],
  ["malformed marker", (text) => text.replace(START, "<!-- hermit:file-example:begin -->"), 1, /malformed marker/],
  ["marker not alone on its line", (text) => text.replace(END, `text ${END}`), 12, /malformed marker/],
  ["truncated file", (text) => text.slice(0, text.length - 12), 12, /truncated marker/],
];

describe("managed-block markers", () => {
  it.each(markerCases)("%s is refused, with the line, and --force does not override it", async (_name, edit, line, problem) => {
    const damage = (workspace: string, generated: string) => writeFile(join(workspace, "AGENTS.md"), edit(generated));
    await expectRefused(damage, { file: "AGENTS.md", line, problem });
    const { refusal } = await expectRefused(damage, { file: "AGENTS.md", line, problem }, { force: true });
    expect(refusal.message).toMatch(/--force does not override them/);
  });

  it("refuses damaged markers even when the adapter changed (nothing else is written either)", async () => {
    const adapter = await copyDir(exampleAdapter, { "ADAPTER.md": "# Changed\n" });
    await expectRefused(
      (workspace, generated) => writeFile(join(workspace, "AGENTS.md"), generated.replace(END, "")),
      { file: "AGENTS.md", line: 1, problem: /unmatched start marker/ },
      { adapter },
    );
  });
});

describe("hand edits", () => {
  it("a hand-edited role file is refused; --force overwrites it", async () => {
    const { workspace } = await expectRefused(
      (ws) => appendFile(join(ws, ".codex/agents/reviewer.toml"), "model = \"o3\"\n"),
      { file: ".codex/agents/reviewer.toml", problem: /edited by hand/ },
    );
    const forced = await deploy({ adapter: exampleAdapter, workspace, host: "codex", force: true });
    expect(forced.forced.map((issue) => issue.path)).toEqual([".codex/agents/reviewer.toml"]);
    expect(forced.written).toEqual([".codex/agents/reviewer.toml"]);
    expect(await readFile(join(workspace, ".codex/agents/reviewer.toml"), "utf8")).not.toContain("o3");
  });

  it("a hand edit inside the managed block is refused; --force rewrites only the block", async () => {
    const { workspace } = await expectRefused(
      (ws, generated) => writeFile(join(ws, "AGENTS.md"), `Mine\n\n${generated.replace("do not estimate", "estimate freely")}Also mine\n`),
      { file: "AGENTS.md", line: 3, problem: /managed block was edited by hand/ },
    );
    await deploy({ adapter: exampleAdapter, workspace, host: "codex", force: true });
    const text = await readFile(join(workspace, "AGENTS.md"), "utf8");
    expect(text).toMatch(/^Mine\n\n<!-- hermit:file-example:start -->\n[\s\S]*do not estimate[\s\S]*:end -->\nAlso mine\n$/);
  });

  it("a hand-edited JSON config (no header possible) is caught through the record; --force does not override it", async () => {
    // Without a header, nothing in the bytes shows hermit wrote them: hermit will not replace what it cannot prove is its own.
    await expectRefused(
      (ws) => writeFile(join(ws, ".mcp.json"), '{"mcpServers":{}}\n'),
      { file: ".mcp.json", problem: /sha256 differs from the deployment record and its format carries no ownership header/ },
      { host: "claude-code", force: true },
    );
  });

  it("a file hermit did not write, where it wants to write, is refused", async () => {
    const adapter = await copyDir(exampleAdapter, { "skills/new-skill/SKILL.md": "---\nname: new-skill\ndescription: New.\n---\nBody.\n" });
    await expectRefused(
      async (ws) => {
        await mkdir(join(ws, ".agents/skills/new-skill"), { recursive: true });
        await writeFile(join(ws, ".agents/skills/new-skill/SKILL.md"), "my own skill\n");
      },
      { file: ".agents/skills/new-skill/SKILL.md", problem: /exists but was not generated by hermit/ },
      { adapter },
    );
  });

  it("a file the adapter no longer exports but the user edited is refused instead of deleted", async () => {
    const adapter = await copyDir(exampleAdapter);
    const workspace = await tempDir();
    await deploy({ adapter, workspace, host: "gemini" });
    await appendFile(join(workspace, ".gemini/skills/verify-output/SKILL.md"), "my note\n");
    await rm(join(adapter, "skills"), { recursive: true });
    await writeFile(join(adapter, "adapter.yaml"), (await readFile(join(adapter, "adapter.yaml"), "utf8")).replace("  skills: skills\n", ""));
    const before = await fingerprint(workspace);
    await expect(deploy({ adapter, workspace, host: "gemini" })).rejects.toMatchObject({ code: "DRIFT" });
    expect(await fingerprint(workspace)).toEqual(before);
  });

  it("a CRLF checkout of a generated file is not drift", async () => {
    const workspace = await tempDir();
    await deploy({ adapter: exampleAdapter, workspace, host: "claude-code" });
    const file = join(workspace, ".claude/agents/reviewer.md");
    await writeFile(file, (await readFile(file, "utf8")).replace(/\n/g, "\r\n"));
    const result = await deploy({ adapter: exampleAdapter, workspace, host: "claude-code" });
    expect(result.changed).toBe(false);
    expect((await status({ workspace })).clean).toBe(true);
  });
});

describe("workspace damage", () => {
  it("an unreadable deployment record is refused, even with --force", async () => {
    for (const force of [false, true]) {
      await expectRefused((ws) => writeFile(join(ws, ".hermit-deploy.json"), "{ not json"), { file: ".hermit-deploy.json", problem: /cannot be read/ }, { force });
    }
  });

  it("a symlinked folder where hermit writes is refused, even with --force", async () => {
    const elsewhere = await tempDir();
    await expectRefused(
      async (ws) => {
        await rm(join(ws, ".codex/agents"), { recursive: true });
        await symlink(elsewhere, join(ws, ".codex/agents"));
      },
      { file: ".codex/agents/reviewer.toml", problem: /symlink/ },
      { force: true },
    );
  });
});
