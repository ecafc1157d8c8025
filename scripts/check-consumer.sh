#!/usr/bin/env bash
# Installs flowagent into a temporary prefix and builds tests/consumer (outside the tree) against it
# with find_package(flowagent), linking both flowagent::flowagent and flowagent::flowagent_c, then
# runs the consumer. Also checks the pkg-config file.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake -S . -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=23 \
  -DFLOWAGENT_BUILD_TESTS=OFF -DFLOWAGENT_BUILD_BENCH=OFF -DFLOWAGENT_BUILD_PYTHON=OFF \
  -DCMAKE_INSTALL_PREFIX="$work/prefix" >/dev/null
cmake --build "$work/build" -j "$(nproc)"
cmake --install "$work/build" >/dev/null
cp -r tests/consumer "$work/consumer"
cmake -S "$work/consumer" -B "$work/consumer-build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer-build"
"$work/consumer-build/consumer"
PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs flowagent
cc -std=c11 -Wall -Werror $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags flowagent) \
  tests/consumer/consumer_c.c -o "$work/consumer_c" \
  $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --libs flowagent) -Wl,-rpath,"$work/prefix/lib"
"$work/consumer_c"
echo "consumer: OK"
