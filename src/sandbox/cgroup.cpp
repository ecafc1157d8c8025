#include "sandbox/cgroup.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace flowagent::detail {

namespace fs = std::filesystem;

namespace {

bool write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

bool v2_has(const fs::path& dir, const std::string& controller) {
  std::ifstream in(dir / "cgroup.controllers");
  std::string word;
  while (in >> word)
    if (word == controller) return true;
  return false;
}

/// flowagent's own cgroup in the v1 hierarchy of `controller` ("/" when not found): per-run
/// cgroups nest below it, so the limits of whoever runs flowagent still apply to the runs.
std::string own_v1_path(const std::string& controller) {
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::stringstream names(line.substr(a + 1, b - a - 1));
    for (std::string name; std::getline(names, name, ',');)
      if (name == controller) return line.substr(b + 1);
  }
  return "/";
}

fs::path autodetect_root(const std::string& controller) {
  std::error_code ec;
  const fs::path v1 = fs::path("/sys/fs/cgroup") / controller;
  if (fs::exists(v1 / "cgroup.procs", ec)) return v1 / fs::path(own_v1_path(controller)).relative_path();
  if (v2_has("/sys/fs/cgroup", controller)) return "/sys/fs/cgroup";
  return v1;
}

/// `value` into `file` of `dir`; Errc::io naming both when the kernel refuses it.
Expected<void> set_limit(const fs::path& dir, const char* file, std::uint64_t value) {
  if (!write_file(dir / file, std::to_string(value)))
    return fail(Errc::io, "cannot set " + std::string(file) + " in " + dir.string() + ": " + std::strerror(errno));
  return {};
}

}  // namespace

fs::path pids_cgroup_root(const SandboxOptions& o) {
  return o.pids_cgroup_root.empty() ? autodetect_root("pids") : o.pids_cgroup_root;
}
fs::path memory_cgroup_root(const SandboxOptions& o) {
  return o.memory_cgroup_root.empty() ? autodetect_root("memory") : o.memory_cgroup_root;
}

Expected<RunCgroup> RunCgroup::create(const SandboxOptions& o, std::uint64_t max_pids, std::uint64_t max_memory) {
  static std::atomic<std::uint64_t> seq{0};
  const std::string name = std::to_string(::getpid()) + "-" + std::to_string(++seq);
  RunCgroup cg;
  // One directory per distinct root: v2 roots (and a host's explicit choice) may be shared.
  auto make = [&](const fs::path& root, const char* controller) -> Expected<fs::path> {
    const fs::path parent = root / "flowagent";
    const fs::path dir = parent / name;
    for (const auto& d : cg.dirs_)
      if (d == dir) return dir;
    const bool v2 = fs::exists(root / "cgroup.controllers");
    if (::mkdir(parent.c_str(), 0755) != 0 && errno != EEXIST)
      return fail(Errc::io, "cannot create the cgroup " + parent.string() + ": " + std::strerror(errno));
    if (v2) {  // let the children of root and of flowagent/ use the controller (best effort)
      write_file(root / "cgroup.subtree_control", std::string("+") + controller);
      write_file(parent / "cgroup.subtree_control", std::string("+") + controller);
    }
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
      return fail(Errc::io, "cannot create the cgroup " + dir.string() + ": " + std::strerror(errno));
    cg.dirs_.push_back(dir);
    return dir;
  };
  if (max_pids) {
    auto dir = make(pids_cgroup_root(o), "pids");
    if (!dir) return unexpected(dir.error());
    if (auto ok = set_limit(*dir, "pids.max", max_pids); !ok) return unexpected(ok.error());
  }
  if (max_memory) {
    auto dir = make(memory_cgroup_root(o), "memory");
    if (!dir) return unexpected(dir.error());
    cg.memory_dir_ = *dir;
    if (fs::exists(*dir / "memory.max")) {  // v2; swap counts too (best effort: no swap accounting)
      if (auto ok = set_limit(*dir, "memory.max", max_memory); !ok) return unexpected(ok.error());
      if (fs::exists(*dir / "memory.swap.max")) write_file(*dir / "memory.swap.max", "0");
    } else {  // v1; memory+swap no higher than memory (best effort: swap accounting may be off)
      if (auto ok = set_limit(*dir, "memory.limit_in_bytes", max_memory); !ok) return unexpected(ok.error());
      if (fs::exists(*dir / "memory.memsw.limit_in_bytes"))
        write_file(*dir / "memory.memsw.limit_in_bytes", std::to_string(max_memory));
    }
  }
  return cg;
}

std::vector<fs::path> RunCgroup::procs_files() const {
  std::vector<fs::path> out;
  for (const auto& d : dirs_) out.push_back(d / "cgroup.procs");
  return out;
}

std::string RunCgroup::memory_kills() const {
  if (memory_dir_.empty()) return {};
  for (const char* file : {"memory.events", "memory.oom_control"}) {
    std::ifstream in(memory_dir_ / file);
    std::string key;
    for (std::uint64_t n; in >> key >> n;)
      if (key == "oom_kill" && n > 0) return std::to_string(n) + " process(es) of the run killed at the memory bound";
  }
  return {};
}

void RunCgroup::kill_all_and_remove() {
  for (const auto& dir : dirs_) {
    std::error_code ec;
    if (fs::exists(dir / "cgroup.kill", ec)) write_file(dir / "cgroup.kill", "1");
    for (int round = 0; round < 500; ++round) {
      std::vector<pid_t> pids;
      {
        std::ifstream in(dir / "cgroup.procs");
        long pid;
        while (in >> pid) pids.push_back(static_cast<pid_t>(pid));
      }
      if (pids.empty()) break;
      for (pid_t p : pids) ::kill(p, SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::rmdir(dir.c_str());
  }
  dirs_.clear();
}

}  // namespace flowagent::detail
