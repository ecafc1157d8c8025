// The test-identity rules, tape-style TAP sections and the runner plans of the validator.
#include <gtest/gtest.h>

#include "flowagent/reports.hpp"
#include "support/test_support.hpp"
#include "reports/test_identity.hpp"
#include "validate/runner.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::reports;

TEST(TestIdentity, PytestNodeIdsWithAndWithoutPathAndJunitClassnames) {
  EXPECT_TRUE(denotes("tests/test_x.py::TestA::test_b", "tests/test_x.py::TestA::test_b"));
  EXPECT_TRUE(denotes("test_x.py::TestA::test_b", "tests/test_x.py::TestA::test_b"));
  EXPECT_TRUE(denotes("tests/test_x.py::TestA::test_b", "TestA::test_b"));
  // JUnit XML: classname "tests.test_x.TestA", name "test_b".
  EXPECT_TRUE(denotes("tests/test_x.py::TestA::test_b", "tests.test_x.TestA.test_b"));
  EXPECT_TRUE(denotes("tests/test_x.py::test_c", "tests.test_x.test_c"));
  EXPECT_FALSE(denotes("tests/test_x.py::test_c", "tests.test_y.test_c"));
  EXPECT_FALSE(denotes("tests/test_x.py::test_c", "tests/test_x.py::test_cc"));
  EXPECT_FALSE(denotes("tests/test_x.py::TestA::test_b", "tests/test_x.py::TestB::test_b"));
}

TEST(TestIdentity, PytestParametersNameOneInstanceOrTheWholeFamily) {
  EXPECT_TRUE(denotes("t.py::test_p[a-1]", "t.py::test_p[a-1]"));
  EXPECT_TRUE(denotes("t.py::test_p[1.5/x]", "t.test_p[1.5/x]"));  // dots and slashes inside parameters
  EXPECT_FALSE(denotes("t.py::test_p[a-1]", "t.py::test_p[a-2]"));
  EXPECT_FALSE(denotes("t.py::test_p[a-1]", "t.py::test_p"));
  EXPECT_TRUE(denotes("t.py::test_p", "t.py::test_p[a-2]"));  // the family
  EXPECT_TRUE(same_test("t.py::test_p[a-2]", "t.py::test_p"));
  EXPECT_FALSE(same_test("t.py::test_p[a-2]", "t.py::test_p[a-1]"));
}

TEST(TestIdentity, GoogleTestSuitesAndParametrizedForms) {
  EXPECT_TRUE(denotes("MathTest.Adds", "MathTest.Adds"));
  EXPECT_TRUE(denotes("MathTest.Adds", "Inst/MathTest.Adds/0"));
  EXPECT_TRUE(denotes("MathTest.Adds", "MathTest/1.Adds"));  // typed test
  EXPECT_TRUE(denotes("Inst/MathTest.Adds/0", "Inst/MathTest.Adds/0"));
  EXPECT_FALSE(denotes("Inst/MathTest.Adds/0", "Inst/MathTest.Adds/1"));
  EXPECT_FALSE(denotes("MathTest.Adds", "MathTest.Subtracts"));
  EXPECT_FALSE(denotes("MathTest.Adds", "OtherTest.Adds"));
}

TEST(TestIdentity, JavaMethodSpellings) {
  EXPECT_TRUE(denotes("com.acme.CalcTest#adds", "com.acme.CalcTest.adds"));
  EXPECT_TRUE(denotes("com.acme.CalcTest.adds", "adds(com.acme.CalcTest)"));  // JUnit 4 text
  EXPECT_TRUE(denotes("com.acme.CalcTest#adds", "com.acme.CalcTest.adds()"));  // JUnit 5
  EXPECT_TRUE(denotes("CalcTest#adds", "com.acme.CalcTest.adds"));
  EXPECT_TRUE(denotes("com.acme.Outer$Inner#adds", "com.acme.Outer.Inner.adds"));
  EXPECT_FALSE(denotes("com.acme.CalcTest#adds", "com.acme.OtherTest.adds"));
}

