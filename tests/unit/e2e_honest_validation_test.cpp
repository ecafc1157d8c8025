// End to end: validation that a fix cannot fool and that does not throw honest fixes away. Real
// projects made here in temporary git repositories (pytest, go, tape, node:test, cargo, ctest), real
// runners, a scripted model on loopback.
//   - a requested test that passes alone but fails in the wider run is not fixed (order_dependent);
//   - Go test ids carry their package: pkgB/TestParse is not pkgA/TestParse;
//   - a parametrized test whose other case is skipped on this platform passes when its case passes;
//   - a test split in two, renamed under tape, node:test and cargo is validated through its
//     replacements;
//   - pytest-subtests' summary line, ctest's and cargo's summaries are cross-checked;
//   - production code that forges a report and ends the process is not delivered.
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

namespace {

/// The default pipeline (post-filters included) with the loop as its only strategy, validated in
/// a fresh checkout from a pool under `tmp`.
AgentOptions guarded(const fs::path& tmp) {
  GitWorkspaceOptions pool;
  pool.root = tmp / "pool";
  ReactOptions loop;  // the pipeline's validation only (one build and run per candidate)
  loop.validate_before_stopping = false;
  AgentOptions o;
  o.validator = make_command_validator({});
  o.strategies = {make_react_strategy(loop)};
  o.workspaces = make_git_workspace_provider(pool);
  return o;
}

/// The validator alone: no post-filters (the guard is the other layer).
AgentOptions validator_only(const fs::path& tmp) {
  auto o = guarded(tmp);
  o.use_default_post_filters = false;
  o.post_filters = {make_empty_patch_filter()};
  return o;
}

/// The request of a repair on loopback: the change base..head of `repo`, no commands yet.
RepairRequest request_for(const fs::path& repo, const std::string& base, const std::string& head,
                          const ScriptedModel& model, std::vector<std::string> failing) {
  RepairRequest r = sample_request(repo.string(), "hv-1");
  r.change.base_commit = base;
  r.change.head_commit = head;
  r.change.files.clear();
  r.failure.failing_tests = std::move(failing);
  r.commands = {};
  r.commands.timeout_seconds = 180;
  r.model = {};
  r.model.spec = "openai-compatible:scripted";
  r.model.base_url = model.base_url();
  return r;
}

Json edit(const std::string& path, const std::string& old_text, const std::string& new_text) {
  return Json::obj({{"path", path}, {"old_text", old_text}, {"new_text", new_text}});
}

Json write(const std::string& path, const std::string& content) { return Json::obj({{"path", path}, {"content", content}}); }

/// A model that makes `calls` (one tool call a turn) and then says it is done.
void script(ScriptedModel& model, const std::vector<std::pair<std::string, Json>>& calls) {
  for (const auto& c : calls) model.push(tool_calls_reply({c}));
  for (int i = 0; i < 4; ++i) model.push(final_reply("Done."));
}


const char* kPytest = "/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}";

/// The change under repair: parse() loses its base, parse_all() is new (so restoring the base is a
/// correction of part of the change, not a revert of all of it).
const char* kBrokenParse = "def parse(s):\n    return int(s)\n\n\ndef parse_all(xs):\n    return [parse(x) for x in xs]\n";

}  // namespace

