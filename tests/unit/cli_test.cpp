#include <gtest/gtest.h>

#include "support/scripted_model.hpp"
#include "support/test_support.hpp"

using namespace flowagent;
using namespace flowagent::testkit;
namespace fs = std::filesystem;

namespace {
int cli(const std::string& args, std::string* out = nullptr) { return sh(std::string(FLOWAGENT_CLI) + " " + args, out); }
}  // namespace

TEST(Cli, UsageAndBadInput) {
  std::string out;
  EXPECT_EQ(cli("", &out), 3);
  EXPECT_EQ(cli("frobnicate", &out), 3);
  EXPECT_EQ(cli("version", &out), 0);
  EXPECT_NE(out.find("flowagent 0.1.0"), std::string::npos);
  EXPECT_EQ(cli("repair --repo /nonexistent --base a --head b", &out), 3);
  EXPECT_NE(out.find("does not exist"), std::string::npos);
  TempDir d;
  write_file(d.path() / "bad.json", R"({"schema":"flowagent.repair_request/v1","repository":3})");
  EXPECT_EQ(cli("check-request " + (d.path() / "bad.json").string(), &out), 3);
  EXPECT_NE(out.find("repository: expected a string"), std::string::npos) << out;
  EXPECT_EQ(cli("repair --request " + (d.path() / "bad.json").string(), &out), 3);
  EXPECT_EQ(cli("repair --repo . --base a --head b --candidates 0", &out), 3);
  EXPECT_NE(out.find("--candidates needs a valid value"), std::string::npos) << out;
  EXPECT_EQ(cli("repair --repo . --base a --head b --candidate-concurrency 17", &out), 3);
  write_file(d.path() / "cands.json",
             R"({"schema":"flowagent.repair_request/v1","repository":"/r","change":{"id":"c","base_commit":"a","head_commit":"b"},)"
             R"("failure":{},"candidates":{"count":3,"early_stop":true}})");
  EXPECT_EQ(cli("check-request " + (d.path() / "cands.json").string(), &out), 0) << out;
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
  int rc = cli("repair --repo '" + repo.string() + "' --base " + base + " --patch '" + (tmp.path() / "change.diff").string() +
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
  EXPECT_EQ(cli("publish --format sarif --result '" + (tmp.path() / "result.json").string() + "'", &sarif), 0) << sarif;
  EXPECT_NE(sarif.find("\"columnKind\": \"utf16CodeUnits\""), std::string::npos) << sarif;
  EXPECT_EQ(cli("publish --format yaml --result '" + (tmp.path() / "result.json").string() + "'", &sarif), 3);
  // apply: the head of the change is a commit object made from the patch; check it out first.
  sh("cd '" + repo.string() + "' && git stash -q -u && git checkout -q " + doc->get_string("head_commit"));
  std::string applied;
  EXPECT_EQ(cli("apply --repo '" + repo.string() + "' --result '" + (tmp.path() / "result.json").string() + "'", &applied), 0)
      << applied;
  EXPECT_EQ(read_file(repo / "v.txt"), "1\n");
  sh("cd '" + repo.string() + "' && git checkout -q -f main && git stash pop -q");

  // A bot's change: abstained, exit code 2.
  rc = cli("repair --repo '" + repo.string() + "' --base " + base + " --head HEAD --bot --test true --quiet", &out);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("automated_author"), std::string::npos);
  // A patch that does not apply: bad input.
  write_file(tmp.path() / "broken.diff", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-nope\n+yes\n");
  rc = cli("repair --repo '" + repo.string() + "' --base " + base + " --patch '" + (tmp.path() / "broken.diff").string() +
               "' --test true --quiet",
           &out);
  EXPECT_EQ(rc, 3) << out;
  EXPECT_NE(out.find("does not apply"), std::string::npos);
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
  EXPECT_EQ(cli(common + " --patch '" + (tmp.path() / "cheat.diff").string() + "'", &out), 1) << out;
  EXPECT_NE(out.find("tests/test_calc.py:4: [skip_added]"), std::string::npos) << out;
  EXPECT_EQ(cli(common + " --patch '" + (tmp.path() / "revert.diff").string() + "'", &out), 1) << out;
  EXPECT_NE(out.find("[reverts_change]"), std::string::npos) << out;
  EXPECT_EQ(cli(common + " --patch '" + (tmp.path() / "honest.diff").string() + "'", &out), 0) << out;
  EXPECT_NE(out.find("ok: no cheating found"), std::string::npos);
}
