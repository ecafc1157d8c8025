#!/usr/bin/env bash
# Runs every benchmark program briefly so none can rot: fails when a program exits non-zero or when
# any benchmark reports an error (Google Benchmark's SkipWithError still exits 0, so the JSON
# output is checked). Usage: scripts/bench-smoke.sh [build-dir]   (default: build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/release}"
[ -f "$build/CMakeCache.txt" ] || cmake --preset release >/dev/null
mapfile -t names < <(ls bench/*_bench.cpp | xargs -n1 basename | sed 's/\.cpp$//')
cmake --build "$build" --target "${names[@]}" -j "$(nproc)"
export FLOWAGENT_BENCH_SMOKE=1   # fixed slow iteration counts and waiting-only variants shrink
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
failed=0
for n in "${names[@]}"; do
  echo "bench-smoke: $n"
  if ! "$build/bench/$n" --benchmark_min_time=0.01 --benchmark_format=console \
       --benchmark_out="$out/$n.json" --benchmark_out_format=json >"$out/$n.log" 2>&1; then
    echo "bench-smoke: $n exited non-zero:" >&2; tail -20 "$out/$n.log" >&2; failed=1; continue
  fi
  if ! python3 - "$out/$n.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
bad = [(b["name"], b.get("error_message", "")) for b in doc.get("benchmarks", []) if b.get("error_occurred")]
for name, msg in bad:
    print(f"  {name}: {msg}", file=sys.stderr)
if not doc.get("benchmarks"):
    print("  no benchmark ran", file=sys.stderr)
    sys.exit(1)
sys.exit(1 if bad else 0)
PY
  then echo "bench-smoke: $n reported errors" >&2; failed=1; fi
done
exit "$failed"
