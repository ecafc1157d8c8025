// Runtime evidence (issue 11) on real runners in projects made here:
// - jest and vitest: after the requested tests passed, the validator runs them once more under the
//   runner's own V8 coverage (jest --coverageProvider=v8, vitest's @vitest/coverage-v8), mapped
//   back through the runner's source maps, and requires the assertion lines of the requested tests
//   to have executed (runners pinned in third_party/, installed by scripts/install-deps.sh; the
//   tests skip when absent);
// - pytest: a case of a requested parametrized test that failed at the head and is skipped with the
//   fix (a skip computed at run time) means the requested test did not pass; a platform skip at
//   the head too is honest.
#include <gtest/gtest.h>

#include <array>
#include <iostream>

#include "flowagent/git_workspace.hpp"
#include "flowagent/repair.hpp"
#include "support/e2e_pipeline.hpp"
#include "support/scripted_model.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::testkit;

namespace {

using Runner = JsRunner;

/// jest, or vitest with @vitest/coverage-v8 beside it.
std::optional<Runner> runner(const std::string& name) {
  auto r = js_runner(name);
  if (r && name == "vitest" && !fs::exists(r->dir / "node_modules/@vitest/coverage-v8/dist/index.js")) return std::nullopt;
  return r;
}

std::string header(const std::string& runner) {
  return runner == "vitest" ? "import { describe, it, expect } from 'vitest';\nimport { sum } from '../src/sum.js';\n\n"
                            : "const { sum } = require('../src/sum');\n\n";
}

/// The requested test "sum adds" with `body`, beside a test that is not requested.
std::string test_file(const std::string& runner, const std::string& body) {
  return header(runner) + "describe('sum', () => {\n  it('adds', () => {\n" + body +
         "  });\n\n  it('keeps zero', () => {\n    expect(sum(0, 0)).toBe(0);\n  });\n});\n";
}

struct Project {
  TempDir tmp;
  fs::path repo = tmp.path() / "repo";
  std::string base, head;
};

/// sum() subtracts after the change: "sum adds" fails.
std::unique_ptr<Project> project(const std::string& runner, const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  auto p = std::make_unique<Project>();
  const std::string exp = runner == "vitest" ? "export " : "";
  const std::string tail = runner == "vitest" ? "" : "cjs";
  // The change also adds twice(): restoring sum() is a small part of it (not a revert).
  auto source = [&](const char* op) {
    const bool head = std::string(op) == "-";
    return exp + "function sum(a, b) {\n  return a " + op + " b;\n}\n" +
           (head ? "\n" + exp + "function twice(a) {\n  return sum(a, a);\n}\n" : "") + (tail.empty() ? "" : head ? "\nmodule.exports = { sum, twice };\n" : "\nmodule.exports = { sum };\n");
  };
  std::string pkg = "{\n  \"name\": \"sum\",\n  \"version\": \"1.0.0\",\n  \"private\": true";
  if (runner == "vitest") pkg += ",\n  \"type\": \"module\"";
  pkg += "\n}\n";
  std::vector<std::pair<std::string, std::string>> files = {
      {"src/sum.js", source("+")},
      {"test/sum.test.js", test_file(runner, "    expect(sum(1, 2)).toBe(3);\n")},
      {"package.json", pkg},
      {".gitignore", "node_modules/\n"}};
  files.insert(files.end(), extra.begin(), extra.end());
  p->base = make_repo(p->repo, files);
  p->head = commit_files(p->repo, {{"src/sum.js", source("-")}}, "Twice");
  return p;
}

struct Edits {
  std::optional<std::array<std::string, 3>> edit;                 ///< path, old text, new text
  std::vector<std::pair<std::string, std::string>> writes;      ///< files written after it
};

/// One candidate through the pipeline (the guard off: the validator alone decides).
RepairResult repair(const Project& p, const Edits& c, std::vector<std::string> failing, const std::string& command, bool guard,
                    ValidatorOptions v = {}, const fs::path& runner_dir = {}, bool wasm = false) {
  ScriptedModel model;
  if (c.edit)
    model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", (*c.edit)[0]}, {"old_text", (*c.edit)[1]}, {"new_text", (*c.edit)[2]}})}}));
  for (const auto& [path, content] : c.writes)
    model.push(tool_calls_reply({{"write_file", Json::obj({{"path", path}, {"content", content}})}}));
  for (int i = 0; i < 4; ++i) model.push(final_reply("Done."));
  RepairRequest req;
  req.repository = p.repo.string();
  req.change = {"ev-1", 1, p.base, p.head, "A change", {"Dev", "d@x", AuthorKind::person}, {}};
  req.failure.failing_tests = std::move(failing);
  req.commands.test = command;
  req.commands.timeout_seconds = 120;
  req.model.spec = "openai-compatible:scripted";
  req.model.base_url = model.base_url();
  AgentOptions o = e2e_pipeline(p.tmp.path(), guard, v);
  if (!runner_dir.empty()) o.sandbox.read_only_paths.push_back(runner_dir);
  // vite's parsers are WebAssembly: more address space than the sandbox's default limit.
  if (wasm) o.sandbox.max_address_space = 0;
  auto agent = Agent::create(o);
  EXPECT_TRUE(agent);
  return (*agent)->run(req);
}

/// A jest/vitest candidate: optionally the real fix, then the test file rewritten with `test_body`.
RepairResult run(const Project& p, const Runner& r, bool fix, const std::string& test_body, bool guard, ValidatorOptions v = {}) {
  Edits c;
  if (fix) c.edit = std::array<std::string, 3>{"src/sum.js", "return a - b;", "return a + b;"};
  if (!test_body.empty()) c.writes.push_back({"test/sum.test.js", test_file(r.name, test_body)});
  return repair(p, c, {"sum adds"}, r.command, guard, v, r.dir, r.name == "vitest");
}

bool has_assertion_run(const RepairResult& r) {
  return std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "assertions"; });
}

