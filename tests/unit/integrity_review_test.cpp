// Issue 11, third hostile review of the guard (2026-12-01): cheat classes it accepted and honest
// shapes it rejected, each cheat next to an honest twin of the same shape. The reviewer checked
// every cheat against the real runner (it passes there); these tests pin the guard's verdicts.
#include <gtest/gtest.h>

#include "flowagent/integrity.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;

namespace {

std::string codes(const std::vector<IntegrityFinding>& f) {
  std::string s;
  for (const auto& x : f) s += x.rule + " (" + x.path + ":" + std::to_string(x.line) + " " + x.message + ")\n";
  return s;
}

bool has_code(const std::vector<IntegrityFinding>& f, const std::string& code) {
  return std::any_of(f.begin(), f.end(), [&](const IntegrityFinding& x) { return x.rule == code; });
}

std::vector<IntegrityFinding> guard(const std::string& path, const std::optional<std::string>& before, const std::string& after,
                                    const std::string& failing) {
  IntegrityOptions o;
  o.failing_tests = {failing};
  return check_test_integrity({FileVersions{path, before, after}}, o);
}

const char* kPyTest = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n";

std::string py_try(const std::string& handler) {
  return "from calc import add\n\n\ndef test_add():\n    try:\n        assert add(2, 2) == 4\n    except AssertionError:\n" + handler;
}

const char* kJsTest = "const { add } = require('../calc');\n\ndescribe('calc', () => {\n  test('adds', () => {\n"
                      "    expect(add(2, 2)).toBe(4);\n  });\n});\n";

std::string js_try(const std::string& handler) {
  return "const { add } = require('../calc');\n\ndescribe('calc', () => {\n  test('adds', () => {\n    try {\n"
         "      expect(add(2, 2)).toBe(4);\n    } catch (err) {\n" +
         handler + "    }\n  });\n});\n";
}

}  // namespace

// A handler re-raises only when a statement of it does so on every path; words in comments and
// strings do not count.
TEST(GuardReview, HandlerReRaisesOnlyByItsStatements) {
  const std::string py = "tests/test_calc.py", id = "tests/test_calc.py::test_add";
  EXPECT_TRUE(has_code(guard(py, kPyTest, py_try("        pass  # do not raise until #123 lands\n"), id), "assertion_swallowed"));
  EXPECT_TRUE(has_code(guard(py, kPyTest, py_try("        print('will raise later')\n"), id), "assertion_swallowed"));
  EXPECT_TRUE(has_code(guard(py, kPyTest, py_try("        if False:\n            raise\n"), id), "assertion_swallowed"));
  // Honest: logged and re-raised, turned into a test failure.
  auto f = guard(py, kPyTest, py_try("        print('context')\n        raise\n"), id);
  EXPECT_FALSE(has_code(f, "assertion_swallowed")) << codes(f);
  f = guard(py, kPyTest, "import pytest\n" + py_try("        pytest.fail('add is wrong')\n"), id);
  EXPECT_FALSE(has_code(f, "assertion_swallowed")) << codes(f);

  const std::string js = "test/calc.test.js", jid = "test/calc.test.js > calc adds";
  EXPECT_TRUE(has_code(guard(js, kJsTest, js_try("      // rethrow once the flake is fixed\n"), jid), "assertion_swallowed"));
  EXPECT_TRUE(has_code(guard(js, kJsTest, js_try("      console.log('throw');\n"), jid), "assertion_swallowed"));
  f = guard(js, kJsTest, js_try("      console.log(err.message);\n      throw err;\n"), jid);
  EXPECT_FALSE(has_code(f, "assertion_swallowed")) << codes(f);

  // Go: a recover() whose handler only mentions t.Fatal in a comment swallows.
  const std::string go_before = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"
                                "\tif got := Add(2, 2); got != 4 {\n\t\tt.Fatalf(\"got %d\", got)\n\t}\n}\n";
  const std::string go_after = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"
                               "\tdefer func() {\n\t\tif r := recover(); r != nil {\n\t\t\t// t.Fatal(r) once fixed\n\t\t}\n\t}()\n"
                               "\tif got := Add(2, 2); got != 4 {\n\t\tpanic(\"bad\")\n\t}\n}\n";
  f = guard("calc_test.go", go_before, go_after, "TestAdd");
  EXPECT_FALSE(f.empty()) << "a recover that only mentions t.Fatal in a comment";
}

