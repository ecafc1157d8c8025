// Fail to pass's values for go test: the calls read from a Go test's source, and the driver that
// makes them again (validate/go_values.hpp). The end-to-end cases are in integrity_cheats_test.cpp
// (E2ECheats.GoChecksTheFixBreaksAndTheTestsDropAreNotDelivered).
#include "validate/go_values.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/test_support.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent::detail::go_values;
using flowagent::testkit::TempDir;

namespace {

std::vector<std::string> shown(const TestCalls& t) {
  std::vector<std::string> out;
  for (const auto& c : t.calls) out.push_back(c.name + c.args);
  return out;
}

const std::set<std::string> kAdd = {"Add", "Div"};

}  // namespace

TEST(GoValues, ResultFunctionsAreThePlainFunctionsReturningSomething) {
  const std::string calc =
      "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n\nfunc Div(a, b int) (int, error) {\n\treturn a / b, nil\n}\n\n"
      "func reset() {}\n\nfunc (c *Calc) Sum(a int) int { return a }\n\nfunc Map[T any](x T) T { return x }\n\nfunc init() {}\n";
  EXPECT_EQ(result_functions(calc), (std::set<std::string>{"Add", "Div"}));
  EXPECT_EQ(package_name("// Package calc.\npackage calc // x\n"), "calc");
  EXPECT_EQ(module_path("// m\nmodule example.com/m\n\ngo 1.19\n"), "example.com/m");
  EXPECT_EQ(test_function("example.com/m/calc/TestAdd/two_and_two"), "TestAdd");
  EXPECT_EQ(test_function("TestAdd"), "TestAdd");
  EXPECT_EQ(test_function("calc/Testing"), "");  // (go test does not run `Testing`)
  const auto g = go_command_of("cd svc && GOCACHE=/tmp/c GOFLAGS=-mod=mod go test -count=1 -tags 'integration' ./... -run {tests||}");
  EXPECT_EQ(g.env, "GOCACHE=/tmp/c GOFLAGS=-mod=mod ");
  EXPECT_EQ(g.flags, "");  // (quoted tags are not read: left out rather than misread)
  EXPECT_EQ(go_command_of("/usr/local/go/bin/go test -tags=integration,slow ./...").flags, " -tags=integration,slow");
  EXPECT_EQ(go_command_of("go test ./... && go vet -tags x").flags, "");
  EXPECT_EQ(go_command_of("pytest").env, "");
}

TEST(GoValues, DirectCallsLocalsAndLiteralsAreRead) {
  const std::string t =
      "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 2); got != 4 {\n\t\tt.Errorf(\"got %d\", got)\n\t}\n"
      "\tx, y := 0x10, -3\n\tif Add(x, y) != 13 {\n\t\tt.Fatal(\"no\")\n\t}\n\t// Add(9, 9) in a comment\n\tif Add(1_000, 2.5e0) == 0 || Add(1, 3) != 4 {\n"
      "\t\tt.Fatal(\"Add(7, 7)\")\n\t}\n}\n\nfunc TestOther(t *testing.T) { Add(5, 5) }\n";
  auto r = test_calls(t, "TestAdd", kAdd, "");
  EXPECT_TRUE(r.found);
  EXPECT_FALSE(r.incomplete);
  EXPECT_EQ(shown(r), (std::vector<std::string>{"Add[2,2]", "Add[16,-3]", "Add[1000,2.5]", "Add[1,3]"}));
  EXPECT_FALSE(test_calls(t, "TestMissing", kAdd, "").found);
}

