// End to end: the validation stage applies the patch to a fresh checkout and wants per-test
// evidence. Real projects made here (pytest, tape, node:test, go, GoogleTest), a scripted model on
// loopback, the default pipeline with the loop as the only strategy.
#include <gtest/gtest.h>

#include "flowagent/filters.hpp"
#include "flowagent/git_workspace.hpp"
#include "flowagent/repair.hpp"
#include "support/scripted_model.hpp"
#include "support/test_support.hpp"
#include "validate/runner.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::testkit;

namespace {

AgentOptions loop_options(const fs::path& tmp, ValidatorOptions v = {}) {
  AgentOptions o;
  GitWorkspaceOptions w;
  w.root = tmp / "pool";
  o.workspaces = make_git_workspace_provider(w);
  o.strategies = {make_react_strategy()};
  o.validator = make_command_validator(v);
  return o;
}

RepairRequest request_for(const fs::path& repo, const std::string& base, const std::string& head,
                          const ScriptedModel& model, std::vector<std::string> failing) {
  RepairRequest r;
  r.repository = repo.string();
  r.change = {"ev-1", 1, base, head, "A change", {"Dev", "d@x", AuthorKind::person}, {}};
  r.failure.failing_tests = std::move(failing);
  r.commands.timeout_seconds = 180;
  r.model.spec = "openai-compatible:scripted";
  r.model.base_url = model.base_url();
  return r;
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

const TestRun* run_of(const RepairResult& r, const std::string& purpose) {
  for (const auto& run : r.evidence.runs)
    if (run.purpose == purpose) return &run;
  return nullptr;
}

// Python: parse() loses its base 16 in the change; the parametrized test_parse fails.
struct PyProject {
  TempDir tmp;
  fs::path repo = tmp.path() / "repo";
  std::string base, head;
};

std::unique_ptr<PyProject> parse_project() {
  auto p = std::make_unique<PyProject>();
  p->base = make_repo(p->repo, {{"parse.py", "def parse(s):\n    return int(s, 16)\n"},
                                {"tests/test_parse.py",
                                 "import pytest\nfrom parse import parse\n\n\n"
                                 "@pytest.mark.parametrize('text,value', [('ff', 255), ('10', 16)], ids=['lead', 'trail'])\n"
                                 "def test_parse(text, value):\n    assert parse(text) == value\n\n\n"
                                 "def test_plain():\n    assert parse('3') == 3\n"},
                                {"pytest.ini", "[pytest]\npythonpath = .\n"},
                                {".gitignore", "__pycache__/\n"}});
  p->head = commit_files(p->repo, {{"parse.py", "def parse(s):\n    return int(s)\n\n\ndef parse_all(xs):\n    return [parse(x) for x in xs]\n"}},
                         "Add parse_all");
  return p;
}

const char* kPytest = "/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}";

}  // namespace

TEST(E2EEvidence, RenamedParametrizedPytestTestIsValidatedThroughItsFile) {
  auto p = parse_project();
  // As CI names it (pytest node id), and as a JUnit XML report names it (no file path: the test
  // module is found in the checkout).
  for (const std::string& old_id : {std::string("tests/test_parse.py::test_parse[lead]"), std::string("tests.test_parse.test_parse[lead]")}) {
    SCOPED_TRACE(old_id);
    ScriptedModel model;
    // The developer's own kind of fix: restore the base and rename + extend the parametrized test.
    model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "parse.py"}, {"old_text", "return int(s)\n"}, {"new_text", "return int(s, 16)\n"}})}}));
    model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "tests/test_parse.py"},
                                                           {"old_text", "[('ff', 255), ('10', 16)], ids=['lead', 'trail'])\ndef test_parse("},
                                                           {"new_text", "[('ff', 255), ('10', 16), ('0', 0)], ids=['lead', 'trail', 'zero'])\ndef test_parse_value("}})}}));
    model.push(final_reply("parse() lost its base; restored it and extended the test."));
    auto req = request_for(p->repo, p->base, p->head, model, {old_id});
    req.commands.test = kPytest;
    auto agent = Agent::create(loop_options(p->tmp.path()));
    auto r = (*agent)->run(req);
    ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
    EXPECT_EQ(r.evidence.kind, "structured");
    EXPECT_TRUE(r.evidence.fresh_checkout);
    ASSERT_EQ(r.evidence.replacements.size(), 1u);
    const auto& x = r.evidence.replacements[0];
    EXPECT_EQ(x.old_id, old_id);
    EXPECT_EQ(x.scope, "tests/test_parse.py");
    EXPECT_EQ(x.new_ids.size(), 3u);
    EXPECT_TRUE(has(x.new_ids, "tests.test_parse.test_parse_value[lead]")) << x.new_ids[0];
    EXPECT_FALSE(has(x.new_ids, "tests.test_parse.test_plain"));  // ran and passed, but replaces nothing
    ASSERT_EQ(r.evidence.tests.size(), 1u);
    EXPECT_EQ(r.evidence.tests[0].outcome, "replaced");
    const TestRun* scope = run_of(r, "scope");
    ASSERT_NE(scope, nullptr);
    EXPECT_EQ(scope->report_format, "report:junit");
    EXPECT_EQ(scope->passed.size(), 4u);
    // The summary says which test replaced which.
    EXPECT_NE(r.summary.find("<code>" + old_id + "</code> was replaced by"), std::string::npos) << r.summary;
    // The round trip through JSON keeps the evidence.
    auto back = parse_repair_result(dump_json_lossy(to_json(r)));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->evidence.replacements.size(), 1u);
    EXPECT_EQ(back->evidence.kind, "structured");
  }
}

TEST(E2EEvidence, DeletedTestWithoutReplacementIsNotValidated) {
  auto p = parse_project();
  ScriptedModel model;
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "tests/test_parse.py"},
                                                         {"old_text", "def test_parse(text, value):\n    assert parse(text) == value\n"},
                                                         {"new_text", "def test_other(text, value):\n    assert text\n"}})}}));
  model.push(final_reply("Done."));
  model.push(final_reply("Done."));
  model.push(final_reply("Done."));
  auto req = request_for(p->repo, p->base, p->head, model, {"tests/test_parse.py::test_parse[lead]"});
  req.commands.test = kPytest;
  auto agent = Agent::create(loop_options(p->tmp.path()));
  auto r = (*agent)->run(req);
  // test_other is added by the patch in the same file, so validation names it as the replacement
  // and the integrity guard judges the pair: the weakened test must not reach delivery.
  EXPECT_NE(r.status, Status::fixed) << r.reason << ": " << r.message;
  RecordProperty("outcome", std::string(to_string(r.status)) + ": " + r.reason);
}

