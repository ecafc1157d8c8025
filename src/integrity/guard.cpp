// The test-integrity guard: tree-sitter models of the tests before and after a patch, compared.
#include <tree_sitter/api.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "flowagent/integrity.hpp"
#include "reports/test_identity.hpp"

extern "C" {
const TSLanguage* tree_sitter_python();
const TSLanguage* tree_sitter_java();
const TSLanguage* tree_sitter_kotlin();
const TSLanguage* tree_sitter_cpp();
const TSLanguage* tree_sitter_javascript();
const TSLanguage* tree_sitter_typescript();
const TSLanguage* tree_sitter_tsx();
const TSLanguage* tree_sitter_go();
const TSLanguage* tree_sitter_rust();
}

namespace flowagent {

namespace {

enum class Lang { none, python, java, kotlin, cpp, javascript, typescript, tsx, go, rust };

bool ends_with(std::string_view s, std::string_view x) { return s.size() >= x.size() && s.substr(s.size() - x.size()) == x; }
bool starts_with(std::string_view s, std::string_view x) { return s.substr(0, x.size()) == x; }
bool contains(std::string_view s, std::string_view x) { return s.find(x) != std::string_view::npos; }

Lang lang_of(std::string_view path) {
  static const std::pair<std::string_view, Lang> kExt[] = {
      {".py", Lang::python},   {".java", Lang::java},         {".kt", Lang::kotlin},     {".kts", Lang::kotlin},
      {".cc", Lang::cpp},      {".cpp", Lang::cpp},           {".cxx", Lang::cpp},       {".h", Lang::cpp},
      {".hpp", Lang::cpp},     {".hh", Lang::cpp},            {".js", Lang::javascript}, {".jsx", Lang::javascript},
      {".mjs", Lang::javascript}, {".cjs", Lang::javascript}, {".ts", Lang::typescript}, {".mts", Lang::typescript},
      {".tsx", Lang::tsx},     {".go", Lang::go},             {".rs", Lang::rust}};
  for (auto [ext, l] : kExt)
    if (ends_with(path, ext)) return l;
  return Lang::none;
}

const TSLanguage* ts_language(Lang l) {
  switch (l) {
    case Lang::python: return tree_sitter_python();
    case Lang::java: return tree_sitter_java();
    case Lang::kotlin: return tree_sitter_kotlin();
    case Lang::cpp: return tree_sitter_cpp();
    case Lang::javascript: return tree_sitter_javascript();
    case Lang::typescript: return tree_sitter_typescript();
    case Lang::tsx: return tree_sitter_tsx();
    case Lang::go: return tree_sitter_go();
    case Lang::rust: return tree_sitter_rust();
    case Lang::none: return nullptr;
  }
  return nullptr;
}

enum class Kind { eq, approx, range, type, throws_specific, throws_broad, other };

int strength(Kind k) {
  switch (k) {
    case Kind::eq: case Kind::throws_specific: return 4;
    case Kind::approx: return 3;
    case Kind::range: return 2;
    default: return 1;
  }
}

struct Assertion {
  Kind kind = Kind::other;
  double tolerance = -1;
  int line = 0;
  bool swallowed = false;
};

struct TestUnit {
  std::string name;
  int line = 0;
  std::set<std::string> markers;  // skip/ignore/disable markers
  bool conditional = false;       // every marker is conditional on the platform
  bool focus = false;             // .only / fit: other tests stop running
  std::vector<Assertion> asserts;
  std::size_t body_hash = 0;
};

struct FileModel {
  bool parsed = false;
  std::vector<TestUnit> tests;
  std::set<std::string> file_markers;
  std::string comments;
};

bool platform_condition(std::string_view text) {
  static constexpr std::string_view kWords[] = {"sys.platform", "os.name", "platform.system", "runtime.GOOS",
                                                "target_os", "OnOs", "process.platform", "_WIN32", "__APPLE__",
                                                "IS_WINDOWS", "win32", "darwin"};
  return std::any_of(std::begin(kWords), std::end(kWords), [&](auto w) { return contains(text, w); });
}

/// Markers that disable a test, found in decorator/annotation/attribute/call text.
std::optional<std::string> skip_marker(std::string_view text) {
  static constexpr std::string_view kMarkers[] = {
      "pytest.mark.skip", "pytest.mark.xfail", "unittest.skip", "unittest.expectedFailure", "@skip", "@expectedFailure",
      "@Ignore", "junit.Ignore", "@Disabled", "enabled = false", "enabled=false", "#[ignore", "GTEST_SKIP", "DISABLED_"};
  for (auto m : kMarkers)
    if (contains(text, m)) return std::string(m);
  return std::nullopt;
}

std::size_t hash_without(std::string text, const std::string& name) {
  if (!name.empty())
    for (std::size_t p = text.find(name); p != std::string::npos; p = text.find(name)) text.erase(p, name.size());
  text.erase(std::remove_if(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c); }), text.end());
  return std::hash<std::string>{}(text);
}

double number_after(std::string_view text, std::string_view key) {
  auto p = text.find(key);
  if (p == std::string_view::npos) return -1;
  p += key.size();
  while (p < text.size() && (text[p] == ' ' || text[p] == '=' || text[p] == ':')) ++p;
  std::string num;
  while (p < text.size() && (std::isdigit(static_cast<unsigned char>(text[p])) || text[p] == '.' || text[p] == 'e' ||
                             text[p] == '-' || text[p] == '+'))
    num += text[p++];
  try {
    return num.empty() ? -1 : std::stod(num);
  } catch (...) {
    return -1;
  }
}

