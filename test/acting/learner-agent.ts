/**
 * A scripted learner for the stub model: it plays a coding agent improving an adapter in the
 * agent Evolver's scratch directory, with the host's own tools (Claude `Read`/`Edit`/`Write`/
 * `Bash`, Codex `apply_patch`/`exec_command`). It reads the learning material, adds the
 * instruction the fix-tests agent needs to `ADAPTER.md` (learnable), edits `tools.ts` (fixed:
 * must be dropped) and writes a note under `learning/` (dropped too), and tries to write
 * outside its scratch directory through the shell (the jail must refuse).
 */
import type { Conversation, OfferedTool, StubAgent, StubToolCall, StubTurn } from "../../src/verify/stub-model.js";
import { workingDirectory } from "./fix-agent.js";

export const ADDED_INSTRUCTION =
  "- Before you change any code, call the `run_tests` tool with the absolute path of the project directory; fix the code it points at.";

export interface LearnerScript {
  /** Absolute paths outside the scratch directory the learner tries to write through the shell. */
  escapes: string[];
  /** Skip the edits: a learner that finds nothing to change. */
  idle?: boolean;
}

function find(conversation: Conversation, ...names: string[]): OfferedTool | undefined {
  return conversation.tools.find((tool) => names.includes(tool.name));
}

function shell(tool: OfferedTool, command: string, cwd: string): StubToolCall {
  return tool.name === "exec_command" ? { name: tool.name, arguments: { cmd: command, workdir: cwd } } : { name: tool.name, arguments: { command } };
}

function patch(path: string, body: string): string {
  return `*** Begin Patch\n${body.replace("PATH", path)}*** End Patch\n`;
}

/** The learner's steps, in order; each runs once, when the host offers its tool. */
function plan(cwd: string, script: LearnerScript): Array<{ label: string; call(conversation: Conversation): StubToolCall | undefined }> {
  const read = (path: string) => (conversation: Conversation) => {
    const tool = find(conversation, "Read", "read_file", "read");
    if (tool) return { name: tool.name, arguments: tool.name === "read" ? { filePath: path, path } : { file_path: path } };
    const run = find(conversation, "exec_command", "Bash", "bash");
    return run ? shell(run, `cat ${path}`, cwd) : undefined;
  };
  const edit = (path: string, oldText: string, newText: string) => (conversation: Conversation) => {
    const apply = find(conversation, "apply_patch");
    const lines = (prefix: string, text: string) => text.split("\n").map((line) => `${prefix}${line}`).join("\n");
    if (apply) return { name: "apply_patch", kind: apply.kind, input: patch(path, `*** Update File: PATH\n@@\n${lines("-", oldText)}\n${lines("+", newText)}\n`) };
    const tool = find(conversation, "Edit");
    return tool ? { name: tool.name, arguments: { file_path: path, old_string: oldText, new_string: newText } } : undefined;
  };
  const create = (path: string, content: string) => (conversation: Conversation) => {
    const apply = find(conversation, "apply_patch");
    if (apply) return { name: "apply_patch", kind: apply.kind, input: patch(path, `*** Add File: PATH\n${content.split("\n").map((line) => `+${line}`).join("\n")}\n`) };
    const tool = find(conversation, "Write");
    return tool ? { name: tool.name, arguments: { file_path: path, content } } : undefined;
  };
  const escape = (conversation: Conversation) => {
    const run = find(conversation, "exec_command", "Bash", "bash");
    const command = script.escapes.map((path) => `(echo escaped >> ${path} && echo WROTE ${path}) || echo REFUSED ${path}`).join("; ");
    return run ? shell(run, command, cwd) : undefined;
  };
  const steps = [
    { label: "read the summary", call: read(`${cwd}/learning/summary.md`) },
    { label: "read ADAPTER.md", call: read(`${cwd}/ADAPTER.md`) },
  ];
  if (script.idle) return [...steps, { label: "escape", call: escape }];
  return [
    ...steps,
    { label: "edit ADAPTER.md", call: edit(`${cwd}/ADAPTER.md`, "You fix the code of a small Node.js project so that its tests pass.", `You fix the code of a small Node.js project so that its tests pass.\n\n${ADDED_INSTRUCTION}`) },
    { label: "read tools.ts", call: read(`${cwd}/tools.ts`) },
    { label: "edit tools.ts", call: edit(`${cwd}/tools.ts`, "const MAX_OUTPUT = 6000;", "const MAX_OUTPUT = 1;") },
    { label: "write a note", call: create(`${cwd}/learning/notes.md`, "The failures never called run_tests.") },
    { label: "escape", call: escape },
  ];
}

/** The learner: one planned step per answer, then its final message. */
export function learnerAgent(script: LearnerScript): StubAgent {
  let index = 0;
  return (conversation, request): StubTurn => {
    const usage = { input: 2000 + 5 * request.index, output: 30 + request.index, cached: request.index, reasoning: 1 };
    if (conversation.tools.length === 0) return { text: "learning", usage };
    const text = [conversation.system, ...conversation.items.flatMap((item) => (item.type === "text" ? [item.text] : []))].join("\n");
    const cwd = workingDirectory(text);
    if (!cwd) return { text: "I could not tell where the adapter is.", usage };
    const steps = plan(cwd, script);
    // The position in the plan is the number of tool results so far (one call per answer).
    index = conversation.items.filter((item) => item.type === "tool-result").length;
    while (index < steps.length) {
      const call = steps[index]!.call(conversation);
      if (call) return { toolCalls: [call], usage };
      index += 1;
    }
    return {
      text: script.idle ? "Nothing in the material calls for a change." : "Added an instruction to call run_tests before changing code: no failing rollout called it.",
      usage,
    };
  };
}
