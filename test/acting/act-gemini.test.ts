/** Acting through the real Gemini CLI (test/hosts) against the scripted stub model. */
import { actingSuite } from "./suite.js";

actingSuite("gemini", { callsTool: true, fields: ["input", "output", "cached", "reasoning"], onProviderError: "exits" });
