#include "validate/runner.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <random>
#include <sstream>

#include "flowagent/json.hpp"
#include "flowagent/process.hpp"
#include "tools/test_command.hpp"
#include "workspace/sandbox_fs.hpp"

namespace flowagent::detail {

namespace fs = std::filesystem;
using reports::Runner;

namespace {

struct Word {
  std::string text;
  std::size_t end = 0;  ///< offset just past the word in the template
};

/// Whitespace-separated words with their end offsets; quotes are kept inside words (a runner's
/// name is never quoted in practice, and a quoted word simply does not match one).
std::vector<Word> words(std::string_view s) {
  std::vector<Word> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::size_t b = i;
    char quote = 0;
    while (i < s.size() && (quote || !std::isspace(static_cast<unsigned char>(s[i])))) {
      if (quote && s[i] == quote) quote = 0;
      else if (!quote && (s[i] == '\'' || s[i] == '"')) quote = s[i];
      ++i;
    }
    if (i > b) out.push_back(Word{std::string(s.substr(b, i - b)), i});
  }
  return out;
}

bool is_cmd(const std::string& w, std::string_view name) {
  if (w == name) return true;
  return w.size() > name.size() && w.compare(w.size() - name.size(), name.size(), name) == 0 &&
         w[w.size() - name.size() - 1] == '/';
}

bool separator(const std::string& w) { return w == "&&" || w == "||" || w == ";" || w == "|"; }

struct Found {
  Runner runner = Runner::unknown;
  std::size_t insert_at = std::string::npos;  ///< where report flags go
  bool via_script = false;                    ///< found in a package.json script: flags follow "--"
};

Found find_runner(std::string_view tmpl) {
  auto ws = words(tmpl);
  for (std::size_t i = 0; i < ws.size(); ++i) {
    const auto& w = ws[i].text;
    auto next = [&](std::size_t k) -> const std::string& {
      static const std::string none;
      return i + k < ws.size() ? ws[i + k].text : none;
    };
    if (is_cmd(w, "pytest") || is_cmd(w, "py.test")) return {Runner::pytest, ws[i].end};
    if (w == "-m" && next(1) == "pytest") return {Runner::pytest, ws[i + 1].end};
    if (is_cmd(w, "jest")) return {Runner::jest, ws[i].end};
    if (is_cmd(w, "vitest")) {
      if (next(1) == "run") return {Runner::vitest, ws[i + 1].end};
      return {Runner::vitest, ws[i].end};
    }
    if (is_cmd(w, "go") && next(1) == "test") return {Runner::go, ws[i + 1].end};
    if (is_cmd(w, "ctest")) return {Runner::ctest, ws[i].end};
    if (is_cmd(w, "tape")) return {Runner::tape, std::string::npos};
    if (is_cmd(w, "cargo") && next(1) == "test") return {Runner::cargo, std::string::npos};
    if (is_cmd(w, "mvn") || is_cmd(w, "mvnw")) return {Runner::maven, std::string::npos};
    if (is_cmd(w, "gradle") || is_cmd(w, "gradlew")) return {Runner::gradle, std::string::npos};
    if (is_cmd(w, "node") || is_cmd(w, "nodejs")) {
      for (std::size_t k = i + 1; k < ws.size() && !separator(ws[k].text); ++k)
        if (ws[k].text == "--test") return {Runner::node_test, ws[k].end};
    }
  }
  if (tmpl.find("--gtest_") != std::string_view::npos) return {Runner::gtest, std::string::npos};
  return {};
}

std::string random_suffix() {
  std::random_device rd;
  std::ostringstream ss;
  ss << std::hex << ((static_cast<std::uint64_t>(rd()) << 32) | rd());
  return ss.str();
}

/// `npm test`, `npm run X`, `yarn X`, `pnpm X`: the runner named by the package.json script, and
/// where arguments for it go (after "--").
Found find_script_runner(std::string_view tmpl, const fs::path& root) {
  if (root.empty()) return {};
  auto ws = words(tmpl);
  for (std::size_t i = 0; i < ws.size(); ++i) {
    const auto& w = ws[i].text;
    if (!is_cmd(w, "npm") && !is_cmd(w, "yarn") && !is_cmd(w, "pnpm")) continue;
    std::size_t k = i + 1;
    if (k < ws.size() && (ws[k].text == "run" || ws[k].text == "run-script")) ++k;
    if (k >= ws.size()) return {};
    std::string script = ws[k].text == "t" ? "test" : ws[k].text;
    // Through the confined reader: test code may have made package.json a FIFO, a device or a
    // symlink out of the tree (a plain open would block or follow it).
    auto tree = detail::SandboxFs::open(root);
    if (!tree) return {};
    auto text = tree->read("package.json", 1u << 20);
    if (!text) return {};
    auto doc = parse_json(*text);
    if (!doc || !doc->is_object()) return {};
    const Json* scripts = doc->find("scripts");
    if (!scripts || !scripts->is_object()) return {};
    const std::string body = scripts->get_string(script);
    if (body.empty()) return {};
    Found inner = find_runner(body);
    if (inner.runner == Runner::unknown) return {};
    // Report flags go after "--" at the end of the npm invocation (before any shell separator).
    std::size_t end = ws[k].end;
    for (std::size_t m = k + 1; m < ws.size() && !separator(ws[m].text); ++m) end = ws[m].end;
    inner.insert_at = end;
    inner.via_script = true;
    return inner;
  }
  return {};
}

}  // namespace

