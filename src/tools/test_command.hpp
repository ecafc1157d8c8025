// Internal: running the request's build/test commands in a workspace and reading their results.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "flowagent/process.hpp"
#include "flowagent/reports.hpp"
#include "flowagent/request.hpp"
#include "flowagent/result.hpp"

namespace flowagent::detail {

/// Runs a shell command in the workspace with the request's timeout and the sandbox environment.
Expected<ProcessResult> run_command(const std::filesystem::path& root, const std::string& command,
                                    const RepairRequest& request, const CancelToken& cancel, bool no_network);

/// Expands `{tests}` with the shell-quoted test ids, space-separated. Without the placeholder the
/// command runs as is.
std::string expand_tests(const std::string& command, const std::vector<std::string>& tests);

/// Regular files below `root` (outside .git) matching one of the workspace-relative `globs`
/// (fnmatch) and written at or after `since`.
std::vector<std::filesystem::path> reports_written_since(const std::filesystem::path& root,
                                                         const std::vector<std::string>& globs,
                                                         std::filesystem::file_time_type since);

struct TestRunOutcome {
  TestRun run;
  std::vector<reports::TestCase> failures;
  std::string log;
};

/// Runs the test command for `tests`, then reads per-test results from the report files matching
/// commands.report_globs (written during this run) or, failing that, from the output text.
Expected<TestRunOutcome> run_tests(const std::filesystem::path& root, const RepairRequest& request,
                                   const std::vector<std::string>& tests, const CancelToken& cancel, bool no_network,
                                   std::string purpose, const std::string& command_override = {});

}  // namespace flowagent::detail
