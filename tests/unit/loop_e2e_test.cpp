// End to end: the loop's hypothesis ledger, context manager and overfitting refinement (with the
// overfitting post-filter), with real git projects, pytest, and a scripted model on loopback.
#include <gtest/gtest.h>

#include <functional>

#include "flowagent/git_workspace.hpp"
#include "flowagent/repair.hpp"
#include "flowagent/summary.hpp"
#include "loop/context_manager.hpp"
#include "loop/hypotheses.hpp"
#include "support/scripted_model.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::testkit;

namespace {

struct Project : ShopProject {
  explicit Project(std::vector<std::pair<std::string, std::string>> extra = {}) : ShopProject("ctx-1", std::move(extra)) {}
};

AgentOptions loop_only(const fs::path& tmp, ReactOptions ro = {}) {
  AgentOptions o;
  GitWorkspaceOptions w;
  w.root = tmp / "pool";
  o.workspaces = make_git_workspace_provider(w);
  o.strategies = {make_react_strategy(ro)};
  o.summarizer = make_template_summarizer();
  return o;
}

Json hyp(std::string statement, std::string status, std::string evidence = {}, std::int64_t id = 0) {
  Json j = Json::obj({{"status", status}});
  if (!statement.empty()) j["statement"] = statement;
  if (!evidence.empty()) j["evidence"] = evidence;
  if (id) j["id"] = id;
  return j;
}

void push_honest_fix(ScriptedModel& m) {
  m.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "shop.py"}, {"old_text", "tier.lower()"}, {"new_text", "tier.upper()"}})}}));
  m.push(tool_calls_reply({{"run_tests", Json::object()}}));
  m.push(final_reply("Tier names are upper case."));
}

/// The messages of one recorded chat request, as the model saw them.
Json messages_of(const Recorded& r) {
  auto doc = parse_json(r.body);
  if (!doc || !doc->find("messages")) return Json::array();
  return *doc->find("messages");
}

/// Makes test_gold pass by returning the expected value for the test's input.
void push_cheat(ScriptedModel& m) {
  m.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "shop.py"},
                                                    {"old_text", "    return amount * (1 - rate)"},
                                                    {"new_text", "    if amount == 250:\n        return 200\n    return amount * (1 - rate)"}})}}));
  m.push(tool_calls_reply({{"run_tests", Json::object()}}));
  m.push(final_reply("Fixed the gold price."));
}

/// The cheat (and then `after`, if any) against a project, with `rounds` refinement rounds.
RepairResult run_cheat(int rounds, const std::function<void(ScriptedModel&)>& after) {
  Project p;
  ScriptedModel model;
  push_cheat(model);
  model.fallback = final_reply("It is fixed.");  // a model that insists
  if (after) after(model);
  ReactOptions ro;
  ro.max_refinement_rounds = rounds;
  // (The post-filter and the refinement are what these tests are about: the validator's own
  // check of the calls near the tested one would reject `if amount == 250` first.)
  AgentOptions o = loop_only(p.tmp.path(), ro);
  ValidatorOptions v;
  v.check_near_tested_inputs = false;
  o.validator = make_command_validator(v);
  auto agent = Agent::create(std::move(o));
  if (!agent) return {};
  RepairRequest req = p.request;
  req.model.base_url = model.base_url();
  return (*agent)->run(req);
}

}  // namespace

TEST(E2EOverfit, RefinementTurnsAFlaggedCandidateIntoACleanOne) {
  auto r = run_cheat(2, [](ScriptedModel& m) {
    // After the finding: the honest fix (undo the special case, match the keys' case).
    m.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "shop.py"},
                                                      {"old_text", "    if amount == 250:\n        return 200\n"},
                                                      {"new_text", ""}})}}));
    push_honest_fix(m);
  });
  EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  EXPECT_NE(r.patch.find("tier.upper()"), std::string::npos) << r.patch;
  EXPECT_EQ(r.patch.find("250"), std::string::npos) << r.patch;
  EXPECT_EQ(count_notes(r, "overfitting", "refinement round 1 of 2"), 1);
  EXPECT_EQ(count_notes(r, "overfitting", "[special_cased_test_value]"), 1);
  EXPECT_EQ(count_notes(r, "overfitting", "clean after 1 refinement round"), 1);
}

TEST(E2EOverfit, StillOverfittingAfterTheRoundsIsNotDelivered) {
  auto r = run_cheat(1, nullptr);
  EXPECT_EQ(r.status, Status::rejected) << r.reason << ": " << r.message;
  EXPECT_EQ(r.reason, "overfitting_special_cased_test_value") << r.message;
  EXPECT_NE(r.message.find("shop.py:7 [hardcoded_expected_output]"), std::string::npos) << r.message;
  EXPECT_TRUE(r.patch.empty() || r.status != Status::fixed);
  EXPECT_EQ(count_notes(r, "overfitting", "still overfits after 1 refinement round"), 1);
}

