/** Finding items in recorded requests, and the verdict per item: pure, no host involved. */
import { describe, expect, it } from "vitest";
import type { CapabilityDeclaration } from "../../src/hosts/types.js";
import {
  contextLines,
  findContext,
  findNamed,
  findTool,
  modelFields,
  normalizeText,
  offeredTools,
  stringFieldsOf,
  withoutContext,
} from "../../src/verify/evidence.js";
import { judge, type ExpectedItem } from "../../src/verify/judge.js";
import { claudeCodeRecipe } from "../../src/verify/recipes/claude-code.js";
import { codexRecipe } from "../../src/verify/recipes/codex.js";
import type { RecordedRequest, StubProtocol } from "../../src/verify/stub-model.js";

function recorded(index: number, protocol: StubProtocol, body: unknown): RecordedRequest {
  return { index, method: "POST", url: "/v1/x", protocol, headers: {}, bodyText: JSON.stringify(body), body, status: 200 };
}

const block = [
  "<!-- hermit:file-example:start -->",
  "# Adapter: file-example",
  "",
  "## Word counting",
  "",
  "You answer questions about the number of words & lines.",
  "<!-- hermit:file-example:end -->",
].join("\n");

describe("evidence", () => {
  it("normalizes entities and whitespace", () => {
    expect(normalizeText("a &amp; b\n\n  &lt;c&gt; &quot;d&quot; &#39;e&#x27;")).toBe(`a & b <c> "d" 'e'`);
  });

  it("walks string fields with JSON paths", () => {
    expect(stringFieldsOf({ a: [{ b: "x" }, "y"], c: 1 }, 3).map((field) => [field.request, field.field, field.text])).toEqual([
      [3, "a[0].b", "x"],
      [3, "a[1]", "y"],
    ]);
  });

  it("finds the whole managed block, ignoring the markers; reports a partial one", () => {
    const lines = contextLines(block);
    expect(lines).toEqual(["# Adapter: file-example", "## Word counting", "You answer questions about the number of words & lines."]);
    const full = recorded(2, "anthropic-messages", {
      messages: [{ role: "user", content: [{ type: "text", text: "Contents of CLAUDE.md:\n# Adapter: file-example\n## Word counting\nYou answer questions about the\nnumber of words &amp; lines." }] }],
    });
    const found = findContext(modelFields([full]), lines);
    expect(found.evidence).toMatchObject({ request: 2, field: "messages[0].content[0].text" });
    expect(found.evidence?.excerpt).toContain("# Adapter: file-example");

    const truncated = recorded(1, "openai-chat", { messages: [{ role: "system", content: "# Adapter: file-example\n## Word counting" }] });
    expect(findContext(modelFields([truncated]), lines)).toMatchObject({
      found: 2,
      total: 3,
      missing: "You answer questions about the number of words & lines.",
      partial: { request: 1, field: "messages[0].content" },
    });
    expect(findContext(modelFields([truncated]), lines).evidence).toBeUndefined();
  });

  it("finds a name with its description, as a whole name and not as an alias", () => {
    const fields = modelFields([
      recorded(1, "anthropic-messages", {
        system: "Skills:\n- verify-output-old: Check a computed count.\n- other (reviewer): Reviews a word count.",
      }),
      recorded(2, "gemini", {
        systemInstruction: { parts: [{ text: "<skill>\n  <name>verify-output</name>\n  <description>Check a computed count &amp; more.</description>" }] },
      }),
    ]);
    const skill = findNamed(fields, "verify-output", "Check a computed count & more.");
    expect(skill.evidence).toMatchObject({ request: 2, field: "systemInstruction.parts[0].text" });
    expect(findNamed(fields.slice(0, 1), "verify-output", "Check a computed count.")).toEqual({});
    const alias = findNamed(fields, "reviewer", "Reviews a word count.");
    expect(alias.evidence).toBeUndefined();
    expect(alias.nameOnly?.excerpt).toContain("- other (reviewer)");
  });

  it("lists offered tools for every protocol shape", () => {
    const requests = [
      recorded(1, "anthropic-messages", { tools: [{ name: "mcp__a__t" }] }),
      recorded(2, "openai-responses", { tools: [{ type: "namespace", name: "mcp__a", tools: [{ name: "t" }] }, { type: "function", name: "f" }] }),
      recorded(3, "openai-chat", { tools: [{ type: "function", function: { name: "a_t" } }] }),
      recorded(4, "gemini", { tools: [{ functionDeclarations: [{ name: "mcp_a_t" }] }] }),
    ];
    expect(offeredTools(requests).map((tool) => [tool.request, tool.name, tool.field])).toEqual([
      [1, "mcp__a__t", "tools[0].name"],
      [2, "mcp__a", "tools[0].name"],
      [2, "mcp__a__t", "tools[0].tools[0].name"],
      [2, "f", "tools[1].name"],
      [3, "a_t", "tools[0].function.name"],
      [4, "mcp_a_t", "tools[0].functionDeclarations[0].name"],
    ]);
  });

  it("finds a deferred tool listed by name in text, but not a longer name", () => {
    const requests = [recorded(1, "anthropic-messages", { messages: [{ role: "user", content: "Deferred: mcp__a__t_extra, mcp__a__t\n" }] })];
    expect(findTool(requests, modelFields(requests), ["mcp__a__t"])).toMatchObject({ request: 1, field: "messages[0].content" });
    expect(findTool(requests, modelFields(requests), ["mcp__a__t_e"])).toBeUndefined();
  });
});

