// Process runner: starts a command (clone with CLONE_VM|CLONE_VFORK, then execve) in a new process group with a reduced environment, rlimits, an optional
// cgroup to join, a capped head+tail output buffer, timeout, cancellation and a watch callback.
// It isolates nothing by itself: untrusted commands go through run_sandboxed (src/sandbox/).
#include "flowagent/process.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sched.h>
#include <sys/mman.h>
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

// ---- Child side ----
// The child is started with clone(CLONE_VM | CLONE_VFORK) where the build allows it (see
// start_child): it shares the host's memory until execve, so it must not allocate, take a lock,
// touch a sanitizer's state or return into the host's frames. Every step below is a raw system call
// on data prepared by the parent, in functions the sanitizers leave uninstrumented. (fork() copied
// the host's page tables for each command: in a large process, an IDE or an ASan build with its
// shadow memory, that copy and its teardown at exec cost more than the command itself.)
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FLOWAGENT_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define FLOWAGENT_TSAN 1
#endif
#define FLOWAGENT_CHILD_CODE __attribute__((noinline, no_sanitize("address", "undefined", "thread")))

struct ChildReport {
  int stage;  // 1: joining the cgroup failed, 2: chdir failed, 3: exec failed, 4: session keyring
  int err;
  int index;  // which cgroup (stage 1)
};

/// What the child needs, prepared by the parent before the child starts (no allocation after).
struct ChildSpec {
  const char* exe;
  char* const* argv;
  char* const* envp;
  const char* cwd;  // nullptr: stay where the host is
  int out_fd, report_fd;
  const int* keep_fds;
  std::size_t keep_count;
  const char* const* cgroups;  // cgroup.procs files to join, in order
  std::size_t cgroup_count;
  bool new_session_keyring;
  std::uint64_t max_file_size, max_address_space, max_cpu_seconds, max_processes;  // 0: unset
  long max_fd;  // descriptors below it are marked close-on-exec where close_range cannot be
};

FLOWAGENT_CHILD_CODE long child_errno() { return errno; }

FLOWAGENT_CHILD_CODE void child_write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    long w = ::syscall(SYS_write, fd, p, n);
    if (w <= 0) {
      if (w < 0 && child_errno() == EINTR) continue;
      return;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

[[noreturn]] FLOWAGENT_CHILD_CODE void child_fail(const ChildSpec* s, int stage, long err, int index) {
  ChildReport r{stage, static_cast<int>(err), index};
  child_write_all(s->report_fd, reinterpret_cast<const char*>(&r), sizeof r);
  ::syscall(SYS_exit_group, 127);
  __builtin_unreachable();
}

/// dup2 that also works when old == new (then it only clears close-on-exec).
FLOWAGENT_CHILD_CODE void child_dup_to(int from, int to) {
  if (from == to) ::syscall(SYS_fcntl, to, F_SETFD, 0);
  else ::syscall(SYS_dup3, from, to, 0);
}

/// Writes the calling process into a cgroup (cgroup v1 and v2 accept "0" for "myself").
FLOWAGENT_CHILD_CODE long child_join_cgroup(const char* procs_path) {
  long fd = ::syscall(SYS_openat, AT_FDCWD, procs_path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return child_errno();
  long err = ::syscall(SYS_write, fd, "0", 1) == 1 ? 0 : child_errno();
  ::syscall(SYS_close, fd);
  return err;
}

/// prlimit64's struct (64-bit fields whatever rlim_t is in this build).
struct Limit64 {
  std::uint64_t cur, max;
};

FLOWAGENT_CHILD_CODE void child_limit(int resource, std::uint64_t value, bool zero_too = false) {
  if (value == 0 && !zero_too) return;
  Limit64 rl{value, value};
  ::syscall(SYS_prlimit64, 0, resource, &rl, nullptr);
}

/// The kernel's struct sigaction, large enough for every layout: only SIG_DFL with no flags is
/// ever written, and only the handler (the first member everywhere) is read.
struct KernelSigaction {
  void* handler;
  unsigned long flags;
  void* restorer;
  unsigned long mask[2];
};

FLOWAGENT_CHILD_CODE int child_main(void* arg) {
  const auto* s = static_cast<const ChildSpec*>(arg);
  ::syscall(SYS_setpgid, 0, 0);
  // The host's signal handlers must not run here (they would run on the host's memory): every
  // signal with a handler goes back to its default before signals are unblocked (the parent
  // blocked them all before starting the child). Ignored signals stay ignored, as across a fork.
  for (int sig = 1; sig < 65; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    KernelSigaction old{};
    if (::syscall(SYS_rt_sigaction, sig, nullptr, &old, 8) != 0) continue;
    const bool has_handler = old.handler != reinterpret_cast<void*>(SIG_DFL) &&
                             old.handler != reinterpret_cast<void*>(SIG_IGN);
    if (has_handler || sig == SIGPIPE) {
      KernelSigaction dfl{};
      dfl.handler = reinterpret_cast<void*>(SIG_DFL);
      ::syscall(SYS_rt_sigaction, sig, &dfl, nullptr, 8);
    }
  }
  unsigned long none = 0;
  ::syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, nullptr, 8);
  long devnull = ::syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDONLY);
  if (devnull >= 0) child_dup_to(static_cast<int>(devnull), 0);
  child_dup_to(s->out_fd, 1);
  child_dup_to(s->out_fd, 2);
  // Nothing the host process holds open leaks into the command: every descriptor above 2 is
  // closed at exec except the ones asked for.
  // (A kernel before 5.11 has no CLOSE_RANGE_CLOEXEC: every descriptor up to the limit is marked.)
  if (::syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC) != 0)
    for (long fd = 3; fd < s->max_fd; ++fd) ::syscall(SYS_fcntl, fd, F_SETFD, FD_CLOEXEC);
  for (std::size_t i = 0; i < s->keep_count; ++i) ::syscall(SYS_fcntl, s->keep_fds[i], F_SETFD, 0);
  for (std::size_t i = 0; i < s->cgroup_count; ++i)
    if (long err = child_join_cgroup(s->cgroups[i]); err != 0) child_fail(s, 1, err, static_cast<int>(i));
  // A fresh anonymous session keyring: the command cannot reach the keys of the host's session
  // keyring (KEYCTL_JOIN_SESSION_KEYRING with no name; ENOSYS: a kernel without keys).
  if (s->new_session_keyring && ::syscall(SYS_keyctl, 1 /*KEYCTL_JOIN_SESSION_KEYRING*/, nullptr, 0, 0, 0) < 0) {
    if (long err = child_errno(); err != ENOSYS) child_fail(s, 4, err, 0);
  }
  child_limit(RLIMIT_CORE, 0, true);
  child_limit(RLIMIT_FSIZE, s->max_file_size);
  child_limit(RLIMIT_AS, s->max_address_space);
  child_limit(RLIMIT_CPU, s->max_cpu_seconds);
  child_limit(RLIMIT_NPROC, s->max_processes);
  if (s->cwd && ::syscall(SYS_chdir, s->cwd) != 0) child_fail(s, 2, child_errno(), 0);
  ::syscall(SYS_execve, s->exe, s->argv, s->envp);
  child_fail(s, 3, child_errno(), 0);
}

