import matter from "gray-matter";
import { HermitError } from "../errors.js";
import { parseYaml } from "./yaml.js";

export interface FrontmatterDocument {
  data: Record<string, unknown>;
  body: string;
}

/**
 * Split a markdown file into frontmatter and body. The YAML goes through our own parser, so
 * alias bombs and duplicate keys are refused here as in `adapter.yaml`.
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
 * gray-matter picks the parser from the word after the opening `---`, and its `js` /
 * `javascript` engine runs the frontmatter as code (`eval`). Only YAML is frontmatter here.
 */
const LANGUAGE = /^\ufeff?---[ \t]*([^\s-][^\r\n]*?)[ \t]*\r?\n/;

function parseUncached(text: string, file: string): FrontmatterDocument {
  const language = LANGUAGE.exec(text)?.[1];
  if (language !== undefined && !/^(yaml|yml)$/i.test(language)) {
    throw new HermitError(
      "YAML_UNSAFE",
      `${file}: frontmatter language '${language.slice(0, 40)}' refused; only YAML frontmatter is read (other engines run code)`,
      { path: file },
    );
  }
  const refuse = () => {
    throw new HermitError("YAML_UNSAFE", `${file}: only YAML frontmatter is read`, { path: file });
  };
  const yaml = (source: string) => (parseYaml(source, file) ?? {}) as object;
  let parsed: ReturnType<typeof matter>;
  try {
    // Passing options also turns off gray-matter's content cache, which would share objects.
    parsed = matter(text, { language: "yaml", engines: { yaml, javascript: refuse, json: refuse } });
  } catch (error) {
    if (error instanceof HermitError) throw error;
    throw new HermitError("YAML_SYNTAX", `${file}: frontmatter cannot be read: ${(error as Error).message}`, { path: file });
  }
  const data = parsed.data;
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return Object.freeze({ data: Object.freeze({}), body: parsed.content });
  }
  return Object.freeze({ data: Object.freeze(data as Record<string, unknown>), body: parsed.content });
}

/** Forget parsed documents (benchmarks measure cold parses with it). */
export function clearFrontmatterCache(): void {
  cache.clear();
}