Runner detect_runner(std::string_view command_template) { return find_runner(command_template).runner; }

RunnerPlan plan_runner(const std::string& tmpl, const fs::path& dir, const fs::path& root) {
  RunnerPlan plan;
  Found f = find_runner(tmpl);
  if (f.runner == Runner::unknown) f = find_script_runner(tmpl, root);
  plan.runner = f.runner;
  auto q = [&](const std::string& file) { return shell_quote((dir / file).string()); };
  std::string flags;
  switch (f.runner) {
    case Runner::pytest: flags = " --junitxml=" + q("pytest.xml") + " -o junit_family=xunit1"; break;
    case Runner::jest: flags = " --json --outputFile=" + q("jest.json"); break;
    case Runner::vitest: flags = " --reporter=default --reporter=json --outputFile=" + q("vitest.json"); break;
    case Runner::go: flags = " -json"; plan.stdout_format = "go-json"; break;
    case Runner::ctest: flags = " --output-junit " + q("ctest.xml"); break;
    case Runner::node_test:
      // Reporters pair with destinations by position: with reporters of its own, the command keeps
      // them (a TAP reporter on stdout is read from the output).
      if (tmpl.find("--test-reporter") == std::string::npos)
        flags = " --test-reporter=tap --test-reporter-destination=" + q("node.tap") +
                " --test-reporter=spec --test-reporter-destination=stdout";
      else if (tmpl.find("--test-reporter=tap") != std::string::npos &&
               tmpl.find("--test-reporter-destination") == std::string::npos)
        plan.stdout_format = "tap";
      break;
    case Runner::tape: plan.stdout_format = "tap"; break;
    default: break;
  }
  std::string cmd = tmpl;
  if (f.via_script && f.runner != Runner::jest && f.runner != Runner::vitest && f.runner != Runner::pytest)
    flags.clear();  // node --test and ctest take no trailing options through a script
  if (f.via_script && !flags.empty()) flags = " --" + flags;
  if (!flags.empty() && f.insert_at != std::string::npos) cmd.insert(f.insert_at, flags);
  // GoogleTest binaries, however they are started (directly, by ctest, by a script), write one JSON
  // report each into the directory.
  plan.command_template = "export GTEST_OUTPUT=" + shell_quote("json:" + dir.string() + "/") + "; " + cmd;
  return plan;
}