// ---- order-dependent fixes ------------------------------------------------------------------------
// parse() lost its base in the change. The "fix" reads a module-level MODE that another test sets:
// the requested test passes when run alone and fails in the wider run, after that test.
TEST(E2EHonestValidation, RequestedTestFailingInTheWiderRunIsOrderDependent) {
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto base = make_repo(repo, {{"parse.py", "MODE = 'hex'\n\n\ndef parse(s):\n    return int(s, 16)\n"},
                               {"tests/test_aa_mode.py", "import parse\n\n\ndef test_decimal_mode():\n    parse.MODE = 'dec'\n    assert parse.MODE == 'dec'\n"},
                               {"tests/test_parse.py", "from parse import parse\n\n\ndef test_parse():\n    assert parse('ff') == 255\n"},
                               {"pytest.ini", "[pytest]\npythonpath = .\n"},
                               {".gitignore", "__pycache__/\n"}});
  auto head = commit_files(repo, {{"parse.py", std::string("MODE = 'hex'\n\n\n") + kBrokenParse}}, "Parse decimals, parse_all");
  auto run = [&](const std::string& fix) {
    ScriptedModel model;
    script(model, {{"edit_file", edit("parse.py", "return int(s)\n", fix)}});
    auto req = request_for(repo, base, head, model, {"tests/test_parse.py::test_parse"});
    req.commands.test = kPytest;
    req.commands.wider_test = "/usr/bin/python3 -m pytest -q -p no:cacheprovider tests";
    return (*Agent::create(validator_only(tmp.path())))->run(req);
  };
  auto r = run("return int(s, 16 if MODE == 'hex' else 10)\n");
  EXPECT_EQ(r.status, Status::no_fix);
  EXPECT_EQ(r.reason, "order_dependent") << r.message;
  EXPECT_NE(r.message.find("test_parse passed when run alone but failed in the wider test set"), std::string::npos) << r.message;
  EXPECT_TRUE(r.patch.empty());
  auto honest = run("return int(s, 16)\n");
  EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
  EXPECT_TRUE(honest.evidence.wider_tests_pass);
}

// ---- Go ids carry the package ---------------------------------------------------------------------
// Two packages with a TestParse each. The change breaks pkga; a patch that hides pkga's test behind
// a build constraint leaves only pkgb's TestParse to run and pass: it is not pkga's.
TEST(E2EHonestValidation, GoTestOfAnotherPackageIsNotTheRequestedOne) {
  if (sh("command -v go >/dev/null") != 0) GTEST_SKIP() << "go is not installed";
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto pkg = [](const std::string& name, const std::string& body) {
    return std::vector<std::pair<std::string, std::string>>{
        {name + "/parse.go", "package " + name + "\n\nfunc Parse(s string) int { " + body + " }\n"},
        {name + "/parse_test.go", "package " + name + "\n\nimport \"testing\"\n\nfunc TestParse(t *testing.T) {\n"
                                  "\tif Parse(\"ab\") != 2 {\n\t\tt.Fatalf(\"got %d\", Parse(\"ab\"))\n\t}\n}\n"}};
  };
  auto files = pkg("pkga", "return len(s)");
  auto b = pkg("pkgb", "return len(s)");
  files.insert(files.end(), b.begin(), b.end());
  files.push_back({"go.mod", "module example.com/m\n\ngo 1.19\n"});
  auto base = make_repo(repo, files);
  auto head = commit_files(repo, {{"pkga/parse.go", "package pkga\n\nfunc Parse(s string) int { return len(s) + 1 }\n"}}, "Count");
  const std::string cmd = "GOCACHE=" + (tmp.path() / "gocache").string() + " GOFLAGS=-mod=mod go test -vet=off ./... -run {tests||}";
  // As CI's go test -json names it (with the package).
  ScriptedModel model;
  script(model, {{"edit_file", edit("pkga/parse_test.go", "package pkga\n", "//go:build never\n\npackage pkga\n")}});
  auto req = request_for(repo, base, head, model, {"example.com/m/pkga/TestParse"});
  req.commands.test = cmd;
  auto r = (*Agent::create(validator_only(tmp.path())))->run(req);
  EXPECT_NE(r.status, Status::fixed) << r.reason << ": " << r.message;
  for (const auto& t : r.evidence.tests)
    for (const auto& seen : t.seen_as) EXPECT_EQ(seen.find("pkgb"), std::string::npos) << seen;
  // The honest fix, requested by the package's folder and the test.
  ScriptedModel honest;
  script(honest, {{"edit_file", edit("pkga/parse.go", "len(s) + 1", "len(s)")}});
  auto req2 = request_for(repo, base, head, honest, {"pkga/TestParse"});
  req2.commands.test = cmd;
  auto r2 = (*Agent::create(validator_only(tmp.path())))->run(req2);
  ASSERT_EQ(r2.status, Status::fixed) << r2.reason << ": " << r2.message;
  ASSERT_EQ(r2.evidence.tests.size(), 1u);
  EXPECT_EQ(r2.evidence.tests[0].seen_as, std::vector<std::string>{"example.com/m/pkga/TestParse"});
  // -run got the test name, not the package path (go's -run matches names only).
  EXPECT_NE(r2.evidence.runs[0].command.find("-run 'TestParse'"), std::string::npos) << r2.evidence.runs[0].command;
}

