// Attack tests for the git side of the sandbox (issue 10 items 3 and 4): `.git` redirection,
// config/hook/filter poisoning, the developer's repository staying byte-identical through a whole
// repair, and secrets never reaching the model or any output. Real git, real processes, a real
// loopback model server.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>

#include "flowagent/flowagent.hpp"
#include "support/scripted_model.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::testkit;

namespace {

/// Everything about a repository directory, `.git` included, excluding nothing: every path with
/// its type/mode and size, every file's hash, every symlink's target, and the worktree list (read
/// with fsmonitor and hooks off so the test itself cannot trigger a planted program).
std::string full_fingerprint(const fs::path& repo) {
  std::string out;
  sh("cd '" + repo.string() + "' && { find . -print0 | LC_ALL=C sort -z | xargs -0 stat -c '%n %f %s'; "
     "find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; "
     "find . -type l -print0 | LC_ALL=C sort -z | xargs -0r readlink; "
     "git -c core.fsmonitor=false -c core.hooksPath=/dev/null worktree list --porcelain; }",
     &out);
  return out;
}

/// A script that leaves a marker file when run; `path` is where the script lives.
void plant_marker_script(const fs::path& path, const fs::path& marker) {
  write_file(path, "#!/bin/sh\necho ran >> '" + marker.string() + "'\ncat\n");
  fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
}

std::vector<std::string> markers_in(const fs::path& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind("MARKER", 0) == 0) found.push_back(e.path().filename().string());
  return found;
}

/// The developer's repository: a branch checked out, staged and unstaged work, an untracked file,
/// and a poisoned configuration of its own (fsmonitor, hooks, filter and diff drivers) that
/// flowagent's calls on it must never run.
struct DevRepo {
  TempDir tmp;
  fs::path dir = tmp.path() / "repo";
  fs::path markers = tmp.path() / "markers";
  std::string base, head;

  explicit DevRepo(bool poison_config = true) {
    fs::create_directories(markers);
    base = make_repo(dir, {{"v.txt", "1\n"}, {"lib/util.txt", "util\n"}, {".gitignore", "build/\n"}});
    // The change adds a submodule, and attributes naming filter, diff and merge drivers.
    make_repo(tmp.path() / "subrepo", {{"sub.txt", "in submodule\n"}});
    std::string out;
    EXPECT_EQ(sh("cd '" + dir.string() + "' && git -c protocol.file.allow=always submodule add -q '" +
                     (tmp.path() / "subrepo").string() + "' x",
                 &out),
              0)
        << out;
    head = commit_files(dir, {{"v.txt", "2\n"}, {"w.txt", "x = 2\n"}, {".gitattributes", "* filter=evil diff=evil merge=evil\n"}},
                        "change");
    sh("git -C '" + dir.string() + "' checkout -q -b feature");
    // A stale worktree registration of the developer's: any `git worktree prune` would delete it.
    sh("git -C '" + dir.string() + "' worktree add -q --detach '" + (tmp.path() / "stale").string() + "' && rm -rf '" +
       (tmp.path() / "stale").string() + "'");
    write_file(dir / "lib/util.txt", "util staged\n");
    sh("git -C '" + dir.string() + "' add lib/util.txt");
    write_file(dir / "v.txt", "3 wip\n");
    write_file(dir / "notes.txt", "untracked\n");
    if (poison_config) {
      plant_marker_script(tmp.path() / "fsmonitor.sh", markers / "MARKER_dev_fsmonitor");
      plant_marker_script(tmp.path() / "filter.sh", markers / "MARKER_dev_filter");
      plant_marker_script(tmp.path() / "textconv.sh", markers / "MARKER_dev_textconv");
      plant_marker_script(dir / ".git/hooks/post-checkout", markers / "MARKER_dev_hook");
      plant_marker_script(dir / ".git/hooks/reference-transaction", markers / "MARKER_dev_hook_ref");
      const std::string g = "git -C '" + dir.string() + "' config ";
      sh(g + "core.fsmonitor '" + (tmp.path() / "fsmonitor.sh").string() + "'");
      sh(g + "filter.evil.clean '" + (tmp.path() / "filter.sh").string() + "'");
      sh(g + "filter.evil.smudge '" + (tmp.path() / "filter.sh").string() + "'");
      sh(g + "diff.evil.textconv '" + (tmp.path() / "textconv.sh").string() + "'");
      sh(g + "diff.external '" + (tmp.path() / "textconv.sh").string() + "'");
      sh(g + "log.showSignature true");
      sh(g + "gpg.program '" + (tmp.path() / "filter.sh").string() + "'");
    }
  }