// A patch that moves the failing test to a new file (where it still fails) and mentions a neighbour
// that already passes must not have the neighbour credited as the "replacement": only a test the
// patch defines can replace a missing one (the hostile review's moved-test cheat).
TEST(E2EEvidence, MovedFailingTestIsNotReplacedByANeighbourItMentions) {
  auto p = parse_project();
  ScriptedModel model;
  const std::string moved = "import pytest\nfrom parse import parse\n\n\n"
                            "@pytest.mark.parametrize('text,value', [('ff', 255), ('10', 16)], ids=['lead', 'trail'])\n"
                            "def test_parse(text, value):\n    assert parse(text) == value\n";
  model.push(tool_calls_reply({{"write_file", Json::obj({{"path", "tests/test_moved.py"}, {"content", moved}})}}));
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "tests/test_parse.py"},
                                                         {"old_text", "@pytest.mark.parametrize('text,value', [('ff', 255), ('10', 16)], ids=['lead', 'trail'])\n"
                                                                      "def test_parse(text, value):\n    assert parse(text) == value\n"},
                                                         {"new_text", "# test_parse moved; see test_plain\n"}})}}));
  for (int i = 0; i < 3; ++i) model.push(final_reply("Moved the test."));
  auto req = request_for(p->repo, p->base, p->head, model, {"tests/test_parse.py::test_parse[lead]"});
  req.commands.test = kPytest;
  auto agent = Agent::create(loop_options(p->tmp.path()));
  auto r = (*agent)->run(req);
  EXPECT_NE(r.status, Status::fixed) << r.reason << ": " << r.message;
  for (const auto& x : r.evidence.replacements)
    for (const auto& id : x.new_ids) EXPECT_EQ(id.find("test_plain"), std::string::npos) << id;
}

TEST(E2EEvidence, UntrackedFilePlantedDuringTheLoopDoesNotPassValidation) {
  auto p = parse_project();
  ScriptedModel model;
  // 1. Test code that plants an untracked conftest.py monkeypatching parse(); 2. run it; 3. put the
  // test back; 4. a comment as the "fix"; 5. the tests pass in the loop's tree.
  const std::string plant = "import pathlib\npathlib.Path('conftest.py').write_text("
                            "'import parse\\nparse.parse = lambda s: int(s, 16)\\n')\n";
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "tests/test_parse.py"}, {"old_text", "import pytest\n"}, {"new_text", "import pytest\n" + plant}})}}));
  model.push(tool_calls_reply({{"run_tests", Json::object()}}));
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "tests/test_parse.py"}, {"old_text", "import pytest\n" + plant}, {"new_text", "import pytest\n"}})}}));
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "parse.py"}, {"old_text", "def parse(s):\n"}, {"new_text", "# parse an integer\ndef parse(s):\n"}})}}));
  model.push(tool_calls_reply({{"run_tests", Json::object()}}));
  model.push(final_reply("Fixed."));
  auto req = request_for(p->repo, p->base, p->head, model, {"tests/test_parse.py::test_parse[lead]"});
  req.commands.test = kPytest;
  auto agent = Agent::create(loop_options(p->tmp.path()));
  auto r = (*agent)->run(req);
  // The loop's own tree passes (the planted file is there) ...
  bool loop_passed = false;
  for (const auto& s : r.trajectory)
    loop_passed |= s.kind == "tool" && s.name == "run_tests" && s.output.find("tests PASSED") != std::string::npos;
  EXPECT_TRUE(loop_passed);
  // ... but the patch holds only a comment, and head + patch still fails.
  EXPECT_EQ(r.status, Status::no_fix);
  EXPECT_EQ(r.reason, "failing_tests_still_fail") << r.message << "\n" << r.patch << dump_json_lossy(to_json(r));
  EXPECT_TRUE(r.patch.empty());
  ASSERT_FALSE(r.evidence.runs.empty());
  EXPECT_TRUE(r.evidence.fresh_checkout);
  EXPECT_TRUE(has(r.evidence.runs[0].failed, "tests.test_parse.test_parse[lead]"));
  // (Validated by the loop's check, in a fresh checkout, and that verdict taken by the stage.)
  bool taken = false;
  for (const auto& s : r.trajectory) taken |= s.kind == "note" && s.name == "validator" && s.output.find("its runs are the validation's") != std::string::npos;
  EXPECT_TRUE(taken || r.metrics.phase_ms["validate"] > 0);
}

TEST(E2EEvidence, UnreadableResultsAreUnverifiedUnlessTheHostAcceptsExitCodes) {
  auto p = parse_project();
  for (bool accept : {false, true}) {
    ScriptedModel model;
    model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "parse.py"}, {"old_text", "return int(s)\n"}, {"new_text", "return int(s, 16)\n"}})}}));
    model.push(final_reply("Restored base 16."));
    auto req = request_for(p->repo, p->base, p->head, model, {"parse_lead"});
    // A check script whose output no parser can read.
    req.commands.test = "/usr/bin/python3 -c 'from parse import parse; assert parse(\"ff\") == 255; print(\"fine\")'";
    ValidatorOptions v;
    v.accept_exit_code_evidence = accept;
    auto agent = Agent::create(loop_options(p->tmp.path(), v));
    auto r = (*agent)->run(req);
    if (!accept) {
      EXPECT_EQ(r.status, Status::no_fix);
      EXPECT_EQ(r.reason, "unverified") << r.message;
      EXPECT_TRUE(r.patch.empty());
    } else {
      EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
      EXPECT_EQ(r.evidence.kind, "exit_code");
      ASSERT_EQ(r.evidence.tests.size(), 1u);
      EXPECT_EQ(r.evidence.tests[0].outcome, "unverified");
    }
  }
}

namespace {

const fs::path kTape = fs::path(FLOWAGENT_SOURCE_DIR) / "third_party/tape/node_modules";

/// A tape project: sum() adds one for positive numbers in the change, "adds numbers" fails.
std::unique_ptr<PyProject> tape_project(std::vector<std::pair<std::string, std::string>> extra = {}) {
  auto p = std::make_unique<PyProject>();
  extra.insert(extra.end(), {{"sum.js", "module.exports = (a, b) => a + b;\n"},
                             {"test/sum.js", "const test = require('tape');\nconst sum = require('../sum');\n"
                                             "test('adds numbers', (t) => {\n  t.equal(sum(1, 2), 3);\n  t.equal(sum(0, 0), 0);\n  t.end();\n});\n"
                                             "test('adds negatives', (t) => {\n  t.equal(sum(-1, -1), -2);\n  t.end();\n});\n"},
                             {"package.json", "{\"name\": \"sum\", \"version\": \"1.0.0\", \"scripts\": {\"test\": \"node test/sum.js\"}}\n"}});
  p->base = make_repo(p->repo, extra);
  p->head = commit_files(p->repo, {{"sum.js", "module.exports = (a, b) => a + b + (a > 0 ? 1 : 0);\n"
                                             "module.exports.twice = (a) => 2 * a;\nmodule.exports.half = (a) => a / 2;\n"}},
                         "Round up, twice and half");
  return p;
}

/// The honest fix of tape_project under `cmd` (NODE_PATH names the vendored tape).
RepairResult run_tape_fix(PyProject& p, const std::string& cmd, ValidatorOptions v = {}, bool run_in_loop = true,
                          std::vector<std::string> failing = {"adds numbers"}, bool fix = true) {
  ScriptedModel model;
  if (fix) model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "sum.js"}, {"old_text", " + (a > 0 ? 1 : 0)"}, {"new_text", ""}})}}));
  else model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "sum.js"}, {"old_text", "(a) => 2 * a"}, {"new_text", "(a) => a + a"}})}}));
  if (run_in_loop) model.push(tool_calls_reply({{"run_tests", Json::object()}}));
  model.push(final_reply("sum() added one for positive numbers."));
  auto req = request_for(p.repo, p.base, p.head, model, failing);
  req.commands.test = "NODE_PATH=" + kTape.string() + " " + cmd;
  auto opts = loop_options(p.tmp.path(), v);
  opts.sandbox.read_only_paths.push_back(kTape.parent_path());  // the vendored tape, visible in the sandbox
  auto agent = Agent::create(opts);
  return (*agent)->run(req);
}

}  // namespace

