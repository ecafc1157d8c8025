// Internal: a per-run pids cgroup, the process bound for commands run as root (the kernel exempts
// uid 0 from RLIMIT_NPROC). cgroup v1 (a "pids" hierarchy) and v2 (a directory whose subtree has
// the pids controller) are both handled.
#pragma once

#include <cstdint>
#include <filesystem>

#include "flowagent/error.hpp"
#include "flowagent/sandbox.hpp"

namespace flowagent::detail {

/// The hierarchy per-run cgroups are made in (SandboxOptions::pids_cgroup_root or autodetected).
std::filesystem::path pids_cgroup_root(const SandboxOptions& options);

/// <root>/flowagent/<pid>-<n> with pids.max set. Move-only; the destructor kills what is left in it
/// and removes it. [Threading] one run uses one instance.
class PidsCgroup {
 public:
  /// Errc::io naming the path and errno when the cgroup cannot be made or limited.
  static Expected<PidsCgroup> create(const std::filesystem::path& root, std::uint64_t max_pids);
  PidsCgroup(PidsCgroup&& other) noexcept : dir_(std::move(other.dir_)) { other.dir_.clear(); }
  PidsCgroup& operator=(PidsCgroup&&) = delete;
  PidsCgroup(const PidsCgroup&) = delete;
  ~PidsCgroup() { kill_all_and_remove(); }

  std::filesystem::path procs_file() const { return dir_ / "cgroup.procs"; }
  /// SIGKILLs every process still in the cgroup until it is empty (bounded wait), then removes it.
  void kill_all_and_remove();

 private:
  explicit PidsCgroup(std::filesystem::path dir) : dir_(std::move(dir)) {}
  std::filesystem::path dir_;
};

}  // namespace flowagent::detail
