// The bubblewrap sandbox for untrusted commands (flowagent/sandbox.hpp, docs/SECURITY.md).
#include "flowagent/sandbox.hpp"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <limits.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "core/json_reader.hpp"
#include "sandbox/cgroup.hpp"

namespace flowagent {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;


namespace {

constexpr const char* kSandboxHome = "/tmp/home";

fs::path find_bwrap(const SandboxOptions& o) {
  if (!o.bwrap_path.empty()) return o.bwrap_path;
  for (const char* p : {"/usr/bin/bwrap", "/bin/bwrap"})
    if (::access(p, X_OK) == 0) return p;
  if (const char* path = std::getenv("PATH")) {
    std::string_view rest(path);
    while (!rest.empty()) {
      auto colon = rest.find(':');
      fs::path cand = fs::path(std::string(rest.substr(0, colon))) / "bwrap";
      if (cand.is_absolute() && ::access(cand.c_str(), X_OK) == 0) return cand;
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  return "/usr/bin/bwrap";  // reported as missing by the probe
}

/// The command's environment: allow-list, then the host's and the command's settings, minus every
/// denied or credential-looking name.
std::map<std::string, std::string> command_env(const SandboxCommand& cmd, const SandboxOptions& o, bool sandboxed) {
  std::map<std::string, std::string> env;
  for (const auto& name : o.env_allow)
    if (const char* v = std::getenv(name.c_str())) env[name] = v;
  if (!env.count("PATH")) env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  if (sandboxed) {
    env["HOME"] = kSandboxHome;
    env["TMPDIR"] = "/tmp";
  } else if (const char* home = std::getenv("HOME")) {
    env["HOME"] = home;
  }
  for (const auto& [k, v] : o.env_set) env[k] = v;
  for (const auto& [k, v] : cmd.env) env[k] = v;
  for (auto it = env.begin(); it != env.end();) {
    const bool denied = std::find(o.env_deny.begin(), o.env_deny.end(), it->first) != o.env_deny.end() ||
                        std::find(cmd.env_deny.begin(), cmd.env_deny.end(), it->first) != cmd.env_deny.end() ||
                        looks_like_credential_name(it->first) || it->first.find('=') != std::string::npos;
    it = denied ? env.erase(it) : std::next(it);
  }
  return env;
}

void add(std::vector<std::string>& v, std::initializer_list<std::string> items) { v.insert(v.end(), items); }

/// Read-only system directories (symlinks such as /bin -> usr/bin are recreated as symlinks).
void add_system_mounts(std::vector<std::string>& a) {
  for (const char* dir : {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"}) {
    struct stat st;
    if (::lstat(dir, &st) != 0) continue;
    if (S_ISLNK(st.st_mode)) {
      std::error_code ec;
      auto target = fs::read_symlink(dir, ec);
      if (!ec) add(a, {"--symlink", target.string(), dir});
    } else if (S_ISDIR(st.st_mode)) {
      add(a, {"--ro-bind", dir, dir});
    }
  }
  // Files only root can read stay unreadable even for a command that runs as uid 0.
  for (const char* secret : {"/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/sudoers"})
    if (::access(secret, F_OK) == 0) add(a, {"--ro-bind", "/dev/null", secret});
}

/// Host-configured read-only paths, mounted after the private /tmp so that a path under the host's
/// /tmp (a vendored tool in a temporary checkout) is not hidden by it, and before the workspace so
/// that a read-only parent of the workspace cannot cover it.
void add_read_only_paths(std::vector<std::string>& a, const SandboxOptions& o) {
  for (const auto& p : o.read_only_paths)
    if (p.is_absolute()) add(a, {"--ro-bind-try", p.string(), p.string()});
}

std::vector<std::string> build_argv(const SandboxCommand& cmd, const SandboxOptions& o, int info_fd, int seccomp_fd = -1) {
  std::vector<std::string> a = {find_bwrap(o).string(), "--unshare-all", "--unshare-user", "--disable-userns",
                                "--die-with-parent", "--new-session", "--cap-drop", "ALL"};
  add_system_mounts(a);
  add(a, {"--proc", "/proc", "--dev", "/dev"});
  if (o.tmp_size) add(a, {"--size", std::to_string(o.tmp_size)});
  add(a, {"--tmpfs", "/dev/shm", "--remount-ro", "/dev"});
  if (o.tmp_size) add(a, {"--size", std::to_string(o.tmp_size)});
  add(a, {"--tmpfs", "/tmp", "--dir", kSandboxHome});
  add_read_only_paths(a, o);
  if (!cmd.workspace.empty()) add(a, {"--bind", cmd.workspace.string(), cmd.workspace.string()});
  add(a, {"--remount-ro", "/"});
  const fs::path cwd = cmd.cwd.empty() ? (cmd.workspace.empty() ? fs::path("/") : cmd.workspace) : cmd.cwd;
  add(a, {"--chdir", cwd.string()});
  if (info_fd >= 0) add(a, {"--info-fd", std::to_string(info_fd)});
  if (seccomp_fd >= 0) add(a, {"--seccomp", std::to_string(seccomp_fd)});
  add(a, {"--clearenv"});
  for (const auto& [k, v] : command_env(cmd, o, true)) add(a, {"--setenv", k, v});
  a.push_back("--");
  a.insert(a.end(), cmd.argv.begin(), cmd.argv.end());
  return a;
}

// ---- system call filter --------------------------------------------------------------------------

/// The classic BPF program bwrap installs (--seccomp): fallocate(2) fails with EOPNOTSUPP. One
/// call reserves gigabytes in milliseconds, between two polls of the growth watchdog, and
/// RLIMIT_FSIZE does not bind FALLOC_FL_KEEP_SIZE; without it, writers fall back to write(2)
/// (glibc's posix_fallocate does), which the file size limit and the watchdog see. Every ABI the
/// kernel runs on this architecture is covered (x86_64, x32 and i386 on x86_64).
std::vector<sock_filter> seccomp_program() {
  struct Abi {
    std::uint32_t arch;
    std::vector<std::uint32_t> denied;
  };
  std::vector<Abi> abis;
#if defined(__x86_64__)
  abis.push_back({AUDIT_ARCH_X86_64, {SYS_fallocate, 0x40000000u | 285u}});
  abis.push_back({AUDIT_ARCH_I386, {324u}});
#elif defined(__aarch64__)
  abis.push_back({AUDIT_ARCH_AARCH64, {SYS_fallocate}});
  abis.push_back({AUDIT_ARCH_ARM, {352u}});
#endif
  std::vector<sock_filter> p;
  for (const auto& abi : abis) {
    const auto k = static_cast<std::uint8_t>(abi.denied.size());
    const std::uint8_t len = 5 + k;  // ld arch, jeq arch, ld nr, k x jeq nr, ret allow, ret errno
    p.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    p.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, abi.arch, 0, static_cast<std::uint8_t>(len - 2)));
    p.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
    for (std::uint8_t i = 0; i < k; ++i)
      p.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, abi.denied[i], static_cast<std::uint8_t>(k - i), 0));
    p.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    p.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EOPNOTSUPP & SECCOMP_RET_DATA)));
  }
  p.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  return p;
}