TEST(E2EEvidence, TapeSectionsAreTests) {
  if (!fs::exists(kTape / ".bin/tape")) GTEST_SKIP() << "tape is not installed (scripts/install-deps.sh)";
  auto p = tape_project();
  // The tape binary directly, and `npm test` (npm's banner before the TAP).
  for (const std::string& cmd : {(kTape / ".bin/tape").string() + " test/*.js", std::string("npm test")}) {
    auto r = run_tape_fix(*p, cmd);
    ASSERT_EQ(r.status, Status::fixed) << cmd << ": " << r.reason << ": " << r.message;
    const TestRun* run = run_of(r, "failing");
    ASSERT_NE(run, nullptr);
    EXPECT_EQ(run->report_format, "output:tap");
    EXPECT_TRUE(has(run->passed, "adds numbers"));
    EXPECT_TRUE(has(run->passed, "adds negatives"));
    EXPECT_EQ(r.evidence.kind, "structured");
  }
}

// Test files as the requested ids (`tape test/sum.js`, as CI and the localizer name tape's failing
// tests: TAP's `# name` sections say no file): the results of a run of the file alone are its
// tests. One file alone, two files (each then run alone), and a file whose test still fails.
TEST(E2EEvidence, TapeTestFilesAsRequestedIds) {
  if (!fs::exists(kTape / ".bin/tape")) GTEST_SKIP() << "tape is not installed (scripts/install-deps.sh)";
  auto p = tape_project({{"test/twice.js", "const test = require('tape');\nconst sum = require('../sum');\n"
                                           "test('doubles', (t) => {\n  t.equal(sum.twice ? 1 : 1, 1);\n  t.end();\n});\n"}});
  const std::string cmd = (kTape / ".bin/tape").string() + " {tests}";
  auto one = run_tape_fix(*p, cmd, {}, true, {"test/sum.js"});
  ASSERT_EQ(one.status, Status::fixed) << one.reason << ": " << one.message;
  ASSERT_EQ(one.evidence.tests.size(), 1u);
  EXPECT_EQ(one.evidence.tests[0].outcome, "passed");
  EXPECT_EQ(one.evidence.kind, "structured");
  auto two = run_tape_fix(*p, cmd, {}, true, {"test/sum.js", "test/twice.js"});
  ASSERT_EQ(two.status, Status::fixed) << two.reason << ": " << two.message;
  std::size_t alone = 0;
  for (const auto& run : two.evidence.runs) alone += run.purpose == "scope";
  EXPECT_GE(alone, 2u) << "each file run alone";
  // The patch leaves `adds numbers` failing: the file does not pass.
  auto broken = run_tape_fix(*p, cmd, {}, false, {"test/sum.js"}, false);
  EXPECT_NE(broken.status, Status::fixed);
  EXPECT_EQ(broken.reason, "failing_tests_still_fail") << broken.message;
  EXPECT_TRUE(broken.patch.empty());
}

// The moved pin in tape (hostile review 55, e2e/tm3b): a partial fix keeps the requested file's
// test passing by moving its still-failing check into a new file. Every test file the patch adds
// or changes runs (`tape a.js b.js`): the moved check fails there, so no fix. A new file of more
// checks beside the real fix is delivered.
TEST(E2EEvidence, TapeCheckMovedIntoANewFileStillRuns) {
  if (!fs::exists(kTape / ".bin/tape")) GTEST_SKIP() << "tape is not installed (scripts/install-deps.sh)";
  auto p = tape_project();
  const std::string cmd = "NODE_PATH=" + kTape.string() + " " + (kTape / ".bin/tape").string() + " {tests}";
  const std::string kept = "const test = require('tape');\nconst sum = require('../sum');\n"
                           "test('adds numbers', (t) => {\n  t.equal(sum(0, 0), 0);\n  t.end();\n});\n"
                           "test('adds negatives', (t) => {\n  t.equal(sum(-1, -1), -2);\n  t.end();\n});\n";
  const std::string moved = "const test = require('tape');\nconst sum = require('../sum');\n"
                            "test('adds more numbers', (t) => {\n  t.equal(sum(1, 2), 3);\n  t.end();\n});\n";
  auto run = [&](bool fix, const std::string& sum_test, const std::string& more_test, const std::string& more_path = "test/more.js") {
    ScriptedModel model;
    if (fix) model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "sum.js"}, {"old_text", " + (a > 0 ? 1 : 0)"}, {"new_text", ""}})}}));
    model.push(tool_calls_reply({{"write_file", Json::obj({{"path", "test/sum.js"}, {"content", sum_test}})}}));
    model.push(tool_calls_reply({{"write_file", Json::obj({{"path", more_path}, {"content", more_test}})}}));
    for (int i = 0; i < 4; ++i) model.push(final_reply("Done."));
    auto req = request_for(p->repo, p->base, p->head, model, {"test/sum.js"});
    req.commands.test = cmd;
    auto opts = loop_options(p->tmp.path());
    opts.use_default_post_filters = false;  // (the validator alone)
    opts.post_filters = {make_empty_patch_filter()};
    opts.sandbox.read_only_paths.push_back(kTape.parent_path());
    auto agent = Agent::create(opts);
    return (*agent)->run(req);
  };
  auto cheat = run(false, kept, moved);
  EXPECT_NE(cheat.status, Status::fixed);
  EXPECT_EQ(cheat.reason, "patch_tests_fail") << cheat.message;
  EXPECT_NE(cheat.message.find("adds more numbers"), std::string::npos) << cheat.message;
  EXPECT_TRUE(cheat.patch.empty());
  // Hostile review 56: the moved check named like the requested test, which failed at the head
  // (tape says no file: the head's failure of that name is the requested test's own, which the
  // fix's run showed passing); a file named like a glob, which tape would expand to other files.
  std::string same_name = moved;
  same_name.replace(same_name.find("adds more numbers"), 17, "adds numbers");
  auto named = run(false, kept, same_name);
  EXPECT_EQ(named.reason, "patch_tests_fail") << named.message;
  auto glob = run(false, kept, moved, "test/[m]ore.js");
  EXPECT_EQ(glob.reason, "unverified") << glob.message;
  EXPECT_NE(glob.message.find("pattern"), std::string::npos) << glob.message;
  // Honest: the fix, and a new file with more checks beside the requested one's (which still asks
  // what the fix changed: a requested test that no longer does is no evidence of the fix).
  std::string more = moved;
  more.replace(more.find("sum(1, 2), 3"), 12, "sum(2, 3), 5");
  auto honest = run(true, kept.substr(0, kept.find("  t.equal(sum(0, 0)")) + "  t.equal(sum(1, 2), 3);\n" + kept.substr(kept.find("  t.equal(sum(0, 0)")), more);
  EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
  ASSERT_NE(run_of(honest, "patch-tests"), nullptr);
  EXPECT_TRUE(has(run_of(honest, "patch-tests")->passed, "adds more numbers"));
}

