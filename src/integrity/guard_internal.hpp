// Internal model of the test-integrity guard, shared by its parts:
//   syntax.cpp        tree-sitter walk: tests, markers, assertions and what they compare
//   swallow.cpp       failures dropped beyond a try (threads, futures, wrappers, decorators, managers,
//                     a replaced receiver) and the file's own functions (check helpers); swallow.hpp
//   lang_*.cpp        per ecosystem: which nodes are tests, and the runner rules (hooks, config,
//                     shadowing modules, build tags) of that ecosystem
//   rules_tests.cpp   before/after comparison test by test (skips, deletions, strength)
//   rules_files.cpp   language-neutral file rules (diff attributes, shadowing paths, production
//                     code that detects a test run, unsupported languages)
//   rules_runner_process.cpp  test code that ends the runner or names its report (every language)
//   rules_mocks.cpp   test code that mocks the code under test (the whole patch at once)
//   rules_shadowing.cpp  test-side files and definitions that win over production code by name
//                     resolution (a tests/calc.py, a test-tree class of a production FQCN, a
//                     `#define add`, a Go init() resetting package state, a jest __mocks__ file)
//   rules_collection.cpp  tests the runner no longer collects through the build graph (a removed
//                     `mod tests;`, a test source dropped from a CMake/Meson/Bazel/Make list), and
//                     the conditions a test is defined under (Python/JS `if`)
//   guard.cpp         the entry point check_test_integrity
#pragma once

#include <tree_sitter/api.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/regex.hpp"
#include "flowagent/integrity.hpp"
#include "integrity/ts_nav.hpp"