/// The read end of a pipe holding seccomp_program() (bwrap reads it to the end), or -1.
int seccomp_fd() {
  const auto program = seccomp_program();
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return -1;
  const auto bytes = program.size() * sizeof(sock_filter);  // far below a pipe's buffer
  const bool ok = ::write(fds[1], program.data(), bytes) == static_cast<ssize_t>(bytes);
  ::close(fds[1]);
  if (!ok) {
    ::close(fds[0]);
    return -1;
  }
  return fds[0];
}

/// `text` with control characters escaped and the length capped: kill reasons may quote paths
/// the run chose, and they reach logs, the model and result documents.
std::string printable(std::string text) {
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
    if (out.size() > 400) {
      out += "...";
      break;
    }
  }
  return out;
}

// ---- workspace growth ---------------------------------------------------------------------------

/// What a walk of the workspace tree found: allocated bytes, entries, and the first entry it could
/// not read (an unreadable folder hides its content from the walk).
struct TreeUsage {
  std::uint64_t bytes = 0, entries = 0;
  std::string unreadable;
};
thread_local TreeUsage* tree_acc = nullptr;
int tree_visit(const char* path, const struct stat* st, int type, struct FTW*) {
  if (type == FTW_DNR || type == FTW_NS) {
    if (tree_acc->unreadable.empty()) tree_acc->unreadable = path;
    return 0;
  }
  tree_acc->bytes += static_cast<std::uint64_t>(st->st_blocks) * 512;
  tree_acc->entries += 1;
  return 0;
}
/// Bytes and entries below `root` on its file system (symlinks not followed).
TreeUsage tree_usage(const fs::path& root) {
  TreeUsage u;
  tree_acc = &u;
  if (::nftw(root.c_str(), tree_visit, 64, FTW_PHYS | FTW_MOUNT) != 0 && u.unreadable.empty()) u.unreadable = root.string();
  tree_acc = nullptr;
  return u;
}
/// The file system's used bytes and used inodes (one statvfs).
struct FsUsage {
  std::uint64_t bytes = 0, inodes = 0;
  std::uint64_t avail_bytes = ~0ull, avail_inodes = ~0ull;  ///< for unprivileged users; ~0: not reported
};
FsUsage fs_usage(const fs::path& p) {
  struct statvfs v;
  if (::statvfs(p.c_str(), &v) != 0) return {};
  FsUsage u{static_cast<std::uint64_t>(v.f_blocks - v.f_bfree) * v.f_frsize, static_cast<std::uint64_t>(v.f_files - v.f_ffree)};
  u.avail_bytes = static_cast<std::uint64_t>(v.f_bavail) * v.f_frsize;
  if (v.f_files > 0) u.avail_inodes = v.f_favail;  // file systems without an inode table report 0 files
  return u;
}

