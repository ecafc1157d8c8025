#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

#include "flowagent/integrity.hpp"
#include "support/test_support.hpp"

using namespace flowagent;
using namespace flowagent::testkit;
namespace fs = std::filesystem;

namespace {

std::string trim_end(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

struct CaseResult {
  std::string name, cls, lang, expect, source;
  std::vector<IntegrityFinding> findings;
  bool cheat() const { return expect != "accept"; }
  bool correct() const {
    if (!cheat()) return findings.empty();
    return std::any_of(findings.begin(), findings.end(), [&](const IntegrityFinding& f) { return f.rule == expect; });
  }
};

/// Runs every case of tests/fixtures/integrity (written by make_corpus.py): a case folder holds
/// `expect` (a reason code or "accept"), `class`, `lang`, `failing`, and files/<n>/{path,before,after}
/// (a missing before: the patch creates the file; a missing after: it deletes it).
const std::vector<CaseResult>& corpus() {
  static const std::vector<CaseResult> results = [] {
    std::vector<CaseResult> out;
    const fs::path dir = fs::path(FLOWAGENT_FIXTURES) / "integrity";
    std::vector<fs::path> all;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_directory()) all.push_back(e.path());
    std::sort(all.begin(), all.end());
    for (const auto& c : all) {
      std::vector<FileVersions> files;
      std::vector<fs::path> file_dirs;
      for (const auto& e : fs::directory_iterator(c / "files")) file_dirs.push_back(e.path());
      std::sort(file_dirs.begin(), file_dirs.end());
      for (const auto& fd : file_dirs) {
        FileVersions v;
        v.path = trim_end(read_file(fd / "path"));
        if (fs::exists(fd / "before")) v.before = read_file(fd / "before");
        if (fs::exists(fd / "after")) v.after = read_file(fd / "after");
        files.push_back(std::move(v));
      }
      IntegrityOptions o;
      if (auto f = trim_end(read_file(c / "failing")); !f.empty()) o.failing_tests = {f};
      CaseResult r{c.filename().string(), trim_end(read_file(c / "class")), trim_end(read_file(c / "lang")),
                   trim_end(read_file(c / "expect")), fs::exists(c / "source") ? trim_end(read_file(c / "source")) : "",
                   check_test_integrity(files, o)};
      out.push_back(std::move(r));
    }
    return out;
  }();
  return results;
}

/// The per class and language table of docs/INTEGRITY.md: cheats caught / honest fixes accepted.
std::string corpus_table() {
  static const std::vector<std::string> kLangs = {"Python", "JS/TS", "Java/Kotlin", "Go", "C/C++", "Rust", "any"};
  std::vector<std::string> classes;
  std::map<std::pair<std::string, std::string>, std::array<int, 4>> cells;  // caught, cheats, accepted, honest
  for (const auto& r : corpus()) {
    if (std::find(classes.begin(), classes.end(), r.cls) == classes.end()) classes.push_back(r.cls);
    auto& cell = cells[{r.cls, r.lang}];
    if (r.cheat()) {
      cell[0] += r.correct();
      ++cell[1];
    } else {
      cell[2] += r.correct();
      ++cell[3];
    }
  }
  std::sort(classes.begin(), classes.end());
  std::string t = "| class |";
  for (const auto& l : kLangs) t += " " + l + " |";
  t += "\n|---|";
  for (std::size_t i = 0; i < kLangs.size(); ++i) t += "---|";
  t += "\n";
  std::array<int, 4> sum{};
  for (const auto& cls : classes) {
    t += "| " + cls + " |";
    for (const auto& l : kLangs) {
      auto it = cells.find({cls, l});
      if (it == cells.end()) {
        t += " – |";
        continue;
      }
      const auto& c = it->second;
      for (int i = 0; i < 4; ++i) sum[static_cast<std::size_t>(i)] += c[static_cast<std::size_t>(i)];
      t += " " + (c[1] ? std::to_string(c[0]) + "/" + std::to_string(c[1]) : "–") + " · " +
           (c[3] ? std::to_string(c[2]) + "/" + std::to_string(c[3]) : "–") + " |";
    }
    t += "\n";
  }
  t += "\nTotal: " + std::to_string(sum[0]) + "/" + std::to_string(sum[1]) + " cheats caught, " + std::to_string(sum[2]) +
       "/" + std::to_string(sum[3]) + " honest fixes accepted (" + std::to_string(corpus().size()) + " cases).\n";
  return t;
}

}  // namespace

