// flowagent/git_workspace.hpp: the built-in WorkspaceProvider: detached git worktrees, pooled.
//
// acquire() checks out the change head as a detached worktree of the request's repository under
// `root`. The developer's working tree and index are never written (git only adds worktree
// metadata under .git/worktrees). A released workspace goes back to a per-repository warm pool
// (reset to the next commit with `checkout --force` + `clean -ffdx`, keeping `keep_dir`, so builds
// stay incremental); beyond pool_per_repo it is removed. Worktrees left by a crashed process are
// found through their lock files (flock) and removed when the provider starts.
// Submodules are initialised when the tree has a .gitmodules file.
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
  std::size_t pool_per_repo = 2;  ///< idle worktrees kept per repository
  bool init_submodules = true;
};

std::shared_ptr<WorkspaceProvider> make_git_workspace_provider(GitWorkspaceOptions options = {});

}  // namespace flowagent