/// Pids of `root` and all its descendants (through /proc/PID/task/TID/children). In the sandbox's
/// PID namespace every orphan (a setsid'd or double-forked process) is re-parented to the
/// namespace's pid 1, so the walk from pid 1 sees every process of the run.
std::vector<pid_t> process_tree(pid_t root) {
  std::vector<pid_t> out{root};
  for (std::size_t i = 0; i < out.size() && out.size() < 65536; ++i) {
    std::error_code ec;
    for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(out[i]) + "/task", ec)) {
      std::ifstream in(task.path() / "children");
      for (long child; in >> child;) out.push_back(static_cast<pid_t>(child));
    }
  }
  return out;
}

/// Files on the workspace's file system that the run's processes hold after unlinking them,
/// through a descriptor (/proc/PID/fd) or a mapping (/proc/PID/maps, "(deleted)"): invisible to a
/// walk of the tree, yet disk the run consumes.
struct Held {
  std::uint64_t bytes = 0, files = 0;
  std::string uninspectable;  ///< non-empty: something could not be inspected (the caller fails closed)
};
class HeldCounter {
 public:
  explicit HeldCounter(dev_t dev) : dev_(dev) {}
  /// Counts a file once (by inode); false when it is not a regular file of the workspace's device.
  bool add(const struct stat& st) {
    if (!S_ISREG(st.st_mode) || st.st_dev != dev_) return false;
    if (seen_.insert(st.st_ino).second) {
      held.bytes += static_cast<std::uint64_t>(st.st_blocks) * 512;
      held.files += 1;
    }
    return true;
  }
  bool counted(ino_t ino) const { return seen_.count(ino) != 0; }
  dev_t dev() const { return dev_; }
  Held held;

 private:
  dev_t dev_;
  std::set<ino_t> seen_;
};

/// Unlinked files behind the process's descriptors; an exited process is skipped, one whose
/// descriptors cannot be listed sets `c.held.uninspectable`.
void count_descriptors(pid_t pid, HeldCounter& c) {
  const std::string fd_dir = "/proc/" + std::to_string(pid) + "/fd";
  std::error_code ec;
  fs::directory_iterator it(fd_dir, ec);
  if (ec) {
    if (ec != std::errc::no_such_file_or_directory && ec != std::errc::no_such_process)
      c.held.uninspectable = "the descriptors of process " + std::to_string(pid);
    return;
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    char target[PATH_MAX];
    const ssize_t n = ::readlink(it->path().c_str(), target, sizeof target - 1);
    if (n <= 0 || !std::string_view(target, static_cast<std::size_t>(n)).ends_with(" (deleted)")) continue;
    struct stat st;
    if (::stat(it->path().c_str(), &st) == 0) c.add(st);
  }
  if (ec) c.held.uninspectable = "the descriptors of process " + std::to_string(pid);
}

