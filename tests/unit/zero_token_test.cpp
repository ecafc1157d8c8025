// The zero-token tier end to end: real repositories in Python, C++, JavaScript, Java and Go whose
// change legitimately moved a value; no model at all (spec "builtin").
#include <gtest/gtest.h>

#include "flowagent/git_workspace.hpp"
#include "flowagent/integrity.hpp"
#include "support/test_support.hpp"

#include <fstream>

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::testkit;

namespace {

struct Case {
  TempDir tmp;
  fs::path repo = tmp.path() / "repo";
  RepairRequest req;

  Case(const std::vector<std::pair<std::string, std::string>>& base_files,
       const std::vector<std::pair<std::string, std::string>>& change, const std::string& test_cmd,
       std::vector<std::string> failing, const std::string& build_cmd = "") {
    auto base = make_repo(repo, base_files);
    auto head = commit_files(repo, change, "Change the behaviour on purpose");
    req.repository = repo.string();
    req.change = {"zt", 1, base, head, "Change the behaviour on purpose", {"Dev", "d@x", AuthorKind::person}, {}};
    for (const auto& [p, c] : change) req.change.files.push_back({p, 1, 1, false});
    req.failure.failing_tests = std::move(failing);
    req.commands.test = test_cmd;
    req.commands.build = build_cmd;
    req.commands.timeout_seconds = 300;
    req.model.spec = "builtin";
  }

