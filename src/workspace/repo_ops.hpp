// Internal: the named git operations the rest of flowagent needs, so that only src/workspace/
// runs git (through the hardened runner of git.hpp). Each takes the repository as a GitRepo: the
// developer's repository (read-only queries, discovery from a directory) or a workspace
// (workspace_repo(ws): explicit git dir and work tree).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "flowagent/cancel.hpp"
#include "flowagent/error.hpp"
#include "flowagent/request.hpp"
#include "workspace/git.hpp"

namespace flowagent::detail {

/// The full object id of the commit `rev` names. [Errors] Errc::not_found when it names none.
Expected<std::string> resolve_commit(const GitRepo& repo, const std::string& rev);

/// The top folder of the work tree that contains `dir`. [Errors] Errc::not_found outside a repository.
Expected<std::filesystem::path> repository_top(const std::filesystem::path& dir);

/// The content of blob `id` from the object store.
Expected<std::string> read_blob(const GitRepo& repo, const std::string& id, const CancelToken& cancel = CancelToken());

/// The content of `path` in commit `rev` (`git show rev:path`).
Expected<std::string> read_file_at(const GitRepo& repo, const std::string& rev, const std::string& path,
                                   const CancelToken& cancel = CancelToken());

/// Message and author of a commit.
struct CommitInfo {
  std::string message, author_name, author_email;
};
Expected<CommitInfo> commit_info(const GitRepo& repo, const std::string& rev);

/// Per-file line counts of base..head (binary files marked, counts 0).
Expected<std::vector<ChangedFile>> changed_files(const GitRepo& repo, const std::string& base, const std::string& head);

/// A commit object holding the unified diff in `patch_file` applied onto `base`, made with a
/// temporary index: the working tree, the index and the refs of the repository are untouched (the
/// new objects land in its object store). [Errors] Errc::conflict when the patch does not apply.
Expected<std::string> commit_patch(const GitRepo& repo, const std::string& base, const std::filesystem::path& patch_file,
                                   const std::string& message);

/// Whether `patch_file` applies to the work tree at `root` as it is (`git apply --check`).
Expected<bool> patch_applies(const std::filesystem::path& root, const std::filesystem::path& patch_file);
/// Applies `patch_file` to the work tree at `root` (`git apply`).
Expected<void> apply_patch(const std::filesystem::path& root, const std::filesystem::path& patch_file);

/// Three-way merge of three files (`git merge-file -p`): the merged text, or nullopt on a conflict.
Expected<std::optional<std::string>> merge_file(const std::filesystem::path& root, const std::filesystem::path& ours,
                                                const std::filesystem::path& base, const std::filesystem::path& theirs);

/// Tracked files whose path matches the pathspec `pattern` (`git ls-files -- pattern`).
Expected<std::vector<std::string>> tracked_files(const GitRepo& repo, const std::string& pattern,
                                                 const CancelToken& cancel = CancelToken());

/// Tracked and untracked, not ignored files of the work tree (`git ls-files --cached --others
/// --exclude-standard`), as git prints them (relative to the work tree).
Expected<std::vector<std::string>> work_tree_files(const GitRepo& repo, const CancelToken& cancel = CancelToken());

/// Every file of commit `rev` (`git ls-tree -r --name-only`).
Expected<std::vector<std::string>> commit_files(const GitRepo& repo, const std::string& rev,
                                                const CancelToken& cancel = CancelToken());

/// Files of commit `rev` that contain any of `needles` as a fixed string (`git grep -l -F`).
Expected<std::vector<std::string>> files_containing(const GitRepo& repo, const std::string& rev,
                                                    const std::vector<std::string>& needles,
                                                    const CancelToken& cancel = CancelToken());

}  // namespace flowagent::detail
