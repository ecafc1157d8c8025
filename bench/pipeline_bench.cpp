// Orchestration overhead: a repair driven by a zero-latency in-process model whose tool calls hit a
// trivial tool, so what is measured is flowagent's own work per call and per repair (prompt
// building, schema checks, repeat detection, trajectory, events). Also: tokens in the initial
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
  Expected<ToolOutput> invoke(const Json& args, ToolContext&) override {
    return ToolOutput{true, "ok " + std::to_string(args.get_int("i"))};
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

class MemWorkspace final : public Workspace {
 public:
  const std::filesystem::path& root() const override { return root_; }
  const std::string& head_commit() const override { return head_; }
  Expected<std::string> diff() override { return std::string("diff --git a/x b/x\n+fix\n"); }
  Expected<void> reset() override { return {}; }

 private:
  std::filesystem::path root_ = "/nonexistent-workspace";
  std::string head_ = "head";
};

class MemWorkspaces final : public WorkspaceProvider {
 public:
  std::string_view name() const override { return "mem"; }
  Expected<std::unique_ptr<Workspace>> acquire(const RepairRequest&, const CancelToken&) override {
    return std::unique_ptr<Workspace>(std::make_unique<MemWorkspace>());
  }
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
  AgentOptions o;
  o.workspaces = std::make_shared<MemWorkspaces>();
  o.tools = std::make_shared<ToolRegistry>();
  (void)o.tools->add(std::make_shared<NoopTool>());
  o.llm = std::make_shared<InstantModel>(calls);
  o.validator = std::make_shared<PassValidator>();
  o.summarizer = make_template_summarizer();
  auto agent = std::move(*Agent::create(o));
  auto req = testkit::sample_request();
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
