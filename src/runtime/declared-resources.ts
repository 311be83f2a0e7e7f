/**
 * Whether a tool function declares the reserved `_resources` parameter, read from its source
 * text (pure). The convention, documented in docs/runtime.md:
 *
 * - `function tool(args, _resources)`: a second parameter named `_resources` receives the
 *   resources as the second argument (`"argument"`);
 * - `function tool({ text, _resources })`: a first parameter that destructures `_resources`
 *   gets it merged into the arguments object (`"destructured"`);
 * - anything else is called with the arguments alone (`"none"`).
 *
 * TypeScript types, default values and rest elements are allowed around the name.
 */
import { RESOURCES_PARAMETER } from "./types.js";

export type ResourcesDeclaration = "argument" | "destructured" | "none";

export function declaredResources(source: string): ResourcesDeclaration {
  const parameters = parameterList(source);
  if (parameters.length >= 2 && bindingName(parameters[1]!) === RESOURCES_PARAMETER) return "argument";
  const first = parameters[0]?.trim() ?? "";
  if (first.startsWith("{") && patternKeys(first).includes(RESOURCES_PARAMETER)) return "destructured";
  return "none";
}

/** The top-level parameters of a function's source text, each as written. */
export function parameterList(source: string): string[] {
  const text = stripComments(source).trim();
  // `x => …` and `async x => …`: a single unparenthesised parameter.
  const bare = /^(?:async\s+)?([A-Za-z_$][\w$]*)\s*=>/.exec(text);
  if (bare && bare[1] !== "async") return [bare[1]!];
  const open = text.indexOf("(");
  if (open === -1) return [];
  const close = matching(text, open);
  if (close === -1) return [];
  return splitTopLevel(text.slice(open + 1, close)).filter((part) => part.trim() !== "");
}

/** The name a simple parameter binds (`_resources`, `_resources = {}`, `..._resources`), else "". */
function bindingName(parameter: string): string {
  const match = /^\s*(?:\.\.\.)?\s*([A-Za-z_$][\w$]*)\s*(?:=|$)/.exec(parameter);
  return match ? match[1]! : "";
}

/** The keys an object pattern `{ a, b: c, d = 1, ...rest }` names at its top level. */
function patternKeys(pattern: string): string[] {
  const close = matching(pattern, 0);
  if (close === -1) return [];
  return splitTopLevel(pattern.slice(1, close))
    .map((entry) => {
      const match = /^\s*(?:\.\.\.)?\s*(?:(["'])(.*?)\1|([A-Za-z_$][\w$]*))/.exec(entry);
      return match ? (match[2] ?? match[3] ?? "") : "";
    })
    .filter((key) => key !== "");
}

const OPENERS: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

/** Index of the bracket closing the one at `open`, skipping strings; -1 when unbalanced. */
function matching(text: string, open: number): number {
  const stack: string[] = [];
  for (let index = open; index < text.length; index += 1) {
    const char = text[index]!;
    if (char === '"' || char === "'" || char === "`") {
      index = endOfString(text, index);
      continue;
    }
    if (OPENERS[char]) stack.push(OPENERS[char]!);
    else if (char === stack[stack.length - 1]) {
      stack.pop();
      if (stack.length === 0) return index;
    }
  }
  return -1;
}

/** Split at commas that are not nested in brackets or strings. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]!;
    if (char === '"' || char === "'" || char === "`") index = endOfString(text, index);
    else if (char in OPENERS) depth += 1;
    else if (char === ")" || char === "]" || char === "}") depth -= 1;
    else if (char === "," && depth === 0) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function endOfString(text: string, start: number): number {
  const quote = text[start];
  for (let index = start + 1; index < text.length; index += 1) {
    if (text[index] === "\\") index += 1;
    else if (text[index] === quote) return index;
  }
  return text.length;
}

function stripComments(text: string): string {
  let out = "";
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]!;
    if (char === '"' || char === "'" || char === "`") {
      const end = endOfString(text, index);
      out += text.slice(index, end + 1);
      index = end;
    } else if (char === "/" && text[index + 1] === "/") {
      const end = text.indexOf("\n", index);
      index = end === -1 ? text.length : end - 1;
    } else if (char === "/" && text[index + 1] === "*") {
      const end = text.indexOf("*/", index + 2);
      index = end === -1 ? text.length : end + 1;
      out += " ";
    } else {
      out += char;
    }
  }
  return out;
}
