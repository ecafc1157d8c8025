// Orchestration overhead: a repair driven by a zero-latency in-process model whose tool calls hit a
// trivial tool, so what is measured is flowagent's own work per call and per repair (workspace
// from the warm pool, prompt building, schema checks, repeat detection, the real post-filters on a
// real patch, events). The repository is a real git repository made in a temp dir; the first tool
// call edits a production file so that each repair ends with a real one-line fix. Also: tokens in the initial
// prompt against a prompt holding the whole log.
#include "bench_smoke.hpp"
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <utility>
#include <fstream>

#include "flowagent/flowagent.hpp"
#include "flowagent/repair.hpp"
#include "support/test_support.hpp"

using namespace flowagent;

namespace {

constexpr const char* kAdd = "def add(a, b):\n    return a + b\n";
constexpr const char* kTotalBug = "\n\ndef total(xs):\n    t = 0\n    for x in xs:\n        t -= x\n    return t\n";
constexpr const char* kTotalFixed = "\n\ndef total(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n";

/// The fix a tool call makes: a real edit in the workspace, so post-filters judge a real patch.
void write_fix(ToolContext& ctx) {
  std::ofstream f(ctx.workspace.root() / "calc.py", std::ios::trunc);
  f << kAdd << kTotalFixed;
}

class NoopTool final : public Tool {
 public:
  std::string_view name() const override { return "noop"; }
  std::string_view description() const override { return "Does nothing."; }
  const Json& parameters() const override { return schema_; }
  Expected<ToolOutput> invoke(const Json& args, ToolContext& ctx) override {
    const auto i = args.get_int("i");
    if (i == 0) write_fix(ctx);
    return ToolOutput{true, "ok " + std::to_string(i)};
  }

 private:
  Json schema_ = *parse_json(R"({"type":"object","properties":{"i":{"type":"integer"}},"required":["i"]})");
};

/// Answers with `calls` calls of `tool` (distinct arguments) and then "done". With `report_sent`,
/// the input tokens it reports are what it was sent (chars/4 of the messages), as a provider would,
/// and each call's figure is kept for take().
class InstantModel final : public LlmClient {
 public:
  explicit InstantModel(int calls, std::string tool = "noop", bool report_sent = false)
      : calls_(calls), tool_(std::move(tool)), report_sent_(report_sent) {}
  std::string_view name() const override { return "instant"; }
  Expected<ChatResponse> complete(const ChatRequest& req, const CancelToken&) override {
    int made = 0;
    std::size_t chars = 0;
    for (const auto& m : req.messages) {
      made += static_cast<int>(m.tool_calls.size());
      chars += m.content.size() + 16;
      for (const auto& c : m.tool_calls) chars += c.raw_arguments.size() + c.name.size() + 16;
    }
    ChatResponse r;
    r.message.role = Role::assistant;
    r.usage = {report_sent_ ? static_cast<std::int64_t>(chars / 4) : 100, 10, 0};
    if (report_sent_) {
      std::lock_guard lock(mu_);
      per_call_.push_back(r.usage.input_tokens);
    }
    if (made < calls_) {
      ToolCall c;
      c.id = "c" + std::to_string(made);
      c.name = tool_;
      c.raw_arguments = "{\"i\":" + std::to_string(made) + "}";
      c.arguments = Json::obj({{"i", made}});
      r.message.tool_calls.push_back(std::move(c));
      r.stop = StopReason::tool_use;
    } else {
      r.message.content = "done";
    }
    return r;
  }
  std::vector<std::int64_t> take() {
    std::lock_guard lock(mu_);
    return std::exchange(per_call_, {});
  }

