/**
 * The host ids, in the order help texts list them. A module without imports, so the CLI can
 * name the hosts in `--help` without loading the host modules; `hosts/index.ts` builds the
 * registry from exactly these ids (the compiler checks that each has its module).
 */
export const HOST_IDS = ["codex", "claude-code", "pi", "opencode", "gemini"] as const;

/** Host ids, as users type them after `--host`. */
export type HostId = (typeof HOST_IDS)[number];

/**
 * Hosts whose projection depends on whether the workspace holds its own `AGENTS.md` (Claude
 * Code adds an `@AGENTS.md` line to its block), so a redeploy must notice one appearing.
 */
export const READS_AGENTS_MD: ReadonlySet<HostId> = new Set<HostId>(["claude-code"]);

/**
 * Every workspace path a projection for each host can write: a file, or a folder ending in
 * `/` (anything below it). A deployment record naming any other path was not written by
 * hermit, and deploy, undeploy and status refuse to act on it.
 */
export const WORKSPACE_PATHS: { readonly [Id in HostId]: readonly string[] } = {
  codex: ["AGENTS.md", ".agents/skills/", ".codex/agents/", ".codex/config.toml"],
  "claude-code": ["CLAUDE.md", ".claude/skills/", ".claude/agents/", ".mcp.json", ".claude/settings.json"],
  pi: ["AGENTS.md", ".pi/skills/", ".pi/mcp.json"],
  opencode: ["AGENTS.md", ".opencode/skills/", ".opencode/agents/", "opencode.json"],
  gemini: ["GEMINI.md", ".gemini/skills/", ".gemini/agents/", ".gemini/settings.json"],
};

/** True when `path` is one a projection for `host` can write (see `WORKSPACE_PATHS`). */
export function isHostPath(host: HostId, path: string): boolean {
  return WORKSPACE_PATHS[host].some((allowed) => (allowed.endsWith("/") ? path.startsWith(allowed) && path.length > allowed.length : path === allowed));
}
