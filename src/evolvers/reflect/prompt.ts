/**
 * The reflection prompt (pure): what the component is for, the template's rules for it and its
 * guidance (EVOLVER.md), the current text, the evidence, what earlier attempts led to, and the
 * task — return the full new text in exactly one fenced block.
 */
import type { Component } from "./components.js";
import type { Dataset } from "./dataset.js";

export interface PromptInput {
  component: Component;
  /** The current text; undefined for a new skill or subagent. */
  current?: string;
  /** Names of the skills and subagents the version has (a new one must not reuse them). */
  siblings: string[];
  /** The template's guidance for the learner (EVOLVER.md), if it has one. */
  guide?: string;
  dataset: Dataset;
  /** Rollouts in the batch and its mean score. */
  batch: { rollouts: number; score: number | null };
  /** Lines about earlier attempts: outcomes of proposals, the last one not adopted and why. */
  notes: string[];
}

export interface Prompt {
  system: string;
  prompt: string;
}

const SYSTEM = [
  "You improve one file of an adapter: the instructions, skills and subagents that a coding agent reads while it works on a task.",
  "You are shown the file, what it is for, the rules it must follow, and rollouts of the agent using the current version — each with the task instance, what the agent produced, its score and a grader's feedback.",
  "Find out why the failing rollouts failed and what the successful ones did right, then write a better version of the file: keep what works, fix what the evidence shows is missing or wrong, and state domain facts and rules the agent could not know.",
  "Answer with the complete new text of the file inside exactly one fenced block that opens with ```` (four backticks) and closes with ````. Only that block is used; anything outside it is ignored.",
].join("\n");

/** What each kind of component does for the agent. */
export function roleOf(component: Component): string {
  switch (component.kind) {
    case "context":
      return "the adapter's main instructions: every host shows this file to the agent at the start of each session.";
    case "skill":
      return `the skill '${component.name}': the agent sees its name and description in a list, and reads the whole file when the description says it applies.`;
    case "new-skill":
      return "a new skill: the agent sees its name and description in a list, and reads the whole file when the description says it applies.";
    case "agent":
      return `the subagent '${component.name}': the main agent can hand work to it; its description says when, its body is its instructions.`;
    case "new-agent":
      return "a new subagent: the main agent can hand work to it; its description says when, its body is its instructions.";
    default:
      return "a learnable file of the adapter.";
  }
}

/** The format rules for a component, in words. */
export function rulesOf(component: Component, siblings: readonly string[]): string[] {
  const rules: string[] = [];
  if (component.format === "skill") {
    rules.push("Starts with YAML frontmatter between `---` lines holding `name` and `description`; the body follows.");
    rules.push(
      component.kind === "new-skill"
        ? `\`name\`: 1-64 characters of a-z, 0-9 and single hyphens, not one of: ${siblings.join(", ") || "(none yet)"}. It becomes the skill's folder name.`
        : `\`name\` stays \`${component.name}\` (it must equal the folder name).`,
    );
    rules.push("`description`: at most 1024 characters; say what the skill does and when to use it — it is all the agent sees before reading the file.");
  } else if (component.format === "agent") {
    rules.push("Starts with YAML frontmatter between `---` lines holding `name` and `description`; the body is the subagent's instructions.");
    rules.push(component.kind === "new-agent" ? `\`name\`: 1-64 characters of a-z, 0-9, '-' or '_', not one of: ${siblings.join(", ") || "(none yet)"}.` : `\`name\` stays \`${component.name}\`.`);
  } else rules.push("Markdown.");
  if (component.maxBytes !== undefined) rules.push(`At most ${component.maxBytes} bytes.`);
  return rules;
}

/** The system and user prompt for one proposal. */
export function buildPrompt(input: PromptInput): Prompt {
  const { component, dataset } = input;
  const where = component.kind === "new-skill" || component.kind === "new-agent" ? `a new file under \`${component.path}\`` : `\`${component.path}\``;
  const sections = [
    `# The file to improve: ${where}\n\nIt is ${roleOf(component)}`,
    `## Rules for it\n\n${rulesOf(component, input.siblings).map((rule) => `- ${rule}`).join("\n")}`,
    input.guide?.trim() ? `## The template's guidance for the learner\n\n${input.guide.trim()}` : "",
    input.current !== undefined ? `## Its current text\n\n${fence(input.current)}` : "## Its current text\n\n(The file does not exist yet: write it from scratch.)",
    evidenceSection(input),
    input.notes.length > 0 ? `## Earlier attempts\n\n${input.notes.map((note) => `- ${note}`).join("\n")}` : "",
    `## Your task\n\nWrite the complete new text of ${where}. Address the failures above; do not remove guidance the successful rollouts relied on. Return it in exactly one block fenced with \`\`\`\` (four backticks).`,
  ];
  return { system: SYSTEM, prompt: sections.filter((section) => section !== "").join("\n\n") };
}

function evidenceSection(input: PromptInput): string {
  const { dataset, batch } = input;
  const shown = dataset.failures + dataset.crashes + dataset.successes;
  const score = batch.score === null ? "no rollout was measured" : `mean score ${batch.score}`;
  const header = `## Rollouts of the agent with the current version\n\n${batch.rollouts} rollout(s), ${score}. Shown: ${dataset.failures} failing, ${dataset.crashes} not measured, ${dataset.successes} passing`;
  const left = dataset.omitted > 0 ? `; ${dataset.omitted} more left out to fit the prompt` : "";
  const cut = dataset.cut > 0 ? ` Long fields are cut in the middle where marked "[… characters cut …]".` : "";
  return `${header}${left}.${cut}\n\n${shown > 0 ? dataset.text : "(No rollout fitted in the prompt.)"}`;
}

/** `text` in a fence longer than any fence inside it. */
export function fence(text: string): string {
  const longest = Math.max(3, ...[...text.matchAll(/^ {0,3}(`{3,})/gm)].map((match) => match[1]!.length));
  const marks = "`".repeat(longest + 1);
  return `${marks}markdown\n${text.replace(/\n$/, "")}\n${marks}`;
}
