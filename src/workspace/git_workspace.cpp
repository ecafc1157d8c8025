// Workspaces with their own git directory beside the tree, a warm pool and crash-safe cleanup
// (flock'ed lock files).
#include "flowagent/git_workspace.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <sstream>

#include "workspace/git.hpp"
#include "workspace/git_patch.hpp"

namespace flowagent {

namespace fs = std::filesystem;

namespace {

std::string hex(std::uint64_t v) {
  std::ostringstream ss;
  ss << std::hex << v;
  return ss.str();
}

fs::path default_root() {
  std::error_code ec;
  fs::path tmp = fs::temp_directory_path(ec);
  if (ec) tmp = "/tmp";
  return tmp / ("flowagent-" + std::to_string(::getuid())) / "workspaces";
}

bool force_remove_all(const fs::path& dir);

/// Removes a workspace: its tree, its git directory beside it, and (for workspaces made by older
/// versions as linked worktrees) the worktree registration in the repository. Best effort.
void remove_workspace(const fs::path& repo, const fs::path& dir) {
  std::error_code ec;
  // Legacy only when there is no git dir beside the tree: a `.git` file planted in a current
  // workspace's tree must never make us run `git worktree` in the developer's repository.
  const bool legacy_worktree =
      !fs::exists(fs::symlink_status(dir.string() + ".git", ec)) && fs::is_regular_file(fs::symlink_status(dir / ".git", ec));
  if (legacy_worktree && !repo.empty())
    (void)detail::git(repo, {"worktree", "remove", "--force", "--force", dir.string()});
  force_remove_all(dir);
  force_remove_all(dir.string() + ".git");
  if (legacy_worktree && !repo.empty()) (void)detail::git(repo, {"worktree", "prune"});
}

bool write_text(const fs::path& p, std::string_view text) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << text;
  return static_cast<bool>(f);
}

/// Removes every `.git` entry from the tree (a test may have planted one; the tools refuse them),
/// except below `keep` (the kept build folder is not walked). Submodule gitfiles are re-created by
/// `submodule update` afterwards.
/// Creates `dir` (and its parents) and insists that it is a real directory owned by us with mode
/// 0700: the pool's path under /tmp is predictable, so another local user could pre-create it or
/// plant a symlink there, and files sandboxed code leaves behind (a setuid bit it set on a file it
/// owns) must not be reachable by anyone else.
Expected<void> private_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fail(Errc::io, "cannot create " + dir.string() + ": " + ec.message());
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return fail(Errc::io, "cannot stat " + dir.string());
  if (!S_ISDIR(st.st_mode)) return fail(Errc::sandbox, dir.string() + " is not a directory (a symlink?); refusing to use it");
  if (st.st_uid != ::geteuid())
    return fail(Errc::sandbox, dir.string() + " belongs to uid " + std::to_string(st.st_uid) + ", not to us; refusing to use it");
  if ((st.st_mode & 0777) != 0700 && ::chmod(dir.c_str(), 0700) != 0)
    return fail(Errc::io, "cannot make " + dir.string() + " private (mode 0700)");
  return {};
}

void remove_git_entries(const fs::path& root, const std::string& keep) {
  std::error_code ec;
  fs::remove_all(root / ".git", ec);
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  while (!ec && it != end) {
    const auto& e = *it;
    if (it.depth() == 0 && !keep.empty() && e.path().filename() == keep) {
      it.disable_recursion_pending();
    } else if (e.path().filename() == ".git") {
      const fs::path victim = e.path();
      it.disable_recursion_pending();
      it.increment(ec);
      std::error_code rec;
      fs::remove_all(victim, rec);
      continue;
    }
    it.increment(ec);
  }
}

class GitWorkspaceProvider;

struct Slot {
  fs::path dir;      ///< the work tree
  fs::path git_dir;  ///< its own git directory, <dir>.git, beside the tree
  fs::path repo;     ///< the developer's repository (top level)
  std::string change;  ///< the change whose job last used the slot (its kept build folder is that job's)
  int lock_fd = -1;
};

