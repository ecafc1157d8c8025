// The bubblewrap sandbox for untrusted commands (flowagent/sandbox.hpp, docs/SECURITY.md).
#include "flowagent/sandbox.hpp"

#include <fcntl.h>
#include <limits.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
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

std::vector<std::string> build_argv(const SandboxCommand& cmd, const SandboxOptions& o, int info_fd) {
  std::vector<std::string> a = {find_bwrap(o).string(), "--unshare-all", "--die-with-parent", "--new-session",
                                "--cap-drop", "ALL"};
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
  add(a, {"--clearenv"});
  for (const auto& [k, v] : command_env(cmd, o, true)) add(a, {"--setenv", k, v});
  a.push_back("--");
  a.insert(a.end(), cmd.argv.begin(), cmd.argv.end());
  return a;
}

// ---- workspace growth ---------------------------------------------------------------------------

thread_local std::uint64_t tree_bytes_acc = 0;
int tree_bytes_visit(const char*, const struct stat* st, int type, struct FTW*) {
  if (type == FTW_F || type == FTW_SL || type == FTW_D) tree_bytes_acc += static_cast<std::uint64_t>(st->st_blocks) * 512;
  return 0;
}
/// Bytes allocated below `root` on its file system (symlinks not followed).
std::uint64_t tree_bytes(const fs::path& root) {
  tree_bytes_acc = 0;
  ::nftw(root.c_str(), tree_bytes_visit, 64, FTW_PHYS | FTW_MOUNT);
  return tree_bytes_acc;
}
std::uint64_t fs_used_bytes(const fs::path& p) {
  struct statvfs v;
  if (::statvfs(p.c_str(), &v) != 0) return 0;
  return static_cast<std::uint64_t>(v.f_blocks - v.f_bfree) * v.f_frsize;
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

/// Bytes on `dev` held by files the processes of the tree keep open after unlinking them: invisible
/// to a walk of the tree, yet disk the run consumes. nullopt when a process's descriptors cannot be
/// inspected (the caller then fails closed).
std::optional<std::uint64_t> unlinked_open_bytes(pid_t root, dev_t dev) {
  std::set<ino_t> seen;
  std::uint64_t bytes = 0;
  for (pid_t pid : process_tree(root)) {
    const std::string fd_dir = "/proc/" + std::to_string(pid) + "/fd";
    std::error_code ec;
    fs::directory_iterator it(fd_dir, ec);
    if (ec) {
      if (ec == std::errc::no_such_file_or_directory || ec == std::errc::no_such_process) continue;  // exited
      return std::nullopt;
    }
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      char target[PATH_MAX];
      const ssize_t n = ::readlink(it->path().c_str(), target, sizeof target - 1);
      if (n <= 0) continue;
      const std::string_view t(target, static_cast<std::size_t>(n));
      if (!t.ends_with(" (deleted)")) continue;
      struct stat st;
      if (::stat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != dev) continue;
      if (seen.insert(st.st_ino).second) bytes += static_cast<std::uint64_t>(st.st_blocks) * 512;
    }
    if (ec) return std::nullopt;
  }
  return bytes;
}

/// Kills the run when the workspace grows by more than `limit` bytes: the tree plus files the run
/// unlinked while holding them open. The file system's used space (one statvfs) is the cheap gate;
/// only when it grew by more than the limit is the tree walked and the run's descriptors inspected.
class GrowthWatch {
 public:
  GrowthWatch(fs::path root, std::uint64_t limit) : root_(std::move(root)), limit_(limit) {
    if (!limit_) return;
    tree0_ = tree_bytes(root_);
    fs0_ = fs_used_bytes(root_);
    struct stat st;
    if (::stat(root_.c_str(), &st) == 0) dev_ = st.st_dev;
  }
  /// `pid`: the run's top process (the sandbox's pid 1), or 0 when it is not known yet.
  std::string check(pid_t pid = 0) {
    if (!limit_) return {};
    const std::uint64_t used = fs_used_bytes(root_);
    if (used <= fs0_ || used - fs0_ <= limit_) return {};
    const auto now = Clock::now();
    if (now < next_walk_) return {};
    std::uint64_t grown = tree_bytes(root_);
    grown = grown > tree0_ ? grown - tree0_ : 0;
    std::string hidden;
    if (grown <= limit_ && pid > 0) {
      auto unlinked = unlinked_open_bytes(pid, dev_);
      if (!unlinked)
        return "the workspace's file system grew by more than " + std::to_string(limit_) +
               " bytes and the run's open files could not be inspected (max_workspace_growth)";
      grown += *unlinked;
      if (*unlinked) hidden = ", counting " + std::to_string(*unlinked) + " bytes in files it unlinked but holds open";
    }
    next_walk_ = Clock::now() + std::max<Clock::duration>(std::chrono::milliseconds(500), 4 * (Clock::now() - now));
    if (grown > limit_)
      return "the run wrote more than " + std::to_string(limit_) + " bytes into the workspace" + hidden +
             " (max_workspace_growth)";
    return {};
  }

