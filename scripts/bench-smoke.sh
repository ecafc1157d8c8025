#!/usr/bin/env bash
# Runs every benchmark program briefly so none can rot: fails when a program exits non-zero or when
# any benchmark reports an error (Google Benchmark's SkipWithError still exits 0, so the JSON
# output is checked). Two programs run at a time (the numbers of a smoke run are not kept; only
# errors count). Usage: scripts/bench-smoke.sh [build-dir]   (default: build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/release}"
[ -f "$build/CMakeCache.txt" ] || cmake --preset release >/dev/null
mapfile -t names < <(ls bench/*_bench.cpp | xargs -n1 basename | sed 's/\.cpp$//')
cmake --build "$build" --target "${names[@]}" -j "$(nproc)"
export FLOWAGENT_BENCH_SMOKE=1   # fixed slow iteration counts and waiting-only variants shrink
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
# The JSON of one program: exit 1 when a benchmark reported an error or none ran.
check='
import json, sys
doc = json.load(open(sys.argv[1]))
bad = [(b["name"], b.get("error_message", "")) for b in doc.get("benchmarks", []) if b.get("error_occurred")]
for name, msg in bad:
    print(f"  {name}: {msg}", file=sys.stderr)
if not doc.get("benchmarks"):
    print("  no benchmark ran", file=sys.stderr)
    sys.exit(1)
sys.exit(1 if bad else 0)
'
export check
smoke_one() {  # build-dir out-dir name: one program; what went wrong goes to stderr
  local build="$1" out="$2" n="$3"
  echo "bench-smoke: $n"
  if ! "$build/bench/$n" --benchmark_min_time=0.01 --benchmark_format=console \
       --benchmark_out="$out/$n.json" --benchmark_out_format=json >"$out/$n.log" 2>&1; then
    echo "bench-smoke: $n exited non-zero:" >&2; tail -20 "$out/$n.log" >&2; return 1
  fi
  if ! python3 -c "$check" "$out/$n.json"
  then echo "bench-smoke: $n reported errors" >&2; return 1; fi
}
export -f smoke_one
# (xargs exits non-zero when any program failed; every program still runs.)
printf '%s\n' "${names[@]}" | xargs -P 2 -I{} bash -c 'smoke_one "$1" "$2" "$3"' _ "$build" "$out" {}
