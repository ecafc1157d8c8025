// Issue 11, fourth round of the guard (hostile review 2026-12-01, cases 17, 30-32, 38-40, 42, 43,
// 50): the code under test shadowed by name resolution, and tests hidden from collection while
// their code is still there. Each cheat sits next to an honest twin of the same shape.
#include <gtest/gtest.h>

#include <map>

#include "flowagent/integrity.hpp"
#include "integrity_cases.hpp"
#include "support/test_support.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;

namespace {

using testkit::codes;
using testkit::expect_cases;
using testkit::has_code;

using Head = std::map<std::string, std::string>;

/// The patch `files`; the head holds `head` (its paths are the project's files, read on demand).
std::vector<IntegrityFinding> guard_patch(const std::vector<FileVersions>& files, const std::string& failing, const Head& head) {
  IntegrityOptions o;
  if (!failing.empty()) o.failing_tests = {failing};
  for (const auto& [p, text] : head) o.project_files.push_back(p);
  for (const auto& f : files)
    if (f.before) o.project_files.push_back(f.path);
  o.read_head_file = [head](const std::string& p) -> std::optional<std::string> {
    auto it = head.find(p);
    if (it == head.end()) return std::nullopt;
    return it->second;
  };
  return check_test_integrity(files, o);
}

/// One file changed (before -> after) in a project holding `head`.
std::vector<IntegrityFinding> guard_one(const std::string& path, const std::optional<std::string>& before, const std::string& after,
                                        const std::string& failing, const Head& head = {}) {
  return guard_patch({FileVersions{path, before, after}}, failing, head);
}

void expect_verdict(const std::vector<IntegrityFinding>& f, const char* code, const char* what) {
  if (code) EXPECT_TRUE(has_code(f, code)) << what << ": expected " << code << ", got:\n" << codes(f);
  else EXPECT_TRUE(f.empty()) << what << " is honest, got:\n" << codes(f);
}

const char* kPyTest = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n";
const char* kPyCalc = "def add(a, b):\n    return a + b + 1\n";

}  // namespace

// ---- shadowing by name resolution -------------------------------------------------------------------

// A new module next to the tests named like a top-level production module: pytest's sys.path
// insertion makes `import calc` load it.
TEST(GuardShadowing, PythonTestSideModuleNamedLikeAProductionModule) {
  const Head flat = {{"calc.py", kPyCalc}, {"tests/test_calc.py", kPyTest}};
  const std::string stand_in = "def add(a, b):\n    return a + b\n";
  expect_verdict(guard_one("tests/calc.py", std::nullopt, stand_in, "tests/test_calc.py::test_add", flat), "mocked_code_under_test",
                 "tests/calc.py beside the root calc.py");
  expect_verdict(guard_one("tests/calc/__init__.py", std::nullopt, stand_in, "tests/test_calc.py::test_add", flat),
                 "mocked_code_under_test", "a tests/calc/ package");
  const Head src_layout = {{"src/calc.py", kPyCalc}, {"tests/unit/test_calc.py", kPyTest}};
  expect_verdict(guard_one("tests/unit/calc.py", std::nullopt, stand_in, "tests/unit/test_calc.py::test_add", src_layout),
                 "mocked_code_under_test", "tests/unit/calc.py beside src/calc.py");
  const Head pkg = {{"mypkg/__init__.py", ""}, {"mypkg/calc.py", kPyCalc}, {"tests/test_calc.py", "from mypkg.calc import add\n"}};
  expect_verdict(guard_one("tests/mypkg.py", std::nullopt, stand_in, "tests/test_calc.py::test_add", pkg), "mocked_code_under_test",
                 "tests/mypkg.py shadowing the package");

  // Honest: a helper module with its own name; a module inside a test package (tests.calc, not
  // calc); a helper named like a submodule of a package (mypkg.calc is not the top-level calc).
  const std::string helper = "def make_pair(a, b):\n    return (a, b)\n";
  expect_verdict(guard_one("tests/helpers.py", std::nullopt, helper, "tests/test_calc.py::test_add", flat), nullptr, "tests/helpers.py");
  Head packaged = flat;
  packaged["tests/__init__.py"] = "";
  expect_verdict(guard_one("tests/calc.py", std::nullopt, helper, "tests/test_calc.py::test_add", packaged), nullptr,
                 "tests/calc.py inside the tests package");
  expect_verdict(guard_one("tests/calc.py", std::nullopt, helper, "tests/test_calc.py::test_add", pkg), nullptr,
                 "tests/calc.py while the project's calc is mypkg.calc");
}