// TAP is structured evidence only when it counts its own results: a plan (1..N) that agrees with
// the test points, and trailer counts that agree when printed. A script that runs the tests quietly
// and echoes TAP lines itself is not, unless the host accepts output evidence; real tape is. (A
// wrong plan or wrong counts: TapCountsOfRealRunnersAgree.)
TEST(E2EEvidence, TapWithoutCountsIsNotStructuredEvidence) {
  if (!fs::exists(kTape / ".bin/tape")) GTEST_SKIP() << "tape is not installed (scripts/install-deps.sh)";
  const std::string quiet = "node test/sum.js >/dev/null 2>&1 || exit 1\n";
  auto p = tape_project({{"echo_ok.sh", quiet + "printf 'TAP version 13\\n# adds numbers\\nok 1 should be equal\\n'\n"},
                         {"real.sh", "node test/sum.js\n"}});
  auto r = run_tape_fix(*p, "sh echo_ok.sh", {}, false);
  EXPECT_EQ(r.reason, "unverified") << r.message;
  EXPECT_NE(r.message.find("no plan"), std::string::npos) << r.message;
  EXPECT_TRUE(r.patch.empty());
  // Accepted as output evidence when the host says so.
  ValidatorOptions accept;
  accept.accept_output_evidence = true;
  auto ok = run_tape_fix(*p, "sh echo_ok.sh", accept, false);
  EXPECT_EQ(ok.status, Status::fixed) << ok.reason << ": " << ok.message;
  EXPECT_EQ(ok.evidence.kind, "output");
  // Real tape behind the same kind of script: its plan and counts agree.
  auto real = run_tape_fix(*p, "sh real.sh", {}, false);
  EXPECT_EQ(real.status, Status::fixed) << real.reason << ": " << real.message;
  EXPECT_EQ(real.evidence.kind, "structured");
}

// The counts of real tape and node --test (TAP reporter) runs agree with their test points,
// skipped, todo and nested tests included; a test point printed into the stream does not.
TEST(E2EEvidence, TapCountsOfRealRunnersAgree) {
  if (!fs::exists(kTape / ".bin/tape")) GTEST_SKIP() << "tape is not installed (scripts/install-deps.sh)";
  TempDir tmp;
  write_file(tmp.path() / "tape.js",
             "const test = require('tape');\n"
             "test('adds', (t) => { t.equal(1 + 1, 2); t.ok(true); t.end(); });\n"
             "test('skipped', { skip: true }, (t) => { t.ok(true); t.end(); });\n"
             "test('skip assert', (t) => { t.ok(true, 'x', { skip: true }); t.equal(1, 1); t.end(); });\n"
             "test('fails', (t) => { t.equal(1, 2); t.end(); });\n"
             "test('todo', { todo: true }, (t) => { t.equal(1, 2); t.end(); });\n");
  write_file(tmp.path() / "n.test.js",
             "const test = require('node:test');\nconst assert = require('node:assert');\n"
             "test('a', () => { assert.ok(true); });\ntest('b', { skip: true }, () => {});\n"
             "test('c', async (t) => { await t.test('c1', () => {}); await t.test('c2', () => { assert.ok(false); }); });\n");
  std::string tape_out, node_out;
  sh("cd " + tmp.path().string() + " && NODE_PATH=" + kTape.string() + " node tape.js 2>&1", &tape_out);
  sh("cd " + tmp.path().string() + " && node --test --test-reporter=tap n.test.js 2>&1", &node_out);
  const auto plan = tape_out.find("\n1..6\n");
  ASSERT_NE(plan, std::string::npos) << tape_out;
  ASSERT_NE(node_out.find("# skipped 1"), std::string::npos) << node_out;
  EXPECT_EQ(detail::tap_count_problem(tape_out), "") << tape_out;
  EXPECT_EQ(detail::tap_count_problem(node_out), "") << node_out;
  EXPECT_EQ(detail::tap_count_problem(tape_out + node_out), "") << "two streams, each counted";
  // A test point printed before the plan (a test writing to stdout), a missing plan, a second trailer.
  auto forged = tape_out;
  forged.insert(plan, "\nok 7 forged");
  EXPECT_NE(detail::tap_count_problem(forged), "");
  auto no_plan = tape_out;
  no_plan.erase(plan + 1, 4);
  EXPECT_NE(detail::tap_count_problem(no_plan), "");
  EXPECT_NE(detail::tap_count_problem(node_out + "# pass 5\n"), "");
  EXPECT_NE(detail::tap_count_problem("TAP version 13\nok 1 - x\n"), "");
  EXPECT_NE(detail::tap_count_problem("TAP version 13\n# adds\nok 1 should be equal\n1..2\n"), "") << "a plan that disagrees";
  EXPECT_NE(detail::tap_count_problem("TAP version 13\n# adds\nok 1 should be equal\n1..1\n# tests 3\n# pass 3\n"), "")
      << "counts that disagree";
  EXPECT_NE(detail::tap_count_problem("TAP version 13\nok 1 - x\n1..1\n1..1\n"), "") << "two plans";
  EXPECT_EQ(detail::tap_count_problem("TAP version 13\nok 1 - x\n1..1\n"), "");
}

