#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "flowagent/git_workspace.hpp"
#include "support/test_support.hpp"
#include "workspace/repo_ops.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;

namespace {

/// Hash of the developer's working tree and index: they must never change.
std::string tree_fingerprint(const fs::path& repo) {
  std::string out;
  testkit::sh("cd '" + repo.string() + "' && (git status --porcelain=v2 --untracked-files=all; "
              "find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha256sum; "
              "sha256sum .git/index) | sha256sum",
              &out);
  return out;
}

struct Repo {
  testkit::TempDir tmp;
  fs::path dir = tmp.path() / "repo";
  std::string base, head;
  Repo() {
    base = testkit::make_repo(dir, {{"src/lib.py", "def f():\n    return 1\n"}, {".gitignore", "build/\n"}});
    head = testkit::commit_files(dir, {{"src/lib.py", "def f():\n    return 2\n"}}, "change");
    // The developer has uncommitted work too.
    testkit::write_file(dir / "src/lib.py", "def f():\n    return 3  # wip\n");
    testkit::write_file(dir / "notes.txt", "untracked\n");
  }
  RepairRequest request() const {
    auto r = testkit::sample_request(dir.string());
    r.change.base_commit = base;
    r.change.head_commit = head;
    return r;
  }
};

GitWorkspaceOptions opts(const fs::path& root) {
  GitWorkspaceOptions o;
  o.root = root;
  return o;
}

/// A repository whose head adds `sub` as a submodule at third_party/sub; `after` runs in it last.
RepairRequest submodule_request(const fs::path& tmp, const fs::path& sub, const std::string& after = "") {
  auto main_repo = tmp / "main";
  testkit::make_repo(main_repo, {{"a.txt", "a\n"}});
  std::string out;
  EXPECT_EQ(testkit::sh("cd '" + main_repo.string() + "' && git -c protocol.file.allow=always submodule add -q '" +
                            sub.string() + "' third_party/sub && git -c user.name=D -c user.email=d@x commit -qm sub" +
                            after,
                        &out),
            0)
      << out;
  std::string head;
  testkit::sh("git -C '" + main_repo.string() + "' rev-parse HEAD", &head);
  head.pop_back();
  auto req = testkit::sample_request(main_repo.string());
  req.change.head_commit = head;
  return req;
}

}  // namespace

TEST(GitWorkspace, ChecksOutTheHeadWithoutTouchingTheDevelopersTree) {
  Repo repo;
  testkit::TempDir pool;
  const auto before = tree_fingerprint(repo.dir);
  auto provider = make_git_workspace_provider(opts(pool.path()));
  {
    auto ws = provider->acquire(repo.request(), CancelToken());
    ASSERT_TRUE(ws) << ws.error().message;
    EXPECT_EQ(testkit::read_file((*ws)->root() / "src/lib.py"), "def f():\n    return 2\n");
    EXPECT_FALSE(fs::exists((*ws)->root() / "notes.txt"));
    testkit::write_file((*ws)->root() / "src/lib.py", "def f():\n    return 4\n");
    testkit::write_file((*ws)->root() / "src/new.py", "x = 1\n");
    ASSERT_TRUE((*ws)->track_new_file("src/new.py"));  // as write_file does for files it creates
    testkit::write_file((*ws)->root() / "test-output.log", "artifact of a test run");
    testkit::write_file((*ws)->root() / "build/out.o", "obj");
    auto diff = (*ws)->diff();
    ASSERT_TRUE(diff) << diff.error().message;
    EXPECT_NE(diff->find("-    return 2\n+    return 4"), std::string::npos);
    EXPECT_NE(diff->find("b/src/new.py"), std::string::npos);
    EXPECT_EQ(diff->find("out.o"), std::string::npos);  // ignored build output is never in a patch
    EXPECT_EQ(diff->find("test-output.log"), std::string::npos);  // nor untracked artifacts
    EXPECT_NE(diff->find("index "), std::string::npos);  // --full-index
    // The patch applies to the head commit.
    testkit::TempDir check;
    std::string out;
    ASSERT_EQ(testkit::sh("git clone -q '" + repo.dir.string() + "' '" + check.path().string() + "/c' && cd '" +
                          check.path().string() + "/c' && git checkout -q " + repo.head),
              0);
    testkit::write_file(check.path() / "p.diff", *diff);
    EXPECT_EQ(testkit::sh("cd '" + check.path().string() + "/c' && git apply --check ../p.diff", &out), 0) << out;
    ASSERT_TRUE((*ws)->reset());
    EXPECT_EQ(*(*ws)->diff(), "");
    EXPECT_TRUE(fs::exists((*ws)->root() / "build/out.o"));  // kept for incremental builds
  }
  EXPECT_EQ(tree_fingerprint(repo.dir), before);
}

