// flowagent/overfit.hpp: the overfitting detector. A deterministic check of the production-code
// part of a candidate patch for fixes that make the failing tests pass without fixing the bug.
//
// Rules (reason codes "overfitting_<rule>", docs/INTEGRITY.md):
//   special_cased_test_value   a new if/elif/switch/case/ternary/match condition compares with a
//                              literal taken from a failing test's source
//   hardcoded_expected_output  a new `return <literal>` whose literal is one of the failing test's values
//   exception_swallowed        a new catch/except handler that neither re-raises nor does work
//                              (empty, pass, return of a constant, logging only)
//   functionality_removed      a function the failing tests do not name was deleted, or its body
//                              was replaced by a stub
//   check_disabled             a constant-false (or constant-true if) condition, `#if 0`, an
//                              unconditional early return at the top of a function, a boolean
//                              flag flipped from true to false, a check commented out
//   unreadable                 the files could not be read with the detector's patterns (one built
//                              from their text too large for the regex engine): not judged, so rejected
// Syntactic rules use the tree-sitter grammars of Python, JavaScript/TypeScript and C++; the
// textual rules (`#if 0`, flags, commented-out checks) apply to every language. Test files
// (is_test_path) are the integrity guard's business and are skipped here.
// [Threading] reentrant. [Errors] check_overfitting has none (unparsable input falls back to the
// textual rules); overfit_input_from_workspace fails only when the workspace cannot be read.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "flowagent/filters.hpp"
#include "flowagent/integrity.hpp"

namespace flowagent {

struct OverfitFinding {
  std::string rule;  ///< see above
  std::string path;
  int line = 0;      ///< in the after version (before version for deletions)
  std::string message;
};

struct OverfitInput {
  std::vector<FileVersions> files;         ///< the candidate patch's files, before and after
  std::vector<FileVersions> test_sources;  ///< files defining the failing tests (`after` is read)
  std::vector<std::string> failing_tests;  ///< the request's failing test ids
};

/// Every finding; empty means the production code does not overfit the failing tests. Runs on a
/// deep-stack thread of the library's own while the caller waits (see check_test_integrity).
std::vector<OverfitFinding> check_overfitting(const OverfitInput& input);

/// The literals (strings unquoted, numbers as written without suffixes) of the failing tests'
/// bodies, trivial ones (0, 1, -1, 2, strings shorter than 2) left out. Exposed for tests and tools.
std::vector<std::string> failing_test_literals(const OverfitInput& input);

/// Builds the input from a workspace: the patch's file versions, and the test files (tracked,
/// is_test_path) that name one of the failing tests (at most 20 files).
Expected<OverfitInput> overfit_input_from_workspace(Workspace& workspace, const RepairRequest& request,
                                                    const Patch& patch, const CancelToken& cancel);

/// "path:line [rule] message; ..." for rejections and for the model.
std::string format_overfit_findings(const std::vector<OverfitFinding>& findings);

/// Post-filter "overfitting": rejects a candidate with findings (reason "overfitting_<rule>" of the
/// first finding; the message lists them all).
std::shared_ptr<PostFilter> make_overfit_filter();

}  // namespace flowagent
