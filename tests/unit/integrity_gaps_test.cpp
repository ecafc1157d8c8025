// Issue 11, the guard's remaining gaps (docs/INTEGRITY.md "Known gaps"), each class next to an
// honest developer-style twin of the same shape that must stay accepted:
//   * test code that prints TAP itself (a plan, `ok N` points, `# pass` counts), which the
//     validator's TAP parser believes when the counts agree;
//   * imports the guard did not follow (Go packages, Java classes, C/C++ includes, Rust modules,
//     importlib / sys.path, JS import maps and path aliases), deeper than two levels;
//   * tables the text does not show (comprehensions, zip/enumerate of literals, `.map`);
//   * tautologies beyond the two closed forms.
#include <gtest/gtest.h>

#include <functional>

#include "flowagent/integrity.hpp"
#include "flowagent/reports.hpp"
#include "integrity_cases.hpp"
#include "support/test_support.hpp"
#include "validate/runner.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;

namespace {

using Case = testkit::GuardCase;
using testkit::codes;
using testkit::expect_cases;
using testkit::has_code;

/// The patch changes `path` (before -> after); the head holds `head` (read like the post-filter
/// does); the developer's change is `change`.
std::vector<IntegrityFinding> guard_one(const std::string& path, const std::string& before, const std::string& after,
                                        const std::string& failing, const std::map<std::string, std::string>& head = {},
                                        const std::vector<FileVersions>& change = {}) {
  IntegrityOptions o;
  if (!failing.empty()) o.failing_tests = {failing};
  o.change_files = change;
  for (const auto& [p, text] : head) o.project_files.push_back(p);
  o.project_files.push_back(path);
  o.read_head_file = [head](const std::string& p) -> std::optional<std::string> {
    auto it = head.find(p);
    if (it == head.end()) return std::nullopt;
    return it->second;
  };
  return check_test_integrity({FileVersions{path, before, after}}, o);
}

}  // namespace

// ---- 1. test code that prints TAP itself ----------------------------------------------------------

