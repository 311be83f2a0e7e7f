/**
 * `hermit convert`: the acting context and the tool specs in one API's tool format, for
 * custom pipelines that call a model directly. Pure; the formats themselves are the
 * runtime's (`Session.toolSpecs` gives the same specs).
 */
import type { Adapter } from "../adapter/types.js";
import { HermitError } from "../errors.js";
import { publishTool } from "../runtime/published.js";
import { TOOL_FORMATS, toolSpecs, type AnthropicToolSpec, type OpenAIToolSpec, type ToolFormat } from "../runtime/tool-formats.js";

export interface Conversion {
  adapter: { name: string; version: string };
  format: ToolFormat;
  /** The acting context: the text of the adapter's context file (`ADAPTER.md`). */
  context: string;
  /** OpenAI Chat Completions `tools[]` or Anthropic Messages `tools[]`. */
  tools: OpenAIToolSpec[] | AnthropicToolSpec[];
}

/** The format name, or USAGE (exit 2) listing the valid ones. */
export function parseConvertFormat(value: string): ToolFormat {
  if ((TOOL_FORMATS as readonly string[]).includes(value)) return value as ToolFormat;
  throw new HermitError("USAGE", `unknown format '${value}'; valid formats: ${TOOL_FORMATS.join(", ")}`, {
    format: value,
    validFormats: [...TOOL_FORMATS],
  });
}

/**
 * Context and tool specs in `format`. Input schemas are the manifest's own, without the
 * reserved `_resources` parameter (hermit binds it; a model never sees it).
 */
export function convertAdapter(adapter: Adapter, format: ToolFormat): Conversion {
  return {
    adapter: { name: adapter.manifest.name, version: adapter.manifest.version },
    format,
    context: adapter.context.text,
    tools: toolSpecs(adapter.tools.map(publishTool), format),
  };
}
