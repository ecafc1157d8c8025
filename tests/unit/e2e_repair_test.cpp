// End to end: real git repositories in C++ (CMake + GoogleTest), Python (pytest) and JavaScript
// (node's test runner), a scripted model server on loopback, the default pipeline.
#include <gtest/gtest.h>

#include <thread>

#include "flowagent/git_workspace.hpp"
#include "flowagent/repair.hpp"
#include "support/scripted_model.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::testkit;
using namespace std::chrono_literals;

namespace {

std::string fingerprint(const fs::path& repo) {
  std::string out;
  sh("cd '" + repo.string() + "' && (git status --porcelain=v2 --untracked-files=all; "
     "find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha256sum; sha256sum .git/index) | sha256sum",
     &out);
  return out;
}

struct Project {
  TempDir tmp;
  fs::path repo = tmp.path() / "repo";
  std::string base, head;
  RepairRequest request;
};

/// Python: add() gains an off-by-one in the change; test_add fails, test_mul passes.
std::unique_ptr<Project> python_project() {
  auto p = std::make_unique<Project>();
  p->base = make_repo(p->repo, {{"calc.py", "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"},
                                {"test_calc.py",
                                 "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\n"
                                 "def test_mul():\n    assert mul(2, 3) == 6\n"},
                                {".gitignore", "__pycache__/\n"}});
  p->head = commit_files(p->repo, {{"calc.py", "def add(a, b):\n    total = a + b + 1\n    return total\n\n\ndef mul(a, b):\n    return a * b\n"}},
                         "Refactor add to use a local");
  auto& r = p->request;
  r.repository = p->repo.string();
  r.change.id = "py-1";
  r.change.base_commit = p->base;
  r.change.head_commit = p->head;
  r.change.description = "Refactor add to use a local";
  r.change.author = {"Dev", "dev@example.com", AuthorKind::person};
  r.change.files = {{"calc.py", 2, 1, false}};
  r.failure.failing_tests = {"test_calc.py::test_add"};
  r.commands.test = "/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}";
  r.commands.wider_test = "/usr/bin/python3 -m pytest -q -p no:cacheprovider";
  r.commands.timeout_seconds = 120;
  r.model.spec = "openai-compatible:scripted";
  // The failing CI log, as CI would have written it.
  std::string log;
  sh("cd '" + p->repo.string() + "' && /usr/bin/python3 -m pytest -q -p no:cacheprovider", &log);
  write_file(p->tmp.path() / "ci.log", log);
  r.failure.logs = {(p->tmp.path() / "ci.log").string()};
  return p;
}

/// Default policies with a private worktree pool under `tmp`, and the model loop as the only
/// strategy: these tests are about the loop; the zero-token tier has its own tests.
AgentOptions loop_options(const fs::path& tmp) {
  AgentOptions o;
  GitWorkspaceOptions w;
  w.root = tmp / "pool";
  o.workspaces = make_git_workspace_provider(w);
  o.strategies = {make_react_strategy()};
  return o;
}

AgentOptions options(const Project& p, const ScriptedModel&) { return loop_options(p.tmp.path()); }

RepairRequest with_model(RepairRequest r, const ScriptedModel& m) {
  r.model.base_url = m.base_url();
  return r;
}

void script_python_fix(ScriptedModel& m, bool run_tests = true) {
  m.push(tool_calls_reply({{"read_file", Json::obj({{"path", "calc.py"}})}}));
  m.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "calc.py"}, {"old_text", "a + b + 1"}, {"new_text", "a + b"}})}}));
  if (run_tests) m.push(tool_calls_reply({{"run_tests", Json::object()}}));
  m.push(final_reply("The refactor added 1 to the sum; removed the extra term."));
}

}  // namespace