// ---- a parametrized case skipped by a platform condition --------------------------------------------
TEST(E2EHonestValidation, ParametrizedTestWhoseOtherCaseIsSkippedOnThisPlatformPasses) {
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  const std::string test =
      "import sys\n\nimport pytest\nfrom parse import parse\n\n\n"
      "@pytest.mark.parametrize('text,value', [('ff', 255), pytest.param('FF', 255, marks=pytest.mark.skipif("
      "sys.platform.startswith('linux'), reason='case-insensitive file systems only'))], ids=['lower', 'upper'])\n"
      "def test_parse(text, value):\n    assert parse(text) == value\n";
  auto base = make_repo(repo, {{"parse.py", "def parse(s):\n    return int(s, 16)\n"},
                               {"tests/test_parse.py", test},
                               {"pytest.ini", "[pytest]\npythonpath = .\n"},
                               {".gitignore", "__pycache__/\n"}});
  auto head = commit_files(repo, {{"parse.py", kBrokenParse}}, "Parse decimals, parse_all");
  auto run = [&](const std::string& id) {
    ScriptedModel model;
    script(model, {{"edit_file", edit("parse.py", "return int(s)\n", "return int(s, 16)\n")}});
    auto req = request_for(repo, base, head, model, {id});
    req.commands.test = kPytest;
    return (*Agent::create(guarded(tmp.path())))->run(req);
  };
  // CI named the test function: its case that runs here passed, the other was skipped here.
  auto r = run("tests/test_parse.py::test_parse");
  ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  ASSERT_EQ(r.evidence.tests.size(), 1u);
  EXPECT_EQ(r.evidence.tests[0].outcome, "passed");
  EXPECT_EQ(r.evidence.tests[0].seen_as.size(), 2u);
  // The skipped case itself, requested, is still not a pass.
  auto skipped = run("tests/test_parse.py::test_parse[upper]");
  EXPECT_NE(skipped.status, Status::fixed);
  EXPECT_NE(skipped.message.find("was skipped"), std::string::npos) << skipped.reason << ": " << skipped.message;
}