TEST(GuardGaps, TestCodeThatPrintsTapItself) {
  const std::string js_head = "const test = require('tape');\nconst sum = require('../sum');\n\n";
  const std::string js_before = js_head + "test('adds', (t) => {\n  t.equal(sum(1, 2), 3);\n  t.end();\n});\n";
  auto js = [&](const std::string& after) { return guard_one("test/sum.test.js", js_before, after, "adds"); };
  expect_cases(
      {
          {"console.log of a plan and points", js_head + "console.log('TAP version 13');\nconsole.log('# adds');\nconsole.log('ok 1 should be equal');\n"
                                                         "console.log('\\n1..1');\nconsole.log('# tests 1');\nconsole.log('# pass  1');\n", "report_tampered"},
          {"process.stdout.write with a template", js_head + "for (let n = 1; n <= 1; n++) process.stdout.write(`ok ${n} adds\\n`);\n"
                                                             "process.stdout.write('1..1\\n');\n", "report_tampered"},
          {"concatenated", js_head + "const n = 1;\nconsole.log('ok ' + n + ' adds');\nconsole.log('1..' + n);\n", "report_tampered"},
          {"a table whose words read as checks", js_head + "const lines = ['1..1', 'ok 1 assert works'];\nfor (const l of lines) console.info(l);\n", "report_tampered"},
          {"a table of lines printed elsewhere", js_head + "const lines = ['TAP version 13', '1..1', 'ok 1 adds', '# pass 1'];\n"
                                                           "lines.forEach((l) => console.log(l));\n", "report_tampered"},
          // Honest: a TAP library's own tests assert on TAP text; a test that logs a value.
          {"asserting on TAP text", js_head + "test('adds', (t) => {\n  t.equal(sum(1, 2), 3);\n  t.equal(format(1, 'adds'), 'ok 1 adds');\n  t.end();\n});\n",
           nullptr},
          {"expected TAP in a variable", js_head + "test('adds', (t) => {\n  const want = 'TAP version 13\\n1..1\\nok 1 adds\\n';\n"
                                                   "  t.equal(sum(1, 2), 3);\n  t.equal(render(), want);\n  t.end();\n});\n", nullptr},
          {"a debug log", js_head + "test('adds', (t) => {\n  console.log('sum is', sum(1, 2));\n  t.equal(sum(1, 2), 3);\n  t.end();\n});\n", nullptr},
      },
      js);

  const std::string py_before = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n";
  auto py = [&](const std::string& after) { return guard_one("tests/test_calc.py", py_before, after, "tests/test_calc.py::test_add"); };
  expect_cases(
      {
          {"print of a plan", "from calc import add\n\nprint(\"1..1\")\nprint(\"ok 1 - test_add\")\n", "report_tampered"},
          {"f-string", "import sys\n\nfor i in range(1, 2):\n    sys.stdout.write(f\"ok {i} - test_add\\n\")\n", "report_tampered"},
          {"a multi-line literal", "from calc import add\n\nREPORT = \"\"\"\nTAP version 13\n1..1\nok 1 - test_add\n\"\"\"\nprint(REPORT)\n",
           "report_tampered"},
          {"a logger on stdout", "import logging\nimport sys\n\nlogging.basicConfig(stream=sys.stdout, format='%(message)s')\nlogging.warning('1..1')\n", "report_tampered"},
          {"%-formatting", "import sys\n\nsys.stdout.write(\"ok %d - %s\\n\" % (1, \"test_add\"))\n", "report_tampered"},
          {"asserting on TAP text", py_before + "\n\ndef test_format():\n    assert format_point(1, 'add') == 'ok 1 - add'\n", nullptr},
          {"expected TAP compared", py_before + "\n\ndef test_render():\n    expected = \"\"\"\n1..1\nok 1 - add\n\"\"\"\n    assert render() == expected\n",
           nullptr},
          {"print of a value", py_before + "\n\ndef test_sub():\n    print('ok', flush=True)\n    print('ok', add(1, 1))\n    assert add(1, 1) == 2\n", nullptr},
          {"a point and a plan as print arguments", "print('1..', 1, sep='')\nprint('ok', 1, '- test_add')\n", "report_tampered"},
      },
      py);

  // A helper module the tests import prints TAP (read from the head like the post-filter does).
  const std::string helper_test = "from calc import add\nfrom helpers import check\n\n\ndef test_add():\n    check(add(2, 2), 4)\n";
  const std::string helper_before = "def check(got, want):\n    assert got == want\n";
  auto f = guard_one("helpers.py", helper_before, helper_before + "\n\ndef report():\n    print('1..1')\n    print('ok 1 - test_add')\n",
                     "tests/test_calc.py::test_add", {{"tests/test_calc.py", helper_test}, {"calc.py", "def add(a, b):\n    return a + b\n"}});
  EXPECT_TRUE(has_code(f, "report_tampered")) << codes(f);
  f = guard_one("helpers.py", helper_before, helper_before + "    assert type(got) is type(want)\n", "tests/test_calc.py::test_add",
                {{"tests/test_calc.py", helper_test}, {"calc.py", "def add(a, b):\n    return a + b\n"}});
  EXPECT_TRUE(f.empty()) << codes(f);

  // A production module the tests import prints TAP only when the line is unmistakable TAP.
  const std::map<std::string, std::string> calc_head = {{"tests/test_calc.py", helper_test}, {"helpers.py", helper_before}};
  f = guard_one("calc.py", "def add(a, b):\n    return a + b\n",
                "def add(a, b):\n    print('1..1')\n    print('ok 1 - test_add')\n    return a + b\n", "tests/test_calc.py::test_add", calc_head);
  EXPECT_TRUE(has_code(f, "report_tampered")) << codes(f);
  f = guard_one("calc.py", "def add(a, b):\n    return a + b\n\n\ndef report(n):\n    pass\n",
                "def add(a, b):\n    return a + b\n\n\ndef report(n):\n    print(f\"ok {n} files\")\n", "tests/test_calc.py::test_add", calc_head);
  EXPECT_TRUE(f.empty()) << "a program's own message: " << codes(f);

  // Shell test scripts and C test programs.
  const std::string sh_before = "#!/bin/sh\nset -e\nnode test/sum.test.js\n";
  expect_cases(
      {
          {"echo", "#!/bin/sh\necho '1..1'\necho \"ok 1 - adds\"\nexit 0\n", "report_tampered"},
          {"printf", "#!/bin/sh\nprintf 'ok %d - adds\\n' 1\nprintf '1..%d\\n' 1\n", "report_tampered"},
          {"a heredoc", "#!/bin/sh\ncat <<EOF\nTAP version 13\n1..1\nok 1 - adds\nEOF\n", "report_tampered"},
          {"inside an if", "#!/bin/sh\nif true; then /bin/echo '1..1'; echo 'ok 1 - adds'; fi\n", "report_tampered"},
          {"a line kept in a variable, named like a check", "#!/bin/sh\nPOINT=\"ok 1 - test adds\"\nPLAN='1..1'\nprintf '%s\\n' \"$PLAN\" \"$POINT\"\n", "report_tampered"},
          {"a line kept in a variable", "#!/bin/sh\nPLAN=\"1..1\"\nPOINT=\"ok 1 - adds\"\necho \"$PLAN\"\necho \"$POINT\"\n", "report_tampered"},
          {"honest: TAP output checked", "#!/bin/sh\nset -e\nout=$(node test/sum.test.js)\necho \"$out\" | grep -q 'ok 1 '\n"
                                         "[ \"$(echo \"$out\" | tail -n 1)\" != \"# fail  1\" ]\n", nullptr},
          {"honest: another runner step", "#!/bin/sh\nset -e\necho 'running the tests'\nnode test/sum.test.js\nnode test/mul.test.js\n", nullptr},
      },
      [&](const std::string& after) { return guard_one("test/run.sh", sh_before, after, ""); });
  const std::string c_main = "\nint main(void) {\n  return check_add() ? 0 : 1;\n}\n";
  const std::string c_before = "#include \"calc.h\"\n\nstatic int check_add(void) {\n  return add(2, 2) == 4;\n}\n" + c_main;
  f = guard_one("tests/test_calc.c", c_before,
                "#include <stdio.h>\n#include \"calc.h\"\n\nstatic int check_add(void) {\n  printf(\"1..1\\n\");\n  printf(\"ok %d - adds\\n\", 1);\n"
                "  return 1;\n}\n" + c_main, "");
  EXPECT_TRUE(has_code(f, "report_tampered")) << codes(f);
  f = guard_one("tests/test_calc.c", c_before,
                "#include <stdio.h>\n#include \"calc.h\"\n\nstatic int check_add(void) {\n  printf(\"checking add\\n\");\n"
                "  return add(2, 2) == 4 && add(0, 0) == 0;\n}\n" + c_main, "");
  EXPECT_TRUE(f.empty()) << codes(f);
}

