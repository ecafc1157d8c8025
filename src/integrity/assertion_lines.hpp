// Internal: which assertion lines of a requested test must have run when the test passed (the
// validator's runtime check, src/validate/assertion_evidence.cpp, compares them with line coverage).
#pragma once

#include <map>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace flowagent::integrity {

struct RequiredAssertion {
  std::string test;  ///< the test's name in the guard's model ("TestA.test_b", "suite adds")
  int line = 0;      ///< 1-based line of the assertion in the after version
  /// The names its statement calls inside a comprehension, generator or per-element callback
  /// (`add` of `all(add(a, b) == w for ...)`, of `rows.map(([a, b]) => add(a, b))`): calls that run
  /// once per element, so not at all over a collection emptied or filtered to nothing at run time.
  /// Empty when the statement iterates over nothing (a plain call runs whenever the check does;
  /// a short-circuit or a conditional branch may honestly skip one). A message is left out.
  std::set<std::string> calls;
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
  /// Imported names the tests use as a value, not called there (`map(add, xs, ys)`,
  /// `partial(add, 1)`, `fn = add`): the code still runs when the test passes it on.
  std::set<std::string> referenced;
  /// Python: names called as a member of a name imported from a package (`from tests import
  /// helpers` ... `helpers.check_add(`): name -> `tests.helpers`, the member read as a submodule.
  std::map<std::string, std::set<std::string>> submodules;
};
TestCalls requested_test_calls(const std::string& path, const std::string& after, const std::vector<std::string>& wanted,
                               bool whole_file);

/// The name a module exports under which the test file at `path` (text `text`) imports `local`:
/// `add` for `plus` with `from calc import add as plus` or `const { add: plus } = require(...)`;
/// `local` itself when it is not an alias.
std::string exported_name(const std::string& path, const std::string& text, const std::string& local);

/// A function of another module whose call a requested test pinned with a literal before the patch
/// (`assert add(2, 2) == 4`, `assert.strictEqual(await calc.add(2, 2), 4)`, a method of an instance
/// of an imported class: `Calc().add(2, 2)`, `self.calc.add(2, 2)`) and that the test still
/// calls after it: the code whose value the test must still depend on (the validator's
/// value-sensitivity run moves its results and requires the test to fail).
struct PinnedCall {
  std::string name;    ///< the function's name in its module (`add`)
  /// The module as the test file writes it (`calc`, `pkg.mod`, `./calc`, `../sum`); empty when
  /// the file does not tie the call to a module (only with `unseen_too`: a pytest fixture of a
  /// conftest.py, `calc_mod.add(2, 2)`; a loader function, `load().add(2, 2)`): the caller looks
  /// for the project's definitions of the function.
  std::string module;
  /// A method's class as its module exports it (`Calc` for `Calc().add(2, 2)` or `c.add(2, 2)` with
  /// `c = Calc()`; the factory function for `make_calc().add(2, 2)`); for a call through a member
  /// of the module (`from pkg import calc` ... `calc.add(`, `Calc.add(`), that member: a submodule,
  /// a class or an object (the caller tells them apart); empty for a function of the module.
  std::string cls;
  /// The tests of the old file that pinned it (as the file names them: `test_add`, `adds`).
  std::vector<std::string> tests;
  /// Whether the reading of the new file saw the tests still call it (always, unless
  /// `pinned_calls` was asked for the unseen ones too): a call it did not see may still be made
  /// through a path no textual reading follows (a helper package's re-export, `from calc import *`
  /// in a helper, a helper method, a computed path); only a run can tell.
  bool seen_called = true;
  /// The pinned calls as the old tests wrote them (whitespace removed: `add(2,2)`): whether the
  /// new file still makes them tells a pin the patch moved from one it kept.
  std::vector<std::string> pins = {};
};
/// The pinned calls of the tests of `before` that `wanted` names (every test of the file when
/// `whole_file`) that the same tests of `after` still call through the same import (or, in
/// JavaScript, through a name `after` binds by requiring a computed path). A pin compares the call
/// with a literal or with a column of the test's literal table (a parametrize argument, a variable
/// of a loop over literal rows). Python and
/// JavaScript/TypeScript; empty for other languages or when a version does not parse.
/// `wanted_after`, when given, names the tests of `after` in their place (a renamed test: its
/// replacement's name). A function the tests no longer call themselves is still called when they
/// pass it on as a value (`map(add, ...)`), or when they call a function of another module `via`
/// (as the file writes it) for which `reached_through(via, pin)` says that module calls the pinned
/// function (a test-side helper module: the caller reads the tree). With `unseen_too`, the pins the
/// reading did not see called are returned as well, marked `seen_called = false`.
std::vector<PinnedCall> pinned_calls(const std::string& path, const std::string& before, const std::string& after,
                                     const std::vector<std::string>& wanted, bool whole_file,
                                     const std::vector<std::string>* wanted_after = nullptr,
                                     const std::function<bool(const std::string& via, const PinnedCall& pin)>& reached_through = {},
                                     bool unseen_too = false);

}  // namespace flowagent::integrity
