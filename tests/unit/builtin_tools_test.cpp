#include <gtest/gtest.h>

#include "flowagent/builtin_tools.hpp"
#include "flowagent/git_workspace.hpp"
#include "support/test_support.hpp"
#include "tools/test_command.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;

namespace {

class ToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo = tmp.path() / "repo";
    head = testkit::make_repo(
        repo, {{"src/calc.py", "def add(a, b):\n    return a + b + 1\n\n\ndef sub(a, b):\n    return a - b\n"},
               {"tests/test_calc.py",
                "from src.calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_ok():\n    assert True\n"},
               {"src/__init__.py", ""},
               {".gitignore", "ignored/\n"},
               {"ignored/match.py", "def add(): pass\n"},
               {"data.bin", std::string("def add\0\x01\x02", 10)},
               {"run_tests.sh",
                "#!/bin/sh\n# fake runner: prints gtest-style lines for each test named on the command line\n"
                "for t in \"$@\"; do\n  echo \"[ RUN      ] $t\"\n"
                "  if grep -q 'a + b + 1' src/calc.py && [ \"$t\" = Calc.Add ]; then\n"
                "    echo 'src/calc_test.cc:5: Failure'; echo 'Expected equality of these values:';\n"
                "    echo '  add(2, 2)'; echo '    Which is: 5'; echo '  4'; echo \"[  FAILED  ] $t (0 ms)\"; st=1\n"
                "  else echo \"[       OK ] $t (0 ms)\"; fi\ndone\nexit ${st:-0}\n"}});
    testkit::sh("chmod +x '" + (repo / "run_tests.sh").string() + "'");
    head = testkit::commit_files(repo, {}, "make the runner executable");
    GitWorkspaceOptions o;
    o.root = tmp.path() / "pool";
    provider = make_git_workspace_provider(o);
    request = testkit::sample_request(repo.string());
    request.change.head_commit = head;
    request.failure.failing_tests = {"Calc.Add"};
    request.commands.test = "./run_tests.sh {tests}";
    request.commands.build = "echo building; test -f src/calc.py";
    auto w = provider->acquire(request, CancelToken());
    ASSERT_TRUE(w) << w.error().message;
    ws = std::move(*w);
    ASSERT_TRUE(register_builtin_tools(registry));
  }

  ToolOutput call(const std::string& tool, const std::string& args) {
    ToolContext ctx{*ws, request, state, cancel};
    auto parsed = parse_json(args);
    EXPECT_TRUE(parsed) << args;
    auto r = registry.invoke(tool, *parsed, ctx);
    EXPECT_TRUE(r) << tool << " " << args << ": " << (r ? "" : r.error().to_string());
    return r ? *r : ToolOutput{false, r.error().message};
  }

  testkit::TempDir tmp;
  fs::path repo;
  std::string head;
  std::shared_ptr<WorkspaceProvider> provider;
  std::unique_ptr<Workspace> ws;
  RepairRequest request;
  ToolRegistry registry;
  ToolState state;
  CancelToken cancel;
};

}  // namespace

TEST_F(ToolsTest, ReadFileNumbersLinesAndHonoursRanges) {
  auto r = call("read_file", R"({"path":"src/calc.py"})");
  EXPECT_TRUE(r.ok);
  EXPECT_NE(r.content.find("1| def add(a, b):\n2|     return a + b + 1\n"), std::string::npos) << r.content;
  r = call("read_file", R"({"path":"src/calc.py","start_line":5,"end_line":6})");
  EXPECT_EQ(r.content, "5| def sub(a, b):\n6|     return a - b\n");
  r = call("read_file", R"({"path":"src/calc.py","start_line":50})");
  EXPECT_FALSE(r.ok);
  r = call("read_file", R"({"path":"data.bin"})");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.content.find("binary"), std::string::npos);
}

