// flowagent/process.hpp: runs build and test commands, confined and bounded.
//
// Each command runs in its own process group with stdin on /dev/null, a reduced environment
// (allow-list), resource limits, a wall-clock timeout that kills the whole group, and optionally
// without network (a private network namespace holding only loopback). Output (stdout and stderr
// interleaved) is captured up to a cap that keeps the head and the tail.
//
// [Threading] run_process is reentrant; many may run at once. Cancellation from any thread through
// the CancelToken kills the group (SIGTERM, then SIGKILL after the grace period).
// [Errors] Errc::process when the command cannot be started (fork/exec failure, missing cwd);
// a command that runs and fails is a ProcessResult with a non-zero exit code, not an Error.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "flowagent/cancel.hpp"
#include "flowagent/error.hpp"

namespace flowagent {

/// Environment variables passed through by default. Everything else (API keys, CI tokens) is dropped.
const std::vector<std::string>& default_env_allowlist();

struct ProcessOptions {
  std::vector<std::string> argv;  ///< argv[0] is looked up in PATH
  std::filesystem::path cwd;
  std::vector<std::string> env_allow = default_env_allowlist();  ///< names copied from our environment
  std::map<std::string, std::string> env_set;                    ///< set/override in the child
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::chrono::milliseconds kill_grace{std::chrono::seconds(2)};
  std::size_t output_cap = 4 << 20;  ///< bytes kept: half from the start, half from the end
  bool no_network = false;           ///< run in a private network namespace (loopback only)
  std::uint64_t max_file_size = 1ull << 30;  ///< RLIMIT_FSIZE; 0 = unlimited
  std::uint64_t max_address_space = 0;       ///< RLIMIT_AS; 0 = unlimited (ASan, JVMs need a lot)
  std::uint64_t max_cpu_seconds = 0;         ///< RLIMIT_CPU; 0 = unlimited
  CancelToken cancel;
};

/// Convenience: {"/bin/sh", "-c", command}.
std::vector<std::string> shell_argv(const std::string& command);

struct ProcessResult {
  int exit_code = -1;         ///< exit status, or 128+signal when killed by a signal
  int signal = 0;             ///< terminating signal, 0 when it exited
  bool timed_out = false;
  bool cancelled = false;
  std::string output;         ///< head + "\n[... N bytes omitted ...]\n" + tail when over the cap
  std::uint64_t output_bytes = 0;  ///< total bytes the command wrote
  bool truncated = false;
  std::int64_t duration_ms = 0;
  bool network_isolated = false;  ///< no_network was requested and the namespace was created
  std::string isolation_note;     ///< why isolation was not possible, when it was requested

  bool ok() const { return exit_code == 0 && !timed_out && !cancelled; }
};

Expected<ProcessResult> run_process(const ProcessOptions& options);

/// Quotes a string for POSIX sh (single quotes).
std::string shell_quote(std::string_view s);

}  // namespace flowagent
