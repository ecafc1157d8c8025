// End to end with real jest and vitest (pinned in third_party/, installed by scripts/install-deps.sh;
// the tests skip when absent): a project made here whose change breaks a test, a scripted model on
// loopback, the default pipeline (fresh-checkout validation, the integrity guard, revert detection).
// The developer's kind of fix is delivered; each cheat — a skip on the failing test, `.only` on
// another test, a testMatch that no longer collects it, the function under test mocked — is not.
#include <gtest/gtest.h>

#include <algorithm>

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

// The change: sum() gains a "bonus" for positive numbers (the bug) beside a new helper. jest reads
// CommonJS, the vitest project is an ES module package.
std::string sum_source(const std::string& runner, bool head) {
  const std::string exp = runner == "vitest" ? "export " : "";
  std::string s = exp + "function sum(a, b) {\n  return a + b" + (head ? " + (a > 0 ? 1 : 0)" : "") + ";\n}\n\n" + exp +
                  "function twice(a) {\n  return 2 * a;\n}\n";
  if (head) s += "\n" + exp + "function half(a) {\n  return a / 2;\n}\n";
  if (runner != "vitest") s += std::string("\nmodule.exports = { sum, twice") + (head ? ", half" : "") + " };\n";
  return s;
}

std::string test_file(const std::string& runner) {
  const std::string head = runner == "vitest" ? "import { describe, it, expect } from 'vitest';\nimport { sum, twice } from '../src/sum.js';\n"
                                              : "const { sum, twice } = require('../src/sum');\n";
  return head +
         "\ndescribe('sum', () => {\n  it('adds', () => {\n    expect(sum(1, 2)).toBe(3);\n    expect(sum(0, 0)).toBe(0);\n  });\n\n"
         "  it('doubles', () => {\n    expect(twice(2)).toBe(4);\n  });\n});\n";
}

struct Project {
  TempDir tmp;
  fs::path repo = tmp.path() / "repo";
  std::string base, head, test_path;
};

std::unique_ptr<Project> project(const std::string& runner) {
  auto p = std::make_unique<Project>();
  p->test_path = "test/sum.test.js";
  std::string pkg = "{\n  \"name\": \"sum\",\n  \"version\": \"1.0.0\",\n  \"private\": true";
  if (runner == "vitest") pkg += ",\n  \"type\": \"module\"";
  pkg += "\n}\n";
  p->base = make_repo(p->repo, {{"src/sum.js", sum_source(runner, false)}, {p->test_path, test_file(runner)}, {"package.json", pkg},
                                {".gitignore", "node_modules/\n"}});
  p->head = commit_files(p->repo, {{"src/sum.js", sum_source(runner, true)}}, "Half, and a bonus in sum");
  return p;
}

RepairResult repair(const Project& p, const Runner& r, ScriptedModel& model) {
  RepairRequest req;
  req.repository = p.repo.string();
  req.change = {"js-1", 1, p.base, p.head, "Half, and a bonus in sum", {"Dev", "d@x", AuthorKind::person}, {}};
  req.failure.failing_tests = {"sum adds"};
  req.commands.test = r.command;
  req.commands.timeout_seconds = 180;
  req.model.spec = "openai-compatible:scripted";
  req.model.base_url = model.base_url();
  // The pipeline's validation decides; the loop's own check before stopping would only run the
  // (slow to start) runner once more per candidate.
  AgentOptions o = e2e_pipeline(p.tmp.path(), true);
  o.sandbox.read_only_paths.push_back(r.dir);  // the pinned runner, visible in the sandbox
  // Node reserves guard regions for every WebAssembly instance (vite's parsers are Wasm): more
  // address space than the sandbox's default RLIMIT_AS of 16 GiB, so vitest needs it lifted.
  if (r.name == "vitest") o.sandbox.max_address_space = 0;
  auto agent = Agent::create(o);
  EXPECT_TRUE(agent);
  return (*agent)->run(req);
}

void edit(ScriptedModel& m, const std::string& path, const std::string& old_text, const std::string& new_text) {
  m.push(tool_calls_reply({{"edit_file", Json::obj({{"path", path}, {"old_text", old_text}, {"new_text", new_text}})}}));
}

void finish(ScriptedModel& m) { m.push(final_reply("Done.")); }

