#include "validate/runner.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "core/regex.hpp"
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

std::string random_suffix() {
  std::random_device rd;
  std::ostringstream ss;
  ss << std::hex << ((static_cast<std::uint64_t>(rd()) << 32) | rd());
  return ss.str();
}

Runner detect_runner(std::string_view command_template) { return find_runner(command_template).runner; }

RunnerPlan plan_runner(const std::string& tmpl, const fs::path& dir, const fs::path& root, const std::string& extra_flags) {
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
  flags += extra_flags;
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
  // What the runner selects by (go: the test name without the package a report puts in front).
  std::vector<std::string> selectors;
  for (const auto& t : tests) selectors.push_back(reports::runner_selector(t, plan.runner));
  const std::string command = expand_tests(plan.command_template, selectors);
  const auto since = fs::file_time_type::clock::now() - std::chrono::seconds(1);
  auto r = run_command(root, command, request, cancel, sandbox);
  if (!r) return unexpected(r.error());
  if (r->cancelled) return fail(Errc::cancelled, "test run cancelled");

  Observed out;
  out.runner = plan.runner;
  out.log = r->output;
  out.run = test_run_of(expand_tests(tmpl, selectors), *r, std::move(purpose));  // (as the host wrote it, without our report flags)

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
    if (!it->is_symlink(ec) && it->is_regular_file(ec)) files.push_back(it->path());
  std::sort(files.begin(), files.end());
  files = within_report_budget(files);  // test code writes these; flowagent parses them in its own memory
  for (const auto& p : files) reps.emplace_back(p.filename() == "ctest.xml" ? "report:ctest" : "report", reports::parse_report_file(p));
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
  // ctest's summary counts its own tests, not the GoogleTest cases its binaries reported.
  std::vector<reports::TestCase> ctest_tests;
  for (auto& [source, rep] : reps) {
    if (rep.tests.empty()) continue;
    if (source == "report:ctest") {
      ctest_tests.insert(ctest_tests.end(), rep.tests.begin(), rep.tests.end());
      source = "report";
    }
    if (out.run.report_format.empty()) out.run.report_format = source + ":" + rep.format;
    for (auto& t : rep.tests) {
      if (t.outcome == reports::Outcome::passed) out.run.passed.push_back(t.id);
      else if (t.outcome == reports::Outcome::failed || t.outcome == reports::Outcome::error) out.run.failed.push_back(t.id);
      out.tests.push_back(std::move(t));
    }
  }
  out.readable = !out.tests.empty();
  if (out.readable && !r->timed_out)
    out.summary_problem = summary_contradiction(plan.runner, r->output, plan.runner == Runner::ctest ? ctest_tests : out.tests);
  return out;
}

namespace {

struct Counts {
  long passed = 0, failed = 0, skipped = 0;
};

Counts count(const std::vector<reports::TestCase>& tests) {
  Counts c;
  // One per test case as the runner counts them: two files may hold tests of the same name (jest's
  // "widget › renders" in two files is two tests in its summary).
  std::set<std::string> passed, failed, skipped;
  for (const auto& t : tests) {
    const std::string key = t.file + '\x1f' + t.id;
    if (t.outcome == reports::Outcome::passed) passed.insert(key);
    else if (t.outcome == reports::Outcome::failed || t.outcome == reports::Outcome::error) failed.insert(key);
    else skipped.insert(key);
  }
  c.passed = static_cast<long>(passed.size());
  c.failed = static_cast<long>(failed.size());
  c.skipped = static_cast<long>(skipped.size());
  return c;
}

/// The number before `word` in `line` ("3 passed" -> 3), or -1.
long number_before(const std::string& line, const rx::regex& re) {
  rx::smatch m;
  if (!rx::regex_search(line, m, re)) return -1;
  return std::stol(m[1].str());
}

/// The output's lines, each cut to its first kMaxSummaryLine bytes. Test code prints what it likes,
/// and libstdc++'s std::regex recurses once per character a `.*` takes: a 100 kB line ending a
/// summary pattern overflowed the stack. The patterns read a summary line's start, which is kept.
constexpr std::size_t kMaxSummaryLine = 4096;

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> out;
  std::size_t p = 0;
  while (p < text.size()) {
    auto e = text.find('\n', p);
    if (e == std::string_view::npos) e = text.size();
    std::string l(text.substr(p, std::min(e - p, kMaxSummaryLine)));
    if (!l.empty() && l.back() == '\r') l.pop_back();
    out.push_back(std::move(l));
    p = e + 1;
  }
  return out;
}