/// Removes `dir` even where sandboxed code left folders without permissions (`chmod 000`, `300`):
/// modes are repaired top-down through descriptors (paths longer than PATH_MAX are fine), then the
/// tree is removed. Best effort; returns whether `dir` is gone.
void repair_modes_at(int dirfd, int depth) {
  if (depth > 4096) return;
  DIR* d = ::fdopendir(::dup(dirfd));
  if (!d) return;
  while (auto* e = ::readdir(d)) {
    const std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    if (::fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) continue;
    ::fchmodat(dirfd, e->d_name, 0700, 0);
    int sub = ::openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) continue;
    repair_modes_at(sub, depth + 1);
    ::close(sub);
  }
  ::closedir(d);
}
bool force_remove_all(const fs::path& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (!fs::exists(fs::symlink_status(dir, ec))) return true;
  struct stat st;
  if (::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    ::chmod(dir.c_str(), 0700);
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
      repair_modes_at(fd, 0);
      ::close(fd);
    }
  }
  fs::remove_all(dir, ec);
  return !fs::exists(fs::symlink_status(dir, ec));
}

/// Drops the objects the workspace's own git directory accumulated (blobs `git add -u` wrote for
/// diffs, trees of applied patches): everything a checkout needs is borrowed through alternates, so
/// the git dir beside the tree does not grow from job to job with content test code wrote.
void drop_own_objects(const fs::path& git_dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(git_dir / "objects", ec)) {
    const std::string name = e.path().filename().string();
    const bool loose = name.size() == 2 && std::isxdigit(static_cast<unsigned char>(name[0])) &&
                       std::isxdigit(static_cast<unsigned char>(name[1]));
    if (loose) fs::remove_all(e.path(), ec);
  }
  for (const auto& e : fs::directory_iterator(git_dir / "objects" / "pack", ec)) fs::remove(e.path(), ec);
}

class GitWorkspace final : public Workspace {
 public:
  GitWorkspace(std::weak_ptr<GitWorkspaceProvider> provider, Slot slot, std::string head, std::string keep_dir)
      : provider_(std::move(provider)), slot_(std::move(slot)), head_(std::move(head)), keep_dir_(std::move(keep_dir)) {}
  ~GitWorkspace() override;

  const fs::path& root() const override { return slot_.dir; }
  fs::path git_dir() const override { return slot_.git_dir; }
  const std::string& head_commit() const override { return head_; }

  Expected<std::string> diff() override {
    // Tracked changes (edits, deletions) plus files the tools created (intent-to-add); build and test
    // artifacts that are not ignored never enter a patch.
    if (auto r = detail::git(repo(), {"add", "-u", "--", "."}); !r) return unexpected(r.error());
    // The canonical patch (attributes, textconv and external diff off; binary blobs marked): the
    // text returned is what parse_patch reads back into the same value.
    auto patch = detail::git_patch(repo(), {"--cached", head_}, /*check_blobs=*/true);
    if (!patch) return unexpected(patch.error());
    return std::move(patch->text);
  }

  Expected<void> reset() override { return checkout(head_, CancelToken(), /*keep_build=*/true); }

  Expected<void> track_new_file(std::string_view path) override {
    auto r = detail::git(repo(), {"add", "--intent-to-add", "--", ":(literal)" + std::string(path)});
    if (!r) return unexpected(r.error());
    return {};
  }

  Expected<void> make_pristine() override {
    // (checkout() without a kept folder ends with `git clean -ffdx`; the status below checks it.)
    if (auto r = checkout(head_, CancelToken(), /*keep_build=*/false); !r) return r;
    auto status = detail::git(repo(), {"status", "--porcelain", "--ignored", "--untracked-files=all"});
    if (!status) return unexpected(status.error());
    if (!status->empty()) return fail(Errc::conflict, "the checkout is not clean: " + status->substr(0, 500));
    return {};
  }

  Expected<void> apply_patch(std::string_view patch) override {
    if (patch.empty()) return {};
    // The patch file lives next to the worktree, never inside it.
    const fs::path file = slot_.dir.string() + ".patch";
    {
      std::ofstream out(file, std::ios::binary | std::ios::trunc);
      out.write(patch.data(), static_cast<std::streamsize>(patch.size()));
      if (!out) return fail(Errc::io, "cannot write " + file.string());
    }
    auto r = detail::git_result(repo(), {"apply", "--index", "--binary", "--whitespace=nowarn", file.string()});
    std::error_code ec;
    fs::remove(file, ec);
    if (!r) return unexpected(r.error());
    if (r->exit_code != 0) return fail(Errc::conflict, "the patch does not apply: " + r->output.substr(0, 2000));
    return {};
  }