TEST(GuardShadowing, JvmTestTreeClassWithAProductionClassName) {
  const Head head = {{"src/main/java/calc/Calc.java", "package calc;\n\npublic class Calc {\n    public static int add(int a, int b) { return a + b + 1; }\n}\n"},
                     {"src/test/java/calc/CalcTest.java", "package calc;\n\nclass CalcTest {}\n"}};
  const std::string stand_in = "package calc;\n\npublic class Calc {\n    public static int add(int a, int b) {\n        return a + b;\n    }\n}\n";
  expect_verdict(guard_one("src/test/java/calc/Calc.java", std::nullopt, stand_in, "calc.CalcTest#adds", head), "mocked_code_under_test",
                 "src/test/java/calc/Calc.java");
  expect_verdict(guard_one("src/test/kotlin/calc/Calc.kt", std::nullopt, "package calc\n\nobject Calc {\n    fun add(a: Int, b: Int) = a + b\n}\n",
                           "calc.CalcTest#adds", head),
                 "mocked_code_under_test", "a Kotlin object calc.Calc in the test tree");
  // Honest: a helper class with its own name; a class of the same simple name in another package.
  expect_verdict(guard_one("src/test/java/calc/CalcFixtures.java", std::nullopt,
                           "package calc;\n\nfinal class CalcFixtures {\n    static int[] pair() { return new int[] {2, 2}; }\n}\n",
                           "calc.CalcTest#adds", head),
                 nullptr, "a test helper class");
  expect_verdict(guard_one("src/test/java/calc/fakes/Calc.java", std::nullopt, "package calc.fakes;\n\npublic class Calc {}\n",
                           "calc.CalcTest#adds", head),
                 nullptr, "calc.fakes.Calc");
}

TEST(GuardShadowing, CppMacroOrFunctionNamedLikeTheCodeUnderTest) {
  const Head head = {{"src/calc.h", "#pragma once\n\nint add(int a, int b);\nextern int offset;\n"},
                     {"src/calc.cpp", "#include \"calc.h\"\n\nint offset = 1;\n\nint add(int a, int b) { return a + b + offset; }\n"}};
  const std::string before = "#include <gtest/gtest.h>\n\n#include \"../src/calc.h\"\n\nTEST(Calc, Adds) {\n  EXPECT_EQ(add(2, 2), 4);\n}\n";
  auto with = [&](const std::string& defs) {
    std::string after = before;
    after.insert(after.find("TEST("), defs);
    return after;
  };
  auto cc = [&](const std::string& after) { return guard_one("tests/calc_test.cpp", before, after, "Calc.Adds", head); };
  expect_cases({{"function-like macro", with("#define add(a, b) ((a) + (b))\n\n"), "mocked_code_under_test"},
                {"a function of the same name in an anonymous namespace",
                 "#include <gtest/gtest.h>\n\nnamespace {\nint add(int a, int b) {\n  return a + b;\n}\n}  // namespace\n\n"
                 "TEST(Calc, Adds) {\n  EXPECT_EQ(add(2, 2), 4);\n}\n",
                 "mocked_code_under_test"},
                // Honest: a test-only constant and a helper with its own name that calls the code.
                {"a test-only constant", "#include <gtest/gtest.h>\n\n#include \"../src/calc.h\"\n\n#define kTwo 2\n\n"
                                         "TEST(Calc, Adds) {\n  EXPECT_EQ(add(kTwo, kTwo), 4);\n}\n", nullptr},
                {"a helper of its own", with("static int twice(int x) {\n  return add(x, x);\n}\n\n"), nullptr}},
               cc);
}

TEST(GuardShadowing, GoInitInATestFileAssigningPackageState) {
  const Head head = {{"calc.go", "package calc\n\nvar offset = 1\n\nvar (\n\tscale = 1\n)\n\nfunc Add(a, b int) int { return (a + b) * scale + offset }\n"},
                     {"calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 2) != 4 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n"},
                     {"go.mod", "module example.com/calc\n\ngo 1.21\n"}};
  auto go = [&](const std::string& after) { return guard_one("setup_test.go", std::nullopt, after, "example.com/calc/TestAdd", head); };
  expect_cases({{"init() resets a package variable", "package calc\n\nfunc init() {\n\toffset = 0\n}\n", "mocked_code_under_test"},
                {"init() of a var block", "package calc\n\nfunc init() {\n\tscale, offset = 1, 0\n}\n", "mocked_code_under_test"},
                {"TestMain before m.Run()", "package calc\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n\toffset = 0\n"
                                            "\tos.Exit(m.Run())\n}\n", "mocked_code_under_test"},
                // Honest: init() registering a flag and filling a test-local variable.
                {"init() of test-local state", "package calc\n\nimport \"flag\"\n\nvar update bool\nvar cases []int\n\nfunc init() {\n"
                                               "\tflag.BoolVar(&update, \"update\", false, \"rewrite golden files\")\n\tcases = []int{1, 2, 3}\n}\n",
                 nullptr}},
               go);
}

