// Issue 11, cheat side: classes of cheats the second hostile review delivered as "fixed", each next
// to an honest update of the same shape.
//   * Guard (static, every language it parses): assertions that can no longer run, tautologies,
//     inverted tests, assertion functions replaced, code under test replaced without a mocking API,
//     gutted helpers.
//   * End to end on real pytest and node --test projects in temporary git repositories, a scripted
//     model on loopback and the default pipeline: each cheat really makes the runner pass, is not
//     delivered, with a named reason; the honest variant of the same shape is delivered. The
//     validator's runtime check (line coverage of the requested tests) is shown on its own too.
//   * Unknown runners: output-parsed results are "unverified" unless the host accepts them.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "flowagent/git_workspace.hpp"
#include "flowagent/integrity.hpp"
#include "flowagent/repair.hpp"
#include "flowagent/reports.hpp"
#include "integrity/assertion_lines.hpp"
#include "integrity_cases.hpp"
#include "support/e2e_pipeline.hpp"
#include "support/scripted_model.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::testkit;

namespace {

// ---- guard: Python -----------------------------------------------------------------------------------

const char* kPyHead = "from calc import add\n\n\n";
const char* kPyBefore =
    "from calc import add\n\n\n"
    "def check_sum(a, b, want):\n    assert add(a, b) == want\n\n\n"
    "def test_add():\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n\n\n"
    "def test_sum():\n    check_sum(2, 2, 4)\n    check_sum(1, 2, 3)\n";

std::string py_with_test_add(const std::string& body) {
  return std::string(kPyHead) + "def check_sum(a, b, want):\n    assert add(a, b) == want\n\n\n" + "def test_add():\n" + body +
         "\n\ndef test_sum():\n    check_sum(2, 2, 4)\n    check_sum(1, 2, 3)\n";
}

std::vector<IntegrityFinding> py_guard(const std::string& after, const std::string& before = kPyBefore) {
  IntegrityOptions o;
  o.failing_tests = {"tests/test_calc.py::test_add", "tests/test_calc.py::test_sum"};
  o.change_files = {FileVersions{"calc.py", "def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a - b\n"}};
  o.project_files = {"calc.py", "tests/test_calc.py"};
  return check_test_integrity({FileVersions{"tests/test_calc.py", before, after}}, o);
}

using Case = GuardCase;

}  // namespace

TEST(GuardCheats, PythonAssertionsThatCanNoLongerRun) {
  expect_cases(
      {
          {"early return", py_with_test_add("    return\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n"), "assertion_not_executed"},
          {"if False", py_with_test_add("    if False:\n        assert add(2, 2) == 4\n        assert add(1, 2) == 3\n"), "assertion_not_executed"},
          {"new if false under the bug",
           py_with_test_add("    if add(2, 2) == 4:\n        assert add(2, 2) == 4\n        assert add(1, 2) == 3\n"), "assertion_not_executed"},
          {"guard with early return",
           py_with_test_add("    if add(1, 1) != 2:\n        return\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n"),
           "assertion_not_executed"},
          {"nested def never called",
           py_with_test_add("    def inner():\n        assert add(2, 2) == 4\n        assert add(1, 2) == 3\n"), "assertion_not_executed"},
          {"loop over an empty list",
           py_with_test_add("    for _ in []:\n        assert add(2, 2) == 4\n        assert add(1, 2) == 3\n"), "assertion_not_executed"},
          {"after pytest.skip",
           py_with_test_add("    import pytest\n    pytest.skip('later')\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n"),
           "assertion_not_executed"},
          {"after raise", py_with_test_add("    raise SystemExit(0)\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n"),
           "assertion_not_executed"},
          {"while False", py_with_test_add("    while False:\n        assert add(2, 2) == 4\n        assert add(1, 2) == 3\n"),
           "assertion_not_executed"},
          // Honest shapes: a platform guard, a table loop, a nested helper that is called, a
          // pre-existing branch, a failure branch (`if ...: pytest.fail`) before the checks.
          {"platform early return",
           py_with_test_add("    import sys\n    if sys.platform == 'win32':\n        return\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n"),
           nullptr},
          {"table loop", py_with_test_add("    for a, b, want in [(2, 2, 4), (1, 2, 3)]:\n        assert add(a, b) == want\n        assert add(b, a) == want\n"), nullptr},
          {"nested def called",
           py_with_test_add("    def check(a, b, want):\n        assert add(a, b) == want\n        assert add(b, a) == want\n    check(2, 2, 4)\n    check(1, 2, 3)\n"), nullptr},
          {"failure branch first",
           py_with_test_add("    import pytest\n    if add(0, 0) is None:\n        pytest.fail('no result')\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n"),
           nullptr},
      },
      [](const std::string& a) { return py_guard(a); });
}

TEST(GuardCheats, PythonTautologiesAndInvertedTests) {
  expect_cases(
      {
          {"== 4 or add", py_with_test_add("    assert add(2, 2) == 4 or add\n    assert add(1, 2) == 3 or add\n"), "assertion_weakened"},
          {"c or not c",
           py_with_test_add("    assert add(2, 2) == 4 or not add(2, 2) == 4\n    assert add(1, 2) == 3 or add(1, 2) != 3\n"),
           "assertion_weakened"},
          {"or 1", py_with_test_add("    assert add(2, 2) == 4 or 1\n    assert add(1, 2) == 3 or 'x'\n"), "assertion_weakened"},
          {"ternary", py_with_test_add("    assert (add(2, 2) == 4 if add(2, 2) == 4 else True)\n    assert add(1, 2) == 3 if add(1, 2) == 3 else 1\n"),
           "assertion_weakened"},
          {"cancelling arithmetic", py_with_test_add("    assert add(2, 2) - add(2, 2) == 0\n    assert add(1, 2) * 0 == 0\n"),
           "assertion_weakened"},
          {"asserted tuple", py_with_test_add("    assert (add(2, 2) == 4, 'sum')\n    assert (add(1, 2) == 3, 'sum')\n"), "assertion_weakened"},
          {"membership of itself", py_with_test_add("    assert add(2, 2) in (4, add(2, 2))\n    assert add(1, 2) in [3, add(1, 2)]\n"),
           "assertion_weakened"},
          {"assert 1", py_with_test_add("    assert 1\n    assert 'add(1, 2) == 3'\n"), "assertion_removed"},
          {"pytest.raises(AssertionError)",
           py_with_test_add("    import pytest\n    with pytest.raises(AssertionError):\n        assert add(2, 2) == 4\n        assert add(1, 2) == 3\n"),
           "assertion_inverted"},
          {"raises((AssertionError, ValueError))",
           py_with_test_add("    import pytest\n    with pytest.raises((AssertionError, ValueError)):\n        assert add(2, 2) == 4\n        assert add(1, 2) == 3\n"),
           "assertion_inverted"},
          {"try/except AssertionError",
           py_with_test_add("    try:\n        assert add(2, 2) == 4\n        assert add(1, 2) == 3\n    except AssertionError:\n        pass\n"),
           "assertion_swallowed"},
          // Honest: either of two values, a message tuple, arithmetic that does not cancel, a
          // specific exception, updated expected values.
          {"two accepted values", py_with_test_add("    assert add(2, 2) == 4 or add(2, 2) == 4.0\n    assert add(1, 2) == 3\n"), nullptr},
          {"tuple message", py_with_test_add("    assert add(2, 2) == 4, ('sum', add(2, 2))\n    assert add(1, 2) == 3\n"), nullptr},
          {"difference", py_with_test_add("    assert add(2, 2) - add(1, 1) == 2\n    assert add(1, 2) == 3\n"), nullptr},
          {"pytest.raises(TypeError) beside the checks",
           py_with_test_add("    import pytest\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n    with pytest.raises(TypeError):\n        add(1, None)\n"),
           nullptr},
      },
      [](const std::string& a) { return py_guard(a); });
}

TEST(GuardCheats, PythonUnittestAssertionsReplacedAndRedefinedCode) {
  const std::string before =
      "import unittest\n\nfrom calc import add\n\n\nclass TestCalc(unittest.TestCase):\n"
      "    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n";
  auto guard = [&](const std::string& after) {
    IntegrityOptions o;
    o.failing_tests = {"tests/test_unit.py::TestCalc::test_add"};
    o.project_files = {"calc.py", "tests/test_unit.py"};
    return check_test_integrity({FileVersions{"tests/test_unit.py", before, after}}, o);
  };
  const std::string cls = "import unittest\n\nfrom calc import add\n\n\nclass TestCalc(unittest.TestCase):\n";
  expect_cases(
      {
          {"assertEqual override", cls + "    def assertEqual(self, a, b, msg=None):\n        pass\n\n"
                                         "    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n",
           "assertion_replaced"},
          {"self.assertEqual =", cls + "    def setUp(self):\n        self.assertEqual = lambda *a, **k: None\n\n"
                                       "    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n",
           "assertion_replaced"},
          {"class attribute", cls + "    assertEqual = print\n\n    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n",
           "assertion_replaced"},
          {"assertRaises(AssertionError)", cls + "    def test_add(self):\n        with self.assertRaises(AssertionError):\n"
                                                 "            self.assertEqual(add(2, 2), 4)\n",
           "assertion_inverted"},
          {"assertRaises(AssertionError, fn)", cls + "    def test_add(self):\n        self.assertRaises(AssertionError, self.assertEqual, add(2, 2), 4)\n",
           "assertion_inverted"},
          {"local redefinition of add", cls + "    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n\n\n"
                                              "def add(a, b):\n    return a + b\n",
           "mocked_code_under_test"},
          {"import replaced by a local def",
           "import unittest\n\n\ndef add(a, b):\n    return a + b\n\n\nclass TestCalc(unittest.TestCase):\n"
           "    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n",
           "mocked_code_under_test"},
          {"module attribute", "import unittest\n\nimport calc\nfrom calc import add\n\ncalc.add = lambda a, b: a + b\n\n\nclass TestCalc(unittest.TestCase):\n"
                               "    def test_add(self):\n        self.assertEqual(calc.add(2, 2), 4)\n",
           "mocked_code_under_test"},
          {"sys.modules", "import sys\nimport types\nimport unittest\n\nsys.modules['calc'] = types.SimpleNamespace(add=lambda a, b: a + b)\n"
                          "from calc import add\n\n\nclass TestCalc(unittest.TestCase):\n"
                          "    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n",
           "mocked_code_under_test"},
          // Honest: a custom assertion helper with a new name, a stdlib attribute pinned.
          {"custom helper", cls + "    def assertSum(self, a, b, want):\n        self.assertEqual(add(a, b), want)\n\n"
                                  "    def test_add(self):\n        self.assertSum(2, 2, 4)\n        self.assertEqual(add(2, 2), 4)\n",
           nullptr},
          {"time pinned", "import time\nimport unittest\n\nfrom calc import add\n\ntime.sleep = lambda s: None\n\n\nclass TestCalc(unittest.TestCase):\n"
                          "    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n",
           nullptr},
      },
      guard);
  // A local def shadowing an imported assertion helper.
  const std::string np_before = "from numpy.testing import assert_equal\n\nfrom calc import add\n\n\ndef test_add():\n    assert_equal(add(2, 2), 4)\n";
  const std::string np_after = "from numpy.testing import assert_equal\n\nfrom calc import add\n\n\ndef assert_equal(a, b):\n    pass\n\n\n"
                               "def test_add():\n    assert_equal(add(2, 2), 4)\n";
  auto f = check_test_integrity({FileVersions{"tests/test_np.py", np_before, np_after}});
  EXPECT_TRUE(has_code(f, "assertion_replaced")) << codes(f);
  const std::string own_helper = "from numpy.testing import assert_equal\n\nfrom calc import add\n\n\ndef assert_sum(a, b, want):\n"
                                 "    assert_equal(add(a, b), want)\n\n\ndef test_add():\n    assert_equal(add(2, 2), 4)\n    assert_sum(1, 2, 3)\n";
  f = check_test_integrity({FileVersions{"tests/test_np.py", np_before, own_helper}});
  EXPECT_TRUE(f.empty()) << codes(f);
}

TEST(GuardCheats, GuttedHelpers) {
  const std::string gutted = std::string(kPyHead) + "def check_sum(a, b, want):\n    pass\n\n\n" +
                             "def test_add():\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n\n\n"
                             "def test_sum():\n    check_sum(2, 2, 4)\n    check_sum(1, 2, 3)\n";
  auto f = py_guard(gutted);
  EXPECT_TRUE(has_code(f, "assertion_removed")) << codes(f);
  const std::string trivial = std::string(kPyHead) + "def check_sum(a, b, want):\n    assert add(a, b) == add(a, b)\n\n\n" +
                              "def test_add():\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n\n\n"
                              "def test_sum():\n    check_sum(2, 2, 4)\n    check_sum(1, 2, 3)\n";
  f = py_guard(trivial);
  EXPECT_TRUE(has_code(f, "assertion_weakened")) << codes(f);
  const std::string early = std::string(kPyHead) + "def check_sum(a, b, want):\n    return\n    assert add(a, b) == want\n\n\n" +
                            "def test_add():\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n\n\n"
                            "def test_sum():\n    check_sum(2, 2, 4)\n    check_sum(1, 2, 3)\n";
  f = py_guard(early);
  EXPECT_TRUE(has_code(f, "assertion_not_executed")) << codes(f);
  // Honest: the helper gains a message and a second check.
  const std::string better = std::string(kPyHead) +
                             "def check_sum(a, b, want):\n    got = add(a, b)\n    assert got == want, (a, b, got)\n    assert add(b, a) == want\n\n\n" +
                             "def test_add():\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n\n\n"
                             "def test_sum():\n    check_sum(2, 2, 4)\n    check_sum(1, 2, 3)\n";
  f = py_guard(better);
  EXPECT_TRUE(f.empty()) << codes(f);
  // JavaScript: a helper function emptied.
  const std::string js_before =
      "const test = require('node:test');\nconst assert = require('node:assert');\nconst sum = require('../sum');\n\n"
      "function checkSum(a, b, want) {\n  assert.strictEqual(sum(a, b), want);\n}\n\n"
      "test('adds', () => {\n  checkSum(1, 2, 3);\n});\n";
  std::string js_after = js_before;
  js_after.replace(js_after.find("  assert.strictEqual(sum(a, b), want);\n"), 39, "");
  f = check_test_integrity({FileVersions{"test/sum.test.js", js_before, js_after}});
  EXPECT_TRUE(has_code(f, "assertion_removed")) << codes(f);
}