namespace flowagent::integrity {

// ---- named constants ------------------------------------------------------------------------------

/// Strength of one check, by what it compares.
inline constexpr int kStrengthExact = 4;            ///< equality, a specific exception
inline constexpr int kStrengthApprox = 3;           ///< approximate equality
inline constexpr int kStrengthRange = 2;            ///< inequality, ordering, range
inline constexpr int kStrengthWeak = 1;             ///< type, existence, truthiness, broad exception
/// A test may drop checks when what it still checks (kept + new checks, scaled by its parametrized
/// cases) is at least this share of what it checked before...
inline constexpr double kKeepRatio = 0.8;
/// ...and the checks it kept unchanged are at least this share (so a test cannot trade its failing
/// checks for new, different ones).
inline constexpr double kMinMatchedShare = 0.5;
/// Relative slack when comparing tolerances (floating-point noise of the parsed numbers).
inline constexpr double kToleranceSlack = 1e-7;
/// pytest.approx's default relative tolerance; unittest assertAlmostEqual's default places.
inline constexpr double kPytestApproxDefault = 1e-6;
inline constexpr double kAlmostEqualDefault = 1e-7;
/// Jest toBeCloseTo's default: 2 digits, i.e. |a - b| < 0.005.
inline constexpr double kToBeCloseToDefault = 0.005;
/// Characters of a line or marker quoted in a finding's message.
inline constexpr std::size_t kQuoteChars = 120;
inline constexpr std::size_t kMarkerChars = 40;
/// Characters of an if statement read when its condition field is missing.
inline constexpr std::size_t kConditionChars = 120;
/// A check in a loop over a literal table counts once per row, up to this many rows.
inline constexpr int kMaxTableRows = 64;
/// Characters of one line the regular-expression rules read (std::regex recurses per character:
/// a longer line is read in windows of this size, overlapping by kRegexOverlapChars).
inline constexpr std::size_t kRegexLineChars = 2000;
inline constexpr std::size_t kRegexOverlapChars = 200;
/// What the guard reads to follow the tests' imports (any depth): at most this many files of the
/// project's head and this many bytes (the patch's own files are not counted).
inline constexpr std::size_t kImportFilesBudget = 400;
inline constexpr std::size_t kImportBytesBudget = std::size_t{16} << 20;
/// Failing-test names shorter than this are not searched for in production code (too common).
inline constexpr std::size_t kMinNamedTestChars = 4;
/// How deep the guard walks a test's syntax tree for its local definitions, and how many
/// definitions deep it follows a check's operands to their sources (`diff` -> `cmp.Diff(want, got)`
/// -> `got` -> `Split("ab")`).
inline constexpr int kMaxSyntaxDepth = 200;
inline constexpr int kMaxSourceDepth = 4;
/// Parse errors recorded per file (FileModel::errors); a file with more is not read around them.
inline constexpr std::size_t kMaxParseErrors = 50;

// ---- languages -------------------------------------------------------------------------------------

enum class Lang { none, python, java, kotlin, cpp, javascript, typescript, tsx, go, rust };

Lang lang_of(std::string_view path);
const TSLanguage* ts_language(Lang l);
bool is_js(Lang l);
/// What a relative JavaScript/TypeScript module specifier (`./calc`, `../lib`) may leave out, in the
/// order Node and the TypeScript-aware runners try it: nothing (the file as written), an
/// extension, a folder's index file. The one list every resolver of the guard and the validator
/// uses.
std::span<const std::string_view> js_module_suffixes();
/// Code in a language the guard has no grammar for (Ruby, PHP, C#, ...): its tests cannot be checked.
bool is_unsupported_code(std::string_view path);
/// Would the language's usual runner collect tests from this file (test_*.py, *_test.go, *.test.js, ...)?
bool collectable_test_file(std::string_view path, Lang lang);

// ---- the model -------------------------------------------------------------------------------------

enum class Kind { eq, approx, range, type, throws_specific, throws_broad, other };
int strength(Kind k);

struct Assertion {
  Kind kind = Kind::other;
  double tolerance = -1;
  int line = 0;
  bool swallowed = false;
  std::string swallow_why;            ///< how its failure is dropped beyond a try (swallow.hpp); "" for a handler
  bool trivial = false;               ///< compares only literals: no check at all
  bool tautology = false;             ///< `x == x`, `... or True`: checks nothing (strength 0)
  bool inverted = false;              ///< inside an expectation of its own failure (pytest.raises(AssertionError))
  bool optional = false;              ///< on a path that honestly may not run: a handler, a platform condition
  std::string dead;                   ///< why it can no longer run (after a return, in a dead branch); "" live
  /// Conditions it runs under inside its test ("if c", "else c", "unless c" for an earlier
  /// conditional exit), whitespace removed: a check that gains one may no longer run.
  std::vector<std::string> guards;
  /// Those of `guards` whose condition reads only the environment (a dependency's or the
  /// interpreter's version, the platform, an environment variable), through module-level names
  /// bound once: nothing the code under test answers can steer them.
  std::set<std::string> environment_guards;
  std::set<std::string> operands;     ///< what it looks at: non-literal operands, whitespace removed
  /// The calls and names its operands are computed from, through the test's local variables
  /// (`got := Split("ab")`: `got` -> Split): how a rewritten check is matched with the old one.
  std::set<std::string> sources;
  /// The operands with each local name replaced by its one visible definition (`got` with `got =
  /// add(2, 2)` reads `add(2,2)`; `s.total(xs)` with `s = new Store()` in a hook reads
  /// `newStore().total(xs)`): the same value however the test names it, matched like `operands`.
  std::set<std::string> expanded;
  /// How often each name its operands start from was bound in the unit before it (`r:2;`): two
  /// checks of `r.text` with `r` bound again between them look at different values.
  std::string bound;
  /// An operand's variable is set to a constant after it was computed, before the check (`got =
  /// add(2, 2)` ... `got = 4`): the check no longer looks at what was computed.
  bool overwritten = false;
  /// An equality with a boolean literal (`EXPECT_EQ(false, f(x))`, `expect(ok(x)).toBe(true)`),
  /// scored as a check of the other side's truth: still an exact comparison of that side.
  bool boolean_literal = false;
  /// Rows of the literal tables it runs over (`for a, b in [(1, 2), (3, 4)]:`, `[[1, 2]].forEach(...)`,
  /// when it uses the loop's variables): a check in a three-row table loop checks three things.
  int rows = 1;
  /// The lossy view that made an equality a range check (`p>>8`, `got%10`; whitespace removed,
  /// through a local bound once), "" otherwise. With `kind == eq`: the view's complement is checked
  /// exactly too (`p>>8` and `p&0xFF`), so together they pin the value.
  std::string lossy;
  /// Counted in a test from a helper it calls in the file, the call's arguments put in for the
  /// helper's parameters (`check_sum(2, 2, 4)`): two of its checks may coincide for some arguments
  /// (`add(a, b)` and `add(b, a)` with a == b) without the test repeating itself.
  bool inlined = false;
  /// The literals it compares with, as written (`4` in `add(2, 2) == 4`), where it was read
  /// from a comparison or an assertion call's arguments; empty otherwise.
  std::set<std::string> literals;
  /// The expressions its operands were read from, as written (trimmed, spaces kept): a comparison
  /// (`got == (got or 4)`) or one argument of an assertion call (`got === 0 ? 0 : 4`).
  std::vector<std::string> raw_exprs;
};

struct TestUnit {
  std::string name;
  int line = 0;
  int end_line = 0;               ///< last line of its definition
  std::set<std::string> markers;  ///< skip/ignore/disable markers; "build: ..." for build conditions
  bool conditional = false;       ///< every marker is conditional on the platform
  int skip_line = 0;              ///< the line of the skip call or raise in its body (0: none, -1: several)
  bool focus = false;             ///< .only / fit: other tests stop running
  bool collectable = true;        ///< the runner still collects it (Python: in a Test* class or a subclass)
  std::string hidden_by;          ///< when not collectable: the runner's rule that hides it
  int cases = 1;                  ///< parametrized cases (product of the parametrize lists), 1 when unknown
  /// A parametrize table the guard cannot count (a generated one, `[f for f in all_functions()]`):
  /// its cases are compared with nothing (`cases` is 1 then).
  bool cases_unknown = false;
  std::vector<Assertion> asserts;
  std::size_t body_hash = 0;
  std::set<std::string> calls;    ///< names the body calls (`check(`, `self.check(`): helpers it relies on
  /// Its parameters, in order (a helper's: `def check(a, b, want)` -> a, b, want; `self`/`cls`
  /// left out): a helper's checks are read with each call's arguments in their place.
  std::vector<std::string> params;
  /// A helper's parameters with a default, as written (`strict=False` -> strict: "False").
  std::map<std::string, std::string> param_defaults;
  /// Python: the values its parameters take from its parametrize decorators (parametrize_columns).
  std::map<std::string, std::string> table_values;
  /// The argument lists (whitespace removed) of each call of a function of `calls` in the body,
  /// by name: `check(2, 2, 4)` -> {"check": [["2", "2", "4"]]}.
  std::map<std::string, std::vector<std::vector<std::string>>> call_args;
  /// Helpers of `calls` that every reference hands to something that drops their failure
  /// (`asyncio.create_task(_check())` never awaited): why (swallow.hpp helper_handed_off).
  std::map<std::string, std::string> handed_off;
  /// Helpers of `calls` whose every call in the body can no longer run (after a return, in a branch
  /// never taken, in a nested function never called): why, for one of them. Their checks are not
  /// the unit's.
  std::map<std::string, std::string> dead_calls;
  /// How the live calls of each helper of `calls` sit in the body, as a check there would: the
  /// conditions all of them run under (`if os.environ.get("X"): check(...)`), whether every one
  /// is optional (a platform condition) or inside an expectation of its own failure
  /// (`with pytest.raises(AssertionError): check(...)`). Given to the helper's checks.
  struct CallSite {
    std::vector<std::string> guards;
    bool optional = false;
    bool inverted = false;
  };
  std::map<std::string, CallSite> call_sites;
  /// A helper that is a method: its class (`SumChecker` for `SumChecker.check`); "" for a function.
  std::string owner;
  /// A helper whose body only returns a constant truthy value (`return True`) and checks nothing:
  /// `assert check(x)` on it is a tautology.
  bool constant_truthy = false;
};

struct FileModel {
  bool parsed = false;
  bool has_error = false;         ///< the parser recovered from syntax errors
  /// Where it recovered: each ERROR or MISSING node (outermost), its text (capped) and lines. A
  /// test file whose old version fails to parse the same way (a construct the grammar does not
  /// know, such as tree-sitter-cpp 0.20's `typedef T& reference;`) is still compared, as long as
  /// the patch does not touch those lines.
  struct ParseError {
    std::string text;
    int line = 0;
    int end_line = 0;
  };
  std::vector<ParseError> errors;
  std::vector<TestUnit> tests;
  /// Functions of the file that are not tests (and hold none), with their assertions: helpers the
  /// tests call. Gutting one weakens every test that calls it.
  std::vector<TestUnit> helpers;
  /// Checking functions of the helper modules the file imports (by name, or through the module:
  /// `from tests.helpers import check_add`, `import helpers` ... `helpers.check_add(`), read like
  /// the file's own helpers when a test calls one (with_helpers); the file's own helper of the
  /// same name comes first. Filled by the guard, not by analyze().
  std::vector<TestUnit> imported_helpers;
  std::set<std::string> file_markers;  ///< "focus ...", "build: ...", or skip markers for every test
  bool file_markers_conditional = false;
  std::string comments;
  /// Runner hooks defined in the file (Python pytest_* hooks, Go TestMain, a C/C++ test main):
  /// name and text of the definition, so a changed body is seen.
  std::vector<std::pair<std::string, std::string>> hooks;
  /// Functions and classes of the file, by name, that drop failures (a wrapper, decorator or
  /// context manager: why), and functions whose body neither checks nor fails: what a test file
  /// importing this module relies on (swallow.hpp).
  std::map<std::string, std::string> droppers;
  std::set<std::string> non_checks;
  /// JavaScript functions of one parameter or more read as predicates of an error: what each
  /// says of an assertion failure (1 true, 0 false, -1 not known; js_predicate_of_assertion_failure).
  std::map<std::string, int, std::less<>> predicates;
  /// JavaScript functions read as error handlers (`catch (e) { fail(e) }`, `.catch(handleError)`):
  /// does one, handed an assertion failure, fail the test with it (throw it, or call something that
  /// reports it)? A helper module's `fail` that only logs is read by its body, not by its name.
  std::map<std::string, bool, std::less<>> reporters;
  /// JavaScript functions whose body reads a settled outcome's `value` or `reason` (`unwrap(r)`):
  /// outcomes handed to one are read for what they produced, not only for their status.
  std::set<std::string> outcome_readers;
  /// The sources of what the file's top-level functions return (returned_sources): a test file
  /// importing one reads a check of its value as a check of those.
  std::map<std::string, std::set<std::string>> returns;
};

/// What the test-side modules a file imports define (merged FileModel::droppers/non_checks/predicates/reporters).
struct ImportedDefs {
  std::map<std::string, std::string> droppers;
  std::set<std::string> non_checks;
  std::map<std::string, int, std::less<>> predicates;
  std::map<std::string, bool, std::less<>> reporters;
  std::set<std::string> outcome_readers;
  std::set<std::string> modules;  ///< the modules' names (file names without extension): `helpers.check(...)`
  /// The modules' functions that check (their assertions), each with its module's name: a test
  /// that calls one makes its checks (`check_add(2, 2, 4)` from `tests/helpers.py`).
  std::vector<std::pair<std::string, TestUnit>> helpers;
  /// The sources of what the modules' functions return, by function name (FileModel::returns,
  /// followed from one module to another): `compute` -> {add, @calc.add}.
  std::map<std::string, std::set<std::string>> returns;
  /// The same for the functions of the conftest.py files the patch holds (pytest fixtures a test
  /// takes as a parameter: `def adder(): return add` -> {add, @calc.add}).
  std::map<std::string, std::set<std::string>> fixtures;
};

/// Is the name `name` of the file `text` bound more than once or changed in place (`CASES = ...`
/// again, `CASES[k] = ...`, `.update(`, `.push(`, `Object.assign(CASES, ...)`, `global CASES`)?
/// `js`: a plain assignment anywhere counts (JavaScript scoping), not only at the top level.
bool name_changed(const std::string& text, const std::string& name, bool js);
/// Does `expr` iterate over nothing: an empty literal (`[]`, `{}`, `set()`), a view of one
/// (`Object.entries({})`, `{}.items()`), or a name the file binds once to one and never changes?
bool empty_collection_in(const std::string& text, const std::string& expr);

/// Parses `src` and builds its model; parsed=false when the language has no grammar. `imported`:
/// the definitions of the helper modules the file's tests import (check helpers and wrappers are
/// resolved through them too).
FileModel analyze(Lang lang, const std::string& src, const ImportedDefs* imported = nullptr);

// ---- syntax helpers shared by the language files ---------------------------------------------------

struct Syntax {
  const std::string& src;
  /// JavaScript: functions of the helper modules the file imports that drop failures
  /// (ImportedDefs::droppers), by name: why; null when none. A promise handed to one is dropped.
  const std::map<std::string, std::string, std::less<>>* imported_droppers = nullptr;
  /// JavaScript: what the helper modules' predicates of an error say of an assertion failure
  /// (ImportedDefs::predicates); null when none.
  const std::map<std::string, int, std::less<>>* imported_predicates = nullptr;
  /// JavaScript: whether the helper modules' functions, handed an assertion failure, fail the test
  /// (ImportedDefs::reporters); null when none.
  const std::map<std::string, bool, std::less<>>* imported_reporters = nullptr;
  std::string text(TSNode n) const {
    return src.substr(ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n));
  }
  static std::string_view type(TSNode n) { return ts_node_type(n); }
  static int line(TSNode n) { return static_cast<int>(ts_node_start_point(n).row) + 1; }
  static TSNode field(TSNode n, const char* name) {
    return ts_node_child_by_field_name(n, name, static_cast<uint32_t>(std::strlen(name)));
  }
};

