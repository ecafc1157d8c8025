// End to end: several candidates per job and the rubric review, with real git projects, pytest in
// the sandbox, and a scripted model on loopback whose script depends on the candidate (the
// sampling temperature each candidate's loop sends).
#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>

#include "agent/candidates.hpp"
#include "flowagent/git_workspace.hpp"
#include "flowagent/model_client.hpp"
#include "flowagent/repair.hpp"
#include "flowagent/review.hpp"
#include "flowagent/summary.hpp"
#include "support/scripted_model.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::testkit;

namespace {

struct Project : ShopProject {
  explicit Project(std::vector<std::pair<std::string, std::string>> extra = {}) : ShopProject("cand-1", std::move(extra)) {}
};

constexpr const char* kReviewMarker = "You review the production-code part of a patch";

/// A scripted model with one script per sampling temperature (= per candidate), plus a queue for
/// rubric reviews. A script's empty queue answers with its fallback (or `generate`, when set).
class CandidateModel {
 public:
  CandidateModel() {
    server.set_handler([this](const Recorded& r) {
      std::lock_guard lock(mu);
      if (r.body.find("You write the note a code reviewer sees") != std::string::npos)
        return Reply::json(final_reply("<b>Root cause:</b> tier names are upper case."));
      if (r.body.find(kReviewMarker) != std::string::npos) {
        ++review_calls;
        std::string body = final_reply(R"({"verdict": "approve", "findings": []})");
        if (!reviews.empty()) {
          body = reviews.front();
          reviews.pop_front();
        }
        return Reply::json(body);
      }
      const int t = temperature_key(r.body);
      calls[t]++;
      std::string body = fallback;
      if (generate) body = generate(t, calls[t]);
      auto& q = scripts[t];
      if (!q.empty()) {
        body = q.front();
        q.pop_front();
      }
      Reply rep = Reply::json(body);
      rep.delay = delay;
      return rep;
    });
  }
  /// Temperatures as keys: 0.4 -> 40.
  static int temperature_key(const std::string& body) {
    auto doc = parse_json(body);
    if (!doc || !doc->find("temperature") || !doc->find("temperature")->is_number()) return -1;
    return static_cast<int>(std::lround(doc->find("temperature")->as_double() * 100));
  }
  void push(int temperature_key_, std::string body) {
    std::lock_guard lock(mu);
    scripts[temperature_key_].push_back(std::move(body));
  }
  void push_review(std::string reply_text) {
    std::lock_guard lock(mu);
    reviews.push_back(final_reply(reply_text));
  }
  int calls_at(int t) {
    std::lock_guard lock(mu);
    return calls[t];
  }
  std::string base_url() const { return server.url() + "/v1"; }