TEST(TestIdentity, GoPackagesAndSubtests) {
  EXPECT_TRUE(denotes("TestParse/empty", "example.com/m/pkg/TestParse/empty"));
  EXPECT_TRUE(denotes("example.com/m/pkg/TestParse/empty", "TestParse/empty"));
  EXPECT_TRUE(denotes("TestParse", "TestParse"));
  EXPECT_FALSE(denotes("TestParse/empty", "TestParse/full"));
  EXPECT_FALSE(denotes("TestParse", "TestParseAll"));
}

TEST(TestIdentity, JestAncestorTitlesAndFullNames) {
  EXPECT_TRUE(denotes("sum \xE2\x80\xBA adds two numbers", "sum adds two numbers"));
  EXPECT_TRUE(denotes("sum > adds two numbers", "sum \xE2\x80\xBA adds two numbers"));
  EXPECT_TRUE(denotes("adds two numbers", "sum \xE2\x80\xBA adds two numbers"));
  EXPECT_FALSE(denotes("two numbers", "sum \xE2\x80\xBA adds two numbers"));  // not a whole title
  EXPECT_FALSE(denotes("sum \xE2\x80\xBA adds", "sum \xE2\x80\xBA adds two numbers"));
}

TEST(TestIdentity, TapSubtestsAndTapeNames) {
  EXPECT_TRUE(denotes("math > adds", "math > adds"));
  EXPECT_TRUE(denotes("adds numbers", "adds numbers"));
  EXPECT_FALSE(denotes("adds numbers", "adds numbers twice"));
  EXPECT_FALSE(denotes("", ""));
}

TEST(TestIdentity, EnclosingScopesPerRunner) {
  EXPECT_EQ(enclosing_scope("tests/test_x.py::test_p[a]", Runner::pytest), std::vector<std::string>{"tests/test_x.py"});
  EXPECT_EQ(enclosing_scope("MathTest.Adds", Runner::gtest).front(), "MathTest.*");
  EXPECT_EQ(enclosing_scope("com.acme.CalcTest#adds", Runner::maven), std::vector<std::string>{"com.acme.CalcTest"});
  EXPECT_EQ(enclosing_scope("TestParse/empty", Runner::go), std::vector<std::string>{"TestParse"});
  EXPECT_TRUE(enclosing_scope("TestParse", Runner::go).empty());
  EXPECT_EQ(enclosing_scope("sum \xE2\x80\xBA adds", Runner::jest), std::vector<std::string>{"sum"});
  EXPECT_TRUE(enclosing_scope("adds numbers", Runner::tape).empty());
  // A package-qualified go id (as go test -json reports it): -run selects by test name.
  EXPECT_EQ(enclosing_scope("example.com/m/pkga/TestParse/empty", Runner::go), std::vector<std::string>{"TestParse"});
  EXPECT_TRUE(enclosing_scope("example.com/m/pkga/TestParse", Runner::go).empty());
  EXPECT_EQ(enclosing_scope("calc::tests::adds", Runner::cargo), std::vector<std::string>{"calc::tests::"});
  EXPECT_TRUE(enclosing_scope("adds", Runner::cargo).empty());
}

TEST(TestIdentity, GoIdsCarryTheirPackage) {
  EXPECT_EQ(runner_selector("example.com/m/pkga/TestParse/empty", Runner::go), "TestParse/empty");
  EXPECT_EQ(runner_selector("pkga/TestParse", Runner::go), "TestParse");
  EXPECT_EQ(runner_selector("TestParse", Runner::go), "TestParse");
  EXPECT_EQ(runner_selector("example.com/testing/Testify/TestX", Runner::go), "TestX");  // "Testify" is no test name
  EXPECT_EQ(runner_selector("tests/test_x.py::test_a", Runner::pytest), "tests/test_x.py::test_a");
  EXPECT_TRUE(denotes("example.com/m/pkga/TestParse", "example.com/m/pkga/TestParse"));
  EXPECT_TRUE(denotes("pkga/TestParse", "example.com/m/pkga/TestParse"));
  EXPECT_FALSE(denotes("pkga/TestParse", "example.com/m/pkgb/TestParse"));
  EXPECT_FALSE(denotes("example.com/m/pkga/TestParse", "example.com/m/pkgb/TestParse"));
  // A bare name denotes the test in every package (each must pass).
  EXPECT_TRUE(denotes("TestParse", "example.com/m/pkgb/TestParse"));
}