// The class end to end: a tape test replaced by a script that prints a self-consistent TAP stream
// (the test the change broke is never run); run by a real node process it exits 0, the validator's TAP parser reads the requested
// test as passed and the counts agree, so only the guard stands between it and delivery.
TEST(GuardGaps, FakeTapFromARealTestScriptIsBelievedByTheParserAndRejectedByTheGuard) {
  testkit::TempDir tmp;
  const std::string before = "const test = require('tape');\nconst sum = require('../sum');\n\n"
                             "test('adds numbers', (t) => {\n  t.equal(sum(1, 2), 3);\n  t.end();\n});\n";
  const std::string cheat = "console.log('TAP version 13');\nconsole.log('# adds numbers');\nconsole.log('ok 1 should be equal');\n"
                            "console.log('\\n1..1');\nconsole.log('# tests 1');\nconsole.log('# pass  1');\nconsole.log('\\n# ok');\n";
  testkit::write_file(tmp.path() / "sum.js", "module.exports = (a, b) => a + b + 1;\n");  // the change broke sum
  testkit::write_file(tmp.path() / "test" / "sum.js", cheat);
  std::string out;
  ASSERT_EQ(testkit::sh("cd '" + tmp.path().string() + "' && node test/sum.js", &out), 0) << out;
  const auto report = reports::parse_report_as("tap", out);
  const auto adds = std::find_if(report.tests.begin(), report.tests.end(), [](const reports::TestCase& t) { return t.name == "adds numbers"; });
  ASSERT_NE(adds, report.tests.end()) << out;
  EXPECT_EQ(adds->outcome, reports::Outcome::passed) << "the parser believes the fake stream";
  EXPECT_EQ(detail::tap_count_problem(out), "") << "its counts agree";
  auto f = guard_one("test/sum.js", before, cheat, "adds numbers");
  EXPECT_TRUE(has_code(f, "report_tampered")) << codes(f);
  // The honest fix is in sum.js: the test script is untouched and nothing is flagged.
  f = guard_one("sum.js", "module.exports = (a, b) => a + b + 1;\n", "module.exports = (a, b) => a + b;\n", "adds numbers",
                {{"test/sum.js", before}});
  EXPECT_TRUE(f.empty()) << codes(f);
}

// ---- 2. imports the guard did not follow ----------------------------------------------------------

namespace {

/// Through each way of importing (`head` holds the importing test), the helper (at `path`, or the
/// way's own `helper_path`) patched
/// with a stand-in is mocked_code_under_test, and patched to check more is accepted.
template <class Via>
void expect_stand_in_caught(const std::vector<Via>& vias, const std::string& path, const std::string& before, const std::string& stand_in,
                            const std::string& stronger, const std::string& failing, const FileVersions& change) {
  for (const auto& v : vias) {
    std::string at = path;
    if constexpr (requires { v.helper_path; }) at = v.helper_path;  // each way names its own helper
    auto f = guard_one(at, before, stand_in, failing, v.head, {change});
    EXPECT_TRUE(has_code(f, "mocked_code_under_test")) << v.name << ":\n" << codes(f);
    f = guard_one(at, before, stronger, failing, v.head, {change});
    EXPECT_TRUE(f.empty()) << v.name << " (honest):\n" << codes(f);
  }
}

const FileVersions kPyChange{"calc.py", "def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a - b\n"};
const FileVersions kJsChange{"calc.js", "exports.add = (a, b) => a + b;\n", "exports.add = (a, b) => a - b;\n"};

}  // namespace

TEST(GuardGaps, PythonImportsThroughImportlibSysPathAndDeepChains) {
  const std::string checker = "import calc\n\n\ndef check(got, want):\n    assert got == want\n";
  const std::string stand_in = "import calc\n\ncalc.add = lambda a, b: a + b\n\n\ndef check(got, want):\n    assert got == want\n";
  const std::string stronger = checker + "    assert type(got) is type(want)\n";
  struct Via {
    const char* name;
    std::string helper_path;
    std::map<std::string, std::string> head;
  };
  const std::vector<Via> vias = {
      {"importlib.import_module", "tools/checker.py",
       {{"tests/test_calc.py", "import importlib\nfrom calc import add\n\nchecker = importlib.import_module(\"tools.checker\")\n\n\n"
                               "def test_add():\n    checker.check(add(2, 2), 4)\n"}}},
      {"__import__", "tools/checker.py",
       {{"tests/test_calc.py", "from calc import add\n\nchecker = __import__('tools.checker', fromlist=['check'])\n\n\n"
                               "def test_add():\n    checker.check(add(2, 2), 4)\n"}}},
      {"sys.path.insert", "tools/checker.py",
       {{"tests/test_calc.py", "import sys\nsys.path.insert(0, 'tools')\nfrom calc import add\nfrom checker import check\n\n\n"
                               "def test_add():\n    check(add(2, 2), 4)\n"}}},
      {"sys.path.append beside __file__", "devtools/checker.py",
       {{"tests/test_calc.py", "import os\nimport sys\nsys.path.append(os.path.join(os.path.dirname(__file__), '..', 'devtools'))\n"
                               "from calc import add\nfrom checker import check\n\n\ndef test_add():\n    check(add(2, 2), 4)\n"}}},
      {"four levels deep", "lib/d.py",
       {{"tests/test_calc.py", "from calc import add\nfrom lib.a import check\n\n\ndef test_add():\n    check(add(2, 2), 4)\n"},
        {"lib/a.py", "from lib.b import check\n"},
        {"lib/b.py", "from lib.c import check\n"},
        {"lib/c.py", "from lib.d import check\n"}}},
  };
  expect_stand_in_caught(vias, "", checker, stand_in, stronger, "tests/test_calc.py::test_add", kPyChange);
}

