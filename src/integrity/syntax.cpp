// The tree-sitter walk of the test-integrity guard: finds the tests (through the language files),
// their skip markers, their assertions, what each assertion compares and how strongly.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>

#include "integrity/guard_internal.hpp"

namespace flowagent::integrity {

int strength(Kind k) {
  switch (k) {
    case Kind::eq: case Kind::throws_specific: return kStrengthExact;
    case Kind::approx: return kStrengthApprox;
    case Kind::range: return kStrengthRange;
    default: return kStrengthWeak;
  }
}

namespace {

std::size_t hash_text(std::string text) { return std::hash<std::string>{}(strip_spaces(std::move(text))); }

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

bool is_literal(std::string s) {
  s = strip_spaces(std::move(s));
  // Literal wrappers: pytest.approx(4), Some(3), vec![1, 2], b"x", List.of(1, 2)...
  static constexpr std::string_view kWrappers[] = {"pytest.approx", "approx", "Some", "Ok", "Err", "vec!", "List.of",
                                                   "Arrays.asList", "Set.of", "Map.of", "dict", "set", "tuple",
                                                   "list", "frozenset", "std::string", "String::from", "BigInt",
                                                   "Decimal", "new Date", "newDate", "Number", "String", "int",
                                                   "float", "str", "bytes"};
  for (auto w : kWrappers)
    if (starts_with(s, w) && s.size() > w.size() && (s[w.size()] == '(' || s[w.size()] == '[')) s = s.substr(w.size());
  static const std::set<std::string, std::less<>> kKeywords = {
      "True", "False", "None", "true", "false", "null", "nil", "undefined", "NaN", "Infinity", "nullptr", "NULL",
      "abs", "rel", "i32", "i64", "u8", "u32", "u64", "f32", "f64", "usize", "inf", "nan", "math", "not", "new"};
  // String prefixes directly before a quote: b"x", r'x', f"x", L"x", u8"x".
  static const std::set<std::string, std::less<>> kStringPrefixes = {"b", "r", "u", "f", "br", "rb", "fr", "rf", "L", "U", "u8", "R"};
  std::string word;
  char quote_ch = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    const char ch = i < s.size() ? s[i] : ' ';
    if (quote_ch) {
      if (ch == '\\') ++i;
      else if (ch == quote_ch) quote_ch = 0;
      continue;
    }
    if (ch == '"' || ch == '\'' || ch == '`') {
      if (!word.empty() && !kStringPrefixes.count(word) && !std::isdigit(static_cast<unsigned char>(word[0])) &&
          !kKeywords.count(word))
        return false;
      word.clear();
      quote_ch = ch;
      continue;
    }
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') {
      word += ch;
      continue;
    }
    if (!word.empty() && !std::isdigit(static_cast<unsigned char>(word[0])) && !kKeywords.count(word)) return false;
    word.clear();
  }
  return true;
}

/// `(a == b)` but not `(a) == (b)`.
bool wrapped_in_parens(std::string_view e) {
  if (e.size() < 2 || e.front() != '(' || e.back() != ')') return false;
  int depth = 0;
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (e[i] == '(') ++depth;
    else if (e[i] == ')' && --depth == 0 && i + 1 != e.size()) return false;
  }
  return true;
}

/// The non-literal operands of a condition or an argument list: `add(2, 2) == 4` -> {add(2,2)}.
void collect_operands(std::string_view expr, std::set<std::string>& out, bool& tautology) {
  std::string e = trim(expr);
  while (wrapped_in_parens(e)) e = trim(std::string_view(e).substr(1, e.size() - 2));
  for (std::string_view neg : {"not ", "!"})
    if (starts_with(e, neg)) e = trim(std::string_view(e).substr(neg.size()));
  if (contains(e, " or True") || contains(e, "|| true") || contains(e, "||true") || contains(e, "|| 1") ||
      contains(e, "&& false") || contains(e, "and False"))
    tautology = true;
  auto parts = split_top(e, {"==", "!=", "<=", ">=", "<", ">", " is not ", " is ", " not in ", " in ", "&&", "||",
                             " and ", " or "});
  if (parts.size() == 2 && strip_spaces(parts[0]) == strip_spaces(parts[1])) tautology = true;  // x == x
  for (auto& p : parts) {
    std::string o = strip_spaces(p);
    if (o.empty() || is_literal(o)) continue;
    if (o == "t" || o == "self" || o == "this" || o == "assert" || o == "require" || o == "done" || o == "tt") continue;
    out.insert(o);
  }
}

}  // namespace

