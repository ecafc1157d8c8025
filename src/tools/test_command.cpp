#include "tools/test_command.hpp"

#include <fnmatch.h>

#include <cctype>
#include <chrono>

#include "reports/test_identity.hpp"
#include "validate/runner.hpp"

namespace flowagent::detail {

namespace fs = std::filesystem;

const SandboxOptions& default_sandbox_options() {
  static const SandboxOptions defaults;
  return defaults;
}

Expected<ProcessResult> run_command(const fs::path& root, const std::string& command, const RepairRequest& request,
                                    const CancelToken& cancel, const SandboxOptions* sandbox,
                                    std::chrono::milliseconds timeout) {
  SandboxCommand c;
  c.argv = shell_argv(command);
  c.workspace = root;
  c.timeout = std::chrono::seconds(request.commands.timeout_seconds);
  if (timeout.count() > 0) c.timeout = std::min(c.timeout, timeout);
  c.cancel = cancel;
  c.env["CI"] = "1";
  c.env["FLOWAGENT_SANDBOX"] = "1";
  if (!request.model.api_key_env.empty()) c.env_deny.push_back(request.model.api_key_env);
  auto r = run_sandboxed(c, sandbox ? *sandbox : default_sandbox_options());
  // The free-space floor is per file system: crossing it says the host's disk ran low (by this
  // command or another writer), which is no verdict on the code; the job ends with an error.
  if (r && r->killed_by.find("(floor ") != std::string::npos && r->killed_by.find("min_free_disk_") != std::string::npos)
    return fail(Errc::io, "the host's disk ran low during the command: " + r->killed_by);
  return r;
}

namespace {

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'; }

/// Whether the command before the placeholder runs pytest (which reads `--` as the end of options)
/// and has no `--` yet, and the placeholder ends its simple command (nothing but a separator or a
/// redirection follows), so `--` can go in front of the ids without changing what else is passed.
bool wants_end_of_options(std::string_view before, std::string_view after) {
  auto seg_start = before.find_last_of(";&|(\n");
  std::string_view seg = seg_start == std::string_view::npos ? before : before.substr(seg_start + 1);
  bool pytest = false, dashdash = false;
  std::size_t i = 0;
  while (i < seg.size()) {
    while (i < seg.size() && std::isspace(static_cast<unsigned char>(seg[i]))) ++i;
    std::size_t j = i;
    while (j < seg.size() && !std::isspace(static_cast<unsigned char>(seg[j]))) ++j;
    std::string_view word = seg.substr(i, j - i);
    auto slash = word.find_last_of('/');
    std::string_view base = slash == std::string_view::npos ? word : word.substr(slash + 1);
    if (base == "pytest" || base == "py.test") pytest = true;
    if (word == "--") dashdash = true;
    i = j;
  }
  if (!pytest || dashdash) return false;
  std::size_t k = 0;
  while (k < after.size() && (after[k] == ' ' || after[k] == '\t')) ++k;
  return k == after.size() || std::string_view(";&|)<>\n").find(after[k]) != std::string_view::npos;
}

}  // namespace

TestRun test_run_of(std::string command, const ProcessResult& r, std::string purpose) {
  TestRun run;
  run.command = std::move(command);
  run.exit_code = r.exit_code;
  run.timed_out = r.timed_out;
  run.stopped_by = r.killed_by;
  run.duration_ms = r.duration_ms;
  run.purpose = std::move(purpose);
  return run;
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
      const bool end_of_options =
          !tests.empty() && (p == 0 || !is_word_char(command[p - 1])) &&
          wants_end_of_options(std::string_view(command).substr(0, p), std::string_view(command).substr(close + 1));
      if (end_of_options) out.append("-- ");
      for (std::size_t i = 0; i < tests.size(); ++i) {
        if (i > 0) out.push_back(' ');
        out.append(shell_quote(tests[i]));
      }
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
  return within_report_budget(out);
}

std::vector<fs::path> within_report_budget(const std::vector<fs::path>& files) {
  std::vector<fs::path> out;
  std::uintmax_t total = 0;
  for (const auto& p : files) {
    std::error_code ec;
    const auto st = fs::symlink_status(p, ec);
    if (ec || !fs::is_regular_file(st)) continue;
    const auto size = fs::file_size(p, ec);
    if (ec || size > kReportBytesPerRun - total) continue;
    total += size;
    out.push_back(p);
  }
  return out;
}

Expected<std::string> checked_test_template(const RepairRequest& request, const std::vector<std::string>& tests,
                                            const std::string& purpose, const std::string& command_override) {
  const std::string& tmpl = command_override.empty() ? request.commands.test : command_override;
  if (tmpl.empty()) return fail(Errc::invalid_argument, "the request has no test command");
  if (auto ok = check_test_template(tmpl, command_override.empty() ? "commands.test" : "commands.wider_test"); !ok)
    return unexpected(ok.error());
  for (const auto& t : tests)
    if (auto ok = check_test_id(t, "test ids of the " + purpose + " run"); !ok) return unexpected(ok.error());
  return tmpl;
}

Expected<TestRunOutcome> run_tests(const fs::path& root, const RepairRequest& request,
                                   const std::vector<std::string>& tests, const CancelToken& cancel,
                                   const SandboxOptions* sandbox, std::string purpose,
                                   const std::string& command_override, std::chrono::milliseconds timeout) {
  auto checked = checked_test_template(request, tests, purpose, command_override);
  if (!checked) return unexpected(checked.error());
  const std::string& tmpl = *checked;
  std::vector<std::string> selectors;
  for (const auto& t : tests) selectors.push_back(reports::runner_selector(t, detect_runner(tmpl)));
  const std::string command = expand_tests(tmpl, selectors);
  const auto since = fs::file_time_type::clock::now() - std::chrono::seconds(1);
  auto r = run_command(root, command, request, cancel, sandbox, timeout);
  if (!r) return unexpected(r.error());
  if (r->cancelled) return fail(Errc::cancelled, "test run cancelled");
  TestRunOutcome out;
  out.run = test_run_of(command, *r, std::move(purpose));
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
