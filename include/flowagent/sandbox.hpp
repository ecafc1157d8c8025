// flowagent/sandbox.hpp: runs untrusted commands (build, tests, probes) inside bubblewrap.
//
// Every command the workspace or the model can influence runs through run_sandboxed: a `bwrap`
// child with every namespace unshared (user where possible, mount, PID with its own /proc, IPC,
// UTS, cgroup, network with loopback only), `--die-with-parent`, `--new-session`, all
// capabilities dropped, the workspace tree read-write at its own absolute path, the system
// read-only (/usr, /bin, /sbin, /lib*, /etc, /opt and SandboxOptions::read_only_paths), a private
// sized tmpfs on /tmp (HOME lives there) and on /dev/shm, and nothing else: not the user's home,
// not /root, not the developer's repository, not the host's /tmp. bwrap itself is executed with an
// empty environment; the command gets an allow-listed environment (--clearenv/--setenv) from which
// every name that looks like a credential is dropped. The command runs in a new anonymous session
// keyring (the host's keys are unreachable) and cannot create further user namespaces
// (--disable-userns). Limits: RLIMIT_FSIZE/AS/CPU; as root, a pids and a memory cgroup per run
// (the kernel exempts uid 0 from RLIMIT_NPROC), otherwise RLIMIT_NPROC; a watchdog bounds how many
// bytes and entries the run may add to the workspace; the tmpfs sizes bound /tmp and /dev/shm. Timeout and cancel SIGKILL bwrap: its pid-1 child dies with it and the
// kernel kills everything else in the PID namespace, so setsid or double-forked children never
// survive. run_sandboxed returns only after the namespace is gone. docs/SECURITY.md has the
// threat model and the defaults.
//
// Fail closed: when bwrap is missing or the kernel refuses the namespaces, run_sandboxed returns
// Errc::sandbox_unavailable naming what was refused, and nothing runs -- unless the host set
// SandboxOptions::allow_unsandboxed_commands, in which case the command runs through run_process
// with the same environment filter and rlimits but NO isolation, and ProcessResult::sandboxed is
// false (the pipeline then records that in the result's evidence).
//
// [Threading] run_sandboxed and probe_sandbox are reentrant; the probe runs once per process per
// configuration (bwrap path, privilege) and is cached. [Errors] Errc::sandbox_unavailable (see
// above), Errc::invalid_argument for a workspace that is not an absolute directory, Errc::process
// when bwrap cannot be started; a command that runs and fails is a ProcessResult, not an Error.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "flowagent/redact.hpp"
#include "flowagent/cancel.hpp"
#include "flowagent/error.hpp"
#include "flowagent/json.hpp"
#include "flowagent/process.hpp"