  /// Resets the tree to `commit`. `keep_build`: keep the ignored build folder (only for the same
  /// change's jobs: what one change's untrusted code left there must never reach another change).
  /// A failure leaves the slot unusable: it is destroyed instead of going back to the pool.
  Expected<void> checkout(const std::string& commit, const CancelToken& cancel, bool keep_build) {
    healthy_ = false;
    const std::string keep = keep_build ? keep_dir_ : std::string();
    remove_git_entries(slot_.dir, keep);
    if (auto r = detail::git(repo(), {"checkout", "-q", "--force", "--detach", commit}, cancel); !r)
      return unexpected(r.error());
    if (auto r = detail::git(repo(), {"reset", "-q", "--hard", commit}, cancel); !r) return unexpected(r.error());
    std::vector<std::string> clean = {"clean", "-q", "-ffdx"};
    if (!keep.empty()) clean.insert(clean.end(), {"-e", "/" + keep + "/"});
    if (auto r = detail::git(repo(), clean, cancel); !r) {
      // Paths git cannot remove (longer than PATH_MAX, folders without permissions): empty the tree
      // ourselves (modes repaired, descriptors for long paths) but for the kept folder, check the
      // commit out again and let git check.
      std::error_code ec;
      for (const auto& e : fs::directory_iterator(slot_.dir, ec))
        if (keep.empty() || e.path().filename() != keep) force_remove_all(e.path());
      if (auto again = detail::git(repo(), {"checkout", "-q", "--force", "--detach", commit}, cancel); !again)
        return unexpected(again.error());
      if (auto again = detail::git(repo(), clean, cancel); !again) return unexpected(again.error());
    }
    drop_own_objects(slot_.git_dir);
    head_ = commit;
    healthy_ = true;
    return {};
  }

  bool healthy() const { return healthy_; }

  detail::GitRepo repo() const { return detail::GitRepo(slot_.git_dir, slot_.dir); }

  Slot& slot() { return slot_; }

 private:
  std::weak_ptr<GitWorkspaceProvider> provider_;
  Slot slot_;
  std::string head_;
  std::string keep_dir_;
  bool healthy_ = true;
};

