// Orchestration overhead: a repair driven by a zero-latency in-process model whose tool calls hit a
// trivial tool, so what is measured is flowagent's own work per call and per repair (workspace
// from the warm pool, prompt building, schema checks, repeat detection, the real post-filters on a
// real patch, events). The repository is a real git repository made in a temp dir; the first tool
// call edits a production file so that each repair ends with a real one-line fix. Also: tokens in the initial
// prompt against a prompt holding the whole log.
#include <benchmark/benchmark.h>

#include <atomic>
#include <fstream>

#include "flowagent/flowagent.hpp"
#include "flowagent/repair.hpp"
#include "support/test_support.hpp"

using namespace flowagent;

namespace {

class NoopTool final : public Tool {
 public:
  std::string_view name() const override { return "noop"; }
  std::string_view description() const override { return "Does nothing."; }
  const Json& parameters() const override { return schema_; }
  Expected<ToolOutput> invoke(const Json& args, ToolContext& ctx) override {
    const auto i = args.get_int("i");
    if (i == 0) {  // the fix: a real edit in the workspace, so post-filters judge a real patch
      std::ofstream f(ctx.workspace.root() / "calc.py", std::ios::trunc);
      f << "def add(a, b):\n    return a + b\n";
    }
    return ToolOutput{true, "ok " + std::to_string(i)};
  }

 private:
  Json schema_ = *parse_json(R"({"type":"object","properties":{"i":{"type":"integer"}},"required":["i"]})");
};

/// Answers with `calls` tool calls (distinct arguments) and then "done".
class InstantModel final : public LlmClient {
 public:
  explicit InstantModel(int calls) : calls_(calls) {}
  std::string_view name() const override { return "instant"; }
  Expected<ChatResponse> complete(const ChatRequest& req, const CancelToken&) override {
    int made = 0;
    for (const auto& m : req.messages) made += static_cast<int>(m.tool_calls.size());
    ChatResponse r;
    r.message.role = Role::assistant;
    r.usage = {100, 10, 0};
    if (made < calls_) {
      ToolCall c;
      c.id = "c" + std::to_string(made);
      c.name = "noop";
      c.raw_arguments = "{\"i\":" + std::to_string(made) + "}";
      c.arguments = Json::obj({{"i", made}});
      r.message.tool_calls.push_back(std::move(c));
      r.stop = StopReason::tool_use;
    } else {
      r.message.content = "done";
    }
    return r;
  }

 private:
  int calls_;
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

void run_repairs(benchmark::State& state, int calls) {
  testkit::TempDir d;
  const auto repo = d.path() / "repo";
  const auto base = testkit::make_repo(repo, {{"calc.py", "def add(a, b):\n    return a + b\n"},
                                              {"test_calc.py", "from calc import add\n\ndef test_add():\n    assert add(2, 2) == 4\n"}});
  const auto head = testkit::commit_files(repo, {{"calc.py", "def add(a, b):\n    return a - b\n"}}, "Rework add");
  AgentOptions o;  // default (git) workspace provider and post-filters
  o.tools = std::make_shared<ToolRegistry>();
  (void)o.tools->add(std::make_shared<NoopTool>());
  o.llm = std::make_shared<InstantModel>(calls);
  o.strategies = {make_react_strategy()};  // the loop alone: the zero-token tier would run tests
  o.validator = std::make_shared<PassValidator>();
  o.summarizer = make_template_summarizer();
  auto agent = std::move(*Agent::create(o));
  auto req = testkit::sample_request(repo.string());
  req.change.base_commit = base;
  req.change.head_commit = head;
  req.change.files = {{"calc.py", 1, 1, false}};
  req.failure.failing_tests = {"test_calc.py::test_add"};
  req.commands.test = "true {tests}";
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

BENCHMARK_MAIN();
