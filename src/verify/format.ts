/** The human output of `hermit verify`: a table item × discovered, with the reason for each ✗. Pure. */
import type { Evidence } from "./evidence.js";
import type { VerifyReport } from "./verify.js";

function evidenceText(evidence: Evidence): string {
  return "command" in evidence ? `${evidence.command}: ${evidence.line}` : `request ${evidence.request} ${evidence.field}`;
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + " ".repeat(width - text.length);
}

/** Render the report for a person. */
export function formatVerifyReport(report: VerifyReport): string {
  const lines: string[] = [];
  const version = report.hostVersion === report.expectedHostVersion ? report.hostVersion : `${report.hostVersion} (hermit was verified with ${report.expectedHostVersion})`;
  lines.push(`hermit verify: ${report.host} ${version} in ${report.workspace}`);
  lines.push(
    `host run: ${report.run.timedOut ? "timed out" : `exit ${report.run.exitCode ?? report.run.signal}`}, ` +
      `${report.run.requests} model request(s), ${(report.run.durationMs / 1000).toFixed(1)} s`,
  );
  lines.push("");
  const rows = report.items.map((item) => ({
    kind: item.kind,
    name: item.name,
    mark: item.discovered ? "✓" : "✗",
    level: item.level,
    detail: item.discovered
      ? item.evidence.map(evidenceText).join("; ") + (item.reason ? ` (${item.reason})` : "")
      : (item.reason ?? "not discovered"),
  }));
  const kindWidth = Math.max(4, ...rows.map((row) => row.kind.length));
  const nameWidth = Math.max(4, ...rows.map((row) => row.name.length));
  const levelWidth = Math.max(5, ...rows.map((row) => row.level.length));
  lines.push(`  ${pad("kind", kindWidth)}  ${pad("name", nameWidth)}  found  ${pad("level", levelWidth)}  evidence / reason`);
  for (const row of rows) {
    lines.push(`  ${pad(row.kind, kindWidth)}  ${pad(row.name, nameWidth)}  ${pad(row.mark, 5)}  ${pad(row.level, levelWidth)}  ${row.detail}`);
  }
  lines.push("");
  const counted = report.items.filter((item) => item.counted);
  const found = counted.filter((item) => item.discovered).length;
  const other = report.items.length - counted.length;
  lines.push(
    `${report.passed ? "passed" : "FAILED"}: ${found} of ${counted.length} guaranteed item(s) discovered` +
      (other > 0 ? `; ${other} best-effort or unsupported item(s) reported, not counted` : ""),
  );
  if (report.exercise) {
    lines.push("tools exercised (called once through the host):");
    for (const tool of report.exercise) {
      const served = tool.served ? (tool.served.ok ? "ran" : `ran, failed: ${tool.served.error}`) : "no record";
      const detail = tool.passed
        ? `called in request ${tool.calledIn} as ${tool.offeredAs}; hermit's server ${served}; the answer came back in request ${tool.returnedIn}`
        : (tool.reason ?? "did not pass");
      lines.push(`  ${tool.passed ? "✓" : "✗"} ${tool.tool}${tool.counted ? "" : " (not counted)"}: ${detail}`);
    }
  }
  if (report.warnings.length > 0) {
    lines.push("warnings:");
    for (const warning of report.warnings) lines.push(`  - ${warning}`);
  }
  if (report.home) lines.push(`kept the isolated home: ${report.home}`);
  return lines.join("\n");
}
