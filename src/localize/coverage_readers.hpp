// Internal: coverage readers shared by the coverage localizer and the validator's assertion check.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace flowagent::detail {

/// Reads the V8 coverage files (NODE_V8_COVERAGE) in `dir`: for every script below `root`
/// (repository-relative path, node_modules left out), the lines with code that ran go to `ran`;
/// with `not_run`, lines whose code V8 saw but never ran (an uncalled function, a branch not
/// taken, code after a return) go there. Files are read confined to `root` (SandboxFs).
void read_v8_coverage(const std::filesystem::path& dir, const std::filesystem::path& root,
                      std::map<std::string, std::set<int>>& ran, std::map<std::string, std::set<int>>* not_run);

/// A function of a measured file and whether it ran in the measured run.
struct FunctionRun {
  std::string name;  ///< as the tool names it ("add", "C.mul" may be "mul"); "" when anonymous
  int line = 0;      ///< 1-based line where it starts
  bool ran = false;
  /// The data tells whether it ran (false: a one-line Python `def f(): return x`, whose only line
  /// runs when the module is imported).
  bool known = false;
};

/// The functions of every script below `root` (node_modules left out) in the V8 coverage files in
/// `dir`, by repository-relative path: V8 reports each function of a script it loaded, called or
/// not (the script's top level left out).
std::map<std::string, std::vector<FunctionRun>> read_v8_functions(const std::filesystem::path& dir,
                                                                   const std::filesystem::path& root);

}  // namespace flowagent::detail