/// Mappings of unlinked files on the workspace's device. A mapping outlives the descriptor it was
/// made from: a file mapped MAP_SHARED, closed and unlinked is held by nothing else. Its size comes
/// from stat of /proc/PID/map_files/<range> (readable with CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE,
/// i.e. as root); a mapping that cannot be sized makes the run uninspectable (fail closed).
void count_mappings(pid_t pid, HeldCounter& c) {
  const std::string base = "/proc/" + std::to_string(pid);
  std::string maps;
  const int fd = ::open((base + "/maps").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT && errno != ESRCH) c.held.uninspectable = "the mappings of process " + std::to_string(pid);
    return;
  }
  char buf[65536];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) maps.append(buf, static_cast<std::size_t>(n));
  const int read_errno = errno;
  ::close(fd);
  if (n < 0 && read_errno != ESRCH) {
    c.held.uninspectable = "the mappings of process " + std::to_string(pid);
    return;
  }
  std::istringstream in(maps);
  for (std::string line; std::getline(in, line);) {
    if (!line.ends_with(" (deleted)")) continue;
    // start-end perms offset major:minor inode path
    std::istringstream f(line);
    std::string range, perms, offset, dev;
    unsigned long long ino = 0;
    if (!(f >> range >> perms >> offset >> dev >> ino) || ino == 0) continue;
    unsigned maj = 0, min = 0;
    if (std::sscanf(dev.c_str(), "%x:%x", &maj, &min) != 2 || makedev(maj, min) != c.dev()) continue;
    if (c.counted(static_cast<ino_t>(ino))) continue;
    struct stat st;
    if (::stat((base + "/map_files/" + range).c_str(), &st) == 0) {
      c.add(st);
    } else if (errno != ENOENT && errno != ESRCH) {
      c.held.uninspectable = "a mapping of an unlinked file in process " + std::to_string(pid) + " (" +
                             std::strerror(errno) + " on /proc/PID/map_files)";
      return;
    }
  }
}

Held unlinked_held(pid_t root, dev_t dev) {
  HeldCounter c(dev);
  for (pid_t pid : process_tree(root)) {
    count_descriptors(pid, c);
    if (c.held.uninspectable.empty()) count_mappings(pid, c);
    if (!c.held.uninspectable.empty()) break;
  }
  return c.held;
}

/// Kills the run when the workspace grows by more than `limit` bytes or `max_entries` entries: the
/// tree plus files the run unlinked while holding them. The file system's used bytes and inodes
/// (one statvfs) are the cheap gate; only when they grew past what the last measurement left of
/// the bounds is the tree walked and the run's processes inspected. Anything the measurement
/// cannot see while the gate is open (an unreadable folder, a process whose descriptors or
/// mappings cannot be read) ends the run: fail closed.
class GrowthWatch {
 public:
  GrowthWatch(fs::path root, const SandboxOptions& o)
      : root_(std::move(root)), limit_(o.max_workspace_growth), max_entries_(o.max_workspace_inodes),
        min_free_bytes_(o.min_free_disk_bytes), min_free_inodes_(o.min_free_disk_inodes) {
    if (!enabled()) return;
    const auto t = tree_usage(root_);
    tree0_ = t;
    const auto f = fs_usage(root_);
    fs0_ = f;
    gate_bytes_ = f.bytes + (limit_ ? limit_ : ~0ull / 2);
    gate_inodes_ = f.inodes + (max_entries_ ? max_entries_ : ~0ull / 2);
    struct stat st;
    if (::stat(root_.c_str(), &st) == 0) dev_ = st.st_dev;
  }
  bool enabled() const { return limit_ || max_entries_ || min_free_bytes_ || min_free_inodes_; }