std::string pytest_summary(const std::vector<std::string>& lines, const Counts& rep) {
  // "1 passed, 1 skipped in 0.12s" (-q) or "=== 1 passed, 1 skipped in 0.03s ===": the last one.
  // pytest-subtests adds "M subtests passed" (two words) to the same line.
  static const rx::regex line_re(R"(^=*\s*((\d+ [a-z]+( [a-z]+)?(, )?)+) in [0-9.]+s\b.*$)");
  static const rx::regex passed_re(R"((\d+) passed)"), xpassed_re(R"((\d+) xpassed)"), failed_re(R"((\d+) failed)"),
      error_re(R"((\d+) errors?\b)");
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (!rx::regex_match(*it, line_re)) continue;
    const long passed = std::max(0L, number_before(*it, passed_re)) + std::max(0L, number_before(*it, xpassed_re));
    const long failed = std::max(0L, number_before(*it, failed_re)) + std::max(0L, number_before(*it, error_re));
    if (passed != rep.passed)
      return "pytest's summary says " + std::to_string(passed) + " passed, its report shows " + std::to_string(rep.passed);
    if ((failed == 0) != (rep.failed == 0))
      return "pytest's summary says " + std::to_string(failed) + " failed, its report shows " + std::to_string(rep.failed);
    return {};
  }
  return "pytest printed no final summary line (\"N passed in Xs\"): the run ended before the runner finished";
}

