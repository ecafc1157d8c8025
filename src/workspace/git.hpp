// Internal: running git without a shell, in a hardened, fixed configuration.
//
// Every git process flowagent starts gets the same configuration, whatever the repository, the
// host user's files or the work tree contain:
// - system and global configuration are ignored (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null,
//   GIT_ATTR_NOSYSTEM, HOME pointing nowhere, core.attributesFile/core.excludesFile=/dev/null);
// - command-line settings (highest precedence, inherited by git's own child processes through
//   GIT_CONFIG_PARAMETERS) switch off every way a repository's configuration can make git run a
//   program: core.fsmonitor, hooks (core.hooksPath=/dev/null), core.sshCommand, credential
//   helpers, diff.external, the pager and editors, gpg, log.showSignature; transports other than
//   local files are refused (protocol.allow=never, protocol.file.allow=always);
// - the environment is built from scratch (PATH, TMPDIR only), so GIT_DIR, GIT_WORK_TREE,
//   GIT_CONFIG_*, GIT_EXTERNAL_DIFF etc. of flowagent's own environment never reach git.
// A workspace repository (GitRepo::git_dir set) is addressed with --git-dir/--work-tree: git never
// looks for a `.git` entry in the work tree, so nothing written into the tree can redirect it.
// Its info/attributes (see kNeutralAttributes) takes precedence over every .gitattributes in the
// tree and unsets filter/diff/merge/text/eol attributes, so no clean/smudge/process filter or
// textconv program runs and the diff shows the bytes as they are.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "flowagent/cancel.hpp"
#include "flowagent/error.hpp"
#include "flowagent/process.hpp"

namespace flowagent {
class Workspace;
}

namespace flowagent::detail {

/// Where a git command runs.
struct GitRepo {
  /// The developer's repository (or any directory inside it): `git -C dir`, git discovers the
  /// repository the usual way. Used for read-only queries of the developer's repository.
  GitRepo(const std::filesystem::path& d) : dir(d) {}  // NOLINT: implicit on purpose
  GitRepo(const char* d) : dir(d) {}                     // NOLINT
  GitRepo(const std::string& d) : dir(d) {}              // NOLINT
  /// An explicit git directory and work tree (a workspace): no discovery at all.
  GitRepo(std::filesystem::path git_dir_, std::filesystem::path work_tree_)
      : dir(work_tree_), git_dir(std::move(git_dir_)), work_tree(std::move(work_tree_)) {}

  std::filesystem::path dir;
  std::filesystem::path git_dir;
  std::filesystem::path work_tree;
  /// Extra environment for this call only (e.g. GIT_INDEX_FILE, author identity).
  std::map<std::string, std::string> env;
};

/// The repository of a workspace: its git_dir() and root() when it has a git dir, else its root
/// (a host workspace that keeps `.git` inside the tree).
GitRepo workspace_repo(const Workspace& ws);

/// Declares a directory that holds workspaces (a pool root). git discovery (a GitRepo without a
/// git_dir) inside any of its work trees (<root>/<repo>/wt-<id>/...) is refused with Errc::sandbox: test code can plant a `.git` in a
/// work tree, and a discovering git call would then read a hostile configuration outside the
/// sandbox. Workspace calls must use workspace_repo(). Thread-safe; roots are never removed.
void forbid_git_discovery_below(const std::filesystem::path& root);

/// Errc::sandbox when `repo` would make git discover a repository inside a workspace pool's work
/// tree (see forbid_git_discovery_below); every git call checks it first.
Expected<void> discovery_allowed(const GitRepo& repo);

/// `info/attributes` of every workspace repository.
extern const char* const kNeutralAttributes;

/// The fixed leading arguments of every git command (`-c` settings), exposed for tests.
const std::vector<std::string>& hardened_git_config();

/// Runs git in `repo`; returns stdout+stderr on exit 0, else Errc::process with the output.
Expected<std::string> git(const GitRepo& repo, const std::vector<std::string>& args,
                          const CancelToken& cancel = CancelToken(),
                          std::chrono::milliseconds timeout = std::chrono::minutes(5));

/// Like git() but returns the ProcessResult whatever the exit code.
Expected<ProcessResult> git_result(const GitRepo& repo, const std::vector<std::string>& args,
                                   const CancelToken& cancel = CancelToken(),
                                   std::chrono::milliseconds timeout = std::chrono::minutes(5));

/// Trims trailing newlines.
std::string chomp(std::string s);

}  // namespace flowagent::detail