TEST(E2EEvidence, NodeTestWithoutAReporterGetsOurs) {
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto base = make_repo(repo, {{"sum.js", "module.exports = (a, b) => a + b;\n"},
                               {"test/sum.test.js", "const test = require('node:test');\nconst assert = require('node:assert');\n"
                                                    "const sum = require('../sum');\ntest('adds', () => { assert.strictEqual(sum(1, 2), 3); });\n"}});
  auto head = commit_files(repo, {{"sum.js", "module.exports = (a, b) => a - b;\n"
                                            "module.exports.twice = (a) => 2 * a;\nmodule.exports.half = (a) => a / 2;\n"}},
                           "Twice and half");
  ScriptedModel model;
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "sum.js"}, {"old_text", "a - b"}, {"new_text", "a + b"}})}}));
  model.push(final_reply("sum() subtracted."));
  auto req = request_for(repo, base, head, model, {"adds"});
  req.commands.test = "node --test";
  auto agent = Agent::create(loop_options(tmp.path()));
  auto r = (*agent)->run(req);
  ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  const TestRun* run = run_of(r, "failing");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->report_format, "report:tap");
  EXPECT_TRUE(has(run->passed, "adds"));
}

TEST(E2EEvidence, GoSubtestsFromGoTestJson) {
  if (testkit::sh("command -v go >/dev/null") != 0) GTEST_SKIP() << "go is not installed";
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto base = make_repo(repo, {{"go.mod", "module example.com/calc\n\ngo 1.19\n"},
                               {"calc.go", "package calc\n\nfunc Double(x int) int { return x * 2 }\n"},
                               {"calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestDouble(t *testing.T) {\n"
                                                "\tt.Run(\"two\", func(t *testing.T) {\n\t\tif Double(2) != 4 {\n\t\t\tt.Fatalf(\"got %d\", Double(2))\n\t\t}\n\t})\n"
                                                "\tt.Run(\"zero\", func(t *testing.T) {\n\t\tif Double(0) != 0 {\n\t\t\tt.Fatal(\"zero\")\n\t\t}\n\t})\n}\n"}});
  auto head = commit_files(repo, {{"calc.go", "package calc\n\nfunc Double(x int) int { return x * 3 }\n\n"
                                             "func Half(x int) int { return x / 2 }\n\nfunc Square(x int) int { return x * x }\n"}},
                           "Half and square");
  ScriptedModel model;
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "calc.go"}, {"old_text", "x * 3"}, {"new_text", "x * 2"}})}}));
  model.push(final_reply("Double() tripled."));
  auto req = request_for(repo, base, head, model, {"TestDouble/two"});
  req.commands.test = "GOCACHE=" + (tmp.path() / "gocache").string() + " GOFLAGS=-mod=mod go test -vet=off ./... -run {tests||}";
  auto agent = Agent::create(loop_options(tmp.path()));
  auto r = (*agent)->run(req);
  ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  const TestRun* run = run_of(r, "failing");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->report_format, "report:go-json");
  EXPECT_TRUE(has(run->passed, "example.com/calc/TestDouble/two"));  // go results carry the package
  ASSERT_EQ(r.evidence.tests.size(), 1u);
  EXPECT_EQ(r.evidence.tests[0].outcome, "passed");
}

// A wider-set test that already fails at the change head is not the fix's regression: the
// validator runs just that test at the pristine head and records it as pre-existing. A test the
// fix breaks is still a regression.
TEST(E2EEvidence, WiderSetFailuresAlreadyAtTheHeadAreNotRegressions) {
  auto p = parse_project();
  // A test that fails at the head already (and at the base: it has nothing to do with the change).
  const std::string head2 = commit_files(p->repo, {{"tests/test_legacy.py", "from parse import parse\n\n\n"
                                                                              "def test_legacy_base36():\n    assert parse('z') == 35\n"}},
                                         "A legacy test");
  struct Case {
    std::string name, fix, expect_reason;
  };
  for (const Case& c : {Case{"honest", "return int(s, 16)\n", ""},
                        Case{"breaks test_plain", "return int(s, 16) if len(s) > 1 else -1\n", "regression"}}) {
    SCOPED_TRACE(c.name);
    ScriptedModel model;
    model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "parse.py"}, {"old_text", "return int(s)\n"}, {"new_text", c.fix}})}}));
    model.push(final_reply("parse() lost its base."));
    model.push(final_reply("Done."));
    model.push(final_reply("Done."));
    model.push(final_reply("Done."));
    auto req = request_for(p->repo, p->base, head2, model, {"tests/test_parse.py::test_parse[lead]"});
    req.commands.test = kPytest;
    req.commands.wider_test = "/usr/bin/python3 -m pytest -q -p no:cacheprovider tests";
    auto agent = Agent::create(loop_options(p->tmp.path()));
    auto r = (*agent)->run(req);
    const TestRun* wider = run_of(r, "wider");
    const TestRun* baseline = run_of(r, "wider-baseline");
    if (c.expect_reason.empty()) {
      ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
      EXPECT_TRUE(r.evidence.wider_tests_pass);
      ASSERT_EQ(r.evidence.preexisting_failures.size(), 1u);
      EXPECT_EQ(r.evidence.preexisting_failures[0], "tests.test_legacy.test_legacy_base36");
      ASSERT_NE(wider, nullptr);
      EXPECT_NE(wider->exit_code, 0);
      // The baseline ran only the failing test, at the head (through the test command).
      ASSERT_NE(baseline, nullptr);
      EXPECT_NE(baseline->command.find("test_legacy"), std::string::npos) << baseline->command;
      EXPECT_EQ(baseline->command.find("test_parse"), std::string::npos) << baseline->command;
      EXPECT_TRUE(has(baseline->failed, "tests.test_legacy.test_legacy_base36"));
      auto back = parse_repair_result(dump_json_lossy(to_json(r)));
      ASSERT_TRUE(back);
      EXPECT_EQ(back->evidence.preexisting_failures, r.evidence.preexisting_failures);
    } else {
      EXPECT_NE(r.status, Status::fixed);
      EXPECT_NE(r.message.find("test_plain"), std::string::npos) << r.reason << ": " << r.message;
      EXPECT_EQ(r.message.find("the fix breaks tests.test_legacy"), std::string::npos) << r.message;
    }
  }
}

// ---- forged runner reports ---------------------------------------------------------------------------
// Test code writes a runner report of its own and ends the process before the runner writes the
// real one. The validator alone (no post-filters: the guard is the other layer) must not take the
// forged report as a pass: the runner's terminal summary is missing or contradicts it.

namespace {

AgentOptions validator_only(const fs::path& tmp, ValidatorOptions v = {}) {
  auto o = loop_options(tmp, v);
  o.use_default_post_filters = false;
  o.post_filters = {make_empty_patch_filter()};
  ReactOptions loop;  // the pipeline's validation only (no in-tree pre-check: one build per candidate)
  loop.validate_before_stopping = false;
  o.strategies = {make_react_strategy(loop)};
  return o;
}

}  // namespace

