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
#include <regex>

#include "integrity/guard_internal.hpp"

namespace flowagent::integrity {

namespace {

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
  static const std::regex py_from(R"(^\s*from\s+([\w.]+)\s+import\s+\(?([\w\s,]+)\)?)");
  static const std::regex js_req(R"((?:const|let|var)\s+(\{[^}]*\}|[\w$]+)\s*=\s*require\(\s*['"]([^'"]+)['"]\s*\))");
  static const std::regex js_imp(R"(import\s+(?:\*\s+as\s+)?(\{[^}]*\}|[\w$]+)(?:\s*,\s*(\{[^}]*\}))?\s+from\s+['"]([^'"]+)['"])");
  static const std::regex word(R"([\w$]+)");
  auto bind = [&](const std::string& list, const std::string& module) {
    std::string last;
    for (std::sregex_iterator w(list.begin(), list.end(), word), e; w != e; ++w) {
      if (w->str() == "as") continue;
      out[w->str()] = module;
    }
  };
  for_each_capped_line(text, [&](int, const std::string& line) {
    std::smatch m;
    if (lang == Lang::python && std::regex_search(line, m, py_from)) bind(m[2].str(), m[1].str());
    if (is_js(lang)) {
      if (std::regex_search(line, m, js_req)) bind(m[1].str(), m[2].str());
      if (std::regex_search(line, m, js_imp)) {
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
    static const std::regex method(R"(^(\s+)def\s+(\w+)\s*\(\s*(self|cls)\b)");
    static const std::regex class_attr(R"(^\s+(\w+)\s*=[^=])");
    static const std::regex self_attr(R"(\b(?:self|cls|TestCase|unittest\.TestCase|\w+\.__class__)\s*\.\s*(\w+)\s*=[^=])");
    static const std::regex set_attr(R"(\bsetattr\s*\(\s*[\w.]+\s*,\s*['"](\w+)['"])");
    static const std::regex pytest_attr(R"(^\s*(?:pytest|_pytest\.\w+)\s*\.\s*(\w+)\s*=[^=])");
    static const std::regex local_def(R"(^\s*(?:async\s+)?def\s+(\w+)\s*\()");
    static const std::regex local_assign(R"(^\s*(\w+)\s*(?::[^=]+)?=[^=])");
    for (const auto& [n, full] : added) {
      const std::string l = full.substr(0, kRegexLineChars);
      std::smatch m;
      if (std::regex_search(l, m, method) && unittest_assertion(m[2].str()) && !m[1].str().empty()) {
        flag(n, l, "the test class overrides unittest's " + m[2].str() + ": its checks no longer check");
        return;
      }
      if (std::regex_search(l, m, self_attr) && unittest_assertion(m[1].str())) {
        flag(n, l, "unittest's " + m[1].str() + " is replaced at run time");
        return;
      }
      if (std::regex_search(l, m, set_attr) && (unittest_assertion(m[1].str()) || assertion_like(m[1].str()))) {
        flag(n, l, "an assertion function (" + m[1].str() + ") is replaced at run time");
        return;
      }
      if (std::regex_search(l, m, pytest_attr)) {
        flag(n, l, "pytest's " + m[1].str() + " is replaced");
        return;
      }
      if (std::regex_search(l, m, class_attr) && unittest_assertion(m[1].str())) {
        flag(n, l, "the test class rebinds unittest's " + m[1].str());
        return;
      }
      for (const auto* re : {&local_def, &local_assign})
        if (std::regex_search(l, m, *re)) {
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
    static const std::regex decl(R"(^\s*(?:export\s+)?(?:const|let|var)\s+([\w$]+)\s*(?::[^=]+)?=\s*(.*))");
    static const std::regex destructure(R"(^\s*(?:const|let|var)\s+\{([^}]*)\}\s*=\s*(.*))");
    static const std::regex fn(R"(^\s*(?:export\s+)?(?:async\s+)?function\s*\*?\s*([\w$]+)\s*\()");
    static const std::regex assign(R"(^\s*(?:global(?:This)?\.)?([\w$]+)\s*=[^=>])");
    static const std::regex word(R"([\w$]+)");
    auto from_library = [&](const std::string& rhs) {
      std::smatch r;
      static const std::regex req(R"(^\s*(?:await\s+)?(?:require|import)\(\s*['"]([^'"]+)['"]\s*\))");
      if (std::regex_search(rhs, r, req)) return js_assertion_module(r[1].str()) || r[1].str()[0] != '.';
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
      std::smatch m;
      if (std::regex_search(l, m, decl) && guarded(m[1].str()) && !from_library(m[2].str())) {
        flag(n, l, "the assertion function " + m[1].str() + " is redefined in the test file");
        return;
      }
      if (std::regex_search(l, m, destructure) && !from_library(m[2].str())) {
        const std::string names = m[1].str();
        for (std::sregex_iterator w(names.begin(), names.end(), word), e; w != e; ++w)
          if (guarded(w->str()) || (assertion_like(w->str()) && w->str() != "check" && w->str() != "verify")) {
            flag(n, l, "assertion functions (" + w->str() + ") are bound to stand-ins in the test file");
            return;
          }
      }
      if (std::regex_search(l, m, fn) && guarded(m[1].str())) {
        flag(n, l, "the assertion function " + m[1].str() + " is redefined in the test file");
        return;
      }
      if (std::regex_search(l, m, assign) && guarded(m[1].str()) && !contains(l, "require(") && !contains(l, "import(")) {
        flag(n, l, "the assertion function " + m[1].str() + " is reassigned in the test file");
        return;
      }
    }
    return;
  }
  if (c.lang == Lang::java || c.lang == Lang::kotlin) {
    static const std::regex jdef(
        R"(^\s*(?:(?:public|private|protected|static|final|override|internal)\s+)*(?:fun\s+|[\w<>\[\],?]+[\w<>\[\],?\s]*\s+)(assert(?:Equals|NotEquals|True|False|Null|NotNull|Same|NotSame|That|Throws|ArrayEquals|IterableEquals|LinesMatch|All|DoesNotThrow|Timeout)|fail)\s*\()");
    for (const auto& [n, full] : added) {
      const std::string l = full.substr(0, kRegexLineChars);
      std::smatch m;
      if (std::regex_search(l, m, jdef) && !contains(l, "return ") && !contains(l, ";")) {
        flag(n, l, "the test file defines its own " + m[1].str() + ", shadowing the assertion library's");
        return;
      }
    }
    return;
  }
  if (c.lang == Lang::go) {
    static const std::regex gdef(R"(^\s*(?:var\s+)?(assert|require)\s*(?::=|=)|^\s*func\s+\([^)]*\)\s*(Equal|True|False|Nil|NoError)\s*\()");
    for (const auto& [n, full] : added) {
      const std::string l = full.substr(0, kRegexLineChars);
      std::smatch m;
      if (std::regex_search(l, m, gdef)) {
        flag(n, l, "testify's assertion package is shadowed in the test file");
        return;
      }
    }
  }
}

void oracle_replacement_rules(const RuleContext& c, Findings& out) {
  // Decision (docs/INTEGRITY.md): comparing two functions of the code under test is an honest
  // oracle test; it is a cheat only when a check that pinned a literal now takes its expected
  // value from another function of the same module (`assert add(2, 2) == 4` ->
  // `want = add_all([2, 2]); assert add(2, 2) == want`): a change to that module moves both sides.
  if (!c.file.before || !c.file.after || !c.test_file || !c.before.parsed || !c.after.parsed || (c.lang != Lang::python && !is_js(c.lang))) return;
  auto imports = imported_names(*c.file.after, c.lang);
  if (c.lang == Lang::python) {  // `import calc` / `import calc as c`: the module object's name
    static const std::regex module_import(R"((?:^|\n)\s*import\s+([\w.]+)(?:\s+as\s+(\w+))?)");
    const std::string& text = *c.file.after;
    for (std::sregex_iterator it(text.begin(), text.end(), module_import), end; it != end; ++it)
      imports.emplace((*it)[2].matched ? (*it)[2].str() : (*it)[1].str(), (*it)[1].str());
  }
  static const std::regex call_re(R"(^([A-Za-z_$][\w$]*)(?:\.([A-Za-z_$][\w$]*))?\()");
  // The function a call names and the module it comes from ("" when not imported).
  auto callee = [&](const std::string& operand) -> std::pair<std::string, std::string> {
    std::smatch m;
    if (!std::regex_search(operand, m, call_re)) return {};
    if (m[2].matched) {  // `calc.add(` : the module object's name (or what it was imported from)
      auto it = imports.find(m[1].str());
      return {m[2].str(), it != imports.end() ? it->second : m[1].str()};
    }
    auto it = imports.find(m[1].str());
    return {m[1].str(), it != imports.end() ? it->second : std::string()};
  };
  std::vector<std::string> lines;
  for_each_capped_line(*c.file.after, [&](int, const std::string& l) { lines.push_back(l); });
  static const std::regex assign(R"(^\s*(?:(?:const|let|var)\s+)?([A-Za-z_$][\w$]*)\s*=\s*([^=].*?)\s*;?\s*$)");
  for (const auto& at : c.after.tests) {
    auto bt = std::find_if(c.before.tests.begin(), c.before.tests.end(), [&](const TestUnit& t) { return t.name == at.name; });
    if (bt == c.before.tests.end()) continue;
    std::map<std::string, std::string> computed;  // variable -> call, whitespace removed
    for (int n = at.line; n <= at.end_line && n >= 1 && static_cast<std::size_t>(n) <= lines.size(); ++n) {
      std::smatch m;
      if (std::regex_match(lines[static_cast<std::size_t>(n - 1)], m, assign)) computed[m[1].str()] = strip_spaces(m[2].str());
    }
    for (const auto& a : at.asserts) {
      if (a.kind != Kind::eq || a.operands.size() != 2) continue;
      const std::string& x = *a.operands.begin();
      const std::string& y = *std::next(a.operands.begin());
      for (const auto& [checked, other] : {std::pair{x, y}, std::pair{y, x}}) {
        const auto [f1, m1] = callee(checked);
        if (f1.empty() || m1.empty()) continue;
        const std::string oracle = computed.count(other) ? computed[other] : other;
        const auto [f2, m2] = callee(oracle);
        if (f2.empty() || f2 == f1 || m2 != m1) continue;
        // Before, the same call was compared with a literal (its only operand), and nothing
        // compared it with the other function.
        const bool pinned = std::any_of(bt->asserts.begin(), bt->asserts.end(), [&](const Assertion& b) {
          return b.kind == Kind::eq && b.operands.size() == 1 && *b.operands.begin() == checked;
        });
        const bool oracle_before = std::any_of(bt->asserts.begin(), bt->asserts.end(), [&](const Assertion& b) {
          return std::any_of(b.operands.begin(), b.operands.end(), [&](const std::string& o) { return callee(o).first == f2; });
        });
        if (!pinned || oracle_before) continue;
        out.push_back({"assertion_weakened", c.file.path, a.line,
                       "test " + at.name + ": the expected value of " + quote(checked) + " was a literal and is now computed by " + f2 +
                           " of the code under test (" + m1 + "): a change to that module moves both sides of the check"});
        return;
      }
    }
  }
}

}  // namespace flowagent::integrity
