// Internal: running the request's build/test commands in a workspace and reading their results.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "flowagent/process.hpp"
#include "flowagent/reports.hpp"
#include "flowagent/request.hpp"
#include "flowagent/result.hpp"
#include "flowagent/sandbox.hpp"

namespace flowagent::detail {

/// The sandbox options used when a caller passes none: the defaults (sandboxed, fail closed).
const SandboxOptions& default_sandbox_options();

/// Runs an untrusted shell command in the workspace, inside the sandbox (run_sandboxed), with the
/// request's timeout; the request's model key variable is never passed. `sandbox` null: defaults.
/// Errc::sandbox_unavailable when the sandbox cannot be set up and the host did not opt out.
/// `timeout` non-zero: a shorter, millisecond-precise timeout (the localizer's budget).
Expected<ProcessResult> run_command(const std::filesystem::path& root, const std::string& command,
                                    const RepairRequest& request, const CancelToken& cancel,
                                    const SandboxOptions* sandbox, std::chrono::milliseconds timeout = {});

/// The record of one finished run of `command` (as the caller shows it) for `purpose`: exit code,
/// timeout, the sandbox bound that stopped it, duration; its passed/failed lists are empty.
TestRun test_run_of(std::string command, const ProcessResult& r, std::string purpose);

/// Expands `{tests}` with the shell-quoted test ids, space-separated (after `--` for runners that
/// read it as the end of options, pytest, when the placeholder ends its command). `{tests|SEP}`:
/// the ids joined with SEP as one shell-quoted word. Without the placeholder the command runs as is.
/// The caller has checked the ids (check_test_id) and the template (check_test_template).
std::string expand_tests(const std::string& command, const std::vector<std::string>& tests);

/// Regular files below `root` (outside .git) matching one of the workspace-relative `globs`
/// (fnmatch) and written at or after `since`.
/// Bytes of runner reports flowagent reads after one run, all files together: reports are written
/// by test code, and each is parsed in flowagent's own memory, outside any sandbox bound. Files
/// past the budget are not read (the run's evidence is then incomplete, never invented).
inline constexpr std::uintmax_t kReportBytesPerRun = 32u << 20;

/// `files` in order, keeping only regular files (not symlinks) while their sizes sum to at most
/// kReportBytesPerRun.
std::vector<std::filesystem::path> within_report_budget(const std::vector<std::filesystem::path>& files);

std::vector<std::filesystem::path> reports_written_since(const std::filesystem::path& root,
                                                         const std::vector<std::string>& globs,
                                                         std::filesystem::file_time_type since);

/// The test command a run uses (`command_override`, else commands.test), after checking it
/// (check_test_template) and every id (check_test_id, source "test ids of the <purpose> run"):
/// Errc::invalid_argument without a command, Errc::schema for a bad id or template. Every runner
/// of test commands calls it before anything runs.
Expected<std::string> checked_test_template(const RepairRequest& request, const std::vector<std::string>& tests,
                                            const std::string& purpose, const std::string& command_override = {});

struct TestRunOutcome {
  TestRun run;
  std::vector<reports::TestCase> failures;
  std::string log;
};

/// Checks every id (check_test_id, source `purpose`) and the template (check_test_template): a bad
/// one is Errc::schema and nothing runs. Then runs the test command for `tests`, then reads per-test results from the report files matching
/// commands.report_globs (written during this run) or, failing that, from the output text.
Expected<TestRunOutcome> run_tests(const std::filesystem::path& root, const RepairRequest& request,
                                   const std::vector<std::string>& tests, const CancelToken& cancel,
                                   const SandboxOptions* sandbox, std::string purpose,
                                   const std::string& command_override = {}, std::chrono::milliseconds timeout = {});

}  // namespace flowagent::detail