  RepairRequest request() const {
    auto r = sample_request(dir.string());
    r.change.base_commit = base;
    r.change.head_commit = head;
    // The one test "v", reported as TAP with its plan: per-test evidence, as the validator requires.
    r.commands.test = "if grep -q '^x = 3$' w.txt; then echo 'ok 1 - v'; else echo 'not ok 1 - v'; echo '1..1'; exit 1; fi; echo '1..1'";
    r.commands.wider_test.clear();
    r.commands.build.clear();
    r.failure.failing_tests = {"v"};
    return r;
  }
};

struct ToolRig {
  std::shared_ptr<ToolRegistry> tools = std::make_shared<ToolRegistry>();
  ToolState state;
  CancelToken cancel;
  ToolRig() { EXPECT_TRUE(register_builtin_tools(*tools)); }
  ToolOutput call(Workspace& ws, const RepairRequest& req, const std::string& name, Json args) {
    ToolContext ctx{ws, req, state, cancel};
    auto r = tools->invoke(name, args, ctx);
    EXPECT_TRUE(r) << name << ": " << (r ? "" : r.error().message);
    return r ? *r : ToolOutput{false, "error"};
  }
};

std::unique_ptr<Workspace> acquire(WorkspaceProvider& p, const RepairRequest& req) {
  auto ws = p.acquire(req, CancelToken());
  EXPECT_TRUE(ws) << (ws ? "" : ws.error().message);
  return ws ? std::move(*ws) : nullptr;
}

GitWorkspaceOptions pool_at(const fs::path& root) {
  GitWorkspaceOptions o;
  o.root = root;
  return o;
}

}  // namespace

TEST(GitAttack, WorkspaceHasNoGitEntryAndItsMetadataLivesBesideTheTree) {
  DevRepo dev;
  const auto before = full_fingerprint(dev.dir);
  auto provider = make_git_workspace_provider(pool_at(dev.tmp.path() / "pool"));
  {
    auto ws = acquire(*provider, dev.request());
    ASSERT_TRUE(ws);
    EXPECT_FALSE(fs::exists(fs::symlink_status(ws->root() / ".git")));
    const fs::path gd = ws->git_dir();
    ASSERT_FALSE(gd.empty());
    EXPECT_TRUE(fs::is_directory(gd / "objects"));
    // Beside the tree, not under it, and not in the developer's .git.
    EXPECT_NE(gd.string().rfind(ws->root().string() + "/", 0), 0u) << gd;
    EXPECT_EQ(gd.string().find(dev.dir.string()), std::string::npos) << gd;
    EXPECT_EQ(testkit::read_file(ws->root() / "v.txt"), "2\n");
    EXPECT_EQ(testkit::read_file(ws->root() / "x/sub.txt"), "in submodule\n");  // the submodule, from .git/modules
    // The smudge filter named by the change's .gitattributes never ran, even at checkout.
    EXPECT_TRUE(markers_in(dev.markers).empty());
  }
  EXPECT_EQ(full_fingerprint(dev.dir), before);
}

