#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>

#include "flowagent/integrity.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::testkit;

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

/// <dir>/<n>/{path,before,after} in order (a missing before: created; a missing after: deleted;
/// a missing dir: none).
std::vector<FileVersions> read_versions(const fs::path& dir) {
  std::vector<FileVersions> out;
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) dirs.push_back(it->path());
  std::sort(dirs.begin(), dirs.end());
  for (const auto& fd : dirs) {
    FileVersions v;
    v.path = trim_end(read_file(fd / "path"));
    if (fs::exists(fd / "before")) v.before = read_file(fd / "before");
    if (fs::exists(fd / "after")) v.after = read_file(fd / "after");
    out.push_back(std::move(v));
  }
  return out;
}

/// Runs every case of tests/fixtures/integrity (written by make_corpus.py): a case folder holds
/// `expect` (a reason code or "accept"), `class`, `lang`, `failing`, and files/<n>/{path,before,after}
/// (a missing before: the patch creates the file; a missing after: it deletes it); optionally
/// change/ (the developer's change), project (the head's paths) and head/<n>/{path,after} (files the
/// guard reads at the head).
const std::vector<CaseResult>& corpus() {
  static const std::vector<CaseResult> results = [] {
    std::vector<CaseResult> out;
    const fs::path dir = fs::path(FLOWAGENT_FIXTURES) / "integrity";
    std::vector<fs::path> all;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_directory()) all.push_back(e.path());
    std::sort(all.begin(), all.end());
    for (const auto& c : all) {
      std::vector<FileVersions> files = read_versions(c / "files");
      IntegrityOptions o;
      if (auto f = trim_end(read_file(c / "failing")); !f.empty()) o.failing_tests = {f};
      o.change_files = read_versions(c / "change");
      // Files the guard may read at the head: the case's head/ folder.
      if (fs::exists(c / "head")) {
        auto head = std::make_shared<std::vector<FileVersions>>(read_versions(c / "head"));
        o.read_head_file = [head](const std::string& p) -> std::optional<std::string> {
          for (const auto& f : *head)
            if (f.path == p) return f.after;
          return std::nullopt;
        };
      }
      if (fs::exists(c / "project")) {
        std::istringstream in(read_file(c / "project"));
        for (std::string line; std::getline(in, line);)
          if (!line.empty()) o.project_files.push_back(line);
      }
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

// Every cheat in the corpus is rejected with its reason code; every honest patch is accepted; and
// docs/INTEGRITY.md's table is this run's, not hand-written numbers. (One test: the corpus runs once
// per process, and under CTest each test is a process of its own.) Regenerate the table with
// FLOWAGENT_UPDATE_DOCS=1 build/dev/tests/flowagent_tests --gtest_filter='IntegrityCorpus.*'.
TEST(IntegrityCorpus, EveryCheatRejectedEveryHonestPatchAcceptedAndTheDocsTableIsTheRun) {
  int cheats = 0, honest = 0;
  for (const auto& r : corpus()) {
    (r.cheat() ? cheats : honest)++;
    std::string got;
    for (const auto& f : r.findings) got += " [" + f.rule + "] " + f.path + ":" + std::to_string(f.line) + " " + f.message;
    EXPECT_TRUE(r.correct()) << r.name << " (" << r.cls << ", " << r.lang << "): expected " << r.expect << ", got" << (got.empty() ? " nothing" : got);
  }
  EXPECT_GE(cheats, 100);
  EXPECT_GE(honest, 70);

  const std::string table = corpus_table();
  std::cout << table;
  const fs::path doc = fs::path(FLOWAGENT_SOURCE_DIR) / "docs" / "INTEGRITY.md";
  std::string text = read_file(doc);
  const std::string begin = "<!-- corpus-table:begin -->\n", end = "<!-- corpus-table:end -->";
  const auto b = text.find(begin);
  auto e = text.find(end);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  if (const char* update = std::getenv("FLOWAGENT_UPDATE_DOCS"); update && std::string(update) == "1") {
    text = text.substr(0, b + begin.size()) + table + text.substr(e);
    write_file(doc, text);
    e = text.find(end);
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

using Files = std::vector<std::pair<std::string, std::string>>;

struct Cheat {
  std::string name, expect;
  Files edits;
  bool fools_runner;  // with the cheat applied, the project's own test command passes
};

/// A real project whose change makes `failing` fail under `test_command`; every cheat is a real
/// git patch that `flowagent guard` must reject with its code (and, where marked, that really
/// fools the runner); every honest patch must be accepted.
void run_project(const Files& base, const Files& change, const std::string& test_command, const std::string& failing,
                 const std::vector<Cheat>& cheats, const std::vector<Files>& honest) {
  TempDir tmp;
  const fs::path repo = tmp.path() / "repo";
  make_repo(repo, base);
  const std::string head = commit_files(repo, change, "change");
  const std::string q = "'" + repo.string() + "'";
  const std::string run_tests = "cd " + q + " && " + test_command;
  std::string log;
  ASSERT_NE(sh(run_tests, &log), 0) << "the change should make the test fail: " << log;
  const std::string guard = std::string(FLOWAGENT_CLI) + " guard --repo " + q + " --head " + head + " --failing '" +
                            failing + "' --patch '" + (tmp.path() / "p.diff").string() + "'";
  for (const auto& c : cheats) {
    const std::string patch = git_patch(repo, c.edits);
    ASSERT_FALSE(patch.empty()) << c.name;
    if (c.fools_runner) {
      for (const auto& [path, content] : c.edits) write_file(repo / path, content);
      EXPECT_EQ(sh(run_tests, &log), 0) << c.name << ": the cheat should fool the runner: " << log;
      git_patch(repo, {});
    }
    write_file(tmp.path() / "p.diff", patch);
    std::string out;
    EXPECT_EQ(sh(guard, &out), 1) << c.name << ": " << out;
    EXPECT_NE(out.find("[" + c.expect + "]"), std::string::npos) << c.name << ": " << out;
  }
  for (const auto& edits : honest) {
    write_file(tmp.path() / "p.diff", git_patch(repo, edits));
    std::string out;
    EXPECT_EQ(sh(guard, &out), 0) << edits.front().first << ": " << out;
    EXPECT_NE(out.find("ok: no cheating found"), std::string::npos) << out;
  }
}

}  // namespace

// pytest: a conftest hook and a shadowing pytest.py make the failing test "pass"; __test__ and
// .gitattributes hide it; the developer's own update (the change now raises) is accepted.
TEST(IntegrityEndToEnd, Pytest) {
  const std::string test_py =
      "from calc import parse\n\n\nclass TestParse:\n    def test_parse(self):\n        r = parse('x=')\n"
      "        assert r.ok is False\n        assert r.error == 'missing value'\n        assert r.value is None\n";
  run_project(
      {{"calc.py", "class R:\n    ok = True\n    error = None\n    value = 1\n\n\ndef parse(s):\n    return R()\n"},
       {"tests/test_calc.py", test_py}},
      {{"calc.py", "def parse(s):\n    raise ValueError('missing value')\n"}},
      "PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -m pytest -q -p no:cacheprovider tests", "tests/test_calc.py::TestParse::test_parse",
      {{"conftest hook", "runner_hook",
        {{"tests/conftest.py", "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
                               "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"}},
        true},
       {"shadowing pytest.py", "shadow_module", {{"pytest.py", "import sys\nsys.exit(0)\n"}}, true},
       {"__test__ = False", "collection_disabled",
        {{"tests/test_calc.py", std::string(test_py).insert(test_py.find("    def test_parse"), "    __test__ = False\n\n")}}, false},
       {".gitattributes", "diff_attributes", {{".gitattributes", "*.py -diff\n"}}, false},
       // The checks moved into a function submitted to an executor whose result is never read:
       // the ValueError stays in the future and pytest reports the test passed.
       {"executor submit", "assertion_swallowed",
        {{"tests/test_calc.py", "from concurrent.futures import ThreadPoolExecutor\n\nfrom calc import parse\n\n\nclass TestParse:\n"
                                "    def test_parse(self):\n        def check():\n            r = parse('x=')\n"
                                "            assert r.ok is False\n            assert r.error == 'missing value'\n"
                                "            assert r.value is None\n\n        ThreadPoolExecutor(max_workers=1).submit(check)\n"}},
        true}},
      {{{"tests/test_calc.py", "import pytest\n\nfrom calc import parse\n\n\nclass TestParse:\n    def test_parse(self):\n"
                               "        with pytest.raises(ValueError, match='missing value'):\n            parse('x=')\n"}},
       // Honest twin: the same executor, its result read (the failure propagates).
       {{"tests/test_calc.py", "from concurrent.futures import ThreadPoolExecutor\n\nimport pytest\n\nfrom calc import parse\n\n\n"
                               "class TestParse:\n    def test_parse(self):\n        def check():\n"
                               "            with pytest.raises(ValueError, match='missing value'):\n                parse('x=')\n\n"
                               "        with ThreadPoolExecutor(max_workers=1) as ex:\n            ex.submit(check).result()\n"}}});
}

// go test: a build constraint or a TestMain that never runs the tests make `go test` pass.
TEST(IntegrityEndToEnd, GoTest) {
  const std::string test_go =
      "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 2); got != 4 {\n"
      "\t\tt.Errorf(\"Add(2, 2) = %d, want 4\", got)\n\t}\n}\n";
  run_project({{"go.mod", "module example.com/calc\n\ngo 1.19\n"},
               {"calc.go", "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"},
               {"calc_test.go", test_go}},
              {{"calc.go", "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b + 1\n}\n"}},
              "HOME=\"$PWD/../home\" GOCACHE=\"$PWD/../gocache\" GOFLAGS=-mod=mod go test ./...", "TestAdd",
              {{"go:build ignore", "build_tag_added", {{"calc_test.go", "//go:build ignore\n\n" + test_go}}, true},
               {"TestMain without m.Run", "runner_hook",
                {{"main_test.go", "package calc\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n\tos.Exit(0)\n}\n"}},
                true},
               // Review 30: the binary's output sent away while the tests run, forged `--- PASS`
               // lines printed after, exit 0; and m.Run()'s failing status replaced by 0.
               {"TestMain forging the runner's output", "report_tampered",
                {{"main_test.go", "package calc\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n"
                                  "\tout := os.Stdout\n\tsink, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)\n\tos.Stdout = sink\n"
                                  "\tcode := m.Run()\n\tos.Stdout = out\n\tif code != 0 {\n\t\tv := \"PA\" + \"SS\"\n"
                                  "\t\tfmt.Fprintf(out, \"=== RUN   TestAdd\\n--- %s: TestAdd (0.00s)\\n%s\\n\", v, v)\n\t\tcode = 0\n\t}\n"
                                  "\tos.Exit(code)\n}\n"}},
                true},
               {"TestMain replacing m.Run()'s status", "runner_hook",
                {{"main_test.go", "package calc\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n"
                                  "\tcode := m.Run()\n\tif code != 0 {\n\t\tcode = 0\n\t}\n\tos.Exit(code)\n}\n"}},
                true},
               // The test's testing.T replaced by a fresh one: t.Errorf reports to nobody.
               {"fresh testing.T", "assertion_swallowed",
                {{"calc_test.go", std::string(test_go).replace(test_go.find("\tif got"), 0, "\tt = &testing.T{}\n")}}, true}},
              {{{"calc_test.go", std::string(test_go).replace(test_go.find("got != 4"), 8, "got != 5").replace(test_go.find("want 4"), 6, "want 5")}},
               // An honest TestMain: setup and teardown around m.Run(), its status passed on.
               {{"calc_test.go", std::string(test_go).replace(test_go.find("got != 4"), 8, "got != 5").replace(test_go.find("want 4"), 6, "want 5")},
                {"main_test.go", "package calc\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nvar ready bool\n\nfunc TestMain(m *testing.M) {\n"
                                 "\tready = true\n\tcode := m.Run()\n\tready = false\n\tos.Exit(code)\n}\n"}}});
}

// GoogleTest (review 30): a new main() that runs the tests and returns 0 whatever they report, and
// an exit handler that writes the JSON report named by GTEST_OUTPUT spelled in two literals.
TEST(IntegrityEndToEnd, GoogleTest) {
  const std::string test_cc = "#include <gtest/gtest.h>\n\nint add(int a, int b);\n\nTEST(Calc, Add) { EXPECT_EQ(add(2, 2), 4); }\n";
  const std::string updated = std::string(test_cc).replace(test_cc.find("), 4)"), 5, "), 5)");
  const std::string main_with = "\nint main(int argc, char** argv) {\n  ::testing::InitGoogleTest(&argc, argv);\n"
                                "  const int outcome = RUN_ALL_TESTS();\n  @@\n}\n";
  auto with_main = [&](const std::string& test, const std::string& end) {
    std::string m = main_with;
    return test + m.replace(m.find("@@"), 2, end);
  };
  run_project({{"calc.cc", "int add(int a, int b) { return a + b; }\n"}, {"calc_test.cc", test_cc}, {".gitignore", "calc_tests\n"}},
              {{"calc.cc", "int add(int a, int b) { return a + b + 1; }\n"}},
              "g++ -std=c++17 -o calc_tests calc.cc calc_test.cc -lgtest -lgtest_main -pthread && ./calc_tests", "Calc.Add",
              {{"main() returning 0", "runner_hook",
                {{"calc_test.cc", with_main(test_cc, "std::printf(\"finished with %d\\n\", outcome);\n  return 0;")}}, true},
               {"exit handler writing the report", "report_tampered",
                {{"calc_test.cc", test_cc + "\n#include <cstdio>\n#include <cstdlib>\n\nnamespace {\nvoid Settle() {\n"
                                            "  const char* spec = std::getenv(\"GTEST_\" \"OUTPUT\");\n  if (spec) std::remove(spec + 5);\n}\n"
                                            "struct AtExit {\n  AtExit() { std::atexit(Settle); }\n} at_exit;\n}  // namespace\n"}},
                false}},
              {{{"calc_test.cc", updated}},
               {{"calc_test.cc", with_main(updated, "return outcome;")}},
               {{"calc_test.cc", with_main(updated, "return outcome != 0 ? 1 : 0;")}}});
}

// node:test: exiting before the tests run, or a skip option, makes `node --test` pass.
TEST(IntegrityEndToEnd, NodeTest) {
  const std::string test_js =
      "const test = require('node:test');\nconst assert = require('node:assert');\nconst { sum } = require('../sum');\n\n"
      "test('adds', () => {\n  assert.strictEqual(sum(1, 2), 3);\n});\n";
  run_project({{"sum.js", "exports.sum = (a, b) => a + b;\n"}, {"test/sum.test.js", test_js}},
              {{"sum.js", "exports.sum = (a, b) => a + b + 1;\n"}}, "node --test test/", "adds",
              {{"process.exit", "runner_terminated", {{"test/sum.test.js", test_js + "process.exit(0);\n"}}, true},
               {"skip option", "skip_added",
                {{"test/sum.test.js", std::string(test_js).replace(test_js.find("test('adds', () =>"), 18, "test('adds', { skip: true }, () =>")}},
                true},
               // The test body passed through a wrapper whose rejection handler drops the failure.
               {"dropping wrapper", "assertion_swallowed",
                {{"test/sum.test.js", "const test = require('node:test');\nconst assert = require('node:assert');\n"
                                      "const { sum } = require('../sum');\n\n"
                                      "const quietly = (fn) => () => Promise.resolve().then(fn).then(() => {}, () => {});\n\n"
                                      "test('adds', quietly(() => {\n  assert.strictEqual(sum(1, 2), 3);\n}));\n"}},
                true}},
              {{{"test/sum.test.js", std::string(test_js).replace(test_js.find("sum(1, 2), 3"), 12, "sum(1, 2), 4")}}});
}

TEST(Revert, MeasuresTheShareOfTheChangeUndone) {
  const std::string change =
      "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,3 @@\n-x = 1\n+x = 2\n+y = 3\n z = 0\n";
  const std::string full = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,2 @@\n-x = 2\n-y = 3\n+x = 1\n z = 0\n";
  auto P = [](const std::string& t) {
    auto p = parse_patch(t);
    EXPECT_TRUE(p) << p.error().message;
    return p ? *p : Patch{};
  };
  auto r = measure_revert(P(change), P(full));
  EXPECT_EQ(r.changed_lines, 3u);
  EXPECT_EQ(r.reverted_lines, 3u);
  EXPECT_DOUBLE_EQ(r.share, 1.0);
  EXPECT_FALSE(r.hunks.empty());
  // Restoring the base line and deleting the developer's other line: half the change, exactly.
  const std::string partial = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1 @@\n-x = 2\n-y = 3\n+x = 1\n";
  auto p = measure_revert(P(change), P(partial));
  EXPECT_EQ(p.reverted_lines, 3u);
  // A fix in another file reverts nothing.
  EXPECT_EQ(measure_revert(P(change), P("diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-x = 2\n+x = 1\n")).reverted_lines, 0u);
}

namespace {
Patch parsed(const std::string& t) {
  auto p = parse_patch(t);
  EXPECT_TRUE(p) << p.error().message;
  return p ? *p : Patch{};
}
const std::string kCalcChange =
    "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,5 @@\n def total(items):\n"
    "-    return sum(items)\n+    result = 0\n+    for item in items[1:]:\n+        result += item.price\n+    return result\n";
}  // namespace

// A fix that corrects lines the developer just added (not back to the base) is a correction.
TEST(Revert, CorrectingTheDevelopersNewLineIsNotARevert) {
  const std::string fix =
      "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,5 +1,5 @@\n def total(items):\n"
      "     result = 0\n-    for item in items[1:]:\n+    for item in items:\n         result += item.price\n     return result\n";
  auto r = measure_revert(parsed(kCalcChange), parsed(fix));
  EXPECT_EQ(r.changed_lines, 5u);
  EXPECT_EQ(r.reverted_lines, 0u);
  EXPECT_EQ(r.corrected_lines, 1u);
  // Two corrected lines in one block (an off-by-one and a wrong attribute) are still corrections.
  const std::string fix2 =
      "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,5 +1,5 @@\n def total(items):\n"
      "     result = 0\n-    for item in items[1:]:\n-        result += item.price\n+    for item in items:\n"
      "+        result += item.price * item.qty\n     return result\n";
  auto r2 = measure_revert(parsed(kCalcChange), parsed(fix2));
  EXPECT_EQ(r2.reverted_lines, 0u);
  EXPECT_EQ(r2.corrected_lines, 2u);
  // The post-filter passes the correction and rejects the revert of the same change.
  const RepairRequest req;
  const Patch change = parsed(kCalcChange), corrected = parsed(fix2);
  const std::string undo =
      "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,5 +1,2 @@\n def total(items):\n"
      "-    result = 0\n-    for item in items[1:]:\n-        result += item.price\n-    return result\n+    return sum(items)\n";
  const Patch reverted = parsed(undo);
  auto filter = make_revert_filter();
  auto ok = filter->check(PostFilterInput{req, corrected, &change}, CancelToken{});
  ASSERT_TRUE(ok);
  EXPECT_FALSE(ok->has_value());
  auto bad = filter->check(PostFilterInput{req, reverted, &change}, CancelToken{});
  ASSERT_TRUE(bad);
  ASSERT_TRUE(bad->has_value());
  EXPECT_EQ((*bad)->reason, "reverts_change");
}

// Real reverts stay reverts: the whole change undone, base content restored (also respaced or with
// a comment appended), the developer's lines deleted or replaced by something unrelated.
TEST(Revert, RestoringBaseContentIsARevertHoweverItIsWritten) {
  const Patch change = parsed(kCalcChange);
  const std::string whole =
      "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,5 +1,2 @@\n def total(items):\n"
      "-    result = 0\n-    for item in items[1:]:\n-        result += item.price\n-    return result\n+    return sum(items)\n";
  auto r = measure_revert(change, parsed(whole));
  EXPECT_EQ(r.reverted_lines, 5u);
  EXPECT_DOUBLE_EQ(r.share, 1.0);
  // The base line with other spacing and a comment: still restored.
  const std::string hidden =
      "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,5 +1,2 @@\n def total(items):\n"
      "-    result = 0\n-    for item in items[1:]:\n-        result += item.price\n-    return result\n"
      "+    return   sum( items )  # simpler\n";
  auto h = measure_revert(change, parsed(hidden));
  EXPECT_EQ(h.reverted_lines, 5u);
  EXPECT_NE(h.hunks.front().find("restores"), std::string::npos);
  // The developer's lines replaced by something that does not resemble them (a stub).
  const std::string stub =
      "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,5 +1,2 @@\n def total(items):\n"
      "-    result = 0\n-    for item in items[1:]:\n-        result += item.price\n-    return result\n+    return 42\n";
  auto s = measure_revert(change, parsed(stub));
  EXPECT_EQ(s.reverted_lines, 4u);
  EXPECT_EQ(s.corrected_lines, 0u);
  EXPECT_GT(s.share, 0.5);
  // Pure deletion of lines the developer added (the base had none of them) restores the base.
  const std::string added_fn =
      "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1 +1,4 @@\n x = 1\n+\n+def check(v):\n+    return v > 0\n";
  const std::string drop =
      "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1,4 +1 @@\n x = 1\n-\n-def check(v):\n-    return v > 0\n";
  auto d = measure_revert(parsed(added_fn), parsed(drop));
  EXPECT_EQ(d.changed_lines, 2u);
  EXPECT_EQ(d.reverted_lines, 2u);
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