class GitWorkspaceProvider final : public WorkspaceProvider,
                                   public std::enable_shared_from_this<GitWorkspaceProvider> {
 public:
  explicit GitWorkspaceProvider(GitWorkspaceOptions o) : opt_(std::move(o)) {
    if (opt_.root.empty()) opt_.root = default_root();
    detail::forbid_git_discovery_below(opt_.root);
    // Only a pool folder that is ours and private is cleaned: another local user could pre-create
    // the predictable default path and plant lock and .repo files there.
    if (pool_is_private()) prune_leftovers();
  }

  ~GitWorkspaceProvider() override {
    std::lock_guard lock(mu_);
    for (auto& [repo, slots] : pool_)
      for (auto& s : slots) destroy(s);
  }

  std::string_view name() const override { return "git_workspace"; }

  Expected<std::unique_ptr<Workspace>> acquire(const RepairRequest& request, const CancelToken& cancel) override {
    std::error_code ec;
    fs::path repo = fs::canonical(request.repository, ec);
    if (ec) return fail(Errc::not_found, "repository " + request.repository + " does not exist");
    // The top level and the shared git directory (whose objects the workspace borrows), in one call.
    auto top = detail::git(repo, {"rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir"}, cancel);
    if (!top) return fail(Errc::not_found, request.repository + " is not a git repository");
    const std::string lines = detail::chomp(*top);
    const auto nl = lines.find('\n');
    if (nl == std::string::npos) return fail(Errc::not_found, request.repository + " has no work tree");
    repo = fs::path(lines.substr(0, nl));
    const fs::path common_dir = lines.substr(nl + 1);
    auto commit = detail::git(repo, {"rev-parse", "--verify", "--quiet", request.change.head_commit + "^{commit}"}, cancel);
    if (!commit)
      return fail(Errc::not_found, "head commit " + request.change.head_commit + " is not in " + repo.string());
    const std::string head = detail::chomp(*commit);

    std::optional<Slot> slot;
    {
      std::lock_guard lock(mu_);
      auto& slots = pool_[repo.string()];
      // A slot the same change used last keeps its build folder warm; any other is reset fully.
      auto same = std::find_if(slots.begin(), slots.end(), [&](const Slot& s) { return s.change == request.change.id; });
      if (same == slots.end() && !slots.empty()) same = std::prev(slots.end());
      if (same != slots.end()) {
        slot = std::move(*same);
        slots.erase(same);
      }
    }
    std::unique_ptr<GitWorkspace> ws;
    if (slot) {
      const bool same_change = !slot->change.empty() && slot->change == request.change.id;
      slot->change = request.change.id;
      ws = std::make_unique<GitWorkspace>(weak_from_this(), std::move(*slot), head, opt_.keep_dir);
      if (auto r = ws->checkout(head, cancel, same_change); !r) return unexpected(r.error());
    } else {
      auto fresh = create(repo, common_dir, head, cancel);
      if (!fresh) return unexpected(fresh.error());
      fresh->change = request.change.id;
      ws = std::make_unique<GitWorkspace>(weak_from_this(), std::move(*fresh), head, opt_.keep_dir);
    }
    if (opt_.init_submodules && fs::exists(ws->root() / ".gitmodules")) {
      if (auto r = init_submodules(*ws, common_dir, cancel); !r) return unexpected(r.error());
    }
    return std::unique_ptr<Workspace>(std::move(ws));
  }

  /// Called by a workspace on destruction.
  void release(Slot slot) {
    std::unique_lock lock(mu_);
    auto& slots = pool_[slot.repo.string()];
    if (slots.size() < opt_.pool_per_repo) {
      slots.push_back(std::move(slot));
      return;
    }
    lock.unlock();
    destroy(slot);
  }

  static void destroy(Slot& slot) {
    remove_workspace(slot.repo, slot.dir);
    std::error_code ec;
    fs::remove(slot.dir.string() + ".lock", ec);
    fs::remove(slot.dir.string() + ".repo", ec);
    if (slot.lock_fd >= 0) ::close(slot.lock_fd);
    slot.lock_fd = -1;
  }

 private:
  /// A new workspace: `<dir>.git`, a repository of its own whose object store borrows the
  /// developer's objects read-only (objects/info/alternates; new objects land in `<dir>.git`), and
  /// the tree `<dir>` checked out from it with no `.git` entry. Nothing is written to the
  /// developer's repository (no worktree registration, no refs, no config).
  Expected<Slot> create(const fs::path& repo, const fs::path& common_dir, const std::string& head,
                        const CancelToken& cancel) {
    const fs::path base = opt_.root / hex(std::hash<std::string>{}(repo.string()));
    if (opt_.root == default_root())  // /tmp/flowagent-<uid>: its parent is predictable too
      if (auto ok = private_dir(opt_.root.parent_path()); !ok) return unexpected(ok.error());
    if (auto ok = private_dir(opt_.root); !ok) return unexpected(ok.error());
    if (auto ok = private_dir(base); !ok) return unexpected(ok.error());
    std::error_code ec;
    std::random_device rd;
    Slot slot;
    slot.repo = repo;
    slot.dir = base / ("wt-" + hex((static_cast<std::uint64_t>(rd()) << 32) | rd()));
    slot.git_dir = slot.dir.string() + ".git";
    const std::string lock_path = slot.dir.string() + ".lock";
    slot.lock_fd = ::open(lock_path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (slot.lock_fd < 0 || ::flock(slot.lock_fd, LOCK_EX | LOCK_NB) != 0) {
      if (slot.lock_fd >= 0) ::close(slot.lock_fd);
      return fail(Errc::io, "cannot lock " + lock_path);
    }
    auto failed = [&](Error e) -> Expected<Slot> {
      destroy(slot);
      return unexpected(std::move(e));
    };
    if (!write_text(slot.dir.string() + ".repo", repo.string())) return failed(Error{Errc::io, "cannot write " + slot.dir.string() + ".repo"});
    fs::create_directories(slot.dir, ec);
    if (ec) return failed(Error{Errc::io, "cannot create " + slot.dir.string() + ": " + ec.message()});
    if (auto r = detail::git(base, {"init", "-q", "--bare", "--template=", slot.git_dir.string()}, cancel); !r)
      return failed(r.error());
    fs::create_directories(slot.git_dir / "objects" / "info", ec);
    fs::create_directories(slot.git_dir / "info", ec);
    if (!write_text(slot.git_dir / "objects" / "info" / "alternates", (common_dir / "objects").string() + "\n") ||
        !write_text(slot.git_dir / "info" / "attributes", detail::kNeutralAttributes))
      return failed(Error{Errc::io, "cannot write the metadata of " + slot.git_dir.string()});
    if (fs::exists(common_dir / "shallow", ec)) fs::copy_file(common_dir / "shallow", slot.git_dir / "shallow", ec);
    if (auto r = detail::git(detail::GitRepo(slot.git_dir, slot.dir), {"config", "core.bare", "false"}, cancel); !r)
      return failed(r.error());
    slot.dir = fs::canonical(slot.dir, ec);
    if (!ec) slot.git_dir = fs::canonical(slot.git_dir, ec);
    if (ec) return failed(Error{Errc::io, "cannot resolve " + slot.dir.string() + ": " + ec.message()});
    if (auto r = detail::git(detail::GitRepo(slot.git_dir, slot.dir), {"checkout", "-q", "--force", "--detach", head},
                             cancel, std::chrono::minutes(30));
        !r)
      return failed(r.error());
    return slot;
  }

  /// Submodules: each is cloned into the workspace's git directory (modules/<name>), from the
  /// developer's own submodule repository when it has one (no network), else from the URL in
  /// .gitmodules when it is a local path (other transports are refused by the hardened config).
  Expected<void> init_submodules(GitWorkspace& ws, const fs::path& common_dir, const CancelToken& cancel) {
    auto repo = ws.repo();
    if (auto r = detail::git(repo, {"submodule", "init", "-q"}, cancel); !r) return unexpected(r.error());
    auto names = detail::git_result(repo, {"config", "--get-regexp", "^submodule\\..*\\.url$"}, cancel);
    if (!names) return unexpected(names.error());
    std::istringstream lines(names->output);
    std::string line;
    while (std::getline(lines, line)) {
      auto sp = line.find(' ');
      if (sp == std::string::npos || sp < 14) continue;
      const std::string key = line.substr(0, sp);
      const std::string name = key.substr(10, key.size() - 10 - 4);  // submodule.<name>.url
      std::error_code ec;
      const fs::path local = common_dir / "modules" / name;
      const std::string sub = "submodule." + name;
      if (name.find("..") == std::string::npos && fs::is_directory(local / "objects", ec)) {
        if (auto r = detail::git(repo, {"config", key, local.string()}, cancel); !r) return unexpected(r.error());
      } else if (auto r = detail::git(repo, {"config", sub + ".update", "none"}, cancel); !r) {
        // The URL comes from the change's .gitmodules: it could name any repository on the machine.
        // Only the developer's own submodule clones are used; others stay empty.
        return unexpected(r.error());
      }
    }
    // Not --recursive: nested .gitmodules URLs are not rewritten to the developer's clones.
    if (auto r = detail::git(repo, {"submodule", "update", "--init", "--force"}, cancel); !r)
      return unexpected(r.error());
    return {};
  }

  /// Is the pool folder (and, for the default path under /tmp, its parent) a real directory owned
  /// by us? It is made private (0700) on the way, as create() does.
  bool pool_is_private() const {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(opt_.root, ec))) return false;  // nothing to prune
    if (opt_.root == default_root() && !private_dir(opt_.root.parent_path())) return false;
    return static_cast<bool>(private_dir(opt_.root));
  }

  /// Workspaces whose lock nobody holds belong to a process that died: remove them.
  void prune_leftovers() {
    std::error_code ec;
    if (!fs::exists(opt_.root, ec)) return;
    for (const auto& repo_dir : fs::directory_iterator(opt_.root, ec)) {
      std::error_code ec2;
      for (const auto& entry : fs::directory_iterator(repo_dir.path(), ec2)) {
        const auto p = entry.path();
        if (p.extension() != ".lock") continue;
        int fd = ::open(p.c_str(), O_RDWR | O_CLOEXEC);
        if (fd < 0) continue;
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
          ::close(fd);
          continue;  // alive in another process
        }
        Slot s;
        s.dir = p;
        s.dir.replace_extension();
        s.git_dir = s.dir.string() + ".git";
        std::ifstream in(s.dir.string() + ".repo");
        std::string repo;
        std::getline(in, repo);
        s.repo = repo;
        s.lock_fd = fd;
        destroy(s);
      }
    }
  }

  GitWorkspaceOptions opt_;
  std::mutex mu_;
  std::map<std::string, std::vector<Slot>> pool_;
};

GitWorkspace::~GitWorkspace() {
  auto p = provider_.lock();
  if (p && healthy_) p->release(std::move(slot_));
  else GitWorkspaceProvider::destroy(slot_);
}

}  // namespace

std::shared_ptr<WorkspaceProvider> make_git_workspace_provider(GitWorkspaceOptions options) {
  return std::make_shared<GitWorkspaceProvider>(std::move(options));
}

}  // namespace flowagent