/// The dotted name chains an expression reads outside string literals, f-string and template
/// interpolations included: `cmp.Diff(want, f"{got}")` -> {cmp.Diff, want, got}, each as its segments.
std::vector<std::vector<std::string>> name_chains(std::string_view e);

struct FileNames;
/// Fills each assertion's `sources` from the local definitions inside `unit` (a test or helper).
/// `names`: the file's imports, so a source is also recorded by its module (`add` imported from
/// calc and `calc.add` are the same function). Optional.
/// `imported`: what the functions of the test-side modules the file imports return
/// (ImportedDefs::returns), and the pytest fixtures of the conftest.py files (`fixtures`): a check
/// of a value one computes, or of a fixture parameter, also looks at that.
void resolve_operand_sources(const Syntax& s, TSNode unit, std::vector<Assertion>& asserts, const FileNames* names = nullptr,
                             const ImportedDefs* imported = nullptr);
/// The sources of what each top-level function of the file holding `root` returns, read with its
/// locals and recorded by module through `names` (`def compute(a, b): return add(a, b)` ->
/// {add, @calc.add}); functions that return nothing named are left out.
std::map<std::string, std::set<std::string>> returned_sources(const Syntax& s, TSNode root, const FileNames* names);

/// What a file's names refer to (file_names.cpp): the functions, matchers and macros it defines and
/// where its imported names come from.
struct FileNames {
  std::set<std::string> defined;                 ///< names the file defines (functions, MATCHERs, macros, variables)
  std::map<std::string, std::string> imported;   ///< local name -> module / import path / class
  std::vector<std::string> star_imports;         ///< modules imported on demand (Java `.*`, Go dot imports)
  /// Imported names bound to a module itself (Python `import calc`, JS `const calc = require(...)`,
  /// `import * as calc`, a Go package); the other imported names are members of their module
  /// (`from calc import add`, `import { add }`, a Java class).
  std::set<std::string> module_bindings;
  /// Member imports under another name: local name -> the member's own name (`from calc import
  /// add as plus`: plus -> add; C++ `using calc::add;`: add -> add).
  std::map<std::string, std::string> member_names;
  /// Does `callee` (`assert_equal`, `np.testing.assert_equal`, `slices.Equal`) name a function of a
  /// known assertion or comparison library, not one the file defines or takes from the project?
  bool library_name(std::string_view callee) const;
  /// A dotted name with its imported head spelled by module: `add` (from `from calc import add`)
  /// and `calc.add` (from `import calc`) are both `calc.add`; "" when the head is not imported (or
  /// the file redefines it).
  std::string canonical(std::string_view chain) const;
};
FileNames file_names(Lang lang, const std::string& src);

