#include <gtest/gtest.h>

#include "flowagent/git_workspace.hpp"
#include "flowagent/repair.hpp"
#include "support/scripted_model.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::testkit;

TEST(SummarySanitizer, KeepsTheAllowListAndEscapesTheRest) {
  EXPECT_EQ(sanitize_summary_html("<b>Root cause:</b> <code>f()</code> is off by one."),
            "<b>Root cause:</b> <code>f()</code> is off by one.");
  EXPECT_EQ(sanitize_summary_html("<script>alert(1)</script>x"), "&lt;script&gt;alert(1)&lt;/script&gt;x");
  EXPECT_EQ(sanitize_summary_html("<b onclick=\"x()\">a</b>"), "&lt;b onclick=&quot;x()&quot;&gt;a");
  EXPECT_EQ(sanitize_summary_html("<a href='javascript:x'>y</a>"), "&lt;a href=&#39;javascript:x&#39;&gt;y&lt;/a&gt;");
  EXPECT_EQ(sanitize_summary_html("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert(1)&gt;");
  EXPECT_EQ(sanitize_summary_html("<b>unclosed <i>nest"), "<b>unclosed <i>nest</i></b>");
  EXPECT_EQ(sanitize_summary_html("stray </b> close"), "stray  close");
  EXPECT_EQ(sanitize_summary_html("a &amp; b & c &#39; &bogus;"), "a &amp; b &amp; c &#39; &amp;bogus;");
  EXPECT_EQ(sanitize_summary_html("line one\nline <br/> two\r\n"), "line one line <br> two");
  EXPECT_EQ(sanitize_summary_html("One. Two! Three? Four. Five. Six. Seven."), "One. Two! Three? Four. Five.");
  EXPECT_EQ(sanitize_summary_html("Call <code>a.b(). c</code> now. Done."), "Call <code>a.b(). c</code> now. Done.");
  EXPECT_EQ(sanitize_summary_html("<B>upper</B>"), "&lt;B&gt;upper&lt;/B&gt;");
}

TEST(ContextBuilder, StructuredFailuresFirstAndWithinBudget) {
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  std::vector<std::pair<std::string, std::string>> files;
  for (int i = 0; i < 30; ++i) files.emplace_back("pkg/big" + std::to_string(i) + ".py", std::string(2000, 'a') + "\n");
  files.emplace_back("calc.py", "def add(a, b):\n    return a + b\n");
  auto base = make_repo(repo, files);
  std::vector<std::pair<std::string, std::string>> changed;
  for (int i = 0; i < 30; ++i) changed.emplace_back("pkg/big" + std::to_string(i) + ".py", std::string(2000, 'b') + "\n");
  changed.emplace_back("calc.py", "def add(a, b):\n    return a + b + 1\n");
  auto head = commit_files(repo, changed, "Big change");
  auto req = sample_request(repo.string());
  req.change.base_commit = base;
  req.change.head_commit = head;
  req.change.description = "Make everything b";
  req.failure.failing_tests = {"test_calc.py::test_add"};
  req.failure.logs = {std::string(FLOWAGENT_FIXTURES) + "/reports/pytest.txt"};
  req.limits.context_tokens = 4000;
  auto ctx = build_initial_context(req, CancelToken());
  ASSERT_TRUE(ctx) << ctx.error().message;
  EXPECT_LE(ctx->text.size(), 4000u * 4);
  EXPECT_LE(ctx->estimated_tokens, 4000);
  auto failures = ctx->text.find("# Failing tests");
  auto diff = ctx->text.find("# The change");
  ASSERT_NE(failures, std::string::npos);
  ASSERT_NE(diff, std::string::npos);
  EXPECT_LT(failures, diff);
  EXPECT_NE(ctx->text.find("## tests/test_calc.py::test_add\nlocation: tests/test_calc.py:6\nexpected: 4\nactual: 5"),
            std::string::npos)
      << ctx->text.substr(0, 600);
  // The file the failure is about comes first in the diff; the bulk is trimmed with a marker.
  auto calc = ctx->text.find("diff --git a/calc.py");
  auto big = ctx->text.find("diff --git a/pkg/big");
  ASSERT_NE(calc, std::string::npos);
  EXPECT_TRUE(big == std::string::npos || calc < big);
  EXPECT_NE(ctx->text.find("more file(s) omitted"), std::string::npos);
  EXPECT_FALSE(ctx->trimmed.empty());
  EXPECT_GT(ctx->change_diff.size(), 50000u);
}

TEST(PreFilters, KnownFlaky) {
  auto req = sample_request();
  req.failure.failing_tests = {"A.flaky", "A.real"};
  auto f = make_known_flaky_filter({"A.flaky"});
  EXPECT_FALSE(*f->check(req, CancelToken()));
  auto g = make_known_flaky_filter({"A.flaky"}, [](const std::string& t) { return t == "A.real"; });
  auto v = g->check(req, CancelToken());
  ASSERT_TRUE(v && *v);
  EXPECT_EQ((*v)->reason, "known_flaky");
}

TEST(PreFilters, BaselineFromHostOrFromARunAtTheBase) {
  auto req = sample_request();
  req.failure.failing_tests = {"t1"};
  auto host = make_baseline_filter([](const RepairRequest&, const std::vector<std::string>& t) {
    return Expected<std::vector<std::string>>(t);
  }, nullptr);
  auto v = host->check(req, CancelToken());
  ASSERT_TRUE(v && *v);
  EXPECT_EQ((*v)->reason, "baseline_failing");

  // A repository where the test already fails at the base.
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto base = make_repo(repo, {{"check.sh", "#!/bin/sh\ngrep -q good state.txt\n"}, {"state.txt", "bad\n"}});
  auto head = commit_files(repo, {{"other.txt", "x\n"}}, "unrelated");
  req.repository = repo.string();
  req.change.base_commit = base;
  req.change.head_commit = head;
  req.commands.test = "sh check.sh";
  GitWorkspaceOptions w;
  w.root = tmp.path() / "pool";
  auto ws = make_git_workspace_provider(w);
  auto run = make_baseline_filter(nullptr, ws, true);
  auto r = run->check(req, CancelToken());
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(*r);
  EXPECT_EQ((*r)->reason, "baseline_failing");
  // Cached per base commit: a second check does not run anything (the repository is gone).
  fs::rename(repo, tmp.path() / "moved");
  auto again = run->check(req, CancelToken());
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(*again);
}

TEST(Progress, EventsCarryToolCallsTokensAndEta) {
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto base = make_repo(repo, {{"v.txt", "1\n"}});
  auto head = commit_files(repo, {{"v.txt", "2\n"}, {"w.txt", "a\nb\nc\n"}}, "two");
  ScriptedModel model;
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "v.txt"}, {"old_text", "2"}, {"new_text", "1"}})}}));
  model.push(final_reply("v.txt must hold 1."));
  struct Sink final : EventSink {
    std::string_view name() const override { return "s"; }
    void on_event(const Event& e) override {
      std::lock_guard lock(mu);
      events.push_back(e);
    }
    void on_result(const RepairResult&) override {}
    std::mutex mu;
    std::vector<Event> events;
  };
  auto sink = std::make_shared<Sink>();
  AgentOptions o;
  GitWorkspaceOptions w;
  w.root = tmp.path() / "pool";
  o.workspaces = make_git_workspace_provider(w);
  o.event_sink = sink;
  o.trajectory_dir = tmp.path() / "traj";
  auto agent = Agent::create(o);
  auto req = sample_request(repo.string());
  req.change.base_commit = base;
  req.change.head_commit = head;
  req.failure.failing_tests = {"v"};
  // A check that reports its one test as TAP: per-test evidence, as the validator requires.
  req.commands.test = "if grep -q 1 v.txt; then echo 'ok 1 - v'; else echo 'not ok 1 - v'; echo '1..1'; exit 1; fi; echo '1..1'";
  req.model.spec = "openai-compatible:m";
  req.model.base_url = model.base_url();
  auto r = (*agent)->run(req);
  ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  bool tool = false;
  for (const auto& e : sink->events)
    if (e.kind == EventKind::tool_call) {
      tool = true;
      EXPECT_EQ(e.index, 1);
      EXPECT_EQ(e.max, 100);
      EXPECT_GT(e.tokens, 0);
    }
  EXPECT_TRUE(tool);
  // Validation is its own stage, after the repair stage (one "repair" phase per strategy).
  std::vector<std::string> phases;
  for (const auto& e : sink->events)
    if (e.kind == EventKind::phase && (phases.empty() || phases.back() != e.phase)) phases.push_back(e.phase);
  EXPECT_EQ(phases, (std::vector<std::string>{"prefilter", "workspace", "repair", "validate", "postfilter", "summarize"}));
  EXPECT_GT(r.metrics.phase_ms.count("validate"), 0u);
  EXPECT_EQ(sink->events.front().eta_ms, -1);  // nothing learned yet
  // A second run has an ETA from the first.
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "v.txt"}, {"old_text", "2"}, {"new_text", "1"}})}}));
  model.push(final_reply("again"));
  sink->events.clear();
  auto r2 = (*agent)->run(req);
  ASSERT_EQ(r2.status, Status::fixed);
  EXPECT_GE(sink->events.front().eta_ms, 0);
  // Trajectories were written as JSONL.
  int files = 0;
  for (auto& e : fs::directory_iterator(tmp.path() / "traj")) {
    ++files;
    auto text = read_file(e.path());
    EXPECT_NE(text.find("\"kind\":\"tool\""), std::string::npos);
    EXPECT_NE(text.find("\"kind\":\"result\""), std::string::npos);
  }
  EXPECT_EQ(files, 2);
  auto f = (*agent)->funnel();
  EXPECT_EQ(f.received, 2);
  EXPECT_EQ(f.delivered, 2);
  auto bot = req;
  bot.change.author.kind = AuthorKind::bot;
  (*agent)->run(bot);
  EXPECT_EQ((*agent)->funnel().abstained["automated_author"], 1);
  EXPECT_EQ(to_json((*agent)->funnel()).find("received")->as_int(), 3);
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