// ---- a test split in two --------------------------------------------------------------------------
TEST(E2EHonestValidation, TestSplitInTwoIsDeliveredAndATestReplacedByAnEmptyOneIsNot) {
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  const std::string test = "from parse import parse\n\n\ndef test_parse():\n"
                           "    assert parse('ff') == 255\n    assert parse('a') == 10\n"
                           "    assert parse('10') == 16\n    assert parse('0') == 0\n";
  auto base = make_repo(repo, {{"parse.py", "def parse(s):\n    return int(s, 16)\n"},
                               {"tests/test_parse.py", test},
                               {"pytest.ini", "[pytest]\npythonpath = .\n"},
                               {".gitignore", "__pycache__/\n"}});
  auto head = commit_files(repo, {{"parse.py", kBrokenParse}}, "Parse decimals, parse_all");
  auto run = [&](const std::string& new_test) {
    ScriptedModel model;
    script(model, {{"edit_file", edit("parse.py", "return int(s)\n", "return int(s, 16)\n")},
                   {"write_file", write("tests/test_parse.py", new_test)}});
    auto req = request_for(repo, base, head, model, {"tests/test_parse.py::test_parse"});
    req.commands.test = kPytest;
    return (*Agent::create(guarded(tmp.path())))->run(req);
  };
  // The developer's split: letters and digits, every check kept.
  auto r = run("from parse import parse\n\n\ndef test_parse_letters():\n"
               "    assert parse('ff') == 255\n    assert parse('a') == 10\n\n\n"
               "def test_parse_digits():\n    assert parse('10') == 16\n    assert parse('0') == 0\n");
  ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  ASSERT_EQ(r.evidence.replacements.size(), 1u);
  EXPECT_EQ(r.evidence.replacements[0].new_ids.size(), 2u);
  // The same test replaced by an empty one, and a split that drops half of the checks.
  // (The empty replacement passes on every version of the code: fail to pass, run at its file,
  // answers before the guard's integrity_test_deleted.)
  auto empty = run("from parse import parse\n\n\ndef test_parse_letters():\n    pass\n");
  EXPECT_NE(empty.status, Status::fixed) << empty.reason << ": " << empty.message;
  EXPECT_EQ(empty.reason, "tests_pass_without_the_fix") << empty.message;
  EXPECT_TRUE(empty.patch.empty());
  auto half = run("from parse import parse\n\n\ndef test_parse_letters():\n"
                  "    assert parse('ff') == 255\n\n\ndef test_parse_digits():\n    assert parse('0') == 0\n");
  EXPECT_EQ(half.status, Status::rejected) << half.reason << ": " << half.message;
}

// ---- renames under tape, node:test, cargo -----------------------------------------------------------
TEST(E2EHonestValidation, TapeTestRenamedByThePatchReplacesTheFailingOne) {
  const fs::path tape = fs::path(FLOWAGENT_SOURCE_DIR) / "third_party/tape/node_modules";
  if (!fs::exists(tape / ".bin/tape")) GTEST_SKIP() << "tape is not installed (scripts/install-deps.sh)";
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto base = make_repo(repo, {{"sum.js", "module.exports = (a, b) => a + b;\n"},
                               {"test/sum.js", "const test = require('tape');\nconst sum = require('../sum');\n"
                                               "test('sum() adds 1.5 and 2.5', (t) => {\n  t.equal(sum(1.5, 2.5), 4);\n  t.end();\n});\n"
                                               "test('adds negatives', (t) => {\n  t.equal(sum(-1, -1), -2);\n  t.end();\n});\n"}});
  auto head = commit_files(repo, {{"sum.js", "module.exports = (a, b) => Math.round(a) + b;\n"
                                            "module.exports.twice = (a) => 2 * a;\nmodule.exports.half = (a) => a / 2;\n"}},
                           "Round, twice and half");
  auto run = [&](const std::string& new_name) {
    ScriptedModel model;
    script(model, {{"edit_file", edit("sum.js", "Math.round(a) + b", "a + b")},
                   {"edit_file", edit("test/sum.js", "test('sum() adds 1.5 and 2.5'", "test('" + new_name + "'")}});
    auto req = request_for(repo, base, head, model, {"sum() adds 1.5 and 2.5"});
    req.commands.test = "NODE_PATH=" + tape.string() + " " + (tape / ".bin/tape").string() + " test/*.js";
    auto opts = guarded(tmp.path());
    opts.sandbox.read_only_paths.push_back(tape.parent_path());
    return (*Agent::create(opts))->run(req);
  };
  auto r = run("sum() adds 1.5 and 2.5 exactly");
  ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  ASSERT_EQ(r.evidence.replacements.size(), 1u);
  EXPECT_EQ(r.evidence.replacements[0].new_ids, std::vector<std::string>{"sum() adds 1.5 and 2.5 exactly"});
}

