#include <gtest/gtest.h>

#include "flowagent/integrity.hpp"
#include "support/test_support.hpp"

using namespace flowagent;
using namespace flowagent::testkit;
namespace fs = std::filesystem;

namespace {
std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}
}  // namespace

// Every cheat in the corpus is rejected with the expected rule; every honest patch is accepted.
TEST(IntegrityCorpus, EveryCheatRejectedEveryHonestPatchAccepted) {
  const fs::path dir = fs::path(FLOWAGENT_FIXTURES) / "integrity";
  int cases = 0, cheats = 0;
  std::vector<fs::path> all;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory()) all.push_back(e.path());
  std::sort(all.begin(), all.end());
  for (const auto& c : all) {
    FileVersions v;
    v.path = trim(read_file(c / "path"));
    v.before = read_file(c / "before");
    v.after = read_file(c / "after");
    IntegrityOptions o;
    if (auto f = trim(read_file(c / "failing")); !f.empty()) o.failing_tests = {f};
    const std::string expect = trim(read_file(c / "expect"));
    auto findings = check_test_integrity({v}, o);
    ++cases;
    if (expect == "accept") {
      EXPECT_TRUE(findings.empty()) << c.filename() << ": " << (findings.empty() ? "" : findings[0].rule + " " + findings[0].message);
    } else {
      ++cheats;
      EXPECT_FALSE(findings.empty()) << c.filename() << ": expected " << expect;
      if (findings.empty()) continue;
      EXPECT_EQ(findings[0].rule, expect) << c.filename() << ": " << findings[0].message;
      EXPECT_EQ(findings[0].path, v.path);
    }
  }
  EXPECT_GE(cases, 70);
  EXPECT_GE(cheats, 50);
}

TEST(Integrity, DeletedFilesAndLineNumbers) {
  FileVersions gone{"tests/test_x.py", std::string("def test_a():\n    assert 1 == 1\n"), std::nullopt};
  auto f = check_test_integrity({gone});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "test_deleted");
  FileVersions skip{"tests/test_x.py", std::string("\n\ndef test_a():\n    assert 1 == 1\n"),
                    std::string("\n\n@pytest.mark.skip\ndef test_a():\n    assert 1 == 1\n")};
  f = check_test_integrity({skip});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 3);
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
  const std::string partial = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 2\n+x = 4\n";
  auto p = measure_revert(P(change), P(partial));
  EXPECT_EQ(p.reverted_lines, 1u);
  EXPECT_LT(p.share, 0.5);
  // A fix in another file reverts nothing.
  EXPECT_EQ(measure_revert(P(change), P("diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-x = 2\n+x = 1\n")).reverted_lines, 0u);
}
