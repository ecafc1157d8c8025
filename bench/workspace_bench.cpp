// Cold worktree checkout against warm-pool reuse, on the Boost-headers repository of search_bench
// (~15k files), alternating between two commits so the warm path really moves the tree.
#include "bench_smoke.hpp"
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>

#include "flowagent/git_workspace.hpp"
#include "workspace/git.hpp"

using namespace flowagent;
namespace fs = std::filesystem;

namespace {

struct Corpus {
  fs::path repo;
  std::string c1, c2;
};

const Corpus& corpus() {
  static Corpus c = [] {
    Corpus k;
    k.repo = fs::temp_directory_path() / "flowagent-bench-boost";
    if (!fs::exists(k.repo / ".git")) {
      fs::create_directories(k.repo);
      std::string cmd = "cp -r /usr/include/boost '" + k.repo.string() + "/' && cd '" + k.repo.string() +
                        "' && git init -q && git add -A && git -c user.name=b -c user.email=b@x commit -qm corpus";
      if (std::system(cmd.c_str()) != 0) std::abort();
    }
    std::string cmd = "cd '" + k.repo.string() + "' && (git rev-parse -q --verify HEAD~1 >/dev/null || (echo x >> boost/version.hpp && "
                      "git -c user.name=b -c user.email=b@x commit -qam second))";
    if (std::system(cmd.c_str()) != 0) std::abort();
    k.c1 = detail::chomp(*detail::git(k.repo, {"rev-parse", "HEAD~1"}));
    k.c2 = detail::chomp(*detail::git(k.repo, {"rev-parse", "HEAD"}));
    return k;
  }();
  return c;
}

RepairRequest request(const std::string& commit) {
  RepairRequest r;
  r.repository = corpus().repo.string();
  r.change.head_commit = commit;
  return r;
}

}  // namespace

static void BM_ColdCheckout(benchmark::State& state) {
  const auto& c = corpus();
  for (auto _ : state) {
    GitWorkspaceOptions o;
    o.root = fs::temp_directory_path() / "flowagent-bench-pool-cold";
    o.pool_per_repo = 0;  // no reuse: every acquire is a fresh worktree
    auto p = make_git_workspace_provider(o);
    auto ws = p->acquire(request(c.c2), CancelToken());
    if (!ws) state.SkipWithError(ws.error().message.c_str());
  }
}
BENCHMARK(BM_ColdCheckout)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(flowagent::bench::smoke_or(1, 5));

static void BM_WarmReuse(benchmark::State& state) {
  const auto& c = corpus();
  GitWorkspaceOptions o;
  o.root = fs::temp_directory_path() / "flowagent-bench-pool-warm";
  auto p = make_git_workspace_provider(o);
  { auto first = p->acquire(request(c.c1), CancelToken()); }
  bool flip = false;
  for (auto _ : state) {
    auto ws = p->acquire(request(flip ? c.c1 : c.c2), CancelToken());
    flip = !flip;
    if (!ws) state.SkipWithError(ws.error().message.c_str());
  }
}
BENCHMARK(BM_WarmReuse)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(flowagent::bench::smoke_or(1, 10));

BENCHMARK_MAIN();
