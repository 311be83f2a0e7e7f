/**
 * The example Task: count the words of a text under a house style (README.md). Each rollout
 * opens a Session on the version under test, lets the scripted agent (agent.ts) act, and
 * scores the agent's answer against the instance's known count:
 *
 *   exact answer → 1;  otherwise 0.5 × closeness (1 − |answer − expected| / expected, at least 0);
 *   no answer    → 0 (a measured failure). A crash is not caught here: the Trainer records it as null.
 *
 * The feedback says how far off the answer was and what the text contains, as a grader would.
 */
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineTask, type Split, type TaskInstance } from "hermit/plugin";
import { answerWordCount } from "./agent.js";

interface WordcountInstance extends TaskInstance {
  split: Split;
  text: string;
  expected: number;
}

const here = dirname(fileURLToPath(import.meta.url));
const data = JSON.parse(readFileSync(join(here, "data.json"), "utf8")) as { instances: WordcountInstance[] };

/** What a grader would point out about a text. */
export function notable(text: string): string[] {
  const found: string[] = [];
  if (/^[ \t]*(```|~~~)/m.test(text)) found.push("a fenced code block");
  if (/<!--/.test(text)) found.push("an HTML comment");
  if (/^#{1,6}\s/m.test(text)) found.push("markdown headings");
  if (/^\s*([-*+]|\d+[.)])\s/m.test(text)) found.push("list bullets");
  if (/^\s*>\s/m.test(text)) found.push("quote markers");
  if (/\|/.test(text)) found.push("table pipes");
  if (/(^|\s)[([$€£+-]*\d/m.test(text)) found.push("numbers");
  if (/[—–]/.test(text)) found.push("em dashes");
  if (/\p{L}-\p{L}/u.test(text)) found.push("hyphenated words");
  if (/https?:\/\//.test(text)) found.push("URLs");
  return found;
}

export function score(answer: number | null, expected: number): number {
  if (answer === null) return 0;
  if (answer === expected) return 1;
  return 0.5 * Math.max(0, 1 - Math.abs(answer - expected) / expected);
}

export function feedback(answer: number | null, expected: number, text: string): string {
  const features = notable(text);
  const about = features.length > 0 ? ` The text has ${features.join(", ")}.` : "";
  if (answer === null) return `No answer was given; expected ${expected} words.${about}`;
  if (answer === expected) return `Correct: ${expected} words.${about}`;
  const off = answer - expected;
  return `Answered ${answer} words, expected ${expected} (${Math.abs(off)} too ${off > 0 ? "many" : "few"}).${about}`;
}

export default defineTask<WordcountInstance>({
  name: "wordcount",
  instances(split) {
    return data.instances.filter((instance) => instance.split === split);
  },
  async rollout(instance, context) {
    const { text, expected } = instance;
    const session = await context.session();
    const transcript = await answerWordCount(session, text);
    await writeFile(join(context.evidenceDir, "transcript.json"), `${JSON.stringify({ question: text, expected, ...transcript }, null, 2)}\n`);
    return { score: score(transcript.answer, expected), feedback: feedback(transcript.answer, expected, text) };
  },
});