/// What a language file says about a node: a test (name non-empty), its decorators/annotations,
/// whether it is focused, its parametrized cases.
struct UnitInfo {
  std::string name;
  std::vector<std::string> decorators;
  bool focus = false;
  bool collectable = true;
  std::string hidden_by;  ///< when not collectable: the runner's rule that hides it (for the message)
  int cases = 1;
  bool cases_unknown = false;  ///< TestUnit::cases_unknown
  /// The test as a whole expects an assertion failure (jest/vitest `test.failing`, JUnit 4
  /// `@Test(expected = AssertionError.class)`, Rust `#[should_panic]` without an unrelated message):
  /// every check inside passes when it fails, so each counts as inverted.
  bool expects_failure = false;
};

UnitInfo python_unit(const Syntax& s, TSNode n, const std::string& scope, bool scope_collectable);
/// The values each parameter takes in a `@pytest.mark.parametrize(names, rows)` decorator, by
/// parameter name: each row's cell for it, whitespace removed, each followed by ';'
/// (`("a, exp", [(1, calc.add(1, 3))])` -> a: "1;", exp: "calc.add(1,3);"). Empty when the rows
/// are not a literal list.
std::map<std::string, std::string> parametrize_columns(std::string_view decorator);
UnitInfo jvm_unit(const Syntax& s, TSNode n, const std::string& scope);
UnitInfo cpp_unit(const Syntax& s, TSNode n);
UnitInfo js_unit(const Syntax& s, TSNode n, const std::string& scope);
UnitInfo go_unit(const Syntax& s, TSNode n);
UnitInfo rust_unit(const Syntax& s, TSNode n, const std::string& scope);

