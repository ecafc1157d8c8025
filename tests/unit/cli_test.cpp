#include <gtest/gtest.h>

#include "cli/progress.hpp"
#include "flowagent/version.hpp"
#include "support/scripted_model.hpp"
#include "support/test_support.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::testkit;
using flowagent::cli::fit_to_width;
using flowagent::cli::progress_line;
namespace fs = std::filesystem;

namespace {
int run_cli(const std::string& args, std::string* out = nullptr) { return sh(std::string(FLOWAGENT_CLI) + " " + args, out); }
/// stdout only (the --json document), stderr dropped.
int run_cli_stdout(const std::string& args, std::string* out) {
  return sh("{ " + std::string(FLOWAGENT_CLI) + " " + args + " 2>/dev/null; }", out);
}
}  // namespace

TEST(Cli, UsageAndBadInput) {
  std::string out;
  EXPECT_EQ(run_cli("", &out), 3);
  EXPECT_EQ(run_cli("frobnicate", &out), 3);
  EXPECT_EQ(run_cli("version", &out), 0);
  EXPECT_NE(out.find("flowagent " + std::string(kVersionString)), std::string::npos);
  EXPECT_EQ(run_cli("repair --repo /nonexistent --base a --head b", &out), 3);
  EXPECT_NE(out.find("does not exist"), std::string::npos);
  TempDir d;
  write_file(d.path() / "bad.json", R"({"schema":"flowagent.repair_request/v1","repository":3})");
  EXPECT_EQ(run_cli("check-request " + (d.path() / "bad.json").string(), &out), 3);
  EXPECT_NE(out.find("repository: expected a string"), std::string::npos) << out;
  EXPECT_EQ(run_cli("repair --request " + (d.path() / "bad.json").string(), &out), 3);
  EXPECT_EQ(run_cli("repair --repo . --base a --head b --candidates 0", &out), 3);
  EXPECT_NE(out.find("must be between 1 and 16"), std::string::npos) << out;
  EXPECT_EQ(run_cli("repair --repo . --base a --head b --candidate-concurrency 17", &out), 3);
  write_file(d.path() / "cands.json",
             R"({"schema":"flowagent.repair_request/v1","repository":"/r","change":{"id":"c","base_commit":"a","head_commit":"b"},)"
             R"("failure":{},"candidates":{"count":3,"early_stop":true}})");
  EXPECT_EQ(run_cli("check-request " + (d.path() / "cands.json").string(), &out), 0) << out;
}

