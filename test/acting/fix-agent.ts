/**
 * A scripted coding agent for the stub model: it plays a developer fixing the failing test of
 * an `examples/fix-tests-task` project, through whichever host is asking, with that host's own
 * tools (Claude `ToolSearch`/`Skill`/`Read`/`Edit`, Codex `tool_search`/`apply_patch`/
 * `exec_command`, Gemini `activate_skill`/`read_file`/`replace`, OpenCode `skill`/`read`/`edit`,
 * Pi `read`/`bash`/`edit`).
 *
 * What it does depends on what the host sent: only when the adapter's context tells it to call
 * the `run_tests` tool (or its skill is listed) does it look at the failing test, and only after
 * it has seen the failure does it know which fix to make. A version without the instruction
 * leaves the project as it was.
 */
import type { Conversation, OfferedTool, StubAgent, StubToolCall, StubTurn, StubUsage } from "../../src/verify/stub-model.js";

/** The fix of each example instance, found by the test file the failure names. */
export interface Fix {
  /** The test file a failure report names. */
  key: string;
  /** The source file, relative to the project. */
  file: string;
  oldLine: string;
  newLine: string;
}

export const FIXES: readonly Fix[] = [
  { key: "clamp.test.js", file: "src/clamp.js", oldLine: "  return Math.min(low, Math.max(value, high));", newLine: "  return Math.max(low, Math.min(value, high));" },
  { key: "range.test.js", file: "src/range.js", oldLine: "  for (let i = start; i < end; i += 1) out.push(i);", newLine: "  for (let i = start; i <= end; i += 1) out.push(i);" },
  {
    key: "slugify.test.js",
    file: "src/slugify.js",
    oldLine: '  return title.toLowerCase().replace(/[^a-z0-9]/g, "-");',
    newLine: '  return title.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");',
  },
  { key: "average.test.js", file: "src/average.js", oldLine: "  return sum / values.length;", newLine: "  return values.length === 0 ? 0 : sum / values.length;" },
  {
    key: "title-case.test.js",
    file: "src/title-case.js",
    oldLine: "    .map((word) => (word ? word[0].toUpperCase() + word.slice(1) : word))",
    newLine: "    .map((word) => (word ? word[0].toUpperCase() + word.slice(1).toLowerCase() : word))",
  },
  { key: "word-count.test.js", file: "src/word-count.js", oldLine: '  return text.split(" ").length;', newLine: "  return text.split(/\\s+/).filter(Boolean).length;" },
];

export const INSTRUCTION = /call the `run_tests` tool/;
export const SKILL = "fix-failing-tests";

/** The usage the stub reports for request `index`: distinct per request, so sums are checkable. */
export function usageFor(index: number): StubUsage {
  return { input: 1000 + 7 * index, output: 20 + index, cached: index, reasoning: 2 };
}

const SKILL_TOOLS = new Set(["Skill", "skill", "activate_skill"]);
const READERS = new Set(["Read", "read", "read_file"]);
const EDITORS = new Set(["Edit", "edit", "replace", "apply_patch"]);
const SHELLS = new Set(["Bash", "bash", "run_shell_command", "exec_command"]);

function instructionsOf(conversation: Conversation): string {
  return [conversation.system, ...conversation.items.flatMap((item) => (item.type === "text" && item.role !== "assistant" ? [item.text] : []))].join("\n");
}