/// Last numeric argument of a call text like "EXPECT_NEAR(a, b, 0.01)".
double last_number_arg(std::string_view text) {
  auto close = text.rfind(')');
  auto comma = text.rfind(',', close);
  if (comma == std::string_view::npos) return -1;
  std::string arg(text.substr(comma + 1, close - comma - 1));
  arg.erase(std::remove_if(arg.begin(), arg.end(), [](unsigned char c) { return std::isspace(c) || c == 'f' || c == 'F'; }), arg.end());
  try {
    std::size_t used = 0;
    double v = std::stod(arg, &used);
    return used == arg.size() ? v : -1;
  } catch (...) {
    return -1;
  }
}

class Analyzer {
 public:
  Analyzer(Lang lang, const std::string& src) : lang_(lang), src_(src) {}

  FileModel run() {
    FileModel m;
    const TSLanguage* language = ts_language(lang_);
    if (!language) return m;
    TSParser* parser = ts_parser_new();
    if (!ts_parser_set_language(parser, language)) {
      ts_parser_delete(parser);
      return m;
    }
    TSTree* tree = ts_parser_parse_string(parser, nullptr, src_.data(), static_cast<uint32_t>(src_.size()));
    ts_parser_delete(parser);
    if (!tree) return m;
    model_ = &m;
    visit(ts_tree_root_node(tree), "", nullptr, 0, false);
    ts_tree_delete(tree);
    m.parsed = true;
    return m;
  }

