import { HermitError } from "../errors.js";
import { parseYaml } from "./yaml.js";

export interface FrontmatterDocument {
  data: Record<string, unknown>;
  body: string;
}

/**
 * Split a markdown file into frontmatter and body. The frontmatter is the YAML between a
 * first line `---` and the next line `---`; a file that does not start with `---` has none
 * (its data is `{}`). The YAML goes through our own parser, so alias bombs and duplicate keys
 * are refused here as in `adapter.yaml`, and errors name the line of the file.
 */
export function parseFrontmatter(text: string, file: string): FrontmatterDocument {
  // The reader and the spec rules parse the same files; parse each text once.
  const cached = cache.get(text);
  if (cached) return cached;
  const parsed = parseUncached(text, file);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(text, parsed);
  return parsed;
}

const CACHE_LIMIT = 4096;
/** Results are frozen: callers share them. */
const cache = new Map<string, FrontmatterDocument>();

/**
 * The opening line: `---`, optionally naming its language (`---yaml`). `----` is a rule, not
 * frontmatter. Other languages are refused: in other tools they select engines that run the
 * frontmatter as code (`---js`).
 */
const OPENING = /^\ufeff?---(?!-)([^\r\n]*)(\r?\n|$)/;
const CLOSING = /^---[ \t]*\r?$/;

/** Where the first line of `text` that closes the frontmatter starts and the body after it starts. */
function findClosing(text: string): { at: number; body: number } | undefined {
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf("\n", start);
    const end = newline === -1 ? text.length : newline;
    if (text.startsWith("---", start) && CLOSING.test(text.slice(start, end))) return { at: start, body: newline === -1 ? end : newline + 1 };
    start = end + 1;
  }
  return undefined;
}

function parseUncached(text: string, file: string): FrontmatterDocument {
  const opening = OPENING.exec(text);
  if (!opening) return Object.freeze({ data: Object.freeze({}), body: text });
  const language = opening[1]!.trim();
  if (language !== "" && !/^(yaml|yml)$/i.test(language)) {
    throw new HermitError(
      "YAML_UNSAFE",
      `${file}: frontmatter language '${language.slice(0, 40)}' refused; only YAML frontmatter is read (other engines run code)`,
      { path: file },
    );
  }
  const rest = text.slice(opening[0].length);
  const closing = findClosing(rest);
  if (!closing) {
    throw new HermitError("YAML_SYNTAX", `${file}:1: frontmatter opens with '---' on line 1 but no line '---' closes it`, {
      path: file,
      line: 1,
    });
  }
  const body = rest.slice(closing.body);
  const data = parseYaml(rest.slice(0, closing.at), file, { firstLine: 2 });
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return Object.freeze({ data: Object.freeze({}), body });
  }
  return Object.freeze({ data: Object.freeze(data as Record<string, unknown>), body });
}

/** Forget parsed documents (benchmarks measure cold parses with it). */
export function clearFrontmatterCache(): void {
  cache.clear();
}