 private:
  fs::path root_;
  std::uint64_t limit_;
  std::uint64_t tree0_ = 0, fs0_ = 0;
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
  return find_bwrap(o).string() + "\x1f" + (::geteuid() == 0 ? detail::pids_cgroup_root(o).string() : "") + "\x1f" +
         std::to_string(o.max_processes != 0);
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

Expected<ProcessResult> run_in_bwrap(const SandboxCommand& cmd, const SandboxOptions& o) {
  int info[2];
  if (::pipe2(info, O_CLOEXEC) != 0) return fail(Errc::io, std::string("pipe: ") + std::strerror(errno));
  NamespaceInit init(info[0]);
  ProcessOptions po = base_process_options(cmd, o);
  po.argv = build_argv(cmd, o, info[1]);
  po.cwd = "/";
  po.env_allow.clear();  // bwrap itself runs with an empty environment: its pid 1 copy shows it in /proc/1/environ
  po.env_set.clear();
  po.keep_fds = {info[1]};
  std::optional<detail::PidsCgroup> cgroup;
  if (::geteuid() == 0 && o.max_processes) {
    auto made = detail::PidsCgroup::create(detail::pids_cgroup_root(o), o.max_processes);
    if (!made) {
      ::close(info[1]);
      return fail(Errc::sandbox_unavailable, made.error().message);
    }
    cgroup.emplace(std::move(*made));
    po.join_cgroup_procs = cgroup->procs_file();
  }
  GrowthWatch growth(cmd.workspace, o.max_workspace_growth);
  po.watch = [&]() -> std::string {
    init.poll_info();
    return growth.check(init.pid());
  };
  auto r = run_process(po);
  ::close(info[1]);
  // bwrap is gone; its pid 1 dies with it (die-with-parent) and takes the namespace along.
  init.wait_gone(std::chrono::seconds(10));
  if (cgroup) cgroup->kill_all_and_remove();
  if (!r) return r;
  r->sandboxed = true;
  if (!r->killed_by.empty()) r->output += "\n[flowagent sandbox: the run was killed: " + r->killed_by + "]\n";
  return r;
}

Expected<void> run_probe(const SandboxOptions& o) {
  const fs::path bwrap = find_bwrap(o);
  if (::access(bwrap.c_str(), X_OK) != 0)
    return fail(Errc::sandbox_unavailable, "bubblewrap is not available: " + bwrap.string() + ": " + std::strerror(errno) +
                                               " (install the Debian package bubblewrap)");
  if (::geteuid() == 0 && o.max_processes) {
    auto root = detail::pids_cgroup_root(o);
    auto cg = detail::PidsCgroup::create(root, o.max_processes);
    if (!cg)
      return fail(Errc::sandbox_unavailable,
                  "running as root, processes can only be bounded by a pids cgroup (the kernel exempts uid 0 from "
                  "RLIMIT_NPROC), and none can be made: " + cg.error().message);
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
  std::string bwrap, cgroup_root;
  std::vector<std::string> ro;
  Json env_set;
  r.boolean("allow_unsandboxed_commands", o.allow_unsandboxed_commands)
      .string("bwrap_path", bwrap)
      .strings("read_only_paths", ro)
      .strings("env_allow", o.env_allow)
      .strings("env_deny", o.env_deny)
      .string("pids_cgroup_root", cgroup_root)
      .any("env_set", env_set);
  for (auto [key, dst] : {std::pair{"tmp_size", &o.tmp_size}, std::pair{"max_workspace_growth", &o.max_workspace_growth},
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
  if (auto ok = probe_sandbox(options); !ok) {
    if (!options.allow_unsandboxed_commands) return unexpected(ok.error());
    // The host opted out explicitly: same environment filter and rlimits, no isolation.
    ProcessOptions po = base_process_options(cmd, options);
    po.kill_grace = std::chrono::seconds(2);
    po.argv = cmd.argv;
    po.cwd = cmd.cwd.empty() ? cmd.workspace : cmd.cwd;
    po.env_allow.clear();
    po.env_set = command_env(cmd, options, false);
    GrowthWatch growth(cmd.workspace, options.max_workspace_growth);
    po.watch = [&] { return growth.check(); };
    auto r = run_process(po);
    if (r) r->sandboxed = false;
    return r;
  }
  return run_in_bwrap(cmd, options);
}

}  // namespace flowagent