  /// `pid`: the run's top process (the sandbox's pid 1), or 0 when it is not known yet.
  std::string check(pid_t pid = 0) {
    if (!enabled()) return {};
    const FsUsage f = fs_usage(root_);
    // The floor: what the run hides from the walk below (files it unlinked and passes between its
    // processes as SCM_RIGHTS messages in flight, invisible in /proc) still uses the file system,
    // so the run may never bring it below the floor while it is the one writing.
    if (min_free_bytes_ && f.avail_bytes < min_free_bytes_ && f.bytes > fs0_.bytes)
      return "the workspace's file system fell to " + std::to_string(f.avail_bytes) + " free bytes, " +
             std::to_string(f.bytes - fs0_.bytes) + " more used than when the run started, by it or by other writers (floor " +
             std::to_string(min_free_bytes_) + ", min_free_disk_bytes)";
    if (min_free_inodes_ && f.avail_inodes < min_free_inodes_ && f.inodes > fs0_.inodes)
      return "the workspace's file system fell to " + std::to_string(f.avail_inodes) + " free inodes, " +
             std::to_string(f.inodes - fs0_.inodes) + " more used than when the run started, by it or by other writers (floor " +
             std::to_string(min_free_inodes_) + ", min_free_disk_inodes)";
    if (f.bytes <= gate_bytes_ && f.inodes <= gate_inodes_) return {};
    const auto t0 = Clock::now();
    if (t0 < next_walk_) return {};
    const std::string gate = f.bytes > gate_bytes_ ? "grew by more than " + std::to_string(limit_) + " bytes"
                                                   : "gained more than " + std::to_string(max_entries_) + " inodes";
    const TreeUsage t = tree_usage(root_);
    if (!t.unreadable.empty())
      return "the workspace's file system " + gate + " and " + t.unreadable + " cannot be read" + suffix();
    std::uint64_t bytes = t.bytes > tree0_.bytes ? t.bytes - tree0_.bytes : 0;
    std::uint64_t entries = t.entries > tree0_.entries ? t.entries - tree0_.entries : 0;
    std::string hidden;
    if (pid > 0 && (!limit_ || bytes <= limit_) && (!max_entries_ || entries <= max_entries_)) {
      const Held held = unlinked_held(pid, dev_);
      if (!held.uninspectable.empty())
        return "the workspace's file system " + gate + " and " + held.uninspectable + " could not be inspected" + suffix();
      bytes += held.bytes;
      entries += held.files;
      if (held.files)
        hidden = ", counting " + std::to_string(held.bytes) + " bytes in " + std::to_string(held.files) +
                 " file(s) it unlinked but holds open or mapped";
    }
    const auto spent = Clock::now() - t0;
    // At most a third of the time walking when the file system keeps growing for other reasons.
    next_walk_ = Clock::now() + std::max<Clock::duration>(std::chrono::milliseconds(20), 2 * spent);
    if (limit_ && bytes > limit_)
      return "the run wrote more than " + std::to_string(limit_) + " bytes into the workspace" + hidden + suffix();
    if (max_entries_ && entries > max_entries_)
      return "the run added more than " + std::to_string(max_entries_) + " entries to the workspace" + hidden +
             " (max_workspace_inodes)";
    // Re-arm: the workspace cannot grow more than the file system did since the statvfs above, so
    // the next walk is due when the file system has used up what is left of the bounds.
    gate_bytes_ = f.bytes + (limit_ ? limit_ - bytes : ~0ull / 2);
    gate_inodes_ = f.inodes + (max_entries_ ? max_entries_ - entries : ~0ull / 2);
    return {};
  }

 private:
  std::string suffix() const { return " (max_workspace_growth)"; }
  fs::path root_;
  std::uint64_t limit_, max_entries_, min_free_bytes_, min_free_inodes_;
  TreeUsage tree0_;
  FsUsage fs0_;
  std::uint64_t gate_bytes_ = 0, gate_inodes_ = 0;
  dev_t dev_ = 0;
  Clock::time_point next_walk_{};
};

// ---- the namespace's pid 1 -----------------------------------------------------------------------

/// Reads bwrap's --info-fd JSON ({"child-pid": N, ...}) and holds a pidfd of the sandbox's pid 1.
/// When that process has exited, the kernel has killed every other process of the namespace.
class NamespaceInit {
 public:
  explicit NamespaceInit(int read_fd) : fd_(read_fd) { ::fcntl(fd_, F_SETFL, O_NONBLOCK); }
  ~NamespaceInit() {
    if (pidfd_ >= 0) ::close(pidfd_);
    ::close(fd_);
  }
  NamespaceInit(const NamespaceInit&) = delete;
  NamespaceInit& operator=(const NamespaceInit&) = delete;

  void poll_info() {
    if (pidfd_ >= 0 || gone_) return;
    char buf[512];
    for (;;) {
      ssize_t n = ::read(fd_, buf, sizeof buf);
      if (n <= 0) break;
      text_.append(buf, static_cast<std::size_t>(n));
    }
    auto key = text_.find("\"child-pid\"");
    if (key == std::string::npos) return;
    auto p = text_.find_first_of("0123456789", key);
    if (p == std::string::npos) return;
    auto e = text_.find_first_not_of("0123456789", p);
    if (e == std::string::npos) return;  // the number may still be arriving
    const pid_t pid = static_cast<pid_t>(std::stol(text_.substr(p, e - p)));
    int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (fd >= 0) {
      pidfd_ = fd;
      pid_ = pid;
    }
    else gone_ = true;  // already exited and reaped
  }

  /// The namespace's pid 1 as the host sees it, or 0 while bwrap has not reported it.
  pid_t pid() const { return pid_; }

  /// SIGKILLs the namespace's pid 1 (through the pidfd: never another process), which takes every
  /// other process of the namespace along. False while bwrap has not reported it.
  bool kill() {
    return pidfd_ >= 0 && ::syscall(SYS_pidfd_send_signal, pidfd_, SIGKILL, nullptr, 0) == 0;
  }