 private:
  std::string text(TSNode n) const {
    return src_.substr(ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n));
  }
  static std::string_view type(TSNode n) { return ts_node_type(n); }
  static int line(TSNode n) { return static_cast<int>(ts_node_start_point(n).row) + 1; }
  TSNode field(TSNode n, const char* name) const {
    return ts_node_child_by_field_name(n, name, static_cast<uint32_t>(std::strlen(name)));
  }

  /// The callee's last name segment of a call-like node, or "".
  std::string callee(TSNode n) const {
    std::string_view t = type(n);
    TSNode f{};
    if (t == "call" || t == "call_expression") f = field(n, "function");
    else if (t == "method_invocation") f = field(n, "name");
    else if (t == "macro_invocation") f = field(n, "macro");
    if (ts_node_is_null(f) && ts_node_named_child_count(n) > 0) f = ts_node_named_child(n, 0);
    if (ts_node_is_null(f)) return {};
    // Member chains (expect(x).toBe, self.assertEqual, t.Errorf, assert.Equal): the last member.
    for (const char* member : {"property", "attribute", "field", "name"}) {
      std::string_view ft = type(f);
      if (ft == "member_expression" || ft == "attribute" || ft == "field_expression" || ft == "selector_expression" ||
          ft == "scoped_identifier" || ft == "qualified_identifier") {
        TSNode m = field(f, member);
        if (!ts_node_is_null(m)) return text(m);
      }
    }
    std::string s = text(f);
    auto paren = s.find('(');
    if (paren != std::string::npos && s.find('.') == std::string::npos) s = s.substr(0, paren);
    auto cut = s.find_last_of(".:>");
    return cut == std::string::npos ? s : s.substr(cut + 1);
  }

  /// The arguments of a call, split at top-level commas and trimmed.
  std::vector<std::string> call_args(TSNode n) const {
    std::vector<std::string> out;
    TSNode args = field(n, "arguments");
    if (ts_node_is_null(args))
      for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
        if (type(ts_node_named_child(n, i)) == "argument_list" || type(ts_node_named_child(n, i)) == "token_tree" ||
            type(ts_node_named_child(n, i)) == "value_arguments" || type(ts_node_named_child(n, i)) == "call_suffix")
          args = ts_node_named_child(n, i);
    if (ts_node_is_null(args)) return out;
    for (uint32_t i = 0; i < ts_node_named_child_count(args); ++i) {
      std::string a = text(ts_node_named_child(args, i));
      a.erase(std::remove_if(a.begin(), a.end(), [](unsigned char c) { return std::isspace(c); }), a.end());
      out.push_back(a);
    }
    return out;
  }

  std::optional<Assertion> classify_call(TSNode n) const {
    const std::string name = callee(n);
    if (name.empty()) return std::nullopt;
    const std::string t = text(n);
    Assertion a;
    a.line = line(n);
    static const std::set<std::string, std::less<>> kEq = {
        "assertEqual", "assertEquals", "assertSame", "assertListEqual", "assertDictEqual", "assertSequenceEqual",
        "assertTupleEqual", "assertCountEqual", "assertMultiLineEqual", "assertArrayEquals", "assertIterableEquals",
        "EXPECT_EQ", "ASSERT_EQ", "EXPECT_STREQ", "ASSERT_STREQ", "EXPECT_DOUBLE_EQ", "ASSERT_DOUBLE_EQ",
        "EXPECT_FLOAT_EQ", "toBe", "toEqual", "toStrictEqual", "strictEqual", "deepStrictEqual", "equal",
        "deepEqual", "assert_eq", "isEqualTo", "Equal", "EqualValues", "Exactly", "assertContentEquals"};
    static const std::set<std::string, std::less<>> kApprox = {"assertAlmostEqual", "EXPECT_NEAR", "ASSERT_NEAR",
                                                               "toBeCloseTo", "InDelta", "InEpsilon", "isCloseTo"};
    static const std::set<std::string, std::less<>> kRange = {
        "assertGreater", "assertGreaterEqual", "assertLess", "assertLessEqual", "EXPECT_GT", "EXPECT_GE", "EXPECT_LT",
        "EXPECT_LE", "ASSERT_GT", "ASSERT_GE", "ASSERT_LT", "ASSERT_LE", "toBeGreaterThan", "toBeGreaterThanOrEqual",
        "toBeLessThan", "toBeLessThanOrEqual", "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "isGreaterThan",
        "isLessThan", "assertNotEqual", "assertNotEquals", "EXPECT_NE", "ASSERT_NE", "notStrictEqual", "assert_ne"};
    static const std::set<std::string, std::less<>> kType = {
        "assertIsNotNone", "assertIsNone", "assertIsInstance", "assertNotNull", "assertNull", "toBeDefined",
        "toBeTruthy", "toBeFalsy", "toBeInstanceOf", "toBeNull", "toBeUndefined", "NotNil", "Nil", "NotEmpty",
        "isNotNull", "isInstanceOf", "ok", "assertIn", "assertNotIn", "toContain", "Contains", "assertFalse"};
    static const std::set<std::string, std::less<>> kTruth = {"assertTrue", "EXPECT_TRUE", "ASSERT_TRUE", "assert",
                                                              "True", "assertThat", "check", "require"};
    static const std::set<std::string, std::less<>> kThrows = {"assertRaises", "raises", "assertThrows", "EXPECT_THROW",
                                                               "ASSERT_THROW", "toThrow", "throws", "rejects",
                                                               "toThrowError", "assertFailsWith", "Panics", "PanicsWithValue"};
    static const std::set<std::string, std::less<>> kBroadThrows = {"EXPECT_ANY_THROW", "ASSERT_ANY_THROW"};
    static const std::set<std::string, std::less<>> kGoFail = {"Error", "Errorf", "Fatal", "Fatalf", "Fail", "FailNow"};
    if (kEq.count(name)) {
      // JUnit assertEquals(expected, actual, delta) is approximate.
      if ((name == "assertEquals" || name == "assertEqual") && std::count(t.begin(), t.end(), ',') >= 2 &&
          last_number_arg(t) >= 0 && lang_ != Lang::python) {
        a.kind = Kind::approx;
        a.tolerance = last_number_arg(t);
      } else {
        a.kind = Kind::eq;
      }
      if (contains(t, ".not.")) a.kind = Kind::other;
      return a;
    }
    if (kApprox.count(name)) {
      a.kind = Kind::approx;
      a.tolerance = name == "toBeCloseTo" ? (last_number_arg(t) >= 0 ? std::pow(10.0, -last_number_arg(t)) : 0.005)
                    : name == "assertAlmostEqual" ? (contains(t, "delta") ? number_after(t, "delta")
                                                     : contains(t, "places") ? std::pow(10.0, -number_after(t, "places"))
                                                                              : 1e-7)
                                                  : last_number_arg(t);
      return a;
    }
    if (kRange.count(name)) {
      a.kind = Kind::range;
      return a;
    }
    if (kType.count(name)) {
      a.kind = Kind::type;
      return a;
    }
    if (kBroadThrows.count(name)) {
      a.kind = Kind::throws_broad;
      return a;
    }
    if (kThrows.count(name)) {
      // Specific unless the expected exception is missing or the broadest type.
      auto args = call_args(n);
      std::string expected_type;
      if (name == "EXPECT_THROW" || name == "ASSERT_THROW") expected_type = args.size() >= 2 ? args[1] : "";
      else if (name == "throws" || name == "rejects") expected_type = args.size() >= 2 ? args[1] : "";
      else if (name == "toThrow" || name == "toThrowError") expected_type = args.empty() ? "" : args[0];
      else expected_type = args.empty() ? "" : args[0];
      for (std::string_view suffix : {".class", "::class"})
        if (ends_with(expected_type, suffix)) expected_type.resize(expected_type.size() - suffix.size());
      static const std::set<std::string, std::less<>> kBroad = {"Exception", "BaseException", "Throwable", "Error",
                                                                "RuntimeException", "std::exception", "object"};
      a.kind = expected_type.empty() || kBroad.count(expected_type) ? Kind::throws_broad : Kind::throws_specific;
      return a;
    }
    if (kTruth.count(name) || starts_with(name, "assert")) {
      a.kind = comparison_kind(t);
      return a;
    }
    if (lang_ == Lang::go && kGoFail.count(name)) {
      // if got != want { t.Errorf(...) }: the condition tells what was checked.
      for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p)) {
        if (type(p) == "if_statement") {
          TSNode cond = field(p, "condition");
          a.kind = comparison_kind(ts_node_is_null(cond) ? text(p) : text(cond), /*negated=*/true);
          return a;
        }
        if (type(p) == "function_declaration" || type(p) == "func_literal") break;
      }
      a.kind = Kind::other;
      return a;
    }
    return std::nullopt;
  }

  /// Kind of a boolean expression: == is equality, ordering is range, no comparison is a truth or
  /// existence check. Go's failure branches are negated (`!=` guards an equality).
  static Kind comparison_kind(std::string_view t, bool negated = false) {
    if (contains(t, "approx(") || contains(t, "isclose(")) return Kind::approx;
    const std::string_view eq = negated ? "!=" : "==";
    if (contains(t, eq) || (!negated && contains(t, " is None")) || contains(t, "reflect.DeepEqual") ||
        contains(t, "cmp.Diff") || contains(t, ".equals("))
      return contains(t, " is None") ? Kind::type : Kind::eq;
    if (contains(t, "<") || contains(t, ">")) return Kind::range;
    return Kind::type;
  }

  /// Does this try/catch swallow failures? A handler that does not re-raise and catches assertion
  /// failures: any JS/TS catch (untyped), a bare or broad except/catch, or one naming the assertion
  /// error type.
  bool swallows(TSNode try_node) const {
    const uint32_t n = ts_node_named_child_count(try_node);
    for (uint32_t i = 0; i < n; ++i) {
      TSNode c = ts_node_named_child(try_node, i);
      std::string_view ct = type(c);
      if (ct != "except_clause" && ct != "catch_clause" && ct != "catch_block") continue;
      const std::string h = text(c);
      if (contains(h, "raise") || contains(h, "throw") || contains(h, "fail(") || contains(h, "FAIL("))
        continue;  // re-raised: nothing is swallowed
      if (lang_ == Lang::javascript || lang_ == Lang::typescript || lang_ == Lang::tsx) return true;
      // The handler's header: up to ':' in Python, up to '{' elsewhere.
      const std::string head = h.substr(0, h.find(lang_ == Lang::python ? ':' : '{'));
      if (lang_ == Lang::python && head.find_first_not_of(" \t", 6) == std::string::npos) return true;  // bare except
      if (contains(head, "(...)")) return true;
      // Whole type names only: catching IllegalArgumentException does not swallow an AssertionError.
      static const std::set<std::string, std::less<>> kCatchesFailures = {
          "Exception", "BaseException", "AssertionError", "AssertionFailedError", "Throwable", "Error",
          "std::exception", "AssertionException"};
      std::string word;
      for (char ch : head + " ") {
        if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == ':') {
          word += ch;
          continue;
        }
        if (kCatchesFailures.count(word) || kCatchesFailures.count(word.substr(word.rfind(':') == std::string::npos ? 0 : word.rfind(':') + 1)))
          return true;
        word.clear();
      }
    }
    return false;
  }

  void add_marker(TestUnit* unit, const std::string& marker, bool conditional) {
    if (!unit) {
      model_->file_markers.insert(marker);
      return;
    }
    if (unit->markers.empty()) unit->conditional = conditional;
    else unit->conditional = unit->conditional && conditional;
    unit->markers.insert(marker);
  }

  /// The part of a test that is its body (so a renamed test keeps its hash).
  TSNode body_of(TSNode n) const {
    TSNode b = field(n, "body");
    if (!ts_node_is_null(b)) return b;
    if (lang_ == Lang::javascript || lang_ == Lang::typescript || lang_ == Lang::tsx) {
      TSNode args = field(n, "arguments");
      if (!ts_node_is_null(args) && ts_node_named_child_count(args) > 0)
        return ts_node_named_child(args, ts_node_named_child_count(args) - 1);
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
      if (type(ts_node_named_child(n, i)) == "function_body") return ts_node_named_child(n, i);
    return n;
  }

  /// Recognises a test unit at `n`; returns its name or "".
  std::string unit_name(TSNode n, const std::string& scope, std::vector<std::string>& decorators, bool& focus) const {
    std::string_view t = type(n);
    switch (lang_) {
      case Lang::python:
        if (t == "function_definition") {
          TSNode name = field(n, "name");
          std::string s = ts_node_is_null(name) ? "" : text(name);
          if (!starts_with(s, "test")) return {};
          TSNode parent = ts_node_parent(n);
          if (!ts_node_is_null(parent) && type(parent) == "decorated_definition")
            for (uint32_t i = 0; i < ts_node_named_child_count(parent); ++i)
              if (type(ts_node_named_child(parent, i)) == "decorator") decorators.push_back(text(ts_node_named_child(parent, i)));
          return scope.empty() ? s : scope + "." + s;
        }
        return {};
      case Lang::java:
      case Lang::kotlin: {
        if (t != "method_declaration" && t != "function_declaration") return {};
        std::string mods;
        for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
          if (type(ts_node_named_child(n, i)) == "modifiers") mods = text(ts_node_named_child(n, i));
        if (!contains(mods, "@Test") && !contains(mods, "@ParameterizedTest") && !contains(mods, "@RepeatedTest") &&
            !contains(mods, "@TestFactory") && !contains(mods, "@TestTemplate"))
          return {};
        decorators.push_back(mods);
        TSNode name = field(n, "name");
        std::string s;
        if (!ts_node_is_null(name)) s = text(name);
        else
          for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
            if (type(ts_node_named_child(n, i)) == "simple_identifier") {
              s = text(ts_node_named_child(n, i));
              break;
            }
        return scope.empty() ? s : scope + "." + s;
      }
      case Lang::cpp: {
        if (t != "function_definition") return {};
        TSNode decl = field(n, "declarator");
        if (ts_node_is_null(decl)) return {};
        std::string d = text(decl);
        if (!(starts_with(d, "TEST(") || starts_with(d, "TEST_F(") || starts_with(d, "TEST_P(") ||
              starts_with(d, "TYPED_TEST(") || starts_with(d, "TYPED_TEST_P(")))
          return {};
        auto open = d.find('('), close = d.rfind(')');
        std::string args = d.substr(open + 1, close - open - 1);
        args.erase(std::remove_if(args.begin(), args.end(), [](unsigned char c) { return std::isspace(c); }), args.end());
        std::string suite = args.substr(0, args.find(',')), name = args.substr(args.find(',') + 1);
        for (auto* part : {&suite, &name})
          if (starts_with(*part, "DISABLED_")) {
            decorators.push_back("DISABLED_");
            part->erase(0, 9);
          }
        return suite + "." + name;
      }
      case Lang::javascript:
      case Lang::typescript:
      case Lang::tsx: {
        if (t != "call_expression") return {};
        TSNode fn = field(n, "function");
        if (ts_node_is_null(fn)) return {};
        std::string f = text(fn);
        std::string base = f.substr(0, f.find('.')), prop = f.find('.') == std::string::npos ? "" : f.substr(f.find('.') + 1);
        static const std::set<std::string> kTest = {"it", "test", "xit", "xtest", "fit", "specify"};
        if (!kTest.count(base)) return {};
        TSNode args = field(n, "arguments");
        if (ts_node_is_null(args) || ts_node_named_child_count(args) == 0) return {};
        TSNode first = ts_node_named_child(args, 0);
        if (type(first) != "string" && type(first) != "template_string") return {};
        std::string title = text(first);
        if (title.size() >= 2) title = title.substr(1, title.size() - 2);
        if (base[0] == 'x' || prop == "skip" || prop == "todo" || starts_with(prop, "skip")) decorators.push_back(f);
        if (base == "fit" || prop == "only") focus = true;
        // node:test options object: test('x', { skip: true }, fn)
        if (ts_node_named_child_count(args) >= 2) {
          std::string opt = text(ts_node_named_child(args, 1));
          if (type(ts_node_named_child(args, 1)) == "object" && (contains(opt, "skip") || contains(opt, "todo")))
            decorators.push_back(opt);
          if (type(ts_node_named_child(args, 1)) == "object" && contains(opt, "only")) focus = true;
        }
        return scope.empty() ? title : scope + " " + title;
      }
      case Lang::go:
        if (t == "function_declaration") {
          TSNode name = field(n, "name");
          std::string s = ts_node_is_null(name) ? "" : text(name);
          if (starts_with(s, "Test")) return s;
        }
        return {};
      case Lang::rust: {
        if (t != "function_item") return {};
        bool is_test = false;
        for (TSNode p = ts_node_prev_named_sibling(n); !ts_node_is_null(p) && type(p) == "attribute_item";
             p = ts_node_prev_named_sibling(p)) {
          std::string a = text(p);
          if (contains(a, "test]") || contains(a, "::test") || contains(a, "#[test")) is_test = true;
          decorators.push_back(a);
        }
        if (!is_test) return {};
        TSNode name = field(n, "name");
        return (scope.empty() ? "" : scope + "::") + (ts_node_is_null(name) ? "" : text(name));
      }
      case Lang::none: return {};
    }
    return {};
  }

  void visit(TSNode n, std::string scope, TestUnit* unit, int swallow_depth, bool recovering) {
    std::string_view t = type(n);
    if (t == "comment" || t == "line_comment" || t == "block_comment") {
      model_->comments += text(n);
      model_->comments += '\n';
      return;
    }
    // Scopes: classes and describe blocks name their tests.
    if (!unit) {
      if (t == "class_definition" || t == "class_declaration" || t == "object_declaration") {
        TSNode name = field(n, "name");
        std::string cls;
        if (!ts_node_is_null(name)) cls = text(name);
        else
          for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
            if (type(ts_node_named_child(n, i)) == "type_identifier") {
              cls = text(ts_node_named_child(n, i));
              break;
            }
        // Class-level skip markers apply to every test inside.
        std::string head = text(n).substr(0, text(n).find_first_of("{:"));
        TSNode parent = ts_node_parent(n);
        if (!ts_node_is_null(parent) && type(parent) == "decorated_definition") head = text(parent).substr(0, text(parent).find("class "));
        if (auto m = skip_marker(head)) add_marker(nullptr, "class " + cls + ": " + *m, platform_condition(head));
        for (uint32_t i = 0; i < ts_node_child_count(n); ++i)
          visit(ts_node_child(n, i), scope.empty() ? cls : scope + "." + cls, nullptr, swallow_depth, recovering);
        return;
      }
      if ((lang_ == Lang::javascript || lang_ == Lang::typescript || lang_ == Lang::tsx) && t == "call_expression") {
        TSNode fn = field(n, "function");
        std::string f = ts_node_is_null(fn) ? "" : text(fn);
        std::string base = f.substr(0, f.find('.'));
        if (base == "describe" || base == "xdescribe" || base == "fdescribe" || base == "suite" || base == "context") {
          TSNode args = field(n, "arguments");
          std::string title;
          if (!ts_node_is_null(args) && ts_node_named_child_count(args) > 0) {
            title = text(ts_node_named_child(args, 0));
            if (title.size() >= 2) title = title.substr(1, title.size() - 2);
          }
          if (base == "xdescribe" || contains(f, ".skip")) add_marker(nullptr, "describe " + title + ": " + f, false);
          if (base == "fdescribe" || contains(f, ".only")) add_marker(nullptr, "focus " + title, false);
          for (uint32_t i = 0; i < ts_node_child_count(n); ++i)
            visit(ts_node_child(n, i), scope.empty() ? title : scope + " " + title, nullptr, swallow_depth, recovering);
          return;
        }
      }
      if (lang_ == Lang::python && t == "expression_statement") {
        std::string s = text(n);
        if (starts_with(s, "pytestmark") || contains(s, "allow_module_level"))
          if (auto m = skip_marker(s)) add_marker(nullptr, "module: " + *m, platform_condition(s));
        if (contains(s, "pytest.skip(") && contains(s, "allow_module_level")) add_marker(nullptr, "module: pytest.skip", platform_condition(s));
      }
      if (lang_ == Lang::rust && t == "mod_item") {
        TSNode name = field(n, "name");
        for (uint32_t i = 0; i < ts_node_child_count(n); ++i)
          visit(ts_node_child(n, i), ts_node_is_null(name) ? scope : text(name), nullptr, swallow_depth, recovering);
        return;
      }
      std::vector<std::string> decorators;
      bool focus = false;
      std::string name = unit_name(n, scope, decorators, focus);
      if (!name.empty()) {
        TestUnit u;
        u.name = name;
        u.line = line(n);
        u.focus = focus;
        TSNode body_owner = n;
        TSNode parent = ts_node_parent(n);
        if (lang_ == Lang::python && !ts_node_is_null(parent) && type(parent) == "decorated_definition") u.line = line(parent);
        for (const auto& d : decorators) {
          if (auto m = skip_marker(d)) add_marker(&u, *m, platform_condition(d) && (contains(d, "skipif") || contains(d, "skipIf") || contains(d, "OnOs") || contains(d, "cfg_attr")));
          else if (contains(d, ".skip") || contains(d, "skip:") || contains(d, "todo") || starts_with(d, "x")) add_marker(&u, "skip: " + d.substr(0, 40), false);
          if (contains(d, "should_panic")) u.asserts.push_back(Assertion{contains(d, "expected") ? Kind::throws_specific : Kind::throws_broad, -1, u.line, false});
        }
        u.body_hash = hash_without(text(body_of(body_owner)), "");
        model_->tests.push_back(std::move(u));
        TestUnit* cur = &model_->tests.back();
        // Go: a deferred recover() swallows every failure of the test.
        bool rec = lang_ == Lang::go && contains(text(n), "recover()");
        for (uint32_t i = 0; i < ts_node_child_count(n); ++i) visit(ts_node_child(n, i), scope, cur, swallow_depth, rec);
        return;
      }
      for (uint32_t i = 0; i < ts_node_child_count(n); ++i) visit(ts_node_child(n, i), scope, nullptr, swallow_depth, recovering);
      return;
    }

    // Inside a test.
    if (t == "try_statement" || t == "try_expression") {
      const bool sw = swallows(n);
      for (uint32_t i = 0; i < ts_node_child_count(n); ++i) {
        TSNode c = ts_node_child(n, i);
        std::string_view ct = type(c);
        const bool body = ct == "block" || ct == "statement_block" || ct == "compound_statement" ||
                          (i == 1 && (ct == "statements" || ct == "block"));
        visit(c, scope, unit, swallow_depth + (sw && body ? 1 : 0), recovering);
      }
      return;
    }
    if (t == "assert_statement") {
      std::string s = text(n);
      Assertion a;
      a.line = line(n);
      a.kind = comparison_kind(s.substr(6));
      if (a.kind == Kind::approx) {
        double rel = number_after(s, "rel"), abs_tol = number_after(s, "abs");
        a.tolerance = std::max(rel, abs_tol);
        if (a.tolerance < 0) a.tolerance = 1e-6;  // pytest.approx default relative tolerance
      }
      a.swallowed = swallow_depth > 0 || recovering;
      unit->asserts.push_back(a);
      return;
    }
    if (t == "call" || t == "call_expression" || t == "method_invocation" || t == "macro_invocation") {
      const std::string name = callee(n);
      static const std::set<std::string> kSkipCalls = {"skip", "Skip", "SkipNow", "Skipf", "skipTest", "GTEST_SKIP", "todo"};
      if (kSkipCalls.count(name)) {
        // Conditional on the platform when an enclosing if says so.
        bool cond = false;
        for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p)) {
          std::string_view pt = type(p);
          if (pt == "if_statement" || pt == "if_expression") {
            TSNode c = field(p, "condition");
            cond = platform_condition(ts_node_is_null(c) ? text(p).substr(0, 120) : text(c));
            break;
          }
          if (pt == "function_definition" || pt == "function_declaration" || pt == "arrow_function" || pt == "function_item") break;
        }
        add_marker(unit, "call " + name, cond);
      } else if (name == "catch_unwind") {
        for (uint32_t i = 0; i < ts_node_child_count(n); ++i) visit(ts_node_child(n, i), scope, unit, swallow_depth + 1, recovering);
        return;
      } else if (auto a = classify_call(n)) {
        a->swallowed = swallow_depth > 0 || recovering;
        // Python: `with pytest.raises(...)` / `self.assertRaises(...)`; JS: expect(fn).toThrow().
        unit->asserts.push_back(*a);
        // Nested calls (expect(x).toBe(y) holds expect(x)) are part of the same assertion.
        return;
      }
    }
    for (uint32_t i = 0; i < ts_node_child_count(n); ++i) visit(ts_node_child(n, i), scope, unit, swallow_depth, recovering);
  }

  Lang lang_;
  const std::string& src_;
  FileModel* model_ = nullptr;
};

