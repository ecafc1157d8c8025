// flowagent/integrity.hpp: the trust layer. A deterministic test-integrity guard and revert
// detection. (The zero-token strategy moved to flowagent/zero_token.hpp, included here.)
//
// The guard decides from the code, not from a model, whether a candidate patch cheats: it parses
// the before and after versions of every touched file with tree-sitter (Python, Java, Kotlin, C/C++,
// JavaScript, TypeScript, TSX, Go, Rust), finds the tests, their skip markers and their assertions,
// scores what each test checks and compares them; it also reads the runners' hooks and
// configuration, shadowing modules, diff attributes and production code that detects a test run.
// Every rule and reason code: docs/INTEGRITY.md.
// [Threading] reentrant. [Errors] none; it fails closed: test code in a language without a grammar
// (`unsupported_language`) or that does not parse (`parse_error`) is a finding, never a pass.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flowagent/filters.hpp"
#include "flowagent/strategy.hpp"
#include "flowagent/zero_token.hpp"  // make_expectation_update_strategy (moved; kept reachable from here)

namespace flowagent {

/// A file touched by a candidate patch: its content at the change head and after the patch.
struct FileVersions {
  std::string path;
  std::optional<std::string> before;  ///< nullopt: the patch creates the file
  std::optional<std::string> after;   ///< nullopt: the patch deletes the file
};

struct IntegrityFinding {
  std::string rule;     ///< a reason code of docs/INTEGRITY.md: "skip_added", "focus_added", "test_deleted",
                        ///< "test_commented_out", "assertion_removed", "assertion_weakened",
                        ///< "assertion_swallowed", "collection_disabled", "build_tag_added", "runner_hook",
                        ///< "runner_config_exclusion", "shadow_module", "diff_attributes",
                        ///< "test_detection_in_code", "runner_terminated", "report_tampered",
                        ///< "mocked_code_under_test",
                        ///< "unsupported_language", "parse_error" (also: the files could not be
                        ///< read with the rules' patterns, path ""), "cancelled" (IntegrityOptions::
                        ///< cancelled stopped the guard, path "")
  std::string path;
  int line = 0;         ///< in the after version (before version for deletions and removed lines); 0: the whole file
  std::string message;
};

struct IntegrityOptions {
  std::vector<std::string> failing_tests;  ///< the request's failing tests (skips on them are never honest)
  /// The developer's change (base -> head) file by file: names its production files define are
  /// code under test (mocked_code_under_test). Optional.
  std::vector<FileVersions> change_files;
  /// Every file path of the project at the head: tells project modules from third-party ones.
  /// Optional; without it only the change's and the patch's files are known to be the project's.
  std::vector<std::string> project_files;
  /// Reads a file of the project at the head (nullopt: absent or unreadable). Optional; with it the
  /// guard follows the failing tests' imports (any depth, at most 400 files and 16 MiB read;
  /// docs/INTEGRITY.md lists the import forms of each language) to the helper modules the patch
  /// touches, whose skips, stand-ins, assertion patches and printed TAP count as test code; it also
  /// reads go.mod, package.json, tsconfig.json/jsconfig.json and jest.config.* at the root to
  /// resolve imports. Called during check_test_integrity only, one call at a time, while its
  /// caller waits (on the thread the rules run on: see check_test_integrity).
  std::function<std::optional<std::string>(const std::string& path)> read_head_file;
  /// Production functions, methods and classes the developer's change renamed (old name -> new
  /// name: a definition removed and one added in the same hunk, or names equal but for case and
  /// underscores, the old one no longer defined in that file). The old versions of test files are
  /// read with the old names spelled the new way, so a test updated to call the renamed API
  /// (`Version.isvalid` -> `Version.is_valid`) keeps its checks. Only the change's renames count,
  /// never the patch's. Optional; add_repository_context fills it from base..head.
  std::map<std::string, std::string> renamed;
  /// Polled while the guard walks the files' syntax trees (every few thousand nodes: a developer's
  /// multi-megabyte test file takes seconds). When it answers true the guard stops and
  /// check_test_integrity returns the one finding "cancelled" (path ""): the patch is not judged,
  /// never passed. Optional; called on the thread the rules run on (see check_test_integrity).
  std::function<bool()> cancelled;
};

/// Every finding for the candidate; empty means the patch does not cheat. The rules match
/// patterns over whole files and walk their syntax trees recursively, which deeply nested code in
/// the developer's files would take past a thread's stack: they run on a thread of the library's
/// own with a 1 GiB stack (reserved address space) while the calling thread waits, unless the
/// caller is one.
/// Thread-safe.
std::vector<IntegrityFinding> check_test_integrity(const std::vector<FileVersions>& files,
                                                   const IntegrityOptions& options = {});

/// Fills the project context of `options` from the git repository at `repo` (a directory inside its
/// work tree; the repository is only read): `project_files` (every file of `head`), `read_head_file`
/// (reads files of `head`; it keeps its own copy of `repo` and `head`, so it outlives the call) and,
/// when `base` is not empty, `change_files` (the production files of base..head at `head`). With it
/// the guard follows the tests' imports to the helper modules they use, as the post-filter does;
/// without it only the patch's own files are read. [Threading] reentrant. [Errors] Errc::invalid_argument
/// for a revision that starts with '-'; Errc::not_found when `repo` is not a repository or `head`
/// (empty: HEAD) or `base` names no commit; Errc::process for other git failures.
Expected<void> add_repository_context(IntegrityOptions& options, const std::filesystem::path& repo,
                                      const std::string& head, const std::string& base = "");

/// Reads the touched files' before and after versions for `patch` from the workspace's object
/// store, by the blob ids the patch names (a side without an id: `git show head:path`, or the
/// working tree for the new side). A side that cannot be read is an error, never "absent".
Expected<std::vector<FileVersions>> file_versions_from_workspace(Workspace& workspace, const Patch& patch);

/// Post-filter "integrity_*": rejects a candidate with findings (reason "integrity_<rule>"); without
/// a workspace to read the files from it rejects with "integrity_unverifiable" (fail closed).
std::shared_ptr<PostFilter> make_integrity_filter();

/// A line of the fix that replaces a line the developer added counts as a correction (not a revert)
/// when the two share more than this Dice coefficient of tokens and it is not base content.
inline constexpr double kCorrectionSimilarity = 0.5;

/// How much of the developer's change a fix undoes. A revert restores base content: a line the
/// developer added that the fix removes with nothing resembling it in its place (or with base
/// content in its place), and a line the developer removed that the fix brings back (compared with
/// whitespace and trailing `#`/`//` comments ignored). A developer's new line the fix changes into
/// a similar line that is not base content is a correction (`corrected_lines`), not a revert.
struct RevertReport {
  double share = 0;                       ///< reverted / changed lines of the developer's change
  std::size_t reverted_lines = 0, changed_lines = 0;
  std::size_t corrected_lines = 0;        ///< the developer's new lines the fix corrected
  std::vector<std::string> hunks;         ///< "path: -added line" / "path: +restored line" samples
};
RevertReport measure_revert(const Patch& change, const Patch& patch);

/// Post-filter "reverts_change": rejects when measure_revert(...).share > threshold (default 0.5:
/// most). When the developer's change could not be read (PostFilterInput::change is null) it
/// rejects with "reverts_change_unverifiable" (fail closed).
std::shared_ptr<PostFilter> make_revert_filter(double threshold = 0.5);

/// True for paths that hold tests by convention (tests/, test_*.py, *_test.go, *.test.ts, ...).
bool is_test_path(std::string_view path);

}  // namespace flowagent
