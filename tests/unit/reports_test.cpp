#include <gtest/gtest.h>

#include <fstream>

#include "flowagent/reports.hpp"
#include "support/test_support.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::reports;

namespace {

Report fixture(const std::string& name) {
  return parse_report_file(std::filesystem::path(FLOWAGENT_FIXTURES) / "reports" / name);
}

const TestCase* find(const Report& r, const std::string& id) {
  for (const auto& t : r.tests)
    if (t.id == id) return &t;
  return nullptr;
}

std::string ids(const Report& r) {
  std::string s;
  for (const auto& t : r.tests) s += t.id + "=" + std::to_string(static_cast<int>(t.outcome)) + " ";
  return s;
}

}  // namespace

TEST(Reports, GoogleTestXml) {
  auto r = fixture("gtest.xml");
  EXPECT_EQ(r.format, "junit");
  EXPECT_TRUE(r.warnings.empty());
  const auto* t = find(r, "MathTest.Adds");
  ASSERT_NE(t, nullptr) << ids(r);
  EXPECT_EQ(t->outcome, Outcome::failed);
  EXPECT_EQ(t->file, "g.cc");
  EXPECT_EQ(t->line, 3);
  EXPECT_EQ(t->expected, "5");
  EXPECT_EQ(t->actual, "4");
  EXPECT_EQ(find(r, "MathTest.Works")->outcome, Outcome::passed);
  EXPECT_EQ(find(r, "MathTest.DISABLED_Later")->outcome, Outcome::skipped);
  const auto* s = find(r, "StrTest.Greets");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->expected, "\"hello\"");
  EXPECT_EQ(s->actual, "\"hello world\"");
}

TEST(Reports, GoogleTestJsonAndText) {
  for (const char* name : {"gtest.json", "gtest.txt"}) {
    auto r = fixture(name);
    const auto* t = find(r, "MathTest.Adds");
    ASSERT_NE(t, nullptr) << name << ": " << ids(r);
    EXPECT_EQ(t->outcome, Outcome::failed) << name;
    EXPECT_EQ(t->file, "g.cc") << name;
    EXPECT_EQ(t->line, 3) << name;
    EXPECT_EQ(t->expected, "5") << name;
    EXPECT_EQ(t->actual, "4") << name;
    EXPECT_NE(t->excerpt.find("Expected equality"), std::string::npos) << name;
    EXPECT_EQ(find(r, "MathTest.Works")->outcome, Outcome::passed) << name;
    EXPECT_EQ(r.failures().size(), 2u) << name << ": " << ids(r);
  }
}

TEST(Reports, CTestJunit) {
  auto r = fixture("ctest-junit.xml");
  const auto* t = find(r, "math_adds");
  ASSERT_NE(t, nullptr) << ids(r);
  EXPECT_EQ(t->outcome, Outcome::failed);
  EXPECT_NE(t->excerpt.find("Expected equality"), std::string::npos) << t->excerpt;
  EXPECT_EQ(find(r, "math_works")->outcome, Outcome::passed);
}

TEST(Reports, PytestJunitBothFamilies) {
  for (const char* name : {"pytest-xunit1.xml", "pytest-xunit2.xml"}) {
    auto r = fixture(name);
    const auto* t = find(r, "tests.test_calc.test_add");
    ASSERT_NE(t, nullptr) << name << ": " << ids(r);
    EXPECT_EQ(t->outcome, Outcome::failed);
    EXPECT_EQ(t->actual, "5") << name;
    EXPECT_EQ(t->expected, "4") << name;
    EXPECT_EQ(find(r, "tests.test_calc.TestStrings.test_param[2]")->outcome, Outcome::failed) << name;
    EXPECT_EQ(find(r, "tests.test_calc.test_setup_error")->outcome, Outcome::error) << name;
    EXPECT_EQ(find(r, "tests.test_calc.test_skipped")->outcome, Outcome::skipped) << name;
    EXPECT_EQ(find(r, "tests.test_calc.test_ok")->outcome, Outcome::passed) << name;
  }
  auto x1 = fixture("pytest-xunit1.xml");
  EXPECT_EQ(find(x1, "tests.test_calc.test_add")->file, "tests/test_calc.py");
}

