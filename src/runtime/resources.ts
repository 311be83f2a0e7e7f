/** Binding resources: from Session options or a `--resources` JSON file, into one frozen-able mapping. */
import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { HermitError } from "../errors.js";
import type { ToolResources } from "./types.js";

/** The named resources, as Session options and `serveAdapter` take them. */
export interface ResourceOptions {
  /** The deployment report (`.hermit-deploy.json` content); any JSON value. */
  deployment?: unknown;
  /** The learning material; any JSON value. */
  learningMaterial?: unknown;
  /** The evidence directory; made absolute against the current directory, created if missing. */
  evidence?: string;
  /** A user mapping; its keys sit beside the named ones and must not collide with them. */
  resources?: Record<string, unknown>;
}

const NAMED = ["deployment", "learningMaterial", "evidence"] as const;

/** Merge options into the mapping tools receive. Throws USAGE on a collision or a non-JSON value. */
export function bindResources(options: ResourceOptions, where = "resources"): ToolResources {
  const user = options.resources ?? {};
  if (user === null || typeof user !== "object" || Array.isArray(user)) {
    throw new HermitError("USAGE", `${where}: the resources mapping must be a JSON object`, { path: where });
  }
  const bound: Record<string, unknown> = { ...user };
  for (const key of NAMED) {
    if (options[key] === undefined) continue;
    if (key in user) {
      throw new HermitError("USAGE", `${where}: '${key}' is given both as a named resource and in the mapping`, {
        path: where,
        key,
      });
    }
    bound[key] = options[key];
  }
  if (bound.evidence !== undefined) {
    if (typeof bound.evidence !== "string" || bound.evidence === "") {
      throw new HermitError("USAGE", `${where}: evidence must be a directory path`, { path: where });
    }
    bound.evidence = resolve(bound.evidence);
  }
  return asJson(bound, where);
}

/**
 * Read a `--resources` file: a JSON object whose keys are the mapping tools receive.
 * `deployment`, `learningMaterial` and `evidence` are the named resources; a relative
 * `evidence` path is resolved against the file's folder.
 */
export async function readResourcesFile(file: string): Promise<ToolResources> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    const code = error.code === "ENOENT" ? "INPUT_NOT_FOUND" : "INPUT_UNREADABLE";
    throw new HermitError(code, `${file}: cannot read the resources file: ${error.message}`, { path: file });
  });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new HermitError("USAGE", `${file}: resources file is not valid JSON: ${(error as Error).message}`, {
      path: file,
    });
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new HermitError("USAGE", `${file}: resources file must hold a JSON object`, { path: file });
  }
  const mapping = { ...(data as Record<string, unknown>) };
  if (typeof mapping.evidence === "string" && !isAbsolute(mapping.evidence)) {
    mapping.evidence = resolve(dirname(file), mapping.evidence);
  }
  return bindResources({ resources: mapping }, file);
}

/**
 * Resources travel to the tool thread and to sandboxed servers as JSON, so they are converted
 * by JSON's rules here, once, and every mode sees the same values.
 */
function asJson(value: ToolResources, where: string): ToolResources {
  try {
    return JSON.parse(JSON.stringify(value)) as ToolResources;
  } catch (error) {
    throw new HermitError("USAGE", `${where}: resources must be JSON values: ${(error as Error).message}`, {
      path: where,
    });
  }
}
