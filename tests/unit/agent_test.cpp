#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "support/test_support.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace std::chrono_literals;

namespace {

/// A workspace double over a temp dir; diff() reports the file "fix.txt" when a strategy wrote it.
class DirWorkspace final : public Workspace {
 public:
  DirWorkspace() : root_(dir_.path()) {}
  const std::filesystem::path& root() const override { return root_; }
  const std::string& head_commit() const override { return head_; }
  Expected<std::string> diff() override {
    auto p = root_ / "fix.txt";
    if (!std::filesystem::exists(p)) return std::string();
    return "diff --git a/fix.txt b/fix.txt\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/fix.txt\n"
           "@@ -0,0 +1 @@\n+" + testkit::read_file(p) + "\n";
  }
  Expected<void> reset() override {
    std::filesystem::remove(root_ / "fix.txt");
    return {};
  }

 private:
  testkit::TempDir dir_;
  std::filesystem::path root_;
  std::string head_ = "head";
};

class DirWorkspaces final : public WorkspaceProvider {
 public:
  std::string_view name() const override { return "dirs"; }
  Expected<std::unique_ptr<Workspace>> acquire(const RepairRequest&, const CancelToken&) override {
    acquired++;
    return std::unique_ptr<Workspace>(std::make_unique<DirWorkspace>());
  }
  std::atomic<int> acquired{0};
};

/// Writes fix.txt (or not), optionally waiting for cancellation first.
class ScriptedStrategy final : public RepairStrategy {
 public:
  ScriptedStrategy(std::string name, bool produce, bool block = false)
      : name_(std::move(name)), produce_(produce), block_(block) {}
  std::string_view name() const override { return name_; }
  Expected<Candidate> propose(RepairContext& ctx) override {
    calls++;
    if (block_) {
      started = true;
      if (ctx.cancel.wait_for(20s)) return fail(Errc::cancelled, "cancelled");
    }
    if (!produce_) return Candidate{false, false, "nothing to do", {}, false};
    testkit::write_file(ctx.workspace.root() / "fix.txt", name_);
    ctx.state.note_edit();
    return Candidate{true, true, "The change renamed the flag used by the test.", {}, false};
  }
  std::atomic<int> calls{0};
  std::atomic<bool> started{false};

 private:
  std::string name_;
  bool produce_, block_;
};

/// Records whether a candidate patch was still in the context when it was asked to propose.
class PatchSeeingStrategy final : public RepairStrategy {
 public:
  std::string_view name() const override { return "sees"; }
  Expected<Candidate> propose(RepairContext& ctx) override {
    saw_patch = ctx.patch != nullptr;
    testkit::write_file(ctx.workspace.root() / "fix.txt", "good");
    ctx.state.note_edit();
    return Candidate{true, true, "The change renamed the flag used by the test.", {}, false};
  }
  bool saw_patch = true;
};

/// Passes when fix.txt holds `good`.
class ContentValidator final : public Validator {
 public:
  explicit ContentValidator(std::string good) : good_(std::move(good)) {}
  std::string_view name() const override { return "content"; }
  Expected<ValidationReport> validate(RepairContext& ctx) override {
    ValidationReport r;
    r.passed = testkit::read_file(ctx.workspace.root() / "fix.txt") == good_;
    r.reason = r.passed ? "" : "failing_tests_still_fail";
    r.evidence.failing_tests_pass = r.passed;
    return r;
  }

 private:
  std::string good_;
};

class RecordingSink final : public EventSink {
 public:
  std::string_view name() const override { return "recording"; }
  void on_event(const Event& e) override {
    std::lock_guard lock(mu);
    phases.push_back(e.phase);
  }
  void on_result(const RepairResult& r) override {
    std::lock_guard lock(mu);
    results.push_back(r.status);
  }
  std::mutex mu;
  std::vector<std::string> phases;
  std::vector<Status> results;
};

class FixedTracker final : public ChangeTracker {
 public:
  std::string_view name() const override { return "fixed"; }
  Expected<ChangeState> state(const Change&) override { return st; }
  ChangeState st;
};

AgentOptions options_with(std::vector<std::shared_ptr<RepairStrategy>> strategies, std::string good = "good") {
  AgentOptions o;
  o.workspaces = std::make_shared<DirWorkspaces>();
  o.strategies = std::move(strategies);
  o.validator = std::make_shared<ContentValidator>(std::move(good));
  // The trust layer's filters read git objects, which a plain folder has none of (they would fail
  // closed); these tests are about the pipeline's order.
  o.post_filters = {make_empty_patch_filter(), make_change_moved_filter()};
  return o;
}

}  // namespace

