/** The agent Evolver with the real Claude Code as the learner (test/hosts), against the scripted stub model. */
import { learnerSuite } from "./learner-suite.js";

learnerSuite("claude-code");
