// Fail to pass's values for go test (issue 11): the calls a Go test makes of its package's
// functions, read from its source, and a driver that makes them again outside any test.
//
// pytest and node record the calls the tests make at run time and drive them through a plugin or
// a preload; go test has no such hook (a test binary is compiled code). So the calls are read from
// the test's text: calls of the package's functions with constant arguments (literals, a local
// bound once to one, a row of a literal table the call's loop ranges over, a parameter of a helper
// of the test file called with such arguments), and driven by a generated file of the package
// (non-test, so the package's test files need not compile on every version) plus a `main` package
// beside it that imports the package, run with `go run`.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace flowagent::detail::go_values {

/// The functions without receiver declared in `text` (a Go source file) that return something
/// (`func Add(a, b int) int`): what a driver can ask for a value. Generic functions are left out.
std::set<std::string> result_functions(const std::string& text);

/// A call read from a test: the function and its arguments as a JSON array (`[2, 2]`, `["ab"]`).
struct ReadCall {
  std::string name;
  std::string args;  ///< JSON array text
};

struct TestCalls {
  bool found = false;       ///< the test function is defined in the text
  std::vector<ReadCall> calls;  ///< in source order, table rows in table order; deduplicated
  /// A call of one of `functions` whose arguments could not all be read as constants (a variable
  /// computed at run time, a rune, a composite value), or in a helper whose arguments could not:
  /// what the test asks of the function is not fully known.
  bool incomplete = false;
};

/// The calls test function `test` of the Go test file `text` makes of `functions` (called plainly,
/// or as `qualifier.Name` when `qualifier` is not empty: an external `_test` package importing the
/// package), at most `cap` of them. Helpers of the file the test calls are followed two levels.
/// `text` may hold the package's other test files after the test's own (their helpers and tables
/// are the package's). A constant argument is a literal, a local bound once to one, a field of a
/// row of a literal table the call's loop ranges over (nested struct values flattened:
/// `tt.args.a`), a parameter of a helper called with one, or a package constant in `constants`
/// (package_constants; `calc.One` through the qualifier) that nothing local shadows. A call whose
/// answer the test does not look at (an argument of `t.Logf`/`t.Errorf`/`fmt.Println`, a
/// statement of its own, `_ = Add(1, 3)`) is not read.
TestCalls test_calls(const std::string& text, const std::string& test, const std::set<std::string>& functions,
                     const std::string& qualifier, const std::map<std::string, std::string>& constants = {}, std::size_t cap = 400);

/// The constants `text` (Go source) declares with a literal value (`const one = 1`, in a `const
/// (...)` block too; iota's implicit repeats left out): name -> JSON.
std::map<std::string, std::string> package_constants(const std::string& text);

/// The package name a Go file declares ("" when none).
std::string package_name(const std::string& text);

/// Go source of a file of package `package` defining `FlowagentValuesDrive(out string)`, which
/// makes each call (name, JSON arguments) on a line of its own, in order, and writes to `out` a
/// JSON array of strings: each answer as `%#v` formats it (several results joined by ", "), or
/// "raise:<value>" when the call panics. `first_line`: the line of the first call in the file (a
/// compile error on line first_line + i names call i).
std::string driver_source(const std::string& package, const std::vector<ReadCall>& calls, int* first_line = nullptr);

/// Go source of `package main` calling the driver of the package imported as `import_path`.
std::string main_source(const std::string& import_path, const std::string& out);

/// The lines of `file_name` that a go build's output names in compile errors (`./x.go:12:5: ...`).
std::set<int> error_lines(const std::string& output, const std::string& file_name);

/// What a test command gives `go test` that a `go run` of the driver needs too: the environment
/// assignments in front of it (`GOCACHE=/c GOFLAGS=-mod=mod `, each followed by a space) and its
/// build tags (` -tags=integration`: they select the package's files).
struct GoCommand {
  std::string env, flags;
};
GoCommand go_command_of(const std::string& test_command);

/// `go.mod`'s module path ("" when none).
std::string module_path(const std::string& go_mod);

/// A Go test id as go test names it (`example.com/m/pkg/TestAdd/case_1`, `TestAdd`): the test
/// function (`TestAdd`), "" when none.
std::string test_function(const std::string& id);

}  // namespace flowagent::detail::go_values
