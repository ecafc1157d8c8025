#include "workspace/git.hpp"

namespace flowagent::detail {

std::string chomp(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

Expected<ProcessResult> git_result(const std::filesystem::path& dir, const std::vector<std::string>& args,
                                   const CancelToken& cancel, std::chrono::milliseconds timeout) {
  ProcessOptions o;
  o.argv = {"git", "-C", dir.string(), "-c", "core.hooksPath=/dev/null", "-c", "protocol.file.allow=always",
            "-c", "core.quotePath=false", "-c", "advice.detachedHead=false"};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.env_allow = {"PATH", "HOME", "TMPDIR", "USER"};
  o.env_set = {{"GIT_TERMINAL_PROMPT", "0"}, {"LC_ALL", "C"}, {"GIT_OPTIONAL_LOCKS", "0"}};
  o.timeout = timeout;
  o.output_cap = 64 << 20;
  o.cancel = cancel;
  return run_process(o);
}

Expected<std::string> git(const std::filesystem::path& dir, const std::vector<std::string>& args,
                          const CancelToken& cancel, std::chrono::milliseconds timeout) {
  auto r = git_result(dir, args, cancel, timeout);
  if (!r) return unexpected(r.error());
  if (r->cancelled) return fail(Errc::cancelled, "git cancelled");
  if (r->timed_out) return fail(Errc::timeout, "git " + (args.empty() ? std::string() : args[0]) + " timed out");
  if (r->exit_code != 0) {
    std::string cmd;
    for (const auto& a : args) cmd += (cmd.empty() ? "" : " ") + a;
    return fail(Errc::process, "git " + cmd + " failed (exit " + std::to_string(r->exit_code) + "): " +
                                   chomp(r->output.substr(0, 2000)));
  }
  return std::move(r->output);
}

}  // namespace flowagent::detail
