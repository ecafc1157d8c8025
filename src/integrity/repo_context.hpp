// Internal: the project context the test-integrity guard reads beside the patch's own files (the
// developer's change, the project's file list, files at the head), taken from a git repository.
// One place for the post-filter, `flowagent guard` and fa_integrity_check, so that all three
// follow the tests' helper modules the same way.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "flowagent/error.hpp"
#include "flowagent/integrity.hpp"
#include "flowagent/patch.hpp"
#include "workspace/git.hpp"

namespace flowagent::detail {

/// Production files of the developer's change read for the mock rule, at most.
inline constexpr std::size_t kChangeFilesRead = 200;

/// Fills `o.project_files` (every file of `head`), `o.read_head_file` (reads `head`; the function
/// keeps its own copy of `repo` and `head`, so it outlives the caller's variables) and, when
/// `change` is given, `o.change_files` (the change's production files at `head`, at most
/// kChangeFilesRead; a file that cannot be read only leaves its names unknown).
/// [Errors] git errors listing `head`'s files (an unknown revision, not a repository).
Expected<void> add_repo_context(IntegrityOptions& o, const GitRepo& repo, const std::string& head, const Patch* change);

/// The production definitions `change` renamed (IntegrityOptions::renamed): per hunk, a definition
/// removed and one added (the only ones, or names equal but for case and underscores), when the
/// old name is no longer defined in the file at the head (`head_files`: the change's files there).
std::map<std::string, std::string> change_renames(const Patch& change, const std::vector<FileVersions>& head_files);

}  // namespace flowagent::detail
