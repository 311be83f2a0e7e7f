/** Acting through the real Codex CLI (test/hosts) against the scripted stub model. */
import { actingSuite } from "./suite.js";

actingSuite("codex", { callsTool: true, fields: ["input", "output", "cached", "reasoning"], onProviderError: "exits" });