TEST(GoValues, TableRowsAreReadPerRow) {
  const std::string positional =
      "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\ttests := []struct {\n\t\tname    string\n\t\ta, b    int\n\t\twant int\n\t}{\n"
      "\t\t{\"two\", 2, 2, 4},\n\t\t{\"one three\", 1, 3, 4},\n\t}\n\tfor _, tt := range tests {\n\t\tt.Run(tt.name, func(t *testing.T) {\n"
      "\t\t\tif got := Add(tt.a, tt.b); got != tt.want {\n\t\t\t\tt.Errorf(\"got %d\", got)\n\t\t\t}\n\t\t})\n\t}\n}\n";
  auto r = test_calls(positional, "TestAdd", kAdd, "");
  EXPECT_FALSE(r.incomplete);
  EXPECT_EQ(shown(r), (std::vector<std::string>{"Add[2,2]", "Add[1,3]"}));
  // Keyed rows of a named struct type at the top level, a map table, an inline table.
  const std::string keyed =
      "package calc_test\n\nimport (\n\t\"testing\"\n\n\tc \"example.com/m/calc\"\n)\n\ntype addCase struct {\n\ta, b int `json:\"a\"`\n\twant int\n}\n\n"
      "var addCases = []addCase{\n\t{a: 2, b: 2, want: 4},\n\t{b: 3, a: 1, want: 4},\n}\n\nfunc TestAdd(t *testing.T) {\n\tfor _, tc := range addCases {\n"
      "\t\tif c.Add(tc.a, tc.b) != tc.want {\n\t\t\tt.Fail()\n\t\t}\n\t}\n\tfor name, tc := range map[string]struct{ a, b int }{\"x\": {5, 5}} {\n"
      "\t\t_ = name\n\t\tif c.Add(tc.a, tc.b) != 10 {\n\t\t\tt.Fail()\n\t\t}\n\t}\n\tfor _, tc := range []struct{ a, b int }{{7, 1}, {8, 1}} {\n"
      "\t\tif c.Add(tc.a, tc.b) < 0 {\n\t\t\tt.Fail()\n\t\t}\n\t}\n}\n";
  auto k = test_calls(keyed, "TestAdd", kAdd, "c");
  EXPECT_FALSE(k.incomplete);
  EXPECT_EQ(shown(k), (std::vector<std::string>{"Add[2,2]", "Add[1,3]", "Add[5,5]", "Add[7,1]", "Add[8,1]"}));
  // Unqualified names in an external test package are not the package's.
  EXPECT_TRUE(test_calls(keyed, "TestAdd", kAdd, "").calls.empty());
}

TEST(GoValues, EachTestReadsItsOwnTableAndNamesShadowedInLoops) {
  // (Review 35: every test binding `tests :=` read the last one of the file; a local shadowed by a
  // range variable kept its outer value.)
  const std::string t =
      "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\ttests := []struct{ a, b, want int }{{1, 3, 4}}\n"
      "\tfor _, tt := range tests {\n\t\tif Add(tt.a, tt.b) != tt.want {\n\t\t\tt.Fail()\n\t\t}\n\t}\n\ta := 1\n"
      "\tfor _, a := range []int{3} {\n\t\tif Add(a, 3) != 6 {\n\t\t\tt.Fail()\n\t\t}\n\t}\n}\n\n"
      "func TestAddZero(t *testing.T) {\n\ttests := []struct{ a, b, want int }{{5, 0, 5}}\n\tfor _, tt := range tests {\n"
      "\t\tif Add(tt.a, tt.b) != tt.want {\n\t\t\tt.Fail()\n\t\t}\n\t}\n}\n";
  auto r = test_calls(t, "TestAdd", kAdd, "");
  EXPECT_EQ(shown(r), (std::vector<std::string>{"Add[1,3]", "Add[3,3]"}));  // (the loop's `a`, not the outer 1)
  EXPECT_FALSE(r.incomplete);
  const std::string ranged = "package calc\n\nfunc TestAdd(t *testing.T) {\n\ta := 1\n\tif Add(a, 1) != 2 {\n\t\tt.Fail()\n\t}\n"
                             "\tfor _, a := range inputs() {\n\t\tif Add(a, 3) == 0 {\n\t\t\tt.Fail()\n\t\t}\n\t}\n}\n";
  auto g = test_calls(ranged, "TestAdd", kAdd, "");
  EXPECT_TRUE(g.calls.empty());  // (`a` is bound twice: 1 is not what either call takes)
  EXPECT_TRUE(g.incomplete);
  EXPECT_EQ(shown(test_calls(t, "TestAddZero", kAdd, "")), (std::vector<std::string>{"Add[5,0]"}));
  // A table the test changes before its loop is not read.
  const std::string changed = "package calc\n\nfunc TestAdd(t *testing.T) {\n\ttests := []struct{ a, b int }{{1, 3}, {2, 2}}\n\ttests = tests[1:]\n"
                              "\tfor _, tt := range tests {\n\t\tif Add(tt.a, tt.b) != 4 {\n\t\t\tt.Fail()\n\t\t}\n\t}\n}\n";
  auto c = test_calls(changed, "TestAdd", kAdd, "");
  EXPECT_TRUE(c.calls.empty());
  EXPECT_TRUE(c.incomplete);
}