/** The project directory, as each host states it. */
export function workingDirectory(text: string): string | undefined {
  const patterns = [
    /Primary working directory: (\S+)/,
    /Current working directory: (\S+)/,
    /Working directory: (\S+)/,
    /AGENTS\.md instructions for (\S+)/,
    /<cwd>([^<\s]+)<\/cwd>/,
    /\*\*Workspace Directories:\*\*\s*-\s*(\S+)/,
    /(\/[^\s"'`<>]+)\/(?:GEMINI|AGENTS|CLAUDE)\.md/,
  ];
  for (const pattern of patterns) {
    const found = pattern.exec(text)?.[1];
    if (found) return found.replace(/[.,:;]+$/, "");
  }
  return undefined;
}

/** Where the host says the skill's SKILL.md is (`<location>`, or Codex's `(file: rN/…)` with its roots). */
function skillFile(text: string): string | undefined {
  const location = new RegExp(`<location>([^<]*/${SKILL}/SKILL\\.md)</location>`).exec(text)?.[1];
  if (location) return location;
  const codex = new RegExp(`\\(file: (r\\d+)/${SKILL}/SKILL\\.md\\)`).exec(text);
  if (!codex) return undefined;
  const root = new RegExp(`\`${codex[1]}\` = \`([^\`]+)\``).exec(text)?.[1];
  return root ? `${root}/${SKILL}/SKILL.md` : undefined;
}

function find(tools: readonly OfferedTool[], names: ReadonlySet<string>): OfferedTool | undefined {
  return tools.find((tool) => names.has(tool.name));
}

function call(tool: OfferedTool, args: Record<string, unknown>): StubToolCall {
  return { name: tool.name, ...(tool.namespace ? { namespace: tool.namespace } : {}), kind: tool.kind, arguments: args };
}

function shellCall(shell: OfferedTool, command: string, cwd: string): StubToolCall {
  if (shell.name === "exec_command") return call(shell, { cmd: command, workdir: cwd });
  if (shell.name === "run_shell_command") return call(shell, { command, dir_path: cwd });
  return call(shell, { command: `cd ${cwd} && ${command}` });
}

function readCall(reader: OfferedTool, path: string): StubToolCall {
  return call(reader, reader.name === "read" ? { filePath: path, path } : { file_path: path });
}

function editCall(editor: OfferedTool, path: string, fix: Fix): StubToolCall {
  switch (editor.name) {
    case "apply_patch":
      return { name: "apply_patch", kind: editor.kind, input: `*** Begin Patch\n*** Update File: ${path}\n@@\n-${fix.oldLine}\n+${fix.newLine}\n*** End Patch\n` };
    case "replace":
      return call(editor, { file_path: path, instruction: "Fix the failing test", old_string: fix.oldLine, new_string: fix.newLine });
    case "Edit":
      return call(editor, { file_path: path, old_string: fix.oldLine, new_string: fix.newLine });
    default: {
      const properties = (editor.schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
      if ("edits" in properties) return call(editor, { path, edits: [{ oldText: fix.oldLine, newText: fix.newLine }] });
      return call(editor, { filePath: path, oldString: fix.oldLine, newString: fix.newLine });
    }
  }
}

/** The next move of the fixing agent, from what the host sent. */
export function nextMove(conversation: Conversation): StubTurn {
  const text = instructionsOf(conversation);
  const toldToRunTests = INSTRUCTION.test(text);
  const skillListed = text.includes(SKILL);
  if (!toldToRunTests && !skillListed) return { text: "I read the project; nothing tells me how to find the failure, so I changed nothing." };
  const cwd = workingDirectory(text);
  if (!cwd) return { text: "I could not tell which directory the project is in." };

  const calls = conversation.items.filter((item) => item.type === "tool-call");
  const results = conversation.items.flatMap((item) => (item.type === "tool-result" ? [item.text] : []));
  const called = (names: ReadonlySet<string> | string) => calls.filter((item) => (typeof names === "string" ? item.name === names : names.has(item.name)));
  const tools = conversation.tools;

  // 1. Read the skill, when one is listed: through the host's skill tool, or its file.
  if (skillListed && called(SKILL_TOOLS).length === 0 && !calls.some((item) => JSON.stringify(item.arguments).includes(`${SKILL}/SKILL.md`))) {
    const skillTool = find(tools, SKILL_TOOLS);
    if (skillTool) return { toolCalls: [call(skillTool, skillTool.name === "Skill" ? { skill: SKILL } : { name: SKILL })] };
    const file = skillFile(text);
    const reader = find(tools, READERS);
    const shell = find(tools, SHELLS);
    if (file && reader) return { toolCalls: [readCall(reader, file)] };
    if (file && shell) return { toolCalls: [shellCall(shell, `cat ${file}`, cwd)] };
  }

  // 2. Run the tests: the adapter's tool (looked up first where the host defers it), else the shell.
  const failure = FIXES.find((fix) => results.some((result) => result.includes(fix.key) && /fail/i.test(result)));
  const runTests = tools.find((tool) => /(^|_)run_tests$/.test(tool.name));
  if (!failure) {
    if (runTests) return { toolCalls: [call(runTests, { dir: cwd })] };
    const deferred = /mcp__[\w-]+__run_tests/.exec(text)?.[0];
    const toolSearch = tools.find((tool) => tool.name === "ToolSearch");
    if (deferred && toolSearch && called("ToolSearch").length === 0) return { toolCalls: [call(toolSearch, { query: `select:${deferred}`, max_results: 1 })] };
    const search = tools.find((tool) => tool.kind === "tool-search");
    if (search && called("tool_search").length === 0) return { toolCalls: [call(search, { query: "run_tests", limit: 1 })] };
    const shell = find(tools, SHELLS);
    if (shell && called(SHELLS).filter((item) => JSON.stringify(item.arguments).includes("node --test")).length === 0) {
      return { toolCalls: [shellCall(shell, "node --test", cwd)] };
    }
    return { text: "I could not run the tests." };
  }

  // 3. Fix the code the failure points at: read it, then edit it with the host's own tool.
  const path = `${cwd}/${failure.file}`;
  const editor = find(tools, EDITORS);
  if (!editor) return { text: "I have no tool to edit files." };
  const reader = find(tools, READERS);
  const edited = called(EDITORS).length > 0;
  if (!edited && editor.kind !== "custom" && reader && !called(READERS).some((item) => JSON.stringify(item.arguments).includes(failure.file))) {
    return { toolCalls: [readCall(reader, path)] };
  }
  if (!edited) return { toolCalls: [editCall(editor, path, failure)] };

  // 4. As told, run the tests once more; then finish.
  if (runTests && toldToRunTests && calls.filter((item) => item.name === runTests.name).length < 2) return { toolCalls: [call(runTests, { dir: cwd })] };
  return { text: `Fixed ${failure.file}; the tests pass now.` };
}

/** The agent, reporting distinct usage per request. Requests that offer no tools (side questions, titles) get a short text. */
export function fixTestsAgent(): StubAgent {
  return (conversation, request) => {
    const usage = usageFor(request.index);
    if (conversation.tools.length === 0) return { text: "Fix the failing tests", usage };
    return { ...nextMove(conversation), usage };
  };
}