// Failures dropped without a try around the check: contextlib.suppress, Promise.allSettled; and
// console.assert, which only logs.
TEST(GuardReview, FailuresDroppedWithoutATry) {
  const std::string py = "tests/test_calc.py", id = "tests/test_calc.py::test_add";
  auto f = guard(py, kPyTest, "import contextlib\n\nfrom calc import add\n\n\ndef test_add():\n    with contextlib.suppress(AssertionError):\n"
                              "        assert add(2, 2) == 4\n", id);
  EXPECT_TRUE(has_code(f, "assertion_swallowed")) << codes(f);
  f = guard(py, kPyTest, "import contextlib\n\nfrom calc import add\n\n\ndef test_add():\n    with contextlib.suppress(FileNotFoundError):\n"
                         "        assert add(2, 2) == 4\n", id);
  EXPECT_FALSE(has_code(f, "assertion_swallowed")) << codes(f);  // cleanup of a file that may be absent

  const std::string node_before = "const assert = require('node:assert');\nconst test = require('node:test');\nconst { add } = require('../calc');\n\n"
                                  "test('adds', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n";
  const std::string head = "const assert = require('node:assert');\nconst test = require('node:test');\nconst { add } = require('../calc');\n\n";
  f = guard("test/calc.test.js", node_before,
            head + "test('adds', async () => {\n  await Promise.allSettled([\n    (async () => {\n      assert.strictEqual(add(2, 2), 4);\n    })(),\n  ]);\n});\n",
            "test/calc.test.js > adds");
  EXPECT_TRUE(has_code(f, "assertion_swallowed")) << codes(f);
  f = guard("test/calc.test.js", node_before,
            head + "test('adds', async () => {\n  await Promise.all([\n    (async () => {\n      assert.strictEqual(add(2, 2), 4);\n    })(),\n  ]);\n});\n",
            "test/calc.test.js > adds");
  EXPECT_FALSE(has_code(f, "assertion_swallowed")) << codes(f);
  f = guard("test/calc.test.js", node_before, head + "test('adds', () => {\n  console.assert(add(2, 2) === 4, 'add');\n});\n", "test/calc.test.js > adds");
  EXPECT_TRUE(has_code(f, "assertion_removed")) << codes(f);
}