// ---- text helpers ----------------------------------------------------------------------------------

inline bool ends_with(std::string_view s, std::string_view x) { return s.size() >= x.size() && s.substr(s.size() - x.size()) == x; }
inline bool starts_with(std::string_view s, std::string_view x) { return s.substr(0, x.size()) == x; }
inline bool contains(std::string_view s, std::string_view x) { return s.find(x) != std::string_view::npos; }
std::string_view basename(std::string_view path);
std::string strip_spaces(std::string s);
/// A character of an identifier (letters, digits, `_`, `$`).
bool ident_char(char c);
/// A plain identifier, `ok`, `$el`, `_x1`: a letter, `_` or `$`, then ident_char's characters
/// (what the pattern `^[A-Za-z_$][\w$]*$` matches, without a regular expression).
bool is_plain_name(std::string_view s);
/// Lines `first`..`last` (1-based, inclusive) of `text` (a view into it; empty past its end).
std::string_view line_span(std::string_view text, int first, int last);
/// `name` as a whole identifier in `text`.
bool has_word(std::string_view text, std::string_view name);
/// The lines of `after` that `before` does not have (a multiset of lines compared without
/// whitespace), trimmed, in order: what a patch adds to a file (all of it when `before` is nullopt).
std::vector<std::string> added_lines(const std::optional<std::string>& before, const std::string& after);
/// Does JavaScript test code make jest count its checks (`expect.assertions(n)`,
/// `expect.hasAssertions()`)? A check in a catch clause must then run.
bool jest_counts_assertions(std::string_view code);
/// One line of code with the contents of its string literals blanked (the quotes kept) and a
/// trailing comment dropped (`#` in Python, `//` elsewhere).
std::string code_only(std::string_view line, Lang lang);
/// One line of Python without its trailing comment (a `#` outside quotes), strings kept.
std::string python_without_comment(const std::string& line);
/// An expression without TypeScript's type assertions, which change no value: `(o.headers as
/// Headers).get(k)` -> `(o.headers).get(k)`, `x satisfies T`, `x as const`, `o.headers!.get(k)`.
/// Rust's numeric casts (`v as u8`), which do change the value, are kept.
std::string without_type_assertions(std::string_view expr);
/// Is `e` (whitespace removed) one literal: a number (`4`, `-1.5e-3`, `0xFF`), a string without
/// interpolation (`"x"`, `'x'`, a template literal without `${`), a boolean or a null of any of
/// the languages (`True`, `None`, `nil`, `null`, `undefined`)?
bool literal_text(const std::string& e);
/// The index of the bracket (any of `([{`) closing the one at `open` in `t`, quotes skipped (a
/// backslash escapes inside them, except in backticks when `raw_backticks`: Go's raw strings);
/// npos when unbalanced.
std::size_t matching_close(std::string_view t, std::size_t open, bool raw_backticks = false);
/// The index of the `)` that closes the `(` at `open` in `s`, or s.size() when it is not closed.
std::size_t closing_paren(std::string_view s, std::size_t open);
std::string trim(std::string_view s);
/// A name made only of ASCII letters, digits and `_`: safe in a regular expression as it is (unlike
/// ident_char's names, which admit `$`). Empty is not one.
bool regex_safe_name(std::string_view s);
std::string quote(std::string_view line);  ///< a line shortened for a message
/// Splits at top-level separators (outside brackets and quotes).
std::vector<std::string> split_top(std::string_view text, std::initializer_list<std::string_view> seps);
/// Does `text` use any name bound in `names` (`a, (b, c)`, `[a, b]`, `(n)`) as a whole word?
bool uses_any_word(std::string_view names, std::string_view text);
/// Does a runner's entry point (a Go TestMain, a C/C++ test main()) end with a status other than
/// the one its run returned? `held` finds the name bound to the run's result (group 1), `ends` each
/// exit with its status (group 1); `run` is the run's call as written without spaces (`.Run()`,
/// `RUN_ALL_TESTS`). The status passes on when an exit names the run, returns the name or tests it
/// (`failed ? 1 : 0`), and the name is bound once.
bool run_status_replaced(const std::string& text, const rx::regex& held, const rx::regex& ends, std::string_view run);
/// One interpolation of an f-string or a template literal: the expression, its conversion (`s`,
/// `r`, `a` of Python's `!s`; "" otherwise) and its format spec (`.2f`, `.{n}f`; "" for none).
struct Interpolation {
  std::string expression, conversion, spec;
};
/// The interpolations of a string literal's body (between the quotes): Python f-string fields
/// (`{x / 10:.{n}f}`, `{{` is a brace) when `template_literal` is false, `${...}` substitutions of a
/// JS template literal when true.
std::vector<Interpolation> interpolations(std::string_view body, bool template_literal);
/// Elements of a list/tuple/array literal `[a, b]` (0 when not a literal).
int count_elements(std::string_view list);
/// Walks the syntax tree under `n` in source order: `comment(x)` for each comment node (`comment`,
/// `line_comment`, `block_comment`; not entered), `leaf(x)` for every other leaf (or node at the
/// depth cap). The one walk behind comparing code without its comments (a test body's token hash,
/// a decorator's text).
void walk_code(TSNode n, const std::function<void(TSNode)>& comment, const std::function<void(TSNode)>& leaf);

