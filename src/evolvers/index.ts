/**
 * The built-in Evolvers, by the name `--evolver` takes. Loaded lazily. An unknown name is
 * tried as a module path, then as a package (see `train/plugins.ts`).
 */
import type { Evolver } from "../train/types.js";

export const builtinEvolvers: Record<string, () => Promise<Evolver>> = {
  /** Offline search over a pool of fragments (`--pool DIR`), guided by failure feedback. */
  select: async () => (await import("./select.js")).select,
  /** Changes nothing: a baseline, and the Trainer's overhead benchmark. */
  noop: async () => (await import("./noop.js")).noop,
  /** Reflective rewriting of the adapter's text files by a learner model (`--learner-model`). */
  reflect: async () => (await import("./reflect/reflect.js")).reflect,
  /** A coding-agent host edits a scratch copy of the candidate (`--learner-host`, `--learner-model`). */
  agent: async () => (await import("./agent/agent.js")).agent,
};