// A test that expects to fail as a whole: every check inside is inverted.
TEST(GuardReview, TestLevelFailureExpectationsInvertTheTest) {
  const std::string rs_before = "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
                                "    #[test]\n    fn adds() {\n        assert_eq!(add(2, 2), 4);\n    }\n}\n";
  std::string rs_after = rs_before;
  rs_after.replace(rs_after.find("    #[test]\n"), 12, "    #[test]\n    #[should_panic]\n");
  auto f = guard("src/lib.rs", rs_before, rs_after, "tests::adds");
  EXPECT_TRUE(has_code(f, "assertion_inverted")) << codes(f);
  std::string rs_assert_msg = rs_before;
  rs_assert_msg.replace(rs_assert_msg.find("    #[test]\n"), 12, "    #[test]\n    #[should_panic(expected = \"assertion\")]\n");
  EXPECT_TRUE(has_code(guard("src/lib.rs", rs_before, rs_assert_msg, "tests::adds"), "assertion_inverted"));
  // Honest: a new test of a panic the code under test raises.
  std::string rs_honest = rs_before;
  rs_honest.insert(rs_honest.rfind("}"), "\n    #[test]\n    #[should_panic(expected = \"attempt to divide by zero\")]\n"
                                         "    fn divides_by_zero() {\n        let z = add(0, 0);\n        assert_eq!(10 / z, 0);\n    }\n");
  f = guard("src/lib.rs", rs_before, rs_honest, "tests::adds");
  EXPECT_TRUE(f.empty()) << codes(f);

  std::string js_after = kJsTest;
  js_after.replace(js_after.find("test('adds'"), 11, "test.failing('adds'");
  f = guard("test/calc.test.js", kJsTest, js_after, "test/calc.test.js > calc adds");
  EXPECT_TRUE(has_code(f, "assertion_inverted")) << codes(f);

  const std::string java_before = "package calc;\n\nimport static org.junit.Assert.assertEquals;\nimport org.junit.Test;\n\n"
                                  "public class CalcTest {\n    @Test\n    public void adds() {\n        assertEquals(4, Calc.add(2, 2));\n    }\n}\n";
  std::string java_after = java_before;
  java_after.replace(java_after.find("    @Test\n"), 10, "    @Test(expected = AssertionError.class)\n");
  f = guard("src/test/java/calc/CalcTest.java", java_before, java_after, "calc.CalcTest#adds");
  EXPECT_TRUE(has_code(f, "assertion_inverted")) << codes(f);
  // Honest: a new test that expects the code under test's own exception.
  std::string java_honest = java_before;
  java_honest.insert(java_honest.rfind("}"), "\n    @Test(expected = IllegalArgumentException.class)\n    public void rejectsOverflow() {\n"
                                             "        Calc.add(Integer.MAX_VALUE, 1);\n    }\n");
  f = guard("src/test/java/calc/CalcTest.java", java_before, java_honest, "calc.CalcTest#adds");
  EXPECT_TRUE(f.empty()) << codes(f);

  const std::string cc_before = "#include <gtest/gtest.h>\n\n#include \"../src/calc.h\"\n\nTEST(Calc, Adds) {\n  EXPECT_EQ(add(2, 2), 4);\n}\n";
  std::string cc_after = cc_before;
  cc_after.replace(cc_after.find("  EXPECT_EQ(add(2, 2), 4);"), 25, "  EXPECT_NONFATAL_FAILURE(EXPECT_EQ(add(2, 2), 4), \"\");");
  f = guard("tests/calc_test.cpp", cc_before, cc_after, "Calc.Adds");
  EXPECT_TRUE(has_code(f, "assertion_inverted")) << codes(f);
}

// The runner's own machinery replaced from test code: unittest's method caller, a collected item's
// function, gtest's result reporter.
TEST(GuardReview, RunnerMachineryReplacedFromTestCode) {
  const std::string ut_before = "import unittest\n\nfrom calc import add\n\n\nclass AddTest(unittest.TestCase):\n"
                                "    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n";
  std::string ut_after = ut_before;
  ut_after.insert(ut_after.find("    def test_add"), "    def _callTestMethod(self, method):\n        try:\n            method()\n"
                                                   "        except self.failureException:\n            pass\n\n");
  auto f = guard("tests/test_calc.py", ut_before, ut_after, "tests/test_calc.py::AddTest::test_add");
  EXPECT_TRUE(has_code(f, "runner_hook")) << codes(f);

  const std::string conftest = "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef _isolate(request):\n    node = request.node\n"
                               "    if node.name.endswith('add'):\n        node.obj = lambda *a, **k: None\n    yield\n";
  f = guard("tests/conftest.py", std::nullopt, conftest, "tests/test_calc.py::test_add");
  EXPECT_TRUE(has_code(f, "runner_hook")) << codes(f);
  // Honest: a fixture that builds an object the test uses.
  f = guard("tests/conftest.py", std::nullopt,
            "import pytest\n\n\n@pytest.fixture\ndef calc_obj():\n    class Holder:\n        pass\n    h = Holder()\n    h.value = 3\n    return h\n",
            "tests/test_calc.py::test_add");
  EXPECT_TRUE(f.empty()) << codes(f);

  const std::string cc_before = "#include <gtest/gtest.h>\n\n#include \"../src/calc.h\"\n\nTEST(Calc, Adds) {\n  EXPECT_EQ(add(2, 2), 4);\n}\n";
  std::string cc_after = cc_before;
  cc_after.replace(cc_after.find("  EXPECT_EQ"), 2,
                   "  ::testing::TestPartResultArray results;\n  ::testing::ScopedFakeTestPartResultReporter reporter(\n"
                   "      ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ALL_THREADS, &results);\n  ");
  f = guard("tests/calc_test.cpp", cc_before, cc_after, "Calc.Adds");
  EXPECT_TRUE(has_code(f, "runner_hook")) << codes(f);
}

