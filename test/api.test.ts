/**
 * The public API is two explicit lists: `hermit` (src/index.ts) and `hermit/plugin`
 * (src/plugin.ts). This pins both, and the package's `exports` map that publishes them.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as hermit from "../src/index.js";
import * as plugin from "../src/plugin.js";
import { repoRoot } from "./helpers.js";

describe("the public API", () => {
  it("`hermit` exports exactly the programmatic API, nothing internal", () => {
    expect(Object.keys(hermit).sort()).toEqual(
      [
        // errors and versions
        "CONTRACT_VERSION",
        "ErrorCodes",
        "ExitCode",
        "HermitError",
        "hermitVersion",
        "isHermitError",
        // reading and checking an adapter
        "checkSpec",
        "readAdapter",
        // deploy
        "HOST_IDS",
        "deploy",
        "status",
        "undeploy",
        // run time
        "Session",
        "serve",
        // verify
        "formatVerifyReport",
        "startStubModel",
        "verify",
        // train
        "listRuns",
        "showRun",
        "train",
        // report
        "reportData",
        "writeReport",
      ].sort(),
    );
  });

  it("`hermit/plugin` exports the define helpers (hostTask among them) and the plugin API version", () => {
    expect(Object.keys(plugin).sort()).toEqual(["PLUGIN_API_VERSION", "defineEvolver", "defineTask", "hostTask"]);
    expect(plugin.PLUGIN_API_VERSION).toMatch(/^\d+\.\d+$/);
  });

  it("defineEvolver and defineTask return the definition stamped with the plugin API version", () => {
    const step = async () => ({ status: "skipped" as const, summary: "" });
    expect(plugin.defineEvolver({ name: "e", step })).toEqual({ name: "e", step, apiVersion: plugin.PLUGIN_API_VERSION });
    const instances = () => [{ id: "a", text: "x" }];
    const task = plugin.defineTask<{ id: string; text: string }>({ name: "t", instances, rollout: async (instance) => ({ score: instance.text.length }) });
    expect(task).toMatchObject({ name: "t", instances, apiVersion: plugin.PLUGIN_API_VERSION });
  });

  it("package.json publishes both entry points, and they are the ones built", async () => {
    const manifest = JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8")) as { exports: Record<string, unknown> };
    expect(manifest.exports).toEqual({
      ".": { types: "./dist/index.d.ts", import: "./dist/index.js" },
      "./plugin": { types: "./dist/plugin.d.ts", import: "./dist/plugin.js" },
      "./package.json": "./package.json",
    });
  });
});