namespace {

class Analyzer {
 public:
  Analyzer(Lang lang, const std::string& src) : lang_(lang), s_{src} {}

  FileModel run() {
    FileModel m;
    const TSLanguage* language = ts_language(lang_);
    if (!language) return m;
    TSParser* parser = ts_parser_new();
    if (!ts_parser_set_language(parser, language)) {
      ts_parser_delete(parser);
      return m;
    }
    TSTree* tree = ts_parser_parse_string(parser, nullptr, s_.src.data(), static_cast<uint32_t>(s_.src.size()));
    ts_parser_delete(parser);
    if (!tree) return m;
    model_ = &m;
    m.has_error = ts_node_has_error(ts_tree_root_node(tree));
    visit(ts_tree_root_node(tree), "", true, nullptr, 0, false);
    ts_tree_delete(tree);
    m.parsed = true;
    return m;
  }

 private:
  std::string text(TSNode n) const { return s_.text(n); }
  static std::string_view type(TSNode n) { return ts_node_type(n); }
  static int line(TSNode n) { return Syntax::line(n); }
  static TSNode field(TSNode n, const char* name) { return Syntax::field(n, name); }

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

  /// The arguments node of a call.
  TSNode args_node(TSNode n) const {
    TSNode args = field(n, "arguments");
    if (ts_node_is_null(args))
      for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
        std::string_view ct = type(ts_node_named_child(n, i));
        if (ct == "argument_list" || ct == "token_tree" || ct == "value_arguments" || ct == "call_suffix")
          args = ts_node_named_child(n, i);
      }
    return args;
  }

  /// The arguments of a call, split at top-level commas, whitespace removed; keyword arguments
  /// (`msg=...`, `rel=...`) are left out.
  std::vector<std::string> call_args(TSNode n) const {
    std::vector<std::string> out;
    TSNode args = args_node(n);
    if (ts_node_is_null(args)) return out;
    std::string all = text(args);
    if (all.size() >= 2 && (all.front() == '(' || all.front() == '[' || all.front() == '{')) all = all.substr(1, all.size() - 2);
    for (auto& a : split_top(all, {","})) {
      std::string x = strip_spaces(a);
      if (x.empty()) continue;
      auto eq = x.find('=');
      if (eq != std::string::npos && eq > 0 && x[eq + 1] != '=' && x[eq - 1] != '!' && x[eq - 1] != '<' &&
          x[eq - 1] != '>' && x[eq - 1] != '=' && x.substr(0, eq).find_first_not_of(
              "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") == std::string::npos)
        continue;
      out.push_back(x);
    }
    return out;
  }

  /// Operands of a call assertion: its arguments, and for chains (expect(x).toBe(y),
  /// assertThat(x).isEqualTo(y)) the arguments of the inner calls.
  void call_operands(TSNode n, Assertion& a) const {
    bool tautology = false;
    const auto args = call_args(n);
    if (args.size() >= 2 && args[0] == args[1] && !is_literal(args[0])) tautology = true;  // EXPECT_EQ(x, x)
    for (const auto& arg : args) collect_operands(arg, a.operands, tautology);
    for (TSNode f = field(n, "function"); !ts_node_is_null(f);) {
      std::string_view ft = type(f);
      if (ft == "call_expression" || ft == "call" || ft == "method_invocation") {
        for (const auto& arg : call_args(f)) collect_operands(arg, a.operands, tautology);
        f = field(f, "function");
      } else if (ft == "member_expression" || ft == "attribute" || ft == "field_expression") {
        TSNode o = field(f, "object");
        f = o;
      } else {
        break;
      }
    }
    if (type(n) == "method_invocation") {  // Java: assertThat(x).isEqualTo(y)
      TSNode o = field(n, "object");
      if (!ts_node_is_null(o) && type(o) == "method_invocation")
        for (const auto& arg : call_args(o)) collect_operands(arg, a.operands, tautology);
    }
    a.trivial = a.operands.empty();
    a.tautology = tautology;
  }