TEST(Reports, PytestText) {
  auto r = fixture("pytest.txt");
  const auto* t = find(r, "tests/test_calc.py::test_add");
  ASSERT_NE(t, nullptr) << ids(r);
  EXPECT_EQ(t->outcome, Outcome::failed);
  EXPECT_EQ(t->file, "tests/test_calc.py");
  EXPECT_EQ(t->line, 6);
  EXPECT_EQ(t->actual, "5");
  EXPECT_EQ(t->expected, "4");
  const auto* g = find(r, "tests/test_calc.py::TestStrings::test_greet");
  ASSERT_NE(g, nullptr) << ids(r);
  EXPECT_EQ(g->line, 15);
  EXPECT_EQ(g->expected, "'hello there'");
  EXPECT_EQ(g->actual, "'hello world'");
  ASSERT_NE(find(r, "tests/test_calc.py::TestStrings::test_param[2]"), nullptr) << ids(r);
  EXPECT_EQ(find(r, "tests/test_calc.py::TestStrings::test_param[2]")->line, 19);
  EXPECT_EQ(find(r, "tests/test_calc.py::test_setup_error")->outcome, Outcome::error);
  EXPECT_EQ(r.failures().size(), 4u) << ids(r);
  auto v = fixture("pytest-verbose.txt");
  EXPECT_EQ(find(v, "tests/test_calc.py::test_ok")->outcome, Outcome::passed) << ids(v);
  EXPECT_EQ(find(v, "tests/test_calc.py::test_add")->outcome, Outcome::failed) << ids(v);
}

TEST(Reports, SurefireTextAndXml) {
  auto r = fixture("surefire.txt");
  const auto* t = find(r, "com.example.CalcTest.testAdd");
  ASSERT_NE(t, nullptr) << ids(r);
  EXPECT_EQ(t->outcome, Outcome::failed);
  EXPECT_EQ(t->expected, "4");
  EXPECT_EQ(t->actual, "5");
  EXPECT_EQ(t->file, "CalcTest.java");
  EXPECT_EQ(t->line, 12);
  EXPECT_EQ(find(r, "com.example.CalcTest.testParse")->outcome, Outcome::error);
  auto j4 = fixture("surefire-junit4.txt");
  const auto* l = find(j4, "com.example.LegacyTest.testName");
  ASSERT_NE(l, nullptr) << ids(j4);
  EXPECT_EQ(l->expected, "[Bob]");
  EXPECT_EQ(l->actual, "[Alice]");
  auto x = fixture("TEST-com.example.CalcTest.xml");
  EXPECT_EQ(find(x, "com.example.CalcTest.testAdd")->expected, "4");
  EXPECT_EQ(find(x, "com.example.CalcTest.testParse")->outcome, Outcome::error);
  EXPECT_EQ(find(x, "com.example.CalcTest.testOk")->outcome, Outcome::passed);
}

TEST(Reports, GoJson) {
  auto r = fixture("go-test.json");
  EXPECT_EQ(r.format, "go-json");
  const auto* t = find(r, "example.com/calc/TestAdd");
  ASSERT_NE(t, nullptr) << ids(r);
  EXPECT_EQ(t->outcome, Outcome::failed);
  EXPECT_EQ(t->file, "calc_test.go");
  EXPECT_EQ(t->line, 7);
  EXPECT_EQ(t->actual, "5");
  EXPECT_EQ(t->expected, "4");
  EXPECT_EQ(find(r, "example.com/calc/TestOK")->outcome, Outcome::passed);
  EXPECT_EQ(find(r, "example.com/calc/TestSkip")->outcome, Outcome::skipped);
  ASSERT_NE(find(r, "example.com/calc/TestTable/case#01"), nullptr) << ids(r);
  EXPECT_EQ(find(r, "example.com/calc/TestTable/case#01")->expected, "0");
  EXPECT_EQ(find(r, "example.com/calc/TestTable/case")->outcome, Outcome::passed);
  // The package is part of each id: no test is reported by its bare name.
  EXPECT_EQ(find(r, "TestAdd"), nullptr);
}

TEST(Reports, JestJson) {
  auto r = fixture("jest.json");
  EXPECT_EQ(r.format, "jest-json");
  const auto* t = find(r, "sum adds 1 + 2");
  ASSERT_NE(t, nullptr) << ids(r);
  EXPECT_EQ(t->outcome, Outcome::failed);
  EXPECT_EQ(t->line, 4);
  EXPECT_EQ(t->expected, "3");
  EXPECT_EQ(t->actual, "4");
  const auto* o = find(r, "sum returns objects");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->expected, "{\"total\":0}");
  EXPECT_EQ(o->actual, "{\"total\":1}");
  EXPECT_EQ(find(r, "sum later")->outcome, Outcome::skipped);
  EXPECT_EQ(t->message.find("\x1b"), std::string::npos);
}

TEST(Reports, NodeTapAndJunit) {
  auto r = fixture("node.tap");
  EXPECT_EQ(r.format, "tap");
  const auto* t = find(r, "adds");
  ASSERT_NE(t, nullptr) << ids(r);
  EXPECT_EQ(t->outcome, Outcome::failed);
  EXPECT_EQ(t->expected, "3");
  EXPECT_EQ(t->actual, "2");
  EXPECT_EQ(find(r, "works")->outcome, Outcome::passed);
  auto j = fixture("node-junit.xml");
  EXPECT_EQ(j.failures().size(), 1u) << ids(j);
}