TEST(Cli, RepairsFromAPatchFileAndPrintsJson) {
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto base = make_repo(repo, {{"v.txt", "1\n"}});
  // The change arrives as a patch file, not as a commit.
  write_file(tmp.path() / "change.diff",
             "diff --git a/v.txt b/v.txt\n--- a/v.txt\n+++ b/v.txt\n@@ -1 +1 @@\n-1\n+2\n"
             "diff --git a/notes.txt b/notes.txt\nnew file mode 100644\n--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1,3 @@\n+a\n+b\n+c\n");
  testkit::write_file(repo / "wip.txt", "uncommitted work\n");
  std::string before;
  sh("cd '" + repo.string() + "' && git status --porcelain && git rev-parse HEAD && sha256sum .git/index", &before);
  ScriptedModel model;
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "v.txt"}, {"old_text", "2"}, {"new_text", "1"}})}}));
  model.push(final_reply("v.txt must stay 1."));
  std::string out;
  int rc = run_cli("repair --repo '" + repo.string() + "' --base " + base + " --patch '" + (tmp.path() / "change.diff").string() +
                   "' --test 'grep -q 1 v.txt' --failing v --model openai-compatible:m --base-url " + model.base_url() +
                   " --accept-exit-code-evidence --json --quiet 2>/dev/null",
               &out);
  EXPECT_EQ(rc, 0) << out;
  auto doc = parse_json(out);
  ASSERT_TRUE(doc) << out;
  EXPECT_EQ(doc->get_string("status"), "fixed");
  EXPECT_NE(doc->get_string("patch").find("-2\n+1"), std::string::npos);
  std::string after;
  sh("cd '" + repo.string() + "' && git status --porcelain && git rev-parse HEAD && sha256sum .git/index", &after);
  EXPECT_EQ(before, after);

  // The result published and applied from the command line.
  write_file(tmp.path() / "result.json", out);
  std::string sarif;
  EXPECT_EQ(run_cli("publish --format sarif --result '" + (tmp.path() / "result.json").string() + "'", &sarif), 0) << sarif;
  EXPECT_NE(sarif.find("\"columnKind\": \"utf16CodeUnits\""), std::string::npos) << sarif;
  EXPECT_EQ(run_cli("publish --format yaml --result '" + (tmp.path() / "result.json").string() + "'", &sarif), 3);
  // --json: one document on stdout, the published text as a string; an error is a cli_error document.
  EXPECT_EQ(run_cli_stdout("publish --json --format sarif --result '" + (tmp.path() / "result.json").string() + "'", &sarif), 0);
  auto published = parse_json(sarif);
  ASSERT_TRUE(published) << sarif;
  EXPECT_EQ(published->get_string("format"), "sarif");
  EXPECT_NE(published->get_string("content").find("\"columnKind\": \"utf16CodeUnits\""), std::string::npos) << sarif;
  EXPECT_EQ(run_cli_stdout("publish --json --format yaml --result '" + (tmp.path() / "result.json").string() + "'", &sarif), 3);
  auto refused = parse_json(sarif);
  ASSERT_TRUE(refused) << sarif;
  EXPECT_EQ(refused->get_string("schema"), "flowagent.cli_error/v1");
  // apply: the head of the change is a commit object made from the patch; check it out first.
  sh("cd '" + repo.string() + "' && git stash -q -u && git checkout -q " + doc->get_string("head_commit"));
  std::string applied;
  EXPECT_EQ(run_cli("apply --repo '" + repo.string() + "' --result '" + (tmp.path() / "result.json").string() + "'", &applied), 0)
      << applied;
  EXPECT_EQ(read_file(repo / "v.txt"), "1\n");
  sh("cd '" + repo.string() + "' && git checkout -q -f main && git stash pop -q");

  // A bot's change: abstained, exit code 2.
  rc = run_cli("repair --repo '" + repo.string() + "' --base " + base + " --head HEAD --bot --test true --quiet", &out);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("automated_author"), std::string::npos);
  // A patch that does not apply: bad input.
  write_file(tmp.path() / "broken.diff", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-nope\n+yes\n");
  rc = run_cli("repair --repo '" + repo.string() + "' --base " + base + " --patch '" + (tmp.path() / "broken.diff").string() +
               "' --test true --quiet",
           &out);
  EXPECT_EQ(rc, 3) << out;
  EXPECT_NE(out.find("does not apply"), std::string::npos);
}

// The sandbox's bounds are set from the command line: a test command that adds more entries to the
// workspace than --sandbox-max-inodes allows is stopped, and the repair is not delivered.
TEST(Cli, SandboxBoundsFromTheCommandLineReachTheRuns) {
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto base = make_repo(repo, {{"v.txt", "1\n"}});
  const std::string head = commit_files(repo, {{"v.txt", "2\n"}, {"notes.txt", "a\nb\nc\n"}}, "change");
  const std::string test = "'mkdir -p spill && i=0; while [ $i -lt 400 ]; do : > spill/f$i; i=$((i+1)); done; sleep 1; grep -q 1 v.txt'";
  for (const std::string bound : {"--sandbox-max-inodes 1000", "--sandbox-max-inodes 50"}) {
    ScriptedModel model;
    model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "v.txt"}, {"old_text", "2"}, {"new_text", "1"}})}}));
    model.push(final_reply("v.txt must stay 1."));
    std::string out;
    const int rc = run_cli_stdout("repair --repo '" + repo.string() + "' --base " + base + " --head " + head + " --test " + test +
                                      " --failing v --model openai-compatible:m --base-url " + model.base_url() +
                                      " --accept-exit-code-evidence --json --quiet " + bound,
                                  &out);
    auto doc = parse_json(out);
    ASSERT_TRUE(doc) << out;
    if (bound.ends_with("1000")) {
      EXPECT_EQ(rc, 0) << out;
      EXPECT_EQ(doc->get_string("status"), "fixed") << out;
    } else {
      EXPECT_NE(rc, 0) << out;
      EXPECT_NE(doc->get_string("status"), "fixed") << out;
      EXPECT_NE(out.find("max_workspace_inodes"), std::string::npos) << out;
    }
  }
}

