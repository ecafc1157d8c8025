// Pre-filters that need the host or the repository: known-flaky tests and tests already failing at
// the base commit.
#include <map>
#include <mutex>
#include <set>

#include "flowagent/repair.hpp"
#include "reports/test_identity.hpp"
#include "tools/test_command.hpp"

namespace flowagent {

namespace {

class KnownFlakyFilter final : public PreFilter {
 public:
  KnownFlakyFilter(std::vector<std::string> list, std::function<bool(const std::string&)> fn)
      : list_(std::move(list)), fn_(std::move(fn)) {}
  std::string_view name() const override { return "known_flaky"; }
  Expected<std::optional<Abstention>> check(const RepairRequest& r, const CancelToken&) override {
    const auto& tests = r.failure.failing_tests;
    if (tests.empty()) return std::optional<Abstention>{};
    for (const auto& t : tests)
      if (!reports::contains_test(list_, t) && !(fn_ && fn_(t))) return std::optional<Abstention>{};
    return std::optional<Abstention>(Abstention{
        "known_flaky", tests.size() == 1 ? tests[0] + " is a known flaky test" : "every failing test is known to be flaky"});
  }

 private:
  std::vector<std::string> list_;
  std::function<bool(const std::string&)> fn_;
};

class BaselineFilter final : public PreFilter {
 public:
  BaselineFilter(BaselineOracle host, std::shared_ptr<WorkspaceProvider> ws, bool run, SandboxOptions sandbox)
      : host_(std::move(host)), ws_(std::move(ws)), run_(run), sandbox_(std::move(sandbox)) {}
  std::string_view name() const override { return "baseline_failing"; }

  Expected<std::optional<Abstention>> check(const RepairRequest& r, const CancelToken& cancel) override {
    const auto& tests = r.failure.failing_tests;
    if (tests.empty() || r.change.base_commit.empty()) return std::optional<Abstention>{};
    std::vector<std::string> failing_at_base;
    if (host_) {
      auto answer = host_(r, tests);
      if (!answer) return unexpected(answer.error());
      failing_at_base = std::move(*answer);
    } else if (run_ && ws_ && !r.commands.test.empty()) {
      auto answer = run_baseline(r, tests, cancel);
      if (!answer) return unexpected(answer.error());
      failing_at_base = std::move(*answer);
    } else {
      return std::optional<Abstention>{};
    }
    for (const auto& t : tests)
      if (!reports::contains_test(failing_at_base, t)) return std::optional<Abstention>{};
    return std::optional<Abstention>(Abstention{
        "baseline_failing", "the failing test(s) already fail at the base commit " + r.change.base_commit.substr(0, 12)});
  }

 private:
  Expected<std::vector<std::string>> run_baseline(const RepairRequest& r, const std::vector<std::string>& tests,
                                                  const CancelToken& cancel) {
    const std::string key_prefix = r.repository + "\x1f" + r.change.base_commit + "\x1f" + r.commands.test + "\x1f";
    std::vector<std::string> unknown, failing;
    {
      std::lock_guard lock(mu_);
      for (const auto& t : tests) {
        auto it = cache_.find(key_prefix + t);
        if (it == cache_.end()) unknown.push_back(t);
        else if (it->second) failing.push_back(t);
      }
    }
    if (unknown.empty()) return failing;
    RepairRequest base = r;
    base.change.head_commit = r.change.base_commit;
    auto ws = ws_->acquire(base, cancel);
    if (!ws) return unexpected(ws.error());
    if (!r.commands.build.empty()) {
      auto b = detail::run_command((*ws)->root(), r.commands.build, r, cancel, &sandbox_);
      if (!b) return unexpected(b.error());
      if (!b->ok()) {  // the base does not build: every test counts as failing there
        std::lock_guard lock(mu_);
        for (const auto& t : unknown) cache_[key_prefix + t] = true;
        failing.insert(failing.end(), unknown.begin(), unknown.end());
        return failing;
      }
    }
    auto run = detail::run_tests((*ws)->root(), r, unknown, cancel, &sandbox_, "baseline");
    if (!run) return unexpected(run.error());
    std::lock_guard lock(mu_);
    for (const auto& t : unknown) {
      // Seen passing (and not failing) at the base; a run without per-test results decides by exit code.
      const bool seen_pass = std::any_of(run->run.passed.begin(), run->run.passed.end(),
                                         [&](const std::string& id) { return reports::denotes(t, id); });
      const bool seen_fail = std::any_of(run->run.failed.begin(), run->run.failed.end(),
                                         [&](const std::string& id) { return reports::denotes(t, id); });
      bool passed = (seen_pass && !seen_fail) ||
                    (run->run.passed.empty() && run->run.failed.empty() && run->run.exit_code == 0);
      cache_[key_prefix + t] = !passed;
      if (!passed) failing.push_back(t);
    }
    return failing;
  }

  BaselineOracle host_;
  std::shared_ptr<WorkspaceProvider> ws_;
  bool run_;
  SandboxOptions sandbox_;
  std::mutex mu_;
  std::map<std::string, bool> cache_;  // repo/base/command/test -> fails at base
};

}  // namespace

std::shared_ptr<PreFilter> make_known_flaky_filter(std::vector<std::string> flaky_tests,
                                                   std::function<bool(const std::string&)> is_flaky) {
  return std::make_shared<KnownFlakyFilter>(std::move(flaky_tests), std::move(is_flaky));
}

std::shared_ptr<PreFilter> make_baseline_filter(BaselineOracle host, std::shared_ptr<WorkspaceProvider> workspaces,
                                                bool run_baseline, SandboxOptions sandbox) {
  return std::make_shared<BaselineFilter>(std::move(host), std::move(workspaces), run_baseline, std::move(sandbox));
}

}  // namespace flowagent