TEST(E2EHonestValidation, NodeTestRenamedByThePatchReplacesTheFailingOne) {
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto base = make_repo(repo, {{"sum.js", "module.exports = (a, b) => a + b;\n"},
                               {"test/sum.test.js", "const test = require('node:test');\nconst assert = require('node:assert');\n"
                                                    "const sum = require('../sum');\n"
                                                    "test('sum.add handles 1.5', () => { assert.strictEqual(sum(1.5, 1), 2.5); });\n"
                                                    "test('adds negatives', () => { assert.strictEqual(sum(-1, -1), -2); });\n"}});
  auto head = commit_files(repo, {{"sum.js", "module.exports = (a, b) => Math.round(a) + b;\n"
                                            "module.exports.twice = (a) => 2 * a;\nmodule.exports.half = (a) => a / 2;\n"}},
                           "Round, twice and half");
  ScriptedModel model;
  script(model, {{"edit_file", edit("sum.js", "Math.round(a) + b", "a + b")},
                 {"edit_file", edit("test/sum.test.js", "test('sum.add handles 1.5'", "test('sum.add keeps 1.5 exact'")}});
  auto req = request_for(repo, base, head, model, {"sum.add handles 1.5"});
  req.commands.test = "node --test --test-name-pattern={tests||}";
  auto r = (*Agent::create(guarded(tmp.path())))->run(req);
  ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  ASSERT_EQ(r.evidence.replacements.size(), 1u);
  EXPECT_EQ(r.evidence.replacements[0].new_ids, std::vector<std::string>{"sum.add keeps 1.5 exact"});
}

namespace {

/// cargo in the sandbox: the toolchain (rustup's or the system's) readable, the registry unused.
bool add_cargo(SandboxOptions& s, std::string& prefix) {
  std::string out;
  if (sh("command -v cargo", &out) != 0) return false;
  const fs::path cargo = fs::canonical(fs::path(out.substr(0, out.find('\n'))));
  const char* home = std::getenv("HOME");
  for (const fs::path& p : {fs::path(home ? home : "/root") / ".cargo", fs::path(home ? home : "/root") / ".rustup"})
    if (fs::exists(p)) s.read_only_paths.push_back(p);
  prefix = "PATH=" + cargo.parent_path().string() + ":/usr/bin:/bin" +
           (home ? std::string(" RUSTUP_HOME=") + home + "/.rustup" : std::string()) + " CARGO_HOME=$PWD/.cargo-home ";
  return true;
}

const char* kCargoToml = "[package]\nname = \"calc\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";

}  // namespace

TEST(E2EHonestValidation, CargoTestRenamedByThePatchReplacesTheFailingOne) {
  TempDir tmp;
  SandboxOptions sandbox;
  std::string prefix;
  if (!add_cargo(sandbox, prefix)) GTEST_SKIP() << "cargo is not installed";
  auto repo = tmp.path() / "repo";
  const std::string lib = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
                          "    #[test]\n    fn adds() {\n        assert_eq!(add(2, 2), 4);\n    }\n\n"
                          "    #[test]\n    fn zero() {\n        assert_eq!(add(0, 0), 0);\n    }\n}\n";
  auto base = make_repo(repo, {{"Cargo.toml", kCargoToml}, {"src/lib.rs", lib}, {".gitignore", "target/\n.cargo-home/\nCargo.lock\n"}});
  std::string broken = lib;
  broken.replace(broken.find("    a + b\n"), 10, "    a + b + 1\n");
  broken.insert(broken.find("#[cfg(test)]"), "pub fn twice(a: i32) -> i32 {\n    2 * a\n}\n\npub fn half(a: i32) -> i32 {\n    a / 2\n}\n\n");
  auto head = commit_files(repo, {{"src/lib.rs", broken}}, "Off by one");
  ScriptedModel model;
  script(model, {{"edit_file", edit("src/lib.rs", "    a + b + 1\n", "    a + b\n")},
                 {"edit_file", edit("src/lib.rs", "    fn adds() {", "    fn adds_two() {")}});
  auto req = request_for(repo, base, head, model, {"tests::adds"});
  req.commands.test = prefix + "cargo test --offline {tests}";
  auto opts = guarded(tmp.path());
  opts.sandbox = sandbox;
  auto r = (*Agent::create(opts))->run(req);
  ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  ASSERT_EQ(r.evidence.replacements.size(), 1u);
  EXPECT_EQ(r.evidence.replacements[0].scope, "tests::");
  EXPECT_EQ(r.evidence.replacements[0].new_ids, std::vector<std::string>{"tests::adds_two"});
}

