#!/usr/bin/env bash
# The main command of the README: installs dependencies, builds the release preset if needed, and
# runs the flowagent CLI with the given arguments. It also builds the C library
# (build/release/capi/libflowagent_c.so.0) that the README's offline Python install packages.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if [ ! -x build/release/src/flowagent ]; then
  scripts/install-deps.sh >&2
  cmake --preset release >&2
fi
cmake --build --preset release --target flowagent_cli flowagent_c >&2   # the CLI and the C library (Python package)
cd - >/dev/null
exec "$root/build/release/src/flowagent" "$@"
