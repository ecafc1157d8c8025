#!/usr/bin/env bash
# Installs everything flowagent needs to build, test and benchmark on a fresh Debian 12 machine.
# Idempotent: packages already present are skipped by apt. Reasons for each package: README.md.
set -euo pipefail
PKGS=(
  build-essential cmake ninja-build pkg-config git python3
  libboost1.81-dev libboost-filesystem1.81-dev   # Asio, Beast, Process v2 (1.81: cancellation slots)
  libabsl-dev                                    # strings, str_format, flat_hash_map
  libsimdjson-dev                                # JSON parsing
  libre2-dev                                     # search_code regex engine (linear time, no backtracking)
  libpugixml-dev                                 # JUnit / GoogleTest XML reports
  libssl-dev ca-certificates openssl curl       # HTTPS to model endpoints; test PKI; curl for the client benchmark
  libgtest-dev libgmock-dev                      # C++ tests
  libbenchmark-dev                               # bench/
  ripgrep                                        # search_code comparison benchmark
  clang-14 libclang-rt-14-dev                    # libFuzzer targets for the parsers
  libtree-sitter-dev                             # syntax trees for the test-integrity guard
)
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all packages present"
fi

# Generated C sources of the tree-sitter grammars (npm registry; versions pinned by package-lock.json).
grammars="$(cd "$(dirname "$0")/.." && pwd)/third_party/tree-sitter-grammars"
if [ ! -f "$grammars/node_modules/.package-lock.json" ] || [ "$grammars/package-lock.json" -nt "$grammars/node_modules/.package-lock.json" ]; then
  echo "install-deps: fetching tree-sitter grammars with npm"
  (cd "$grammars" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
fi

# The tape test harness for the end-to-end tests of tape-style TAP output (versions pinned by
# package-lock.json; the tests skip when it is absent).
tape_dir="$(cd "$(dirname "$0")/.." && pwd)/third_party/tape"
if [ ! -f "$tape_dir/node_modules/.package-lock.json" ] || [ "$tape_dir/package-lock.json" -nt "$tape_dir/node_modules/.package-lock.json" ]; then
  echo "install-deps: fetching tape with npm"
  (cd "$tape_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
fi