  /// Waits until the namespace's pid 1 has exited (bounded).
  void wait_gone(std::chrono::milliseconds max) {
    poll_info();
    if (pidfd_ < 0) return;
    struct pollfd p{pidfd_, POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(max.count()));
  }

 private:
  int fd_;
  int pidfd_ = -1;
  pid_t pid_ = 0;
  bool gone_ = false;
  std::string text_;
};

// ---- the probe ------------------------------------------------------------------------------------

struct ProbeCache {
  std::mutex mu;
  std::map<std::string, Expected<void>> results;
};
ProbeCache& probe_cache() {
  static ProbeCache c;
  return c;
}

std::string probe_key(const SandboxOptions& o) {
  const bool root = ::geteuid() == 0;
  return find_bwrap(o).string() + "\x1f" + (root ? detail::pids_cgroup_root(o).string() : "") + "\x1f" +
         (root ? detail::memory_cgroup_root(o).string() : "") + "\x1f" + std::to_string(o.max_processes != 0) +
         std::to_string(o.max_memory != 0);
}

ProcessOptions base_process_options(const SandboxCommand& cmd, const SandboxOptions& o) {
  ProcessOptions po;
  po.timeout = cmd.timeout;
  po.output_cap = cmd.output_cap;
  po.cancel = cmd.cancel;
  po.max_file_size = o.max_file_size;
  po.max_address_space = o.max_address_space;
  po.max_cpu_seconds = o.max_cpu_seconds;
  po.kill_grace = std::chrono::milliseconds(0);
  if (::geteuid() != 0) po.max_processes = o.max_processes;
  return po;
}

/// The per-run cgroups of a root run (pids and memory bounds), nullopt when none is needed.
Expected<std::optional<detail::RunCgroup>> run_cgroup(const SandboxOptions& o) {
  if (::geteuid() != 0 || (!o.max_processes && !o.max_memory)) return std::optional<detail::RunCgroup>{};
  auto made = detail::RunCgroup::create(o, o.max_processes, o.max_memory);
  if (!made) return fail(Errc::sandbox_unavailable, made.error().message);
  return std::optional<detail::RunCgroup>(std::move(*made));
}

