/** One reason a candidate does not meet its template's specification. */
export interface Issue {
  /** Relative POSIX path (or `adapter.yaml#section`) the issue is about. */
  path: string;
  /** Which rule found it: required, fixed, undeclared, manifest, format, size, count, path, load, custom. */
  check: string;
  problem: string;
}

/** How the custom check and tool imports ran: in bubblewrap without network, without isolation, or not at all. */
export type Isolation = "bwrap" | "none" | "not-run";

export interface SpecResult {
  passed: boolean;
  issues: Issue[];
  isolation: Isolation;
}

export interface CheckOptions {
  /** Limit for the child process that imports tools and runs the custom check. Default 120 000 ms. */
  timeoutMs?: number;
  /** Use bubblewrap when present (default true). False runs the child without isolation. */
  isolate?: boolean;
  /**
   * A malformed candidate `adapter.yaml` either throws HermitError (default, the CLI's exit 2)
   * or becomes an issue on `adapter.yaml` (what the Trainer and repair need).
   */
  manifestErrors?: "throw" | "issue";
}
