#!/usr/bin/env bash
# The test command of the README: installs dependencies, builds the dev preset (warnings are
# errors) and runs every test (C++, C, Python). Usage: scripts/test.sh [preset]   (default: dev)
#
# With FLOWAGENT_NO_SKIP=1 (CI sets it) a test that skips, for example because a tool it needs is
# missing, is a failure: every test must really run on a machine that install-deps.sh prepared.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-dev}"
scripts/install-deps.sh
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$(nproc)"
# CTest starts the tests that took longest first when it knows their cost (-j 2: a long test left
# for the end runs alone). A fresh build tree has no cost data yet: seed it from a recorded run
# (tests/ctest-cost-data.txt, from an ASan run; refresh it by copying the file below after one).
cost="build/$preset/Testing/Temporary/CTestCostData.txt"
if [ ! -f "$cost" ]; then mkdir -p "$(dirname "$cost")" && cp tests/ctest-cost-data.txt "$cost"; fi
junit="build/$preset/ctest-junit.xml"
ctest --preset "$preset" --output-junit "$PWD/$junit"
if [ "${FLOWAGENT_NO_SKIP:-0}" = "1" ]; then
  scripts/check-no-skips.py "$junit"
fi
