// Process runner: fork/exec in a new process group with a reduced environment, rlimits, an optional
// cgroup to join, a capped head+tail output buffer, timeout, cancellation and a watch callback.
// It isolates nothing by itself: untrusted commands go through run_sandboxed (src/sandbox/).
#include "flowagent/process.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>

extern char** environ;

namespace flowagent {

const std::vector<std::string>& default_env_allowlist() {
  static const std::vector<std::string> list = {"PATH",   "HOME",    "USER",   "LOGNAME", "SHELL",  "LANG",
                                                "LC_ALL", "LC_CTYPE", "TZ",    "TMPDIR",  "TERM",   "JAVA_HOME",
                                                "GOPATH", "GOROOT",  "GOCACHE", "CARGO_HOME", "RUSTUP_HOME",
                                                "PYENV_ROOT", "NODE_PATH"};
  return list;
}

std::vector<std::string> shell_argv(const std::string& command) { return {"/bin/sh", "-c", command}; }

std::string shell_quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  out += "'";
  return out;
}

namespace {

using Clock = std::chrono::steady_clock;

/// Keeps the first half and the last half of a stream within a cap.
class HeadTail {
 public:
  explicit HeadTail(std::size_t cap) : head_cap_(cap / 2), tail_cap_(cap - cap / 2) {}
  void add(const char* p, std::size_t n) {
    total_ += n;
    if (head_.size() < head_cap_) {
      std::size_t k = std::min(n, head_cap_ - head_.size());
      head_.append(p, k);
      p += k;
      n -= k;
    }
    if (n == 0) return;
    tail_.append(p, n);
    if (tail_.size() > 2 * tail_cap_ + 65536) tail_.erase(0, tail_.size() - tail_cap_);
  }
  std::string finish(bool& truncated) {
    if (tail_.size() > tail_cap_) tail_.erase(0, tail_.size() - tail_cap_);
    truncated = total_ > head_.size() + tail_.size();
    if (!truncated) return head_ + tail_;
    return head_ + "\n[... " + std::to_string(total_ - head_.size() - tail_.size()) + " bytes omitted ...]\n" + tail_;
  }
  std::uint64_t total() const { return total_; }