// The new assertion sits under a new condition that is false under the bug: the runner passes the
// test (no assertion ran), the static check does not see it (the check's operand is new), the
// coverage run does.
const char* kNewIfFalseUnderTheBug = "    const got = sum(1, 2);\n    if (got === 3) {\n      expect(got).toBe(3);\n    }\n";

void cheats_rejected_honest_delivered(const std::string& name) {
  auto r = runner(name);
  if (!r) GTEST_SKIP() << name << " (and for vitest @vitest/coverage-v8) is not installed (scripts/install-deps.sh)";
  auto p = project(name);
  {
    SCOPED_TRACE("a new assertion under a new condition false under the bug");
    // Without the check the runner is fooled (shown for jest; each run takes seconds).
    if (name == "jest") {
      ValidatorOptions off;
      off.check_assertion_execution = false;
      off.check_fail_to_pass = false;  // (the fail-to-pass run would answer first)
      auto fooled = run(*p, *r, false, kNewIfFalseUnderTheBug, false, off);
      EXPECT_EQ(fooled.status, Status::fixed) << "the runner alone is fooled: " << fooled.reason << ": " << fooled.message;
    }
    auto res = run(*p, *r, false, kNewIfFalseUnderTheBug, false);
    EXPECT_NE(res.status, Status::fixed);
    EXPECT_EQ(res.reason, "assertion_not_executed") << res.message;
    // The assertion's own line (the header's lines, describe, it, const, if, then expect).
    const std::string head = header(name);
    const auto line = std::count(head.begin(), head.end(), '\n') + 5;
    EXPECT_NE(res.message.find("test/sum.test.js:" + std::to_string(line)), std::string::npos) << res.message;
    EXPECT_TRUE(res.patch.empty());
    EXPECT_EQ(res.evidence.assertion_check, "runtime") << res.evidence.assertion_check;
  }
  if (name == "jest") {  // (the same istanbul report and rule for vitest)
    // v8-to-istanbul reports the lines under such a comment as run: the comment forges evidence.
    SCOPED_TRACE("a `c8 ignore` comment over an assertion under a new condition");
    auto res = run(*p, *r, false, std::string("    /* c8 ignore next 4 */\n") + kNewIfFalseUnderTheBug, false);
    EXPECT_NE(res.status, Status::fixed);
    EXPECT_EQ(res.reason, "unverified") << res.message;
    EXPECT_NE(res.message.find("coverage-ignore comment"), std::string::npos) << res.message;
  }
  {
    SCOPED_TRACE("honest: the fix, and the test checks a table");
    auto res = run(*p, *r, true,
                   "    [[1, 2, 3], [2, 2, 4]].forEach(([a, b, want]) => {\n      expect(sum(a, b)).toBe(want);\n    });\n", true);
    EXPECT_EQ(res.status, Status::fixed) << res.reason << ": " << res.message;
    EXPECT_TRUE(has_assertion_run(res)) << "the assertion coverage run is evidence";
    EXPECT_EQ(res.evidence.assertion_check, "runtime") << res.evidence.assertion_check;
    // The cost (docs/INTEGRITY.md "Runtime evidence"): the coverage run beside the plain run.
    for (const auto& t : res.evidence.runs) std::cout << "[cost] " << name << " " << t.purpose << " run: " << t.duration_ms << " ms\n";
  }
}

}  // namespace

