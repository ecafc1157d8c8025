#!/usr/bin/env bash
# The main command of the README: installs dependencies, builds the release preset if needed, and
# runs the flowagent CLI with the given arguments.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if [ ! -x build/release/src/flowagent ]; then
  scripts/install-deps.sh >&2
  cmake --preset release >&2
fi
cmake --build --preset release --target flowagent_cli >&2
cd - >/dev/null
exec "$root/build/release/src/flowagent" "$@"