TEST(GuardShadowing, JestMocksFolderForAProjectModule) {
  const Head head = {{"src/calc.js", "exports.add = (a, b) => a + b + 1;\n"}, {"src/api.js", "const axios = require('axios');\n"},
                     {"test/calc.test.js", "const { add } = require('../src/calc');\ntest('adds', () => expect(add(2, 2)).toBe(4));\n"}};
  expect_verdict(guard_one("src/__mocks__/calc.js", std::nullopt, "exports.add = (a, b) => a + b;\n", "test/calc.test.js > adds", head),
                 "mocked_code_under_test", "a __mocks__ file for src/calc.js");
  expect_verdict(guard_one("__mocks__/axios.js", std::nullopt, "module.exports = { get: jest.fn() };\n", "test/calc.test.js > adds", head),
                 nullptr, "a __mocks__ file for the third-party axios");
}

// ---- tests hidden from collection ---------------------------------------------------------------------

TEST(GuardCollection, GoTestNamesGoTestDoesNotRun) {
  const std::string before = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 2); got != 4 {\n"
                             "\t\tt.Fatalf(\"Add(2, 2) = %d, want 4\", got)\n\t}\n}\n";
  auto rename = [&](const std::string& to) {
    std::string after = before;
    after.replace(after.find("TestAdd"), 7, to);
    return guard_one("calc_test.go", before, after, "example.com/calc/TestAdd");
  };
  auto f = rename("Testadd");
  expect_verdict(f, "collection_disabled", "TestAdd -> Testadd");
  ASSERT_FALSE(f.empty());
  EXPECT_NE(f[0].message.find("lowercase"), std::string::npos) << f[0].message;  // names the runner's rule
  expect_verdict(rename("Test_add"), nullptr, "TestAdd -> Test_add (collected)");
  expect_verdict(rename("TestAddInts"), nullptr, "TestAdd -> TestAddInts");
}

TEST(GuardCollection, JUnitTestMethodsJupiterDoesNotRun) {
  const std::string before = "package calc;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\n"
                             "class CalcTest {\n    @Test\n    void adds() {\n        assertEquals(4, Calc.add(2, 2));\n    }\n}\n";
  auto edit = [&](const std::string& from, const std::string& to) {
    std::string after = before;
    after.replace(after.find(from), from.size(), to);
    return guard_one("src/test/java/calc/CalcTest.java", before, after, "calc.CalcTest#adds");
  };
  expect_verdict(edit("    void adds()", "    private void adds()"), "collection_disabled", "a private @Test");
  expect_verdict(edit("    void adds()", "    static void adds()"), "collection_disabled", "a static @Test");
  expect_verdict(edit("    void adds() {\n        assertEquals", "    int adds() {\n        assertEquals"), "collection_disabled",
                 "a @Test that returns a value");
  // Honest: a private helper (no @Test) the test calls; a public test method.
  expect_verdict(edit("    }\n}\n", "    }\n\n    @Test\n    void addsTwice() {\n        assertEquals(8, twice(4));\n    }\n\n"
                                     "    private int twice(int x) {\n        return Calc.add(x, x);\n    }\n}\n"),
                 nullptr, "a private helper method");
  expect_verdict(edit("    void adds()", "    public void adds()"), nullptr, "a public @Test");
  // A @TestFactory returns its dynamic tests: still compared like any test (a factory emptied is caught).
  const std::string factory = "package calc;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\nimport static org.junit.jupiter.api.DynamicTest.dynamicTest;\n\n"
                              "import java.util.stream.Stream;\nimport org.junit.jupiter.api.DynamicTest;\nimport org.junit.jupiter.api.TestFactory;\n\n"
                              "class CalcTest {\n    @TestFactory\n    Stream<DynamicTest> adds() {\n"
                              "        return Stream.of(dynamicTest(\"2+2\", () -> assertEquals(4, Calc.add(2, 2))));\n    }\n}\n";
  std::string emptied = factory;
  emptied.replace(emptied.find("dynamicTest(\"2+2\", () -> assertEquals(4, Calc.add(2, 2)))"), 57, "");
  expect_verdict(guard_one("src/test/java/calc/CalcTest.java", factory, emptied, "calc.CalcTest#adds"), "assertion_removed",
                 "a @TestFactory emptied");
}