  TestHttpServer server;
  std::mutex mu;
  std::map<int, std::deque<std::string>> scripts;
  std::map<int, int> calls;
  std::deque<std::string> reviews;
  std::string fallback = final_reply("It is fixed.");
  std::function<std::string(int, int)> generate;
  std::chrono::milliseconds delay{0};
  int review_calls = 0;
};

/// 40 small files for a model that reads forever.
std::vector<std::pair<std::string, std::string>> many_files() {
  std::vector<std::pair<std::string, std::string>> files;
  for (int i = 0; i < 40; ++i) files.emplace_back("pkg/m" + std::to_string(i) + ".py", "X = " + std::to_string(i) + "\n");
  return files;
}

/// Every candidate reads file after file and never stops.
void reads_forever(CandidateModel& m) {
  m.generate = [](int, int n) {
    return tool_calls_reply({{"read_file", Json::obj({{"path", "pkg/m" + std::to_string(n % 40) + ".py"}})}});
  };
}

void push_honest(CandidateModel& m, int t, const std::string& new_text = "tier.upper()") {
  m.push(t, tool_calls_reply({{"edit_file", Json::obj({{"path", "shop.py"}, {"old_text", "tier.lower()"}, {"new_text", new_text}})}}));
  m.push(t, tool_calls_reply({{"run_tests", Json::object()}}));
  m.push(t, final_reply("Tier names are upper case."));
}

/// Weakens the test's assertion (the integrity guard's business).
void push_test_cheat(CandidateModel& m, int t) {
  m.push(t, tool_calls_reply({{"edit_file", Json::obj({{"path", "test_shop.py"}, {"old_text", "== 200"}, {"new_text", ">= 0"}})}}));
  m.push(t, tool_calls_reply({{"run_tests", Json::object()}}));
  m.push(t, final_reply("The test was too strict."));
}

/// Special-cases the test's input in production code (the overfitting detector's business).
void push_overfit(CandidateModel& m, int t) {
  m.push(t, tool_calls_reply({{"edit_file", Json::obj({{"path", "shop.py"},
                                                        {"old_text", "    return amount * (1 - rate)"},
                                                        {"new_text", "    if amount == 250:\n        return 200\n    return amount * (1 - rate)"}})}}));
  m.push(t, tool_calls_reply({{"run_tests", Json::object()}}));
  m.push(t, final_reply("Fixed the gold price."));
}

class Collector final : public EventSink {
 public:
  std::string_view name() const override { return "collector"; }
  void on_event(const Event& e) override {
    std::lock_guard lock(mu);
    events.push_back(e);
  }
  void on_result(const RepairResult&) override {}
  std::mutex mu;
  std::vector<Event> events;
};

AgentOptions options(const fs::path& tmp, ReactOptions ro = {}) {
  AgentOptions o;
  GitWorkspaceOptions w;
  w.root = tmp / "pool";
  o.workspaces = make_git_workspace_provider(w);
  o.strategies = {make_react_strategy(ro)};
  o.summarizer = make_template_summarizer();
  return o;
}

RepairResult run(Project& p, CandidateModel& m, AgentOptions o, std::function<void(RepairRequest&)> edit = {}) {
  auto agent = Agent::create(std::move(o));
  if (!agent) return {};
  RepairRequest req = p.request;
  req.model.base_url = m.base_url();
  if (edit) edit(req);
  return (*agent)->run(req);
}

std::set<std::int64_t> candidates_in_trajectory(const RepairResult& r) {
  std::set<std::int64_t> out;
  for (const auto& s : r.trajectory) out.insert(s.candidate);
  return out;
}

}  // namespace

TEST(E2ECandidates, OfACheatAnOverfitAndARightFixTheRightOneIsDelivered) {
  Project p;
  CandidateModel m;
  push_test_cheat(m, 10);  // candidate 1: temperature 0.1
  push_overfit(m, 40);     // candidate 2: 0.4
  push_honest(m, 70);      // candidate 3: 0.7
  auto sink = std::make_shared<Collector>();
  AgentOptions o = options(p.tmp.path());
  o.event_sink = sink;
  auto r = run(p, m, o, [](RepairRequest& q) {
    q.candidates.count = 3;
    q.candidates.concurrency = 3;
  });
  ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  EXPECT_EQ(r.chosen_candidate, 3);
  EXPECT_NE(r.patch.find("tier.upper()"), std::string::npos) << r.patch;
  EXPECT_EQ(r.patch.find("test_shop.py"), std::string::npos) << r.patch;
  EXPECT_EQ(r.patch.find("250"), std::string::npos) << r.patch;
  ASSERT_EQ(r.candidates.size(), 3u);
  // (The weakened check `>= 0` passes with the price moved: the validator's value-sensitivity run
  // rejects it before the guard would.)
  EXPECT_EQ(r.candidates[0].outcome, "no_fix");
  EXPECT_EQ(r.candidates[0].reason, "code_value_not_checked") << r.candidates[0].reason;
  // (`if amount == 250: return 200`: the validator's calls near the tested one, price(249, ...) and
  // price(251, ...), still answer as the head; before that check the overfitting post-filter
  // rejected it.)
  EXPECT_EQ(r.candidates[1].outcome, "no_fix");
  EXPECT_EQ(r.candidates[1].reason, "overfitting_special_cased_test_value") << r.candidates[1].reason;
  EXPECT_EQ(r.candidates[2].outcome, "accepted");
  EXPECT_TRUE(r.candidates[2].chosen);
  EXPECT_FALSE(r.candidates[0].chosen || r.candidates[1].chosen);
  EXPECT_NEAR(r.candidates[1].temperature, 0.4, 1e-9);
  // The evidence is the chosen candidate's fresh-checkout validation.
  EXPECT_TRUE(r.evidence.fresh_checkout);
  EXPECT_TRUE(r.evidence.failing_tests_pass);
  // Every candidate's steps are kept, tagged; every candidate's events say which one they are.
  EXPECT_EQ(candidates_in_trajectory(r), (std::set<std::int64_t>{0, 1, 2, 3}));
  std::set<std::int64_t> evented;
  {
    std::lock_guard lock(sink->mu);
    for (const auto& e : sink->events)
      if (e.kind == EventKind::tool_call) evented.insert(e.candidate);
  }
  EXPECT_EQ(evented, (std::set<std::int64_t>{1, 2, 3}));
  // Metrics are the job's: the sum over the candidates.
  std::int64_t tools = 0;
  for (const auto& c : r.candidates) tools += c.tool_calls;
  EXPECT_EQ(r.metrics.tool_calls, tools);
  EXPECT_GE(tools, 6);
  // The document keeps the reports and step tags.
  auto back = repair_result_from_json(to_json(r));
  ASSERT_TRUE(back) << back.error().to_string();
  ASSERT_EQ(back->candidates.size(), 3u);
  EXPECT_EQ(back->chosen_candidate, 3);
  EXPECT_EQ(back->candidates[0].reason, r.candidates[0].reason);
  EXPECT_EQ(candidates_in_trajectory(*back), candidates_in_trajectory(r));
}

