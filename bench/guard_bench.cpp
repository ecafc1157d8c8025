// The integrity guard on large test files: one check changed in a file of N tests (the shape of
// JSON-java's JSONObjectTest, ~400 tests, or a big pytest module). The guard's cost must grow with
// the file, not with tests x lines: a per-test scan of the whole file once made a 12-line patch to
// JSON-java take 150 s (docs/BENCHMARKS.md, "The integrity guard on large test files").
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench_smoke.hpp"
#include "flowagent/integrity.hpp"

namespace {

using flowagent::FileVersions;

std::string java_tests(int n, bool changed) {
  std::string s = "package calc;\n\nimport static org.junit.jupiter.api.Assertions.*;\nimport org.junit.jupiter.api.Test;\n\n"
                  "class CalcTest {\n";
  for (int i = 0; i < n; ++i) {
    const int want = i == n / 2 && changed ? i + 1 : i;
    s += "    @Test\n    void adds" + std::to_string(i) + "() {\n        assertEquals(" + std::to_string(want) +
         ", Calc.add(" + std::to_string(i) + ", 0));\n        assertTrue(Calc.add(1, 1) > 0);\n    }\n\n";
  }
  return s + "}\n";
}

std::string python_tests(int n, bool changed) {
  std::string s = "import pytest\n\nfrom calc import add\n\n\n";
  for (int i = 0; i < n; ++i) {
    const int want = i == n / 2 && changed ? i + 1 : i;
    s += "def test_add_" + std::to_string(i) + "(tmp_path):\n    assert add(" + std::to_string(i) + ", 0) == " +
         std::to_string(want) + "\n    assert add(1, 1) > 0\n\n\n";
  }
  return s;
}

template <std::string (*Make)(int, bool)>
void BM_GuardLargeTestFile(benchmark::State& state, const char* path) {
  const int n = static_cast<int>(state.range(0));
  const std::vector<FileVersions> files{{path, Make(n, false), Make(n, true)}};
  flowagent::IntegrityOptions options;
  for (auto _ : state) {
    auto findings = flowagent::check_test_integrity(files, options);
    benchmark::DoNotOptimize(findings);
  }
  state.counters["tests"] = n;
  state.SetComplexityN(n);
}

void BM_GuardJavaTestFile(benchmark::State& state) { BM_GuardLargeTestFile<java_tests>(state, "src/test/java/calc/CalcTest.java"); }
void BM_GuardPythonTestFile(benchmark::State& state) { BM_GuardLargeTestFile<python_tests>(state, "tests/test_calc.py"); }

// A developer's test file holding one long list literal (test data on one line), and a patch that
// changes another test's check. tree-sitter reaches a node's i-th child in O(i); the guard's walks
// by index made this O(elements^2): 1 MB took 15-30 s, 3 MB 195 s (review 57, F3). Through the
// cached navigation of src/integrity/ts_nav.hpp it grows linearly.
std::string python_long_literal(int elements, bool changed) {
  std::string s = "from calc import add\n\nDATA = [";
  for (int i = 0; i < elements; ++i) s += i ? ",1" : "1";
  s += "]\n\n\ndef test_data():\n    assert len(DATA) > 0\n\n\ndef test_add():\n    assert add(1, 1) == ";
  return s + (changed ? "3\n" : "2\n");
}

void BM_GuardLongLiteralLine(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const std::vector<FileVersions> files{{"tests/test_data.py", python_long_literal(n, false), python_long_literal(n, true)}};
  flowagent::IntegrityOptions options;
  for (auto _ : state) {
    auto findings = flowagent::check_test_integrity(files, options);
    benchmark::DoNotOptimize(findings);
  }
  state.counters["bytes"] = static_cast<double>(files[0].after->size());
  state.SetComplexityN(n);
}

const int kMax = flowagent::bench::smoke_or(50, 800);
const int kMaxElements = flowagent::bench::smoke_or(4096, 1 << 19);
BENCHMARK(BM_GuardLongLiteralLine)->RangeMultiplier(8)->Range(4096, kMaxElements)->Unit(benchmark::kMillisecond)->UseRealTime()->Complexity();
BENCHMARK(BM_GuardJavaTestFile)->RangeMultiplier(4)->Range(50, kMax)->Unit(benchmark::kMillisecond)->Complexity();
BENCHMARK(BM_GuardPythonTestFile)->RangeMultiplier(4)->Range(50, kMax)->Unit(benchmark::kMillisecond)->Complexity();

}  // namespace

BENCHMARK_MAIN();