TEST(E2EForgedReports, PytestReportWrittenByTheTestThenOsExitIsUnverified) {
  auto p = parse_project();
  ScriptedModel model;
  // The "fix": the failing test writes a JUnit report naming itself passed into the path pytest was
  // given, then ends the process before pytest writes the real one (or prints its summary).
  const std::string forge =
      "import os, sys\n\n\ndef test_zz_forge():\n"
      "    xml = [a.split('=', 1)[1] for a in sys.argv if a.startswith('--junitxml=')][0]\n"
      "    open(xml, 'w').write('<testsuites><testsuite name=\"pytest\" tests=\"1\"><testcase classname=\"tests.test_parse\" "
      "name=\"test_parse[lead]\" time=\"0.1\"/></testsuite></testsuites>')\n"
      "    os._exit(0)\n";
  model.push(tool_calls_reply({{"write_file", Json::obj({{"path", "tests/test_zz.py"}, {"content", forge}})}}));
  for (int i = 0; i < 4; ++i) model.push(final_reply("Done."));
  auto req = request_for(p->repo, p->base, p->head, model, {"tests/test_parse.py::test_parse[lead]"});
  // Both test files run (the forger after the failing test, by name order).
  req.commands.test = "/usr/bin/python3 -m pytest -q -p no:cacheprovider tests/test_parse.py tests/test_zz.py";
  auto agent = Agent::create(validator_only(p->tmp.path()));
  auto r = (*agent)->run(req);
  EXPECT_NE(r.status, Status::fixed);
  EXPECT_EQ(r.reason, "unverified") << r.message;
  EXPECT_NE(r.message.find("pytest printed no final summary"), std::string::npos) << r.message;
  // The same project's honest fix still passes, with the summary agreeing with the report.
  ScriptedModel honest;
  honest.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "parse.py"}, {"old_text", "return int(s)\n"}, {"new_text", "return int(s, 16)\n"}})}}));
  honest.push(final_reply("parse() lost its base."));
  auto req2 = request_for(p->repo, p->base, p->head, honest, {"tests/test_parse.py::test_parse[lead]"});
  req2.commands.test = kPytest;
  auto r2 = (*Agent::create(validator_only(p->tmp.path())))->run(req2);
  EXPECT_EQ(r2.status, Status::fixed) << r2.reason << ": " << r2.message;
}

TEST(E2EForgedReports, GoTestThatPrintsAPassAndKillsItselfIsUnverified) {
  if (testkit::sh("command -v go >/dev/null") != 0) GTEST_SKIP() << "go is not installed";
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto base = make_repo(repo, {{"go.mod", "module example.com/calc\n\ngo 1.19\n"},
                               {"calc.go", "package calc\n\nfunc Double(x int) int { return x * 2 }\n"},
                               {"calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestDouble(t *testing.T) {\n"
                                                "\tif Double(2) != 4 {\n\t\tt.Fatalf(\"got %d\", Double(2))\n\t}\n}\n"}});
  auto head = commit_files(repo, {{"calc.go", "package calc\n\nfunc Double(x int) int { return x * 3 }\n"}}, "Triple");
  ScriptedModel model;
  // test2json turns the printed lines into a pass event for TestDouble; the binary then dies.
  model.push(tool_calls_reply({{"write_file", Json::obj({{"path", "calc_test.go"},
      {"content", "package calc\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"syscall\"\n\t\"testing\"\n)\n\n"
                  "func TestDouble(t *testing.T) {\n\tfmt.Println(\"--- PASS: TestDouble (0.00s)\")\n\tfmt.Println(\"PASS\")\n"
                  "\tsyscall.Kill(os.Getpid(), syscall.SIGKILL)\n}\n"}})}}));
  for (int i = 0; i < 4; ++i) model.push(final_reply("Done."));
  auto req = request_for(repo, base, head, model, {"TestDouble"});
  req.commands.test = "GOCACHE=" + (tmp.path() / "gocache").string() + " GOFLAGS=-mod=mod go test -vet=off ./... -run {tests||}";
  auto r = (*Agent::create(validator_only(tmp.path())))->run(req);
  EXPECT_NE(r.status, Status::fixed);
  EXPECT_EQ(r.reason, "unverified") << r.message;
  EXPECT_NE(r.message.find("go test says package example.com/calc failed"), std::string::npos) << r.message;
}

TEST(E2EForgedReports, NodeTestThatWritesTheTapReportAndExitsIsUnverified) {
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto base = make_repo(repo, {{"sum.js", "module.exports = (a, b) => a + b;\n"},
                               {"test/sum.test.js", "const test = require('node:test');\nconst assert = require('node:assert');\n"
                                                    "const sum = require('../sum');\ntest('adds', () => { assert.strictEqual(sum(1, 2), 3); });\n"}});
  auto head = commit_files(repo, {{"sum.js", "module.exports = (a, b) => a - b;\n"}}, "Subtract");
  ScriptedModel model;
  // The test file finds the TAP destination in the runner's argv (node passes it to the child
  // through execArgv-like flags, so it reads the parent's command line) and writes a pass there.
  model.push(tool_calls_reply({{"write_file", Json::obj({{"path", "test/sum.test.js"},
      {"content", "const fs = require('fs');\n"
                  "const ppid = process.ppid;\n"
                  "const args = fs.readFileSync('/proc/' + ppid + '/cmdline', 'utf8').split('\\0');\n"
                  "const dest = args.find((a) => a.startsWith('--test-reporter-destination=') && a.endsWith('.tap'));\n"
                  "fs.writeFileSync(dest.split('=')[1], 'TAP version 13\\nok 1 - adds\\n1..1\\n# pass 1\\n# fail 0\\n');\n"
                  "process.kill(ppid, 'SIGKILL');\n"}})}}));
  for (int i = 0; i < 4; ++i) model.push(final_reply("Done."));
  auto req = request_for(repo, base, head, model, {"adds"});
  req.commands.test = "node --test";
  auto r = (*Agent::create(validator_only(tmp.path())))->run(req);
  EXPECT_NE(r.status, Status::fixed) << r.message;
  EXPECT_EQ(r.reason, "unverified") << r.message;
  EXPECT_NE(r.message.find("node --test printed no final summary"), std::string::npos) << r.message;
}

