#include "tools/test_command.hpp"

#include <fnmatch.h>

#include <chrono>

namespace flowagent::detail {

namespace fs = std::filesystem;

Expected<ProcessResult> run_command(const fs::path& root, const std::string& command, const RepairRequest& request,
                                    const CancelToken& cancel, bool no_network) {
  ProcessOptions o;
  o.argv = shell_argv(command);
  o.cwd = root;
  o.timeout = std::chrono::seconds(request.commands.timeout_seconds);
  o.no_network = no_network;
  o.cancel = cancel;
  o.env_set["CI"] = "1";
  o.env_set["FLOWAGENT_SANDBOX"] = "1";
  return run_process(o);
}

std::string expand_tests(const std::string& command, const std::vector<std::string>& tests) {
  // {tests}: each id shell-quoted, space-separated. {tests|SEP}: the ids joined with SEP as one
  // shell-quoted word (e.g. --gtest_filter={tests|:} or -k {tests| or }).
  std::string out;
  std::size_t from = 0;
  for (;;) {
    std::size_t p = command.find("{tests", from);
    if (p == std::string::npos) break;
    std::size_t close = command.find('}', p);
    if (close == std::string::npos) break;
    std::string_view inside(command.data() + p + 6, close - p - 6);
    if (!inside.empty() && inside.front() != '|') {  // not our placeholder
      out.append(command, from, p + 1 - from);
      from = p + 1;
      continue;
    }
    out.append(command, from, p - from);
    if (inside.empty()) {
      std::string list;
      for (const auto& t : tests) {
        if (!list.empty()) list += ' ';
        list += shell_quote(t);
      }
      out += list;
    } else {
      std::string joined;
      const std::string sep(inside.substr(1));
      for (const auto& t : tests) {
        if (!joined.empty()) joined += sep;
        joined += t;
      }
      out += shell_quote(joined);
    }
    from = close + 1;
  }
  out.append(command, from, std::string::npos);
  return out;
}

std::vector<fs::path> reports_written_since(const fs::path& root, const std::vector<std::string>& globs,
                                            fs::file_time_type since) {
  std::vector<fs::path> out;
  if (globs.empty()) return out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it->path().filename() == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
    const std::string rel = fs::relative(it->path(), root, ec).string();
    for (const auto& g : globs) {
      if (::fnmatch(g.c_str(), rel.c_str(), 0) == 0 && it->last_write_time(ec) >= since) {
        out.push_back(it->path());
        break;
      }
    }
  }
  return out;
}

Expected<TestRunOutcome> run_tests(const fs::path& root, const RepairRequest& request,
                                   const std::vector<std::string>& tests, const CancelToken& cancel, bool no_network,
                                   std::string purpose, const std::string& command_override) {
  const std::string& tmpl = command_override.empty() ? request.commands.test : command_override;
  if (tmpl.empty()) return fail(Errc::invalid_argument, "the request has no test command");
  const std::string command = expand_tests(tmpl, tests);
  const auto since = fs::file_time_type::clock::now() - std::chrono::seconds(1);
  auto r = run_command(root, command, request, cancel, no_network);
  if (!r) return unexpected(r.error());
  if (r->cancelled) return fail(Errc::cancelled, "test run cancelled");
  TestRunOutcome out;
  out.run.command = command;
  out.run.exit_code = r->exit_code;
  out.run.timed_out = r->timed_out;
  out.run.duration_ms = r->duration_ms;
  out.run.purpose = std::move(purpose);
  out.log = r->output;
  std::vector<reports::Report> reps;
  for (const auto& p : reports_written_since(root, request.commands.report_globs, since))
    reps.push_back(reports::parse_report_file(p));
  if (reps.empty() || std::all_of(reps.begin(), reps.end(), [](auto& x) { return x.tests.empty(); }))
    reps = {reports::parse_report(r->output)};
  for (auto& rep : reps)
    for (auto& t : rep.tests) {
      if (t.outcome == reports::Outcome::passed) out.run.passed.push_back(t.id);
      else if (t.outcome == reports::Outcome::failed || t.outcome == reports::Outcome::error) {
        out.run.failed.push_back(t.id);
        out.failures.push_back(std::move(t));
      }
    }
  return out;
}

}  // namespace flowagent::detail
