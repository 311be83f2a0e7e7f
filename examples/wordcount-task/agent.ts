/**
 * A scripted, deterministic acting agent: an offline stand-in for a model, so the example
 * trains with no API key and no network. It is deliberately simple and honest about it.
 *
 * What it does, like an agent would with a real adapter:
 *   1. reads the adapter's acting context (`session.context()`) and skills (`session.skills()`);
 *   2. reads them sentence by sentence, as prose, and takes from each sentence an instruction
 *      about counting when it finds one: a sentence that asks to leave something out of the
 *      count ("do not count …", "leave … out", "skip …", "… are not words") or to split
 *      something ("split …", "… is two words"), and names something a text can contain (code
 *      blocks, HTML comments, numbers, links, Markdown markers, short words, dashes, hyphenated
 *      words). `READING` below is the whole of its understanding; every other sentence it reads
 *      and ignores, as a weak model would;
 *   3. prepares the text as those instructions say;
 *   4. counts with the adapter's `count_words` tool (`session.call`), as ADAPTER.md tells it
 *      to, and answers with the tool's count.
 *
 * So the version under test decides what the agent does, and the answer is checked by the task
 * against the known count: the adapter's text is never scored for keywords, and nothing in the
 * pool is written for this agent — its fragments are plain prose a person could have written.
 */
import type { Session } from "hermit/plugin";

/** What the agent can do to a text before counting it, in the order it applies them. */
export const OPERATIONS = [
  "drop code blocks",
  "drop html comments",
  "split dashes",
  "split hyphens",
  "drop markdown markers",
  "drop numbers",
  "drop urls",
  "drop short words",
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** A sentence asks to leave something out of the count … */
const LEAVE_OUT = /\b(do not|don't|never) (count|include)\b|\b(leave|keep)\b[^.]*\bout\b|\b(skip|ignore|exclude|omit)\b|\bnot (a )?words?\b|\b(is|are) not counted\b|\bnot part of\b/i;
/** … or to split something into words. */
const SPLIT = /\b(separate|split|apart|two words|each part)\b/i;

/** What a sentence may be about, and what leaving it out or splitting it means. */
const READING: Array<{ about: RegExp; leaveOut?: Operation; split?: Operation }> = [
  { about: /\bcode blocks?\b|\bfenced\b|```/i, leaveOut: "drop code blocks" },
  { about: /\bhtml comments?\b|<!--/i, leaveOut: "drop html comments" },
  { about: /\b(em|en)[- ]dash(es)?\b|—/i, split: "split dashes" },
  { about: /\bhyphen(s|ated)?\b|\b\p{L}+-\p{L}+\b/iu, split: "split hyphens" },
  { about: /\bheadings?\b|\bbullets?\b|\bquote markers?\b|\btable (pipes|rules)\b|\bmarkdown\b/i, leaveOut: "drop markdown markers" },
  { about: /\bnumbers?\b|\bfigures?\b|\bdigits?\b/i, leaveOut: "drop numbers" },
  { about: /\burls?\b|\blinks?\b|\bweb address(es)?\b|https?:\/\//i, leaveOut: "drop urls" },
  { about: /\bshort words?\b|\b(one|two)[- ]letter\b|\bfiller\b/i, leaveOut: "drop short words" },
];

const TEXT_OPERATIONS: Partial<Record<Operation, (text: string) => string>> = {
  "drop code blocks": (text) => text.replace(/^[ \t]*(`{3,}|~{3,})[^\n]*\n[\s\S]*?^[ \t]*\1[^\n]*$/gm, " "),
  "drop html comments": (text) => text.replace(/<!--[\s\S]*?-->/g, " "),
  "split dashes": (text) => text.replace(/[—–]/g, " "),
  "split hyphens": (text) => text.replace(/(?<=\p{L})-(?=\p{L})/gu, " "),
};

const TOKEN_OPERATIONS: Partial<Record<Operation, (token: string) => boolean>> = {
  "drop markdown markers": (token) => /^(#{1,6}|[-*+>|]|[-:|]{3,}|\d+[.)])$/.test(token),
  "drop numbers": (token) => /^[([$€£+-]*\d[\d.,:/-]*[)\].,;:!?%]*$/.test(token),
  "drop urls": (token) => /^<?https?:\/\//.test(token),
  "drop short words": (token) => token.replace(/[^\p{L}]/gu, "").length <= 2,
};

/** An instruction the agent took from the version's text. */
export interface Instruction {
  operation: Operation;
  /** The sentence it came from. */
  sentence: string;
  /** The file (ADAPTER.md, skills/<name>/SKILL.md). */
  source: string;
}

/** The sentences of a Markdown text: frontmatter and headings left out, paragraphs and list items split into sentences. */
export function sentences(markdown: string): string[] {
  const body = markdown.replace(/^---\n[\s\S]*?\n---\n/, "").replace(/^#{1,6}\s.*$/gm, "");
  return body
    .split(/\n\s*\n|\n(?=\s*(?:[-*]|\d+\.)\s)|(?<=[.!?])\s+/)
    .map((part) => part.replace(/^\s*(?:[-*]|\d+\.)\s+/, "").replace(/\s+/g, " ").trim())
    .filter(Boolean);
}

/** The instructions about counting in `markdown`, as this agent understands them. */
export function readInstructions(markdown: string, source: string): Instruction[] {
  const found: Instruction[] = [];
  for (const sentence of sentences(markdown)) {
    const leaveOut = LEAVE_OUT.test(sentence);
    const split = SPLIT.test(sentence);
    if (!leaveOut && !split) continue;
    for (const reading of READING) {
      if (!reading.about.test(sentence)) continue;
      const operation = split && reading.split ? reading.split : leaveOut ? reading.leaveOut : undefined;
      if (operation) found.push({ operation, sentence, source });
    }
  }
  return found;
}

/** Prepare `text` as the instructions say (each operation once, in OPERATIONS order). */
export function prepare(text: string, instructions: Instruction[]): string {
  const wanted = new Set(instructions.map((instruction) => instruction.operation));
  let prepared = text;
  for (const name of OPERATIONS) {
    const apply = TEXT_OPERATIONS[name];
    if (apply && wanted.has(name)) prepared = apply(prepared);
  }
  const drops = OPERATIONS.filter((name) => TOKEN_OPERATIONS[name] && wanted.has(name)).map((name) => TOKEN_OPERATIONS[name]!);
  return prepared
    .split(/\s+/)
    .filter((token) => token !== "" && !drops.some((drop) => drop(token)))
    .join(" ");
}

export interface Transcript {
  instructions: Instruction[];
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
  const instructions = [...readInstructions(context, "ADAPTER.md"), ...skills.flatMap((skill) => readInstructions(skill.body, skill.sourcePath))];
  const transcript: Transcript = { instructions, skillsRead: skills.map((skill) => skill.name), prepared: "", toolCalls: [], answer: null };
  if (!/count_words/.test(context) || !(await session.hasTool("count_words"))) {
    transcript.note = "the context does not point to a count_words tool; the agent has no way to count and gives no answer";
    return transcript;
  }
  transcript.prepared = prepare(text, instructions);
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