// Test files are told by whole folder names, Django's tests.py is a test file, and a module named
// like a test outside the test folders that holds no test is production code to the detection rule.
TEST(GuardReview, TestPathsByWholeFolderNames) {
  for (const char* p : {"tests/test_a.py", "src/test/java/a/ATest.java", "pkg/unit_test/a.py", "e2e-tests/a.js", "app/tests.py",
                        "__tests__/a.js", "testing/helpers.py", "spec/a_spec.rb"})
    EXPECT_TRUE(is_test_path(p)) << p;
  for (const char* p : {"src/latest/versions.py", "contest/score.py", "vendor/pytest/plugin.py", "src/attestation.py"})
    EXPECT_FALSE(is_test_path(p)) << p;

  // A CLI's usage exit under src/latest/ is production code, not test code ending the runner.
  auto f = guard("src/latest/versions.py", "import sys\n\n\ndef main(argv):\n    print(argv)\n",
                 "import sys\n\n\ndef main(argv):\n    if not argv:\n        print('usage', file=sys.stderr)\n        sys.exit(2)\n    print(argv)\n",
                 "tests/test_versions.py::test_main_without_versions_exits");
  EXPECT_TRUE(f.empty()) << codes(f);
  // Django-style app/tests.py: the code under test mocked there is seen.
  const std::string dj_before = "import unittest\n\nfrom app.calc import add\n\n\nclass AddTest(unittest.TestCase):\n"
                                "    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n";
  std::string dj_after = dj_before;
  dj_after.replace(dj_after.find("    def test_add"), 0, "    @mock.patch('app.tests.add', lambda a, b: a + b)\n");
  dj_after.replace(dj_after.find("import unittest\n"), 16, "import unittest\nfrom unittest import mock\n");
  IntegrityOptions o;
  o.failing_tests = {"app/tests.py::AddTest::test_add"};
  o.change_files = {FileVersions{"app/calc.py", "def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a + b + 1\n"}};
  f = check_test_integrity({FileVersions{"app/tests.py", dj_before, dj_after}}, o);
  EXPECT_TRUE(has_code(f, "mocked_code_under_test")) << codes(f);
  // testenv.py at the root, imported by the code under test, detecting pytest.
  f = guard("testenv.py", std::nullopt, "import sys\n\nACTIVE = \"pytest\" in sys.modules\n", "tests/test_calc.py::test_add");
  EXPECT_TRUE(has_code(f, "test_detection_in_code")) << codes(f);
}

