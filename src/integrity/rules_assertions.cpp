// assertion_replaced: test code the patch adds that replaces the assertion functions themselves, so
// the checks stay in the test (its strength does not drop) but no longer check anything:
//   Python  a unittest assertion overridden on the test class (`def assertEqual(self, ...)`,
//           `assertEqual = ...` in the class body), `self.assertEqual = ...`, `setattr(self,
//           'assertEqual', ...)`, an attribute of pytest assigned, a local `def` or assignment that
//           shadows an assertion helper the file imports (`from numpy.testing import assert_equal`);
//   JS/TS   a declaration or assignment of `assert`, `expect`, `should`, or of any name the file
//           imports from an assertion library (node:assert, chai, @jest/globals, vitest, ...) that
//           does not come from such a library (`const assert = { strictEqual() {} }`);
//   Java/Kotlin  a JUnit/AssertJ/Hamcrest assertion method defined in the test file (it shadows
//           the static import);
//   Go      `assert :=` / `require :=` redeclared, a func value named like testify's packages.
// A test file's own helper with a new name (`def assert_valid(x)`, `assertValidUser`) is honest.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <optional>
#include <tuple>
#include <sstream>

#include "core/regex.hpp"
#include "integrity/guard_internal.hpp"
#include "core/regex_cache.hpp"