// ---- textual rules ----------------------------------------------------------------------------------

std::vector<std::pair<int, std::string>> added_lines(const std::optional<std::string>& before, const std::optional<std::string>& after) {
  std::multiset<std::string> old_lines;
  if (before) {
    std::size_t p = 0;
    while (p < before->size()) {
      auto e = before->find('\n', p);
      old_lines.insert(before->substr(p, e == std::string::npos ? std::string::npos : e - p));
      p = e == std::string::npos ? before->size() : e + 1;
    }
  }
  std::vector<std::pair<int, std::string>> out;
  if (!after) return out;
  std::size_t p = 0;
  int n = 0;
  while (p < after->size()) {
    auto e = after->find('\n', p);
    std::string l = after->substr(p, e == std::string::npos ? std::string::npos : e - p);
    ++n;
    auto it = old_lines.find(l);
    if (it != old_lines.end()) old_lines.erase(it);
    else out.emplace_back(n, l);
    p = e == std::string::npos ? after->size() : e + 1;
  }
  return out;
}

bool is_runner_config(std::string_view path) {
  auto slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  static constexpr std::string_view kNames[] = {"pytest.ini", "setup.cfg", "tox.ini", "pyproject.toml", "conftest.py",
                                                "package.json", "CMakeLists.txt", "pom.xml", "build.gradle",
                                                "build.gradle.kts", "Cargo.toml", "Makefile", "noxfile.py",
                                                "karma.conf.js", "BUILD", "BUILD.bazel", "CTestTestfile.cmake"};
  if (std::find(std::begin(kNames), std::end(kNames), base) != std::end(kNames)) return true;
  return starts_with(base, "jest.config") || starts_with(base, "vitest.config") || starts_with(base, ".mocharc") ||
         starts_with(base, "playwright.config") || ends_with(base, ".cmake");
}

}  // namespace