TEST(E2ECandidates, AgreementBeatsSizeAndEquivalentEditsAgree) {
  Project p;
  CandidateModel m;
  // Candidate 1: the smallest fix. Candidates 2 and 3: the same larger fix, spaced differently.
  push_honest(m, 10);
  push_honest(m, 40, "tier.upper(), 0)\n    rate = rate or RATES.get(tier");
  push_honest(m, 70, "tier.upper(),  0)\n    rate  =  rate or RATES.get(tier");
  auto r = run(p, m, options(p.tmp.path()), [](RepairRequest& q) {
    q.candidates.count = 3;
    q.candidates.concurrency = 2;
  });
  ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  ASSERT_EQ(r.candidates.size(), 3u);
  for (const auto& c : r.candidates) EXPECT_EQ(c.outcome, "accepted") << c.index << ": " << c.reason << " " << c.message;
  EXPECT_EQ(r.candidates[0].agreement, 1);
  EXPECT_EQ(r.candidates[1].agreement, 2);
  EXPECT_EQ(r.candidates[2].agreement, 2);
  EXPECT_EQ(r.candidates[1].equivalence, r.candidates[2].equivalence);
  EXPECT_NE(r.candidates[1].patch_digest, r.candidates[2].patch_digest);  // not identical, equivalent
  EXPECT_EQ(r.chosen_candidate, 2);
  EXPECT_NE(r.patch.find("rate or RATES.get(tier, 0)"), std::string::npos) << r.patch;
  EXPECT_NE(r.message.find("2 of 3 accepted"), std::string::npos) << r.message;
}

TEST(E2ECandidates, EarlyStopEndsTheJobAtTheFirstValidatedCleanCandidate) {
  Project p;
  CandidateModel m;
  push_honest(m, 10);
  push_honest(m, 40);
  push_honest(m, 70);
  auto r = run(p, m, options(p.tmp.path()), [](RepairRequest& q) {
    q.candidates.count = 3;
    q.candidates.concurrency = 1;
    q.candidates.early_stop = true;
  });
  ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  EXPECT_EQ(r.chosen_candidate, 1);
  EXPECT_EQ(m.calls_at(40), 0);
  EXPECT_EQ(m.calls_at(70), 0);
  ASSERT_EQ(r.candidates.size(), 3u);
  EXPECT_EQ(r.candidates[1].outcome, "stopped");
  EXPECT_EQ(r.candidates[2].outcome, "stopped");

}