TEST(GitAttack, ToolsRefuseEveryPathThatNamesGitMetadata) {
  DevRepo dev;
  const auto before = full_fingerprint(dev.dir);
  auto provider = make_git_workspace_provider(pool_at(dev.tmp.path() / "pool"));
  auto ws = acquire(*provider, dev.request());
  ASSERT_TRUE(ws);
  const auto req = dev.request();
  ToolRig rig;
  const std::string redirect = "gitdir: " + (dev.dir / ".git").string() + "\n";
  for (const std::string p : {".git", "./.git", ".GIT", ".Git/config", ".git.", ".git ", "lib/.git", "lib/./.git/HEAD",
                              ".git/hooks/pre-commit", "git~1", ".g\xe2\x80\x8cit", "a/../.git"}) {
    auto w = rig.call(*ws, req, "write_file", Json::obj({{"path", p}, {"content", redirect}}));
    EXPECT_FALSE(w.ok) << p << " was written: " << w.content;
    auto r = rig.call(*ws, req, "read_file", Json::obj({{"path", p}}));
    EXPECT_FALSE(r.ok) << p;
    auto d = rig.call(*ws, req, "delete_file", Json::obj({{"path", p}}));
    EXPECT_FALSE(d.ok) << p;
    auto e = rig.call(*ws, req, "edit_file", Json::obj({{"path", p}, {"old_text", "x"}, {"new_text", "y"}}));
    EXPECT_FALSE(e.ok) << p;
  }
  EXPECT_FALSE(fs::exists(fs::symlink_status(ws->root() / ".git")));
  EXPECT_FALSE(fs::exists(fs::symlink_status(ws->root() / "lib/.git")));

  // Test code (not the tools) plants a `.git` pointing at the developer's repository and a crafted
  // git dir in the tree with an fsmonitor script; a symlink to it too. Listing and search hide
  // them; no path through the symlink reaches them; flowagent's own git calls ignore them.
  fs::create_directories(ws->root() / "crafted/objects");
  fs::create_directories(ws->root() / "crafted/refs");
  write_file(ws->root() / "crafted/HEAD", "ref: refs/heads/main\n");
  plant_marker_script(ws->root() / "crafted/fsmonitor.sh", dev.markers / "MARKER_crafted_fsmonitor");
  write_file(ws->root() / "crafted/config", "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = " +
                                                (ws->root() / "crafted/fsmonitor.sh").string() + "\n");
  write_file(ws->root() / ".git", "gitdir: " + (ws->root() / "crafted").string() + "\n");
  fs::create_directories(ws->root() / "lib/.git");
  write_file(ws->root() / "lib/.git/config", "[core]\n\tfsmonitor = " + (ws->root() / "crafted/fsmonitor.sh").string() + "\n");
  fs::create_symlink(".git", ws->root() / "link");
  auto shows_git = [](const std::string& listing) {
    return ("\n" + listing).find("\n.git") != std::string::npos &&
           (("\n" + listing).find("\n.git\n") != std::string::npos || ("\n" + listing).find("\n.git/") != std::string::npos ||
            ("\n" + listing).find("\n.git ->") != std::string::npos);
  };
  auto listing = rig.call(*ws, req, "list_dir", Json::obj({{"path", "."}}));
  EXPECT_TRUE(listing.ok);
  EXPECT_FALSE(shows_git(listing.content)) << listing.content;
  EXPECT_NE(listing.content.find(".gitattributes"), std::string::npos) << listing.content;
  auto sub = rig.call(*ws, req, "list_dir", Json::obj({{"path", "lib"}}));
  EXPECT_FALSE(shows_git(sub.content)) << sub.content;
  EXPECT_FALSE(rig.call(*ws, req, "read_file", Json::obj({{"path", "link"}})).ok);
  auto hits = rig.call(*ws, req, "search_code", Json::obj({{"pattern", "gitdir|fsmonitor|repositoryformat"}}));
  EXPECT_EQ(hits.content.find(".git:"), std::string::npos) << hits.content;
  EXPECT_EQ(hits.content.find(".git/"), std::string::npos) << hits.content;

  // The workspace's git is still its own: an edit shows in the diff, against the right head.
  EXPECT_TRUE(rig.call(*ws, req, "edit_file", Json::obj({{"path", "v.txt"}, {"old_text", "2"}, {"new_text", "1"}})).ok);
  auto diff = ws->diff();
  ASSERT_TRUE(diff) << diff.error().message;
  EXPECT_NE(diff->find("-2\n+1\n"), std::string::npos) << *diff;
  EXPECT_EQ(diff->find("crafted"), std::string::npos) << "untracked files never enter the patch";
  ASSERT_TRUE(ws->reset());
  EXPECT_FALSE(fs::exists(fs::symlink_status(ws->root() / ".git")));
  EXPECT_FALSE(fs::exists(fs::symlink_status(ws->root() / "lib/.git")));
  EXPECT_EQ(testkit::read_file(ws->root() / "v.txt"), "2\n");
  ws.reset();  // back to the pool
  auto again = acquire(*provider, dev.request());
  ASSERT_TRUE(again);
  EXPECT_FALSE(fs::exists(fs::symlink_status(again->root() / ".git")));
  EXPECT_EQ(testkit::read_file(again->root() / "x/sub.txt"), "in submodule\n");  // reconnected after the sweep
  EXPECT_TRUE(fs::is_regular_file(again->root() / "x/.git"));
  // A `.git` file planted in a tree when the workspace is destroyed (pool full, provider gone)
  // makes flowagent run nothing in the developer's repository.
  write_file(again->root() / ".git", redirect);
  again.reset();
  provider.reset();
  EXPECT_TRUE(markers_in(dev.markers).empty()) << markers_in(dev.markers)[0];
  EXPECT_EQ(full_fingerprint(dev.dir), before);
}

