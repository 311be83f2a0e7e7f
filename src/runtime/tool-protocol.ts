/** Messages and shared memory between the tool thread and its parent (`tool-thread.ts`). */
import type { ToolResources } from "./types.js";

/** What the parent hands the thread at start. */
export interface ToolThreadInit {
  root: string;
  tools: Array<{ name: string; file: string; function: string }>;
  resources: ToolResources;
  /** Shared with the parent, so it can tell a blocked thread without asking it (see the slots below). */
  shared: Int32Array;
}

/** Longest JSON text of a tool's value (8 Mi characters); longer values are TOOL_RESULT_INVALID. */
export const MAX_RESULT_CHARS = 8 * 1024 * 1024;

/** Slot of `shared`: id of the call whose function is executing synchronously right now, 0 when none. */
export const SHARED_RUNNING = 0;
/** Slot of `shared`: id of the last call this thread began (ids grow, messages arrive in order). */
export const SHARED_LAST_STARTED = 1;

export type ToWorker =
  | { type: "call"; id: number; tool: string; args: Record<string, unknown> }
  | { type: "ping"; id: number };

export type FromWorker =
  | { type: "ready" }
  | { type: "load-failed"; problems: string[] }
  | { type: "result"; id: number; value: unknown }
  | { type: "error"; id: number; message: string; invalidResult?: boolean }
  | { type: "pong"; id: number };
