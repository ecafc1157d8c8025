// Failures dropped outside a syntactic try around the check, and checks recognised by name only
// (issue 11, third hostile review). Used by the tree-sitter walk (syntax.cpp):
//   - a check inside a function value the test hands to something that does not propagate its
//     failure: a thread or executor whose result is never read, a promise chain whose rejection
//     handler drops it, a CompletableFuture with exceptionally(...), a wrapper the file defines
//     whose handler swallows; a Python coroutine handed to an asyncio task never awaited or to
//     gather(return_exceptions=True) whose results are never read;
//   - a test under a decorator, or checks under a `with` manager, that the file defines and that
//     drops failures (`except AssertionError: return None`, `__exit__` returning True);
//   - a check through the test's own receiver (`t`, `self`) after the test reassigned it
//     (`t = &testing.T{}`: failures reported to an object no runner reads);
//   - the functions the file defines, so a call to a local `check()` counts as a check only when
//     its body checks or fails (resolved by the analyzer).
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>

#include "integrity/guard_internal.hpp"

namespace flowagent::integrity {

/// Functions and classes a file defines, by name (the first definition of a name wins), and Go's
/// imported package names.
struct LocalDefs {
  std::map<std::string, TSNode, std::less<>> functions;  ///< def, function, `const f = () =>`, method, fn
  std::map<std::string, TSNode, std::less<>> classes;    ///< Python classes (context managers)
  std::set<std::string, std::less<>> go_packages;        ///< `fmt`, `errors`, aliases
  /// Wrappers, decorators and managers of the helper modules the file imports that drop
  /// failures (FileModel::droppers), by name: why.
  std::map<std::string, std::string, std::less<>> imported_droppers;
};
LocalDefs collect_local_defs(const Syntax& s, Lang lang, TSNode root);

/// Services of the analyzer: does this try/catch node drop failures (its handler catches
/// assertion failures and does not re-raise)?
using TrySwallows = std::function<bool(TSNode)>;

/// Does the body of a function or class (a wrapper, a decorator, a context manager) drop failures:
/// a try whose handler swallows, a promise rejection handler that does not fail,
/// `contextlib.suppress(AssertionError | Exception)`? The line of the dropping code, 0 when none.
int drops_failures(const Syntax& s, TSNode def, const LocalDefs& defs, const TrySwallows& try_swallows);
/// JavaScript: does a catch clause's body fail on an assertion failure it catches: a throw or a
/// reporting call (`reject(e)`, `done(e)`, `t.fail`) that the failure reaches, reading the
/// conditions it passes (`if (e.code !== 'ENOENT') throw e`, a retry loop's last attempt)?
bool js_catch_fails(const Syntax& s, TSNode catch_body);
/// JavaScript: what the function `def`, read as a predicate of an error (`isTransient(e)`), says
/// of an assertion failure by its returned condition: 1 true, 0 false, -1 not known. Helper
/// modules' predicates are read so (FileModel::predicates) for the tests that import them.
int js_predicate_of_assertion_failure(const Syntax& s, TSNode def);
/// JavaScript: does the function `def`, handed an assertion failure as its first argument (an
/// error handler: `catch (e) { fail(e) }`, `.catch(handleError)`), fail the test with it: throw
/// it, or call something that reports it? Helper modules' functions are read so
/// (FileModel::reporters) for the tests that import them.
bool js_handler_fails(const Syntax& s, TSNode def);
/// Python: what a class's `__exit__`/`__aexit__` returns when that is a true value ("" otherwise).
std::string exit_returns_true(const Syntax& s, TSNode cls);

/// Why a check inside the function value `fn` (nested in the test `unit`) cannot fail the test:
/// the function is handed to something that drops its failure. "" when it propagates (called
/// directly, awaited, joined and checked, or handed to anything not known to drop failures).
std::string handoff_swallows(const Syntax& s, Lang lang, TSNode fn, TSNode unit, const LocalDefs& defs,
                             const TrySwallows& try_swallows);
/// Functions the file defines that `unit` passes as values (`Thread(target=check)`,
/// `loop.call_soon(check)`): their checks are the test's as much as those it calls.
std::set<std::string> functions_passed(const Syntax& s, TSNode unit, const LocalDefs& defs);
/// Why the checks of `name` (a function the file defines outside the test `unit`, definition
/// `def`) cannot fail the test: every reference the test makes hands it to something that drops
/// its failure (`asyncio.create_task(_check())` never awaited, `Thread(target=check)` never joined,
/// a coroutine made and never awaited). "" when some reference calls or awaits it, or passes it to
/// anything not known to drop failures.
std::string helper_handed_off(const Syntax& s, Lang lang, TSNode unit, const std::string& name, TSNode def,
                              const LocalDefs& defs, const TrySwallows& try_swallows);
/// Python: the manager of `with M(...):` is a class or @contextmanager function the file defines
/// that drops the body's failure; "" otherwise.
std::string with_swallows(const Syntax& s, TSNode with_stmt, const LocalDefs& defs, const TrySwallows& try_swallows);
/// Python: a decorator on the test (`@tolerant`) that the file defines and whose wrapper drops failures.
std::string decorator_swallows(const Syntax& s, Lang lang, const std::string& decorator, const LocalDefs& defs,
                               const TrySwallows& try_swallows);
/// A check called through a parameter of an enclosing function (`t.Errorf`, `self.assertEqual`,
/// `t.equal`) that the function reassigned before the check (`t = &testing.T{}`, `self = Mock()`).
/// JavaScript: `const outcomes = await Promise.allSettled([...])` whose outcomes the test then
/// fails on (`call` is the allSettled call, `unit` the test): a rejected one rethrown (`if
/// (o.status === 'rejected') throw o.reason`) or each asserted fulfilled.
bool js_settled_outcomes_checked(const Syntax& s, TSNode call, TSNode unit);
std::string receiver_reassigned(const Syntax& s, Lang lang, TSNode check, TSNode unit);

/// Go test code that makes a testing.T/B/F of its own (`&testing.T{}`, `new(testing.T)`, a
/// `testing.T{}` value) and hands it to a test or a helper: what fails through it goes to an
/// object no runner reads (assertion_swallowed).
void fresh_tester_rules(const RuleContext& c, Findings& out);

}  // namespace flowagent::integrity
