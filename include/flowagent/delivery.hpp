// flowagent/delivery.hpp: a fix in the formats review tools and IDEs read, and applying a fix to a
// working tree that has moved on.
//
// Coordinates (docs/DELIVERY.md): SARIF regions are 1-based with UTF-16 columns (columnKind
// utf16CodeUnits) and exclusive end columns; Gerrit ranges are 1-based lines with 0-based UTF-16
// character offsets, exclusive; GitHub suggestions are whole lines of the head (RIGHT) side;
// reviewdog rdjson is 1-based with UTF-8 byte columns, exclusive; LSP is 0-based with UTF-16
// characters by default or UTF-8 on request, exclusive.
// Only a fixed result is delivered: publish and apply_fix refuse any other status with
// Errc::not_fixed, and refuse a patch that is not regular text files inside the tree
// (deliverable_patch) before anything is written.
// [Threading] reentrant. [Errors] Errc::not_fixed for a result that is not fixed;
// Errc::invalid_argument for an unknown format or a result without a patch; Errc::protocol for a
// patch that cannot be parsed; Errc::sandbox for a patch that may not be delivered.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "flowagent/error.hpp"
#include "flowagent/patch.hpp"
#include "flowagent/result.hpp"

namespace flowagent {

/// One replacement, in the coordinates of the file at the change head (the patch's old side).
struct FixEdit {
  std::string path;
  int start_line = 1;  ///< first replaced line (1-based); for an insertion, the line it goes before
  int end_line = 0;    ///< last replaced line, inclusive; start_line - 1 for a pure insertion
  std::vector<std::string> old_lines, new_lines;
  bool intra_line = false;     ///< one line changed in place: the byte range below is exact
  std::size_t col_start = 0;   ///< byte offset of the replaced part in old_lines[0]
  std::size_t col_end = 0;     ///< exclusive
  std::string replacement;     ///< the new text of that part
  bool new_file = false, deleted_file = false;
};

/// The edits of a patch's text hunks (binary parts are skipped).
std::vector<FixEdit> fix_edits(const Patch& patch);
/// parse_patch + fix_edits.
Expected<std::vector<FixEdit>> parse_fix_edits(std::string_view patch);

/// The patch of a result that may be delivered, parsed by the one parser (flowagent/patch.hpp):
/// Errc::not_fixed unless status is fixed; Errc::invalid_argument for an empty patch;
/// Errc::protocol for text that is not a git diff; Errc::sandbox when check_patch finds a problem
/// (symlink, gitlink, other modes, type or mode change, binary content, a path outside the tree;
/// the message lists the reason codes). publish() and apply_fix() deliver only through it.
Expected<Patch> deliverable_patch(const RepairResult& result);

/// UTF-16 code units in the first `bytes` bytes of a UTF-8 line.
std::size_t utf16_column(std::string_view line, std::size_t bytes);

struct PublishOptions {
  std::string tool_name = "flowagent";
  std::string rule_id = "flowagent/test-fix";
  std::string change_diff;     ///< base..head of the change: GitHub suggestions must sit inside its hunks
  std::string uri_base;        ///< absolute repository root for LSP file URIs
  bool lsp_utf8 = false;       ///< LSP positionEncoding utf-8 instead of the default utf-16
};

/// Reads {"change_diff": string, "uri_base": string, "lsp_utf8": bool} (every member optional;
/// unknown members and wrong types are Errc::schema), as the C API and the bindings pass them.
Expected<PublishOptions> publish_options_from_json(std::string_view json_text);

/// Formats: "diff" (unified diff for git apply), "sarif" (2.1.0 with fixes), "gerrit" (ReviewInput
/// with fix_suggestions), "github" (pull-request review with suggestion blocks, falling back to a
/// diff in the review body), "rdjsonl" (reviewdog), "lsp" (CodeAction with a WorkspaceEdit).
Expected<std::string> publish(const RepairResult& result, std::string_view format, const PublishOptions& options = {});

/// What apply_fix did.
struct ApplyReport {
  bool applied = false;
  bool three_way = false;               ///< the tree had moved on; a three-way merge was needed
  std::vector<std::string> files;       ///< files written
  std::string message;
};

/// Applies result.patch (through deliverable_patch: fixed results only, regular files only) to the
/// working tree of `repo`. When the patch no longer applies as is, each file is merged three-way
/// (base: the file at the change head, ours: the working tree, theirs: the fixed file). On any
/// conflict nothing is written and Errc::conflict names the files; the tree is left exactly as it
/// was. A target that is not a regular file, or whose folder is reached through a symbolic link, is
/// refused (Errc::sandbox) before anything is written. The index is never touched.
Expected<ApplyReport> apply_fix(const std::filesystem::path& repo, const RepairResult& result);

}  // namespace flowagent
