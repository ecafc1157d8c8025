#include <gtest/gtest.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "flowagent/process.hpp"
#include "support/test_support.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace std::chrono_literals;

namespace {
ProcessResult run(const std::string& cmd, ProcessOptions o = {}) {
  o.argv = shell_argv(cmd);
  auto r = run_process(o);
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return r ? *r : ProcessResult{};
}
}  // namespace

TEST(Process, CapturesOutputAndExitCode) {
  auto r = run("echo out; echo err >&2; exit 3");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.output.find("out\n"), std::string::npos);
  EXPECT_NE(r.output.find("err\n"), std::string::npos);
  EXPECT_FALSE(r.timed_out);
}

TEST(Process, StdinIsClosed) {
  auto r = run("cat; echo done");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, "done\n");
}

TEST(Process, EnvironmentIsReducedToTheAllowList) {
  ::setenv("OPENAI_API_KEY", "sk-secret", 1);
  ::setenv("GITHUB_TOKEN", "ghp-secret", 1);
  ProcessOptions o;
  o.env_set["EXTRA"] = "yes";
  auto r = run("env", o);
  EXPECT_EQ(r.output.find("sk-secret"), std::string::npos);
  EXPECT_EQ(r.output.find("ghp-secret"), std::string::npos);
  EXPECT_NE(r.output.find("EXTRA=yes"), std::string::npos);
  EXPECT_NE(r.output.find("PATH="), std::string::npos);
  ::unsetenv("OPENAI_API_KEY");
  ::unsetenv("GITHUB_TOKEN");
}

TEST(Process, TimeoutKillsTheWholeGroup) {
  testkit::TempDir d;
  ProcessOptions o;
  o.timeout = 500ms;
  o.kill_grace = 200ms;
  o.cwd = d.path();
  // A background grandchild that would touch a file after 2 s; killing only the shell would miss it.
  auto r = run("(sleep 2; touch late) & trap '' TERM; sleep 30", o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.duration_ms, 15000);  // the command sleeps 30 s
  std::this_thread::sleep_for(2500ms);
  EXPECT_FALSE(std::filesystem::exists(d.path() / "late"));
}

TEST(Process, BackgroundChildrenDieWithTheCommand) {
  testkit::TempDir d;
  ProcessOptions o;
  o.cwd = d.path();
  auto r = run("(sleep 1; touch late) & exit 0", o);
  EXPECT_EQ(r.exit_code, 0);
  std::this_thread::sleep_for(1500ms);
  EXPECT_FALSE(std::filesystem::exists(d.path() / "late"));
}

TEST(Process, CancelFromAnotherThread) {
  ProcessOptions o;
  o.argv = shell_argv("sleep 30");
  std::thread t([c = o.cancel] {
    std::this_thread::sleep_for(200ms);
    c.cancel();
  });
  auto r = run_process(o);
  t.join();
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->cancelled);
  EXPECT_LT(r->duration_ms, 15000);  // the command sleeps 30 s
}

TEST(Process, OutputCapKeepsHeadAndTail) {
  ProcessOptions o;
  o.output_cap = 1000;
  auto r = run("echo FIRST; seq 1 100000; echo LAST", o);
  EXPECT_TRUE(r.truncated);
  EXPECT_LT(r.output.size(), 1200u);
  EXPECT_EQ(r.output.rfind("FIRST", 0), 0u);
  EXPECT_NE(r.output.find("LAST"), std::string::npos);
  EXPECT_NE(r.output.find("bytes omitted"), std::string::npos);
  EXPECT_GT(r.output_bytes, 500000u);
}

TEST(Process, ReportsStartFailures) {
  ProcessOptions o;
  o.argv = {"definitely-not-a-command-xyz"};
  auto r = run_process(o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::process);
  o.argv = {"/bin/true"};
  o.cwd = "/nonexistent/dir";
  r = run_process(o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("cannot enter"), std::string::npos);
  // execve itself fails (a file that is not a program): reported from the child.
  testkit::TempDir d;
  const std::string plain = (d.path() / "notes.txt").string();
  { std::ofstream(plain) << "not a program\n"; }
  o.cwd.clear();
  o.argv = {plain};
  r = run_process(o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("cannot execute " + plain), std::string::npos) << r.error().message;
  // A cgroup that cannot be joined.
  o.argv = {"/bin/true"};
  o.join_cgroup_procs = {"/nonexistent/cgroup.procs"};
  r = run_process(o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("cannot join /nonexistent/cgroup.procs"), std::string::npos) << r.error().message;
}

TEST(Process, FileSizeLimit) {
  testkit::TempDir d;
  ProcessOptions o;
  o.cwd = d.path();
  o.max_file_size = 4096;
  auto r = run("head -c 100000 /dev/zero > big; echo $?", o);
  EXPECT_LE(std::filesystem::file_size(d.path() / "big"), 4096u);
}