  RepairResult run(bool accept_exit_code_evidence = false) {
    AgentOptions o;
    ValidatorOptions v;
    v.accept_exit_code_evidence = accept_exit_code_evidence;
    o.validator = make_command_validator(v);
    GitWorkspaceOptions w;
    w.root = tmp.path() / "pool";
    o.workspaces = make_git_workspace_provider(w);
    auto agent = Agent::create(o);
    EXPECT_TRUE(agent);
    return (*agent)->run(req);
  }
};

void expect_fixed(const RepairResult& r, const std::string& test_file, const std::string& old_line,
                  const std::string& new_line) {
  EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
  EXPECT_NE(r.patch.find("--- a/" + test_file), std::string::npos) << r.patch;
  EXPECT_NE(r.patch.find("-" + old_line + "\n+" + new_line + "\n"), std::string::npos) << r.patch;
  EXPECT_EQ(std::count(r.patch.begin(), r.patch.end(), '@'), 4) << "one hunk only:\n" << r.patch;
  EXPECT_NE(r.summary.find("moved"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("onfirm"), std::string::npos) << r.summary;
  EXPECT_EQ(r.metrics.model_calls, 0);
}

}  // namespace

TEST(ZeroToken, PythonString) {
  Case c({{"greet.py", "def greet(name):\n    return 'hello ' + name\n"},
          {"tests/test_greet.py", "from greet import greet\n\n\ndef test_greet():\n    assert greet(\"world\") == \"hello world\"\n"}},
         {{"greet.py", "def greet(name):\n    return 'Hello, ' + name + '!'\n"}},
         "/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}", {"tests/test_greet.py::test_greet"});
  auto r = c.run();
  expect_fixed(r, "tests/test_greet.py", "    assert greet(\"world\") == \"hello world\"",
               "    assert greet(\"world\") == \"Hello, world!\"");
}

TEST(ZeroToken, CppNumber) {
  Case c({{"CMakeLists.txt", "cmake_minimum_required(VERSION 3.20)\nproject(z CXX)\nfind_package(GTest REQUIRED)\n"
                             "add_executable(calc_test calc_test.cc calc.cc)\ntarget_link_libraries(calc_test GTest::gtest_main)\n"},
          {"calc.cc", "int scale(int x) { return x * 2; }\n"},
          {"calc_test.cc", "#include <gtest/gtest.h>\nint scale(int x);\nTEST(Calc, Scale) {\n  EXPECT_EQ(scale(3), 6);\n}\n"},
          {".gitignore", "build/\n"}},
         {{"calc.cc", "int scale(int x) { return x * 3; }\n"}}, "./build/calc_test --gtest_filter={tests|:}",
         {"Calc.Scale"}, "cmake -S . -B build -G Ninja >/dev/null && cmake --build build");
  auto r = c.run();
  expect_fixed(r, "calc_test.cc", "  EXPECT_EQ(scale(3), 6);", "  EXPECT_EQ(scale(3), 9);");
}

TEST(ZeroToken, JavaScriptNodeTest) {
  Case c({{"version.js", "module.exports = () => 'v1';\n"},
          {"test/version.test.js", "const test = require('node:test');\nconst assert = require('node:assert');\n"
                                   "const version = require('../version');\n\ntest('reports the version', () => {\n"
                                   "  assert.strictEqual(version(), 'v1');\n});\n"}},
         {{"version.js", "module.exports = () => 'v2';\n"}}, "node --test --test-reporter=tap", {"reports the version"});
  auto r = c.run();
  expect_fixed(r, "test/version.test.js", "  assert.strictEqual(version(), 'v1');", "  assert.strictEqual(version(), 'v2');");
}

TEST(ZeroToken, JavaJUnitStyleOutput) {
  // A tiny harness prints JUnit 5 / Surefire failures ("expected: <4> but was: <5>") with the test's frame.
  const std::string harness =
      "package calc;\n\npublic class CalcTest {\n    static void assertEquals(int expected, int actual) {\n"
      "        if (expected != actual) throw new AssertionError(\"expected: <\" + expected + \"> but was: <\" + actual + \">\");\n"
      "    }\n\n    void testAdd() {\n        assertEquals(4, Calc.add(2, 2));\n    }\n\n"
      "    public static void main(String[] args) {\n        try {\n            new CalcTest().testAdd();\n"
      "            System.out.println(\"[INFO] calc.CalcTest.testAdd -- ok\");\n        } catch (AssertionError e) {\n"
      "            int line = 0;\n            for (StackTraceElement f : e.getStackTrace()) if (f.getMethodName().equals(\"testAdd\")) line = f.getLineNumber();\n"
      "            System.out.println(\"[ERROR] calc.CalcTest.testAdd -- Time elapsed: 0.01 s <<< FAILURE!\");\n"
      "            System.out.println(\"org.opentest4j.AssertionFailedError: \" + e.getMessage());\n"
      "            System.out.println(\"\\tat calc.CalcTest.testAdd(CalcTest.java:\" + line + \")\");\n"
      "            System.out.println();\n            System.exit(1);\n        }\n    }\n}\n";
  Case c({{"src/main/java/calc/Calc.java", "package calc;\n\npublic class Calc {\n    public static int add(int a, int b) { return a + b; }\n}\n"},
          {"src/test/java/calc/CalcTest.java", harness}},
         {{"src/main/java/calc/Calc.java", "package calc;\n\npublic class Calc {\n    public static int add(int a, int b) { return a + b + 1; }\n}\n"}},
         "javac -d out src/main/java/calc/*.java src/test/java/calc/*.java && java -cp out calc.CalcTest",
         {"calc.CalcTest.testAdd"});
  // Surefire's console shows failures per method but passes only per class, and this harness writes
  // no XML report: the host accepts the exit code as evidence (the result says so).
  auto r = c.run(/*accept_exit_code_evidence=*/true);
  EXPECT_EQ(r.evidence.kind, "exit_code");
  expect_fixed(r, "src/test/java/calc/CalcTest.java", "        assertEquals(4, Calc.add(2, 2));",
               "        assertEquals(5, Calc.add(2, 2));");
}

TEST(ZeroToken, GoTable) {
  if (std::system("command -v go >/dev/null") != 0) GTEST_SKIP() << "go is not installed";
  Case c({{"go.mod", "module example.com/d\n\ngo 1.19\n"},
          {"d.go", "package d\n\nfunc Double(x int) int { return x * 2 }\n"},
          {"d_test.go", "package d\n\nimport \"testing\"\n\nfunc TestDouble(t *testing.T) {\n\tcases := []struct{ in, want int }{\n"
                        "\t\t{2, 4},\n\t}\n\tfor _, c := range cases {\n\t\tif got := Double(c.in); got != c.want {\n"
                        "\t\t\tt.Errorf(\"Double(%d): got %d, want %d\", c.in, got, c.want)\n\t\t}\n\t}\n}\n"}},
         {{"d.go", "package d\n\nfunc Double(x int) int { return x * 3 }\n"}},
         "GOCACHE=\"$PWD/.gocache\" GOFLAGS=-mod=mod go test -vet=off -json ./...", {"TestDouble"});
  std::ofstream(c.repo / ".gitignore") << ".gocache/\n";
  commit_files(c.repo, {}, "ignore cache");
  c.req.change.head_commit = commit_files(c.repo, {}, "head");
  auto r = c.run();
  expect_fixed(r, "d_test.go", "\t\t{2, 4},", "\t\t{2, 6},");
}

TEST(ZeroToken, AmbiguousLiteralStepsAside) {
  Case c({{"CMakeLists.txt", "cmake_minimum_required(VERSION 3.20)\nproject(z CXX)\nfind_package(GTest REQUIRED)\n"
                             "add_executable(t t.cc)\ntarget_link_libraries(t GTest::gtest_main)\n"},
          {"t.cc", "#include <gtest/gtest.h>\nint id(int x) { return x; }\nTEST(Id, Four) {\n  EXPECT_EQ(id(4), 4);\n}\n"},
          {".gitignore", "build/\n"}},
         {{"t.cc", "#include <gtest/gtest.h>\nint id(int x) { return x + 1; }\nTEST(Id, Four) {\n  EXPECT_EQ(id(4), 4);\n}\n"}},
         "./build/t", {"Id.Four"}, "cmake -S . -B build -G Ninja >/dev/null && cmake --build build");
  auto r = c.run();
  // "4" appears twice on the failing line: the tier steps aside, and with no model there is no fix.
  EXPECT_EQ(r.status, Status::no_fix) << r.reason << ": " << r.message;
  EXPECT_TRUE(r.patch.empty());
}

// An expectation the change itself wrote (a new test, an updated value: semver 4b03f86's new
// `assert str(v) == "v1.1.0-dev.0"`) is the developer's specification: the tier does not move it
// to what the buggy code gives, while a test the change left alone is still updated.
TEST(ZeroToken, ExpectationTheChangeWroteIsNotMoved) {
  Case c({{"ver.py", "def show(v):\n    return v\n"},
          {"tests/test_ver.py", "from ver import show\n\n\ndef test_plain():\n    assert show(\"1.0\") == \"1.0\"\n"}},
         {{"tests/test_ver.py", "from ver import show\n\n\ndef test_plain():\n    assert show(\"1.0\") == \"1.0\"\n\n\n"
                                "def test_prefixed():\n    assert show(\"1.1\") == \"v1.1\"\n"}},
         "/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}", {"tests/test_ver.py::test_prefixed"});
  auto r = c.run();
  EXPECT_EQ(r.status, Status::no_fix) << r.reason << ": " << r.message;
  EXPECT_TRUE(r.patch.empty()) << r.patch;
  bool declined = false;
  for (const auto& step : r.trajectory) declined |= (step.input + step.output).find("on a line the change wrote") != std::string::npos;
  EXPECT_TRUE(declined) << "the tier says why it stepped aside";
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