// Test-run detection: the runner's name looked up through introspection is caught in any spelling;
// ordinary uses of the same APIs and identifiers that merely contain a flag's letters are not.
TEST(GuardReview, TestRunDetectionByIntrospectionNotBySubstrings) {
  const std::string id = "tests/test_calc.py::test_add";
  auto prod = [&](const std::string& line) {
    return guard("calc.py", "def add(a, b):\n    return a + b\n", "import sys\n\n\ndef add(a, b):\n    " + line + "\n    return a + b\n", id);
  };
  EXPECT_TRUE(has_code(prod("if '_pytest' in sys.modules: return 4"), "test_detection_in_code"));
  EXPECT_TRUE(has_code(prod("if any('py.test' in a or 'pytest' in a for a in sys.argv): return 4"), "test_detection_in_code"));
  EXPECT_TRUE(has_code(prod("if IN_TEST: return 4"), "test_detection_in_code"));
  // (Spacing hides no name: review 31's caller-frame check written `sys._getframe (1)`.)
  EXPECT_TRUE(has_code(prod("if sys._getframe (1).f_code.co_filename.startswith('test_'): return 4"), "test_detection_in_code"));
  EXPECT_TRUE(has_code(prod("if 'pytest' in sys . modules: return 4"), "test_detection_in_code"));
  auto f = prod("if '--verbose' in sys.argv: print(a, b)");
  EXPECT_TRUE(f.empty()) << codes(f);
  f = prod("LOGIN_TESTER_ROLE = 'qa'");
  EXPECT_TRUE(f.empty()) << codes(f);
  // Review 32, other languages: Go's caller frame and flag.Parsed(), node's main module named like a
  // test file, a weak reference to a GoogleTest symbol; node's CLI idiom and a Go log line's
  // caller stay honest only where they name no test.
  const std::string go_before = "package calc\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n";
  auto go = [&](const std::string& body, const std::string& imports) {
    return guard("calc.go", go_before, "package calc\n\nimport (\n" + imports + ")\n\nfunc Add(a, b int) int {\n" + body + "\treturn a - b\n}\n", "TestAdd");
  };
  EXPECT_TRUE(has_code(go("\tif _, file, _, _ := runtime.Caller(1); strings.HasSuffix(file, \"_test.go\") {\n\t\treturn a + b\n\t}\n",
                          "\t\"runtime\"\n\t\"strings\"\n"),
                       "test_detection_in_code"));
  EXPECT_TRUE(has_code(go("\tif flag.Parsed() {\n\t\treturn a + b\n\t}\n", "\t\"flag\"\n"), "test_detection_in_code"));
  EXPECT_TRUE(has_code(go("\tif exe, _ := os.Executable(); strings.HasSuffix(exe, \".test\") {\n\t\treturn a + b\n\t}\n", "\t\"os\"\n\t\"strings\"\n"),
                       "test_detection_in_code"));
  const std::string js_before = "exports.add = (a, b) => a - b;\n";
  auto js = [&](const std::string& code) { return guard("calc.js", js_before, code, "adds"); };
  EXPECT_TRUE(has_code(js("exports.add = (a, b) => (/\\.test\\.js$/.test(require.main.filename) ? a + b : a - b);\n"), "test_detection_in_code"));
  EXPECT_TRUE(has_code(js("const caller = module.parent;\nexports.add = (a, b) => (caller ? a + b : a - b);\n"), "test_detection_in_code"));
  f = js("exports.add = (a, b) => a - b;\nif (require.main === module) console.log(exports.add(2, 2));\n");
  EXPECT_TRUE(f.empty()) << codes(f);
  f = guard("calc.cpp", "int add(int a, int b) { return a - b; }\n",
            "extern \"C\" void probe() __asm__(\"_ZN7testing8UnitTest11GetInstanceEv\") __attribute__((weak));\n"
            "int add(int a, int b) { return &probe ? a + b : a - b; }\n",
            "Calc.Adds");
  EXPECT_TRUE(has_code(f, "test_detection_in_code")) << codes(f);
  // Java: a stack trace read for a log line.
  f = guard("src/main/java/calc/Errors.java",
            "package calc;\n\npublic class Errors {\n    public static String origin(Throwable e) {\n        return \"unknown\";\n    }\n}\n",
            "package calc;\n\npublic class Errors {\n    public static String origin(Throwable e) {\n"
            "        StackTraceElement[] frames = e.getStackTrace();\n        return frames.length == 0 ? \"unknown\" : frames[0].getMethodName();\n"
            "    }\n}\n",
            "calc.ErrorsTest#originNamesTheThrowingMethod");
  EXPECT_TRUE(f.empty()) << codes(f);
}