 private:
  int calls_;
  std::string tool_;
  bool report_sent_;
  std::mutex mu_;
  std::vector<std::int64_t> per_call_;
};

class PassValidator final : public Validator {
 public:
  std::string_view name() const override { return "pass"; }
  Expected<ValidationReport> validate(RepairContext&) override {
    ValidationReport r;
    r.passed = true;
    return r;
  }
};

/// A real git repository whose head commit broke `add`, and a request for it.
struct BenchRepo {
  testkit::TempDir dir;
  RepairRequest request;
  BenchRepo() {
    const auto repo = dir.path() / "repo";
    const auto base = testkit::make_repo(repo, {{"calc.py", "def add(a, b):\n    return a + b\n"},
                                                {"test_calc.py", "from calc import add\n\ndef test_add():\n    assert add(2, 2) == 4\n"}});
    // The change adds total() with a bug; the fix corrects one of its lines (not a revert).
    const auto head = testkit::commit_files(repo, {{"calc.py", std::string(kAdd) + kTotalBug}}, "Add total");
    request = testkit::sample_request(repo.string());
    request.change.base_commit = base;
    request.change.head_commit = head;
    request.change.files = {{"calc.py", 6, 0, false}};
    request.failure.failing_tests = {"test_calc.py::test_add"};
    request.commands.test = "true {tests}";
  }
};

void run_repairs(benchmark::State& state, int calls) {
  BenchRepo repo;
  AgentOptions o;  // default (git) workspace provider and post-filters
  o.tools = std::make_shared<ToolRegistry>();
  (void)o.tools->add(std::make_shared<NoopTool>());
  o.llm = std::make_shared<InstantModel>(calls);
  o.strategies = {make_react_strategy()};  // the loop alone: the zero-token tier would run tests
  o.validator = std::make_shared<PassValidator>();
  o.summarizer = make_template_summarizer();
  auto agent = std::move(*Agent::create(o));
  auto req = repo.request;
  req.limits.max_tool_calls = calls + 1;
  for (auto _ : state) {
    auto r = agent->run(req);
    if (r.status != Status::fixed) state.SkipWithError(r.message.c_str());
  }
  state.counters["per_tool_call_us"] = benchmark::Counter(
      static_cast<double>(calls), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

}  // namespace

static void BM_RepairWithToolCalls(benchmark::State& state) { run_repairs(state, static_cast<int>(state.range(0))); }
BENCHMARK(BM_RepairWithToolCalls)->Arg(1)->Arg(10)->Arg(100)->Unit(benchmark::kMillisecond);

static void BM_InitialPromptTokens(benchmark::State& state) {
  // A 40 MB GoogleTest log with one failure among 200k passing tests, as CI would keep it.
  testkit::TempDir d;
  const auto log = d.path() / "ci.log";
  {
    std::ofstream f(log);
    for (int i = 0; i < 200000; ++i)
      f << "[ RUN      ] Suite.T" << i << "\nsome output of the test under run, moderately long, line " << i
        << "\n[       OK ] Suite.T" << i << " (0 ms)\n";
    f << "[ RUN      ] Suite.Bad\nsrc/x.cc:12: Failure\nExpected equality of these values:\n  f()\n    Which is: 4\n  5\n"
         "[  FAILED  ] Suite.Bad (0 ms)\n";
  }
  auto req = testkit::sample_request(d.path().string());
  req.change.base_commit.clear();
  req.failure.failing_tests = {"Suite.Bad"};
  req.failure.logs = {log.string()};
  std::int64_t tokens = 0;
  for (auto _ : state) {
    auto ctx = build_initial_context(req, CancelToken());
    if (!ctx) state.SkipWithError(ctx.error().message.c_str());
    else tokens = ctx->estimated_tokens;
  }
  state.counters["initial_prompt_tokens"] = static_cast<double>(tokens);
  state.counters["whole_log_tokens"] = static_cast<double>(std::filesystem::file_size(log) / 4);
}
BENCHMARK(BM_InitialPromptTokens)->Unit(benchmark::kMillisecond)->Iterations(3);

// ---- issue 14: input tokens per model call with and without the context manager ----------------

/// Returns ~6,000 characters, like reading a source file or a test log (FlowAgent's average tool
/// output is of that order: 424k input tokens over 21 calls).
class ReadTool final : public Tool {
 public:
  std::string_view name() const override { return "read_file"; }
  std::string_view description() const override { return "Reads a file."; }
  const Json& parameters() const override { return schema_; }
  Expected<ToolOutput> invoke(const Json& args, ToolContext& ctx) override {
    if (args.get_int("i") == 0) write_fix(ctx);
    std::string out;
    for (int l = 0; out.size() < 6000; ++l)
      out += "line " + std::to_string(l) + " of file " + std::to_string(args.get_int("i")) + ": some source code here\n";
    return ToolOutput{true, out};
  }

 private:
  Json schema_ = *parse_json(R"({"type":"object","properties":{"i":{"type":"integer"}},"required":["i"]})");
};

void context_tokens(benchmark::State& state, int calls, bool bounded) {
  BenchRepo repo;
  AgentOptions o;  // the default (git) workspace provider
  o.tools = std::make_shared<ToolRegistry>();
  (void)o.tools->add(std::make_shared<ReadTool>());
  auto model = std::make_shared<InstantModel>(calls, "read_file", /*report_sent=*/true);
  o.llm = model;
  o.validator = std::make_shared<PassValidator>();
  o.summarizer = make_template_summarizer();
  ReactOptions ro;
  ro.max_refinement_rounds = 0;  // measured: the context alone
  if (!bounded) ro.working_context_tokens = 0;
  o.strategies = {make_react_strategy(ro)};
  o.use_default_post_filters = false;  // measured: the context alone
  auto agent = std::move(*Agent::create(o));
  auto req = repo.request;
  req.limits.max_tool_calls = calls + 1;
  std::vector<std::int64_t> per_call;
  for (auto _ : state) {
    auto r = agent->run(req);
    if (r.status != Status::fixed) state.SkipWithError(r.message.c_str());
    per_call = model->take();
  }
  std::int64_t total = 0, max = 0, first21 = 0;
  for (std::size_t i = 0; i < per_call.size(); ++i) {
    total += per_call[i];
    max = std::max(max, per_call[i]);
    if (i < 21) first21 += per_call[i];
  }
  state.counters["input_tokens_total"] = static_cast<double>(total);
  state.counters["input_tokens_max_call"] = static_cast<double>(max);
  state.counters["input_tokens_first_call"] = per_call.empty() ? 0.0 : static_cast<double>(per_call.front());
  state.counters["input_tokens_last_call"] = per_call.empty() ? 0.0 : static_cast<double>(per_call.back());
  state.counters["input_tokens_21_calls"] = static_cast<double>(first21);
}

static void BM_ContextTokensUnbounded(benchmark::State& state) { context_tokens(state, static_cast<int>(state.range(0)), false); }
static void BM_ContextTokensBounded(benchmark::State& state) { context_tokens(state, static_cast<int>(state.range(0)), true); }
BENCHMARK(BM_ContextTokensUnbounded)->Arg(10)->Arg(21)->Arg(30)->Arg(60)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_ContextTokensBounded)->Arg(10)->Arg(21)->Arg(30)->Arg(60)->Unit(benchmark::kMillisecond)->Iterations(1);

// ---- issue 14: wall time of one candidate against three, on a real small project ---------------

/// The honest fix of the shop project, as a model would make it: edit, run the tests, answer.
/// `latency` stands for the provider's time per call (a real model takes seconds).
class FixModel final : public LlmClient {
 public:
  explicit FixModel(std::chrono::milliseconds latency) : latency_(latency) {}
  std::string_view name() const override { return "fix"; }
  Expected<ChatResponse> complete(const ChatRequest& req, const CancelToken& cancel) override {
    if (cancel.wait_for(latency_)) return fail(Errc::cancelled, "cancelled");
    int made = 0;
    for (const auto& m : req.messages) made += static_cast<int>(m.tool_calls.size());
    ChatResponse r;
    r.message.role = Role::assistant;
    r.usage = {1000, 50, 0};
    auto call = [&](std::string name, Json args) {
      ToolCall c;
      c.id = "c" + std::to_string(made);
      c.name = std::move(name);
      c.arguments = std::move(args);
      c.raw_arguments = dump_json_lossy(c.arguments);
      r.message.tool_calls.push_back(std::move(c));
      r.stop = StopReason::tool_use;
    };
    if (made == 0) call("edit_file", Json::obj({{"path", "shop.py"}, {"old_text", "tier.lower()"}, {"new_text", "tier.upper()"}}));
    else if (made == 1) call("run_tests", Json::object());
    else r.message.content = "Tier names are upper case.";
    return r;
  }