TEST(E2EPython, CorrectFixIsValidatedAndDelivered) {
  auto p = python_project();
  ScriptedModel model;
  script_python_fix(model);
  const auto before = fingerprint(p->repo);
  auto agent = Agent::create(options(*p, model));
  ASSERT_TRUE(agent);
  auto r = (*agent)->run(with_model(p->request, model));
  EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  EXPECT_NE(r.patch.find("-    total = a + b + 1\n+    total = a + b\n"), std::string::npos) << r.patch;
  EXPECT_TRUE(r.evidence.failing_tests_pass);
  EXPECT_TRUE(r.evidence.wider_tests_pass);
  // The model ran the tests after its last edit, but only the fresh checkout's run counts.
  EXPECT_FALSE(r.evidence.loop_evidence_used);
  EXPECT_TRUE(r.evidence.fresh_checkout);
  EXPECT_EQ(r.evidence.kind, "structured");
  // The summary went through the sanitizer.
  EXPECT_NE(r.summary.find("<b>Root cause:</b> <code>add()</code>"), std::string::npos) << r.summary;
  EXPECT_EQ(r.summary.find("<script>"), std::string::npos);
  EXPECT_NE(r.summary.find("&lt;script&gt;"), std::string::npos);
  EXPECT_EQ(model.summary_calls, 1);
  EXPECT_EQ(r.metrics.tool_calls, 3);
  EXPECT_GT(r.metrics.input_tokens, 0);
  EXPECT_EQ(fingerprint(p->repo), before);  // the developer's tree was never written
  // The patch applies to the change head with git.
  std::string out;
  write_file(p->tmp.path() / "fix.diff", r.patch);
  ASSERT_EQ(sh("cd '" + p->repo.string() + "' && git stash -q -u && git checkout -q " + p->head +
                " && git apply --check ../fix.diff", &out), 0) << out;
  auto f = (*agent)->funnel();
  EXPECT_EQ(f.received, 1);
  EXPECT_EQ(f.delivered, 1);
  EXPECT_EQ(f.patch_produced, 1);
}

TEST(E2EPython, ClaimWithoutRunningTestsIsChecked) {
  auto p = python_project();
  ScriptedModel model;
  script_python_fix(model, /*run_tests=*/false);
  auto agent = Agent::create(options(*p, model));
  auto r = (*agent)->run(with_model(p->request, model));
  EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  EXPECT_FALSE(r.evidence.loop_evidence_used);  // the validator ran the tests itself
  EXPECT_TRUE(r.evidence.fresh_checkout);
  ASSERT_FALSE(r.evidence.runs.empty());
  EXPECT_EQ(r.evidence.runs[0].purpose, "failing");
}

TEST(E2EPython, WrongFixClaimedAsDoneIsNotDelivered) {
  auto p = python_project();
  ScriptedModel model;
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "calc.py"}, {"old_text", "a + b + 1"}, {"new_text", "a + b + 2"}})}}));
  model.push(final_reply("Fixed it, the tests pass now."));  // a claim, no evidence
  auto agent = Agent::create(options(*p, model));
  auto r = (*agent)->run(with_model(p->request, model));
  EXPECT_EQ(r.status, Status::no_fix);
  EXPECT_EQ(r.reason, "failing_tests_still_fail");
  EXPECT_TRUE(r.patch.empty());
  // The model was shown the verdict before giving up.
  bool shown = false;
  for (const auto& s : r.trajectory) shown |= s.kind == "note" && s.output.find("Validation failed") != std::string::npos;
  EXPECT_TRUE(shown);
}

TEST(E2EPython, FixThatBreaksAnotherTestIsRefused) {
  auto p = python_project();
  ScriptedModel model;
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "calc.py"}, {"old_text", "a + b + 1"}, {"new_text", "a + b"}})}}));
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "calc.py"}, {"old_text", "return a * b"}, {"new_text", "return a * b + 0.5"}})}}));
  model.push(tool_calls_reply({{"run_tests", Json::object()}}));
  model.push(final_reply("Fixed add."));
  auto agent = Agent::create(options(*p, model));
  auto r = (*agent)->run(with_model(p->request, model));
  EXPECT_EQ(r.status, Status::no_fix);
  EXPECT_EQ(r.reason, "regression") << r.message;
  EXPECT_NE(r.message.find("test_mul"), std::string::npos) << r.message;
}

TEST(E2EPython, LoopingModelHitsTheCaps) {
  auto p = python_project();
  {
    ScriptedModel model;
    model.fallback = tool_calls_reply({{"read_file", Json::obj({{"path", "calc.py"}})}});
    auto agent = Agent::create(options(*p, model));
    auto r = (*agent)->run(with_model(p->request, model));
    EXPECT_EQ(r.status, Status::no_fix);
    EXPECT_EQ(r.reason, "loop_stalled") << r.message;
    // One real read, then three identical calls answered without running the tool.
    EXPECT_EQ(r.metrics.tool_calls, 4);
    int executed = 0;
    for (const auto& s : r.trajectory) executed += s.kind == "tool" && s.ok;
    EXPECT_EQ(executed, 1);
  }
  {
    ScriptedModel model;
    std::atomic<int> n{0};
    model.server.set_handler([&](const Recorded&) {
      return Reply::json(tool_calls_reply({{"read_file", Json::obj({{"path", "calc.py"}, {"start_line", 1 + (n++ % 3)}})},
                                           {"list_dir", Json::obj({{"path", "."}})}}));
    });
    auto req = with_model(p->request, model);
    req.limits.max_tool_calls = 7;
    auto agent = Agent::create(options(*p, model));
    auto r = (*agent)->run(req);
    EXPECT_EQ(r.status, Status::no_fix);
    EXPECT_EQ(r.reason, "tool_call_limit") << r.message;
    EXPECT_EQ(r.metrics.tool_calls, 7);
  }
  {
    ScriptedModel model;
    model.fallback = tool_calls_reply({{"list_dir", Json::obj({{"path", "."}})}}, 5000);
    auto req = with_model(p->request, model);
    req.limits.max_tokens = 12000;
    auto agent = Agent::create(options(*p, model));
    auto r = (*agent)->run(req);
    EXPECT_EQ(r.reason, "token_limit") << r.message;
    EXPECT_LE(r.metrics.model_calls, 3);
  }
}

