// Rules on the runner's process and its report, per ecosystem:
//   runner_terminated  test-side code the patch adds that ends the runner's process (exit, exec,
//                      kill of itself or its parent, a fatal signal, abort) — a report written by
//                      the test before that would stand in for the runner's own;
//   report_tampered    code the patch adds that names or finds the runner's report location
//                      (junitxml paths, report environment variables, the command line of the
//                      runner through /proc or argv, flowagent's evidence directory).
// Both read the added lines with string literals and comments blanked for the calls (a test that
// runs `python -c "import sys; sys.exit(3)"` in a subprocess is honest) and as written for the
// report locations (a path is a string).
#include <algorithm>
#include <cctype>
#include <regex>

#include "integrity/guard_internal.hpp"

namespace flowagent::integrity {

namespace {

/// The line with the contents of string literals blanked and a trailing comment dropped.
std::string code_only(std::string_view line, Lang lang) {
  std::string out;
  char quote = 0;
  const bool hash_comment = lang == Lang::python;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quote) {
      if (ch == '\\' && i + 1 < line.size()) {
        ++i;
        continue;
      }
      if (ch == quote) {
        quote = 0;
        out += ch;
      }
      continue;
    }
    if (ch == '"' || ch == '`' || (ch == '\'' && lang != Lang::rust)) {
      quote = ch;
      out += ch;
      continue;
    }
    if (hash_comment && ch == '#') break;
    if (!hash_comment && ch == '/' && i + 1 < line.size() && line[i + 1] == '/') break;
    out += ch;
  }
  return out;
}

struct Family {
  const char* what;
  std::regex re;
};

/// The table of a language family (C and C++ share one; languages without a table get an empty one).
const std::vector<Family>& by_lang(Lang l, const std::vector<Family>& py, const std::vector<Family>& js,
                                   const std::vector<Family>& jvm, const std::vector<Family>& go,
                                   const std::vector<Family>& cpp, const std::vector<Family>& rust) {
  static const std::vector<Family> none;
  if (l == Lang::python) return py;
  if (is_js(l)) return js;
  if (l == Lang::java || l == Lang::kotlin) return jvm;
  if (l == Lang::go) return go;
  if (l == Lang::cpp) return cpp;
  if (l == Lang::rust) return rust;
  return none;
}