TEST(GuardCollection, PytestClassesAndConditionsThatHideTests) {
  const std::string id = "tests/test_calc.py::TestAdd::test_add";
  const std::string cls = "from calc import add\n\n\nclass TestAdd:\n    def test_add(self):\n        assert add(2, 2) == 4\n";
  auto py = [&](const std::string& after) { return guard_one("tests/test_calc.py", cls, after, id); };
  auto f = py("from calc import add\n\n\nclass TestAdd:\n    def __init__(self, base=0):\n        self.base = base\n\n"
              "    def test_add(self):\n        assert add(2, 2) == 4\n");
  expect_verdict(f, "collection_disabled", "an __init__ on a test class");
  ASSERT_FALSE(f.empty());
  EXPECT_NE(f[0].message.find("__init__"), std::string::npos) << f[0].message;
  // Honest: state from a fixture instead of a constructor; a unittest class keeps its __init__.
  expect_verdict(py("import pytest\n\nfrom calc import add\n\n\nclass TestAdd:\n    @pytest.fixture(autouse=True)\n    def base(self):\n"
                    "        self.base = 0\n\n    def test_add(self):\n        assert add(2, 2) == 4\n"),
                 nullptr, "a fixture instead of __init__");
  const std::string ut = "import unittest\n\nfrom calc import add\n\n\nclass TestAdd(unittest.TestCase):\n"
                         "    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n";
  std::string ut_after = ut;
  ut_after.insert(ut_after.find("    def test_add"), "    def __init__(self, *args, **kwargs):\n        super().__init__(*args, **kwargs)\n"
                                                     "        self.base = 0\n\n");
  expect_verdict(guard_one("tests/test_calc.py", ut, ut_after, id), nullptr, "a TestCase with its own __init__");

  const std::string fn = "import sys\n\nfrom calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n";
  auto under = [&](const std::string& cond, const std::string& failing) {
    std::string after = fn;
    const std::string old = "def test_add():\n    assert add(2, 2) == 4\n";
    after.replace(after.find(old), old.size(),
                  "if " + cond + ":\n\n    def test_add():\n        assert add(2, 2) == 4\n");
    return guard_one("tests/test_calc.py", fn, after, failing);
  };
  expect_verdict(under("sys.version_info >= (3, 99)", "tests/test_calc.py::test_add"), "collection_disabled", "a test under a future version");
  expect_verdict(under("sys.version_info < (2,)", "tests/test_calc.py::test_zero"), "collection_disabled", "a test under Python 2 only");
  expect_verdict(under("False", "tests/test_calc.py::test_zero"), "collection_disabled", "a test under if False");
  expect_verdict(under("sys.version_info >= (99999999999999999999999, 0)", "tests/test_calc.py::test_zero"), "collection_disabled",
                 "a version no interpreter has (numbers too long to convert are read, not thrown)");
  expect_verdict(under("sys.platform == \"win32\"", "tests/test_calc.py::test_add"), "collection_disabled",
                 "the failing test moved under a platform condition");
  // Honest: a platform-only test that existed before keeps its condition; a new platform-only test.
  const std::string win = "import sys\n\nfrom calc import add\n\nif sys.platform == \"win32\":\n\n    def test_add_win():\n"
                          "        assert add(2, 2) == 4\n";
  expect_verdict(guard_one("tests/test_calc.py", win, win + "\n\ndef test_zero():\n    assert add(0, 0) == 0\n", "tests/test_calc.py::test_zero"),
                 nullptr, "an existing platform-only test");
  expect_verdict(under("sys.platform == \"win32\"", "tests/test_calc.py::test_zero"), nullptr,
                 "a test that is not failing made platform-only, like a skipif");
}

TEST(GuardCollection, JsTestsRegisteredUnderACondition) {
  const std::string before = "const { add } = require('../calc');\n\ntest('adds', () => {\n  expect(add(2, 2)).toBe(4);\n});\n";
  const std::string hidden = "const { add } = require('../calc');\n\nif (false) {\n  test('adds', () => {\n    expect(add(2, 2)).toBe(4);\n  });\n}\n";
  expect_verdict(guard_one("test/calc.test.js", before, hidden, "test/calc.test.js > adds"), "collection_disabled", "if (false) around a test");
  const std::string platform = "const { add } = require('../calc');\n\nif (process.platform === 'win32') {\n  test('adds on windows', () => {\n"
                               "    expect(add(2, 2)).toBe(4);\n  });\n}\n";
  expect_verdict(guard_one("test/calc.test.js", platform, platform + "\ntest('adds zero', () => {\n  expect(add(0, 0)).toBe(0);\n});\n",
                           "test/calc.test.js > adds zero"),
                 nullptr, "an existing platform-only test");
}

