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
  // Passing options also turns off gray-matter's content cache, which would share objects.
  const parsed = matter(text, { engines: { yaml: (source: string) => (parseYaml(source, file) ?? {}) as object } });
  const data = parsed.data;
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return { data: {}, body: parsed.content };
  }
  return { data: data as Record<string, unknown>, body: parsed.content };
}
