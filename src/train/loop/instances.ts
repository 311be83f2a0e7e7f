/** A task's instances of one split, checked: an array of objects with unique, non-empty string ids. */
import { HermitError, errorMessage } from "../../errors.js";
import type { InstancesContext, Split, Task, TaskInstance } from "../types.js";

export async function loadInstances(task: Task, split: Split, context: InstancesContext): Promise<TaskInstance[]> {
  let list: unknown;
  try {
    list = await task.instances(split, context);
  } catch (error) {
    throw new HermitError("PLUGIN_INVALID", `task '${task.name}': instances('${split}') failed: ${errorMessage(error)}`, { split });
  }
  if (!Array.isArray(list)) throw new HermitError("PLUGIN_INVALID", `task '${task.name}': instances('${split}') must return an array`, { split });
  const seen = new Set<string>();
  for (const [index, item] of list.entries()) {
    const id = (item as TaskInstance | null)?.id;
    if (typeof id !== "string" || id === "") {
      throw new HermitError("PLUGIN_INVALID", `task '${task.name}': instances('${split}')[${index}] needs a non-empty string 'id'`, { split, index });
    }
    if (seen.has(id)) throw new HermitError("PLUGIN_INVALID", `task '${task.name}': instance id '${id}' appears twice in split '${split}'`, { split, id });
    seen.add(id);
  }
  return list as TaskInstance[];
}