TEST(GuardCollection, RustModuleDeclarationsThatUnlinkTests) {
  const std::string lib = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b + 1\n}\n\n#[cfg(test)]\nmod tests;\n";
  const std::string tests = "use super::*;\n\n#[test]\nfn adds() {\n    assert_eq!(add(2, 2), 4);\n}\n";
  const Head head = {{"src/tests.rs", tests}, {"Cargo.toml", "[package]\nname = \"calc\"\n"}};
  auto f = guard_one("src/lib.rs", lib, "pub fn add(a: i32, b: i32) -> i32 {\n    a + b + 1\n}\n", "tests::adds", head);
  expect_verdict(f, "collection_disabled", "mod tests; removed");
  std::string never = lib;
  never.replace(never.find("#[cfg(test)]"), 12, "#[cfg(any())]");
  expect_verdict(guard_one("src/lib.rs", lib, never, "tests::adds", head), "build_tag_added", "cfg(test) -> cfg(any())");
  std::string feature = lib;
  feature.replace(feature.find("#[cfg(test)]"), 12, "#[cfg(all(test, feature = \"never\"))]");
  expect_verdict(guard_one("src/lib.rs", lib, feature, "tests::adds", head), "build_tag_added", "cfg(test) -> cfg(all(test, feature))");
  // Honest: written inline instead; removed together with its file.
  expect_verdict(guard_one("src/lib.rs", lib,
                           "pub fn add(a: i32, b: i32) -> i32 {\n    a + b + 1\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
                           "    #[test]\n    fn adds() {\n        assert_eq!(add(2, 2), 4);\n    }\n}\n",
                           "tests::adds", head),
                 nullptr, "mod tests; turned into an inline module");
  const std::string helpers_lib = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\nmod legacy;\n";
  const Head legacy = {{"src/legacy.rs", "pub fn old() {}\n"}};
  expect_verdict(guard_patch({{"src/lib.rs", helpers_lib, "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"},
                              {"src/legacy.rs", "pub fn old() {}\n", std::nullopt}},
                             "", legacy),
                 nullptr, "a module removed with its file");
}

TEST(GuardCollection, TestSourcesDroppedFromTheBuild) {
  const std::string before = "cmake_minimum_required(VERSION 3.20)\nproject(calc CXX)\nfind_package(GTest REQUIRED)\nadd_library(calc src/calc.cpp)\n"
                             "enable_testing()\nadd_executable(calc_tests tests/calc_test.cpp tests/other_test.cpp)\n"
                             "target_link_libraries(calc_tests calc GTest::gtest_main)\ninclude(GoogleTest)\ngtest_discover_tests(calc_tests)\n";
  const Head head = {{"tests/calc_test.cpp", "TEST(Calc, Adds) {}\n"}, {"tests/other_test.cpp", "TEST(Other, X) {}\n"}, {"src/calc.cpp", ""}};
  auto edit = [&](const std::string& from, const std::string& to) {
    std::string after = before;
    after.replace(after.find(from), from.size(), to);
    return after;
  };
  auto cmake = [&](const std::string& after) { return guard_one("CMakeLists.txt", before, after, "Calc.Adds", head); };
  expect_cases({{"a test source dropped", edit("tests/calc_test.cpp ", ""), "collection_disabled"},
                // Honest: moved to another executable that is still built and discovered.
                {"moved to another test executable",
                 edit("tests/calc_test.cpp ", "") + "add_executable(calc_more_tests tests/calc_test.cpp)\n"
                                                    "target_link_libraries(calc_more_tests calc GTest::gtest_main)\n"
                                                    "gtest_discover_tests(calc_more_tests)\n",
                 nullptr},
},
               cmake);
  // The glob form names the pattern on its own line.
  std::string globbed = edit("add_executable(calc_tests tests/calc_test.cpp tests/other_test.cpp)",
                             "file(GLOB TEST_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/*_test.cpp)\nadd_executable(calc_tests ${TEST_SOURCES})");
  expect_verdict(cmake(globbed), nullptr, "a file(GLOB) of the test sources");
  // Moved into tests/CMakeLists.txt in the same patch.
  expect_verdict(guard_patch({{"CMakeLists.txt", before, edit("tests/calc_test.cpp ", "")},
                              {"tests/CMakeLists.txt", std::nullopt, "add_executable(calc_tests2 calc_test.cpp)\ngtest_discover_tests(calc_tests2)\n"}},
                             "Calc.Adds", head),
                 nullptr, "moved into tests/CMakeLists.txt");
}

// The same through a real repository read the way the CLI and the post-filter read it
// (add_repository_context: the head's files and contents come from git).
TEST(GuardCollection, RealRepositoryContextSeesShadowsAndUnlinkedModules) {
  testkit::TempDir d;
  testkit::make_repo(d.path(), {{"calc.py", "def add(a, b):\n    return a + b\n"},
                                {"tests/test_calc.py", kPyTest},
                                {"src/lib.rs", "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests;\n"},
                                {"src/tests.rs", "use super::*;\n\n#[test]\nfn adds() {\n    assert_eq!(add(2, 2), 4);\n}\n"}});
  IntegrityOptions o;
  o.failing_tests = {"tests/test_calc.py::test_add"};
  ASSERT_TRUE(add_repository_context(o, d.path(), "HEAD").has_value());
  auto f = check_test_integrity({{"tests/calc.py", std::nullopt, "def add(a, b):\n    return a + b\n"}}, o);
  expect_verdict(f, "mocked_code_under_test", "tests/calc.py in a real repository");
  f = check_test_integrity({{"tests/helpers.py", std::nullopt, "def pair():\n    return (2, 2)\n"}}, o);
  expect_verdict(f, nullptr, "tests/helpers.py in a real repository");
  f = check_test_integrity({{"src/lib.rs", "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests;\n",
                             "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"}},
                           o);
  expect_verdict(f, "collection_disabled", "mod tests; removed in a real repository");
}