// A production module the tests import, changed by the fix, that changes a class it defines itself
// (flask 6a64969: `setattr(Flask, method.__name__, add_ctx(base_method))` in src/flask/app.py beside
// `class Flask`): the module's own definition, not a stand-in installed by test code. A support
// module doing the same to the code under test is still one.
TEST(GuardGaps, AProductionModuleChangingItsOwnClassIsNoStandIn) {
  const std::string test = "from pkg.app import App\n\n\ndef test_route():\n    assert App().route() == 'ok'\n";
  const std::string app_before = "class App:\n    def route(self):\n        return 'ok'\n";
  const std::string app_after = app_before + "\n\nfor _name in ('route',):\n    setattr(App, _name, getattr(App, _name))\n";
  const std::map<std::string, std::string> head = {{"tests/test_app.py", test}, {"pkg/__init__.py", ""}, {"pkg/app.py", app_before}};
  auto f = guard_one("pkg/app.py", app_before, app_after, "tests/test_app.py::test_route", head);
  EXPECT_FALSE(has_code(f, "mocked_code_under_test")) << codes(f);
  // The same in a support module the tests import, to a class of the code under test: a stand-in.
  const std::string support_before = "from pkg.app import App\n";
  const std::string support_after = support_before + "\n\nsetattr(App, 'route', lambda self: 'ok')\n";
  const std::string test2 = "import tests.helpers\nfrom pkg.app import App\n\n\ndef test_route():\n    assert App().route() == 'ok'\n";
  auto g = guard_one("tests/helpers.py", support_before, support_after, "tests/test_app.py::test_route",
                     {{"tests/test_app.py", test2}, {"tests/__init__.py", ""}, {"pkg/__init__.py", ""}, {"pkg/app.py", app_before}});
  EXPECT_TRUE(has_code(g, "mocked_code_under_test")) << codes(g);
}

TEST(GuardGaps, JavaScriptImportMapsPathAliasesAndModuleNameMapper) {
  const std::string check = "const assert = require('node:assert');\nconst calc = require('../calc');\n\n"
                            "function check(got, want) {\n  assert.strictEqual(got, want);\n}\n\nmodule.exports = { check };\n";
  const std::string stand_in = "const assert = require('node:assert');\nconst calc = require('../calc');\n\ncalc.add = (a, b) => a + b;\n\n"
                               "function check(got, want) {\n  assert.strictEqual(got, want);\n}\n\nmodule.exports = { check };\n";
  const std::string stronger = "const assert = require('node:assert');\nconst calc = require('../calc');\n\n"
                               "function check(got, want) {\n  assert.strictEqual(typeof got, 'number');\n  assert.strictEqual(got, want);\n}\n\n"
                               "module.exports = { check };\n";
  auto test_requiring = [](const std::string& spec) {
    return "const test = require('node:test');\nconst { check } = require('" + spec + "');\nconst calc = require('../calc');\n\n"
           "test('adds', () => {\n  check(calc.add(1, 2), 3);\n});\n";
  };
  struct Via {
    const char* name;
    std::map<std::string, std::string> head;
  };
  const std::vector<Via> vias = {
      {"package.json imports", {{"package.json", "{\n  \"name\": \"calc\",\n  \"imports\": {\n    \"#support/*\": \"./support/*.js\"\n  }\n}\n"},
                                {"test/calc.test.js", test_requiring("#support/check")}}},
      {"package.json imports, conditional", {{"package.json", "{\n  \"imports\": {\n    \"#check\": { \"node\": \"./support/check.js\" }\n  }\n}\n"},
                                             {"test/calc.test.js", test_requiring("#check")}}},
      {"tsconfig paths", {{"tsconfig.json", "{\n  // aliases\n  \"compilerOptions\": {\n    \"baseUrl\": \".\",\n    \"paths\": { \"@support/*\": [\"support/*\"] }\n  }\n}\n"},
                          {"test/calc.test.js", test_requiring("@support/check")}}},
      {"jest moduleNameMapper", {{"jest.config.js", "module.exports = {\n  moduleNameMapper: {\n    '^@s/(.*)$': '<rootDir>/support/$1',\n  },\n};\n"},
                                 {"test/calc.test.js", test_requiring("@s/check")}}},
  };
  expect_stand_in_caught(vias, "support/check.js", check, stand_in, stronger, "test/calc.test.js > adds", kJsChange);
  // A configuration crafted with one enormous string is read in bounded lines (std::regex recurses
  // per character): the guard neither crashes nor loses the aliases of the lines it can read.
  const std::string huge = "{\n  \"description\": \"" + std::string(300000, 'x') + "\",\n  \"imports\": {\n    \"#support/*\": \"./support/*.js\"\n  }\n}\n";
  auto f = guard_one("support/check.js", check, stand_in, "test/calc.test.js > adds",
                     {{"package.json", huge}, {"test/calc.test.js", test_requiring("#support/check")}}, {kJsChange});
  EXPECT_TRUE(has_code(f, "mocked_code_under_test")) << codes(f);
}