std::string go_summary(const std::vector<std::string>& lines, const Counts& rep) {
  // go test -json: one package-level event (no "Test") with Action pass/fail/skip per package; a
  // binary that died or exited early gets "fail" there whatever its tests printed.
  static const rx::regex pkg_re(R"re("Action"\s*:\s*"(pass|fail|skip)")re");
  static const rx::regex package_re(R"re("Package"\s*:\s*"([^"]*)")re");
  std::set<std::string> with_tests, done, failed;
  for (const auto& l : lines) {
    if (l.empty() || l[0] != '{') continue;
    rx::smatch p;
    if (!rx::regex_search(l, p, package_re)) continue;
    const bool has_test = l.find("\"Test\"") != std::string::npos;
    if (has_test) {
      with_tests.insert(p[1].str());
      continue;
    }
    rx::smatch a;
    if (!rx::regex_search(l, a, pkg_re)) continue;
    done.insert(p[1].str());
    if (a[1].str() == "fail") failed.insert(p[1].str());
  }
  for (const auto& pkg : with_tests)
    if (!done.count(pkg)) return "go test printed no result for package " + pkg + ": the test binary did not finish";
  if (!failed.empty() && rep.failed == 0)
    return "go test says package " + *failed.begin() + " failed, while every test it reported passed";
  return {};
}

std::string gtest_summary(const std::vector<std::string>& lines, const Counts& rep) {
  static const rx::regex ran_re(R"(^\[==========\] \d+ tests? from \d+ test (suites?|cases?) ran\.)");
  static const rx::regex passed_re(R"(^\[  PASSED  \] (\d+) tests?\.)");
  long passed = 0;
  bool ran = false, any_passed = false;
  for (const auto& l : lines) {
    if (rx::regex_search(l, ran_re)) ran = true;
    rx::smatch m;
    if (rx::regex_search(l, m, passed_re)) {
      any_passed = true;
      passed += std::stol(m[1].str());
    }
  }
  if (!ran) return "GoogleTest printed no final \"[==========] N tests ... ran.\" line: the binary did not finish";
  if (any_passed && passed != rep.passed)
    return "GoogleTest's footer says " + std::to_string(passed) + " passed, its report shows " + std::to_string(rep.passed);
  if (!any_passed && rep.passed > 0) return "GoogleTest's footer shows no passed test, its report shows " + std::to_string(rep.passed);
  return {};
}

std::string counted_summary(const std::vector<std::string>& lines, const Counts& rep, std::string_view who,
                            const rx::regex& passed_re, const rx::regex& failed_re, bool exact_passed) {
  long passed = -1, failed = -1;
  for (const auto& l : lines) {
    rx::smatch m;
    if (rx::regex_search(l, m, passed_re)) passed = std::stol(m[1].str());
    if (rx::regex_search(l, m, failed_re)) failed = std::stol(m[1].str());
  }
  const std::string w(who);
  if (passed < 0 && failed < 0) return w + " printed no final summary: the run ended before the runner finished";
  if (exact_passed && passed >= 0 && passed != rep.passed)
    return w + "'s summary says " + std::to_string(passed) + " passed, its report shows " + std::to_string(rep.passed);
  if (failed > 0 && rep.failed == 0) return w + "'s summary says " + std::to_string(failed) + " failed, its report shows none";
  if (passed == 0 && rep.passed > 0) return w + "'s summary shows no passed test, its report shows " + std::to_string(rep.passed);
  return {};
}

std::string ctest_summary(const std::vector<std::string>& lines, const Counts& rep) {
  // "75% tests passed, 1 tests failed out of 4": skipped tests count as passed, disabled ones not at all.
  static const rx::regex re(R"(^\d+% tests passed, (\d+) tests? failed out of (\d+))");
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    rx::smatch m;
    if (!rx::regex_search(*it, m, re)) continue;
    const long failed = std::stol(m[1].str()), total = std::stol(m[2].str());
    if (failed != rep.failed)
      return "ctest's summary says " + std::to_string(failed) + " failed, its report shows " + std::to_string(rep.failed);
    if (total - failed < rep.passed || total - failed > rep.passed + rep.skipped)
      return "ctest's summary says " + std::to_string(total - failed) + " passed, its report shows " + std::to_string(rep.passed);
    return {};
  }
  return "ctest printed no final \"N% tests passed\" line: the run ended before the runner finished";
}

std::string maven_summary(const std::vector<std::string>& lines, const Counts& rep) {
  // Surefire's "Results:" block ends with "Tests run: 3, Failures: 1, Errors: 0, Skipped: 0" (one per
  // module); the per-class lines carry ", Time elapsed".
  static const rx::regex re(R"(^\[(?:INFO|ERROR|WARNING)\] Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)(?:, Flakes: \d+)?\s*$)");
  long passed = 0, failed = 0;
  bool any = false, results = false;
  for (const auto& l : lines) {
    if (l.find("Results:") != std::string::npos) results = true;
    rx::smatch m;
    if (!results || !rx::regex_search(l, m, re)) continue;
    any = true;
    results = false;
    const long run = std::stol(m[1].str()), f = std::stol(m[2].str()) + std::stol(m[3].str()), sk = std::stol(m[4].str());
    passed += run - f - sk;
    failed += f;
  }
  if (!any) return "Maven printed no surefire \"Results:\" summary: the test run ended before the runner finished";
  if (passed != rep.passed)
    return "Maven's summary says " + std::to_string(passed) + " passed, its reports show " + std::to_string(rep.passed);
  if ((failed == 0) != (rep.failed == 0))
    return "Maven's summary says " + std::to_string(failed) + " failed, its reports show " + std::to_string(rep.failed);
  return {};
}

std::string gradle_summary(const std::vector<std::string>& lines, const Counts& rep) {
  // Gradle counts tests only when some fail ("3 tests completed, 1 failed, 1 skipped", once per
  // failing test task, summed); otherwise the build's outcome is its summary.
  static const rx::regex counts_re(R"(^(\d+) tests? completed, (\d+) failed(?:, (\d+) skipped)?)");
  bool ok = false, failed_build = false, counted = false;
  long passed = 0, failed = 0;
  for (const auto& l : lines) {
    rx::smatch m;
    if (rx::regex_search(l, m, counts_re)) {
      counted = true;
      const long total = std::stol(m[1].str()), f = std::stol(m[2].str()), sk = m[3].matched ? std::stol(m[3].str()) : 0;
      passed += total - f - sk;
      failed += f;
    }
    ok |= l.rfind("BUILD SUCCESSFUL", 0) == 0;
    failed_build |= l.rfind("BUILD FAILED", 0) == 0;
  }
  if (counted) {
    if (passed != rep.passed)
      return "Gradle's summary says " + std::to_string(passed) + " passed, its reports show " + std::to_string(rep.passed);
    if (failed != rep.failed)
      return "Gradle's summary says " + std::to_string(failed) + " failed, its reports show " + std::to_string(rep.failed);
    return {};
  }
  if (failed_build && rep.failed == 0) return "Gradle says the build failed while every test its reports show passed";
  if (!ok && !failed_build) return "Gradle printed no build result: the run ended before it finished";
  if (ok && rep.failed > 0) return "Gradle says the build succeeded while its reports show failures";
  return {};
}

std::string cargo_summary(const std::vector<std::string>& lines, const Counts& rep) {
  // Every test binary prints "running N tests" first and "test result: ok. P passed; F failed; ..."
  // last; the per-test lines between them must add up to the results (a binary that died or exited
  // early printed no result line).
  static const rx::regex result_re(R"(^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed;)");
  static const rx::regex running_re(R"(^running \d+ tests?$)");
  static const rx::regex line_re(R"(^test .+ \.\.\. (ok|FAILED)$)");
  long running = 0, results = 0, passed = 0, failed = 0, seen_ok = 0, seen_failed = 0;
  for (const auto& l : lines) {
    rx::smatch m;
    if (rx::regex_search(l, m, result_re)) {
      ++results;
      passed += std::stol(m[1].str());
      failed += std::stol(m[2].str());
    } else if (rx::regex_match(l, running_re)) {
      ++running;
    } else if (rx::regex_match(l, m, line_re)) {
      (m[1].str() == "ok" ? seen_ok : seen_failed)++;
    }
  }
  if (results == 0) return "cargo test printed no \"test result:\" line: the run ended before the runner finished";
  if (running != results)
    return "cargo test started " + std::to_string(running) + " test binaries but " + std::to_string(results) +
           " printed a result: a test binary did not finish";
  if (passed != seen_ok || passed < rep.passed)
    return "cargo test's results say " + std::to_string(passed) + " passed, its output shows " + std::to_string(seen_ok);
  if (failed != seen_failed || (failed == 0) != (rep.failed == 0))
    return "cargo test's results say " + std::to_string(failed) + " failed, its output shows " + std::to_string(seen_failed);
  return {};
}

}  // namespace