class MovingChange final : public ChangeTracker {
 public:
  std::string_view name() const override { return "moving"; }
  Expected<ChangeState> state(const Change&) override {
    ChangeState s;
    s.current_revision = ++asked > 1 ? 2 : 1;  // the developer uploads revision 2 during the repair
    return s;
  }
  std::atomic<int> asked{0};
};

TEST(E2EPython, ChangeUpdatedMidRepairIsDropped) {
  auto p = python_project();
  ScriptedModel model;
  script_python_fix(model);
  auto o = options(*p, model);
  o.change_tracker = std::make_shared<MovingChange>();
  auto agent = Agent::create(o);
  auto r = (*agent)->run(with_model(p->request, model));
  EXPECT_EQ(r.status, Status::superseded);
  EXPECT_EQ(r.reason, "change_updated");
  EXPECT_TRUE(r.patch.empty());
}

TEST(E2EPython, SlowModelIsCancelled) {
  auto p = python_project();
  ScriptedModel model;
  model.delay = 20s;  // only a cancel that interrupts the model call ends the job within the wait below
  auto agent = Agent::create(options(*p, model));
  auto job = (*agent)->submit(with_model(p->request, model));
  ASSERT_TRUE(job);
  std::this_thread::sleep_for(500ms);
  const auto t0 = std::chrono::steady_clock::now();
  job->cancel();
  ASSERT_TRUE(job->wait_for(10s));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
  EXPECT_EQ(job->result()->status, Status::error);
  EXPECT_EQ(job->result()->reason, "cancelled");
}

TEST(E2EPython, OnlyTheNewerRevisionIsRepaired) {
  auto p = python_project();
  ScriptedModel model;
  model.delay = 300ms;
  script_python_fix(model);
  auto o = options(*p, model);
  o.worker_threads = 2;
  auto agent = Agent::create(o);
  auto r1 = with_model(p->request, model);
  auto j1 = (*agent)->submit(r1);
  std::this_thread::sleep_for(100ms);
  auto r2 = r1;
  r2.change.revision = 2;
  auto j2 = (*agent)->submit(r2);
  ASSERT_TRUE(j1 && j2);
  ASSERT_TRUE(j1->wait_for(60s));
  ASSERT_TRUE(j2->wait_for(120s));
  EXPECT_EQ(j1->result()->status, Status::superseded);
  EXPECT_EQ(j2->result()->status, Status::fixed) << j2->result()->reason << ": " << j2->result()->message;
}

TEST(E2EJavaScript, NodeTestRunner) {
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto base = make_repo(repo, {{"sum.js", "function sum(a, b) { return a + b; }\nmodule.exports = sum;\n"},
                               {"test/sum.test.js",
                                "const test = require('node:test');\nconst assert = require('node:assert');\n"
                                "const sum = require('../sum');\ntest('adds', () => { assert.strictEqual(sum(1, 2), 3); });\n"
                                "test('zero', () => { assert.strictEqual(sum(0, 0), 0); });\n"}});
  auto head = commit_files(repo, {{"sum.js", "function sum(a, b) { return a - b; }\n"
                                            "function mean(xs) { return xs.reduce(sum, 0) / xs.length; }\n"
                                            "function range(xs) { return Math.max(...xs) - Math.min(...xs); }\n"
                                            "module.exports = sum;\nmodule.exports.mean = mean;\nmodule.exports.range = range;\n"}},
                           "Add mean and range");
  ScriptedModel model;
  model.push(tool_calls_reply({{"search_code", Json::obj({{"pattern", "function sum"}})}}));
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "sum.js"}, {"old_text", "a - b"}, {"new_text", "a + b"}})}}));
  model.push(tool_calls_reply({{"run_tests", Json::object()}}));
  model.push(final_reply("sum() subtracted instead of adding."));
  RepairRequest r;
  r.repository = repo.string();
  r.change = {"js-1", 1, base, head, "Add mean and range", {"Dev", "d@x", AuthorKind::person}, {{"sum.js", 5, 1, false}}};
  r.failure.failing_tests = {"adds"};
  r.commands.test = "node --test --test-reporter=tap";
  r.model.spec = "openai-compatible:scripted";
  r.model.base_url = model.base_url();
  auto agent = Agent::create(loop_options(tmp.path()));
  auto res = (*agent)->run(r);
  EXPECT_EQ(res.status, Status::fixed) << res.reason << ": " << res.message;
  EXPECT_NE(res.patch.find("+function sum(a, b) { return a + b; }"), std::string::npos);
  ASSERT_FALSE(res.evidence.runs.empty());
  EXPECT_NE(std::find(res.evidence.runs[0].passed.begin(), res.evidence.runs[0].passed.end(), "adds"),
            res.evidence.runs[0].passed.end());
  EXPECT_EQ(res.evidence.runs[0].report_format, "output:tap");  // the command's own TAP reporter
}