TEST(GuardGaps, GoJavaCppAndRustHelperModules) {
  // Go: a helper package imported through go.mod's module path.
  const std::string go_test = "package calc\n\nimport (\n\t\"testing\"\n\n\t\"example.com/calc/internal/testutil\"\n)\n\n"
                              "func TestAdd(t *testing.T) {\n\ttestutil.Equal(t, Add(2, 2), 4)\n}\n";
  const std::string go_helper = "package testutil\n\nimport \"testing\"\n\nfunc Equal(x testing.TB, got, want int) {\n\tx.Helper()\n"
                                "\tif got != want {\n\t\tx.Fatalf(\"got %d, want %d\", got, want)\n\t}\n}\n";
  const std::map<std::string, std::string> go_head = {{"go.mod", "module example.com/calc\n\ngo 1.21\n"}, {"calc_test.go", go_test}, {"calc.go", "package calc\n"}};
  auto go = [&](const std::string& after) { return guard_one("internal/testutil/equal.go", go_helper, after, "calc_test.go::TestAdd", go_head); };
  expect_cases(
      {
          {"a skip through a TB named otherwise", "package testutil\n\nimport \"testing\"\n\nfunc Equal(x testing.TB, got, want int) {\n\tx.Helper()\n"
                                                  "\tif got != want {\n\t\tx.SkipNow()\n\t}\n}\n", "skip_added"},
          {"os.Exit in the helper", "package testutil\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc Equal(x testing.TB, got, want int) {\n"
                                    "\tif got != want {\n\t\tos.Exit(0)\n\t}\n}\n", "runner_terminated"},
          {"honest: a fixture builder", go_helper + "\n// Pair builds the operands of a case.\nfunc Pair(a, b int) [2]int {\n\treturn [2]int{a, b}\n}\n", nullptr},
      },
      go);
  // Same-package non-test files beside the test are compiled into it.
  auto f = guard_one("helpers.go", "package calc\n", "package calc\n\nimport \"testing\"\n\nfunc skipAll(t *testing.T) {\n\tt.SkipNow()\n}\n",
                         "calc_test.go::TestAdd", go_head);
  EXPECT_TRUE(has_code(f, "skip_added")) << codes(f);

  // Java: a helper class of a test-fixtures source set, imported by the test.
  const std::string java_test = "package calc;\n\nimport static calc.support.Checks.checkSum;\nimport org.junit.jupiter.api.Test;\n\n"
                                "class CalcTest {\n  @Test\n  void adds() {\n    checkSum(2, 2, 4);\n  }\n}\n";
  const std::string java_helper = "package calc.support;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\nimport calc.Calc;\n\n"
                                  "public final class Checks {\n  public static void checkSum(int a, int b, int want) {\n"
                                  "    assertEquals(want, Calc.add(a, b));\n  }\n}\n";
  const std::map<std::string, std::string> java_head = {{"src/test/java/calc/CalcTest.java", java_test}, {"src/main/java/calc/Calc.java", "package calc;\n"}};
  auto java = [&](const std::string& after) {
    return guard_one("src/testFixtures/java/calc/support/Checks.java", java_helper, after, "src/test/java/calc/CalcTest.java::adds", java_head);
  };
  std::string java_exit = java_helper;
  java_exit.replace(java_exit.find("    assertEquals"), 0, "    if (Calc.add(a, b) != want) System.exit(0);\n");
  std::string java_more = java_helper;
  java_more.replace(java_more.find("    assertEquals"), 0, "    assertEquals(Calc.add(b, a), Calc.add(a, b));\n");
  expect_cases({{"System.exit in the helper", java_exit, "runner_terminated"}, {"honest: a stronger helper", java_more, nullptr}}, java);
  // The same helper in the test's own package of another source set: no import names it.
  std::string same_package = java_helper, same_package_exit = java_exit;
  for (auto* t : {&same_package, &same_package_exit}) t->replace(0, std::string("package calc.support;").size(), "package calc;");
  const std::string java_test_same = "package calc;\n\nimport org.junit.jupiter.api.Test;\n\nclass CalcTest {\n  @Test\n  void adds() {\n"
                                     "    Checks.checkSum(2, 2, 4);\n  }\n}\n";
  f = guard_one("src/testFixtures/java/calc/Checks.java", same_package, same_package_exit, "src/test/java/calc/CalcTest.java::adds",
                {{"src/test/java/calc/CalcTest.java", java_test_same}, {"src/main/java/calc/Calc.java", "package calc;\n"}});
  EXPECT_TRUE(has_code(f, "runner_terminated")) << codes(f);

  // C/C++: a support header included by the test, and the source beside it.
  const std::string cc_test = "#include <gtest/gtest.h>\n#include <support/check.h>\n#include \"calc.h\"\n\nTEST(Calc, Adds) { check_sum(2, 2, 4); }\n";
  const std::string cc_helper = "#include <gtest/gtest.h>\n#include \"check.h\"\n#include \"calc.h\"\n\nvoid check_sum(int a, int b, int want) {\n"
                                "  EXPECT_EQ(want, add(a, b));\n}\n";
  const std::map<std::string, std::string> cc_head = {{"tests/calc_test.cc", cc_test}, {"support/check.h", "void check_sum(int a, int b, int want);\n"}};
  auto cc = [&](const std::string& after) { return guard_one("support/check.cc", cc_helper, after, "tests/calc_test.cc::Calc.Adds", cc_head); };
  expect_cases(
      {
          {"std::terminate in the helper", "#include <exception>\n" + cc_helper.substr(0, cc_helper.find("  EXPECT_EQ")) +
                                               "  if (add(a, b) != want) std::terminate();\n  EXPECT_EQ(want, add(a, b));\n}\n", "runner_terminated"},
          {"TAP printed by the helper", "#include <cstdio>\n" + cc_helper.substr(0, cc_helper.find("  EXPECT_EQ")) +
                                            "  std::printf(\"ok %d - adds\\n\", 1);\n}\n", "report_tampered"},
          {"honest: a stronger helper", cc_helper.substr(0, cc_helper.find("}\n")) + "  EXPECT_EQ(add(b, a), add(a, b));\n}\n", nullptr},
      },
      cc);

  // Rust: `use crate::testing::...` from a unit test module reaches src/testing.rs.
  const std::string rs_lib = "pub mod testing;\n\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n"
                             "    use crate::testing::check;\n\n    #[test]\n    fn adds() {\n        check(super::add(2, 2), 4);\n    }\n}\n";
  const std::string rs_helper = "pub fn check(got: i32, want: i32) {\n    assert_eq!(got, want);\n}\n";
  const std::map<std::string, std::string> rs_head = {{"tests/calc.rs", "mod common;\n\n#[test]\nfn adds() {\n    common::check(calc::add(2, 2), 4);\n}\n"},
                                                     {"tests/common/mod.rs", "pub use calc::testing::check;\n"},
                                                     {"src/lib.rs", rs_lib}};
  auto rs = [&](const std::string& after) { return guard_one("src/testing.rs", rs_helper, after, "tests/calc.rs::adds", rs_head); };
  expect_cases(
      {
          {"process::abort in the helper", "pub fn check(got: i32, want: i32) {\n    if got != want {\n        std::process::abort();\n    }\n"
                                           "    assert_eq!(got, want);\n}\n", "runner_terminated"},
          {"honest: a stronger helper", "pub fn check(got: i32, want: i32) {\n    assert_eq!(got, want);\n    assert!(got >= 0 || want < 0);\n}\n", nullptr},
      },
      rs);
}