// A test binary that prints its passes and ends before libtest prints the result line: cargo's
// summary per test binary is missing, so the run is unverified.
TEST(E2EHonestValidation, CargoTestThatPrintsPassesAndExitsIsUnverified) {
  TempDir tmp;
  SandboxOptions sandbox;
  std::string prefix;
  if (!add_cargo(sandbox, prefix)) GTEST_SKIP() << "cargo is not installed";
  auto repo = tmp.path() / "repo";
  const std::string lib = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b + 1\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
                          "    #[test]\n    fn adds() {\n        assert_eq!(add(2, 2), 4);\n    }\n}\n";
  auto base = make_repo(repo, {{"Cargo.toml", kCargoToml}, {"src/lib.rs", lib}, {".gitignore", "target/\n.cargo-home/\nCargo.lock\n"}});
  auto head = commit_files(repo, {{"README", "calc\n"}}, "Readme");
  ScriptedModel model;
  script(model, {{"edit_file", edit("src/lib.rs", "        assert_eq!(add(2, 2), 4);\n",
                                    "        use std::io::Write;\n        let mut out = std::io::stdout();\n"
                                    "        let _ = out.write_all(b\"ok\\ntest tests::adds ... ok\\n\");\n"
                                    "        std::process::exit(0);\n")}});
  auto req = request_for(repo, base, head, model, {"tests::adds"});
  req.commands.test = prefix + "cargo test --offline";
  auto opts = validator_only(tmp.path());
  opts.sandbox = sandbox;
  auto r = (*Agent::create(opts))->run(req);
  EXPECT_NE(r.status, Status::fixed);
  EXPECT_EQ(r.reason, "unverified") << r.message;
  EXPECT_NE(r.message.find("cargo test"), std::string::npos) << r.message;
}

// ---- pytest-subtests --------------------------------------------------------------------------------
TEST(E2EHonestValidation, PytestSubtestsSummaryLineIsRead) {
  if (sh("/usr/bin/python3 -c 'import pytest_subtests' 2>/dev/null") != 0) GTEST_SKIP() << "pytest-subtests is not installed";
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto base = make_repo(repo, {{"parse.py", "def parse(s):\n    return int(s, 16)\n"},
                               {"tests/test_parse.py", "from parse import parse\n\n\ndef test_parse(subtests):\n"
                                                       "    for text, value in [('ff', 255), ('10', 16)]:\n"
                                                       "        with subtests.test(text=text):\n            assert parse(text) == value\n\n\n"
                                                       "def test_plain():\n    assert parse('1') == 1\n"},
                               {"pytest.ini", "[pytest]\npythonpath = .\n"},
                               {".gitignore", "__pycache__/\n"}});
  auto head = commit_files(repo, {{"parse.py", kBrokenParse}}, "Parse decimals, parse_all");
  ScriptedModel model;
  script(model, {{"edit_file", edit("parse.py", "return int(s)\n", "return int(s, 16)\n")}});
  auto req = request_for(repo, base, head, model, {"tests/test_parse.py::test_parse"});
  req.commands.test = "/usr/bin/python3 -m pytest -q -p no:cacheprovider tests";
  auto r = (*Agent::create(guarded(tmp.path())))->run(req);
  ASSERT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  EXPECT_EQ(r.evidence.kind, "structured");
}