namespace {

/// One TAP stream's plan, test points and trailer counts.
struct TapStream {
  std::vector<long> plans;                      ///< top-level `1..N`
  long top = 0, all = 0, ok_plain = 0, not_ok_plain = 0;
  std::map<std::string, std::vector<long>> trailer;  ///< "tests", "pass", ... -> values printed
  bool node_style() const { return trailer.count("skipped") || trailer.count("todo") || trailer.count("cancelled"); }
};

}  // namespace

std::string tap_count_problem(std::string_view output) {
  static const rx::regex plan_re(R"(^1\.\.(\d+)(\s.*)?$)");
  static const rx::regex trailer_re(R"(^# (tests|pass|fail|skipped|skip|todo|cancelled)\s+(\d+)\s*$)");
  static const rx::regex point_re(R"(^(not )?ok(\s.*)?$)");
  std::vector<TapStream> streams(1);
  bool in_yaml = false;
  for (const auto& raw : lines_of(reports::strip_ansi(output))) {
    std::size_t indent = 0;
    while (indent < raw.size() && raw[indent] == ' ') ++indent;
    const std::string line = raw.substr(indent);
    std::string trimmed = line;
    while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\t')) trimmed.pop_back();
    if (in_yaml) {
      if (trimmed == "...") in_yaml = false;
      continue;
    }
    if (trimmed == "---" && indent > 0) {
      in_yaml = true;
      continue;
    }
    if (indent == 0 && line.rfind("TAP version", 0) == 0) {
      streams.emplace_back();
      continue;
    }
    auto& s = streams.back();
    rx::smatch m;
    if (indent == 0 && rx::regex_match(line, m, plan_re)) {
      s.plans.push_back(std::stol(m[1].str()));
      continue;
    }
    if (indent == 0 && rx::regex_match(trimmed, m, trailer_re)) {
      s.trailer[m[1].str() == "skip" ? "skipped" : m[1].str()].push_back(std::stol(m[2].str()));
      continue;
    }
    if (!rx::regex_match(line, m, point_re)) continue;
    const bool not_ok = m[1].matched;
    // The directive after an unescaped '#': "# SKIP ..." / "# TODO ...".
    std::string directive;
    for (std::size_t i = 0; i < line.size(); ++i)
      if (line[i] == '#' && (i == 0 || line[i - 1] != '\\')) {
        directive = line.substr(i + 1);
        break;
      }
    directive.erase(0, directive.find_first_not_of(" \t"));
    for (auto& c : directive) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const bool directed = directive.rfind("SKIP", 0) == 0 || directive.rfind("TODO", 0) == 0;
    ++s.all;
    if (indent == 0) ++s.top;
    if (!directed) (not_ok ? s.not_ok_plain : s.ok_plain)++;
  }
  const bool several = std::count_if(streams.begin(), streams.end(), [](const TapStream& s) { return s.all > 0; }) > 1;
  for (std::size_t i = 0; i < streams.size(); ++i) {
    const auto& s = streams[i];
    if (s.all == 0 && s.plans.empty()) continue;
    const std::string which = several ? "TAP stream " + std::to_string(i) : std::string("TAP output");
    if (s.plans.empty())
      return which + " shows " + std::to_string(s.all) + " test points and no plan (1..N): nothing counts them";
    if (s.plans.size() > 1) return which + " prints " + std::to_string(s.plans.size()) + " plans";
    if (s.plans.front() != s.top)
      return which + "'s plan says 1.." + std::to_string(s.plans.front()) + ", it shows " + std::to_string(s.top) +
             " top-level test points";
    for (const auto& [key, values] : s.trailer) {
      if (values.size() > 1) return which + " prints its \"# " + key + "\" count " + std::to_string(values.size()) + " times";
      const long v = values.front();
      long want = -1;
      if (key == "tests") want = s.all;
      else if (key == "fail") want = s.not_ok_plain;
      else if (key == "pass") want = s.node_style() ? s.ok_plain : s.all - s.not_ok_plain;  // tape counts skips and todos as passes
      if (want >= 0 && v != want)
        return which + "'s \"# " + key + " " + std::to_string(v) + "\" disagrees with the " + std::to_string(want) +
               " test points it shows";
    }
  }
  return {};
}

