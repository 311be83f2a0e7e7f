#!/usr/bin/env node
const args = process.argv.slice(2);

/**
 * Commands that are one short run over many small inputs (a deploy reads and writes hundreds
 * of files, then exits): V8's optimizing compiler spent more CPU compiling their code on
 * background threads than the optimized code saved before the process ended (a cold deploy
 * of 200 skills: about 12% of its CPU). For them a function is optimized only after 15 times
 * the usual work (V8's interrupt budget), so only really hot code is. Long runs (serve,
 * train, worker) keep V8's defaults.
 */
const SHORT_RUNS = new Set(["deploy", "status", "undeploy", "convert"]);

if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  // The version needs nothing else: answered before the command parser and the commands load.
  const { hermitVersion } = await import("./package-root.js");
  process.stdout.write(`${hermitVersion}\n`);
} else {
  const command = args.find((arg) => !arg.startsWith("-"));
  // Before any command code is loaded, so none of it is queued for optimizing.
  if (command !== undefined && SHORT_RUNS.has(command)) (await import("node:v8")).setFlagsFromString("--interrupt-budget=1000000");
  const { main } = await import("./cli/program.js");
  await main(process.argv);
}