TEST(GitWorkspace, WarmPoolReusesTheWorktree) {
  Repo repo;
  testkit::TempDir pool;
  auto provider = make_git_workspace_provider(opts(pool.path()));
  fs::path first_root;
  {
    auto ws = provider->acquire(repo.request(), CancelToken());
    ASSERT_TRUE(ws);
    first_root = (*ws)->root();
    testkit::write_file(first_root / "build/cache", "warm");
    testkit::write_file(first_root / "stray.txt", "leftover edit");
  }
  auto req = repo.request();
  req.change.head_commit = repo.base;
  auto ws = provider->acquire(req, CancelToken());
  ASSERT_TRUE(ws);
  EXPECT_EQ((*ws)->root(), first_root);
  EXPECT_EQ(testkit::read_file(first_root / "src/lib.py"), "def f():\n    return 1\n");
  EXPECT_FALSE(fs::exists(first_root / "stray.txt"));
  EXPECT_EQ(testkit::read_file(first_root / "build/cache"), "warm");
}

TEST(GitWorkspace, ConcurrentJobsGetDistinctWorktrees) {
  Repo repo;
  testkit::TempDir pool;
  auto provider = make_git_workspace_provider(opts(pool.path()));
  auto a = provider->acquire(repo.request(), CancelToken());
  auto b = provider->acquire(repo.request(), CancelToken());
  ASSERT_TRUE(a && b);
  EXPECT_NE((*a)->root(), (*b)->root());
}

TEST(GitWorkspace, LeftoversOfACrashedProcessArePruned) {
  Repo repo;
  testkit::TempDir pool;
  // Simulate a crash: a child process makes a worktree and exits without cleaning up.
  std::string out;
  const std::string leftover = pool.path().string() + "/deadbeef/wt-crashed";
  ASSERT_EQ(testkit::sh("mkdir -p " + pool.path().string() + "/deadbeef && git -C '" + repo.dir.string() +
                            "' worktree add -q --detach '" + leftover + "' " + repo.head + " && touch '" + leftover +
                            ".lock' && printf '%s' '" + repo.dir.string() + "' > '" + leftover + ".repo'",
                        &out),
            0)
      << out;
  ASSERT_TRUE(fs::exists(leftover));
  auto provider = make_git_workspace_provider(opts(pool.path()));
  EXPECT_FALSE(fs::exists(leftover));
  testkit::sh("git -C '" + repo.dir.string() + "' worktree list", &out);
  EXPECT_EQ(out.find("wt-crashed"), std::string::npos) << out;
}

TEST(GitWorkspace, WorkspacesOfACrashedProcessArePrunedWithTheirGitDir) {
  Repo repo;
  testkit::TempDir pool;
  const auto before = tree_fingerprint(repo.dir);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // the "crashing" process: acquires and dies without releasing
    ::close(fds[0]);
    auto provider = make_git_workspace_provider(opts(pool.path()));
    auto ws = provider->acquire(repo.request(), CancelToken());
    std::string paths = ws ? (*ws)->root().string() + "\n" + (*ws)->git_dir().string() + "\n" : "";
    (void)!::write(fds[1], paths.data(), paths.size());
    ::_exit(ws ? 0 : 1);
  }
  ::close(fds[1]);
  std::string paths;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) paths.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_EQ(WEXITSTATUS(status), 0);
  const fs::path root = paths.substr(0, paths.find('\n'));
  const fs::path git_dir = paths.substr(paths.find('\n') + 1, paths.size() - paths.find('\n') - 2);
  ASSERT_TRUE(fs::exists(root)) << paths;
  ASSERT_TRUE(fs::exists(git_dir)) << paths;
  auto provider = make_git_workspace_provider(opts(pool.path()));
  EXPECT_FALSE(fs::exists(root));
  EXPECT_FALSE(fs::exists(git_dir));
  EXPECT_EQ(tree_fingerprint(repo.dir), before);
}

TEST(GitWorkspace, SubmodulesAreCheckedOut) {
  testkit::TempDir tmp;
  auto sub = tmp.path() / "sub";
  testkit::make_repo(sub, {{"lib.txt", "from submodule\n"}});
  auto req = submodule_request(tmp.path(), sub);
  testkit::TempDir pool;
  auto provider = make_git_workspace_provider(opts(pool.path()));
  auto ws = provider->acquire(req, CancelToken());
  ASSERT_TRUE(ws) << ws.error().message;
  EXPECT_EQ(testkit::read_file((*ws)->root() / "third_party/sub/lib.txt"), "from submodule\n");
}