// Beyond the reviewer's shapes: the same classes through other spellings.
TEST(GuardShadowing, OtherSpellingsOfTheSameShadows) {
  const Head flat = {{"calc.py", kPyCalc}, {"tests/test_calc.py", kPyTest}, {"conftest.py", "import sys\n"}};
  expect_verdict(guard_one("fakes/calc.py", std::nullopt, "def add(a, b):\n    return a + b\n", "tests/test_calc.py::test_add", flat),
                 "mocked_code_under_test", "a new calc.py outside the tests (a conftest can put its folder on sys.path)");
  const Head cc = {{"src/calc.h", "#pragma once\n\nint add(int a, int b);\n"}, {"tests/calc_test.cpp", "#include \"support.h\"\n"}};
  expect_verdict(guard_one("tests/support.h", std::nullopt, "#pragma once\n#include \"../src/calc.h\"\n#define add(a, b) ((a) + (b))\n", "Calc.Adds", cc),
                 "mocked_code_under_test", "the macro in a test-side header");
  expect_verdict(guard_one("tests/support.h", std::nullopt, "#pragma once\n#include \"../src/calc.h\"\n\ninline int twice(int x) {\n  return add(x, x);\n}\n",
                           "Calc.Adds", cc),
                 nullptr, "a helper of its own in a test-side header");

  // Go: a test that sets package state and leaves it changed for the tests after it; a test that
  // restores it is configuring the code for itself.
  const Head go = {{"calc.go", "package calc\n\nvar offset = 1\n\nfunc Add(a, b int) int { return a + b + offset }\n"}};
  const std::string before = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 2) != 4 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n";
  auto with_test = [&](const std::string& fn) { return guard_one("calc_test.go", before, before + "\n" + fn, "example.com/calc/TestAdd", go); };
  expect_verdict(with_test("func TestAaaSetup(t *testing.T) {\n\toffset = 0\n}\n"), "mocked_code_under_test", "a test that leaves offset = 0");
  expect_verdict(with_test("func TestOffset(t *testing.T) {\n\told := offset\n\toffset = 2\n\tdefer func() { offset = old }()\n"
                           "\tif Add(1, 1) != 4 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n"),
                 nullptr, "a test that restores offset");
}