TEST(Cli, GuardFindsCheatsAndRevertsAndAcceptsHonestPatches) {
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto base = make_repo(repo, {{"calc.py", "def add(a, b):\n    return a + b\n"},
                               {"tests/test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"}});
  auto head = commit_files(repo, {{"calc.py", "def add(a, b):\n    return a + b + 1\n"}}, "change");
  write_file(tmp.path() / "cheat.diff",
             "diff --git a/tests/test_calc.py b/tests/test_calc.py\n--- a/tests/test_calc.py\n+++ b/tests/test_calc.py\n"
             "@@ -3,3 +3,4 @@ from calc import add\n \n \n+@pytest.mark.skip\n def test_add():\n");
  write_file(tmp.path() / "revert.diff",
             "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n"
             "-    return a + b + 1\n+    return a + b\n");
  write_file(tmp.path() / "honest.diff",
             "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n"
             "-    return a + b + 1\n+    return b + a\n");
  const std::string common = "guard --repo '" + repo.string() + "' --head " + head + " --base " + base + " --failing test_add";
  std::string out;
  EXPECT_EQ(run_cli(common + " --patch '" + (tmp.path() / "cheat.diff").string() + "'", &out), 1) << out;
  EXPECT_NE(out.find("tests/test_calc.py:4: [skip_added]"), std::string::npos) << out;
  EXPECT_EQ(run_cli(common + " --patch '" + (tmp.path() / "revert.diff").string() + "'", &out), 1) << out;
  EXPECT_NE(out.find("[reverts_change]"), std::string::npos) << out;
  EXPECT_EQ(run_cli(common + " --patch '" + (tmp.path() / "honest.diff").string() + "'", &out), 0) << out;
  EXPECT_NE(out.find("ok: no cheating found"), std::string::npos);

  // --json: the same verdicts as one document.
  EXPECT_EQ(run_cli_stdout(common + " --json --patch '" + (tmp.path() / "cheat.diff").string() + "'", &out), 1) << out;
  auto cheat = parse_json(out);
  ASSERT_TRUE(cheat) << out;
  EXPECT_FALSE(cheat->find("clean")->as_bool());
  ASSERT_EQ(cheat->find("findings")->as_array().size(), 1u) << out;
  EXPECT_EQ(cheat->find("findings")->as_array()[0].get_string("rule"), "skip_added");
  EXPECT_EQ(cheat->find("findings")->as_array()[0].find("line")->as_int(), 4);
  EXPECT_EQ(run_cli_stdout(common + " --json --patch '" + (tmp.path() / "revert.diff").string() + "'", &out), 1) << out;
  auto reverted = parse_json(out);
  ASSERT_TRUE(reverted) << out;
  EXPECT_TRUE(reverted->find("revert")->find("reverts_change")->as_bool()) << out;
  EXPECT_EQ(run_cli_stdout(common + " --json --patch '" + (tmp.path() / "honest.diff").string() + "'", &out), 0) << out;
  auto honest = parse_json(out);
  ASSERT_TRUE(honest) << out;
  EXPECT_TRUE(honest->find("clean")->as_bool());
  EXPECT_FALSE(honest->find("revert")->find("reverts_change")->as_bool());
  EXPECT_TRUE(honest->find("findings")->as_array().empty());

  // The tests' helper modules are followed through the repository at the head, as the post-filter
  // does: a patch touching only helpers.py, which the failing test imports, is read as test code.
  auto hrepo = tmp.path() / "helpers-repo";
  auto hbase = make_repo(hrepo, {{"calc.py", "def add(a, b):\n    return a + b\n"},
                                 {"helpers.py", "import calc\n\n\ndef check(got, want):\n    assert got == want\n"},
                                 {"tests/test_calc.py", "from calc import add\nfrom helpers import check\n\n\n"
                                                        "def test_add():\n    check(add(2, 2), 4)\n"}});
  auto hhead = commit_files(hrepo, {{"calc.py", "def add(a, b):\n    return a + b + 1\n"}}, "change");
  write_file(tmp.path() / "stand-in.diff",
             "diff --git a/helpers.py b/helpers.py\n--- a/helpers.py\n+++ b/helpers.py\n@@ -1,4 +1,5 @@\n import calc\n"
             "+calc.add = lambda a, b: a + b\n \n \n def check(got, want):\n");
  write_file(tmp.path() / "stronger.diff",
             "diff --git a/helpers.py b/helpers.py\n--- a/helpers.py\n+++ b/helpers.py\n@@ -4,2 +4,3 @@ import calc\n"
             " def check(got, want):\n     assert got == want\n+    assert type(got) is type(want)\n");
  const std::string hcommon = "guard --repo '" + hrepo.string() + "' --head " + hhead + " --failing tests/test_calc.py::test_add";
  EXPECT_EQ(run_cli(hcommon + " --base " + hbase + " --patch '" + (tmp.path() / "stand-in.diff").string() + "'", &out), 1) << out;
  EXPECT_NE(out.find("helpers.py:2: [mocked_code_under_test]"), std::string::npos) << out;
  EXPECT_EQ(run_cli(hcommon + " --patch '" + (tmp.path() / "stand-in.diff").string() + "'", &out), 1) << out;  // without --base too
  EXPECT_NE(out.find("[mocked_code_under_test]"), std::string::npos) << out;
  EXPECT_EQ(run_cli(hcommon + " --base " + hbase + " --patch '" + (tmp.path() / "stronger.diff").string() + "'", &out), 0) << out;
  EXPECT_EQ(run_cli_stdout("guard --json --repo /nonexistent --head HEAD --patch /nonexistent", &out), 3);
  auto bad = parse_json(out);
  ASSERT_TRUE(bad) << out;
  EXPECT_EQ(bad->get_string("schema"), "flowagent.cli_error/v1");
}

