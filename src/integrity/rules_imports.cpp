// What the tests reach beyond their own files: the project modules they import (one or two levels,
// within the repository), skip calls placed outside any test (in a helper, a helper module, the code
// under test), and assertion functions patched from any module.
#include <algorithm>
#include <cctype>
#include <map>
#include <regex>

#include "integrity/guard_internal.hpp"

namespace flowagent::integrity {

namespace {

std::string dir_of(std::string_view path) {
  auto p = path.rfind('/');
  return p == std::string_view::npos ? std::string() : std::string(path.substr(0, p));
}

/// `a/./b/../c` -> `a/c`; "" when it climbs out of the repository.
std::string normalize(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t p = 0;
  while (p <= path.size()) {
    auto e = path.find('/', p);
    if (e == std::string::npos) e = path.size();
    const std::string seg = path.substr(p, e - p);
    if (seg == "..") {
      if (parts.empty()) return {};
      parts.pop_back();
    } else if (!seg.empty() && seg != ".") {
      parts.push_back(seg);
    }
    p = e + 1;
  }
  std::string out;
  for (const auto& s : parts) out += (out.empty() ? "" : "/") + s;
  return out;
}

std::string join(const std::string& dir, const std::string& rel) { return normalize(dir.empty() ? rel : dir + "/" + rel); }

/// Project paths `text` (the file at `path`) imports, among `known`.
std::vector<std::string> imported_paths(const std::string& path, const std::string& text, Lang lang, const std::set<std::string>& known) {
  std::vector<std::string> out;
  auto take = [&](const std::string& p) {
    if (!p.empty() && known.count(p) && p != path && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  };
  const std::string dir = dir_of(path);
  std::size_t p = 0;
  while (p < text.size()) {
    auto e = text.find('\n', p);
    if (e == std::string::npos) e = text.size();
    const std::string line = text.substr(p, std::min<std::size_t>(e - p, kRegexLineChars));
    p = e + 1;
    std::smatch m;
    if (lang == Lang::python) {
      static const std::regex from(R"(^\s*from\s+(\.*)([\w.]*)\s+import\s+\(?([\w\s,*]+))");
      static const std::regex imp(R"(^\s*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*))");
      static const std::regex word(R"(\w+)");
      std::vector<std::pair<std::string, std::vector<std::string>>> modules;  // (slash path, bases)
      std::vector<std::string> bases;
      if (std::regex_search(line, m, from)) {
        const std::size_t dots = m[1].length();
        std::string mod = m[2].str();
        std::replace(mod.begin(), mod.end(), '.', '/');
        if (dots > 0) {
          std::string base = dir;
          for (std::size_t i = 1; i < dots; ++i) base = dir_of(base);
          bases = {base};
        }
        std::vector<std::string> mods = {mod};
        const std::string names = m[3].str();
        for (std::sregex_iterator w(names.begin(), names.end(), word), end; w != end; ++w)
          if (w->str() != "as") mods.push_back(mod.empty() ? w->str() : mod + "/" + w->str());  // `from pkg import helpers`
        for (const auto& x : mods) modules.push_back({x, bases});
      } else if (std::regex_search(line, m, imp)) {
        const std::string list = m[1].str();
        for (const auto& part : split_top(list, {","})) {
          std::string mod = trim(part.substr(0, part.find(" as ")));
          std::replace(mod.begin(), mod.end(), '.', '/');
          modules.push_back({mod, {}});
        }
      }
      for (auto& [mod, bs] : modules) {
        if (mod.empty()) continue;
        if (bs.empty()) {
          // Absolute: from the root, src/ or lib/, or a folder of the importer (pytest puts the
          // test's rootdir-relative folders on sys.path).
          bs = {"", "src", "lib"};
          for (std::string d = dir; !d.empty(); d = dir_of(d)) bs.push_back(d);
        }
        for (const auto& b : bs) {
          take(join(b, mod + ".py"));
          take(join(b, mod + "/__init__.py"));
        }
      }
    } else if (is_js(lang)) {
      static const std::regex spec(R"((?:require\s*\(|import\s*\(|from\s+|^\s*import\s+)\s*['"](\.{1,2}/[^'"]*)['"])");
      for (std::sregex_iterator it(line.begin(), line.end(), spec), end; it != end; ++it) {
        const std::string base = join(dir, (*it)[1].str());
        if (base.empty()) continue;
        take(base);
        for (const char* ext : {".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts", "/index.js", "/index.ts", "/index.mjs"})
          take(base + ext);
      }
    }
  }
  return out;
}

/// The file of a failing test id, when the id names one (`tests/test_x.py::test_y`, `a.test.js > t`).
std::string file_of_test_id(const std::string& id) {
  std::string f = id.substr(0, id.find("::"));
  f = f.substr(0, f.find(' '));
  return lang_of(f) == Lang::none || f == id ? std::string() : f;
}

/// A test module by its name (test_x.py, x_test.py, x.test.js, x.spec.ts): not a helper.
bool test_by_name(std::string_view path) {
  const std::string_view base = basename(path);
  return (starts_with(base, "test") && ends_with(base, ".py")) || ends_with(base, "_test.py") || contains(base, ".test.") ||
         contains(base, ".spec.") || contains(base, "_test.") || contains(base, "-test.");
}

}  // namespace

std::map<std::string, std::string> test_imported_modules(const std::vector<FileVersions>& files, const IntegrityOptions& o) {
  std::map<std::string, std::string> out;
  std::map<std::string, const FileVersions*> patched;
  std::set<std::string> known(o.project_files.begin(), o.project_files.end());
  for (const auto& f : files) {
    patched[f.path] = &f;
    known.insert(f.path);
  }
  std::set<std::string> code_under_test;  // the developer's change: code under test, not helpers
  for (const auto& f : o.change_files) code_under_test.insert(f.path);
  // Nothing to find when the patch touches no module that could be a helper.
  if (std::none_of(files.begin(), files.end(), [&](const FileVersions& f) {
        const Lang l = lang_of(f.path);
        return f.after && (l == Lang::python || is_js(l)) && !test_by_name(f.path) && basename(f.path) != "conftest.py" &&
               !code_under_test.count(f.path);
      }))
    return out;
  auto text_of = [&](const std::string& path) -> std::optional<std::string> {
    if (auto it = patched.find(path); it != patched.end()) return it->second->after;
    if (o.read_head_file) return o.read_head_file(path);
    return std::nullopt;
  };
  // The tests: the patch's test files and the failing tests' files.
  std::vector<std::pair<std::string, std::string>> level;  // (path, text)
  std::set<std::string> seen;
  for (const auto& f : files)
    if (f.after && (is_test_path(f.path) || basename(f.path) == "conftest.py") && seen.insert(f.path).second)
      level.emplace_back(f.path, *f.after);
  for (const auto& id : o.failing_tests) {
    const std::string p = file_of_test_id(id);
    if (p.empty() || !seen.insert(p).second) continue;
    if (auto t = text_of(p)) level.emplace_back(p, std::move(*t));
    // pytest loads the conftest.py files of the test's folders first: their imports count too.
    if (lang_of(p) != Lang::python) continue;
    for (std::string d = dir_of(p);; d = dir_of(d)) {
      const std::string conftest = d.empty() ? "conftest.py" : d + "/conftest.py";
      if (known.count(conftest) && seen.insert(conftest).second)
        if (auto t = text_of(conftest)) level.emplace_back(conftest, std::move(*t));
      if (d.empty()) break;
    }
  }
  // Two levels: the modules the tests import, and the modules those import.
  for (int depth = 0; depth < 2 && !level.empty(); ++depth) {
    std::vector<std::pair<std::string, std::string>> next;
    for (const auto& [path, text] : level) {
      for (const auto& imp : imported_paths(path, text, lang_of(path), known)) {
        if (test_by_name(imp) || basename(imp) == "conftest.py" || code_under_test.count(imp)) continue;
        if (patched.count(imp)) out[imp] += text + "\n";  // what the importers use of it
        if (!seen.insert(imp).second) continue;
        if (auto t = text_of(imp)) next.emplace_back(imp, std::move(*t));
      }
    }
    level = std::move(next);
  }
  return out;
}

bool test_support_module(std::string_view path, const std::string& text) {
  if (is_test_path(path)) return true;
  static const std::regex framework(
      R"((?:^|\n)\s*(?:import\s+(?:pytest|unittest|_pytest|hypothesis)\b|from\s+(?:pytest|unittest|_pytest|hypothesis)\b))"
      R"(|\brequire\s*\(\s*['"](?:node:test|tape|tap|chai|sinon|@jest/globals|vitest|ava|mocha|uvu|expect)['"])"
      R"(|\bfrom\s+['"](?:node:test|tape|tap|chai|sinon|@jest/globals|vitest|ava|mocha|uvu|expect)['"])");
  std::string lower(basename(path));
  for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  static constexpr std::string_view kNames[] = {"helper", "testing", "testutil", "test_util", "fixture", "fake", "stub", "mock"};
  return std::regex_search(text.substr(0, 200000), framework) ||
         std::any_of(std::begin(kNames), std::end(kNames), [&](auto n) { return contains(lower, n); });
}

void helper_skip_rules(const RuleContext& c, Findings& out) {
  if (!c.file.after || !c.after.parsed) return;
  // Skip calls by their test-framework spelling (a production `query.skip(10)` is not one).
  static const std::regex py(
      R"(\b_?pytest\s*\.\s*(?:skip|xfail|importorskip)\b|\b_?pytest\s*\.\s*mark\s*\.\s*(?:skip|skipif|xfail)\b|\bskipTest\s*\()"
      R"(|\bSkipTest\b|\bunittest\s*\.\s*skip|\bgetattr\s*\(\s*_?pytest\b)"
      R"(|^\s*from\s+(?:_?pytest|_pytest\.\w+|unittest)\s+import\s+.*\b(?:skip\w*|xfail|importorskip|SkipTest|Skipped)\b)");
  // `import pytest as p` / `p = pytest`: the alias's skips too.
  std::string alias_pattern;
  if (c.lang == Lang::python) {
    static const std::regex alias_re(R"((?:^|\n)\s*(?:import\s+_?pytest\s+as\s+(\w+)|(\w+)\s*=\s*_?pytest\s*(?:\n|$)))");
    const std::string& text = *c.file.after;
    for (std::sregex_iterator it(text.begin(), text.end(), alias_re), end; it != end; ++it)
      alias_pattern += (alias_pattern.empty() ? "" : "|") + ((*it)[1].matched ? (*it)[1].str() : (*it)[2].str());
  }
  const std::regex py_alias(alias_pattern.empty() ? std::string("(?!)") : "\\b(?:" + alias_pattern + ")\\s*\\.\\s*(?:skip|xfail|importorskip|mark)\\b");
  // JS: the test API's skips anywhere; a mocha context's `this.skip()` and `{ skip: true }` options
  // only in test-side code (production code has its own `this.skip()` and `{ skip: 10 }` pagination).
  static const std::regex js(R"(\b(?:t|test|it|describe|context|suite)\s*\.\s*(?:skip|todo)\s*\()");
  static const std::regex js_test_side(
      R"(\b(?:t|tt|st|test|it|describe|context|suite|this|ctx)\s*\.\s*(?:skip|todo)\s*\(|\{\s*(?:skip|todo)\s*:\s*(?!false\b))"
      R"(|\[\s*['"`](?:skip|todo)['"`]\s*\]|\{\s*(?:skip|todo)\s*\}\s*=)");
  // Go: any receiver in test code (`tb.Skip()`), the usual names elsewhere.
  static const std::regex go(R"(\b(?:t|tb|b|tt|f)\s*\.\s*(?:Skip|SkipNow|Skipf)\s*\()");
  static const std::regex go_test_side(R"(\.\s*(?:Skip|SkipNow|Skipf)\s*\()");
  static const std::regex cpp(R"(\bGTEST_SKIP\b)");
  static const std::regex jvm(R"(\bassume(?:True|False|That|NotNull)\s*\(|\bassumingThat\s*\()");
  const bool test_side = c.test_file || c.imported_by_tests;
  const std::regex* re = c.lang == Lang::python ? &py : is_js(c.lang) ? (test_side ? &js_test_side : &js)
                       : c.lang == Lang::go ? (test_side ? &go_test_side : &go)
                       : c.lang == Lang::cpp ? &cpp : (c.lang == Lang::java || c.lang == Lang::kotlin) ? &jvm : nullptr;
  if (!re) return;
  const auto added = added_lines(c.file.before, c.file.after);
  std::vector<std::string> lines;
  for (std::size_t p = 0; p <= c.file.after->size();) {
    auto e = c.file.after->find('\n', p);
    if (e == std::string::npos) e = c.file.after->size();
    lines.push_back(c.file.after->substr(p, e - p));
    p = e + 1;
  }
  auto within = [](const TestUnit& u, int n) { return n >= u.line && n <= std::max(u.line, u.end_line); };
  for (const auto& [n, full] : added) {
    const std::string l = full.substr(0, kRegexLineChars);
    std::smatch call;
    if (!std::regex_search(l, call, *re) && !(c.lang == Lang::python && std::regex_search(l, call, py_alias))) continue;
    // Inside a test: the test-by-test comparison judges it (platform conditions, failing tests).
    if (std::any_of(c.after.tests.begin(), c.after.tests.end(), [&](const TestUnit& t) { return within(t, n); })) continue;
    // A platform condition around it: an `if` before the call on its line, or the nearest less
    // indented line above it being such an `if` (the skip's own message naming a platform is not one).
    static const std::regex cond_re(R"(^\s*(?:\}\s*)?(?:if|elif|else\s+if|unless)\b)");
    const std::string before_call = l.substr(0, static_cast<std::size_t>(call.position(0)));
    // A marker that carries its condition (`skipif(sys.platform ...)`, `{ skip: isWindows }`).
    const std::string rest = l.substr(static_cast<std::size_t>(call.position(0)));
    const bool carries = contains(call.str(), ":") || contains(rest, "skipif") || contains(rest, "skipIf") || contains(rest, "skipUnless");
    bool conditional = (contains(before_call, "if") && platform_condition(before_call)) || (carries && platform_condition(rest));
    const std::size_t indent = l.find_first_not_of(" \t");
    for (int k = n - 2; !conditional && k >= 0 && indent != std::string::npos && indent > 0; --k) {
      const std::string& above = lines[static_cast<std::size_t>(k)];
      const std::size_t ind = above.find_first_not_of(" \t");
      if (ind == std::string::npos || ind >= indent) continue;
      const std::string head = above.substr(0, kConditionChars);
      conditional = std::regex_search(head, cond_re) && platform_condition(head);
      break;
    }
    if (conditional) continue;
    auto helper = std::find_if(c.after.helpers.begin(), c.after.helpers.end(), [&](const TestUnit& h) { return within(h, n); });
    const std::string where = helper != c.after.helpers.end() ? "the helper " + helper->name : "module-level code";
    out.push_back({"skip_added", c.file.path, n,
                   "a skip call added outside any test (" + where + (c.test_file ? "" : " of a module the tests import") +
                       "): every test that reaches it is skipped: " + quote(l)});
    return;
  }
}

void assertion_patch_rules(const RuleContext& c, Findings& out) {
  if (!c.file.after || (c.lang != Lang::python && !is_js(c.lang))) return;
  // Patching the assertion library itself: what no production code or honest helper does, in any
  // module (a helper the tests import, the code under test, a plugin).
  static const std::regex py(
      R"(\b(?:unittest\s*\.\s*)?(?:TestCase|case\s*\.\s*TestCase)\s*\.\s*(?:assert\w*|fail\w*)\s*=[^=])"
      R"(|\bsetattr\s*\(\s*(?:unittest\s*\.\s*)?TestCase\s*,)"
      R"(|\b(?:numpy\s*\.\s*testing|np\s*\.\s*testing|pytest)\s*\.\s*\w+\s*=[^=])"
      R"(|\b(?!self\b|cls\b)\w+\s*\.\s*(?:assert[A-Z_]\w*|fail[A-Z]\w*|failureException)\s*=[^=])");
  // Builtins the checks themselves use (`assert len(x) == 3`); tests honestly stub input, open, print
  // and __import__ (a missing module).
  static const std::regex builtins(
      R"(\b(?:builtins|__builtins__)\s*(?:\.\s*(\w+)\s*=[^=]|\[\s*['"](\w+)['"]\s*\]\s*=[^=])|\bsetattr\s*\(\s*(?:builtins|__builtins__)\s*,\s*['"](\w+)['"])");
  auto patched_builtin = [](const std::string& l) {
    std::smatch m;
    if (!std::regex_search(l, m, builtins)) return false;
    const std::string name = m[1].matched ? m[1].str() : m[2].matched ? m[2].str() : m[3].str();
    static const std::set<std::string> kStubbed = {"input", "open", "print", "__import__", "_", "exit", "quit", "help"};
    return !kStubbed.count(name);
  };
  static const std::regex js(
      R"(\b(?:assert|expect|chai|should)\s*(?:\.\s*[\w$]+\s*)*\.\s*[\w$]+\s*=[^=>])"
      R"(|\brequire\s*\(\s*['"](?:node:)?assert(?:/strict)?['"]\s*\)\s*(?:\.\s*[\w$]+\s*)+=[^=>])"
      R"(|\bObject\s*\.\s*(?:defineProperty|assign|setPrototypeOf)\s*\(\s*(?:assert|expect|chai)\b)");
  // JS names bound to an assertion library (`const a = require('node:assert')`, `import * as a from 'chai'`).
  std::string js_aliases;
  if (is_js(c.lang)) {
    static const std::regex bind(
        R"((?:const|let|var)\s+([\w$]+)\s*=\s*require\(\s*['"](?:node:)?(?:assert(?:/strict)?|chai|should|expect)['"]\s*\))"
        R"(|import\s+(?:\*\s+as\s+)?([\w$]+)\s+from\s+['"](?:node:)?(?:assert(?:/strict)?|chai|should|expect)['"])");
    const std::string& text = *c.file.after;
    for (std::sregex_iterator it(text.begin(), text.end(), bind), end; it != end; ++it) {
      const std::string name = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
      if (name.find('$') == std::string::npos) js_aliases += (js_aliases.empty() ? "" : "|") + name;
    }
  }
  const std::regex js_alias(js_aliases.empty() ? std::string("(?!)")
                                               : "\\b(?:" + js_aliases + ")\\s*(?:\\.\\s*[\\w$]+\\s*)*\\.\\s*[\\w$]+\\s*=[^=>]"
                                                 "|\\bObject\\s*\\.\\s*(?:defineProperty|assign|setPrototypeOf)\\s*\\(\\s*(?:" + js_aliases + ")\\b");
  for (const auto& [n, full] : added_lines(c.file.before, c.file.after)) {
    const std::string l = full.substr(0, kRegexLineChars);
    const bool hit = c.lang == Lang::python ? std::regex_search(l, py) || patched_builtin(l)
                                            : std::regex_search(l, js) || std::regex_search(l, js_alias);
    if (!hit) continue;
    out.push_back({"assertion_replaced", c.file.path, n,
                   "the assertion library is patched" + std::string(c.test_file ? "" : " from a module outside the tests") +
                       ": every check that uses it stops checking: " + quote(l)});
    return;
  }
}

}  // namespace flowagent::integrity
