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
#include "core/regex.hpp"

#include "integrity/guard_internal.hpp"
#include "core/regex_cache.hpp"

namespace flowagent::integrity {

namespace {

struct Family {
  const char* what;
  rx::regex re;
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
      {"os._exit / os.abort / posix._exit", detail::cached_regex(R"(\b(os|posix|nt)\s*\.\s*(_exit|abort)\s*\()")},
      {"an os.exec* call replaces the runner's process", detail::cached_regex(R"(\bos\s*\.\s*exec[lv]p?e?\s*\()")},
      {"a signal to its own or its parent's process", detail::cached_regex(R"(\bos\s*\.\s*(kill|killpg)\s*\(|\bsignal\s*\.\s*(raise_signal|pthread_kill|alarm|setitimer)\s*\()")},
      {"sys.exit / exit / quit / raise SystemExit", detail::cached_regex(R"(\bsys\s*\.\s*exit\s*\(|(^|[^\w.])(exit|quit)\s*\(|\braise\s+SystemExit\b)")},
      // (A module imported by name and used on the spot, `__import__(...)._exit(0)`; `_exit`/`abort`
      // on any object: only the os modules have them.)
      {"a process-ending function reached by name",
       detail::cached_regex(R"(\bgetattr\s*\(\s*(os|sys|signal|posix|nt|__import__|import_module|importlib\s*\.\s*import_module)\s*[,(]|\b(__import__|import_module)\s*\([^()]*\)\s*\.\s*\w+|\.\s*(_exit|abort|killpg)\s*\(|\bctypes\b.*\b(exit|_exit|kill|abort)\b)")},
      {"os._exit / os.kill imported under another name", detail::cached_regex(R"(\bfrom\s+(os|posix|nt|signal)\s+import\b.*\b(_exit|abort|kill|killpg|exec[lv]p?e?|raise_signal|pthread_kill)\b)")},
  };
  static const std::vector<Family> js = {
      {"process.exit / process.reallyExit / process.abort", detail::cached_regex(R"(\bprocess\s*\.\s*(exit|reallyExit|abort|_kill)\s*\(|\bprocess\s*\.\s*exitCode\s*=)")},
      {"process.kill of its own or its parent's process", detail::cached_regex(R"(\bprocess\s*\.\s*kill\s*\()")},
      {"a process-ending function reached by name", detail::cached_regex(R"(\bprocess\s*\[)")},
  };
  static const std::vector<Family> jvm = {
      {"System.exit / Runtime.halt / Runtime.exit / exitProcess",
       detail::cached_regex(R"(\bSystem\s*\.\s*exit\s*\(|\bRuntime\s*\.\s*getRuntime\s*\(\s*\)\s*\.\s*(halt|exit)\s*\(|\bexitProcess\s*\()")},
      {"ProcessHandle.current().destroy", detail::cached_regex(R"(\bProcessHandle\s*\.\s*(current|parent)\b.*\bdestroy)")},
  };
  static const std::vector<Family> go = {
      {"os.Exit / syscall.Exit ends the test binary", detail::cached_regex(R"(\b(os|syscall|unix)\s*\.\s*Exit\s*\()")},
      {"a signal to its own or its parent's process", detail::cached_regex(R"(\b(syscall|unix)\s*\.\s*(Kill|Tgkill)\s*\(|\bos\s*\.\s*FindProcess\s*\(\s*os\s*\.\s*Get(pp)?id|\.\s*Signal\s*\(\s*(syscall|os)\s*\.\s*(SIGKILL|Kill|SIGTERM|SIGINT))")},
      {"syscall.Exec replaces the test binary", detail::cached_regex(R"(\b(syscall|unix)\s*\.\s*Exec\s*\()")},
  };
  static const std::vector<Family> cpp = {
      {"exit / _exit / quick_exit / abort ends the test binary",
       detail::cached_regex(R"((^|[^\w.>])(std\s*::\s*)?(exit|_exit|_Exit|quick_exit|abort|terminate)\s*\()")},
      {"a signal to its own or its parent's process", detail::cached_regex(R"((^|[^\w.>])(kill|raise|tgkill)\s*\(\s*(getpid|getppid|SIG))")},
      {"an exec* call replaces the test binary", detail::cached_regex(R"((^|[^\w.>])exec[lv]p?e?\s*\()")},
  };
  static const std::vector<Family> rust = {
      {"process::exit / process::abort ends the test binary", detail::cached_regex(R"(\bprocess\s*::\s*(exit|abort)\s*\(|\blibc\s*::\s*(exit|_exit|abort|kill|raise)\s*\()")},
  };
  return by_lang(l, py, js, jvm, go, cpp, rust);
}

/// Lines that end a process on purpose and are honest: death tests run the statement in a child,
/// `sys.exit(pytest.main())` under `__main__`, Go's `os.Exit(m.Run())` in TestMain.
bool honest_termination(std::string_view code, Lang l, const std::string& after) {
  static const rx::regex exit0(R"(Exit\s*\(\s*0\s*\))");
  if (l == Lang::cpp)
    return contains(code, "_EXIT(") || contains(code, "_DEATH(") || contains(code, "_DEATH_IF_SUPPORTED(");
  if (l == Lang::python) {  // sys.exit(pytest.main()) / raise SystemExit(main()) under __main__
    static const rx::regex main_exit(R"(^\s*(sys\s*\.\s*exit|raise\s+SystemExit)\s*\(\s*[\w.]*main\s*\([^()]*\)\s*\)\s*$)");
    return rx::regex_search(std::string(code), main_exit);
  }
  if (l == Lang::go)  // os.Exit(m.Run()), or os.Exit(code) in a TestMain that runs the tests
    return contains(code, "m.Run()") ||
           (contains(after, "func TestMain(") && contains(after, ".Run()") && !rx::regex_search(std::string(code), exit0));
  return false;
}

/// Names of the runner's report location, as written (paths and variables are strings). Strong
/// names: no code, test or production, has a reason to hold them.
const std::vector<Family>& strong_report_names() {
  static const std::vector<Family> v = {
      {"the runner's report or flowagent's evidence directory",
       detail::cached_regex(R"(flowagent-evidence|flowagent-cov|FLOWAGENT_PERTURB|flowagent_value_probe|junitxml|junit_xml|junit-xml|GTEST_OUTPUT|XML_OUTPUT_FILE|JEST_JUNIT_OUTPUT|test-reporter-destination|surefire-reports|PYTEST_ADDOPTS)")},
  };
  return v;
}

/// Names that production code may hold for its own reasons but test code has none to.
const std::vector<Family>& test_report_names(Lang l) {
  static const std::vector<Family> py = {
      {"the runner's arguments read through sys.argv", detail::cached_regex(R"(\bsys\s*\.\s*argv\b(?!\s*=[^=]))")},
  };
  static const std::vector<Family> js = {
      {"the runner's arguments read through process.argv", detail::cached_regex(R"(\bprocess\s*\.\s*(argv|execArgv)\b(?!\s*=[^=]))")},
  };
  static const std::vector<Family> go = {
      {"the test binary's arguments read through os.Args", detail::cached_regex(R"(\bos\s*\.\s*Args\b(?!\s*\[\s*0\s*\])(?!\s*=[^=]))")},
  };
  static const std::vector<Family> rust = {
      {"the test binary's arguments read through env::args", detail::cached_regex(R"(\benv\s*::\s*args(_os)?\s*\()")},
  };
  static const std::vector<Family> none;
  return by_lang(l, py, js, none, go, none, rust);
}

const std::vector<Family>& test_report_names_common() {
  static const std::vector<Family> v = {
      {"the runner's report location", detail::cached_regex(R"(\bxmlpath\b|\bLogXML\b|\bgtest_output\b|GTEST_FLAG\w*\s*\(\s*output|\boutputFile\b)")},
      {"the coverage data flowagent's assertion check reads, or the plugins its value-sensitivity run loads",
       detail::cached_regex(R"(\bPYTEST_PLUGINS\b|\bNODE_V8_COVERAGE\b|\bCOVERAGE_FILE\b|\bCOVERAGE_PROCESS_START\b|\bcoverage\s*\.\s*(Coverage|process_startup)\b)")},
      {"the runner's command line",
       detail::cached_regex(R"(/proc/[^'"\s]*/?(cmdline|environ)|\bcmdline\s*\(|\borig_argv\b|getInputArguments|sun\.java\.command|ProcessHandle\s*\.\s*current\s*\(\s*\)\s*\.\s*info)")},
  };
  return v;
}

/// Setting argv for the code under test is honest (`monkeypatch.setattr(sys, "argv", [...])`,
/// `mock.patch.object(sys, "argv", ...)`, `process.argv = [...]`); reading it is not.
bool sets_argv(std::string_view code) {
  return contains(code, "setattr(") || contains(code, "patch(") || contains(code, "patch.object(");
}

/// Python names bound to the process modules or their functions in `after`: `import os as o`,
/// `o = os`, `from os import _exit as x`, `x = os._exit`. Each maps to what it stands for ("os",
/// "os._exit"), so `o._exit(0)` and `x(0)` read as the calls they are.
std::vector<std::pair<rx::regex, std::string>> python_aliases(const std::string& after) {
  static const rx::regex module_as(R"(\bimport\s+(os|sys|signal|posix|nt)\s+as\s+(\w+))");
  static const rx::regex module_eq(R"(^\s*(\w+)\s*=\s*(os|sys|signal|posix|nt)\s*$)");
  static const rx::regex from_import(R"(\bfrom\s+(os|sys|signal|posix|nt)\s+import\s+(\([^)]*\)|[\w \t,]+))");
  static const rx::regex func_eq(R"(^\s*(\w+)\s*=\s*((?:os|sys|signal|posix|nt)\s*\.\s*\w+)\s*$)");
  static const rx::regex name_as(R"((\w+)(?:\s+as\s+(\w+))?)");
  std::vector<std::pair<std::string, std::string>> names;  // alias -> what it stands for
  // Logical lines (a parenthesised import continues until its ")"), each bounded in length: the
  // regular expressions recurse per character.
  std::vector<std::string> lines;
  for (std::size_t b = 0; b < after.size();) {
    std::size_t e = after.find('\n', b);
    if (e == std::string::npos) e = after.size();
    std::string l = after.substr(b, std::min(e - b, kRegexLineChars));
    b = e + 1;
    if (!lines.empty() && contains(lines.back(), "import (") && !contains(lines.back(), ")") &&
        lines.back().size() + l.size() < kRegexLineChars)
      lines.back() += " " + l;
    else
      lines.push_back(std::move(l));
  }
  for (const auto& line : lines) {
    rx::smatch m;
    if (rx::regex_search(line, m, module_as)) names.emplace_back(m[2].str(), m[1].str());
    if (rx::regex_search(line, m, module_eq)) names.emplace_back(m[1].str(), m[2].str());
    if (rx::regex_search(line, m, func_eq)) names.emplace_back(m[1].str(), m[2].str());
    if (rx::regex_search(line, m, from_import)) {
      const std::string module = m[1].str(), list = m[2].str();
      for (auto n = rx::sregex_iterator(list.begin(), list.end(), name_as); n != rx::sregex_iterator(); ++n) {
        const std::string name = (*n)[1].str();
        if (name == "as") continue;
        names.emplace_back((*n)[2].matched ? (*n)[2].str() : name, module + "." + name);
      }
    }
  }
  std::vector<std::pair<rx::regex, std::string>> out;
  for (const auto& [alias, target] : names) {
    if (alias == target || alias.size() > 64) continue;
    // `alias.` (a module) or `alias(` (a function), not part of a longer name or an attribute.
    const bool module = target.find('.') == std::string::npos;
    out.emplace_back(detail::cached_regex("(^|[^\\w.])" + alias + (module ? "\\s*\\." : "\\s*\\(")), "$1" + target + (module ? "." : "("));
    if (module) out.emplace_back(detail::cached_regex("\\bgetattr\\s*\\(\\s*" + alias + "\\s*,"), "getattr(" + target + ",");
  }
  return out;
}

/// The code of a line as the termination rules read it: aliases resolved (Python) and the name of
/// a function being defined blanked (a method named `exit` ends nothing; its body still counts).
std::string resolved(std::string code, Lang l, const std::vector<std::pair<rx::regex, std::string>>& aliases) {
  if (l != Lang::python) return code;
  static const rx::regex def_name(R"(\bdef\s+\w+)");
  code = rx::regex_replace(code, def_name, "def _");
  for (const auto& [re, target] : aliases) code = rx::regex_replace(code, re, target);
  return code;
}

/// Calls that end the process at once, without the runner's own handling (no exception a runner
/// turns into a failure, no check for a premature exit): no production code a test reaches has a
/// reason to make them outside a program's entry point or a forked child.
const std::vector<Family>& hard_termination(Lang l) {
  static const std::vector<Family> py = {
      {"os._exit / os.abort", detail::cached_regex(R"(\b(os|posix|nt)\s*\.\s*(_exit|abort)\s*\(|\bfrom\s+(os|posix|nt)\s+import\b.*\b(_exit|abort)\b)")},
      {"a signal to its own or its parent's process",
       detail::cached_regex(R"(\bos\s*\.\s*(kill|killpg)\s*\(\s*os\s*\.\s*get(pp|p)?id|\bsignal\s*\.\s*(raise_signal|pthread_kill)\s*\()")},
      {"a process-ending function reached by name", detail::cached_regex(R"(\bgetattr\s*\(\s*(os|posix)\s*,|\bctypes\b.*\b(exit|_exit|kill|abort)\b)")},
  };
  static const std::vector<Family> js = {
      {"process.reallyExit / process.abort / process.kill of itself",
       detail::cached_regex(R"(\bprocess\s*\.\s*(reallyExit|abort|_kill)\s*\(|\bprocess\s*\.\s*kill\s*\(\s*process\s*\.\s*p?pid)")},
  };
  static const std::vector<Family> jvm = {
      {"Runtime.halt / ProcessHandle.current().destroy",
       detail::cached_regex(R"(\bRuntime\s*\.\s*getRuntime\s*\(\s*\)\s*\.\s*halt\s*\(|\bProcessHandle\s*\.\s*(current|parent)\b.*\bdestroy)")},
  };
  static const std::vector<Family> go = {
      {"syscall.Exit / a signal to its own process",
       detail::cached_regex(R"(\b(syscall|unix)\s*\.\s*(Exit|Exec)\s*\(|\b(syscall|unix)\s*\.\s*(Kill|Tgkill)\s*\(\s*(os|syscall|unix)\s*\.\s*Get(pp)?id|\bos\s*\.\s*FindProcess\s*\(\s*os\s*\.\s*Get(pp)?id)")},
  };
  static const std::vector<Family> cpp = {
      {"_exit / _Exit / quick_exit / a signal to its own process",
       detail::cached_regex(R"((^|[^\w.>])(std\s*::\s*)?(_exit|_Exit|quick_exit)\s*\(|(^|[^\w.>])(kill|tgkill)\s*\(\s*(getpid|getppid)|(^|[^\w.>])raise\s*\(\s*SIGKILL)")},
  };
  static const std::vector<Family> rust = {
      {"libc::_exit / libc::kill of its own process", detail::cached_regex(R"(\blibc\s*::\s*(_exit|exit|kill|raise|abort)\s*\()")},
  };
  return by_lang(l, py, js, jvm, go, cpp, rust);
}

/// An exit with a success status: the runner sees its test process end "successfully". Python's
/// sys.exit raises SystemExit (pytest and unittest report it as a failure), Go's os.Exit(0) during
/// a test panics (Go >= 1.16) and surefire fails a forked JVM that exits: those are not listed.
const std::vector<Family>& success_exit(Lang l) {
  static const std::vector<Family> none;
  static const std::vector<Family> js = {
      {"process.exit with a success status", detail::cached_regex(R"(\bprocess\s*\.\s*exit\s*\(\s*(0\s*)?\)|\bprocess\s*\.\s*exitCode\s*=\s*0\b|\bprocess\s*\[)")},
  };
  static const std::vector<Family> cpp = {
      {"exit with a success status", detail::cached_regex(R"((^|[^\w.>])(std\s*::\s*)?exit\s*\(\s*(0|EXIT_SUCCESS)\s*\))")},
  };
  static const std::vector<Family> rust = {
      {"process::exit with a success status", detail::cached_regex(R"(\bprocess\s*::\s*exit\s*\(\s*0\s*\))")},
  };
  return by_lang(l, none, js, none, none, cpp, rust);
}

/// Is line `n` (1-based) of `after` part of a program's entry point: inside `if __name__ ==
/// "__main__":`, `def main(`, `func main()`, `int main(`, `fn main()`, `static void main(`, a
/// `require.main === module` block (the enclosing blocks are found by indentation), or in a file
/// under bin/, cmd/ or scripts/. Production code there runs as a program, not under a test.
bool in_entry_point(std::string_view path, const std::string& after, int n) {
  static const rx::regex header(
      R"(^\s*(if\s+__name__\s*==|if\s*\(\s*require\.main\s*===?\s*module|(async\s+)?def\s+main\s*\(|func\s+main\s*\(\s*\)|(int|void)\s+main\s*\(|(pub\s+)?fn\s+main\s*\(\s*\)|.*\bstatic\s+void\s+main\s*\(|(async\s+)?function\s+main\s*\())");
  for (std::string_view dir : {"bin/", "cmd/", "scripts/"})
    if (starts_with(path, dir) || contains(path, "/" + std::string(dir))) return true;
  std::vector<std::string_view> lines;
  for (std::size_t b = 0; b <= after.size();) {
    std::size_t e = after.find('\n', b);
    if (e == std::string::npos) e = after.size();
    lines.emplace_back(after.data() + b, e - b);
    b = e + 1;
  }
  if (n < 1 || static_cast<std::size_t>(n) > lines.size()) return false;
  auto indent = [](std::string_view l) {
    std::size_t i = 0;
    while (i < l.size() && (l[i] == ' ' || l[i] == '\t')) ++i;
    return i;
  };
  std::size_t level = indent(lines[static_cast<std::size_t>(n - 1)]);
  for (std::size_t i = static_cast<std::size_t>(n - 1); i-- > 0 && level > 0;) {
    const std::string_view l = lines[i];
    if (l.find_first_not_of(" \t") == std::string_view::npos) continue;
    const std::size_t in = indent(l);
    if (in >= level) continue;
    level = in;  // an enclosing block's header
    if (rx::regex_search(std::string(l.substr(0, kRegexLineChars)), header)) return true;
  }
  return false;
}

/// Python and C/C++: does the function holding line `n` of `after` fork before it (code, not a
/// comment or a string: `pid = os.fork()`, `if (fork() == 0)`)? The child's `_exit` is honest.
bool in_forked_child(const std::string& after, int n, Lang lang) {
  if (lang != Lang::python && lang != Lang::cpp) return false;
  static const rx::regex fork_re(R"(\bfork\s*\(\s*\))");
  std::vector<std::string_view> lines;
  for (std::size_t b = 0; b <= after.size();) {
    std::size_t e = after.find('\n', b);
    if (e == std::string::npos) e = after.size();
    lines.emplace_back(after.data() + b, e - b);
    b = e + 1;
  }
  // Up from the line to the start of its top-level definition (the first line above it without
  // indentation, a closing brace or a comment aside).
  for (std::size_t i = std::min(static_cast<std::size_t>(std::max(n, 1)), lines.size()); i-- > 0;) {
    const std::string_view line = lines[i];
    if (rx::regex_search(code_only(line.substr(0, kRegexLineChars), lang), fork_re)) return true;
    const bool top = !line.empty() && line[0] != ' ' && line[0] != '\t' && line[0] != '}' && line[0] != '#' &&
                     line[0] != '/';
    if (top && i + 1 != static_cast<std::size_t>(n)) break;
  }
  return false;
}

/// A runner's terminal summary or report written by code: what a forger prints after writing a
/// passing report, so the validator's summary cross-check agrees. pytest's summary line is matched
/// in the shape the validator reads (`N word[, N word...] in Xs`, colour codes removed): in pytest's
/// own words anywhere (`3 passed, 1 skipped in 0.12s`, `2 passed, 2 subtests passed in`), in any
/// words when the line writes output (`print`, `write`, `echo`, a logger); an application's
/// returned text such as `"{n} passed, {m} rejected in {s}s"` is neither.
bool forged_summary(const std::string& raw) {
  static const rx::regex ansi(R"(\x1b\[[0-9;]*m|\\(?:x1b|033|u001b|e|x1B|u001B)\[[0-9;]*m)");
  static const rx::regex vocabulary(
      R"([\d}]\s+passed(?:,\s+[\d{][^,"'\n]*\s(?:failed|skipped|deselected|xfailed|xpassed|warnings?|errors?|rerun|subtests\s+(?:passed|failed|skipped|xfailed|xpassed)))*\s+in\s+[\d{%])");
  static const rx::regex any_words(R"([\d}]\s+passed(?:,\s+[\d{][^,"'\n]*)*\s+in\s+[\d{%])");
  static const rx::regex writes(R"(\b(?:print|println|printf|puts|write|writeln|echo|eprint|eprintln|fprintf|Fprint|Fprintf|Fprintln|Print|Printf|Println|log|logger|logging|info|warn|warning|error|debug|console|cout|cerr|stdout|stderr)\b)");
  static const rx::regex others(
      R"(\[  PASSED  \]|\[==========\]|\[       OK \]|--- PASS:|"Action"\s*:\s*"pass"|\\?"Action\\?"\s*:\s*\\?"pass|\bTests run: [\d{%]|\d+% tests passed|\btest result: ok\b|<testcase\b|<testsuites?\b|["'`]# pass\b|["'`]ok \d+ |\bTests:\s+[\d{$])");
  const std::string l = rx::regex_replace(raw, ansi, "");
  if (rx::regex_search(l, others) || rx::regex_search(l, vocabulary)) return true;
  return rx::regex_search(l, any_words) && rx::regex_search(l, writes);
}

/// Production code the patch adds that ends the process the tests run in, or prints a runner's
/// summary or report: a function under test that writes a passing report, prints the summary the
/// validator cross-checks and exits. Chosen scope (production code may end a process for honest
/// reasons): calls that end the process at once (os._exit, kill of itself, Runtime.halt,
/// syscall.Exit, _exit, quick_exit) anywhere but a program's entry point (`__main__`, `main()`,
/// bin/, cmd/, scripts/) or, in Python and C/C++, a function that forks before it (the child's
/// _exit); exits with a success
/// status (process.exit(0), exit(0), process::exit(0)) under the same condition, in the languages
/// whose runners take such an exit for a finished run; a runner's summary or report text anywhere.
void production_process_rules(const RuleContext& c, const std::string& after, Findings& out) {
  const std::vector<std::pair<rx::regex, std::string>> aliases =
      c.lang == Lang::python ? python_aliases(after) : std::vector<std::pair<rx::regex, std::string>>{};
  for (const auto& [n, full] : added_lines(c.file.before, c.file.after)) {
    const std::string l = full.substr(0, kRegexLineChars);
    if (forged_summary(l)) {
      out.push_back({"report_tampered", c.file.path, n,
                     "production code that prints or writes a test runner's summary or report, as a forger does after "
                     "writing a passing report: " + quote(l)});
      return;
    }
    if (in_entry_point(c.file.path, after, n)) continue;
    const std::string code = resolved(code_only(l, c.lang), c.lang, aliases);
    if (in_forked_child(after, n, c.lang)) continue;
    for (const auto* fams : {&hard_termination(c.lang), &success_exit(c.lang)}) {
      for (const auto& f : *fams)
        if (rx::regex_search(code, f.re)) {
          out.push_back({"runner_terminated", c.file.path, n,
                         std::string("production code that ends the process the tests run in (") + f.what +
                             "): a report written before it would stand in for the runner's own: " + quote(l)});
          return;
        }
    }
  }
}

}  // namespace

/// The line with string literals written in pieces joined (`"GTEST_" "OUTPUT"`, `'junit' + 'xml'`,
/// `"PA" + "SS"`): a name split so that no literal holds it whole reads as written once.
static std::string joined_literals(const std::string& l) {
  static const rx::regex pieces(R"re((["'`])\s*(?:\+\s*)?(["'`]))re");
  std::string out;
  std::size_t last = 0;
  for (rx::sregex_iterator it(l.begin(), l.end(), pieces), e; it != e; ++it) {
    if ((*it)[1].str() != (*it)[2].str()) continue;
    const auto at = static_cast<std::size_t>(it->position());
    out += l.substr(last, at - last);
    last = at + static_cast<std::size_t>(it->length());
  }
  return out + l.substr(last);
}

void runner_process_rules(const RuleContext& c, Findings& out) {
  if (!c.file.after) return;
  const std::string_view base = basename(c.file.path);
  const bool test_side = c.test_file || c.imported_by_tests || base == "conftest.py";
  const std::string& after = *c.file.after;
  const std::size_t found = out.size();
  if (!test_side && c.lang != Lang::none) {
    production_process_rules(c, after, out);
    if (out.size() > found) return;
  }
  const std::vector<std::pair<rx::regex, std::string>> aliases =
      test_side && c.lang == Lang::python ? python_aliases(after) : std::vector<std::pair<rx::regex, std::string>>{};
  for (const auto& [n, full] : added_lines(c.file.before, c.file.after))
    for (std::size_t at = 0; at < full.size(); at += kRegexLineChars - kRegexOverlapChars) {
    // A long line is read in overlapping windows (std::regex recurses per character).
    const std::string l = full.substr(at, kRegexLineChars);
    const std::string code = resolved(code_only(l, c.lang), c.lang, aliases);
    if (test_side && !honest_termination(code, c.lang, after))
      for (const auto& f : termination(c.lang))
        if (rx::regex_search(code, f.re)) {
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
        if (rx::regex_search(text, f.re)) {
          out.push_back({"report_tampered", c.file.path, n,
                         std::string(who) + " that names " + f.what + ", where a test could forge its results: " + quote(l)});
          return true;
        }
      return false;
    };
    if (flag(strong_report_names(), l, "code") || flag(strong_report_names(), joined_literals(l), "code")) return;
    if (!test_side) continue;
    if (flag(test_report_names_common(), l, "test code")) return;
    if (!sets_argv(code) && flag(test_report_names(c.lang), code, "test code")) return;
    if (at + kRegexLineChars >= full.size()) break;
  }
}

namespace {

/// A shell script (by extension or shebang): test scripts print their own output.
bool shell_script(std::string_view path, const std::string& text) {
  for (std::string_view ext : {".sh", ".bash", ".bats", ".zsh", ".ksh"})
    if (ends_with(path, ext)) return true;
  if (!starts_with(text, "#!")) return false;
  const std::string first = text.substr(0, std::min<std::size_t>(text.find('\n'), kConditionChars));
  static const rx::regex sh(R"(^#!\s*\S*/(?:env\s+)?(?:ba|z|k|da)?sh\b)");
  return rx::regex_search(first, sh);
}

}  // namespace

void tap_output_rules(const RuleContext& c, Findings& out) {
  if (!c.file.after) return;
  const std::string& after = *c.file.after;
  const bool shell = c.lang == Lang::none && shell_script(c.file.path, after);
  // Whose output the runner's TAP stream holds: test files, conftest.py, the modules the tests
  // import (Python and JS imports are followed), shell test scripts (any path: fail closed).
  const bool test_side = c.test_file || c.reached_by_tests || c.imported_by_tests || basename(c.file.path) == "conftest.py";
  if (!shell && !(test_side && c.lang != Lang::none)) return;
  // A TAP fragment in a string literal (or at a line's start, inside a multi-line literal or a
  // heredoc): a plan, a test point with its number (written, interpolated, formatted or
  // concatenated), a tape-style `# tests`/`# pass` trailer, a `TAP version` header.
  static const std::string num = R"((?:\d|\$\{|\$\w|%[-\d]*[sdiu]|\{[^}]*\}|["'`]\s*[,+]))";
  static const rx::regex in_literal(R"((?:["'`]|\\n)\s*(?:ok(?:\s|\\t)+)" + num + R"(|ok\s*["'`]\s*(?:\+|,\s*\d)|1\.\.)" + num +
                                     R"(|#\s*(?:tests|pass)\s+)" + num + R"(|TAP version\b))");
  static const rx::regex bare(R"(^\s*(?:ok\s+\d+\b|1\.\.\d+\s*$|TAP version \d+|#\s*(?:tests|pass)\s+\d+\s*$))");
  static const rx::regex strict(R"((?:["'`]|\\n)\s*(?:1\.\.)" + num + R"(|TAP version\b|#\s*(?:tests|pass)\s+)" + num +
                                 R"(|ok\s+)" + num + R"([^-"'`]{0,12}\s-\s))");
  static const rx::regex shell_tap(R"((?:^|[\s"'])(?:ok\s+(?:\d|\$|%)|1\.\.(?:\d|\$|%)|#\s*(?:tests|pass)\s+(?:\d|\$|%)|TAP version\b))");
  // Writing to the process's output, in every language the guard reads (and shell).
  static const rx::regex output(
      R"(\bprint\s*\(|\bprint\s+["'f]|\bstd(?:out|err)\s*\.\s*write\s*\(|\bconsole\s*\.\s*(?:log|info|warn|error|debug)\s*\()"
      R"(|\bprocess\s*\.\s*std(?:out|err)\s*\.\s*write\s*\(|\bwriteSync\s*\(\s*(?:[12]\b|process\s*\.\s*std(?:out|err))|\bos\s*\.\s*write\s*\(\s*[12]\b)"
      R"(|\bfmt\s*\.\s*(?:Print|Fprint)|\bos\s*\.\s*Std(?:out|err)\b|\bSystem\s*\.\s*(?:out|err)\s*\.\s*print|\bprintln!?\s*\()"
      R"(|\be?print!\s*\(|\bwriteln!\s*\(|\b(?:f|s)?printf\s*\(|\bputs\s*\(|\bstd\s*::\s*(?:cout|cerr|print)\b|\bc(?:out|err)\s*<<)"
      // Any use of the standard streams or a logger that may write to them.
      R"(|\bsys\s*\.\s*(?:__)?std(?:out|err)\b|\bprocess\s*\.\s*std(?:out|err)\b|\bconsole\s*\.\s*\w+\s*\(|\bSystem\s*\.\s*(?:out|err)\b)"
      R"(|\blogg?(?:ing|er)?\s*\.\s*(?:info|warning|warn|error|debug|critical|log)\s*\(|\b(?:fputs|fwrite|dprintf|vprintf)\s*\()"
      R"(|\bwrite\s*\(\s*(?:1|2|STDOUT_FILENO|STDERR_FILENO)\s*,|\bstdout\s*\(\s*\))");
  static const rx::regex shell_output(R"((?:^|[;&|({\s])(?:echo|printf|cat|tee)\b)");
  // A check on TAP text (a TAP library's own tests compare strings): not output.
  static const rx::regex assertion(
      R"(\bassert|\bexpect\s*\(|\b(?:t|tt|st)\s*\.\s*(?:equal|equals|same|deepEqual|deepEquals|strictEqual|match|is|ok|notOk)\s*\()"
      R"(|\.should\b|\b(?:EXPECT|ASSERT)_\w+\s*\(|\bassert_eq!|\brequire\s*\.\s*\w+\s*\()");
  const std::string why = "prints TAP itself (a plan, `ok N` test points or `# pass` counts): the validator's TAP parser "
                          "takes a stream whose counts agree for the runner's results, so a failing test can be reported passed: ";
  const std::string who = shell ? "a shell script that " : c.test_file || basename(c.file.path) == "conftest.py" ? "test code that "
                                                                                                                   : "a module the tests import that ";
  if (shell) {
    // Command by command (`a | b`, `a; b`, `a && b`): TAP text an echo/printf/cat/tee writes, or
    // kept in a variable the script prints later (`POINT="ok 1"`, `echo "$POINT"`); a command that
    // checks TAP text (`grep -q 'ok 1 '`, `[ "$out" = "ok 1" ]`, `case`) prints none of it.
    static const rx::regex writes(
        R"(^\s*(?:(?:then|do|else|if|while|exec|command|builtin|\{|\(|!)\s+)*(?:\S*/)?(?:echo|printf|cat|tee|print)\b)");
    static const rx::regex assigns(R"(^\s*(?:export\s+|local\s+|readonly\s+)?\w+=)");
    bool prints = false;
    for_each_capped_line(after, [&](int, const std::string& l) { prints = prints || rx::regex_search(l, shell_output); });
    for (const auto& [n, full] : added_lines(c.file.before, c.file.after)) {
      const std::string l = full.substr(0, kRegexLineChars);
      bool tap_written = rx::regex_search(l, bare) && contains(after, "<<");  // a heredoc body line (`cat <<EOF`)
      for (const auto& cmd : split_top(l, {"|", ";", "&&"}))
        tap_written = tap_written || (rx::regex_search(cmd, shell_tap) &&
                                      (rx::regex_search(cmd, writes) || (prints && rx::regex_search(cmd, assigns))));
      if (tap_written) {
        out.push_back({"report_tampered", c.file.path, n, who + why + quote(l)});
        return;
      }
    }
    return;
  }
  std::optional<bool> file_prints;  // read once, when a TAP line needs it
  auto prints = [&] {
    if (!file_prints) {
      file_prints = false;
      for_each_capped_line(after, [&](int, const std::string& l) { *file_prints = *file_prints || rx::regex_search(l, output); });
    }
    return *file_prints;
  };
  for (const auto& [n, full] : added_lines(c.file.before, c.file.after)) {
    const std::string l = full.substr(0, kRegexLineChars);
    if (!rx::regex_search(l, in_literal) && !rx::regex_search(l, bare)) continue;
    // Printed on this line, or a TAP string the file prints elsewhere (`emit("ok 1")`, a
    // variable): a line that only asserts on TAP text is a TAP library's own test. A production
    // module the tests import (not test support) only when it prints an unmistakable TAP line
    // there (a plan, `ok N - `, a trailer): `print(f"ok {n} files")` is a program's message.
    const bool support = c.test_file || c.imported_by_tests || basename(c.file.path) == "conftest.py";
    if (!support && !rx::regex_search(l, strict)) continue;
    if (rx::regex_search(l, output) || (support && !rx::regex_search(code_only(l, c.lang), assertion) && prints())) {
      out.push_back({"report_tampered", c.file.path, n, who + why + quote(l)});
      return;
    }
  }
}

}  // namespace flowagent::integrity