TEST(E2EOverfit, WithoutRefinementThePostFilterStillRejects) {
  auto r = run_cheat(0, nullptr);
  EXPECT_EQ(r.status, Status::rejected);
  EXPECT_EQ(r.reason, "overfitting_special_cased_test_value") << r.message;
  EXPECT_EQ(count_notes(r, "overfitting", ""), 0);
}

TEST(E2EHypotheses, RetryOfARefutedHypothesisIsWarnedAndTheConfirmedOneNamesTheRootCause) {
  Project p;
  ScriptedModel model;
  model.push(tool_calls_reply({{"record_hypothesis", hyp("The discount table lacks the GOLD tier", "proposed")}}));
  model.push(tool_calls_reply({{"read_file", Json::obj({{"path", "shop.py"}})}}));
  model.push(tool_calls_reply({{"record_hypothesis", hyp("", "refuted", "RATES has a GOLD entry", 1)}}));
  model.push(tool_calls_reply({{"record_hypothesis", hyp("the discount table lacks the gold tier entry", "proposed")}}));
  model.push(tool_calls_reply({{"record_hypothesis",
                                hyp("The change lowercases tier names while the RATES keys are upper case", "confirmed",
                                    "tier.lower() turns GOLD into gold")}}));
  push_honest_fix(model);
  auto agent = Agent::create(loop_only(p.tmp.path()));
  ASSERT_TRUE(agent);
  RepairRequest req = p.request;
  req.model.base_url = model.base_url();
  auto r = (*agent)->run(req);
  ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;

  // The retry was answered with a warning naming the refuted entry and its evidence.
  int warnings = 0;
  for (const auto& s : r.trajectory)
    if (s.kind == "tool" && s.name == "record_hypothesis" && s.output.find("WARNING: this repeats hypothesis #1") != std::string::npos &&
        s.output.find("RATES has a GOLD entry") != std::string::npos)
      ++warnings;
  EXPECT_EQ(warnings, 1);
  // The ledger is in the result (and its JSON), in order, without the rejected retry.
  ASSERT_EQ(r.hypotheses.size(), 2u);
  EXPECT_EQ(r.hypotheses[0].status, "refuted");
  EXPECT_EQ(r.hypotheses[0].evidence, "RATES has a GOLD entry");
  EXPECT_EQ(r.hypotheses[1].status, "confirmed");
  EXPECT_EQ(r.hypotheses[1].id, 2);
  auto round = repair_result_from_json(to_json(r));
  ASSERT_TRUE(round) << round.error().to_string();
  ASSERT_EQ(round->hypotheses.size(), 2u);
  EXPECT_EQ(round->hypotheses[1].statement, r.hypotheses[1].statement);
  // The confirmed hypothesis is the summary's root-cause sentence.
  EXPECT_NE(r.summary.find("<b>Root cause:</b> The change lowercases tier names"), std::string::npos) << r.summary;
  // The ledger was pinned into the later model calls.
  auto reqs = model.server.requests();
  ASSERT_GE(reqs.size(), 6u);
  const std::string last = dump_json_lossy(messages_of(reqs.back()));
  EXPECT_NE(last.find("Hypothesis ledger"), std::string::npos);
  EXPECT_NE(last.find("#1 [refuted]"), std::string::npos);
}