  /// The checks of an assertion call: usually one; a condition joined by && (or a Go failure
  /// branch joined by ||) is one check per clause, so weakening one clause is seen.
  std::vector<Assertion> classify_call(TSNode n) const {
    const std::string name = callee(n);
    if (name.empty()) return {};
    const std::string t = text(n);
    Assertion a;
    a.line = line(n);
    static const std::set<std::string, std::less<>> kEq = {
        "assertEqual", "assertEquals", "assertSame", "assertListEqual", "assertDictEqual", "assertSequenceEqual",
        "assertTupleEqual", "assertCountEqual", "assertMultiLineEqual", "assertArrayEquals", "assertIterableEquals",
        "EXPECT_EQ", "ASSERT_EQ", "EXPECT_STREQ", "ASSERT_STREQ", "EXPECT_DOUBLE_EQ", "ASSERT_DOUBLE_EQ",
        "EXPECT_FLOAT_EQ", "toBe", "toEqual", "toStrictEqual", "strictEqual", "deepStrictEqual", "equal",
        "deepEqual", "assert_eq", "isEqualTo", "Equal", "EqualValues", "Exactly", "assertContentEquals", "same",
        "toMatchObject", "toHaveLength", "toHaveBeenCalledWith", "toHaveBeenCalledTimes", "assertIs", "assertRegex",
        "toMatch", "eql", "eq"};
    static const std::set<std::string, std::less<>> kApprox = {"assertAlmostEqual", "EXPECT_NEAR", "ASSERT_NEAR",
                                                               "toBeCloseTo", "InDelta", "InEpsilon", "isCloseTo"};
    static const std::set<std::string, std::less<>> kRange = {
        "assertGreater", "assertGreaterEqual", "assertLess", "assertLessEqual", "EXPECT_GT", "EXPECT_GE", "EXPECT_LT",
        "EXPECT_LE", "ASSERT_GT", "ASSERT_GE", "ASSERT_LT", "ASSERT_LE", "toBeGreaterThan", "toBeGreaterThanOrEqual",
        "toBeLessThan", "toBeLessThanOrEqual", "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "isGreaterThan",
        "isLessThan", "assertNotEqual", "assertNotEquals", "EXPECT_NE", "ASSERT_NE", "notStrictEqual", "assert_ne",
        "notEqual", "notDeepStrictEqual"};
    static const std::set<std::string, std::less<>> kType = {
        "assertIsNotNone", "assertIsNone", "assertIsInstance", "assertNotNull", "assertNull", "toBeDefined",
        "toBeTruthy", "toBeFalsy", "toBeInstanceOf", "toBeNull", "toBeUndefined", "NotNil", "Nil", "NotEmpty",
        "isNotNull", "isInstanceOf", "ok", "assertIn", "assertNotIn", "toContain", "Contains", "assertFalse",
        "toHaveBeenCalled", "notOk", "NoError", "Error", "pass"};
    static const std::set<std::string, std::less<>> kTruth = {"assertTrue", "EXPECT_TRUE", "ASSERT_TRUE", "assert",
                                                              "True", "assertThat", "check", "require", "EXPECT_FALSE",
                                                              "ASSERT_FALSE", "False", "debug_assert"};
    static const std::set<std::string, std::less<>> kThrows = {"assertRaises", "raises", "assertThrows", "EXPECT_THROW",
                                                               "ASSERT_THROW", "toThrow", "throws", "rejects",
                                                               "toThrowError", "assertFailsWith", "Panics", "PanicsWithValue",
                                                               "assertRaisesRegex", "ErrorIs", "ErrorAs", "EqualError"};
    static const std::set<std::string, std::less<>> kBroadThrows = {"EXPECT_ANY_THROW", "ASSERT_ANY_THROW"};
    static const std::set<std::string, std::less<>> kGoFail = {"Error", "Errorf", "Fatal", "Fatalf", "Fail", "FailNow"};
    // testify's assert.Error(t, err) is an existence check; t.Error(...) is Go's failure branch.
    const bool go_failure = lang_ == Lang::go && kGoFail.count(name) && call_args(n).size() >= 1 &&
                            !starts_with(text(field(n, "function")), "assert.") && !starts_with(text(field(n, "function")), "require.");
    if (go_failure || (lang_ == Lang::go && kGoFail.count(name) && call_args(n).empty())) {
      // if got != want { t.Errorf(...) }: the condition tells what was checked.
      for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p)) {
        if (type(p) == "if_statement") {
          TSNode cond = field(p, "condition");
          const std::string ct = ts_node_is_null(cond) ? text(p).substr(0, kConditionChars) : text(cond);
          return clause_checks(a, ct, {"||"}, /*negated=*/true);
        }
        if (type(p) == "function_declaration" || type(p) == "func_literal") break;
      }
      a.kind = Kind::other;  // an unconditional failure
      a.operands.insert("<fail>");
      return {a};
    }
    // supertest: request(app).get('/').expect(200).expect('x-a', 'b').expect(body): one check per
    // .expect of the chain, all about the request the chain starts with.
    if (is_js(lang_) && name == "expect") {
      std::vector<TSNode> expects;
      TSNode cur = n;
      for (TSNode fn = field(cur, "function"); !ts_node_is_null(fn) && type(fn) == "member_expression";
           fn = field(cur, "function")) {
        TSNode prop = field(fn, "property");
        if (!ts_node_is_null(prop) && text(prop) == "expect") expects.push_back(cur);
        TSNode obj = field(fn, "object");
        if (ts_node_is_null(obj) || type(obj) != "call_expression") {
          cur = obj;
          break;
        }
        cur = obj;
      }
      if (expects.empty()) return {};
      const TSNode first = expects.back();
      TSNode request_node = field(field(first, "function"), "object");
      const std::string request = ts_node_is_null(request_node) ? std::string("<request>") : strip_spaces(text(request_node));
      std::vector<Assertion> out;
      for (auto it = expects.rbegin(); it != expects.rend(); ++it) {
        Assertion e = a;
        e.kind = Kind::eq;
        e.line = line(*it);
        bool tautology = false;
        for (const auto& arg : call_args(*it)) collect_operands(arg, e.operands, tautology);
        e.operands.insert(request);
        out.push_back(std::move(e));
      }
      return out;
    }
    if (kEq.count(name)) {
      // JUnit assertEquals(expected, actual, delta) is approximate.
      if ((name == "assertEquals" || name == "assertEqual") && std::count(t.begin(), t.end(), ',') >= 2 &&
          last_number_arg(t) >= 0 && lang_ != Lang::python) {
        a.kind = Kind::approx;
        a.tolerance = last_number_arg(t);
      } else {
        a.kind = Kind::eq;
      }
      if (contains(t, ".not.")) a.kind = Kind::range;  // expect(x).not.toBe(y): an inequality
    } else if (kApprox.count(name)) {
      a.kind = Kind::approx;
      a.tolerance = name == "toBeCloseTo" ? (last_number_arg(t) >= 0 ? std::pow(10.0, -last_number_arg(t)) / 2 : kToBeCloseToDefault)
                    : name == "assertAlmostEqual" ? (contains(t, "delta") ? number_after(t, "delta")
                                                     : contains(t, "places") ? std::pow(10.0, -number_after(t, "places"))
                                                                              : kAlmostEqualDefault)
                                                  : last_number_arg(t);
    } else if (kRange.count(name)) {
      a.kind = Kind::range;
    } else if (kType.count(name)) {
      a.kind = Kind::type;
    } else if (kBroadThrows.count(name)) {
      a.kind = Kind::throws_broad;
    } else if (kThrows.count(name)) {
      // Specific unless the expected exception is missing or the broadest type.
      auto args = call_args(n);
      std::string expected_type;
      if (name == "EXPECT_THROW" || name == "ASSERT_THROW" || name == "throws" || name == "rejects" || name == "ErrorIs" ||
          name == "ErrorAs" || name == "EqualError")
        expected_type = args.size() >= 2 ? args[1] : "";
      else if (name == "Panics") expected_type = "";
      else if (name == "PanicsWithValue") expected_type = args.size() >= 2 ? args[1] : "";
      else expected_type = args.empty() ? "" : args[0];
      if (name == "ErrorIs" || name == "ErrorAs" || name == "EqualError") expected_type = args.size() >= 3 ? args[2] : "";
      for (std::string_view suffix : {".class", "::class"})
        if (ends_with(expected_type, suffix)) expected_type.resize(expected_type.size() - suffix.size());
      static const std::set<std::string, std::less<>> kBroad = {"Exception", "BaseException", "Throwable", "Error",
                                                                "RuntimeException", "std::exception", "object", "Object"};
      a.kind = expected_type.empty() || kBroad.count(expected_type) ? Kind::throws_broad : Kind::throws_specific;
    } else if (kTruth.count(name) || starts_with(name, "assert")) {
      auto args = call_args(n);
      if (!args.empty() && !contains(t, ".not.") && (contains(args[0], "&&") || contains(args[0], " and ")))
        return clause_checks(a, args[0], {"&&", " and "}, false);
      a.kind = comparison_kind(t);
    } else {
      return {};
    }
    call_operands(n, a);
    return {a};
  }

  /// One check per clause of `expr` split at `seps` (top level).
  static std::vector<Assertion> clause_checks(const Assertion& proto, std::string_view expr,
                                              std::initializer_list<std::string_view> seps, bool negated) {
    std::vector<Assertion> out;
    for (const auto& clause : split_top(expr, seps)) {
      Assertion a = proto;
      a.kind = comparison_kind(clause, negated);
      bool tautology = false;
      collect_operands(clause, a.operands, tautology);
      a.trivial = a.operands.empty();
      a.tautology = tautology;
      out.push_back(std::move(a));
    }
    return out;
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
      if (is_js(lang_)) return true;
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
      if (model_->file_markers.empty()) model_->file_markers_conditional = conditional;
      else model_->file_markers_conditional = model_->file_markers_conditional && conditional;
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
    if (is_js(lang_)) {
      TSNode args = field(n, "arguments");
      if (!ts_node_is_null(args) && ts_node_named_child_count(args) > 0)
        return ts_node_named_child(args, ts_node_named_child_count(args) - 1);
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
      if (type(ts_node_named_child(n, i)) == "function_body") return ts_node_named_child(n, i);
    return n;
  }

  UnitInfo recognize(TSNode n, const std::string& scope, bool scope_collectable) const {
    switch (lang_) {
      case Lang::python: return python_unit(s_, n, scope, scope_collectable);
      case Lang::java: case Lang::kotlin: return jvm_unit(s_, n, scope);
      case Lang::cpp: return cpp_unit(s_, n);
      case Lang::javascript: case Lang::typescript: case Lang::tsx: return js_unit(s_, n, scope);
      case Lang::go: return go_unit(s_, n);
      case Lang::rust: return rust_unit(s_, n, scope);
      case Lang::none: break;
    }
    return {};
  }

  /// Definitions outside tests that hook into the runner: pytest_* hooks, Go's TestMain, a main()
  /// in a C/C++ test file.
  void record_hook(TSNode n) {
    std::string_view t = type(n);
    std::string name;
    if (lang_ == Lang::python && t == "function_definition") {
      TSNode nm = field(n, "name");
      if (!ts_node_is_null(nm) && starts_with(text(nm), "pytest_")) name = text(nm);
    } else if (lang_ == Lang::go && t == "function_declaration") {
      TSNode nm = field(n, "name");
      if (!ts_node_is_null(nm) && text(nm) == "TestMain") name = "TestMain";
    } else if (lang_ == Lang::cpp && t == "function_definition") {
      TSNode d = field(n, "declarator");
      if (!ts_node_is_null(d) && starts_with(strip_spaces(text(d)), "main(")) name = "main";
    }
    if (!name.empty()) model_->hooks.emplace_back(name, text(n));
  }

  /// Go: a deferred recover() that does not report the panic (t.Fatal, t.Error, panic again)
  /// swallows every failure of the test.
  static bool go_recovers(const std::string& test) {
    for (auto p = test.find("recover()"); p != std::string::npos; p = test.find("recover()", p + 1)) {
      const auto start = test.rfind("defer", p);
      const auto end = test.find("}()", p);
      const std::string handler = test.substr(start == std::string::npos ? 0 : start,
                                              end == std::string::npos ? std::string::npos : end - start);
      if (!contains(handler, ".Fatal") && !contains(handler, ".Error") && !contains(handler, "panic(")) return true;
    }
    return false;
  }

  /// Python class scope: collected by pytest when named Test* or a subclass (unittest.TestCase).
  bool python_class_collectable(TSNode cls, const std::string& name) const {
    TSNode sup = field(cls, "superclasses");
    const bool collectable = starts_with(name, "Test") || (!ts_node_is_null(sup) && strip_spaces(text(sup)) != "()" &&
                                                           strip_spaces(text(sup)) != "(object)");
    TSNode body = field(cls, "body");
    if (!ts_node_is_null(body) && contains(strip_spaces(text(body)), "__test__=False")) return false;
    return collectable;
  }

  void visit(TSNode n, std::string scope, bool scope_collectable, TestUnit* unit, int swallow_depth, bool recovering) {
    std::string_view t = type(n);
    if (t == "comment" || t == "line_comment" || t == "block_comment") {
      model_->comments += text(n);
      model_->comments += '\n';
      return;
    }
    if (!unit) {
      visit_outside(n, scope, scope_collectable, swallow_depth, recovering);
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
        visit(c, scope, scope_collectable, unit, swallow_depth + (sw && body ? 1 : 0), recovering);
      }
      return;
    }
    if (t == "assert_statement") {
      std::string s = text(n);
      Assertion a;
      a.line = line(n);
      std::string expr = s.substr(6);
      expr = split_top(expr, {","}).front();  // drop the message
      a.swallowed = swallow_depth > 0 || recovering;
      for (auto& c : clause_checks(a, expr, {" and "}, false)) {
        if (c.kind == Kind::approx) {
          double rel = number_after(s, "rel"), abs_tol = number_after(s, "abs");
          c.tolerance = std::max(rel, abs_tol);
          if (c.tolerance < 0) c.tolerance = kPytestApproxDefault;
        }
        unit->asserts.push_back(std::move(c));
      }
      return;
    }
    if (t == "call" || t == "call_expression" || t == "method_invocation" || t == "macro_invocation") {
      const std::string name = callee(n);
      static const std::set<std::string> kSkipCalls = {"skip", "Skip", "SkipNow", "Skipf", "skipTest", "GTEST_SKIP",
                                                       "todo", "importorskip", "assumeTrue", "assumeFalse",
                                                       "assumingThat", "assumeThat", "assumeNotNull", "xfail"};
      if (kSkipCalls.count(name)) {
        // Conditional on the platform when an enclosing if says so.
        bool cond = false;
        for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p)) {
          std::string_view pt = type(p);
          if (pt == "if_statement" || pt == "if_expression") {
            TSNode c = field(p, "condition");
            cond = platform_condition(ts_node_is_null(c) ? text(p).substr(0, kConditionChars) : text(c));
            break;
          }
          if (pt == "function_definition" || pt == "function_declaration" || pt == "arrow_function" || pt == "function_item") break;
        }
        if (starts_with(name, "assum")) cond = cond || platform_condition(text(n));
        add_marker(unit, "call " + name, cond);
      } else if (name == "catch_unwind") {
        for (uint32_t i = 0; i < ts_node_child_count(n); ++i)
          visit(ts_node_child(n, i), scope, scope_collectable, unit, swallow_depth + 1, recovering);
        return;
      } else if (auto checks = classify_call(n); !checks.empty()) {
        for (auto& a : checks) {
          a.swallowed = swallow_depth > 0 || recovering;
          unit->asserts.push_back(std::move(a));
        }
        // Nested calls (expect(x).toBe(y) holds expect(x)) are part of the same assertion.
        return;
      }
    }
    for (uint32_t i = 0; i < ts_node_child_count(n); ++i)
      visit(ts_node_child(n, i), scope, scope_collectable, unit, swallow_depth, recovering);
  }

  void visit_outside(TSNode n, const std::string& scope, bool scope_collectable, int swallow_depth, bool recovering) {
    std::string_view t = type(n);
    record_hook(n);
    // Scopes: classes and describe blocks name their tests.
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
      const bool collectable = lang_ != Lang::python || python_class_collectable(n, cls);
      for (uint32_t i = 0; i < ts_node_child_count(n); ++i)
        visit(ts_node_child(n, i), scope.empty() ? cls : scope + "." + cls, collectable && scope_collectable, nullptr,
              swallow_depth, recovering);
      return;
    }
    if (is_js(lang_) && t == "call_expression") {
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
          visit(ts_node_child(n, i), scope.empty() ? title : scope + " " + title, scope_collectable, nullptr,
                swallow_depth, recovering);
        return;
      }
    }
    if (lang_ == Lang::python && (t == "expression_statement" || t == "raise_statement") && ts_node_is_null(ts_node_parent(ts_node_parent(n)))) {
      // Module level: pytestmark, pytest.skip(allow_module_level=True), importorskip, raise SkipTest.
      std::string s = text(n);
      if (starts_with(s, "pytestmark") || contains(s, "allow_module_level") || t == "raise_statement")
        if (auto m = skip_marker(s)) add_marker(nullptr, "module: " + *m, platform_condition(s));
      if (contains(s, "pytest.skip(") && contains(s, "allow_module_level")) add_marker(nullptr, "module: pytest.skip", platform_condition(s));
      if (contains(s, "importorskip(")) add_marker(nullptr, "module: importorskip", false);
    }
    if (lang_ == Lang::python && t == "if_statement" && ts_node_is_null(ts_node_parent(ts_node_parent(n)))) {
      // Module level `if cond: pytest.skip(..., allow_module_level=True)` / `raise unittest.SkipTest`.
      std::string s = text(n);
      if ((contains(s, "allow_module_level") || contains(s, "SkipTest")))
        add_marker(nullptr, "module: conditional skip", platform_condition(text(field(n, "condition"))));
    }
    if (lang_ == Lang::rust && t == "mod_item") {
      TSNode name = field(n, "name");
      for (uint32_t i = 0; i < ts_node_child_count(n); ++i)
        visit(ts_node_child(n, i), ts_node_is_null(name) ? scope : text(name), scope_collectable, nullptr, swallow_depth, recovering);
      return;
    }
    UnitInfo info = recognize(n, scope, scope_collectable);
    if (info.name.empty()) {
      for (uint32_t i = 0; i < ts_node_child_count(n); ++i)
        visit(ts_node_child(n, i), scope, scope_collectable, nullptr, swallow_depth, recovering);
      return;
    }
    TestUnit u;
    u.name = info.name;
    u.line = line(n);
    u.focus = info.focus;
    u.collectable = info.collectable;
    u.cases = std::max(1, info.cases);
    TSNode parent = ts_node_parent(n);
    if (lang_ == Lang::python && !ts_node_is_null(parent) && type(parent) == "decorated_definition") u.line = line(parent);
    for (const auto& d : info.decorators) {
      if (starts_with(d, "build: ")) add_marker(&u, d, platform_condition(d));
      else if (auto m = skip_marker(d))
        add_marker(&u, *m, platform_condition(d) && (contains(d, "skipif") || contains(d, "skipIf") || contains(d, "OnOs") ||
                                                      contains(d, "cfg_attr") || contains(d, "EnabledIf") || contains(d, "DisabledIf")));
      else if (contains(d, ".skip") || contains(d, "skip:") || contains(d, "todo") || starts_with(d, "x"))
        add_marker(&u, "skip: " + d.substr(0, kMarkerChars), contains(d, "skip:") && platform_condition(d));
      if (contains(d, "should_panic")) {
        Assertion a;
        a.kind = contains(d, "expected") ? Kind::throws_specific : Kind::throws_broad;
        a.line = u.line;
        a.operands = {"<panic>"};
        u.asserts.push_back(a);
      }
    }
    // C/C++: a test inside #if/#ifdef is compiled only when the condition holds.
    if (lang_ == Lang::cpp)
      for (TSNode p = parent; !ts_node_is_null(p); p = ts_node_parent(p)) {
        std::string_view pt = type(p);
        if (pt == "preproc_if" || pt == "preproc_ifdef" || pt == "preproc_else" || pt == "preproc_elif") {
          TSNode c = field(p, "condition");
          if (ts_node_is_null(c)) c = field(p, "name");
          std::string cond = ts_node_is_null(c) ? std::string(pt) : text(c);
          add_marker(&u, "build: #if " + cond.substr(0, kMarkerChars), platform_condition(cond));
        }
      }
    u.body_hash = hash_text(text(body_of(n)));
    model_->tests.push_back(std::move(u));
    // A pointer into tests stays valid: nested tests are not visited (a test does not hold a test).
    const std::size_t index = model_->tests.size() - 1;
    // Go: a deferred recover() swallows every failure of the test.
    const bool rec = lang_ == Lang::go && go_recovers(text(n));
    for (uint32_t i = 0; i < ts_node_child_count(n); ++i)
      visit(ts_node_child(n, i), scope, scope_collectable, &model_->tests[index], swallow_depth, rec);
  }

  Lang lang_;
  Syntax s_;
  FileModel* model_ = nullptr;
};

}  // namespace