TEST_F(ToolsTest, EditFileReplacesExactlyOnce) {
  auto r = call("edit_file", R"({"path":"src/calc.py","old_text":"a + b + 1","new_text":"a + b"})");
  EXPECT_TRUE(r.ok) << r.content;
  EXPECT_EQ(state.last_edit_seq, 1u);
  EXPECT_NE(testkit::read_file(ws->root() / "src/calc.py").find("return a + b\n"), std::string::npos);
  // Ambiguous
  r = call("edit_file", R"({"path":"src/calc.py","old_text":"(a, b):","new_text":"(x, y):"})");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.content.find("occurs 2 times"), std::string::npos);
  // Not found: nearest candidates shown
  r = call("edit_file", R"({"path":"src/calc.py","old_text":"  return a - b ","new_text":"x"})");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.content.find("Nearest candidates:\n  6|     return a - b"), std::string::npos) << r.content;
  // Binary files cannot be edited as text
  r = call("edit_file", R"({"path":"data.bin","old_text":"def","new_text":"x"})");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(state.last_edit_seq, 1u);  // failed edits do not count
}

TEST_F(ToolsTest, WriteDeleteAndList) {
  EXPECT_TRUE(call("write_file", R"({"path":"src/util/new.py","content":"x = 1\n"})").ok);
  EXPECT_EQ(testkit::read_file(ws->root() / "src/util/new.py"), "x = 1\n");
  auto l = call("list_dir", R"({"path":"src"})");
  EXPECT_EQ(l.content, "__init__.py\ncalc.py\nutil/\n");
  EXPECT_EQ(call("list_dir", "{}").content.find(".git\n"), std::string::npos);
  EXPECT_TRUE(call("delete_file", R"({"path":"src/util/new.py"})").ok);
  EXPECT_FALSE(fs::exists(ws->root() / "src/util/new.py"));
  EXPECT_FALSE(call("delete_file", R"({"path":"src/missing.py"})").ok);
  EXPECT_FALSE(call("write_file", R"({"path":"data.bin","content":"text"})").ok);
}

TEST_F(ToolsTest, AdversarialPathsNeverLeaveTheWorkspace) {
  testkit::write_file(tmp.path() / "secret.txt", "TOPSECRET-CONTENT");
  fs::create_symlink(tmp.path() / "secret.txt", ws->root() / "link");
  for (const char* args : {R"({"path":"/etc/passwd"})", R"({"path":"../../secret.txt"})", R"({"path":"link"})",
                           R"({"path":"src/../../secret.txt"})", R"({"path":"a\u0000b"})"}) {
    auto r = call("read_file", args);
    EXPECT_FALSE(r.ok) << args;
    EXPECT_EQ(r.content.find("TOPSECRET"), std::string::npos) << args;
  }
  EXPECT_FALSE(call("write_file", R"({"path":"../escape.txt","content":"x"})").ok);
  EXPECT_FALSE(fs::exists(tmp.path() / "escape.txt"));
  EXPECT_FALSE(call("edit_file", R"({"path":"link","old_text":"TOPSECRET","new_text":"pwned"})").ok);
  EXPECT_EQ(testkit::read_file(tmp.path() / "secret.txt"), "TOPSECRET-CONTENT");
  EXPECT_FALSE(call("delete_file", R"({"path":"../secret.txt"})").ok);
  EXPECT_TRUE(fs::exists(tmp.path() / "secret.txt"));
  // Huge files are refused, not loaded.
  testkit::write_file(ws->root() / "huge.txt", std::string(3 << 20, 'x'));
  auto r = call("read_file", R"({"path":"huge.txt"})");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.content.find("over the limit"), std::string::npos);
  // Unknown arguments and tools are refused by the registry with a clear error.
  ToolContext ctx{*ws, request, state, cancel};
  EXPECT_EQ(registry.invoke("read_file", *parse_json(R"({"path":"x","mode":"w"})"), ctx).error().code, Errc::schema);
}