std::string summary_contradiction(Runner runner, std::string_view output, const std::vector<reports::TestCase>& tests) {
  const auto lines = lines_of(reports::strip_ansi(output));
  const Counts rep = count(tests);
  switch (runner) {
    case Runner::pytest: return pytest_summary(lines, rep);
    case Runner::go: return go_summary(lines, rep);
    case Runner::gtest: return gtest_summary(lines, rep);
    case Runner::jest: {
      static const rx::regex p(R"(^Tests:.*?(\d+) passed)"), f(R"(^Tests:.*?(\d+) failed)"), any(R"(^Tests:\s)");
      if (std::none_of(lines.begin(), lines.end(), [](const std::string& l) { return rx::regex_search(l, any); }))
        return "jest printed no final \"Tests:\" summary: the run ended before the runner finished";
      return counted_summary(lines, rep, "jest", p, f, true);
    }
    case Runner::vitest: {
      static const rx::regex p(R"(^\s*Tests\s+.*?(\d+) passed)"), f(R"(^\s*Tests\s+.*?(\d+) failed)");
      return counted_summary(lines, rep, "vitest", p, f, true);
    }
    case Runner::node_test:
    case Runner::tape: {
      // node's spec/TAP reporters ("ℹ pass 1", "# pass 1") and tape ("# pass 1", "# fail 1").
      static const rx::regex p(R"(^(?:# |\xE2\x84\xB9 )pass\s+(\d+))"), f(R"(^(?:# |\xE2\x84\xB9 )fail\s+(\d+))");
      return counted_summary(lines, rep, runner == Runner::tape ? "tape" : "node --test", p, f, false);
    }
    case Runner::ctest: return ctest_summary(lines, rep);
    case Runner::maven: return maven_summary(lines, rep);
    case Runner::gradle: return gradle_summary(lines, rep);
    case Runner::cargo: return cargo_summary(lines, rep);
    default: return {};
  }
}

}  // namespace flowagent::detail
