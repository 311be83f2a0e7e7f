/** Pure helpers: how a declared tool is published, how results are rendered. No IO. */
import type { ToolDeclaration } from "../adapter/types.js";
import { RESOURCES_PARAMETER, type PublishedTool } from "./types.js";

/**
 * The tool as clients see it. The schemas are the manifest's own objects, unchanged, except
 * that a manifest which mentions `_resources` in `properties` or `required` gets a copy
 * without it: the parameter is bound by hermit and never part of the published schema.
 */
export function publishTool(tool: ToolDeclaration): PublishedTool {
  const published: PublishedTool = {
    name: tool.name,
    description: tool.description,
    inputSchema: withoutResources(tool.input_schema),
  };
  if (tool.output_schema !== undefined) published.outputSchema = tool.output_schema;
  return published;
}

function withoutResources(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = schema.properties as Record<string, unknown> | undefined;
  const required = schema.required as unknown[] | undefined;
  const inProperties = properties !== null && typeof properties === "object" && RESOURCES_PARAMETER in properties;
  const inRequired = Array.isArray(required) && required.includes(RESOURCES_PARAMETER);
  if (!inProperties && !inRequired) return schema;
  const copy: Record<string, unknown> = { ...schema };
  if (inProperties) {
    const { [RESOURCES_PARAMETER]: _bound, ...rest } = properties;
    copy.properties = rest;
  }
  if (inRequired) copy.required = required.filter((name) => name !== RESOURCES_PARAMETER);
  return copy;
}

/** True for a JSON object (what MCP's `structuredContent` must be). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The text a model reads: a string result as is, anything else as compact JSON. */
export function renderValue(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value ?? null);
}
