// Internal: the one place that decides when two test names denote the same test.
//
// Runners and reports spell one test many ways:
//   pytest   tests/test_x.py::Class::test_a[p-1]   test_x.py::test_a   tests.test_x.Class.test_a[p-1] (JUnit XML)
//   gtest    Suite.Test   Inst/Suite.Test/0 (value-parametrized)   Suite/0.Test (typed)
//   Java     pkg.Class#method   pkg.Class.method   method(pkg.Class) (JUnit 4 text)   method() (JUnit 5)
//   go       example.com/m/pkg/TestX/sub   TestX/sub
//   jest     describe › it   describe > it   describe it (fullName)
//   TAP      parent > child (subtests)   tape's `# name` sections
// A name is split into structural segments (file path without its extension, scopes, the test) and
// a parameter part. `denotes(requested, reported)` holds when the segments of the shorter name are
// the last segments of the longer one (compared with single spaces between segments, so jest's
// "describe it" equals "describe › it") and, when the requested name has parameters, they are
// equal; a requested name without parameters denotes every parametrization of the test.
// [Threading] pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace flowagent::reports {

/// Test runners flowagent knows by name (detected from a test command, see validate/runner.hpp).
enum class Runner { unknown, pytest, jest, vitest, go, ctest, gtest, node_test, tape, maven, gradle, cargo };

std::string_view to_string(Runner runner) noexcept;

struct TestName {
  std::vector<std::string> segments;  ///< "tests","test_x","Class","test_a"
  std::string params;                 ///< "p-1" for test_a[p-1]; gtest instance "Inst/0"; empty when none
  bool has_params = false;
};

/// Splits a test id into segments and parameters (never fails; an empty id has no segments).
TestName parse_test_name(std::string_view id);

/// True when `reported` (a name from a report) is the test `requested` names, or one of its
/// parametrizations when `requested` has no parameters.
bool denotes(std::string_view requested, std::string_view reported);

/// Symmetric form of denotes(): either name denotes the other.
bool same_test(std::string_view a, std::string_view b);

/// True when some name in `names` denotes `test` or is denoted by it.
bool contains_test(const std::vector<std::string>& names, std::string_view test);

/// The test's own name: the last segment without parameters ("test_a" for tests/x.py::C::test_a[1]).
std::string leaf_name(std::string_view id);

/// Selectors for the enclosing test file or target of `id`, in the form `runner` takes them in a
/// `{tests}` placeholder: pytest "tests/test_x.py", gtest "Suite.*" (and "*/Suite.*/*" for
/// parametrized suites), Java "pkg.Class", go "TestX" for a subtest, jest the describe block.
/// Empty when the runner cannot select an enclosing unit by name.
std::vector<std::string> enclosing_scope(std::string_view id, Runner runner);

/// How `runner` selects the test `id` names on its command line. Go: the package path a report puts
/// in front of the test ("example.com/m/pkg/TestX/sub", as `go test -json` reports it) is dropped,
/// since `-run` matches test names only ("TestX/sub"); the results are then matched to the
/// package-qualified id. Other runners: the id as is.
std::string runner_selector(std::string_view id, Runner runner);

/// The name a test's source gives it, as the patch would spell it when it defines the test: the
/// last " > " part of a TAP/tape/node:test name (free text: dots and slashes are part of it), the
/// last "::" part of a cargo path, else leaf_name().
std::string defined_name(std::string_view id, Runner runner);

/// Heuristic for "new_id replaced old_id": the same test name with other parameters, one name
/// extending the other ("test_parse" -> "test_parse_value"), or a small edit distance.
bool similar_names(std::string_view old_id, std::string_view new_id);

}  // namespace flowagent::reports
