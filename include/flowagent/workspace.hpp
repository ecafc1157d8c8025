// flowagent/workspace.hpp: the sandbox a repair works in.
//
// A Workspace is a private checkout of the change head (from a warm pool). The built-in provider
// keeps the checkout's git metadata in git_dir(), beside and never inside root(): the tree holds no
// `.git` entry, and flowagent runs git with explicit --git-dir/--work-tree, so nothing written into
// the tree (by a tool or by a test) can redirect git. Tools may only touch paths inside root() and
// refuse `.git` components; the developer's repository is never written.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "flowagent/cancel.hpp"
#include "flowagent/error.hpp"
#include "flowagent/request.hpp"

namespace flowagent {

/// [Threading] One job uses a workspace at a time; methods are not thread-safe.
/// [Lifetime] Destroying the workspace returns it to its provider (cleaned) or removes it.
class Workspace {
 public:
  virtual ~Workspace() = default;
  /// Absolute, canonical root of the checkout.
  virtual const std::filesystem::path& root() const = 0;
  /// The checkout's git directory, outside root(). Empty (the default, for host workspaces) means
  /// the git metadata is found inside root() the usual way. flowagent's own git calls on the
  /// workspace use it with --git-dir/--work-tree and a hardened configuration (docs/SECURITY.md).
  virtual std::filesystem::path git_dir() const { return {}; }
  /// Commit the workspace was checked out at (the change head).
  virtual const std::string& head_commit() const = 0;
  /// The current edits as a git diff against head_commit(), produced by git (never by a model):
  /// changes to tracked files and new files registered with track_new_file(); other untracked files
  /// (build and test artifacts) are left out. Empty string when nothing changed.
  virtual Expected<std::string> diff() = 0;
  /// Discards every edit: back to head_commit(), untracked files removed (ignored build dir kept).
  virtual Expected<void> reset() = 0;
  /// Marks a file a tool created as part of the candidate (it then appears in diff()).
  virtual Expected<void> track_new_file(std::string_view path) {
    (void)path;
    return {};
  }
  /// Back to head_commit() with nothing else in the tree: every untracked and ignored file is
  /// removed, build directories and caches included (the validation's fresh checkout).
  /// Errc::unsupported when the workspace cannot guarantee it.
  virtual Expected<void> make_pristine() { return fail(Errc::unsupported, "this workspace cannot be made pristine"); }
  /// Applies `patch`, a diff() of a workspace at the same head_commit(), so that diff() here then
  /// returns the same text. Errc::conflict when it does not apply; Errc::unsupported by default.
  virtual Expected<void> apply_patch(std::string_view patch) {
    (void)patch;
    return fail(Errc::unsupported, "this workspace cannot apply a patch");
  }
};

/// [Threading] acquire() may be called concurrently from several jobs.
/// [Errors] Errc::io / Errc::process when git fails, Errc::not_found for an unknown commit,
/// Errc::cancelled when the token fires.
class WorkspaceProvider {
 public:
  virtual ~WorkspaceProvider() = default;
  virtual std::string_view name() const = 0;
  virtual Expected<std::unique_ptr<Workspace>> acquire(const RepairRequest& request,
                                                       const CancelToken& cancel) = 0;
};

}  // namespace flowagent