TEST(TestIdentity, DefinedNames) {
  EXPECT_EQ(defined_name("sum.add handles 1.5", Runner::node_test), "sum.add handles 1.5");
  EXPECT_EQ(defined_name("sum > sum.add handles 1.5", Runner::tape), "sum.add handles 1.5");
  EXPECT_EQ(defined_name("tests::adds_two", Runner::cargo), "adds_two");
  EXPECT_EQ(defined_name("tests.test_x.test_a[1]", Runner::pytest), "test_a");
}

TEST(TestIdentity, SimilarNamesForReplacements) {
  EXPECT_TRUE(similar_names("t.py::test_parse[a]", "t.py::test_parse_value[a]"));
  EXPECT_TRUE(similar_names("t.py::test_parse[a]", "t.py::test_parse[b]"));
  EXPECT_TRUE(similar_names("t.py::test_totl", "t.py::test_total"));
  EXPECT_FALSE(similar_names("t.py::test_parse", "t.py::test_render_page"));
}

TEST(TapeOutput, SectionsAreTestsAndPassOnlyWithOkLines) {
  // Real tape 5 output (third_party/tape): a name comment, then its assertions.
  const char* out =
      "TAP version 13\n"
      "# adds numbers\n"
      "ok 1 should be strictly equal\n"
      "ok 2 should be truthy\n"
      "# handles negatives\n"
      "not ok 3 sum is one\n"
      "  ---\n"
      "    operator: equal\n"
      "    expected: 1\n"
      "    actual:   0\n"
      "    at: Test.<anonymous> (/tmp/t.js:3:38)\n"
      "  ...\n"
      "ok 4 still fine\n"
      "# empty one\n"
      "\n"
      "1..4\n"
      "# tests 4\n"
      "# pass  3\n"
      "# fail  1\n";
  auto r = parse_report(out);
  EXPECT_EQ(r.format, "tap");
  ASSERT_EQ(r.tests.size(), 3u);
  EXPECT_EQ(r.tests[0].id, "adds numbers");
  EXPECT_EQ(r.tests[0].outcome, Outcome::passed);
  EXPECT_EQ(r.tests[1].id, "handles negatives");
  EXPECT_EQ(r.tests[1].outcome, Outcome::failed);  // one not ok fails the whole section
  EXPECT_EQ(r.tests[1].message, "sum is one");
  EXPECT_EQ(r.tests[1].expected, "1");
  EXPECT_EQ(r.tests[1].actual, "0");
  EXPECT_EQ(r.tests[2].id, "empty one");
  EXPECT_EQ(r.tests[2].outcome, Outcome::skipped);  // no assertion: not seen to pass
}

TEST(TapeOutput, AllPassingRunWithTrailer) {
  auto r = parse_report("TAP version 13\n# one\nok 1 a\n# two\nok 2 b\n\n1..2\n# tests 2\n# pass  2\n\n# ok\n");
  ASSERT_EQ(r.tests.size(), 2u);
  EXPECT_EQ(r.tests[0].outcome, Outcome::passed);
  EXPECT_EQ(r.tests[1].outcome, Outcome::passed);
}

TEST(TapeOutput, NodeTestTapIsNotMistakenForSections) {
  const char* out =
      "TAP version 13\n"
      "# Subtest: adds\n"
      "ok 1 - adds\n"
      "  ---\n  duration_ms: 0.5\n  ...\n"
      "# Subtest: subtracts\n"
      "not ok 2 - subtracts\n"
      "1..2\n# tests 2\n# suites 0\n# pass 1\n# fail 1\n# duration_ms 30.1\n";
  auto r = parse_report(out);
  ASSERT_EQ(r.tests.size(), 2u);
  EXPECT_EQ(r.tests[0].id, "adds");
  EXPECT_EQ(r.tests[0].outcome, Outcome::passed);
  EXPECT_EQ(r.tests[1].id, "subtracts");
  EXPECT_EQ(r.tests[1].outcome, Outcome::failed);
}

