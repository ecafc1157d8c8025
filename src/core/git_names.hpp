// One rule for names that denote git metadata, shared by the tools (workspace/sandbox_fs), code
// search and the patch check (a delivered patch must never write where the tools may not).
#pragma once

#include <string_view>

namespace flowagent::detail {

/// True when a path component would name git metadata: `.git` compared case-insensitively after
/// dropping Unicode code points HFS+ ignores and trailing dots and spaces (NTFS), or `git~1`.
bool is_git_name(std::string_view component);

}  // namespace flowagent::detail