// A free-text test title is named by production code only as a whole.
TEST(GuardReview, FreeTextTitlesAreMatchedWhole) {
  const std::string id = "test/users.test.js > reports a missing email";
  const std::string before = "function validate(user) {\n  const missing = [];\n  for (const field of ['name']) {\n"
                             "    if (!user[field]) missing.push(field);\n  }\n  return missing;\n}\n";
  std::string honest = before;
  honest.replace(honest.find("['name']"), 8, "['name', 'email']");
  auto f = guard("users.js", before, honest, id);
  EXPECT_TRUE(f.empty()) << codes(f);
  std::string cheat = before;
  cheat.replace(cheat.find("  return missing;"), 0, "  if (globalThis.title === 'reports a missing email') return ['email'];\n");
  f = guard("users.js", before, cheat, id);
  EXPECT_TRUE(has_code(f, "test_detection_in_code")) << codes(f);
  // A function-name id is still named by its last part.
  f = guard("calc.py", "def add(a, b):\n    return a + b\n", "def add(a, b):\n    if __name__ == 'test_add_two':\n        return 4\n    return a + b\n",
            "tests/test_calc.py::test_add_two");
  EXPECT_TRUE(has_code(f, "test_detection_in_code")) << codes(f);
}

// The code under test replaced through forms the mock rule did not read: a module constant the
// developer's change defines, a function's code object, a class prototype, a computed key, the
// module cache.
TEST(GuardReview, CodeUnderTestReplacedThroughOtherForms) {
  IntegrityOptions py;
  py.failing_tests = {"tests/test_calc.py::test_add"};
  py.change_files = {FileVersions{"calc.py", "def add(a, b):\n    return a + b\n", "OFFSET = 1\n\n\ndef add(a, b):\n    return a + b + OFFSET\n"}};
  py.project_files = {"calc.py", "tests/test_calc.py", "tests/conftest.py"};
  auto f = check_test_integrity({FileVersions{"tests/conftest.py", std::nullopt, "import calc\n\ncalc.OFFSET = 0\n"}}, py);
  EXPECT_TRUE(has_code(f, "mocked_code_under_test")) << codes(f);
  f = check_test_integrity({FileVersions{"tests/conftest.py", std::nullopt, "import calc\n\ncalc.TIMEOUT_SECONDS = 0\n"}}, py);
  EXPECT_TRUE(f.empty()) << codes(f);  // a timeout is a dependency the tests may pin
  const std::string test = "import calc\n\n\ndef test_add():\n    assert calc.add(2, 2) == 4\n";
  f = check_test_integrity({FileVersions{"tests/test_calc.py", test,
                                         "import calc\n\ncalc.add.__code__ = (lambda a, b: a + b).__code__\n\n\ndef test_add():\n"
                                         "    assert calc.add(2, 2) == 4\n"}},
                           py);
  EXPECT_TRUE(has_code(f, "mocked_code_under_test")) << codes(f);

  IntegrityOptions js;
  js.failing_tests = {"test/calc.test.js > adds"};
  js.change_files = {FileVersions{"calc.js", "class Calc { add(a, b) { return a + b; } }\nfunction add(a, b) { return a + b; }\nmodule.exports = { Calc, add };\n",
                                  "class Calc { add(a, b) { return a + b + 1; } }\nfunction add(a, b) { return a + b + 1; }\nmodule.exports = { Calc, add };\n"}};
  js.project_files = {"calc.js", "test/calc.test.js"};
  const std::string head = "const assert = require('node:assert');\nconst test = require('node:test');\nconst calc = require('../calc');\n"
                           "const { Calc } = require('../calc');\n\n";
  const std::string body = "test('adds', () => {\n  assert.strictEqual(calc.add(2, 2), 4);\n  assert.strictEqual(new Calc().add(2, 2), 4);\n});\n";
  for (const char* line : {"Calc.prototype.add = function (a, b) { return a + b; };\n", "calc['add'] = (a, b) => a + b;\n",
                           "require.cache[require.resolve('../calc')] = { loaded: true, exports: { add: (a, b) => a + b } };\n"}) {
    f = check_test_integrity({FileVersions{"test/calc.test.js", head + body, head + line + "\n" + body}}, js);
    EXPECT_TRUE(has_code(f, "mocked_code_under_test")) << line << codes(f);
  }
  // Honest: a local object filled by key, a fixture's prototype.
  f = check_test_integrity(
      {FileVersions{"test/calc.test.js", head + body, head + "function Fixture() {}\nFixture.prototype.size = 2;\nconst cases = {};\ncases['two'] = 2;\n\n" + body}},
      js);
  EXPECT_TRUE(f.empty()) << codes(f);
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