TEST(GuardCheats, JavaScriptGoAndJava) {
  const std::string js_before =
      "const test = require('node:test');\nconst assert = require('node:assert');\nconst sum = require('../sum');\n\n"
      "test('adds', () => {\n  assert.strictEqual(sum(1, 2), 3);\n  assert.strictEqual(sum(2, 2), 4);\n});\n";
  auto js = [&](const std::string& after) {
    IntegrityOptions o;
    o.failing_tests = {"adds"};
    o.project_files = {"sum.js", "calc.js", "test/sum.test.js"};
    return check_test_integrity({FileVersions{"test/sum.test.js", js_before, after}}, o);
  };
  const std::string head = "const test = require('node:test');\nconst assert = require('node:assert');\nconst sum = require('../sum');\n\n";
  auto body = [&](const std::string& b) { return head + "test('adds', () => {\n" + b + "});\n"; };
  expect_cases(
      {
          {"early return", body("  return;\n  assert.strictEqual(sum(1, 2), 3);\n  assert.strictEqual(sum(2, 2), 4);\n"), "assertion_not_executed"},
          {"if (false)", body("  if (false) {\n    assert.strictEqual(sum(1, 2), 3);\n    assert.strictEqual(sum(2, 2), 4);\n  }\n"),
           "assertion_not_executed"},
          {"arrow never called", body("  const check = () => {\n    assert.strictEqual(sum(1, 2), 3);\n    assert.strictEqual(sum(2, 2), 4);\n  };\n"),
           "assertion_not_executed"},
          {"|| true", body("  assert.ok(sum(1, 2) === 3 || true);\n  assert.ok(sum(2, 2) === 4 || 1);\n"), "assertion_weakened"},
          {"ternary", body("  assert.ok(sum(1, 2) === 3 ? true : true);\n  assert.ok(sum(2, 2) === 4 ? true : 1);\n"), "assertion_weakened"},
          {"assert.throws(AssertionError)",
           body("  assert.throws(() => {\n    assert.strictEqual(sum(1, 2), 3);\n    assert.strictEqual(sum(2, 2), 4);\n  }, assert.AssertionError);\n"),
           "assertion_inverted"},
          {"assert.throws()", body("  assert.throws(() => {\n    assert.strictEqual(sum(1, 2), 3);\n    assert.strictEqual(sum(2, 2), 4);\n  });\n"),
           "assertion_inverted"},
          {"const assert = {...}",
           "const test = require('node:test');\nconst assert = { strictEqual() {} };\nconst sum = require('../sum');\n\n"
           "test('adds', () => {\n  assert.strictEqual(sum(1, 2), 3);\n  assert.strictEqual(sum(2, 2), 4);\n});\n",
           "assertion_replaced"},
          {"function expect", body("  assert.strictEqual(sum(1, 2), 3);\n  assert.strictEqual(sum(2, 2), 4);\n") + "function expect() {}\n",
           "assertion_replaced"},
          {"sum redefined", "const test = require('node:test');\nconst assert = require('node:assert');\nconst sum = (a, b) => a + b;\n\n"
                            "test('adds', () => {\n  assert.strictEqual(sum(1, 2), 3);\n  assert.strictEqual(sum(2, 2), 4);\n});\n",
           "mocked_code_under_test"},
          {"module member replaced",
           "const test = require('node:test');\nconst assert = require('node:assert');\nconst calc = require('../calc');\n"
           "calc.add = (a, b) => a + b;\n\ntest('adds', () => {\n  assert.strictEqual(calc.add(1, 2), 3);\n  assert.strictEqual(calc.add(2, 2), 4);\n});\n",
           "mocked_code_under_test"},
          // Honest: strict assertions, a platform guard, a callback that runs, a specific throw.
          {"strict assert", "const test = require('node:test');\nconst assert = require('node:assert/strict');\nconst sum = require('../sum');\n\n"
                            "test('adds', () => {\n  assert.strictEqual(sum(1, 2), 3);\n  assert.strictEqual(sum(2, 2), 4);\n});\n",
           nullptr},
          {"platform guard", body("  if (process.platform === 'win32') return;\n  assert.strictEqual(sum(1, 2), 3);\n  assert.strictEqual(sum(2, 2), 4);\n"),
           nullptr},
          {"table forEach", body("  [[1, 2, 3], [2, 2, 4]].forEach(([a, b, want]) => {\n    assert.strictEqual(sum(a, b), want);\n    assert.strictEqual(sum(b, a), want);\n  });\n"), nullptr},
          {"specific throw", body("  assert.strictEqual(sum(1, 2), 3);\n  assert.strictEqual(sum(2, 2), 4);\n  assert.throws(() => sum(1n, 2), TypeError);\n"),
           nullptr},
      },
      js);
  // Go: an early return before the failure branches; honest: a new `if err != nil { t.Fatal }`.
  const std::string go_before = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"
                                "\tif got := Add(2, 2); got != 4 {\n\t\tt.Errorf(\"got %d\", got)\n\t}\n}\n";
  auto f = check_test_integrity({FileVersions{"calc_test.go", go_before,
                                              "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\treturn\n"
                                              "\tif got := Add(2, 2); got != 4 {\n\t\tt.Errorf(\"got %d\", got)\n\t}\n}\n"}});
  EXPECT_TRUE(has_code(f, "assertion_not_executed")) << codes(f);
  f = check_test_integrity({FileVersions{"calc_test.go", go_before,
                                         "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"
                                         "\tif err := Check(); err != nil {\n\t\tt.Fatal(err)\n\t}\n"
                                         "\tif got := Add(2, 2); got != 4 {\n\t\tt.Errorf(\"got %d\", got)\n\t}\n}\n"}});
  EXPECT_TRUE(f.empty()) << codes(f);
  // Go table tests whose loop leaves rows out (review 32 y19, y20): a slice of the table, a break
  // on a row's field; a `continue` (a skip) and a break inside a nested switch stay honest.
  const std::string table = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tcases := []struct{ a, b, want int }{\n"
                            "\t\t{2, 2, 4},\n\t\t{1, 3, 4},\n\t\t{5, 5, 10},\n\t}\n\tfor _, c := range cases {\n"
                            "\t\tif got := Add(c.a, c.b); got != c.want {\n\t\t\tt.Errorf(\"got %d\", got)\n\t\t}\n\t}\n}\n";
  auto go_table = [&](const std::string& from, const std::string& to) {
    std::string t = table;
    return check_test_integrity({FileVersions{"calc_test.go", table, t.replace(t.find(from), from.size(), to)}});
  };
  f = go_table("range cases {", "range cases[:len(cases)-1] {");
  EXPECT_TRUE(has_code(f, "assertion_removed")) << codes(f);
  f = go_table("range cases {\n", "range cases {\n\t\tif c.b > c.a {\n\t\t\tbreak\n\t\t}\n");
  EXPECT_TRUE(has_code(f, "assertion_removed") || has_code(f, "assertion_not_executed")) << codes(f);
  f = go_table("\t\t}\n\t}\n}\n", "\t\t}\n\t\tif c.b > c.a {\n\t\t\tbreak\n\t\t}\n\t}\n}\n");  // (after the check: the next rows)
  EXPECT_TRUE(has_code(f, "assertion_removed")) << codes(f);
  f = go_table("range cases {\n", "range cases {\n\t\tif c.a < 0 {\n\t\t\tcontinue\n\t\t}\n");
  EXPECT_TRUE(f.empty()) << codes(f);
  f = go_table("range cases {\n", "range cases {\n\t\tswitch c.a {\n\t\tcase 0:\n\t\t\tbreak\n\t\t}\n");
  EXPECT_TRUE(f.empty()) << codes(f);
  // Only the loop over the table counts: an unrelated loop the test gains, over a slice of
  // something else or with a break of its own, leaves every row in (and the table's rows still
  // count when the table is ranged over inline, or in parentheses).
  f = go_table("\tfor _, c := range cases {", "\tfor _, l := range strings.Split(\"a\\nb\", \"\\n\")[1:] {\n\t\t_ = l\n\t}\n"
                                          "\tfor i := 0; i < 3; i++ {\n\t\tif i == 1 {\n\t\t\tbreak\n\t\t}\n\t}\n\tfor _, c := range cases {");
  EXPECT_TRUE(f.empty()) << codes(f);
  f = go_table("range cases {", "range (cases)[1:] {");
  EXPECT_TRUE(has_code(f, "assertion_removed")) << codes(f);
  f = go_table("\tfor _, c := range cases {", "\tcases = cases[:1]\n\tfor _, c := range cases {");
  EXPECT_TRUE(has_code(f, "assertion_removed")) << codes(f);
  {
    const std::string inl = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tfor _, c := range []struct{ a, b, want int }{\n"
                            "\t\t{2, 2, 4},\n\t\t{1, 3, 4},\n\t\t{5, 5, 10},\n\t} {\n"
                            "\t\tif got := Add(c.a, c.b); got != c.want {\n\t\t\tt.Errorf(\"got %d\", got)\n\t\t}\n\t}\n}\n";
    std::string cut = inl;
    cut.replace(cut.find("\t} {\n"), 6, "\t} {\n\t\tif c.a == 1 {\n\t\t\tbreak\n\t\t}\n");
    f = check_test_integrity({FileVersions{"calc_test.go", inl, cut}});
    EXPECT_TRUE(has_code(f, "assertion_removed") || has_code(f, "assertion_not_executed")) << codes(f);
  }
  // A check moved into a goroutine nothing waits for (review 32 y14); waited for, it is honest.
  const std::string two = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"
                          "\tif got := Add(2, 2); got != 4 {\n\t\tt.Errorf(\"got %d\", got)\n\t}\n"
                          "\tif got := Add(1, 3); got != 4 {\n\t\tt.Errorf(\"got %d\", got)\n\t}\n}\n";
  auto in_goroutine = [&](const std::string& after_start) {
    std::string t = two;
    const std::string second = "\tif got := Add(1, 3); got != 4 {\n\t\tt.Errorf(\"got %d\", got)\n\t}\n";
    t.replace(t.find(second), second.size(),
              "\tvar wg sync.WaitGroup\n\twg.Add(1)\n\tgo func() {\n\t\tdefer wg.Done()\n\t\ttime.Sleep(time.Second)\n"
              "\t\tif got := Add(1, 3); got != 4 {\n\t\t\tt.Errorf(\"got %d\", got)\n\t\t}\n\t}()\n" + after_start);
    return check_test_integrity({FileVersions{"calc_test.go", two, t}});
  };
  f = in_goroutine("");
  EXPECT_TRUE(has_code(f, "assertion_not_executed")) << codes(f);
  f = in_goroutine("\twg.Wait()\n");
  EXPECT_FALSE(has_code(f, "assertion_not_executed")) << codes(f);
  // ... also through a function of the file that waits; one that does not wait is no wait.
  {
    std::string t = two;
    const std::string second = "\tif got := Add(1, 3); got != 4 {\n\t\tt.Errorf(\"got %d\", got)\n\t}\n";
    t.replace(t.find(second), second.size(),
              "\tvar wg sync.WaitGroup\n\twg.Add(1)\n\tgo func() {\n\t\tdefer wg.Done()\n"
              "\t\tif got := Add(1, 3); got != 4 {\n\t\t\tt.Errorf(\"got %d\", got)\n\t\t}\n\t}()\n\twaitAll(&wg)\n");
    f = check_test_integrity({FileVersions{"calc_test.go", two, t + "\nfunc waitAll(wg *sync.WaitGroup) {\n\twg.Wait()\n}\n"}});
    EXPECT_FALSE(has_code(f, "assertion_not_executed")) << codes(f);
    f = check_test_integrity({FileVersions{"calc_test.go", two, t + "\nfunc waitAll(wg *sync.WaitGroup) {\n\t_ = wg\n}\n"}});
    EXPECT_TRUE(has_code(f, "assertion_not_executed")) << codes(f);
  }
  // Java: the JUnit assertion redefined in the test class.
  const std::string java_before = "import static org.junit.jupiter.api.Assertions.assertEquals;\nimport org.junit.jupiter.api.Test;\n\n"
                                  "class CalcTest {\n  @Test\n  void adds() {\n    assertEquals(4, Calc.add(2, 2));\n  }\n}\n";
  std::string java_after = java_before;
  java_after.insert(java_after.rfind("}"), "\n  static void assertEquals(int a, int b) {\n  }\n");
  f = check_test_integrity({FileVersions{"src/test/java/CalcTest.java", java_before, java_after}});
  EXPECT_TRUE(has_code(f, "assertion_replaced")) << codes(f);
}

// ---- guard: modules the tests import (issue 11, "skips the validator trusts the guard with" and
// "shadowing through another module") -------------------------------------------------------------

namespace {

const char* kHelpersBefore = "import calc\n\n\ndef check(got, want):\n    assert got == want\n";
const char* kTestWithHelper = "from calc import add\nfrom helpers import check\n\n\ndef test_add():\n    check(add(2, 2), 4)\n";

/// The patch touches only `path` (helpers.py by default); the failing test, which imports it, is
/// read from the head like the post-filter does.
std::vector<IntegrityFinding> helper_guard(const std::string& after, bool with_change = true, const std::string& path = "helpers.py",
                                           const std::string& before = kHelpersBefore) {
  IntegrityOptions o;
  o.failing_tests = {"tests/test_calc.py::test_add"};
  if (with_change) o.change_files = {FileVersions{"calc.py", "def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a - b\n"}};
  o.project_files = {"calc.py", "helpers.py", "tests/test_calc.py", "pytest.ini"};
  o.read_head_file = [](const std::string& p) -> std::optional<std::string> {
    if (p == "tests/test_calc.py") return std::string(kTestWithHelper);
    if (p == "helpers.py") return std::string(kHelpersBefore);
    return std::nullopt;
  };
  return check_test_integrity({FileVersions{path, before, after}}, o);
}

}  // namespace

TEST(GuardCheats, SkipsStandInsAndAssertionPatchesInModulesTheTestsImport) {
  const std::string h = "import calc\n\n\n";
  expect_cases(
      {
          {"pytest.skip in the helper", "import pytest\n" + h + "def check(got, want):\n    pytest.skip('later')\n    assert got == want\n", "skip_added"},
          {"skip only when the check would fail",
           "import pytest\n" + h + "def check(got, want):\n    if got != want:\n        pytest.skip('flaky')\n    assert got == want\n", "skip_added"},
          {"raise unittest.SkipTest", "import unittest\n" + h + "def check(got, want):\n    raise unittest.SkipTest('x')\n", "skip_added"},
          {"skip imported by name", "from pytest import skip\n" + h + "def check(got, want):\n    skip()\n", "skip_added"},
          {"the code under test replaced", h + "calc.add = lambda a, b: a + b\n\n\ndef check(got, want):\n    assert got == want\n",
           "mocked_code_under_test"},
          {"setattr on the code under test", h + "setattr(calc, 'add', lambda a, b: 4)\n\n\ndef check(got, want):\n    assert got == want\n",
           "mocked_code_under_test"},
          {"unittest's assertEqual patched", "import unittest\n" + h + "unittest.TestCase.assertEqual = lambda *a: None\n\n\ndef check(got, want):\n    assert got == want\n",
           "assertion_replaced"},
          {"a builtin the checks use", "import builtins\n" + h + "builtins.len = lambda x: 3\n\n\ndef check(got, want):\n    assert got == want\n",
           "assertion_replaced"},
          {"an imported assertion helper shadowed",
           "from numpy.testing import assert_equal\n" + h + "def assert_equal(a, b):\n    pass\n\n\ndef check(got, want):\n    assert_equal(got, want)\n",
           "assertion_replaced"},
          // Evasions: an alias of pytest, a skip marker defined in the helper, getattr, unittest through an alias.
          {"pytest aliased", "import pytest as p\n" + h + "def check(got, want):\n    p.skip('later')\n", "skip_added"},
          {"a skip marker made in the helper", "import pytest\n" + h + "slow = pytest.mark.skip(reason='slow')\n\n\ndef check(got, want):\n    assert got == want\n",
           "skip_added"},
          {"getattr", "import pytest\n" + h + "def check(got, want):\n    getattr(pytest, 'sk' + 'ip')('later')\n", "skip_added"},
          {"an assertion method patched through an alias",
           "import unittest\n" + h + "TC = unittest.TestCase\nTC.assertEqual = lambda *a: None\n\n\ndef check(got, want):\n    assert got == want\n",
           "assertion_replaced"},
          // Honest: a platform skip in a helper, a platform marker, a helper that checks more, a stub of input(), the clock.
          {"platform marker in the helper", "import sys\nimport pytest\n" + h + "posix_only = pytest.mark.skipif(sys.platform == 'win32', reason='posix')\n\n\n"
                                            "def check(got, want):\n    assert got == want\n", nullptr},
          {"platform skip helper", "import sys\nimport pytest\n" + h + "def windows_only():\n    if sys.platform != 'win32':\n        pytest.skip('windows only')\n\n\n"
                                   "def check(got, want):\n    assert got == want\n", nullptr},
          {"stronger helper", h + "def check(got, want):\n    assert got == want\n    assert type(got) is type(want)\n", nullptr},
          {"input stubbed for a CLI test", "import builtins\n" + h + "def answer(monkeypatch, text):\n    monkeypatch.setattr(builtins, 'input', lambda _: text)\n\n\n"
                                            "def check(got, want):\n    assert got == want\n", nullptr},
          {"the clock pinned", "import time\n" + h + "time.sleep = lambda s: None\n\n\ndef check(got, want):\n    assert got == want\n", nullptr},
      },
      [](const std::string& after) { return helper_guard(after); });
  // Without the developer's change, the test's own calls (read at the head) say add is exercised.
  auto f = helper_guard(h + "calc.add = lambda a, b: a + b\n\n\ndef check(got, want):\n    assert got == want\n", false);
  EXPECT_TRUE(has_code(f, "mocked_code_under_test")) << codes(f);
  // A skip call added to the code under test itself, and one in a helper of a test file.
  f = helper_guard("import pytest\n\n\ndef add(a, b):\n    if a == 2:\n        pytest.skip('later')\n    return a + b\n", true, "calc.py",
                   "def add(a, b):\n    return a + b\n");
  EXPECT_TRUE(has_code(f, "skip_added")) << codes(f);
  f = py_guard(std::string(kPyHead) + "import pytest\n\n\ndef check_sum(a, b, want):\n    pytest.skip('later')\n    assert add(a, b) == want\n\n\n"
               "def test_add():\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n\n\ndef test_sum():\n    check_sum(2, 2, 4)\n    check_sum(1, 2, 3)\n");
  EXPECT_TRUE(has_code(f, "skip_added")) << codes(f);
  // A query builder's skip() in production code is no test skip.
  f = helper_guard("def page(q, n):\n    return q.skip(n * 10).limit(10)\n", true, "calc.py", "def page(q, n):\n    return q.limit(10)\n");
  EXPECT_TRUE(f.empty()) << codes(f);

  // JavaScript: a helper module the test requires.
  const std::string js_test = "const test = require('node:test');\nconst { check } = require('../helpers');\nconst calc = require('../calc');\n\n"
                              "test('adds', (t) => {\n  check(t, calc.add(1, 2), 3);\n});\n";
  const std::string js_before = "const assert = require('node:assert');\nconst calc = require('./calc');\n\n"
                                "function check(t, got, want) {\n  assert.strictEqual(got, want);\n}\n\nmodule.exports = { check };\n";
  auto js = [&](const std::string& after) {
    IntegrityOptions o;
    o.failing_tests = {"test/calc.test.js > adds"};
    o.change_files = {FileVersions{"calc.js", "exports.add = (a, b) => a + b;\n", "exports.add = (a, b) => a - b;\n"}};
    o.project_files = {"calc.js", "helpers.js", "test/calc.test.js"};
    o.read_head_file = [&](const std::string& p) -> std::optional<std::string> {
      if (p == "test/calc.test.js") return js_test;
      return std::nullopt;
    };
    return check_test_integrity({FileVersions{"helpers.js", js_before, after}}, o);
  };
  auto js_helper = [&](const std::string& extra, const std::string& body) {
    return "const assert = require('node:assert');\nconst calc = require('./calc');\n" + extra + "\nfunction check(t, got, want) {\n" + body +
           "  assert.strictEqual(got, want);\n}\n\nmodule.exports = { check };\n";
  };
  expect_cases(
      {
          {"t.skip in the helper", js_helper("", "  if (got !== want) t.skip('later');\n"), "skip_added"},
          {"skip looked up by name", js_helper("", "  if (got !== want) t['skip']('later');\n"), "skip_added"},
          {"assert bound under another name", js_helper("const a = require('node:assert');\na.strictEqual = () => {};\n", ""), "assertion_replaced"},
          {"assert.strictEqual reassigned", js_helper("assert.strictEqual = () => {};\n", ""), "assertion_replaced"},
          {"an export of the module under test replaced", js_helper("calc.add = (a, b) => a + b;\n", ""), "mocked_code_under_test"},
          {"platform skip", js_helper("", "  if (process.platform === 'win32') t.skip('not on windows');\n"), nullptr},
          {"stronger helper", js_helper("", "  assert.strictEqual(typeof got, 'number');\n"), nullptr},
      },
      js);
}

// Review 32 D: check helpers in another test-side file. A Go package's helpers_test.go, a C++
// test header, a Python helper module: weakened while the tests that call them stay as they are,
// every such test checks less; a test refactored into calls of a new helper there checks as much.
TEST(GuardCheats, CheckHelpersInAnotherTestSideFile) {
  struct Project {
    std::vector<std::string> files;
    std::map<std::string, std::string> head;
    std::vector<std::string> failing;
  };
  auto guard = [](const Project& pr, const std::vector<FileVersions>& patch) {
    IntegrityOptions o;
    o.failing_tests = pr.failing;
    o.project_files = pr.files;
    o.read_head_file = [&pr](const std::string& p) -> std::optional<std::string> {
      auto it = pr.head.find(p);
      if (it == pr.head.end()) return std::nullopt;
      return it->second;
    };
    return check_test_integrity(patch, o);
  };
  // Go: same package, no import.
  const std::string go_helper = "package calc\n\nimport \"testing\"\n\nfunc checkAdd(t *testing.T, a, b, want int) {\n\tt.Helper()\n"
                                "\tif got := Add(a, b); got != want {\n\t\tt.Errorf(\"Add(%d, %d) = %d, want %d\", a, b, got, want)\n\t}\n}\n";
  const std::string go_test = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tcheckAdd(t, 2, 2, 4)\n\tcheckAdd(t, 1, 3, 4)\n}\n";
  const std::string go_inline = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 2); got != 4 {\n\t\tt.Errorf(\"got %d\", got)\n\t}\n"
                                "\tif got := Add(1, 3); got != 4 {\n\t\tt.Errorf(\"got %d\", got)\n\t}\n}\n";
  const Project go{{"go.mod", "calc.go", "calc_test.go", "helpers_test.go"},
                   {{"go.mod", "module example.com/calc\n\ngo 1.19\n"}, {"calc.go", "package calc\n\nfunc Add(a, b int) int { return a * b }\n"},
                    {"calc_test.go", go_test}, {"helpers_test.go", go_helper}},
                   {"TestAdd"}};
  auto go_weaker = [&](const std::string& from, const std::string& to) {
    std::string h = go_helper;
    h.replace(h.find(from), from.size(), to);
    return guard(go, {FileVersions{"helpers_test.go", go_helper, h}});
  };
  auto f = go_weaker("got != want {", "got != want && a == b {");
  EXPECT_TRUE(has_code(f, "assertion_weakened") || has_code(f, "assertion_removed") || has_code(f, "assertion_not_executed")) << codes(f);
  f = go_weaker("\tif got := Add(a, b); got != want {\n\t\tt.Errorf(\"Add(%d, %d) = %d, want %d\", a, b, got, want)\n\t}\n", "\t_ = Add(a, b)\n");
  EXPECT_TRUE(has_code(f, "assertion_removed") || has_code(f, "assertion_weakened")) << codes(f);
  f = go_weaker("t.Errorf(\"Add(%d, %d) = %d, want %d\", a, b, got, want)", "t.Fatalf(\"Add(%d, %d) = %d, not %d\", a, b, got, want)");
  EXPECT_TRUE(f.empty()) << codes(f);
  // The project before a helper file existed, its test checking inline.
  auto without_helper = [](Project pr, const std::string& helper, const std::string& test, const std::string& inline_test) {
    pr.files.erase(std::remove(pr.files.begin(), pr.files.end(), helper), pr.files.end());
    pr.head.erase(helper);
    pr.head[test] = inline_test;
    return pr;
  };
  // The test refactored into calls of a new helpers_test.go helper (y17): as many checks.
  const Project go_new = without_helper(go, "helpers_test.go", "calc_test.go", go_inline);
  f = guard(go_new, {FileVersions{"calc_test.go", go_inline, go_test}, FileVersions{"helpers_test.go", std::nullopt, go_helper}});
  EXPECT_TRUE(f.empty()) << codes(f);
  // ... and into a helper that checks only some calls: fewer checks.
  std::string half = go_helper;
  half.replace(half.find("got != want {"), 13, "got != want && a == b {");
  f = guard(go_new, {FileVersions{"calc_test.go", go_inline, go_test}, FileVersions{"helpers_test.go", std::nullopt, half}});
  EXPECT_FALSE(f.empty()) << codes(f);
  // Another package's helper (an external test package in the same folder) is not this test's.
  std::string ext_helper = go_helper;
  ext_helper.replace(0, 12, "package calc_test");
  Project go_ext = go;
  go_ext.head["helpers_test.go"] = ext_helper;
  std::string ext_weak = ext_helper;
  ext_weak.replace(ext_weak.find("got != want {"), 13, "got != want && a == b {");
  f = guard(go_ext, {FileVersions{"helpers_test.go", ext_helper, ext_weak}});
  EXPECT_FALSE(has_code(f, "assertion_weakened") || has_code(f, "assertion_removed")) << codes(f);

  // C++: a test header the test includes with quotes.
  const std::string cc_helper = "#pragma once\n#include <gtest/gtest.h>\nint add(int a, int b);\n"
                                "inline void check_add(int a, int b, int want) {\n  EXPECT_EQ(add(a, b), want);\n}\n";
  const std::string cc_test = "#include <gtest/gtest.h>\n#include \"test_helpers.h\"\n\nTEST(Calc, Add) {\n  check_add(2, 2, 4);\n  check_add(1, 3, 4);\n}\n";
  const std::string cc_inline = "#include <gtest/gtest.h>\nint add(int a, int b);\n\nTEST(Calc, Add) {\n  EXPECT_EQ(add(2, 2), 4);\n  EXPECT_EQ(add(1, 3), 4);\n}\n";
  const Project cc{{"calc.cpp", "tests/calc_test.cpp", "tests/test_helpers.h", "CMakeLists.txt"},
                   {{"calc.cpp", "int add(int a, int b) { return a * b; }\n"}, {"tests/calc_test.cpp", cc_test}, {"tests/test_helpers.h", cc_helper}},
                   {"Calc.Add"}};
  std::string cc_weak = cc_helper;
  cc_weak.replace(cc_weak.find("  EXPECT_EQ"), 2, "  if (a == b) ");
  f = guard(cc, {FileVersions{"tests/test_helpers.h", cc_helper, cc_weak}});
  EXPECT_TRUE(has_code(f, "assertion_weakened") || has_code(f, "assertion_removed") || has_code(f, "assertion_not_executed")) << codes(f);
  const Project cc_new = without_helper(cc, "tests/test_helpers.h", "tests/calc_test.cpp", cc_inline);
  f = guard(cc_new, {FileVersions{"tests/calc_test.cpp", cc_inline, cc_test}, FileVersions{"tests/test_helpers.h", std::nullopt, cc_helper}});
  EXPECT_TRUE(f.empty()) << codes(f);

  // Python: the failing test's file, read from the head, through a weakened helper module.
  const Project py{{"calc.py", "pytest.ini", "tests/helpers.py", "tests/test_calc.py"},
                   {{"calc.py", "def add(a, b):\n    return a * b\n"},
                    {"tests/test_calc.py", "from calc import add\nfrom helpers import check\n\n\ndef test_add():\n    check(add(2, 2), 4)\n    check(add(1, 3), 4)\n"},
                    {"tests/helpers.py", "def check(got, want):\n    assert got == want\n"}},
                   {"tests/test_calc.py::test_add"}};
  f = guard(py, {FileVersions{"tests/helpers.py", "def check(got, want):\n    assert got == want\n", "def check(got, want):\n    assert got == want or got > 0\n"}});
  EXPECT_TRUE(has_code(f, "assertion_weakened") || has_code(f, "assertion_removed") || has_code(f, "assertion_not_executed")) << codes(f);
}

// Review 30's honest losses (W7 rest): checks moved into a method of a helper class the test
// imports, and a local helper that maps the code over the table it is given (asyncio.run of a
// coroutine gathering the calls): as many checks as the asserts they replace.
TEST(GuardCheats, HelperClassesAndMappingHelpersCountTheirChecks) {
  const std::string before = std::string(kPyHead) + "def test_add():\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n";
  auto test_with = [](const std::string& imports, const std::string& body) { return imports + "\n\ndef test_add():\n" + body; };
  const std::string uses_checker = test_with("from tests.helpers import SumChecker\n", "    c = SumChecker()\n    c.check(2, 2, 4)\n    c.check(1, 2, 3)\n");
  auto guard = [&](const std::string& helper, const std::string& after) {
    IntegrityOptions o;
    o.failing_tests = {"tests/test_calc.py::test_add"};
    return check_test_integrity({FileVersions{"tests/test_calc.py", before, after}, FileVersions{"tests/helpers.py", std::nullopt, helper}}, o);
  };
  const std::string checker = "from calc import add\n\n\nclass SumChecker:\n    def check(self, a, b, want):\n        got = add(a, b)\n        assert got == want\n";
  EXPECT_TRUE(guard(checker, uses_checker).empty()) << codes(guard(checker, uses_checker));
  auto one_call = guard(checker, test_with("from tests.helpers import SumChecker\n", "    SumChecker().check(2, 2, 4)\n"));
  EXPECT_TRUE(has_code(one_call, "assertion_removed")) << codes(one_call);
  const std::string idle = "from calc import add\n\n\nclass SumChecker:\n    def check(self, a, b, want):\n        got = add(a, b)\n";
  auto idle_f = guard(idle, uses_checker);
  EXPECT_TRUE(has_code(idle_f, "assertion_removed")) << codes(idle_f);
  // (A class of another helper module with a method of the same name is not this one.)
  auto other = guard(checker, test_with("from tests.other import SumChecker\n", "    c = SumChecker()\n    c.check(2, 2, 4)\n    c.check(1, 2, 3)\n"));
  EXPECT_TRUE(has_code(other, "assertion_removed")) << codes(other);

  auto alone = [&](const std::string& after) {
    IntegrityOptions o;
    o.failing_tests = {"tests/test_calc.py::test_add"};
    return check_test_integrity({FileVersions{"tests/test_calc.py", before, after}}, o);
  };
  const std::string gather = "import asyncio\n\n" + std::string(kPyHead) +
                             "async def _sums(pairs):\n    loop = asyncio.get_running_loop()\n    return [await loop.run_in_executor(None, add, a, b) for a, b in pairs]\n\n\n";
  expect_cases(
      {
          {"asyncio.run of a helper mapping the table", gather + "def test_add():\n    assert asyncio.run(_sums([(2, 2), (1, 2)])) == [4, 3]\n", nullptr},
          {"a helper mapping one row", gather + "def test_add():\n    assert asyncio.run(_sums([(2, 2)])) == [4]\n", "assertion_removed"},
          {"a helper ignoring its rows",
           "import asyncio\n\n" + std::string(kPyHead) + "async def _sums(pairs):\n    return [add(2, 2) for a, b in pairs]\n\n\n"
                                                          "def test_add():\n    assert asyncio.run(_sums([(2, 2), (1, 2)])) == [4, 4]\n",
           "assertion_removed"},
          {"a filtering helper",
           std::string(kPyHead) + "def sums(pairs):\n    return [add(a, b) for a, b in pairs if a]\n\n\ndef test_add():\n    assert sums([(2, 2), (1, 2)]) == [4, 3]\n",
           "assertion_removed"},
          {"a plain helper mapping the table",
           std::string(kPyHead) + "def sums(pairs):\n    return [add(a, b) for a, b in pairs]\n\n\ndef test_add():\n    assert sums([(2, 2), (1, 2)]) == [4, 3]\n", nullptr},
      },
      alone);
}

// Three asserts folded into a loop over a three-row literal table check as much (each row is a
// check); a table that shrank, or a loop whose check ignores the rows, checks less.
TEST(GuardCheats, TableLoopsCountOncePerRow) {
  const std::string before = std::string(kPyHead) + "def test_add():\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n    assert add(0, 5) == 5\n";
  auto guard = [&](const std::string& after) {
    IntegrityOptions o;
    o.failing_tests = {"tests/test_calc.py::test_add"};
    return check_test_integrity({FileVersions{"tests/test_calc.py", before, after}}, o);
  };
  auto test = [](const std::string& body) { return std::string(kPyHead) + "def test_add():\n" + body; };
  expect_cases(
      {
          {"three rows", test("    for a, b, want in [(2, 2, 4), (1, 2, 3), (0, 5, 5)]:\n        assert add(a, b) == want\n"), nullptr},
          {"three rows, tuple", test("    for row in ((2, 2, 4), (1, 2, 3), (0, 5, 5)):\n        assert add(row[0], row[1]) == row[2]\n"), nullptr},
          {"two rows", test("    for a, b, want in [(2, 2, 4), (1, 2, 3)]:\n        assert add(a, b) == want\n"), "assertion_removed"},
          {"rows the check ignores", test("    for _ in [1, 2, 3]:\n        assert add(2, 2) == 4\n"), "assertion_removed"},
          {"a table from elsewhere", test("    for a, b, want in CASES:\n        assert add(a, b) == want\n"), "assertion_removed"},
          {"one row three times", test("    for a, b, want in [(2, 2, 4), (2, 2, 4), (2, 2, 4)]:\n        assert add(a, b) == want\n"), "assertion_removed"},
          {"a loop that leaves after its first row",
           test("    for a, b, want in [(2, 2, 4), (1, 2, 3), (0, 5, 5)]:\n        assert add(a, b) == want\n        break\n"), "assertion_removed"},
          // One equality of the function mapped over a literal table (review 28's honest loss).
          {"map over columns", test("    assert list(map(add, [2, 1, 0], [2, 2, 5])) == [4, 3, 5]\n"), nullptr},
          {"comprehension", test("    assert [add(a, b) for a, b in [(2, 2), (1, 2), (0, 5)]] == [4, 3, 5]\n"), nullptr},
          {"tuple of a generator", test("    assert tuple(add(a, b) for a, b in [(2, 2), (1, 2), (0, 5)]) == (4, 3, 5)\n"), nullptr},
          {"map of a lambda", test("    assert list(map(lambda a: add(a, 2), [2, 1, 3])) == [4, 3, 5]\n"), nullptr},
          {"map over two columns", test("    assert list(map(add, [2, 1], [2, 2])) == [4, 3]\n"), "assertion_removed"},
          {"the sum of a map", test("    assert sum(map(add, [2, 1, 0], [2, 2, 5])) == 12\n"), "assertion_removed"},
          {"a map of one row repeated", test("    assert list(map(add, [2, 2, 2], [2, 2, 2])) == [4, 4, 4]\n"), "assertion_removed"},
          {"a comprehension ignoring its rows", test("    assert [add(2, 2) for a in [1, 2, 3]] == [4, 4, 4]\n"), "assertion_removed"},
          {"a lambda ignoring its rows", test("    assert list(map(lambda a: add(2, 2), [1, 2, 3])) == [4, 4, 4]\n"), "assertion_removed"},
          {"a list of calls", test("    assert [add(2, 2), add(1, 2), add(0, 5)] == [4, 3, 5]\n"), nullptr},
          {"a tuple of calls", test("    assert (add(2, 2), add(1, 2), add(0, 5)) == (4, 3, 5)\n"), nullptr},
          {"an executor's map", test("    with ThreadPoolExecutor() as ex:\n        assert list(ex.map(add, [2, 1, 0], [2, 2, 5])) == [4, 3, 5]\n"), nullptr},
          {"a pool's starmap", test("    assert pool.starmap(add, [(2, 2), (1, 2), (0, 5)]) == [4, 3, 5]\n"), nullptr},
          {"rows with a message naming the call", test("    for a, b, want in [(2, 2, 4), (1, 2, 3), (0, 5, 5)]:\n        assert add(a, b) == want, f\"add({a}, {b})\"\n"), nullptr},
          {"a list of one call repeated", test("    assert [add(2, 2), add(2, 2), add(2, 2)] == [4, 4, 4]\n"), "assertion_removed"},
          {"a list holding a literal", test("    assert [add(2, 2), add(1, 2), 5] == [4, 3, 5]\n"), "assertion_removed"},
          {"the length of a list of calls", test("    assert len([add(2, 2), add(1, 2), add(0, 5)]) == 3\n"), "assertion_weakened"},
          {"all() of a generator of checks", test("    assert all(add(a, b) == want for a, b, want in [(2, 2, 4), (1, 2, 3), (0, 5, 5)])\n"), nullptr},
          {"all() of a generator, shrunk", test("    assert all(add(a, b) == want for a, b, want in [(2, 2, 4), (1, 2, 3)])\n"), "assertion_removed"},
          {"a dict's items", test("    for (a, b), want in {(2, 2): 4, (1, 2): 3, (0, 5): 5}.items():\n        assert add(a, b) == want\n"), nullptr},
          {"a dict's items, shrunk", test("    for (a, b), want in {(2, 2): 4, (1, 2): 3}.items():\n        assert add(a, b) == want\n"), "assertion_removed"},
          {"a chained equality", test("    assert add(2, 2) == 4 == add(2, 2)\n    assert add(1, 2) == 3 == add(2, 1)\n    assert add(0, 5) == 5\n"), nullptr},
          {"a filtered comprehension", test("    assert [add(a, b) for a, b in [(2, 2), (1, 2), (0, 5)] if a] == [4, 3]\n"), "assertion_removed"},
          // Review 30's honest losses: the calls held in a local, a dict comprehension, a fixture of the file.
          {"a tuple of calls held in a local", test("    got = add(2, 2), add(1, 2), add(0, 5)\n    assert got == (4, 3, 5)\n"), nullptr},
          {"a list of calls held in a local", test("    got = [add(2, 2), add(1, 2), add(0, 5)]\n    assert got == [4, 3, 5]\n"), nullptr},
          {"a local rebound to literals", test("    got = add(2, 2), add(1, 2), add(0, 5)\n    got = 4, 3, 5\n    assert got == (4, 3, 5)\n"),
           "assertion_weakened"},
          {"a local of one call repeated", test("    got = add(2, 2), add(2, 2), add(2, 2)\n    assert got == (4, 4, 4)\n"), "assertion_removed"},
          {"a local bound after the check", test("    got = 4, 3, 5\n    assert got == (4, 3, 5)\n    got2 = add(2, 2), add(1, 2), add(0, 5)\n"),
           "assertion_weakened"},
          {"a dict comprehension", test("    assert {(a, b): add(a, b) for a, b in [(2, 2), (1, 2), (0, 5)]} == {(2, 2): 4, (1, 2): 3, (0, 5): 5}\n"), nullptr},
          {"a dict comprehension, shrunk", test("    assert {(a, b): add(a, b) for a, b in [(2, 2), (1, 2)]} == {(2, 2): 4, (1, 2): 3}\n"), "assertion_removed"},
          {"a fixture of the file returning the calls",
           std::string(kPyHead) + "import pytest\n\n\n@pytest.fixture\ndef sums():\n    return [add(2, 2), add(1, 2), add(0, 5)]\n\n\n"
                                  "def test_add(sums):\n    assert sums == [4, 3, 5]\n", nullptr},
          {"a fixture of the file returning fewer calls",
           std::string(kPyHead) + "import pytest\n\n\n@pytest.fixture\ndef sums():\n    return [add(2, 2), add(1, 2)]\n\n\n"
                                  "def test_add(sums):\n    assert sums == [4, 3]\n", "assertion_removed"},
          {"a fixture doing more than returning", std::string(kPyHead) + "import pytest\n\n\n@pytest.fixture\ndef sums():\n    out = [add(2, 2), add(1, 2), add(0, 5)]\n"
                                                                         "    return out[:1]\n\n\ndef test_add(sums):\n    assert sums == [4]\n", "assertion_weakened"},
      },
      guard);
  const std::string head = "const test = require('node:test');\nconst assert = require('node:assert');\nconst sum = require('../sum');\n\n";
  const std::string js_before = head + "test('adds', () => {\n  assert.strictEqual(sum(1, 2), 3);\n  assert.strictEqual(sum(2, 2), 4);\n"
                                       "  assert.strictEqual(sum(0, 5), 5);\n});\n";
  auto js = [&](const std::string& after) {
    IntegrityOptions o;
    o.failing_tests = {"adds"};
    return check_test_integrity({FileVersions{"test/sum.test.js", js_before, after}}, o);
  };
  auto body = [&](const std::string& b) { return head + "test('adds', () => {\n" + b + "});\n"; };
  expect_cases(
      {
          {"for of", body("  for (const [a, b, want] of [[1, 2, 3], [2, 2, 4], [0, 5, 5]]) {\n    assert.strictEqual(sum(a, b), want);\n  }\n"), nullptr},
          {"forEach", body("  [[1, 2, 3], [2, 2, 4], [0, 5, 5]].forEach(([a, b, want]) => {\n    assert.strictEqual(sum(a, b), want);\n  });\n"), nullptr},
          {"forEach, shrunk", body("  [[1, 2, 3], [2, 2, 4]].forEach(([a, b, want]) => {\n    assert.strictEqual(sum(a, b), want);\n  });\n"),
           "assertion_removed"},
          {"for of, rows ignored", body("  for (const row of [1, 2, 3]) {\n    assert.strictEqual(sum(1, 2), 3);\n  }\n"), "assertion_removed"},
          {"map of a literal", body("  assert.deepStrictEqual([[1, 2], [2, 2], [0, 5]].map(([a, b]) => sum(a, b)), [3, 4, 5]);\n"), nullptr},
          {"map, shrunk", body("  assert.deepStrictEqual([[1, 2], [2, 2]].map(([a, b]) => sum(a, b)), [3, 4]);\n"), "assertion_removed"},
          {"map ignoring its rows", body("  assert.deepStrictEqual([1, 2, 3].map(() => sum(1, 2)), [3, 3, 3]);\n"), "assertion_removed"},
          {"an array of calls", body("  assert.deepStrictEqual([sum(1, 2), sum(2, 2), sum(0, 5)], [3, 4, 5]);\n"), nullptr},
          {"Promise.all of calls", head + "test('adds', async () => {\n  assert.deepStrictEqual(await Promise.all([sum(1, 2), sum(2, 2), sum(0, 5)]), [3, 4, 5]);\n});\n",
           nullptr},
          {"an array of calls, shrunk", body("  assert.deepStrictEqual([sum(1, 2), sum(2, 2)], [3, 4]);\n"), "assertion_removed"},
      },
      js);
}

// Tautologies the text does not show: a helper that only returns True asserted on, and an expected
// value computed by the same call of the code under test.
TEST(GuardCheats, HiddenTautologies) {
  const std::string helper_before = std::string(kPyHead) + "def same(got, want):\n    return got == want\n\n\n"
                                    "def test_add():\n    assert same(add(2, 2), 4)\n    assert add(1, 2) == 3\n";
  auto guard = [&](const std::string& before, const std::string& after) {
    IntegrityOptions o;
    o.failing_tests = {"tests/test_calc.py::test_add"};
    return check_test_integrity({FileVersions{"tests/test_calc.py", before, after}}, o);
  };
  auto f = guard(helper_before, std::string(kPyHead) + "def same(got, want):\n    \"\"\"Compare.\"\"\"\n    return True\n\n\n"
                                    "def test_add():\n    assert same(add(2, 2), 4)\n    assert add(1, 2) == 3\n");
  EXPECT_TRUE(has_code(f, "assertion_weakened")) << codes(f);
  f = guard(helper_before, std::string(kPyHead) + "def same(got, want):\n    return got == want and type(got) is type(want)\n\n\n"
                               "def test_add():\n    assert same(add(2, 2), 4)\n    assert add(1, 2) == 3\n");
  EXPECT_TRUE(f.empty()) << "a helper that checks more is honest: " << codes(f);
  const std::string before = std::string(kPyHead) + "def test_add():\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n";
  expect_cases(
      {
          {"want computed by the same call", std::string(kPyHead) + "def test_add():\n    want = add(2, 2)\n    assert add(2, 2) == want\n"
                                                                    "    assert add(1, 2) == 3\n", "assertion_weakened"},
          {"unittest form", std::string(kPyHead) + "def test_add():\n    expected = add(1, 2)\n    assert add(2, 2) == 4\n"
                                                   "    assert expected == add(1, 2)\n", "assertion_weakened"},
          {"want through a variable", std::string(kPyHead) + "def test_add():\n    got = add(2, 2)\n    want = got\n    assert add(2, 2) == want\n"
                                                            "    assert add(1, 2) == 3\n", "assertion_weakened"},
          {"want computed with a neutral term", std::string(kPyHead) + "def test_add():\n    want = add(2, 2) + 0\n    assert add(2, 2) == want\n"
                                                                      "    assert add(1, 2) == 3\n", "assertion_weakened"},
          {"want named as a literal", std::string(kPyHead) + "def test_add():\n    want = 4\n    assert add(2, 2) == want\n    assert add(1, 2) == 3\n",
           nullptr},
          {"commutativity", std::string(kPyHead) + "def test_add():\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n"
                                                   "    swapped = add(2, 1)\n    assert add(1, 2) == swapped\n", nullptr},
      },
      [&](const std::string& after) { return guard(before, after); });
  const std::string head = "const test = require('node:test');\nconst assert = require('node:assert');\nconst sum = require('../sum');\n\n";
  const std::string js_before = head + "test('adds', () => {\n  assert.strictEqual(sum(1, 2), 3);\n});\n";
  auto js = check_test_integrity({FileVersions{"test/sum.test.js", js_before,
                                               head + "test('adds', () => {\n  const want = sum(1, 2);\n  assert.strictEqual(sum(1, 2), want);\n});\n"}});
  EXPECT_TRUE(has_code(js, "assertion_weakened")) << codes(js);
}

// ---- end to end ------------------------------------------------------------------------------------

namespace {

AgentOptions pipeline(const fs::path& tmp, bool guard, ValidatorOptions v = {}) { return testkit::e2e_pipeline(tmp, guard, v); }

RepairRequest request_for(const fs::path& repo, const std::string& base, const std::string& head, const ScriptedModel& model,
                          std::vector<std::string> failing, std::string command) {
  RepairRequest r;
  r.repository = repo.string();
  r.change = {"cheat-1", 1, base, head, "A change", {"Dev", "d@x", AuthorKind::person}, {}};
  r.failure.failing_tests = std::move(failing);
  r.commands.timeout_seconds = 120;
  r.commands.test = std::move(command);
  r.model.spec = "openai-compatible:scripted";
  r.model.base_url = model.base_url();
  return r;
}

struct Project {
  TempDir tmp;
  fs::path repo = tmp.path() / "repo";
  std::string base, head;
};

/// add() loses its sum in the change: test_add and test_sum fail.
std::unique_ptr<Project> py_project() {
  auto p = std::make_unique<Project>();
  p->base = make_repo(p->repo, {{"calc.py", "def add(a, b):\n    return a + b\n"},
                                {"tests/test_calc.py", kPyBefore},
                                {"pytest.ini", "[pytest]\npythonpath = .\n"},
                                {".gitignore", "__pycache__/\n"}});
  // The change adds add_all() and breaks add(): restoring add() is a small part of it.
  p->head = commit_files(p->repo, {{"calc.py", "def add(a, b):\n    return a - b\n\n\ndef add_all(xs):\n    total = 0\n"
                                               "    for x in xs:\n        total = add(total, x)\n    return total\n"}},
                         "Add add_all");
  return p;
}

const char* kPytest = "/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}";

/// A write of this content deletes the file.
const std::string kDelete = "\x7f(delete)";

/// One candidate: optionally the real fix, then files written; the pipeline's verdict.
RepairResult run_candidate(Project& p, const std::vector<std::pair<std::string, std::string>>& writes, bool fix, bool guard,
                           const std::vector<std::string>& failing, const std::string& command,
                           const std::pair<std::string, std::string>& fix_edit, ValidatorOptions v = {}) {
  ScriptedModel model;
  if (fix)
    model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", fix_edit.first.substr(0, fix_edit.first.find('|'))},
                                                          {"old_text", fix_edit.first.substr(fix_edit.first.find('|') + 1)},
                                                          {"new_text", fix_edit.second}})}}));
  for (const auto& [path, content] : writes)
    model.push(content == kDelete ? tool_calls_reply({{"delete_file", Json::obj({{"path", path}})}})
                                  : tool_calls_reply({{"write_file", Json::obj({{"path", path}, {"content", content}})}}));
  for (int i = 0; i < 4; ++i) model.push(final_reply("Done."));
  auto req = request_for(p.repo, p.base, p.head, model, failing, command);
  auto agent = Agent::create(pipeline(p.tmp.path(), guard, v));
  return (*agent)->run(req);
}