namespace flowagent {

/// How untrusted commands are confined. Every field has a documented default (docs/SECURITY.md);
/// 0 disables a numeric limit.
struct SandboxOptions {
  /// Run untrusted commands WITHOUT isolation when the sandbox cannot be set up (instead of
  /// failing with sandbox_unavailable). The result's evidence then says the runs were not isolated.
  bool allow_unsandboxed_commands = false;
  /// The bwrap executable; empty: /usr/bin/bwrap, then /bin/bwrap, then PATH.
  std::filesystem::path bwrap_path;
  /// Extra host paths mounted read-only at the same place (toolchains, SDKs, caches to read).
  std::vector<std::filesystem::path> read_only_paths;
  /// Environment variables copied from flowagent's environment when set (filtered, see below).
  std::vector<std::string> env_allow = {"PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM", "JAVA_HOME",
                                        "GOROOT", "GOFLAGS", "NODE_PATH", "PYTHONPATH"};  // no proxies: URLs carry credentials
  /// Set in the command's environment (after env_allow; filtered like it).
  std::map<std::string, std::string> env_set;
  /// Names never passed even when allow-listed or set (the model's key variable is added per request).
  /// Besides these, every name containing KEY, TOKEN, SECRET, PASSWORD, PASSWD or CREDENTIAL
  /// (any case) is dropped.
  std::vector<std::string> env_deny;
  std::uint64_t tmp_size = 512ull << 20;            ///< bytes of the private /tmp (and of /dev/shm)
  std::uint64_t max_workspace_growth = 2ull << 30;  ///< bytes a run may add to the workspace (tree + unlinked held files)
  std::uint64_t max_workspace_inodes = 1000000;     ///< entries (files, folders, links) a run may add to the workspace
  /// Floors of free space on the workspace's file system: a run that brings it below either while
  /// it writes is stopped. They bound what the two limits above cannot see (files a run unlinked
  /// and keeps only as descriptors in flight between its processes); 0 turns a floor off.
  std::uint64_t min_free_disk_bytes = 1ull << 30;
  std::uint64_t min_free_disk_inodes = 65536;
  /// Bytes of memory the whole run may hold (its processes, tmpfs and memfd pages, page cache), as
  /// root through a memory cgroup per run (memory.max / memory.limit_in_bytes; at the bound the
  /// kernel's OOM killer ends processes of the run). Unprivileged: not enforced (see SECURITY.md).
  std::uint64_t max_memory = 8ull << 30;
  std::uint64_t max_processes = 1024;               ///< pids cgroup (root) or RLIMIT_NPROC (others)
  std::uint64_t max_file_size = 1ull << 30;         ///< RLIMIT_FSIZE
  std::uint64_t max_address_space = 16ull << 30;    ///< RLIMIT_AS per process (ASan builds need 0)
  std::uint64_t max_cpu_seconds = 3600;             ///< RLIMIT_CPU per process
  /// Where per-run pids cgroups are created when running as root: a cgroup v1 pids hierarchy, or a
  /// cgroup v2 directory whose subtree has the pids controller. Empty: /sys/fs/cgroup/pids, then
  /// the cgroup v2 mount at /sys/fs/cgroup. Without one, root cannot bound processes and the
  /// sandbox is unavailable (unless max_processes is 0).
  std::filesystem::path pids_cgroup_root;
  /// The same for per-run memory cgroups (max_memory). Empty: flowagent's own cgroup in the cgroup
  /// v1 memory hierarchy (so a limit on flowagent still covers its runs), else the cgroup v2 mount
  /// when it has the memory controller. Without one, root runs fail closed unless max_memory is 0.
  std::filesystem::path memory_cgroup_root;
};

/// One untrusted command.
struct SandboxCommand {
  std::vector<std::string> argv;     ///< argv[0] is looked up in the sandbox's PATH
  std::filesystem::path workspace;   ///< absolute; mounted read-write at the same path
  std::filesystem::path cwd;         ///< inside the workspace; empty: the workspace root
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::size_t output_cap = 4 << 20;
  std::map<std::string, std::string> env;  ///< set in the command's environment (filtered)
  std::vector<std::string> env_deny;       ///< extra names never passed (e.g. the model's key variable)
  CancelToken cancel;
};

/// Checks once per process (cached) that bwrap exists and the kernel lets it create the
/// namespaces and mounts the sandbox needs, and (as root) that a pids cgroup can be made.
/// Errc::sandbox_unavailable with what was refused.
Expected<void> probe_sandbox(const SandboxOptions& options);

/// Runs `command` in the sandbox (see the file comment). Returns after the whole namespace is dead.
Expected<ProcessResult> run_sandboxed(const SandboxCommand& command, const SandboxOptions& options);

/// Reads SandboxOptions from a JSON object with the same member names (`allow_unsandboxed_commands`,
/// `bwrap_path`, `read_only_paths`, `env_allow`, `env_set` {name: value}, `env_deny`, `tmp_size`,
/// `max_workspace_growth`, `max_workspace_inodes`, `max_memory`, `max_processes`, `max_file_size`,
/// `max_address_space`, `max_cpu_seconds`, `pids_cgroup_root`, `memory_cgroup_root`); absent members keep their defaults. Strict: unknown
/// members and wrong types are Errc::schema naming the field. (The C API's sandbox_json.)
Expected<SandboxOptions> sandbox_options_from_json(const Json& doc);

// looks_like_credential_name() (the environment filter's rule) lives in flowagent/redact.hpp: the
// redactor and the sandbox share one rule.

/// The bwrap argv run_sandboxed would use (for diagnostics and tests); argv[0] is bwrap.
std::vector<std::string> sandbox_argv(const SandboxCommand& command, const SandboxOptions& options);

}  // namespace flowagent
