/** The agent Evolver with the real Codex CLI as the learner (test/hosts), against the scripted stub model. */
import { learnerSuite } from "./learner-suite.js";

learnerSuite("codex");
