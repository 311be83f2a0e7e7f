import matter from "gray-matter";
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

function parseUncached(text: string, file: string): FrontmatterDocument {
  // Passing options also turns off gray-matter's content cache, which would share objects.
  const parsed = matter(text, { engines: { yaml: (source: string) => (parseYaml(source, file) ?? {}) as object } });
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