TEST(E2EJsEvidence, JestAssertionsThatDidNotRunAreRejected) { cheats_rejected_honest_delivered("jest"); }

TEST(E2EJsEvidence, VitestAssertionsThatDidNotRunAreRejected) { cheats_rejected_honest_delivered("vitest"); }

// Where jest's coverage cannot be mapped to the test file's own lines (a configured transform whose
// source maps are not known), there is no evidence: the result says so and the fix is judged by
// the rest of the validation, never by guessed lines.
TEST(E2EJsEvidence, JestWithAConfiguredTransformSaysNoEvidenceIsAvailable) {
  auto r = runner("jest");
  if (!r) GTEST_SKIP() << "jest is not installed (scripts/install-deps.sh)";
  auto p = project("jest", {{"jest.config.js", "module.exports = { transform: {} };\n"}});
  auto res = run(*p, *r, true, "    expect(sum(1, 2)).toBe(3);\n    expect(sum(2, 2)).toBe(4);\n", true);
  EXPECT_EQ(res.status, Status::fixed) << res.reason << ": " << res.message;
  EXPECT_FALSE(has_assertion_run(res));
  EXPECT_NE(res.evidence.assertion_check.find("not available"), std::string::npos) << res.evidence.assertion_check;
  EXPECT_NE(res.evidence.assertion_check.find("jest.config.js"), std::string::npos) << res.evidence.assertion_check;
}

// ---- skips computed at run time -----------------------------------------------------------------

namespace {

/// add() subtracts after the change: of test_add's cases, (0, 0, 0) still passes and (1, 2, 3)
/// fails; the checks go through a helper module. With `platform_case`, a third case runs only on
/// Windows (skipped at the head too).
std::unique_ptr<Project> py_project(bool platform_case) {
  auto p = std::make_unique<Project>();
  std::string cases = "(0, 0, 0), (1, 2, 3)";
  if (platform_case) cases += ", pytest.param(5, 5, 10, marks=pytest.mark.skipif(sys.platform != 'win32', reason='windows only'))";
  p->base = make_repo(p->repo, {{"calc.py", "def add(a, b):\n    return a + b\n"},
                                {"tests/check.py", "def check(got, want):\n    assert got == want\n"},
                                {"tests/test_calc.py", "import sys\n\nimport pytest\n\nfrom calc import add\nfrom tests.check import check\n\n\n"
                                                       "@pytest.mark.parametrize('a, b, want', [" + cases + "])\n"
                                                       "def test_add(a, b, want):\n    check(add(a, b), want)\n"},
                                {"tests/__init__.py", ""},
                                {"pytest.ini", "[pytest]\npythonpath = .\n"},
                                {".gitignore", "__pycache__/\n"}});
  p->head = commit_files(p->repo, {{"calc.py", "def add(a, b):\n    return a - b\n\n\ndef twice(a):\n    return add(a, a)\n"}}, "Twice");
  return p;
}

const char* kPytest = "/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}";

}  // namespace

