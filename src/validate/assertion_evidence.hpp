// Internal: runtime evidence that the assertions of the requested tests ran. Strength is counted
// from the assertions a test holds; a patch can keep them all and still stop them from running (an
// early return, a new `if` that is false under the bug, a nested function never called, a loop
// over nothing). After the requested tests passed, they run once more under line coverage
// (coverage.py for pytest, NODE_V8_COVERAGE for node --test and tape), in the same checkout and
// sandbox, and every required assertion line (integrity/assertion_lines.hpp) must have executed.
#pragma once

#include <array>
#include <chrono>
#include <filesystem>
#include <functional>
#include <set>
#include <string>

#include "flowagent/expected.hpp"
#include "flowagent/result.hpp"
#include "flowagent/strategy.hpp"

namespace flowagent::detail {

/// The functions value sensitivity found pinned (check_value_sensitivity), for the values check
/// of fail to pass (check_values_tell_apart).
struct ValueTargets {
  bool python = false;  ///< pytest (dotted modules); else node (paths relative to the checkout)
  /// go test: modules are package folders relative to the checkout; the calls are read from the
  /// tests' source and driven by a generated file of the package (validate/go_values.hpp).
  bool go = false;
  std::vector<std::pair<std::string, std::string>> targets;  ///< (module, name: `add`, `Calc.add`)
  std::vector<std::string> run_ids;  ///< the requested tests after the patch (replacements by their own names)
  /// record_fix_values: the calls the patched tests make of the targets (module, name, arguments
  /// as JSON [args, kwargs]) and the fix's code's answers to them.
  struct Call {
    std::string module, name, args;
    /// A method's instance: its attributes as recorded (JSON), which the drive makes it from; ""
    /// when they were not plain data (the drive calls the constructor with no arguments).
    std::string state;
    std::string raw;  ///< the record as the helper wrote it (the 'except' run lists calls so)
    /// The same call: function, arguments and instance state (`raw` aside).
    bool same_as(const Call& o) const { return module == o.module && name == o.name && args == o.args && state == o.state; }
  };
  std::vector<Call> calls;
  std::vector<std::string> fix_answers;
  bool calls_truncated = false;  ///< more calls than the record keeps: none is judged alike for all
  /// go test: the patched tests make a call of a target this reading could not read (an argument
  /// computed at run time, the function passed on as a value): none is judged alike for all (what
  /// they ask is not fully known), while a dropped check is still judged by the calls read.
  bool calls_incomplete = false;
  /// check_value_sensitivity's control runs (nothing moved) are made in record mode: the functions
  /// each wrapped (as `targets` names them), the tests it ran and the calls it wrote. A record of
  /// exactly `targets` and `run_ids` is record_fix_values' record: it makes no run of its own.
  struct Recorded {
    std::vector<std::pair<std::string, std::string>> targets;
    std::vector<std::string> ids;
    std::string calls;  ///< the probe's calls file
  };
  std::vector<Recorded> recorded_by_control;
};

struct AssertionCheck {
  /// "" passed or not checked; "assertion_not_executed" (an assertion line of a requested test did
  /// not run; the message names file:line and the test); "code_under_test_not_executed" (the patch
  /// changed a requested test, which calls functions of the project, and no function of the
  /// project's own code ran; pytest, node --test and tape; or a check the patch wrote calls a
  /// function of the project that never ran); "code_value_not_checked" (check_value_sensitivity);
  /// "unverified" (the coverage run left no
  /// data for a file it had to cover: fail closed).
  std::string reason;
  std::string message;
  bool checked = false;  ///< false: not applicable (runner, language, no assertion line) or no coverage tool
  std::string note;      ///< why it was not checked: "not available: <why>" or "not applicable: <why>"
  /// The runs it made when checked: the coverage run (purpose "assertions"); the value-sensitivity
  /// runs (purpose "sensitivity", one per moved function; "sensitivity-reversed" after one of a
  /// function the tests were not seen to call that passed: the same run with the results' order
  /// reversed; "sensitivity-control" after one that failed: the same run with nothing moved).
  std::vector<TestRun> runs;
  ValueTargets values;  ///< check_value_sensitivity: what it moved (empty when it moved nothing)
  /// check_value_sensitivity: functions the old tests pinned that the patched tests no longer call,
  /// still defined where the old tests took them from, whose code the patch edits (a stand-in may
  /// be checked in their place while the edit changes nothing they answer): check_stand_ins
  /// decides by their answers. (module as ValueTargets names it, name, described)
  std::vector<std::array<std::string, 3>> stand_ins;
};

/// Runs the check in `root` (head + `patch_text` applied), for ctx.request's failing tests; a
/// requested test the fix replaced (`replacements`, a renamed test) is checked as the tests that
/// replaced it (a pytest report's dotted name becomes the node id in the requested test's file).
/// `tests_started`: when the first test run in `root` began (after the build). The coverage run
/// loads files from the checkout that earlier runs' test code could have written (a `coverage`
/// package or `conftest.py` for pytest, a coverage provider in node_modules, the test files and
/// the runner's configuration): one changed since then makes the check "unverified". The epoch
/// (default): not checked.
/// Errors: cancellation, an unavailable sandbox, a bad test id (the same checks as every test run).
Expected<AssertionCheck> check_assertions_ran(RepairContext& ctx, const std::filesystem::path& root,
                                              const std::string& patch_text,
                                              std::chrono::system_clock::time_point tests_started = {},
                                              const std::vector<TestReplacement>& replacements = {});

/// Value sensitivity: a requested test must still depend on the value of the code it pinned. When
/// the patch changed a requested test file, and the test before the patch compared a call of a
/// function (or a method of an instance of a class) of another module of the project with a literal
/// (integrity::pinned_calls) that the test still calls, each requested test that pinned one runs
/// once more per such function (that test alone, one function moved per run, at most eight runs; functions of the modules the change touched first)
/// with its results moved (numbers to 2v+1 away from zero, booleans
/// negated, strings framed with `~`, awaited results too; pytest through a plugin that changes the
/// module's function in place when the module is imported (its code, so every holder of it runs
/// the moved code), node --test and tape through a `--require` preload that wraps the CommonJS
/// exports with wrappers of the function's shape, jest through the same preload wrapping
/// jest-runtime's module loader). A requested test the fix replaced (`replacements`) is compared
/// with its replacements: the pins are the old test's, the calls and runs its replacements'.
/// Python relative imports are resolved through the test file's
/// package; a JS test file the patch replaced by another is compared with the one it replaced.
/// A run that passes although results were moved is "code_value_not_checked": the test's verdict no
/// longer depends on what the code computes (a relation between its results, a settled status, a
/// product with zero). Not applicable (note set) for other runners, ES modules, functions whose
/// results are not numbers, booleans or strings, and when no result
/// was moved. Errors: cancellation, an unavailable sandbox, a bad test id.
Expected<AssertionCheck> check_value_sensitivity(RepairContext& ctx, const std::filesystem::path& root, const std::string& patch_text,
                                                 const std::vector<TestReplacement>& replacements = {});

/// Fail to pass, by the values the tests ask of the code (the twenty-sixth review: a test whose
/// pins moved to inputs where the bug does not show, plus one check that fails without the fix for
/// another reason: a docstring, `__all__`, a name the change added, an import error). For each
/// function value sensitivity found pinned (`values`), the calls the requested tests make of it
/// are recorded (their plain-data arguments): the patched tests with the fix (record_fix_values, in
/// the fix's checkout, before anything else uses it) and the old tests at the head
/// (check_values_tell_apart, in `head_root`, a checkout of the head without the patch). Each
/// recorded call is made again outside any test, on the code of the fix, of the head, and of the
/// code before the change (`to_base` turns `head_root` into it, `to_head` back). When the old tests
/// make no such call at the head (they no longer import there: a name the change renamed), their
/// calls are recorded on the code before the change instead (purpose "values-record-base"). A
/// function whose answers to the
/// old tests' calls differ between the base and the head is where the change shows; the patched
/// tests must ask it something whose answer differs between the fix's code and the base's, or the
/// head's (a patch that changes code, `code`): else they do not tell the versions apart through it,
/// and their failure without the fix comes from something else. `reason` is then
/// "tests_pass_without_the_fix" (`code`) or "tests_pass_without_the_change". An answer that cannot
/// be read (an object, a call that cannot be made outside the tests) counts as differing. pytest
/// (the calls made once the tests are collected, so the project imports as they import it) and
/// node (a plain `node` process).
///
/// A check the fix breaks, taken out of the tests (the review's twin pins: `add(1, 3) == 4`
/// rewritten into `add(+2, +2) == 4`, a repeat of a kept pin in another spelling, or moved to
/// `add(3, 3) == 6`, beside a wrong fix `2 * a`): with a patch that changes code and `to_fix_code`
/// (it writes the fix's code over the checkout at the head), the old tests' calls (recorded at the
/// head and, where the old tests pass, before the change: "values-record-base") that the patched
/// tests no longer make (the same function, arguments and instance state) are made once more on
/// the fix's code (after every other call, in the order the head's and the base's runs made them,
/// then once more each: purpose "values-old-fix"), for the functions the fix presents as restored:
/// every call the patched tests make of it, the fix answers as before the change, and at least one
/// of them otherwise than the head. A dropped call the fix answers otherwise than both the head
/// and the code before the change, the same both times and with the code before the change
/// answering it the same in a second process ("values-old-base", made only then), is a check the
/// patch took out where the fix breaks what it checked: "broken_check_dropped". Not judged: a
/// function the patched tests ask somewhere that the fix answers otherwise than before the change
/// (an intended change they follow: its stale checks may go), a dropped call the fix answers as the head (the change
/// was meant there), an instance recorded only before the change (its state is that code's).
/// Errors: cancellation, an unavailable sandbox, the callbacks'.
struct ValuesVerdict {
  std::string reason, message;
  std::string note;  ///< what was compared, or why nothing was
  std::vector<TestRun> runs;
  /// check_values_tell_apart, when it passes: the functions where the change shows that the patched
  /// tests ask something telling the versions apart, and their calls every version answers alike
  /// (records as the helper wrote them): check_telling_calls_checked moves all but those.
  std::vector<std::pair<std::string, std::string>> judged;
  /// (record, the answer it gives in the last run: "" its own; else the code's without the fix)
  std::vector<std::pair<std::string, std::string>> keep;
};
/// The stand-in rule by behaviour (review 31: a redundant pair of parentheses or a caching
/// decorator added to the still-broken function hid it from the textual rule). In `head_root`, a
/// checkout of the head without the patch, the calls the requested tests make of each of
/// `check.stand_ins` before the patch are recorded at the head (purpose "standin-record") and on
/// the code before the change (`to_base` puts the change's files and the patch's files outside
/// tests as at the base; "standin-record-base": there the old tests pass, so every pinned call is
/// made), and made again outside the tests there ("standin-base"), at the head (`to_head`,
/// "standin-head") and on the fix's code (`to_fix_code` writes the patch's files outside tests,
/// "standin-fix"). Where the head answers otherwise than the base, the fix must answer as the base
/// at every such call; where that is nowhere, every call must stay answerable and one answer differ
/// from the head's; numbers compare by value; a call the head answers and the fix cannot counts
/// against it. Not so: "code_under_test_not_executed" (the patched tests check something else in
/// its place and the code they pinned still does what made them fail, whatever its text). No
/// call recorded or answered at the head: "unverified". Errors: cancellation, an unavailable
/// sandbox, the callbacks'.
Expected<ValuesVerdict> check_stand_ins(RepairContext& ctx, const AssertionCheck& check, const std::filesystem::path& head_root,
                                        const std::function<Expected<void>()>& to_base, const std::function<Expected<void>()>& to_head,
                                        const std::function<Expected<void>()>& to_fix_code);

struct NearCalls;
/// The first half, in the fix's checkout `root`: fills values.calls and values.fix_answers
/// (purposes "values-record", "values-fix"); the runs go to `runs`. With `near` (near_targets'
/// result, not yet made) whose functions are among `values.targets` and whose tests are the same,
/// the near check's record and drive are these runs ("values+near-record", "values+near-fix": its
/// calls driven after these) and `near` is filled as record_near_calls would (made).
Expected<void> record_fix_values(RepairContext& ctx, ValueTargets& values, const std::filesystem::path& root, std::vector<TestRun>& runs,
                                 NearCalls* near = nullptr);
/// With `near` (recorded and driven on the fix), its calls are made in the "values-head" and
/// "values-base" runs after the values check's own ("values+near-head", "values+near-base", while
/// one drive answers them all) and their answers kept in near->head_answers and base_answers, which
/// check_near_calls then uses instead of its own runs.
Expected<ValuesVerdict> check_values_tell_apart(RepairContext& ctx, const ValueTargets& values, const std::filesystem::path& head_root,
                                                const std::function<Expected<void>()>& to_base,
                                                const std::function<Expected<void>()>& to_head, bool code,
                                                const std::function<Expected<void>()>& to_fix_code = {}, NearCalls* near = nullptr);
/// The last step: the calls that tell the versions apart must be checked, not only made (a call
/// at an input where the bug shows whose answer the test ignores, beside pins where it does not;
/// a call at a random input, a check of parity or range both answers meet). The patched tests run
/// once more in `root` (head + the patch) with the `judged` functions answering, at the calls that
/// tell the versions apart, what the code without the fix answers there (the head's; the base's
/// for a patch of tests only), at the calls every version answers alike their own answers (`keep`),
/// and elsewhere (calls not recorded, answers that are no values) a moved result (purpose
/// "values-only"); passing, they do not look at what tells the versions apart:
/// "code_value_not_checked". Not judged when nothing was replaced or moved.
Expected<ValuesVerdict> check_telling_calls_checked(RepairContext& ctx, const ValueTargets& values, const std::filesystem::path& root,
                                                    const std::vector<std::pair<std::string, std::string>>& judged,
                                                    const std::vector<std::pair<std::string, std::string>>& keep);

/// Behaviour near the tested inputs (review 30, W4): a code fix that answers the requested tests'
/// inputs from a table or a condition true only there (`_SETTLED.get((a, b), a - b)`, `a + b if a
/// == b else a - b`) while keeping the bug everywhere else passes every check of the tests, since
/// the pinned calls do change. The functions the patch's code changes (their definitions, comments
/// and whitespace aside) and adds code to that singles out inputs (`singling` below; no other
/// function is judged, so none other is recorded: a fix without such code makes no run here) that
/// the requested tests call with integer arguments are recorded in the
/// fix's checkout (record_near_calls, purpose "near-record"), and each recorded call is made again
/// with one integer argument one lower and one higher (purpose "near-fix"): the fix's answers.
struct NearCalls {
  ValueTargets values;  ///< the changed functions; `calls` the recorded calls then the neighbours
  std::size_t recorded = 0;  ///< how many of `values.calls` were recorded (the rest are neighbours)
  /// For each neighbour (index into values.calls): the recorded call it is near, the argument
  /// moved, and -1 (one lower) or +1.
  struct Near {
    std::size_t of, arg;
    int side;
  };
  std::vector<Near> near;
  /// The changed functions to which the patch adds code that singles out inputs (a branch, a
  /// conditional, an equality or membership test, a lookup, a collection written out): only they
  /// are judged (and `values.targets` holds only them). A fix that changes an operator, a constant or a table's value adds none (an
  /// intended change on both sides of a corrected boundary is no special case: review 31).
  std::set<std::pair<std::string, std::string>> singling;
  bool made = false;  ///< recorded (and driven on the fix), by record_near_calls or record_fix_values
  /// The head's and the base's answers to `values.calls` when check_values_tell_apart made them.
  std::vector<std::string> head_answers, base_answers;
  bool driven_at_head() const {
    return !values.calls.empty() && head_answers.size() == values.calls.size() && base_answers.size() == values.calls.size();
  }
};
/// The functions to judge (no run): the patch's changed functions that get code singling out
/// inputs, the runner's kind and the tests (empty targets: not applicable: another runner, no such
/// function).
Expected<NearCalls> near_targets(RepairContext& ctx, const std::filesystem::path& root, const std::string& patch_text,
                                 const std::vector<TestReplacement>& replacements);
/// Records and drives them in the fix's checkout `root` ("near-record", "near-fix"), unless already
/// made (record_fix_values shared its runs).
Expected<void> record_near_calls(RepairContext& ctx, NearCalls& near, const std::filesystem::path& root, std::vector<TestRun>& runs);
/// The second half, in `head_root` (a checkout of the head; `to_base` turns it into the code
/// before the change, `to_head` back): the same calls are made on the head's code and the base's
/// (purposes "near-head", "near-base"). A function the fix corrects at a recorded call (its answer
/// the base's, not the head's) while at most of the neighbours where the base and the head differ
/// (at least two, one lower and one higher) it answers as the head does is special-cased: reason
/// "overfitting_special_cased_test_value". Nothing to compare: a note. When the values check made
/// the head's and the base's answers (near.driven_at_head()), no run is made here.
Expected<ValuesVerdict> check_near_calls(RepairContext& ctx, const NearCalls& near, const std::filesystem::path& head_root,
                                         const std::function<Expected<void>()>& to_base, const std::function<Expected<void>()>& to_head);

}  // namespace flowagent::detail