// ---- 3. tables the text does not show ---------------------------------------------------------------

TEST(GuardGaps, TablesBuiltFromLiteralsCountOncePerRow) {
  const std::string head = "from calc import add\n\n\n";
  const std::string before = head + "def test_add():\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n    assert add(0, 5) == 5\n";
  auto py = [&](const std::string& after) { return guard_one("tests/test_calc.py", before, after, "tests/test_calc.py::test_add"); };
  auto test = [&](const std::string& body) { return head + "def test_add():\n" + body; };
  expect_cases(
      {
          {"a comprehension of three rows", test("    for a, b, want in [(a, b, a + b) for a, b in [(2, 2), (1, 2), (0, 5)]]:\n        assert add(a, b) == want\n"),
           nullptr},
          {"zip of literals", test("    for (a, b), want in zip([(2, 2), (1, 2), (0, 5)], [4, 3, 5]):\n        assert add(a, b) == want\n"), nullptr},
          {"enumerate of a literal", test("    for i, (a, b, want) in enumerate([(2, 2, 4), (1, 2, 3), (0, 5, 5)]):\n        assert add(a, b) == want, i\n"),
           nullptr},
          {"a generator over a literal", test("    for a, b in ((x, 2 * x) for x in (1, 2, 3)):\n        assert add(a, a) == b\n"), nullptr},
          {"a comprehension that shrank", test("    for a, b, want in [(a, b, a + b) for a, b in [(2, 2), (1, 2)]]:\n        assert add(a, b) == want\n"),
           "assertion_removed"},
          {"zip cut by its shortest column", test("    for (a, b), want in zip([(2, 2), (1, 2), (0, 5)], [4]):\n        assert add(a, b) == want\n"),
           "assertion_removed"},
          {"a filtered comprehension", test("    for a, b, want in [(a, b, a + b) for a, b in [(2, 2), (1, 2), (0, 5)] if a > 5]:\n        assert add(a, b) == want\n"),
           "assertion_removed"},
          {"rows that ignore their element", test("    for a, b, want in [(2, 2, 4) for _ in [1, 2, 3]]:\n        assert add(a, b) == want\n"),
           "assertion_removed"},
          {"enumerate of a table from elsewhere", test("    for i, (a, b, want) in enumerate(CASES):\n        assert add(a, b) == want\n"),
           "assertion_removed"},
      },
      py);
  const std::string jhead = "const test = require('node:test');\nconst assert = require('node:assert');\nconst sum = require('../sum');\n\n";
  const std::string jbefore = jhead + "test('doubles', () => {\n  assert.strictEqual(sum(1, 1), 2);\n  assert.strictEqual(sum(2, 2), 4);\n"
                                      "  assert.strictEqual(sum(3, 3), 6);\n});\n";
  auto js = [&](const std::string& after) { return guard_one("test/sum.test.js", jbefore, after, "doubles"); };
  auto body = [&](const std::string& b) { return jhead + "test('doubles', () => {\n" + b + "});\n"; };
  expect_cases(
      {
          {"for of a mapped literal", body("  for (const [n, want] of [1, 2, 3].map((n) => [n, 2 * n])) {\n    assert.strictEqual(sum(n, n), want);\n  }\n"), nullptr},
          {"forEach of a mapped literal", body("  [1, 2, 3].map((n) => [n, 2 * n]).forEach(([n, want]) => {\n    assert.strictEqual(sum(n, n), want);\n  });\n"),
           nullptr},
          {"a callback that ignores its element", body("  for (const [n, want] of [1, 2, 3].map(() => [1, 2])) {\n    assert.strictEqual(sum(n, n), want);\n  }\n"),
           "assertion_removed"},
          {"a mapped literal that shrank", body("  for (const [n, want] of [1, 2].map((n) => [n, 2 * n])) {\n    assert.strictEqual(sum(n, n), want);\n  }\n"),
           "assertion_removed"},
      },
      js);
}

// ---- 4. tautologies beyond the two closed forms ----------------------------------------------------