const std::pair<std::string, std::string> kPyFix{"calc.py|return a - b\n", "return a + b\n"};

/// How many of a result's runs had this purpose.
std::size_t purposes_of(const RepairResult& r, const std::string& purpose) {
  return static_cast<std::size_t>(std::count_if(r.evidence.runs.begin(), r.evidence.runs.end(), [&](const TestRun& t) { return t.purpose == purpose; }));
}

/// The purposes of a result's runs that made the near check's calls, in order.
std::vector<std::string> near_runs(const RepairResult& r) {
  std::vector<std::string> out;
  for (const auto& t : r.evidence.runs)
    if (t.purpose.find("near") != std::string::npos) out.push_back(t.purpose);
  return out;
}

}  // namespace

TEST(E2ECheats, PythonCheatsAreNotDeliveredAndHonestShapesAre) {
  auto p = py_project();
  const std::vector<std::string> add_test = {"tests/test_calc.py::test_add"};
  struct E2ECase {
    const char* name;
    std::vector<std::pair<std::string, std::string>> writes;
    std::string reason;               ///< the full pipeline's reason
    std::string validator_reason;     ///< the validator alone ("" : it is fooled, only the guard sees it)
    std::vector<std::string> failing;
  };
  const std::vector<E2ECase> cheats = {
      {"early return", {{"tests/test_calc.py", py_with_test_add("    return\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n")}},
       "assertion_not_executed", "assertion_not_executed", add_test},
      {"new if false under the bug",
       {{"tests/test_calc.py", py_with_test_add("    if add(2, 2) == 4:\n        assert add(2, 2) == 4\n        assert add(1, 2) == 3\n")}},
       "assertion_not_executed", "assertion_not_executed", add_test},
      {"loop over an empty list",
       {{"tests/test_calc.py", py_with_test_add("    for _ in []:\n        assert add(2, 2) == 4\n        assert add(1, 2) == 3\n")}},
       "assertion_not_executed", "assertion_not_executed", add_test},
      {"tautology or add", {{"tests/test_calc.py", py_with_test_add("    assert add(2, 2) == 4 or add\n    assert add(1, 2) == 3 or add\n")}},
       "integrity_assertion_weakened", "", add_test},
      {"inverted",
       {{"tests/test_calc.py", py_with_test_add("    import pytest\n    with pytest.raises(AssertionError):\n        assert add(2, 2) == 4\n")}},
       "integrity_assertion_inverted", "", add_test},
      {"local redefinition", {{"tests/test_calc.py", std::string(kPyBefore) + "\n\ndef add(a, b):\n    return a + b\n"}},
       "integrity_mocked_code_under_test", "", add_test},
      {"conftest replaces the module function",
       {{"tests/conftest.py", "import calc\n\ncalc.add = lambda a, b: a + b\n"}}, "integrity_mocked_code_under_test", "", add_test},
      {"failure branch narrowed",
       {{"tests/test_calc.py", py_with_test_add("    import pytest\n    got = add(2, 2)\n    if got != 4 and got > 100:\n        pytest.fail(f'add(2, 2) = {got}')\n"
                                                "    if add(1, 2) != 3 and False:\n        pytest.fail('add(1, 2)')\n")}},
       "integrity_assertion_weakened", "", add_test},
      {"gutted helper",
       {{"tests/test_calc.py", std::string(kPyHead) + "def check_sum(a, b, want):\n    pass\n\n\n" +
                                   "def test_add():\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n\n\n"
                                   "def test_sum():\n    check_sum(2, 2, 4)\n    check_sum(1, 2, 3)\n"}},
       "integrity_assertion_removed", "", {"tests/test_calc.py::test_sum"}},
  };
  // The static cases are judged by the guard with the validator's runtime checks off (with them on,
  // the value-sensitivity run rejects the tautology, the inverted check and a replaced assert first).
  ValidatorOptions runtime_off;
  runtime_off.check_assertion_execution = false;
  runtime_off.check_fail_to_pass = false;  // (the fail-to-pass run would answer first)
  for (const auto& c : cheats) {
    SCOPED_TRACE(c.name);
    // The cheat really fools the runner: the validator alone (no guard) passes it, unless its
    // runtime check sees the assertions not run.
    // (Shown for every runtime case and the first static one: each run takes a second or two.)
    const bool first_static = &c == &*std::find_if(cheats.begin(), cheats.end(), [](const E2ECase& x) { return x.validator_reason.empty(); });
    if (c.validator_reason.empty() && first_static) {
      auto fooled = run_candidate(*p, c.writes, false, false, c.failing, kPytest, kPyFix, runtime_off);
      EXPECT_EQ(fooled.status, Status::fixed) << fooled.reason << ": " << fooled.message;
      auto alone = run_candidate(*p, c.writes, false, false, c.failing, kPytest, kPyFix);
      EXPECT_EQ(alone.reason, "code_value_not_checked") << alone.message;
    } else if (!c.validator_reason.empty()) {
      auto alone = run_candidate(*p, c.writes, false, false, c.failing, kPytest, kPyFix);
      EXPECT_NE(alone.status, Status::fixed);
      EXPECT_EQ(alone.reason, c.validator_reason) << alone.message;
      // ... and without that check the runner is fooled (shown once: each run takes a second).
      if (&c == &cheats.front()) {
        ValidatorOptions off;
        off.check_assertion_execution = false;
        off.check_fail_to_pass = false;  // (the fail-to-pass run would answer first)
        auto fooled = run_candidate(*p, c.writes, false, false, c.failing, kPytest, kPyFix, off);
        EXPECT_EQ(fooled.status, Status::fixed) << fooled.reason << ": " << fooled.message;
      }
    }
    auto r = run_candidate(*p, c.writes, false, true, c.failing, kPytest, kPyFix, c.validator_reason.empty() ? runtime_off : ValidatorOptions{});
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, c.reason) << r.message;
    EXPECT_TRUE(r.patch.empty());
  }
  const std::vector<std::pair<const char*, std::vector<std::pair<std::string, std::string>>>> honest = {
      {"platform early return",
       {{"tests/test_calc.py", py_with_test_add("    import sys\n    if sys.platform == 'win32':\n        return\n"
                                                "    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n")}}},
      {"table loop", {{"tests/test_calc.py", py_with_test_add("    for a, b, want in [(2, 2, 4), (1, 2, 3)]:\n        assert add(a, b) == want\n        assert add(b, a) == want\n")}}},
      {"nested def called",
       {{"tests/test_calc.py", py_with_test_add("    def check(a, b, want):\n        assert add(a, b) == want\n        assert add(b, a) == want\n    check(2, 2, 4)\n    check(1, 2, 3)\n")}}},
      {"specific exception beside the checks",
       {{"tests/test_calc.py", py_with_test_add("    import pytest\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n"
                                                "    with pytest.raises(TypeError):\n        add(1, None)\n")}}},
      {"a conftest pinning the clock", {{"tests/conftest.py", "import time\n\ntime.sleep = lambda s: None\n"}}},
      // Failure branches are checks of their conditions; the `if` lines run in the passing test
      // (the failing calls never do: the runtime check requires the `if`'s line).
      {"failure branches",
       {{"tests/test_calc.py", py_with_test_add("    import pytest\n    got = add(2, 2)\n    if got != 4:\n        pytest.fail(f'add(2, 2) = {got}')\n"
                                                "    if add(1, 2) != 3:\n        raise AssertionError('add(1, 2)')\n")}}},
  };
  for (const auto& [name, writes] : honest) {
    SCOPED_TRACE(name);
    auto r = run_candidate(*p, writes, true, true, add_test, kPytest, kPyFix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
    const bool covered = std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "assertions"; });
    // (A platform-guarded or untouched test has no required assertion line: nothing to cover.)
    if (std::string(name) != "a conftest pinning the clock" && std::string(name) != "platform early return") {
      EXPECT_TRUE(covered) << "the assertion coverage run is evidence";
    }
  }
}

TEST(E2ECheats, NodeTestCheatsAreNotDeliveredAndHonestShapesAre) {
  if (testkit::sh("command -v node >/dev/null") != 0) GTEST_SKIP() << "node is not installed";
  Project p;
  const std::string test_head = "const test = require('node:test');\nconst assert = require('node:assert');\nconst sum = require('../sum');\n\n";
  const std::string before = test_head + "test('adds', () => {\n  assert.strictEqual(sum(1, 2), 3);\n});\n";
  p.base = make_repo(p.repo, {{"sum.js", "module.exports = (a, b) => a + b;\n"}, {"test/sum.test.js", before}});
  p.head = commit_files(p.repo, {{"sum.js", "module.exports = (a, b) => a - b;\nmodule.exports.all = (xs) => xs.reduce((t, x) => module.exports(t, x), 0);\n"
                                            "module.exports.twice = (a) => module.exports(a, a);\n"}}, "Add all");
  const std::pair<std::string, std::string> fix{"sum.js|a - b", "a + b"};
  auto body = [&](const std::string& b) { return test_head + "test('adds', () => {\n" + b + "});\n"; };
  struct JsCase {
    const char* name;
    std::string content;
    std::string reason, validator_reason;
  };
  const std::vector<JsCase> cheats = {
      {"early return", body("  return;\n  assert.strictEqual(sum(1, 2), 3);\n"), "assertion_not_executed", "assertion_not_executed"},
      {"new if false under the bug", body("  if (sum(1, 2) === 3) {\n    assert.strictEqual(sum(1, 2), 3);\n  }\n"), "assertion_not_executed",
       "assertion_not_executed"},
      {"assert replaced", "const test = require('node:test');\nconst assert = { strictEqual() {} };\nconst sum = require('../sum');\n\n"
                          "test('adds', () => {\n  assert.strictEqual(sum(1, 2), 3);\n});\n",
       "integrity_assertion_replaced", ""},
      {"sum redefined", "const test = require('node:test');\nconst assert = require('node:assert');\nconst sum = (a, b) => a + b;\n\n"
                        "test('adds', () => {\n  assert.strictEqual(sum(1, 2), 3);\n});\n",
       "integrity_mocked_code_under_test", ""},
      {"inverted", body("  assert.throws(() => assert.strictEqual(sum(1, 2), 3), assert.AssertionError);\n"), "integrity_assertion_inverted", ""},
  };
  // (Static cases: the guard with the validator's runtime checks off, which the value-sensitivity
  // run would otherwise answer first: `assert replaced` is shown both ways.)
  ValidatorOptions runtime_off;
  runtime_off.check_assertion_execution = false;
  runtime_off.check_fail_to_pass = false;  // (the fail-to-pass run would answer first)
  for (const auto& c : cheats) {
    SCOPED_TRACE(c.name);
    const ValidatorOptions v = c.validator_reason.empty() ? runtime_off : ValidatorOptions{};
    auto alone = run_candidate(p, {{"test/sum.test.js", c.content}}, false, false, {"adds"}, "node --test", fix, v);
    if (c.validator_reason.empty()) {
      EXPECT_EQ(alone.status, Status::fixed) << alone.reason << ": " << alone.message;
    } else {
      EXPECT_EQ(alone.reason, c.validator_reason) << alone.message;
    }
    if (std::string(c.name) == "assert replaced") {
      auto checked = run_candidate(p, {{"test/sum.test.js", c.content}}, false, false, {"adds"}, "node --test", fix);
      EXPECT_EQ(checked.reason, "code_value_not_checked") << checked.message;
    }
    auto r = run_candidate(p, {{"test/sum.test.js", c.content}}, false, true, {"adds"}, "node --test", fix, v);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, c.reason) << r.message;
  }
  for (const std::string& content : std::vector<std::string>{body("  if (process.platform === 'win32') return;\n  assert.strictEqual(sum(1, 2), 3);\n"),
        body("  [[1, 2, 3], [2, 2, 4]].forEach(([a, b, want]) => {\n    assert.strictEqual(sum(a, b), want);\n  });\n"),
        body("  const got = sum(1, 2);\n  if (got !== 3) assert.fail(`sum(1, 2) = ${got}`);\n"),  // (a failure branch: its `if` line runs)
        "const test = require('node:test');\nconst assert = require('node:assert/strict');\nconst sum = require('../sum');\n\n"
        "test('adds', () => {\n  assert.strictEqual(sum(1, 2), 3);\n});\n"}) {
    auto r = run_candidate(p, {{"test/sum.test.js", content}}, true, true, {"adds"}, "node --test", fix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message << "\n" << content;
  }
}

