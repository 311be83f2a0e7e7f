import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLog, auditRecord, readAuditLog } from "../../src/runtime/audit-log.js";
import { tempDir } from "../helpers.js";

describe("the audit log", () => {
  it("has a call's line in the file as soon as append returns", async () => {
    const file = join(await tempDir(), "logs", "audit.jsonl");
    const log = await AuditLog.open(file);
    const appended = log.append(auditRecord("count_words", { text: "a b" }, { ok: true, value: { count: 2 }, text: '{"count":2}' }, "2026-01-05T10:00:00.000Z", 0.4));
    // Not awaited yet: the line is written already.
    expect(await readFile(file, "utf8")).toBe('{"time":"2026-01-05T10:00:00.000Z","tool":"count_words","arguments":{"text":"a b"},"result":{"count":2},"duration_ms":0.4}\n');
    await appended;
    await log.close();
    expect(await readAuditLog(file)).toHaveLength(1);
  });

  it("refuses a line after close, writing nothing (the descriptor's number may name another file by then)", async () => {
    const file = join(await tempDir(), "audit.jsonl");
    const log = await AuditLog.open(file);
    await log.close();
    await log.close();
    const record = auditRecord("x", {}, { ok: false, code: "TOOL_FAILED", message: "m" }, "2026-01-05T10:00:00.000Z", 0);
    await expect(log.append(record)).rejects.toMatchObject({ code: "USAGE" });
    expect(await readFile(file, "utf8")).toBe("");
  });
});