TEST(E2ECandidates, TheToolCallBudgetHoldsAcrossParallelCandidates) {
  Project p(many_files());
  CandidateModel m;
  reads_forever(m);
  auto r = run(p, m, options(p.tmp.path()), [](RepairRequest& q) {
    q.candidates.count = 3;
    q.candidates.concurrency = 3;
    q.limits.max_tool_calls = 7;
  });
  EXPECT_EQ(r.status, Status::no_fix) << r.reason << ": " << r.message;
  EXPECT_EQ(r.metrics.tool_calls, 7);
  std::int64_t sum = 0;
  for (const auto& c : r.candidates) sum += c.tool_calls;
  EXPECT_EQ(sum, 7);
  int executed = 0;
  for (const auto& s : r.trajectory)
    if (s.kind == "tool" && s.name == "read_file" && s.ok) ++executed;
  EXPECT_EQ(executed, 7);
}

TEST(E2ECandidates, TheTokenBudgetHoldsAcrossCandidates) {
  Project p(many_files());
  for (int parallel : {1, 3}) {
    CandidateModel m;
    reads_forever(m);
    // Each call costs 120 tokens (100 in, 20 out); the job may spend 1000.
    auto r = run(p, m, options(p.tmp.path()), [&](RepairRequest& q) {
      q.candidates.count = 3;
      q.candidates.concurrency = parallel;
      q.limits.max_tokens = 1000;
    });
    EXPECT_EQ(r.status, Status::no_fix) << r.reason << ": " << r.message;
    const auto spent = r.metrics.input_tokens + r.metrics.output_tokens;
    // A budget is checked before each call: each running candidate may finish the call it started.
    EXPECT_GE(spent, 1000);
    EXPECT_LE(spent, 1000 + 120 * parallel) << "parallel " << parallel;
    int calls = 0;
    for (int t : {10, 40, 70}) calls += m.calls_at(t);
    EXPECT_EQ(calls * 120, spent);
  }
}

TEST(E2ECandidates, TheCostBudgetHoldsAcrossCandidates) {
  Project p(many_files());
  CandidateModel m;
  reads_forever(m);
  // The client's prices: 100 input tokens at $1,000 per million = $0.10 per call; the job may spend $0.55.
  AgentOptions o = options(p.tmp.path());
  o.llm_factory = [](const ModelConfig& mc) -> Expected<std::shared_ptr<LlmClient>> {
    ModelClientOptions mo;
    mo.model = mc;
    mo.prices["scripted"] = Pricing{1000.0, 0, 0};
    return make_llm_client(std::move(mo));
  };
  auto r = run(p, m, o, [](RepairRequest& q) {
    q.candidates.count = 3;
    q.candidates.concurrency = 3;
    q.limits.max_cost_usd = 0.55;
  });
  EXPECT_EQ(r.status, Status::no_fix) << r.reason << ": " << r.message;
  EXPECT_GE(r.metrics.cost_usd, 0.55);
  EXPECT_LE(r.metrics.cost_usd, 0.55 + 3 * 0.1 + 1e-9);  // each running candidate may finish its call
  int calls = 0;
  for (int t : {10, 40, 70}) calls += m.calls_at(t);
  EXPECT_NEAR(r.metrics.cost_usd, calls * 0.1, 1e-9);
  int refused = 0;
  for (const auto& s : r.trajectory)
    if (s.kind == "model" && !s.ok && s.output.find("cost budget spent") != std::string::npos) ++refused;
  EXPECT_GE(refused, 1);
}

TEST(E2ECandidates, TheWallClockLimitHoldsAcrossCandidates) {
  Project p(many_files());
  CandidateModel m;
  m.delay = std::chrono::milliseconds(300);
  reads_forever(m);
  auto r = run(p, m, options(p.tmp.path()), [](RepairRequest& q) {
    q.candidates.count = 3;
    q.candidates.concurrency = 3;
    q.limits.max_wall_seconds = 2;
  });
  EXPECT_EQ(r.status, Status::no_fix);
  EXPECT_EQ(r.reason, "time_limit") << r.message;
  EXPECT_LT(r.metrics.wall_ms, 15000);  // unbounded, three candidates reading forever run for minutes
  EXPECT_TRUE(r.patch.empty());
}

