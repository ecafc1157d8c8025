// Smoke mode for the benchmark programs: scripts/bench-smoke.sh (CI) sets FLOWAGENT_BENCH_SMOKE=1
// to check that every benchmark still runs without error, not to measure; benchmarks with a fixed,
// slow iteration count or slow arguments ask smoke_or() for a cheaper setting then.
#pragma once
#include <cstdlib>

namespace flowagent::bench {
inline bool smoke() { return std::getenv("FLOWAGENT_BENCH_SMOKE") != nullptr; }
template <class T>
T smoke_or(T in_smoke, T measured) { return smoke() ? in_smoke : measured; }
}  // namespace flowagent::bench