TEST(GoValues, ConstantsNestedRowsHelperFilesAndUncheckedCalls) {
  const std::string consts = "package calc\n\nconst one = 1\n\nconst (\n\tThree int = 3\n\tname = \"x\"\n\tfirst = iota\n)\n";
  EXPECT_EQ(package_constants(consts), (std::map<std::string, std::string>{{"one", "1"}, {"Three", "3"}, {"name", "\"x\""}}));
  const std::map<std::string, std::string> known = {{"one", "1"}, {"Three", "3"}};
  const std::string t =
      "package calc_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/calc\"\n)\n\nfunc TestAdd(t *testing.T) {\n"
      "\tif calc.Add(calc.Three, 1) != 4 {\n\t\tt.Fail()\n\t}\n\ttype args struct {\n\t\ta int\n\t\tb int\n\t}\n"
      "\ttests := []struct {\n\t\tname string\n\t\targs args\n\t\twant int\n\t}{\n\t\t{name: \"x\", args: args{a: 1, b: 3}, want: 4},\n"
      "\t\t{\"y\", args{2, 2}, 4},\n\t}\n\tfor _, tt := range tests {\n\t\tt.Run(tt.name, func(t *testing.T) {\n"
      "\t\t\tif got := calc.Add(tt.args.a, tt.args.b); got != tt.want {\n\t\t\t\tt.Errorf(\"%d\", calc.Add(9, 9))\n\t\t\t}\n\t\t})\n\t}\n"
      "\tt.Logf(\"%d\", calc.Add(5, 5))\n\tcalc.Add(6, 6)\n\t_ = calc.Add(7, 7)\n\tcheck(t, 8, 8)\n}\n";
  const std::string helpers = "package calc_test\n\nfunc check(t *testing.T, a, b int) {\n\tif calc.Add(a, b) != a+b {\n\t\tt.Fail()\n\t}\n}\n";
  auto r = test_calls(t + "\n" + helpers, "TestAdd", kAdd, "calc", known);
  EXPECT_FALSE(r.incomplete);
  EXPECT_EQ(shown(r), (std::vector<std::string>{"Add[3,1]", "Add[1,3]", "Add[2,2]", "Add[8,8]"}));
  // A local of a constant's name shadows it.
  const std::string shadow = "package calc\n\nfunc TestAdd(t *testing.T) {\n\tone := len(\"ab\")\n\tif Add(one, 3) != 5 {\n\t\tt.Fail()\n\t}\n}\n";
  auto sh = test_calls(shadow, "TestAdd", kAdd, "", known);
  EXPECT_TRUE(sh.calls.empty());
  EXPECT_TRUE(sh.incomplete);
}