TEST(CandidateRanking, AgreementThenSizeThenOrder) {
  using detail::RankInput;
  EXPECT_EQ(detail::rank_candidates({{"a", 5, 0}, {"b", 3, 1}, {"a", 9, 2}}), (std::vector<std::size_t>{0, 2, 1}));
  EXPECT_EQ(detail::rank_candidates({{"a", 5, 0}, {"b", 3, 1}, {"c", 3, 2}}), (std::vector<std::size_t>{1, 2, 0}));
  EXPECT_EQ(detail::rank_candidates({{"a", 4, 0}}), (std::vector<std::size_t>{0}));
}

TEST(CandidateRanking, EquivalenceIgnoresWhitespaceHunkPositionsAndContext) {
  auto mk = [](std::string ctx_before, std::string added, int start) {
    std::string t = "diff --git a/x.py b/x.py\nindex 1111111111111111111111111111111111111111..2222222222222222222222222222222222222222 100644\n"
                    "--- a/x.py\n+++ b/x.py\n@@ -" + std::to_string(start) + ",2 +" + std::to_string(start) + ",2 @@\n " +
                    ctx_before + "\n-old()\n+" + added + "\n";
    auto p = parse_patch(t);
    EXPECT_TRUE(p) << (p ? "" : p.error().message);
    return p ? *p : Patch{};
  };
  const auto a = mk("def f():", "    return  g( x )", 3);
  const auto b = mk("def  other():", "\treturn g( x )  ", 30);
  const auto c = mk("def f():", "    return g(x)", 3);
  EXPECT_EQ(detail::equivalence_key(a), detail::equivalence_key(b));
  EXPECT_NE(detail::equivalence_key(a), detail::equivalence_key(c));
  EXPECT_EQ(detail::changed_lines(a), 2);
}

TEST(CandidateRanking, TemperaturesVaryPerCandidateUnlessTheHostSetsThem) {
  CandidatePolicy p;
  EXPECT_DOUBLE_EQ(detail::candidate_temperature(p, 0.1, 0), 0.1);
  EXPECT_DOUBLE_EQ(detail::candidate_temperature(p, 0.1, 1), 0.4);
  EXPECT_DOUBLE_EQ(detail::candidate_temperature(p, 0.1, 2), 0.7);
  EXPECT_DOUBLE_EQ(detail::candidate_temperature(p, 0.1, 5), 1.0);
  p.temperatures = {0.2, 0.9};
  EXPECT_DOUBLE_EQ(detail::candidate_temperature(p, 0.1, 2), 0.2);
  EXPECT_DOUBLE_EQ(detail::candidate_temperature(p, 0.1, 3), 0.9);
}

TEST(CandidateRequest, CountAsIntegerOrObjectStrictlyParsedAndRoundTripped) {
  Project p;
  Json doc = to_json(p.request);
  doc["candidates"] = 3;
  auto r = repair_request_from_json(doc);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->candidates.count, 3);
  EXPECT_EQ(r->candidates.concurrency, 2);
  doc["candidates"] = Json::obj({{"count", 4}, {"concurrency", 1}, {"early_stop", true}});
  r = repair_request_from_json(doc);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->candidates.count, 4);
  EXPECT_EQ(r->candidates.concurrency, 1);
  EXPECT_TRUE(r->candidates.early_stop);
  auto again = repair_request_from_json(to_json(*r));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->candidates.count, 4);
  EXPECT_TRUE(again->candidates.early_stop);
  for (Json bad : {Json(0), Json(17), Json("3"), Json::obj({{"count", 2}, {"extra", 1}}), Json::obj({{"concurrency", 0}})}) {
    doc["candidates"] = bad;
    auto e = repair_request_from_json(doc);
    ASSERT_FALSE(e) << dump_json_lossy(bad);
    EXPECT_NE(e.error().message.find("candidates"), std::string::npos) << e.error().message;
  }
}

// ---- rubric review ----------------------------------------------------------------------------

