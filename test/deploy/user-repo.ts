/**
 * A user's own repository as `hermit deploy --existing` meets it: instruction files with
 * headings and code fences, config files holding other servers and settings, in 2- and
 * 4-space indentation, CRLF, JSONC comments, TOML comments. Shared by the `--existing` tests
 * and the real-host checks.
 */
import { readFile, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { copyDir, exampleAdapter, tempDir, writeTree } from "../helpers.js";

export const USER_REPO: Record<string, string> = {
  ".git/HEAD": "ref: refs/heads/main\n",
  "README.md": "# Word tools\n\nA small project.\n",
  "src/index.ts": "export const answer = 42;\n",
  "AGENTS.md":
    "# Word tools: notes for agents\n\nRun the tests before you commit.\n\n## Build\n\n```sh\nnpm run build\n# a comment in a fence, not a heading\n```\n",
  "CLAUDE.md": "# Claude notes\r\n\r\nKeep answers short.\r\n",
  ".mcp.json":
    '{\n  "mcpServers": {\n    "github": {\n      "command": "node",\n      "args": ["tools/github-mcp.js", "--read-only"]\n    },\n' +
    '    "files": { "command": "node", "args": ["tools/files.js"] }\n  }\n}\n',
  ".claude/settings.json": '{\n  "permissions": {\n    "allow": ["Bash(npm run build)"]\n  },\n  "enabledMcpjsonServers": ["github", "files"]\n}\n',
  ".codex/config.toml":
    '# Codex settings for this repository\nmodel = "o3" # pinned for the team\n\n[mcp_servers.other]\ncommand = "node"\nargs = ["tools/other.js"]\n',
  "opencode.json":
    '{\n  "$schema": "https://opencode.ai/config.json",\n  // the team\'s theme\n  "theme": "tokyonight",\n  "mcp": {\n' +
    '    "other": { "type": "local", "command": ["node", "tools/other.js"], "enabled": true } // ours\n  }\n}\n',
  ".gemini/settings.json": '{\n  "ui": { "theme": "GitHub" },\n  "mcpServers": {\n    "other": { "command": "node", "args": ["tools/other.js"] }\n  }\n}\n',
  ".pi/settings.json": '{ "theme": "dark" }\n',
};

/** The same `.mcp.json` in 4-space indentation with CRLF line endings. */
export const MCP_JSON_4_CRLF =
  '{\r\n    "mcpServers": {\r\n        "github": {\r\n            "command": "node",\r\n            "args": [\r\n                "tools/github-mcp.js",\r\n' +
  '                "--read-only"\r\n            ]\r\n        },\r\n        "files": {\r\n            "command": "node",\r\n' +
  '            "args": ["tools/files.js"]\r\n        }\r\n    }\r\n}\r\n';

/** A copy of the user repository in a temp dir. */
export async function userRepo(overrides: Record<string, string> = {}): Promise<string> {
  return writeTree(await tempDir("hermit-repo-"), { ...USER_REPO, ...overrides });
}

/** Every file under `dir` with its bytes (base64) and mode, without mtimes: "every byte kept" comparisons. */
export async function bytesAndModes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string) => {
    for (const entry of await readdir(join(dir, rel), { withFileTypes: true })) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) await walk(path);
      else out[path] = `${((await stat(join(dir, path))).mode & 0o7777).toString(8)} ${(await readFile(join(dir, path))).toString("base64")}`;
    }
  };
  await walk("");
  return out;
}

/** A copy of the example adapter under another name, with its skill and agent renamed too. */
export async function secondAdapter(name = "second-example"): Promise<string> {
  const manifest = (await readFile(join(exampleAdapter, "adapter.yaml"), "utf8")).replace("name: file-example", `name: ${name}`);
  const skill = (await readFile(join(exampleAdapter, "skills/verify-output/SKILL.md"), "utf8")).replace("name: verify-output", "name: check-again");
  const agent = (await readFile(join(exampleAdapter, "agents/reviewer.md"), "utf8")).replace("name: reviewer", "name: recounter");
  const adapter = await copyDir(exampleAdapter, { "adapter.yaml": manifest, "skills/check-again/SKILL.md": skill, "agents/recounter.md": agent });
  await rm(join(adapter, "skills/verify-output"), { recursive: true });
  await rm(join(adapter, "agents/reviewer.md"));
  return adapter;
}
