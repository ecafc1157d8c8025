// Python: pytest/unittest tests, and pytest's runner surface (conftest hooks, plugins,
// configuration in pytest.ini / pyproject.toml / setup.cfg / tox.ini, collection switches).
#include <algorithm>
#include <functional>
#include "core/regex.hpp"

#include "core/regex_cache.hpp"
#include "integrity/guard_internal.hpp"

namespace flowagent::integrity {

namespace {

/// How many values the expression `a` of a parametrize decorator gives, read through the module's
/// names (`src`): a literal list or tuple; a module-level name bound once to one (`CASES`); a slice
/// of such with literal bounds (`CASES[:1]`, `CASES[1:]`); `range(...)` of literals (`list(...)` of
/// either); a concatenation of those (`CASES + [(5, 5, 10)]`). 0 when unknown.
int parametrize_values(std::string a, std::string_view src, int depth = 0) {
  a = trim(a);
  if (depth > 4 || a.empty()) return 0;
  // A comprehension over a table it can count: as many rows without a filter; with one, fewer
  // (read as one: `[c for c in CASES if c[0] == 0]` keeps the rows it likes); over anything else
  // without a filter (`[f for f in all_functions()]`), unknown (-1). Other expressions it cannot
  // count give 0 (read as one case, as before).
  {
    static const rx::regex comprehension(R"(^\[(.+?)\s+for\s+(.+?)\s+in\s+(.+?)(\s+if\s+.+)?\]$)");
    rx::smatch cm;
    if (rx::regex_match(a, cm, comprehension)) {
      const int n = parametrize_values(cm[3].str(), src, depth + 1);
      if (cm[4].matched) return 1;
      return n == 0 ? -1 : n;
    }
  }
  if (const int n = count_elements(a); n > 0 || a == "[]" || a == "()") return n;
  if (const auto parts = split_top(a, {"+"}); parts.size() > 1) {
    int total = 0;
    for (const auto& p : parts) {
      const int n = parametrize_values(p, src, depth + 1);
      if (n < 0) return -1;
      if (n == 0 && trim(p) != "[]" && trim(p) != "()") return 0;
      total += n;
    }
    return total;
  }
  static const rx::regex listed(R"(^(?:list|tuple)\s*\((.*)\)$)");
  rx::smatch m;

  if (rx::regex_match(a, m, listed)) return parametrize_values(m[1].str(), src, depth + 1);
  static const rx::regex ranged(R"(^range\s*\(\s*(-?\d+)\s*(?:,\s*(-?\d+)\s*)?(?:,\s*(-?\d+)\s*)?\)$)");
  if (rx::regex_match(a, m, ranged)) {
    long lo = 0, hi = std::stol(m[1].str()), step = 1;
    if (m[2].matched) {
      lo = hi;
      hi = std::stol(m[2].str());
    }
    if (m[3].matched) step = std::stol(m[3].str());
    if (step == 0) return 0;
    const long n = step > 0 ? (hi - lo + step - 1) / step : (lo - hi - step - 1) / -step;
    return static_cast<int>(std::clamp(n, 0L, 100000L));
  }
  static const rx::regex named(R"(^([A-Za-z_]\w*)\s*(?:\[\s*(-?\d*)\s*:\s*(-?\d*)\s*\])?$)");
  if (!rx::regex_match(a, m, named)) return 0;
  // (The name bound once at module level, its value to the matching bracket.)
  const std::string name = m[1].str();
  const rx::regex bind = detail::cached_regex("(?:^|\\n)" + name + R"(\s*(?::[^=\n]*)?=\s*)");
  const std::string text(src.substr(0, std::size_t{1} << 20));
  rx::smatch b;
  if (!rx::regex_search(text, b, bind)) return 0;
  const std::size_t at = static_cast<std::size_t>(b.position() + b.length());
  if (rx::sregex_iterator(text.begin(), text.end(), bind) != rx::sregex_iterator() &&
      std::distance(rx::sregex_iterator(text.begin(), text.end(), bind), rx::sregex_iterator()) != 1)
    return 0;
  std::string value;
  if (at < text.size() && (text[at] == '[' || text[at] == '(')) {
    const std::size_t close = matching_close(text, at);
    if (close >= text.size()) return 0;
    value = text.substr(at, close - at + 1);
  } else {
    value = text.substr(at, text.find('\n', at) - at);
  }
  const int n = parametrize_values(value, src, depth + 1);
  if (n <= 0 || !m[2].matched) return n;  // (-1: unknown, also sliced)
  // A slice with literal bounds.
  const auto bound = [&](const std::string& x, long dflt) {
    if (x.empty()) return dflt;
    long v = std::stol(x);
    if (v < 0) v += n;
    return std::clamp(v, 0L, static_cast<long>(n));
  };
  const long lo = bound(m[2].str(), 0), hi = bound(m[3].str(), n);
  return static_cast<int>(std::max(0L, hi - lo));
}

/// Cases of a `@pytest.mark.parametrize(names, values)` decorator (0: not known), its values read
/// through the module `src` (parametrize_values).
int parametrize_cases(std::string_view decorator, std::string_view src) {
  auto p = decorator.find("parametrize(");
  if (p == std::string_view::npos) return 0;
  std::string_view args = decorator.substr(p + 11);
  auto parts = split_top(args.substr(1, args.rfind(')') == std::string_view::npos ? args.size() : args.rfind(')') - 1), {","});
  for (std::size_t i = 1; i < parts.size(); ++i) {
    std::string a = trim(parts[i]);
    if (starts_with(a, "argvalues=")) a = a.substr(10);
    if (a.find('=') != std::string::npos && a.find('=') < a.find_first_of("[(")) continue;  // ids=..., indirect=...
    return parametrize_values(a, src);
  }
  return 0;
}

}  // namespace

std::map<std::string, std::string> parametrize_columns(std::string_view decorator) {
  std::map<std::string, std::string> columns;
  const auto p = decorator.find("parametrize(");
  if (p == std::string_view::npos) return columns;
  const std::size_t open = p + 11, close = closing_paren(decorator, open);
  if (close >= decorator.size()) return columns;
  const auto parts = split_top(decorator.substr(open + 1, close - open - 1), {","});
  if (parts.size() < 2) return columns;
  // The names: "a, b, exp", ("a", "b", "exp") or ["a", "b", "exp"].
  std::vector<std::string> names;
  std::string first = trim(parts[0]);
  if (starts_with(first, "argnames=")) first = trim(first.substr(9));
  if (!first.empty() && (first.front() == '(' || first.front() == '[')) {
    for (const auto& n : split_top(std::string_view(first).substr(1, first.size() - 2), {","}))
      if (std::string t = trim(n); t.size() >= 2) names.push_back(trim(t.substr(1, t.size() - 2)));
  } else if (first.size() >= 2 && (first.front() == '"' || first.front() == '\'')) {
    for (const auto& n : split_top(std::string_view(first).substr(1, first.size() - 2), {","})) names.push_back(trim(n));
  }
  if (names.empty()) return columns;
  std::string rows = trim(parts[1]);
  if (starts_with(rows, "argvalues=")) rows = trim(rows.substr(10));
  if (rows.size() < 2 || (rows.front() != '[' && rows.front() != '(')) return columns;
  for (const auto& row_text : split_top(std::string_view(rows).substr(1, rows.size() - 2), {","})) {
    std::string row = strip_spaces(row_text);
    if (row.empty()) continue;
    // pytest.param(2, 2, 4, id="...") holds a row and its options.
    std::vector<std::string> cells;
    if (starts_with(row, "pytest.param(") || starts_with(row, "param(")) {
      const std::size_t o = row.find('(');
      for (auto& cell : split_top(std::string_view(row).substr(o + 1, closing_paren(row, o) - o - 1), {","}))
        if (cell.find('=') == std::string::npos || cell.find('=') > cell.find_first_of("([{\"'")) cells.push_back(cell);
    } else if (names.size() == 1) {
      cells.push_back(row);
    } else if (row.front() == '(' || row.front() == '[') {
      cells = split_top(std::string_view(row).substr(1, row.size() - 2), {","});
    }
    for (std::size_t i = 0; i < names.size() && i < cells.size(); ++i) columns[names[i]] += strip_spaces(cells[i]) + ";";
  }
  return columns;
}

namespace {

bool is_pytest_config(std::string_view base) {
  return base == "pytest.ini" || base == ".pytest.ini" || base == "pytest.toml" || base == ".pytest.toml" ||
         base == "setup.cfg" || base == "tox.ini" || base == "pyproject.toml";
}

/// pytest hooks that only register options or markers do not change what runs or how it is judged.
bool benign_hook(const std::string& name, const std::string& text) {
  static constexpr std::string_view kSuspicious[] = {"skip", "deselect", "keyword", "markexpr", "exit", "outcome",
                                                      "option.", "setattr", "__test__", "items", "report", "[]",
                                                      "pluginmanager", "_pytest", "xfail"};
  const bool quiet = std::none_of(std::begin(kSuspicious), std::end(kSuspicious), [&](auto w) { return contains(text, w); });
  return name == "pytest_addoption" || ((name == "pytest_configure" || name == "pytest_generate_tests") && quiet);
}

}  // namespace

/// Does the function body yield (outside nested functions, lambdas and classes)?
static bool python_yields(TSNode n, int depth) {
  if (ts_node_is_null(n) || depth > kMaxSyntaxDepth) return false;
  const std::string_view t = Syntax::type(n);
  if (t == "yield") return true;
  if (t == "function_definition" || t == "lambda" || t == "class_definition") return false;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
    if (python_yields(tsnav::named_child(n, i), depth + 1)) return true;
  return false;
}

namespace {

/// The text of `n` with its comments blanked (`"t",  # fmt: off`): a decorator's arguments as code.
std::string text_without_comments(const Syntax& s, TSNode n) {
  std::string out = s.text(n);
  const uint32_t base = ts_node_start_byte(n);
  walk_code(
      n,
      [&](TSNode x) {
        for (uint32_t k = ts_node_start_byte(x) - base; k < ts_node_end_byte(x) - base && k < out.size(); ++k)
          if (out[k] != '\n') out[k] = ' ';
      },
      [](TSNode) {});
  return out;
}

}  // namespace

UnitInfo python_unit(const Syntax& s, TSNode n, const std::string& scope, bool scope_collectable) {
  UnitInfo u;
  if (Syntax::type(n) != "function_definition") return u;
  TSNode name = Syntax::field(n, "name");
  std::string fn = ts_node_is_null(name) ? "" : s.text(name);
  if (!starts_with(fn, "test")) return u;
  TSNode parent = tsnav::parent(n);
  if (!ts_node_is_null(parent) && Syntax::type(parent) == "decorated_definition")
    for (uint32_t i = 0; i < ts_node_named_child_count(parent); ++i)
      if (Syntax::type(tsnav::named_child(parent, i)) == "decorator") {
        std::string d = text_without_comments(s, tsnav::named_child(parent, i));
        if (int k = parametrize_cases(d, s.src); k > 0) u.cases *= k;
        else if (k < 0) u.cases_unknown = true;
        u.decorators.push_back(std::move(d));
      }
  u.collectable = scope_collectable;
  // pytest collects plain functions: not a classmethod or property ("cannot collect ... because it
  // is not a function"), and a fixture is no test.
  for (const auto& d : u.decorators)
    if (d == "@classmethod" || d == "@property" || contains(d, "cached_property") || starts_with(d, "@pytest.fixture") ||
        starts_with(d, "@fixture")) {
      u.collectable = false;
      u.hidden_by = "pytest collects test functions and methods, not a classmethod, property or fixture (" + d + ")";
      u.name = scope.empty() ? fn : scope + "." + fn;
      return u;
    }
  if (!scope_collectable)
    u.hidden_by = "pytest collects test methods only from classes named Test* (or unittest.TestCase subclasses) "
                  "without an __init__/__new__ constructor and without __test__ = False";
  // A generator test: pytest marks it xfail(run=False) ("yield tests were removed in pytest 4.0"),
  // unittest calls it and drops the generator: the body never runs. Unless a decorator drives the
  // generator: Twisted's `@inlineCallbacks` (trial, pytest-twisted), Tornado's `@gen_test`
  // (tornado.testing, pytest-tornado), `@gen.coroutine`.
  static constexpr std::string_view kGeneratorRunners[] = {"inlineCallbacks", "gen_test", "gen.coroutine", "pytest_twisted"};
  const bool driven = std::any_of(u.decorators.begin(), u.decorators.end(), [](const std::string& d) {
    return std::any_of(std::begin(kGeneratorRunners), std::end(kGeneratorRunners), [&](auto w) { return contains(d, w); });
  });
  if (u.collectable && !driven && python_yields(Syntax::field(n, "body"), 0)) {
    u.collectable = false;
    u.hidden_by = "the test became a generator (it yields): pytest does not run yield tests and unittest never iterates one";
  }
  // A coroutine test runs only through an async plugin (pytest-asyncio, anyio, trio) or
  // IsolatedAsyncioTestCase; otherwise pytest skips it and unittest never awaits it.
  if (u.collectable && starts_with(s.text(n), "async")) {
    // What runs a coroutine test: a plugin's marker or fixture, an async TestCase, a runner
    // decorator (`import asyncio` alone runs nothing).
    static constexpr std::string_view kAsyncRunners[] = {
        "mark.asyncio", "mark.anyio", "mark.trio", "anyio_backend", "pytest_asyncio", "IsolatedAsyncioTestCase",
        "AioHTTPTestCase", "AsyncTestCase", "unittest_run_loop", "async_test", "gen_test", "inlineCallbacks",
        "pytest_twisted", "mark.curio", "mark.tornado"};
    if (std::none_of(std::begin(kAsyncRunners), std::end(kAsyncRunners), [&](auto w) { return contains(s.src, w); })) {
      u.collectable = false;
      u.hidden_by = std::string(kAsyncWithoutPlugin);
    }
  }
  // Defined under a module- or class-level `if`: pytest collects what the import defines.
  if (auto cond = definition_condition(s, n, Lang::python); !cond.empty()) u.decorators.push_back(std::string(kDefinedOnlyIf) + cond);
  u.name = scope.empty() ? fn : scope + "." + fn;
  return u;
}

void python_rules(const RuleContext& c, Findings& out) {
  const std::string& path = c.file.path;
  const std::string_view base = basename(path);
  if (c.lang == Lang::python) {
    // Hooks: a pytest_* hook added or changed in any module (conftest.py, a plugin, -p module).
    for (const auto& [name, text] : c.after.hooks) {
      const bool existed = std::any_of(c.before.hooks.begin(), c.before.hooks.end(),
                                       [&](const auto& h) { return h.first == name && h.second == text; });
      if (existed || benign_hook(name, text)) continue;
      out.push_back({"runner_hook", path, 0, "pytest hook " + name + " added or changed: it can change which tests run or how their results are reported"});
      return;
    }
    if (flag_added(c, out, "runner_hook", "a pytest plugin or hook implementation",
                   {"hookwrapper", "hookimpl", "pytest_plugins", "setattr(pytest", "setattr(unittest", "setattr(_pytest",
                    "TestCase.run", "TestResult", "addFailure", "pytest.exit(", "unittest.main = "}))
      return;
    if ((c.test_file || c.imported_by_tests || base == "conftest.py") &&
        flag_added(c, out, "runner_hook", "test code that patches the runner",
                   {"atexit.register", "sys.settrace", "sys.excepthook", "builtins.AssertionError",
                    "AssertionError = ", "__builtins__", "TestCase.assert", "_callTestMethod", "_callSetUp",
                    "_callTearDown", "failureException =", "failureException=", "_outcome", "runtest", "def run(self, result"}))
      return;
    // Import hooks: any module the tests import can be replaced by what a finder returns. Honest
    // where the file already used one or the code under test is an import hook itself.
    if (c.test_file || c.imported_by_tests || base == "conftest.py") {
      auto hooks_in = [](const std::string& t) {
        return contains(t, "meta_path") || contains(t, "path_hooks") || contains(t, "find_spec") || contains(t, "find_module");
      };
      const bool under_test = (c.file.before && hooks_in(*c.file.before)) ||
                              std::any_of(c.options.change_files.begin(), c.options.change_files.end(), [&](const FileVersions& f) {
                                return f.after && !is_test_path(f.path) && hooks_in(*f.after);
                              });
      if (!under_test && flag_added(c, out, "runner_hook", "test code that installs an import hook",
                                    {"meta_path", "path_hooks", "MetaPathFinder", "PathEntryFinder", "def find_spec(",
                                     "def find_module(", "def exec_module(", "builtins.__import__", "__import__ = "}))
        return;
    }
    // A collected item's test function replaced (`request.node.obj = ...`, `item.obj = ...`).
    if (c.test_file || c.imported_by_tests || base == "conftest.py")
      for (const auto& [n, l] : added_lines(c.file.before, c.file.after)) {
        const std::string compact = strip_spaces(l);
        if ((contains(compact, ".obj=") || contains(compact, "'obj',") || contains(compact, "\"obj\",")) &&
            c.file.after && (contains(*c.file.after, "node") || contains(*c.file.after, "item"))) {
          out.push_back({"runner_hook", path, n, "test code that replaces a collected test's function: " + quote(l)});
          return;
        }
      }
    // conftest.py where pytest would not expect one (outside the root and the test folders).
    if (base == "conftest.py" && !c.file.before && path != "conftest.py" && !is_test_path(path.substr(0, path.size() - base.size())))
      out.push_back({"runner_hook", path, 0, "a new conftest.py outside the test folders is loaded by pytest for every test below it"});
    for (const auto& [n, l] : added_lines(c.file.before, c.file.after)) {
      const std::string compact = strip_spaces(l);
      if (contains(compact, "__test__=False") || contains(compact, "__test__=0") || contains(compact, "__test__=None")) {
        out.push_back({"collection_disabled", path, n, "pytest stops collecting these tests: " + quote(l)});
        return;
      }
      if (contains(compact, "collect_ignore")) {
        out.push_back({"runner_config_exclusion", path, n, "pytest stops collecting some files: " + quote(l)});
        return;
      }
    }
  }
  if (!is_pytest_config(base)) return;
  // A new pytest configuration file takes precedence over the project's existing one.
  if (!c.file.before && (base == "pytest.ini" || base == ".pytest.ini" || base == "pytest.toml" || base == ".pytest.toml")) {
    out.push_back({"runner_config_exclusion", path, 0, "a new pytest configuration file replaces the project's configuration"});
    return;
  }
  if (flag_changed_keys(c, out, "runner_hook", "pytest plugins or fixtures for every test",
                        {"required_plugins", "usefixtures", "pytest_plugins"}))
    return;
  if (flag_changed_keys(c, out, "runner_config_exclusion", "pytest's selection of tests changed",
                        {"addopts", "testpaths", "python_files", "python_classes", "python_functions", "norecursedirs",
                         "collect_ignore", "xfail_strict", "empty_parameter_set_mark", "rootdir", "confcutdir"}))
    return;
  flag_added(c, out, "runner_config_exclusion", "pytest's selection of tests changed",
             {"[pytest]", "[tool:pytest]", "[tool.pytest", "--deselect", " -k ", "-k=", "--ignore", " -m ", "--co ",
              "--collect-only", "--lf", "--last-failed", " -p ", "--noconftest", "--override-ini", " -o ", "--pyargs"});
}

}  // namespace flowagent::integrity
