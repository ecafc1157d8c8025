// search_code against `git grep` and ripgrep on a large real tree: a git repository made from a
// copy of the Boost 1.81 headers (/usr/include/boost: ~15k files, ~150 MB). All three honour
// .gitignore and skip .git; each run is a cold process for git grep / rg, warm page cache for all.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>

#include "flowagent/builtin_tools.hpp"
#include "flowagent/process.hpp"

using namespace flowagent;
namespace fs = std::filesystem;

namespace {

fs::path corpus() {
  static fs::path p = [] {
    fs::path dir = fs::temp_directory_path() / "flowagent-bench-boost";
    if (!fs::exists(dir / ".git")) {
      fs::create_directories(dir);
      std::string cmd = "cp -r /usr/include/boost '" + dir.string() + "/' && cd '" + dir.string() +
                        "' && git init -q && git add -A && git -c user.name=b -c user.email=b@x commit -qm corpus";
      if (std::system(cmd.c_str()) != 0) std::abort();
    }
    return dir;
  }();
  return p;
}

const char* kPattern = "async_[a-z_]+\\(";

void run_cmd(benchmark::State& state, std::vector<std::string> argv) {
  (void)corpus();  // built once, outside the timed loop
  for (auto _ : state) {
    ProcessOptions o;
    o.argv = argv;
    o.cwd = corpus();
    o.output_cap = 1 << 20;
    auto r = run_process(o);
    if (!r || (r->exit_code != 0 && r->exit_code != 1)) state.SkipWithError("command failed");
    benchmark::DoNotOptimize(r);
  }
}

}  // namespace

static void BM_SearchCode(benchmark::State& state) {
  SearchOptions o;
  o.pattern = kPattern;
  o.max_results = 1000000;
  o.threads = static_cast<int>(state.range(0));
  std::size_t hits = 0;
  const fs::path root = corpus();  // built once, outside the timed loop
  for (auto _ : state) {
    auto r = search_code(root, o);
    if (!r) state.SkipWithError(r.error().message.c_str());
    else hits = r->size();
  }
  state.counters["hits"] = static_cast<double>(hits);
}
BENCHMARK(BM_SearchCode)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

static void BM_GitGrep(benchmark::State& state) {
  run_cmd(state, {"git", "grep", "-n", "-E", "-I", "--untracked", kPattern});
}
BENCHMARK(BM_GitGrep)->Unit(benchmark::kMillisecond)->UseRealTime();

static void BM_Ripgrep(benchmark::State& state) { run_cmd(state, {"rg", "-n", "--no-heading", kPattern}); }
BENCHMARK(BM_Ripgrep)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
