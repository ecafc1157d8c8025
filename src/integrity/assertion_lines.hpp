// Internal: which assertion lines of a requested test must have run when the test passed (the
// validator's runtime check, src/validate/assertion_evidence.cpp, compares them with line coverage).
#pragma once

#include <map>
#include <optional>
#include <set>
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

/// What the tests of `after` that `wanted` names (every test of the file when `whole_file`) call,
/// with what the file's own helpers they reach call in turn: the code a passing test must have run
/// some of. Python and JavaScript/TypeScript; empty for other languages or when the file does not
/// parse.
struct TestCalls {
  /// Names called bare or as a method of a local value (`add(`, `cart.total(`, `self.check(`)
  /// that the file does not define itself.
  std::set<std::string> names;
  /// Names called through an imported name (`calc.add(` with `import calc`, `subprocess.run(`,
  /// `const sum = require('../sum')` ... `sum(`): name -> the modules as written (`calc`,
  /// `pkg.mod`, `./calc`, `../sum`, `subprocess`). Whether one is the project's is the caller's
  /// to decide (by the files it resolves to).
  std::map<std::string, std::set<std::string>> imported;
};
TestCalls requested_test_calls(const std::string& path, const std::string& after, const std::vector<std::string>& wanted,
                               bool whole_file);

}  // namespace flowagent::integrity