TEST(GitWorkspace, ClearErrorsForBadInput) {
  Repo repo;
  testkit::TempDir pool;
  auto provider = make_git_workspace_provider(opts(pool.path()));
  auto req = repo.request();
  req.change.head_commit = "0123456789abcdef0123456789abcdef01234567";
  auto ws = provider->acquire(req, CancelToken());
  ASSERT_FALSE(ws);
  EXPECT_EQ(ws.error().code, Errc::not_found);
  EXPECT_NE(ws.error().message.find("head commit"), std::string::npos);
  req = repo.request();
  req.repository = pool.path().string();
  EXPECT_EQ(provider->acquire(req, CancelToken()).error().code, Errc::not_found);
  req.repository = "/does/not/exist";
  EXPECT_EQ(provider->acquire(req, CancelToken()).error().code, Errc::not_found);
}

// What one change's untrusted code left in the kept build folder (a script its build would run)
// never reaches another change's job; the same change keeps it warm (WarmPoolReusesTheWorktree).
TEST(GitWorkspace, KeptBuildFolderStaysWithItsChange) {
  Repo repo;
  testkit::TempDir pool;
  auto provider = make_git_workspace_provider(opts(pool.path()));
  fs::path first_root;
  {
    auto ws = provider->acquire(repo.request(), CancelToken());
    ASSERT_TRUE(ws);
    first_root = (*ws)->root();
    testkit::write_file(first_root / "build/hook.sh", "#!/bin/sh\necho backdoor >> src/lib.py\n");
  }
  auto other = repo.request();
  other.change.id = "another-change";
  auto ws = provider->acquire(other, CancelToken());
  ASSERT_TRUE(ws) << ws.error().message;
  EXPECT_EQ((*ws)->root(), first_root);  // the slot is reused, its build folder is not
  EXPECT_FALSE(fs::exists(first_root / "build"));
  EXPECT_EQ(testkit::read_file(first_root / "src/lib.py"), "def f():\n    return 2\n");
}

// Paths git clean cannot remove (deeper than PATH_MAX, folders without permissions) do not poison
// the pool slot for later jobs.
TEST(GitWorkspace, SlotSurvivesPathsGitCannotClean) {
  Repo repo;
  testkit::TempDir pool;
  auto provider = make_git_workspace_provider(opts(pool.path()));
  fs::path root;
  {
    auto ws = provider->acquire(repo.request(), CancelToken());
    ASSERT_TRUE(ws);
    root = (*ws)->root();
    std::string out;
    ASSERT_EQ(testkit::sh("cd '" + root.string() + "' && python3 -c '\n"
                          "import os\n"
                          "n = \"d\" * 250\n"
                          "fd = os.open(\".\", os.O_RDONLY)\n"
                          "for i in range(20):\n"
                          "    os.mkdir(n, dir_fd=fd); nfd = os.open(n, os.O_RDONLY, dir_fd=fd); os.close(fd); fd = nfd\n"
                          "os.close(os.open(\"leaf\", os.O_CREAT | os.O_WRONLY, dir_fd=fd))\n"
                          "' && mkdir -p locked/inner && touch locked/inner/f && chmod 000 locked/inner locked",
                          &out),
              0)
        << out;
  }
  for (int i = 0; i < 2; ++i) {
    auto ws = provider->acquire(repo.request(), CancelToken());
    ASSERT_TRUE(ws) << ws.error().message;
    EXPECT_EQ((*ws)->root(), root);
    EXPECT_FALSE(fs::exists(root / "locked"));
    EXPECT_FALSE(fs::exists(root / std::string(250, 'd')));
  }
}

// The workspace's own git dir does not keep the content jobs wrote (blobs of `git add -u`).
TEST(GitWorkspace, OwnObjectsDoNotAccumulateAcrossJobs) {
  Repo repo;
  testkit::TempDir pool;
  auto provider = make_git_workspace_provider(opts(pool.path()));
  fs::path git_dir;
  for (int job = 0; job < 3; ++job) {
    auto ws = provider->acquire(repo.request(), CancelToken());
    ASSERT_TRUE(ws);
    git_dir = (*ws)->git_dir();
    testkit::write_file((*ws)->root() / "src/lib.py", "def f():\n    return " + std::to_string(100 + job) + "\n" +
                                                         std::string(100000, '#') + "\n");
    auto d = (*ws)->diff();
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_NE(d->find("return " + std::to_string(100 + job)), std::string::npos);
  }
  auto ws = provider->acquire(repo.request(), CancelToken());
  ASSERT_TRUE(ws);
  std::size_t loose = 0;
  for (const auto& e : fs::directory_iterator(git_dir / "objects"))
    if (e.path().filename().string().size() == 2) ++loose;
  EXPECT_EQ(loose, 0u);
  EXPECT_EQ(testkit::read_file((*ws)->root() / "src/lib.py"), "def f():\n    return 2\n");
}

