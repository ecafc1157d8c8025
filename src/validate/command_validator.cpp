// Deterministic validation: build, the failing tests (or the loop's own evidence when it is fresh),
// optional re-runs against flakiness, then the wider set for regressions.
#include <absl/strings/str_join.h>

#include <algorithm>

#include "flowagent/repair.hpp"
#include "tools/test_command.hpp"

namespace flowagent {

namespace {

/// Runners name tests with different prefixes ("Suite.Test" vs "pkg.Suite.Test"): suffix match at
/// a separator.
bool same_test(const std::string& reported, const std::string& wanted) {
  if (reported == wanted) return true;
  auto tail = [](const std::string& a, const std::string& b) {
    if (a.size() <= b.size() || a.compare(a.size() - b.size(), b.size(), b) != 0) return false;
    char sep = a[a.size() - b.size() - 1];
    return sep == '.' || sep == ':' || sep == '/' || sep == ' ' || sep == '>';
  };
  return tail(reported, wanted) || tail(wanted, reported);
}

bool contains(const std::vector<std::string>& list, const std::string& wanted) {
  return std::any_of(list.begin(), list.end(), [&](const std::string& r) { return same_test(r, wanted); });
}

/// Did this run show every wanted test passing?
bool all_pass(const TestRun& run, const std::vector<std::string>& wanted, std::string& why) {
  if (run.timed_out) {
    why = "the tests timed out";
    return false;
  }
  const bool structured = !run.passed.empty() || !run.failed.empty();
  for (const auto& w : wanted) {
    if (contains(run.failed, w)) {
      why = w + " still fails";
      return false;
    }
    if (structured && !contains(run.passed, w)) {
      why = w + " did not run";
      return false;
    }
  }
  if (run.exit_code != 0) {
    why = "the test command exited with " + std::to_string(run.exit_code);
    return false;
  }
  return true;
}

class CommandValidator final : public Validator {
 public:
  explicit CommandValidator(ValidatorOptions o) : opt_(o) {}
  std::string_view name() const override { return "command"; }

  Expected<ValidationReport> validate(RepairContext& ctx) override {
    ValidationReport rep;
    auto& ev = rep.evidence;
    const auto& req = ctx.request;
    const auto root = ctx.workspace.root();
    auto failed = [&](std::string reason, std::string message) {
      rep.passed = false;
      rep.reason = std::move(reason);
      rep.message = std::move(message);
      return rep;
    };
    if (req.commands.test.empty()) return failed("no_test_command", "the request has no test command to validate with");

    if (!req.commands.build.empty()) {
      auto b = detail::run_command(root, req.commands.build, req, ctx.cancel, ctx.sandbox);
      if (!b) return unexpected(b.error());
      if (b->cancelled) return fail(Errc::cancelled, "validation cancelled");
      ctx.state.last_build_log = b->output;
      ev.build_ok = b->ok();
      if (!ev.build_ok) return failed("build_failed", "the build fails: " + reports::failure_excerpt(reports::strip_ansi(b->output), 20, 2000));
    } else {
      ev.build_ok = true;
    }

    const auto& wanted = req.failure.failing_tests;
    std::string why;
    // The loop's own run counts only when it came after its last edit and covered the failing set.
    if (ctx.state.tests_ran_after_last_edit() && ctx.state.last_test_run_was_failing_set && ctx.state.last_test_run &&
        all_pass(*ctx.state.last_test_run, wanted, why)) {
      ev.loop_evidence_used = true;
      ev.runs.push_back(*ctx.state.last_test_run);
    } else {
      auto run = detail::run_tests(root, req, wanted, ctx.cancel, ctx.sandbox, "failing");
      if (!run) return unexpected(run.error());
      ctx.state.last_test_log = run->log;
      ctx.state.note_test_run(run->run, true);
      ev.runs.push_back(run->run);
      if (!all_pass(run->run, wanted, why)) return failed("failing_tests_still_fail", why);
    }
    for (int i = 0; i < opt_.flaky_reruns; ++i) {
      auto run = detail::run_tests(root, req, wanted, ctx.cancel, ctx.sandbox, "rerun");
      if (!run) return unexpected(run.error());
      ev.runs.push_back(run->run);
      if (!all_pass(run->run, wanted, why)) return failed("flaky_fix", "a re-run failed: " + why);
    }
    ev.failing_tests_pass = true;

    if (!req.commands.wider_test.empty()) {
      auto run = detail::run_tests(root, req, wanted, ctx.cancel, ctx.sandbox, "wider", req.commands.wider_test);
      if (!run) return unexpected(run.error());
      ev.runs.push_back(run->run);
      std::vector<std::string> regressions;
      for (const auto& f : run->run.failed)
        if (!contains(wanted, f)) regressions.push_back(f);
      if (!regressions.empty()) {
        return failed("regression", "the fix breaks " + absl::StrJoin(regressions, ", "));
      }
      if (run->run.exit_code != 0 && run->run.failed.empty())
        return failed("regression", "the wider test command exited with " + std::to_string(run->run.exit_code));
      ev.wider_tests_pass = true;
    } else {
      ev.wider_tests_pass = true;
    }
    rep.passed = true;
    return rep;
  }

 private:
  ValidatorOptions opt_;
};

}  // namespace

std::shared_ptr<Validator> make_command_validator(ValidatorOptions options) {
  return std::make_shared<CommandValidator>(options);
}

}  // namespace flowagent
