// Internal: running git without a shell, hooks disabled, prompts off.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "flowagent/cancel.hpp"
#include "flowagent/error.hpp"
#include "flowagent/process.hpp"

namespace flowagent::detail {

/// Runs `git -C dir <args>`; returns stdout+stderr on exit 0, else Errc::process with the output.
Expected<std::string> git(const std::filesystem::path& dir, const std::vector<std::string>& args,
                          const CancelToken& cancel = CancelToken(),
                          std::chrono::milliseconds timeout = std::chrono::minutes(5));

/// Like git() but returns the ProcessResult whatever the exit code.
Expected<ProcessResult> git_result(const std::filesystem::path& dir, const std::vector<std::string>& args,
                                   const CancelToken& cancel = CancelToken(),
                                   std::chrono::milliseconds timeout = std::chrono::minutes(5));

/// Trims trailing newlines.
std::string chomp(std::string s);

}  // namespace flowagent::detail