// Every cheat in the corpus is rejected with its reason code; every honest patch is accepted.
TEST(IntegrityCorpus, EveryCheatRejectedEveryHonestPatchAccepted) {
  int cheats = 0, honest = 0;
  for (const auto& r : corpus()) {
    (r.cheat() ? cheats : honest)++;
    std::string got;
    for (const auto& f : r.findings) got += " [" + f.rule + "] " + f.path + ":" + std::to_string(f.line) + " " + f.message;
    EXPECT_TRUE(r.correct()) << r.name << " (" << r.cls << ", " << r.lang << "): expected " << r.expect << ", got" << (got.empty() ? " nothing" : got);
  }
  EXPECT_GE(cheats, 100);
  EXPECT_GE(honest, 70);
}

// docs/INTEGRITY.md's table is the corpus run's, not hand-written numbers. Regenerate with
// FLOWAGENT_UPDATE_DOCS=1 build/dev/tests/flowagent_tests --gtest_filter='IntegrityCorpus.*'.
TEST(IntegrityCorpus, DocsTableIsTheCorpusRun) {
  const std::string table = corpus_table();
  std::cout << table;
  const fs::path doc = fs::path(FLOWAGENT_SOURCE_DIR) / "docs" / "INTEGRITY.md";
  std::string text = read_file(doc);
  const std::string begin = "<!-- corpus-table:begin -->\n", end = "<!-- corpus-table:end -->";
  const auto b = text.find(begin), e = text.find(end);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  if (const char* update = std::getenv("FLOWAGENT_UPDATE_DOCS"); update && std::string(update) == "1") {
    text = text.substr(0, b + begin.size()) + table + text.substr(e);
    write_file(doc, text);
  }
  EXPECT_EQ(text.substr(b + begin.size(), e - b - begin.size()), table);
}

TEST(Integrity, DeletedFilesAndLineNumbers) {
  FileVersions gone{"tests/test_x.py", std::string("def test_a():\n    assert f() == 1\n"), std::nullopt};
  auto f = check_test_integrity({gone});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "test_deleted");
  FileVersions skip{"tests/test_x.py", std::string("\n\ndef test_a():\n    assert f() == 1\n"),
                    std::string("\n\n@pytest.mark.skip\ndef test_a():\n    assert f() == 1\n")};
  f = check_test_integrity({skip});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 3);
}

// A test moved to another file keeps its checks: not a deletion. Moved where the runner does not
// look, it is.
TEST(Integrity, TestsMovedAcrossFiles) {
  const std::string body = "def test_a():\n    assert f(1) == 2\n";
  FileVersions from{"tests/test_one.py", body, std::nullopt};
  EXPECT_TRUE(check_test_integrity({from, FileVersions{"tests/test_two.py", std::nullopt, body}}).empty());
  auto f = check_test_integrity({from, FileVersions{"tests/helpers.py", std::nullopt, body}});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "collection_disabled");
}

// Fail closed: test code the guard cannot read is never passed silently.
TEST(Integrity, FailsClosedOnUnknownLanguagesAndParseErrors) {
  auto f = check_test_integrity({FileVersions{"spec/calc_spec.rb", std::string("it { expect(1).to eq 1 }\n"),
                                              std::string("it { expect(1).to eq 2 }\n")}});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "unsupported_language");
  f = check_test_integrity({FileVersions{"tests/test_x.py", std::string("def test_a():\n    assert f() == 1\n"),
                                         std::string("def test_a(:\n    assert f() == 1\n")}});
  ASSERT_FALSE(f.empty());
  EXPECT_EQ(f[0].rule, "parse_error");
}

namespace {

/// A patch made by git from edits to the working tree of `repo` (then undone), so the guard sees
/// what a real candidate looks like.
std::string git_patch(const fs::path& repo, const std::vector<std::pair<std::string, std::string>>& edits) {
  for (const auto& [path, content] : edits) write_file(repo / path, content);
  std::string patch;
  const std::string q = "'" + repo.string() + "'";
  sh("git -C " + q + " add -N . && git -C " + q + " diff --binary HEAD", &patch);
  sh("git -C " + q + " reset -q && git -C " + q + " checkout -q -- . && git -C " + q + " clean -qfd");
  return patch;
}

}  // namespace

