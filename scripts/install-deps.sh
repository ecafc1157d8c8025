#!/usr/bin/env bash
# Installs everything flowagent needs to build, test, benchmark and run its demo and CI on a fresh
# Debian 12 machine. Idempotent: packages already present are skipped.
#
# The DEPS table below is the single source of the README's dependency table:
#   scripts/install-deps.sh --table          print the README table (markdown)
#   scripts/install-deps.sh --check-readme   exit 1 when README.md's table differs (a ctest test runs it)
#   scripts/install-deps.sh --write-readme   rewrite README.md's table from DEPS
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

# "debian packages (space separated) | why flowagent needs them"
DEPS=(
  "build-essential cmake ninja-build pkg-config git lld | build (lld: links the test binaries several times faster than GNU ld), tests, workspaces (git worktrees and diffs)"
  "libboost1.81-dev libboost-filesystem1.81-dev | Asio and Beast for the model HTTP clients (1.81: cancellation slots, Process v2); Boost.Regex (header-only) for the guard's and the validation's patterns: several times faster than std::regex and no recursion per character"
  "libabsl-dev | string utilities, str_format, flat_hash_map"
  "libsimdjson-dev | fast, validating JSON parser (requests, tool arguments, JSON reports)"
  "libre2-dev | search_code's regex engine: linear time, safe on model-written patterns"
  "libpugixml-dev | JUnit/GoogleTest/Surefire XML reports"
  "libssl-dev ca-certificates openssl | HTTPS to model endpoints with verification; the TLS tests make a test CA"
  "curl | the model-client benchmark's reference client"
  "libgtest-dev libgmock-dev | C++ tests"
  "libbenchmark-dev | bench/"
  "ripgrep | the search benchmark's comparison"
  "clang-14 libclang-rt-14-dev | libFuzzer targets for the report parsers"
  "libtree-sitter-dev nodejs | syntax trees for the test-integrity guard (grammars' C sources from npm, pinned; nodejs brings npm)"
  "bubblewrap | the sandbox every untrusted command (build, tests, probes) runs in (docs/SECURITY.md)"
  "util-linux passwd | setpriv and useradd: scripts/attack-suite.sh also runs the attack suite as an unprivileged user"
  "python3 python3-pytest python3-pytest-subtests | end-to-end tests and the demo repair real pytest projects (pytest-subtests: its summary line is cross-checked)"
  "python3-pip python3-venv | the README's offline install of the Python package (checked in CI)"
  "golang-go | end-to-end tests repair Go projects"
  "openjdk-17-jdk-headless | end-to-end tests repair Java projects"
  "python3-coverage | fault localization: per-test coverage of Python tests (coverage.py contexts); its tests"
  "libjacoco-java junit5 | fault localization of Java: the JaCoCo agent and core (0.8.6) for per-test coverage; the JUnit console launcher its end-to-end test runs"
  "libfaiss-dev | retrieval: exact search of large embedding indexes (faiss flat inner-product index; optional, FLOWAGENT_WITH_FAISS)"
  "libhiredis-dev redis-server | flowagentd's Redis Streams queue (hiredis client); the queue tests start their own redis-server"
  "chromium | flowagentd's review page test: headless chromium driven by puppeteer-core (tests/page/)"
  "prometheus | a real Prometheus scrapes flowagentd's /metrics in a test (the funnel it stores matches the jobs run)"
  "abigail-tools | the C ABI check: abidiff of libflowagent_c against the committed baseline (capi/abi/, tests/check_abi.sh)"
)

trim() { local s="$1"; s="${s#"${s%%[![:space:]]*}"}"; echo "${s%"${s##*[![:space:]]}"}"; }
packages() { local row; for row in "${DEPS[@]}"; do echo "${row%%|*}"; done | tr -s ' ' '\n' | sed '/^$/d'; }

table() {
  echo "| package | why |"
  echo "|---|---|"
  local row pk why
  for row in "${DEPS[@]}"; do
    pk="$(trim "${row%%|*}")"; why="$(trim "${row#*|}")"
    echo "| ${pk// /, } | $why |"
  done
}

readme_table() { sed -n '/<!-- deps:begin/,/<!-- deps:end/p' "$root/README.md" | sed '1d;$d'; }

case "${1:-}" in
  --table) table; exit 0 ;;
  --check-readme)
    if ! diff -u <(readme_table) <(table); then
      echo "install-deps: README.md's dependency table differs from scripts/install-deps.sh (run --write-readme)" >&2
      exit 1
    fi
    echo "install-deps: README table matches"; exit 0 ;;
  --write-readme)
    tmp="$(mktemp)"
    awk -v t="$(table)" '/<!-- deps:begin/{print; print t; skip=1; next} /<!-- deps:end/{skip=0} !skip' \
      "$root/README.md" > "$tmp" && mv "$tmp" "$root/README.md"
    exit 0 ;;
  "") ;;
  *) echo "usage: $0 [--table|--check-readme|--write-readme]" >&2; exit 3 ;;
esac

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
missing=()
for p in $(packages); do
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
grammars="$root/third_party/tree-sitter-grammars"
if [ ! -f "$grammars/node_modules/.package-lock.json" ] || [ "$grammars/package-lock.json" -nt "$grammars/node_modules/.package-lock.json" ]; then
  echo "install-deps: fetching tree-sitter grammars with npm"
  (cd "$grammars" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
fi

# JavaScript test runners for the end-to-end tests: tape (tape-style TAP output), jest and vitest
# (versions pinned by each folder's package-lock.json; the tests skip when one is absent). vitest's
# folder also pins @vitest/coverage-v8 (same version as vitest): the validator's runtime assertion
# evidence for vitest projects loads it beside the runner (src/validate/assertion_evidence.cpp).
# puppeteer-core for the review page's browser test (tests/page/; drives Debian's chromium, downloads
# no browser: --ignore-scripts).
page="$root/tests/page"
if [ ! -f "$page/node_modules/.package-lock.json" ] || [ "$page/package-lock.json" -nt "$page/node_modules/.package-lock.json" ]; then
  echo "install-deps: fetching puppeteer-core with npm"
  (cd "$page" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
fi

for runner in tape jest vitest; do
  dir="$root/third_party/$runner"
  if [ ! -f "$dir/node_modules/.package-lock.json" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    echo "install-deps: fetching $runner with npm"
    (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  fi
done