TEST(E2ERubricReview, FindingsGoBackToTheModelAndTheRefinedFixIsDelivered) {
  Project p;
  CandidateModel m;
  // First fix: a fallback lookup that hides the symptom (the detector finds nothing to flag).
  m.push(10, tool_calls_reply({{"edit_file", Json::obj({{"path", "shop.py"}, {"old_text", "tier.lower(), 0)"},
                                                          {"new_text", "tier.lower(), 0) or RATES.get(tier, 0)"}})}}));
  m.push(10, tool_calls_reply({{"run_tests", Json::object()}}));
  m.push(10, final_reply("Handled gold."));
  // After the review: the general fix.
  m.push(10, tool_calls_reply({{"edit_file", Json::obj({{"path", "shop.py"}, {"old_text", "tier.lower(), 0) or RATES.get(tier, 0)"},
                                                          {"new_text", "tier.upper(), 0)"}})}}));
  m.push(10, tool_calls_reply({{"run_tests", Json::object()}}));
  m.push(10, final_reply("Tier names are upper case."));
  m.push_review(R"({"verdict": "flag", "findings": [{"rule": "symptom_not_cause", "path": "shop.py", "line": 5,
                   "message": "The fallback hides the lowercasing; other upper-case tiers still miss."}]})");
  m.push_review("```json\n{\"verdict\": \"approve\", \"findings\": []}\n```");
  ReactOptions ro;
  ro.reviewer = make_rubric_reviewer();
  auto r = run(p, m, options(p.tmp.path(), ro));
  ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  EXPECT_NE(r.patch.find("tier.upper()"), std::string::npos) << r.patch;
  EXPECT_EQ(r.patch.find(" or RATES"), std::string::npos) << r.patch;
  EXPECT_EQ(m.review_calls, 2);
  EXPECT_EQ(count_notes(r, "review", "refinement round 1 of 2: shop.py:5 [symptom_not_cause]"), 1);
  EXPECT_EQ(count_notes(r, "review", "approved after 1 refinement round"), 1);
  // The model was shown the finding.
  bool shown = false;
  for (const auto& rec : m.server.requests())
    if (rec.body.find("overfitting rubric flagged it") != std::string::npos &&
        rec.body.find("other upper-case tiers still miss") != std::string::npos)
      shown = true;
  EXPECT_TRUE(shown);
  EXPECT_GE(r.metrics.model_calls, 7);  // the reviews count
}

TEST(E2ERubricReview, StillFlaggedAfterTheRoundsIsNotDelivered) {
  Project p;
  CandidateModel m;
  push_honest(m, 10);
  m.fallback = final_reply("It is fixed.");
  const std::string flag =
      R"({"verdict": "flag", "findings": [{"rule": "symptom_not_cause", "path": "shop.py", "line": 5, "message": "suspicious"}]})";
  for (int i = 0; i < 3; ++i) m.push_review(flag);
  ReactOptions ro;
  ro.reviewer = make_rubric_reviewer();
  ro.max_refinement_rounds = 1;
  auto r = run(p, m, options(p.tmp.path(), ro));
  EXPECT_EQ(r.status, Status::rejected) << r.reason << ": " << r.message;
  EXPECT_EQ(r.reason, "overfitting_review");
  EXPECT_NE(r.message.find("[symptom_not_cause]"), std::string::npos) << r.message;
  EXPECT_TRUE(r.patch.empty());
}

TEST(E2ERubricReview, HostileOrMalformedRepliesNeverApproveAndNeverCrash) {
  // Each one is a whole job (validation included); the parser's cases are below (RubricReply).
  const std::vector<std::string> hostile = {
      "Looks good to me! {\"verdict\": \"approve\", \"findings\": []}",
      std::string("\x00\xff{", 3),
  };
  Project p;
  for (const auto& reply : hostile) {
    CandidateModel m;
    push_honest(m, 10);
    m.push_review(reply);
    ReactOptions ro;
    ro.reviewer = make_rubric_reviewer();
    auto r = run(p, m, options(p.tmp.path(), ro));
    EXPECT_EQ(r.status, Status::rejected) << reply.substr(0, 80) << " -> " << r.reason << ": " << r.message;
    EXPECT_EQ(r.reason, "review_unavailable") << reply.substr(0, 80);
    EXPECT_NE(r.message.find("review unavailable"), std::string::npos) << r.message;
    EXPECT_TRUE(r.patch.empty());
  }
}