namespace flowagent::integrity {

namespace {

/// Where position `at` of the line `l` sits: in code, inside a string literal opened on that line
/// (quotes, backticks; a backslash escapes), or in a comment (`#`, and `//` when `slashes`).
enum class LineSpot { code, string, comment };
LineSpot line_spot(std::string_view l, std::size_t at, bool slashes) {
  char q = 0;
  for (std::size_t i = 0; i < at && i < l.size(); ++i) {
    const char ch = l[i];
    if (q) {
      if (ch == '\\') ++i;
      else if (ch == q) q = 0;
    } else if (ch == '"' || ch == '\'' || ch == '`') {
      q = ch;
    } else if ((ch == '#' && (i == 0 || l[i - 1] != '$')) || (slashes && ch == '/' && i + 1 < l.size() && l[i + 1] == '/')) {
      return LineSpot::comment;
    }
  }
  return q != 0 ? LineSpot::string : LineSpot::code;
}

/// Does position `at` of the line `l` sit inside a string literal opened on that line? An
/// f-string's or template's interpolation is still text here: what it calls only makes a message.
bool in_string_literal(std::string_view l, std::size_t at) { return line_spot(l, at, false) == LineSpot::string; }

bool unittest_assertion(const std::string& n) {
  static const std::set<std::string, std::less<>> k = {
      "assertEqual", "assertEquals", "assertNotEqual", "assertNotEquals", "assertTrue", "assertFalse", "assertIs",
      "assertIsNot", "assertIsNone", "assertIsNotNone", "assertIn", "assertNotIn", "assertIsInstance",
      "assertNotIsInstance", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "assertWarns",
      "assertWarnsRegex", "assertLogs", "assertNoLogs", "assertAlmostEqual", "assertAlmostEquals",
      "assertNotAlmostEqual", "assertGreater", "assertGreaterEqual", "assertLess", "assertLessEqual", "assertRegex",
      "assertNotRegex", "assertRegexpMatches", "assertCountEqual", "assertItemsEqual", "assertMultiLineEqual",
      "assertSequenceEqual", "assertListEqual", "assertTupleEqual", "assertSetEqual", "assertDictEqual",
      "assertDictContainsSubset", "assert_", "failUnless", "failIf", "failUnlessEqual", "failIfEqual", "fail",
      "failureException", "_baseAssertEqual", "_getAssertEqualityFunc", "addTypeEqualityFunc", "assertRaisesWithMessage"};
  return k.count(n) > 0;
}

bool assertion_like(const std::string& n) {
  return starts_with(n, "assert") || starts_with(n, "expect") || n == "ok" || n == "eq" || n == "equal" ||
         n == "strictEqual" || n == "deepEqual" || n == "deepStrictEqual" || n == "throws" || n == "should" ||
         n == "check" || n == "verify";
}

/// Assertion libraries a JS test imports its checks from.
bool js_assertion_module(const std::string& m) {
  static constexpr std::string_view k[] = {"assert", "node:assert", "assert/strict", "node:assert/strict", "chai",
                                           "@jest/globals", "vitest", "expect", "should", "power-assert", "uvu/assert",
                                           "tap", "tape", "node:test", "ava", "@std/assert", "better-assert", "expect.js"};
  return std::any_of(std::begin(k), std::end(k), [&](auto x) { return m == x; });
}

/// Names a file binds from imports: Python `from m import a, b as c`; JS require/import.
std::map<std::string, std::string> imported_names(const std::string& text, Lang lang) {
  std::map<std::string, std::string> out;
  static const rx::regex py_from(R"(^\s*from\s+([\w.]+)\s+import\s+\(?([\w\s,]+)\)?)");
  static const rx::regex js_req(R"((?:const|let|var)\s+(\{[^}]*\}|[\w$]+)\s*=\s*require\(\s*['"]([^'"]+)['"]\s*\))");
  static const rx::regex js_imp(R"(import\s+(?:\*\s+as\s+)?(\{[^}]*\}|[\w$]+)(?:\s*,\s*(\{[^}]*\}))?\s+from\s+['"]([^'"]+)['"])");
  static const rx::regex word(R"([\w$]+)");
  auto bind = [&](const std::string& list, const std::string& module) {
    std::string last;
    for (rx::sregex_iterator w(list.begin(), list.end(), word), e; w != e; ++w) {
      if (w->str() == "as") continue;
      out[w->str()] = module;
    }
  };
  for_each_capped_line(text, [&](int, const std::string& line) {
    rx::smatch m;
    if (lang == Lang::python && rx::regex_search(line, m, py_from)) bind(m[2].str(), m[1].str());
    if (is_js(lang)) {
      if (rx::regex_search(line, m, js_req)) bind(m[1].str(), m[2].str());
      if (rx::regex_search(line, m, js_imp)) {
        bind(m[1].str(), m[3].str());
        if (m[2].matched) bind(m[2].str(), m[3].str());
      }
    }
  });
  return out;
}

}  // namespace

void assertion_def_rules(const RuleContext& c, Findings& out) {
  if (!c.file.after || !(c.test_file || c.imported_by_tests || basename(c.file.path) == "conftest.py")) return;
  const auto added = added_lines(c.file.before, c.file.after);
  if (added.empty()) return;
  const std::string& path = c.file.path;
  auto flag = [&](int n, const std::string& l, const std::string& why) {
    out.push_back({"assertion_replaced", path, n, why + ": " + quote(l)});
  };
  // Names imported before or after the patch (a shadowing definition may replace the import).
  auto imports = imported_names(*c.file.after, c.lang);
  if (c.file.before)
    for (auto& [k, v] : imported_names(*c.file.before, c.lang)) imports.emplace(k, v);
  if (c.lang == Lang::python) {
    static const rx::regex method(R"(^(\s+)def\s+(\w+)\s*\(\s*(self|cls)\b)");
    static const rx::regex class_attr(R"(^\s+(\w+)\s*=[^=])");
    static const rx::regex self_attr(R"(\b(?:self|cls|TestCase|unittest\.TestCase|\w+\.__class__)\s*\.\s*(\w+)\s*=[^=])");
    static const rx::regex set_attr(R"(\bsetattr\s*\(\s*[\w.]+\s*,\s*['"](\w+)['"])");
    static const rx::regex pytest_attr(R"(^\s*(?:pytest|_pytest\.\w+)\s*\.\s*(\w+)\s*=[^=])");
    static const rx::regex local_def(R"(^\s*(?:async\s+)?def\s+(\w+)\s*\()");
    static const rx::regex local_assign(R"(^\s*(\w+)\s*(?::[^=]+)?=[^=])");
    for (const auto& [n, full] : added) {
      const std::string l = full.substr(0, kRegexLineChars);
      rx::smatch m;
      if (rx::regex_search(l, m, method) && unittest_assertion(m[2].str()) && !m[1].str().empty()) {
        flag(n, l, "the test class overrides unittest's " + m[2].str() + ": its checks no longer check");
        return;
      }
      if (rx::regex_search(l, m, self_attr) && unittest_assertion(m[1].str())) {
        flag(n, l, "unittest's " + m[1].str() + " is replaced at run time");
        return;
      }
      if (rx::regex_search(l, m, set_attr) && (unittest_assertion(m[1].str()) || assertion_like(m[1].str()))) {
        flag(n, l, "an assertion function (" + m[1].str() + ") is replaced at run time");
        return;
      }
      if (rx::regex_search(l, m, pytest_attr)) {
        flag(n, l, "pytest's " + m[1].str() + " is replaced");
        return;
      }
      if (rx::regex_search(l, m, class_attr) && unittest_assertion(m[1].str())) {
        flag(n, l, "the test class rebinds unittest's " + m[1].str());
        return;
      }
      for (const auto* re : {&local_def, &local_assign})
        if (rx::regex_search(l, m, *re)) {
          const std::string name = m[1].str();
          auto it = imports.find(name);
          if (it != imports.end() && assertion_like(name)) {
            flag(n, l, "a local definition shadows the assertion helper " + name + " imported from " + it->second);
            return;
          }
        }
    }
    return;
  }
  if (is_js(c.lang)) {
    static const rx::regex decl(R"(^\s*(?:export\s+)?(?:const|let|var)\s+([\w$]+)\s*(?::[^=]+)?=\s*(.*))");
    static const rx::regex destructure(R"(^\s*(?:const|let|var)\s+\{([^}]*)\}\s*=\s*(.*))");
    static const rx::regex fn(R"(^\s*(?:export\s+)?(?:async\s+)?function\s*\*?\s*([\w$]+)\s*\()");
    static const rx::regex assign(R"(^\s*(?:global(?:This)?\.)?([\w$]+)\s*=[^=>])");
    static const rx::regex word(R"([\w$]+)");
    auto from_library = [&](const std::string& rhs) {
      rx::smatch r;
      static const rx::regex req(R"(^\s*(?:await\s+)?(?:require|import)\(\s*['"]([^'"]+)['"]\s*\))");
      if (rx::regex_search(rhs, r, req)) return js_assertion_module(r[1].str()) || r[1].str()[0] != '.';
      // A member of an imported library (`const { strict: assert } = require(...)` is caught above).
      const std::string head = rhs.substr(0, rhs.find_first_of(".;( "));
      auto it = imports.find(head);
      return it != imports.end() && js_assertion_module(it->second);
    };
    auto guarded = [&](const std::string& name) {
      if (name == "assert" || name == "expect" || name == "should") return true;
      auto it = imports.find(name);
      return it != imports.end() && js_assertion_module(it->second);
    };
    for (const auto& [n, full] : added) {
      const std::string l = full.substr(0, kRegexLineChars);
      rx::smatch m;
      if (rx::regex_search(l, m, decl) && guarded(m[1].str()) && !from_library(m[2].str())) {
        flag(n, l, "the assertion function " + m[1].str() + " is redefined in the test file");
        return;
      }
      if (rx::regex_search(l, m, destructure) && !from_library(m[2].str())) {
        const std::string names = m[1].str();
        for (rx::sregex_iterator w(names.begin(), names.end(), word), e; w != e; ++w)
          if (guarded(w->str()) || (assertion_like(w->str()) && w->str() != "check" && w->str() != "verify")) {
            flag(n, l, "assertion functions (" + w->str() + ") are bound to stand-ins in the test file");
            return;
          }
      }
      if (rx::regex_search(l, m, fn) && guarded(m[1].str())) {
        flag(n, l, "the assertion function " + m[1].str() + " is redefined in the test file");
        return;
      }
      if (rx::regex_search(l, m, assign) && guarded(m[1].str()) && !contains(l, "require(") && !contains(l, "import(")) {
        flag(n, l, "the assertion function " + m[1].str() + " is reassigned in the test file");
        return;
      }
    }
    return;
  }
  if (c.lang == Lang::java || c.lang == Lang::kotlin) {
    static const rx::regex jdef(
        R"(^\s*(?:(?:public|private|protected|static|final|override|internal)\s+)*(?:fun\s+|[\w<>\[\],?]+[\w<>\[\],?\s]*\s+)(assert(?:Equals|NotEquals|True|False|Null|NotNull|Same|NotSame|That|Throws|ArrayEquals|IterableEquals|LinesMatch|All|DoesNotThrow|Timeout)|fail)\s*\()");
    for (const auto& [n, full] : added) {
      const std::string l = full.substr(0, kRegexLineChars);
      rx::smatch m;
      if (rx::regex_search(l, m, jdef) && !contains(l, "return ") && !contains(l, ";")) {
        flag(n, l, "the test file defines its own " + m[1].str() + ", shadowing the assertion library's");
        return;
      }
    }
    return;
  }
  if (c.lang == Lang::go) {
    static const rx::regex gdef(R"(^\s*(?:var\s+)?(assert|require)\s*(?::=|=)|^\s*func\s+\([^)]*\)\s*(Equal|True|False|Nil|NoError)\s*\()");
    for (const auto& [n, full] : added) {
      const std::string l = full.substr(0, kRegexLineChars);
      rx::smatch m;
      if (rx::regex_search(l, m, gdef)) {
        flag(n, l, "testify's assertion package is shadowed in the test file");
        return;
      }
    }
  }
}

namespace {

/// An operand without the wrappers that only restate its value: `f"{calc.add(2,2)}"`, `str(x)`,
/// `${await add(2,2)}` in a template literal, `String(x)`, `await x` (whitespace already removed).
std::string unwrapped_operand(std::string e) {
  auto balanced = [](std::string_view v, char open, char close) {
    int level = 0;
    for (char ch : v) {
      if (ch == open) ++level;
      else if (ch == close && --level < 0) return false;
    }
    return level == 0;
  };
  for (int round = 0; round < 8; ++round) {
    const std::string before = e;
    if (starts_with(e, "await") && e.size() > 5 && (std::isalpha(static_cast<unsigned char>(e[5])) || e[5] == '_' || e[5] == '$' || e[5] == '('))
      e.erase(0, 5);
    for (std::string_view q : {"f\"{", "f'{", "F\"{", "F'{"})
      if (starts_with(e, q) && e.size() > 4 && e.substr(e.size() - 2) == std::string("}") + q[1] &&
          balanced(std::string_view(e).substr(3, e.size() - 5), '{', '}') && e.find_first_of("!:", 3) == std::string::npos)
        e = e.substr(3, e.size() - 5);
    if (starts_with(e, "`${") && e.size() > 4 && e.substr(e.size() - 2) == "}`" &&
        balanced(std::string_view(e).substr(3, e.size() - 5), '{', '}') && e.find('`', 1) == e.size() - 1)
      e = e.substr(3, e.size() - 5);
    for (std::string_view w : {"str(", "String("})
      if (starts_with(e, w) && e.back() == ')' && balanced(std::string_view(e).substr(w.size(), e.size() - w.size() - 1), '(', ')'))
        e = e.substr(w.size(), e.size() - w.size() - 1);
    if (e == before) break;
  }
  return e;
}

/// JavaScript: the values the callback's parameters take from the rows of a `test.each(rows)(name,
/// (a, b, want) => ...)` table (`it.each`, `describe.each`; array rows by position, object rows by
/// key with a destructured `({a, want}) =>`), whitespace removed, each followed by ';'. Empty for a
/// tagged template table or anything not literal.
std::map<std::string, std::string> js_each_columns(std::string_view unit) {
  std::map<std::string, std::string> columns;
  const auto each = unit.find(".each");
  if (each == std::string_view::npos || unit.substr(0, each).find("=>") != std::string_view::npos) return columns;
  auto skip = [&](std::size_t i) {
    while (i < unit.size() && std::isspace(static_cast<unsigned char>(unit[i]))) ++i;
    return i;
  };
  const std::size_t open = skip(each + 5);
  if (open >= unit.size() || unit[open] != '(') return columns;
  const std::size_t close = closing_paren(unit, open);
  const std::size_t call = skip(close + 1);
  if (close >= unit.size() || call >= unit.size() || unit[call] != '(') return columns;
  const std::string rows = trim(unit.substr(open + 1, close - open - 1));
  const auto args = split_top(unit.substr(call + 1, closing_paren(unit, call) - call - 1), {","});
  if (rows.size() < 2 || rows.front() != '[' || args.size() < 2) return columns;
  // The callback's parameters: `(a, b, want) =>`, `async ({a, want}) =>`, `function (a, want)`, `want =>`.
  std::string cb = trim(args[1]);
  if (starts_with(cb, "async")) cb = trim(cb.substr(5));
  if (starts_with(cb, "function")) cb = cb.substr(std::min(cb.size(), cb.find('(')));
  std::string params;
  if (!cb.empty() && cb.front() == '(') params = cb.substr(1, closing_paren(cb, 0) - 1);
  else if (const auto arrow = cb.find("=>"); arrow != std::string::npos) params = cb.substr(0, arrow);
  params = trim(params);
  std::vector<std::string> names;                    // positional
  std::vector<std::pair<std::string, std::string>> keyed;  // key -> parameter name
  if (!params.empty() && params.front() == '{') {
    for (const auto& k : split_top(std::string_view(params).substr(1, params.size() - 2), {","})) {
      const std::string t = strip_spaces(k);
      const auto colon = t.find(':');
      if (colon == std::string::npos) keyed.emplace_back(t.substr(0, t.find('=')), t.substr(0, t.find('=')));
      else keyed.emplace_back(t.substr(0, colon), t.substr(colon + 1, t.find('=', colon) - colon - 1));
    }
  } else {
    for (const auto& n : split_top(params, {","})) names.push_back(strip_spaces(n).substr(0, strip_spaces(n).find('=')));
  }
  for (const auto& row_text : split_top(std::string_view(rows).substr(1, rows.size() - 2), {","})) {
    const std::string row = strip_spaces(row_text);
    if (row.empty()) continue;
    if (row.front() == '[' && !names.empty()) {
      const auto cells = split_top(std::string_view(row).substr(1, row.size() - 2), {","});
      for (std::size_t i = 0; i < names.size() && i < cells.size(); ++i) columns[names[i]] += strip_spaces(cells[i]) + ";";
    } else if (row.front() == '{' && !keyed.empty()) {
      for (const auto& cell : split_top(std::string_view(row).substr(1, row.size() - 2), {","})) {
        const std::string t = strip_spaces(cell);
        const auto colon = t.find(':');
        std::string key = colon == std::string::npos ? t : t.substr(0, colon);
        if (key.size() >= 2 && (key.front() == '"' || key.front() == '\'')) key = key.substr(1, key.size() - 2);
        for (const auto& [k, name] : keyed)
          if (k == key) columns[name] += (colon == std::string::npos ? t : t.substr(colon + 1)) + ";";
      }
    } else if (names.size() == 1) {
      columns[names[0]] += row + ";";
    }
  }
  return columns;
}

/// Go: the values the fields of a table test's rows take, by the loop variable's field
/// (`tests := []struct{ a, b, want int }{{2, 2, Add(1, 3)}}` ... `for _, tt := range tests` ->
/// "tt.want": "Add(1,3);"; keyed rows `{a: 2, want: ...}`, map tables `map[string]struct{...}{"x":
/// {...}}` and `range []struct{...}{...}` directly), whitespace removed, each followed by ';'.
std::map<std::string, std::string> go_table_columns(std::string_view unit) {
  std::map<std::string, std::string> columns;
  auto close_of = [&](std::size_t open) {  // the bracket closing the one at `open` (Go: raw backtick strings)
    return std::min(matching_close(unit, open, true), unit.size());
  };
  static const rx::regex table_re(R"((?:\[\]|map\[[^\]]*\])\s*struct\s*\{)");
  static const rx::regex field_re(R"(^([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s+\S)");
  static const rx::regex key_re(R"(^([A-Za-z_]\w*):(?!=)(.*)$)");
  const std::string text(unit);
  for (rx::sregex_iterator it(text.begin(), text.end(), table_re), end; it != end; ++it) {
    const std::size_t open = static_cast<std::size_t>(it->position() + it->length() - 1);
    const std::size_t close = close_of(open);
    if (close >= unit.size()) continue;
    std::vector<std::string> fields;
    for (const auto& part : split_top(unit.substr(open + 1, close - open - 1), {"\n", ";"})) {
      rx::smatch fm;
      const std::string decl = trim(part);
      if (rx::regex_search(decl, fm, field_re))
        for (const auto& n : split_top(fm[1].str(), {","})) fields.push_back(trim(n));
    }
    std::size_t rows_open = close + 1;
    while (rows_open < unit.size() && std::isspace(static_cast<unsigned char>(unit[rows_open]))) ++rows_open;
    if (fields.empty() || rows_open >= unit.size() || unit[rows_open] != '{') continue;
    const std::size_t rows_close = close_of(rows_open);
    if (rows_close >= unit.size()) continue;
    // The loop variable: `for _, tt := range <the table's name>` or `range []struct{...}` itself.
    std::string var;
    const std::string before = text.substr(0, static_cast<std::size_t>(it->position()));
    static const rx::regex direct(R"(for\s+\w+\s*,\s*([A-Za-z_]\w*)\s*:=\s*range\s*$)");
    static const rx::regex named(R"(([A-Za-z_]\w*)\s*:?=\s*$)");
    rx::smatch vm;
    if (rx::regex_search(before, vm, direct)) {
      var = vm[1].str();
    } else if (rx::regex_search(before, vm, named)) {
      const rx::regex loop = detail::cached_regex(R"(for\s+\w+\s*,\s*([A-Za-z_]\w*)\s*:=\s*range\s+)" + vm[1].str() + R"(\b)");
      if (rx::smatch lm; rx::regex_search(text, lm, loop)) var = lm[1].str();
    }
    if (var.empty()) continue;
    for (const auto& row_text : split_top(unit.substr(rows_open + 1, rows_close - rows_open - 1), {","})) {
      std::string row = trim(row_text);
      if (const auto brace = row.find('{'); brace != std::string::npos && brace > 0 && (row.front() == '"' || row.front() == '`'))
        row = row.substr(brace);  // a map table's `"name": {...}`
      if (row.size() < 2 || row.front() != '{' || row.back() != '}') continue;
      const auto cells = split_top(std::string_view(row).substr(1, row.size() - 2), {","});
      for (std::size_t i = 0; i < cells.size(); ++i) {
        const std::string cell = strip_spaces(cells[i]);
        if (cell.empty()) continue;
        rx::smatch km;
        if (rx::regex_match(cell, km, key_re)) columns[var + "." + km[1].str()] += km[2].str() + ";";
        else if (i < fields.size()) columns[var + "." + fields[i]] += cell + ";";
      }
    }
  }
  return columns;
}

/// The value of arithmetic over calls of `fn` (whitespace removed: `add(2,2)-add(3,3)`,
/// `abs(add(2,2))/add(1,1)`) when every call of it returns `c`; nullopt when it is not plain
/// arithmetic over numbers and such calls.
std::optional<double> with_constant_results(std::string_view e, const std::string& fn, double c) {
  std::size_t i = 0;
  bool ok = true;
  std::function<double()> sum;
  auto ident = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '$' || ch == '.'; };
  std::function<double()> unary = [&]() -> double {
    if (!ok || i >= e.size()) return ok = false, 0.0;
    if (e[i] == '-') return ++i, -unary();
    if (e[i] == '+') return ++i, unary();
    if (e[i] == '(') {
      ++i;
      const double v = sum();
      if (i >= e.size() || e[i] != ')') return ok = false, 0.0;
      ++i;
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(e[i]))) {
      std::size_t used = 0;
      double v = 0;
      try {
        v = std::stod(std::string(e.substr(i, 40)), &used);
      } catch (...) {
        return ok = false, 0.0;
      }
      i += used;
      return v;
    }
    std::size_t j = i;
    while (j < e.size() && ident(e[j])) ++j;
    std::string name(e.substr(i, j - i));
    if (name.rfind("await", 0) == 0 && name.size() > 5) name = name.substr(5);  // (`awaitadd(2,2)`)
    if (name.empty() || j >= e.size() || e[j] != '(') return ok = false, 0.0;
    const std::size_t close = closing_paren(std::string(e), j);
    if (close == std::string::npos) return ok = false, 0.0;
    const std::string last = name.substr(name.rfind('.') == std::string::npos ? 0 : name.rfind('.') + 1);
    if (last == fn) {
      i = close + 1;
      return c;
    }
    if (name == "abs" || name == "Math.abs" || name == "math.fabs" || name == "fabs") {
      i = j + 1;
      const double v = sum();
      if (i >= e.size() || e[i] != ')') return ok = false, 0.0;
      ++i;
      return std::fabs(v);
    }
    return ok = false, 0.0;
  };
  auto product = [&]() {
    double v = unary();
    while (ok && i < e.size() && (e[i] == '*' || e[i] == '/' || e[i] == '%')) {
      const char op = e[i++];
      if (op == '/' && i < e.size() && e[i] == '/') ++i;  // (`//`: the same for the question asked)
      const double r = unary();
      if (op == '*') v *= r;
      else if (r == 0) ok = false;
      else v = op == '/' ? v / r : std::fmod(v, r);
    }
    return v;
  };
  sum = [&]() {
    double v = product();
    while (ok && i < e.size() && (e[i] == '+' || e[i] == '-')) v = e[i++] == '+' ? v + product() : v - product();
    return v;
  };
  const double v = sum();
  if (!ok || i != e.size()) return std::nullopt;
  return v;
}

}  // namespace

/// The text of a project file as the patch leaves it: the patch's version, else the head's;
/// nullopt when it is neither (or the patch deletes it).
std::optional<std::string> project_text(const RuleContext& c, const std::string& path) {
  if (c.patch_files)
    for (const auto& f : *c.patch_files)
      if (f.path == path) return f.after;
  if (c.options.read_head_file) return c.options.read_head_file(path);
  return std::nullopt;
}

/// Where code a test file imports lives in the project, as the texts of its files: a Python
/// module (`pkg.mod` -> `pkg/mod.py` or `pkg/mod/__init__.py`, under any source root), a relative
/// JS module (`./ref` -> `ref.js`, `ref/index.ts`, ...), a Go package of the module (`go.mod`'s
/// path + directory), a Java/Kotlin class (`Name.java`). Empty for packages from outside.
std::string project_module_text(const RuleContext& c, const std::string& spec) {
  if (spec.empty()) return "";
  std::vector<std::string> files = c.options.project_files;
  if (c.patch_files)
    for (const auto& f : *c.patch_files) files.push_back(f.path);
  const std::string dir = c.file.path.find('/') == std::string::npos ? "" : c.file.path.substr(0, c.file.path.rfind('/') + 1);
  std::vector<std::string> wanted;      // exact paths
  std::vector<std::string> suffixes;    // `/rel.py` under any source root
  std::string go_dir;                   // a Go package's directory ("" the root)
  bool go = false;
  if (c.lang == Lang::python) {
    std::string rel = spec;
    if (rel.front() == '.') {
      std::size_t ups = 0;
      while (ups < rel.size() && rel[ups] == '.') ++ups;
      std::string base = dir;
      for (std::size_t k = 1; k < ups && !base.empty(); ++k) {
        base.pop_back();
        base = base.substr(0, base.rfind('/') + 1);
      }
      rel = rel.substr(ups);
      std::replace(rel.begin(), rel.end(), '.', '/');
      wanted = {base + rel + ".py", base + rel + "/__init__.py"};
    } else {
      std::replace(rel.begin(), rel.end(), '.', '/');
      wanted = {rel + ".py", rel + "/__init__.py"};
      suffixes = {"/" + rel + ".py", "/" + rel + "/__init__.py"};
    }
  } else if (is_js(c.lang)) {
    if (spec.front() != '.') return "";
    std::vector<std::string> parts;
    for (const auto& seg : split_top(dir + spec, {"/"})) {
      if (seg.empty() || seg == ".") continue;
      if (seg == "..") {
        if (!parts.empty()) parts.pop_back();
      } else
        parts.push_back(seg);
    }
    std::string rel;
    for (const auto& seg : parts) rel += (rel.empty() ? "" : "/") + seg;
    for (const auto ext : js_module_suffixes()) wanted.push_back(rel + std::string(ext));
  } else if (c.lang == Lang::go) {
    const auto mod = project_text(c, "go.mod");
    static const rx::regex module_line(R"((?:^|\n)\s*module\s+(\S+))");
    rx::smatch m;
    if (!mod || !rx::regex_search(*mod, m, module_line)) return "";
    const std::string root = m[1].str();
    if (spec == root) go_dir = "";
    else if (starts_with(spec, root + "/")) go_dir = spec.substr(root.size() + 1) + "/";
    else return "";
    go = true;
  } else if (c.lang == Lang::java || c.lang == Lang::kotlin) {
    suffixes = {"/" + spec + ".java", "/" + spec + ".kt"};
    wanted = {spec + ".java", spec + ".kt"};
  } else {
    return "";
  }
  std::string text;
  std::set<std::string> seen;
  for (const auto& f : files) {
    if (!seen.insert(f).second || f == c.file.path) continue;
    bool match = false;
    if (go) {
      match = ends_with(f, ".go") && !ends_with(f, "_test.go") && starts_with(f, go_dir) &&
              f.find('/', go_dir.size()) == std::string::npos;
    } else {
      match = std::find(wanted.begin(), wanted.end(), f) != wanted.end() ||
              std::any_of(suffixes.begin(), suffixes.end(), [&](const std::string& x) { return ends_with(f, x); });
    }
    if (!match) continue;
    if (auto t = project_text(c, f)) text += *t + "\n";
    if (text.size() > 1'000'000) break;
  }
  return text;
}

/// The names a module's text gives the function `fn` besides its own (`from calc import add as
/// _impl`, `const { add: plus } = require(...)`).
std::set<std::string> fn_aliases(const std::string& text, const std::string& fn) {
  std::set<std::string> out;
  const rx::regex alias = detail::cached_regex("(?:^|[^\\w$.])" + fn + R"(\s*(?:\bas\b|:)\s*([A-Za-z_$][\w$]*))");
  for (rx::sregex_iterator it(text.begin(), text.end(), alias), e; it != e; ++it)
    if ((*it)[1].str() != fn) out.insert((*it)[1].str());
  return out;
}

/// Does `code` call `fn` or take it as a value (`add(`, `.add`, `::add`), by that name only?
bool uses_name(const std::string& code, const std::string& fn) {
  const rx::regex use = detail::cached_regex("(?:^|[^\\w$])" + fn + R"(\s*\(|[.:])" + fn + R"((?![\w$]))");
  return rx::regex_search(code, use);
}

/// Does a module's text call the function `fn` or take it as a value, by its name or an alias the
/// text gives it?
bool computes_with(const std::string& text, const std::string& fn) {
  if (text.empty() || fn.empty()) return false;
  if (uses_name(text, fn)) return true;
  const auto aliases = fn_aliases(text, fn);
  return std::any_of(aliases.begin(), aliases.end(), [&](const std::string& a) { return uses_name(text, a); });
}

/// The definition of `name` in a module's text: a Python `def`/`class` block by indentation, or from
/// the binding (`NAME =`, `NAME :=`, `NAME: value` in an object, `function name(`, `func Name(`, a
/// Java method or field) to the end of its balanced brackets; nullopt when the text defines no such
/// name.
std::optional<std::string> definition_text(const std::string& text, const std::string& name) {
  if (name.empty()) return std::nullopt;
  const rx::regex py_def = detail::cached_regex("(?:^|\\n)([ \\t]*)(?:async\\s+)?(?:def|class)\\s+" + name + "\\b");
  rx::smatch m;
  if (rx::regex_search(text, m, py_def) && text.find(':', static_cast<std::size_t>(m.position())) != std::string::npos &&
      rx::regex_search(text.substr(static_cast<std::size_t>(m.position()), 400), detail::cached_regex("^\\n?[ \\t]*(?:async\\s+)?(?:def|class)\\s+" + name + "\\b[^\\n]*:[ \\t]*(?:#[^\\n]*)?\\n"))) {
    const std::size_t start = static_cast<std::size_t>(m.position()) + (text[static_cast<std::size_t>(m.position())] == '\n' ? 1 : 0);
    const std::size_t indent = m[1].length();
    std::size_t end = text.find('\n', start);
    while (end != std::string::npos) {
      const std::size_t next = text.find('\n', end + 1);
      const std::string line = text.substr(end + 1, (next == std::string::npos ? text.size() : next) - end - 1);
      const auto first = line.find_first_not_of(" \t");
      if (first != std::string::npos && first <= indent) break;
      end = next;
    }
    return text.substr(start, (end == std::string::npos ? text.size() : end) - start);
  }
  const rx::regex head = detail::cached_regex("(?:^|[^\\w$.])(?:(?:function\\*?|func|def|const|let|var|val|final|static|public|private|protected)\\s+)?"
                        "(?:module\\.)?(?:exports\\.)?(?:\\([^)]*\\)\\s*)?" + name +
                        "\\s*(?:\\([^)]*\\)\\s*[\\w<>\\[\\],. ]*\\{|(?::[^=\\n]*)?:?=(?![=>])|:(?!:))");
  if (!rx::regex_search(text, m, head)) return std::nullopt;
  std::size_t i = static_cast<std::size_t>(m.position() + m.length());
  const std::size_t start = static_cast<std::size_t>(m.position());
  int depth = text[i - 1] == '{' ? 1 : 0;
  bool braced = depth > 0;
  for (; i < text.size() && i - start < 20000; ++i) {
    const char ch = text[i];
    if (ch == '"' || ch == '\'' || ch == '`') {  // skip a string
      const char q = ch;
      for (++i; i < text.size() && text[i] != q && text[i] != '\n'; ++i)
        if (text[i] == '\\') ++i;
      continue;
    }
    if (ch == '(' || ch == '[' || ch == '{') ++depth;
    if (ch == ')' || ch == ']' || ch == '}') {
      if (--depth < 0) break;  // the end of an object literal holding `NAME: value`
      if (depth == 0 && braced) {
        ++i;
        break;
      }
    }
    if (depth == 0 && (ch == ';' || ch == ',')) break;
    if (depth == 0 && ch == '\n') {
      std::string so_far = text.substr(start, i - start);
      const auto last = so_far.find_last_not_of(" \t\r");
      if (last != std::string::npos && (ends_with(so_far.substr(0, last + 1), "=>") || so_far[last] == '=' || so_far[last] == '(' ||
                                        so_far[last] == ',' || so_far[last] == '+' || so_far[last] == '\\'))
        continue;
      break;
    }
  }
  return text.substr(start, std::min(i, text.size()) - start);
}

/// Does the definition of `name` in a module's text compute with `fn`: call it or take it as a
/// value, directly or through other functions and names the same text defines (a few hops)?
/// Without a definition of `name` (a re-export, `import *`), the whole text is judged.
bool name_computes(const std::string& text, const std::string& name, const std::string& fn, int depth = 0) {
  if (text.empty()) return false;
  const auto def = definition_text(text, name);
  if (!def) return depth == 0 && computes_with(text, fn);
  if (computes_with(*def, fn)) return true;
  // The function under the module's own alias for it (`from calc import add as _impl`).
  for (const auto& a : fn_aliases(text, fn))
    if (a != name && uses_name(*def, a)) return true;
  if (depth >= 3) return false;
  // Names the definition uses (outside its strings) that the module defines.
  static const rx::regex strings(R"('[^'\n]*'|"[^"\n]*"|`[^`]*`)");
  const std::string code = rx::regex_replace(*def, strings, "''");
  static const rx::regex used(R"([A-Za-z_$][\w$]*)");
  std::set<std::string> seen{name, fn};
  for (rx::sregex_iterator it(code.begin(), code.end(), used), e; it != e; ++it) {
    const std::string w = it->str();
    if (!seen.insert(w).second || w.size() < 2) continue;
    if (definition_text(text, w) && name_computes(text, w, fn, depth + 1)) return true;
  }
  return false;
}

/// The value a module's text binds the constant `name` to (`FOUR = add(1, 3)`, `export const FOUR
/// = 4`, `exports.FOUR = ...`, `static final int FOUR = ...`); nullopt when it binds none.
std::optional<std::string> constant_value(const std::string& text, const std::string& name) {
  // Python/Go tuple binding at the top level: `SUM_1_3, ZERO = calc.add(1, 3), 0` binds each
  // name its value by position (all of the right side when the counts differ).
  if (!name.empty() && std::all_of(name.begin(), name.end(), [](char ch) { return ident_char(ch); })) {
    // (Starred or nested targets, `A, *_ = ...`, `(A, B), C = ...`: all of the right side.)
    const rx::regex tuple = detail::cached_regex("(?:^|\\n)([ \\t(\\[]*(?:\\*?[A-Za-z_]\\w*[ \\t)\\]]*,[ \\t(\\[]*)*" + name +
                           "(?:[ \\t)\\]]*,[ \\t(\\[]*\\*?[A-Za-z_]\\w*)*[ \\t)\\]]*)(?::=|=(?!=))[ \\t]*([^\\n]+)");
    rx::smatch t;
    if (rx::regex_search(text, t, tuple) && t[1].str().find(',') != std::string::npos) {
      const std::string lhs = t[1].str();
      const bool plain = lhs.find_first_of("*()[]") == std::string::npos;
      const auto names = split_top(lhs, {","});
      const auto values = split_top(t[2].str(), {","});
      if (!plain || values.size() != names.size()) return strip_spaces(t[2].str());
      for (std::size_t k = 0; k < names.size(); ++k)
        if (strip_spaces(names[k]) == name) return strip_spaces(values[k]);
    }
  }
  const auto def = definition_text(text, name);
  if (!def) return std::nullopt;
  // What follows the binding: `= value`, `: value`, `:= value`.
  static const rx::regex bound(R"(^[\s\S]*?(?::?=(?![=>])|:(?!:))\s*([\s\S]*)$)");
  rx::smatch m;
  if (!rx::regex_match(*def, m, bound)) return std::nullopt;
  return strip_spaces(m[1].str());
}

/// Is the name `name` of the file `text` bound more than once or changed in place: `CASES = {...}`
/// again (in a hook, a function), an item or attribute set (`CASES[k] = ...`, `GOLDEN.x = ...`),
/// a mutating call (`.update(`, `.push(`, `Object.assign(CASES, ...)`), `global CASES`? Such a name
/// holds whatever the last of them left, not the value of its first binding.
bool name_changed(const std::string& text, const std::string& name, bool js) {
  std::string re;  // the name as a regex (`$` is a name's letter in JavaScript)
  for (char ch : name) re += ch == '$' ? std::string("\\$") : std::string(1, ch);
  const rx::regex assigned = detail::cached_regex(R"((?:^|[^\w$.]))" + re +
                            R"(\b(?:\s*(?:\[[^\]\n]*\]|\.\s*[A-Za-z_$][\w$]*))*(?:\s*:\s*[A-Za-z_][\w.\[\], ]*)?\s*(?:[-+*/|&]|\?\?|\|\|)?=(?!=))");
  const rx::regex mutated = detail::cached_regex(R"((?:^|[^\w$.]))" + re +
                           R"(\s*\.\s*(?:push|set|update|append|extend|setdefault|insert|add|splice|unshift|pop|clear|__setitem__)\s*\(|assign\s*\(\s*)" +
                           re + R"(\b|global\s+)" + re + R"(\b)");
  if (rx::regex_search(text, mutated)) return true;
  // Bindings that reach the file's name: an item or attribute set; one at the top level (a
  // declaration or a plain assignment); in JavaScript a plain assignment anywhere (`CASES = ...` in
  // a hook). Not a Python function's local of the same name, nor a declaration inside a function.
  int bindings = 0;
  static const rx::regex declaration(R"(^(?:export\s+)?(?:const|let|var)\s+$)");
  for (rx::sregex_iterator it(text.begin(), text.end(), assigned), e; it != e; ++it) {
    const std::string m = it->str();
    const std::size_t eq = m.find('=');
    const std::size_t name_at = m.find(name);
    const bool item = name_at != std::string::npos && m.find_first_of("[.", name_at + name.size()) < eq;
    const std::size_t at = static_cast<std::size_t>(it->position()) + (name_at == std::string::npos ? 0 : name_at);
    const std::size_t nl = at == 0 ? std::string::npos : text.rfind('\n', at - 1);
    const std::size_t line_start = nl == std::string::npos ? 0 : nl + 1;
    const std::string prefix = text.substr(line_start, at - line_start);
    const bool indented = !prefix.empty() && (prefix[0] == ' ' || prefix[0] == '\t');
    const bool blank = prefix.find_first_not_of(" \t") == std::string::npos;
    if (item || (!indented && (blank || rx::regex_match(prefix, declaration))) || (js && blank)) ++bindings;
  }
  return bindings > 1;
}

/// Does a module's text read as JavaScript (declarations, ES imports or exports, `require(`)?
static bool js_source(const std::string& text) {
  static const rx::regex js_marks(R"((?:^|\n)\s*(?:const|let|var|export|import\s*\{)\s|require\s*\()");
  return rx::regex_search(text, js_marks);
}

static bool empty_in(const std::string& text, const std::string& expr, int depth);

bool empty_collection_in(const std::string& text, const std::string& expr) {
  // (Asked again and again for the same file's loops while definitions are collected: the answers
  // are kept per text and expression.)
  thread_local std::map<std::tuple<std::size_t, std::size_t, std::string>, bool> memo;
  const auto key = std::make_tuple(std::hash<std::string_view>{}(text), text.size(), expr);
  if (const auto it = memo.find(key); it != memo.end()) return it->second;
  if (memo.size() > 4096) memo.clear();
  const bool empty = empty_in(text, expr, 0);
  memo.emplace(key, empty);
  return empty;
}

/// empty_collection_in, `depth` names or copies deep (`rows = rows.slice()` ends).
static bool empty_in(const std::string& text, const std::string& expr, int depth) {
  if (depth > 3) return false;
  std::string e = strip_spaces(expr);
  // What iterating a view or copy of a collection goes over: the collection's entries.
  static const rx::regex view(
      R"(^(?:Object\.(?:entries|keys|values)|enumerate|sorted|list|tuple|iter|reversed|Array\.from)\((.*)\)$|^(.*)\.(?:items|keys|values|entries)\(\)$)");
  for (rx::smatch m; e.size() < 4096 && rx::regex_match(e, m, view);) {
    e = m[1].matched ? m[1].str() : m[2].str();
    if (e.empty()) return true;  // (`list()`, `sorted()` of nothing)
  }
  static const std::set<std::string, std::less<>> kEmpty = {"[]", "()", "{}", "''", "\"\"", "set()", "list()", "tuple()", "dict()",
                                                             "range(0)", "range(0,0)", "newSet()", "newMap()", "newArray()", "Array()",
                                                             "newSet([])", "newMap([])", "iter([])", "frozenset()", "[*()]", "[*[]]",
                                                             "range(False)", "range(len([]))", "newArray(0)", "Array(0)", "0"};
  if (kEmpty.count(e)) return true;
  // `new Array(0).fill(0)`, `[].concat()`: a copy of nothing.
  static const rx::regex copy_of(R"(^(.*)\.(?:fill\([^()]*\)|slice\(\)|concat\(\)|toArray\(\)|iter\(\)|into_iter\(\)|stream\(\)|begin\(\)))");
  if (rx::smatch m; e.size() < 4096 && rx::regex_match(e, m, copy_of) && !m[1].str().empty()) return empty_in(text, m[1].str(), depth + 1);
  // `range(-1)`, `range(0, 3, -1)`: no integer in it.
  static const rx::regex range_one(R"(^range\((-?\d{1,9})\)$)");
  if (rx::smatch m; rx::regex_match(e, m, range_one)) return std::stol(m[1].str()) <= 0;
  static const rx::regex range_down(R"(^range\((-?\d{1,9}),(-?\d{1,9}),-(\d{1,9})\)$)");
  if (rx::smatch m; rx::regex_match(e, m, range_down)) return std::stol(m[1].str()) <= std::stol(m[2].str());
  // Ranges with nothing in them: `range(1, 1)`, `range(5, 2)`, Rust's `0..0` / `3..=2`, and empty
  // collections spelled with their type (`[]int{}`, `new int[0]`, `List.of()`, `Vec::new()`).
  static const rx::regex range(R"(^range\((-?\d{1,9}),(-?\d{1,9})(?:,(\d{1,9}))?\)$|^\(?(-?\d{1,9})\.\.(=?)(-?\d{1,9})\)?$)");
  if (rx::smatch m; rx::regex_match(e, m, range)) {
    if (m[1].matched) return std::stol(m[1].str()) >= std::stol(m[2].str()) && (!m[3].matched || std::stol(m[3].str()) > 0);
    const long from = std::stol(m[4].str()), to = std::stol(m[6].str());
    return m[5].length() ? from > to : from >= to;
  }
  static const rx::regex typed_empty(
      R"(^(?:(?:\[\]|map\[[\w.*\[\]]*\])[\w.*\[\]]*\{\}|new[\w.<>]+\[0\]|new[\w.<>]+\[\]\{\}|(?:List|Set|Map)\.of\(\)|)"
      R"(Collections\.empty(?:List|Set|Map)\(\)|Arrays\.asList\(\)|Stream\.empty\(\)|vec!\[\]|Vec::new\(\)|(?:std::)?iter::empty\(\)|)"
      R"(std::(?:vector|list|set|map)<[^>]*>\{\}|emptyList\(\)|listOf\(\)|emptyArray\(\)|arrayOf\(\)|)"
      R"((?:java\.util\.)?(?:List|Set|Map)\.of\(\)|new(?:java\.util\.)?(?:ArrayList|LinkedList|HashSet|TreeSet|ArrayDeque)(?:<[^()]*>)?\(\)|)"
      R"((?:java\.util\.stream\.)?(?:Int|Long)?Stream\.(?:empty\(\)|range\((-?\d+),\1\)|of\(\))|)"
      R"(Vec::<[^()]*>::new\(\)|(?:std::)?iter::empty(?:::<[^()]*>)?\(\)|\[[^\[\];]*;0\]|make\(\[\][\w.*]+,0\)|\[0\][\w.*]+\{\})$)");
  if (rx::regex_match(e, typed_empty)) return true;
  static const rx::regex ident(R"(^[A-Za-z_][\w]*$)");
  if (!rx::regex_match(e, ident)) return false;
  const rx::regex bound = detail::cached_regex("(?:^|\\n)[ \\t]*(?:(?:export\\s+)?(?:const|let|var)\\s+)?" + e +
                         "[ \\t]*(?::[^=\\n]*)?=[ \\t]*([^\\n;]*?)[ \\t]*;?[ \\t]*(?:(?:#|//)[^\\n]*)?(?=\\n|$)");
  rx::smatch m;
  // (Go: `var rows []int` declares a nil slice, `var m map[string]int` a nil map.)
  const bool declared_nil =
      contains(text, "var") &&
      rx::regex_search(text, m, detail::cached_regex("(?:^|\\n)[ \\t]*var[ \\t]+" + e + "[ \\t]+(?:\\[\\]|map\\[)[^=\\n]*(?=\\n|$)"));
  if (!declared_nil && (!rx::regex_search(text, m, bound) || !empty_in(text, strip_spaces(m[1].str()), depth + 1))) return false;
  // Any use but reading it may fill it: `rows += ...`, `rows[:] = ...`, `load_into(rows)`,
  // `push.apply(rows, ...)`, a second binding. Only iterating it, its length, comparing it,
  // membership in it and printing it leave it empty.
  const std::size_t bound_at = static_cast<std::size_t>(m.position());
  const std::size_t bound_end = bound_at + static_cast<std::size_t>(m.length());
  static const rx::regex read_call(
      R"(^\s*\.\s*(?:forEach|map|filter|some|every|find|findIndex|flatMap|reduce|iter|into_iter|items|keys|values|entries|length|len|size|stream|each|isEmpty|is_empty|empty|count|copy|slice|get|has|contains|includes|indexOf)\b(?!\s*=[^=])|)"
      R"(^\s*\[[^\]\n]*\](?!\s*(?:[-+*/|&]|\?\?|\|\||&&)?=[^=]))");
  static const rx::regex reads_before(
      R"((?:\b(?:in|of|range|if|while|not|assert|return)|\bin\s*&(?:mut\s+)?|[^:]:|==|!=|\b(?:print|console\.log|logging\.\w+|logger\.\w+|log\.\w+)\([^()]*,|\b(?:len|any|all|max|min|sum|bool|id|type|isinstance|enumerate|sorted|reversed|iter|list|tuple|zip|print|repr|str|json\.dumps|copy\.copy|copy\.deepcopy|JSON\.stringify|Array\.isArray|Object\.freeze|Object\.(?:keys|values|entries)|Array\.from|console\.log|std::size)\s*\()\s*$)");
  static const rx::regex ends_read(R"(^\s*(?:$|[:{)\],;]|==|!=|\band\b|\bor\b|&&|\|\||\bif\b|\belse\b|\bis\b))");
  for (std::size_t at = text.find(e); at != std::string::npos; at = text.find(e, at + 1)) {
    if ((at > 0 && (ident_char(text[at - 1]) || text[at - 1] == '$' || text[at - 1] == '.')) ||
        (at + e.size() < text.size() && (ident_char(text[at + e.size()]) || text[at + e.size()] == '$')))
      continue;
    if (at >= bound_at && at < bound_end) continue;
    const std::size_t line_start = at == 0 ? 0 : text.rfind('\n', at - 1) + 1;
    const std::string before = text.substr(line_start, at - line_start);
    if (line_spot(before, before.size(), true) != LineSpot::code) continue;  // (a comment's or string's mention)
    const std::size_t line_end = std::min(text.find('\n', at), at + 200);  // (npos: the text's end)
    const std::string rest = text.substr(at + e.size(), line_end - at - e.size());
    if (rx::regex_search(rest, read_call)) continue;
    // (Adding nothing fills nothing: `rows += []`, `rows[:] = []`, `rows.extend(())`, `rows.sort()`.)
    static const rx::regex adds_nothing(
        R"(^\s*(?:(?:\+|\|)=\s*(?:\[\]|\(\)|\{\}|(?:set|list|dict|tuple|frozenset)\(\))|\[-?\d*:-?\d*\]\s*=\s*(?:\[\]|\(\))|\.\s*(?:extend|update|concat)\(\s*(?:\[\]|\(\)|\{\})?\s*\)|\.\s*(?:sort|reverse|clear)\(\s*\))\s*;?\s*(?:$|[#/]))");
    if (rx::regex_search(rest, adds_nothing)) continue;
    // (Bound again to nothing or to a copy of itself: `rows = ()`, `rows = rows[:]`, `rows = list(rows)`.)
    if (rx::smatch rb; rx::regex_match(rest, rb, rx::regex(R"(^\s*(?::\s*[^=]+)?=(?!=)\s*(.*?)\s*;?\s*$)"))) {
      const std::string v = strip_spaces(rb[1].str());
      if (v == e + "[:]" || v == "list(" + e + ")" || v == "[..." + e + "]" || v == e + ".copy()" || v == e + ".slice()" ||
          empty_in(text, v, depth + 1))
        continue;
    }
    if (rx::regex_search(before, reads_before) && rx::regex_search(rest, ends_read)) continue;
    return false;
  }
  return true;
}

/// Is the constant `name` of a module's text computed by code (`FOUR = add(1, 3)`, `FOUR = _four`
/// with `_four = calc(...)`), rather than a written-out value, or rebound/changed after
/// (name_changed)? Constructors of literals (`Decimal('1.5')`, `frozenset({...})`) are values.
bool constant_computed(const std::string& text, const std::string& name, const std::string& fn, int depth = 0) {
  const auto v = constant_value(text, name);
  if (!v || depth > 3) return false;
  if (name_changed(text, name, js_source(text))) return true;
  // Through names the module binds (`SUM = _raw + 0` with `_raw = calc.add(1, 3)`).
  if (computes_with(*v, fn) || name_computes(text, name, fn)) return true;
  static const rx::regex call(R"(([A-Za-z_$][\w$.]*)\()");
  static const std::set<std::string> kLiteral = {"Decimal", "Fraction", "BigInt", "Symbol", "frozenset", "tuple", "set", "dict", "list",
                                                 "Object.freeze", "new Date", "Date", "int", "float", "str", "bytes", "complex",
                                                 "BigInteger.valueOf", "BigDecimal.valueOf", "List.of", "Set.of", "Map.of", "Arrays.asList",
                                                 "Duration.ofSeconds", "Duration.ofMillis", "auto", "enum.auto", "Number", "String"};
  for (rx::sregex_iterator it(v->begin(), v->end(), call), e; it != e; ++it) {
    std::string head = (*it)[1].str();
    if (starts_with(head, "new")) head = head.substr(3);
    if (!kLiteral.count(head)) return true;
  }
  if (is_plain_name(*v) && *v != name) return constant_computed(text, *v, fn, depth + 1);
  return false;
}

void oracle_replacement_rules(const RuleContext& c, Findings& out) {
  // Decision (docs/INTEGRITY.md): comparing two functions of the code under test is an honest
  // oracle test when the test always did so; it is a cheat when a check that pinned a literal now
  // takes its expected value from the code under test: another function of the same module
  // (`assert add(2, 2) == 4` -> `want = add_all([2, 2]); assert add(2, 2) == want`), the same
  // function with other arguments (`add(2, 2) == add(1, 3)`, through an alias, getattr or a test
  // helper that calls it) or the module's own values (`add(2, 2) == 2 + 2 + calc.OFFSET`, or on the
  // actual side: `add(2, 2) - calc.OFFSET == 4`), also inside f-strings and template literals: a
  // change to that module moves both sides. A bare named constant of the module (`== calc.ERROR`
  // for `== "error"`) is the honest naming of a magic value.
  if (!c.file.before || !c.file.after || !c.test_file || !c.before.parsed || !c.after.parsed) return;
  const bool dynamic = c.lang == Lang::python || is_js(c.lang);
  if (!dynamic && c.lang != Lang::go && c.lang != Lang::java && c.lang != Lang::kotlin && c.lang != Lang::cpp && c.lang != Lang::rust) return;
  auto imports = dynamic ? imported_names(*c.file.after, c.lang) : std::map<std::string, std::string>{};
  const auto imports_before = dynamic ? imported_names(*c.file.before, c.lang) : std::map<std::string, std::string>{};
  std::set<std::string> module_aliases;  // names bound to a module object (`import calc as c`, `const calc = require(...)`)
  if (c.lang == Lang::python) {  // `import calc` / `import calc as c`: the module object's name
    static const rx::regex module_import(R"((?:^|\n)\s*import\s+([\w.]+)(?:\s+as\s+(\w+))?)");
    const std::string& text = *c.file.after;
    for (rx::sregex_iterator it(text.begin(), text.end(), module_import), end; it != end; ++it) {
      const std::string alias = (*it)[2].matched ? (*it)[2].str() : (*it)[1].str();
      imports.emplace(alias, (*it)[1].str());
      module_aliases.insert(alias);
    }
  } else if (is_js(c.lang)) {
    static const rx::regex whole(R"((?:const|let|var)\s+([\w$]+)\s*=\s*require\(|import\s+\*\s+as\s+([\w$]+))");
    const std::string& text = *c.file.after;
    for (rx::sregex_iterator it(text.begin(), text.end(), whole), end; it != end; ++it)
      module_aliases.insert((*it)[1].matched ? (*it)[1].str() : (*it)[2].str());
  }
  std::vector<std::string> lines;
  for_each_capped_line(*c.file.after, [&](int, const std::string& l) { lines.push_back(l); });
  // Project modules the file imports, as the patch leaves them (by import spec; "" outside the project).
  std::map<std::string, std::string> module_texts;
  auto module_text = [&](const std::string& spec) -> const std::string& {
    auto it = module_texts.find(spec);
    if (it == module_texts.end()) it = module_texts.emplace(spec, project_module_text(c, spec)).first;
    return it->second;
  };
  // Go: the import path a package qualifier names (`ref` -> "example.com/calc/ref", or an alias).
  auto go_import_path = [&](const std::string& q) -> std::string {
    const rx::regex path = detail::cached_regex("(?:^|[\\s(])(?:" + q + "\\s+)?\"((?:[\\w.-]+/)*)" + q + "\"");
    const rx::regex aliased = detail::cached_regex("(?:^|[\\s(])" + q + "\\s+\"([^\"]+)\"");
    rx::smatch m;
    if (rx::regex_search(*c.file.after, m, aliased)) return m[1].str();
    if (rx::regex_search(*c.file.after, m, path)) return m[1].str() + q;
    return "";
  };
  // Does a name of another project module the file imports compute with `fn`: a module-level
  // constant bound to a call (`SUM = calc.add(1, 3)`), a helper or class that calls it? `chain` is
  // the name as read (`ref.expected`, `constants.SUM`, a bare imported `SUM`); `spec` its import.
  auto computed_elsewhere = [&](std::vector<std::string> chain, const std::string& spec, const std::string& fn) {
    if (chain.empty()) return false;
    // Python `from tests import helpers`, `from . import oracle`: the name may be a submodule.
    if (c.lang == Lang::python && !module_aliases.count(chain[0])) {
      const std::string sub = spec.back() == '.' ? spec + chain[0] : spec + "." + chain[0];
      if (const std::string& t = module_text(sub); !t.empty() && chain.size() >= 2) {
        chain.erase(chain.begin());
        if (chain.size() == 1) return name_computes(t, chain[0], fn);
        return name_computes(t, chain[0], fn);
      }
    }
    const std::string& text = module_text(spec);
    if (text.empty()) return false;
    static const rx::regex constant(R"(^[A-Z][A-Z0-9_]*$)");
    const std::string& last = chain.back();
    if (rx::regex_match(last, constant) && constant_value(text, last)) return constant_computed(text, last, fn);
    // The name read of the module (`ref.expected`, `golden.SUMS`, a bare imported `expected`), by its definition.
    return name_computes(text, chain.size() >= 2 ? chain[1] : chain[0], fn);
  };
  // What a function of the test file returns (`def expected(a, b): return calc.add(a, b)`), by name.
  std::map<std::string, std::string> file_returns;
  if (c.lang == Lang::python) {
    static const rx::regex def(R"(^(\s*)def\s+(\w+)\s*\()");
    static const rx::regex ret(R"(^\s*return\s+(.+)$)");
    for (std::size_t i = 0; i < lines.size(); ++i) {
      rx::smatch dm;
      if (!rx::regex_search(lines[i], dm, def)) continue;
      const std::size_t indent = dm[1].length();
      std::string returned;
      for (std::size_t k = i + 1; k < lines.size(); ++k) {
        const auto first = lines[k].find_first_not_of(" \t");
        if (first == std::string::npos) continue;
        if (first <= indent) break;
        rx::smatch rm;
        if (rx::regex_search(lines[k], rm, ret)) returned += strip_spaces(rm[1].str()) + ";";
      }
      if (!returned.empty()) file_returns.emplace(dm[2].str(), returned);
    }
  }
  static const rx::regex call_re(R"(^([A-Za-z_$][\w$]*)(?:(?:\.|::)([A-Za-z_$][\w$]*))?\()");
  static const rx::regex getattr_re(R"(getattr\(([A-Za-z_][\w.]*),['"](\w+)['"]\))");
  static const rx::regex assign(R"(^\s*(?:(?:const|let|var|final|auto)\s+)?(?:[\w<>\[\],.]+\s+)?([A-Za-z_$][\w$]*)\s*:?=\s*([^=].*?)\s*;?\s*$)");
  static const rx::regex walrus(R"(\(([A-Za-z_]\w*):=)");
  // Go: `if got := Add(tt.a, tt.b); got != tt.want {`: got holds the call.
  static const rx::regex go_if_init(R"(^\s*if\s+([A-Za-z_]\w*)\s*:=\s*([^;]+);)");
  static const rx::regex tuple_assign(
      R"(^\s*(?:(?:const|let|var|val)\s+)?\(?([A-Za-z_$][\w$]*(?:\s*,\s*[A-Za-z_$][\w$]*)+)\)?\s*:?=\s*([^=].*?)\s*;?\s*$)");
  // The test file's added lines: where a patch can put data computed by the code under test
  // (table rows, fixtures, helpers). check_test_integrity has them already.
  const std::vector<std::string> all_added = c.support_added && c.support_added->count(c.file.path)
                                             ? c.support_added->at(c.file.path)
                                             : added_lines(c.file.before, *c.file.after);
  // Occurrences of a call's text (whitespace removed) in a text, as a whole name: `add(a,b)` is not
  // in `myadd(a,b)` nor `x.add(a,b)`, but is in `awaitadd(a,b)` (`await add(a, b)`).
  auto occurrences = [](const std::string& text, const std::string& call) {
    int n = 0;
    for (auto at = text.find(call); at != std::string::npos; at = text.find(call, at + 1)) {
      if (at > 0 && text[at - 1] == '.' && call.find_first_of(".:") == std::string::npos) continue;
      if (at > 0 && ident_char(text[at - 1])) {
        std::size_t w = at;
        while (w > 0 && ident_char(text[w - 1])) --w;
        const std::string before = text.substr(w, at - w);
        if (!ends_with(before, "await") && !ends_with(before, "return") && !ends_with(before, "yield") && !ends_with(before, "new") &&
            !ends_with(before, "go") && !ends_with(before, "defer"))
          continue;
      }
      ++n;
    }
    return n;
  };
  // The file's text, whitespace removed per line; what its checks look at and what its locals are
  // bound to (any test): each occurrence of a call in a check's operand, or in the value of a local
  // a check looks at, is a checked value; any further occurrence of it is data (`.map(([a, b]) =>
  // [a, b, add(a, b)])` beside the check `expect(add(a, b))`).
  std::vector<std::string> flat_lines;
  // One entry per check operand or bound value: (the operand as written, its text or a value it is bound to).
  std::vector<std::pair<std::string, std::string>> checked_texts;
  std::map<std::string, std::vector<std::string>> locals;  // any name the file assigns -> its values
  {
    for (const auto& l : lines) {
      flat_lines.push_back(strip_spaces(l));
      rx::smatch m;
      if (rx::regex_match(l, m, tuple_assign)) {
        const auto names = split_top(m[1].str(), {","});
        const auto values = split_top(m[2].str(), {","});
        if (names.size() == values.size()) {
          for (std::size_t k = 0; k < names.size(); ++k) locals[strip_spaces(names[k])].push_back(strip_spaces(values[k]));
          continue;
        }
      }
      if (rx::regex_match(l, m, assign)) locals[m[1].str()].push_back(strip_spaces(m[2].str()));
      if (rx::regex_search(l, m, go_if_init)) locals[m[1].str()].push_back(strip_spaces(m[2].str()));
    }
    std::set<std::string> checked_locals;
    for (const auto* units : {&c.after.tests, &c.after.helpers})
      for (const auto& t : *units)
        for (const auto& a : t.asserts)
          for (const auto& o : a.operands) {
            const std::string op = strip_spaces(o);
            checked_texts.emplace_back(op, op);
            if (locals.count(o) && checked_locals.insert(o).second)
              for (const auto& v : locals[o]) checked_texts.emplace_back(op, v);
          }
  }
  // Does the file hold `call` more often than its checks and checked locals do? The expected side
  // of the check being judged (`oracle`, as written) and what it is bound to are not checks of it.
  auto beyond_checks = [&](const std::string& call, const std::string& oracle) {
    int in_file = 0, in_checks = 0;
    for (const auto& l : flat_lines) in_file += occurrences(l, call);
    for (const auto& [op, t] : checked_texts)
      if (op != oracle) in_checks += occurrences(t, call);
    return in_file > in_checks;
  };
  // Every value the expression may hold is a literal (`4`, `"x"`, a table column `4;0;`).
  auto literal_values = [](const std::string& e) {
    const auto parts = split_top(e, {";"});
    return !parts.empty() && std::all_of(parts.begin(), parts.end(), [](const std::string& p) { return p.empty() || literal_text(p); });
  };
  // `CASES['2+2']`, `GOLDEN[(2, 2)]`, `EXPECTED.sum`: an entry of a table the file binds once, at
  // the top level, to literals only (`const CASES = { '2+2': 5 }`, `GOLDEN = {(2, 2): 5}`) and
  // never changes afterwards (no `CASES[k] = ...`, `.update(...)`, `Object.assign(CASES, ...)`):
  // a table of literals, whatever else the patch computes elsewhere in the file.
  std::function<bool(const std::string&, int)> literal_table = [&](const std::string& expr, int depth) -> bool {
    static const rx::regex root_name(R"(^([A-Za-z_$][\w$]*)\s*(?:[\[.]|$))");
    rx::smatch rm;
    if (!c.file.after || depth > 2 || !rx::regex_search(expr, rm, root_name)) return false;
    // A loop variable over such a table (`for (const { a, b, want } of CASES)`, `for (const [k,
    // want] of Object.entries(CASES))`, `for a, b, want in CASES:`): the table decides.
    {
      static const rx::regex js_loop(R"(for\s*\(\s*(?:const|let|var)\s+([^;]*?)\s+of\s+([^)\n]+?)\s*\))");
      static const rx::regex py_loop(R"((?:^|\n)[ \t]*for\s+([^\n]+?)\s+in\s+([^\n]+?)\s*:)");
      static const rx::regex view(R"(^(?:Object\.(?:entries|values)|enumerate|sorted|list|tuple)\((.*)\)$|^(.*)\.(?:items|values)\(\)$)");
      const rx::regex word = detail::cached_regex("(?:^|[^\\w$])" + rm[1].str() + "(?![\\w$])");
      const rx::regex assigned = detail::cached_regex("(?:^|[^\\w$.])" + rm[1].str() + "\\s*=(?!=)");
      const std::string& text = *c.file.after;
      // (Only a name no statement of the file assigns: loops are not scoped to the test here.)
      if (rm[1].str().find('$') == std::string::npos && !rx::regex_search(text, assigned))
      for (const auto* loop : {&js_loop, &py_loop})
        for (rx::sregex_iterator it(text.begin(), text.end(), *loop), e; it != e; ++it) {
          if (!rx::regex_search((*it)[1].str(), word)) continue;
          std::string over = strip_spaces((*it)[2].str());
          for (rx::smatch vm; over.size() < 2048 && rx::regex_match(over, vm, view);) over = vm[1].matched ? vm[1].str() : vm[2].str();
          if (over != rm[1].str() && literal_table(over, depth + 1)) return true;
        }
    }
    std::string name;  // as a regex (`$` is a name's letter in JavaScript)
    for (char ch : rm[1].str()) name += ch == '$' ? std::string("\\$") : std::string(1, ch);
    const std::string& text = *c.file.after;
    const rx::regex binding = detail::cached_regex(R"((?:^|\n)(?:export\s+)?(?:(?:const|let|var|final|static|private|public)\s+)*)" + name +
                             R"(\s*(?::[^=\n]*)?=\s*([\[{(]))");
    rx::smatch bm;
    if (!rx::regex_search(text, bm, binding)) return false;
    const std::size_t open = static_cast<std::size_t>(bm.position(1));
    const std::size_t close = matching_close(text, open, false);
    if (close == std::string_view::npos) return false;
    // Literals only: strings, numbers, the language's constants, JavaScript's bare keys.
    static const rx::regex strings(R"("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`$]*`)");
    static const rx::regex numbers(R"((?:^|[^\w$.])-?[0-9][\w.]*)");
    std::string body = rx::regex_replace(text.substr(open, close - open + 1), strings, " 0 ");
    body = rx::regex_replace(body, numbers, " ");
    static const rx::regex word(R"([A-Za-z_$][\w$]*(\s*:)?)");
    for (rx::sregex_iterator it(body.begin(), body.end(), word), e; it != e; ++it) {
      const std::string w = it->str().substr(0, it->str().find_first_of(" \t\n:"));
      static const std::set<std::string, std::less<>> kConstants = {"true", "false", "True", "False", "None", "null", "undefined", "nil"};
      if (kConstants.count(w)) continue;
      if ((*it)[1].matched && is_js(c.lang)) continue;  // `{ sum: 5 }`
      return false;
    }
    // Bound once and never changed: no other assignment anywhere (a function's local of the same
    // name shadows it where the check is), no item assignment or mutating call, no write through
    // a loop over its rows (`for (const row of CASES) row.want = ...`), and no access by a string
    // of its name (`globals()['GOLDEN'] = ...`, `setattr(module, 'GOLDEN', ...)`).
    const std::string bare = rm[1].str();
    if (name_changed(text, bare, true)) return false;
    if (text.find("'" + bare + "'") != std::string::npos || text.find("\"" + bare + "\"") != std::string::npos) return false;
    static const rx::regex js_rows(R"(for\s*\(\s*(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s+of\s+([^)\n]+?)\s*\))");
    static const rx::regex py_rows(R"((?:^|\n)[ \t]*for\s+([A-Za-z_]\w*)\s+in\s+([^\n]+?)\s*:)");
    for (const auto* loop : {&js_rows, &py_rows})
      for (rx::sregex_iterator it(text.begin(), text.end(), *loop), e; it != e; ++it) {
        const std::string over = strip_spaces((*it)[2].str());
        if (over != bare && over.find(bare + ".") != 0 && over.find("(" + bare + ")") == std::string::npos) continue;
        const std::string row = (*it)[1].str();
        if (row.find('$') != std::string::npos) return false;
        const rx::regex written = detail::cached_regex("(?:^|[^\\w$.])" + row + R"((?:\s*(?:\.\s*[A-Za-z_$][\w$]*|\[[^\]\n]*\]))+\s*(?:[-+*/|&]|\?\?|\|\|)?=(?!=)|)" +
                                 "(?:^|[^\\w$.])" + row + R"(\s*\.\s*(?:push|set|update|append|extend|setdefault|insert|add|splice|unshift|pop|clear)\s*\(|assign\s*\(\s*)" +
                                 row + "\\b");
        if (rx::regex_search(text, written)) return false;  // `row.want = ...`, `row.update(...)`
      }
    return true;
  };
  // Is the value of the call starting at `at` in the added line `l` thrown away: a statement of
  // its own (`add(0, 0)`, `await add(0, 0);`), a hook's concise body (`before(() => add(0, 0))`:
  // hooks ignore what they are given back), or stored in a name nothing else reads (`warm =
  // add(0, 0)` with `warm` never used)? A warm-up call is no data for an expected value.
  auto result_unused = [&](const std::string& l, std::size_t at) {
    const std::string prefix = strip_spaces(l.substr(0, at));
    if (prefix.empty() || prefix == "await" || prefix == "void") return true;
    static const rx::regex hook(
        R"(^(?:before|beforeEach|beforeAll|after|afterEach|afterAll|setup|teardown|suiteSetup|suiteTeardown)\((?:async)?(?:\(\)|_)=>(?:await)?$)");
    if (rx::regex_match(prefix, hook)) return true;
    static const rx::regex stored(R"(^(?:(?:const|let|var|final|auto)\s+)?([A-Za-z_$][\w$]*)\s*(?::[^=]*)?=\s*(?:await\s+)?$)");
    rx::smatch m;
    const std::string raw = l.substr(0, at);
    const std::size_t lead = raw.find_first_not_of(" \t");
    const std::string assignment = lead == std::string::npos ? std::string() : raw.substr(lead);
    if (assignment.empty() || !rx::regex_match(assignment, m, stored) || !c.file.after) return false;
    const std::string name = m[1].str();
    if (name.find('$') != std::string::npos) return false;
    // Every other use of the name is a declaration without a value or another store.
    // (Read as an attribute too: `EXPECTED = plus(1, 3)` in a class body, read as `self.EXPECTED`.)
    const rx::regex use = detail::cached_regex("(?:^|[^\\w$])" + name + "(?![\\w$])");
    const rx::regex only_store = detail::cached_regex("^\\s*(?:(?:let|var)\\s+" + name + "\\s*;?|(?:(?:const|let|var)\\s+)?" + name +
                                "\\s*(?::[^=]*)?=(?!=).*|global\\s+" + name + "|nonlocal\\s+" + name + ")\\s*$");
    std::istringstream in(*c.file.after);
    for (std::string line; std::getline(in, line);)
      if (rx::regex_search(line, use) && !rx::regex_match(line, only_store)) return false;
    return true;
  };
  // A call of `fn` (of `module`) on an added line that no check looks at: its text, or "".
  auto added_data_call = [&](const std::string& fn, const std::string& module, const std::string& oracle,
                             const TestUnit& unit) -> std::string {
    static const rx::regex def_head(R"((?:def|func|function)\s+$)");  // before a definition's name
    // Lines that stand only inside another test's body (a benchmark, a smoke test): data there
    // cannot feed this test's expected value (a global it assigns is followed as a local).
    std::set<std::string> outside_other_tests;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const int n = static_cast<int>(i) + 1;
      const bool other = std::any_of(c.after.tests.begin(), c.after.tests.end(), [&](const TestUnit& t) {
        return &t != &unit && t.line < n && n <= t.end_line && !(unit.line <= n && n <= unit.end_line);
      });
      if (!other) outside_other_tests.insert(strip_spaces(lines[i]));
    }
    std::vector<std::string> added;
    for (const auto& l : all_added)
      if (outside_other_tests.count(strip_spaces(l))) added.push_back(l);
    std::vector<std::string> heads;
    const std::string& text = *c.file.after;
    if (dynamic) {
      for (const auto& [alias, from] : imports)
        if (from == module) {
          heads.push_back(module_aliases.count(alias) ? alias + "." + fn + "(" : alias == fn ? fn + "(" : "");
          if (module_aliases.count(alias)) {  // `calc['add'](1, 3)`
            heads.push_back(alias + "['" + fn + "'](");
            heads.push_back(alias + "[\"" + fn + "\"](");
          }
        }
      // The function imported under another name: `from calc import add as plus`, `import { add
      // as plus }`, `const { add: plus } = require(...)`.
      const rx::regex renamed = detail::cached_regex("(?:^|[^\\w$])" + fn + R"((?:\s+as\s+|\s*:\s*)([A-Za-z_$][\w$]*))");
      for (rx::sregex_iterator it(text.begin(), text.end(), renamed), end; it != end; ++it)
        if (auto imp = imports.find((*it)[1].str()); imp != imports.end() && imp->second == module) heads.push_back((*it)[1].str() + "(");
    } else {
      heads.push_back(module == "." ? fn + "(" : module + "." + fn + "(");
      if (module != ".") heads.push_back(module + "::" + fn + "(");
      // Java/Kotlin: `import static calc.Calc.add;` (or `.*`): the function by its bare name.
      const rx::regex static_import = detail::cached_regex(R"(import\s+static\s+[\w.]*\b)" + module + R"(\.(?:\*|)" + fn + R"()\s*;?)");
      if (module != "." && rx::regex_search(text, static_import)) heads.push_back(fn + "(");
    }
    for (const auto& l : added)
      for (const auto& head : heads) {
        if (head.empty()) continue;
        for (auto at = l.find(head); at != std::string::npos; at = l.find(head, at + 1)) {
          // A whole name: not `x.add(` for a bare `add(` (nor `xadd(`), not the definition.
          if (at > 0 && (ident_char(l[at - 1]) || (head.find('.') == std::string::npos && head.find("::") == std::string::npos && l[at - 1] == '.')))
            continue;
          if (rx::regex_search(l.substr(0, at), def_head)) continue;  // the definition itself
          if (in_string_literal(l, at)) continue;  // a message's text (`f"add({a}, {b})"`), no call
          const std::size_t open = at + head.size() - 1;
          const std::size_t close = closing_paren(l, open);
          if (close >= l.size()) continue;
          const std::string call = strip_spaces(l.substr(at, close - at + 1));
          if (!beyond_checks(call, oracle) || result_unused(l, at)) continue;
          return call;
        }
      }
    static const rx::regex import_line(R"(^\s*(?:import\b|from\s+\S+\s+import\b|package\b|#include\b|using\b|use\b)|\brequire\s*\()");
    // A call in another test file or test-support module the patch adds to (a conftest fixture,
    // a helper module), on a line that is not itself a check.
    static const rx::regex check_line(R"(^\s*(?:assert|expect\b|self\.assert|t\.(?:Error|Fatal|Fail)|require\.|Assert|EXPECT_|ASSERT_))");
    if (c.support_added)
      for (const auto& [path, other_lines] : *c.support_added) {
        if (path == c.file.path || lang_of(path) != c.lang) continue;
        for (const auto& l : other_lines) {
          if (rx::regex_search(l, check_line)) continue;
          for (const auto& h : heads) {
            // In another file the module's function may be reached by its bare name too.
            const std::string bare = h.substr(h.find_last_of(".:") == std::string::npos ? 0 : h.find_last_of(".:") + 1);
            for (const std::string& head : {h, bare}) {
              if (head.size() < 2) continue;
              for (auto at = l.find(head); at != std::string::npos; at = l.find(head, at + 1)) {
                if (at > 0 && (ident_char(l[at - 1]) || (head != h && l[at - 1] == '.'))) continue;
                if (rx::regex_search(l.substr(0, at), def_head)) continue;  // the definition itself
                const std::size_t close = closing_paren(l, at + head.size() - 1);
                if (close < l.size()) return strip_spaces(l.substr(at, close - at + 1)) + " (" + path + ")";
              }
            }
          }
        }
      }
    // The module object itself as a value (`getattr(calc, name)`, `vars(calc)["add"]`): its
    // functions reached by a name the rule cannot read.
    if (dynamic)
      for (const auto& [alias, from] : imports) {
        if (from != module || !module_aliases.count(alias)) continue;
        for (const auto& l : added) {
          if (rx::regex_search(l, import_line)) continue;
          for (auto at = l.find(alias); at != std::string::npos; at = l.find(alias, at + 1)) {
            const std::size_t end = at + alias.size();
            if ((at > 0 && (ident_char(l[at - 1]) || l[at - 1] == '.' || l[at - 1] == '\'' || l[at - 1] == '"')) ||
                (end < l.size() && (ident_char(l[end]) || l[end] == '.' || l[end] == '(' || l[end] == '\'' || l[end] == '"')))
              continue;
            // An argument of a call (`getattr(calc, n)`, `vars(calc)`) or subscripted (`calc[name]`).
            if ((end < l.size() && l[end] == '[') || (at > 0 && l.rfind('(', at) != std::string::npos)) return l;
          }
        }
      }
    // The function as a value (`f = calc.add`, `partial(calc.add, 1)`, `map(add, xs)`,
    // `add.call(null, 1, 3)`, `Calc::add`): a call of it the rule cannot see the text of.
    for (const auto& l : added) {
      if (rx::regex_search(l, import_line) || starts_with(l, "def ") || starts_with(l, "func ") || starts_with(l, "function ")) continue;
      for (const auto& head : heads) {
        if (head.size() < 2) continue;
        std::string name = head.substr(0, head.size() - 1);
        std::vector<std::string> spellings{name};
        if (const auto dot = name.rfind('.'); dot != std::string::npos) spellings.push_back(name.substr(0, dot) + "::" + name.substr(dot + 1));
        for (const auto& ref : spellings)
          for (auto at = l.find(ref); at != std::string::npos; at = l.find(ref, at + 1)) {
            const std::size_t end = at + ref.size();
            if (at > 0 && (ident_char(l[at - 1]) || l[at - 1] == '\'' || l[at - 1] == '"' ||
                           (ref.find_first_of(".:") == std::string::npos && l[at - 1] == '.')))
              continue;
            std::size_t next = end;
            while (next < l.size() && (l[next] == ' ' || l[next] == '\t')) ++next;
            if (end < l.size() && ident_char(l[end])) continue;
            if (next < l.size() && (l[next] == '(' || l[next] == '=' || l[next] == ':' || l[next] == '\'' || l[next] == '"')) continue;
            return ref;
          }
      }
    }
    return {};
  };
  // A value written out (whitespace removed) that no code of the file computes: a literal, a
  // qualified constant of another package (`time.Second`, `Color.RED`), or a constructor or
  // conversion of such values (`Decimal('0.3')`, `new Date(2020, 0, 1)`, `BigInt(3)`,
  // `Fraction(1, 3)`, `new Map([['a', 1]])`, `3*time.Second`), not of a name the file assigns.
  // A name the file assigns (a module-level constant, `const four = 4`) stands for its values.
  std::function<bool(const std::string&, const std::string&, const std::string&, int)> value_expression =
      [&](const std::string& e, const std::string& module, const std::string& fn, int depth) -> bool {
    if (depth > 6 || e.empty()) return false;
    if (literal_text(e)) return true;
    static const rx::regex dotted(R"(^([A-Za-z_$][\w$]*)(?:\.[A-Za-z_$][\w$]*)+$)");
    static const rx::regex scaled(R"(^-?[0-9][\w.]*\*(.+)$)");
    static const rx::regex construct(R"(^(?:new)?([A-Za-z_$][\w$]*)(?:\.[A-Za-z_$][\w$]*)*(?:<[^()]*>)?\((.*)\)$)");
    rx::smatch m;
    if (is_plain_name(e)) {
      auto it = locals.find(e);
      if (it == locals.end()) return false;
      return std::all_of(it->second.begin(), it->second.end(), [&](const std::string& v) { return value_expression(v, module, fn, depth + 1); });
    }
    // A name from outside the file and the code under test: a module the file imports (not one
    // the patch writes), a builtin constructor, a Go package or conversion, a Java/Kotlin/C++ class.
    auto foreign_root = [&](const std::string& root) {
      if (root == module || locals.count(root) || file_returns.count(root) || module_aliases.count(root)) return false;
      if (dynamic) {
        static const std::set<std::string> kBuiltins = {
            "BigInt", "Date", "Map", "Set", "Number", "String", "Boolean", "Array", "Object", "Symbol", "RegExp", "URL", "Buffer",
            "Uint8Array", "Int32Array", "Float64Array", "Math", "JSON", "dict", "list", "tuple", "set", "frozenset", "int",
            "float", "str", "bytes", "complex", "bool", "range"};
        if (kBuiltins.count(root)) return true;
        auto it = imports.find(root);
        if (it == imports.end() || it->second == module) return false;
        std::string from = it->second;
        from = from.substr(from.find_last_of("./") == std::string::npos ? 0 : from.find_last_of("./") + 1);
        if (c.support_added)
          for (const auto& [path, unused] : *c.support_added) {
            const std::string base(basename(path));
            if (!from.empty() && base.substr(0, base.find('.')) == from) return false;
          }
        return true;
      }
      if (c.lang == Lang::go) {
        static const std::set<std::string> kConversions = {"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16",
                                                           "uint32", "uint64", "float32", "float64", "string", "byte", "rune"};
        return kConversions.count(root) > 0 || rx::regex_search(*c.file.after, detail::cached_regex("\"(?:[\\w.-]+/)*" + root + "\""));
      }
      return !root.empty() && std::isupper(static_cast<unsigned char>(root[0]));  // a class: `BigInteger.valueOf`, `Color.RED`
    };
    if (rx::regex_match(e, m, dotted)) {
      // `self.EXPECTED`, `this.expected`: the attribute's values as the file assigns them.
      if (m[1].str() == "self" || m[1].str() == "this" || m[1].str() == "cls")
        return value_expression(e.substr(e.rfind('.') + 1), module, fn, depth + 1);
      // A named constant of the code under test (`Calc.Level.HIGH`, `calc.ERROR`): a name for a value.
      static const rx::regex constant_tail(R"(\.[A-Z][A-Z0-9_]*$)");
      if (m[1].str() == module && rx::regex_search(e, constant_tail)) return true;
      return foreign_root(m[1].str());
    }
    if (rx::regex_match(e, m, scaled)) return value_expression(m[1].str(), module, fn, depth + 1);
    auto all_values = [&](const std::string& inner) {
      for (const auto& part : split_top(inner, {","}))
        if (!part.empty() && !value_expression(strip_spaces(part), module, fn, depth + 1)) return false;
      return true;
    };
    if ((e.front() == '[' || e.front() == '{') && matching_close(e, 0) == e.size() - 1) return all_values(e.substr(1, e.size() - 2));
    if (rx::regex_match(e, m, construct) && closing_paren(e, e.find('(')) == e.size() - 1) {
      const std::string head = e.substr(0, e.find('('));
      const std::string last = head.substr(head.find_last_of(".:") == std::string::npos ? 0 : head.find_last_of(".:") + 1);
      if (last == fn) return false;
      // `new X(...)` in Java/Kotlin/C#-like code: any class but the code under test's.
      const bool made = !dynamic && starts_with(e, "new") && m[1].str() != module;
      if (!made && !foreign_root(m[1].str())) return false;
      return all_values(m[2].str());
    }
    return false;
  };
  for (const auto& at : c.after.tests) {
    auto bt = std::find_if(c.before.tests.begin(), c.before.tests.end(), [&](const TestUnit& t) { return t.name == at.name; });
    if (bt == c.before.tests.end()) continue;
    // A parameter of a table-driven test -> its column's values (parametrize rows, `.each` tables).
    std::map<std::string, std::string> table = at.table_values;
    if (is_js(c.lang) || c.lang == Lang::go) {
      std::string unit;
      for (int n = at.line; n <= at.end_line && n >= 1 && static_cast<std::size_t>(n) <= lines.size(); ++n)
        unit += lines[static_cast<std::size_t>(n - 1)] + "\n";
      for (auto& [param, values] : is_js(c.lang) ? js_each_columns(unit) : go_table_columns(unit)) table[param] += values;
    }
    std::map<std::string, std::string> computed = table;  // variable -> value, whitespace removed
    std::set<std::string> accumulated;                     // totals read through `+=` (computed holds the addend)
    for (int n = at.line; n <= at.end_line && n >= 1 && static_cast<std::size_t>(n) <= lines.size(); ++n) {
      const std::string& l = lines[static_cast<std::size_t>(n - 1)];
      rx::smatch m;
      if (rx::regex_match(l, m, assign)) computed[m[1].str()] = strip_spaces(m[2].str());
      // `got, want := Add(2, 2), Add(1, 3)` / `a, b = x, y`: by position.
      if (rx::regex_match(l, m, tuple_assign)) {
        const auto names = split_top(m[1].str(), {","});
        const auto values = split_top(m[2].str(), {","});
        if (names.size() == values.size())
          for (std::size_t k = 0; k < names.size(); ++k) computed[strip_spaces(names[k])] = strip_spaces(values[k]);
      }
      if (c.lang == Lang::go && rx::regex_search(l, m, go_if_init)) computed[m[1].str()] = strip_spaces(m[2].str());
      // `total += add(a, b)` over a literal start (`total = 0`): the total is computed by what is added.
      static const rx::regex accumulate(R"(^\s*([A-Za-z_$][\w$]*)\s*[-+]=\s*(.+?)\s*;?\s*$)");
      if (rx::regex_match(l, m, accumulate) && (!computed.count(m[1].str()) || literal_text(computed[m[1].str()]))) {
        computed[m[1].str()] = strip_spaces(m[2].str());
        accumulated.insert(m[1].str());
      }
      // `(r := calc.add(2, 2))`: r holds the call.
      const std::string flat = strip_spaces(l);
      for (rx::sregex_iterator it(flat.begin(), flat.end(), walrus), e; it != e; ++it) {
        const std::size_t open = static_cast<std::size_t>(it->position());
        const std::size_t close = closing_paren(flat, open);
        if (close < flat.size()) computed[(*it)[1].str()] = flat.substr(open + it->length(), close - open - static_cast<std::size_t>(it->length()));
      }
    }
    // An operand as the code it runs: getattr(calc, "add") read as calc.add, a local bound to a
    // function (`f = calc.add`) read as it, wrappers that only restate the value removed.
    auto spelled = [&](std::string e) {
      e = rx::regex_replace(unwrapped_operand(std::move(e)), getattr_re, "$1.$2");
      if (e.size() > 2 && e.front() == '(' && e.back() == ')' && closing_paren(e, 0) == e.size() - 1) e = e.substr(1, e.size() - 2);
      rx::smatch wm;
      static const rx::regex walrus_head(R"(^([A-Za-z_]\w*):=(.+)$)");
      if (rx::regex_match(e, wm, walrus_head)) e = wm[2].str();
      rx::smatch lm;
      static const rx::regex local_call(R"(^([A-Za-z_$][\w$]*)\()");
      if (rx::regex_search(e, lm, local_call))
        if (auto it = computed.find(lm[1].str()); it != computed.end()) {
          static const rx::regex dotted(R"(^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$)");
          if (rx::regex_match(it->second, dotted)) e = it->second + e.substr(lm[1].length());
        }
      return e;
    };
    // What a name holds through the test's locals, copies included (`got := Add(2, 2); v := got`),
    // a few hops deep; a table's parameter stays itself (its column is judged as the oracle).
    auto through_locals = [&](std::string e) {
      for (int hop = 0; hop < 4 && computed.count(e) && !table.count(e); ++hop) {
        std::string next = spelled(computed[e]);
        if (next == e) break;
        e = std::move(next);
      }
      return e;
    };
    // The function a call names and the module it comes from ("" when not imported). In Go, Java,
    // Kotlin, C++ and Rust: the qualifier as written ("." for an unqualified call).
    // (`from` is the imports of the file the operand is in: a before-check reads the old imports.)
    auto callee = [&](const std::string& operand, const std::map<std::string, std::string>* from = nullptr) -> std::pair<std::string, std::string> {
      const auto& names = from ? *from : imports;
      rx::smatch m;
      if (!rx::regex_search(operand, m, call_re)) return {};
      if (!dynamic) return {m[2].matched ? m[2].str() : m[1].str(), m[2].matched ? m[1].str() : std::string(".")};
      if (m[2].matched) {  // `calc.add(` : the module object's name (or what it was imported from)
        auto it = names.find(m[1].str());
        return {m[2].str(), it != names.end() ? it->second : m[1].str()};
      }
      auto it = names.find(m[1].str());
      return {m[1].str(), it != names.end() ? it->second : std::string()};
    };
    // The functions and values of `module` an expression reads, through the test's locals and the
    // test file's own functions: `want` -> `add_all([2, 2])` -> {add_all}; `expected(1, 3)` -> calc.add.
    auto reads_module = [&](const std::string& e, const std::string& module, const std::string& fn) {
      if (!dynamic) {  // the same function, with other arguments (in any value it may hold, anywhere in it)
        for (const auto& part : split_top(e, {";"})) {
          const auto [f2, m2] = callee(spelled(part));
          if (f2 == fn && m2 == module) return true;
          const std::string flat = spelled(part);
          // A class or package of the project that calls it (`MathRef.sum(1, 3)`, `new
          // Calc().add(1, 3)`, Go's `ref.Sum(1, 3)`).
          static const rx::regex qualifier(R"((?:^|[^\w$.])([A-Za-z_$][\w$]*)(?:\.|\(|::))");
          for (rx::sregex_iterator it(flat.begin(), flat.end(), qualifier), end; it != end; ++it) {
            std::string q = (*it)[1].str();
            if (starts_with(q, "new") && q.size() > 3 && std::isupper(static_cast<unsigned char>(q[3]))) q = q.substr(3);  // `newCalc(`
            if (q == module || q == fn || q == "new") continue;
            // A helper the test file defines (`expected(1, 3)` in the test class) that calls it.
            if (flat.compare(static_cast<std::size_t>(it->position(1)) + (*it)[1].length(), 1, "(") == 0 &&
                !std::isupper(static_cast<unsigned char>(q[0])) && name_computes(*c.file.after, q, fn, 1))
              return true;
            // The member read after the qualifier (`ref.Sum`, `MathRef.sum`; after `new Calc()` the method).
            std::size_t after = static_cast<std::size_t>(it->position(1)) + (*it)[1].length();
            if (after < flat.size() && flat[after] == '(') after = closing_paren(flat, after) + 1;
            std::string member;
            if (after < flat.size() && flat[after] == '.')
              for (std::size_t k = after + 1; k < flat.size() && ident_char(flat[k]); ++k) member += flat[k];
            if (c.lang == Lang::go) {
              if (flat.compare(static_cast<std::size_t>(it->position(1)) + (*it)[1].length(), 1, ".") != 0) continue;
              const std::string path = go_import_path(q);
              if (!path.empty() && name_computes(module_text(path), member, fn)) return true;
            } else if ((c.lang == Lang::java || c.lang == Lang::kotlin) && std::isupper(static_cast<unsigned char>(q[0]))) {
              if (member == fn && computes_with(module_text(q), fn)) return true;
              if (name_computes(module_text(q), member, fn)) return true;
            }
          }
          for (const std::string& head : module == "." ? std::vector<std::string>{fn + "("}
                                                       : std::vector<std::string>{module + "." + fn + "(", module + "::" + fn + "("})
            for (auto pos = flat.find(head); pos != std::string::npos; pos = flat.find(head, pos + 1))
              if (pos == 0 || (!ident_char(flat[pos - 1]) && (module != "." || flat[pos - 1] != '.'))) return true;
        }
        return false;
      }
      std::set<std::string> seen;
      std::vector<std::string> todo{rx::regex_replace(e, getattr_re, "$1.$2")};
      while (!todo.empty() && seen.size() < 16) {
        const std::string x = todo.back();
        todo.pop_back();
        if (!seen.insert(x).second) continue;
        for (const auto& ch : name_chains(x)) {
          if (ch.size() == 1 && computed.count(ch[0])) todo.push_back(computed[ch[0]]);
          // A module-level name (`WARM = calc.add(1, 3)`, a global a test assigns): its values.
          if (ch.size() == 1 && !computed.count(ch[0]) && locals.count(ch[0]))
            for (const auto& v : locals[ch[0]]) todo.push_back(rx::regex_replace(v, getattr_re, "$1.$2"));
          if (ch.size() == 1 && file_returns.count(ch[0])) todo.push_back(rx::regex_replace(file_returns[ch[0]], getattr_re, "$1.$2"));
          auto it = imports.find(ch[0]);
          // Another project module that computes the value with the function (an unchanged helper).
          if (it != imports.end() && it->second != module && !js_assertion_module(it->second) &&
              computed_elsewhere(ch, it->second, fn))
            return true;
          if (it == imports.end() || it->second != module) continue;
          if (module_aliases.count(ch[0]) && ch.size() < 2) continue;  // the module object alone
          return true;
        }
      }
      return false;
    };
    // A bare named constant of the module (`calc.ERROR`, `ERROR` imported from it): a name for a value.
    // Nested (`calc.Level.HIGH`) too; not one the module binds to a call (`FOUR = add(1, 3)`). A
    // value object of the module built from written-out values (`Money(150)`, `calc.Level('high')`,
    // `Money(cents=150)`) names a value the same way, unless its class computes with the function.
    std::function<bool(const std::string&, const std::string&)> named_constant = [&](const std::string& e, const std::string& fn) -> bool {
      static const rx::regex constant(R"(^(?:([A-Za-z_$][\w$]*)\.)?(?:[A-Za-z_$][\w$]*\.)*([A-Z][A-Z0-9_]*)$)");
      static const rx::regex value_object(R"(^(?:new)?(?:([A-Za-z_$][\w$]*)\.)?(?:[A-Za-z_$][\w$]*\.)*([A-Z][\w$]*)\((.*)\)$)");
      rx::smatch m;
      auto spec_of = [&](const std::string& root, const std::string& name) {
        if (!dynamic) return root;  // Java/Kotlin: the class (`Expected.FOUR`)
        auto it = imports.find(root.empty() ? name : root);
        return it == imports.end() ? std::string() : it->second;
      };
      // A constant's own value or name (`calc.Level.HIGH.value`), one entry of a constant table
      // (`calc.DEFAULTS['total']`): the constant itself.
      static const rx::regex accessor(R"((?:\.(?:value|name)|\[(?:'[^']*'|"[^"]*"|[0-9]+)\])$)");
      std::string bare = e;
      for (rx::smatch am; bare.size() < 400 && rx::regex_search(bare, am, accessor);) bare = bare.substr(0, static_cast<std::size_t>(am.position()));
      if (bare != e) return named_constant(bare, fn);
      if (rx::regex_match(e, m, constant)) {
        // A bare name the test file binds itself (`WARM = calc.add(1, 3)`) is read there.
        const bool own = !m[1].matched && !imports.count(m[2].str());
        const std::string& text = own ? *c.file.after : module_text(spec_of(m[1].str(), m[2].str()));
        return text.empty() || !constant_computed(text, m[2].str(), fn);
      }
      // (Go's exported functions are capitalised: only dynamic languages' and `new` classes.)
      if ((!dynamic && !starts_with(e, "new")) || !rx::regex_match(e, m, value_object) || closing_paren(e, e.find('(')) != e.size() - 1)
        return false;
      for (const auto& arg : split_top(m[3].str(), {","})) {
        std::string v = strip_spaces(arg);
        static const rx::regex keyword(R"(^[A-Za-z_]\w*=(?!=)(.+)$)");
        rx::smatch km;
        if (rx::regex_match(v, km, keyword)) v = km[1].str();
        if (!v.empty() && !literal_text(v) && !named_constant(v, fn) && !value_expression(v, "", fn, 0)) return false;
      }
      const std::string& text = module_text(spec_of(m[1].str(), m[2].str()));
      const auto cls = text.find("class " + m[2].str());
      if (cls == std::string::npos) return true;
      static const rx::regex next_top(R"(\n(?:class|def|function|export|const|let|var|async)\b)");
      rx::smatch nm;
      const std::string rest = text.substr(cls + 1);
      const std::string body = rx::regex_search(rest, nm, next_top) ? rest.substr(0, static_cast<std::size_t>(nm.position())) : rest;
      return !computes_with(body, fn);
    };
    auto pinned_in = [&](const TestUnit& t, const std::string& checked) {
      return std::any_of(t.asserts.begin(), t.asserts.end(), [&](const Assertion& b) {
        return b.kind == Kind::eq && b.operands.size() == 1 && spelled(*b.operands.begin()) == checked;
      });
    };
    auto flag = [&](const Assertion& a, const std::string& checked, const std::string& by, const std::string& module) {
      out.push_back({"assertion_weakened", c.file.path, a.line,
                     "test " + at.name + ": the expected value of " + quote(checked) + " was a literal and is now computed by " + by +
                         " of the code under test" + (module == "." ? std::string() : " (" + module + ")") +
                         ": a change to that code moves both sides of the check"});
    };
    // Results of one function combined by arithmetic, with literals at most (`add(2, 2) - add(1, 3)`,
    // `add(2, 3) / add(3, 2)`): the function, when there are two calls of it or more; none otherwise.
    std::function<std::pair<std::string, std::string>(const std::string&, const std::map<std::string, std::string>*)> relation_of =
        [&](const std::string& op, const std::map<std::string, std::string>* from) -> std::pair<std::string, std::string> {
      std::pair<std::string, std::string> fn;
      int calls = 0;
      // (An absolute value of it relates the same results: `abs(add(2, 2) - add(1, 3))`.)
      static const rx::regex absolute(R"(^(?:Math\.abs|abs|math\.fabs|fabs)\((.*)\)$)");
      rx::smatch am;
      if (rx::regex_match(op, am, absolute) && closing_paren(op, op.find('(')) == op.size() - 1) return relation_of(am[1].str(), from);
      for (const auto& written : split_top(op, {"-", "+", "*", "/", "%"})) {
        // (A unary minus and `//` leave empty terms: `-add(1, 3) + add(2, 2)`, `a // b`. The new
        // test's terms are read through its locals: `x = add(2, 2)` ... `x - y`.)
        const std::string term = from ? written : through_locals(written);
        if (term.empty() || literal_text(term)) continue;
        const auto open = term.find('(');
        if (open == std::string::npos || open == 0 || closing_paren(term, open) != term.size() - 1) return {};
        const auto f = callee(term, from);
        if (f.first.empty() || f.second.empty() || (!fn.first.empty() && f != fn)) return {};
        fn = f;
        ++calls;
      }
      return calls >= 2 ? fn : std::pair<std::string, std::string>{};
    };
    // A check that pins a call of `fn`: an equality one of whose sides calls it (`add(2, 2) == 5`,
    // `[add(a, b) for ...] == [5, 1]`, `add(a, b) == want` over a table, through a local bound to
    // the call: `got = add(2, 2)` ... `got == 5`) and whose other side does not, and that is no
    // relation of its results (`add(2, 2) - add(1, 3) == 0`). The file's helpers it calls count
    // (`check(a, b, want)` asserting `add(a, b) == want`).
    const auto reads_fn = [&](const std::string& op, const std::pair<std::string, std::string>& fn, const std::map<std::string, std::string>* from) {
      for (std::size_t pos = op.find(fn.first + "("); pos != std::string::npos; pos = op.find(fn.first + "(", pos + 1)) {
        std::size_t start = pos;
        while (start > 0 && (std::isalnum(static_cast<unsigned char>(op[start - 1])) || op[start - 1] == '_' || op[start - 1] == '$' || op[start - 1] == '.'))
          --start;
        if (callee(op.substr(start), from) == fn) return true;
        // (Whitespace is removed: `await add(2, 2)` reads `awaitadd(2,2)`.)
        for (const std::string_view kw : {"await", "not", "new", "typeof", "yield"})
          if (op.compare(start, kw.size(), kw) == 0 && callee(op.substr(start + kw.size()), from) == fn) return true;
      }
      return false;
    };
    const auto pins_call = [&](const TestUnit& t, const std::pair<std::string, std::string>& fn, const std::map<std::string, std::string>* from) {
      if (&t == &*bt)  // the old test: a check whose one operand is the call
        return std::any_of(t.asserts.begin(), t.asserts.end(), [&](const Assertion& b) {
          if (b.kind != Kind::eq || b.operands.size() != 1) return false;
          const std::string op = spelled(*b.operands.begin());
          return callee(op, from) == fn && relation_of(op, from).first.empty();
        });
      std::vector<const TestUnit*> units = {&t};
      for (const auto& h : c.after.helpers)
        if (t.calls.count(h.name)) units.push_back(&h);
      for (const TestUnit* u : units)
        for (const Assertion& b : u->asserts) {
          // (A check that may not run here, under a platform condition, pins nothing here.)
          if ((b.kind != Kind::eq && b.kind != Kind::approx) || b.optional || !b.dead.empty()) continue;
          std::vector<std::string> ops;
          for (const auto& o : b.operands)
            if (!o.empty() && o[0] != '"' && o[0] != '\'' && o[0] != '`') ops.push_back(o);
          if (ops.size() == 1) {
            const std::string op = through_locals(spelled(ops[0]));
            if (reads_fn(op, fn, from) && relation_of(op, from).first.empty()) return true;
          } else if (ops.size() == 2) {
            const bool r0 = reads_fn(through_locals(spelled(ops[0])), fn, from), r1 = reads_fn(through_locals(spelled(ops[1])), fn, from);
            if (r0 == r1) continue;
            const std::string& other = r0 ? ops[1] : ops[0];
            if (!reads_module(through_locals(spelled(computed.count(other) ? computed[other] : other)), fn.second, fn.first)) return true;
          }
        }
      return false;
    };
    // (Not when the file defines a function of that name itself: the call is its own reference.)
    const auto own_definition = [&](const std::string& fn) {
      const std::string name = rx::regex_replace(fn, detail::cached_regex(R"(\$)"), R"(\$)");
      return rx::regex_search(*c.file.after, detail::cached_regex(R"((?:\bdef|\bfunction)\s+)" + name + R"(\s*\(|\b(?:const|let|var)\s+)" + name + R"(\s*=)"));
    };
    for (const auto& a : at.asserts) {
      if (a.kind != Kind::eq) continue;
      if (a.operands.size() == 1 && dynamic) {
        // The actual side adjusted by the module's own values (`calc.add(2, 2) - calc.OFFSET == 4`).
        const std::string op = spelled(*a.operands.begin());
        // A relation written as a pin (`add(2, 2) - add(1, 3) == 0`, `add(2, 3) / add(3, 2) == 1`):
        // results of one function combined and compared with a literal. When the old test pinned a
        // call of it with a literal and no check pins one now, its only oracle became a relation
        // between the function's own results: a change to the function moves every term alike.
        // Also when other pins of it remain: a call the old test pinned (`add(2, 2) == 4`) that
        // is now only a term of such a relation and pinned nowhere lost its literal oracle (a pin
        // kept at an input where the bug does not show cannot stand in for it).
        // (Only a relation that any constant function meets, `add(2, 2) - add(3, 3) == 0`,
        // `add(2, 2) / add(3, 3) == 1`: a difference that only the right function meets,
        // `add(2, 2) - add(1, 1) == 2`, still checks the function.)
        const auto pin_now_related = [&](const std::pair<std::string, std::string>& fn) {
          std::string line;
          for_each_capped_line(*c.file.after, [&](int n, const std::string& text) {
            if (n == a.line) line = code_only(text, c.lang);
          });
          line.erase(std::remove_if(line.begin(), line.end(), [](unsigned char ch) { return std::isspace(ch); }), line.end());
          const auto at_op = line.find(op);
          if (at_op == std::string::npos) return false;
          line.erase(at_op, op.size());
          static const rx::regex number(R"((?:^|[^\w$.])(-?\d+(?:\.\d+)?)(?![\w.]))");
          std::vector<double> literals;
          for (rx::sregex_iterator it(line.begin(), line.end(), number), e; it != e; ++it) literals.push_back(std::stod((*it)[1].str()));
          if (literals.size() != 1) return false;
          const auto v1 = with_constant_results(op, fn.first, 3), v2 = with_constant_results(op, fn.first, 7);
          if (!v1 || !v2 || std::fabs(*v1 - literals[0]) > 1e-9 || std::fabs(*v2 - literals[0]) > 1e-9) return false;
          return std::any_of(bt->asserts.begin(), bt->asserts.end(), [&](const Assertion& b) {
            if (b.kind != Kind::eq || b.operands.size() != 1) return false;
            const std::string pinned = spelled(*b.operands.begin());
            return callee(pinned, &imports_before) == fn && relation_of(pinned, &imports_before).first.empty() &&
                   op.find(pinned) != std::string::npos && !pinned_in(at, pinned);
          });
        };
        if (const auto fn = relation_of(op, nullptr); !fn.first.empty() && !js_assertion_module(fn.second) &&
                                                      pins_call(*bt, fn, &imports_before) &&
                                                      (!pins_call(at, fn, nullptr) || pin_now_related(fn)) && !own_definition(fn.first)) {
          flag(a, op, fn.first + " (its own results combined, compared with a literal)", fn.second);
          return;
        }
        for (const auto& b : bt->asserts) {
          if (b.kind != Kind::eq || b.operands.size() != 1) continue;
          const std::string pinned = spelled(*b.operands.begin());
          const auto [f1, m1] = callee(pinned);
          const auto where = op.find(pinned);
          if (f1.empty() || m1.empty() || js_assertion_module(m1) || op == pinned || where == std::string::npos) continue;
          // (Values, not calls: `add(2, 2) - add(1, 1) == 2` relates two results of the function.)
          const std::string rest = op.substr(0, where) + op.substr(where + pinned.size());
          bool value_read = false;
          for (const auto& ch : name_chains(rest)) {
            auto it = imports.find(ch[0]);
            if (it == imports.end() || it->second != m1 || (module_aliases.count(ch[0]) && ch.size() < 2)) continue;
            std::string chain = ch[0];
            for (std::size_t k = 1; k < ch.size(); ++k) chain += "." + ch[k];
            const auto pos = rest.find(chain);
            if (pos != std::string::npos && (pos + chain.size() >= rest.size() || rest[pos + chain.size()] != '(')) value_read = true;
          }
          if (!value_read || pinned_in(at, pinned)) continue;
          flag(a, pinned, "values", m1);
          return;
        }
        continue;
      }
      // Two compared values; with a third, one is a message (`assert.strictEqual(got, want, expr)`,
      // `assertEqual(a, b, msg)`): every ordered pair is tried (a message is no call of the code).
      if (a.operands.size() != 2 && a.operands.size() != 3) continue;
      const std::vector<std::string> ops(a.operands.begin(), a.operands.end());
      std::vector<std::pair<std::string, std::string>> pairs;
      auto message_like = [](const std::string& o) {  // a string or template: what a message is
        return !o.empty() && (o[0] == '"' || o[0] == '\'' || o[0] == '`' || ((o[0] == 'f' || o[0] == 'F') && o.size() > 1 && (o[1] == '"' || o[1] == '\'')));
      };
      for (std::size_t i = 0; i < ops.size(); ++i)
        for (std::size_t j = 0; j < ops.size(); ++j)
          if (i != j && (ops.size() == 2 || !message_like(ops[j]))) pairs.emplace_back(ops[i], ops[j]);
      for (const auto& [checked_as_written, other] : pairs) {
        // (In Go, Java, Kotlin, C++ and Rust through a local bound once to the call: `got := Add(...)`.)
        // (Through locals bound to the call, copies included: `got := Add(2, 2); v := got`.)
        const std::string checked = through_locals(spelled(checked_as_written));
        const auto [f1, m1] = callee(checked);
        if (f1.empty() || m1.empty() || (dynamic && js_assertion_module(m1))) continue;
        const std::string oracle = through_locals(spelled(computed.count(other) ? computed[other] : other));
        std::string data;  // a call of the function the patch added to the file as data, when that is the oracle's source
        if (!reads_module(oracle, m1, f1)) {
          // A total accumulated from calls is judged only against an expected value that reads the
          // module: against a formula over the inputs (`sum(a + b + 1 for a, b in PAIRS)`) it is checked.
          if (accumulated.count(strip_spaces(checked_as_written)) || accumulated.count(strip_spaces(other))) continue;
          // The expected value comes from somewhere the rule does not follow (a module-level
          // table, a fixture, a helper, a loop's rows, a parameter source): it is the oracle
          // when the patch added a call of the same function to the test file as data, that no
          // check looks at. A literal or a table of literals is not.
          // (A named constant imported from a module that binds it to a written-out value:
          // `SUM_2_2 = 4` beside a `BASELINE = calc.add(0, 0)` in the same constants module.)
          if (literal_values(oracle) || value_expression(oracle, m1, f1, 0) || literal_table(oracle, 0) || literal_table(strip_spaces(other), 0) ||
              (rx::regex_match(oracle, detail::cached_regex(R"(^[A-Z][A-Z0-9_]*$)")) && imports.count(oracle) &&
               !module_text(imports.at(oracle)).empty() && named_constant(oracle, f1)))
            continue;
          data = added_data_call(f1, m1, strip_spaces(other), at);
          if (data.empty()) continue;
        } else {
          // Named constants only, in each value it may hold (rows of a table, a helper's returns).
          bool only_constants = true;
          for (const auto& part : split_top(oracle, {";"}))
            if (!part.empty() && !named_constant(part, f1) && reads_module(part, m1, f1)) only_constants = false;
          if (only_constants) continue;
        }
        // Before, the same call was compared with a literal, nothing compared the module with
        // itself, and no check still pins the call now.
        const bool oracle_before = std::any_of(bt->asserts.begin(), bt->asserts.end(), [&](const Assertion& b) {
          return b.operands.size() == 2 && std::all_of(b.operands.begin(), b.operands.end(), [&](const std::string& o) {
                   return reads_module(o, m1, f1) || callee(spelled(o)) == std::pair{f1, m1};
                 });
        });
        // A call of a table's parameters (`add(a, b)` with `a`, `b` from parametrize rows or an
        // `.each` table) stands for the call the old test pinned with literal arguments.
        bool table_call = false;
        for (const auto& ch : name_chains(checked.substr(std::min(checked.size(), checked.find('('))))) {
          std::string chain = ch[0];
          for (std::size_t k = 1; k < ch.size(); ++k) chain += "." + ch[k];
          if (table.count(ch[0]) || table.count(chain)) table_call = true;
        }
        // (Python and JavaScript: a call of the same function pinned with other arguments, when no
        // check pins any call of it now: the test's only literal oracle for it became a relation
        // between its own results, `add(2, 3) == add(3, 2)`, a total against a total.)
        const bool relation_only = dynamic && pins_call(*bt, {f1, m1}, &imports_before) && !pins_call(at, {f1, m1}, nullptr) && !own_definition(f1);
        const bool pinned_before = pinned_in(*bt, checked) || relation_only ||
                                   std::any_of(bt->asserts.begin(), bt->asserts.end(), [&](const Assertion& b) {
                                     // The same call pinned under the old imports (`add(2, 2)` then
                                     // `calc.add(2, 2)` once the module object is imported).
                                     return b.kind == Kind::eq && b.operands.size() == 1 &&
                                            ((table_call || !data.empty()) ? callee(spelled(*b.operands.begin())) == std::pair{f1, m1}
                                                                            : dynamic && spelled(*b.operands.begin()) ==
                                                                                             checked.substr(checked.find(f1 + "(") == std::string::npos ? 0 : checked.find(f1 + "(")) &&
                                                                                  callee(spelled(*b.operands.begin()), &imports_before) == std::pair{f1, m1});
                                   });
        if (!pinned_before || oracle_before || pinned_in(at, checked)) continue;
        if (!data.empty()) {
          out.push_back({"assertion_weakened", c.file.path, a.line,
                         "test " + at.name + ": the expected value of " + quote(checked) + " was a literal and is now `" +
                             quote(other) + "`, data the patch builds with the code under test (`" + quote(data) +
                             "`): a change to that code moves both sides of the check"});
          return;
        }
        const auto [f2, m2] = callee(oracle);
        flag(a, checked, !f2.empty() && m2 == m1 ? f2 + (f2 == f1 ? " (with other arguments)" : "") : "values", m1);
        return;
      }
    }
  }
}

}  // namespace flowagent::integrity
