// Internal: coverage readers shared by the coverage localizer and the validator's assertion check.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>

namespace flowagent::detail {

/// Reads the V8 coverage files (NODE_V8_COVERAGE) in `dir`: for every script below `root`
/// (repository-relative path, node_modules left out), the lines with code that ran go to `ran`;
/// with `not_run`, lines whose code V8 saw but never ran (an uncalled function, a branch not
/// taken, code after a return) go there. Files are read confined to `root` (SandboxFs).
void read_v8_coverage(const std::filesystem::path& dir, const std::filesystem::path& root,
                      std::map<std::string, std::set<int>>& ran, std::map<std::string, std::set<int>>* not_run);

}  // namespace flowagent::detail