TEST(E2EContext, SixtyCallRepairStaysUnderTheBudgetOnEveryCall) {
  // 60 source files of ~8 KB each; the model reads every one of them, then fixes the bug.
  std::vector<std::pair<std::string, std::string>> files;
  for (int i = 0; i < 60; ++i) {
    std::string body;
    for (int l = 0; body.size() < 8000; ++l) body += "# module " + std::to_string(i) + " line " + std::to_string(l) + "\n";
    files.emplace_back("pkg/m" + std::to_string(i) + ".py", body);
  }
  Project p(files);
  ScriptedModel model;
  for (int i = 0; i < 60; ++i)
    model.push(tool_calls_reply({{"read_file", Json::obj({{"path", "pkg/m" + std::to_string(i) + ".py"}})}}));
  push_honest_fix(model);
  ReactOptions ro;
  ro.max_call_tokens = 9000;
  auto agent = Agent::create(loop_only(p.tmp.path(), ro));
  ASSERT_TRUE(agent);
  RepairRequest req = p.request;
  req.model.base_url = model.base_url();
  req.limits.max_tool_calls = 70;
  auto r = (*agent)->run(req);
  ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  EXPECT_EQ(r.metrics.tool_calls, 62);

  auto reqs = model.server.requests();
  ASSERT_GE(reqs.size(), 63u);
  int over = 0, with_note = 0;
  std::size_t largest = 0;
  for (const auto& rec : reqs) {
    if (rec.body.find("You write the note a code reviewer sees") != std::string::npos) continue;
    std::size_t chars = 0;
    const Json messages = messages_of(rec);  // kept alive: the loop walks into it
    for (const auto& m : messages.as_array()) {
      chars += m.get_string("content").size() + 16;
      if (auto tc = m.find("tool_calls"); tc && tc->is_array())
        for (const auto& c : tc->as_array())
          if (auto f = c.find("function")) chars += f->get_string("arguments").size() + f->get_string("name").size() + 16;
    }
    largest = std::max(largest, chars);
    if (chars / 4 > 9000) ++over;
    if (rec.body.find("earlier tool output(s) were elided") != std::string::npos) ++with_note;
  }
  EXPECT_EQ(over, 0) << "largest call: ~" << largest / 4 << " tokens";
  EXPECT_GT(with_note, 40);  // the cut is visible to the model
  // After reading the last file: that output is whole, the first one is a placeholder.
  const auto after_last_read = messages_of(reqs[60]).as_array();
  ASSERT_FALSE(after_last_read.empty());
  const std::string newest = after_last_read.back().get_string("content");
  EXPECT_NE(newest.find("# module 59 line 0\n"), std::string::npos);
  EXPECT_GE(newest.size(), 8000u);
  EXPECT_NE(dump_json_lossy(after_last_read[3]).find("[elided by the context manager: "), std::string::npos);
  // The trajectory records the cuts.
  int notes = 0;
  for (const auto& s : r.trajectory)
    if (s.kind == "note" && s.name == "context" && s.output.find("older tool output(s) elided") != std::string::npos) ++notes;
  EXPECT_GT(notes, 40);
}

TEST(ContextManager, KeepsEditsLatestTestRunAndPinnedLedger) {
  std::vector<ChatMessage> h;
  h.push_back(ChatMessage{Role::system, "system", {}, {}, {}, false});
  h.push_back(ChatMessage{Role::user, "failures", {}, {}, {}, false});
  auto tool = [&](std::string name, std::size_t size) {
    ChatMessage a{Role::assistant, {}, {}, {}, {}, false};
    ToolCall c;
    c.id = "c" + std::to_string(h.size());
    c.name = name;
    c.raw_arguments = "{}";
    a.tool_calls.push_back(c);
    h.push_back(a);
    h.push_back(ChatMessage{Role::tool, name + std::string(size, 'x'), {}, c.id, name, false});
  };
  tool("run_tests", 6000);
  tool("read_file", 6000);
  tool("edit_file", 600);
  tool("read_file", 6000);
  tool("read_file", 6000);
  tool("read_file", 6000);
  detail::ContextBudget b;
  b.max_tokens = 5000;
  detail::ContextCut cut;
  auto out = detail::bound_context(h, b, "Hypothesis ledger: #1 [refuted] x", &cut);
  EXPECT_GE(cut.elided, 2);
  EXPECT_LE(cut.tokens_after, 5000);
  EXPECT_NE(out[1].content.find("Hypothesis ledger"), std::string::npos);
  EXPECT_NE(out[1].content.find("were elided"), std::string::npos);
  EXPECT_EQ(out[3].content.size(), 6009u);   // the newest (only) test run
  EXPECT_NE(out[5].content.find("[elided by the context manager"), std::string::npos);
  EXPECT_EQ(out[7].content.size(), 609u);    // the edit's result
  EXPECT_EQ(out.back().content.size(), 6009u);  // the newest output
  // Nothing is cut under the budget.
  b.max_tokens = 100000;
  out = detail::bound_context(h, b, "", &cut);
  EXPECT_EQ(cut.elided, 0);
  EXPECT_EQ(out[5].content.size(), 6009u);
}

TEST(HypothesisLedger, UpdatesByIdAndBySimilarStatement) {
  detail::HypothesisLedger l;
  EXPECT_TRUE(l.record(hyp("off by one in the loop bound", "proposed"), 1).ok);
  auto again = l.record(hyp("Off by one in the loop bound!", "confirmed", "i <= n reads past the end"), 2);
  EXPECT_TRUE(again.ok);
  EXPECT_NE(again.content.find("updated hypothesis #1"), std::string::npos);
  ASSERT_EQ(l.entries().size(), 1u);
  ASSERT_NE(l.confirmed(), nullptr);
  EXPECT_EQ(l.confirmed()->evidence, "i <= n reads past the end");
  EXPECT_FALSE(l.record(hyp("", "maybe"), 3).ok);
  EXPECT_FALSE(l.record(hyp("", "refuted", "", 7), 3).ok);
  EXPECT_FALSE(l.record(hyp("", "proposed"), 3).ok);
  EXPECT_LT(detail::statement_similarity("cache is stale", "parser drops the sign"), 0.2);
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
