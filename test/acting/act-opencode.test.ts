/** Acting through the real OpenCode (test/hosts) against the scripted stub model. */
import { actingSuite } from "./suite.js";

actingSuite("opencode", {
  callsTool: true,
  fields: ["input", "output", "cached", "reasoning"],
  // OpenCode first asks its model for a session title (no tools offered); its steps do not count it.
  uncounted: (stub) => stub.requests.filter((request) => request.protocol !== "unknown" && request.turn?.text === "Fix the failing tests").map((request) => request.index),
  onProviderError: "hangs",
});