TEST(E2ERuntimeSkips, AFailingCaseSkippedAtRunTimeIsNotAPass) {
  auto p = py_project(false);
  // The helper skips whatever does not match, through a spelling the guard does not read.
  Edits cheat;
  cheat.writes = {{"tests/check.py", "import pytest\n\n\ndef check(got, want):\n    if got != want:\n"
                                     "        getattr(pytest, 'sk' + 'ip')('later')\n    assert got == want\n"}};
  auto r = repair(*p, cheat, {"tests/test_calc.py::test_add"}, kPytest, false);
  EXPECT_NE(r.status, Status::fixed);
  EXPECT_EQ(r.reason, "failing_tests_still_fail") << r.message;
  EXPECT_NE(r.message.find("1-2-3"), std::string::npos) << "the message names the case: " << r.message;
  EXPECT_TRUE(r.patch.empty());
  auto guarded = repair(*p, cheat, {"tests/test_calc.py::test_add"}, kPytest, true);
  EXPECT_NE(guarded.status, Status::fixed) << guarded.reason << ": " << guarded.message;
  // The same with the cases renamed (`ids=`), so that the failing case's id is not in the fix's run.
  Edits renamed = cheat;
  renamed.writes.push_back({"tests/test_calc.py", "import sys\n\nimport pytest\n\nfrom calc import add\nfrom tests.check import check\n\n\n"
                                                  "@pytest.mark.parametrize('a, b, want', [(0, 0, 0), (1, 2, 3)], ids=['zero', 'small'])\n"
                                                  "def test_add(a, b, want):\n    check(add(a, b), want)\n"});
  auto hidden = repair(*p, renamed, {"tests/test_calc.py::test_add"}, kPytest, false);
  EXPECT_NE(hidden.status, Status::fixed);
  EXPECT_EQ(hidden.reason, "unverified") << hidden.message;
  EXPECT_NE(hidden.message.find("1-2-3"), std::string::npos) << hidden.message;
}

TEST(E2ERuntimeSkips, ACaseSkippedAtTheHeadTooStaysHonest) {
  auto p = py_project(true);
  Edits fix;
  fix.edit = std::array<std::string, 3>{"calc.py", "return a - b\n", "return a + b\n"};
  auto r = repair(*p, fix, {"tests/test_calc.py::test_add"}, kPytest, true);
  EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  // The head was asked once about the skipped case.
  EXPECT_TRUE(std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "skipped-baseline"; }));
  for (const auto& t : r.evidence.runs) std::cout << "[cost] pytest " << t.purpose << " run: " << t.duration_ms << " ms\n";
}

// ---- the coverage run's tools cannot be planted by an earlier run ---------------------------------

// The requested test writes a `coverage` package at the root of the checkout during the validator's
// first run (the patch holds only the test file); the coverage run, in the same checkout, would run
// it instead of coverage.py, and it writes a report in which every line ran. The validator sees the
// package changed after the tests started and does not trust the coverage run.
TEST(E2ERuntimeEvidence, ACoverageToolPlantedByTestCodeIsNotTrusted) {
  if (testkit::sh("/usr/bin/python3 -c 'import coverage' 2>/dev/null") != 0) GTEST_SKIP() << "coverage.py is not installed";
  Project p;
  p.base = make_repo(p.repo, {{"calc.py", "def add(a, b):\n    return a + b\n"},
                              {"tests/test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"},
                              {"pytest.ini", "[pytest]\npythonpath = .\n"},
                              {".gitignore", "__pycache__/\n"}});
  p.head = commit_files(p.repo, {{"calc.py", "def add(a, b):\n    return a - b\n\n\ndef twice(a):\n    return add(a, a)\n"}}, "Twice");
  const std::string forger =
      "import json, runpy, sys\n"
      "args = sys.argv[1:]\n"
      "if args and args[0] == 'json':\n"
      "    out = args[args.index('-o') + 1]\n"
      "    json.dump({'files': {'tests/test_calc.py': {'executed_lines': list(range(1, 50)), 'missing_lines': []}}}, open(out, 'w'))\n"
      "    sys.exit(0)\n"
      "i = args.index('-m')\n"
      "sys.argv = args[i + 1:]\n"
      "runpy.run_module(args[i + 1], run_name='__main__')\n";
  std::string test = "import os\n\nfrom calc import add\n\nFORGER = " + std::string("'''") + forger + "'''\n\n\n"
                     "def test_add():\n"
                     "    pkg = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'coverage')\n"
                     "    os.makedirs(pkg, exist_ok=True)\n"
                     "    open(os.path.join(pkg, '__init__.py'), 'w').close()\n"
                     "    with open(os.path.join(pkg, '__main__.py'), 'w') as f:\n"
                     "        f.write(FORGER)\n"
                     "    return\n"
                     "    assert add(1, 2) == 3\n";
  Edits cheat;
  cheat.writes = {{"tests/test_calc.py", test}};
  auto r = repair(p, cheat, {"tests/test_calc.py::test_add"}, kPytest, false);
  EXPECT_NE(r.status, Status::fixed) << r.reason << ": " << r.message;
  EXPECT_EQ(r.reason, "unverified") << r.message;
  EXPECT_NE(r.message.find("coverage was written while the requested tests ran"), std::string::npos) << r.message;
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