TEST(Process, WatchCanKillTheRun) {
  ProcessOptions o;
  int polls = 0;
  o.watch = [&]() -> std::string { return ++polls >= 3 ? "enough" : ""; };
  auto r = run("sleep 30", o);
  EXPECT_EQ(r.killed_by, "enough");
  EXPECT_LT(r.duration_ms, 15000);  // the command sleeps 30 s
  EXPECT_FALSE(r.ok());
}

TEST(Process, HostDescriptorsDoNotLeakIntoTheChild) {
  testkit::TempDir d;
  // A descriptor opened without O_CLOEXEC by the host must not reach the command.
  int low = ::open(d.path().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(low, 0);
  int fd = ::fcntl(low, F_DUPFD, 100);  // F_DUPFD: close-on-exec is not set
  ::close(low);
  ASSERT_GE(fd, 100);
  auto r = run("ls /proc/self/fd");
  ::close(fd);
  EXPECT_EQ(r.output.find(std::to_string(fd) + "\n"), std::string::npos) << r.output;
}

TEST(Process, ShellQuote) {
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  auto r = run("printf '%s' " + shell_quote("$(touch x) `y` 'z'"));
  EXPECT_EQ(r.output, "$(touch x) `y` 'z'");
}

namespace {
volatile sig_atomic_t g_usr1_seen = 0;
void on_usr1(int) { g_usr1_seen = 1; }
unsigned long long status_mask(const std::string& status, const std::string& field) {
  auto at = status.find("\n" + field + ":");
  if (at == std::string::npos) return ~0ull;
  return std::stoull(status.substr(at + field.size() + 2, 32), nullptr, 16);
}
}  // namespace

// The child is started sharing the host's memory (clone with CLONE_VM|CLONE_VFORK): it must reset
// the host's signal state in its own process only. The command starts with no signal blocked,
// SIGPIPE at its default, host-ignored signals still ignored (as across fork and exec), and the
// host keeps its handlers and its mask.
TEST(Process, TheCommandStartsWithTheHostsSignalStateResetAndTheHostKeepsIt) {
  struct sigaction usr1{}, ign{}, old_usr1{}, old_usr2{}, old_pipe{};
  usr1.sa_handler = on_usr1;
  ign.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGUSR1, &usr1, &old_usr1), 0);
  ASSERT_EQ(::sigaction(SIGUSR2, &ign, &old_usr2), 0);
  ASSERT_EQ(::sigaction(SIGPIPE, &ign, &old_pipe), 0);
  sigset_t term, old_mask;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &term, &old_mask), 0);

  ProcessOptions o;
  o.argv = {"/bin/cat", "/proc/self/status"};
  auto r = run_process(o);

  sigset_t now;
  ::pthread_sigmask(SIG_SETMASK, nullptr, &now);
  struct sigaction after{};
  ::sigaction(SIGUSR1, nullptr, &after);
  const bool term_still_blocked = sigismember(&now, SIGTERM) == 1;
  const bool usr1_unblocked = sigismember(&now, SIGUSR1) == 0;
  const bool handler_kept = after.sa_handler == on_usr1;
  ::raise(SIGUSR1);  // the host's handler still runs in the host
  ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  ::sigaction(SIGUSR1, &old_usr1, nullptr);
  ::sigaction(SIGUSR2, &old_usr2, nullptr);
  ::sigaction(SIGPIPE, &old_pipe, nullptr);

  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->exit_code, 0) << r->output;
  EXPECT_EQ(status_mask(r->output, "SigBlk"), 0ull) << r->output;
  const auto ignored = status_mask(r->output, "SigIgn");
  EXPECT_EQ(ignored & (1ull << (SIGPIPE - 1)), 0ull) << r->output;
  EXPECT_NE(ignored & (1ull << (SIGUSR2 - 1)), 0ull) << r->output;
  EXPECT_TRUE(term_still_blocked);
  EXPECT_TRUE(usr1_unblocked);
  EXPECT_TRUE(handler_kept);
  EXPECT_EQ(g_usr1_seen, 1);
}

// Many commands started at once from many threads (each start suspends only its own thread).
TEST(Process, CommandsStartedFromManyThreadsAtOnceEachGetTheirOwnOutput) {
  constexpr int kThreads = 8, kEach = 6;
  std::vector<std::thread> threads;
  std::vector<int> wrong(kThreads, 0);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &wrong] {
      for (int i = 0; i < kEach; ++i) {
        ProcessOptions o;
        const std::string word = "t" + std::to_string(t) + "i" + std::to_string(i);
        o.argv = {"/bin/echo", word};
        auto r = run_process(o);
        if (!r || r->exit_code != 0 || r->output != word + "\n") ++wrong[static_cast<std::size_t>(t)];
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[static_cast<std::size_t>(t)], 0) << "thread " << t;
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