TEST(GitAttack, ToolsCreateOnlyRegularFilesAndRefuseLinksAndSpecialFiles) {
  DevRepo dev(false);
  auto provider = make_git_workspace_provider(pool_at(dev.tmp.path() / "pool"));
  auto ws = acquire(*provider, dev.request());
  ASSERT_TRUE(ws);
  const auto req = dev.request();
  ToolRig rig;
  // A file outside the workspace, hard-linked into it by test code: not readable or writable.
  write_file(dev.tmp.path() / "outside.txt", "outside secret\n");
  fs::create_hard_link(dev.tmp.path() / "outside.txt", ws->root() / "hard.txt");
  EXPECT_FALSE(rig.call(*ws, req, "read_file", Json::obj({{"path", "hard.txt"}})).ok);
  EXPECT_FALSE(rig.call(*ws, req, "write_file", Json::obj({{"path", "hard.txt"}, {"content", "x"}})).ok);
  EXPECT_FALSE(rig.call(*ws, req, "edit_file", Json::obj({{"path", "hard.txt"}, {"old_text", "outside"}, {"new_text", "in"}})).ok);
  auto found = rig.call(*ws, req, "search_code", Json::obj({{"pattern", "outside secret"}}));
  EXPECT_EQ(found.content.find("outside secret"), std::string::npos) << found.content;
  EXPECT_EQ(testkit::read_file(dev.tmp.path() / "outside.txt"), "outside secret\n");
  // A FIFO and a symlink to a folder outside: refused, nothing created through them.
  ASSERT_EQ(sh("mkfifo '" + (ws->root() / "pipe").string() + "'"), 0);
  EXPECT_FALSE(rig.call(*ws, req, "write_file", Json::obj({{"path", "pipe"}, {"content", "x"}})).ok);
  EXPECT_FALSE(rig.call(*ws, req, "read_file", Json::obj({{"path", "pipe"}})).ok);
  fs::create_directory_symlink(dev.tmp.path(), ws->root() / "out");
  EXPECT_FALSE(rig.call(*ws, req, "write_file", Json::obj({{"path", "out/new.txt"}, {"content", "x"}})).ok);
  EXPECT_FALSE(fs::exists(dev.tmp.path() / "new.txt"));
  // What write_file makes is a regular file with one link and no set-id bits.
  ASSERT_TRUE(rig.call(*ws, req, "write_file", Json::obj({{"path", "made/new.txt"}, {"content", "x\n"}})).ok);
  struct stat st {};
  ASSERT_EQ(::lstat((ws->root() / "made/new.txt").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_nlink, 1u);
  fs::permissions(ws->root() / "v.txt", fs::perms::set_uid | fs::perms::owner_all, fs::perm_options::replace);
  ASSERT_TRUE(rig.call(*ws, req, "write_file", Json::obj({{"path", "v.txt"}, {"content", "1\n"}})).ok);
  ASSERT_EQ(::lstat((ws->root() / "v.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & (S_ISUID | S_ISGID), 0u);
}

TEST(GitAttack, PoisonedConfigFiltersAndHooksNeverRunInFlowagentsGitCalls) {
  DevRepo dev;  // the developer's own config is poisoned too
  const auto before = full_fingerprint(dev.dir);
  auto provider = make_git_workspace_provider(pool_at(dev.tmp.path() / "pool"));
  auto ws = acquire(*provider, dev.request());
  ASSERT_TRUE(ws);
  // Poison everything git could read for the workspace: the tree (attributes naming filter and
  // diff drivers, a .gitmodules update command) and, as a stronger attacker than the sandbox
  // allows, the workspace's own git directory (config with fsmonitor, filter, textconv, external
  // diff, hooksPath; hooks).
  const fs::path gd = ws->git_dir();
  plant_marker_script(dev.tmp.path() / "ws_fsmonitor.sh", dev.markers / "MARKER_ws_fsmonitor");
  plant_marker_script(dev.tmp.path() / "ws_filter.sh", dev.markers / "MARKER_ws_filter");
  plant_marker_script(dev.tmp.path() / "ws_diff.sh", dev.markers / "MARKER_ws_diff");
  fs::create_directories(gd / "hooks");
  for (const char* hook : {"pre-commit", "post-checkout", "post-index-change", "reference-transaction", "pre-auto-gc"})
    plant_marker_script(gd / "hooks" / hook, dev.markers / (std::string("MARKER_ws_hook_") + hook));
  const std::string g = "git --git-dir='" + gd.string() + "' config ";
  sh(g + "core.fsmonitor '" + (dev.tmp.path() / "ws_fsmonitor.sh").string() + "'");
  sh(g + "core.hooksPath '" + (gd / "hooks").string() + "'");
  sh(g + "filter.evil.clean '" + (dev.tmp.path() / "ws_filter.sh").string() + "'");
  sh(g + "filter.evil.smudge '" + (dev.tmp.path() / "ws_filter.sh").string() + "'");
  sh(g + "filter.evil.process '" + (dev.tmp.path() / "ws_filter.sh").string() + "'");
  sh(g + "diff.evil.textconv '" + (dev.tmp.path() / "ws_diff.sh").string() + "'");
  sh(g + "diff.evil.command '" + (dev.tmp.path() / "ws_diff.sh").string() + "'");
  sh(g + "diff.external '" + (dev.tmp.path() / "ws_diff.sh").string() + "'");
  sh(g + "core.untrackedCache true");
  write_file(ws->root() / "lib/.gitattributes", "*.txt filter=evil diff=evil\n");
  write_file(ws->root() / ".gitattributes", "* filter=evil diff=evil merge=evil text eol=crlf\n");
  // Sanity: this poisoning is live for a git that does not use flowagent's hardened settings.
  {
    TempDir probe;
    std::string out;
    sh("cd '" + probe.path().string() + "' && git init -q p && cd p && cp '" + (ws->root() / ".gitattributes").string() +
           "' . && echo hi > a.txt && git -c filter.evil.clean='" + (dev.tmp.path() / "ws_filter.sh").string() +
           "' add a.txt",
       &out);
    ASSERT_EQ(markers_in(dev.markers), std::vector<std::string>{"MARKER_ws_filter"}) << out;
    fs::remove(dev.markers / "MARKER_ws_filter");
  }
  // flowagent's operations: the patch (add -u + diff), a new file, search, reset, release/acquire.
  write_file(ws->root() / "v.txt", "1\n");
  write_file(ws->root() / "lib/util.txt", "changed\n");
  write_file(ws->root() / "lib/new.txt", "new\n");
  ASSERT_TRUE(ws->track_new_file("lib/new.txt"));
  auto diff = ws->diff();
  ASSERT_TRUE(diff) << diff.error().message;
  // The bytes as they are: no filter output, no textconv, no CRLF conversion.
  EXPECT_NE(diff->find("-2\n+1\n"), std::string::npos) << *diff;
  EXPECT_NE(diff->find("+changed\n"), std::string::npos) << *diff;
  EXPECT_NE(diff->find("+new\n"), std::string::npos) << *diff;
  EXPECT_EQ(diff->find('\r'), std::string::npos);
  SearchOptions so;
  so.pattern = "changed";
  so.git_dir = gd;
  auto hits = search_code(ws->root(), so);
  ASSERT_TRUE(hits) << hits.error().message;
  EXPECT_EQ(hits->size(), 1u);
  ASSERT_TRUE(ws->reset());
  EXPECT_EQ(testkit::read_file(ws->root() / "v.txt"), "2\n");
  ws.reset();
  auto again = acquire(*provider, dev.request());
  ASSERT_TRUE(again);
  auto d2 = again->diff();
  ASSERT_TRUE(d2);
  EXPECT_EQ(*d2, "");
  again.reset();
  provider.reset();  // destroys the pooled workspaces
  EXPECT_TRUE(markers_in(dev.markers).empty()) << markers_in(dev.markers)[0];
  EXPECT_EQ(full_fingerprint(dev.dir), before);
}

TEST(GitAttack, DevelopersRepositoryIsByteIdenticalAfterAWholeRepair) {
  DevRepo dev;
  const auto before = full_fingerprint(dev.dir);
  ScriptedModel model;
  // A hostile model: tries to redirect git, then fixes the bug for real.
  model.push(tool_calls_reply({{"write_file", Json::obj({{"path", ".git"}, {"content", "gitdir: " + (dev.dir / ".git").string()}})}}));
  model.push(tool_calls_reply({{"write_file", Json::obj({{"path", "./.git/config"}, {"content", "[core]\n\tfsmonitor = touch /tmp/x\n"}})}}));
  model.push(tool_calls_reply({{"list_dir", Json::obj({{"path", "."}})}}));
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "w.txt"}, {"old_text", "2"}, {"new_text", "3"}})}}));
  model.push(tool_calls_reply({{"run_tests", Json::object()}}));
  model.push(final_reply("x must be 3."));
  AgentOptions o;
  o.workspaces = make_git_workspace_provider(pool_at(dev.tmp.path() / "pool"));
  o.strategies = {make_react_strategy()};
  {
    auto agent = Agent::create(o);
    ASSERT_TRUE(agent);
    auto req = dev.request();
    req.model.spec = "openai-compatible:scripted";
    req.model.base_url = model.base_url();
    auto r = (*agent)->run(req);
    EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;
    EXPECT_NE(r.patch.find("-x = 2\n+x = 3\n"), std::string::npos) << r.patch;
    EXPECT_EQ(r.patch.find("diff --git"), r.patch.rfind("diff --git")) << "only w.txt changed: " << r.patch;
  }
  o = AgentOptions{};  // the pool goes away with the provider
  EXPECT_TRUE(markers_in(dev.markers).empty()) << markers_in(dev.markers)[0];
  EXPECT_EQ(full_fingerprint(dev.dir), before);
}

