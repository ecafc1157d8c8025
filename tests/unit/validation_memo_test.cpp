// The loop's check is the validation itself (a fresh checkout of head + the patch), and the
// validation stage takes its passing report for that same patch instead of running the same tests
// again; anything else (another patch, a check that did not pass) is validated anew. Real git
// projects, pytest, a scripted model on loopback.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "agent/pipeline.hpp"
#include "flowagent/git_workspace.hpp"
#include "flowagent/repair.hpp"
#include "flowagent/summary.hpp"
#include "support/scripted_model.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::testkit;

namespace {

constexpr const char* kReused = "its runs are the validation's";

/// shop.py reads its rates from an optional, git-ignored local_rates.py (a developer's local
/// override) before its own; the change lower-cases the tier, so test_gold fails.
struct Project : ShopProject {
  Project() : ShopProject("memo-1", {}, /*local_rates=*/true) {}
};

/// The project's pool of git checkouts (the loop's and the validator's fresh ones).
std::shared_ptr<WorkspaceProvider> pool_of(const Project& p) {
  GitWorkspaceOptions w;
  w.root = p.tmp.path() / "pool";
  return make_git_workspace_provider(w);
}

RepairResult repair(Project& p, ScriptedModel& model) {
  AgentOptions o;
  o.workspaces = pool_of(p);
  o.strategies = {make_react_strategy({})};
  o.summarizer = make_template_summarizer();
  o.validator = make_command_validator({});
  auto agent = Agent::create(std::move(o));
  if (!agent) return {};
  RepairRequest req = p.request;
  req.model.base_url = model.base_url();
  return (*agent)->run(req);
}

/// A loop's context over `ws`, with `provider` for the validator's fresh checkouts.
RepairContext loop_context(Project& p, Workspace& ws, ToolRegistry& tools, ToolState& state, RepairResult& result, CancelToken& cancel,
                           WorkspaceProvider& provider) {
  return RepairContext{p.request, ws, tools, state, nullptr, cancel, result, [](const Event&) {}, nullptr, nullptr, nullptr, &provider, {}};
}

const Json kHonestEdit = Json::obj({{"path", "shop.py"}, {"old_text", "tier.lower()"}, {"new_text", "tier.upper()"}});

}  // namespace

TEST(E2EValidationMemo, TheLoopsPassingCheckIsTheValidation) {
  Project p;
  ScriptedModel model;
  model.push(tool_calls_reply({{"edit_file", kHonestEdit}}));
  model.push(final_reply("Tier names are upper case."));
  const RepairResult r = repair(p, model);
  ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  EXPECT_EQ(count_notes(r, "validator", kReused), 1);
  EXPECT_TRUE(r.evidence.fresh_checkout);
  int failing_runs = 0;
  for (const auto& run : r.evidence.runs) failing_runs += run.purpose == "failing";
  EXPECT_EQ(failing_runs, 1);
}

TEST(E2EValidationMemo, AFileTheLoopLeftOutsideThePatchDoesNotPassTheCheck) {
  // The model writes the git-ignored local_rates.py with a lower-case key: test_gold passes in the
  // loop's tree, and the patch holds none of it. The check runs where validation runs, so the
  // model is told at once that the tests still fail; it then makes the real fix.
  Project p;
  ScriptedModel model;
  model.push(tool_calls_reply({{"write_file", Json::obj({{"path", "local_rates.py"}, {"content", "RATES = {\"gold\": 0.2}\n"}})},
                               {"edit_file", Json::obj({{"path", "shop.py"}, {"old_text", "def price"}, {"new_text", "# rates may be local\ndef price"}})}}));
  model.push(final_reply("Rates are local."));
  model.push(tool_calls_reply({{"edit_file", kHonestEdit}}));
  model.push(final_reply("Tier names are upper case."));
  const RepairResult r = repair(p, model);
  ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  EXPECT_EQ(count_notes(r, "validator", "Validation failed (failing_tests_still_fail)"), 1);
  EXPECT_NE(r.patch.find("tier.upper()"), std::string::npos) << r.patch;
  EXPECT_EQ(count_notes(r, "validator", kReused), 0);  // a pass after a failed check: validated on its own
}

