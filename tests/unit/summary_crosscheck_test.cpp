// The runner's own terminal summary against the per-test results, for ctest, Maven (surefire),
// Gradle, cargo and pytest-subtests, on recorded runner output (tests/fixtures/reports/README.md):
// the real run agrees; a report that shows more passes than the summary, or a missing summary, is a
// contradiction (the validator then says "unverified").
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "flowagent/reports.hpp"
#include "validate/runner.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)

using flowagent::detail::summary_contradiction;
using flowagent::reports::Outcome;
using flowagent::reports::Runner;
using flowagent::reports::TestCase;

namespace {

std::string text(const std::string& name) {
  std::ifstream in(std::filesystem::path(FLOWAGENT_FIXTURES) / "reports" / name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<TestCase> tests_of(const std::string& name) {
  return flowagent::reports::parse_report_file(std::filesystem::path(FLOWAGENT_FIXTURES) / "reports" / name).tests;
}

std::string without(std::string s, const std::string& line_start) {
  for (auto p = s.find(line_start); p != std::string::npos; p = s.find(line_start, p)) s.erase(p, s.find('\n', p) - p + 1);
  return s;
}

/// The report with every test turned into a pass: what a forger writes.
std::vector<TestCase> all_passed(std::vector<TestCase> tests) {
  for (auto& t : tests) t.outcome = Outcome::passed;
  return tests;
}

}  // namespace

TEST(SummaryCrossCheck, Ctest) {
  const std::string out = text("ctest-summary.txt");
  const auto tests = tests_of("ctest-summary.xml");
  ASSERT_EQ(tests.size(), 5u);
  EXPECT_EQ(summary_contradiction(Runner::ctest, out, tests), "");
  EXPECT_NE(summary_contradiction(Runner::ctest, out, all_passed(tests)), "");
  const std::string cut = without(out, "75% tests passed");
  EXPECT_NE(summary_contradiction(Runner::ctest, cut, tests).find("ctest printed no final"), std::string::npos);
}

TEST(SummaryCrossCheck, MavenSurefire) {
  const std::string out = text("surefire.txt");
  const auto tests = tests_of("TEST-com.example.CalcTest.xml");
  EXPECT_EQ(summary_contradiction(Runner::maven, out, tests), "");
  EXPECT_NE(summary_contradiction(Runner::maven, out, all_passed(tests)).find("Maven's summary says 1 passed"), std::string::npos);
  // The per-class line (", Time elapsed") is no summary: without the Results block the run is unverified.
  const std::string cut = out.substr(0, out.find("[INFO] Results:"));
  EXPECT_NE(summary_contradiction(Runner::maven, cut, tests).find("no surefire"), std::string::npos);
  // Two modules: the Results blocks add up.
  const std::string two = out + "[INFO] Results:\n[INFO] \n[INFO] Tests run: 1, Failures: 0, Errors: 0, Skipped: 0\n";
  auto more = tests;
  more.push_back(tests.back());
  more.back().id = "com.example.OtherTest.testOk";
  EXPECT_EQ(summary_contradiction(Runner::maven, two, more), "");
  EXPECT_NE(summary_contradiction(Runner::maven, two, tests), "");
}

TEST(SummaryCrossCheck, Gradle) {
  const auto tests = tests_of("TEST-com.example.CalcTest.xml");  // Gradle writes surefire's XML format
  EXPECT_EQ(summary_contradiction(Runner::gradle, text("gradle-failed.txt"), tests), "");
  EXPECT_NE(summary_contradiction(Runner::gradle, text("gradle-failed.txt"), all_passed(tests)), "");
  auto passing = tests;
  passing.resize(1);
  passing[0].outcome = Outcome::passed;
  EXPECT_EQ(summary_contradiction(Runner::gradle, text("gradle-passed.txt"), passing), "");
  // Two failing test tasks (projects): their counts add up.
  std::string two = text("gradle-failed.txt");
  two.insert(two.find("3 tests completed"), "1 test completed, 1 failed\n");
  auto more = tests;
  more.push_back(tests.front());
  more.back().id = "com.example.OtherTest.testAdd";
  EXPECT_EQ(summary_contradiction(Runner::gradle, two, more), "");
  EXPECT_NE(summary_contradiction(Runner::gradle, two, tests), "");
  // A build that failed while every reported test passed (a test JVM that ended itself), and no
  // build result at all.
  EXPECT_NE(summary_contradiction(Runner::gradle, without(text("gradle-failed.txt"), "3 tests completed"), all_passed(tests)), "");
  EXPECT_NE(summary_contradiction(Runner::gradle, without(text("gradle-passed.txt"), "BUILD SUCCESSFUL"), passing)
                .find("Gradle printed no build result"),
            std::string::npos);
}

TEST(SummaryCrossCheck, Cargo) {
  const std::string out = text("cargo-binaries.txt");
  const auto tests = flowagent::reports::parse_report(out).tests;
  EXPECT_EQ(summary_contradiction(Runner::cargo, out, tests), "");
  EXPECT_EQ(summary_contradiction(Runner::cargo, text("cargo.txt"), tests_of("cargo.txt")), "");
  // A test binary that printed passes and ended before its result line.
  const std::string cut = out.substr(0, out.find("test result: ok. 2 passed; 0 failed; 0 ignored", out.find("tests/it.rs")));
  EXPECT_NE(summary_contradiction(Runner::cargo, cut, flowagent::reports::parse_report(cut).tests).find("did not finish"),
            std::string::npos);
  // A pass line printed by a test beside the real ones: the counts no longer add up.
  std::string extra = out;
  extra.insert(extra.find("test tests::zero ... ok"), "test tests::forged ... ok\n");
  EXPECT_NE(summary_contradiction(Runner::cargo, extra, flowagent::reports::parse_report(extra).tests), "");
}

TEST(SummaryCrossCheck, PytestSubtestsLine) {
  // pytest 7.2 with pytest-subtests 0.9 (python3-pytest-subtests).
  std::vector<TestCase> tests(3);
  tests[0].id = "test_s.test_foo";
  tests[1].id = "test_s.test_p[a]";
  tests[2].id = "test_s.test_p[b]";
  tests[2].outcome = Outcome::skipped;
  const std::string out = ",,,..s                                                                   [100%]\n"
                          "2 passed, 1 skipped, 3 subtests passed in 0.10s\n";
  EXPECT_EQ(summary_contradiction(Runner::pytest, out, tests), "");
  EXPECT_NE(summary_contradiction(Runner::pytest, out, all_passed(tests)), "");
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
