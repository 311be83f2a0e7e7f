/**
 * `noop`: an Evolver that changes nothing and says so. For measuring a task's baseline and
 * the Trainer's own overhead (`bench/train.ts`).
 */
import { defineEvolver } from "../train/define.js";

export const noop = defineEvolver({
  name: "noop",
  step() {
    return { status: "done", summary: "no change (noop Evolver)" };
  },
});

export default noop;