TEST(E2EValidationMemo, AnotherPatchThanTheOneCheckedIsValidatedAnew) {
  Project p;
  auto provider = pool_of(p);
  CancelToken cancel;
  auto ws = provider->acquire(p.request, cancel);
  ASSERT_TRUE(ws) << ws.error().message;
  ToolRegistry tools;
  ToolState state;
  RepairResult result;
  RepairContext ctx = loop_context(p, **ws, tools, state, result, cancel, *provider);
  auto validator = make_command_validator({});
  detail::set_current_run_ids({0, detail::new_run_id()});  // (a repair's: the memo is kept per run; none outside one)
  const fs::path shop = (*ws)->root() / "shop.py";
  const std::string head_text = read_file(shop);
  const std::string fixed = std::string(head_text).replace(head_text.find("tier.lower()"), 12, "tier.upper()");

  write_file(shop, fixed);
  auto checked = validator->check(ctx);
  ASSERT_TRUE(checked) << checked.error().message;
  ASSERT_TRUE(checked->passed) << checked->reason << ": " << checked->message;
  EXPECT_TRUE(checked->evidence.fresh_checkout);

  // The patch changes after the check: validated anew, and the new patch's own verdict counts.
  write_file(shop, fixed + "\nassert False, 'broken at import'\n");
  auto other = validator->validate(ctx);
  ASSERT_TRUE(other) << other.error().message;
  EXPECT_FALSE(other->passed);
  EXPECT_EQ(count_notes(result, "validator", kReused), 0);

  // The checked patch again: still remembered (the other patch did not consume it), taken once.
  write_file(shop, fixed);
  auto same = validator->validate(ctx);
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_TRUE(same->passed);
  EXPECT_EQ(count_notes(result, "validator", kReused), 1);
  auto again = validator->validate(ctx);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(again->passed);
  EXPECT_EQ(count_notes(result, "validator", kReused), 1);

  // A check that fails: the same verdict for the same patch, to the loop and to the validation.
  write_file(shop, std::string(head_text).replace(head_text.find("tier.lower()"), 12, "tier.title()"));
  auto failing = validator->check(ctx);
  ASSERT_TRUE(failing) << failing.error().message;
  EXPECT_FALSE(failing->passed);
  EXPECT_EQ(failing->reason, "failing_tests_still_fail");
  auto recheck = validator->check(ctx);
  ASSERT_TRUE(recheck);
  EXPECT_EQ(recheck->reason, failing->reason);
  auto after_fail = validator->validate(ctx);
  ASSERT_TRUE(after_fail);
  EXPECT_FALSE(after_fail->passed);
  EXPECT_EQ(count_notes(result, "validator", "(failing_tests_still_fail): " + std::string(kReused)), 1);

  // After a failed check of the job, a pass is not taken: the model could have retried until a
  // flaky fix passed once. The validation runs on its own.
  write_file(shop, fixed + "# retried\n");
  auto retried = validator->check(ctx);
  ASSERT_TRUE(retried);
  EXPECT_TRUE(retried->passed) << retried->reason << ": " << retried->message;
  auto independent = validator->validate(ctx);
  ASSERT_TRUE(independent);
  EXPECT_TRUE(independent->passed);
  EXPECT_EQ(count_notes(result, "validator", kReused), 2);  // the pass above, the failure; not this one

  // Another run (a host's retry of the same request) validates again.
  write_file(shop, fixed);
  ASSERT_TRUE(validator->check(ctx));
  detail::set_current_run_ids({0, detail::new_run_id()});
  ASSERT_TRUE(validator->validate(ctx));
  EXPECT_EQ(count_notes(result, "validator", kReused), 2);
  // Outside any run nothing is remembered.
  detail::set_current_run_ids({});
  ASSERT_TRUE(validator->check(ctx));
  ASSERT_TRUE(validator->validate(ctx));
  EXPECT_EQ(count_notes(result, "validator", kReused), 2);
}