namespace {

std::string random_token(std::size_t n) {
  static const char kAlnum[] = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
  std::random_device rd;
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += kAlnum[rd() % (sizeof kAlnum - 1)];
  return s;
}

struct EventLog final : EventSink {
  std::mutex mu;
  std::string all;
  std::string_view name() const override { return "log"; }
  void on_event(const Event& e) override {
    std::lock_guard lock(mu);
    all += dump_json_lossy(to_json(e)) + "\n";
  }
  void on_result(const RepairResult& r) override {
    std::lock_guard lock(mu);
    all += dump_json_lossy(to_json(r)) + "\n";
  }
};

std::string read_dir(const fs::path& dir) {
  std::string all;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec))
    if (e.is_regular_file()) all += testkit::read_file(e.path());
  return all;
}

/// A repository whose files, CI log and test output carry secrets: the model key (a value with no
/// known shape, so only the value-based redaction can catch it), a GitHub token, an AWS key id, a
/// host-declared token and a PEM private key.
struct SecretProject {
  TempDir tmp;
  fs::path repo = tmp.path() / "repo";
  std::string key = "fa-model-key-" + random_token(32);
  std::string host_secret = "host-review-token-" + random_token(24);
  std::string ghp = "ghp_" + random_token(36);
  std::string aws = "AKIA" + std::string("QWERTYUIOPASDFGH");
  std::string pem_body = random_token(48);
  std::string base, head;
  RepairRequest request;

