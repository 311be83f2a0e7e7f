/** Acting through the real Pi (test/hosts) against the scripted stub model: no MCP, so the skill's shell path. */
import { actingSuite } from "./suite.js";

actingSuite("pi", { callsTool: false, fields: ["input", "output", "cached"], onProviderError: "reports" });
