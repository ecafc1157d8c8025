// Internal: the one way flowagent turns git state into a Patch (candidate fixes and the
// developer's change alike).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "flowagent/cancel.hpp"
#include "flowagent/error.hpp"
#include "flowagent/patch.hpp"
#include "workspace/git.hpp"

namespace flowagent::detail {

/// `git diff <revs>` in `dir` with everything that could change or hide content switched off:
/// --text (a `binary`/`-diff` attribute cannot turn a change into "Binary files differ"),
/// --no-textconv, --no-ext-diff, --no-renames, --full-index, fixed a/ b/ prefixes, 3 lines of
/// context, --submodule=short, and config that could reshape the output (noprefix, relative,
/// context, suppressBlankEmpty, color) pinned. The output is parsed by parse_patch. With
/// `check_blobs`, each side of each regular file is read back from the object store and a file
/// git would consider binary (a NUL in its first 8000 bytes) is marked is_text = false.
/// [Errors] Errc::process when git fails, Errc::protocol when its output does not parse.
Expected<Patch> git_patch(const GitRepo& repo, const std::vector<std::string>& revs, bool check_blobs,
                          const CancelToken& cancel = CancelToken());

}  // namespace flowagent::detail
