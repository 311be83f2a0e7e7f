#!/usr/bin/env bash
# Install the five real host CLIs (about 1.4 GB) at the versions HOSTS.md records, into
# test/hosts/node_modules, for hermit's host tests and `hermit verify`. Kept apart from
# hermit's own dependencies so a user's `npm ci` stays light.
set -euo pipefail
cd "$(dirname "$0")/../test/hosts"
npm ci --no-audit --no-fund
for bin in claude codex pi opencode gemini; do
  printf '%-9s %s\n' "$bin" "$(node_modules/.bin/$bin --version 2>&1 | tail -n 1)"
done