// ---- ctest ------------------------------------------------------------------------------------------
// A test that writes ctest's JUnit report (passing) into the place ctest was told, then kills ctest
// before it writes its own and prints its summary: unverified. The honest fix passes.
TEST(E2EHonestValidation, CtestReportWrittenByATestThenKilledIsUnverified) {
  if (sh("command -v cmake >/dev/null && command -v ctest >/dev/null") != 0) GTEST_SKIP() << "no cmake/ctest";
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  const std::string cmake = "cmake_minimum_required(VERSION 3.16)\nproject(calc NONE)\nenable_testing()\n"
                            "add_test(NAME adds COMMAND sh ${CMAKE_SOURCE_DIR}/tests/adds.sh)\n"
                            "add_test(NAME zero COMMAND sh ${CMAKE_SOURCE_DIR}/tests/zero.sh)\n";
  auto base = make_repo(repo, {{"CMakeLists.txt", cmake},
                               {"calc.sh", "add() { echo $(($1 + $2)); }\n"},
                               {"tests/adds.sh", ". \"$(dirname \"$0\")/../calc.sh\"\n[ \"$(add 2 2)\" = 4 ]\n"},
                               {"tests/zero.sh", ". \"$(dirname \"$0\")/../calc.sh\"\n[ \"$(add 0 0)\" = 0 ]\n"},
                               {".gitignore", "build/\n"}});
  auto head = commit_files(repo, {{"calc.sh", "add() { echo $(($1 * $2 + 1)); }\n"}}, "Multiply");
  auto request = [&](ScriptedModel& model) {
    auto req = request_for(repo, base, head, model, {"adds"});
    req.commands.build = "cmake -S . -B build >/dev/null";
    req.commands.test = "cd build && ctest -R {tests||}";
    return req;
  };
  ScriptedModel model;
  const std::string forge =
      "args=$(tr '\\0' ' ' < /proc/$PPID/cmdline)\nout=${args#*--output-junit }\nout=${out%% *}\n"
      "printf '<testsuite tests=\"1\"><testcase name=\"adds\" classname=\"adds\" status=\"run\"/></testsuite>' > \"$out\"\n"
      "echo '100% tests passed, 0 tests failed out of 1'\nkill -9 $PPID\n";
  script(model, {{"write_file", write("tests/adds.sh", forge)}});
  auto r = (*Agent::create(validator_only(tmp.path())))->run(request(model));
  EXPECT_NE(r.status, Status::fixed);
  EXPECT_EQ(r.reason, "unverified") << r.message;
  ScriptedModel honest;
  script(honest, {{"edit_file", edit("calc.sh", "$1 * $2 + 1", "$1 + $2")}});
  auto r2 = (*Agent::create(validator_only(tmp.path())))->run(request(honest));
  EXPECT_EQ(r2.status, Status::fixed) << r2.reason << ": " << r2.message;
}

