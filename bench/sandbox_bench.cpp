// The sandbox's start-up cost per command: the same trivial command through run_process
// (unsandboxed, flowagent's own git path) and through run_sandboxed (bubblewrap with every
// namespace, the mounts, the growth watchdog and, as root, a pids cgroup). The difference is what
// each build or test command pays for isolation (target: under 20 ms). The probe runs once per
// process and is done before timing.
#include "bench_smoke.hpp"
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>

#include "flowagent/process.hpp"
#include "flowagent/sandbox.hpp"

using namespace flowagent;
namespace fs = std::filesystem;

namespace {

/// A small workspace (a few hundred files, like a test fixture repository) under $TMPDIR.
const fs::path& workspace() {
  static fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / "flowagent-bench-sandbox";
    fs::create_directories(d / "src");
    for (int i = 0; i < 300; ++i) {
      auto f = d / "src" / ("f" + std::to_string(i) + ".txt");
      if (!fs::exists(f) && std::system(("echo data > '" + f.string() + "'").c_str()) != 0) std::abort();
    }
    return d;
  }();
  return dir;
}

}  // namespace

static void BM_Unsandboxed(benchmark::State& state) {
  for (auto _ : state) {
    ProcessOptions o;
    o.argv = {"/bin/sh", "-c", "true"};
    o.cwd = workspace();
    auto r = run_process(o);
    if (!r || r->exit_code != 0) state.SkipWithError("command failed");
  }
}
// Real time: the work happens in child processes, so the parent's CPU time would never reach
// MinTime (it ran about 1,200 iterations for "2 s").
BENCHMARK(BM_Unsandboxed)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(flowagent::bench::smoke_or(0.05, 2.0));

static void BM_Sandboxed(benchmark::State& state) {
  SandboxOptions opt;
  opt.max_workspace_growth = state.range(0) ? opt.max_workspace_growth : 0;
  if (auto ok = probe_sandbox(opt); !ok) {
    state.SkipWithError(ok.error().message.c_str());
    return;
  }
  for (auto _ : state) {
    SandboxCommand c;
    c.argv = {"/bin/sh", "-c", "true"};
    c.workspace = workspace();
    auto r = run_sandboxed(c, opt);
    if (!r || r->exit_code != 0 || !r->sandboxed) state.SkipWithError("sandboxed command failed");
  }
}
// Arg 1: with the workspace growth watchdog (default), 0: without it.
BENCHMARK(BM_Sandboxed)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(flowagent::bench::smoke_or(0.05, 2.0));
BENCHMARK_MAIN();