 private:
  std::size_t head_cap_, tail_cap_;
  std::string head_, tail_;
  std::uint64_t total_ = 0;
};

// Child-side helpers: only async-signal-safe calls.
void write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w <= 0) {
      if (w < 0 && errno == EINTR) continue;
      return;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

struct ChildReport {
  int stage;  // 1: joining the cgroup failed, 2: chdir failed, 3: exec failed, 4: session keyring
  int err;
  int index;  // which cgroup (stage 1)
};

/// Writes the calling process into a cgroup (cgroup v1 and v2 accept "0" for "myself").
int join_cgroup_in_child(const char* procs_path) {
  int fd = ::open(procs_path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  int err = ::write(fd, "0", 1) == 1 ? 0 : errno;
  ::close(fd);
  return err;
}

}  // namespace

Expected<ProcessResult> run_process(const ProcessOptions& opt) {
  if (opt.argv.empty()) return fail(Errc::invalid_argument, "empty command");
  if (opt.cancel.cancelled()) return fail(Errc::cancelled, "cancelled before start");

  // Environment and argv prepared before fork (no allocation in the child).
  std::vector<std::string> env_storage;
  for (const auto& name : opt.env_allow) {
    if (opt.env_set.count(name)) continue;
    if (const char* v = std::getenv(name.c_str())) env_storage.push_back(name + "=" + v);
  }
  for (const auto& [k, v] : opt.env_set) env_storage.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_storage = opt.argv;
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  // Resolve argv[0] against the child's PATH now.
  std::string exe = argv_storage[0];
  if (exe.find('/') == std::string::npos) {
    std::string path = "/usr/local/bin:/usr/bin:/bin";
    for (const auto& e : env_storage)
      if (e.rfind("PATH=", 0) == 0) path = e.substr(5);
    std::size_t start = 0;
    bool found = false;
    while (start <= path.size()) {
      auto end = path.find(':', start);
      std::string dir = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (dir.empty()) dir = ".";
      std::string cand = dir + "/" + exe;
      if (::access(cand.c_str(), X_OK) == 0) {
        exe = cand;
        found = true;
        break;
      }
      if (end == std::string::npos) break;
      start = end + 1;
    }
    if (!found) return fail(Errc::process, "command not found: " + argv_storage[0]);
  }
  const std::string cwd = opt.cwd.string();

  int out_pipe[2], report_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return fail(Errc::process, std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(report_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return fail(Errc::process, std::string("pipe: ") + std::strerror(errno));
  }
  std::vector<std::string> cgroup_procs;
  for (const auto& p : opt.join_cgroup_procs) cgroup_procs.push_back(p.string());
  const auto t0 = Clock::now();
  pid_t pid = ::fork();
  if (pid < 0) {
    int e = errno;
    for (int fd : {out_pipe[0], out_pipe[1], report_pipe[0], report_pipe[1]}) ::close(fd);
    return fail(Errc::process, std::string("fork: ") + std::strerror(e));
  }
  if (pid == 0) {
    // ---- child ----
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(out_pipe[1], 2);
    // Nothing the host process holds open leaks into the command: every descriptor above 2 is
    // closed at exec except the ones asked for.
    ::syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC);
    for (int fd : opt.keep_fds) ::fcntl(fd, F_SETFD, 0);
    for (std::size_t i = 0; i < cgroup_procs.size(); ++i) {
      if (int err = join_cgroup_in_child(cgroup_procs[i].c_str()); err != 0) {
        ChildReport r{1, err, static_cast<int>(i)};
        write_all(report_pipe[1], reinterpret_cast<const char*>(&r), sizeof r);
        ::_exit(127);
      }
    }
    // A fresh anonymous session keyring: the command cannot reach the keys of the host's session
    // keyring (KEYCTL_JOIN_SESSION_KEYRING with no name; ENOSYS: a kernel without keys).
    if (opt.new_session_keyring && ::syscall(SYS_keyctl, 1 /*KEYCTL_JOIN_SESSION_KEYRING*/, nullptr, 0, 0, 0) < 0 &&
        errno != ENOSYS) {
      ChildReport r{4, errno, 0};
      write_all(report_pipe[1], reinterpret_cast<const char*>(&r), sizeof r);
      ::_exit(127);
    }
    struct rlimit rl;
    rl.rlim_cur = rl.rlim_max = 0;
    ::setrlimit(RLIMIT_CORE, &rl);
    if (opt.max_file_size) {
      rl.rlim_cur = rl.rlim_max = opt.max_file_size;
      ::setrlimit(RLIMIT_FSIZE, &rl);
    }
    if (opt.max_address_space) {
      rl.rlim_cur = rl.rlim_max = opt.max_address_space;
      ::setrlimit(RLIMIT_AS, &rl);
    }
    if (opt.max_cpu_seconds) {
      rl.rlim_cur = rl.rlim_max = opt.max_cpu_seconds;
      ::setrlimit(RLIMIT_CPU, &rl);
    }
    if (opt.max_processes) {
      rl.rlim_cur = rl.rlim_max = opt.max_processes;
      ::setrlimit(RLIMIT_NPROC, &rl);
    }
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
      ChildReport r{2, errno, 0};
      write_all(report_pipe[1], reinterpret_cast<const char*>(&r), sizeof r);
      ::_exit(127);
    }
    ::execve(exe.c_str(), argv.data(), envp.data());
    ChildReport r{3, errno, 0};
    write_all(report_pipe[1], reinterpret_cast<const char*>(&r), sizeof r);
    ::_exit(127);
  }
  // ---- parent ----
  ::setpgid(pid, pid);  // also done in the child; whichever runs first wins
  ::close(out_pipe[1]);
  ::close(report_pipe[1]);

  ProcessResult result;
  std::atomic<bool> cancel_flag{false};
  auto reg = opt.cancel.on_cancel([&] { cancel_flag = true; });

  HeadTail buf(opt.output_cap);
  char chunk[65536];
  const auto deadline = t0 + opt.timeout;
  bool exited = false;
  int status = 0;
  bool killing = false;
  Clock::time_point kill_at{};
  bool pipe_open = true;
  Clock::time_point next_watch = t0;
  for (;;) {
    if (!exited) {
      pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid) {
        exited = true;
        // Background children of the command must not outlive it.
        ::kill(-pid, SIGKILL);
      }
    }
    if (exited && !pipe_open) break;
    const auto now = Clock::now();
    if (!killing && !exited && opt.watch && now >= next_watch) {
      next_watch = now + std::chrono::milliseconds(50);
      if (std::string why = opt.watch(); !why.empty()) {
        result.killed_by = std::move(why);
        ::kill(-pid, SIGKILL);
        killing = true;
        kill_at = now;
      }
    }
    if (!killing && !exited && (now >= deadline || cancel_flag)) {
      result.timed_out = now >= deadline && !cancel_flag;
      result.cancelled = cancel_flag.load();
      ::kill(-pid, SIGTERM);
      killing = true;
      kill_at = now + opt.kill_grace;
    }
    if (killing && !exited && now >= kill_at) ::kill(-pid, SIGKILL);
    if (exited && pipe_open) {
      // Drain what is left; the group is dead, so the pipe closes soon.
      struct pollfd p{out_pipe[0], POLLIN, 0};
      if (::poll(&p, 1, 200) <= 0) break;
    }
    if (pipe_open) {
      struct pollfd p{out_pipe[0], POLLIN, 0};
      int pr = ::poll(&p, 1, 50);
      if (pr > 0) {
        ssize_t n = ::read(out_pipe[0], chunk, sizeof chunk);
        if (n > 0) buf.add(chunk, static_cast<std::size_t>(n));
        else if (n == 0 || (errno != EINTR && errno != EAGAIN)) pipe_open = false;
      }
    } else if (!exited) {
      ::usleep(10000);
    }
  }
  if (!exited) {
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  ::close(out_pipe[0]);

  ChildReport rep{0, 0, 0};
  const bool startup_failed = ::read(report_pipe[0], &rep, sizeof rep) == static_cast<ssize_t>(sizeof rep);
  ::close(report_pipe[0]);
  if (startup_failed) {
    if (rep.stage == 1 && rep.index >= 0 && static_cast<std::size_t>(rep.index) < cgroup_procs.size())
      return fail(Errc::process, "cannot join " + cgroup_procs[static_cast<std::size_t>(rep.index)] + ": " +
                                     std::strerror(rep.err));
    if (rep.stage == 4)
      return fail(Errc::process, std::string("cannot join a new session keyring: ") + std::strerror(rep.err));
    if (rep.stage == 2) return fail(Errc::process, "cannot enter " + cwd + ": " + std::strerror(rep.err));
    return fail(Errc::process, "cannot execute " + argv_storage[0] + ": " + std::strerror(rep.err));
  }
  result.output = buf.finish(result.truncated);
  result.output_bytes = buf.total();
  result.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_code = 128 + result.signal;
  }
  return result;
}

}  // namespace flowagent