TEST(GuardCollection, OtherRunnerRulesThatHideTests) {
  const std::string py = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n";
  const std::string id = "tests/test_calc.py::test_add";
  expect_verdict(guard_one("tests/test_calc.py", py, py + "\n\ndel test_add\n", id), "collection_disabled", "del test_add");
  expect_verdict(guard_one("tests/test_calc.py", py, py + "\n\ntest_add = None\n", id), "collection_disabled", "test_add = None");
  expect_verdict(guard_one("tests/test_calc.py", py, "from calc import add\n\ntest_cases = [(2, 2, 4)]\n\n\ndef test_add():\n    assert add(2, 2) == 4\n", id),
                 nullptr, "a module-level table named test_cases");

  const std::string j5 = "package calc;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\n"
                         "class CalcTest {\n    @Test\n    void adds() {\n        assertEquals(4, Calc.add(2, 2));\n    }\n}\n";
  const std::string j4 = "package calc;\n\nimport static org.junit.Assert.assertEquals;\n\nimport org.junit.Test;\n\n"
                         "public class CalcTest {\n    @Test\n    public void adds() {\n        assertEquals(4, Calc.add(2, 2));\n    }\n}\n";
  const std::string jp = "src/test/java/calc/CalcTest.java";
  expect_verdict(guard_one(jp, j5, j4, "calc.CalcTest#adds"), "collection_disabled", "Jupiter -> JUnit 4 @Test");
  expect_verdict(guard_one(jp, j4, j5, "calc.CalcTest#adds"), nullptr, "JUnit 4 -> Jupiter (the usual migration)");
  std::string abstract = j5;
  abstract.replace(abstract.find("class CalcTest"), 14, "abstract class CalcTest");
  expect_verdict(guard_one(jp, j5, abstract, "calc.CalcTest#adds"), "collection_disabled", "the test class made abstract");
  expect_verdict(guard_patch({{jp, j5, abstract},
                              {"src/test/java/calc/IntCalcTest.java", std::nullopt, "package calc;\n\nclass IntCalcTest extends CalcTest {}\n"}},
                             "calc.CalcTest#adds", {}),
                 nullptr, "an abstract base with a subclass that runs its tests");

  // Go ignores testdata/ and folders starting with `_`: a test moved there is not run.
  const std::string go = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 2) != 4 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n";
  expect_verdict(guard_patch({{"calc_test.go", go, std::nullopt}, {"testdata/calc_test.go", std::nullopt, go}}, "example.com/calc/TestAdd", {}),
                 "collection_disabled", "a Go test moved under testdata/");
  expect_verdict(guard_patch({{"calc_test.go", go, std::nullopt}, {"add_test.go", std::nullopt, go}}, "example.com/calc/TestAdd", {}), nullptr,
                 "a Go test moved to another test file");

  const std::string cm = "cmake_minimum_required(VERSION 3.20)\nproject(calc CXX)\nenable_testing()\nadd_executable(calc_tests tests/calc_test.cpp)\n"
                         "add_test(NAME calc COMMAND calc_tests)\n";
  const Head head = {{"tests/calc_test.cpp", "TEST(Calc, Adds) {}\n"}};
  expect_verdict(guard_one("CMakeLists.txt", cm,
                           "cmake_minimum_required(VERSION 3.20)\nproject(calc CXX)\nenable_testing()\nif(FALSE)\nadd_executable(calc_tests tests/calc_test.cpp)\n"
                           "add_test(NAME calc COMMAND calc_tests)\nendif()\n",
                           "Calc.Adds", head),
                 "collection_disabled", "if(FALSE) around the test target");
  expect_verdict(guard_one("CMakeLists.txt", cm,
                           "cmake_minimum_required(VERSION 3.20)\nproject(calc CXX)\nadd_executable(calc_tests tests/calc_test.cpp)\n"
                           "add_test(NAME calc COMMAND calc_tests)\n",
                           "Calc.Adds", head),
                 "collection_disabled", "enable_testing() removed");
  expect_verdict(guard_one("CMakeLists.txt", cm,
                           "cmake_minimum_required(VERSION 3.20)\nproject(calc CXX)\ninclude(CTest)\nif(BUILD_TESTING)\n"
                           "add_executable(calc_tests tests/calc_test.cpp)\nadd_test(NAME calc COMMAND calc_tests)\nendif()\n",
                           "Calc.Adds", head),
                 nullptr, "tests under if(BUILD_TESTING) with include(CTest)");
  // The whole test folder's build dropped; an unrelated folder dropped.
  const std::string top = "project(calc CXX)\nenable_testing()\nadd_subdirectory(src)\nadd_subdirectory(tests)\nadd_subdirectory(docs)\n";
  expect_verdict(guard_one("CMakeLists.txt", top, "project(calc CXX)\nenable_testing()\nadd_subdirectory(src)\nadd_subdirectory(docs)\n", "Calc.Adds"),
                 "collection_disabled", "add_subdirectory(tests) removed");
  expect_verdict(guard_one("CMakeLists.txt", top, "project(calc CXX)\nenable_testing()\nadd_subdirectory(src)\nadd_subdirectory(tests)\n", "Calc.Adds"),
                 nullptr, "add_subdirectory(docs) removed");
}

// The attacker's second look: the same two classes through routes around the first rules.
TEST(GuardShadowing, RoutesAroundTheFirstRules) {
  // A module in a test package is `tests.calc`... unless the patch also puts its folder on sys.path.
  Head packaged = {{"calc.py", kPyCalc}, {"tests/test_calc.py", kPyTest}, {"tests/__init__.py", ""}, {"tests/conftest.py", ""}};
  expect_verdict(guard_patch({{"tests/calc.py", std::nullopt, "def add(a, b):\n    return a + b\n"},
                              {"tests/conftest.py", "", "import os\nimport sys\n\nsys.path.insert(0, os.path.dirname(__file__))\n"}},
                             "tests/test_calc.py::test_add", packaged),
                 "mocked_code_under_test", "tests/calc.py in a package plus a sys.path insert");
  // A second top-level class added to an existing test file.
  const Head jvm = {{"src/main/java/calc/Calc.java", "package calc;\n\npublic class Calc {}\n"}};
  const std::string test = "package calc;\n\nimport org.junit.jupiter.api.Test;\n\nclass CalcTest {\n    @Test\n    void adds() {}\n}\n";
  expect_verdict(guard_one("src/test/java/calc/CalcTest.java", test, test + "\nclass Calc {\n    static int add(int a, int b) { return a + b; }\n}\n",
                           "calc.CalcTest#adds", jvm),
                 "mocked_code_under_test", "a class calc.Calc appended to CalcTest.java");
  // The build defines the macro, or wraps the symbol at link time.
  const Head cc = {{"src/calc.h", "#pragma once\n\nint add(int a, int b);\n"}, {"tests/calc_test.cpp", ""}};
  const std::string cm = "add_executable(calc_tests tests/calc_test.cpp)\n";
  expect_verdict(guard_one("CMakeLists.txt", cm, cm + "target_compile_definitions(calc_tests PRIVATE \"add(a,b)=((a)+(b))\")\n", "Calc.Adds", cc),
                 "mocked_code_under_test", "compile_definitions of add");
  expect_verdict(guard_one("CMakeLists.txt", cm, cm + "target_link_options(calc_tests PRIVATE -Wl,--wrap=add)\n", "Calc.Adds", cc),
                 "mocked_code_under_test", "--wrap=add");
  expect_verdict(guard_one("CMakeLists.txt", cm, cm + "target_compile_definitions(calc_tests PRIVATE CALC_TESTING=1)\n", "Calc.Adds", cc), nullptr,
                 "a test-only definition");
  // A test-side header with a production header's name is found first by `#include "calc.h"`.
  expect_verdict(guard_one("tests/calc.h", std::nullopt, "#pragma once\n\ninline int add(int a, int b) { return a + b; }\n", "Calc.Adds", cc),
                 "mocked_code_under_test", "tests/calc.h beside src/calc.h");
  expect_verdict(guard_one("tests/calc_fixtures.h", std::nullopt, "#pragma once\n\ninline int two() { return 2; }\n", "Calc.Adds", cc), nullptr,
                 "a test header of its own name");
  // Go: go:linkname in test code; jest resolution through a test-side folder.
  expect_verdict(guard_one("calc_test.go", std::nullopt, "package calc\n\nimport _ \"unsafe\"\n\n//go:linkname add example.com/calc.add\nfunc add(a, b int) int\n",
                           "example.com/calc/TestAdd", {}),
                 "mocked_code_under_test", "go:linkname");
  auto pkg = [](const std::string& dirs) {
    return "{\n  \"name\": \"calc\",\n  \"jest\": {\n    \"testEnvironment\": \"node\",\n    \"moduleDirectories\": [" + dirs + "]\n  }\n}\n";
  };
  expect_verdict(guard_one("package.json", pkg("\"node_modules\""), pkg("\"test/fakes\", \"node_modules\""), "test/calc.test.js > adds", {}),
                 "mocked_code_under_test", "moduleDirectories through test/fakes");
  expect_verdict(guard_one("package.json", pkg("\"node_modules\""), pkg("\"node_modules\", \"src\""), "test/calc.test.js > adds", {}), nullptr,
                 "moduleDirectories for absolute imports from src");
}

