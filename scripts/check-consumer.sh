#!/usr/bin/env bash
# Installs flowagent into a temporary prefix and builds tests/consumer (outside the tree) against it
# with find_package(flowagent), linking both flowagent::flowagent and flowagent::flowagent_c, then
# runs the consumer; also compiles a C program with pkg-config. Reuses the release preset's build
# (the demo made it) instead of building the library again.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
[ -f build/release/CMakeCache.txt ] || cmake --preset release >/dev/null
cmake --build --preset release --target flowagent flowagent_c flowagent_cli flowagentd flowagent_grammars -j "$(nproc)"
cmake --install build/release --prefix "$work/prefix" >/dev/null
cp -r tests/consumer "$work/consumer"
cmake -S "$work/consumer" -B "$work/consumer-build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer-build"
"$work/consumer-build/consumer"
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
pkg-config --cflags --libs flowagent
cc -std=c11 -Wall -Werror $(pkg-config --cflags flowagent) tests/consumer/consumer_c.c -o "$work/consumer_c" \
  $(pkg-config --libs flowagent) -Wl,-rpath,"$work/prefix/lib"
"$work/consumer_c"
echo "consumer: OK"