TEST(E2ECpp, CMakeAndGoogleTest) {
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto base = make_repo(
      repo, {{"CMakeLists.txt",
              "cmake_minimum_required(VERSION 3.20)\nproject(calc CXX)\nfind_package(GTest REQUIRED)\n"
              "add_library(calc calc.cc)\nadd_executable(calc_test calc_test.cc)\n"
              "target_link_libraries(calc_test calc GTest::gtest_main)\n"},
             {"calc.h", "int scale(int x);\n"},
             {"calc.cc", "#include \"calc.h\"\nint scale(int x) { return x * 2; }\n"},
             {"calc_test.cc", "#include <gtest/gtest.h>\n#include \"calc.h\"\nTEST(Calc, Scale) { EXPECT_EQ(scale(3), 6); }\n"
                              "TEST(Calc, Zero) { EXPECT_EQ(scale(0), 0); }\n"},
             {".gitignore", "build/\n"}});
  auto head = commit_files(repo, {{"calc.cc", "#include \"calc.h\"\nint scale(int x) { return x * 3; }\n"
                                             "int cube(int x) { return x * x * x; }\nint square(int x) { return x * x; }\n"},
                                  {"calc.h", "int scale(int x);\nint cube(int x);\nint square(int x);\n"}},
                           "Add cube and square");
  ScriptedModel model;
  model.push(tool_calls_reply({{"build", Json::object()}}));
  model.push(tool_calls_reply({{"run_tests", Json::object()}}));
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "calc.cc"}, {"old_text", "x * 3"}, {"new_text", "x * 2"}})}}));
  model.push(tool_calls_reply({{"build", Json::object()}, {"run_tests", Json::object()}}));
  model.push(final_reply("scale() multiplied by 3 instead of 2."));
  RepairRequest r;
  r.repository = repo.string();
  r.change = {"cpp-1", 1, base, head, "Add cube and square", {"Dev", "d@x", AuthorKind::person}, {{"calc.cc", 3, 1, false}}};
  r.failure.failing_tests = {"Calc.Scale"};
  r.commands.build = "cmake -S . -B build -G Ninja >/dev/null && cmake --build build";
  r.commands.test = "./build/calc_test --gtest_filter={tests|:}";
  r.commands.wider_test = "./build/calc_test";
  r.commands.timeout_seconds = 300;
  r.model.spec = "openai-compatible:scripted";
  r.model.base_url = model.base_url();
  auto agent = Agent::create(loop_options(tmp.path()));
  auto res = (*agent)->run(r);
  EXPECT_EQ(res.status, Status::fixed) << res.reason << ": " << res.message;
  EXPECT_NE(res.patch.find("+int scale(int x) { return x * 2; }"), std::string::npos) << res.patch;
  EXPECT_EQ(res.patch.find("build/"), std::string::npos);
  EXPECT_TRUE(res.evidence.build_ok);
  EXPECT_TRUE(res.evidence.wider_tests_pass);
  // Validated in a fresh checkout (a from-scratch build), from GoogleTest's own JSON report.
  EXPECT_TRUE(res.evidence.fresh_checkout);
  ASSERT_FALSE(res.evidence.runs.empty());
  EXPECT_EQ(res.evidence.runs[0].report_format, "report:gtest-json");
  EXPECT_EQ(res.evidence.runs[0].passed, std::vector<std::string>{"Calc.Scale"});
  RecordProperty("repair_ms", static_cast<int>(res.metrics.phase_ms["repair"]));
  RecordProperty("validate_ms", static_cast<int>(res.metrics.phase_ms["validate"]));
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