// Review 30: a strategy after one whose candidate failed validation must not see that candidate's
// patch (it was gone: the react loop's check validated freed memory, under ASan a stack use after
// scope, and otherwise another tree's patch).
TEST(Agent, ARejectedCandidatesPatchIsNotLeftToTheNextStrategy) {
  auto sees = std::make_shared<PatchSeeingStrategy>();
  auto agent = Agent::create(options_with({std::make_shared<ScriptedStrategy>("bad", true), sees}));
  ASSERT_TRUE(agent);
  auto r = (*agent)->run(testkit::sample_request());
  EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  EXPECT_FALSE(sees->saw_patch);
}

TEST(Agent, RunsThePipelineInOrderAndFixes) {
  auto sink = std::make_shared<RecordingSink>();
  auto opts = options_with({std::make_shared<ScriptedStrategy>("none", false),
                            std::make_shared<ScriptedStrategy>("bad", true),
                            std::make_shared<ScriptedStrategy>("good", true)});
  opts.event_sink = sink;
  auto agent = Agent::create(opts);
  ASSERT_TRUE(agent);
  auto r = (*agent)->run(testkit::sample_request());
  EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  EXPECT_NE(r.patch.find("\n+good\n"), std::string::npos) << r.patch;
  EXPECT_NE(r.summary.find("<b>Root cause:</b> The change renamed the flag"), std::string::npos);
  EXPECT_TRUE(r.evidence.failing_tests_pass);
  // "none" steps aside; "bad" fails validation; "good" passes.
  std::vector<std::string> expected = {"prefilter", "workspace", "repair",     "repair",    "validate",
                                       "repair",    "validate",  "postfilter", "summarize", "done"};
  EXPECT_EQ(sink->phases, expected);
  EXPECT_EQ(sink->results, std::vector<Status>{Status::fixed});
  EXPECT_GT(r.metrics.phase_ms.count("validate"), 0u);
}

TEST(Agent, NoFixWhenValidationNeverPasses) {
  auto agent = Agent::create(options_with({std::make_shared<ScriptedStrategy>("bad", true)}));
  ASSERT_TRUE(agent);
  auto r = (*agent)->run(testkit::sample_request());
  EXPECT_EQ(r.status, Status::no_fix);
  EXPECT_EQ(r.reason, "failing_tests_still_fail");
  EXPECT_TRUE(r.patch.empty());
}

TEST(Agent, PreFiltersAbstainWithReasons) {
  auto strategy = std::make_shared<ScriptedStrategy>("good", true);
  auto agent = Agent::create(options_with({strategy}));
  ASSERT_TRUE(agent);
  auto req = testkit::sample_request();
  req.failure.kind = FailureKind::build;
  EXPECT_EQ((*agent)->run(req).reason, "build_failure");
  req = testkit::sample_request();
  req.change.author = {"dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com", AuthorKind::person};
  EXPECT_EQ((*agent)->run(req).reason, "automated_author");
  req = testkit::sample_request();
  req.change.author.kind = AuthorKind::bot;
  EXPECT_EQ((*agent)->run(req).reason, "automated_author");
  req = testkit::sample_request();
  req.change.files = {{"logo.PNG", 0, 0, false}};
  EXPECT_EQ((*agent)->run(req).reason, "binary_files");
  req = testkit::sample_request();
  req.change.files = {{"a", 600, 401, false}};
  auto r = (*agent)->run(req);
  EXPECT_EQ(r.status, Status::abstained);
  EXPECT_EQ(r.reason, "change_too_large");
  EXPECT_NE(r.message.find("1001 changed lines"), std::string::npos);
  req.change.files = {{"a", 600, 400, false}};
  EXPECT_EQ((*agent)->run(req).status, Status::fixed);  // exactly at the limit is fine
  req.change.files.assign(101, ChangedFile{"f", 1, 0, false});
  EXPECT_EQ((*agent)->run(req).reason, "change_too_large");
  EXPECT_EQ(strategy->calls, 1);  // abstentions never reach the strategies
}