bool is_test_path(std::string_view path) {
  auto slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return contains(path, "tests/") || contains(path, "test/") || contains(path, "__tests__/") || contains(path, "spec/") ||
         starts_with(path, "test") || starts_with(base, "test_") || contains(base, "_test.") || contains(base, ".test.") ||
         contains(base, ".spec.") || contains(base, "_spec.") || ends_with(base, "Test.java") || ends_with(base, "Tests.java") ||
         ends_with(base, "Test.kt") || ends_with(base, "Tests.kt") || contains(base, "_unittest.") || base == "conftest.py";
}

std::vector<IntegrityFinding> check_test_integrity(const std::vector<FileVersions>& files, const IntegrityOptions& opt) {
  std::vector<IntegrityFinding> out;
  auto failing = [&](const std::string& test) { return reports::contains_test(opt.failing_tests, test); };
  for (const auto& f : files) {
    const Lang lang = lang_of(f.path);
    const bool test_file = is_test_path(f.path);
    FileModel before, after;
    if (f.before) before = Analyzer(lang, *f.before).run();
    if (f.after) after = Analyzer(lang, *f.after).run();
    const bool syntactic = lang != Lang::none && (!f.before || before.parsed) && (!f.after || after.parsed);

    if (syntactic) {
      std::map<std::string, const TestUnit*> b, a;
      for (const auto& t : before.tests) b[t.name] = &t;
      for (const auto& t : after.tests) a[t.name] = &t;
      for (const auto& m : after.file_markers)
        if (!before.file_markers.count(m))
          out.push_back({starts_with(m, "focus") ? "focus_added" : "skip_added", f.path, 0,
                         (starts_with(m, "focus") ? "a focus marker makes other tests stop running: " : "tests disabled: ") + m});
      for (const auto& [name, bt] : b) {
        auto it = a.find(name);
        if (it == a.end()) {
          // Renamed (same body under a new name) is fine.
          bool renamed = std::any_of(after.tests.begin(), after.tests.end(), [&](const TestUnit& t) {
            return !b.count(t.name) && t.body_hash == bt->body_hash;
          });
          if (renamed) continue;
          auto short_name = name.substr(name.find_last_of(". :") == std::string::npos ? 0 : name.find_last_of(". :") + 1);
          if (f.after && contains(after.comments, short_name))
            out.push_back({"test_commented_out", f.path, bt->line, "test " + name + " was commented out"});
          else
            out.push_back({"test_deleted", f.path, bt->line, "test " + name + " was deleted"});
          continue;
        }
        const TestUnit& at = *it->second;
        for (const auto& m : at.markers)
          if (!bt->markers.count(m) && (!at.conditional || failing(name)))
            out.push_back({"skip_added", f.path, at.line, "test " + name + " was disabled (" + m + ")"});
        if (at.focus && !bt->focus) out.push_back({"focus_added", f.path, at.line, "test " + name + " was focused (.only): the others stop running"});
        if (at.asserts.size() < bt->asserts.size()) {
          out.push_back({"assertion_removed", f.path, at.line,
                         "test " + name + " has " + std::to_string(at.asserts.size()) + " assertion(s), had " +
                             std::to_string(bt->asserts.size())});
          continue;
        }
        auto count = [](const TestUnit& t, Kind k) {
          return std::count_if(t.asserts.begin(), t.asserts.end(), [&](const Assertion& x) { return x.kind == k; });
        };
        auto strength_sum = [](const TestUnit& t) {
          int s = 0;
          for (const auto& x : t.asserts) s += strength(x.kind);
          return s;
        };
        auto max_tol = [](const TestUnit& t) {
          double m = -1;
          for (const auto& x : t.asserts)
            if (x.kind == Kind::approx) m = std::max(m, x.tolerance);
          return m;
        };
        auto swallowed = [](const TestUnit& t) {
          return std::count_if(t.asserts.begin(), t.asserts.end(), [](const Assertion& x) { return x.swallowed; });
        };
        if (swallowed(at) > swallowed(*bt)) {
          out.push_back({"assertion_swallowed", f.path, at.line,
                         "test " + name + ": an assertion now sits inside a handler that swallows its failure"});
          continue;
        }
        if (count(at, Kind::throws_specific) < count(*bt, Kind::throws_specific) &&
            count(at, Kind::throws_broad) > count(*bt, Kind::throws_broad)) {
          out.push_back({"assertion_weakened", f.path, at.line, "test " + name + ": a specific exception became a broad one"});
          continue;
        }
        if (at.asserts.size() == bt->asserts.size() && strength_sum(at) < strength_sum(*bt)) {
          out.push_back({"assertion_weakened", f.path, at.line,
                         "test " + name + ": an exact check became weaker (inequality, range, approximation or type)"});
          continue;
        }
        const double tb = max_tol(*bt), ta = max_tol(at);
        if (tb >= 0 && ta > tb * 1.0000001) {
          out.push_back({"assertion_weakened", f.path, at.line, "test " + name + ": the tolerance grew from " +
                                                                   std::to_string(tb) + " to " + std::to_string(ta)});
        }
      }
      // A new test that reuses the name of a failing test with a skip marker is no honest addition.
      for (const auto& [name, at] : a)
        if (!b.count(name) && !at->markers.empty() && failing(name))
          out.push_back({"skip_added", f.path, at->line, "test " + name + " was re-added disabled"});
    } else if (test_file && f.after) {
      // Textual fallback for test files the parsers do not know.
      for (const auto& [n, l] : added_lines(f.before, f.after))
        if (auto m = skip_marker(l)) out.push_back({"skip_added", f.path, n, "skip marker added: " + *m});
    }

    // Textual: production code that detects tests.
    if (!test_file && !is_runner_config(f.path)) {
      static constexpr std::string_view kDetect[] = {
          "PYTEST_CURRENT_TEST", "\"pytest\" in sys.modules", "'pytest' in sys.modules", "\"unittest\" in sys.modules",
          "'unittest' in sys.modules", "sys.modules.get(\"pytest", "sys.modules.get('pytest", "JEST_WORKER_ID",
          "NODE_ENV === 'test'", "NODE_ENV === \"test\"", "NODE_ENV == 'test'", "process.env.VITEST", "testing.Testing()",
          "flag.Lookup(\"test.", "GTEST_", "::testing::UnitTest", "FLOWAGENT_SANDBOX", "cfg!(test)", "getStackTrace",
          "\"surefire", "org.junit", "isRunningTest", "RUNNING_TESTS", "UNDER_TEST", "IN_TEST"};
      for (const auto& [n, l] : added_lines(f.before, f.after)) {
        for (auto d : kDetect)
          if (contains(l, d)) {
            out.push_back({"test_detection_in_code", f.path, n, "production code checks whether it runs under test: " + std::string(d)});
            break;
          }
        for (const auto& t : opt.failing_tests) {
          auto tail = t.substr(t.find_last_of(".:/ ") == std::string::npos ? 0 : t.find_last_of(".:/ ") + 1);
          if (tail.size() > 3 && (contains(l, "\"" + tail + "\"") || contains(l, "'" + tail + "'")))
            out.push_back({"test_detection_in_code", f.path, n, "production code names the failing test " + tail});
        }
      }
    }

    // Textual: runner configuration that excludes tests.
    if (is_runner_config(f.path)) {
      static constexpr std::string_view kExclude[] = {
          "--deselect", "-k \"not", "-k 'not", "--ignore", "collect_ignore", "testPathIgnorePatterns",
          "modulePathIgnorePatterns", "excludeTestsMatching", "<exclude>", "<excludes>", "skipTests", "maven.test.skip",
          "--gtest_filter=-", "GTEST_FILTER", "-E ", "--exclude-regex", "--skip", "testIgnore", "exclude:", "exclude =",
          "exclude=", "\"exclude\"", "--testPathIgnorePatterns", "pytest_collection_modifyitems", "--testNamePattern",
          "addopts", "norecursedirs", "DISABLED_"};
      for (const auto& [n, l] : added_lines(f.before, f.after))
        for (auto k : kExclude)
          if (contains(l, k)) {
            out.push_back({"runner_config_exclusion", f.path, n, "test runner configuration excludes tests: " + l.substr(0, 120)});
            break;
          }
      for (const auto& [n, l] : added_lines(f.after, f.before))  // removed lines
        if (contains(l, "add_test(") || contains(l, "gtest_discover_tests(") || contains(l, "testpaths"))
          out.push_back({"runner_config_exclusion", f.path, n, "a test registration was removed: " + l.substr(0, 120)});
    }
  }
  return out;
}

}  // namespace flowagent