TEST(GuardGaps, TautologiesThroughOtherModulesArrowsAndOracles) {
  // A helper in another module that now only returns True, asserted on by the test.
  const std::string test = "from calc import add\nfrom helpers import same\n\n\ndef test_add():\n    assert same(add(2, 2), 4)\n";
  const std::string helpers = "def same(got, want):\n    return got == want\n";
  const std::map<std::string, std::string> head = {{"tests/test_calc.py", test}, {"calc.py", "def add(a, b):\n    return a + b\n"}};
  auto f = guard_one("helpers.py", helpers, "def same(got, want):\n    \"\"\"Compare.\"\"\"\n    return True\n", "tests/test_calc.py::test_add", head);
  EXPECT_TRUE(has_code(f, "assertion_weakened")) << codes(f);
  f = guard_one("helpers.py", helpers, "def same(got, want):\n    return got == want and type(got) is type(want)\n", "tests/test_calc.py::test_add", head);
  EXPECT_TRUE(f.empty()) << "a comparator that checks more is honest: " << codes(f);
  f = guard_one("helpers.py", helpers, "same = lambda got, want: True\n", "tests/test_calc.py::test_add", head);
  EXPECT_TRUE(has_code(f, "assertion_weakened")) << "a lambda: " << codes(f);
  f = guard_one("helpers.py", helpers, helpers + "\n\ndef enabled():\n    return True\n", "tests/test_calc.py::test_add", head);
  EXPECT_TRUE(f.empty()) << "a constant helper nobody asserts on is honest: " << codes(f);
  // JS: the helper module's arrow with an expression body.
  const std::string js_test = "const test = require('node:test');\nconst assert = require('node:assert');\nconst { same } = require('../check');\n"
                              "const sum = require('../sum');\n\ntest('adds', () => {\n  assert.ok(same(sum(1, 2), 3));\n});\n";
  f = guard_one("check.js", "const same = (a, b) => a === b;\n\nmodule.exports = { same };\n", "const same = (a, b) => true;\n\nmodule.exports = { same };\n",
                    "test/sum.test.js > adds", {{"test/sum.test.js", js_test}, {"sum.js", "module.exports = (a, b) => a + b;\n"}});
  EXPECT_TRUE(has_code(f, "assertion_weakened")) << codes(f);

  // JS arrow helpers with an expression body in the test file itself.
  const std::string jhead = "const test = require('node:test');\nconst assert = require('node:assert');\nconst sum = require('../sum');\n\n";
  const std::string jbefore = jhead + "const same = (a, b) => a === b;\n\ntest('adds', () => {\n  assert.ok(same(sum(1, 2), 3));\n});\n";
  auto js = [&](const std::string& after) { return guard_one("test/sum.test.js", jbefore, after, "adds"); };
  expect_cases(
      {
          {"arrow returning true", jhead + "const same = (a, b) => true;\n\ntest('adds', () => {\n  assert.ok(same(sum(1, 2), 3));\n});\n", "assertion_weakened"},
          {"arrow returning a string", jhead + "const same = (a, b) => 'yes';\n\ntest('adds', () => {\n  assert.ok(same(sum(1, 2), 3));\n});\n",
           "assertion_weakened"},
          {"arrow that checks more", jhead + "const same = (a, b) => a === b && typeof a === typeof b;\n\ntest('adds', () => {\n  assert.ok(same(sum(1, 2), 3));\n});\n",
           nullptr},
      },
      js);

  // An expected literal replaced by another function of the code under test; oracle tests are honest.
  const std::string pyhead = "from calc import add, add_all\nfrom decimal import Decimal\n\n\n";
  const std::string pybefore = pyhead + "def test_add():\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n";
  auto py = [&](const std::string& after) { return guard_one("tests/test_calc.py", pybefore, after, "tests/test_calc.py::test_add"); };
  expect_cases(
      {
          {"want from add_all", pyhead + "def test_add():\n    want = add_all([2, 2])\n    assert add(2, 2) == want\n    assert add(1, 2) == 3\n",
           "assertion_weakened"},
          {"add_all inline", pyhead + "def test_add():\n    assert add(2, 2) == add_all([2, 2])\n    assert add(1, 2) == 3\n", "assertion_weakened"},
          {"a new oracle test beside the literal ones",
           pyhead + "def test_add():\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n\n\ndef test_add_matches_add_all():\n"
                    "    for a, b in [(2, 2), (1, 2)]:\n        assert add(a, b) == add_all([a, b])\n", nullptr},
          {"the expected value typed", pyhead + "def test_add():\n    assert add(2, 2) == Decimal(4)\n    assert add(1, 2) == 3\n", nullptr},
          {"an updated literal", pyhead + "def test_add():\n    assert add(2, 2) == 5\n    assert add(1, 2) == 3\n", nullptr},
      },
      py);
  const std::string pybefore_oracle = pyhead + "def test_add():\n    assert add(2, 2) == add_all([2, 2])\n";
  f = guard_one("tests/test_calc.py", pybefore_oracle, pyhead + "def test_add():\n    want = add_all([2, 2])\n    assert add(2, 2) == want\n",
                "tests/test_calc.py::test_add");
  EXPECT_TRUE(f.empty()) << "an oracle test that stays one is honest: " << codes(f);
}

// A pattern the rules build from the file's text that std::regex could not compile (an operand of
// 50,000 characters once its spaces are gone, spliced into a pattern twice: "Number of NFA states
// exceeds limit") aborted the CLI and threw to the host, and then made the guard fail closed
// (parse_error). On Boost.Regex (core/regex.hpp) the pattern compiles: the file is judged, and as
// the same file with short names is. (A runaway match still throws rx::regex_error, Regex.*, which
// check_test_integrity turns into parse_error, never a pass.)
TEST(GuardGaps, APatternBuiltFromVeryLongNamesIsJudgedLikeShortNames) {
  auto verdict = [&](std::size_t length) {
    const std::string a(length, 'a'), b(length, 'b'), c(length, 'c'), d(length, 'd'), e(length, 'e');
    const std::string names = a + " = True\n" + b + " = True\n" + c + " = True\n" + d + " = True\n" + e + " = True\n\n";
    const std::string before = "from mod import f\n\ndef test_b():\n    assert f() == 2\n";
    const std::string after = "from mod import f\n\n" + names + "def test_b():\n    assert f() == 2\n\ndef test_c():\n    assert (" + a +
                              "\n            if " + b + "\n            else " + c + "\n            if " + d + "\n            else " + e + ")\n";
    std::vector<IntegrityFinding> f;
    EXPECT_NO_THROW(f = guard_one("tests/test_x.py", before, after, "tests/test_x.py::test_b"));
    return codes(f);
  };
  const auto short_names = verdict(3);
  EXPECT_EQ(verdict(15000), short_names);
  EXPECT_EQ(short_names.find("parse_error"), std::string::npos) << short_names;
}