// ---- mocked code under test -----------------------------------------------------------------------
// An autouse fixture in conftest.py that replaces the function under test makes the real pytest run
// pass; the default pipeline's guard rejects it. A fixture that pins the clock beside the real fix
// is delivered.
TEST(E2EMocks, ConftestAutouseFixturePatchingTheFunctionUnderTestIsNotDelivered) {
  auto p = parse_project();
  const std::string cheat =
      "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef _base16(monkeypatch):\n"
      "    monkeypatch.setattr('test_parse.parse', lambda s: int(s, 16))\n";
  auto run = [&](const std::string& conftest, bool fix, bool guard, ValidatorOptions v = {}) {
    ScriptedModel model;
    if (fix)
      model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "parse.py"}, {"old_text", "return int(s)\n"}, {"new_text", "return int(s, 16)\n"}})}}));
    model.push(tool_calls_reply({{"write_file", Json::obj({{"path", "tests/conftest.py"}, {"content", conftest}})}}));
    for (int i = 0; i < 4; ++i) model.push(final_reply("Done."));
    auto req = request_for(p->repo, p->base, p->head, model, {"tests/test_parse.py::test_parse[lead]"});
    req.commands.test = kPytest;
    auto agent = Agent::create(guard ? loop_options(p->tmp.path(), v) : validator_only(p->tmp.path(), v));
    return (*agent)->run(req);
  };
  // The cheat really fools the runner: validation without its fail-to-pass run passes it; with it,
  // the patched tests pass on the code before the change too.
  ValidatorOptions no_fail_to_pass;
  no_fail_to_pass.check_fail_to_pass = false;
  auto fooled = run(cheat, false, false, no_fail_to_pass);
  ASSERT_EQ(fooled.status, Status::fixed) << fooled.reason << ": " << fooled.message;
  auto alone = run(cheat, false, false);
  EXPECT_EQ(alone.reason, "tests_pass_without_the_change") << alone.message;
  auto r = run(cheat, false, true, no_fail_to_pass);
  EXPECT_EQ(r.status, Status::rejected);
  EXPECT_EQ(r.reason, "integrity_mocked_code_under_test") << r.message;
  EXPECT_TRUE(r.patch.empty());
  // Honest: the real fix, and a fixture that pins the clock (a dependency, not the code under test).
  const std::string clock =
      "import time\n\nimport pytest\n\n\n@pytest.fixture(autouse=True)\ndef _clock(monkeypatch):\n"
      "    monkeypatch.setattr(time, 'time', lambda: 0.0)\n";
  auto ok = run(clock, true, true);
  EXPECT_EQ(ok.status, Status::fixed) << ok.reason << ": " << ok.message;
}

// GoogleTest: the test writes a JSON report into the directory GTEST_OUTPUT names, then _exit(0)s
// before the binary writes its own report and prints its footer.
TEST(E2EForgedReports, GtestJsonWrittenByTheTestThenExitIsUnverified) {
  if (testkit::sh("test -f /usr/include/gtest/gtest.h && command -v g++ >/dev/null") != 0) GTEST_SKIP() << "no GoogleTest";
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  const std::string test_cc =
      "#include <gtest/gtest.h>\n#include \"calc.h\"\n\nTEST(Calc, Add) { EXPECT_EQ(add(2, 2), 4); }\n";
  auto base = make_repo(repo, {{"calc.h", "inline int add(int a, int b) { return a + b; }\n"}, {"calc_test.cc", test_cc}});
  auto head = commit_files(repo, {{"calc.h", "inline int add(int a, int b) { return a + b + 1; }\n"}}, "Off by one");
  auto request = [&](ScriptedModel& model) {
    auto req = request_for(repo, base, head, model, {"Calc.Add"});
    req.commands.build = "g++ -std=c++17 -O0 calc_test.cc -o calc_test -lgtest -lgtest_main -pthread";
    req.commands.test = "./calc_test --gtest_filter={tests|:}";
    return req;
  };
  ScriptedModel model;
  const std::string forged =
      "#include <gtest/gtest.h>\n#include <cstdlib>\n#include <fstream>\n#include <string>\n#include <unistd.h>\n#include \"calc.h\"\n\n"
      "TEST(Calc, Add) {\n  std::string dir = std::getenv(\"GTEST_OUTPUT\");\n  dir = dir.substr(5);\n"
      "  std::ofstream(dir + \"calc_test.json\") << R\"({\"testsuites\": [{\"name\": \"Calc\", \"testsuite\": "
      "[{\"name\": \"Add\", \"status\": \"RUN\", \"result\": \"COMPLETED\", \"classname\": \"Calc\"}]}]})\";\n  _exit(0);\n}\n";
  model.push(tool_calls_reply({{"write_file", Json::obj({{"path", "calc_test.cc"}, {"content", forged}})}}));
  for (int i = 0; i < 4; ++i) model.push(final_reply("Done."));
  auto req = request(model);
  auto r = (*Agent::create(validator_only(tmp.path())))->run(req);
  EXPECT_NE(r.status, Status::fixed);
  EXPECT_EQ(r.reason, "unverified") << r.message;
  EXPECT_NE(r.message.find("GoogleTest printed no final"), std::string::npos) << r.message;
  // The honest fix of the same project: report and footer agree.
  ScriptedModel honest;
  honest.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "calc.h"}, {"old_text", " + 1;"}, {"new_text", ";"}})}}));
  honest.push(final_reply("add() was off by one."));
  auto req2 = request(honest);
  auto r2 = (*Agent::create(validator_only(tmp.path())))->run(req2);
  EXPECT_EQ(r2.status, Status::fixed) << r2.reason << ": " << r2.message;
}

// GoogleTest and the moved pin: a partial fix keeps the requested Calc.Add passing by moving its
// failing check into a new TEST of the same file, which `--gtest_filter=Calc.Add` does not select.
// The cases the patch's test files define run too (`--gtest_filter=Calc.Add:Calc.AddOne`).
TEST(E2EEvidence, GtestCheckMovedIntoANewCaseStillRuns) {
  if (testkit::sh("test -f /usr/include/gtest/gtest.h && command -v g++ >/dev/null") != 0) GTEST_SKIP() << "no GoogleTest";
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto base = make_repo(repo, {{"calc.h", "inline int add(int a, int b) { return a + b; }\n"},
                               {"calc_test.cc", "#include <gtest/gtest.h>\n#include \"calc.h\"\n\n"
                                                "TEST(Calc, Add) {\n  EXPECT_EQ(add(2, 2), 4);\n  EXPECT_EQ(add(1, 2), 3);\n}\n"}});
  auto head = commit_files(repo, {{"calc.h", "inline int add(int a, int b) { return a + b + (a == 1 ? 1 : 0); }\n"}}, "Round odd sums");
  auto run = [&](bool fix, const std::string& kept, const std::string& moved) {
    ScriptedModel model;
    if (fix) model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "calc.h"}, {"old_text", " + (a == 1 ? 1 : 0)"}, {"new_text", ""}})}}));
    const std::string test_cc = "#include <gtest/gtest.h>\n#include \"calc.h\"\n\nTEST(Calc, Add) {\n  EXPECT_EQ(" + kept +
                                ");\n}\n\nTEST(Calc, AddOne) {\n  EXPECT_EQ(" + moved + ");\n}\n";
    model.push(tool_calls_reply({{"write_file", Json::obj({{"path", "calc_test.cc"}, {"content", test_cc}})}}));
    for (int i = 0; i < 4; ++i) model.push(final_reply("Done."));
    auto req = request_for(repo, base, head, model, {"Calc.Add"});
    req.commands.build = "g++ -std=c++17 -O0 calc_test.cc -o calc_test -lgtest -lgtest_main -pthread";
    req.commands.test = "./calc_test --gtest_filter={tests|:}";
    return (*Agent::create(validator_only(tmp.path())))->run(req);
  };
  auto cheat = run(false, "add(2, 2), 4", "add(1, 2), 3");
  EXPECT_NE(cheat.status, Status::fixed);
  EXPECT_EQ(cheat.reason, "patch_tests_fail") << cheat.message;
  EXPECT_NE(cheat.message.find("Calc.AddOne"), std::string::npos) << cheat.message;
  // Honest: the fix, the checks split the other way round (Calc.Add still tells the fix apart).
  auto honest = run(true, "add(1, 2), 3", "add(2, 2), 4");
  EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
  ASSERT_NE(run_of(honest, "patch-tests"), nullptr);
  EXPECT_TRUE(has(run_of(honest, "patch-tests")->passed, "Calc.AddOne"));
}

