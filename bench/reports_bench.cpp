// Report parsing throughput: a >= 100 MB GoogleTest text log streamed from a file, a large JUnit XML
// document and a large `go test -json` stream. Reports bytes/s; peak RSS is printed as a counter.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "flowagent/reports.hpp"

using namespace flowagent::reports;
namespace fs = std::filesystem;

namespace {

fs::path make_text_log(std::size_t bytes) {
  fs::path p = fs::temp_directory_path() / ("flowagent-bench-" + std::to_string(bytes) + ".log");
  if (fs::exists(p) && fs::file_size(p) >= bytes) return p;
  std::ofstream f(p);
  std::size_t written = 0;
  for (int i = 0; written < bytes; ++i) {
    std::string block = "[ RUN      ] Suite" + std::to_string(i % 97) + ".Test" + std::to_string(i) + "\n";
    if (i % 1000 == 7) {
      block += "src/suite.cc:" + std::to_string(i % 500) + ": Failure\nExpected equality of these values:\n  compute(" +
               std::to_string(i) + ")\n    Which is: 4\n  5\n[  FAILED  ] Suite.Test" + std::to_string(i) + " (3 ms)\n";
    } else {
      block += "some log output from the code under test, line of moderate length " + std::to_string(i) +
               "\n\x1b[32m[       OK ] \x1b[0mSuite" + std::to_string(i % 97) + ".Test" + std::to_string(i) + " (0 ms)\n";
    }
    f << block;
    written += block.size();
  }
  return p;
}

std::string make_junit(std::size_t cases) {
  std::string x = "<?xml version=\"1.0\"?>\n<testsuites><testsuite name=\"S\">\n";
  for (std::size_t i = 0; i < cases; ++i) {
    x += "<testcase name=\"t" + std::to_string(i) + "\" classname=\"pkg.Suite\" time=\"0.01\"";
    if (i % 100 == 0)
      x += "><failure message=\"expected:&lt;1&gt; but was:&lt;2&gt;\">java.lang.AssertionError: expected:&lt;1&gt; but "
           "was:&lt;2&gt;\n\tat pkg.Suite.t(Suite.java:10)</failure></testcase>\n";
    else
      x += "/>\n";
  }
  return x + "</testsuite></testsuites>\n";
}

long peak_rss_kb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

}  // namespace

static void BM_TextLog100MB_Stream(benchmark::State& state) {
  const auto p = make_text_log(100u << 20);
  const auto size = fs::file_size(p);
  long before = peak_rss_kb();
  for (auto _ : state) {
    auto r = parse_report_file(p);
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * size));
  state.counters["peak_rss_growth_MB"] = static_cast<double>(peak_rss_kb() - before) / 1024.0;
}
BENCHMARK(BM_TextLog100MB_Stream)->Unit(benchmark::kMillisecond)->Iterations(3);

static void BM_JunitXml(benchmark::State& state) {
  const std::string x = make_junit(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(parse_report(x));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * x.size()));
}
BENCHMARK(BM_JunitXml)->Arg(100000)->Unit(benchmark::kMillisecond);

static void BM_GoJson(benchmark::State& state) {
  std::string j;
  for (int i = 0; i < 200000; ++i)
    j += "{\"Action\":\"output\",\"Package\":\"p\",\"Test\":\"TestX" + std::to_string(i % 1000) +
         "\",\"Output\":\"    x_test.go:12: got 1 want 2\\n\"}\n";
  for (auto _ : state) benchmark::DoNotOptimize(parse_report(j));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * j.size()));
}
BENCHMARK(BM_GoJson)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