namespace {

/// gmock's MOCK_METHOD(ret, name, (args), (specs)) is not C++ the grammar can read inside a class
/// (a parenthesised parameter list as a macro argument): its arguments are blanked (same length,
/// same lines), so an honest mock does not turn the file into a parse error.
std::string blank_gmock(const std::string& src) {
  std::string out = src;
  for (std::size_t p = out.find("MOCK_"); p != std::string::npos; p = out.find("MOCK_", p + 5)) {
    if (p > 0 && (std::isalnum(static_cast<unsigned char>(out[p - 1])) || out[p - 1] == '_')) continue;
    std::size_t q = p;
    while (q < out.size() && (std::isalnum(static_cast<unsigned char>(out[q])) || out[q] == '_')) ++q;
    if (q >= out.size() || out[q] != '(') continue;
    int depth = 0;
    std::size_t i = q;
    for (; i < out.size(); ++i) {
      if (out[i] == '(') ++depth;
      else if (out[i] == ')' && --depth == 0) break;
    }
    if (i >= out.size()) break;
    for (std::size_t k = q + 1; k < i; ++k)
      if (out[k] != '\n') out[k] = ' ';
  }
  return out;
}

}  // namespace

FileModel analyze(Lang lang, const std::string& src) {
  if (lang == Lang::cpp && src.find("MOCK_") != std::string::npos) return Analyzer(lang, blank_gmock(src)).run();
  return Analyzer(lang, src).run();
}

}  // namespace flowagent::integrity
