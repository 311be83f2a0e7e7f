/**
 * A scripted, deterministic acting agent: an offline stand-in for a model, so the example
 * trains with no API key and no network. It is deliberately simple and honest about it.
 *
 * What it does, like an agent would with a real adapter:
 *   1. reads the adapter's acting context (`session.context()`) and skills (`session.skills()`);
 *   2. collects the procedures they give it: fenced blocks tagged `procedure`, one step per
 *      line (the only instructions it understands; everything else it reads and ignores);
 *   3. prepares the text as the procedures say;
 *   4. counts with the adapter's `count_words` tool (`session.call`), as ADAPTER.md tells it
 *      to, and answers with the tool's count.
 *
 * So the version under test decides what the agent does, and the answer is checked by the
 * task against the known count: the adapter's text is never scored for keywords.
 */
import type { Session } from "hermit/plugin";

/** The procedure steps this agent can follow, in the order it applies them. */
export const KNOWN_STEPS = [
  "drop fenced-code-blocks",
  "drop html-comments",
  "split dashes",
  "split hyphens",
  "drop markdown-markers",
  "drop numbers",
  "drop urls",
  "drop short-words",
] as const;
export type StepName = (typeof KNOWN_STEPS)[number];

const TEXT_STEPS: Partial<Record<StepName, (text: string) => string>> = {
  "drop fenced-code-blocks": (text) => text.replace(/^[ \t]*(`{3,}|~{3,})[^\n]*\n[\s\S]*?^[ \t]*\1[^\n]*$/gm, " "),
  "drop html-comments": (text) => text.replace(/<!--[\s\S]*?-->/g, " "),
  "split dashes": (text) => text.replace(/[—–]/g, " "),
  "split hyphens": (text) => text.replace(/(?<=\p{L})-(?=\p{L})/gu, " "),
};

const TOKEN_STEPS: Partial<Record<StepName, (token: string) => boolean>> = {
  "drop markdown-markers": (token) => /^(#{1,6}|[-*+>|]|[-:|]{3,}|\d+[.)])$/.test(token),
  "drop numbers": (token) => /^[([$€£+-]*\d[\d.,:/-]*[)\].,;:!?%]*$/.test(token),
  "drop urls": (token) => /^<?https?:\/\//.test(token),
  "drop short-words": (token) => token.replace(/[^\p{L}]/gu, "").length <= 2,
};

export interface ProcedureStep {
  step: string;
  /** The file it came from (ADAPTER.md, skills/<name>/SKILL.md). */
  source: string;
  understood: boolean;
}

/** Every line of every ```procedure block in `markdown`. */
export function readProcedures(markdown: string, source: string): ProcedureStep[] {
  const steps: ProcedureStep[] = [];
  for (const match of markdown.matchAll(/^```procedure[ \t]*\n([\s\S]*?)^```[ \t]*$/gm)) {
    for (const line of match[1].split("\n")) {
      const step = line.trim().replace(/\s+/g, " ").toLowerCase();
      if (step && !step.startsWith("#")) steps.push({ step, source, understood: (KNOWN_STEPS as readonly string[]).includes(step) });
    }
  }
  return steps;
}

/** Prepare `text` as the procedures say (known steps only, each once, in KNOWN_STEPS order). */
export function prepare(text: string, steps: ProcedureStep[]): string {
  const wanted = new Set(steps.filter((step) => step.understood).map((step) => step.step));
  let prepared = text;
  for (const name of KNOWN_STEPS) {
    const apply = TEXT_STEPS[name];
    if (apply && wanted.has(name)) prepared = apply(prepared);
  }
  const drops = KNOWN_STEPS.filter((name) => TOKEN_STEPS[name] && wanted.has(name)).map((name) => TOKEN_STEPS[name]!);
  return prepared
    .split(/\s+/)
    .filter((token) => token !== "" && !drops.some((drop) => drop(token)))
    .join(" ");
}

export interface Transcript {
  procedures: ProcedureStep[];
  skillsRead: string[];
  prepared: string;
  toolCalls: Array<{ tool: string; arguments: unknown; result?: unknown; error?: string }>;
  answer: number | null;
  note?: string;
}

/** Act out one question: how many words does `text` have? */
export async function answerWordCount(session: Session, text: string): Promise<Transcript> {
  const context = await session.context();
  const skills = await session.skills();
  const procedures = [
    ...readProcedures(context, "ADAPTER.md"),
    ...skills.flatMap((skill) => readProcedures(skill.body, skill.sourcePath)),
  ];
  const transcript: Transcript = { procedures, skillsRead: skills.map((skill) => skill.name), prepared: "", toolCalls: [], answer: null };
  if (!/count_words/.test(context) || !(await session.hasTool("count_words"))) {
    transcript.note = "the context does not point to a count_words tool; the agent has no way to count and gives no answer";
    return transcript;
  }
  transcript.prepared = prepare(text, procedures);
  const args = { text: transcript.prepared };
  try {
    const result = (await session.call("count_words", args)) as { count?: unknown };
    transcript.toolCalls.push({ tool: "count_words", arguments: args, result });
    transcript.answer = typeof result?.count === "number" ? result.count : null;
  } catch (error) {
    transcript.toolCalls.push({ tool: "count_words", arguments: args, error: (error as Error).message });
  }
  return transcript;
}