/// Calls `fn(line_number, line)` for each line of `text` (1-based numbers), each line cut to
/// kRegexLineChars (what the regular-expression rules read of a line).
template <class Fn>
void for_each_capped_line(const std::string& text, Fn&& fn) {
  int n = 1;
  for (std::size_t p = 0; p < text.size(); ++n) {
    auto e = text.find('\n', p);
    if (e == std::string::npos) e = text.size();
    const std::string line = text.substr(p, std::min<std::size_t>(e - p, kRegexLineChars));
    fn(n, line);
    p = e + 1;
  }
}

/// The distinct rows of a table written in the code (whitespace removed): a list/tuple/array
/// literal, a comprehension over one (without a filter), `zip(...)`/`enumerate(...)` of literals,
/// JS `[...].map(fn)`; nullopt when the rows are not written out.
std::optional<std::vector<std::string>> literal_table(std::string_view text);

bool platform_condition(std::string_view text);
/// The conditions a test definition sits under (Python: module/class-level `if`/`elif`/`else` up to
/// the enclosing function; JS: every enclosing `if`), joined with " and "; "" when none.
std::string definition_condition(const Syntax& s, TSNode n, Lang lang);
/// A condition no supported interpreter makes true: `False`, `0`, `None`, `sys.version_info`
/// compared with a version outside 3.0-3.99 on the wrong side (`< (2,)`, `>= (3, 99)`).
bool never_true_condition(std::string_view cond);
/// Marker prefix of a test defined under a condition (definition_condition).
inline constexpr std::string_view kDefinedOnlyIf = "build: defined only if ";
/// TestUnit::hidden_by of a Python `async def` test in a file that names no async runner: the
/// project's pytest configuration (asyncio_mode = auto) may still run it (rules_tests.cpp).
inline constexpr std::string_view kAsyncWithoutPlugin =
    "the test became a coroutine (async def) and the file uses no async plugin: pytest skips it and unittest never awaits it";
std::optional<std::string> skip_marker(std::string_view text);

/// Lines of `after` not in `before` (multiset difference), with their 1-based line numbers.
std::vector<std::pair<int, std::string>> added_lines(const std::optional<std::string>& before,
                                                     const std::optional<std::string>& after);

/// The last name segment of a test id in any runner's syntax (`a/b.py::C::test_x[1]` -> `test_x`).
std::string test_tail(std::string_view id);
/// A path below a folder named like a test folder (whole names: tests/, __tests__/, unit_test/; not
/// latest/). is_test_path() adds test files' own names.
bool in_test_folder(std::string_view path);
bool names_failing_test(const std::vector<std::string>& failing, std::string_view test);

// ---- rule families ---------------------------------------------------------------------------------

using Findings = std::vector<IntegrityFinding>;

/// A helper that skips the tests calling it (a skip call in its body): the skip and where the
/// helper is, and whether the skip is conditional on the platform.
/// The branch a Python helper skips in, when it tests one of its parameters against a string
/// literal (`if name.endswith(".yaml"): pytest.importorskip("yaml")`): a call whose argument at
/// `param` is a string literal that fails the test never reaches the skip.
struct ArgumentGuard {
  int param = -1;           ///< position of the tested parameter, -1 when the skip is not under such a test
  std::string op;           ///< "endswith", "startswith", "==", "!=", "in" (literal in param), "not in"
  std::string literal;
  /// Does an argument with this literal value take the skipping branch?
  bool taken(const std::string& value) const;
};
/// The guard around the skip at `skip_line` (1-based) of the Python helper whose `def` is at
/// `def_line` in `text`; param -1 when there is none.
ArgumentGuard python_skip_guard(const std::string& text, int def_line, int skip_line);

struct SkipHelper {
  std::string marker;
  bool conditional = false;
  ArgumentGuard guard;  ///< a skip only some arguments reach (Python)
};

struct RuleContext {
  const FileVersions& file;
  Lang lang;
  bool test_file;
  const FileModel& before;
  const FileModel& after;
  const IntegrityOptions& options;
  /// A project module (not a test file, not the developer's change) that the tests import, at any
  /// depth (kImportFilesBudget), and that is test support code (test_support_module): a helper whose code
  /// runs as test code. (The mock rule reads every module the tests import.)
  bool imported_by_tests = false;
  /// Any project module the tests import (test support or not): what it prints, the tests print.
  bool reached_by_tests = false;
  /// Helpers defined outside this test file that skip (external_skip_helpers), by name; null: none.
  const std::map<std::string, SkipHelper>* skip_helpers = nullptr;
  /// Lines the patch adds to test files and test-support modules, by path (after less before, as
  /// a multiset of lines): where a patch can put an oracle beside the test (a conftest fixture, a
  /// helper module); null: none.
  const std::map<std::string, std::vector<std::string>>* support_added = nullptr;
  /// Every file of the patch (before and after): a project module the patch writes is read as it
  /// will be; null: none.
  const std::vector<FileVersions>* patch_files = nullptr;
};

