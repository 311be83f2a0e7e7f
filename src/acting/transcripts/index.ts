/** One transcript reader per host: its headless JSON output → what it did and what it used. */
import type { HostId } from "../../hosts/types.js";
import type { TranscriptReader } from "../types.js";
import { readClaudeCode } from "./claude-code.js";
import { readCodex } from "./codex.js";
import { readGemini } from "./gemini.js";
import { readOpencode } from "./opencode.js";
import { readPi } from "./pi.js";

export const transcriptReaders: Readonly<Record<HostId, TranscriptReader>> = {
  codex: readCodex,
  "claude-code": readClaudeCode,
  pi: readPi,
  opencode: readOpencode,
  gemini: readGemini,
};