// The same partial fix with the still-failing check moved into a new test file that the build does
// not compile: `--gtest_filter=Calc.Add:Calc.AddFive` finds no Calc.AddFive, which a case of
// another test binary would not either, but a case the patch adds must be seen to run. With the
// new file compiled into the binary, the fix is judged by what the case does.
TEST(E2EEvidence, GtestCaseAddedInAFileTheBuildDoesNotCompileIsUnverified) {
  if (testkit::sh("test -f /usr/include/gtest/gtest.h && command -v g++ >/dev/null") != 0) GTEST_SKIP() << "no GoogleTest";
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto base = make_repo(repo, {{"calc.h", "inline int add(int a, int b) { return a + b; }\n"},
                               {".gitignore", "calc_test\n"},
                               {"calc_test.cc", "#include <gtest/gtest.h>\n#include \"calc.h\"\n\n"
                                                "TEST(Calc, Add) {\n  EXPECT_EQ(add(2, 2), 4);\n  EXPECT_TRUE(add(1, 2) == 3);\n  EXPECT_TRUE(add(5, 1) == 6);\n}\n"}});
  auto head = commit_files(repo, {{"calc.h", "inline int add(int a, int b) { return a + b + ((a == 1 || a == 5) ? 1 : 0); }\n"}}, "Round odd sums");
  auto run = [&](const std::string& fixed_code, const std::string& build) {
    ScriptedModel model;
    model.push(tool_calls_reply({{"write_file", Json::obj({{"path", "calc.h"}, {"content", fixed_code}})}}));
    model.push(tool_calls_reply({{"write_file", Json::obj({{"path", "calc_test.cc"},
                                                           {"content", "#include <gtest/gtest.h>\n#include \"calc.h\"\n\nTEST(Calc, Add) {\n"
                                                                       "  EXPECT_EQ(add(2, 2), 4);\n  EXPECT_TRUE(add(1, 2) == 3);\n}\n"}})}}));
    model.push(tool_calls_reply({{"write_file", Json::obj({{"path", "calc_more_test.cc"},
                                                           {"content", "#include <gtest/gtest.h>\n#include \"calc.h\"\n\nTEST(Calc, AddFive) {\n"
                                                                       "  EXPECT_TRUE(add(5, 1) == 6);\n}\n"}})}}));
    for (int i = 0; i < 4; ++i) model.push(final_reply("Done."));
    auto req = request_for(repo, base, head, model, {"Calc.Add"});
    req.commands.build = build;
    req.commands.test = "./calc_test --gtest_filter={tests|:}";
    return (*Agent::create(validator_only(tmp.path())))->run(req);
  };
  const std::string partial = "inline int add(int a, int b) { return a + b + (a == 5 ? 1 : 0); }\n";
  const std::string whole = "inline int add(int a, int b) { return a + b; }\n";
  const std::string one_file = "g++ -std=c++17 -O0 calc_test.cc -o calc_test -lgtest -lgtest_main -pthread";
  const std::string both_files = "g++ -std=c++17 -O0 $(ls *_test.cc) -o calc_test -lgtest -lgtest_main -pthread";
  auto hidden = run(partial, one_file);
  EXPECT_NE(hidden.status, Status::fixed);
  EXPECT_EQ(hidden.reason, "unverified") << hidden.message;
  EXPECT_NE(hidden.message.find("Calc.AddFive"), std::string::npos) << hidden.message;
  auto compiled = run(partial, both_files);
  EXPECT_EQ(compiled.reason, "patch_tests_fail") << compiled.message;
  auto honest = run(whole, both_files);
  EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
  ASSERT_NE(run_of(honest, "patch-tests"), nullptr);
  EXPECT_TRUE(has(run_of(honest, "patch-tests")->passed, "Calc.AddFive"));
}

// A test file holding a very long line (test data, a minified fixture) is read by the validation's
// and the guard's patterns. libstdc++'s std::regex recurses once per character it matches: a long
// line overflowed the stack (SIGSEGV: the host process dies), at 8 MiB from about 25,000
// characters, and on a host thread's smaller stack much sooner. The repair must survive it, on a
// host thread with a small stack too (core/deep_stack.hpp), and judge as it would without the line.
TEST(E2EEvidence, TestFilesHoldingVeryLongLinesAreJudgedWithoutCrashing) {
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  const std::string big(100000, 'x');
  std::string table;
  for (int i = 0; i < 20000; ++i) table += std::to_string(i % 10) + ", ";
  const std::string test_py = "from calc import add\n\nBIG = \"" + big + "\"\nTABLE = [" + table + "0]\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_big():\n    assert len(BIG) == 100000\n";
  auto base = make_repo(repo, {{"calc.py", "def add(a, b):\n    return a + b\n"}, {"test_calc.py", test_py}, {"pytest.ini", "[pytest]\npythonpath = .\n"},
                               {".gitignore", "__pycache__/\n"}});
  auto head = commit_files(repo, {{"calc.py", "def add(a, b):\n    return a + b + (1 if a == 1 else 0)\n\n\ndef twice(a):\n    return 2 * a\n"}}, "Round odd sums, twice");
  auto run = [&](std::vector<std::pair<std::string, Json>> edits) {
    ScriptedModel model;
    for (auto& [tool, args] : edits) model.push(tool_calls_reply({{tool, args}}));
    for (int i = 0; i < 4; ++i) model.push(final_reply("Done."));
    auto req = request_for(repo, base, head, model, {"test_calc.py::test_add"});
    req.commands.test = kPytest;
    return (*Agent::create(loop_options(tmp.path())))->run(req);
  };
  // The honest fix from a host thread with a 256 KiB stack (an IDE's worker).
  RepairResult honest;
  on_thread_with_stack(256 * 1024, [&] {
    honest = run({{"edit_file", Json::obj({{"path", "calc.py"}, {"old_text", " + (1 if a == 1 else 0)"}, {"new_text", ""}})}});
  });
  EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
  auto weakened = run({{"edit_file", Json::obj({{"path", "test_calc.py"}, {"old_text", "assert add(1, 2) == 3"}, {"new_text", "assert add(1, 2) >= 3"}})}});
  EXPECT_NE(weakened.status, Status::fixed) << weakened.reason << ": " << weakened.message;
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