// A submodule URL comes from the change's .gitmodules: only the developer's own clone of it is used,
// never another repository on the machine that the URL names.
TEST(GitWorkspace, SubmoduleUrlsNamingOtherLocalRepositoriesAreNotCloned) {
  testkit::TempDir tmp;
  auto secret = tmp.path() / "someone-elses";
  testkit::make_repo(secret, {{"secret.txt", "not yours\n"}});
  // The developer has no clone of it: the URL is all the workspace would have to go by.
  auto req = submodule_request(tmp.path(), secret, " && git submodule deinit -q -f third_party/sub && rm -rf .git/modules/third_party");
  testkit::TempDir pool;
  auto provider = make_git_workspace_provider(opts(pool.path()));
  auto ws = provider->acquire(req, CancelToken());
  ASSERT_TRUE(ws) << ws.error().message;
  EXPECT_FALSE(fs::exists((*ws)->root() / "third_party/sub/secret.txt"));
}

// A validation reads the same files of the base and the head dozens of times: reads of immutable
// objects (a blob id, a file or listing of a commit named by its full id) are kept for the process;
// reads by a name that can move (HEAD, a branch, a short id) and failed reads are not.
TEST(GitWorkspace, ReadsOfImmutableObjectsAreKeptAndOthersAreNot) {
  testkit::TempDir tmp;
  const auto dir = tmp.path() / "repo";
  // (Content unique to this run: the reads are kept for the whole test process.)
  const std::string one = "one " + tmp.path().string() + "\n";
  const auto c1 = testkit::make_repo(dir, {{"a.txt", one}});
  std::string id;
  ASSERT_EQ(testkit::sh("git -C '" + dir.string() + "' rev-parse " + c1 + ":a.txt", &id), 0);
  while (!id.empty() && id.back() == '\n') id.pop_back();
  const detail::GitRepo repo(dir);
  ASSERT_EQ(detail::read_blob(repo, id).value(), one);
  ASSERT_EQ(detail::read_file_at(repo, c1, "a.txt").value(), one);
  ASSERT_EQ(detail::read_file_at(repo, "HEAD", "a.txt").value(), one);
  ASSERT_EQ(detail::commit_files(repo, c1).value(), std::vector<std::string>{"a.txt"});
  // With the object store gone, the kept reads still answer; the others go to git and fail.
  fs::rename(dir / ".git/objects", dir / ".git/objects-away");
  fs::create_directories(dir / ".git/objects");
  EXPECT_EQ(detail::read_blob(repo, id).value_or("(failed)"), one);
  EXPECT_EQ(detail::read_file_at(repo, c1, "a.txt").value_or("(failed)"), one);
  EXPECT_EQ(detail::commit_files(repo, c1).value_or(std::vector<std::string>{"(failed)"}),
            std::vector<std::string>{"a.txt"});
  EXPECT_FALSE(detail::read_file_at(repo, "HEAD", "a.txt"));
  EXPECT_FALSE(detail::read_file_at(repo, c1.substr(0, 12), "a.txt"));
  EXPECT_FALSE(detail::read_file_at(repo, c1, "missing.txt"));
  fs::remove_all(dir / ".git/objects");
  fs::rename(dir / ".git/objects-away", dir / ".git/objects");
  // A failed read was not kept: the same read succeeds once the object is there.
  const std::string two = "two " + tmp.path().string() + "\n";
  const auto c2 = testkit::commit_files(dir, {{"a.txt", two}, {"b.txt", "b\n"}}, "second");
  EXPECT_EQ(detail::read_file_at(repo, "HEAD", "a.txt").value_or("(failed)"), two);
  EXPECT_EQ(detail::read_file_at(repo, c1, "a.txt").value_or("(failed)"), one);
  EXPECT_EQ(detail::commit_files(repo, c2).value_or(std::vector<std::string>{}),
            (std::vector<std::string>{"a.txt", "b.txt"}));
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