TEST(GoValues, RowsLeavingTheLoopAndReportingByName) {
  // (Review 36: a row kept in the table but skipped by a field read as asked; testify's
  // assert.Error read as the test's own t.Error; a failure message "Add = %d" bound `Add`.)
  const std::string t =
      "package calc\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/internal/assert\"\n)\n\n"
      "func TestAdd(t *testing.T) {\n\ttests := []struct {\n\t\ta, b, want int\n\t\tpending bool\n\t}{\n\t\t{2, 2, 4, false},\n"
      "\t\t{1, 3, 4, true},\n\t}\n\tfor _, tt := range tests {\n\t\tif tt.pending {\n\t\t\tcontinue\n\t\t}\n"
      "\t\tif got := Add(tt.a, tt.b); got != tt.want {\n\t\t\tt.Errorf(\"Add = %d, want %d\", got, tt.want)\n\t\t}\n\t}\n"
      "\tassert.Error(t, Div(1, 0))\n\tfor _, tt := range tests {\n\t\tif tt.a > 1 {\n\t\t\tcontinue\n\t\t}\n"
      "\t\tif Add(tt.a, 9) != 10 {\n\t\t\tt.Fail()\n\t\t}\n\t}\n}\n";
  auto r = test_calls(t, "TestAdd", kAdd, "");
  EXPECT_EQ(shown(r), (std::vector<std::string>{"Add[2,2]", "Div[1,0]"}));
  EXPECT_TRUE(r.incomplete);  // (`if tt.a > 1 { continue }`: which rows reach the call is not read)
  // A slice of values: its rows read one by one (a row that is an expression is not).
  const std::string values = "package calc\n\nconst gold = 50\n\nfunc TestAdd(t *testing.T) {\n\tfor _, v := range []int{gold, 2 * gold, count(), 7} {\n"
                             "\t\tif Add(v, 1) != v+1 {\n\t\t\tt.Fail()\n\t\t}\n\t}\n}\n";
  auto v = test_calls(values, "TestAdd", kAdd, "", package_constants(values));
  EXPECT_EQ(shown(v), (std::vector<std::string>{"Add[50,1]", "Add[100,1]", "Add[7,1]"}));
  EXPECT_TRUE(v.incomplete);
  // In an Example, what it prints is what go test checks.
  const std::string example = "package calc\n\nimport \"fmt\"\n\nfunc ExampleAdd() {\n\tfmt.Println(Add(1, 3))\n\t// Output: 4\n}\n";
  EXPECT_EQ(shown(test_calls(example, "ExampleAdd", kAdd, "")), (std::vector<std::string>{"Add[1,3]"}));
}

TEST(GoValues, ReviewThirtySevenShapes) {
  // A call written over lines with a trailing comma; constant expressions; a helper that changes
  // its parameter before the call; a type declared in another test with the same name; a result
  // bound to a local only a log reads.
  const std::string t =
      "package calc\n\nimport \"testing\"\n\nconst goldMin = 50 * 1000\n\nfunc checkAdd(t *testing.T, a, b, want int) {\n"
      "\tif a < b {\n\t\ta, want = b, want+b-a\n\t}\n\tif Add(a, b) != want {\n\t\tt.Fail()\n\t}\n}\n\n"
      "func TestZero(t *testing.T) {\n\ttype testCase struct{ a, b, want int }\n\t_ = []testCase{{0, 0, 0}}\n}\n\n"
      "func TestAdd(t *testing.T) {\n\tif Add(\n\t\tgoldMin,\n\t\t2*goldMin+1,\n\t) != 3 {\n\t\tt.Fail()\n\t}\n\tcheckAdd(t, 1, 3, 4)\n"
      "\ttype testCase struct{ b, a, want int }\n\tfor _, tc := range []testCase{{1, 3, 6}} {\n\t\tif Add(tc.a, tc.b) != tc.want {\n\t\t\tt.Fail()\n\t\t}\n\t}\n"
      "\todd := Add(1, 5)\n\tt.Logf(\"Add(1, 5) = %d\", odd)\n\tgot := Add(2, 5)\n\tif got != 7 {\n\t\tt.Errorf(\"got %d\", got)\n\t}\n}\n";
  auto r = test_calls(t, "TestAdd", kAdd, "", package_constants(t));
  EXPECT_EQ(shown(r), (std::vector<std::string>{"Add[50000,100001]", "Add[3,1]", "Add[2,5]"}));
  EXPECT_TRUE(r.incomplete);  // (the helper's `Add(a, b)`: `a` changed before the call)
  EXPECT_EQ(package_constants("package c\n\nconst (\n\tk = 1 << 3\n\tm = (7 - 1) / 4\n\ts = \"a\" + \"b\"\n)\n"),
            (std::map<std::string, std::string>{{"m", "1"}, {"s", "\"ab\""}}));  // (`<<` is not read)
}

TEST(GoValues, HelpersAreFollowedWithTheirArguments) {
  const std::string t =
      "package calc\n\nimport \"testing\"\n\nfunc checkAdd(t *testing.T, a, b, want int) {\n\tt.Helper()\n\tif got := Add(a, b); got != want {\n"
      "\t\tt.Errorf(\"got %d\", got)\n\t}\n}\n\nfunc TestAdd(t *testing.T) {\n\tcheckAdd(t, 2, 2, 4)\n\tcheckAdd(t, 1, 3, 4)\n"
      "\tfor _, r := range []struct{ a, b, want int }{{5, 5, 10}} {\n\t\tcheckAdd(t, r.a, r.b, r.want)\n\t}\n}\n";
  auto r = test_calls(t, "TestAdd", kAdd, "");
  EXPECT_FALSE(r.incomplete);
  EXPECT_EQ(shown(r), (std::vector<std::string>{"Add[2,2]", "Add[1,3]", "Add[5,5]"}));
}