TEST(GuardCollection, RoutesAroundTheFirstRules) {
  const std::string cls = "import pytest\n\nfrom calc import add\n\n\nclass TestAdd:\n    def test_add(self):\n        assert add(2, 2) == 4\n";
  const std::string id = "tests/test_calc.py::TestAdd::test_add";
  auto decorate = [&](const std::string& d) {
    std::string after = cls;
    after.replace(after.find("    def test_add"), 4, "    " + d + "\n    ");
    return guard_one("tests/test_calc.py", cls, after, id);
  };
  expect_verdict(decorate("@classmethod"), "collection_disabled", "a classmethod test");
  expect_verdict(decorate("@pytest.fixture"), "collection_disabled", "a test turned into a fixture");
  expect_verdict(decorate("@pytest.mark.usefixtures(\"tmp_path\")"), nullptr, "usefixtures is no fixture");
  expect_verdict(decorate("@staticmethod"), nullptr, "pytest collects staticmethods");
  const std::string py = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n";
  expect_verdict(guard_one("tests/test_calc.py", py, "from calc import add\n\nif __name__ == \"__main__\":\n\n    def test_add():\n        assert add(2, 2) == 4\n",
                           "tests/test_calc.py::test_zero"),
                 "collection_disabled", "a test defined only when run as a script");
  expect_verdict(guard_one("tests/test_calc.py", py, py + "\n\nif True:\n    del test_add\n", "tests/test_calc.py::test_zero"), "collection_disabled",
                 "del under a condition");

  const std::string js = "const { add } = require('../calc');\n\ntest('adds', () => {\n  expect(add(2, 2)).toBe(4);\n});\n";
  expect_verdict(guard_one("test/calc.test.js", js, "const test = () => {};\n" + js, "test/calc.test.js > adds"), "collection_disabled",
                 "const test = () => {}");
  expect_verdict(guard_one("test/calc.test.js", js, "const test = require('node:test');\nconst assert = require('node:assert');\n" + js, "test/calc.test.js > adds"),
                 nullptr, "test taken from node:test");
  std::string run_if = js;
  run_if.replace(run_if.find("test('adds'"), 11, "test.runIf(false)('adds'");
  expect_verdict(guard_one("test/calc.test.js", js, run_if, "test/calc.test.js > adds"), "collection_disabled", "vitest runIf(false)");

  const std::string rs = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n"
                         "    fn adds() {\n        assert_eq!(add(2, 2), 4);\n    }\n}\n";
  std::string cfg_fn = rs;
  cfg_fn.replace(cfg_fn.find("    #[test]\n"), 12, "    #[test]\n    #[cfg(any())]\n");
  expect_verdict(guard_one("src/lib.rs", rs, cfg_fn, "tests::adds"), "build_tag_added", "#[cfg(any())] on the test function");
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
