/**
 * The host registry: an explicit collection, in the order help texts list them. An unknown
 * id is an error listing the valid ones.
 */
import type { Adapter } from "../adapter/types.js";
import { HermitError } from "../errors.js";
import { didYouMean } from "../suggest.js";
import { claudeCode } from "./claude-code.js";
import { codex } from "./codex.js";
import { gemini } from "./gemini.js";
import { opencode } from "./opencode.js";
import { pi } from "./pi.js";
import { HOST_IDS, isHostPath, type HostId } from "./ids.js";
import { EXPORT_KINDS, type ExportKind, type Host } from "./types.js";

/** Every host by its id: the compiler refuses an id without its module, or a module under another id. */
const registry: { readonly [Id in HostId]: Host & { readonly id: Id } } = {
  codex,
  "claude-code": claudeCode,
  pi,
  opencode,
  gemini,
};

/** The hosts, in the order of `HOST_IDS`. */
export const hosts: readonly Host[] = HOST_IDS.map((id) => registry[id]);
export { HOST_IDS, isHostPath };

/** The host with this id; HOST_UNKNOWN (exit 2) names the valid ones otherwise. */
export function getHost(id: string): Host {
  const host = Object.hasOwn(registry, id) ? registry[id as HostId] : undefined;
  if (!host) {
    throw new HermitError("HOST_UNKNOWN", `unknown host '${id}'${didYouMean(id, HOST_IDS)}; valid hosts: ${HOST_IDS.join(", ")}`, {
      host: id,
      validHosts: [...HOST_IDS],
    });
  }
  return host;
}

/** The items of each export kind an adapter has. */
export function exportedItems(adapter: Adapter): Record<ExportKind, string[]> {
  return {
    context: [adapter.context.sourcePath],
    skills: adapter.skills.map((skill) => skill.name),
    agents: adapter.agents.map((agent) => agent.name),
    tools: adapter.tools.map((tool) => tool.name),
  };
}

/**
 * Refuse (HOST_UNSUPPORTED, exit 2) an adapter exporting something the host declares
 * `unsupported`, naming the items and quoting the declaration. Nothing is dropped silently.
 */
export function assertSupported(host: Host, adapter: Adapter): void {
  const items = exportedItems(adapter);
  for (const kind of EXPORT_KINDS) {
    const capability = host.capabilities.exports[kind];
    if (capability.level !== "unsupported" || items[kind].length === 0) continue;
    const manifest = `${adapter.root}/adapter.yaml`;
    throw new HermitError(
      "HOST_UNSUPPORTED",
      `${manifest}: adapter '${adapter.manifest.name}' exports ${kind} (${items[kind].join(", ")}) and ${host.displayName} cannot ` +
        `take them: ${capability.reason ?? "unsupported"}. Deploy a copy of the adapter without exports.${kind} for ${host.id}`,
      { path: manifest, host: host.id, export: kind, items: items[kind], reason: capability.reason },
    );
  }
}

export { claudeCode, codex, gemini, opencode, pi };
export type * from "./types.js";
