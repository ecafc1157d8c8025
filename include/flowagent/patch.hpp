// flowagent/patch.hpp: a candidate fix as a value.
//
// A Patch is made once: from the workspace by git (src/workspace/git_patch.cpp, with attributes,
// textconv and external diff switched off), or from untrusted text by parse_patch() (a result
// document handed to publish/apply). Every consumer (post-filters, revert detection, the summarizer,
// delivery) reads this value; nothing else in flowagent parses unified diffs.
//
// Only regular files may be delivered: check_patch() refuses symlinks, gitlinks, other modes, type
// and mode-only changes, binary content, copies, and paths that leave the tree (reason codes in
// docs/SCHEMA.md, "Patch rules").
// [Threading] plain values; functions are reentrant.
// [Errors] parse_patch: Errc::protocol naming the line for text that is not a git diff.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flowagent/error.hpp"

namespace flowagent {

/// One line of a hunk.
struct PatchLine {
  char kind = ' ';          ///< ' ' context, '-' removed, '+' added
  std::string text;         ///< without the kind character and without the '\n'
  bool no_newline = false;  ///< followed by "\ No newline at end of file"
  int old_line = 0;         ///< 1-based line in the old file (context and '-'); 0 for '+'
  int new_line = 0;         ///< 1-based line in the new file (context and '+'); 0 for '-'
};

struct PatchHunk {
  int old_start = 0, old_count = 0;  ///< as in "@@ -old_start,old_count +new_start,new_count @@"
  int new_start = 0, new_count = 0;
  std::string section;  ///< text after the second "@@" (git's function context), without the leading space
  std::vector<PatchLine> lines;
};

enum class PatchStatus { added, modified, deleted, renamed };

/// Git file modes (octal values as git prints them).
inline constexpr std::uint32_t kModeRegular = 0100644;
inline constexpr std::uint32_t kModeExecutable = 0100755;
inline constexpr std::uint32_t kModeSymlink = 0120000;
inline constexpr std::uint32_t kModeGitlink = 0160000;

struct PatchFile {
  std::string old_path, new_path;  ///< repository-relative, unquoted; equal unless renamed
  std::uint32_t old_mode = 0;      ///< 0: absent (added file) or not stated
  std::uint32_t new_mode = 0;      ///< 0: absent (deleted file) or not stated
  PatchStatus status = PatchStatus::modified;
  std::string old_blob, new_blob;  ///< object ids from the "index" line ("" when absent)
  int similarity = 0;              ///< renames: "similarity index N%"
  bool is_text = true;             ///< false: a binary patch, "Binary files ... differ", or a NUL byte
  std::vector<PatchHunk> hunks;

  /// The path the file has after the patch (old_path for a deletion).
  const std::string& path() const { return status == PatchStatus::deleted ? old_path : new_path; }
};

struct Patch {
  std::vector<PatchFile> files;
  /// The canonical unified diff of `files` (render_patch), what `git apply` and people see.
  std::string text;

  bool empty() const { return files.empty(); }
};

/// Parses git's unified diff format ("diff --git" sections; extended headers; quoted paths;
/// "GIT binary patch" sections are recognised and marked binary). Hunk line counts must match.
/// The returned Patch's text is render_patch of what was parsed, not the input.
Expected<Patch> parse_patch(std::string_view text);

/// The canonical text of `files` in git's format (what `git diff --full-index` prints).
std::string render_patch(const std::vector<PatchFile>& files);
/// One file's header ("diff --git" up to "+++"), and one hunk, in the same format.
std::string render_file_header(const PatchFile& file);
std::string render_hunk(const PatchHunk& hunk);

/// Why a patch may not be delivered. `reason` is a stable code: "patch_symlink", "patch_gitlink",
/// "patch_mode" (another non-regular mode), "patch_mode_unstated" (no mode line: git apply would
/// take the type of whatever is in the tree), "patch_type_change", "patch_mode_change",
/// "patch_binary", "patch_path" (outside the tree, .git in any spelling the tools refuse, a control
/// character, or a file named twice), "patch_control_chars" (an added line holds a terminal control
/// character other than tab, form feed, vertical tab or a line-ending carriage return),
/// "patch_long_line" (an added line of a source or configuration file is over 16 KiB),
/// "patch_too_large" (more than 256 KiB added to source and configuration files in all).
struct PatchProblem {
  std::string reason;
  std::string path;
  std::string message;
};

/// Every problem of `patch` (empty: only regular text files inside the tree, content changes or
/// additions/deletions/renames of regular files; an executable bit may be set on a new file).
std::vector<PatchProblem> check_patch(const Patch& patch);

/// True when `content` would be binary to git (a NUL byte in its first 8000 bytes).
bool looks_binary(std::string_view content) noexcept;

}  // namespace flowagent
