import type { HostId } from "../../hosts/types.js";
import type { TranscriptReader } from "../types.js";
const raw: TranscriptReader = (stdout) => ({ toolCalls: [], events: stdout.split("\n").length });
export const transcriptReaders: Record<HostId, TranscriptReader> = { codex: raw, "claude-code": raw, pi: raw, opencode: raw, gemini: raw };
