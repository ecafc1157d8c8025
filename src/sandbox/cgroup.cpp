#include "sandbox/cgroup.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
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

bool v2_has_pids(const fs::path& dir) {
  std::ifstream in(dir / "cgroup.controllers");
  std::string word;
  while (in >> word)
    if (word == "pids") return true;
  return false;
}

}  // namespace

fs::path pids_cgroup_root(const SandboxOptions& o) {
  if (!o.pids_cgroup_root.empty()) return o.pids_cgroup_root;
  std::error_code ec;
  if (fs::exists("/sys/fs/cgroup/pids/cgroup.procs", ec)) return "/sys/fs/cgroup/pids";
  if (v2_has_pids("/sys/fs/cgroup")) return "/sys/fs/cgroup";
  return "/sys/fs/cgroup/pids";
}

Expected<PidsCgroup> PidsCgroup::create(const fs::path& root, std::uint64_t max_pids) {
  static std::atomic<std::uint64_t> seq{0};
  const bool v2 = fs::exists(root / "cgroup.controllers");
  const fs::path parent = root / "flowagent";
  if (::mkdir(parent.c_str(), 0755) != 0 && errno != EEXIST)
    return fail(Errc::io, "cannot create the cgroup " + parent.string() + ": " + std::strerror(errno));
  if (v2) {  // let the children of root and of flowagent/ use the pids controller (best effort)
    write_file(root / "cgroup.subtree_control", "+pids");
    write_file(parent / "cgroup.subtree_control", "+pids");
  }
  const fs::path dir = parent / (std::to_string(::getpid()) + "-" + std::to_string(++seq));
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return fail(Errc::io, "cannot create the cgroup " + dir.string() + ": " + std::strerror(errno));
  PidsCgroup cg(dir);
  if (!write_file(dir / "pids.max", std::to_string(max_pids)))
    return fail(Errc::io, "cannot limit processes in " + dir.string() + " (pids.max): " + std::strerror(errno));
  return cg;
}

void PidsCgroup::kill_all_and_remove() {
  if (dir_.empty()) return;
  std::error_code ec;
  if (fs::exists(dir_ / "cgroup.kill", ec)) write_file(dir_ / "cgroup.kill", "1");
  for (int round = 0; round < 500; ++round) {
    std::vector<pid_t> pids;
    {
      std::ifstream in(dir_ / "cgroup.procs");
      long pid;
      while (in >> pid) pids.push_back(static_cast<pid_t>(pid));
    }
    if (pids.empty()) break;
    for (pid_t p : pids) ::kill(p, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::rmdir(dir_.c_str());
  dir_.clear();
}

}  // namespace flowagent::detail