/// Calls that end the process, per language (on code with literals blanked).
const std::vector<Family>& termination(Lang l) {
  static const std::vector<Family> py = {
      {"os._exit / os.abort / posix._exit", std::regex(R"(\b(os|posix|nt)\s*\.\s*(_exit|abort)\s*\()")},
      {"an os.exec* call replaces the runner's process", std::regex(R"(\bos\s*\.\s*exec[lv]p?e?\s*\()")},
      {"a signal to its own or its parent's process", std::regex(R"(\bos\s*\.\s*(kill|killpg)\s*\(|\bsignal\s*\.\s*(raise_signal|pthread_kill|alarm|setitimer)\s*\()")},
      {"sys.exit / exit / quit / raise SystemExit", std::regex(R"(\bsys\s*\.\s*exit\s*\(|(^|[^\w.])(exit|quit)\s*\(|\braise\s+SystemExit\b)")},
      {"a process-ending function reached by name", std::regex(R"(\bgetattr\s*\(\s*(os|sys|signal|posix)\s*,|\b__import__\s*\(|\bctypes\b.*\b(exit|_exit|kill|abort)\b)")},
  };
  static const std::vector<Family> js = {
      {"process.exit / process.reallyExit / process.abort", std::regex(R"(\bprocess\s*\.\s*(exit|reallyExit|abort|_kill)\s*\(|\bprocess\s*\.\s*exitCode\s*=)")},
      {"process.kill of its own or its parent's process", std::regex(R"(\bprocess\s*\.\s*kill\s*\()")},
      {"a process-ending function reached by name", std::regex(R"(\bprocess\s*\[)")},
  };
  static const std::vector<Family> jvm = {
      {"System.exit / Runtime.halt / Runtime.exit / exitProcess",
       std::regex(R"(\bSystem\s*\.\s*exit\s*\(|\bRuntime\s*\.\s*getRuntime\s*\(\s*\)\s*\.\s*(halt|exit)\s*\(|\bexitProcess\s*\()")},
      {"ProcessHandle.current().destroy", std::regex(R"(\bProcessHandle\s*\.\s*(current|parent)\b.*\bdestroy)")},
  };
  static const std::vector<Family> go = {
      {"os.Exit / syscall.Exit ends the test binary", std::regex(R"(\b(os|syscall|unix)\s*\.\s*Exit\s*\()")},
      {"a signal to its own or its parent's process", std::regex(R"(\b(syscall|unix)\s*\.\s*(Kill|Tgkill)\s*\(|\bos\s*\.\s*FindProcess\s*\(\s*os\s*\.\s*Get(pp)?id|\.\s*Signal\s*\(\s*(syscall|os)\s*\.\s*(SIGKILL|Kill|SIGTERM|SIGINT))")},
      {"syscall.Exec replaces the test binary", std::regex(R"(\b(syscall|unix)\s*\.\s*Exec\s*\()")},
  };
  static const std::vector<Family> cpp = {
      {"exit / _exit / quick_exit / abort ends the test binary",
       std::regex(R"((^|[^\w.>])(std\s*::\s*)?(exit|_exit|_Exit|quick_exit|abort|terminate)\s*\()")},
      {"a signal to its own or its parent's process", std::regex(R"((^|[^\w.>])(kill|raise|tgkill)\s*\(\s*(getpid|getppid|SIG))")},
      {"an exec* call replaces the test binary", std::regex(R"((^|[^\w.>])exec[lv]p?e?\s*\()")},
  };
  static const std::vector<Family> rust = {
      {"process::exit / process::abort ends the test binary", std::regex(R"(\bprocess\s*::\s*(exit|abort)\s*\(|\blibc\s*::\s*(exit|_exit|abort|kill|raise)\s*\()")},
  };
  return by_lang(l, py, js, jvm, go, cpp, rust);
}

/// Lines that end a process on purpose and are honest: death tests run the statement in a child,
/// `sys.exit(pytest.main())` under `__main__`, Go's `os.Exit(m.Run())` in TestMain.
bool honest_termination(std::string_view code, Lang l, const std::string& after) {
  static const std::regex exit0(R"(Exit\s*\(\s*0\s*\))");
  if (l == Lang::cpp)
    return contains(code, "_EXIT(") || contains(code, "_DEATH(") || contains(code, "_DEATH_IF_SUPPORTED(");
  if (l == Lang::python)  // sys.exit(pytest.main()) under __main__; a method named exit
    return contains(code, "main(") || contains(code, "def ");
  if (l == Lang::go)  // os.Exit(m.Run()), or os.Exit(code) in a TestMain that runs the tests
    return contains(code, "m.Run()") ||
           (contains(after, "func TestMain(") && contains(after, ".Run()") && !std::regex_search(std::string(code), exit0));
  return false;
}

/// Names of the runner's report location, as written (paths and variables are strings). Strong
/// names: no code, test or production, has a reason to hold them.
const std::vector<Family>& strong_report_names() {
  static const std::vector<Family> v = {
      {"the runner's report or flowagent's evidence directory",
       std::regex(R"(flowagent-evidence|flowagent-cov|junitxml|junit_xml|junit-xml|GTEST_OUTPUT|XML_OUTPUT_FILE|JEST_JUNIT_OUTPUT|test-reporter-destination|surefire-reports|PYTEST_ADDOPTS)")},
  };
  return v;
}