  SecretProject() {
    const std::string settings = "API_KEY = '" + key + "'\nGITHUB = '" + ghp + "'\nAWS = '" + aws + "'\nHOST = '" +
                                 host_secret + "'\n-----BEGIN RSA PRIVATE KEY-----\n" + pem_body +
                                 "\n-----END RSA PRIVATE KEY-----\n";
    base = make_repo(repo, {{"v.txt", "1\n"}, {"settings.py", settings}});
    head = commit_files(repo, {{"w.txt", "x = 2\n"}}, "change mentions " + host_secret);
    // The CI log names the key (a test printed its environment).
    write_file(tmp.path() / "ci.log", "FAILED v\nOPENAI_API_KEY=" + key + "\nAuthorization: Bearer " + key + "\n");
    request = sample_request(repo.string());
    request.change.base_commit = base;
    request.change.head_commit = head;
    request.change.description = "change mentions " + host_secret;
    // The test prints the planted file (so the key is in the test log read_log returns) and fails.
    // The test "v" as TAP first (per-test evidence, with its plan), then output that carries the key.
    const std::string leak = "cat settings.py; echo " + key;
    request.commands.test = "if grep -q '^y = 1$' w.txt; then echo 'ok 1 - v'; echo '1..1'; " + leak + "; else echo 'not ok 1 - v'; " +
                            "echo '1..1'; " + leak + "; exit 1; fi";
    request.commands.wider_test.clear();
    request.commands.build.clear();
    request.failure.failing_tests = {"v"};
    request.failure.logs = {(tmp.path() / "ci.log").string()};
    request.model.spec = "openai-compatible:scripted";
    request.model.api_key_env = "FLOWAGENT_TEST_MODEL_KEY";
  }

  void script(ScriptedModel& m) const {
    m.push(tool_calls_reply({{"read_file", Json::obj({{"path", "settings.py"}})}}));
    m.push(tool_calls_reply({{"search_code", Json::obj({{"pattern", "API_KEY|GITHUB|PRIVATE|HOST"}, {"context", 2}})}}));
    m.push(tool_calls_reply({{"run_tests", Json::object()}}));
    m.push(tool_calls_reply({{"read_log", Json::obj({{"which", "test"}})}}));
    m.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "w.txt"}, {"old_text", "x = 2\n"}, {"new_text", "x = 2\ny = 1\n"}})}}));
    m.push(tool_calls_reply({{"run_tests", Json::object()}}));
    m.push(final_reply("y was missing."));
  }

  std::vector<std::string> secrets() const { return {key, host_secret, ghp, aws, pem_body}; }
};

void expect_no_secret(const std::string& where, const std::string& text, const std::vector<std::string>& secrets) {
  for (const auto& s : secrets) EXPECT_EQ(text.find(s), std::string::npos) << where << " contains " << s;
}

}  // namespace

