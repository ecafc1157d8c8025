// Internal: knowing the test runner behind a test command, asking it for a machine-readable report
// in a directory flowagent controls, and reading the results of one run as evidence.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "flowagent/cancel.hpp"
#include "flowagent/error.hpp"
#include "flowagent/sandbox.hpp"
#include "flowagent/reports.hpp"
#include "flowagent/request.hpp"
#include "flowagent/result.hpp"
#include "reports/test_identity.hpp"

namespace flowagent::detail {

/// The first runner named in a test command template (pytest, jest, vitest, go test, ctest,
/// node --test, tape, mvn, gradle, cargo; GoogleTest when the template passes --gtest_ flags).
reports::Runner detect_runner(std::string_view command_template);

/// 16 random hex digits, for names of private files and directories in a checkout.
std::string random_suffix();

/// A test command rewritten to leave a machine report in `report_dir`.
struct RunnerPlan {
  reports::Runner runner = reports::Runner::unknown;
  std::string command_template;  ///< still holds {tests}
  std::string stdout_format;     ///< "go-json" / "tap" when the runner's stdout is the report, else ""
};

/// pytest: --junitxml=<dir>/pytest.xml -o junit_family=xunit1; jest: --json --outputFile=<dir>/jest.json;
/// vitest: --reporter=json --outputFile=<dir>/vitest.json (plus the default reporter);
/// go test: -json (stdout); ctest: --output-junit <dir>/ctest.xml; node --test: a TAP reporter to
/// <dir>/node.tap plus spec on stdout; tape: TAP on stdout. GoogleTest anywhere in the command:
/// GTEST_OUTPUT=json:<dir>/ (one file per binary). Maven/Gradle: their report folders, read only
/// when written during the run.
/// With `root`, `npm test` / `npm run X` / `yarn X` / `pnpm X` are resolved through the scripts
/// of root/package.json (jest, vitest and pytest then get their flags after "--").
/// `extra_flags` (each starting with a space) go right after the report flags, where the runner
/// reads its own options (the assertion check's coverage flags for jest and vitest).
RunnerPlan plan_runner(const std::string& command_template, const std::filesystem::path& report_dir,
                       const std::filesystem::path& root = {}, const std::string& extra_flags = {});

/// What one run showed.
struct Observed {
  TestRun run;                               ///< passed/failed ids, exit code, report_format
  std::vector<reports::TestCase> tests;      ///< every test the results show (skipped included)
  std::string log;
  reports::Runner runner = reports::Runner::unknown;
  bool readable = false;                     ///< some structured result was read (a report or the output)
  /// Why the runner's own terminal summary (pytest's "N passed", go's package result, gtest's
  /// footer, jest/vitest/node/tape counts, ctest's "N% tests passed", surefire's "Results:",
  /// Gradle's counts or build result, cargo's "test result:" per test binary) is missing or
  /// contradicts the structured results; empty
  /// when they agree or the runner prints none. A report written by test code that then ended the
  /// process has no summary after it: such a run is unverified, never a pass.
  std::string summary_problem;
};

/// The check behind Observed::summary_problem, on a finished run's output.
std::string summary_contradiction(reports::Runner runner, std::string_view output, const std::vector<reports::TestCase>& tests);

/// Why TAP read from a run's output does not count its own results: every TAP stream (from one
/// `TAP version` line to the next) that shows test points must carry one top-level plan `1..N`
/// agreeing with its top-level test points, and its trailer counts, when printed (tape's `# tests`/
/// `# pass`/`# fail`, node's `# tests`/`# pass`/`# fail`/`# skipped`/`# todo`), must agree with the
/// points seen (`# tests` counts every point, nested ones included). Empty when they agree. A script
/// echoing `ok 1 - x`, or a test that prints test points into a real runner's stream, does not.
std::string tap_count_problem(std::string_view output);

/// Runs `command_template` (the request's test command, or `override`) for `tests` in `root`
/// with a fresh report directory inside the tree, then reads the results: the machine report
/// first, then report_globs written during the run, then the output. The directory is removed.
/// Every id (check_test_id: they may come from reports the patch's tests wrote) and the template
/// (check_test_template) are checked first; a bad one is an error and nothing runs. The command
/// runs in the sandbox (`sandbox` null: the defaults).
Expected<Observed> observe_tests(const std::filesystem::path& root, const RepairRequest& request,
                                 const std::vector<std::string>& tests, const CancelToken& cancel, const SandboxOptions* sandbox,
                                 std::string purpose, const std::string& command_override = {});

}  // namespace flowagent::detail