/// Names that production code may hold for its own reasons but test code has none to.
const std::vector<Family>& test_report_names(Lang l) {
  static const std::vector<Family> py = {
      {"the runner's arguments read through sys.argv", std::regex(R"(\bsys\s*\.\s*argv\b(?!\s*=[^=]))")},
  };
  static const std::vector<Family> js = {
      {"the runner's arguments read through process.argv", std::regex(R"(\bprocess\s*\.\s*(argv|execArgv)\b(?!\s*=[^=]))")},
  };
  static const std::vector<Family> go = {
      {"the test binary's arguments read through os.Args", std::regex(R"(\bos\s*\.\s*Args\b(?!\s*\[\s*0\s*\])(?!\s*=[^=]))")},
  };
  static const std::vector<Family> rust = {
      {"the test binary's arguments read through env::args", std::regex(R"(\benv\s*::\s*args(_os)?\s*\()")},
  };
  static const std::vector<Family> none;
  return by_lang(l, py, js, none, go, none, rust);
}

const std::vector<Family>& test_report_names_common() {
  static const std::vector<Family> v = {
      {"the runner's report location", std::regex(R"(\bxmlpath\b|\bLogXML\b|\bgtest_output\b|GTEST_FLAG\w*\s*\(\s*output|\boutputFile\b)")},
      {"the coverage data flowagent's assertion check reads",
       std::regex(R"(\bNODE_V8_COVERAGE\b|\bCOVERAGE_FILE\b|\bCOVERAGE_PROCESS_START\b|\bcoverage\s*\.\s*(Coverage|process_startup)\b)")},
      {"the runner's command line",
       std::regex(R"(/proc/[^'"\s]*/?(cmdline|environ)|\bcmdline\s*\(|\borig_argv\b|getInputArguments|sun\.java\.command|ProcessHandle\s*\.\s*current\s*\(\s*\)\s*\.\s*info)")},
  };
  return v;
}

/// Setting argv for the code under test is honest (`monkeypatch.setattr(sys, "argv", [...])`,
/// `mock.patch.object(sys, "argv", ...)`, `process.argv = [...]`); reading it is not.
bool sets_argv(std::string_view code) {
  return contains(code, "setattr(") || contains(code, "patch(") || contains(code, "patch.object(");
}

}  // namespace

void runner_process_rules(const RuleContext& c, Findings& out) {
  if (!c.file.after) return;
  const std::string_view base = basename(c.file.path);
  const bool test_side = c.test_file || base == "conftest.py";
  const std::string& after = *c.file.after;
  for (const auto& [n, full] : added_lines(c.file.before, c.file.after))
    for (std::size_t at = 0; at < full.size(); at += kRegexLineChars - kRegexOverlapChars) {
    // A long line is read in overlapping windows (std::regex recurses per character).
    const std::string l = full.substr(at, kRegexLineChars);
    const std::string code = code_only(l, c.lang);
    if (test_side && !honest_termination(code, c.lang, after))
      for (const auto& f : termination(c.lang))
        if (std::regex_search(code, f.re)) {
          out.push_back({"runner_terminated", c.file.path, n,
                         std::string("test code that ends the runner's process (") + f.what +
                             "): a report written before it would stand in for the runner's own: " + quote(l)});
          return;
        }
    // Report locations: strong names in any code the guard reads as a language (neither tests nor
    // production code have a reason to know where the runner writes its results), the others in
    // test-side code.
    if (c.lang == Lang::none) continue;
    auto flag = [&](const std::vector<Family>& fams, const std::string& text, std::string_view who) {
      for (const auto& f : fams)
        if (std::regex_search(text, f.re)) {
          out.push_back({"report_tampered", c.file.path, n,
                         std::string(who) + " that names " + f.what + ", where a test could forge its results: " + quote(l)});
          return true;
        }
      return false;
    };
    if (flag(strong_report_names(), l, "code")) return;
    if (!test_side) continue;
    if (flag(test_report_names_common(), l, "test code")) return;
    if (!sets_argv(code) && flag(test_report_names(c.lang), code, "test code")) return;
    if (at + kRegexLineChars >= full.size()) break;
  }
}

}  // namespace flowagent::integrity