const declaration: CapabilityDeclaration = {
  version: 1,
  hostVersion: "test",
  exports: {
    context: { level: "guaranteed", evidence: "declared", location: "AGENTS.md" },
    skills: { level: "guaranteed", evidence: "declared", location: ".agents/skills" },
    agents: { level: "unsupported", reason: "no subagents", evidence: "declared", location: "(none)" },
    tools: { level: "best-effort", reason: "needs an extension", evidence: "declared", location: ".x/mcp.json" },
  },
};

const items: ExpectedItem[] = [
  { kind: "context", name: "AGENTS.md", file: "AGENTS.md", block },
  { kind: "skill", name: "verify-output", file: ".agents/skills/verify-output/SKILL.md", description: "Check a computed count." },
  { kind: "agent", name: "reviewer", description: "Reviews a word count." },
  { kind: "tool", name: "count_words", server: "file-example" },
];

describe("judge", () => {
  it("passes when every guaranteed item is found; unsupported and best-effort items are listed, not counted", () => {
    const request = recorded(1, "openai-responses", {
      input: [
        { role: "developer", content: [{ type: "input_text", text: "- verify-output: Check a computed count. (file: r0/verify-output/SKILL.md)" }] },
        { role: "user", content: [{ type: "input_text", text: block }] },
      ],
    });
    const verdict = judge(items, declaration, codexRecipe, {
      requests: [request],
      listings: [{ command: codexRecipe.listings[0], output: "Name  Command  Status\nfile-example  node  enabled" }],
      runOutput: "",
      runSummary: "exit code 0",
    });
    expect(verdict.passed).toBe(true);
    expect(verdict.items.map((item) => [item.kind, item.discovered, item.level, item.counted])).toEqual([
      ["context", true, "guaranteed", true],
      ["skill", true, "guaranteed", true],
      ["agent", false, "unsupported", false],
      ["tool", false, "best-effort", false],
    ]);
    expect(verdict.items[1].evidence).toEqual([
      { request: 1, field: "input[0].content[0].text", excerpt: "- verify-output: Check a computed count. (file: r0/verify-output/SKILL.md)" },
    ]);
    expect(verdict.items[2].reason).toMatch(/^unsupported: no subagents; not counted/);
    // The server is enabled, but the model was never offered the tool.
    expect(verdict.items[3].reason).toContain("best-effort: needs an extension; not counted");
    expect(verdict.items[3].reason).toContain("no request offers the tool as 'mcp__file_example__count_words'");
    expect(verdict.items[3].reason).toContain("listed by codex mcp list but not shown to the model");
  });

  it("fails a missing guaranteed item and says why, quoting the host's diagnostic", () => {
    const request = recorded(1, "openai-responses", { input: [{ role: "user", content: [{ type: "input_text", text: block }] }] });
    const verdict = judge(items, declaration, codexRecipe, {
      requests: [request],
      listings: [],
      runOutput: "warning: skipping skill at .agents/skills/verify-output/SKILL.md: invalid description\nunrelated warning",
      runSummary: "exit code 0",
    });
    expect(verdict.passed).toBe(false);
    expect(verdict.items[1]).toMatchObject({ discovered: false, evidence: [] });
    expect(verdict.items[1].reason).toBe(
      "no request lists skill 'verify-output' with its description; " +
        "host said: warning: skipping skill at .agents/skills/verify-output/SKILL.md: invalid description",
    );
  });

  it("explains every item when the host sent nothing", () => {
    const verdict = judge(items.slice(0, 2), declaration, claudeCodeRecipe, {
      requests: [{ ...recorded(1, "unknown", undefined), method: "HEAD", url: "/api/hello" }],
      listings: [],
      runOutput: "",
      runSummary: "exit code 55: untrusted folder",
    });
    expect(verdict.passed).toBe(false);
    for (const item of verdict.items) expect(item.reason).toBe("the host sent no model request (exit code 55: untrusted folder)");
  });

  it("does not take the adapter's own context mentioning an item for the host discovering it", () => {
    // The context lists the skill with its description and names the tool the way Claude
    // Code would; the host showed the model only the context (the skill folder was broken,
    // the MCP server down).
    const mentioning = [
      "<!-- hermit:file-example:start -->",
      "# Adapter: file-example",
      "",
      "- verify-output: Check a computed count.",
      "- Call mcp__file-example__count_words for counts.",
      "<!-- hermit:file-example:end -->",
    ].join("\n");
    const claudeItems: ExpectedItem[] = [
      { kind: "context", name: "CLAUDE.md", file: "CLAUDE.md", block: mentioning },
      { kind: "skill", name: "verify-output", description: "Check a computed count." },
      { kind: "tool", name: "count_words", server: "file-example" },
    ];
    const guaranteed: CapabilityDeclaration = {
      ...declaration,
      exports: { ...declaration.exports, tools: { level: "guaranteed", evidence: "declared", location: ".mcp.json" } },
    };
    const onlyContext = recorded(1, "anthropic-messages", {
      messages: [{ role: "user", content: [{ type: "text", text: `Contents of CLAUDE.md:\n${mentioning}` }] }],
    });
    const observations = { listings: [], runOutput: "", runSummary: "exit code 0" };
    const verdict = judge(claudeItems, guaranteed, claudeCodeRecipe, { ...observations, requests: [onlyContext] });
    expect(verdict.items.map((item) => [item.kind, item.discovered])).toEqual([
      ["context", true],
      ["skill", false],
      ["tool", false],
    ]);
    expect(verdict.passed).toBe(false);

    // The same context plus the host's own listings in the same field (OpenCode and Pi put
    // both into one system message): the listings count.
    const both = recorded(1, "anthropic-messages", {
      messages: [
        {
          role: "user",
          content: [{ type: "text", text: `${mentioning}\n<available_skills><skill><name>verify-output</name><description>Check a computed count.</description></skill></available_skills>\nDeferred:\nmcp__file-example__count_words` }],
        },
      ],
    });
    const found = judge(claudeItems, guaranteed, claudeCodeRecipe, { ...observations, requests: [both] });
    expect(found.passed).toBe(true);
    expect(found.items[1].evidence[0]).toMatchObject({ request: 1, field: "messages[0].content[0].text" });
    expect((found.items[1].evidence[0] as { excerpt: string }).excerpt).toContain("<name>verify-output</name>");
  });

  it("blanks only the runs of block lines, keeping what a host inserted between them", () => {
    const lines = contextLines(block);
    const fields = stringFieldsOf({ text: `before # Adapter: file-example\nimported user text\n## Word counting\nYou answer questions about the number of words & lines. after` }, 1);
    expect(withoutContext(fields, lines)[0].normalized).toBe("before imported user text after");
    // A field that lacks the block's title is left alone.
    const other = stringFieldsOf({ text: "## Word counting is a skill" }, 1);
    expect(withoutContext(other, lines)[0].normalized).toBe("## Word counting is a skill");
  });

  it("reads Claude Code's init event as a listing", () => {
    const init = JSON.stringify({
      type: "system",
      subtype: "init",
      skills: ["verify-output"],
      agents: ["reviewer"],
      tools: ["Read", "mcp__file-example__count_words"],
      mcp_servers: [{ name: "file-example", status: "connected" }],
    });
    const listing = claudeCodeRecipe.listings.find((command) => command.args === undefined)!;
    expect(listing.find(`noise\n${init}\n`, "skill", "verify-output")).toEqual({ line: 'init event: skills [… "verify-output" …]', ok: true });
    expect(listing.find(init, "agent", "missing")).toBeUndefined();
    expect(listing.find(init, "tool", "file-example", "count_words")?.ok).toBe(true);
    const failed = init.replace('"connected"', '"failed"');
    expect(listing.find(failed, "tool", "file-example", "count_words")?.ok).toBe(false);
  });
});