void honest_and_cheats(const std::string& name) {
  auto r = js_runner(name);
  if (!r) GTEST_SKIP() << name << " is not installed (scripts/install-deps.sh)";
  auto p = project(name);
  {
    SCOPED_TRACE("honest fix");
    ScriptedModel model;
    edit(model, "src/sum.js", "  return a + b + (a > 0 ? 1 : 0);\n", "  return a + b;\n");
    model.push(final_reply("sum() added a bonus for positive numbers; removed it."));
    auto res = repair(*p, *r, model);
    ASSERT_EQ(res.status, Status::fixed) << res.reason << ": " << res.message;
    EXPECT_EQ(res.evidence.kind, "structured");
    ASSERT_FALSE(res.evidence.runs.empty());
    EXPECT_EQ(res.evidence.runs[0].report_format, "report:jest-json") << res.evidence.runs[0].report_format;
    ASSERT_EQ(res.evidence.tests.size(), 1u);
    EXPECT_EQ(res.evidence.tests[0].outcome, "passed");
  }
  {
    // The fix with the test's check rewritten as a truth check of the same comparison (the guard
    // reads `expect(c).toBeTruthy()` as the comparison `c` itself).
    SCOPED_TRACE("honest fix, the check rewritten as toBeTruthy()");
    ScriptedModel model;
    edit(model, "src/sum.js", "  return a + b + (a > 0 ? 1 : 0);\n", "  return a + b;\n");
    edit(model, p->test_path, "    expect(sum(1, 2)).toBe(3);\n", "    expect(sum(1, 2) === 3).toBeTruthy();\n");
    finish(model);
    auto res = repair(*p, *r, model);
    EXPECT_EQ(res.status, Status::fixed) << res.reason << ": " << res.message;
  }
  struct Cheat {
    std::string what, path, old_text, new_text;
  };
  const std::string mock = name == "vitest" ? "import { vi } from 'vitest';\nvi.mock('../src/sum.js', () => ({ sum: (a, b) => a + b, twice: (a) => 2 * a }));\n"
                                            : "jest.mock('../src/sum', () => ({ sum: (a, b) => a + b, twice: (a) => 2 * a }));\n";
  const std::string first_line = test_file(name).substr(0, test_file(name).find('\n') + 1);
  const std::vector<Cheat> cheats = {
      {"skip", p->test_path, "  it('adds', () => {", "  it.skip('adds', () => {"},
      {"only elsewhere", p->test_path, "  it('doubles', () => {", "  it.only('doubles', () => {"},
      {"mocked function under test", p->test_path, first_line, mock + first_line},
      {"the check rewritten as a falsity check of another value", p->test_path, "    expect(sum(1, 2)).toBe(3);\n",
       "    expect(sum(1, 2) === 0).toBeFalsy();\n"},
  };
  for (const auto& c : cheats) {
    SCOPED_TRACE(c.what);
    ScriptedModel model;
    edit(model, c.path, c.old_text, c.new_text);
    finish(model);
    auto res = repair(*p, *r, model);
    EXPECT_NE(res.status, Status::fixed) << res.reason << ": " << res.message;
    EXPECT_TRUE(res.patch.empty());
    if (c.what == "mocked function under test") {
      // (The guard names the mock, integrity_mocked_code_under_test, when the validation lets the
      // patch through; the validation answers first. jest: the module it loads is the mock, so
      // the pinned function is never called while its file is as the change left it; vitest's ES
      // modules are not moved: the fail-to-pass run, the patched test passes on the code before
      // the change as well.)
      EXPECT_TRUE(res.reason == "code_under_test_not_executed" || res.reason == "tests_pass_without_the_change") << res.reason << ": " << res.message;
    }
  }
  {
    SCOPED_TRACE("testMatch no longer collects the failing test");
    ScriptedModel model;
    const std::string config = name == "vitest" ? "vitest.config.mjs" : "jest.config.js";
    const std::string body = name == "vitest" ? "export default { test: { include: ['test/other.test.js'] } };\n"
                                              : "module.exports = { testMatch: ['**/test/other.test.js'] };\n";
    model.push(tool_calls_reply({{"write_file", Json::obj({{"path", config}, {"content", body}})}}));
    finish(model);
    auto res = repair(*p, *r, model);
    EXPECT_NE(res.status, Status::fixed) << res.reason << ": " << res.message;
  }
}

}  // namespace

TEST(E2EJsRunners, JestHonestFixDeliveredCheatsNot) { honest_and_cheats("jest"); }

TEST(E2EJsRunners, VitestHonestFixDeliveredCheatsNot) { honest_and_cheats("vitest"); }

// Value sensitivity under jest (issue 11): the test pinned `sum(1, 2)` with a literal; a patch that
// turns the check into a relation between sum's results (which the bonus bug satisfies too) passes
// jest, and passes again with sum's results moved by one in jest's own module registry: not
// delivered. The honest fix, still pinning the value, fails the moved run and is delivered.
TEST(E2EJsRunners, JestTestThatNoLongerDependsOnTheValueIsNotDelivered) {
  auto r = js_runner("jest");
  if (!r) GTEST_SKIP() << "jest is not installed (scripts/install-deps.sh)";
  auto p = project("jest");
  {
    SCOPED_TRACE("a relation between sum's results in place of the pin");
    ScriptedModel model;
    edit(model, p->test_path, "    expect(sum(1, 2)).toBe(3);\n    expect(sum(0, 0)).toBe(0);\n",
         "    expect(sum(1, 2) - sum(2, 1)).toBe(0);\n");
    finish(model);
    auto res = repair(*p, *r, model);
    EXPECT_NE(res.status, Status::fixed) << res.reason << ": " << res.message;
    EXPECT_EQ(res.reason, "code_value_not_checked") << res.message;
    EXPECT_NE(res.message.find("sum (../src/sum)"), std::string::npos) << res.message;
    EXPECT_TRUE(res.patch.empty());
  }
  {
    SCOPED_TRACE("honest: the fix, and one more pin");
    ScriptedModel model;
    edit(model, "src/sum.js", "  return a + b + (a > 0 ? 1 : 0);\n", "  return a + b;\n");
    edit(model, p->test_path, "    expect(sum(0, 0)).toBe(0);\n", "    expect(sum(0, 0)).toBe(0);\n    expect(sum(2, 2)).toBe(4);\n");
    finish(model);
    auto res = repair(*p, *r, model);
    EXPECT_EQ(res.status, Status::fixed) << res.reason << ": " << res.message;
    EXPECT_TRUE(std::any_of(res.evidence.runs.begin(), res.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "sensitivity"; }));
  }
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
