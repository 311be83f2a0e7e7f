/** Acting through the real Claude Code (test/hosts) against the scripted stub model. */
import { actingSuite } from "./suite.js";

actingSuite("claude-code", { callsTool: true, fields: ["input", "output", "cached"], onProviderError: "exits" });
