// Internal: the per-run cgroups of commands run as root. A pids cgroup is the process bound (the
// kernel exempts uid 0 from RLIMIT_NPROC); a memory cgroup bounds everything the run holds in
// memory (process pages, tmpfs and memfd pages, page cache it dirties), which RLIMIT_AS does not.
// cgroup v1 (separate "pids" and "memory" hierarchies) and v2 (one directory whose subtree has the
// controllers) are both handled.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "flowagent/error.hpp"
#include "flowagent/sandbox.hpp"

namespace flowagent::detail {

/// The cgroup per-run pids cgroups are made in (SandboxOptions::pids_cgroup_root or autodetected:
/// flowagent's own cgroup in a v1 pids hierarchy, else the v2 mount when it has the pids controller).
std::filesystem::path pids_cgroup_root(const SandboxOptions& options);
/// The same for the memory controller (SandboxOptions::memory_cgroup_root).
std::filesystem::path memory_cgroup_root(const SandboxOptions& options);

/// <root>/flowagent/<pid>-<n> per controller root (one directory when pids and memory share a v2
/// hierarchy) with pids.max and the memory limit set. Move-only; the destructor kills what is left
/// in them and removes them. [Threading] one run uses one instance.
class RunCgroup {
 public:
  /// Errc::io naming the path and errno when a cgroup cannot be made or limited. 0 skips a limit.
  static Expected<RunCgroup> create(const SandboxOptions& options, std::uint64_t max_pids, std::uint64_t max_memory);
  RunCgroup(RunCgroup&& other) noexcept : dirs_(std::move(other.dirs_)), memory_dir_(std::move(other.memory_dir_)) {
    other.dirs_.clear();
  }
  RunCgroup& operator=(RunCgroup&&) = delete;
  RunCgroup(const RunCgroup&) = delete;
  ~RunCgroup() { kill_all_and_remove(); }

  /// The `cgroup.procs` files the run's first process joins.
  std::vector<std::filesystem::path> procs_files() const;
  /// Non-empty when the memory controller killed a process of the run (its oom_kill count).
  std::string memory_kills() const;
  /// SIGKILLs every process still in the cgroups until they are empty (bounded wait), then removes them.
  void kill_all_and_remove();

 private:
  RunCgroup() = default;
  std::vector<std::filesystem::path> dirs_;
  std::filesystem::path memory_dir_;
};

}  // namespace flowagent::detail
