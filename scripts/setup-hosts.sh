#!/usr/bin/env bash
# Install the five real host CLIs (about 1.4 GB) at the versions docs/hosts.md lists, into
# test/hosts/node_modules, for hermit's host tests and `hermit verify`. Kept apart from
# hermit's own dependencies so a user's `npm ci` stays light.
set -euo pipefail
cd "$(dirname "$0")/../test/hosts"
# `npm install --no-save` rather than `npm ci`: the lockfile pins every package this
# platform installs, but the registry serves no tarball for some other platforms' optional
# binaries (opencode-darwin-*, …), so the lock cannot list them and `npm ci` would call it
# out of sync. `--no-save` installs exactly the locked versions and never rewrites the lock.
npm install --no-audit --no-fund --no-save
for bin in claude codex pi opencode gemini; do
  printf '%-9s %s\n' "$bin" "$(node_modules/.bin/$bin --version 2>&1 | tail -n 1)"
done
