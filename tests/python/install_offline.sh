#!/usr/bin/env bash
# The Python package installs offline (no index) with pip, carrying the built C library.
set -euo pipefail
lib="$(realpath "$1")"
target="$(mktemp -d)"
trap 'rm -rf "$target"' EXIT
FLOWAGENT_LIBRARY="$lib" python3 -m pip install --quiet --no-index --no-build-isolation --target "$target" \
  "$(dirname "$0")/../../bindings/python"
cd /
env -u FLOWAGENT_LIBRARY PYTHONPATH="$target" python3 -c \
  "import flowagent, os; assert flowagent.version() == '0.1.0'; print('installed offline:', os.path.dirname(flowagent.__file__))"
