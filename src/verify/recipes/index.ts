/** The verify recipes, one per host, in the order hermit lists hosts. */
import type { HostId } from "../../hosts/types.js";
import { claudeCodeRecipe } from "./claude-code.js";
import { codexRecipe } from "./codex.js";
import { geminiRecipe } from "./gemini.js";
import { opencodeRecipe } from "./opencode.js";
import { piRecipe } from "./pi.js";
import type { HostRecipe } from "./types.js";

export const recipes: Readonly<Record<HostId, HostRecipe>> = {
  codex: codexRecipe,
  "claude-code": claudeCodeRecipe,
  pi: piRecipe,
  opencode: opencodeRecipe,
  gemini: geminiRecipe,
};

export type * from "./types.js";
