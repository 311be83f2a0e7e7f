import { parseDocument } from "yaml";
import { HermitError } from "../errors.js";

/** Aliases beyond this count are treated as an alias bomb. */
const MAX_ALIAS_COUNT = 100;

/**
 * Parse YAML text from `file`, refusing syntax errors (with the line), duplicate keys and
 * alias bombs. Returns plain data.
 */
export function parseYaml(text: string, file: string): unknown {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true, strict: true });
  const error = doc.errors[0];
  if (error) {
    const line = error.linePos?.[0]?.line;
    const where = line ? `${file}:${line}` : file;
    throw new HermitError("YAML_SYNTAX", `${where}: YAML syntax error: ${error.message.split("\n")[0]}`, {
      path: file,
      line,
    });
  }
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    throw new HermitError(
      "YAML_UNSAFE",
      `${file}: YAML refused: ${(error as Error).message} (more than ${MAX_ALIAS_COUNT} alias expansions)`,
      { path: file },
    );
  }
}
