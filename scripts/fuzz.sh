#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14 and runs each for N seconds (default 60), two at a time.
# usage: scripts/fuzz.sh [SECONDS] | scripts/fuzz.sh --build-only
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"
if [ ! -d tests/fuzz ]; then echo "fuzz: no targets yet"; exit 0; fi
cmake -S tests/fuzz -B build/fuzz -G Ninja -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build/fuzz -j "$(nproc)"
[ "$secs" = "--build-only" ] && exit 0
run_one() {  # target seconds: one fuzzer; its log is printed when it fails
  local f="$1" secs="$2" name corpus
  name="$(basename "$f")"
  corpus="tests/fuzz/corpus/${name#fuzz_}"
  mkdir -p "build/fuzz/work/$name"
  if ! "$f" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 -print_final_stats=0 \
      "build/fuzz/work/$name" $( [ -d "$corpus" ] && echo "$corpus" ) > "build/fuzz/$name.log" 2>&1; then
    tail -60 "build/fuzz/$name.log"
    echo "fuzz: $name FAILED (crash input in $(pwd))"
    return 1
  fi
  echo "fuzz: $name ${secs}s: $(grep -E "^Done [0-9]+ runs" "build/fuzz/$name.log" || echo done)"
}
export -f run_one
ls build/fuzz/fuzz_* | while read -r f; do [ -x "$f" ] && echo "$f"; done |
  xargs -r -P 2 -I{} bash -c 'run_one "$1" "$2"' _ {} "$secs"