TEST(Agent, ChangeTrackerDropsFixesForMovedChanges) {
  auto tracker = std::make_shared<FixedTracker>();
  auto opts = options_with({std::make_shared<ScriptedStrategy>("good", true)});
  opts.change_tracker = tracker;
  auto agent = Agent::create(opts);
  ASSERT_TRUE(agent);
  tracker->st.current_revision = 5;
  auto r = (*agent)->run(testkit::sample_request("/x", "c1", 4));
  EXPECT_EQ(r.status, Status::abstained);
  EXPECT_EQ(r.reason, "newer_revision");
  tracker->st = ChangeState{1, true, false};
  r = (*agent)->run(testkit::sample_request());
  EXPECT_EQ(r.reason, "change_submitted");
}

TEST(Agent, SubmitRunsJobsOnWorkerThreads) {
  auto agent = Agent::create(options_with({std::make_shared<ScriptedStrategy>("good", true)}));
  ASSERT_TRUE(agent);
  std::vector<Job> jobs;
  for (int i = 0; i < 6; ++i) {
    auto job = (*agent)->submit(testkit::sample_request("/x", "change-" + std::to_string(i)));
    ASSERT_TRUE(job);
    jobs.push_back(*job);
  }
  for (auto& j : jobs) {
    ASSERT_TRUE(j.wait_for(10s));
    EXPECT_EQ(j.result()->status, Status::fixed);
  }
}

TEST(Agent, NewerRevisionSupersedesTheOlderJob) {
  auto blocking = std::make_shared<ScriptedStrategy>("slow", true, /*block=*/true);
  auto agent = Agent::create(options_with({blocking}, "slow"));
  ASSERT_TRUE(agent);
  auto old_job = (*agent)->submit(testkit::sample_request("/x", "c1", 1));
  ASSERT_TRUE(old_job);
  for (int i = 0; i < 200 && !blocking->started; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(blocking->started);
  auto new_job = (*agent)->submit(testkit::sample_request("/x", "c1", 2));
  ASSERT_TRUE(new_job);
  ASSERT_TRUE(old_job->wait_for(10s));
  EXPECT_EQ(old_job->result()->status, Status::superseded);
  EXPECT_EQ(old_job->result()->reason, "newer_revision");
  // An older revision arriving late ends at once.
  auto stale = (*agent)->submit(testkit::sample_request("/x", "c1", 1));
  ASSERT_TRUE(stale);
  EXPECT_TRUE(stale->done());
  EXPECT_EQ(stale->result()->status, Status::superseded);
  new_job->cancel();
  ASSERT_TRUE(new_job->wait_for(10s));
  EXPECT_EQ(new_job->result()->status, Status::error);
  EXPECT_EQ(new_job->result()->reason, "cancelled");
}

TEST(Agent, WallClockLimitEndsTheJob) {
  auto agent = Agent::create(options_with({std::make_shared<ScriptedStrategy>("slow", true, true)}));
  ASSERT_TRUE(agent);
  auto req = testkit::sample_request();
  req.limits.max_wall_seconds = 1;
  auto r = (*agent)->run(req);
  EXPECT_EQ(r.status, Status::no_fix);
  EXPECT_EQ(r.reason, "time_limit");
}

TEST(Agent, DestructorCancelsRunningJobs) {
  auto blocking = std::make_shared<ScriptedStrategy>("slow", true, true);
  Job job;
  {
    auto agent = Agent::create(options_with({blocking}));
    ASSERT_TRUE(agent);
    auto j = (*agent)->submit(testkit::sample_request());
    ASSERT_TRUE(j);
    job = *j;
    for (int i = 0; i < 200 && !blocking->started; ++i) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(job.done());
  EXPECT_EQ(job.result()->reason, "cancelled");
}

TEST(Agent, RejectsBadOptions) {
  AgentOptions o;
  o.worker_threads = 0;
  EXPECT_EQ(Agent::create(o).error().code, Errc::invalid_argument);
  AgentOptions o2 = options_with({nullptr});
  EXPECT_EQ(Agent::create(o2).error().code, Errc::invalid_argument);
}

TEST(CancelToken, CallbacksRunOnceAndLate) {
  CancelToken t;
  int n = 0;
  auto reg = t.on_cancel([&] { ++n; });
  t.cancel();
  t.cancel();
  EXPECT_EQ(n, 1);
  auto late = t.on_cancel([&] { ++n; });
  EXPECT_EQ(n, 2);
  CancelToken u;
  {
    auto gone = u.on_cancel([&] { n += 100; });
  }
  u.cancel();
  EXPECT_EQ(n, 2);
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