Expected<ProcessResult> run_in_bwrap(const SandboxCommand& cmd, const SandboxOptions& o) {
  int info[2];
  if (::pipe2(info, O_CLOEXEC) != 0) return fail(Errc::io, std::string("pipe: ") + std::strerror(errno));
  NamespaceInit init(info[0]);
  ProcessOptions po = base_process_options(cmd, o);
  struct Fd {
    int fd;
    ~Fd() {
      if (fd >= 0) ::close(fd);
    }
  } filter{seccomp_fd()};
  if (filter.fd < 0) {
    ::close(info[1]);
    return fail(Errc::sandbox_unavailable, std::string("the system call filter could not be prepared: ") + std::strerror(errno));
  }
  po.argv = build_argv(cmd, o, info[1], filter.fd);
  po.cwd = "/";
  po.env_allow.clear();  // bwrap itself runs with an empty environment: its pid 1 copy shows it in /proc/1/environ
  po.env_set.clear();
  po.keep_fds = {info[1], filter.fd};
  // bwrap's --new-session only calls setsid(): without this the command would share flowagent's
  // session keyring (request_key + KEYCTL_READ).
  po.new_session_keyring = true;
  auto cgroup = run_cgroup(o);
  if (!cgroup) {
    ::close(info[1]);
    return unexpected(cgroup.error());
  }
  if (*cgroup) po.join_cgroup_procs = (*cgroup)->procs_files();
  // The growth watchdog runs on its own thread every 10 ms and kills the namespace's pid 1 through
  // its pidfd the moment a bound is crossed; run_process's watch (every 50 ms) reports it.
  GrowthWatch growth(cmd.workspace, o);
  std::mutex verdict_mu;
  std::string verdict;
  std::atomic<bool> stop{false};
  std::thread watcher([&] {
    while (!stop.load()) {
      init.poll_info();
      if (std::string v = growth.check(init.pid()); !v.empty()) {
        {
          std::lock_guard lock(verdict_mu);
          verdict = std::move(v);
        }
        init.kill();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  po.watch = [&]() -> std::string {
    std::lock_guard lock(verdict_mu);
    return verdict;
  };
  auto r = run_process(po);
  stop = true;
  watcher.join();
  ::close(info[1]);
  // bwrap is gone; its pid 1 dies with it (die-with-parent) and takes the namespace along.
  init.wait_gone(std::chrono::seconds(10));
  std::string memory_kills;
  if (*cgroup) {
    memory_kills = (*cgroup)->memory_kills();
    (*cgroup)->kill_all_and_remove();
  }
  if (!r) return r;
  r->sandboxed = true;
  if (r->killed_by.empty() && !verdict.empty()) r->killed_by = verdict;  // pid 1 died before the watch ran
  if (r->killed_by.empty() && !memory_kills.empty()) r->killed_by = memory_kills + " (max_memory)";
  r->killed_by = printable(std::move(r->killed_by));
  if (!r->killed_by.empty()) r->output += "\n[flowagent sandbox: the run was killed: " + r->killed_by + "]\n";
  return r;
}

Expected<void> run_probe(const SandboxOptions& o) {
  const fs::path bwrap = find_bwrap(o);
  if (::access(bwrap.c_str(), X_OK) != 0)
    return fail(Errc::sandbox_unavailable, "bubblewrap is not available: " + bwrap.string() + ": " + std::strerror(errno) +
                                               " (install the Debian package bubblewrap)");
  if (::geteuid() == 0 && (o.max_processes || o.max_memory)) {
    auto cg = detail::RunCgroup::create(o, o.max_processes, o.max_memory);
    if (!cg)
      return fail(Errc::sandbox_unavailable,
                  "running as root, processes and memory can only be bounded by cgroups (the kernel exempts uid 0 "
                  "from RLIMIT_NPROC; RLIMIT_AS does not count tmpfs or memfd pages), and none can be made: " +
                      cg.error().message + " (max_processes / max_memory 0 disables the bound)");
    cg->kill_all_and_remove();
  }
  char tmpl[] = "/tmp/flowagent-probe-XXXXXX";
  if (!::mkdtemp(tmpl)) return fail(Errc::io, std::string("mkdtemp: ") + std::strerror(errno));
  SandboxCommand cmd;
  cmd.workspace = tmpl;
  cmd.argv = {"/bin/sh", "-c", "echo probe-ok > probe && cat probe"};
  cmd.timeout = std::chrono::seconds(30);
  SandboxOptions po = o;
  po.max_workspace_growth = 0;
  po.max_workspace_inodes = 0;
  po.min_free_disk_bytes = 0;
  po.min_free_disk_inodes = 0;
  auto r = run_in_bwrap(cmd, po);
  std::error_code ec;
  fs::remove_all(tmpl, ec);
  if (!r) return fail(Errc::sandbox_unavailable, "cannot start " + bwrap.string() + ": " + r.error().message);
  if (r->exit_code != 0 || r->output.find("probe-ok") == std::string::npos) {
    std::string out = r->output.substr(0, 600);
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return fail(Errc::sandbox_unavailable, "the kernel or bwrap refused the sandbox (exit " +
                                               std::to_string(r->exit_code) + "): " +
                                               (out.empty() ? std::string("no output") : out));
  }
  return {};
}

}  // namespace

Expected<SandboxOptions> sandbox_options_from_json(const Json& doc) {
  if (!doc.is_object()) return fail(Errc::schema, "sandbox: expected an object");
  SandboxOptions o;
  detail::ObjectReader r(doc, "sandbox");
  std::string bwrap, cgroup_root, memory_root;
  std::vector<std::string> ro;
  Json env_set;
  r.boolean("allow_unsandboxed_commands", o.allow_unsandboxed_commands)
      .string("bwrap_path", bwrap)
      .strings("read_only_paths", ro)
      .strings("env_allow", o.env_allow)
      .strings("env_deny", o.env_deny)
      .string("pids_cgroup_root", cgroup_root)
      .string("memory_cgroup_root", memory_root)
      .any("env_set", env_set);
  for (auto [key, dst] : {std::pair{"tmp_size", &o.tmp_size}, std::pair{"max_workspace_growth", &o.max_workspace_growth},
                          std::pair{"max_workspace_inodes", &o.max_workspace_inodes}, std::pair{"max_memory", &o.max_memory},
                          std::pair{"min_free_disk_bytes", &o.min_free_disk_bytes},
                          std::pair{"min_free_disk_inodes", &o.min_free_disk_inodes},
                          std::pair{"max_processes", &o.max_processes}, std::pair{"max_file_size", &o.max_file_size},
                          std::pair{"max_address_space", &o.max_address_space},
                          std::pair{"max_cpu_seconds", &o.max_cpu_seconds}}) {
    auto v = static_cast<std::int64_t>(*dst);
    r.integer(key, v, false, 0);
    *dst = static_cast<std::uint64_t>(v);
  }
  if (env_set.is_object()) {
    for (const auto& [k, v] : env_set.as_object()) {
      if (!v.is_string()) {
        r.set_error("env_set." + k, "expected a string");
        break;
      }
      o.env_set[k] = v.as_string();
    }
  } else if (!env_set.is_null()) {
    r.set_error("env_set", "expected an object");
  }
  for (const auto& p : ro) {
    if (!fs::path(p).is_absolute()) {
      r.set_error("read_only_paths", "\"" + p + "\" is not an absolute path");
      break;
    }
    o.read_only_paths.emplace_back(p);
  }
  if (auto e = r.finish(); !e.empty()) return fail(Errc::schema, e);
  o.bwrap_path = bwrap;
  o.pids_cgroup_root = cgroup_root;
  o.memory_cgroup_root = memory_root;
  return o;
}

std::vector<std::string> sandbox_argv(const SandboxCommand& command, const SandboxOptions& options) {
  return build_argv(command, options, -1);
}

Expected<void> probe_sandbox(const SandboxOptions& options) {
  const std::string key = probe_key(options);
  auto& cache = probe_cache();
  {
    std::lock_guard lock(cache.mu);
    if (auto it = cache.results.find(key); it != cache.results.end()) return it->second;
  }
  auto r = run_probe(options);
  std::lock_guard lock(cache.mu);
  return cache.results.emplace(key, std::move(r)).first->second;
}

Expected<ProcessResult> run_sandboxed(const SandboxCommand& command, const SandboxOptions& options) {
  if (command.argv.empty()) return fail(Errc::invalid_argument, "empty command");
  std::error_code ec;
  if (command.workspace.empty() || !command.workspace.is_absolute() || !fs::is_directory(command.workspace, ec))
    return fail(Errc::invalid_argument, "the sandbox needs an absolute workspace directory, not \"" +
                                            command.workspace.string() + "\"");
  SandboxCommand cmd = command;
  cmd.workspace = fs::canonical(command.workspace, ec);
  if (ec) return fail(Errc::invalid_argument, "workspace " + command.workspace.string() + ": " + ec.message());
  if (!cmd.cwd.empty()) {
    cmd.cwd = fs::weakly_canonical(cmd.cwd.is_absolute() ? cmd.cwd : cmd.workspace / cmd.cwd, ec);
    auto rel = cmd.cwd.lexically_relative(cmd.workspace);
    if (ec || rel.empty() || *rel.begin() == "..")
      return fail(Errc::sandbox, "the working directory " + command.cwd.string() + " is outside the workspace");
  }
  // Below a floor already: the host's disk is low, not the command's doing; nothing runs.
  if (const FsUsage f = fs_usage(cmd.workspace);
      (options.min_free_disk_bytes && f.avail_bytes < options.min_free_disk_bytes) ||
      (options.min_free_disk_inodes && f.avail_inodes < options.min_free_disk_inodes))
    return fail(Errc::io, "the workspace's file system has " + std::to_string(f.avail_bytes) + " bytes and " +
                              (f.avail_inodes == ~0ull ? std::string("unlimited") : std::to_string(f.avail_inodes)) +
                              " inodes free, under the floors min_free_disk_bytes " + std::to_string(options.min_free_disk_bytes) +
                              " / min_free_disk_inodes " + std::to_string(options.min_free_disk_inodes) +
                              ": the host's disk is low, no command runs");
  if (auto ok = probe_sandbox(options); !ok) {
    if (!options.allow_unsandboxed_commands) return unexpected(ok.error());
    // The host opted out explicitly: same environment filter and rlimits, no isolation.
    ProcessOptions po = base_process_options(cmd, options);
    po.kill_grace = std::chrono::seconds(2);
    po.argv = cmd.argv;
    po.cwd = cmd.cwd.empty() ? cmd.workspace : cmd.cwd;
    po.env_allow.clear();
    po.env_set = command_env(cmd, options, false);
    GrowthWatch growth(cmd.workspace, options);
    po.watch = [&] { return growth.check(); };
    auto r = run_process(po);
    if (r) r->sandboxed = false;
    return r;
  }
  return run_in_bwrap(cmd, options);
}

}  // namespace flowagent