TEST(Secrets, KeysNeverReachTheModelTrajectoryEventsOrResult) {
  SecretProject p;
  ASSERT_EQ(::setenv("FLOWAGENT_TEST_MODEL_KEY", p.key.c_str(), 1), 0);
  ScriptedModel model;
  p.script(model);
  auto events = std::make_shared<EventLog>();
  AgentOptions o;
  o.workspaces = make_git_workspace_provider(pool_at(p.tmp.path() / "pool"));
  o.strategies = {make_react_strategy()};
  o.trajectory_dir = p.tmp.path() / "trajectories";
  o.event_sink = events;
  o.secrets = {p.host_secret};
  o.trusted_model_origins = {model.base_url()};  // the host trusts its model server
  auto agent = Agent::create(o);
  ASSERT_TRUE(agent);
  auto req = p.request;
  req.model.base_url = model.base_url();
  auto r = (*agent)->run(req);
  ::unsetenv("FLOWAGENT_TEST_MODEL_KEY");
  EXPECT_EQ(r.status, Status::fixed) << r.reason << ": " << r.message;

  // The model client authenticated with the key (so it was configured)...
  const auto requests = model.server.requests();
  ASSERT_GE(requests.size(), 7u);
  EXPECT_EQ(requests.front().header("authorization"), "Bearer " + p.key);
  // ...but no request body carried a secret, though the tools read every place it was planted.
  std::string bodies;
  for (const auto& rq : requests) bodies += rq.body + "\n";
  expect_no_secret("model requests", bodies, p.secrets());
  EXPECT_NE(bodies.find("[REDACTED]"), std::string::npos);
  EXPECT_NE(bodies.find("API_KEY = '[REDACTED]'"), std::string::npos) << "read_file output reached the model redacted";
  expect_no_secret("trajectory files", read_dir(p.tmp.path() / "trajectories"), p.secrets());
  EXPECT_FALSE(read_dir(p.tmp.path() / "trajectories").empty());
  expect_no_secret("events", events->all, p.secrets());
  const std::string result_json = dump_json_lossy(to_json(r));
  expect_no_secret("result", result_json, p.secrets());
  EXPECT_NE(result_json.find("[REDACTED]"), std::string::npos) << "the trajectory in the result was redacted";
}

// A request's model section comes from whoever submits the job: it cannot send a key from the
// host's environment to an endpoint the host has not trusted, nor make flowagent read a file as a
// recording.
TEST(Secrets, RequestCannotSendAnEnvironmentKeyToAnUntrustedEndpoint) {
  SecretProject p;
  const std::string aws = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + random_token(12);
  ASSERT_EQ(::setenv("FA_TEST_AWS_SECRET_ACCESS_KEY", aws.c_str(), 1), 0);
  ASSERT_EQ(::setenv("OPENAI_API_KEY", p.key.c_str(), 1), 0);
  ScriptedModel attacker;
  p.script(attacker);
  AgentOptions o;
  o.workspaces = make_git_workspace_provider(pool_at(p.tmp.path() / "pool"));
  o.strategies = {make_react_strategy()};
  auto agent = Agent::create(o);
  ASSERT_TRUE(agent);
  for (const std::string env : {"FA_TEST_AWS_SECRET_ACCESS_KEY", ""}) {  // a named variable; the default one
    auto req = p.request;
    req.model.spec = "openai-compatible:any";
    req.model.base_url = attacker.base_url();
    req.model.api_key_env = env;
    auto r = (*agent)->run(req);
    EXPECT_EQ(r.status, Status::error) << env;
    EXPECT_EQ(r.reason, "model_config") << env;
    EXPECT_NE(r.message.find("has not trusted"), std::string::npos) << r.message;
  }
  // Under the provider's own endpoint name, a request cannot pick another variable either.
  auto req = p.request;
  req.model.spec = "openai:gpt-x";
  req.model.base_url.clear();
  req.model.api_key_env = "FA_TEST_AWS_SECRET_ACCESS_KEY";
  auto r = (*agent)->run(req);
  EXPECT_EQ(r.reason, "model_config") << r.message;
  req.model.spec = "replay:/etc/passwd";
  req.model.api_key_env.clear();
  r = (*agent)->run(req);
  EXPECT_EQ(r.reason, "model_config") << r.message;
  EXPECT_NE(r.message.find("replay"), std::string::npos) << r.message;
  ::unsetenv("FA_TEST_AWS_SECRET_ACCESS_KEY");
  ::unsetenv("OPENAI_API_KEY");
  EXPECT_EQ(attacker.server.requests().size(), 0u);
}