/// Test-by-test comparison of one file (skip, focus, deletion, strength, swallowing).
struct GoneTest {
  std::string path;
  const TestUnit* unit;
  bool file_deleted;
  /// A test still there that checks less (`finding`, assertion_removed): settled at the end, when
  /// the tests the patch adds are known (checks split off into new tests are not removed).
  const TestUnit* kept = nullptr;
  std::optional<IntegrityFinding> finding;
  /// The file's old model (its helpers: a fixture's `ExpectEmit` is where the test's checks are).
  const FileModel* model = nullptr;
};
struct NewTest {
  std::string path;
  Lang lang;
  const TestUnit* unit;
};
void compare_tests(const RuleContext& c, Findings& out, std::vector<GoneTest>& gone, std::vector<NewTest>& added);
/// Python: were the file's skips only moved, written another way (`@skipif(C)` on a test ->
/// `pytestmark = skipif(C)`, a module-level `if C: pytest.skip(...)`, a fixture that skips, a
/// try-import, `importorskip`)? Each test the file kept skips under no condition it did not skip
/// under before, each new one under none the old tests did not, at least one test was kept, and
/// the new file skips under some condition read. With `line`, that line must be one of the skips
/// read (a skip the reader did not see, through an alias built at run time, is no moved one).
bool python_skips_only_moved(const RuleContext& c, int line = 0);
/// Tests gone from one place and found (same checks) in another are renamed or moved, not deleted.
void settle_gone_tests(const std::vector<GoneTest>& gone, const std::vector<NewTest>& added,
                       const std::vector<const FileModel*>& after_models, const std::vector<std::string>& after_paths,
                       const std::vector<FileVersions>& files, const IntegrityOptions& options, Findings& out);
/// Why `after` checks less than `before`, or nullopt when it checks as much.
std::optional<IntegrityFinding> compare_checks(const TestUnit& before, const TestUnit& after, const std::string& path);
/// The parameter names of the definition of `name` in `def_text` (the first parenthesized list
/// after the name); `self`, `cls` and `this` left out.
std::vector<std::string> definition_params(const std::string& def_text, const std::string& name, Lang lang);
/// The defaults of those parameters that have one (whitespace removed): `def check(a, strict=False)`
/// -> {strict: "False"}; JS `function check(a, strict = false)` likewise.
std::map<std::string, std::string> definition_param_defaults(const std::string& def_text, const std::string& name, Lang lang);
/// The argument lists of the calls of each of `names` in `body` (by plain name, `self.`/`this.`,
/// or through one of `modules`: `helpers.check(`; "*": through any name), whitespace removed (at
/// most 64 calls per name).
std::map<std::string, std::vector<std::vector<std::string>>> call_arguments(const std::string& body, const std::set<std::string>& names,
                                                                            const std::set<std::string>& modules = {});

/// `text` with each whole-word occurrence of an old name of `renamed` (old -> new) spelled the new
/// way: the old version of a test file as it reads after the developer's rename.
std::string with_renames(const std::string& text, const std::map<std::string, std::string>& renamed);

/// A test with the assertions of the helpers it calls (same file, transitively) appended.
TestUnit with_helpers(const TestUnit& t, const FileModel& m);
/// Is this check one that counts (not a literal-only one, not dead, not inverted)?
bool counts(const Assertion& a);
/// `text` (whitespace removed) with its number literals written by value: an integer as its
/// digits (`0x2`, `0b10`, `2` read `2`; `1_000` reads `1000`), a float as its value (`2.0`, `2.`,
/// `2e0`, `20e-1` read alike). `loose` (Python and JavaScript, where `2 == 2.0`): an integral float
/// reads as the integer, and plain strings read the same in either quotes. Text inside strings,
/// suffixed or leading-zero literals (`2L`, `2n`, `010`) and integers too large to convert stay as
/// written. Two operands that read alike compute the same thing (rules_tests.cpp).
std::string by_value(std::string_view text, bool loose = false);

/// Ecosystem rules: runner hooks, runner configuration, shadowing modules, build tags.
void python_rules(const RuleContext& c, Findings& out);
void js_rules(const RuleContext& c, Findings& out);
void jvm_rules(const RuleContext& c, Findings& out);
void go_rules(const RuleContext& c, Findings& out);
void cpp_rules(const RuleContext& c, Findings& out);
void rust_rules(const RuleContext& c, Findings& out);

/// Whole patch: test code that replaces production code the failing tests exercise with a mock
/// (mocked_code_under_test); reads the change's and the project's files from IntegrityOptions.
/// `helpers`: test_imported_modules (helper modules are read like test code, and the tests that
/// import them tell what they exercise).
void mock_rules(const std::vector<FileVersions>& files, const IntegrityOptions& options,
                const std::map<std::string, std::string>& helpers, Findings& out);
/// Every language: test-side code that ends the runner's process (runner_terminated) and code that
/// names or reads the runner's report location (report_tampered).
void runner_process_rules(const RuleContext& c, Findings& out);
/// Test-side code (test files, conftest.py, modules the tests import, shell test scripts) that
/// prints TAP itself — a plan, `ok N` test points, tape-style `# tests`/`# pass` trailers — which
/// the validator's TAP parser believes when its counts agree (report_tampered).
void tap_output_rules(const RuleContext& c, Findings& out);
/// Test code that replaces the assertion functions themselves (assertion_replaced): a unittest
/// assertEqual override, `self.assertEqual = ...`, a local definition shadowing an imported
/// assertion helper, `const assert = {...}` / a shadowed `expect` in JS, a JUnit assertion
/// redefined in the test class.
void assertion_def_rules(const RuleContext& c, Findings& out);
/// Patch files the tests import (test_imported_modules): path -> the texts of the test-side files
/// that import them (what the tests use of a helper). Project modules only, at any depth (within
/// kImportFilesBudget/kImportBytesBudget) from the patch's test files and the failing tests' files (read with IntegrityOptions::read_head_file);
/// test files, conftest.py and the developer's change (the code under test) are not helpers.
/// A Go file's package name (`package calc_test` -> calc_test; "" when none is read).
std::string go_package(const std::string& text);
/// For Go, a test file's helper modules are its folder's other test files of the same package that
/// define no test (`helpers_test.go`); for C/C++, the headers it includes.
/// `unchanged` (optional): the helper modules the tests import that the patch leaves as they are,
/// path -> text (the head's), read within the same budget.
/// `unpatched_tests` (optional): the test files read from the head that the patch leaves alone and
/// that may call a helper the patch changes: the failing tests' files, the test files of a changed
/// Go helper file's package, the C/C++ test sources naming a changed test-support header (path, text).
std::map<std::string, std::string> test_imported_modules(const std::vector<FileVersions>& files, const IntegrityOptions& o,
                                                         std::map<std::string, std::string>* unchanged = nullptr,
                                                         std::vector<std::pair<std::string, std::string>>* unpatched_tests = nullptr);