TEST(RunnerPlan, DetectsRunnersAndAsksForReportsInOurDirectory) {
  const std::filesystem::path dir = "/w/.flowagent-evidence-1";
  auto p = detail::plan_runner("/usr/bin/python3 -m pytest -q {tests}", dir);
  EXPECT_EQ(p.runner, Runner::pytest);
  EXPECT_NE(p.command_template.find("-m pytest --junitxml='/w/.flowagent-evidence-1/pytest.xml' -o junit_family=xunit1 -q {tests}"),
            std::string::npos)
      << p.command_template;
  EXPECT_EQ(detail::plan_runner("cd web && npx jest {tests}", dir).command_template.find("npx jest --json --outputFile="),
            std::string("export GTEST_OUTPUT='json:/w/.flowagent-evidence-1/'; cd web && ").size());
  p = detail::plan_runner("go test ./... -run {tests|\\|}", dir);
  EXPECT_EQ(p.runner, Runner::go);
  EXPECT_EQ(p.stdout_format, "go-json");
  EXPECT_NE(p.command_template.find("go test -json ./..."), std::string::npos);
  p = detail::plan_runner("ctest --test-dir build -R {tests}", dir);
  EXPECT_NE(p.command_template.find("ctest --output-junit '/w/.flowagent-evidence-1/ctest.xml' --test-dir"), std::string::npos);
  p = detail::plan_runner("node --test test/", dir);
  EXPECT_EQ(p.runner, Runner::node_test);
  EXPECT_NE(p.command_template.find("--test --test-reporter=tap --test-reporter-destination='/w/.flowagent-evidence-1/node.tap'"),
            std::string::npos);
  p = detail::plan_runner("node_modules/.bin/tape test/*.js", dir);
  EXPECT_EQ(p.runner, Runner::tape);
  EXPECT_EQ(p.stdout_format, "tap");
  p = detail::plan_runner("build/calc_test --gtest_filter={tests|:}", dir);
  EXPECT_EQ(p.runner, Runner::gtest);
  EXPECT_EQ(p.command_template.rfind("export GTEST_OUTPUT='json:/w/.flowagent-evidence-1/'; ", 0), 0u);
  EXPECT_EQ(detail::detect_runner("npx vitest run {tests}"), Runner::vitest);
  EXPECT_EQ(detail::detect_runner("./mvnw -q test -Dtest={tests|,}"), Runner::maven);
  EXPECT_EQ(detail::detect_runner("make check"), Runner::unknown);
}

TEST(RunnerPlan, PackageScriptsNameTheRunner) {
  testkit::TempDir root;
  testkit::write_file(root.path() / "package.json",
                      R"({"scripts": {"test": "jest --ci", "unit": "tape test/*.js", "lint": "eslint ."}})");
  const std::filesystem::path dir = root.path() / ".flowagent-evidence-2";
  auto p = detail::plan_runner("npm test {tests}", dir, root.path());
  EXPECT_EQ(p.runner, Runner::jest);
  EXPECT_NE(p.command_template.find("npm test {tests} -- --json --outputFile="), std::string::npos) << p.command_template;
  p = detail::plan_runner("yarn run unit && echo done", dir, root.path());
  EXPECT_EQ(p.runner, Runner::tape);
  EXPECT_EQ(p.stdout_format, "tap");
  EXPECT_EQ(detail::plan_runner("npm run lint", dir, root.path()).runner, Runner::unknown);
  EXPECT_EQ(detail::plan_runner("npm test", dir).runner, Runner::unknown);  // no checkout to read
}

// Two files with a test of the same name are two tests to the runner: the summary cross-check
// counts test cases, not distinct names (jest prints "Tests: 2 passed, 2 total").
TEST(SummaryCrossCheck, SameNameInTwoFilesIsTwoTests) {
  std::vector<flowagent::reports::TestCase> tests(2);
  tests[0].id = tests[1].id = "widget \xE2\x80\xBA renders without crashing";
  tests[0].file = "src/a.test.js";
  tests[1].file = "src/b.test.js";
  const std::string out = "PASS src/a.test.js\nPASS src/b.test.js\n\nTest Suites: 2 passed, 2 total\n"
                          "Tests:       2 passed, 2 total\nSnapshots:   0 total\nTime:        0.5 s\n";
  EXPECT_EQ(flowagent::detail::summary_contradiction(flowagent::reports::Runner::jest, out, tests), "");
  // The same name twice in one file (a forged duplicate) is still one test.
  tests[1].file = tests[0].file;
  EXPECT_NE(flowagent::detail::summary_contradiction(flowagent::reports::Runner::jest, out, tests), "");
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
