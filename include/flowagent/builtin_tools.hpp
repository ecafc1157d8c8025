// flowagent/builtin_tools.hpp: the tools the model works with.
//
// read_file, edit_file, write_file, delete_file, list_dir, search_code, build, run_tests, read_log.
// Every path is confined to the workspace (symlink-safe, race-free: see docs/ARCHITECTURE.md);
// build and run_tests run through run_sandboxed (flowagent/sandbox.hpp) with the request's timeout
// and ToolContext::sandbox; test ids from the model are checked with check_test_id first.
// [Threading] the tools are stateless (per-job state lives in ToolState) and serve concurrent jobs;
// search_code is reentrant. [Errors] problems the model can fix (a missing file, an ambiguous edit,
// a path outside the workspace) are ToolOutput{ok=false}; Errors are cancellation, timeouts and
// infrastructure failures.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "flowagent/tools.hpp"

namespace flowagent {

struct BuiltinToolOptions {
  std::uint64_t max_read_bytes = 2 << 20;    ///< files larger than this cannot be read whole
  std::uint64_t max_write_bytes = 1 << 20;   ///< content larger than this cannot be written
  std::size_t max_output_chars = 20000;      ///< tool output shown to the model is capped
  std::size_t max_list_entries = 500;
  std::size_t max_search_results = 200;
  int search_threads = 0;                    ///< 0: hardware concurrency
};

/// Registers the nine built-in tools. Fails when a name is already taken.
Expected<void> register_builtin_tools(ToolRegistry& registry, BuiltinToolOptions options = {});

/// search_code as a library call (also used by the benchmarks).
struct SearchOptions {
  std::string pattern;
  bool literal = false;
  bool ignore_case = false;
  std::string glob;          ///< fnmatch pattern on the repo-relative path ("*.cc", "src/**")
  int context = 0;           ///< lines before and after
  std::size_t max_results = 200;
  int threads = 0;
  /// The tree's git directory when it is kept outside `root` (Workspace::git_dir()); empty: git
  /// finds it from `root`.
  std::filesystem::path git_dir;
};
struct SearchHit {
  std::string path;
  int line;
  std::string text;                 ///< the matching line
  std::vector<std::string> before, after;
};
/// Files come from `git ls-files --cached --others --exclude-standard` (honours .gitignore; paths
/// with a `.git` component never appear); each is opened beneath `root` without leaving it (a
/// symlink that points outside is skipped); binary files are skipped; the regex engine is RE2
/// (linear time).
Expected<std::vector<SearchHit>> search_code(const std::filesystem::path& root, const SearchOptions& options,
                                             const CancelToken& cancel = CancelToken());

}  // namespace flowagent