Expected<Observed> observe_tests(const fs::path& root, const RepairRequest& request,
                                 const std::vector<std::string>& tests, const CancelToken& cancel, const SandboxOptions* sandbox,
                                 std::string purpose, const std::string& command_override) {
  auto checked = checked_test_template(request, tests, purpose, command_override);
  if (!checked) return unexpected(checked.error());
  const std::string& tmpl = *checked;
  const fs::path dir = root / (".flowagent-evidence-" + random_suffix());
  std::error_code ec;
  fs::create_directory(dir, ec);
  if (ec) return fail(Errc::io, "cannot create the report directory " + dir.string() + ": " + ec.message());
  struct stat made {};
  if (::lstat(dir.c_str(), &made) != 0) return fail(Errc::io, "cannot stat the report directory " + dir.string());
  struct Remove {
    fs::path p;
    ~Remove() {
      std::error_code e;
      fs::remove_all(p, e);
    }
  } remove{dir};

  const RunnerPlan plan = plan_runner(tmpl, dir, root);
  const std::string command = expand_tests(plan.command_template, tests);
  const auto since = fs::file_time_type::clock::now() - std::chrono::seconds(1);
  auto r = run_command(root, command, request, cancel, sandbox);
  if (!r) return unexpected(r.error());
  if (r->cancelled) return fail(Errc::cancelled, "test run cancelled");

  Observed out;
  out.runner = plan.runner;
  out.log = r->output;
  out.run.command = expand_tests(tmpl, tests);  // as the host wrote it, without our report flags
  out.run.exit_code = r->exit_code;
  out.run.timed_out = r->timed_out;
  out.run.duration_ms = r->duration_ms;
  out.run.purpose = std::move(purpose);

  // (source, report): "report" for files the runner wrote, "output" for what it printed.
  std::vector<std::pair<std::string, reports::Report>> reps;
  std::vector<fs::path> files;
  // The directory is inside the tree the test could write: read it only if it is still the very
  // directory we made (not swapped for a symlink to somewhere on the host). Nothing of the run is
  // alive any more (the sandbox's namespace is gone), so the check cannot race. Entries: regular
  // files only, not symlinks, bounded in size.
  struct stat now {};
  const bool same_dir = ::lstat(dir.c_str(), &now) == 0 && S_ISDIR(now.st_mode) && now.st_dev == made.st_dev &&
                        now.st_ino == made.st_ino;
  if (!same_dir) out.log += "\n[flowagent: the report directory was replaced during the run; its reports are ignored]\n";
  for (auto it = fs::directory_iterator(same_dir ? dir : fs::path(), ec); same_dir && !ec && it != fs::directory_iterator();
       it.increment(ec))
    if (!it->is_symlink(ec) && it->is_regular_file(ec) && it->file_size(ec) <= (64u << 20)) files.push_back(it->path());
  std::sort(files.begin(), files.end());
  for (const auto& p : files) reps.emplace_back("report", reports::parse_report_file(p));
  if (!plan.stdout_format.empty()) {
    auto rep = reports::parse_report_as(plan.stdout_format, r->output);
    reps.emplace_back(plan.stdout_format == "go-json" ? "report" : "output", std::move(rep));
  }
  auto any_tests = [&] {
    return std::any_of(reps.begin(), reps.end(), [](const auto& x) { return !x.second.tests.empty(); });
  };
  if (!any_tests()) {
    std::vector<std::string> globs = request.commands.report_globs;
    if (plan.runner == Runner::maven) globs.push_back("*target/surefire-reports/*.xml");
    if (plan.runner == Runner::gradle) globs.push_back("*build/test-results/*.xml");
    reps.clear();
    for (const auto& p : reports_written_since(root, globs, since)) reps.emplace_back("report", reports::parse_report_file(p));
  }
  if (!any_tests()) {
    // The output, by content; TAP behind a wrapper's banner ("> pkg@1.0.0 test") is still TAP.
    reps = {{"output", reports::parse_report(r->output)}};
    auto tap = r->output.find("TAP version");
    if (!any_tests() && tap != std::string::npos)
      reps = {{"output", reports::parse_report_as("tap", std::string_view(r->output).substr(tap))}};
  }
  for (auto& [source, rep] : reps) {
    if (rep.tests.empty()) continue;
    if (out.run.report_format.empty()) out.run.report_format = source + ":" + rep.format;
    for (auto& t : rep.tests) {
      if (t.outcome == reports::Outcome::passed) out.run.passed.push_back(t.id);
      else if (t.outcome == reports::Outcome::failed || t.outcome == reports::Outcome::error) out.run.failed.push_back(t.id);
      out.tests.push_back(std::move(t));
    }
  }
  out.readable = !out.tests.empty();
  return out;
}

}  // namespace flowagent::detail
