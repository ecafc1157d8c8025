// Detached git worktrees with a warm pool and crash-safe cleanup (flock'ed lock files).
#include "flowagent/git_workspace.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <sstream>

#include "workspace/git.hpp"

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

/// Removes a worktree directory and its registration in the repository. Best effort.
void remove_worktree(const fs::path& repo, const fs::path& dir) {
  if (!repo.empty()) (void)detail::git(repo, {"worktree", "remove", "--force", "--force", dir.string()});
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (!repo.empty()) (void)detail::git(repo, {"worktree", "prune"});
}

class GitWorkspaceProvider;

struct Slot {
  fs::path dir;
  fs::path repo;
  int lock_fd = -1;
};

class GitWorkspace final : public Workspace {
 public:
  GitWorkspace(std::weak_ptr<GitWorkspaceProvider> provider, Slot slot, std::string head, std::string keep_dir)
      : provider_(std::move(provider)), slot_(std::move(slot)), head_(std::move(head)), keep_dir_(std::move(keep_dir)) {}
  ~GitWorkspace() override;

  const fs::path& root() const override { return slot_.dir; }
  const std::string& head_commit() const override { return head_; }

  Expected<std::string> diff() override {
    // Tracked changes (edits, deletions) plus files the tools created (intent-to-add); build and test
    // artifacts that are not ignored never enter a patch.
    if (auto r = detail::git(slot_.dir, {"add", "-u", "--", "."}); !r) return unexpected(r.error());
    return detail::git(slot_.dir, {"diff", "--cached", "--full-index", "--binary", "--no-color", "--no-ext-diff",
                                   "--no-renames", head_});
  }

  Expected<void> reset() override { return checkout(head_); }

  Expected<void> track_new_file(std::string_view path) override {
    auto r = detail::git(slot_.dir, {"add", "--intent-to-add", "--", std::string(path)});
    if (!r) return unexpected(r.error());
    return {};
  }

  Expected<void> make_pristine() override {
    if (auto r = checkout(head_); !r) return r;
    if (auto r = detail::git(slot_.dir, {"clean", "-q", "-ffdx"}); !r) return unexpected(r.error());
    auto status = detail::git(slot_.dir, {"status", "--porcelain", "--ignored", "--untracked-files=all"});
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
    auto r = detail::git_result(slot_.dir, {"apply", "--index", "--binary", "--whitespace=nowarn", file.string()});
    std::error_code ec;
    fs::remove(file, ec);
    if (!r) return unexpected(r.error());
    if (r->exit_code != 0) return fail(Errc::conflict, "the patch does not apply: " + r->output.substr(0, 2000));
    return {};
  }

  Expected<void> checkout(const std::string& commit, const CancelToken& cancel = CancelToken()) {
    if (auto r = detail::git(slot_.dir, {"checkout", "-q", "--force", "--detach", commit}, cancel); !r)
      return unexpected(r.error());
    if (auto r = detail::git(slot_.dir, {"reset", "-q", "--hard", commit}, cancel); !r) return unexpected(r.error());
    std::vector<std::string> clean = {"clean", "-q", "-ffdx"};
    if (!keep_dir_.empty()) clean.insert(clean.end(), {"-e", "/" + keep_dir_ + "/"});
    if (auto r = detail::git(slot_.dir, clean, cancel); !r) return unexpected(r.error());
    head_ = commit;
    return {};
  }

  Slot& slot() { return slot_; }

 private:
  std::weak_ptr<GitWorkspaceProvider> provider_;
  Slot slot_;
  std::string head_;
  std::string keep_dir_;
};