// ---- a forger in production code ---------------------------------------------------------------------
// The function under test writes a passing JUnit report where pytest was told to write one, prints
// pytest's summary line and ends the process: it fools the validator alone (report and summary
// agree); the guard rejects it from the production code. Aliased, the same.
TEST(E2EHonestValidation, ProductionCodeThatForgesTheReportAndExitsIsNotDelivered) {
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto base = make_repo(repo, {{"parse.py", "def parse(s):\n    return int(s, 16)\n"},
                               {"tests/test_parse.py", "from parse import parse\n\n\ndef test_parse():\n    assert parse('ff') == 255\n"},
                               {"pytest.ini", "[pytest]\npythonpath = .\n"},
                               {".gitignore", "__pycache__/\n"}});
  auto head = commit_files(repo, {{"parse.py", kBrokenParse}}, "Parse decimals, parse_all");
  const std::string forger =
      "import os\nimport stat\nimport sys\nfrom os import _exit as finish\n\n\ndef parse(s):\n"
      "    xml = [a.split('=', 1)[1] for a in sys.argv if a.startswith('--junit')][0]\n"
      "    open(xml, 'w').write('<testsuites><testsuite name=\"pytest\" tests=\"1\"><testcase classname=\"tests.test_parse\" "
      "name=\"test_' + 'parse\" time=\"0.1\"/></testsuite></testsuites>')\n"
      "    for fd in range(3, 64):\n"
      "        try:\n"
      "            if stat.S_ISFIFO(os.fstat(fd).st_mode):\n"
      "                os.write(fd, b'\\n1 passed in 0.01s\\n')\n"
      "        except OSError:\n"
      "            pass\n"
      "    finish(0)\n";
  auto run = [&](bool guard) {
    ScriptedModel model;
    script(model, {{"write_file", write("parse.py", forger)}});
    auto req = request_for(repo, base, head, model, {"tests/test_parse.py::test_parse"});
    req.commands.test = kPytest;
    return (*Agent::create(guard ? guarded(tmp.path()) : validator_only(tmp.path())))->run(req);
  };
  auto fooled = run(false);
  ASSERT_EQ(fooled.status, Status::fixed) << "the forger no longer fools the validator alone: " << fooled.reason << ": "
                                          << fooled.message;
  auto r = run(true);
  EXPECT_EQ(r.status, Status::rejected);
  // It is also seen looking for pytest on the command line (test_detection_in_code), which may be
  // the first finding; the process exit must be among them either way.
  EXPECT_TRUE(r.reason == "integrity_report_tampered" || r.reason == "integrity_runner_terminated" ||
              r.reason == "integrity_test_detection_in_code")
      << r.reason << ": " << r.message;
  EXPECT_NE(r.message.find("parse.py:4 [runner_terminated] production code that ends the process"), std::string::npos) << r.message;
  EXPECT_TRUE(r.patch.empty());
}

// ---- calls made while the test module is collected (review 30, W6) ----------------------------
// A parametrize table computed by the code (`[(add(2, 2), 4), (add(1, 3), 4)]`) calls it while
// pytest imports the test module, before any test runs: the coverage of the tests' own run saw
// no function of the project run and rejected the honest fix (code_under_test_not_executed). The
// calls a test module makes itself while it is collected count (the project's own module-level
// code, run when the test module imports it, still does not).
TEST(E2EHonestValidation, CallsTheTestModuleMakesWhileCollectedCount) {
  TempDir tmp;
  const fs::path repo = tmp.path() / "repo";
  const std::string test = "import pytest\n\nfrom calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n";
  const std::string base = make_repo(repo, {{"calc.py", "def add(a, b):\n    return a + b\n"},
                                            {"tests/test_calc.py", test},
                                            {"pytest.ini", "[pytest]\npythonpath = .\n"},
                                            {".gitignore", "__pycache__/\n"}});
  const std::string head = commit_files(repo, {{"calc.py", "def add(a, b):\n    return a - b\n"}}, "Break add");
  auto run = [&](const std::vector<std::pair<std::string, Json>>& calls) {
    ScriptedModel model;
    script(model, calls);
    auto req = request_for(repo, base, head, model, {"tests/test_calc.py::test_add"});
    req.commands.test = kPytest;
    auto agent = Agent::create(validator_only(tmp.path()));
    return (*agent)->run(req);
  };
  const std::string table = "import pytest\n\nfrom calc import add\n\n\n@pytest.mark.parametrize('got,want', [(add(2, 2), 4), (add(1, 3), 4)])\n"
                            "def test_add(got, want):\n    assert got == want\n";
  auto honest = run({{"edit_file", edit("calc.py", "a - b", "a + b")}, {"write_file", write("tests/test_calc.py", table)}});
  EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
