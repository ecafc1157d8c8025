// flowagent/git_workspace.hpp: the built-in WorkspaceProvider: private checkouts, pooled.
//
// acquire() checks out the change head under `root` as `<root>/<repo-hash>/wt-<id>` (the tree) with
// its git metadata in `wt-<id>.git` beside it (Workspace::git_dir()). That git directory is a
// repository of its own which borrows the developer's objects read-only through
// objects/info/alternates; the tree has no `.git` entry, and every git call passes
// --git-dir/--work-tree with a hardened configuration (docs/SECURITY.md, "Git metadata"). Nothing
// is written to the developer's repository: no worktree registration, refs, index or config (tests
// hash all of it). The developer's repository must keep the borrowed objects while a workspace
// uses them (a `git gc --prune=now` that drops the change head's objects would break the job).
// A released workspace goes back to a per-repository warm pool
// (reset to the next commit with `checkout --force` + `clean -ffdx`, keeping `keep_dir`, so builds
// stay incremental; `.git` entries planted in the tree are removed); beyond pool_per_repo it is
// removed. Workspaces left by a crashed process are found through their lock files (flock) and
// removed when the provider starts (also linked worktrees made by older versions).
// Submodules are initialised when the tree has a .gitmodules file: cloned into the workspace's git
// directory from the developer's own submodule repositories (.git/modules/<name>) when present,
// else from local-path URLs; network transports are refused.
//
// [Threading] acquire() is thread-safe. A Workspace is used by one job at a time.
// [Lifetime] Workspaces may outlive the provider (they then delete themselves on release).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "flowagent/workspace.hpp"

namespace flowagent {

struct GitWorkspaceOptions {
  std::filesystem::path root;     ///< default: $TMPDIR/flowagent-<uid>/workspaces
  std::string keep_dir = "build"; ///< ignored build directory kept across reuse ("" keeps nothing)
  std::size_t pool_per_repo = 2;  ///< idle workspaces kept per repository
  bool init_submodules = true;
};

std::shared_ptr<WorkspaceProvider> make_git_workspace_provider(GitWorkspaceOptions options = {});

}  // namespace flowagent