TEST(Reports, Tap14SubtestsDirectivesAndEscapes) {
  auto r = fixture("tap14-subtests.tap");
  const auto* t = find(r, "parser > parses strings");
  ASSERT_NE(t, nullptr) << ids(r);
  EXPECT_EQ(t->outcome, Outcome::failed);
  EXPECT_EQ(t->expected, "abc");
  EXPECT_EQ(t->actual, "abd");
  EXPECT_EQ(find(r, "lexer")->outcome, Outcome::skipped);
  EXPECT_EQ(find(r, "flaky")->outcome, Outcome::skipped);  // TODO failures do not count
  EXPECT_NE(find(r, "escaped \\# hash"), nullptr) << ids(r);
}

TEST(Reports, CargoText) {
  auto r = fixture("cargo.txt");
  const auto* t = find(r, "tests::it_adds");
  ASSERT_NE(t, nullptr) << ids(r);
  EXPECT_EQ(t->outcome, Outcome::failed);
  EXPECT_EQ(t->file, "src/lib.rs");
  EXPECT_EQ(t->line, 6);
  EXPECT_EQ(t->actual, "5");
  EXPECT_EQ(t->expected, "4");
  EXPECT_EQ(find(r, "tests::ok_one")->outcome, Outcome::passed);
}

TEST(Reports, TruncatedAndMalformedInputKeepsWhatItCan) {
  std::string xml = testkit::read_file(std::filesystem::path(FLOWAGENT_FIXTURES) / "reports/gtest.xml");
  auto r = parse_report(xml.substr(0, xml.size() * 2 / 3));
  EXPECT_FALSE(r.warnings.empty());
  EXPECT_NE(find(r, "MathTest.Adds"), nullptr) << ids(r);
  std::string json = testkit::read_file(std::filesystem::path(FLOWAGENT_FIXTURES) / "reports/go-test.json");
  r = parse_report(json.substr(0, json.size() / 2) + "\n{garbage\n");
  EXPECT_FALSE(r.warnings.empty());
  EXPECT_NE(find(r, "example.com/calc/TestAdd"), nullptr);
  for (std::string junk : {std::string("\0\0\0", 3), std::string("<"), std::string("{"), std::string("\xFF\xFE<x"),
                           std::string("not ok"), std::string("[ RUN      ] A.B\n")})
    (void)parse_report(junk);
  r = parse_report("[ RUN      ] Crash.Test\nSegmentation fault\n");
  ASSERT_NE(find(r, "Crash.Test"), nullptr);
  EXPECT_EQ(find(r, "Crash.Test")->outcome, Outcome::error);
}

TEST(Reports, StripsAnsi) {
  EXPECT_EQ(strip_ansi("\x1b[31mred\x1b[0m \x1b]8;;http://x\x07link\x1b]8;;\x07"), "red link");
  auto r = parse_report("\x1b[0;31m[  FAILED  ] \x1b[mA.B (1 ms)\n");
  ASSERT_NE(find(r, "A.B"), nullptr) << ids(r);
}

TEST(Reports, ExcerptIsFailureFocusedAndBounded) {
  std::string log;
  for (int i = 0; i < 1000; ++i) log += "noise line " + std::to_string(i) + "\n";
  log += "src/x.cc:3: Failure\nExpected equality of these values:\n";
  for (int i = 0; i < 1000; ++i) log += "tail " + std::to_string(i) + "\n";
  auto e = failure_excerpt(log, 10, 10000);
  EXPECT_NE(e.find("src/x.cc:3: Failure"), std::string::npos);
  EXPECT_EQ(e.find("noise line 10\n"), std::string::npos);
  EXPECT_LT(e.size(), 400u);
}

TEST(Reports, HugeTextLogStreamsFromFile) {
  testkit::TempDir d;
  auto p = d.path() / "big.log";
  {
    std::ofstream f(p);
    for (int i = 0; i < 50000; ++i) f << "[ RUN      ] S.T" << i << "\n[       OK ] S.T" << i << " (0 ms)\n";
    f << "[ RUN      ] S.Bad\nx.cc:1: Failure\nValue of: ok\n  Actual: false\nExpected: true\n[  FAILED  ] S.Bad (0 ms)\n";
  }
  auto r = parse_report_file(p);
  EXPECT_EQ(r.tests.size(), 20001u);  // passing tests beyond 20000 are counted, not listed
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("30000 more passing tests"), std::string::npos);
  ASSERT_EQ(r.failures().size(), 1u);
  EXPECT_EQ(r.failures()[0]->expected, "true");
  EXPECT_EQ(r.failures()[0]->actual, "false");
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