class GitWorkspaceProvider final : public WorkspaceProvider,
                                   public std::enable_shared_from_this<GitWorkspaceProvider> {
 public:
  explicit GitWorkspaceProvider(GitWorkspaceOptions o) : opt_(std::move(o)) {
    if (opt_.root.empty()) opt_.root = default_root();
    prune_leftovers();
  }

  ~GitWorkspaceProvider() override {
    std::lock_guard lock(mu_);
    for (auto& [repo, slots] : pool_)
      for (auto& s : slots) destroy(s);
  }

  std::string_view name() const override { return "git_worktree"; }

  Expected<std::unique_ptr<Workspace>> acquire(const RepairRequest& request, const CancelToken& cancel) override {
    std::error_code ec;
    fs::path repo = fs::canonical(request.repository, ec);
    if (ec) return fail(Errc::not_found, "repository " + request.repository + " does not exist");
    auto top = detail::git(repo, {"rev-parse", "--show-toplevel"}, cancel);
    if (!top) return fail(Errc::not_found, request.repository + " is not a git repository");
    repo = fs::path(detail::chomp(*top));
    auto commit = detail::git(repo, {"rev-parse", "--verify", "--quiet", request.change.head_commit + "^{commit}"}, cancel);
    if (!commit)
      return fail(Errc::not_found, "head commit " + request.change.head_commit + " is not in " + repo.string());
    const std::string head = detail::chomp(*commit);

    std::optional<Slot> slot;
    {
      std::lock_guard lock(mu_);
      auto& slots = pool_[repo.string()];
      if (!slots.empty()) {
        slot = std::move(slots.back());
        slots.pop_back();
      }
    }
    std::unique_ptr<GitWorkspace> ws;
    if (slot) {
      ws = std::make_unique<GitWorkspace>(weak_from_this(), std::move(*slot), head, opt_.keep_dir);
      if (auto r = ws->checkout(head, cancel); !r) return unexpected(r.error());
    } else {
      auto fresh = create(repo, head, cancel);
      if (!fresh) return unexpected(fresh.error());
      ws = std::make_unique<GitWorkspace>(weak_from_this(), std::move(*fresh), head, opt_.keep_dir);
    }
    if (opt_.init_submodules && fs::exists(ws->root() / ".gitmodules")) {
      if (auto r = detail::git(ws->root(), {"submodule", "update", "--init", "--recursive", "--force"}, cancel); !r)
        return unexpected(r.error());
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
    remove_worktree(slot.repo, slot.dir);
    std::error_code ec;
    fs::remove(slot.dir.string() + ".lock", ec);
    fs::remove(slot.dir.string() + ".repo", ec);
    if (slot.lock_fd >= 0) ::close(slot.lock_fd);
    slot.lock_fd = -1;
  }

 private:
  Expected<Slot> create(const fs::path& repo, const std::string& head, const CancelToken& cancel) {
    const fs::path base = opt_.root / hex(std::hash<std::string>{}(repo.string()));
    std::error_code ec;
    fs::create_directories(base, ec);
    if (ec) return fail(Errc::io, "cannot create " + base.string() + ": " + ec.message());
    std::random_device rd;
    Slot slot;
    slot.repo = repo;
    slot.dir = base / ("wt-" + hex((static_cast<std::uint64_t>(rd()) << 32) | rd()));
    const std::string lock_path = slot.dir.string() + ".lock";
    slot.lock_fd = ::open(lock_path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (slot.lock_fd < 0 || ::flock(slot.lock_fd, LOCK_EX | LOCK_NB) != 0) {
      if (slot.lock_fd >= 0) ::close(slot.lock_fd);
      return fail(Errc::io, "cannot lock " + lock_path);
    }
    {
      std::ofstream(slot.dir.string() + ".repo") << repo.string();
    }
    auto r = detail::git(repo, {"worktree", "add", "--detach", "--force", "-q", slot.dir.string(), head}, cancel,
                         std::chrono::minutes(30));
    if (!r) {
      destroy(slot);
      return unexpected(r.error());
    }
    slot.dir = fs::canonical(slot.dir);
    return slot;
  }

  /// Worktrees whose lock nobody holds belong to a process that died: remove them.
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
  if (auto p = provider_.lock()) p->release(std::move(slot_));
  else GitWorkspaceProvider::destroy(slot_);
}

}  // namespace

std::shared_ptr<WorkspaceProvider> make_git_workspace_provider(GitWorkspaceOptions options) {
  return std::make_shared<GitWorkspaceProvider>(std::move(options));
}

}  // namespace flowagent