TEST(GoValues, CallsThatCannotBeReadMakeTheRecordIncomplete) {
  for (const std::string body : {"\tn := len(\"ab\")\n\tif Add(n, 2) != 4 {\n\t\tt.Fail()\n\t}\n",  // (computed at run time)
                                 "\tif Add('a', 2) != 99 {\n\t\tt.Fail()\n\t}\n",                  // (a rune)
                                 "\tf := Add\n\tif f(2, 2) != 4 {\n\t\tt.Fail()\n\t}\n",          // (passed on as a value)
                                 "\tx := 2\n\tx++\n\tif Add(x, 2) != 5 {\n\t\tt.Fail()\n\t}\n"}) {  // (bound more than once)
    SCOPED_TRACE(body);
    auto r = test_calls("package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n" + body + "}\n", "TestAdd", kAdd, "");
    EXPECT_TRUE(r.found);
    EXPECT_TRUE(r.incomplete);
    EXPECT_TRUE(r.calls.empty()) << shown(r)[0];
  }
}

TEST(GoValues, TheDriverAnswersEachCallAndNamesItsLine) {
  int first = 0;
  const std::string src = driver_source("calc", {{"Add", "[2,2]"}, {"Div", "[1.5,\"a\\\"b\",true]"}, {"", "not json"}}, &first);
  EXPECT_NE(src.find("package calc\n"), std::string::npos);
  EXPECT_GT(first, 0);
  // Line first + i holds call i.
  std::vector<std::string> lines;
  std::istringstream in(src);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_GE(lines.size(), static_cast<std::size_t>(first + 2));
  EXPECT_NE(lines[static_cast<std::size_t>(first - 1)].find("Add(2, 2)"), std::string::npos) << lines[static_cast<std::size_t>(first - 1)];
  EXPECT_NE(lines[static_cast<std::size_t>(first)].find("Div(1.5, \"a\\\"b\", true)"), std::string::npos) << lines[static_cast<std::size_t>(first)];
  EXPECT_NE(lines[static_cast<std::size_t>(first + 1)].find("\"?\""), std::string::npos);
  EXPECT_EQ(error_lines("# example.com/m/calc\ncalc/zz_flowagent_values.go:31:58: too many arguments\n./zz_flowagent_values.go:33:1: x\n",
                        "zz_flowagent_values.go"),
            (std::set<int>{31, 33}));
}

TEST(GoValues, TheDriverRunsWithGo) {
  if (flowagent::testkit::sh("command -v go >/dev/null") != 0) GTEST_SKIP() << "go is not installed";
  TempDir tmp;
  const auto root = tmp.path();
  std::filesystem::create_directories(root / "calc" / "drive");
  auto write = [](const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; };
  write(root / "go.mod", "module example.com/m\n\ngo 1.19\n");
  write(root / "calc" / "calc.go",
        "package calc\n\nimport \"errors\"\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Div(a, b float64) (float64, error) {\n"
        "\tif b == 0 {\n\t\treturn 0, errors.New(\"zero\")\n\t}\n\treturn a / b, nil\n}\n\nfunc Boom(s string) string { panic(\"boom \" + s) }\n");
  write(root / "calc" / "zz_flowagent_values.go",
        driver_source("calc", {{"Add", "[2,2]"}, {"Div", "[3,2]"}, {"Div", "[1,0]"}, {"Boom", "[\"x\"]"}}));
  const auto out = root / "answers.json";
  write(root / "calc" / "drive" / "main.go", main_source("example.com/m/calc", out.string()));
  ASSERT_EQ(flowagent::testkit::sh("cd " + root.string() + " && GOCACHE=" + (root / "gocache").string() + " go run ./calc/drive"), 0);
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "[\"4\",\"1.5, \\u003cnil\\u003e\",\"0, \\u0026errors.errorString{s:\\\"zero\\\"}\",\"raise:boom x\"]");
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