TEST_F(ToolsTest, SearchCodeHonoursGitignoreAndSkipsBinaries) {
  auto r = call("search_code", R"({"pattern":"def add"})");
  EXPECT_TRUE(r.ok);
  EXPECT_NE(r.content.find("src/calc.py:1:def add(a, b):"), std::string::npos) << r.content;
  EXPECT_EQ(r.content.find("ignored/"), std::string::npos);
  EXPECT_EQ(r.content.find("data.bin"), std::string::npos);
  r = call("search_code", R"({"pattern":"a + b + 1","literal":true})");
  EXPECT_NE(r.content.find("src/calc.py:2:"), std::string::npos);
  r = call("search_code", R"j({"pattern":"^def \\w+\\(a, b\\)","glob":"*.py","context":1})j");
  EXPECT_NE(r.content.find("src/calc.py:5:def sub(a, b):"), std::string::npos);
  EXPECT_NE(r.content.find("src/calc.py-6-    return a - b"), std::string::npos);
  r = call("search_code", R"({"pattern":"DEF ADD","ignore_case":true,"glob":"tests/*"})");
  EXPECT_EQ(r.content, "no matches");
  r = call("search_code", R"({"pattern":"(unclosed"})");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.content.find("invalid regular expression"), std::string::npos);
}

TEST_F(ToolsTest, RunTestsBuildAndReadLog) {
  auto b = call("build", "{}");
  EXPECT_TRUE(b.ok) << b.content;
  EXPECT_NE(b.content.find("build succeeded"), std::string::npos);
  auto r = call("run_tests", "{}");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.content.find("FAIL Calc.Add at src/calc_test.cc:5"), std::string::npos) << r.content;
  EXPECT_NE(r.content.find("expected: 4\n  actual: 5"), std::string::npos) << r.content;
  ASSERT_TRUE(state.last_test_run);
  EXPECT_EQ(state.last_test_run->failed, std::vector<std::string>{"Calc.Add"});
  EXPECT_TRUE(state.tests_ran_after_last_edit());
  EXPECT_TRUE(call("edit_file", R"({"path":"src/calc.py","old_text":"a + b + 1","new_text":"a + b"})").ok);
  EXPECT_FALSE(state.tests_ran_after_last_edit());
  r = call("run_tests", R"({"tests":["Calc.Add","Calc.Sub"]})");
  EXPECT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find("PASS Calc.Sub"), std::string::npos);
  EXPECT_TRUE(state.tests_ran_after_last_edit());
  EXPECT_FALSE(state.last_test_run_was_failing_set);
  auto log = call("read_log", R"({"which":"test","grep":"RUN"})");
  EXPECT_EQ(log.content, "1: [ RUN      ] Calc.Add\n3: [ RUN      ] Calc.Sub\n");
  EXPECT_FALSE(call("read_log", R"({"which":"build","tail":1})").content.empty());
}

TEST(ExpandTests, PlaceholderForms) {
  EXPECT_EQ(detail::expand_tests("run {tests}", {"a b", "c"}), "run 'a b' 'c'");
  EXPECT_EQ(detail::expand_tests("t --gtest_filter={tests|:}", {"A.B", "C.D"}), "t --gtest_filter='A.B:C.D'");
  EXPECT_EQ(detail::expand_tests("pytest -k {tests| or }", {"x", "y"}), "pytest -k 'x or y'");
  EXPECT_EQ(detail::expand_tests("echo {testsuite} {tests}", {"t"}), "echo {testsuite} 't'");
  EXPECT_EQ(detail::expand_tests("make check", {"t"}), "make check");
}

TEST_F(ToolsTest, TestIdsAreShellQuoted) {
  request.commands.test = "echo {tests} > out.txt";
  request.failure.failing_tests = {"a b", "$(touch pwned)", "it's"};
  call("run_tests", "{}");
  EXPECT_FALSE(fs::exists(ws->root() / "pwned"));
  EXPECT_EQ(testkit::read_file(ws->root() / "out.txt"), "a b $(touch pwned) it's\n");
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