/// The soft limit on open descriptors (at most 1 << 20): the close-on-exec fallback's range.
long open_file_limit() {
  struct rlimit rl;
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1u << 20)) return 1 << 20;
  return static_cast<long>(rl.rlim_cur);
}

/// Starts child_main(spec) in a new process; returns its pid, or -1 with errno set. The parent
/// blocks every signal meanwhile (a signal must not reach the child before it resets the host's
/// handlers). With CLONE_VFORK the calling thread waits until the child has called execve or
/// exited, which is what makes sharing the memory safe. Under ThreadSanitizer it forks instead:
/// TSan's clone interceptor resets its own state in the child, which CLONE_VM would share.
pid_t start_child(ChildSpec& spec) {
  // (Resolved here, so the child's first call does not bind it lazily in the shared memory.)
  (void)::syscall(SYS_getpid);
  sigset_t all, old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_t pid = -1;
  int err = 0;
#if defined(FLOWAGENT_TSAN) || !(defined(__x86_64__) || defined(__aarch64__))
  // (TSan; or an architecture whose kernel sigaction the child's reset is not written for.)
  pid = ::fork();
  if (pid == 0) child_main(&spec);
  err = errno;
#else
  constexpr std::size_t kStack = 256 * 1024;
  void* stack = ::mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) {
    err = errno;
  } else {
    pid = ::clone(child_main, static_cast<char*>(stack) + kStack, CLONE_VM | CLONE_VFORK | SIGCHLD, &spec);
    err = errno;
    ::munmap(stack, kStack);
  }
#endif
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = err;
  return pid;
}

}  // namespace

Expected<ProcessResult> run_process(const ProcessOptions& opt) {
  if (opt.argv.empty()) return fail(Errc::invalid_argument, "empty command");
  if (opt.cancel.cancelled()) return fail(Errc::cancelled, "cancelled before start");

  // Environment and argv prepared before the child starts (no allocation in the child).
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
  std::vector<const char*> cgroup_paths;
  for (const auto& p : cgroup_procs) cgroup_paths.push_back(p.c_str());
  ChildSpec spec{exe.c_str(),
                 argv.data(),
                 envp.data(),
                 cwd.empty() ? nullptr : cwd.c_str(),
                 out_pipe[1],
                 report_pipe[1],
                 opt.keep_fds.data(),
                 opt.keep_fds.size(),
                 cgroup_paths.data(),
                 cgroup_paths.size(),
                 opt.new_session_keyring,
                 opt.max_file_size,
                 opt.max_address_space,
                 opt.max_cpu_seconds,
                 opt.max_processes,
                 open_file_limit()};
  const auto t0 = Clock::now();
  pid_t pid = start_child(spec);
  if (pid < 0) {
    int e = errno;
    for (int fd : {out_pipe[0], out_pipe[1], report_pipe[0], report_pipe[1]}) ::close(fd);
    return fail(Errc::process, std::string("cannot start a process: ") + std::strerror(e));
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