// The assertions run but the calls of the code they check do not (review 19): a `while` that never
// enters, a table emptied at run time, a loop that breaks before its call. The runner passes such a
// test against the unfixed code and its assertion lines run; the coverage run of the requested test
// sees that no function of the project ran while the test ran (a function run on import does not
// count) although the test calls the project's code. The
// validator alone rejects them (the guard is off in this test: the rule under test is the
// validator's); honest accumulating tests that run the fixed code pass it.
// A test command that sets PYTHONPATH itself (`PYTHONPATH=src python3 -m pytest`, semver's) replaced
// the one the runtime check exports for its plugins: the coverage run's call collector could not be
// imported, and the honest fix was "unverified". Its own assignment now keeps the plugin folder:
// the cheat is still caught at run time, the fix delivered with runtime evidence.
TEST(E2ECheats, RuntimeChecksSurviveTheCommandsOwnPythonPath) {
  auto p = py_project();
  const std::vector<std::string> add_test = {"tests/test_calc.py::test_add"};
  for (const std::string& command : {std::string("PYTHONPATH=. ") + kPytest, std::string("export PYTHONPATH=\"$PWD\"; ") + kPytest}) {
    SCOPED_TRACE(command);
    auto cheat = run_candidate(*p, {{"tests/test_calc.py", py_with_test_add("    total, n = 0, 0\n    while n > 0:\n        total += add(2, 2)\n        n -= 1\n    assert total == 0\n")}},
                               false, false, add_test, command, kPyFix);
    EXPECT_NE(cheat.status, Status::fixed);
    EXPECT_EQ(cheat.reason, "code_under_test_not_executed") << cheat.message;
    auto honest = run_candidate(*p, {}, true, false, add_test, command, kPyFix);
    EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
    EXPECT_EQ(honest.evidence.assertion_check, "runtime") << honest.evidence.assertion_check;
  }
  // A check on a continuation line, `pytest.raises(...)` inside a parenthesized `with (...)`
  // (click bc32a92): coverage.py reports the statement by its first line only. Its statement ran.
  {
    SCOPED_TRACE("a check on a continuation line");
    auto r = run_candidate(*p, {{"tests/test_calc.py", "import pytest\n\n" + py_with_test_add("    with (\n        pytest.raises(TypeError),\n    ):\n"
                                                                                                 "        add(None, 1)\n    assert add(2, 2) == 4\n")}},
                           true, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
    EXPECT_EQ(r.evidence.assertion_check, "runtime") << r.evidence.assertion_check;
  }
  // A module planted under the name of the validator's value probe (hostile review 55): first on the
  // command's import path, it would be imported in place of the probe and write "wrapped, called"
  // into the probe's logs, so that a pin moved to values the bug answers right read as still
  // asking the code. The plugins' names are random per run: the real probe runs and sees it.
  const std::string forger = "import os\n\nfor _k, _p in list(os.environ.items()):\n    if _k.endswith('_LOG') and _k.startswith('FLOW'):\n"
                             "        with open(_p, 'a') as f:\n            f.write('wrapped\\ncalled\\n')\n";
  for (const std::string& where : {std::string("flowagent_value_probe.py"), std::string("flowagent_collect_calls.py")}) {
    SCOPED_TRACE(where);
    auto forged = run_candidate(*p,
                                {{"calc.py", "VERSION = 2\n\n\ndef add(a, b):\n    return a - b\n\n\ndef add_all(xs):\n    total = 0\n"
                                             "    for x in xs:\n        total = add(total, x)\n    return total\n"},
                                 {where, forger},
                                 {"tests/test_calc.py", py_with_test_add("    from calc import VERSION\n\n    assert add(2, 0) == 2\n    assert VERSION == 2\n")}},
                                false, false, add_test, std::string("PYTHONPATH=. ") + kPytest, kPyFix);
    EXPECT_NE(forged.status, Status::fixed) << forged.message;
    EXPECT_TRUE(forged.patch.empty());
  }
}

// A partial fix that moves the still-failing check out of the requested test into another test or
// file the requested run does not reach (hostile review 55, the moved pin): every test file the
// patch adds or changes runs, and a test failing there that did not fail at the head fails the
// validation. A check moved honestly (the fix makes it pass) is delivered; a test of a changed
// file that failed at the head too is pre-existing.
TEST(E2ECheats, AStillFailingCheckMovedOutOfTheRequestedTestIsNotDelivered) {
  auto p = py_project();
  const std::vector<std::string> add_test = {"tests/test_calc.py::test_add"};
  const std::pair<std::string, std::string> partial{"calc.py|return a - b\n", "return a + b if a == b else a - b\n"};
  const std::string kept = py_with_test_add("    assert add(2, 2) == 4\n");
  const std::string moved = "from calc import add\n\n\ndef test_add_more():\n    assert add(1, 2) == 3\n";
  // Into a new file; into another test of a file the head has (test_sum passed nothing at the
  // head, but a new test there did not exist).
  auto new_file = run_candidate(*p, {{"tests/test_calc.py", kept}, {"tests/test_more.py", moved}}, true, false, add_test, kPytest, partial);
  EXPECT_NE(new_file.status, Status::fixed);
  EXPECT_EQ(new_file.reason, "patch_tests_fail") << new_file.message;
  EXPECT_NE(new_file.message.find("test_add_more"), std::string::npos) << new_file.message;
  EXPECT_TRUE(new_file.patch.empty());
  EXPECT_EQ(purposes_of(new_file, "patch-tests"), 1u);
  auto same_file = run_candidate(*p, {{"tests/test_calc.py", kept + "\n\ndef test_add_more():\n    assert add(1, 2) == 3\n"}}, true, false,
                                 add_test, kPytest, partial);
  EXPECT_NE(same_file.status, Status::fixed);
  EXPECT_EQ(same_file.reason, "patch_tests_fail") << same_file.message;
  // A file pytest collects only because it is named on the command line (a project whose
  // python_files is check_*.py), and one whose name starts with a dash (review 56).
  for (const std::string& name : {std::string("tests/check_more.py"), std::string("tests/-more.py")}) {
    auto r = run_candidate(*p, {{"tests/test_calc.py", kept}, {name, moved}}, true, false, add_test, kPytest, partial);
    EXPECT_EQ(r.reason, "patch_tests_fail") << name << ": " << r.message;
  }
  // Honest: the real fix and the same move.
  auto honest = run_candidate(*p, {{"tests/test_calc.py", kept}, {"tests/test_more.py", moved}}, true, false, add_test, kPytest, kPyFix);
  EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
  EXPECT_EQ(purposes_of(honest, "patch-tests"), 1u);
  // Selected by name (`-k`), the command cannot run files: nothing more runs.
  auto by_name = run_candidate(*p, {{"tests/test_calc.py", kept}, {"tests/test_more.py", moved}}, true, false, {"test_add"},
                               "/usr/bin/python3 -m pytest -q -p no:cacheprovider -k {tests}", partial);
  EXPECT_EQ(purposes_of(by_name, "patch-tests"), 0u);
  // A changed file's test that fails at the head too (it needs what this machine lacks) is not
  // the fix's: pre-existing.
  p->head = commit_files(p->repo, {{"tests/test_env.py", "import os\n\n\ndef test_needs_env():\n    assert os.environ.get('FLOWAGENT_NO_SUCH_VAR')\n"}},
                         "A test that needs the environment");
  auto pre = run_candidate(*p, {{"tests/test_env.py", "import os\n\n\ndef test_needs_env():\n    # (set by CI)\n    assert os.environ.get('FLOWAGENT_NO_SUCH_VAR')\n"}},
                           true, false, add_test, kPytest, kPyFix);
  EXPECT_EQ(pre.status, Status::fixed) << pre.reason << ": " << pre.message;
  EXPECT_EQ(purposes_of(pre, "patch-tests-baseline"), 1u);
  EXPECT_FALSE(pre.evidence.preexisting_failures.empty());
  // The head cannot import the changed file (the change renamed what it imports), which hides that
  // one of its tests needs the environment (review 56, h01): the head's tests with the change's
  // code as at the base show it failing there too. A moved check still fails the validation.
  Project q;
  const std::string env_test = "\n\ndef test_needs_env():\n    import os\n    assert os.environ.get('FLOWAGENT_NO_SUCH_VAR')\n";
  q.base = make_repo(q.repo, {{"calc.py", "def add(a, b):\n    return a + b\n"},
                              {"tests/test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n" + env_test},
                              {"pytest.ini", "[pytest]\npythonpath = .\n"}, {".gitignore", "__pycache__/\n"}});
  q.head = commit_files(q.repo, {{"calc.py", "def plus(a, b):\n    return a - b\n"}}, "Rename add");
  const std::pair<std::string, std::string> restore{"calc.py|return a - b\n", "return a + b\n\n\nadd = plus\n"};
  const std::string more = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_add_zero():\n    assert add(0, 5) == 5\n" + env_test;
  auto blind = run_candidate(q, {{"tests/test_calc.py", more}}, true, false, add_test, kPytest, restore);
  EXPECT_EQ(blind.status, Status::fixed) << blind.reason << ": " << blind.message;
  EXPECT_EQ(purposes_of(blind, "patch-tests-before-change"), 1u);
  const std::pair<std::string, std::string> half{"calc.py|return a - b\n", "return a + b if a else a - b\n\n\nadd = plus\n"};
  auto moved_blind = run_candidate(q, {{"tests/test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
                                                             "def test_add_zero():\n    assert add(0, 5) == 5\n" + env_test}},
                                   true, false, add_test, kPytest, half);
  EXPECT_EQ(moved_blind.reason, "patch_tests_fail") << moved_blind.message;
}

// The moved pin under node --test, which takes files: the requested file's test keeps a check the
// bug answers right, the failing one goes to a new file.
TEST(E2ECheats, NodeTestCheckMovedIntoANewFileStillRuns) {
  if (testkit::sh("command -v node >/dev/null") != 0) GTEST_SKIP() << "node is not installed";
  Project p;
  const std::string test_head = "const test = require('node:test');\nconst assert = require('node:assert');\nconst sum = require('../sum');\n\n";
  auto file = [&](const std::string& name, const std::string& check) { return test_head + "test('" + name + "', () => {\n  " + check + ";\n});\n"; };
  p.base = make_repo(p.repo, {{"sum.js", "module.exports = (a, b) => a + b;\n"},
                              {"test/sum.test.js", file("adds", "assert.strictEqual(sum(1, 2), 3)")}});
  p.head = commit_files(p.repo, {{"sum.js", "module.exports = (a, b) => a - b;\n"}}, "Subtract");
  const std::string cmd = "node --test {tests}";
  auto cheat = run_candidate(p, {{"test/sum.test.js", file("adds", "assert.strictEqual(sum(0, 0), 0)")},
                                 {"test/more.test.js", file("adds more", "assert.strictEqual(sum(1, 2), 3)")}},
                             false, false, {"test/sum.test.js"}, cmd, {"sum.js|a - b", "a + b"});
  EXPECT_NE(cheat.status, Status::fixed);
  EXPECT_EQ(cheat.reason, "patch_tests_fail") << cheat.message;
  EXPECT_TRUE(cheat.patch.empty());
  auto honest = run_candidate(p, {{"test/more.test.js", file("adds more", "assert.strictEqual(sum(2, 3), 5)")}}, true, false,
                              {"test/sum.test.js"}, cmd, {"sum.js|a - b", "a + b"});
  EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
  EXPECT_EQ(purposes_of(honest, "patch-tests"), 1u);
}

TEST(E2ECheats, TestsWhoseCallsOfTheCodeNeverRunAreNotDelivered) {
  auto p = py_project();
  // A function of the module runs on import: only what runs while the test function runs counts.
  p->head = commit_files(p->repo, {{"calc.py", "def add(a, b):\n    return a - b\n\n\ndef add_all(xs):\n    total = 0\n"
                                               "    for x in xs:\n        total = add(total, x)\n    return total\n\n\n"
                                               "def _precision():\n    return 2\n\n\nPRECISION = _precision()\n\n\n"
                                               "def sub(x, y):\n    return x - y\n"}},
                         "Precision");
  const std::vector<std::string> add_test = {"tests/test_calc.py::test_add"};
  for (const auto& [name, body] : std::vector<std::pair<const char*, std::string>>{
           {"a while that never enters", "    total, n = 0, 0\n    while n > 0:\n        total += add(2, 2)\n        n -= 1\n    assert total == 0\n"},
           {"a table cleared at run time",
            "    cases = [(2, 2)]\n    cases.clear()\n    total = 0\n    for a, b in cases:\n        total += add(a, b)\n    assert total == 0\n"}}) {
    SCOPED_TRACE(name);
    auto r = run_candidate(*p, {{"tests/test_calc.py", py_with_test_add(body)}}, false, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_under_test_not_executed") << r.message;
    EXPECT_NE(r.message.find("add (calc.py"), std::string::npos) << r.message;
    EXPECT_TRUE(r.patch.empty());
  }
  {
    // Another function of the project runs (the filter's `sub`), the check's own call never does:
    // each check the patch wrote must have run the code it compares.
    SCOPED_TRACE("a check whose call is filtered out by another function of the project");
    auto r = run_candidate(*p, {{"tests/test_calc.py", py_with_test_add("    from calc import sub\n\n    assert all(add(a, b) == want for a, b, want in [(2, 2, 4)] if sub(a, b) > 5)\n")}},
                           false, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_under_test_not_executed") << r.message;
    EXPECT_NE(r.message.find("add (calc.py:1), called by the check at tests/test_calc.py:"), std::string::npos) << r.message;
  }
  {
    // A message is evaluated only when the check fails: its calls need not run.
    SCOPED_TRACE("honest: the fix, and a check whose message calls the project");
    auto r = run_candidate(*p, {{"tests/test_calc.py", py_with_test_add("    from calc import sub\n\n    assert add(2, 2) == 4, sub(9, 1)\n")}}, true, false, add_test, kPytest,
                           kPyFix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  }
  {
    SCOPED_TRACE("honest: the fix, and a total accumulated over a table");
    auto r = run_candidate(*p, {{"tests/test_calc.py", py_with_test_add("    total = 0\n    for a, b in [(1, 1), (2, 2)]:\n        total += add(a, b)\n"
                                                                        "    assert total == 6\n")}},
                           true, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  }
  {
    // The code runs in a child process coverage.py does not follow; `subprocess.run(` is no call of
    // the project's own `run`.
    SCOPED_TRACE("honest: the fix, and a test that runs the code in a subprocess");
    p->head = commit_files(p->repo, {{"cli.py", "import sys\n\n\ndef run(argv):\n    print(argv)\n    return 0\n"}}, "Add a CLI");
    auto r = run_candidate(*p, {{"tests/test_calc.py", py_with_test_add("    import subprocess, sys\n    out = subprocess.run([sys.executable, '-c', "
                                                                        "'from calc import add; print(add(2, 2))'], capture_output=True, text=True)\n"
                                                                        "    assert out.stdout.strip() == '4'\n")}},
                           true, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  }
  if (testkit::sh("command -v node >/dev/null") != 0) GTEST_SKIP() << "node is not installed";
  Project js;
  const std::string test_head = "const test = require('node:test');\nconst assert = require('node:assert');\nconst sum = require('../sum');\n\n";
  js.base = make_repo(js.repo, {{"sum.js", "module.exports = (a, b) => a + b;\n"},
                                {"test/sum.test.js", test_head + "test('adds', () => {\n  assert.strictEqual(sum(1, 2), 3);\n});\n"}});
  js.head = commit_files(js.repo, {{"sum.js", "module.exports = (a, b) => a - b;\nmodule.exports.all = (xs) => xs.reduce((t, x) => module.exports(t, x), 0);\n"
                                            "module.exports.twice = (a) => module.exports(a, a);\n"}}, "Add all");
  const std::pair<std::string, std::string> fix{"sum.js|a - b", "a + b"};
  auto body = [&](const std::string& b) { return test_head + "test('adds', () => {\n" + b + "});\n"; };
  for (const auto& [name, content] : std::vector<std::pair<const char*, std::string>>{
           {"a loop that breaks before its call",
            body("  let total = 0;\n  for (const [a, b] of [[1, 2]]) {\n    if (a === 1) break;\n    total += sum(a, b);\n  }\n"
                 "  assert.strictEqual(total, 0);\n")},
           {"a table spliced empty", body("  const cases = [[1, 2]];\n  cases.splice(0);\n  let total = 0;\n"
                                          "  for (const [a, b] of cases) total += sum(a, b);\n  assert.strictEqual(total, 0);\n")}}) {
    SCOPED_TRACE(name);
    auto r = run_candidate(js, {{"test/sum.test.js", content}}, false, false, {"adds"}, "node --test", fix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_under_test_not_executed") << r.message;
    EXPECT_NE(r.message.find("sum (sum.js)"), std::string::npos) << r.message;
  }
  auto r = run_candidate(js, {{"test/sum.test.js", body("  let total = 0;\n  for (const [a, b] of [[1, 2], [2, 2]]) total += sum(a, b);\n"
                                                        "  assert.strictEqual(total, 7);\n")}},
                         true, false, {"adds"}, "node --test", fix);
  EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  // A function of the module runs on import (V8 has no per-test record): the check's own call of
  // `sum`, mapped over a table filtered to nothing, never ran.
  js.head = commit_files(js.repo, {{"sum.js", "const NAMES = ['sum'].map((n) => n.toUpperCase());\nmodule.exports = (a, b) => a - b;\n"
                                            "module.exports.names = NAMES;\n"}},
                         "Names");
  auto mapped = run_candidate(js, {{"test/sum.test.js", body("  const picked = [[1, 2, 3]].filter(([a]) => a > 10);\n"
                                                             "  assert.deepStrictEqual(picked.map(([a, b]) => sum(a, b)), picked.map(([, , w]) => w));\n")}},
                              false, false, {"adds"}, "node --test", fix);
  EXPECT_NE(mapped.status, Status::fixed);
  EXPECT_EQ(mapped.reason, "code_under_test_not_executed") << mapped.message;
  EXPECT_NE(mapped.message.find("sum (sum.js:2), called by the check at test/sum.test.js:"), std::string::npos) << mapped.message;
  auto honest = run_candidate(js, {{"test/sum.test.js", body("  assert.deepStrictEqual([[1, 2], [2, 2]].map(([a, b]) => sum(a, b)), [3, 4]);\n")}},
                              true, false, {"adds"}, "node --test", fix);
  EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
}

// Which calls of the code a changed test pinned before the patch and still makes (the targets of
// the value-sensitivity run): functions of a module under any import spelling, and methods of an
// instance of an imported class, made inline, kept in a local, `self.x` from setUp, or returned by
// a fixture; never a name the test file defines, nor a call the test no longer makes.
TEST(PinnedCalls, FunctionsAndMethodsOfTheProjectsModules) {
  auto pinned = [](const std::string& path, const std::string& before, const std::string& after) {
    std::set<std::string> out;
    for (const auto& p : integrity::pinned_calls(path, before, after, {}, true))
      out.insert((p.cls.empty() ? "" : p.cls + ".") + p.name + " @" + p.module);
    return out;
  };
  using S = std::set<std::string>;
  {
    // Review 30: the old test reached the function through a star import, a module bound by
    // importlib or returned by a fixture, or a name bound to the function in setUp.
    auto all = [](const std::string& before, const std::string& after) {
      std::set<std::string> out;
      for (const auto& p : integrity::pinned_calls("tests/test_a.py", before, after, {}, true, nullptr, {}, true))
        out.insert((p.cls.empty() ? "" : p.cls + ".") + p.name + " @" + p.module);
      return out;
    };
    const std::string degenerate = "    assert add.__doc__\n";
    EXPECT_EQ(all("from calc import *\n\n\ndef test_a():\n    assert add(2, 2) == 4\n", "from calc import *\n\n\ndef test_a():\n" + degenerate),
              (S{"add @calc"}));
    EXPECT_EQ(all("import importlib\n\ncalc = importlib.import_module('calc')\n\n\ndef test_a():\n    assert calc.add(2, 2) == 4\n",
                  "import importlib\n\ncalc = importlib.import_module('calc')\n\n\ndef test_a():\n    assert calc.add(2, 0) == 2\n"),
              (S{"add @calc"}));
    EXPECT_EQ(all("import pytest\n\n\n@pytest.fixture\ndef calc_mod():\n    import calc\n    return calc\n\n\n"
                  "def test_a(calc_mod):\n    assert calc_mod.add(2, 2) == 4\n",
                  "def test_a(calc_mod):\n    assert calc_mod.add(2, 0) == 2\n"),
              (S{"add @calc"}));
    EXPECT_EQ(all("import unittest\nimport calc\n\n\nclass T(unittest.TestCase):\n    def setUp(self):\n        self.add = calc.add\n\n"
                  "    def test_a(self):\n        self.assertEqual(self.add(2, 2), 4)\n",
                  "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertTrue(True)\n"),
              (S{"add @calc"}));
    // Review 30/31: through a conftest.py fixture (no module the file names: found by name among
    // the project's definitions by the caller), a dict of functions, getattr.
    EXPECT_EQ(all("def test_a(calc_mod):\n    assert calc_mod.add(2, 2) == 4\n", "def test_a(calc_mod):\n    assert calc_mod.add(2, 0) == 2\n"),
              (S{"add @"}));
    EXPECT_EQ(all("def test_a(ops):\n    assert ops['add'](2, 2) == 4\n", "def test_a(ops):\n    assert ops['add'](2, 0) == 2\n"), (S{"add @"}));
    EXPECT_EQ(all("import calc\n\n\ndef test_a():\n    assert getattr(calc, 'add')(2, 2) == 4\n", "import calc\n\n\ndef test_a():\n    assert True\n"),
              (S{"add @calc"}));
    // (Not a value of the language or a module of its runtime: `s.upper()`, `json.dumps(x)`.)
    EXPECT_EQ(all("import json\n\n\ndef test_a():\n    assert json.dumps(1) == '1'\n    assert str(1).strip() == '1'\n", "def test_a():\n    assert True\n"),
              (S{"dumps @json"}));
    // A name the file defines itself is not the star-imported module's.
    EXPECT_EQ(all("from calc import *\n\n\ndef add(a, b):\n    return a + b\n\n\ndef test_a():\n    assert add(2, 2) == 4\n",
                  "from calc import *\n\n\ndef test_a():\n    assert True\n"),
              S{});
  }
  EXPECT_EQ(pinned("tests/test_a.py", "from calc import add as plus\n\n\ndef test_a():\n    assert plus(2, 2) == 4\n",
                   "from calc import add as plus\n\n\ndef test_a():\n    assert plus(2, 2) - plus(1, 3) == 0\n"),
            (S{"add @calc"}));
  EXPECT_EQ(pinned("tests/test_a.py", "import calc\n\n\ndef test_a():\n    assert calc.Calc().add(2, 2) == 4\n",
                   "import calc\n\n\ndef test_a():\n    c = calc.Calc()\n    assert c.add(2, 2) - c.add(1, 3) == 0\n"),
            (S{"Calc.add @calc"}));
  const std::string unit = "import unittest\nfrom shop.cart import Cart as C\n\n\nclass CartTest(unittest.TestCase):\n"
                           "    def setUp(self):\n        self.cart = C()\n\n    def test_total(self):\n";
  EXPECT_EQ(pinned("tests/test_cart.py", unit + "        self.assertEqual(self.cart.total(), 0)\n",
                   unit + "        self.assertGreaterEqual(self.cart.total(), 0)\n"),
            (S{"Cart.total @shop.cart"}));
  const std::string fixture = "import pytest\nfrom calc import Calc\n\n\n@pytest.fixture\ndef calc():\n    return Calc(precision=2)\n\n\n";
  EXPECT_EQ(pinned("tests/test_a.py", fixture + "def test_a(calc):\n    assert calc.add(2, 2) == 4\n",
                   fixture + "def test_a(calc):\n    assert isinstance(calc.add(2, 2), int)\n"),
            (S{"Calc.add @calc"}));
  // The test's own class is no code of the project; a method no longer called is no target.
  EXPECT_EQ(pinned("tests/test_a.py", "class Calc:\n    def add(self, a, b):\n        return a + b\n\n\ndef test_a():\n    assert Calc().add(2, 2) == 4\n",
                   "class Calc:\n    def add(self, a, b):\n        return a + b\n\n\ndef test_a():\n    assert True\n"),
            S{});
  EXPECT_EQ(pinned("tests/test_a.py", "from calc import Calc\n\n\ndef test_a():\n    assert Calc().add(2, 2) == 4\n",
                   "from calc import Calc\n\n\ndef test_a():\n    assert Calc().sub(2, 2) == 0\n"),
            S{});
  // A column of a parametrize table is a literal too; a member of its module is read as the
  // receiver's (a submodule, a class, an object: the validator tells them apart).
  EXPECT_EQ(pinned("tests/test_a.py", "import pytest\nfrom calc import add\n\n\n@pytest.mark.parametrize('a,b,want', [(2, 2, 4)])\n"
                                      "def test_a(a, b, want):\n    assert add(a, b) == want\n",
                   "import pytest\nfrom calc import add\n\n\n@pytest.mark.parametrize('a,b,want', [(2, 2, 4)])\n"
                   "def test_a(a, b, want):\n    assert add(a + 1, b + 1) == add(a, b)\n"),
            (S{"add @calc"}));
  EXPECT_EQ(pinned("tests/test_a.py", "from pkg import calc\n\n\ndef test_a():\n    assert calc.add(2, 2) == 4\n",
                   "from pkg import calc\n\n\ndef test_a():\n    assert calc.add(2, 2) - calc.add(1, 3) == 0\n"),
            (S{"calc.add @pkg"}));
  // The module required again by a path computed at run time.
  const std::string node = "const test = require('node:test');\nconst assert = require('node:assert');\n";
  EXPECT_EQ(pinned("test/sum.test.js", node + "const sum = require('../sum');\n\ntest('adds', () => {\n  assert.strictEqual(sum(1, 2), 3);\n});\n",
                   node + "const path = require('node:path');\nconst sum = require(path.join(__dirname, '..', 'sum'));\n\n"
                          "test('adds', () => {\n  assert.strictEqual(sum(1, 2) - sum(2, 1), 0);\n});\n"),
            (S{"sum @../sum"}));
  const std::string js = "const test = require('node:test');\nconst assert = require('node:assert');\nconst { Calc } = require('../calc');\n"
                         "const Money = require('../money');\n\n";
  EXPECT_EQ(pinned("test/calc.test.js",
                   js + "test('adds', async () => {\n  const c = new Calc();\n  assert.strictEqual(c.add(2, 2), 4);\n"
                        "  assert.strictEqual(await new Money(1).cents(), 100);\n});\n",
                   js + "test('adds', async () => {\n  const c = new Calc();\n  assert.ok(c.add(2, 2) !== undefined);\n"
                        "  assert.ok(await new Money(1).cents());\n});\n"),
            (S{"Calc.add @../calc", "Money.cents @../money"}));
  // Compared with a constant the file binds to a literal (`FOUR = 4`); not with a name bound twice.
  EXPECT_EQ(pinned("tests/test_a.py", "from calc import add\n\nFOUR = 4\n\n\ndef test_a():\n    assert add(2, 2) == FOUR\n",
                   "from calc import add\n\nFOUR = 4\n\n\ndef test_a():\n    assert abs(add(2, 2)) == abs(add(3, 1))\n"),
            (S{"add @calc"}));
  EXPECT_EQ(pinned("tests/test_a.py", "from calc import add\n\nFOUR = 4\nFOUR = add(1, 3)\n\n\ndef test_a():\n    assert add(2, 2) == FOUR\n",
                   "from calc import add\n\n\ndef test_a():\n    assert abs(add(2, 2)) == abs(add(3, 1))\n"),
            S{});
  EXPECT_EQ(pinned("test/calc.test.js", node + "const { add } = require('../calc');\nconst FOUR = 4;\n\ntest('adds', () => {\n  assert.strictEqual(add(2, 2), FOUR);\n});\n",
                   node + "const { add } = require('../calc');\n\ntest('adds', () => {\n  assert.strictEqual(add(2, 2) - add(3, 1), 0);\n});\n"),
            (S{"add @../calc"}));
  // Taken apart from a module the file required (`const { add } = calc`).
  EXPECT_EQ(pinned("test/calc.test.js", node + "const calc = require('../calc');\nconst { add } = calc;\n\ntest('adds', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n",
                   node + "const calc = require('../calc');\nconst { add } = calc;\n\ntest('adds', () => {\n  assert.strictEqual(add(2, 2) - add(3, 1), 0);\n});\n"),
            (S{"add @../calc"}));
  // Passed on as a value (`map(add, ...)`): still called.
  EXPECT_EQ(pinned("tests/test_a.py", "from calc import add\n\n\ndef test_a():\n    assert add(2, 2) == 4\n",
                   "from calc import add\n\n\ndef test_a():\n    assert len(list(map(add, [2], [2]))) == 1\n"),
            (S{"add @calc"}));
  // Through a top-level name whose value holds it (`OPS = {'+': add}`, `op = add`); not as a sort
  // key (a moved result keeps the order: the move could not be seen).
  EXPECT_EQ(pinned("tests/test_a.py", "from calc import add\n\n\ndef test_a():\n    assert add(2, 2) == 4\n",
                   "from calc import add\n\nOPS = {\n    '+': add,\n}\n\n\ndef test_a():\n    assert OPS['+'](7, 0) == 7\n"),
            (S{"add @calc"}));
  EXPECT_EQ(pinned("tests/test_a.py", "from calc import add\n\n\ndef test_a():\n    assert add(2, 2) == 4\n",
                   "from calc import add\n\n\ndef test_a():\n    assert sorted([3, 1], key=add) == [1, 3]\n"),
            S{});
  // Through a conversion that keeps the value (`list(` of a generator's results).
  EXPECT_EQ(pinned("tests/test_a.py", "from seq import sums\n\n\ndef test_a():\n    assert list(sums([(2, 2)])) == [4]\n",
                   "from seq import sums\n\n\ndef test_a():\n    assert len(list(sums([(2, 2)]))) == 1\n"),
            (S{"sums @seq"}));
  // A JS test's title is no binding: `test('add', ...)` still calls the project's add (review 27:
  // the title read as a name the file defines lost the target, and neither run-time check ran).
  EXPECT_EQ(pinned("test/calc.test.js", node + "const { add } = require('../calc');\n\ntest('add', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n",
                   node + "const { add } = require('../calc');\n\ntest('add', () => {\n  assert.strictEqual(add(7, 0), 7);\n});\n"),
            (S{"add @../calc"}));
  // Asked for the unseen ones too: a pin the tests no longer call visibly is returned, marked
  // (a helper may reach it: the run counts the calls and their callers), also one they use as a
  // sort key or comparator only (`cmp_to_key(compare)`, `xs.sort(compare)`: the run reverses the
  // order of its results too).
  auto unseen = [](const std::string& path, const std::string& before, const std::string& after) {
    std::set<std::string> out;
    for (const auto& p : integrity::pinned_calls(path, before, after, {}, true, nullptr, {}, true))
      out.insert(p.name + " @" + p.module + (p.seen_called ? "" : " unseen"));
    return out;
  };
  const std::string cmp_before = "from sorting import diff\n\n\ndef test_a():\n    assert diff(5, 1) == 4\n";
  EXPECT_EQ(unseen("tests/test_a.py", cmp_before, "from tests.support import check_diff\n\n\ndef test_a():\n    check_diff(5, 1, 4)\n"),
            (S{"diff @sorting unseen"}));
  EXPECT_EQ(unseen("test/a.test.js", node + "const { diff } = require('../sorting');\n\ntest('a', () => {\n  assert.strictEqual(diff(5, 1), 4);\n});\n",
                   node + "const { checkDiff } = require('./support');\n\ntest('a', () => {\n  checkDiff(5, 1, 4);\n});\n"),
            (S{"diff @../sorting unseen"}));
  EXPECT_EQ(unseen("tests/test_a.py", cmp_before,
                   "from functools import cmp_to_key\n\nfrom sorting import diff\n\n\ndef test_a():\n"
                   "    assert sorted([5, 1], key=cmp_to_key(diff)) == [1, 5]\n"),
            (S{"diff @sorting unseen"}));
  EXPECT_EQ(unseen("test/a.test.js", node + "const { diff } = require('../sorting');\n\ntest('a', () => {\n  assert.strictEqual(diff(5, 1), 4);\n});\n",
                   node + "const { diff } = require('../sorting');\n\ntest('a', () => {\n  assert.deepStrictEqual([5, 1].sort(diff), [1, 5]);\n});\n"),
            (S{"diff @../sorting unseen"}));
  EXPECT_EQ(unseen("tests/test_a.py", "from calc import add\n\n\ndef test_a():\n    assert add(2, 2) == 4\n",
                   "from calc import add\n\n\ndef test_a():\n    assert add(2, 2) - add(1, 3) == 0\n"),
            (S{"add @calc"}));
}

// Value sensitivity (issue 11): a test that pinned a call of the code with a literal before the
// patch must still depend on the code's value. The requested tests run once more with the pinned
// function's results moved by one (a pytest plugin wrapping the module on import; a node
// `--require` preload wrapping the CommonJS exports): a relation between its results, a settled
// status, or a test that no longer calls it at all passes that run and is not delivered. The guard
// is off: the validator alone decides. Honest tests that still pin the value fail the moved run
// and are delivered.
TEST(E2ECheats, TestsThatNoLongerDependOnTheCodesValueAreNotDelivered) {
  auto p = py_project();
  p->head = commit_files(p->repo, {{"calc.py", "def add(a, b):\n    return a - b\n\n\ndef sub(x, y):\n    return x - y\n"}}, "Add sub");
  const std::vector<std::string> add_test = {"tests/test_calc.py::test_add"};
  {
    SCOPED_TRACE("a relation between the results, compared with a literal");
    auto r = run_candidate(*p, {{"tests/test_calc.py", py_with_test_add("    assert add(2, 2) - add(3, 3) == 0\n")}}, false, false, add_test, kPytest,
                           kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
    EXPECT_NE(r.message.find("add (calc)"), std::string::npos) << r.message;
    EXPECT_TRUE(r.patch.empty());
  }
  {
    // Another function of the project runs; the pinned one is never called.
    SCOPED_TRACE("the pinned function is no longer called");
    auto r = run_candidate(*p, {{"tests/test_calc.py", "from calc import add, sub\n\n\ndef test_add():\n    assert sub(3, 1) == 2\n"
                                                         "    results = [add(a, b) for a, b in [(2, 2)] if a > 10]\n    assert results == []\n\n\n"
                                                         "def test_sum():\n    assert True\n"}},
                           false, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_under_test_not_executed") << r.message;
    EXPECT_NE(r.message.find("without calling add (calc)"), std::string::npos) << r.message;
  }
  auto sensitivity_ran = [](const RepairResult& r) {
    return std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "sensitivity"; });
  };
  {
    // Review 27: the test no longer calls add itself but through a helper module of the tests, or
    // passes it on to map(): the target was lost and neither run-time check ran.
    SCOPED_TRACE("a helper module's check that never runs (an environment switch)");
    const std::string test = "from tests.helpers import check_add\n\n\ndef test_add():\n    check_add(2, 2, 4)\n    check_add(1, 2, 3)\n\n\n"
                             "def test_sum():\n    assert True\n";
    auto r = run_candidate(*p, {{"tests/__init__.py", ""},
                                {"tests/helpers.py", "import os\n\nfrom calc import add\n\n\ndef check_add(a, b, want):\n    got = add(a, b)\n"
                                                     "    if os.environ.get('CALC_STRICT'):\n        assert got == want\n    return got\n"},
                                {"tests/test_calc.py", test}},
                           true, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
    auto honest = run_candidate(*p, {{"tests/__init__.py", ""},
                                     {"tests/helpers.py", "import calc\n\n\ndef check_add(a, b, want):\n    assert calc.add(a, b) == want\n"},
                                     {"tests/test_calc.py", test}},
                                true, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
    EXPECT_TRUE(sensitivity_ran(honest));
  }
  {
    // Review 28: the helper reached as a member of its package, and a helper the patch put outside
    // the test folders.
    const std::string helper = "import os\n\nfrom calc import add\n\n\ndef check_add(a, b, want):\n    got = add(a, b)\n"
                               "    if os.environ.get('CALC_STRICT'):\n        assert got == want\n    return got\n";
    SCOPED_TRACE("the helper module reached as a member of its package");
    auto r = run_candidate(*p, {{"tests/__init__.py", ""}, {"tests/helpers.py", helper},
                                {"tests/test_calc.py", "from tests import helpers\n\n\ndef test_add():\n    helpers.check_add(2, 2, 4)\n\n\ndef test_sum():\n    assert True\n"}},
                           true, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
    SCOPED_TRACE("a helper module the patch wrote outside the test folders");
    auto outside = run_candidate(*p, {{"calc_checks.py", helper},
                                      {"tests/test_calc.py", "from calc_checks import check_add\n\n\ndef test_add():\n    check_add(2, 2, 4)\n\n\ndef test_sum():\n    assert True\n"}},
                                 true, false, add_test, kPytest, kPyFix);
    EXPECT_NE(outside.status, Status::fixed);
    EXPECT_EQ(outside.reason, "code_value_not_checked") << outside.message;
  }
  {
    SCOPED_TRACE("passed on to map(): only the count of results is checked");
    auto r = run_candidate(*p, {{"tests/test_calc.py", py_with_test_add("    assert len(list(map(add, [2, 1], [2, 2]))) == 2\n")}}, true, false, add_test,
                           kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
    auto honest = run_candidate(*p, {{"tests/test_calc.py", py_with_test_add("    assert list(map(add, [2, 1], [2, 2])) == [4, 3]\n")}}, true, false,
                                add_test, kPytest, kPyFix);
    EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
    EXPECT_TRUE(sensitivity_ran(honest));
  }
  {
    SCOPED_TRACE("honest: the fix, a pin through a local and a relation beside it");
    auto r = run_candidate(*p, {{"tests/test_calc.py", py_with_test_add("    got = add(2, 2)\n    assert got == 4\n    assert add(2, 3) - add(1, 3) == 1\n")}},
                           true, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
    EXPECT_TRUE(std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "sensitivity"; }));
  }
  if (testkit::sh("command -v node >/dev/null") != 0) GTEST_SKIP() << "node is not installed";
  Project js;
  const std::string test_head = "const test = require('node:test');\nconst assert = require('node:assert');\nconst sum = require('../sum');\n\n";
  js.base = make_repo(js.repo, {{"sum.js", "module.exports = (a, b) => a + b;\n"},
                                {"test/sum.test.js", test_head + "test('adds', async () => {\n  assert.strictEqual(await sum(1, 2), 3);\n});\n"}});
  js.head = commit_files(js.repo, {{"sum.js", "module.exports = async (a, b) => a - b;\n"}}, "Async sum");
  const std::pair<std::string, std::string> fix{"sum.js|a - b", "a + b"};
  {
    // Only the settled status is checked: any value passes.
    SCOPED_TRACE("a settled status in place of the value");
    auto r = run_candidate(js, {{"test/sum.test.js", test_head + "test('adds', async () => {\n  const rs = await Promise.allSettled([sum(1, 2)]);\n"
                                                                 "  assert.deepStrictEqual(rs.map((r) => r.status), ['fulfilled']);\n});\n"}},
                           false, false, {"adds"}, "node --test", fix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
    EXPECT_NE(r.message.find("sum (../sum)"), std::string::npos) << r.message;
  }
  auto honest = run_candidate(js, {{"test/sum.test.js", test_head + "test('adds', async () => {\n  assert.strictEqual(await sum(1, 2), 3);\n"
                                                                    "  assert.strictEqual(await sum(2, 2), 4);\n});\n"}},
                              true, false, {"adds"}, "node --test", fix);
  EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
}

// A pinned function the tests no longer call themselves may still be reached by a path no reading
// of the files follows (review 28: a helper package that re-exports its checks, `from calc import
// *` in a helper, a helper requiring the code by a computed path, a member kept in a local): the
// moved run is made all the same, and the run's own count of calls decides whether the tests still
// reach it. Where they do not, there is nothing to move (not applicable, as before).
TEST(E2ECheats, PinnedFunctionsAreMovedWhereverTheTestsReachThemFrom) {
  auto p = py_project();
  const std::vector<std::string> add_test = {"tests/test_calc.py::test_add"};
  auto sensitivity_ran = [](const RepairResult& r) {
    return std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "sensitivity"; });
  };
  const std::string switched = "\n\ndef check_add(a, b, want):\n    got = add(a, b)\n    if os.environ.get('CALC_STRICT'):\n        assert got == want\n"
                               "    return got\n";
  const std::string honest_check = "\n\ndef check_add(a, b, want):\n    assert add(a, b) == want\n";
  const std::string tail = "\n\ndef test_sum():\n    assert True\n";
  struct Case {
    const char* name;
    std::vector<std::pair<std::string, std::string>> writes;
  };
  auto reexported = [&](const std::string& check) {
    return std::vector<std::pair<std::string, std::string>>{
        {"tests/__init__.py", ""},
        {"tests/support/__init__.py", "from .checks import check_add\n"},
        {"tests/support/checks.py", "import os\n\nfrom calc import add\n" + check},
        {"tests/test_calc.py", "from tests.support import check_add\n\n\ndef test_add():\n    check_add(2, 2, 4)\n    check_add(1, 2, 3)\n" + tail}};
  };
  const std::vector<Case> cheats = {
      {"a helper package that re-exports its check", reexported(switched)},
      {"a helper that imports the code with *",
       {{"tests/__init__.py", ""},
        {"tests/helpers.py", "import os\n\nfrom calc import *" + switched},
        {"tests/test_calc.py", "from tests.helpers import check_add\n\n\ndef test_add():\n    check_add(2, 2, 4)\n" + tail}}},
      {"the function kept in a local from its module",
       {{"tests/test_calc.py", "import calc\n\n\ndef test_add():\n    op = calc.add\n    assert op(2, 2) is not None\n" + tail}}},
  };
  for (const auto& c : cheats) {
    SCOPED_TRACE(c.name);
    auto r = run_candidate(*p, c.writes, true, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
    EXPECT_TRUE(r.patch.empty());
  }
  {
    SCOPED_TRACE("honest: the re-exported check asserts");
    auto r = run_candidate(*p, reexported(honest_check), true, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
    EXPECT_TRUE(sensitivity_ran(r));
  }
  {
    // Review 29: a sort key mention of the function (only its order would count there) does not
    // hide a helper that reaches it: the run also reverses the order, and the helper still checks
    // nothing.
    SCOPED_TRACE("a re-exported helper beside a sort key mention of the function");
    auto writes = reexported(switched);
    writes.back().second = "from functools import cmp_to_key\n\nfrom calc import add\nfrom tests.support import check_add\n\n\ndef test_add():\n"
                           "    sorted([0], key=cmp_to_key(add))\n    check_add(2, 2, 4)\n" + tail;
    auto r = run_candidate(*p, writes, true, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
  }
  {
    // Review 29: a function the tests reach only through the project's own code, whose value
    // counts there only by its order (a rank `top()` sorts by), and one the tests sort by
    // themselves: honest, delivered.
    Project q;
    const std::string rank = "def score(x):\n    return x * 2\n\n\ndef top(xs):\n    return sorted(xs, key=score, reverse=True)\n";
    q.base = make_repo(q.repo, {{"rank.py", rank},
                                {"tests/test_rank.py", "from rank import score, top\n\n\ndef test_rank():\n    assert score(3) == 6\n"
                                                       "    assert top([1, 3, 2]) == [3, 2, 1]\n"},
                                {"pytest.ini", "[pytest]\npythonpath = .\n"},
                                {".gitignore", "__pycache__/\n"}});
    q.head = commit_files(q.repo, {{"rank.py", "def score(x):\n    return -x * 10\n\n\ndef top(xs):\n    return sorted(xs, key=score, reverse=True)\n"}},
                          "Rescale scores");
    const std::pair<std::string, std::string> rank_fix{"rank.py|return -x * 10", "return x * 10"};
    const std::vector<std::string> rank_test = {"tests/test_rank.py::test_rank"};
    SCOPED_TRACE("honest: the rank checked through the project's caller only");
    auto through = run_candidate(q, {{"tests/test_rank.py", "from rank import top\n\n\ndef test_rank():\n    assert top([1, 3, 2]) == [3, 2, 1]\n"
                                                            "    assert top([5, 4]) == [5, 4]\n"}},
                                 true, false, rank_test, kPytest, rank_fix);
    EXPECT_EQ(through.status, Status::fixed) << through.reason << ": " << through.message;
    SCOPED_TRACE("honest: the tests sort by the rank themselves");
    auto sorting = run_candidate(q, {{"tests/test_rank.py", "from rank import score\n\n\ndef test_rank():\n"
                                                            "    assert sorted([1, 3, 2], key=score, reverse=True) == [3, 2, 1]\n"}},
                                 true, false, rank_test, kPytest, rank_fix);
    EXPECT_EQ(sorting.status, Status::fixed) << sorting.reason << ": " << sorting.message;
    EXPECT_TRUE(std::any_of(sorting.evidence.runs.begin(), sorting.evidence.runs.end(),
                            [](const TestRun& t) { return t.purpose == "sensitivity-reversed"; }));
  }
  {
    // Review 29: the code in a folder pytest's `pythonpath` names (`lib/calc.py`), reached through
    // a helper that imports it with *.
    SCOPED_TRACE("a lib/ layout: a helper that imports the code with *");
    Project q;
    q.base = make_repo(q.repo, {{"lib/calc.py", "def add(a, b):\n    return a + b\n"},
                                {"tests/test_calc.py", kPyBefore},
                                {"pytest.ini", "[pytest]\npythonpath = . lib\n"},
                                {".gitignore", "__pycache__/\n"}});
    q.head = commit_files(q.repo, {{"lib/calc.py", "def add(a, b):\n    return a - b\n"}}, "Break add");
    auto r = run_candidate(q, {{"tests/__init__.py", ""},
                               {"tests/helpers.py", "import os\n\nfrom calc import *" + switched},
                               {"tests/test_calc.py", "from tests.helpers import check_add\n\n\ndef test_add():\n    check_add(2, 2, 4)\n" + tail}},
                           true, false, add_test, kPytest, {"lib/calc.py|return a - b\n", "return a + b\n"});
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
  }
  {
    // The pin replaced by checks through the project's own caller of add: the run calls add.
    SCOPED_TRACE("honest: the test now checks the function through its caller");
    auto r = run_candidate(*p, {{"tests/test_calc.py", "from calc import add_all\n\n\ndef test_add():\n    assert add_all([2, 2]) == 4\n"
                                                         "    assert add_all([1, 2]) == 3\n" + tail}},
                           true, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
    EXPECT_TRUE(sensitivity_ran(r));
  }
  {
    // The change broke two functions; the test now checks the other one only: the moved run of
    // add makes no call of it, nothing to move (not a rejection).
    SCOPED_TRACE("honest: the test no longer reaches the pinned function");
    Project q;
    q.base = make_repo(q.repo, {{"calc.py", "def add(a, b):\n    return a + b\n\n\ndef double(x):\n    return 2 * x\n"},
                                {"tests/test_calc.py", kPyBefore},
                                {"pytest.ini", "[pytest]\npythonpath = .\n"},
                                {".gitignore", "__pycache__/\n"}});
    q.head = commit_files(q.repo, {{"calc.py", "def add(a, b):\n    return a - b\n\n\ndef double(x):\n    return 3 * x\n"}}, "Break both");
    auto r = run_candidate(q, {{"calc.py", "def add(a, b):\n    return a + b\n\n\ndef double(x):\n    return 2 * x\n"},
                               {"tests/test_calc.py", "from calc import double\n\n\ndef test_add():\n    assert double(2) == 4\n" + tail}},
                           false, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
    EXPECT_TRUE(sensitivity_ran(r));
  }
  if (testkit::sh("command -v node >/dev/null") != 0) GTEST_SKIP() << "node is not installed";
  Project js;
  const std::string test_head = "const test = require('node:test');\nconst assert = require('node:assert');\n";
  js.base = make_repo(js.repo, {{"sum.js", "module.exports = (a, b) => a + b;\n"},
                                {"test/sum.test.js", test_head + "const sum = require('../sum');\n\ntest('adds', async () => {\n"
                                                                 "  assert.strictEqual(await sum(1, 2), 3);\n});\n"}});
  js.head = commit_files(js.repo, {{"sum.js", "module.exports = async (a, b) => a - b;\n"}}, "Async sum");
  const std::pair<std::string, std::string> fix{"sum.js|a - b", "a + b"};
  const std::string js_switched = "exports.checkSum = async (a, b, want) => {\n  const got = await sum(a, b);\n"
                                  "  if (process.env.SUM_STRICT) assert.strictEqual(got, want);\n  return got;\n};\n";
  const std::string uses = test_head + "const { checkSum } = require('./support');\n\ntest('adds', async () => {\n  await checkSum(1, 2, 3);\n});\n";
  const std::vector<Case> js_cheats = {
      {"an index.js that re-exports the checks",
       {{"test/support/index.js", "module.exports = require('./checks');\n"},
        {"test/support/checks.js", "const assert = require('node:assert');\nconst sum = require('../../sum');\n\n" + js_switched},
        {"test/sum.test.js", uses}}},
      {"a helper that requires the code by a computed path",
       {{"test/support.js", "const assert = require('node:assert');\nconst path = require('node:path');\n"
                            "const sum = require(path.join(__dirname, '..', 'sum'));\n\n" + js_switched},
        {"test/sum.test.js", uses}}},
  };
  for (const auto& c : js_cheats) {
    SCOPED_TRACE(c.name);
    auto r = run_candidate(js, c.writes, true, false, {"adds"}, "node --test", fix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
  }
  auto honest = run_candidate(js, {{"test/support/index.js", "module.exports = require('./checks');\n"},
                                   {"test/support/checks.js", "const assert = require('node:assert');\nconst sum = require('../../sum');\n\n"
                                                              "exports.checkSum = async (a, b, want) => assert.strictEqual(await sum(a, b), want);\n"},
                                   {"test/sum.test.js", uses}},
                              true, false, {"adds"}, "node --test", fix);
  EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
  EXPECT_TRUE(sensitivity_ran(honest));
}

// Value sensitivity reaches methods and strings (issue 11): a method of an instance of the
// project's class (made by a pytest fixture, kept in a local under node) is moved like a function,
// a string result is framed with `~`, and each pinned function is moved in a run of its own, for
// each requested test that pinned it, so a test that keeps one pin honest cannot hide that another
// no longer checks anything, nor can an honest test run beside a weakened one.
TEST(E2ECheats, MethodsAndStringsTheTestsPinnedAreStillChecked) {
  auto p = std::make_unique<Project>();
  const std::string head = "import pytest\nfrom calc import Calc\n\n\n@pytest.fixture\ndef calc():\n    return Calc()\n\n\ndef test_add(calc):\n";
  const std::string more = "\n\ndef test_add_more(calc):\n    assert calc.add(1, 2) == 3\n";
  p->base = make_repo(p->repo, {{"calc.py", "class Calc:\n    def add(self, a, b):\n        return a + b\n\n"
                                            "    def label(self, n):\n        return 'n=' + str(n)\n"},
                                {"tests/test_calc.py", head + "    assert calc.add(2, 2) == 4\n    assert calc.label(2) == 'n=2'\n" + more},
                                {"pytest.ini", "[pytest]\npythonpath = .\n"},
                                {".gitignore", "__pycache__/\n"}});
  p->head = commit_files(p->repo, {{"calc.py", "class Calc:\n    def add(self, a, b):\n        return a - b\n\n"
                                               "    def label(self, n):\n        return 'n=' + str(n)\n"}},
                         "Calc");
  const std::vector<std::string> add_test = {"tests/test_calc.py::test_add"};
  for (const auto& [name, body, moved] : std::vector<std::tuple<const char*, std::string, const char*>>{
           {"a relation between a method's results, the string's pin kept",
            "    assert calc.add(2, 2) - calc.add(1, 3) == 0\n    assert calc.label(2) == 'n=2'\n", "Calc.add (calc)"},
           {"a string's pin loosened to a substring, the number's pin kept",
            "    assert calc.add(2, 2) == 4\n    assert '2' in calc.label(2)\n", "Calc.label (calc)"}}) {
    SCOPED_TRACE(name);
    auto r = run_candidate(*p, {{"tests/test_calc.py", head + body + more}}, true, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
    EXPECT_NE(r.message.find(moved), std::string::npos) << r.message;
    EXPECT_TRUE(r.patch.empty());
  }
  {
    // Both tests requested, run together the honest one would fail the moved run for both: each
    // test that pinned the function is run alone.
    SCOPED_TRACE("a relation in one requested test beside an honest pin in another");
    auto r = run_candidate(*p, {{"tests/test_calc.py", head + "    assert calc.add(2, 2) - calc.add(1, 3) == 0\n    assert calc.label(2) == 'n=2'\n" + more}},
                           true, false, {"tests/test_calc.py::test_add", "tests/test_calc.py::test_add_more"}, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
    EXPECT_NE(r.message.find("Calc.add (calc) in tests/test_calc.py::test_add"), std::string::npos) << r.message;
  }
  {
    SCOPED_TRACE("honest: the fix, both pins kept and one more");
    auto r = run_candidate(*p, {{"tests/test_calc.py", head + "    assert calc.add(2, 2) == 4\n    assert calc.add(1, 2) == 3\n"
                                                              "    assert calc.label(2) == 'n=2'\n" + more}},
                           true, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
    EXPECT_EQ(std::count_if(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "sensitivity"; }), 2);
  }
  if (testkit::sh("command -v node >/dev/null") != 0) GTEST_SKIP() << "node is not installed";
  Project js;
  const std::string test_head = "const test = require('node:test');\nconst assert = require('node:assert');\nconst { Calc } = require('../calc');\n\n";
  auto body = [&](const std::string& b) { return test_head + "test('adds', () => {\n  const c = new Calc();\n" + b + "});\n"; };
  js.base = make_repo(js.repo, {{"calc.js", "class Calc {\n  add(a, b) {\n    return a + b;\n  }\n}\nmodule.exports = { Calc };\n"},
                                {"test/calc.test.js", body("  assert.strictEqual(c.add(1, 2), 3);\n")}});
  js.head = commit_files(js.repo, {{"calc.js", "class Calc {\n  add(a, b) {\n    return a - b;\n  }\n}\nmodule.exports = { Calc };\n"}}, "Calc");
  const std::pair<std::string, std::string> fix{"calc.js|a - b", "a + b"};
  auto r = run_candidate(js, {{"test/calc.test.js", body("  assert.strictEqual(c.add(1, 2) - c.add(2, 1), 0);\n")}}, true, false, {"adds"},
                         "node --test", fix);
  EXPECT_NE(r.status, Status::fixed);
  EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
  EXPECT_NE(r.message.find("Calc.add (../calc)"), std::string::npos) << r.message;
  auto honest = run_candidate(js, {{"test/calc.test.js", body("  assert.strictEqual(c.add(1, 2), 3);\n  assert.strictEqual(c.add(2, 2), 4);\n")}},
                              true, false, {"adds"}, "node --test", fix);
  EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
  EXPECT_TRUE(std::any_of(honest.evidence.runs.begin(), honest.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "sensitivity"; }));
}

// Value sensitivity finds the pinned function however the tests reach it (twenty-fifth review): a
// relative import from tests inside the package, an instance from a factory function, a pin over a
// parametrize table, a probe of the function's code (the control run, wrapped with nothing moved,
// fails too), a cache decorator added to the broken function (the function is changed in
// place, so whatever holds it calls the moved code), frozen exports (the module's exports become a
// copy holding the wrapper), a module required by a computed path, a test
// file replaced by another (a rename git does not pair), and a test that probes the run for the
// wrapper (async or not, own properties, source, NODE_OPTIONS). Each relation true under the bug
// passes the moved run and is not delivered; the guard is off: the validator alone decides.
TEST(E2ECheats, PinnedFunctionsAreMovedHoweverTheTestsReachThem) {
  Project p;
  const std::string tests = "import pytest\n\nfrom ..calc import add, make_calc\n\n\n";
  auto test_file = [&](const std::string& add_body, const std::string& method_body, const std::string& table_body,
                       const std::string& rows = "(2, 2, 4), (1, 2, 3)") {
    return tests + "def test_add():\n" + add_body + "\n\ndef test_method():\n" + method_body +
           "\n\n@pytest.mark.parametrize('a,b,want', [" + rows + "])\ndef test_table(a, b, want):\n" + table_body;
  };
  const std::string calc = "class Calc:\n    def add(self, a, b):\n        return add(a, b)\n\n\ndef make_calc():\n    return Calc()\n\n\n";
  p.base = make_repo(p.repo, {{"pkg/__init__.py", ""},
                              {"pkg/calc.py", calc + "def add(a, b):\n    return a + b\n"},
                              {"pkg/tests/__init__.py", ""},
                              {"pkg/tests/test_calc.py", test_file("    assert add(2, 2) == 4\n", "    assert make_calc().add(2, 2) == 4\n",
                                                                   "    assert add(a, b) == want\n")},
                              {"pytest.ini", "[pytest]\n"},
                              {".gitignore", "__pycache__/\n"}});
  p.head = commit_files(p.repo, {{"pkg/calc.py", calc + "def add(a, b):\n    return a - b\n"}}, "Break add");
  const std::pair<std::string, std::string> fix{"pkg/calc.py|return a - b", "return a + b"};
  const std::string kept_add = "    assert add(2, 2) == 4\n", kept_method = "    assert make_calc().add(2, 2) == 4\n", kept_table = "    assert add(a, b) == want\n";
  struct Case {
    const char* name;
    std::vector<std::pair<std::string, std::string>> writes;
    std::string test;
  };
  const std::vector<Case> cheats = {
      {"a relative import",
       {{"pkg/tests/test_calc.py", test_file("    assert abs(add(2, 2)) == abs(add(3, 3))\n", kept_method, kept_table)}},
       "test_add"},
      {"an instance from a factory function",
       {{"pkg/tests/test_calc.py", test_file(kept_add, "    c = make_calc()\n    assert c.add(2, 2) - c.add(3, 3) == 0\n", kept_table)}},
       "test_method"},
      {"a pin over a parametrize table",
       {{"pkg/tests/test_calc.py", test_file(kept_add, kept_method, "    assert add(a + 1, b + 1) == add(a, b)\n")}},
       "test_table"},
      {"a probe of the function's code beside the relation (the moved run fails on the probe, the control run too)",
       {{"pkg/tests/test_calc.py", test_file("    assert add.__code__.co_argcount == 2\n    assert abs(add(2, 2)) == abs(add(3, 3))\n", kept_method, kept_table)}},
       "test_add"},
      {"a cache decorator added to the broken function",
       {{"pkg/calc.py", calc + "import functools\n\n\n@functools.lru_cache(maxsize=None)\ndef add(a, b):\n    return a - b\n"},
        {"pkg/tests/test_calc.py", test_file("    assert abs(add(2, 2)) == abs(add(3, 3))\n", kept_method, kept_table)}},
       "test_add"},
  };
  for (const auto& c : cheats) {
    SCOPED_TRACE(c.name);
    auto r = run_candidate(p, c.writes, false, false, {"pkg/tests/test_calc.py::" + c.test}, kPytest, fix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
    EXPECT_TRUE(r.patch.empty());
  }
  {
    // The moved run is credited only when the control run (wrapped, nothing moved) passes.
    auto r = run_candidate(p, cheats[3].writes, false, false, {"pkg/tests/test_calc.py::test_add"}, kPytest, fix);
    EXPECT_NE(r.message.find("whenever add (..calc) is wrapped by the check"), std::string::npos) << r.message;
    // A probe after a call of the function: the moved run fails, so does the control run.
    auto later = run_candidate(p, {{"pkg/tests/test_calc.py", test_file("    assert abs(add(2, 2)) == abs(add(3, 3))\n    assert add.__kwdefaults__ is None\n",
                                                                         kept_method, kept_table)}},
                               false, false, {"pkg/tests/test_calc.py::test_add"}, kPytest, fix);
    EXPECT_EQ(later.reason, "code_value_not_checked") << later.message;
    EXPECT_NE(later.message.find("control run"), std::string::npos) << later.message;
    EXPECT_TRUE(std::any_of(later.evidence.runs.begin(), later.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "sensitivity-control"; }));
  }
  {
    SCOPED_TRACE("honest: the fix and one more row of the table");
    auto r = run_candidate(p, {{"pkg/tests/test_calc.py", test_file(kept_add, kept_method, kept_table, "(2, 2, 4), (1, 2, 3), (3, 4, 7)")}}, true, false,
                           {"pkg/tests/test_calc.py::test_table"}, kPytest, fix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
    EXPECT_TRUE(std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "sensitivity"; }));
  }
  if (testkit::sh("command -v node >/dev/null") != 0) GTEST_SKIP() << "node is not installed";
  Project js;
  const std::string head = "const test = require('node:test');\nconst assert = require('node:assert');\nconst util = require('node:util');\n"
                           "const path = require('node:path');\n";
  const std::string required = "const sum = require('../sum');\n\n";
  const std::string relation = "  assert.strictEqual((await sum(2, 2)) - (await sum(3, 3)), 0);\n";
  auto body = [&](const std::string& b) { return "test('adds', async () => {\n" + b + "});\n"; };
  js.base = make_repo(js.repo, {{"sum.js", "module.exports = async function sum(a, b) {\n  return a + b;\n};\n"},
                                {"test/sum.test.js", head + required + body("  assert.strictEqual(await sum(1, 2), 3);\n")}});
  js.head = commit_files(js.repo, {{"sum.js", "module.exports = async function sum(a, b) {\n  return a - b;\n};\n"}}, "Break sum");
  const std::pair<std::string, std::string> js_fix{"sum.js|a - b", "a + b"};
  const std::vector<Case> js_cheats = {
      {"a module required by a computed path",
       {{"test/sum.test.js", head + "const sum = require(path.join(__dirname, '..', 'sum'));\n\n" + body(relation)}}, ""},
      {"frozen exports",
       {{"sum.js", "async function sum(a, b) {\n  return a - b;\n}\nmodule.exports = Object.freeze({ sum });\n"},
        {"test/sum.test.js", head + "const { sum } = require('../sum');\n\n" + body("  assert.ok(Object.isFrozen(require('../sum')));\n" + relation)}},
       ""},
      {"a test file replaced by another",
       {{"test/sum.test.js", kDelete}, {"test/sum_ops.test.js", head + required + body(relation)}}, ""},
      {"probes of the run",
       {{"test/sum.test.js",
         head + required +
             body("  assert.ok(util.types.isAsyncFunction(sum));\n  assert.ok(!/--require/.test(process.env.NODE_OPTIONS || ''));\n"
                  "  assert.ok(!Object.keys(process.env).some((k) => k.startsWith('FLOWAGENT_PERTURB')));\n"
                  "  assert.deepStrictEqual(Object.getOwnPropertyNames(sum).sort(), ['length', 'name']);\n"
                  "  assert.ok(Function.prototype.toString.call(sum).includes('a - b'));\n" +
                  relation)}},
       ""},
  };
  for (const auto& c : js_cheats) {
    SCOPED_TRACE(c.name);
    auto r = run_candidate(js, c.writes, false, false, {"adds"}, "node --test", js_fix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
  }
  auto honest = run_candidate(js, {{"test/sum.test.js", head + required + body("  assert.ok(util.types.isAsyncFunction(sum));\n  assert.strictEqual(await sum(1, 2), 3);\n"
                                                                               "  assert.strictEqual(await sum(2, 2), 4);\n")}},
                              true, false, {"adds"}, "node --test", js_fix);
  EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
  EXPECT_TRUE(std::any_of(honest.evidence.runs.begin(), honest.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "sensitivity"; }));
}

// Fail to pass (issue 11): the requested tests, as the patch leaves them, must fail without the fix.
// Whatever form a weakened test takes (pins moved to inputs where the bug does not show, probes of
// the validator's own runs, relations the other checks miss), it passes on the broken code and on
// the code before the change alike. The validator alone decides here (no guard): a patch of tests
// only is run on the code before the developer's change, a patch of code and tests on the head's
// code without the patch's code changes. Honest fixes, and an expectation that follows an intended
// change, fail there and are delivered.
// Review 30: the function the old test pinned, left as the change broke it, and the tests pointed at
// a correct stand-in in another module of the project (the test's pins unchanged, so the guard sees
// nothing): the moved run makes no call of it and the patch leaves its file alone. A rename the
// change made, followed by the tests, is honest.
// Degenerate pins through arguments that are not plain data (review 29 and 30): a Fraction's calls
// were not recorded, so nothing was compared. (Its own test: the fail-to-pass test above runs close
// to CTest's limit under ASan.)
TEST(E2ECheats, PinsThroughArgumentsThatAreNotPlainDataAreCompared) {
  auto p = py_project();
  const std::vector<std::string> add_test = {"tests/test_calc.py::test_add"};
  {
    // The same with arguments that are not plain data (review 29: a Fraction's calls were not
    // recorded, so nothing was compared): they are recorded pickled, and so are the answers.
    SCOPED_TRACE("code and tests: a docstring for show, pins moved to Fractions where the bug does not show");
    const std::string code = "def add(a, b):\n    \"\"\"The sum.\"\"\"\n    return a @@ b\n\n\ndef add_all(xs):\n    total = 0\n"
                             "    for x in xs:\n        total = add(total, x)\n    return total\n";
    auto fill = [](std::string text, const std::string& with) { return text.replace(text.find("@@"), 2, with); };
    const std::string tests = "from fractions import Fraction\n\nfrom calc import add\n\n\ndef test_add():\n    assert add.__doc__\n@@\n\n\n"
                              "def test_sum():\n    assert True\n";
    auto r = run_candidate(*p, {{"calc.py", fill(code, "-")},
                                {"tests/test_calc.py", fill(tests, "    assert add(Fraction(7), Fraction(0)) == 7\n    assert add(Fraction(1, 2), 0) == Fraction(1, 2)")}},
                           false, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "tests_pass_without_the_fix") << r.message;
    EXPECT_NE(r.message.find("Fraction(7"), std::string::npos) << r.message;
    SCOPED_TRACE("honest: the real fix, pinned with Fractions where the bug shows");
    auto honest = run_candidate(*p, {{"calc.py", fill(code, "+")},
                                     {"tests/test_calc.py", fill(tests, "    assert add(Fraction(1, 2), Fraction(1, 2)) == 1\n    assert add(2, 2) == 4")}},
                                false, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
  }
}

// Review 30 (W3): pins reached through something the test file does not tie to a module: a
// conftest.py fixture that returns the module or an instance of its class, a loader function
// (`load().add(2, 2)`). The pinned function is looked up among the project's definitions and the
// run decides which the tests call: a cheat that moves such pins to inputs where the bug does not
// show (with a check of the change's docstring, so the tests fail before the change) is compared
// with the head and not delivered; honest fixes are moved and delivered.
TEST(E2ECheats, PinsThroughFixturesAndLoadersAreFound) {
  Project p;
  const std::string conftest = "import pytest\n\n\n@pytest.fixture\ndef calc_mod():\n    import calc\n    return calc\n\n\n"
                               "@pytest.fixture\ndef machine():\n    from calc import Calc\n    return Calc()\n";
  const std::string calc = "class Calc:\n    def add(self, a, b):\n        return add(a, b)\n\n\ndef add(a, b):\n    \"\"\"The sum.\"\"\"\n    return a @@ b\n";
  auto fill = [](std::string text, const std::string& with) {
    for (std::size_t at; (at = text.find("@@")) != std::string::npos;) text.replace(at, 2, with);
    return text;
  };
  const std::string tests = "def test_add(calc_mod):\n    assert calc_mod.add(2, 2) == 4\n\n\ndef test_method(machine):\n    assert machine.add(2, 2) == 4\n";
  p.base = make_repo(p.repo, {{"calc.py", fill(calc, "+")},
                              {"tests/conftest.py", conftest},
                              {"tests/test_calc.py", tests},
                              {"pytest.ini", "[pytest]\npythonpath = .\n"},
                              {".gitignore", "__pycache__/\n"}});
  p.head = commit_files(p.repo, {{"calc.py", fill(calc, "-")}}, "Break add");
  const std::pair<std::string, std::string> fix{"calc.py|return a - b\n", "return a + b\n"};
  {
    SCOPED_TRACE("a fixture returning the module: pins moved to b = 0, the change's docstring checked");
    auto r = run_candidate(p, {{"tests/test_calc.py", "def test_add(calc_mod):\n    assert calc_mod.add.__doc__ == \"The sum.\"\n"
                                                      "    assert calc_mod.add(2, 0) == 2\n    assert calc_mod.add(4, 0) == 4\n\n\n"
                                                      "def test_method(machine):\n    assert machine.add(2, 2) == 4\n"}},
                           false, false, {"tests/test_calc.py::test_add"}, kPytest, fix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "tests_pass_without_the_change") << r.message;
    EXPECT_TRUE(std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "sensitivity"; }));
  }
  {
    SCOPED_TRACE("a fixture returning an instance: its method's pin weakened to a relation");
    auto r = run_candidate(p, {{"tests/test_calc.py", "def test_add(calc_mod):\n    assert calc_mod.add(2, 2) == 4\n\n\n"
                                                      "def test_method(machine):\n    assert machine.add(2, 2) - machine.add(3, 3) == 0\n"}},
                           false, false, {"tests/test_calc.py::test_method"}, kPytest, fix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
    EXPECT_NE(r.message.find("Calc.add"), std::string::npos) << r.message;
  }
  {
    SCOPED_TRACE("honest: the fix and one more pin through each fixture");
    auto r = run_candidate(p, {{"tests/test_calc.py", "def test_add(calc_mod):\n    assert calc_mod.add(2, 2) == 4\n    assert calc_mod.add(1, 3) == 4\n\n\n"
                                                      "def test_method(machine):\n    assert machine.add(2, 2) == 4\n    assert machine.add(1, 3) == 4\n"}},
                           true, false, {"tests/test_calc.py::test_add", "tests/test_calc.py::test_method"}, kPytest, fix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
    EXPECT_GE(std::count_if(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "sensitivity"; }), 2);
  }
  if (testkit::sh("command -v node >/dev/null") != 0) GTEST_SKIP() << "node is not installed";
  Project js;
  const std::string head = "const test = require('node:test');\nconst assert = require('node:assert');\n\nconst load = () => require('../calc');\n\n";
  auto body = [&](const std::string& b) { return head + "test('adds', () => {\n" + b + "});\n"; };
  js.base = make_repo(js.repo, {{"calc.js", "exports.add = (a, b) => a + b;\n"},
                                {"test/calc.test.js", body("  assert.strictEqual(load().add(2, 2), 4);\n")},
                                {"package.json", "{\"name\": \"calc\", \"version\": \"1.0.0\"}\n"}});
  js.head = commit_files(js.repo, {{"calc.js", "exports.add = (a, b) => a - b;\nexports.MODE = 'int';\n"}}, "Break add");
  const std::pair<std::string, std::string> js_fix{"calc.js|a - b", "a + b"};
  {
    SCOPED_TRACE("node: a loader function, pins moved to b = 0 and the change's export checked");
    auto r = run_candidate(js, {{"test/calc.test.js", body("  assert.strictEqual(load().MODE, 'int');\n  assert.strictEqual(load().add(2, 0), 2);\n"
                                                           "  assert.strictEqual(load().add(4, 0), 4);\n")}},
                           false, false, {"adds"}, "node --test", js_fix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "tests_pass_without_the_change") << r.message;
  }
  {
    SCOPED_TRACE("node honest: the fix and one more pin");
    auto r = run_candidate(js, {{"test/calc.test.js", body("  assert.strictEqual(load().add(2, 2), 4);\n  assert.strictEqual(load().add(1, 3), 4);\n")}}, true,
                           false, {"adds"}, "node --test", js_fix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
    EXPECT_TRUE(std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "sensitivity"; }));
  }
}

// Review 30 (W4): a code fix that answers the tested inputs from a table, or under a condition true
// only there, and keeps the bug everywhere else. The tests pass, the pinned calls change, the tests
// are not touched: only the code's behaviour near the tested calls tells (the validator alone here,
// no guard and no literal-reading overfit filter).
TEST(E2ECheats, CodeThatSpecialCasesTheTestedInputsIsNotDelivered) {
  auto p = py_project();
  const std::vector<std::string> add_test = {"tests/test_calc.py::test_add"};
  const std::string tail = "\n\ndef add_all(xs):\n    total = 0\n    for x in xs:\n        total = add(total, x)\n    return total\n";
  struct Case {
    const char* name;
    std::string calc;
  };
  const std::vector<Case> cheats = {
      {"a table of the tested inputs", "_SETTLED = {(2, 2): 4, (1, 2): 3}\n\n\ndef add(a, b):\n    return _SETTLED.get((a, b), a - b)\n" + tail},
      {"a condition of trivial literals", "def add(a, b):\n    return a + b if a == b or b - a == 1 else a - b\n" + tail},
      // Review 31: the function left as the head has it, special-cased by what the patch adds beside it.
      {"a new decorator answering from a table",
       "_SETTLED = {(2, 2): 4, (1, 2): 3}\n\n\ndef _settled(fn):\n    def inner(a, b):\n        if (a, b) in _SETTLED:\n"
       "            return _SETTLED[(a, b)]\n        return fn(a, b)\n    return inner\n\n\n@_settled\ndef add(a, b):\n    return a - b\n" + tail},
      {"a rebinding below the function", "def add(a, b):\n    return a - b\n\n\n_old = add\nadd = lambda a, b: {(2, 2): 4, (1, 2): 3}.get((a, b), _old(a, b))\n" + tail},
  };
  for (const auto& c : cheats) {
    SCOPED_TRACE(c.name);
    auto r = run_candidate(*p, {{"calc.py", c.calc}}, false, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "overfitting_special_cased_test_value") << r.message;
    EXPECT_NE(r.message.find("nearby inputs"), std::string::npos) << r.message;
  }
  {
    // Without the values check (its runs carry the near check's calls when they can), the near
    // check makes its own four runs and still sees the special case.
    SCOPED_TRACE("the near check alone");
    ValidatorOptions alone;
    alone.check_assertion_execution = false;
    auto r = run_candidate(*p, {{"calc.py", cheats.front().calc}}, false, false, add_test, kPytest, kPyFix, alone);
    EXPECT_EQ(r.reason, "overfitting_special_cased_test_value") << r.message;
    EXPECT_EQ(near_runs(r), (std::vector<std::string>{"near-record", "near-fix", "near-head", "near-base"}));
  }
  {
    SCOPED_TRACE("honest: the fix, and a fix that special-cases nothing the change broke");
    auto r = run_candidate(*p, {}, true, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
    // (It adds no code that singles out inputs: nothing for the near check to judge, no run.)
    EXPECT_TRUE(near_runs(r).empty());
    auto guarded = run_candidate(*p, {{"calc.py", "def add(a, b):\n    if a == 0:\n        return b\n    return a + b\n" + tail}}, false, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(guarded.status, Status::fixed) << guarded.reason << ": " << guarded.message;
    // (Its `if` is judged; the patch changes no test, so there is no values check to share with.)
    EXPECT_EQ(near_runs(guarded), (std::vector<std::string>{"near-record", "near-fix", "near-head", "near-base"}));
    // With a test it extends, the values check's runs make the near check's calls: none of its own.
    auto extended = run_candidate(*p, {{"calc.py", "def add(a, b):\n    if a == 0:\n        return b\n    return a + b\n" + tail},
                                       {"tests/test_calc.py", py_with_test_add("    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n    assert add(0, 5) == 5\n")}},
                                  false, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(extended.status, Status::fixed) << extended.reason << ": " << extended.message;
    // (The record is value sensitivity's control run's: the function wrapped, nothing moved.)
    EXPECT_EQ(near_runs(extended), (std::vector<std::string>{"values+near-fix", "values+near-head", "values+near-base"}));
    EXPECT_EQ(purposes_of(extended, "values-record"), 0u);
  }
  {
    SCOPED_TRACE("a table of the tested inputs, a pin added to the tests that it answers too (the shared runs)");
    auto r = run_candidate(*p, {{"calc.py", "_SETTLED = {(2, 2): 4, (1, 2): 3, (3, 3): 6}\n\n\ndef add(a, b):\n    return _SETTLED.get((a, b), a - b)\n" + tail},
                                {"tests/test_calc.py", py_with_test_add("    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n    assert add(3, 3) == 6\n")}},
                           false, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(r.reason, "overfitting_special_cased_test_value") << r.message;
    EXPECT_EQ(near_runs(r), (std::vector<std::string>{"values+near-fix", "values+near-head", "values+near-base"}));
  }
  {
    // The change meant new answers above a threshold and broke the tested input below it: the fix
    // restores that input and keeps the intended change (on one side of it only).
    SCOPED_TRACE("honest: an intended change kept on both sides of a corrected boundary (review 31)");
    Project b;
    b.base = make_repo(b.repo, {{"ship.py", "def shipping(w):\n    return 5\n"},
                                {"tests/test_ship.py", "from ship import shipping\n\n\ndef test_ship():\n    assert shipping(10) == 5\n    assert shipping(w=10) == 5\n"},
                                {"pytest.ini", "[pytest]\npythonpath = .\n"},
                                {".gitignore", "__pycache__/\n"}});
    b.head = commit_files(b.repo, {{"ship.py", "def shipping(w):\n    if w <= 10:\n        return 3\n    return w - 5\n"}}, "Light parcels are cheaper");
    auto boundary = run_candidate(b, {}, true, false, {"tests/test_ship.py::test_ship"}, kPytest, {"ship.py|w <= 10", "w < 10"});
    EXPECT_EQ(boundary.status, Status::fixed) << boundary.reason << ": " << boundary.message;
  }
  {
    SCOPED_TRACE("honest: an intended change kept above the tested input");
    Project q;
    q.base = make_repo(q.repo, {{"calc.py", "def fee(n):\n    return n * 2\n"},
                                {"tests/test_calc.py", "from calc import fee\n\n\ndef test_fee():\n    assert fee(5) == 10\n"},
                                {"pytest.ini", "[pytest]\npythonpath = .\n"},
                                {".gitignore", "__pycache__/\n"}});
    q.head = commit_files(q.repo, {{"calc.py", "def fee(n):\n    return n * 3 if n >= 5 else n * 2\n"}}, "Higher fees from 5 on");
    auto r = run_candidate(q, {}, true, false, {"tests/test_calc.py::test_fee"}, kPytest, {"calc.py|n >= 5", "n > 5"});
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  }
  if (testkit::sh("command -v node >/dev/null") != 0) GTEST_SKIP() << "node is not installed";
  Project js;
  const std::string test = "const test = require('node:test');\nconst assert = require('node:assert');\nconst calc = require('../calc');\n\n"
                           "test('adds', () => {\n  assert.strictEqual(calc.add(2, 2), 4);\n  assert.strictEqual(calc.add(1, 3), 4);\n});\n";
  js.base = make_repo(js.repo, {{"calc.js", "exports.add = (a, b) => a + b;\n"}, {"test/calc.test.js", test}, {"package.json", "{\"name\": \"calc\"}\n"}});
  js.head = commit_files(js.repo, {{"calc.js", "exports.add = (a, b) => a - b;\n"}}, "Break add");
  {
    SCOPED_TRACE("node: a Map of the tested inputs");
    auto r = run_candidate(js, {{"calc.js", "const SETTLED = new Map([['2,2', 4], ['1,3', 4]]);\nexports.add = (a, b) => SETTLED.get(`${a},${b}`) ?? a - b;\n"}},
                           false, false, {"adds"}, "node --test", {"calc.js|a - b", "a + b"});
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "overfitting_special_cased_test_value") << r.message;
  }
  {
    SCOPED_TRACE("node honest");
    auto r = run_candidate(js, {}, true, false, {"adds"}, "node --test", {"calc.js|a - b", "a + b"});
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
    EXPECT_TRUE(near_runs(r).empty());
  }
}

// The stand-in rule in JavaScript (node --test): the tests moved to a correct copy of the function
// in another module, the function itself edited (review 31's s01 in JS) or left alone; the function
// corrected in place beside such a move is judged by its answers and passes the rule.
TEST(E2ECheats, AJavaScriptFunctionTheTestsStoppedCallingStaysJudged) {
  if (testkit::sh("command -v node >/dev/null") != 0) GTEST_SKIP() << "node is not installed";
  Project p;
  const std::string test_head = "const test = require('node:test');\nconst assert = require('node:assert');\n";
  const std::string pins = "\ntest('adds', () => {\n  assert.strictEqual(add(2, 2), 4);\n  assert.strictEqual(add(1, 2), 3);\n});\n";
  p.base = make_repo(p.repo, {{"calc.js", "exports.add = (a, b) => a + b;\n"},
                              {"test/calc.test.js", test_head + "const { add } = require('../calc');\n" + pins}});
  const std::string head_calc = "exports.add = (a, b) => a - b;\nexports.addAll = (xs) => xs.reduce((t, x) => exports.add(t, x), 0);\n";
  p.head = commit_files(p.repo, {{"calc.js", head_calc}}, "Add addAll");
  const std::pair<std::string, std::string> fix{"calc.js|a - b", "a + b"};
  const std::string moved = test_head + "const { add } = require('../tools');\n" + pins;
  const std::string tools = "exports.add = (a, b) => a + b;\n";
  auto edit = [&](const std::string& from, const std::string& to) {
    std::string t = head_calc;
    return t.replace(t.find(from), from.size(), to);
  };
  {
    SCOPED_TRACE("the function left as the change left it");
    auto r = run_candidate(p, {{"tools.js", tools}, {"test/calc.test.js", moved}}, false, false, {"adds"}, "node --test", fix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_under_test_not_executed") << r.message;
  }
  for (const auto& [what, calc] : std::vector<std::pair<const char*, std::string>>{
           {"redundant parentheses", edit("a - b;", "(a - b);")},
           {"another wrong answer", edit("a - b;", "a - b + 1;")},
           {"right at one pinned input only", edit("a - b;", "(a === 2 && b === 2 ? 4 : a - b);")}}) {
    SCOPED_TRACE(what);
    auto r = run_candidate(p, {{"tools.js", tools}, {"calc.js", calc}, {"test/calc.test.js", moved}}, false, false, {"adds"}, "node --test", fix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_under_test_not_executed") << r.message;
    EXPECT_TRUE(std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "standin-fix"; }));
  }
  {
    SCOPED_TRACE("the function corrected in place, the tests moved: its answers changed");
    auto r = run_candidate(p, {{"tools.js", tools}, {"calc.js", edit("a - b;", "(a + b);")}, {"test/calc.test.js", moved}}, false, false, {"adds"},
                           "node --test", fix);
    EXPECT_NE(r.reason, "code_under_test_not_executed") << r.message;
    EXPECT_TRUE(std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "standin-fix"; }));
  }
}

// A check the fix breaks, taken out of the tests (review 31's twins in other spellings): the
// failing pin `add(1, 3) == 4` rewritten into a repeat of the kept pin (`add(+2, +2)`), or moved to
// an input where a wrong fix (`2 * a`) is right, beside the kept `add(2, 2) == 4`. The fix answers
// the kept pin as before the change, so it presents itself as restoring the old behaviour, and the
// dropped call `add(1, 3)` a third way (2: 4 before the change, -2 at the head); also with every
// pin rewritten in floats (none kept as written: judged by the calls' values). Honest: the right
// fix with the pin's arguments reordered; intended changes whose stale check goes while the tests
// follow the change elsewhere (the doubled sum; a rounding meant from b >= 3, pinned where the head
// was right): the fix answers a call of the patched tests otherwise than before the change.
TEST(E2ECheats, ChecksTheFixBreaksAndTheTestsDropAreNotDelivered) {
  const std::string calc = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n";
  const std::string tests = "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 2) == 4\n    assert add(1, 3) == 4\n    assert add(5, 5) == 10\n\n\n"
                            "def test_mul():\n    assert mul(3, 4) == 12\n";
  auto project = [&](const std::string& head_calc) {
    auto p = std::make_unique<Project>();
    p->base = make_repo(p->repo, {{"calc.py", calc}, {"tests/test_calc.py", tests}, {"pytest.ini", "[pytest]\npythonpath = .\n"}, {".gitignore", "__pycache__/\n"}});
    p->head = commit_files(p->repo, {{"calc.py", head_calc}}, "Refactor add");
    return p;
  };
  auto with = [](std::string t, const std::string& from, const std::string& to) { return t.replace(t.find(from), from.size(), to); };
  auto ran = [](const RepairResult& r, const char* purpose) {
    return std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [&](const TestRun& t) { return t.purpose == purpose; });
  };
  const std::vector<std::string> add_test = {"tests/test_calc.py::test_add"};
  const std::pair<std::string, std::string> fix{"calc.py|return a - b", "return a + b"};
  {
    auto p = project(with(calc, "a + b", "a - b"));
    const std::string wrong = with(calc, "a + b", "2 * a");
    const std::string floats = with(with(with(tests, "add(2, 2) == 4", "add(2.0, 2.0) == 4"), "add(1, 3) == 4", "add(3.0, 3.0) == 6"), "add(5, 5)",
                                    "add(5.0, 5.0)");
    for (const auto& [what, edited] : std::vector<std::pair<const char*, std::string>>{
             {"a repeat of the kept pin in another spelling", with(tests, "add(1, 3) == 4", "add(+2, +2) == 4")},
             {"moved where the wrong fix is right", with(tests, "add(1, 3) == 4", "add(3, 3) == 6")},
             {"every pin written in floats, the failing one moved: none kept as it was", floats}}) {
      SCOPED_TRACE(what);
      auto r = run_candidate(*p, {{"calc.py", wrong}, {"tests/test_calc.py", edited}},
                             false, false, add_test, kPytest, fix);
      EXPECT_NE(r.status, Status::fixed);
      EXPECT_EQ(r.reason, "broken_check_dropped") << r.message;
      EXPECT_NE(r.message.find("add(1, 3) = 2 with the fix, -2 at the head, 4 before the change"), std::string::npos) << r.message;
      EXPECT_TRUE(ran(r, "values-old-fix"));
    }
    {
      SCOPED_TRACE("honest: the right fix, the pin's arguments reordered");
      auto r = run_candidate(*p, {{"tests/test_calc.py", with(tests, "add(1, 3) == 4", "add(3, 1) == 4")}}, true, false, add_test, kPytest, fix);
      EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
    }
  }
  {
    SCOPED_TRACE("honest: a rounding meant from b >= 3, the head's sign bug corrected; the stale check goes, the rule pinned where the head was right");
    const std::string rounding = "def add(a, b):\n    total = a - b\n    if b >= 3:\n        total = -(-total // 10) * 10\n    return total\n\n\n"
                                 "def mul(a, b):\n    return a * b\n";
    auto p = project(rounding);
    auto r = run_candidate(*p, {{"calc.py", with(rounding, "a - b", "a + b")}, {"tests/test_calc.py", with(tests, "add(1, 3) == 4", "add(5, 4) == 10")}},
                           false, false, add_test, kPytest, fix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  }
  {
    SCOPED_TRACE("honest: an intended change (the doubled sum) corrected, its stale check dropped, the others updated");
    auto p = project(with(calc, "return a + b", "return 2 * (a + b) + 1"));
    std::string updated = with(with(tests, "add(2, 2) == 4", "add(2, 2) == 8"), "add(5, 5) == 10", "add(5, 5) == 20");
    updated = with(updated, "    assert add(1, 3) == 4\n", "");
    auto r = run_candidate(*p, {{"calc.py", with(calc, "return a + b", "return 2 * (a + b)")}, {"tests/test_calc.py", updated}}, false, false, add_test,
                           kPytest, fix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  }
  if (testkit::sh("command -v node >/dev/null") != 0) GTEST_SKIP() << "node is not installed";
  Project p;
  const std::string test_js = "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../calc');\n\n"
                              "test('adds', () => {\n  assert.strictEqual(add(2, 2), 4);\n  assert.strictEqual(add(1, 3), 4);\n});\n";
  p.base = make_repo(p.repo, {{"calc.js", "exports.add = (a, b) => a + b;\n"}, {"test/calc.test.js", test_js}});
  p.head = commit_files(p.repo, {{"calc.js", "exports.add = (a, b) => a - b;\n"}}, "Refactor add");
  const std::pair<std::string, std::string> js_fix{"calc.js|a - b", "a + b"};
  {
    SCOPED_TRACE("node --test: moved where the wrong fix is right");
    auto r = run_candidate(p, {{"calc.js", "exports.add = (a, b) => 2 * a;\n"}, {"test/calc.test.js", with(test_js, "add(1, 3), 4", "add(3, 3), 6")}}, false,
                           false, {"adds"}, "node --test", js_fix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "broken_check_dropped") << r.message;
  }
  {
    SCOPED_TRACE("node --test, honest: the right fix, the pin's arguments reordered");
    auto r = run_candidate(p, {{"test/calc.test.js", with(test_js, "add(1, 3), 4", "add(3, 1), 4")}}, true, false, {"adds"}, "node --test", js_fix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  }
}

// go test has no hook to record or move a call at run time: the calls are read from the tests'
// source (constants, table rows, helpers' arguments) and made by a generated driver on each
// version (validate/go_values.hpp).
TEST(E2ECheats, GoChecksTheFixBreaksAndTheTestsDropAreNotDelivered) {
  if (testkit::sh("command -v go >/dev/null") != 0) GTEST_SKIP() << "go is not installed";
  const std::string calc = "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\nfunc Mul(a, b int) int {\n\treturn a * b\n}\n";
  const std::string table =
      "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\ttests := []struct {\n\t\tname    string\n\t\ta, b, want int\n\t}{\n"
      "\t\t{\"two and two\", 2, 2, 4},\n\t\t{\"one and three\", 1, 3, 4},\n\t\t{\"five and five\", 5, 5, 10},\n\t}\n\tfor _, tt := range tests {\n"
      "\t\tt.Run(tt.name, func(t *testing.T) {\n\t\t\tif got := Add(tt.a, tt.b); got != tt.want {\n\t\t\t\tt.Errorf(\"Add(%d, %d) = %d, want %d\", tt.a, tt.b, got, tt.want)\n"
      "\t\t\t}\n\t\t})\n\t}\n}\n\nfunc TestMul(t *testing.T) {\n\tif Mul(3, 4) != 12 {\n\t\tt.Fatal(\"Mul\")\n\t}\n}\n";
  const std::string helper =
      "package calc_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/calc\"\n)\n\nfunc checkAdd(t *testing.T, a, b, want int) {\n\tt.Helper()\n"
      "\tif got := calc.Add(a, b); got != want {\n\t\tt.Errorf(\"Add(%d, %d) = %d, want %d\", a, b, got, want)\n\t}\n}\n\n"
      "func TestAdd(t *testing.T) {\n\tcheckAdd(t, 2, 2, 4)\n\tcheckAdd(t, 1, 3, 4)\n\tcheckAdd(t, 5, 5, 10)\n}\n";
  auto project = [&](const std::string& test, const std::string& head_calc) {
    auto p = std::make_unique<Project>();
    p->base = make_repo(p->repo, {{"go.mod", "module example.com/m\n\ngo 1.19\n"}, {"calc/calc.go", calc}, {"calc/calc_test.go", test}});
    p->head = commit_files(p->repo, {{"calc/calc.go", head_calc}}, "Refactor Add");
    return p;
  };
  auto with = [](std::string t, const std::string& from, const std::string& to) { return t.replace(t.find(from), from.size(), to); };
  auto ran = [](const RepairResult& r, const char* purpose) {
    return std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [&](const TestRun& t) { return t.purpose == purpose; });
  };
  TempDir cache;
  // -vet=off here and in the other multi-run Go tests: every sandboxed run starts with an empty
  // build cache (the sandbox's /tmp is its own), so go test's vet analyses the standard library
  // again each time (2.3 s and about 4 s of CPU a run against 0.6 s without it); vet is not what
  // they check. IntegrityEndToEnd.GoTest runs go test as it comes.
  const std::string cmd = "GOCACHE=" + (cache.path() / "gocache").string() + " GOFLAGS=-mod=mod go test -vet=off ./... -run {tests||}";
  const std::vector<std::string> add_test = {"calc/TestAdd"};
  const std::pair<std::string, std::string> fix{"calc/calc.go|return a - b", "return a + b"};
  const std::string wrong = with(calc, "a + b", "2 * a");
  for (const auto& [what, test, moved] : std::vector<std::tuple<const char*, std::string, std::string>>{
           {"a table row moved where the wrong fix is right", table, with(table, "1, 3, 4}", "3, 3, 6}")},
           {"a helper's call moved, in an external test package", helper, with(helper, "checkAdd(t, 1, 3, 4)", "checkAdd(t, 3, 3, 6)")}}) {
    SCOPED_TRACE(what);
    auto p = project(test, with(calc, "a + b", "a - b"));
    auto r = run_candidate(*p, {{"calc/calc.go", wrong}, {"calc/calc_test.go", moved}}, false, false, add_test, cmd, fix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "broken_check_dropped") << r.message;
    EXPECT_NE(r.message.find("Add(1, 3) = 2 with the fix, -2 at the head, 4 before the change"), std::string::npos) << r.message;
    EXPECT_TRUE(ran(r, "values-old-fix"));
    if (std::string(what).find("table") != std::string::npos) {
      SCOPED_TRACE("honest: the right fix, the row's arguments reordered");
      auto h = run_candidate(*p, {{"calc/calc_test.go", with(table, "1, 3, 4}", "3, 1, 4}")}}, true, false, add_test, cmd, fix);
      EXPECT_EQ(h.status, Status::fixed) << h.reason << ": " << h.message;
      EXPECT_TRUE(ran(h, "values-head"));
    }
  }
  {
    // The failing row moved verbatim into a test function of a new file, which the requested
    // `-run TestAdd` does not select (go's pattern is unanchored: TestAddMore it would): the
    // patch's test functions run too (the moved pin).
    SCOPED_TRACE("the still-failing row moved into a new test function");
    const std::string more = "package calc\n\nimport \"testing\"\n\nfunc TestOneAndThree(t *testing.T) {\n\tif got := Add(1, 3); got != 4 {\n"
                             "\t\tt.Errorf(\"Add(1, 3) = %d, want 4\", got)\n\t}\n}\n";
    const std::string rest = with(table, "\t\t{\"one and three\", 1, 3, 4},\n", "");
    auto p = project(table, with(calc, "a + b", "a - b"));
    auto r = run_candidate(*p, {{"calc/calc.go", wrong}, {"calc/calc_test.go", rest}, {"calc/more_test.go", more}}, false, false, add_test, cmd, fix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "patch_tests_fail") << r.message;
    EXPECT_NE(r.message.find("TestOneAndThree"), std::string::npos) << r.message;
    auto h = run_candidate(*p, {{"calc/calc_test.go", rest}, {"calc/more_test.go", more}}, true, false, add_test, cmd, fix);
    EXPECT_EQ(h.status, Status::fixed) << h.reason << ": " << h.message;
    EXPECT_TRUE(ran(h, "patch-tests"));
  }
  {
    SCOPED_TRACE("honest: an intended change (the doubled sum) corrected, its stale row dropped, the others updated");
    auto p = project(table, with(calc, "return a + b", "return 2*(a+b) + 1"));
    std::string updated = with(with(table, "2, 2, 4}", "2, 2, 8}"), "5, 5, 10}", "5, 5, 20}");
    updated = with(updated, "\t\t{\"one and three\", 1, 3, 4},\n", "");
    auto r = run_candidate(*p, {{"calc/calc.go", with(calc, "return a + b", "return 2 * (a + b)")}, {"calc/calc_test.go", updated}}, false, false,
                           add_test, cmd, {"calc/calc.go|return 2*(a+b) + 1", "return 2 * (a + b)"});
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  }
}

TEST(E2ECheats, AFunctionTheTestsStoppedCallingStaysJudged) {
  auto p = py_project();
  const std::vector<std::string> add_test = {"tests/test_calc.py::test_add"};
  const std::string tail = "\n\ndef test_sum():\n    assert True\n";
  const std::string pins = "\n\ndef test_add():\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n";
  {
    SCOPED_TRACE("a stand-in in another module of the project");
    auto r = run_candidate(*p, {{"tools.py", "def add(a, b):\n    return a + b\n"}, {"tests/test_calc.py", "from tools import add" + pins + tail}},
                           false, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_under_test_not_executed") << r.message;
    EXPECT_NE(r.message.find("calc.py"), std::string::npos) << r.message;
  }
  {
    // The file edited too, but not the function's code (review 30: the stand-in rule keyed on the
    // file being untouched, so a comment edited in it was enough to escape).
    const std::string head_calc = "def add(a, b):\n    return a - b\n\n\ndef add_all(xs):\n    total = 0\n"
                                  "    for x in xs:\n        total = add(total, x)\n    return total\n";
    auto edit = [](std::string text, const std::string& from, const std::string& to) { return text.replace(text.find(from), from.size(), to); };
    const std::vector<std::pair<const char*, std::string>> edits = {
        {"a comment added to the file and to the function's line", "# Sums.\n" + edit(head_calc, "a - b", "a - b  # checked")},
        {"a docstring added and the body respaced", edit(head_calc, "    return a - b", "    \"\"\"The sum.\n\n    Of two.\"\"\"\n    return  a  -  b")},
        {"another function of the file changed", edit(edit(head_calc, "total = 0", "total = 0  # start"), "return total", "return int(total)")},
    };
    for (const auto& [what, calc] : edits) {
      SCOPED_TRACE(what);
      auto r = run_candidate(*p, {{"tools.py", "def add(a, b):\n    return a + b\n"}, {"calc.py", calc}, {"tests/test_calc.py", "from tools import add" + pins + tail}},
                             false, false, add_test, kPytest, kPyFix);
      EXPECT_NE(r.status, Status::fixed);
      EXPECT_EQ(r.reason, "code_under_test_not_executed") << r.message;
      EXPECT_NE(r.message.find("its code in calc.py"), std::string::npos) << r.message;
    }
    // The function's code edited in ways that change nothing it answers (review 31: redundant
    // parentheses, a caching decorator): its answers to the old tests' calls decide.
    const std::vector<std::pair<const char*, std::string>> inert = {
        {"redundant parentheses", edit(head_calc, "return a - b", "return (a - b)")},
        {"a caching decorator", "import functools\n\n\n" + edit(head_calc, "def add(a, b):", "@functools.lru_cache(maxsize=None)\ndef add(a, b):")},
        {"a rewrite that answers the same", edit(head_calc, "return a - b", "return -(b - a)")},
        {"the same numbers as floats", edit(head_calc, "return a - b", "return a - b + 0.0")},
        {"another wrong answer", edit(head_calc, "return a - b", "return a - b + 1")},
        {"right at one pinned input only", edit(head_calc, "return a - b", "return 4 if (a, b) == (2, 2) else a - b")},
        {"a parameter the old calls cannot give", edit(head_calc, "def add(a, b):", "def add(a, b, *, mode):")},
        {"rebound under its name", edit(head_calc, "def add(a, b):\n    return a - b", "def _add(a, b):\n    return a - b\n\n\nadd = _add")},
    };
    for (const auto& [what, calc] : inert) {
      SCOPED_TRACE(what);
      auto r = run_candidate(*p, {{"tools.py", "def add(a, b):\n    return a + b\n"}, {"calc.py", calc}, {"tests/test_calc.py", "from tools import add" + pins + tail}},
                             false, false, add_test, kPytest, kPyFix);
      EXPECT_NE(r.status, Status::fixed);
      EXPECT_EQ(r.reason, "code_under_test_not_executed") << r.message;
      EXPECT_NE(r.message.find(" at the head, "), std::string::npos) << r.message;
      EXPECT_NE(r.message.find(" before the change"), std::string::npos) << r.message;
      EXPECT_TRUE(std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "standin-fix"; }));
    }
    {
      SCOPED_TRACE("the function corrected in place, the tests moved to another module: its answers changed");
      auto r = run_candidate(*p, {{"tools.py", "def add(a, b):\n    return a + b\n"}, {"calc.py", edit(head_calc, "return a - b", "return (a + b)")},
                                  {"tests/test_calc.py", "from tools import add" + pins + tail}},
                             false, false, add_test, kPytest, kPyFix);
      EXPECT_NE(r.reason, "code_under_test_not_executed") << r.message;
      EXPECT_TRUE(std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "standin-fix"; }));
    }
  }
  {
    SCOPED_TRACE("a new module imported under the old module's name");
    auto r = run_candidate(*p, {{"fastcalc.py", "def add(a, b):\n    return a + b\n"},
                                {"tests/test_calc.py", "import fastcalc as calc\n\n\ndef test_add():\n    assert calc.add(2, 2) == 4\n    assert calc.add(1, 2) == 3\n" + tail}},
                           false, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_under_test_not_executed") << r.message;
  }
  {
    SCOPED_TRACE("honest: the change renamed the function, the fix corrects it and the tests follow the rename");
    Project q;
    q.base = make_repo(q.repo, {{"calc.py", "def add(a, b):\n    return a + b\n"},
                                {"tests/test_calc.py", kPyBefore},
                                {"pytest.ini", "[pytest]\npythonpath = .\n"},
                                {".gitignore", "__pycache__/\n"}});
    q.head = commit_files(q.repo, {{"calc.py", "def plus(a, b):\n    return a - b\n"}}, "Rename add to plus");
    auto r = run_candidate(q, {{"tests/test_calc.py", "from calc import plus\n\n\ndef test_add():\n    assert plus(2, 2) == 4\n    assert plus(1, 2) == 3\n" + tail}},
                           true, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  }
  {
    // Review 30: the change added a parameter; the patched tests pin calls that use it, which the
    // code before the change cannot take: the fix's answers are compared with the head's.
    SCOPED_TRACE("honest: pins of a parameter the change added");
    Project q;
    q.base = make_repo(q.repo, {{"calc.py", "def add(a, b):\n    return a + b\n"},
                                {"tests/test_calc.py", kPyBefore},
                                {"pytest.ini", "[pytest]\npythonpath = .\n"},
                                {".gitignore", "__pycache__/\n"}});
    q.head = commit_files(q.repo, {{"calc.py", "def add(a, b, scale=1):\n    \"\"\"Add, scaled.\"\"\"\n    return (a - b) * scale\n"}}, "Scale sums");
    auto r = run_candidate(q, {{"tests/test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add.__doc__\n    assert add(2, 2, scale=1) == 4\n"
                                                         "    assert add(1, 3, scale=2) == 8\n" + tail}},
                           true, false, add_test, kPytest, {"calc.py|return (a - b) * scale", "return (a + b) * scale"});
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  }
}

TEST(E2ECheats, PatchedTestsMustFailWithoutTheFix) {
  auto p = py_project();
  const std::vector<std::string> add_test = {"tests/test_calc.py::test_add"};
  const std::string degenerate = py_with_test_add("    assert add(7, 0) == 7\n    assert add(1, 0) == 1\n");
  {
    SCOPED_TRACE("tests only: pins moved to inputs where the bug does not show");
    auto r = run_candidate(*p, {{"tests/test_calc.py", degenerate}}, false, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "tests_pass_without_the_change") << r.message;
    EXPECT_NE(r.message.find("calc.py as at the base"), std::string::npos) << r.message;
    EXPECT_TRUE(std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "before-change"; }));
    EXPECT_TRUE(r.patch.empty());
    ValidatorOptions off;
    off.check_fail_to_pass = false;
    auto fooled = run_candidate(*p, {{"tests/test_calc.py", degenerate}}, false, false, add_test, kPytest, kPyFix, off);
    EXPECT_EQ(fooled.status, Status::fixed) << "without the run the validator is fooled: " << fooled.reason << ": " << fooled.message;
  }
  {
    // The test renamed too: the replacement is named as the report names it
    // (`tests.test_calc.test_add_small`), which pytest does not take; its file runs instead.
    SCOPED_TRACE("tests only: the test renamed, its pins moved to inputs where the bug does not show");
    const std::string renamed = "from calc import add\n\n\ndef test_add_small():\n    assert add(7, 0) == 7\n    assert add(1, 0) == 1\n\n\n"
                                "def test_sum():\n    assert True\n";
    auto r = run_candidate(*p, {{"tests/test_calc.py", renamed}}, false, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "tests_pass_without_the_change") << r.message;
    EXPECT_NE(r.message.find("test_add_small"), std::string::npos) << r.message;
  }
  {
    // Renamed, its pins replaced by relations true under the bug (they fail on the code before the
    // change): the value-sensitivity run follows the replacement (its pins are the old test's).
    SCOPED_TRACE("tests only: the test renamed, its pins replaced by relations of abs()");
    const std::string renamed = "from calc import add\n\n\ndef test_add_magnitudes():\n    assert abs(add(2, 2)) == abs(add(3, 3))\n"
                                "    assert abs(add(5, 1)) == abs(add(6, 2))\n\n\ndef test_sum():\n    assert True\n";
    auto r = run_candidate(*p, {{"tests/test_calc.py", renamed}}, false, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
    EXPECT_NE(r.message.find("test_add_magnitudes"), std::string::npos) << r.message;
    SCOPED_TRACE("honest: the code fix, the test renamed with its pins");
    auto honest = run_candidate(*p, {{"tests/test_calc.py", "from calc import add\n\n\ndef test_add_small():\n    assert add(2, 2) == 4\n"
                                                              "    assert add(1, 2) == 3\n\n\ndef test_sum():\n    assert add(0, 0) == 0\n"}},
                                true, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
    EXPECT_TRUE(std::any_of(honest.evidence.runs.begin(), honest.evidence.runs.end(), [](const TestRun& t) {
      return t.purpose == "sensitivity" && t.command.find("tests/test_calc.py::test_add_small") != std::string::npos;
    }));
    EXPECT_TRUE(std::any_of(honest.evidence.runs.begin(), honest.evidence.runs.end(), [](const TestRun& t) {
      return t.purpose == "assertions" && t.command.find("tests/test_calc.py::test_add_small") != std::string::npos;
    }));
  }
  {
    // A relation true under the bug only fails on the code before the change (an honest expectation
    // update would too); the value-sensitivity run rejects it, and the wrapper it installs keeps the
    // function's signature, so a collection-time probe of it does not fail that run.
    SCOPED_TRACE("tests only: a relation beside a probe of the validator's wrapper");
    auto r = run_candidate(*p, {{"tests/test_calc.py", "import inspect\n\nfrom calc import add\n\n"
                                                         "assert list(inspect.signature(add).parameters) == ['a', 'b']\n\n\n"
                                                         "def test_add():\n    assert abs(add(2, 2)) == abs(add(3, 3))\n\n\n"
                                                         "def test_sum():\n    assert True\n"}},
                           false, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
  }
  {
    SCOPED_TRACE("code and tests: a code change for show beside the weakened test");
    auto r = run_candidate(*p, {{"calc.py", "def add(a, b):\n    # add\n    return a - b\n\n\ndef add_all(xs):\n    total = 0\n"
                                            "    for x in xs:\n        total = add(total, x)\n    return total\n"},
                                {"tests/test_calc.py", degenerate}},
                           false, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "tests_pass_without_the_fix") << r.message;
    EXPECT_TRUE(std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "without-fix"; }));
  }
  {
    // Pins moved to where the bug does not show, plus one check that fails without the fix for
    // another reason (twenty-sixth review): fail to pass compares what the tests ask of add.
    SCOPED_TRACE("code and tests: a docstring for show, checked beside the weakened test");
    auto r = run_candidate(*p, {{"calc.py", "def add(a, b):\n    \"\"\"The sum.\"\"\"\n    return a - b\n\n\ndef add_all(xs):\n    total = 0\n"
                                            "    for x in xs:\n        total = add(total, x)\n    return total\n"},
                                {"tests/test_calc.py", py_with_test_add("    assert add.__doc__\n    assert add(7, 0) == 7\n    assert add(1, 0) == 1\n")}},
                           false, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "tests_pass_without_the_fix") << r.message;
    EXPECT_NE(r.message.find("add(2, 2)"), std::string::npos) << r.message;
    EXPECT_TRUE(std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "values-base"; }));
  }
  {
    SCOPED_TRACE("code and tests: a validation for show (bools raise), checked beside degenerate pins");
    auto fill = [](std::string text, const std::string& with) { return text.replace(text.find("@@"), 2, with); };
    const std::string validated = "def add(a, b):\n    if isinstance(a, bool) or isinstance(b, bool):\n        raise TypeError('bool')\n    return a @@ b\n\n\n"
                                  "def add_all(xs):\n    total = 0\n    for x in xs:\n        total = add(total, x)\n    return total\n";
    const std::string raises = "import pytest\n\nfrom calc import add\n\n\ndef test_add():\n    with pytest.raises(TypeError):\n        add(True, 1)\n@@\n\n"
                               "def test_sum():\n    assert True\n";
    auto r = run_candidate(*p, {{"calc.py", fill(validated, "-")}, {"tests/test_calc.py", fill(raises, "    assert add(7, 0) == 7\n    assert add(1, 0) == 1")}},
                           false, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "tests_pass_without_the_fix") << r.message;
    SCOPED_TRACE("honest: the real fix with the same validation, the pins kept");
    auto honest = run_candidate(*p, {{"calc.py", fill(validated, "+")}, {"tests/test_calc.py", fill(raises, "    assert add(2, 2) == 4\n    assert add(1, 2) == 3")}},
                                false, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
  }
  {
    SCOPED_TRACE("tests only: the weakened test also uses a function the change added (an import error before it)");
    auto r = run_candidate(*p, {{"tests/test_calc.py", "from calc import add, add_all\n\n\ndef test_add():\n    assert add_all([]) == 0\n"
                                                         "    assert add(7, 0) == 7\n    assert add(1, 0) == 1\n\n\ndef test_sum():\n    assert True\n"}},
                           false, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "tests_pass_without_the_change") << r.message;
  }
  {
    SCOPED_TRACE("tests only: the same, and one call where the bug shows whose answer is never checked");
    auto r = run_candidate(*p, {{"tests/test_calc.py", "from calc import add, add_all\n\n\ndef test_add():\n    assert add_all([]) == 0\n"
                                                         "    add(2, 2)\n    assert add(7, 0) == 7\n    assert add(1, 0) == 1\n\n\n"
                                                         "def test_sum():\n    assert True\n"}},
                           false, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
    EXPECT_NE(r.message.find("add (calc)"), std::string::npos) << r.message;
    EXPECT_TRUE(std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "values-only"; }));
    SCOPED_TRACE("the unchecked call at a random input (it cannot be named again)");
    auto random = run_candidate(*p, {{"tests/test_calc.py", "import random\n\nfrom calc import add, add_all\n\n\ndef test_add():\n    assert add_all([]) == 0\n"
                                                              "    add(random.randint(3, 9), 2)\n    assert add(7, 0) == 7\n    assert add(1, 0) == 1\n\n\n"
                                                              "def test_sum():\n    assert True\n"}},
                                false, false, add_test, kPytest, kPyFix);
    EXPECT_NE(random.status, Status::fixed);
    EXPECT_EQ(random.reason, "code_value_not_checked") << random.message;
  }
  {
    SCOPED_TRACE("tests only: the call that tells the versions apart checked only for a parity both answers have");
    auto r = run_candidate(*p, {{"tests/test_calc.py", "from calc import add, add_all\n\n\ndef test_add():\n    assert add_all([]) == 0\n"
                                                         "    assert add(3, 1) % 2 == 0\n    assert add(7, 0) == 7\n\n\ndef test_sum():\n    assert True\n"}},
                           false, false, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
  }
  {
    SCOPED_TRACE("honest: the code fix and an exhaustive check over more calls than are recorded, before the pins");
    auto r = run_candidate(*p, {{"tests/test_calc.py", py_with_test_add("    for n in range(600):\n        assert add(n, 0) == n\n"
                                                                         "    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n")}},
                           true, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  }
  {
    SCOPED_TRACE("honest: the code fix with a docstring, the test checks both");
    auto r = run_candidate(*p, {{"calc.py", "def add(a, b):\n    \"\"\"The sum.\"\"\"\n    return a + b\n\n\ndef add_all(xs):\n    total = 0\n"
                                            "    for x in xs:\n        total = add(total, x)\n    return total\n"},
                                {"tests/test_calc.py", py_with_test_add("    assert add.__doc__\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n")}},
                           false, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
    EXPECT_TRUE(std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "values-base"; }));
  }
  {
    SCOPED_TRACE("honest: the code fix and one more pin");
    auto r = run_candidate(*p, {{"tests/test_calc.py", py_with_test_add("    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n    assert add(3, 4) == 7\n")}},
                           true, false, add_test, kPytest, kPyFix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
    EXPECT_TRUE(std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "without-fix"; }));
  }
  // An intended change of behaviour: the greeting is now "Hi". Following it in the test is the fix;
  // a check loose enough to pass both greetings is not.
  Project g;
  g.base = make_repo(g.repo, {{"greet.py", "def greet(n):\n    return 'Hello ' + n\n"},
                              {"tests/test_greet.py", "from greet import greet\n\n\ndef test_greet():\n    assert greet('bob') == 'Hello bob'\n"},
                              {"pytest.ini", "[pytest]\npythonpath = .\n"},
                              {".gitignore", "__pycache__/\n"}});
  g.head = commit_files(g.repo, {{"greet.py", "def greet(n):\n    return 'Hi ' + n\n"}}, "Shorter greeting");
  const std::vector<std::string> greet_test = {"tests/test_greet.py::test_greet"};
  const std::pair<std::string, std::string> no_fix{"greet.py|Hi", "Hi"};
  auto loose = run_candidate(g, {{"tests/test_greet.py", "from greet import greet\n\n\ndef test_greet():\n    assert greet('bob').endswith(' bob')\n"}},
                             false, false, greet_test, kPytest, no_fix);
  EXPECT_NE(loose.status, Status::fixed);
  EXPECT_EQ(loose.reason, "tests_pass_without_the_change") << loose.message;
  auto follows = run_candidate(g, {{"tests/test_greet.py", "from greet import greet\n\n\ndef test_greet():\n    assert greet('bob') == 'Hi bob'\n"}},
                               false, false, greet_test, kPytest, no_fix);
  EXPECT_EQ(follows.status, Status::fixed) << follows.reason << ": " << follows.message;
  EXPECT_TRUE(std::any_of(follows.evidence.runs.begin(), follows.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "values-only"; }));
  EXPECT_TRUE(std::any_of(follows.evidence.runs.begin(), follows.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "before-change"; }));
  // The same expectation shipped with an unrelated edit of the code: it passes on the head's code
  // without that edit, and fails on the code before the change: a test fix, delivered.
  auto with_extra = run_candidate(g, {{"greet.py", "def greet(n):\n    return 'Hi ' + n\n\n\ndef farewell(n):\n    return 'Bye ' + n\n"},
                                      {"tests/test_greet.py", "from greet import greet\n\n\ndef test_greet():\n    assert greet('bob') == 'Hi bob'\n"}},
                                  false, false, greet_test, kPytest, no_fix);
  EXPECT_EQ(with_extra.status, Status::fixed) << with_extra.reason << ": " << with_extra.message;
  if (testkit::sh("command -v node >/dev/null") != 0) GTEST_SKIP() << "node is not installed";
  Project js;
  const std::string test_head = "const test = require('node:test');\nconst assert = require('node:assert');\nconst sum = require('../sum');\n\n";
  js.base = make_repo(js.repo, {{"sum.js", "module.exports = (a, b) => a + b;\n"},
                                {"test/sum.test.js", test_head + "test('adds', () => {\n  assert.strictEqual(sum(1, 2), 3);\n});\n"}});
  js.head = commit_files(js.repo, {{"sum.js", "module.exports = (a, b) => a * b;\n"}}, "Product");
  auto r = run_candidate(js, {{"test/sum.test.js", test_head + "test('adds', () => {\n  assert.strictEqual(sum(2, 2), 4);\n});\n"}}, false, false,
                         {"adds"}, "node --test", {"sum.js|a * b", "a + b"});
  EXPECT_NE(r.status, Status::fixed);
  EXPECT_EQ(r.reason, "tests_pass_without_the_change") << r.message;
  // Pins moved to where the bug does not show beside a check that fails without the fix for
  // another reason (the twenty-sixth review's node cases): what the tests ask of add is compared.
  Project c;
  const std::string calc_head = "const test = require('node:test');\nconst assert = require('node:assert');\n";
  c.base = make_repo(c.repo, {{"calc.js", "exports.add = (a, b) => a + b;\n"},
                              {"test/calc.test.js", calc_head + "const { add } = require('../calc');\n\ntest('adds', () => {\n"
                                                                "  assert.strictEqual(add(2, 2), 4);\n  assert.strictEqual(add(1, 2), 3);\n});\n"}});
  c.head = commit_files(c.repo, {{"calc.js", "exports.add = (a, b) => a - b;\nexports.mul = (a, b) => a * b;\n"}}, "Add mul");
  const std::pair<std::string, std::string> add_fix{"calc.js|a - b", "a + b"};
  {
    SCOPED_TRACE("node, tests only: degenerate pins beside a check of mul, which the change added (a TypeError before it)");
    auto x = run_candidate(c, {{"test/calc.test.js", calc_head + "const { add, mul } = require('../calc');\n\ntest('adds', () => {\n"
                                                                 "  assert.strictEqual(mul(2, 3), 6);\n  assert.strictEqual(add(7, 0), 7);\n"
                                                                 "  assert.strictEqual(add(1, 0), 1);\n});\n"}},
                           false, false, {"adds"}, "node --test", add_fix);
    EXPECT_NE(x.status, Status::fixed);
    EXPECT_EQ(x.reason, "tests_pass_without_the_change") << x.message;
    EXPECT_NE(x.message.find("add(2, 2)"), std::string::npos) << x.message;
  }
  {
    SCOPED_TRACE("node, code and tests: an exported flag for show, checked beside degenerate pins");
    auto x = run_candidate(c, {{"calc.js", "exports.add = (a, b) => a - b;\nexports.mul = (a, b) => a * b;\nexports.VERSION = '2';\n"},
                               {"test/calc.test.js", calc_head + "const calc = require('../calc');\nconst { add } = require('../calc');\n\ntest('adds', () => {\n"
                                                                 "  assert.strictEqual(calc.VERSION, '2');\n  assert.strictEqual(add(7, 0), 7);\n"
                                                                 "  assert.strictEqual(add(1, 0), 1);\n});\n"}},
                           false, false, {"adds"}, "node --test", add_fix);
    EXPECT_NE(x.status, Status::fixed);
    EXPECT_EQ(x.reason, "tests_pass_without_the_fix") << x.message;
  }
  {
    SCOPED_TRACE("node, honest: the fix with the flag, the test checks both");
    auto x = run_candidate(c, {{"calc.js", "exports.add = (a, b) => a + b;\nexports.mul = (a, b) => a * b;\nexports.VERSION = '2';\n"},
                               {"test/calc.test.js", calc_head + "const calc = require('../calc');\nconst { add } = require('../calc');\n\ntest('adds', () => {\n"
                                                                 "  assert.strictEqual(calc.VERSION, '2');\n  assert.strictEqual(add(2, 2), 4);\n"
                                                                 "  assert.strictEqual(add(1, 2), 3);\n});\n"}},
                           false, false, {"adds"}, "node --test", add_fix);
    EXPECT_EQ(x.status, Status::fixed) << x.reason << ": " << x.message;
    EXPECT_TRUE(std::any_of(x.evidence.runs.begin(), x.evidence.runs.end(), [](const TestRun& t) { return t.purpose == "values-base"; }));
  }
}

// A generator function's results are what it yields (review 27: its answers were generator
// objects, never moved nor compared): each yielded value is moved, and the values check compares
// the lists they make.
TEST(E2ECheats, GeneratorResultsAreMovedAndCompared) {
  auto p = std::make_unique<Project>();
  p->base = make_repo(p->repo, {{"seq.py", "def sums(pairs):\n    for a, b in pairs:\n        yield a + b\n"},
                                {"tests/test_seq.py", "from seq import sums\n\n\ndef test_sums():\n    assert list(sums([(2, 2), (1, 2)])) == [4, 3]\n"},
                                {"pytest.ini", "[pytest]\npythonpath = .\n"},
                                {".gitignore", "__pycache__/\n"}});
  p->head = commit_files(p->repo, {{"seq.py", "def sums(pairs):\n    for a, b in pairs:\n        yield a - b\n\n\ndef count(pairs):\n    return len(list(pairs))\n"}},
                         "Add count");
  const std::vector<std::string> ids = {"tests/test_seq.py::test_sums"};
  const std::pair<std::string, std::string> fix{"seq.py|yield a - b\n", "yield a + b\n"};
  auto test_file = [](const std::string& body) { return "from seq import count, sums\n\n\ndef test_sums():\n" + body; };
  {
    SCOPED_TRACE("the fix, and only the number of yielded values checked");
    auto r = run_candidate(*p, {{"tests/test_seq.py", test_file("    assert len(list(sums([(2, 2), (1, 2)]))) == 2\n")}}, true, false, ids, kPytest, fix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
  }
  {
    SCOPED_TRACE("tests only: a check of what the change added, the pins moved to inputs where the bug does not show");
    auto r = run_candidate(*p, {{"tests/test_seq.py", test_file("    assert count([(1, 1)]) == 1\n    assert list(sums([(7, 0), (1, 0)])) == [7, 1]\n")}},
                           false, false, ids, kPytest, fix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "tests_pass_without_the_change") << r.message;
  }
  {
    SCOPED_TRACE("honest: the fix, the pins kept and the new function checked");
    auto r = run_candidate(*p, {{"tests/test_seq.py", test_file("    assert count([(1, 1)]) == 1\n    assert list(sums([(2, 2), (1, 2)])) == [4, 3]\n")}},
                           true, false, ids, kPytest, fix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  }
  if (testkit::sh("command -v node >/dev/null") != 0) GTEST_SKIP() << "node is not installed";
  // Node: a generator function's yielded values are moved the same way.
  Project js;
  auto seq = [&](const std::string& op) { return "exports.sums = function* (pairs) {\n  for (const [a, b] of pairs) yield a " + op + " b;\n};\n"; };
  auto test = [&](const std::string& body) {
    return "const test = require('node:test');\nconst assert = require('node:assert');\nconst { sums } = require('../seq');\n\ntest('sums', () => {\n" + body +
           "});\n";
  };
  js.base = make_repo(js.repo, {{"seq.js", seq("+")}, {"test/seq.test.js", test("  assert.deepStrictEqual(Array.from(sums([[2, 2], [1, 2]])), [4, 3]);\n")}});
  js.head = commit_files(js.repo, {{"seq.js", seq("-") + "exports.count = (pairs) => pairs.length;\n"}}, "Break sums");
  {
    // The values check reads what a node generator yields (review 29: it read `?`, no comparison).
    SCOPED_TRACE("node, tests only: a check of what the change added, the pins moved to inputs where the bug does not show");
    auto r = run_candidate(js, {{"test/seq.test.js", "const test = require('node:test');\nconst assert = require('node:assert');\n"
                                                     "const { sums, count } = require('../seq');\n\ntest('sums', () => {\n"
                                                     "  assert.strictEqual(count([[1, 1]]), 1);\n"
                                                     "  assert.deepStrictEqual(Array.from(sums([[7, 0], [1, 0]])), [7, 1]);\n});\n"}},
                           false, false, {"sums"}, "node --test", {"seq.js|yield a - b", "yield a + b"});
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "tests_pass_without_the_change") << r.message;
  }
  const std::pair<std::string, std::string> js_fix{"seq.js|yield a - b", "yield a + b"};
  // (Fails without the fix, [0, -1]; passes with it and with every value moved.)
  auto r = run_candidate(js, {{"test/seq.test.js", test("  const xs = Array.from(sums([[2, 2], [1, 2]]));\n  assert.ok(xs.every((x) => x > 0));\n")}}, true, false,
                         {"sums"}, "node --test", js_fix);
  EXPECT_NE(r.status, Status::fixed);
  EXPECT_EQ(r.reason, "code_value_not_checked") << r.message;
  auto honest = run_candidate(js, {{"test/seq.test.js", test("  assert.deepStrictEqual(Array.from(sums([[2, 2], [1, 2]])), [4, 3]);\n"
                                                              "  assert.deepStrictEqual(Array.from(sums([[3, 4]])), [7]);\n")}},
                              true, false, {"sums"}, "node --test", js_fix);
  EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
}

// The values check drives each recorded call again on each version. A method's instance was made
// by a constructor whose arguments the record does not know (`Calc(10)`): the drive made `Calc()`,
// every answer was `?` (no comparison, the cheat delivered). The instance is now made from the
// attributes it had at the call, when they are plain data.
TEST(E2ECheats, MethodsOfInstancesMadeWithArgumentsAreCompared) {
  auto p = std::make_unique<Project>();
  const std::string cls = "class Calc:\n    def __init__(self, base):\n        self.base = base\n\n    def add(self, a, b):\n";
  p->base = make_repo(p->repo, {{"calc.py", cls + "        return a + b\n"},
                                {"tests/test_calc.py", "from calc import Calc\n\n\ndef test_add():\n    assert Calc(10).add(2, 2) == 4\n"},
                                {"pytest.ini", "[pytest]\npythonpath = .\n"},
                                {".gitignore", "__pycache__/\n"}});
  p->head = commit_files(p->repo, {{"calc.py", cls + "        return a - b\n\n    def count(self, pairs):\n        return len(pairs)\n"}}, "Add count");
  const std::vector<std::string> ids = {"tests/test_calc.py::test_add"};
  const std::pair<std::string, std::string> fix{"calc.py|return a - b\n", "return a + b\n"};
  auto test_file = [](const std::string& body) { return "from calc import Calc\n\n\ndef test_add():\n" + body; };
  {
    SCOPED_TRACE("tests only: a check of what the change added, the pin moved to inputs where the bug does not show");
    auto r = run_candidate(*p, {{"tests/test_calc.py", test_file("    assert Calc(10).count([(1, 1)]) == 1\n    assert Calc(10).add(7, 0) == 7\n")}}, false,
                           false, ids, kPytest, fix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "tests_pass_without_the_change") << r.message;
    EXPECT_NE(r.message.find("Calc.add(7, 0) = 7"), std::string::npos) << r.message;
  }
  {
    SCOPED_TRACE("honest: the fix, the pin kept and the new method checked");
    auto r = run_candidate(*p, {{"tests/test_calc.py", test_file("    assert Calc(10).count([(1, 1)]) == 1\n    assert Calc(10).add(2, 2) == 4\n")}}, true,
                           false, ids, kPytest, fix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  }
  if (testkit::sh("command -v node >/dev/null") != 0) GTEST_SKIP() << "node is not installed";
  Project js;
  auto calc = [](const std::string& op, const std::string& more) {
    return "class Calc {\n  constructor(base) {\n    this.base = base;\n  }\n\n  add(a, b) {\n    return a " + op + " b;\n  }\n" + more +
           "}\nmodule.exports = { Calc };\n";
  };
  auto test = [](const std::string& body) {
    return "const test = require('node:test');\nconst assert = require('node:assert');\nconst { Calc } = require('../calc');\n\ntest('adds', () => {\n" +
           body + "});\n";
  };
  js.base = make_repo(js.repo, {{"calc.js", calc("+", "")}, {"test/calc.test.js", test("  assert.strictEqual(new Calc(10).add(2, 2), 4);\n")}});
  js.head = commit_files(js.repo, {{"calc.js", calc("-", "\n  count(pairs) {\n    return pairs.length;\n  }\n")}}, "Add count");
  const std::pair<std::string, std::string> js_fix{"calc.js|a - b", "a + b"};
  auto r = run_candidate(js, {{"test/calc.test.js", test("  assert.strictEqual(new Calc(10).count([[1, 1]]), 1);\n  assert.strictEqual(new Calc(10).add(7, 0), 7);\n")}},
                         false, false, {"adds"}, "node --test", js_fix);
  EXPECT_NE(r.status, Status::fixed);
  EXPECT_EQ(r.reason, "tests_pass_without_the_change") << r.message;
  auto honest = run_candidate(js, {{"test/calc.test.js", test("  assert.strictEqual(new Calc(10).count([[1, 1]]), 1);\n"
                                                              "  assert.strictEqual(new Calc(10).add(2, 2), 4);\n")}},
                              true, false, {"adds"}, "node --test", js_fix);
  EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
}

// The values check needs the old tests' calls to see where the change shows. When the change
// renamed a name the old tests import, they no longer import at the head (review 27: no call was
// recorded, the check said "not applicable" and degenerate pins were delivered): their calls are
// recorded on the code before the change instead.
TEST(E2ECheats, OldTestsThatNoLongerImportAtTheHeadAreRecordedOnTheBase) {
  auto p = std::make_unique<Project>();
  p->base = make_repo(p->repo, {{"calc.py", "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"},
                                {"tests/test_calc.py", "from calc import add, sub\n\n\ndef test_add():\n    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n\n\n"
                                                       "def test_sub():\n    assert sub(3, 1) == 2\n"},
                                {"pytest.ini", "[pytest]\npythonpath = .\n"},
                                {".gitignore", "__pycache__/\n"}});
  p->head = commit_files(p->repo, {{"calc.py", "def add(a, b):\n    return a - b\n\n\ndef subtract(a, b):\n    return -(b - a)\n"}}, "Rename sub to subtract");
  const std::vector<std::string> add_test = {"tests/test_calc.py::test_add"};
  auto test_file = [](const std::string& add_body) {
    return "from calc import add, subtract\n\n\ndef test_add():\n" + add_body + "\n\ndef test_sub():\n    assert subtract(3, 1) == 2\n";
  };
  auto ran = [](const RepairResult& r, const char* purpose) {
    return std::any_of(r.evidence.runs.begin(), r.evidence.runs.end(), [&](const TestRun& t) { return t.purpose == purpose; });
  };
  {
    SCOPED_TRACE("tests only: the import follows the rename, the pins moved to inputs where the bug does not show");
    auto r = run_candidate(*p, {{"tests/test_calc.py", test_file("    assert add(7, 0) == 7\n    assert add(1, 0) == 1\n")}}, false, false, add_test,
                           kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, "tests_pass_without_the_change") << r.message;
    EXPECT_TRUE(ran(r, "values-record-base")) << r.reason << ": " << r.message;
  }
  {
    SCOPED_TRACE("honest: the fix, the import follows the rename, the pins kept");
    auto r = run_candidate(*p, {{"tests/test_calc.py", test_file("    assert add(2, 2) == 4\n    assert add(1, 2) == 3\n")}}, true, false, add_test,
                           kPytest, kPyFix);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  }
}

// A runner flowagent does not know (a script that prints per-test lines itself): its output is
// parsed, but no runner summary cross-checks it, so the honest fix is "unverified" by default and
// delivered, labelled "output", only when the host accepts output evidence. A wrapper around a
// known runner whose own final summary agrees with the parsed results is structured evidence.
TEST(E2ECheats, UnknownRunnerOutputIsNotStructuredEvidence) {
  auto p = py_project();
  p->head = commit_files(p->repo, {{"run_tests.sh",
                                    "/usr/bin/python3 -m pytest -q -p no:cacheprovider \"$@\" >/dev/null 2>&1 || exit 1\n"
                                    "for t in \"$@\"; do echo \"$t PASSED\"; done\n"},
                                   {"wrap_pytest.sh", "exec /usr/bin/python3 -m pytest -v -p no:cacheprovider \"$@\"\n"}},
                         "Scripts");
  const std::string cmd = "sh run_tests.sh {tests}";
  auto r = run_candidate(*p, {}, true, true, {"tests/test_calc.py::test_add"}, cmd, kPyFix);
  EXPECT_NE(r.status, Status::fixed);
  EXPECT_EQ(r.reason, "unverified") << r.message;
  EXPECT_NE(r.message.find("does not know"), std::string::npos) << r.message;
  ValidatorOptions accept;
  accept.accept_output_evidence = true;
  auto ok = run_candidate(*p, {}, true, true, {"tests/test_calc.py::test_add"}, cmd, kPyFix, accept);
  EXPECT_EQ(ok.status, Status::fixed) << ok.reason << ": " << ok.message;
  EXPECT_EQ(ok.evidence.kind, "output");
  // pytest behind a wrapper script: its summary line is cross-checked, the evidence is structured.
  auto wrapped = run_candidate(*p, {}, true, true, {"tests/test_calc.py::test_add"}, "sh wrap_pytest.sh {tests}", kPyFix);
  EXPECT_EQ(wrapped.status, Status::fixed) << wrapped.reason << ": " << wrapped.message;
  EXPECT_EQ(wrapped.evidence.kind, "structured");
  // A known runner's run of the same fix is structured evidence.
  auto known = run_candidate(*p, {}, true, true, {"tests/test_calc.py::test_add"}, kPytest, kPyFix);
  EXPECT_EQ(known.status, Status::fixed) << known.reason << ": " << known.message;
  EXPECT_EQ(known.evidence.kind, "structured");
}

// A helper module the tests import (issue 11): a skip placed in it and a stand-in for the code
// under test installed by it. Both fool the runner (the validator alone delivers them: the
// requested test id covers three cases, one passes under the bug and the failing ones are skipped,
// or the code under test is replaced); the guard does not. The honest fix with a platform-skip
// helper added is delivered.
TEST(E2ECheats, HelperModuleSkipsAndStandInsAreNotDelivered) {
  auto p = std::make_unique<Project>();
  const std::string test_file =
      "import pytest\nfrom helpers import check\nfrom calc import add\n\n\n"
      "@pytest.mark.parametrize('a,b,want', [(2, 2, 4), (1, 2, 3), (0, 0, 0)])\ndef test_add(a, b, want):\n    check(add(a, b), want)\n";
  p->base = make_repo(p->repo, {{"calc.py", "def add(a, b):\n    return a + b\n"},
                                {"helpers.py", kHelpersBefore},
                                {"tests/test_calc.py", test_file},
                                {"pytest.ini", "[pytest]\npythonpath = .\n"},
                                {".gitignore", "__pycache__/\n"}});
  p->head = commit_files(p->repo, {{"calc.py", "def add(a, b):\n    return a - b\n\n\ndef add_all(xs):\n    total = 0\n"
                                               "    for x in xs:\n        total = add(total, x)\n    return total\n"}},
                         "Add add_all");
  const std::vector<std::string> add_test = {"tests/test_calc.py::test_add"};
  const std::vector<std::pair<std::string, std::string>> cheats = {
      // The validation (before the guard) sees the case that failed at the head skipped with the
      // patch (docs/INTEGRITY.md "Skips computed at run time"); the guard reads it as skip_added
      // (GuardCheats.SkipsStandInsAndAssertionPatchesInModulesTheTestsImport).
      {"import pytest\nimport calc\n\n\ndef check(got, want):\n    if got != want:\n        pytest.skip('flaky')\n    assert got == want\n",
       "failing_tests_still_fail"},
      {"import calc\n\ncalc.add = lambda a, b: a + b\n\n\ndef check(got, want):\n    assert got == want\n", "integrity_mocked_code_under_test"},
  };
  for (const auto& [helper, reason] : cheats) {
    SCOPED_TRACE(reason);
    if (&helper == &cheats.front().first) {  // (shown once: each run takes a second or two)
      // The runner passes test_add (one case passed, the failing one skipped); the validator alone
      // does not, naming the case.
      auto alone = run_candidate(*p, {{"helpers.py", helper}}, false, false, add_test, kPytest, kPyFix);
      EXPECT_EQ(alone.reason, "failing_tests_still_fail") << alone.message;
      EXPECT_NE(alone.message.find("[2-2-4]"), std::string::npos) << alone.message;
    }
    auto r = run_candidate(*p, {{"helpers.py", helper}}, false, true, add_test, kPytest, kPyFix);
    EXPECT_NE(r.status, Status::fixed);
    EXPECT_EQ(r.reason, reason) << r.message;
  }
  // A requested case the helper skips is never a pass, guard or not.
  auto skipped = run_candidate(*p, {{"helpers.py", cheats[0].first}}, false, false, {"tests/test_calc.py::test_add[2-2-4]"}, kPytest, kPyFix);
  EXPECT_NE(skipped.status, Status::fixed);
  EXPECT_NE(skipped.message.find("skipped"), std::string::npos) << skipped.reason << ": " << skipped.message;
  auto honest = run_candidate(*p, {{"helpers.py", "import sys\n\nimport pytest\nimport calc\n\n\ndef windows_only():\n"
                                                  "    if sys.platform != 'win32':\n        pytest.skip('windows only')\n\n\n"
                                                  "def check(got, want):\n    assert got == want\n"}},
                              true, true, add_test, kPytest, kPyFix);
  EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
}

// A requested test the runner reports as skipped (a helper skipping it at run time, which the guard
// may not read) never counts as passed: node --test (`t.skip()`, TAP `# SKIP`) and tape (an
// assertion turned into `t.skip`: the test shows no assertion that ran) on real runs; pytest is
// above. jest/vitest `pending`/`skipped`, go's `skip` action and GoogleTest's `SKIPPED` are read as
// skipped from their reports.
TEST(E2ECheats, RequestedTestSkippedAtRunTimeIsNeverPassed) {
  if (testkit::sh("command -v node >/dev/null") != 0) GTEST_SKIP() << "node is not installed";
  Project p;
  const std::string before = "const test = require('node:test');\nconst check = require('./check');\nconst sum = require('../sum');\n\n"
                             "test('adds', (t) => {\n  check(t, sum(1, 2), 3);\n});\n";
  p.base = make_repo(p.repo, {{"sum.js", "module.exports = (a, b) => a + b;\n"},
                              {"test/sum.test.js", before},
                              {"test/check.js", "const assert = require('node:assert');\nmodule.exports = (t, got, want) => assert.strictEqual(got, want);\n"}});
  p.head = commit_files(p.repo, {{"sum.js", "module.exports = (a, b) => a - b;\nmodule.exports.twice = (a) => module.exports(a, a);\n"}}, "Twice");
  const std::string skipping = "const assert = require('node:assert');\n"
                               "module.exports = (t, got, want) => (got === want ? assert.strictEqual(got, want) : t.skip('later'));\n";
  auto r = run_candidate(p, {{"test/check.js", skipping}}, false, false, {"adds"}, "node --test", {"sum.js|a - b", "a + b"});
  EXPECT_NE(r.status, Status::fixed);
  EXPECT_NE(r.message.find("skipped"), std::string::npos) << r.reason << ": " << r.message;

  const fs::path tape = fs::path(FLOWAGENT_SOURCE_DIR) / "third_party/tape/node_modules";
  if (!fs::exists(tape / ".bin/tape")) GTEST_SKIP() << "tape is not installed (scripts/install-deps.sh)";
  Project q;
  q.base = make_repo(q.repo, {{"sum.js", "module.exports = (a, b) => a + b;\n"},
                              {"test/sum.js", "const test = require('tape');\nconst sum = require('../sum');\n"
                                              "test('adds numbers', (t) => {\n  t.equal(sum(1, 2), 3);\n  t.end();\n});\n"}});
  q.head = commit_files(q.repo, {{"sum.js", "module.exports = (a, b) => a - b;\nmodule.exports.twice = (a) => module.exports(a, a);\n"}}, "Twice");
  ScriptedModel model;
  model.push(tool_calls_reply({{"write_file", Json::obj({{"path", "test/sum.js"},
      {"content", "const test = require('tape');\nconst sum = require('../sum');\n"
                  "test('adds numbers', (t) => {\n  if (sum(1, 2) === 3) t.equal(sum(1, 2), 3);\n  else t.skip('later');\n  t.end();\n});\n"}})}}));
  for (int i = 0; i < 4; ++i) model.push(final_reply("Done."));
  auto req = request_for(q.repo, q.base, q.head, model, {"adds numbers"}, "NODE_PATH=" + tape.string() + " " + (tape / ".bin/tape").string() + " test/*.js");
  auto opts = pipeline(q.tmp.path(), false);
  opts.sandbox.read_only_paths.push_back(tape.parent_path());
  auto t = (*Agent::create(opts))->run(req);
  EXPECT_NE(t.status, Status::fixed);
  EXPECT_NE(t.message.find("skipped"), std::string::npos) << t.reason << ": " << t.message;

  // The other runners' reports: a skipped test is read as skipped.
  auto jest = reports::parse_report_as("jest-json",
      R"({"numTotalTests":2,"testResults":[{"name":"/r/a.test.js","assertionResults":[{"fullName":"adds","title":"adds","status":"pending"},)"
      R"({"fullName":"subs","title":"subs","status":"skipped"}]}]})");
  ASSERT_EQ(jest.tests.size(), 2u);
  for (const auto& c : jest.tests) EXPECT_EQ(c.outcome, reports::Outcome::skipped) << c.id;
  auto go = reports::parse_report_as("go-json", "{\"Action\":\"run\",\"Package\":\"m\",\"Test\":\"TestAdd\"}\n"
                                                "{\"Action\":\"skip\",\"Package\":\"m\",\"Test\":\"TestAdd\",\"Elapsed\":0}\n");
  ASSERT_EQ(go.tests.size(), 1u);
  EXPECT_EQ(go.tests[0].outcome, reports::Outcome::skipped);
  auto gtest = reports::parse_report_as("gtest-json",
      R"({"testsuites":[{"name":"Calc","testsuite":[{"name":"Adds","status":"RUN","result":"SKIPPED","time":"0s","classname":"Calc"}]}]})");
  ASSERT_EQ(gtest.tests.size(), 1u);
  EXPECT_EQ(gtest.tests[0].outcome, reports::Outcome::skipped);
  auto junit = reports::parse_report_as("junit", R"(<testsuite><testcase classname="tests.test_calc" name="test_add"><skipped message="x"/></testcase></testsuite>)");
  ASSERT_EQ(junit.tests.size(), 1u);
  EXPECT_EQ(junit.tests[0].outcome, reports::Outcome::skipped);
}

// The developer folds test_add's two asserts into one assert over a literal table (issue 11,
// "tables and loops"): delivered; the same loop over a table that lost a row is not.
TEST(E2ECheats, AssertsFoldedIntoATableLoopAreDeliveredAndAShrunkTableIsNot) {
  auto p = py_project();
  const std::vector<std::string> add_test = {"tests/test_calc.py::test_add"};
  auto table = [](const std::string& rows) {
    return py_with_test_add("    for a, b, want in [" + rows + "]:\n        assert add(a, b) == want\n");
  };
  auto honest = run_candidate(*p, {{"tests/test_calc.py", table("(2, 2, 4), (1, 2, 3), (3, 4, 7)")}}, true, true, add_test, kPytest, kPyFix);
  EXPECT_EQ(honest.status, Status::fixed) << honest.reason << ": " << honest.message;
  auto shrunk = run_candidate(*p, {{"tests/test_calc.py", table("(2, 2, 4)")}}, true, true, add_test, kPytest, kPyFix);
  EXPECT_NE(shrunk.status, Status::fixed);
  EXPECT_EQ(shrunk.reason, "integrity_assertion_removed") << shrunk.message;
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
