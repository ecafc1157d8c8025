// Language-neutral file rules of the test-integrity guard: diff-attribute files, modules that
// shadow a test runner or the standard library (by path), skip lists, runner invocations in build
// scripts, fail-closed handling of unsupported languages and parse failures, and production code
// that detects a test or CI run.
#include <algorithm>
#include <cctype>
#include "core/regex.hpp"

#include "integrity/guard_internal.hpp"

namespace flowagent::integrity {

namespace {

std::vector<std::string_view> components(std::string_view path) {
  std::vector<std::string_view> out;
  std::size_t p = 0;
  while (p <= path.size()) {
    auto e = path.find('/', p);
    out.push_back(path.substr(p, (e == std::string_view::npos ? path.size() : e) - p));
    if (e == std::string_view::npos) break;
    p = e + 1;
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

/// Why a created or modified file shadows a test runner, its libraries or the standard library.
std::optional<std::string> shadows(const FileVersions& f) {
  const std::string_view base = basename(f.path);
  const auto parts = components(f.path);
  auto has_dir = [&](std::initializer_list<std::string_view> names) {
    for (std::size_t i = 0; i + 1 < parts.size(); ++i)
      for (auto n : names)
        if (parts[i] == n) return true;
    return false;
  };
  // Python: the runner, its plugin system, the interpreter's startup hooks.
  static constexpr std::string_view kPyRunner[] = {"pytest.py", "_pytest.py", "py.py", "unittest.py", "doctest.py",
                                                   "nose.py", "nose2.py", "pluggy.py", "sitecustomize.py",
                                                   "usercustomize.py", "hypothesis.py", "mock.py"};
  if (std::find(std::begin(kPyRunner), std::end(kPyRunner), base) != std::end(kPyRunner))
    return "a module named " + std::string(base) + " shadows the test runner or Python's startup";
  if (ends_with(base, ".pth")) return "a .pth file runs code when Python starts";
  // flowagent's own plugin modules and data folders (the validator's coverage and value probes,
  // `flowagent_value_probe`, `.flowagent-cov-*`): a module of such a name in the tree would be
  // imported in place of the probe.
  for (const auto& part : parts)
    if (starts_with(lower(part), "flowagent_") || starts_with(part, ".flowagent-"))
      return "a file named like flowagent's own validation plugins (" + std::string(part) + ") would stand in for them";
  if (ends_with(base, ".py") && has_dir({"pytest", "_pytest", "unittest", "pluggy"}))
    return "a package folder shadows the test runner";
  // Python standard library modules, new next to the tests or at the root (first on sys.path).
  static constexpr std::string_view kStdlib[] = {
      "os.py", "sys.py", "re.py", "json.py", "io.py", "typing.py", "collections.py", "functools.py", "random.py",
      "time.py", "datetime.py", "math.py", "subprocess.py", "pathlib.py", "logging.py", "inspect.py", "importlib.py",
      "builtins.py", "site.py", "traceback.py", "warnings.py", "signal.py", "atexit.py", "copy.py", "enum.py",
      "abc.py", "types.py", "string.py", "tempfile.py", "shutil.py", "decimal.py", "fractions.py", "itertools.py",
      "operator.py", "contextlib.py", "dataclasses.py", "asyncio.py", "threading.py", "socket.py", "platform.py"};
  if (!f.before && std::find(std::begin(kStdlib), std::end(kStdlib), base) != std::end(kStdlib) &&
      (parts.size() == 1 || is_test_path(f.path)))
    return "a new module named " + std::string(base) + " shadows Python's standard library";
  // JavaScript: installed packages and runner entry points.
  if (has_dir({"node_modules"})) return "a file under node_modules replaces an installed package";
  static constexpr std::string_view kJsRunner[] = {"jest.js", "mocha.js", "vitest.js", "tape.js", "ava.js", "jasmine.js",
                                                   "jest.mjs", "vitest.mjs", "mocha.mjs"};
  if (std::find(std::begin(kJsRunner), std::end(kJsRunner), base) != std::end(kJsRunner))
    return "a module named " + std::string(base) + " shadows the test runner";
  if (parts.size() >= 2 && (parts[0] == "jest" || parts[0] == "mocha" || parts[0] == "vitest" || parts[0] == "tape"))
    return "a folder named " + std::string(parts[0]) + " at the root shadows the test runner";
  // Go, PHP, Ruby: vendored dependencies.
  if (has_dir({"vendor"})) return "a vendored dependency changed";
  // C/C++ test frameworks vendored or replaced.
  // (Not the framework's own tests, samples and documentation below it: nothing there is built into
  // the library the project's tests link. yaml-cpp 3738976bdc added a Bazel `load` line to vendored
  // googletest's test/BUILD.bazel files.)
  // (Also a versioned copy, `googletest-1.13.0/`, `Catch2-3.4.0/`. Its documentation, licence and CI
  // files (README.md, LICENSE, ci/, .github/) build nothing either.)
  static constexpr std::string_view kCppFrameworks[] = {"gtest",  "gmock",    "googletest", "googlemock", "catch2",    "Catch2", "doctest",
                                                        "Unity",  "unity",    "cpputest",   "CppUTest",   "cmocka",    "criterion",
                                                        "munit",  "acutest",  "utest",      "Catch",      "boost_test"};
  const auto framework_dir = [](std::string_view p) {
    for (auto fw : kCppFrameworks)
      if (p == fw || (starts_with(p, fw) && p.size() > fw.size() + 1 && (p[fw.size()] == '-' || p[fw.size()] == '_') &&
                      std::isdigit(static_cast<unsigned char>(p[fw.size() + 1]))))
        return true;
    return false;
  };
  std::size_t framework = parts.size();
  for (std::size_t i = 0; i + 1 < parts.size() && framework == parts.size(); ++i)
    if (framework_dir(parts[i])) framework = i;
  // (Boost.Test lives in `boost/test/`: its own tests are in `libs/test/test/`.)
  for (std::size_t i = 0; i + 2 < parts.size() && framework == parts.size(); ++i)
    if (parts[i] == "boost" && parts[i + 1] == "test") framework = i + 1;
  const bool own_tests = framework < parts.size() && std::any_of(parts.begin() + static_cast<std::ptrdiff_t>(framework) + 1, parts.end() - 1, [](const auto& p) {
    const std::string l = lower(p);
    return l == "test" || l == "tests" || l == "testing" || l == "samples" || l == "docs" || l == "doc" || l == "examples" || l == "ci" ||
           l == ".github" || l == "scripts";
  });
  const std::string lower_base = lower(base);
  const bool prose = ends_with(lower_base, ".md") || ends_with(lower_base, ".rst") || (ends_with(lower_base, ".txt") && lower_base != "cmakelists.txt") ||
                     starts_with(lower_base, "license") || starts_with(lower_base, "copying") || starts_with(lower_base, "readme") ||
                     starts_with(lower_base, "contributors") || starts_with(lower_base, "authors") || starts_with(lower_base, "changelog");
  if (framework < parts.size() && prose) return std::nullopt;
  // The framework's library sources by name, wherever they sit below it (a fused copy under
  // `examples/`, a `test/src/gtest.cc`): not its own tests (`gtest_unittest.cc`, `*-test.cc`).
  static const rx::regex library_source(
      R"(^(?:g(?:test|mock)(?:[-_](?:all|main|port|printers|death-test|filepath|matchers|spec-builders|cardinalities|internal-utils|typed-test|test-part|assertion-result|internal|actions|more-actions|function-mocker|more-matchers|nice-strict))*\.(?:cc|h)|catch_amalgamated\.(?:cpp|hpp)|unity(?:_internals)?\.(?:c|h)|doctest\.h)$)");
  if (framework < parts.size() && own_tests && rx::regex_match(std::string(base), library_source))
    return "the C/C++ test framework's sources changed";
  // A build file of the framework's own tests that reaches the project's build (`PARENT_SCOPE`,
  // cached or global compile settings).
  if (framework < parts.size() && own_tests && (base == "CMakeLists.txt" || ends_with(base, ".cmake")) && f.after) {
    static const rx::regex exported(R"(PARENT_SCOPE|\bCACHE\b|add_compile_definitions\s*\(|add_definitions\s*\(|add_compile_options\s*\(|CMAKE_C(?:XX)?_FLAGS)");
    if (rx::regex_search(*f.after, exported)) return "a build file of the test framework's own tests changes the project's build settings";
  }
  // (A Bazel `load(...)` statement added to a build file of the vendored framework loads rules; it builds nothing new.)
  if (framework < parts.size() && (base == "BUILD" || base == "BUILD.bazel") && f.before && f.after) {
    auto code_lines = [](const std::string& t) {
      std::vector<std::string> out;
      std::size_t p = 0;
      while (p <= t.size()) {
        const auto e = t.find('\n', p);
        const std::string l = trim(std::string_view(t).substr(p, (e == std::string::npos ? t.size() : e) - p));
        if (!l.empty() && !starts_with(l, "load(")) out.push_back(l);
        if (e == std::string::npos) break;
        p = e + 1;
      }
      return out;
    };
    if (code_lines(*f.before) == code_lines(*f.after)) return std::nullopt;
  }
  if ((framework < parts.size() && !own_tests) || base == "gtest.h" || base == "catch.hpp" || base == "catch_amalgamated.hpp" ||
      base == "doctest.h" || base == "unity.h")
    return "the C/C++ test framework's sources changed";
  return std::nullopt;
}

/// Files that list tests to skip (skip lists, quarantines, known failures).
bool skip_list(std::string_view path) {
  const std::string base = lower(basename(path));
  if (lang_of(path) != Lang::none || is_unsupported_code(path)) return false;
  if (base.front() == '.' && ends_with(base, "ignore")) return false;  // .gitignore, .npmignore, .dockerignore, ...
  static constexpr std::string_view kWords[] = {"skip", "known_fail", "knownfail", "known-fail", "quarantine",
                                                "deselect", "exclude", "flaky", "ignore", "denylist", "blocklist",
                                                "disabled_tests", "xfail"};
  return std::any_of(std::begin(kWords), std::end(kWords), [&](auto w) { return contains(base, w); });
}

/// Build scripts and CI definitions that invoke a runner.
bool runner_script(std::string_view path) {
  const std::string_view base = basename(path);
  return base == "Makefile" || base == "makefile" || base == "GNUmakefile" || base == "justfile" || base == "Justfile" ||
         base == "noxfile.py" || base == "Taskfile.yml" || base == "Rakefile" || starts_with(path, ".github/workflows/") ||
         base == ".gitlab-ci.yml" || base == "Jenkinsfile" || base == ".travis.yml" || base == "azure-pipelines.yml" ||
         base == ".pre-commit-config.yaml" || (ends_with(base, ".sh") && contains(base, "test"));
}

/// Added production code that checks whether it runs under a test runner or on CI.
/// A test runner's name looked up through the process's introspection (loaded modules, argv, the
/// call stack): `"_pytest" in sys.modules`, `process.argv.some(a => a.includes("jest"))`, a stack
/// walk comparing class names with "Test". `window` is an added line and the next added ones.
std::optional<std::string> introspects_runner(std::string_view window) {
  static constexpr std::string_view kIntrospection[] = {"sys.modules", "sys.argv", "inspect.stack", "traceback.extract_stack",
                                                        "process.argv", "require.cache", "process.execArgv", "os.Args",
                                                        "getStackTrace", "StackWalker", "program_invocation_name", "os.Executable(",
                                                        "/proc/self/exe", "/proc/self/cmdline", "getprogname(", "require.main", "dlsym("};
  static constexpr std::string_view kRunners[] = {"pytest", "unittest", "jest", "vitest", "mocha", "tape", "node:test",
                                                  "junit", "surefire", "testng", "gtest", ".test", "go test", "\"Test\"",
                                                  "\"Tests\"", "\"test\"", "'test'", "\"Test.", "Test\")", "_test", "testing::"};
  for (auto api : kIntrospection)
    if (contains(window, api))
      for (auto r : kRunners)
        if (contains(window, r)) return std::string(api) + " and " + std::string(r);
  return std::nullopt;
}

/// The part of a failing test's id that production code would have to spell to single it out: the
/// function name (`test_add`, `TestParse`), or a free-text title as a whole (`reports a missing
/// email`: one word of it is ordinary text).
std::string named_test_title(std::string_view id) {
  std::string s(id);
  if (auto bracket = s.find('['); bracket != std::string::npos) s.resize(bracket);
  while (!s.empty() && (s.back() == ')' || s.back() == ' ')) s.pop_back();
  std::size_t cut = 0;
  for (std::string_view sep : {"\u203a", " > ", "::", "#", "/"})
    if (auto p = s.rfind(sep); p != std::string::npos) cut = std::max(cut, p + sep.size());
  std::string title = s.substr(cut);
  title.erase(0, title.find_first_not_of(' '));
  return title.find(' ') != std::string::npos ? title : test_tail(id);
}

std::optional<std::string> detects_test_run(std::string_view l) {
  static constexpr std::string_view kDetect[] = {
      "PYTEST_CURRENT_TEST", "PYTEST_VERSION", "\"pytest\" in sys.modules", "'pytest' in sys.modules",
      "\"unittest\" in sys.modules", "'unittest' in sys.modules", "sys.modules.get(\"pytest", "sys.modules.get('pytest",
      "_called_from_test", "\"pytest\" in sys.argv", "'pytest' in sys.argv", "JEST_WORKER_ID", "NODE_ENV === 'test'",
      "NODE_ENV === \"test\"", "NODE_ENV == 'test'", "NODE_ENV == \"test\"", "NODE_ENV !== 'test'", "process.env.VITEST",
      "process.env.MOCHA", "NODE_TEST_CONTEXT", "typeof jest", "typeof describe", "typeof it ", "typeof expect",
      "globalThis.jest", "global.jest", "__vitest", "testing.Testing()", "testing.Verbose()", "flag.Lookup(\"test.",
      "\".test\")", "GTEST_", "::testing::", "<gtest/gtest.h>", "\"gtest/gtest.h\"", "#ifdef UNIT_TEST", "#ifdef TESTING",
      "defined(UNIT_TEST", "defined(TESTING", "FLOWAGENT_SANDBOX", "\"surefire",
      "org.junit", "junit.jupiter", "isRunningTest", "isJUnitTest",
      // Who is calling: a function that answers by its caller (`sys._getframe(1).f_code.co_name`
      // starting with `test`, a stack that names the test file) tells a test from a real caller.
      "sys._getframe(", "inspect.stack(", "inspect.currentframe(", "traceback.extract_stack(", "traceback.format_stack(",
      "new Error().stack", "Error().stack",
      // (Review 32, the same in other languages: Go's caller frames and the `flag.Parsed()` a test
      // binary has done before any test; the module that started node, named like a test file;
      // a weak reference to a GoogleTest symbol by its mangled name, `testing::` as `N7testing`.)
      "runtime.Caller(", "runtime.Callers(", "runtime.FuncForPC(", "runtime.Stack(", "debug.Stack(", "flag.Parsed()",
      "require.main.filename", "require.main.id", "require.main.path", "module.parent", "process.mainModule",
      "Error.captureStackTrace", "Error.prepareStackTrace", "N7testing", "program_invocation_short_name"};
  // (Spacing does not hide a name: `sys._getframe (1)`, `'pytest' in sys . modules`; review 31.
  // An entry whose trailing space ends a word, `typeof it `, is matched as written.)
  const std::string flat = strip_spaces(std::string(l));
  for (auto d : kDetect)
    if (contains(l, d) || (d.back() != ' ' && contains(flat, strip_spaces(std::string(d))))) return std::string(d);
  // Flags named like a test run, as whole identifiers (IN_TEST, not LOGIN_TESTER).
  for (std::string_view flag : {"RUNNING_TESTS", "UNDER_TEST", "IN_TEST", "IS_TEST", "TEST_MODE"})
    for (auto p = l.find(flag); p != std::string_view::npos; p = l.find(flag, p + 1)) {
      const auto word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
      if ((p == 0 || !word(l[p - 1])) && (p + flag.size() >= l.size() || !word(l[p + flag.size()]))) return std::string(flag);
    }

  // CI environment variables read through any language's environment API.
  static constexpr std::string_view kEnvApi[] = {"getenv(", "Getenv(", "LookupEnv(", "environ", "env::var(", "env!(",
                                                 "process.env", "System.getenv(", "ENV[", "Deno.env", "import.meta.env"};
  static constexpr std::string_view kCiVars[] = {"\"CI\"", "'CI'", ".CI", "[\"CI\"]", "GITHUB_ACTIONS", "TRAVIS",
                                                 "JENKINS_URL", "BUILDKITE", "GITLAB_CI", "CIRCLECI", "TF_BUILD",
                                                 "CONTINUOUS_INTEGRATION", "BUILD_NUMBER", "TEAMCITY_VERSION"};
  if (std::any_of(std::begin(kEnvApi), std::end(kEnvApi), [&](auto a) { return contains(l, a); }))
    for (auto v : kCiVars)
      if (contains(l, v) && !(v == ".CI" && !contains(l, "env.CI"))) return "the CI environment (" + std::string(v) + ")";
  return std::nullopt;
}

}  // namespace

void file_rules(const RuleContext& c, Findings& out) {
  const FileVersions& f = c.file;
  // Diff attributes decide how git shows (or hides) a change: no candidate may touch them.
  if (basename(f.path) == ".gitattributes") {
    out.push_back({"diff_attributes", f.path, 0, ".gitattributes changes how git diffs, merges or filters files"});
    return;
  }
  if (f.after)
    if (auto why = shadows(f)) {
      out.push_back({"shadow_module", f.path, 0, *why});
      return;
    }
  if (f.after && skip_list(f.path) && f.before != f.after) {
    out.push_back({"collection_disabled", f.path, 0, "a skip list or quarantine file changed"});
    return;
  }
  // Fail closed: test code the guard cannot read.
  if (c.test_file && f.after && is_unsupported_code(f.path)) {
    out.push_back({"unsupported_language", f.path, 0, "test code in a language the guard cannot parse: it cannot show the change is honest"});
    return;
  }
  // (Data next to tests, such as intentionally broken sources under fixtures/, holds no tests.)
  const bool holds_tests = !c.before.tests.empty() || !c.after.tests.empty() || collectable_test_file(f.path, c.lang);
  // A file whose old version failed to parse the same way, where the patch leaves those lines
  // alone, is read as it is (the grammar's error recovery is local; both versions lose the same).
  auto same_errors_untouched = [&] {
    if (!c.before.has_error || c.before.errors.size() != c.after.errors.size() || c.after.errors.size() >= kMaxParseErrors)
      return false;
    for (std::size_t i = 0; i < c.after.errors.size(); ++i)
      if (c.before.errors[i].text != c.after.errors[i].text) return false;
    for (const auto& [n, line] : added_lines(f.before, f.after))
      for (const auto& e : c.after.errors)
        if (n >= e.line - 1 && n <= e.end_line + 1) return false;
    return true;
  };
  if (c.lang != Lang::none && c.test_file && holds_tests && f.after &&
      (!c.after.parsed || (c.after.has_error && !same_errors_untouched()))) {
    out.push_back({"parse_error", f.path, 0, "the test file does not parse: the guard cannot compare its tests"});
    return;
  }
  if (runner_script(f.path)) {
    runner_script_rules(c, out);
    return;
  }
  // Production code that detects tests or names a failing test.
  const bool code = c.lang != Lang::none || is_unsupported_code(f.path);
  // A file named like a test but outside the test folders that holds no test (testenv.py,
  // testing_flags.py at the root) is production code to this rule: the code under test imports it.
  const bool testless_outside_tests = c.test_file && !in_test_folder(f.path) && c.after.tests.empty() && f.after;
  if ((c.test_file && !testless_outside_tests) || !code || basename(f.path) == "conftest.py") return;
  std::vector<std::string> titles;  // what production code would spell to name a failing test
  for (const auto& t : c.options.failing_tests)
    if (auto title = named_test_title(t); title.size() >= kMinNamedTestChars) titles.push_back(std::move(title));
  const auto added = added_lines(f.before, f.after);
  for (std::size_t i = 0; i < added.size(); ++i) {
    const auto& [n, l] = added[i];
    std::string window = l;
    for (std::size_t j = i + 1; j < added.size() && j <= i + 2 && added[j].first == added[j - 1].first + 1; ++j)
      window += "\n" + added[j].second;
    auto d = detects_test_run(l);
    if (!d) d = introspects_runner(window);
    if (d) {
      if (contains(l, "gtest_prod.h")) continue;  // FRIEND_TEST support is how gtest tests private members
      out.push_back({"test_detection_in_code", f.path, n, "production code checks whether it runs under test: " + *d});
      return;
    }
    for (const auto& title : titles)
      if (contains(l, "\"" + title + "\"") || contains(l, "'" + title + "'")) {
        out.push_back({"test_detection_in_code", f.path, n, "production code names the failing test " + title});
        return;
      }
  }
}

}  // namespace flowagent::integrity
