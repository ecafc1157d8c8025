// flowagent/process.hpp: the low-level process runner.
//
// Each command runs in its own process group with stdin on /dev/null, a reduced environment
// (allow-list), resource limits and a wall-clock timeout that kills the whole group. Output (stdout
// and stderr interleaved) is captured up to a cap that keeps the head and the tail.
//
// run_process itself does NOT isolate anything: it is for flowagent's own trusted commands (git).
// Every command the workspace or the model can influence (build, tests, probes) goes through
// run_sandboxed (flowagent/sandbox.hpp), which runs bubblewrap through this runner.
//
// The child is started with clone(CLONE_VM | CLONE_VFORK) (as posix_spawn does) and only makes raw
// system calls before execve: the host's signal handlers are reset to their defaults there, so a
// handler the host installed never runs in the child; the calling thread is suspended until the
// child has called execve, its other threads run on.
//
// [Threading] run_process is reentrant; many may run at once. Cancellation from any thread through
// the CancelToken kills the group (SIGTERM, then SIGKILL after the grace period).
// [Errors] Errc::process when the command cannot be started (the process cannot be created, execve fails, the cwd is missing, a cgroup or the new keyring cannot be joined);
// a command that runs and fails is a ProcessResult with a non-zero exit code, not an Error.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
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
  std::uint64_t max_file_size = 1ull << 30;  ///< RLIMIT_FSIZE; 0 = unlimited
  std::uint64_t max_address_space = 0;       ///< RLIMIT_AS; 0 = unlimited (ASan, JVMs need a lot)
  std::uint64_t max_cpu_seconds = 0;         ///< RLIMIT_CPU; 0 = unlimited
  std::uint64_t max_processes = 0;           ///< RLIMIT_NPROC (per real uid; the kernel exempts uid 0); 0 = unchanged
  /// The child writes its pid into each of these files (cgroups' `cgroup.procs`; several for cgroup
  /// v1's separate hierarchies) before exec, so it and all its descendants are accounted (and
  /// bounded) by those cgroups. Failing to join is a start failure (Errc::process), never ignored.
  std::vector<std::filesystem::path> join_cgroup_procs;
  /// The child joins a new anonymous session keyring before exec, so the command cannot read the
  /// keys of the caller's session keyring (request_key/KEYCTL_READ). Failing is a start failure
  /// (Errc::process), except on a kernel without keys (ENOSYS).
  bool new_session_keyring = false;
  /// Descriptors the child keeps (same numbers; close-on-exec cleared), e.g. a pipe for bwrap --info-fd.
  std::vector<int> keep_fds;
  /// Polled about every 50 ms while the command runs (on the calling thread). A non-empty return
  /// kills the group like a timeout does and is reported in ProcessResult::killed_by.
  std::function<std::string()> watch;
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
  std::string killed_by;          ///< set when `watch` asked for the kill (e.g. a write limit)
  bool sandboxed = false;         ///< the command ran inside the sandbox (set by run_sandboxed)

  bool ok() const { return exit_code == 0 && !timed_out && !cancelled; }
};

Expected<ProcessResult> run_process(const ProcessOptions& options);

/// Quotes a string for POSIX sh (single quotes).
std::string shell_quote(std::string_view s);

}  // namespace flowagent
