// Internal: which assertion lines of a requested test must have run when the test passed (the
// validator's runtime check, src/validate/assertion_evidence.cpp, compares them with line coverage).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace flowagent::integrity {

struct RequiredAssertion {
  std::string test;  ///< the test's name in the guard's model ("TestA.test_b", "suite adds")
  int line = 0;      ///< 1-based line of the assertion in the after version
};

/// The assertion lines of the tests of `after` (the file at `path` after the patch) that `wanted`
/// names (every test of the file when `whole_file`), that must execute whenever the test passes:
/// checks that compare something (not literal-only), outside except/catch handlers and platform
/// branches, and not under a condition the before version of the same test already had (the
/// developer's own `if`/`else`). Assertions the patch put under a new condition, after a new early
/// exit, in a nested function or loop are required. Python and JavaScript/TypeScript only (the
/// languages whose coverage the validator reads); empty for others or when the file does not parse.
std::vector<RequiredAssertion> required_assertion_lines(const std::string& path, const std::optional<std::string>& before,
                                                        const std::string& after, const std::vector<std::string>& wanted,
                                                        bool whole_file);

}  // namespace flowagent::integrity