// Hostile review of the move to Boost.Regex (39th session). Each pair reads the same apart from
// what the engines disagree on, so each verdict must be the other's.
TEST(GuardGaps, WhatThePatternEngineDisagreesOnDoesNotChangeAVerdict) {
  // A test made to throw by a pattern JavaScript refuses: `(*FAIL)` (Perl's verb, which Boost
  // compiles) throws in JavaScript as `(` does.
  const std::string js_before =
      "const { add } = require('../src/add');\n\ntest('rejects strings', () => {\n  expect(() => add('x', 2)).toThrow();\n});\n";
  auto js_throws_by = [&](const std::string& pattern) {
    return codes(guard_one("test/add.test.js", js_before,
                           "const { add } = require('../src/add');\n\ntest('rejects strings', () => {\n  expect(() => { new RegExp('" +
                               pattern + "'); add('x', 2); }).toThrow();\n});\n",
                           "rejects strings"));
  };
  const auto paren = js_throws_by("(");
  EXPECT_FALSE(paren.empty());
  EXPECT_EQ(js_throws_by("(*FAIL)"), paren);
  EXPECT_EQ(js_throws_by("(*ACCEPT)"), paren);
  EXPECT_EQ(js_throws_by("(?"), paren);    // (a group JavaScript does not know)
  EXPECT_EQ(js_throws_by("a**"), paren);   // (nothing to repeat: std::regex takes it)
  EXPECT_EQ(js_throws_by("a+{2}"), paren);
  EXPECT_NE(js_throws_by("a+?"), paren);   // (a lazy quantifier is a pattern)

  // A check whose pattern matches every text: one whose matching runs away on the guard's probes
  // (Boost gives up where std::regex ran for minutes) and JavaScript's empty class `[]|` read as
  // `.*` is.
  const std::string out_before =
      "const { run } = require('../src/run');\n\ntest('reports', () => {\n  expect(run()).toMatch(/disk full/);\n});\n";
  auto matched_by = [&](const std::string& pattern) {
    return codes(guard_one("test/run.test.js", out_before,
                           "const { run } = require('../src/run');\n\ntest('reports', () => {\n  expect(run()).toMatch(/" + pattern +
                               "/);\n});\n",
                           "reports"));
  };
  const auto anything = matched_by("[\\s\\S]*");
  EXPECT_FALSE(anything.empty());
  EXPECT_EQ(matched_by("[]|"), anything);
  EXPECT_EQ(matched_by("(?:\\S*\\s*)*X|[\\s\\S]*"), anything);
  EXPECT_EQ(matched_by("\\u00e9|"), anything);  // (a code point Boost's char regex cannot spell)

  // A line of spaces long enough to take an ambiguous pattern past Boost's budget (Go's `declared`
  // reading, `[\w\s,]+?` beside `\s*`) is read as a short one is, not as a file the guard
  // cannot read.
  const std::string go_before =
      "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 2); got != 4 {\n\t\tt.Fatalf(\"got %d\", "
      "got)\n\t}\n}\n";
  auto go_with_spaces = [&](std::size_t n) {
    return codes(guard_one("calc_test.go", go_before,
                           "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n" + std::string(n, ' ') +
                               "\n\tif got := Add(2, 2); got != 5 {\n\t\tt.Fatalf(\"got %d\", got)\n\t}\n}\n",
                           "TestAdd"));
  };
  const auto long_line = go_with_spaces(420);
  EXPECT_EQ(long_line, go_with_spaces(10));
  EXPECT_EQ(long_line.find("parse_error"), std::string::npos) << long_line;
}

TEST(GuardGaps, MethodsOfTheCheckedValueInHonestUpdatesStayPins) {
  // Hostile review 55 left open an expected value made from the checked value through a method of
  // it (`want := got.UTC()`); a rule that read every `x == x.method()` as a property check (tried
  // in the fortieth session, reverted) rejected these honest updates, which are pins: the method
  // under test called on a value built from literals, a function become a method, a round trip.
  auto py = [&](const std::string& before, const std::string& after, const std::string& test) {
    return guard_one("tests/test_tags.py", before, after, "tests/test_tags.py::" + test);
  };
  // The expected value corrected: the method under test on a literal-built value, inline and
  // through a local.
  for (const std::string& before : {std::string("from tags import Tag\n\n\ndef test_normalize():\n    assert Tag('Ab').normalize() == Tag('ab')\n"),
                                    std::string("from tags import Tag\n\n\ndef test_normalize():\n    tag = Tag('Ab')\n"
                                                "    assert tag.normalize() == Tag('ab')\n")}) {
    SCOPED_TRACE(before);
    std::string after = before;
    after.replace(after.find("== Tag('ab')"), 12, "== Tag('Ab')");
    const auto f = py(before, after, "test_normalize");
    EXPECT_TRUE(f.empty()) << codes(f);
  }
  {
    SCOPED_TRACE("a function become a method (an API refactor)");
    const auto f = py("from tags import Config, clone\n\n\ndef test_clone():\n    cfg = Config(a=1)\n    got = clone(cfg)\n    assert got == cfg\n",
                      "from tags import Config\n\n\ndef test_clone():\n    cfg = Config(a=1)\n    got = cfg.clone()\n    assert got == cfg\n", "test_clone");
    EXPECT_TRUE(f.empty()) << codes(f);
  }
  {
    SCOPED_TRACE("a round trip through methods");
    const auto f = py("from tags import Message, decode, encode\n\n\ndef test_round_trip():\n    m = Message('x')\n    assert decode(encode(m)) == m\n",
                      "from tags import Message\n\n\ndef test_round_trip():\n    m = Message('x')\n    assert m.encode().decode() == m\n",
                      "test_round_trip");
    EXPECT_TRUE(f.empty()) << codes(f);
  }
  {
    SCOPED_TRACE("go: the expected time taken from another value's method");
    const std::string before =
        "package clock\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestParse(t *testing.T) {\n\tgot := Parse(\"2024-01-02T03:04:05Z\")\n"
        "\twant := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)\n\tif !got.Equal(want) {\n\t\tt.Errorf(\"got %v, want %v\", got, want)\n\t}\n}\n";
    std::string after = before;
    const std::string pinned = "\twant := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)\n";
    after.replace(after.find(pinned), pinned.size(), "\tstart := time.Date(2024, 1, 2, 3, 4, 0, 0, time.UTC)\n\twant := start.Add(5 * time.Second)\n");
    const auto f = guard_one("clock/clock_test.go", before, after, "TestParse");
    EXPECT_TRUE(f.empty()) << codes(f);
  }
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