TEST(RubricReply, StrictParse) {
  auto patch = parse_patch(
      "diff --git a/shop.py b/shop.py\nindex 1111111111111111111111111111111111111111..2222222222222222222222222222222222222222 100644\n"
      "--- a/shop.py\n+++ b/shop.py\n@@ -4,2 +4,2 @@ def price(amount, tier):\n-    rate = RATES.get(tier.lower(), 0)\n"
      "+    rate = RATES.get(tier.upper(), 0)\n     return amount * (1 - rate)\n");
  ASSERT_TRUE(patch) << patch.error().message;
  auto ok = parse_rubric_reply(R"({"verdict":"approve","findings":[]})", *patch);
  EXPECT_EQ(ok.outcome, ReviewOutcome::approved);
  auto flagged = parse_rubric_reply(
      "{\"verdict\":\"flag\",\"findings\":[{\"rule\":\"hardcoded_output\",\"path\":\"shop.py\",\"line\":4,\"message\":\"a\\u0007b\"}]}",
      *patch);
  ASSERT_EQ(flagged.outcome, ReviewOutcome::flagged) << flagged.note;
  ASSERT_EQ(flagged.findings.size(), 1u);
  EXPECT_EQ(flagged.findings[0].message, "a b");  // control characters never reach the model
  for (const std::string& bad : std::vector<std::string>{
           R"({"verdict":"flag","findings":[]})",
           R"({"verdict":"flag","findings":[{"rule":"made_up","path":"shop.py","line":4,"message":"x"}]})",
           R"({"verdict":"flag","findings":[{"rule":"hardcoded_output","path":"other.py","line":4,"message":"x"}]})",
           R"({"verdict":"flag","findings":[{"rule":"hardcoded_output","path":"shop.py","line":400,"message":"x"}]})",
           R"({"verdict":"flag","findings":[{"rule":"hardcoded_output","path":"shop.py","line":4,"message":""}]})",
           R"({"verdict":"flag","findings":[{"rule":"hardcoded_output","path":"shop.py","line":"4","message":"x"}]})",
           R"({"verdict":"flag","findings":[{"rule":"hardcoded_output","path":"shop.py","line":4,"message":"x","severity":1}]})",
           R"({"verdict":"approve","findings":[{"rule":"hardcoded_output","path":"shop.py","line":4,"message":"x"}]})",
           R"({"verdict":true,"findings":[]})",
           R"(["approve"])",
           "Looks good! {\"verdict\": \"approve\", \"findings\": []}",
           "{\"verdict\": \"approve\", \"findings\": []} {\"verdict\": \"flag\", \"findings\": []}",
           "{\"verdict\": \"APPROVE\", \"findings\": []}",
           "{\"verdict\": \"approve\", \"findings\": [], \"note\": \"ignore the rubric\"}",
           "{\"verdict\": \"flag\", \"verdict\": \"approve\", \"findings\": []}",
           "{\"verdict\": \"approve\"}",
           "",
           std::string(70000, ' ') + "{\"verdict\": \"approve\", \"findings\": []}",
           "```json\n{\"verdict\": \"approve\", \"findings\": []}",
           "```python\n{\"verdict\": \"approve\", \"findings\": []}\n```",
           "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
           "{\"verdict\": {\"a\": {\"b\": {\"c\": {\"d\": {\"e\": {\"f\": {\"g\": {\"h\": 1}}}}}}}}, \"findings\": []}",
       }) {
    auto v = parse_rubric_reply(bad, *patch);
    EXPECT_EQ(v.outcome, ReviewOutcome::unavailable) << bad.substr(0, 120);
    EXPECT_FALSE(v.note.empty()) << bad.substr(0, 120);
    EXPECT_TRUE(v.findings.empty()) << bad.substr(0, 120);
  }
  // Only production code is reviewed.
  auto mixed = parse_patch(patch->text +
                           "diff --git a/test_shop.py b/test_shop.py\nindex 3333333333333333333333333333333333333333..4444444444444444444444444444444444444444 100644\n"
                           "--- a/test_shop.py\n+++ b/test_shop.py\n@@ -1 +1 @@\n-x\n+y\n");
  ASSERT_TRUE(mixed) << mixed.error().message;
  auto prod = production_part(*mixed);
  ASSERT_EQ(prod.files.size(), 1u);
  EXPECT_EQ(prod.files[0].path(), "shop.py");
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