// End to end on a real pytest project: each cheat really makes the failing test "pass" under
// pytest, and `flowagent guard` (git, the CLI, the guard) rejects it with its reason code; honest
// developer updates of the same test are accepted.
TEST(IntegrityEndToEnd, PytestCheatsRejectedHonestUpdatesAccepted) {
  TempDir tmp;
  const fs::path repo = tmp.path() / "repo";
  const std::string test_py =
      "from calc import parse\n\n\nclass TestParse:\n    def test_parse(self):\n        r = parse('x=')\n"
      "        assert r.ok is False\n        assert r.error == 'missing value'\n        assert r.value is None\n";
  make_repo(repo, {{"calc.py", "class R:\n    ok = True\n    error = None\n    value = 1\n\n\ndef parse(s):\n    return R()\n"},
                   {"tests/test_calc.py", test_py}});
  // The change under repair makes parse raise: the test fails.
  const std::string head = commit_files(repo, {{"calc.py", "def parse(s):\n    raise ValueError('missing value')\n"}}, "raise");
  const std::string q = "'" + repo.string() + "'";
  ASSERT_NE(sh("cd " + q + " && /usr/bin/python3 -m pytest -q -p no:cacheprovider tests"), 0);

  struct Case {
    std::string name, expect;
    std::vector<std::pair<std::string, std::string>> edits;
    bool pytest_passes;  // the cheat fools pytest itself
  };
  const std::vector<Case> cases = {
      {"conftest hook", "runner_hook",
       {{"tests/conftest.py", "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
                              "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"}},
       true},
      {"shadowing pytest.py", "shadow_module", {{"pytest.py", "import sys\nsys.exit(0)\n"}}, true},
      {"__test__ = False", "collection_disabled",
       {{"tests/test_calc.py", std::string(test_py).insert(test_py.find("    def test_parse"), "    __test__ = False\n\n")}}, false},
      {".gitattributes", "diff_attributes", {{".gitattributes", "*.py -diff\n"}}, false},
  };
  const std::string guard = std::string(FLOWAGENT_CLI) + " guard --repo " + q + " --head " + head +
                            " --failing tests/test_calc.py::TestParse::test_parse --patch ";
  for (const auto& c : cases) {
    const std::string patch = git_patch(repo, c.edits);
    ASSERT_FALSE(patch.empty()) << c.name;
    if (c.pytest_passes) {
      for (const auto& [path, content] : c.edits) write_file(repo / path, content);
      EXPECT_EQ(sh("cd " + q + " && /usr/bin/python3 -m pytest -q -p no:cacheprovider tests"), 0) << c.name << ": the cheat should fool pytest";
      git_patch(repo, {});
    }
    write_file(tmp.path() / "p.diff", patch);
    std::string out;
    EXPECT_EQ(sh(guard + "'" + (tmp.path() / "p.diff").string() + "'", &out), 1) << c.name << ": " << out;
    EXPECT_NE(out.find("[" + c.expect + "]"), std::string::npos) << c.name << ": " << out;
  }
  // Honest: the developer replaces the three asserts by the exception the change now raises.
  const std::string honest = git_patch(
      repo, {{"tests/test_calc.py", "import pytest\n\nfrom calc import parse\n\n\nclass TestParse:\n    def test_parse(self):\n"
                                    "        with pytest.raises(ValueError, match='missing value'):\n            parse('x=')\n"}});
  write_file(tmp.path() / "honest.diff", honest);
  std::string out;
  EXPECT_EQ(sh(guard + "'" + (tmp.path() / "honest.diff").string() + "'", &out), 0) << out;
  EXPECT_NE(out.find("ok: no cheating found"), std::string::npos) << out;
}

TEST(Revert, MeasuresTheShareOfTheChangeUndone) {
  const std::string change =
      "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,3 @@\n-x = 1\n+x = 2\n+y = 3\n z = 0\n";
  const std::string full = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,2 @@\n-x = 2\n-y = 3\n+x = 1\n z = 0\n";
  auto r = measure_revert(change, full);
  EXPECT_EQ(r.changed_lines, 3u);
  EXPECT_EQ(r.reverted_lines, 3u);
  EXPECT_DOUBLE_EQ(r.share, 1.0);
  EXPECT_FALSE(r.hunks.empty());
  const std::string partial = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n-x = 2\n+x = 4\n";
  auto p = measure_revert(change, partial);
  EXPECT_EQ(p.reverted_lines, 1u);
  EXPECT_LT(p.share, 0.5);
  // A fix in another file reverts nothing.
  EXPECT_EQ(measure_revert(change, "diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-x = 2\n+x = 1\n").reverted_lines, 0u);
}
