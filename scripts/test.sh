#!/usr/bin/env bash
# The test command of the README: installs dependencies, builds the dev preset (warnings are
# errors) and runs every test (C++, C, Python). Usage: scripts/test.sh [preset]   (default: dev)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-dev}"
scripts/install-deps.sh
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$(nproc)"
ctest --preset "$preset"