TEST(Secrets, ModelDestinationRules) {
  EXPECT_EQ(url_origin("HTTPS://API.OpenAI.com:443/v1/chat"), "https://api.openai.com");
  EXPECT_EQ(url_origin("http://user:pw@127.0.0.1:8080/v1"), "http://127.0.0.1:8080");
  EXPECT_EQ(url_origin("api.openai.com/v1"), "");
  ASSERT_EQ(::setenv("FA_TEST_RULES_KEY", "value-of-the-key-123", 1), 0);
  ModelConfig m;
  m.spec = "openai-compatible:m";
  m.base_url = "https://llm.example.com/v1";
  m.api_key_env = "FA_TEST_RULES_KEY";
  EXPECT_FALSE(check_model_destination(m, {}, false));
  EXPECT_TRUE(check_model_destination(m, {"https://llm.example.com:443"}, false));
  EXPECT_FALSE(check_model_destination(m, {"https://llm.example.com:8443"}, false));
  m.api_key_env = "FA_TEST_UNSET_VARIABLE";  // no key would be sent
  EXPECT_TRUE(check_model_destination(m, {}, false));
  m.spec = "replay:/tmp/x.jsonl";
  EXPECT_FALSE(check_model_destination(m, {}, false));
  EXPECT_TRUE(check_model_destination(m, {}, true));
  ::unsetenv("FA_TEST_RULES_KEY");
}

TEST(Secrets, CliJsonOutputCarriesNoKey) {
  SecretProject p;
  ScriptedModel model;
  p.script(model);
  std::string out;
  const int rc = sh("FLOWAGENT_TEST_MODEL_KEY='" + p.key + "' " + std::string(FLOWAGENT_CLI) + " repair --repo '" +
                        p.repo.string() + "' --base " + p.base + " --head " + p.head + " --test \"" + p.request.commands.test +
                        "\" --failing v --log '" + p.request.failure.logs[0] +
                        "' --model openai-compatible:m --api-key-env FLOWAGENT_TEST_MODEL_KEY --base-url " +
                        model.base_url() + " --trajectory-dir '" + (p.tmp.path() / "traj").string() +
                        "' --json --quiet 2>&1",
                    &out);
  EXPECT_EQ(rc, 0) << out;
  auto doc = parse_json(out);
  ASSERT_TRUE(doc) << out;
  EXPECT_EQ(doc->get_string("status"), "fixed") << out;
  // The host secret is unknown to the CLI; the key, the shaped tokens and the PEM body are masked.
  expect_no_secret("CLI --json", out, {p.key, p.ghp, p.aws, p.pem_body});
  std::string bodies;
  for (const auto& rq : model.server.requests()) bodies += rq.body + "\n";
  expect_no_secret("model requests", bodies, {p.key, p.ghp, p.aws, p.pem_body});
  expect_no_secret("trajectory files", read_dir(p.tmp.path() / "traj"), {p.key, p.ghp, p.aws, p.pem_body});
}

TEST(Secrets, RedactorMasksValuesAndShapes) {
  Redactor r;
  r.add_secret("short");  // too short to mask
  r.add_secret("my-very-secret-value");
  EXPECT_EQ(r.redact("a my-very-secret-value b short"), "a [REDACTED] b short");
  EXPECT_EQ(r.redact("key sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345"), "key [REDACTED]");
  EXPECT_EQ(r.redact("sk-proj-abcdefghijklmnopqrstuvwxyz"), "[REDACTED]");
  EXPECT_EQ(r.redact("token=ghp_abcdefghijklmnopqrstuvwxyz0123456789AB"), "token=[REDACTED]");
  EXPECT_EQ(r.redact("github_pat_11ABCDEFG0123456789_abcdefghijklmnop"), "[REDACTED]");
  EXPECT_EQ(r.redact("AKIAIOSFODNN7EXAMPLE here"), "[REDACTED] here");
  EXPECT_EQ(r.redact("xoxb-1234567890-abcdefghij"), "[REDACTED]");
  EXPECT_EQ(r.redact("AIzaSyA-abcdefghijklmnopqrstuvwxyz123456"), "[REDACTED]");
  EXPECT_EQ(r.redact("Authorization: Bearer abc.def-ghi_jkl~mno"), "Authorization: Bearer [REDACTED]");
  EXPECT_EQ(r.redact("x\n-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\nBBBB\n-----END OPENSSH PRIVATE KEY-----\ny"),
            "x\n[REDACTED]\ny");
  EXPECT_EQ(r.redact("-----BEGIN PRIVATE KEY-----\nAAAA cut off"), "[REDACTED]");
  EXPECT_EQ(r.redact("ordinary code: return sk; // task-list"), "ordinary code: return sk; // task-list");
  EXPECT_TRUE(r.contains_secret("xx my-very-secret-value"));
  EXPECT_FALSE(r.contains_secret("nothing here"));
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
