// JSON parse and write throughput on a request-sized and a 1 MB document.
#include <benchmark/benchmark.h>

#include "flowagent/json.hpp"
#include "flowagent/request.hpp"

using namespace flowagent;

static std::string big_document(std::size_t bytes) {
  Json arr = Json::array();
  std::size_t size = 0;
  for (int i = 0; size < bytes; ++i) {
    Json o = Json::obj({{"name", "test_" + std::to_string(i)}, {"status", "failed"},
                        {"message", "Expected equality of these values:\n  compute(3)\n    Which is: 4\n  5"},
                        {"line", i}});
    size += 120;
    arr.push_back(std::move(o));
  }
  return *dump_json(arr);
}

static void BM_ParseJson1MB(benchmark::State& state) {
  const std::string doc = big_document(1 << 20);
  for (auto _ : state) benchmark::DoNotOptimize(parse_json(doc));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * doc.size()));
}
BENCHMARK(BM_ParseJson1MB);

static void BM_DumpJson1MB(benchmark::State& state) {
  const Json v = *parse_json(big_document(1 << 20));
  std::size_t n = 0;
  for (auto _ : state) {
    auto s = dump_json(v);
    n = s->size();
    benchmark::DoNotOptimize(s);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n));
}
BENCHMARK(BM_DumpJson1MB);

static void BM_ParseRequest(benchmark::State& state) {
  RepairRequest r;
  r.repository = "/src";
  r.change.id = "I1";
  r.change.revision = 2;
  r.change.base_commit = "a";
  r.change.head_commit = "b";
  r.change.description = "desc";
  r.change.files.push_back(ChangedFile{"a.cc", 3, 1, false});
  r.failure.failing_tests = {"A.B", "A.C"};
  const std::string doc = *dump_json(to_json(r));
  for (auto _ : state) benchmark::DoNotOptimize(parse_repair_request(doc));
}
BENCHMARK(BM_ParseRequest);

BENCHMARK_MAIN();
