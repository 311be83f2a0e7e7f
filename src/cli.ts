#!/usr/bin/env node
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  // The version needs nothing else: answered before the command parser and the commands load.
  const { hermitVersion } = await import("./package-root.js");
  process.stdout.write(`${hermitVersion}\n`);
} else {
  const { main } = await import("./cli/program.js");
  await main(process.argv);
}