TEST(E2EValidationMemo, TheLogsAFailedCheckLeavesNameTheLoopsOwnTree) {
  // The check runs in a fresh checkout, but the loop's read_log shows its logs: the paths in them
  // name the loop's own tree (the same files), which the loop's tools can read, also when another
  // candidate's loop is given the remembered verdict.
  Project p;
  auto provider = pool_of(p);
  CancelToken cancel;
  auto validator = make_command_validator({});
  detail::set_current_run_ids({0, detail::new_run_id()});
  struct Loop {
    std::unique_ptr<Workspace> ws;
    ToolRegistry tools;
    ToolState state;
    RepairResult result;
  };
  auto check_in = [&](Loop& l) {
    RepairContext ctx = loop_context(p, *l.ws, l.tools, l.state, l.result, cancel, *provider);
    return validator->check(ctx);
  };
  auto error_paths = [](const std::string& log) {
    std::set<std::string> out;
    const std::regex shown("RuntimeError: in (\\S+)");
    for (std::sregex_iterator it(log.begin(), log.end(), shown), end; it != end; ++it) out.insert((*it)[1].str());
    return out;
  };
  Loop a, b;
  for (Loop* l : {&a, &b}) {
    auto ws = provider->acquire(p.request, cancel);
    ASSERT_TRUE(ws) << ws.error().message;
    l->ws = std::move(*ws);
    const fs::path shop = l->ws->root() / "shop.py";
    const std::string head_text = read_file(shop);
    write_file(shop, std::string(head_text).replace(head_text.find("    rate = RATES.get(tier.lower(), 0)"), 37,
                                                    "    raise RuntimeError('in ' + __file__)"));
  }
  ASSERT_NE(a.ws->root(), b.ws->root());
  auto first = check_in(a);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->reason, "failing_tests_still_fail") << first->message;
  EXPECT_TRUE(first->evidence.fresh_checkout);
  EXPECT_EQ(error_paths(a.state.last_test_log), std::set<std::string>{(a.ws->root() / "shop.py").string()}) << a.state.last_test_log;
  // The same patch checked from another loop: the remembered verdict, its logs naming that loop's tree.
  auto second = check_in(b);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->reason, "failing_tests_still_fail");
  EXPECT_EQ(error_paths(b.state.last_test_log), std::set<std::string>{(b.ws->root() / "shop.py").string()}) << b.state.last_test_log;
  int failing_runs = 0;
  for (const auto& run : second->evidence.runs) failing_runs += run.purpose == "failing";
  EXPECT_EQ(failing_runs, 1);  // (one run: the first check's)
  detail::set_current_run_ids({});
}

TEST(E2EValidationMemo, APassAfterAFailedCheckIsValidatedAgain) {
  // Shown a failed check, a model may try again until a flaky fix passes once (review 58): a pass
  // after a failure is never the verdict. The stage validates on its own.
  Project p;
  ScriptedModel model;
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "shop.py"}, {"old_text", "tier.lower()"}, {"new_text", "tier.title()"}})}}));
  model.push(final_reply("Fixed."));
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "shop.py"}, {"old_text", "tier.title()"}, {"new_text", "tier.upper()"}})}}));
  model.push(final_reply("Fixed now."));
  const RepairResult r = repair(p, model);
  ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  EXPECT_EQ(count_notes(r, "validator", "Validation failed (failing_tests_still_fail)"), 1);
  EXPECT_EQ(count_notes(r, "validator", kReused), 0);
  EXPECT_GT(r.metrics.phase_ms.at("validate"), 0);
}

TEST(E2EValidationMemo, AModelThatInsistsOnAFailingPatchIsValidatedOnce) {
  // "Done" three times with the same wrong patch: the verdict is shown each time, the tests ran
  // once, and the validation stage's verdict is that run's.
  Project p;
  ScriptedModel model;
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "shop.py"}, {"old_text", "tier.lower()"}, {"new_text", "tier.title()"}})}}));
  model.fallback = final_reply("It is fixed.");
  const RepairResult r = repair(p, model);
  EXPECT_NE(r.status, Status::fixed);
  EXPECT_EQ(count_notes(r, "validator", "Validation failed (failing_tests_still_fail)"), 3);
  EXPECT_EQ(count_notes(r, "validator", "(failing_tests_still_fail): " + std::string(kReused)), 1);
  int failing_runs = 0;
  for (const auto& run : r.evidence.runs) failing_runs += run.purpose == "failing";
  EXPECT_EQ(failing_runs, 1);
}

}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
