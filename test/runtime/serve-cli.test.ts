import { execFile } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { testdir } from "../helpers.js";
import { ensureBuilt, fixtureTree, hermitCli } from "./fixture.js";

/** Run `hermit serve …` with stdin closed; resolve its exit code and output. */
function serve(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [hermitCli, "serve", ...args], (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

describe("hermit serve start-up errors", () => {
  beforeAll(ensureBuilt);

  it("names the tool and entrypoint of a missing function, and exits 2 with nothing on stdout", async () => {
    const tree = fixtureTree();
    const adapter = await testdir({
      ...tree,
      "tools.ts": (tree["tools.ts"] as string).replace("export function upper(", "function upper("),
    });
    const result = await serve(["--adapter", adapter]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("hermit: error ADAPTER_INVALID:");
    expect(result.stderr).toContain("tool 'upper' (entrypoint tools.ts:upper): tools.ts has no exported function 'upper'");
  });

  it("names the tool of a missing entrypoint file", async () => {
    const tree = fixtureTree();
    const adapter = await testdir({
      ...tree,
      "adapter.yaml": (tree["adapter.yaml"] as string).replace("lib/shout.mjs:shout", "lib/missing.mjs:shout"),
    });
    const result = await serve(["--adapter", adapter]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("tool 'shout_mjs': entrypoint file lib/missing.mjs not found");
  });

  it.each([
    [["--timeout-ms", "soon"], "--timeout-ms: 'soon' must be an integer"],
    [["--http", "70000"], "--http: '70000' must be an integer from 0 to 65535"],
    [["--resources", "/nonexistent/resources.json"], "cannot read the resources file"],
  ])("refuses %j with exit 2", async (flags, message) => {
    const adapter = await testdir(fixtureTree());
    const result = await serve(["--adapter", adapter, ...flags]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(message);
  });

  it("refuses a resources file that is not a JSON object", async () => {
    const dir = await testdir({ ...fixtureTree(), "res.json": "[1, 2]" });
    const result = await serve(["--adapter", dir, "--resources", `${dir}/res.json`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("resources file must hold a JSON object");
  });
});