 private:
  std::chrono::milliseconds latency_;
};

/// A real pytest project whose change lowercases tier names against upper-case keys.
struct ShopRepo {
  testkit::TempDir dir;
  RepairRequest request;
  ShopRepo() {
    const auto repo = dir.path() / "repo";
    const auto base = testkit::make_repo(
        repo, {{"shop.py", "RATES = {\"GOLD\": 0.2}\n\n\ndef price(amount, tier):\n    rate = RATES.get(tier, 0)\n    return amount * (1 - rate)\n"},
               {"test_shop.py", "from shop import price\n\n\ndef test_gold():\n    assert price(250, \"GOLD\") == 200\n"},
               {".gitignore", "__pycache__/\n"}});
    const auto head = testkit::commit_files(
        repo, {{"shop.py", "RATES = {\"GOLD\": 0.2}\n\n\ndef price(amount, tier):\n    rate = RATES.get(tier.lower(), 0)\n    return amount * (1 - rate)\n"}},
        "Normalize tiers");
    request = testkit::sample_request(repo.string());
    request.change.base_commit = base;
    request.change.head_commit = head;
    request.change.files = {{"shop.py", 1, 1, false}};
    request.failure.failing_tests = {"test_shop.py::test_gold"};
    request.commands.test = "/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}";
  }
};

/// Args: candidates, concurrency, model latency (ms). The real loop tools, the command validator
/// (fresh checkout, pytest in the sandbox), the default post-filters.
static void BM_CandidatesWallTime(benchmark::State& state) {
  static ShopRepo repo;  // one project and one warm pool for every argument set
  static std::shared_ptr<WorkspaceProvider> pool = [] {
    GitWorkspaceOptions w;
    w.pool_per_repo = 6;  // three candidates' workspaces and their validation checkouts stay warm
    return make_git_workspace_provider(w);
  }();
  static bool warm = false;
  AgentOptions o;
  o.workspaces = pool;
  o.llm = std::make_shared<FixModel>(std::chrono::milliseconds(state.range(2)));
  o.strategies = {make_react_strategy()};
  o.summarizer = make_template_summarizer();
  auto agent = std::move(*Agent::create(o));
  auto req = repo.request;
  if (!warm) {  // fill the pool: three loop workspaces and validation checkouts
    auto w = req;
    w.candidates.count = 3;
    w.candidates.concurrency = 3;
    (void)agent->run(w);
    warm = true;
  }
  req.candidates.count = state.range(0);
  req.candidates.concurrency = state.range(1);
  std::int64_t tokens = 0;
  for (auto _ : state) {
    auto r = agent->run(req);
    if (r.status != Status::fixed) state.SkipWithError((r.reason + ": " + r.message).c_str());
    tokens = r.metrics.input_tokens + r.metrics.output_tokens;
  }
  state.counters["tokens"] = static_cast<double>(tokens);
}
BENCHMARK(BM_CandidatesWallTime)
    ->Args({1, 1, 0})->Args({3, 1, 0})->Args({3, 3, 0})
    // The 1 s model latency variants measure waiting, not code: left out of smoke runs.
    ->Apply([](benchmark::internal::Benchmark* b) {
      if (!flowagent::bench::smoke()) b->Args({1, 1, 1000})->Args({3, 1, 1000})->Args({3, 3, 1000});
    })
    ->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

BENCHMARK_MAIN();