/// Per test file of the patch: the helpers it can call that are defined in other project files
/// (the modules it imports; for Go, its package's other test files), read through the patch or the
/// head (within a budget of 64 files and 8 MiB), whose body skips (TestUnit::markers): name -> skip.
std::map<std::string, std::map<std::string, SkipHelper>> external_skip_helpers(const std::vector<FileVersions>& files,
                                                                            const IntegrityOptions& o);
/// Test support code rather than production code: under a test path, importing a test framework
/// (pytest, unittest, hypothesis, node:test, tape, chai, sinon, jest/vitest globals, ...), or named
/// like one (helpers, testing, testutil, fixtures, fakes, stubs, mocks).
bool test_support_module(std::string_view path, const std::string& text);
/// A skip call (pytest.skip, SkipTest, t.skip, t.Skip, GTEST_SKIP, assume*) added outside any test:
/// in a helper, a helper module or the code under test, it skips every test that reaches it
/// (skip_added) unless a platform condition guards it.
void helper_skip_rules(const RuleContext& c, Findings& out);
/// An expected literal replaced by a value computed through another function of the same module
/// as the checked call (`assert add(2, 2) == 4` -> `want = add_all([2, 2]); assert add(2, 2) ==
/// want`): assertion_weakened. Oracle tests that compared two functions before, or new tests, are honest.
void oracle_replacement_rules(const RuleContext& c, Findings& out);
/// A helper of a module the tests import (`importers`: the texts of the files that import it)
/// whose body now only returns a constant truthy value while the tests assert on it
/// (assertion_weakened): `assert same(x, 4)` with `def same(a, b): return True` in helpers.py.
void imported_helper_tautologies(const RuleContext& c, const std::string& importers, Findings& out);
/// The assertion library patched from any module: unittest.TestCase's assertions, builtins the
/// checks use, pytest/numpy.testing attributes, node's assert/expect/chai members (assertion_replaced).
void assertion_patch_rules(const RuleContext& c, Findings& out);
/// Names that stand for time, randomness, the network or the environment (`timeNow`, `randInt`,
/// `httpGet`): swapping them is how tests make such dependencies deterministic.
bool external_looking(std::string_view name);
/// Whole patch: test-side files and definitions that shadow the code under test by name resolution
/// (mocked_code_under_test): a new test-side Python module named like a top-level production module,
/// a test-tree JVM class with a production class's fully qualified name, a jest `__mocks__` file for
/// a project module, a C/C++ `#define` or function in test code named like a production function the
/// test uses, a Go init()/TestMain in a test file assigning package-level production state.
void shadowing_rules(const std::vector<FileVersions>& files, const IntegrityOptions& options, Findings& out);
/// Whole patch: tests hidden through the build graph (collection_disabled / build_tag_added): a
/// removed Rust `mod x;` whose file still holds tests, a changed cfg on it, a test source dropped
/// from every build file's lists while the source stays in the tree.
void collection_rules(const std::vector<FileVersions>& files, const IntegrityOptions& options, Findings& out);
/// A C/C++ (or Objective-C, CUDA) source file by its extension: not a header.
bool cpp_source_path(std::string_view path);
/// Paths: the folder of a path ("" at the root), `a/./b/../c` -> `a/c` ("" when it climbs out), joined.
std::string dir_of(std::string_view path);
std::string normalize(const std::string& path);
std::string join(const std::string& dir, const std::string& rel);
/// Language-neutral: diff attributes, unsupported languages and parse failures, skip lists,
/// production code that detects a test run.
void file_rules(const RuleContext& c, Findings& out);
/// CI workflows, Makefiles, pre-commit configurations and test scripts (rules_ci_scripts.cpp):
/// added test selection or excuses, and removed test invocations (runner_config_exclusion).
void runner_script_rules(const RuleContext& c, Findings& out);

/// Shared by the ecosystem rules: an added line holding any of `needles` is a finding `rule`.
bool flag_added(const RuleContext& c, Findings& out, std::string_view rule, std::string_view why,
                std::initializer_list<std::string_view> needles);
/// A line holding any of `needles` was removed.
bool flag_removed(const RuleContext& c, Findings& out, std::string_view rule, std::string_view why,
                  std::initializer_list<std::string_view> needles);
/// A configuration key (`testMatch`, "testMatch", testMatch =, testMatch:) on the line.
bool has_key(std::string_view line, std::string_view key);
/// Keys added or removed (lines holding them changed) between the two versions.
/// `ignore` leaves out lines that only look like keys (a dependency named "jest" in package.json).
bool flag_changed_keys(const RuleContext& c, Findings& out, std::string_view rule, std::string_view why,
                       std::initializer_list<std::string_view> keys, bool (*ignore)(std::string_view) = nullptr);

}  // namespace flowagent::integrity