TEST(Cli, EverySubcommandHasHelpThatExitsZero) {
  for (const char* cmd : {"repair", "publish", "apply", "guard", "check-request"}) {
    std::string out;
    EXPECT_EQ(run_cli(std::string(cmd) + " --help", &out), 0) << cmd << ": " << out;
    EXPECT_NE(out.find(std::string("usage: flowagent ") + cmd), std::string::npos) << out;
  }
  std::string out;
  EXPECT_EQ(run_cli("repair --help", &out), 0);
  EXPECT_NE(out.find("--sandbox-max-processes N"), std::string::npos) << out;
  EXPECT_NE(out.find("--sandbox-max-inodes N"), std::string::npos) << out;
  EXPECT_NE(out.find("--sandbox-max-run-memory-bytes N"), std::string::npos) << out;
  EXPECT_EQ(run_cli("publish -h", &out), 0);
  EXPECT_NE(out.find("gitlab"), std::string::npos) << out;
}

TEST(Cli, WithJsonEveryErrorIsADocumentOnStdout) {
  TempDir d;
  write_file(d.path() / "bad.json", R"({"schema":"flowagent.repair_request/v1","repository":3})");
  struct Case {
    std::string args;
    int exit;
    std::string code;
  };
  for (const Case& c : std::vector<Case>{
           {"repair --json --no-such-option", 3, "usage"},
           {"repair --json --max-tool-calls", 3, "usage"},
           {"repair --json --repo /nonexistent --base a --head b", 3, "invalid_input"},
           {"repair --json --request " + (d.path() / "bad.json").string(), 3, "invalid_input"},
           {"check-request --json " + (d.path() / "bad.json").string(), 3, "schema"},
           {"check-request --json", 3, "usage"},
           {"apply --json --result " + (d.path() / "bad.json").string(), 3, "usage"},
           {"frobnicate --json", 3, "usage"}}) {
    std::string out;
    EXPECT_EQ(sh("(" + std::string(FLOWAGENT_CLI) + " " + c.args + " 2>/dev/null)", &out), c.exit) << c.args;
    auto doc = parse_json(out);
    ASSERT_TRUE(doc) << c.args << ": stdout is not one JSON document: " << out;
    EXPECT_EQ(doc->get_string("schema"), "flowagent.cli_error/v1") << out;
    EXPECT_EQ(doc->get_int("exit_code"), c.exit);
    EXPECT_EQ(doc->find("error")->get_string("code"), c.code) << c.args << ": " << out;
    EXPECT_FALSE(doc->find("error")->get_string("message").empty());
  }
  // Without --json, stdout stays empty on an error.
  std::string out;
  EXPECT_EQ(sh("(" + std::string(FLOWAGENT_CLI) + " repair --no-such-option 2>/dev/null)", &out), 3);
  EXPECT_EQ(out, "");
}

