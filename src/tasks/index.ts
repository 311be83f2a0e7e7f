/**
 * The built-in Tasks, by the name `--task` takes. Loaded lazily. An unknown name is tried as
 * a module path, then as a package (see `train/plugins.ts`).
 */
import { join } from "node:path";
import { packageRoot } from "../package-root.js";
import { loadTask } from "../train/plugins.js";
import type { Task } from "../train/types.js";

/** The bundled example, shipped under `examples/` as TypeScript source (loaded without a build step). */
const WORDCOUNT = join(packageRoot, "examples", "wordcount-task", "task.ts");

export const builtinTasks: Record<string, () => Promise<Task>> = {
  /**
   * Word counting under a house style, acted out by a scripted offline agent that follows the
   * adapter's context and skills and calls its `count_words` tool (examples/wordcount-task).
   */
  wordcount: () => loadTask(WORDCOUNT),
};
