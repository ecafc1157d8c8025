#!/usr/bin/env bash
# Runs the README's documented Python set-up exactly as a new user would, from the repository root:
#   scripts/flowagent.sh --version       (builds the release CLI and the C library)
#   FLOWAGENT_LIBRARY=build/release/capi/libflowagent_c.so.0 python3 -m pip install --no-index \
#     --no-build-isolation bindings/python
# into a fresh virtual environment, then imports the package from outside the tree and uses the
# library through it. CI runs it on a fresh clone.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
scripts/flowagent.sh --version
python3 -m venv "$work/venv"
# The README's command, with the virtual environment's python3 in place of the user's.
FLOWAGENT_LIBRARY=build/release/capi/libflowagent_c.so.0 "$work/venv/bin/python3" -m pip install --quiet \
  --no-index --no-build-isolation bindings/python
cd "$work"
env -u FLOWAGENT_LIBRARY "$work/venv/bin/python3" - <<'PY'
import os, flowagent
here = os.path.dirname(flowagent.__file__)
assert os.path.isfile(os.path.join(here, "libflowagent_c.so")), "the wheel holds no C library"
print("README python install: flowagent", flowagent.version(), "from", here)
PY