TEST(Cli, LimitsAreCheckedLikeTheSchema) {
  TempDir tmp;
  auto repo = tmp.path() / "repo";
  auto base = make_repo(repo, {{"v.txt", "1\n"}});
  const std::string common = "repair --quiet --repo '" + repo.string() + "' --base " + base + " --head " + base + " --test true ";
  for (const char* bad : {"--max-tool-calls -1", "--timeout-seconds -5", "--context-tokens -1", "--revision -2",
                          "--max-tool-calls 12abc", "--sandbox-max-processes -1", "--context-tokens 10",
                          "--timeout-seconds 0"}) {
    std::string out;
    EXPECT_EQ(run_cli(common + bad, &out), 3) << bad << ": " << out;
  }
}

TEST(Cli, PublishLspNeedsTheRepositoryOrAUriBase) {
  TempDir d;
  RepairResult r;
  r.status = Status::fixed;
  r.patch = "diff --git a/a.txt b/a.txt\nindex d00491fd7e5bb6fa28c517a0bb32b8b506539d4d..0cfbf08886fca9a91cb753ec8734c84fcbe52c9f 100644\n"
            "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-1\n+2\n";
  write_file(d.path() / "r.json", dump_json_lossy(to_json(r)));
  std::string out;
  EXPECT_EQ(run_cli("publish --format lsp --result '" + (d.path() / "r.json").string() + "'", &out), 3) << out;
  EXPECT_NE(out.find("uri_base"), std::string::npos) << out;
  EXPECT_EQ(run_cli("publish --format lsp --uri-base /src/repo --result '" + (d.path() / "r.json").string() + "'", &out), 0) << out;
  EXPECT_NE(out.find("file:///src/repo/a.txt"), std::string::npos) << out;
}

TEST(Cli, ProgressFitsANarrowTerminal) {
  Event e;
  e.kind = EventKind::tool_call;
  e.phase = "repair";
  e.index = 3;
  e.max = 100;
  e.message = "read_file src/some/very/long/path/to/a/file/that/does/not/fit\ninto/forty/columns.py \xE2\x82\xAC\xE2\x82\xAC";
  const std::string line = progress_line(e);
  EXPECT_EQ(line.find('\n'), std::string::npos);  // no control character can break the line
  for (int cols : {20, 40, 80}) {
    const std::string fitted = fit_to_width(line, cols);
    std::size_t code_points = 0;
    for (unsigned char c : fitted) code_points += (c & 0xC0) != 0x80;
    EXPECT_LT(code_points, static_cast<std::size_t>(cols)) << fitted;  // never reaches the last column
    EXPECT_TRUE(parse_json(dump_json_lossy(Json(fitted))));            // cut on a UTF-8 boundary
  }
  // Escape sequences a model can put in a tool argument or a message never reach the terminal raw.
  e.message = "edit_file x.py \x1b]0;pwned\x07 \x1b[2K\r \xC2\x9B" "2J";
  e.phase = "re\x1bpair";
  const std::string hostile = progress_line(e);
  EXPECT_EQ(hostile.find('\x1b'), std::string::npos) << hostile;
  EXPECT_EQ(hostile.find('\r'), std::string::npos) << hostile;
  EXPECT_EQ(hostile.find("\xC2\x9B"), std::string::npos) << hostile;
  EXPECT_EQ(flowagent::cli::terminal_safe("a\tb\nc\x1b[0m\x7f"), "a\tb\nc?[0m?");
  EXPECT_EQ(fit_to_width("short", 80), "short");
  EXPECT_EQ(fit_to_width("0123456789", 8), "0123...");
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
