// The tree-sitter walk of the test-integrity guard: finds the tests (through the language files),
// their skip markers, their assertions, what each assertion compares and how strongly.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <tuple>

#include <absl/strings/str_replace.h>
#include <re2/re2.h>

#include "core/regex.hpp"
#include "flowagent/json.hpp"
#include "integrity/guard_internal.hpp"
#include "integrity/swallow.hpp"
#include "core/regex_cache.hpp"

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

bool is_literal(std::string text) {
  // (Spaces go, except one between two words, kept as a mark: `4 in got` is two words and a name,
  // not the number `4ingot`.)
  constexpr char kGap = '\x1f';
  std::string s;
  {
    const std::string t = trim(text);
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (!std::isspace(static_cast<unsigned char>(t[i]))) {
        s += t[i];
        continue;
      }
      std::size_t j = i;
      while (j < t.size() && std::isspace(static_cast<unsigned char>(t[j]))) ++j;
      if (!s.empty() && j < t.size() && (ident_char(s.back()) && ident_char(t[j]))) s += kGap;
      i = j - 1;
    }
  }
  // Literal wrappers: pytest.approx(4), Some(3), vec![1, 2], b"x", List.of(1, 2)...
  static constexpr std::string_view kWrappers[] = {"pytest.approx", "approx", "Some", "Ok", "Err", "vec!", "List.of",
                                                   "Arrays.asList", "Set.of", "Map.of", "dict", "set", "tuple",
                                                   "list", "frozenset", "std::string", "String::from", "BigInt",
                                                   "Decimal", "new\x1f" "Date", "newDate", "Number", "String", "int",
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
      // An f-string or template literal that interpolates computes its text: `f"{price(3):.2f}"`.
      if ((word.find_first_of("fF") != std::string::npos && kStringPrefixes.count(word)) || ch == '`') {
        const std::size_t close = s.find(ch, i + 1);
        const std::string_view body = std::string_view(s).substr(i + 1, close == std::string::npos ? std::string::npos : close - i - 1);
        for (std::size_t k = 0; k < body.size(); ++k)
          if (ch == '`' ? (body[k] == '$' && k + 1 < body.size() && body[k + 1] == '{') : (body[k] == '{' && (k + 1 >= body.size() || body[k + 1] != '{')))
            return false;
          else if (ch != '`' && body[k] == '{') ++k;  // `{{` is a brace
      }
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
void collect_operands(std::string_view expr, std::set<std::string>& out, bool& tautology, std::set<std::string>* literals = nullptr,
                      std::vector<std::string>* raw = nullptr) {
  std::string e = trim(without_type_assertions(expr));
  if (raw && !e.empty() && raw->size() < 16) raw->push_back(e.substr(0, 1024));
  // (Negations and parentheses, however deep: `!(!(got === 4))` compares `got`.)
  for (bool again = true; again;) {
    again = false;
    while (wrapped_in_parens(e)) e = trim(std::string_view(e).substr(1, e.size() - 2));
    for (std::string_view neg : {"not ", "!"})
      if (starts_with(e, neg) && !starts_with(e, "!=")) {
        e = trim(std::string_view(e).substr(neg.size()));
        again = true;
      }
  }
  if (contains(e, " or True") || contains(e, "|| true") || contains(e, "||true") || contains(e, "|| 1") ||
      contains(e, "&& false") || contains(e, "and False"))
    tautology = true;
  // (JavaScript's strict operators first: `got === got` is `got` compared with itself.)
  auto parts = split_top(e, {"===", "!==", "==", "!=", "<=", ">=", "<", ">", " is not ", " is ", " not in ", " in ", "&&", "||",
                             " and ", " or "});
  if (parts.size() == 2 && strip_spaces(parts[0]) == strip_spaces(parts[1])) tautology = true;  // x == x
  for (auto& p : parts) {
    std::string o = strip_spaces(p);
    if (!o.empty() && literals && is_literal(o)) literals->insert(o);
    if (o.empty() || is_literal(o)) continue;
    if (o == "t" || o == "self" || o == "this" || o == "assert" || o == "require" || o == "done" || o == "tt") continue;
    out.insert(o);
  }
}


std::string unparen(std::string e);

/// Does `side` (parentheses around it dropped) assign at its top level: `(got = 4)`, Python's
/// `(got := 4)`, `x += 1`? A comparison of such a side compares what it assigned, not the code's
/// value. Not `==`, `!=`, `<=`, `>=`, `=>`, nor an assignment inside a call (`f(x=1)`).
bool top_level_assignment(std::string_view side) {
  const std::string e = unparen(trim(side));
  // (An `=` split_top finds beside the comparisons' own is an assignment: `>>=` too.)
  return split_top(e, {"===", "!==", "==", "!=", "<=", ">=", "=>", "="}).size() > split_top(e, {"===", "!==", "==", "!=", "<=", ">=", "=>"}).size();
}

/// Is `e` a function (`() => got === 4`, `x => x`, `function () {...}`, `lambda: ...`): always
/// truthy, whatever it would compare when called.
bool function_expression(std::string_view e) {
  const std::string x = unparen(trim(e));
  return split_top(x, {"=>"}).size() > 1 || starts_with(x, "function") || starts_with(x, "lambda") || starts_with(x, "async ");
}

/// Go's testing.T methods that fail the test (`t.Errorf`, `t.Fatal`, ...).
const std::set<std::string, std::less<>> kGoFail = {"Error", "Errorf", "Fatal", "Fatalf", "Fail", "FailNow"};

/// What an assertion or comparison function's name says it compares, for names no table lists
/// (numpy's assert_equal / assert_allclose, pandas' assert_frame_equal, slices.Equal, Arrays.equals,
/// a project's own assert_same_rows): equality, approximation or ordering; nullopt when the name
/// does not say.
std::optional<Kind> named_kind(std::string_view name) {
  std::string n;
  for (char c : name)
    if (c != '_') n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (contains(n, "notequal") || contains(n, "notsame") || contains(n, "notalmost")) return Kind::range;
  if (contains(n, "almostequal") || contains(n, "allclose") || contains(n, "isclose") || contains(n, "closeto") ||
      contains(n, "approx") || ends_with(n, "near"))
    return Kind::approx;
  if (contains(n, "equal") || ends_with(n, "same") || ends_with(n, "eq")) return Kind::eq;
  if (contains(n, "less") || contains(n, "greater")) return Kind::range;
  return std::nullopt;
}

/// The callees of the calls in an expression, qualified as written: `!slices.Equal(got, want)` ->
/// {slices.Equal}.
std::vector<std::string> called_functions(std::string_view e) {
  std::vector<std::string> out;
  for (std::size_t p = e.find('('); p != std::string_view::npos; p = e.find('(', p + 1)) {
    std::size_t b = p;
    while (b > 0 && (std::isalnum(static_cast<unsigned char>(e[b - 1])) || e[b - 1] == '_' || e[b - 1] == '.' || e[b - 1] == '$'))
      --b;
    if (b < p) out.emplace_back(e.substr(b, p - b));
  }
  return out;
}

/// The last segment of a qualified name: `np.testing.assert_equal` -> `assert_equal`.
std::string last_segment(const std::string& qualified) {
  const auto cut = qualified.find_last_of(".:");
  return cut == std::string::npos ? qualified : qualified.substr(cut + 1);
}

/// The outermost call of a matcher expression: `::testing::ElementsAre(2, 4)` -> {"ElementsAre",
/// {"2", "4"}}; name "" when it is not a call.
std::pair<std::string, std::vector<std::string>> matcher_call(std::string_view text) {
  const std::string e = strip_spaces(std::string(text));
  const auto open = e.find('(');
  if (open == std::string::npos || e.back() != ')' || open == 0) return {};
  std::string name = e.substr(0, open);
  if (auto lt = name.find('<'); lt != std::string::npos) name.resize(lt);  // A<int>()
  for (std::string_view sep : {"::", "."})
    if (auto cut = name.rfind(sep); cut != std::string::npos) name = name.substr(cut + sep.size());
  if (!regex_safe_name(name))
    return {};
  return {name, split_top(std::string_view(e).substr(open + 1, e.size() - open - 2), {","})};
}

/// What a matcher checks (GoogleTest/gMock `EXPECT_THAT(x, m)`, Hamcrest and PyHamcrest
/// `assertThat(x, m)` / `assert_that(x, m)`): the kind, whether it checks nothing (`_`,
/// `anything()`), and the operands inside it (`Eq(want)` -> want).
struct MatcherKind {
  Kind kind = Kind::type;
  bool tautology = false;
  double tolerance = -1;  ///< DoubleNear(v, tol), closeTo(v, err): the tolerance given
};

/// The matchers of gMock, Hamcrest and PyHamcrest by what they compare.
struct MatcherNames {
  std::set<std::string, std::less<>> equal, approx, range, type, nothing, combine;
};

const MatcherNames& matcher_names() {
  static const MatcherNames m{
      {"Eq", "ElementsAre", "ElementsAreArray", "UnorderedElementsAre", "UnorderedElementsAreArray", "ContainerEq",
       "StrEq", "StrCaseEq", "FieldsAre", "Pair", "Optional", "VariantWith", "Pointwise", "UnorderedPointwise",
       "equalTo", "is", "Is", "contains", "containsInAnyOrder", "arrayContaining", "arrayContainingInAnyOrder",
       "sameInstance", "theInstance", "comparesEqualTo", "equal_to", "contains_exactly", "contains_inanyorder",
       "same_instance", "samePropertyValuesAs", "equalToObject", "equalToIgnoringCase", "equal_to_ignoring_case",
       "IsSupersetOf", "IsSubsetOf", "Field", "Property", "Pointee", "Key"},
      {"DoubleNear", "FloatNear", "DoubleEq", "FloatEq", "NanSensitiveDoubleEq", "NanSensitiveFloatEq",
       "NanSensitiveDoubleNear", "NanSensitiveFloatNear", "closeTo", "close_to"},
      {"Gt", "Ge", "Lt", "Le", "Ne", "greaterThan", "greaterThanOrEqualTo", "lessThan", "lessThanOrEqualTo",
       "greater_than", "greater_than_or_equal_to", "less_than", "less_than_or_equal_to",
       // sizes only
       "SizeIs", "hasSize", "has_length", "arrayWithSize", "iterableWithSize", "BeginEndDistanceIs"},
      {"IsEmpty", "NotNull", "IsNull", "HasSubstr", "StartsWith", "EndsWith", "ContainsRegex", "MatchesRegex",
       "Contains", "Each", "IsTrue", "IsFalse", "Truly", "instanceOf", "notNullValue", "nullValue", "containsString",
       "startsWith", "endsWith", "hasItem", "hasItems", "hasKey", "hasEntry", "hasValue", "empty", "emptyString",
       "emptyIterable", "blankString", "has_item", "has_items", "instance_of", "not_none", "none", "contains_string",
       "starts_with", "ends_with", "has_key", "has_entry", "empty", "matches_regexp", "matchesPattern",
       "typeCompatibleWith", "any", "isA", "IsNan"},
      {"_", "anything", "A", "An", "instance_of_anything"},
      {"AllOf", "allOf", "all_of", "both", "AnyOf", "anyOf", "any_of", "either", "Not", "not", "is_not", "not_"}};
  return m;
}

bool known_matcher(std::string_view name) {
  const auto& m = matcher_names();
  for (const auto* set : {&m.equal, &m.approx, &m.range, &m.type, &m.nothing, &m.combine})
    if (set->count(name)) return true;
  return false;
}

bool one_value_alternatives(const std::vector<std::string>& ors);

MatcherKind matcher_kind(std::string_view text, std::set<std::string>& operands, const FileNames& names, int depth = 0) {
  const auto& sets = matcher_names();
  const auto& kEqual = sets.equal;
  const auto& kApprox = sets.approx;
  const auto& kRange = sets.range;
  const auto& kNothing = sets.nothing;
  auto [name, args] = matcher_call(text);
  if (name.empty()) {
    const std::string e = strip_spaces(std::string(text));
    if (e == "_" || e == "testing::_" || e == "::testing::_") return {Kind::type, true};
    bool tautology = false;
    collect_operands(e, operands, tautology);
    return {Kind::eq, false};  // Hamcrest assertThat(x, 5) / a bare value: equality
  }
  if (kNothing.count(name)) return {Kind::type, true};
  if (depth > kMaxSourceDepth) return {Kind::type, false};
  // A matcher the file defines under a library's name, or one no library list knows (a custom
  // MATCHER, `equalToSum(4)`): it may match anything.
  if (names.defined.count(name) || !known_matcher(name)) {
    for (const auto& a : args) {
      bool tautology = false;
      collect_operands(a, operands, tautology);
    }
    return {Kind::type, false};
  }
  auto inner = [&](const std::string& arg) { return matcher_kind(arg, operands, names, depth + 1); };
  auto strongest = [&](bool weakest) {
    MatcherKind best{weakest ? Kind::eq : Kind::type, false};
    bool any = false;
    for (const auto& a : args) {
      const MatcherKind k = inner(a);
      const int sk = k.tautology ? 0 : strength(k.kind), sb = best.tautology ? 0 : strength(best.kind);
      if (!any || (weakest ? sk < sb : sk > sb)) best = k;
      any = true;
    }
    return best;
  };
  if (name == "AllOf" || name == "allOf" || name == "all_of" || name == "both") return strongest(false);
  if (name == "AnyOf" || name == "anyOf" || name == "any_of" || name == "either") {
    // Alternatives accept more than one value, however exact each (`AnyOf(Eq(4), Eq(0))`,
    // `AnyOf(4, 0)`): a range at most, unless they spell one value (`AnyOf(4, 4.0)`).
    MatcherKind k = strongest(true);
    if (args.size() >= 2 && !k.tautology && strength(k.kind) > strength(Kind::range)) {
      std::vector<std::string> as_equal;
      for (const auto& a : args) {
        const auto [inner_name, inner_args] = matcher_call(a);
        if (inner_name.empty()) as_equal.push_back("x == " + a);
        else if (kEqual.count(inner_name) && inner_args.size() == 1) as_equal.push_back("x == " + inner_args[0]);
      }
      if (as_equal.size() != args.size() || !one_value_alternatives(as_equal)) k.kind = Kind::range;
    }
    return k;
  }
  if (name == "Not" || name == "not" || name == "is_not" || name == "not_") {
    if (args.empty()) return {Kind::type, false};
    const MatcherKind k = inner(args[0]);
    return {k.kind == Kind::eq ? Kind::range : Kind::type, k.tautology};
  }
  auto operands_of_args = [&](std::size_t from) {
    for (std::size_t i = from; i < args.size(); ++i) {
      if (known_matcher(matcher_call(args[i]).first)) inner(args[i]);
      else {
        bool tautology = false;
        collect_operands(args[i], operands, tautology);
      }
    }
  };
  // is(instanceOf(X)), Field(&S::x, Eq(3)), Pointee(Eq(3)): the inner matcher says what is checked.
  if ((name == "is" || name == "Is" || name == "Pointee" || name == "Optional") && args.size() == 1 &&
      known_matcher(matcher_call(args[0]).first))
    return inner(args[0]);
  // Pointwise(Ge(), want): each pair compared by the inner matcher.
  if ((name == "Pointwise" || name == "UnorderedPointwise") && args.size() == 2) {
    MatcherKind k = inner(args[0]);
    bool tautology = false;
    collect_operands(args[1], operands, tautology);
    return k;
  }
  // ElementsAre(_, _): the size only.
  if ((name == "ElementsAre" || name == "UnorderedElementsAre") && !args.empty() &&
      std::all_of(args.begin(), args.end(), [&](const std::string& a) {
        const std::string x = strip_spaces(a);
        return x == "_" || ends_with(x, "::_") || kNothing.count(matcher_call(x).first);
      }))
    return {Kind::range, false};
  if ((name == "Field" || name == "Property" || name == "Key") && args.size() >= 2) return inner(args.back());
  if (kEqual.count(name)) {
    operands_of_args(0);
    return {Kind::eq, false};
  }
  if (kApprox.count(name)) {
    operands_of_args(0);
    MatcherKind k{Kind::approx, false};
    if (args.size() >= 2) {
      try {
        k.tolerance = std::stod(strip_spaces(args[1]));
      } catch (...) {
        k.tolerance = -1;
      }
    } else if (contains(name, "Eq")) {
      k.tolerance = 0;  // DoubleEq: within 4 ULPs
    }
    return k;
  }
  if (kRange.count(name)) {
    operands_of_args(0);
    return {Kind::range, false};
  }
  operands_of_args(0);
  return {Kind::type, false};  // HasSubstr, notNullValue, instanceOf, hasItem
}

/// A size of something (`len(xs)`, `xs.length`, `v.size()`): a check on it compares sizes only,
/// which is weaker than comparing the values (scored as a range check).
bool size_expression(const std::string& operand) {
  const std::string o = strip_spaces(operand);
  // `len(got) + 0`, `xs.length * 1`: arithmetic on sizes and literals is still a size.
  if (auto terms = split_top(o, {"+", "-", "*", "/", "%"}); terms.size() > 1) {
    bool any = false;
    for (const auto& t : terms) {
      if (is_literal(t)) continue;
      if (!size_expression(t)) return false;
      any = true;
    }
    return any;
  }
  for (std::string_view f : {"len(", "std::size(", "size(", "std::ssize("})
    if (starts_with(o, f) && ends_with(o, ")")) return true;
  for (std::string_view m : {".length", ".size", ".size()", ".length()", ".len()", ".__len__()", ".count()", ".Count", ".Len()",
                             ".Size()", ".Length", ".nelement()", ".shape"})
    if (ends_with(o, m)) return true;
  return false;
}

/// A ternary's condition that does not depend on the value checked: a flag or a platform test
/// (`4 if FLAG else 5`, `kBig ? 40 : 4`, `sys.platform == "linux"`, `sizeof(long) == 8`) picks one
/// expected value per configuration; it clamps nothing. Only the one ternary of the check, written
/// in it (not reached through a local: `want = got == 0 ? 0 : 4`), whose names are constants
/// (`FLAG`, `kBig`, `True`) or platform members (`sys.platform`, `process.platform`, `runtime.GOOS`)
/// that occur nowhere else in the check, and that calls nothing but `sizeof`. A local flag or a copy
/// of the value (`g = got`, `0 if g == 0 else 4`) stays a clamp; a constant-style name bound to the
/// value in the test (`G = got`) is not seen (docs/INTEGRITY.md, known gaps).
bool independent_condition(std::string_view condition, std::string_view context, bool python) {
  // (String literals blanked; the `_spaced` texts keep word boundaries for counting names, their
  // strip_spaces copies find the ternary however it is spaced.)
  const auto blank = [](std::string_view t) {
    std::string out;
    char q = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
      const char c = t[i];
      if (q) {
        if (c == '\\') ++i;
        else if (c == q) q = 0;
        continue;
      }
      if (c == '"' || c == '\'' || c == '`') q = c;
      out += q ? ' ' : c;
    }
    return out;
  };
  const std::string cond_spaced = blank(condition), ctx_spaced = blank(context);
  std::string cond = strip_spaces(cond_spaced);
  const std::string ctx = strip_spaces(ctx_spaced);
  if (cond.empty()) return false;
  if (!python) {
    std::size_t marks = 0;
    for (std::size_t k = 0; k < ctx.size(); ++k)
      if (ctx[k] == '?' && (k + 1 >= ctx.size() || (ctx[k + 1] != '.' && ctx[k + 1] != '?')) && (k == 0 || ctx[k - 1] != '?')) ++marks;
    if (marks != 1) return false;
  }
  if (ctx.find(python ? "if" + cond + "else" : cond + "?") == std::string::npos) return false;
  // (`sizeof(long)`: a property of the platform.)
  for (std::size_t k = cond.find("sizeof("); k != std::string::npos; k = cond.find("sizeof(")) {
    const std::size_t close = matching_close(cond, k + 6);
    if (close == std::string::npos) return false;
    cond.replace(k, close + 1 - k, "0");
  }
  if (cond.find('(') != std::string::npos) return false;
  static const std::set<std::string> kWords = {"True", "False", "None", "true", "false", "null", "undefined", "not",
                                               "and", "or", "is", "in", "nullptr", "NULL"};
  static const std::set<std::string> kPlatform = {"sys", "os", "platform", "process", "runtime"};
  static const rx::regex word(R"([A-Za-z_$][\w$]*)"), constant(R"(^(?:[A-Z][A-Z0-9_]*|k[A-Z]\w*)$)");
  // Uses of a name as a name (not as a member: `x.FLAG`).
  const auto uses = [&](const std::string& text, const std::string& w) {
    int n = 0;
    for (rx::sregex_iterator it(text.begin(), text.end(), word), end; it != end; ++it)
      if (it->str() == w && !(it->position() > 0 && text[static_cast<std::size_t>(it->position()) - 1] == '.')) ++n;
    return n;
  };
  for (rx::sregex_iterator it(cond.begin(), cond.end(), word), end; it != end; ++it) {
    const std::string w = it->str();
    const auto p = static_cast<std::size_t>(it->position());
    if (kWords.count(w) || (p > 0 && cond[p - 1] == '.')) continue;  // (a member: `sys.platform`)
    const bool member_root = p + w.size() < cond.size() && cond[p + w.size()] == '.';
    if (member_root ? !kPlatform.count(w) : !rx::regex_match(w, constant)) return false;
    if (uses(ctx_spaced, w) != uses(cond_spaced, w)) return false;  // (the name occurs elsewhere in the check)
  }
  return true;
}

/// A many-to-one view of a value: its sign, bit width or bit count, memory size, a rounding to tens
/// or more (`round(x, -1)`), a clamp to a literal (`min(x, 4)`), a quotient (`divmod(x, 10)[0]`), a
/// truncation of a scaled value (`int(x / 10)`, `round(x / 10)`, `int(x * 0.1)`, `Math.floor(x / 10)`,
/// `(int) (x / 10.0)`, `parseInt(x / 10)`, `(x / 10) | 0`, `math.floor(math.log10(x))`), and in Go,
/// C/C++, Java, Kotlin and Rust a plain `got/10` (or `got/10*10`), where `/` truncates integers unless
/// the check compares with a decimal (`float_context`: `Sum(xs)/2 != 3.5`). Comparing it checks a
/// range of values, not the value (scored as a range check, like a size).
bool coarse_expression(const std::string& operand, Lang lang, const std::string& context) {
  std::string o = strip_spaces(operand);
  while (wrapped_in_parens(o)) o = o.substr(1, o.size() - 2);
  if (o.empty()) return false;
  // The comparison the operand sits in (a condition's `||`/`&&` parts that mention it): a decimal
  // there makes a division a float one (`Sum(xs)/2 != 3.5`), a zero makes a sign an equality.
  std::string near;
  for (const auto& part : split_top(strip_spaces(context), {"||", "&&", " and ", " or "}))
    if (contains(part, o)) near += part + " ";
  if (near.empty()) near = strip_spaces(context);
  static const rx::regex decimal_re(R"([0-9]\.[0-9]|\bfloat(?:32|64)?\b|\bdouble\b|\bDouble\b|\bFloat\b)");
  // Only a decimal with a fraction tells a float division: `got/10 != 0.0` compares an int as well.
  static const rx::regex fraction_re(R"([0-9]\.[0-9]*[1-9]|\bfloat(?:32|64)?\b|\bdouble\b|\bDouble\b|\bFloat\b)");
  std::string outside = near;  // the comparison without the operand itself
  for (auto at = outside.find(o); at != std::string::npos; at = outside.find(o)) outside.erase(at, o.size());
  const bool float_context = rx::regex_search(outside, fraction_re);
  static const rx::regex zero(R"((?:^|[^\w.])-?0(?:\.0*)?(?:[^\w.]|$))");
  const bool zero_context = rx::regex_search(outside, zero);
  // A ternary that clamps to a literal (`x if x < 4 else 4`, `x < 4 ? x : 4`).
  static const rx::regex py_clamp(R"((?:\belse\s+-?[0-9][\w.]*|(?:^|[\s(,=])-?[0-9][\w.]*\s+if\s).*|\sif\s.*\selse\s+-?[0-9][\w.]*)");
  if (lang == Lang::python && contains(context, " if ") && contains(context, " else ") && rx::regex_search(context, py_clamp)) {
    const auto when = context.find(" if "), otherwise = context.find(" else ", when);
    const bool one = context.find(" if ", when + 1) == std::string::npos;
    if (!one || otherwise == std::string::npos ||
        !independent_condition(std::string_view(context).substr(when + 4, otherwise - when - 4), context, true))
      return true;
  }
  if ((is_js(lang) || lang == Lang::java || lang == Lang::cpp || lang == Lang::kotlin) && !contains(o, "?.") && !contains(o, "??")) {
    const auto q = split_top(o, {"?"});
    if (q.size() == 2) {
      const auto branches = split_top(q[1], {":"});
      if (branches.size() == 2 && (is_literal(branches[0]) || is_literal(branches[1])) &&
          !independent_condition(q[0], context, false))
        return true;
    }
  }
  // compareTo / compare: the order, not the value, unless compared with zero (equality).
  static const rx::regex compares(R"((?:\.compareTo\(|\bcompare\(|\.compare\(|\bcmp\.Compare\(|\bstrings\.Compare\().*\)$)");
  if (rx::regex_search(o, compares) && !zero_context) return true;
  // A sign of a difference is an exact comparison (`a.subtract(b).signum() == 0`, `Integer.signum(a - b)`).
  const auto difference = [&](std::string_view e) {
    return zero_context &&
           (contains(e, ".subtract(") || contains(e, ".minus(") || contains(e, ".compareTo(") || split_top(e, {"-"}).size() > 1);
  };
  static constexpr std::string_view kMethods[] = {".bit_length()", ".bit_count()", ".__sizeof__()", ".signum()",
                                                  ".Sign()", ".BitLen()", ".bitLength()", ".bitCount()", ".count_ones()",
                                                  ".count_zeros()", ".leading_zeros()", ".trailing_zeros()", ".is_positive()",
                                                  ".is_negative()", ".countOneBits()", ".countLeadingZeroBits()"};
  for (auto m : kMethods)
    if (ends_with(o, m)) return !((m == ".signum()" || m == ".Sign()") && difference(o.substr(0, o.size() - m.size())));
  static constexpr std::string_view kFunctions[] = {
      "sys.getsizeof(", "getsizeof(", "Integer.signum(", "Long.signum(", "Math.signum(", "Math.sign(", "np.sign(",
      "numpy.sign(", "math.copysign(1,", "math.copysign(1.0,", "Integer.bitCount(", "Long.bitCount(",
      "Integer.numberOfLeadingZeros(", "Integer.numberOfTrailingZeros(", "Long.numberOfLeadingZeros(",
      "Long.numberOfTrailingZeros(", "Integer.highestOneBit(", "Long.highestOneBit(", "Math.clz32(", "bits.Len(",
      "bits.Len8(", "bits.Len16(", "bits.Len32(", "bits.Len64(", "bits.OnesCount(", "bits.OnesCount8(", "bits.OnesCount16(",
      "bits.OnesCount32(", "bits.OnesCount64(", "bits.LeadingZeros(", "bits.LeadingZeros32(", "bits.LeadingZeros64(",
      "bits.TrailingZeros(", "bits.TrailingZeros32(", "bits.TrailingZeros64(", "math.Signbit(", "std::signbit(",
      "signbit(", "std::popcount(", "std::bit_width(", "std::countl_zero(", "std::countr_zero(", "__builtin_popcount(",
      "__builtin_clz(", "__builtin_ctz(", "sizeof(", "divmod("};
  for (auto f : kFunctions)
    if (starts_with(o, f) && (ends_with(o, ")") || ends_with(o, "]"))) {
      const std::string_view inner = std::string_view(o).substr(f.size());
      return !(contains(f, "sign") && difference(inner.substr(0, inner.rfind(')'))));
    }
  // round(x, -1): to tens or coarser.
  static const rx::regex to_tens(R"(^(?:round|builtins\.round)\(.*,(?:ndigits=)?-[1-9][0-9]*\)$)");
  if (rx::regex_match(o, to_tens)) return true;
  // min(x, 4), Math.max(x, 0), std::clamp(x, 0, 9): a clamp to a literal bound.
  // A clamp, a bound given as a literal or a name (`min(x, 4)`, `min(x, LIMIT)`): with two or more
  // arguments min/max keep a range of values apart from each other.
  static const rx::regex clamp(R"(^(?:min|max|Math\.min|Math\.max|std::min|std::max|std::clamp|clamp|math\.Min|math\.Max|Integer\.min|Integer\.max|Long\.min|Long\.max|coerceAtMost|coerceAtLeast)\((.*)\)$)");
  rx::smatch m;
  if (rx::regex_match(o, m, clamp) && split_top(m[1].str(), {","}).size() >= 2) return true;
  static const rx::regex coerced(R"(\.(?:coerceAtMost|coerceAtLeast|coerceIn|clamp)\([^()]*\)$)");
  if (rx::regex_search(o, coerced)) return true;
  // Depth-0 scan: a division by an integer literal (not 1), a product with a fraction (`* 0.1`), or a
  // logarithm or root: what a truncation makes lossy.
  const auto integer_division = [](std::string_view e, bool decimals_too) {
    int depth = 0;
    for (std::size_t i = 0; i < e.size(); ++i) {
      const char c = e[i];
      if (c == '(' || c == '[' || c == '{') ++depth;
      else if (c == ')' || c == ']' || c == '}') --depth;
      else if (c == '/' && depth == 0 && i + 1 < e.size() && e[i + 1] != '/' && e[i + 1] != '=') {
        std::size_t j = i + 1;
        while (j < e.size() && e[j] == '(') ++j;
        std::size_t k = j;
        while (k < e.size() && (std::isdigit(static_cast<unsigned char>(e[k])) || e[k] == '_')) ++k;
        if (k == j) continue;
        const bool decimal = k < e.size() && e[k] == '.';
        std::string digits(e.substr(j, k - j));
        std::erase(digits, '_');
        if (digits.find_first_not_of('0') == std::string::npos || digits == "1") continue;
        if (!decimal || decimals_too) return true;
      }
    }
    return false;
  };
  const auto lossy = [&](std::string_view e) {
    while (wrapped_in_parens(e)) e = e.substr(1, e.size() - 2);
    static const rx::regex fraction(R"(\*\(?0?\.[0-9]+|\*\(?[0-9]+[eE]-[0-9]+)");
    static const rx::regex root(R"(\b(?:math\.|Math\.|std::)?(?:log|log10|log2|log1p|sqrt|cbrt|Log|Log10|Log2|Sqrt|Cbrt)\()");
    const std::string s(e);
    return integer_division(e, true) || rx::regex_search(s, fraction) || rx::regex_search(s, root);
  };
  // A truncating wrapper: int(...), math.floor(...), round(x) without digits, parseInt, Go/Rust
  // integer conversions, a C-style cast.
  static const rx::regex wrapper(
      R"(^(?:int|round|math\.floor|math\.trunc|math\.ceil|Math\.floor|Math\.trunc|Math\.ceil|Math\.round|Math\.floorDiv|floor|trunc|ceil|std::floor|std::trunc|std::ceil|std::lround|std::round|parseInt|Number\.parseInt|int8|int16|int32|int64|uint|uint8|uint16|uint32|uint64|math\.Floor|math\.Trunc|math\.Ceil|math\.Round|static_cast<(?:int|long|short|unsigned|std::u?int\d+_t)[^>]*>)\((.*)\)$)");
  if (rx::regex_match(o, m, wrapper)) {
    const std::string inner = m[1].str();
    if (split_top(inner, {","}).size() == 1 && lossy(inner)) return true;
    if (starts_with(o, "Math.floorDiv(")) return true;
  }
  static const rx::regex cast(R"(^\((?:int|long|short|byte|char|unsigned|int\d+_t|uint\d+_t|size_t|Int|Long)\)(.+)$)");
  if (rx::regex_match(o, m, cast) && (lossy(m[1].str()) || coarse_expression(m[1].str(), lang, "0.5"))) return true;
  static const rx::regex as_cast(R"(^(.+)as(?:i|u)(?:8|16|32|64|128|size)$)");
  if (lang == Lang::rust && rx::regex_match(o, m, as_cast) && lossy(m[1].str())) return true;
  // JavaScript truncations: `(x / 10) | 0`, `~~(x / 10)`, `(x / 10) >> 0`.
  static const rx::regex js_trunc(R"(^(?:~~(.+)|(.+)(?:\|0|>>0|>>>0))$)");
  if (is_js(lang) && rx::regex_match(o, m, js_trunc) && lossy(m[1].matched ? m[1].str() : m[2].str())) return true;
  // A value formatted to whole units (`"%d" % (x / 10)`, `format(x / 10, ".0f")`, `"{:.0f}".format(x / 10)`,
  // `String.format("%.0f", x / 100.0)`, `fmt.Sprintf("%.0f", float64(x)/100)`, `strconv.FormatFloat(x/100, 'f', 0, 64)`)
  // after scaling it: the text keeps a range of values apart, not the value.
  {
    // (A precision of zero digits or none: `%.0f`, `%.f`, `{:.0f}`.)
    static const rx::regex whole_units(R"(%[-+ 0#]*[0-9]*[diu]|%[-+ 0#]*[0-9]*\.0*[fFeEgG]|\{[^{}]*:[^{}]*(?:\.0*[fFeEgG%]|[0-9]*d)\}|^['"][^'"]*\.0*[fFeEgG%]['"]$|^['"][0-9]*d['"]$)");
    std::vector<std::string> args;
    rx::smatch fm;
    static const rx::regex percent(R"(^([rbuRBU]?['"].*['"])%(.+)$)");
    static const rx::regex dot_format(R"(^([rbuRBU]?['"].*['"])\.(?:format|formatted)\((.+)\)$)");
    static const rx::regex call_format(R"(^(?:format|String\.format|fmt\.Sprintf|fmt\.Sprint|fmt\.Fprintf|std::format|String\.valueOf|strconv\.FormatFloat)\((.+)\)$)");
    bool whole = false;
    if (rx::regex_match(o, fm, percent) && rx::regex_search(fm[1].str(), whole_units)) {
      whole = true;
      std::string rest = fm[2].str();
      while (wrapped_in_parens(rest)) rest = rest.substr(1, rest.size() - 2);
      for (const auto& a : split_top(rest, {","})) args.emplace_back(a);
    } else if (rx::regex_match(o, fm, dot_format)) {
      const auto parts = split_top(fm[2].str(), {","});
      // A nested field of a spec (`"{0:.{1}f}".format(x / 10, 0)`, `.{p}f` with `p=0`) read at the
      // literal argument it names.
      std::string pattern = fm[1].str();
      static const rx::regex nested(R"((:[^{}]*)\{(\w+)\})");
      for (int round = 0; round < 4; ++round) {
        rx::smatch nm;
        if (!rx::regex_search(pattern, nm, nested)) break;
        std::string value;
        const std::string key = nm[2].str();
        if (std::all_of(key.begin(), key.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); })) {
          const std::size_t k = std::stoul(key);
          if (k < parts.size()) value = strip_spaces(parts[k]);
        } else {
          for (const auto& a : parts)
            if (starts_with(strip_spaces(a), key + "=")) value = strip_spaces(a).substr(key.size() + 1);
        }
        if (value.empty() || !std::all_of(value.begin(), value.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }))
          break;
        pattern = nm.prefix().str() + nm[1].str() + value + nm.suffix().str();
      }
      if (rx::regex_search(pattern, whole_units)) {
        whole = true;
        for (const auto& a : parts) args.emplace_back(a);
      }
    }
    // Java's DecimalFormat with no fraction digits (`new DecimalFormat("#").format(x / 100.0)`,
    // `"#,##0"`): whole units.
    static const rx::regex decimal_format(R"re(^new(?:java\.text\.)?DecimalFormat\("([^".]*)"(?:,[^()]*)?\)\.format\((.+)\)$)re");
    if (!whole && rx::regex_match(o, fm, decimal_format)) {
      whole = true;
      args.push_back(fm[2].str());
    } else if (rx::regex_match(o, fm, call_format)) {
      const auto parts = split_top(fm[1].str(), {","});
      for (const auto& a : parts) args.emplace_back(a);
      if (starts_with(o, "strconv.FormatFloat(")) whole = parts.size() >= 3 && strip_spaces(std::string(parts[2])) == "0";
      else if (starts_with(o, "format(")) whole = parts.size() >= 2 && rx::regex_search(std::string(parts[1]), whole_units);
      else whole = std::any_of(parts.begin(), parts.end(), [](std::string_view a) { return rx::regex_search(std::string(a), whole_units); });
    }
    // Each field of an f-string or substitution of a template literal is an operand of its own
    // (`${(x / 10) | 0}`, f"{int(x / 10)}": a many-to-one view of x as text). An f-string field's
    // spec may format to whole units (f"{x / 10:.0f}", f"{x / 10:3.0F}"; a nested field read at its
    // literal value, `{x / 10:.{0}f}`), and a precision on text (`{x / 10!s:.1}`, `{str(x):.2s}`)
    // keeps a prefix of it.
    static const rx::regex interpolating(R"(^(?:[rR]?[fF][rR]?(['"])(.*)\1|`(.*)`)$)");
    if (!whole && rx::regex_match(o, fm, interpolating)) {
      const bool tmpl = fm[3].matched;
      for (const auto& x : interpolations(tmpl ? fm[3].str() : fm[2].str(), tmpl)) {
        if (coarse_expression(x.expression, lang, "0.5")) return true;
        std::string spec = strip_spaces(x.spec);
        static const rx::regex nested(R"(\{([0-9]+)\})");
        spec = rx::regex_replace(spec, nested, "$1");
        if (spec.empty()) continue;
        static const rx::regex text_precision(R"(^.*\.[0-9]+s?$)");
        if (((!x.conversion.empty() && spec.find_first_of("fFeEgG%d") == std::string::npos) || ends_with(spec, "s")) &&
            rx::regex_match(spec, text_precision))
          return true;
        if (rx::regex_search("{:" + spec + "}", whole_units)) {
          whole = true;
          args.push_back(x.expression);
        }
      }
    }
    if (whole)
      for (const auto& a : args) {
        std::string e = strip_spaces(a);
        if (!e.empty() && (e[0] == '"' || e[0] == '\'')) continue;
        while (wrapped_in_parens(e)) e = e.substr(1, e.size() - 2);
        int depth = 0;
        bool scaled = false;
        for (std::size_t i = 0; i < e.size(); ++i) {
          if (e[i] == '(' || e[i] == '[') ++depth;
          else if (e[i] == ')' || e[i] == ']') --depth;
          else if (depth == 0 && e[i] == '/' && i + 1 < e.size() && e[i + 1] != '/' && e[i + 1] != '=') scaled = true;
        }
        static const rx::regex fraction(R"(\*\(?0?\.[0-9]+|\*\(?[0-9]+[eE]-[0-9]+)");
        if (scaled || rx::regex_search(e, fraction) || coarse_expression(e, lang, "0.5")) return true;
      }
  }
  // Decimal rounded to whole units: `Decimal(x / 10).quantize(Decimal("1"))`, `.to_integral_value()`.
  {
    static const rx::regex quantize(
        R"re(^(.+)\.(?:quantize\((?:decimal\.)?Decimal\(['"]1\.?['"]\)[^()]*\)|to_integral(?:_value|_exact)?\([^()]*\))$)re");
    rx::smatch qm;
    if (rx::regex_match(o, qm, quantize)) {
      std::string inner = qm[1].str();
      static const rx::regex decimal_of(R"(^(?:decimal\.)?Decimal\((.+)\)$)");
      rx::smatch dm;
      if (rx::regex_match(inner, dm, decimal_of)) inner = dm[1].str();
      if (lossy(inner) || coarse_expression(inner, lang, "0.5")) return true;
    }
  }
  // A number formatted to a few significant digits (`f"{x:.0e}"`, `format(x, ".1g")`, `"%.1g" % x`,
  // `fmt.Sprintf("%.0e", x)`, `x.toPrecision(1)`, `x.toExponential(0)`): the leading digits, a range.
  {
    static const rx::regex significant(
        R"re(^(?:[rR]?[fF][rR]?['"].*\{[^{}]*:[^{}]*\.[0-9]+[eEgG]\}.*['"]|['"][^'"]*%[-+ 0#]*[0-9]*\.[0-9]*[eEgG][^'"]*['"]%.+|(?:format|builtins\.format)\(.+,['"][^'"]*\.[0-9]+[eEgG]['"]\)|(?:fmt\.Sprintf|fmt\.Sprint|String\.format|std::format)\(['"][^'"]*%[-+ 0#]*[0-9]*\.[0-9]*[eEgG][^'"]*['"],.+\)|(?:strconv\.FormatFloat)\(.+,'[eEgG]',[0-9]+,.+\)|.+\.(?:toPrecision|toExponential)\([0-9]*\))$)re");
    if (rx::regex_match(o, significant)) return true;
  }
  // The operator module's and the special methods' spellings of a mask, a remainder, a floor
  // division or a shift (`operator.and_(x, ~1)`, `x.__floordiv__(2)`).
  {
    static const rx::regex op_call(R"(^operator\.(?:and_|mod|floordiv|rshift|iand|imod|ifloordiv|irshift)\(.+,.+\)$)");
    static const rx::regex dunder(R"(^.+\.__(?:and|mod|floordiv|rshift|rand|rmod|rfloordiv|divmod)__\(.+\)$)");
    if (lang == Lang::python && (rx::regex_match(o, op_call) || rx::regex_match(o, dunder))) return true;
  }
  // A bit mask, a bit clear, a remainder or a right shift by a literal (`x & ~1`, Go `x &^ 1`,
  // `x % 10`, `x >> 2`, `x | 1`): a range of values compares equal.
  {
    int depth = 0;
    char quote = 0;
    for (std::size_t i = 0; i < o.size(); ++i) {
      const char ch = o[i];
      if (quote) {
        if (ch == '\\') ++i;
        else if (ch == quote) quote = 0;
        continue;
      }
      if (ch == '"' || ch == '\'' || ch == '`') quote = ch;
      else if (ch == '(' || ch == '[' || ch == '{') ++depth;
      else if (ch == ')' || ch == ']' || ch == '}') --depth;
      if (depth != 0 || i == 0) continue;
      std::string_view op;
      const std::string_view rest = std::string_view(o).substr(i);
      if (starts_with(rest, "&^")) op = "&^";
      else if (lang == Lang::python && starts_with(rest, "//") && !starts_with(rest, "//=")) op = "//";
      else if (starts_with(rest, ">>>") || starts_with(rest, "&&") || starts_with(rest, "||") || starts_with(rest, ">>=")) {
        i += 1;
        continue;
      } else if (starts_with(rest, ">>")) op = ">>";
      else if ((ch == '&' || ch == '%' || ch == '|') && (i + 1 >= o.size() || o[i + 1] != '=')) op = rest.substr(0, 1);
      if (op.empty()) continue;
      const std::string left = o.substr(0, i);
      std::string right = o.substr(i + op.size());
      while (wrapped_in_parens(right)) right = right.substr(1, right.size() - 2);
      if (!right.empty() && right[0] == '~') right.erase(0, 1);
      if (!left.empty() && (left[0] == '"' || left[0] == '\'' || ends_with(left, "\"") || ends_with(left, "'"))) break;  // "%d" % x
      static const rx::regex int_literal(R"(^-?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|[0-9][0-9_]*)[uUlL]*$)");
      // A constant's name (`x & MASK`, `x % BUCKETS`) masks as a literal does.
      static const rx::regex constant_name(R"(^(?:[A-Za-z_]\w*\.)?[A-Z][A-Z0-9_]*$)");
      if (rx::regex_match(right, constant_name) && op != "|") return true;
      if (!rx::regex_match(right, int_literal)) break;
      std::string digits = right;
      std::erase(digits, '_');
      const bool none = digits.find_first_not_of("0xXbB-") == std::string::npos;
      if ((op == "|" || op == ">>" || op == "%") && none) break;  // `x | 0` in JS, `x >> 0`: handled above
      if (op == "%" && digits == "1") break;                        // `x % 1` keeps the fraction
      return true;
    }
  }
  // The first or last of a sorted list that mixes the value with a bound (`sorted([x, 4])[0]`): a clamp.
  {
    static const rx::regex sorted_pick(
        R"(^(?:sorted\(|heapq\.nsmallest\(|heapq\.nlargest\(|(?:statistics\.)?(?:median|median_low|median_high|median_grouped|mode|multimode|quantiles)\(|np\.median\(|numpy\.median\(|np\.percentile\(|np\.quantile\()\s*[\[(](.*)[\])](?:,.*)?\)(?:\[-?[0-9]+\])?$)");
    rx::smatch sm;
    if (rx::regex_match(o, sm, sorted_pick) && split_top(sm[1].str(), {","}).size() >= 2) return true;
  }
  // A prefix of a scaled value's text (`str(x / 10)[0]`, `str(x / 10)[:1]`, `String(x / 10)[0]`,
  // `String.valueOf(x / 10).charAt(0)`): the leading digits, a range of values.
  {
    static const rx::regex text_prefix(
        R"(^(?:str|repr|String|String\.valueOf|Integer\.toString|Long\.toString|Double\.toString|strconv\.Itoa|fmt\.Sprint|std::to_string)\((.+)\)(?:\[[^\]]*\]|\.(?:charAt|substring|slice|substr|at)\([^()]*\))$)");
    rx::smatch pm;
    if (rx::regex_match(o, pm, text_prefix)) return true;
  }
  // `(x / 100).toFixed(0)`: a rounding of a scaled value.
  static const rx::regex fixed(R"(^(.+)\.(?:toFixed|toPrecision)\([0-9]*\)$)");
  if (is_js(lang) && rx::regex_match(o, m, fixed) && lossy(m[1].str())) return true;
  // A float conversion of an integer division: truncated before it is converted (`float64(x/10)`, `(double) (x / 10)`).
  static const rx::regex to_float(R"(^(?:float64|float32|float|double|Double\.valueOf|static_cast<(?:double|float)>)\((.*)\)$|^\((?:double|float)\)(.+)$)");
  if (rx::regex_match(o, m, to_float)) {
    std::string inner = m[1].matched ? m[1].str() : m[2].str();
    while (wrapped_in_parens(inner)) inner = inner.substr(1, inner.size() - 2);
    const bool truncating_lang = lang == Lang::go || lang == Lang::cpp || lang == Lang::java || lang == Lang::kotlin || lang == Lang::rust;
    if (truncating_lang && integer_division(inner, false) && !rx::regex_search(inner, decimal_re)) return true;
  }
  const bool truncating = lang == Lang::go || lang == Lang::cpp || lang == Lang::java || lang == Lang::kotlin || lang == Lang::rust;
  return truncating && !float_context && integer_division(o, false);
}

/// A literal that is always true (`1`, `"x"`, `True`, a non-empty literal tuple or list).
bool truthy_literal(std::string_view text) {
  std::string e = trim(text);
  while (wrapped_in_parens(e) && split_top(std::string_view(e).substr(1, e.size() - 2), {","}).size() < 2)
    e = trim(std::string_view(e).substr(1, e.size() - 2));
  static const std::set<std::string, std::less<>> kFalsy = {"False", "0", "None", "''", "\"\"", "[]", "()", "{}", "false",
                                                            "null", "undefined", "0.0", "NaN", "nil", "``", "b''", "b\"\""};
  // (Its words apart: `4 in got` is no literal.)
  return !e.empty() && is_literal(e) && !kFalsy.count(strip_spaces(e));
}

std::string unparen(std::string e) {
  e = trim(e);
  while (wrapped_in_parens(e)) e = trim(std::string_view(e).substr(1, e.size() - 2));
  return e;
}

/// `not x` / `!x` -> `x`; "" when not a negation.
std::string negated(const std::string& e) {
  for (std::string_view neg : {"not ", "!"})
    if (starts_with(e, neg) && !starts_with(e, "!=")) return unparen(e.substr(neg.size()));
  return {};
}

/// A comparison of a subject with a boolean literal (`ok == True`, `ok is True`, `pass === true`,
/// `ok != false`): the subject, and whether the comparison holds when the subject is false (`ok ==
/// False`, `ok is not True`, `ok != true`); nullopt for anything else. Outside Python equality
/// operators chain to the left (`got != 4 == false` is `(got != 4) == false`: the subject is
/// `got != 4`); in Python a chain is a conjunction (`got != 4 == False` is `got != 4 and 4 ==
/// False`), never a comparison of one subject, and so is `a < b == True`. Nothing joined by `and`,
/// `or`, `&&`, `||` or a ternary at the top level.
std::string js_ternary_marks(std::string e);

std::optional<std::pair<std::string, bool>> truth_compared(const std::string& e, bool python) {
  static constexpr std::string_view kOps[] = {" is not ", "!==", "===", "!=", "==", " is "};
  const auto literal = [](const std::string& x) { return x == "True" || x == "true" || x == "False" || x == "false"; };
  if (split_top(js_ternary_marks(e), {"&&", "||", " and ", " or ", "?", " if "}).size() > 1) return std::nullopt;
  const auto parts = split_top(e, {kOps[0], kOps[1], kOps[2], kOps[3], kOps[4], kOps[5]});
  if (parts.size() < 2) return std::nullopt;
  if (python && (parts.size() > 2 || split_top(parts[0], {"<", ">", " in ", " is "}).size() > 1 ||
                 split_top(parts[1], {"<", ">", " in ", " is "}).size() > 1))
    return std::nullopt;
  // The last operator: where the last part starts, less the operator written before it.
  const std::size_t last_start = e.size() - parts.back().size();
  std::string_view op;
  for (const auto o : kOps)
    if (last_start >= o.size() && e.compare(last_start - o.size(), o.size(), o) == 0) {
      op = o;
      break;
    }
  if (op.empty()) return std::nullopt;
  const bool negative = op == " is not " || op == "!==" || op == "!=";
  const std::string left = trim(e.substr(0, last_start - op.size())), right = trim(parts.back());
  if (literal(right) && !literal(left)) return std::pair<std::string, bool>(left, negative != (right == "False" || right == "false"));
  if (parts.size() == 2 && literal(left) && !literal(right))
    return std::pair<std::string, bool>(right, negative != (left == "False" || left == "false"));
  return std::nullopt;
}

/// `x == 4` and `x != 4`, `c` and `not c`: one of two clauses always holds.
bool complementary(const std::string& a, const std::string& b) {
  const std::string x = unparen(a), y = unparen(b);
  if (strip_spaces(negated(x)) == strip_spaces(y) || strip_spaces(negated(y)) == strip_spaces(x)) return !x.empty() && !y.empty();
  static constexpr std::pair<std::string_view, std::string_view> kFlips[] = {
      {"===", "!=="}, {"!==", "==="}, {"==", "!="}, {"!=", "=="}, {"<=", ">"}, {">=", "<"}, {" is not ", " is "},
      {" not in ", " in "}};
  for (auto [p, q] : kFlips) {
    const auto at = x.find(p);
    if (at == std::string::npos) continue;
    std::string flipped = x;
    flipped.replace(at, p.size(), q);
    if (strip_spaces(flipped) == strip_spaces(y)) return true;
  }
  for (auto [p, q] : {std::pair<char, std::string_view>{'<', ">="}, {'>', "<="}}) {
    const auto at = x.find(p);
    if (at == std::string::npos || (at + 1 < x.size() && x[at + 1] == '=')) continue;
    std::string flipped = x;
    flipped.replace(at, 1, q);
    if (strip_spaces(flipped) == strip_spaces(y)) return true;
  }
  return false;
}

/// Does an arithmetic side cancel out (`f(x) - f(x)`, `f(x) * 0`, `f(x) - f(x) + 4`, `a ^ a`)?
/// Only sides with a non-literal term that all cancel.
bool cancels(std::string_view side) {
  const std::string s = strip_spaces(std::string(side));
  auto xor_parts = split_top(s, {"^"});
  if (xor_parts.size() == 2 && xor_parts[0] == xor_parts[1] && !is_literal(xor_parts[0])) return true;
  // Binary + and - at the top level, with their signs.
  std::map<std::string, int> net;
  bool any_term = false;
  int depth = 0, sign = 1;
  char q = 0;
  std::size_t start = 0;
  auto take = [&](std::size_t end) {
    std::string term = s.substr(start, end - start);
    if (term.empty()) return;
    for (const auto& f : split_top(term, {"*"}))
      if (strip_spaces(f) == "0") {
        any_term = any_term || !is_literal(term);
        return;  // times zero: no contribution
      }
    if (is_literal(term)) return;
    any_term = true;
    net[term] += sign;
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (q) {
      if (c == '\\') ++i;
      else if (c == q) q = 0;
      continue;
    }
    if (c == '"' || c == '\'' || c == '`') q = c;
    else if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') --depth;
    else if ((c == '+' || c == '-') && depth == 0 && i > 0) {
      const char p = s[i - 1];
      const bool operand_end = std::isalnum(static_cast<unsigned char>(p)) || p == '_' || p == ')' || p == ']' || p == '"' || p == '\'';
      const bool exponent = (p == 'e' || p == 'E') && i > 1 && std::isdigit(static_cast<unsigned char>(s[i - 2]));
      if (!operand_end || exponent) continue;
      take(i);
      sign = c == '+' ? 1 : -1;
      start = i + 1;
    }
  }
  take(s.size());
  return any_term && std::all_of(net.begin(), net.end(), [](const auto& kv) { return kv.second == 0; });
}

/// A literal that is false in the language (`[]` is true in JavaScript, false in Python).
bool falsy_literal(const std::string& text, bool python) {
  const std::string v = strip_spaces(text);
  static const std::set<std::string, std::less<>> kPython = {"False", "0", "0.0", "None", "''", "\"\"", "[]", "()", "{}", "b''"};
  static const std::set<std::string, std::less<>> kOther = {"false", "0", "0.0", "''", "\"\"", "``", "null", "undefined",
                                                            "NaN", "nil", "nullptr", "NULL", "0n", "void0"};
  return python ? kPython.count(v) > 0 : kOther.count(v) > 0;
}

/// A clause of an `or` that only fails or logs (`pytest.fail(...)`, `assert.fail(...)`,
/// `console.error(x)`, `print(x)`): it passes nothing, so it widens no check.
bool fails_or_logs(const std::string& clause) {
  static const rx::regex re(R"(^\s*(?:(?:assert|t|expect|chai\s*\.\s*assert|pytest|self)\s*\.\s*fail|fail|console\s*\.\s*\w+|print)\s*\()");
  return rx::regex_search(clause, re);
}

/// The JS assertions that check the truth of their argument: node's and tape's `ok`, tape's and
/// ava's `true`/`truthy`, tape's `assert`.
bool js_ok_name(std::string_view name) { return name == "ok" || name == "true" || name == "truthy"; }

/// JavaScript text with its optional-chaining marks (`a?.b`, `f?.()`, `a?.[0]`) hidden (`#.`), so
/// that a split at `?` finds only ternaries and `??`.
std::string js_ternary_marks(std::string e) {
  for (std::size_t i = 0; i + 1 < e.size(); ++i)
    if (e[i] == '?' && e[i + 1] == '.' && !(i + 2 < e.size() && std::isdigit(static_cast<unsigned char>(e[i + 2])))) e[i] = '#';
  return e;
}

/// Alternatives that compare one expression with one value however written (`got == 4 or got ==
/// 4.0`, `x === 1 || x == 1`): the same check as one of them.
bool one_value_alternatives(const std::vector<std::string>& ors) {
  std::string subject;
  std::optional<double> number;
  std::string text;
  for (const auto& clause : ors) {
    const auto sides = split_top(unparen(trim(clause)), {"===", "=="});
    if (sides.size() != 2) return false;
    std::string l = strip_spaces(sides[0]), r = strip_spaces(sides[1]);
    while (!r.empty() && r.front() == '=') r.erase(0, 1);
    if (is_literal(l) && !is_literal(r)) std::swap(l, r);
    if (is_literal(l) || !is_literal(r)) return false;
    if (subject.empty()) subject = l;
    else if (subject != l) return false;
    char* end = nullptr;
    const double v = std::strtod(r.c_str(), &end);
    const bool numeric = !r.empty() && end == r.c_str() + r.size();
    if (numeric) {
      if (!text.empty() || (number && *number != v)) return false;
      number = v;
    } else {
      if (number || (!text.empty() && text != r)) return false;
      text = r;
    }
  }
  return true;
}

/// The names an expression reads at its root (`got` of `got.value` or `got[0]`, `add` of `add(2,
/// 2)`), outside string literals: not members, string prefixes, keywords or the test's reporter.
std::vector<std::string> root_names(std::string_view e) {
  static const std::set<std::string, std::less<>> kSkip = {
      "and", "or", "not", "if", "else", "is", "in", "None", "True", "False", "null", "undefined", "true", "false",
      "typeof", "new", "nil", "this", "self", "await", "lambda", "instanceof", "void", "t", "assert", "require",
      "expect", "nullptr", "NULL", "NaN", "Infinity", "std",
      // (conversions and builtins: two sides may both take a length or a number of different values)
      "len", "str", "int", "float", "bool", "abs", "list", "tuple", "set", "dict", "sorted", "round", "min", "max",
      "sum", "repr", "Number", "String", "Boolean", "Array", "Object", "JSON", "Math", "parseInt", "parseFloat",
      "float64", "float32", "int64", "int32", "string", "static_cast", "sizeof", "math", "strconv", "fmt"};
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; };
  std::vector<std::string> out;
  char q = 0;
  for (std::size_t i = 0; i < e.size();) {
    const char c = e[i];
    if (q) {
      if (c == '\\') ++i;
      else if (c == q) q = 0;
      ++i;
      continue;
    }
    if (c == '"' || c == '\'' || c == '`') {
      q = c;
      ++i;
      continue;
    }
    if (!word(c) || std::isdigit(static_cast<unsigned char>(c))) {
      ++i;
      while (std::isdigit(static_cast<unsigned char>(c)) && i < e.size() && word(e[i])) ++i;  // (`1e5`, `0x1F`)
      continue;
    }
    std::size_t j = i;
    while (j < e.size() && word(e[j])) ++j;
    std::size_t b = i;
    while (b > 0 && e[b - 1] == ' ') --b;
    const bool member = b > 0 && (e[b - 1] == '.' || (b > 1 && ((e[b - 1] == '>' && e[b - 2] == '-') || (e[b - 1] == ':' && e[b - 2] == ':'))));
    const bool prefix = j < e.size() && (e[j] == '"' || e[j] == '\'');  // (`f"..."`, `b'...'`)
    std::string w(e.substr(i, j - i));
    if (!member && !prefix && !kSkip.count(w)) out.push_back(std::move(w));
    i = j;
  }
  return out;
}

/// The names and member paths an expression reads (`got`, `res.total`, `add` of `add(2, 2)`),
/// outside string literals, as root_names keeps them; with `top_only`, only those outside any
/// parentheses or brackets (a call's arguments are its inputs, not its value).
std::set<std::string> value_paths(const std::string& e, bool top_only) {
  static const rx::regex path(R"([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)");
  const auto roots = root_names(e);
  std::vector<int> depth(e.size() + 1, 0);
  int d = 0;
  char q = 0;
  for (std::size_t k = 0; k < e.size(); ++k) {
    const char c = e[k];
    depth[k] = d;
    if (q) {
      if (c == '\\') ++k;
      else if (c == q) q = 0;
      continue;
    }
    if (c == '"' || c == '\'' || c == '`') q = c;
    else if (c == '(' || c == '[' || c == '{') ++d;
    else if (c == ')' || c == ']' || c == '}') --d;
  }
  std::set<std::string> out;
  for (rx::sregex_iterator it(e.begin(), e.end(), path), end; it != end; ++it) {
    const auto at = static_cast<std::size_t>(it->position());
    if (at > 0 && (e[at - 1] == '.' || std::isalnum(static_cast<unsigned char>(e[at - 1])) || e[at - 1] == '_')) continue;
    if (top_only && depth[at] != 0) continue;
    const std::string p = strip_spaces(it->str());
    if (std::find(roots.begin(), roots.end(), p.substr(0, p.find('.'))) != roots.end()) out.insert(p);
  }
  return out;
}

/// An equality that accepts more than one value of what it checks although each side looks exact:
/// the expected value is chosen by the actual (`got == (got or 4)`, `strictEqual(got, got === 0 ?
/// 0 : 4)`), the actual falls back to the value it is compared with (`(got or 4) == 4`,
/// `expect(got || 4).toBe(4)`, `got ?? 4`), or the actual is multiplied by itself (`got * (got -
/// 4) == 0` holds for 0 and 4). `raw` are the assertion's expressions as written (Assertion::raw_exprs).
bool chosen_value_equality(const std::vector<std::string>& raw, const std::set<std::string>& literals, bool python) {
  // 0: neither; 1: a ternary; 2: alternatives.
  const auto choice = [&](const std::string& x) -> std::pair<int, std::vector<std::string>> {
    if (python) {
      if (split_top(x, {" if ", " else "}).size() == 3) return {1, {}};
      if (auto o = split_top(x, {" or "}); o.size() >= 2) return {2, o};
      return {0, {}};
    }
    const std::string m = js_ternary_marks(x);
    if (auto o = split_top(m, {"||", "??"}); o.size() >= 2) return {2, o};
    if (auto q = split_top(m, {"?"}); q.size() == 2 && split_top(q[1], {":"}).size() == 2) return {1, {}};
    return {0, {}};
  };
  std::vector<std::string> sides;
  for (const auto& e : raw) {
    const std::string x = unparen(trim(e));
    if (choice(x).first) {
      sides.push_back(x);
      continue;
    }
    const auto parts = split_top(x, {"===", "!==", "==", "!="});
    if (parts.size() > 2) continue;  // (a chain: other rules read it)
    for (const auto& p : parts) {
      std::string t = trim(p);
      while (!t.empty() && t.front() == '=') t.erase(0, 1);
      sides.push_back(unparen(trim(t)));
    }
  }
  for (std::size_t i = 0; i < sides.size(); ++i) {
    const auto [kind, alternatives] = choice(sides[i]);
    if (kind == 2)
      for (const auto& alt : alternatives) {
        const std::string l = strip_spaces(alt);
        if (!is_literal(l) || falsy_literal(l, python)) continue;
        if (literals.count(l)) return true;
        for (std::size_t j = 0; j < sides.size(); ++j)
          if (j != i && strip_spaces(sides[j]) == l) return true;
      }
    // (Chosen by what another side holds: a value it names outside its calls' arguments,
    // `got`, `add(2, 2)`, `res.total`; not an input both use, `add(n, n)` against `n > 0 ? 2 * n : 0`.)
    if (kind != 0) {
      const auto chosen = value_paths(sides[i], false);
      for (std::size_t j = 0; j < sides.size(); ++j) {
        if (j == i) continue;
        for (const auto& n : value_paths(sides[j], true))
          if (chosen.count(n)) return true;
      }
    }
    // (The actual compared with literals only, as a top-level product whose factors share a name,
    // `got * (got - 4) == 0`; `*p` is no product, and `got == n * n` computes an expected value.)
    bool others_literal = sides.size() >= 2;
    for (std::size_t j = 0; j < sides.size(); ++j)
      if (j != i && !is_literal(strip_spaces(sides[j]))) others_literal = false;
    if (!others_literal) continue;
    const std::string& side = sides[i];
    std::vector<std::string> factors;
    int depth = 0;
    char q = 0;
    std::size_t from = 0;
    for (std::size_t k = 0; k < side.size(); ++k) {
      const char c = side[k];
      if (q) {
        if (c == '\\') ++k;
        else if (c == q) q = 0;
        continue;
      }
      if (c == '"' || c == '\'' || c == '`') q = c;
      else if (c == '(' || c == '[' || c == '{') ++depth;
      else if (c == ')' || c == ']' || c == '}') --depth;
      else if (c == '*' && depth == 0 && (k + 1 >= side.size() || side[k + 1] != '*') && (k == 0 || side[k - 1] != '*')) {
        std::size_t b = k;
        while (b > 0 && side[b - 1] == ' ') --b;
        const char prev = b > 0 ? side[b - 1] : ' ';
        if (std::isalnum(static_cast<unsigned char>(prev)) || prev == '_' || prev == ')' || prev == ']') {
          factors.push_back(side.substr(from, k - from));
          from = k + 1;
        }
      }
    }
    if (!factors.empty()) {
      factors.push_back(side.substr(from));
      std::map<std::string, int> in_factors;
      static const rx::regex path(R"([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)");
      for (const auto& f : factors) {
        std::set<std::string> names;
        const auto roots = root_names(f);
        for (rx::sregex_iterator it(f.begin(), f.end(), path), e; it != e; ++it) {
          const std::string p = strip_spaces(it->str());
          if (std::find(roots.begin(), roots.end(), p.substr(0, p.find('.'))) != roots.end()) names.insert(p);
        }
        for (const auto& n : names)
          if (++in_factors[n] >= 2) return true;
      }
    }
  }
  return false;
}

/// How many values a membership test in a literal collection accepts (`got in (4, 0)`, `got in
/// (4,)`, `got in (FOUR, want)`, JS `[4, 0].includes(got)`, Go `slices.Contains([]int{4, 0},
/// got)`; a named collection, `got in VALID`, counts as two): 0 when `t` is no such test or an
/// element is neither a literal nor a name; spellings of one value (`4`, `4.0`) count once. `member`
/// says which form is the check: `in` (or a plain `includes`), or, for a failure branch's
/// condition, `not in` (or `!...includes`).
std::size_t literal_membership(std::string_view t, bool python, bool member_when_negated) {
  std::string elements;
  if (python) {
    const std::string e = unparen(trim(t));
    const auto notin = split_top(e, {" not in "});
    const auto in = notin.size() == 2 ? notin : split_top(e, {" in "});
    if (in.size() != 2 || (notin.size() == 2) != member_when_negated || is_literal(strip_spaces(in[0]))) return 0;
    const std::string rhs = trim(in[1]);
    // (A named collection, `got in VALID`: a set of values.)
    static const rx::regex named(R"(^[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*$)");
    if (rx::regex_match(rhs, named) && rhs != "None" && rhs != "True" && rhs != "False") return 2;
    if (rhs.size() < 2 || std::string_view("([{").find(rhs.front()) == std::string_view::npos ||
        matching_close(rhs, 0) != rhs.size() - 1)
      return 0;
    elements = rhs.substr(1, rhs.size() - 2);
  } else {
    static const rx::regex includes(R"(^\s*(!?)\s*\[([^\[\]]*)\]\s*\.\s*includes\s*\(\s*[^,()]+\)\s*$)");
    static const rx::regex contains_go(R"(^\s*(!?)\s*slices\s*\.\s*Contains\s*\(\s*\[\]\w+\s*\{([^{}]*)\}\s*,\s*[^,()]+\)\s*$)");
    rx::smatch m;
    const std::string e(t);
    if (!rx::regex_match(e, m, includes) && !rx::regex_match(e, m, contains_go)) return 0;
    if (m[1].matched && m[1].length() > 0) {
      if (!member_when_negated) return 0;
    } else if (member_when_negated) {
      return 0;
    }
    elements = m[2].str();
  }
  std::set<std::string> texts;
  std::set<double> numbers;
  static const rx::regex constant(R"(^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$)");
  for (const auto& el : split_top(elements, {","})) {
    const std::string v = strip_spaces(el);
    if (v.empty()) continue;
    if (!is_literal(v) && !rx::regex_match(v, constant)) return 0;  // (literals and named constants)
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (end == v.c_str() + v.size()) numbers.insert(d);
    else texts.insert(v);
  }
  return texts.size() + numbers.size();
}

/// What a boolean expression really checks, beyond its operators: a tautology (`... or 1`, `c or
/// not c`, `x in (4, x)`, a non-empty tuple or list, a side that cancels, `all(... in [])`, a
/// ternary with a true branch), or a weaker kind (the weakest clause of an `or` or of a ternary's
/// branches: `x == 4 or add` checks only that `add` is truthy; an `or` of exact clauses at most a
/// range: `x == 4 or x == 0` accepts two values).
void truth_analysis(std::string_view clause, Assertion& a, bool python) {
  const std::string raw = trim(clause);
  // A parenthesised tuple or a list literal is always true (`assert (x == 1, "msg")`; not `[...] ==
  // [...]`, a comparison of two lists).
  if (python && ((wrapped_in_parens(raw) && split_top(std::string_view(raw).substr(1, raw.size() - 2), {","}).size() >= 2) ||
                 (raw.size() > 2 && raw.front() == '[' && matching_close(raw, 0) == raw.size() - 1))) {
    a.tautology = true;
    return;
  }
  std::string e = unparen(raw);
  // `bool(c)`, `(c) == True`, `(c) is True`, `(c) != False` (and `== true`, `=== true`): the truth of `c`.
  for (int round = 0; round < 3; ++round) {
    const std::string compact = strip_spaces(e);
    if (python && starts_with(compact, "bool(") && matching_close(e, e.find('(')) == e.size() - 1) {
      e = unparen(e.substr(e.find('(')));
      continue;
    }
    const auto sides = split_top(e, {" is not ", " is ", "!==", "===", "!=", "=="});
    if (sides.size() != 2) break;
    std::string l = trim(sides[0]), r = trim(sides[1]);
    while (!r.empty() && r.front() == '=') r.erase(0, 1);
    r = trim(r);
    const bool negative = contains(e, "!=") || contains(e, " is not ");
    const auto is_true = [&](const std::string& x) { return negative ? (x == "False" || x == "false") : (x == "True" || x == "true"); };
    if (is_true(r) && wrapped_in_parens(l)) e = unparen(l);
    else if (is_true(l) && wrapped_in_parens(r)) e = unparen(r);
    else break;
  }
  if (truthy_literal(e) && !a.operands.empty()) a.tautology = true;
  std::vector<std::string> branches;
  if (python) {
    auto t = split_top(e, {" if ", " else "});
    if (t.size() == 3) branches = {t[0], t[2]};
  } else if (auto q = split_top(js_ternary_marks(e), {"??", "?"}); q.size() == 2) {
    // (`??` splits too, so that `a ?? b` is no ternary; `:` of an object literal sits in braces.)
    auto r = split_top(q[1], {":"});
    if (r.size() == 2 && !contains(e, "??")) branches = {r[0], r[1]};
  }
  auto weakest = [&](const std::vector<std::string>& parts) {
    int best = kStrengthExact + 1;
    Kind k = a.kind;
    for (const auto& p : parts) {
      if (truthy_literal(p)) {
        a.tautology = true;
        return;
      }
      const std::string pe = unparen(p);
      const Kind real = (contains(pe, "approx(") || contains(pe, "isclose(")) ? Kind::approx
                        : contains(pe, " is None")                             ? Kind::type
                        : contains(pe, "==")                                   ? Kind::eq
                        : (contains(pe, "<") || contains(pe, ">"))             ? Kind::range
                                                                               : Kind::type;
      if (strength(real) < best) {
        best = strength(real);
        k = real;
      }
    }
    if (strength(k) < strength(a.kind)) a.kind = k;
  };
  if (!branches.empty()) {
    // (A false branch never passes: `c ? true : false` checks `c`, `c ? x == 4 : false` checks `x
    // == 4` under a guard.)
    const auto never_passes = [&](const std::string& b) { return falsy_literal(b, python); };
    std::vector<std::string> passing;
    for (const auto& b : branches)
      if (!never_passes(b)) passing.push_back(b);
    const bool plain = passing.size() == 1 && truthy_literal(passing[0]);
    if (!plain) weakest(passing);
  }
  auto ors = split_top(e, {" or ", "||"});
  // (Comparisons joined by a bitwise or, `(got == 4) | (got == 0)`, C++'s `got == 4 | got == 0`:
  // alternatives too; not a union of sets or flags.)
  if (ors.size() == 1 && !contains(e, "||")) {
    auto bits = split_top(e, {"|"});
    const bool comparisons = bits.size() >= 2 && std::all_of(bits.begin(), bits.end(), [&](const std::string& b) {
      const std::string x = trim(b);
      if (python && !wrapped_in_parens(x)) return false;
      return split_top(unparen(x), {"==", "!=", "<", ">"}).size() == 2;
    });
    if (comparisons) ors = std::move(bits);
  }
  ors.erase(std::remove_if(ors.begin(), ors.end(), [](const std::string& o) { return fails_or_logs(o); }), ors.end());
  if (ors.size() >= 2) {
    for (std::size_t i = 0; i < ors.size() && !a.tautology; ++i)
      for (std::size_t j = i + 1; j < ors.size(); ++j)
        if (complementary(ors[i], ors[j])) a.tautology = true;
    weakest(ors);
    // Alternatives accept more than one outcome (`got == 4 or got == 0`, `a === 1 || b === 2`):
    // however exact each clause, together they check a set of values, as a range does; not
    // spellings of one value (`got == 4 or got == 4.0`).
    if (!a.tautology && strength(a.kind) > strength(Kind::range) && !one_value_alternatives(ors)) a.kind = Kind::range;
  }
  if (a.tautology) return;
  // Membership in a literal collection that holds the value itself.
  if (auto in = split_top(e, {" in "}); in.size() == 2) {
    std::string rhs = trim(in[1]);
    if (rhs.size() >= 2 && std::string_view("([{").find(rhs.front()) != std::string_view::npos)
    {
      // (`x in (4, x)`; `4 in [4, got]`, the literal beside what is computed. Only literals, `4 in
      // (4, 5)`, is no check at all: trivial.)
      const auto elements = split_top(std::string_view(rhs).substr(1, rhs.size() - 2), {","});
      const bool computed = std::any_of(elements.begin(), elements.end(), [](const std::string& el) { return !is_literal(el); });
      for (const auto& el : elements)
        if (strip_spaces(el) == strip_spaces(in[0]) && (!is_literal(in[0]) || computed)) a.tautology = true;
    }
  }
  // all(...) over an empty literal holds vacuously.
  const std::string compact = strip_spaces(e);
  if ((starts_with(compact, "all(") || starts_with(compact, "every(")) &&
      (contains(compact, "in[])") || contains(compact, "in())") || contains(compact, "[].every(")))
    a.tautology = true;
  if (starts_with(compact, "[].every(")) a.tautology = true;
  // Every side is a literal or cancels out: `f(x) - f(x) == 0`.
  auto sides = split_top(e, {"===", "!==", "==", "!=", "<=", ">=", "<", ">"});
  if (sides.size() == 2) {
    bool cancelled = false, constant = true;
    for (const auto& sd : sides) {
      std::string side = strip_spaces(sd);
      while (!side.empty() && side.front() == '=') side.erase(0, 1);
      if (cancels(side)) cancelled = true;
      else if (!is_literal(side)) constant = false;
    }
    if (cancelled && constant) a.tautology = true;
  }
}

}  // namespace

namespace {

/// The last segment of a dotted name, spaces removed: `helpers . quiet` -> `quiet`.
std::string last_dotted(std::string t) {
  t = strip_spaces(std::move(t));
  return t.substr(t.rfind('.') == std::string::npos ? 0 : t.rfind('.') + 1);
}

/// The function a decorator names: `@helpers.quiet(3)` -> `quiet`.
std::string decorator_name(std::string d) {
  d = strip_spaces(std::move(d));
  if (starts_with(d, "@")) d = d.substr(1);
  return last_dotted(d.substr(0, d.find('(')));
}

class Analyzer {
 public:
  Analyzer(Lang lang, const std::string& src, const ImportedDefs* imported) : lang_(lang), s_{src}, imported_(imported) {}

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
    // (Owned: a rule's pattern that std::regex cannot compile throws out of this walk, and
    // check_test_integrity fails closed on it; the tree must not leak then. The owner also keeps
    // the linear-time navigation cache of ts_nav.hpp for it.)
    const tsnav::OwnedTree owned(tree);
    model_ = &m;
    names_ = file_names(lang_, s_.src);
    m.has_error = ts_node_has_error(ts_tree_root_node(tree));
    if (m.has_error) {
      std::function<void(TSNode, int)> errors = [&](TSNode n, int depth) {
        if (m.errors.size() >= kMaxParseErrors || depth > kMaxSyntaxDepth) return;
        if (type(n) == "ERROR" || ts_node_is_missing(n)) {
          m.errors.push_back({ts_node_is_missing(n) ? "<missing " + std::string(type(n)) + ">" : text(n).substr(0, kQuoteChars * 4), line(n),
                              static_cast<int>(ts_node_end_point(n).row) + 1});
          return;
        }
        if (!ts_node_has_error(n)) return;
        for (uint32_t i = 0; i < ts_node_child_count(n); ++i) errors(tsnav::child(n, i), depth + 1);
      };
      errors(ts_tree_root_node(tree), 0);
    }
    defs_ = collect_local_defs(s_, lang_, ts_tree_root_node(tree));
    if (imported_)
      for (const auto& [name, why] : imported_->droppers)
        if (!defs_.functions.count(name) && !defs_.classes.count(name)) defs_.imported_droppers.emplace(name, why);
    s_.imported_droppers = &defs_.imported_droppers;
    if (imported_ && !imported_->predicates.empty()) s_.imported_predicates = &imported_->predicates;
    if (imported_ && !imported_->reporters.empty()) s_.imported_reporters = &imported_->reporters;
    visit(ts_tree_root_node(tree), "", true, nullptr, 0, false);
    if (lang_ == Lang::python && !m.tests.empty())
      if (const std::string why = module_level_dropper(ts_tree_root_node(tree)); !why.empty())
        for (auto& t : m.tests)
          for (auto& a : t.asserts) swallowed_by(a, why);
    collect_helpers(ts_tree_root_node(tree));
    constant_helper_tautologies();
    for (auto& t : m.tests) complementary_lossy_views(t);
    for (auto& h : m.helpers) complementary_lossy_views(h);
    exported_definitions(m);
    if (lang_ == Lang::python || is_js(lang_)) m.returns = returned_sources(s_, ts_tree_root_node(tree), &names_);
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
    if (ts_node_is_null(f) && ts_node_named_child_count(n) > 0) f = tsnav::named_child(n, 0);
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

  /// The callee of a call as written, qualified (`np.testing.assert_equal`, `Assertions.assertEquals`);
  /// "" when the node has none.
  std::string callee_text(TSNode n) const {
    if (type(n) == "method_invocation") {
      TSNode object = field(n, "object"), name = field(n, "name");
      if (ts_node_is_null(name)) return {};
      return ts_node_is_null(object) ? text(name) : strip_spaces(text(object)) + "." + text(name);
    }
    TSNode f = field(n, "function");
    if (ts_node_is_null(f)) f = field(n, "macro");
    return ts_node_is_null(f) ? std::string() : strip_spaces(text(f));
  }

  /// The arguments node of a call.
  TSNode args_node(TSNode n) const {
    TSNode args = field(n, "arguments");
    if (ts_node_is_null(args))
      for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
        std::string_view ct = type(tsnav::named_child(n, i));
        if (ct == "argument_list" || ct == "token_tree" || ct == "value_arguments" || ct == "call_suffix")
          args = tsnav::named_child(n, i);
      }
    return args;
  }

  /// The arguments of a call, split at top-level commas, whitespace and TypeScript's type
  /// assertions removed; keyword arguments (`msg=...`, `rel=...`) are left out.
  std::vector<std::string> call_args(TSNode n) const {
    std::vector<std::string> out;
    for (const auto& a : raw_call_args(n)) out.push_back(strip_spaces(without_type_assertions(a)));
    return out;
  }

  /// The arguments of a call as written, whitespace runs folded to one space (call_args drops
  /// them, and keyword arguments): `a or b` keeps its word operator.
  std::vector<std::string> raw_call_args(TSNode n) const {
    std::vector<std::string> out;
    TSNode args = args_node(n);
    if (ts_node_is_null(args)) return out;
    std::string all = text(args);
    if (all.size() >= 2 && (all.front() == '(' || all.front() == '[' || all.front() == '{')) all = all.substr(1, all.size() - 2);
    for (auto& a : split_top(all, {","})) {
      std::string x;
      for (char c : trim(a)) {
        const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
        if (space && (x.empty() || x.back() == ' ')) continue;
        x += space ? ' ' : c;
      }
      if (x.empty()) continue;
      auto eq = x.find('=');
      if (eq != std::string::npos && eq > 0 && eq + 1 < x.size() && x[eq + 1] != '=' && x[eq - 1] != '!' && x[eq - 1] != '<' &&
          x[eq - 1] != '>' && x[eq - 1] != '=' && strip_spaces(x.substr(0, eq)).find_first_not_of(
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
    // (After a Go test's `t`: `assert.Equal(t, ok, ok)`; jest's and chai's `expect(got).toEqual(got)`.)
    if (args.size() >= 3 && (args[0] == "t" || testers_.count(args[0])) && args[1] == args[2] && !is_literal(args[1])) tautology = true;
    if (is_js(lang_) && args.size() == 1 && !is_literal(args[0]) && starts_with(callee_text(n), "expect(") &&
        strip_spaces(js_expect_subject(n)) == args[0] && !contains(strip_spaces(text(n)), ".not."))
      tautology = true;
    // (The compared arguments as written are the first two after a Go test's `t`; a message
    // after them, `strictEqual(got, 4, got > 0 ? 'a' : 'b')`, compares nothing.)
    std::size_t compared = 0;
    for (const auto& arg : args) {
      const bool reporter = compared == 0 && (arg == "t" || testers_.count(arg));
      const bool value = !reporter && compared < 2;
      if (value) ++compared;
      collect_operands(arg, a.operands, tautology, &a.literals, value ? &a.raw_exprs : nullptr);
    }
    for (TSNode f = field(n, "function"); !ts_node_is_null(f);) {
      std::string_view ft = type(f);
      if (ft == "call_expression" || ft == "call" || ft == "method_invocation") {
        const auto inner = call_args(f);
        for (std::size_t i = 0; i < inner.size(); ++i)
          collect_operands(inner[i], a.operands, tautology, &a.literals, i == 0 ? &a.raw_exprs : nullptr);
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
        for (const auto& arg : call_args(o)) collect_operands(arg, a.operands, tautology, &a.literals, &a.raw_exprs);
    }
    a.trivial = a.operands.empty();
    a.tautology = tautology;
  }

  /// A call that fails the test outright, outside Go (Go's t.Errorf and friends: classify_call):
  /// pytest.fail / self.fail / an imported `fail` (Python); assert.fail, t.fail (tape, ava),
  /// expect.fail, should.fail, a bare `fail` (JS/TS, with no function among its arguments: a
  /// promise's `.fail(callback)` registers a handler); ADD_FAILURE, ADD_FAILURE_AT, FAIL,
  /// GTEST_FAIL (C/C++).
  bool failure_call(TSNode n, const std::string& name) const {
    const std::string c = callee_text(n);
    bool named = false;
    if (lang_ == Lang::python) {
      // (`import pytest as pt` ... `pt.fail(...)`.)
      static const rx::regex alias(R"(\bimport\s+pytest\s+as\s+([A-Za-z_]\w*))");
      auto aliased = [&] {  // (the file read only for a receiver other than these)
        rx::smatch m;
        return ends_with(c, ".fail") && rx::regex_search(s_.src, m, alias) && c == m[1].str() + ".fail";
      };
      named = name == "fail" && (c == "fail" || c == "pytest.fail" || c == "self.fail" || aliased());
    } else if (lang_ == Lang::cpp) {
      named = name == "ADD_FAILURE" || name == "ADD_FAILURE_AT" || name == "FAIL" || name == "GTEST_FAIL";
    } else if (lang_ == Lang::java || lang_ == Lang::kotlin) {
      // (JUnit's and TestNG's: `fail(...)` imported statically, `Assert.fail`, `Assertions.fail`.)
      static const rx::regex receiver(R"(^(?:(?:org\.junit\.(?:jupiter\.api\.)?)?(?:Assert|Assertions|TestCase|AssertJUnit)\.)?fail$)");
      // (Kotlin's call_expression has no `function` field: its callee is the name.)
      named = name == "fail" && rx::regex_match(c.empty() ? name : c, receiver);
    } else if (is_js(lang_) && name == "fail") {
      // (The runner's and assertion libraries' receivers: `reporter.fail` of a local object is
      // whatever that object does.)
      static const rx::regex receiver(R"(^(?:(?:assert|assert\.strict|t|st|tt|t2|expect|should|chai\.assert|chai\.expect)\.)?fail$)");
      named = rx::regex_match(c, receiver);
      static const rx::regex function_arg(R"(^(?:async\s+)?(?:function\b|\(?[\w$\s,]*\)?\s*=>))");
      for (const auto& arg : call_args(n))
        if (rx::regex_search(trim(arg), function_arg)) named = false;
    }
    return named && !failure_rebound(c, name);
  }

  /// Does a JavaScript catch clause check the error it catches so that an assertion failure thrown
  /// in its `try` fails it too: a statement of its body itself (not under an `if`, before any
  /// `return` or `throw`), an exact or instance check naming the caught parameter against what an
  /// AssertionError is not: `assert.strictEqual(e.code, 'EBADLIT')`,
  /// `expect(err).toBeInstanceOf(RangeError)`. Not `typeof e === 'object'`, `e.name` matched by
  /// `/Error/`, `expect.any(String)`, a check of `'ERR_ASSERTION'`.
  bool handler_checks_error(TSNode h) const {
    // (The caught name and the handler's body: JS `catch (e) {...}`, Java `catch (Exception e)
    // {...}`, Python `except Exception as e:`.)
    std::string e;
    TSNode body = field(h, "body");
    if (is_js(lang_)) {
      if (TSNode param = field(h, "parameter"); !ts_node_is_null(param) && type(param) == "identifier") e = text(param);
    } else if (lang_ == Lang::java) {
      for (uint32_t j = 0; j < ts_node_named_child_count(h); ++j)
        if (TSNode p = tsnav::named_child(h, j); type(p) == "catch_formal_parameter" && !ts_node_is_null(field(p, "name")))
          e = text(field(p, "name"));
    } else if (lang_ == Lang::python) {
      const std::string head = text(h).substr(0, text(h).find(':'));
      if (const auto as = head.rfind(" as "); as != std::string::npos) e = trim(head.substr(as + 4));
      for (uint32_t j = ts_node_named_child_count(h); j-- > 0;)
        if (type(tsnav::named_child(h, j)) == "block") {
          body = tsnav::named_child(h, j);
          break;
        }
    }
    if (e.empty() || !is_plain_name(e) || ts_node_is_null(body)) return false;
    const bool own_if = last_own_if_, own_else = last_own_else_, inverts = last_inverts_;
    // (What an assertion failure has or is too, or what holds of any error: no check of this one.)
    static const rx::regex generic(
        R"(ERR_ASSERTION|AssertionError|\bError\b(?!\w)|expect\.any\(|expect\.anything\(|typeof|/\.[*+]?/|/\^?\.\*\$?/|)"
        R"(\b(?:Object|String|Exception|BaseException|Throwable|Failed|OutcomeException|failureException|undefined|null|None)\b|)"
        R"(stringContaining\(\s*(?:''|""|``)\s*\)|\.length\b|\.not\.|\|\||\bor\b|\bnot\b|!==|!=)");
    // (`if (!(e instanceof ParseError)) throw e;`, `if not isinstance(e, ValueError): raise`: every
    // other error, an assertion failure among them, goes on.)
    static const rx::regex rethrow_unless(R"(^if\(?(?:!\(|not)(?:\w+instanceof(\w+)|isinstance\(\w+,(\w+)\))\)?\)?:?\{?(?:throw\w+;?|raise\w*)\}?$)");
    bool checked = false;
    for (uint32_t i = 0; i < ts_node_named_child_count(body) && !checked; ++i) {
      TSNode st = tsnav::named_child(body, i);
      const std::string_view t = type(st);
      if (t == "comment") continue;
      // (Python's `assert isinstance(e, ValueError)`, `assert e.code == 4`.)
      if (t == "assert_statement" && has_word(text(st), e) && !rx::regex_search(text(st), generic)) {
        const std::string expr = split_top(text(st).substr(6), {","}).front();
        const auto cs = clause_checks(Assertion{}, expr, {" and "}, false);
        const bool instance = contains(expr, "isinstance(");
        checked = std::any_of(cs.begin(), cs.end(), [&](const Assertion& c) {
          return !c.trivial && !c.tautology && (c.kind == Kind::eq || c.kind == Kind::approx || instance);
        });
        continue;
      }
      if (t != "expression_statement") {
        // (An exit before the check skips it; re-throwing the caught error, `if (e instanceof
        // AssertionError) throw e;`, does not.)
        const std::string x = strip_spaces(text(st));
        if (rx::smatch m; t == "if_statement" && rx::regex_match(x, m, rethrow_unless) && has_word(text(st), e) && !rx::regex_search(x, generic)) {
          checked = true;
          continue;
        }
        if (contains(text(st), "return") || (contains(x, "throw") && !contains(x, "throw" + e + ";") && !ends_with(x, "throw" + e))) break;
        continue;
      }
      TSNode x = ts_node_named_child_count(st) > 0 ? tsnav::named_child(st, 0) : st;
      if (type(x) == "await_expression" && ts_node_named_child_count(x) > 0) x = tsnav::named_child(x, 0);
      if ((type(x) != "call_expression" && type(x) != "call" && type(x) != "method_invocation") || !has_word(text(x), e) ||
          rx::regex_search(text(x), generic))
        continue;
      const auto cs = classify_call(x);
      const bool instance = contains(text(x), " instanceof ") || contains(text(x), "InstanceOf(") || contains(text(x), "instanceOf(") ||
                            contains(text(x), "isinstance(") || contains(text(x), "IsInstance(") || contains(text(x), ".getClass()");
      // (Exact: an equality, or an instance check; an inequality or a range, `e.message.length >= 0`,
      // holds of an assertion failure too.)
      checked = std::any_of(cs.begin(), cs.end(), [&](const Assertion& c) {
        return !c.trivial && !c.tautology && (c.kind == Kind::eq || c.kind == Kind::approx || instance);
      });
    }
    last_own_if_ = own_if, last_own_else_ = own_else, last_inverts_ = inverts;
    return checked;
  }

  /// What the statements of `body` compute, up to `stop` (exclusive; null: all of them), added to
  /// `a`'s operands: each value as computed (`JSONObject j = new JSONObject(s, cfg);` as `new
  /// JSONObject(s, cfg)`, `r = parse(s)` as `parse(s)`), comments left out. What an expectation of a
  /// throw is about (try/fail/catch, the flag idiom, a `with pytest.raises` body, a
  /// `#[should_panic]` / `@Test(expected = ...)` test). True when one of them throws by itself
  /// (`raise ValueError`, `throw new JSONException("x")`): the expectation holds whatever the code does.
  bool statement_operands(TSNode body, TSNode stop, Assertion& a) const {
    bool tautology = false, itself = false;
    for (uint32_t i = 0; !ts_node_is_null(body) && i < ts_node_named_child_count(body); ++i) {
      TSNode x = tsnav::named_child(body, i);
      if (!ts_node_is_null(stop) && ts_node_eq(x, stop)) break;
      if (type(x) == "comment" || type(x) == "line_comment" || type(x) == "block_comment") continue;
      if (throws_itself(x)) itself = true;
      std::string e = trim(text(x));
      if (ends_with(e, ";")) e.pop_back();
      if (const auto parts = split_top(e, {"==", "!=", "<=", ">=", "=>", "="}); parts.size() > 1 && top_level_assignment(e))
        e = trim(std::string_view(e).substr(e.find('=', parts[0].size()) + 1));
      collect_operands(e, a.operands, tautology, &a.literals, &a.raw_exprs);
    }
    return itself;
  }

  /// Python: when the call `n` is the context of a `with` statement (`with pytest.raises(E):`),
  /// the operands of its body's statements (each assigned value as computed) added to `a`; true
  /// when the body raises by itself (`raise ValueError`): the expectation holds whatever the code does.
  bool with_body_operands(TSNode n, Assertion& a) const {
    TSNode w = tsnav::parent(n);
    for (int up = 0; up < 3 && !ts_node_is_null(w) && type(w) != "with_statement"; ++up) {
      if (type(w) != "with_item" && type(w) != "with_clause" && type(w) != "as_pattern") return false;
      w = tsnav::parent(w);
    }
    if (ts_node_is_null(w) || type(w) != "with_statement") return false;
    return statement_operands(field(w, "body"), TSNode{}, a);
  }

  /// Does a Go switch case fail the test on every path: a statement of its own that calls a
  /// failure (`t.Fatal`, `t.Errorf`, ...) or returns after one, `t.Logf` not?
  bool go_case_fails(TSNode c) const {
    for (uint32_t i = 0; i < ts_node_named_child_count(c); ++i) {
      TSNode st = tsnav::named_child(c, i);
      if (type(st) != "expression_statement" || ts_node_named_child_count(st) == 0) continue;
      TSNode call = tsnav::named_child(st, 0);
      if (type(call) != "call_expression") continue;
      const std::string name = callee(call);
      if (kGoFail.count(name) || name == "Fatal" || name == "Fatalf") return true;
    }
    return false;
  }

  /// Is `block` the body of a Python `with pytest.raises(E):` / `with self.assertRaises(E):` (not
  /// `warns`: a warning does not end the block)?
  bool raises_block(TSNode block) const {
    if (lang_ != Lang::python) return false;
    TSNode w = tsnav::parent(block);
    if (ts_node_is_null(w) || type(w) != "with_statement" || !ts_node_eq(field(w, "body"), block)) return false;
    const std::string head = strip_spaces(text(w).substr(0, ts_node_start_byte(block) - ts_node_start_byte(w)));
    return contains(head, "raises(") || contains(head, "assertRaises(") || contains(head, "assertRaisesRegex(") || contains(head, "assertRaisesRegexp(");
  }

  /// Is `n` inside a loop of its function (`for`, `while`, `do`)?
  bool in_loop(TSNode n) const {
    for (TSNode p = tsnav::parent(n); !ts_node_is_null(p); p = tsnav::parent(p)) {
      const std::string_view t = type(p);
      if (t == "for_statement" || t == "while_statement" || t == "do_statement" || t == "for_in_statement" || t == "enhanced_for_statement" ||
          t == "for_range_loop" || t == "range_based_for_statement" || t == "for_expression" || t == "while_expression")
        return true;
      if (t == "function_definition" || t == "method_declaration" || t == "function_declaration" || t == "arrow_function" ||
          t == "lambda_expression" || t == "function_expression" || t == "function_item")
        return false;
    }
    return false;
  }

  /// The body of a try: its `body` field; Kotlin's try_expression has none, its first `statements`.
  TSNode try_body(TSNode t) const {
    if (TSNode b = field(t, "body"); !ts_node_is_null(b)) return b;
    if (type(t) == "try_expression")
      for (uint32_t i = 0; i < ts_node_named_child_count(t); ++i)
        if (type(tsnav::named_child(t, i)) == "statements") return tsnav::named_child(t, i);
    return TSNode{};
  }

  /// Does every handler of the try `t` that catches end by returning (`catch (E e) { return; }`,
  /// `except E: return`), so that what follows the try runs only when nothing was thrown?
  bool handlers_return(TSNode t, bool loop) const {
    bool any = false;
    for (uint32_t i = 0; i < ts_node_named_child_count(t); ++i) {
      TSNode h = tsnav::named_child(t, i);
      const std::string_view ht = type(h);
      if (ht == "finally_clause") return false;
      if (ht != "catch_clause" && ht != "except_clause" && ht != "catch_block") continue;
      TSNode body = field(h, "body");
      if (ts_node_is_null(body))
        for (uint32_t j = ts_node_named_child_count(h); j-- > 0;)
          if (const std::string_view bt = type(tsnav::named_child(h, j));
              bt == "block" || bt == "compound_statement" || bt == "statement_block" || bt == "statements") {
            body = tsnav::named_child(h, j);
            break;
          }
      if (ts_node_is_null(body) || ts_node_named_child_count(body) == 0) return false;
      // (In a loop over inputs, `continue`: a `return` there ends the test at the first input.)
      TSNode last = tsnav::named_child(body, ts_node_named_child_count(body) - 1);
      if (type(last) != (loop ? "continue_statement" : "return_statement")) return false;
      any = true;
    }
    return any;
  }

  /// The text of a plain string literal (`"TRUE"`, `'x'`, a JS template without `${`), its simple
  /// escapes (`\"`, `\'`, `\\`, `\n`, `\t`) decoded; nullopt for anything else (a name, a
  /// concatenation, an escape it does not read).
  static std::optional<std::string> plain_string_literal(const std::string& arg) {
    const std::string a = trim(arg);
    if (a.size() < 2) return std::nullopt;
    const char q = a.front();
    if ((q != '"' && q != '\'' && q != '`') || a.back() != q) return std::nullopt;
    if (q == '`' && contains(a, "${")) return std::nullopt;
    std::string out;
    for (std::size_t i = 1; i + 1 < a.size(); ++i) {
      char c = a[i];
      if (c == q) return std::nullopt;  // ("a" "b", 'a' + 'b': not one literal)
      if (c == '\\') {
        if (i + 2 >= a.size()) return std::nullopt;
        const char e = a[++i];
        if (e == 'n') c = '\n';
        else if (e == 't') c = '\t';
        else if (e == '"' || e == '\'' || e == '\\' || e == '`') c = e;
        else return std::nullopt;
      }
      out += c;
    }
    return out;
  }

  /// The expressions `throws_for_any_code` reads by their text: each throws whatever the code under
  /// test does. Python: a missing item of a literal (`'abc'.index('z')`, `[].remove(1)`, `{}['x']`,
  /// `[][0]`), `None` in arithmetic, `int(None)`, `divmod(1, 0)`, `bytes.fromhex('zz')`, a date
  /// without digits for a numeric format. Java/Kotlin: `Integer.decode("x")`, `new Integer("x")`,
  /// overflowing `Math.*Exact`, `Math.floorDiv(x, 0)`, `Optional.empty().get()`, an item of an empty
  /// list, a negative capacity or array size. JavaScript: calling `undefined`, `new Array(-1)`,
  /// `'x'.repeat(-1)`, `1n / 0n`, a malformed URI component or pattern, `BigInt(1.5)`. C++: a
  /// `std::bitset` of other digits, an item of an empty container. Go: `log.Panic*`, a malformed
  /// `regexp.MustCompile`. Rust: parsing a literal that is no number, `assert!(false)`.
  bool throws_by_its_text(TSNode y) const {
    // (Words one of the forms below must hold, tried before any pattern: a test file of thousands
    // of calls reads each of them here.)
    static constexpr std::string_view kPython[] = {".index(", "[]", "{}", "()", "None", "divmod", "fmod", "operator.", "fromhex", "strptime"};
    static constexpr std::string_view kJvm[] = {"decode(", "new", "Math.", "Optional.", "List.of()", "Collections.empty", "Arrays.asList()"};
    static constexpr std::string_view kJs[] = {"undefined", "null(", "void", "Array(", ".repeat(", "0n", "BigInt(", "decodeURI", "RegExp("};
    static constexpr std::string_view kCpp[] = {"bitset<", ".at(", ".front()", ".back()"};
    static constexpr std::string_view kGo[] = {"log.Panic", "MustCompile"};
    static constexpr std::string_view kRust[] = {"parse::<", "Err", "None", "assert!"};
    const std::string raw = text(y).substr(0, 400);
    const auto holds = [&](const auto& words) { return std::any_of(std::begin(words), std::end(words), [&](std::string_view w) { return contains(raw, w); }); };
    const bool worth = lang_ == Lang::python ? holds(kPython)
                       : (lang_ == Lang::java || lang_ == Lang::kotlin) ? holds(kJvm)
                       : is_js(lang_) ? holds(kJs)
                       : lang_ == Lang::cpp ? holds(kCpp)
                       : lang_ == Lang::go ? holds(kGo)
                       : lang_ == Lang::rust ? holds(kRust)
                                              : false;
    if (!worth) return false;
    const std::string x = strip_spaces(raw);
    const auto rx = [](const char* p) { return detail::cached_regex(p); };
    rx::smatch m;
    // Does the runtime refuse the pattern? Go's regexp is RE2's syntax (RE2 answers exactly;
    // MustCompilePOSIX: its POSIX mode). JavaScript's RegExp is ECMAScript: std::regex's grammar,
    // not the library's engine (Boost's Perl syntax takes `(*FAIL)` and refuses `[]`, which
    // JavaScript does the other way round: a test made to pass by `new RegExp('(*FAIL)')`).
    const auto bad_pattern = [&](const std::string& p) {
      if (lang_ == Lang::go) {
        RE2::Options options(RE2::Quiet);
        options.set_posix_syntax(x.rfind("regexp.MustCompilePOSIX(", 0) == 0);
        options.set_longest_match(options.posix_syntax());
        options.set_perl_classes(!options.posix_syntax());
        options.set_word_boundary(!options.posix_syntax());
        options.set_max_mem(64 << 20);  // (Go's own limit is larger than RE2's default 8 MiB)
        // (Go 1.22 also takes `(?<name>`, which this RE2 knows as `(?P<name>`.)
        return !RE2(absl::StrReplaceAll(p, {{"(?<", "(?P<"}}), options).ok();
      }
      // JavaScript: a group `(?` that is none of `(?:`, `(?=`, `(?!`, `(?<` throws; so does a
      // quantifier on a quantifier (`a**`, `a+{2}`: "nothing to repeat"), which std::regex takes.
      for (std::size_t at = p.find("(?"); at != std::string::npos; at = p.find("(?", at + 2))
        if ((at == 0 || p[at - 1] != '\\') && (at + 2 >= p.size() || std::string_view(":=!<").find(p[at + 2]) == std::string_view::npos))
          return true;
      {
        // (What came last: an atom, a quantifier, or a quantifier made lazy by `?`.)
        enum class Last { other, quantifier, lazy } last = Last::other;
        bool in_class = false;
        for (std::size_t i = 0; i < p.size(); ++i) {
          const char c = p[i];
          if (c == '\\') {
            ++i;
            last = Last::other;
            continue;
          }
          if (in_class) {
            in_class = c != ']';
            last = Last::other;
            continue;
          }
          if (c == '(' && i + 1 < p.size() && p[i + 1] == '?') {  // (a group's `(?:`, `(?=`, `(?<name>`: no quantifier)
            ++i;
            last = Last::other;
            continue;
          }
          const bool quantifier = c == '*' || c == '+' || c == '?' || (c == '{' && i + 1 < p.size() && std::isdigit(static_cast<unsigned char>(p[i + 1])));
          if (!quantifier) {
            in_class = c == '[';
            last = Last::other;
            continue;
          }
          if (last == Last::lazy || (last == Last::quantifier && c != '?')) return true;
          last = last == Last::quantifier ? Last::lazy : Last::quantifier;
          if (c == '{') i = std::min(p.find('}', i), p.size() - 1);
        }
      }
      if (p.find("(?<") != std::string::npos || p.find("\\p") != std::string::npos || p.find("\\P") != std::string::npos ||
          p.find("[[:") != std::string::npos)
        return false;  // (syntax std::regex lacks: not judged)
      try {
        std::regex r(p, std::regex::ECMAScript);
        return false;
      } catch (const std::regex_error&) {
        return true;
      }
    };
    switch (lang_) {
      case Lang::python: {
        if (rx::regex_match(x, m, rx(R"re(^'([^'\\]*)'\.index\('([^'\\]*)'\)$)re")) || rx::regex_match(x, m, rx(R"re(^"([^"\\]*)"\.index\("([^"\\]*)"\)$)re")))
          return m[1].str().find(m[2].str()) == std::string::npos;
        if (rx::regex_match(x, rx(R"re(^(?:\[\]|\(\))\.(?:remove|pop|index)\(.*\)$|^\{\}\.pop\(['"].*['"]\)$|^\[\]\[-?\d+\]$|^\(\)\[-?\d+\]$|^\{\}\[.+\]$|^(?:set\(\)|\{\}|\[\])\.pop\(\)$)re")))
          return true;
        if (rx::regex_match(x, rx(R"re(^(?:int|float|len|abs)\(None\)$|^None[-+*/%@].*$|^.*[-+*/%@]None$)re"))) return true;
        if (rx::regex_match(x, rx(R"re(^(?:divmod|math\.fmod|operator\.(?:truediv|floordiv|mod))\(.*,-?0(?:\.0*)?\)$)re"))) return true;
        if (rx::regex_match(x, m, rx(R"re(^bytes\.fromhex\((['"])([^'"]*)\1\)$)re"))) return !rx::regex_match(m[2].str(), rx(R"re(^(?:[0-9a-fA-F]{2})*$)re"));
        if (rx::regex_match(x, m, rx(R"re(^(?:datetime\.)?datetime\.strptime\((['"])([^'"]*)\1,(['"])([^'"]*)\3\)$)re")))
          return std::none_of(m[2].first, m[2].second, [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }) &&
                 rx::regex_search(m[4].str(), rx(R"re(%[YmdHMSyjIf])re"));
        return false;
      }
      case Lang::java: case Lang::kotlin: {
        if (rx::regex_match(x, m, rx(R"re(^(?:Integer|Long|Short|Byte)\.decode\("([^"\\]*)"\)$)re")))
          return !rx::regex_match(m[1].str(), rx(R"re(^[+-]?(?:0[xX][0-9a-fA-F]+|#[0-9a-fA-F]+|0[0-7]*|[1-9]\d*)$)re"));
        if (rx::regex_match(x, m, rx(R"re(^new(?:java\.lang\.)?(Integer|Long|Short|Byte|Double|Float)\("([^"\\]*)"\)$)re")))
          return m[1].str() == "Double" || m[1].str() == "Float"
                     ? !rx::regex_match(m[2].str(), rx(R"re(^\s*[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?)\s*$)re"))
                     : !rx::regex_match(m[2].str(), rx(R"re(^[+-]?\d+$)re"));
        if (rx::regex_match(x, rx(R"re(^Math\.(?:addExact|incrementExact|multiplyExact)\((?:Integer|Long)\.MAX_VALUE(?:,[1-9]\d*[lL]?)?\)$|^Math\.(?:subtractExact|decrementExact|negateExact)\((?:Integer|Long)\.MIN_VALUE(?:,[1-9]\d*[lL]?)?\)$|^Math\.toIntExact\(Long\.(?:MAX|MIN)_VALUE\)$)re")))
          return true;
        if (rx::regex_match(x, rx(R"re(^Math\.floor(?:Div|Mod)\(.*,0[lL]?\)$)re"))) return true;
        if (rx::regex_match(x, rx(R"re(^Optional\.(?:empty\(\)|ofNullable\(null\))\.(?:get|orElseThrow)\(\)$|^Optional\.of\(null\)$)re"))) return true;
        if (rx::regex_match(x, rx(R"re(^(?:List\.of\(\)|Collections\.emptyList\(\)|newArrayList<[\w<>,.?]*>\(\)|newLinkedList<[\w<>,.?]*>\(\)|Arrays\.asList\(\))\.(?:get\(\d+\)|getFirst\(\)|getLast\(\)|iterator\(\)\.next\(\))$)re")))
          return true;
        if (rx::regex_match(x, rx(R"re(^new(?:ArrayList|HashMap|HashSet|ArrayDeque|StringBuilder|Vector)(?:<[\w<>,.?]*>)?\(-\d+\)$|^new(?:int|long|short|byte|char|double|float|boolean|String|Object|Integer)\[-\d+\]$)re")))
          return true;
        return false;
      }
      case Lang::javascript: case Lang::typescript: case Lang::tsx: {
        if (rx::regex_match(x, rx(R"re(^(?:undefined|null|\(void0\))\(.*\)$|^newArray\(-\d+(?:\.\d+)?\)$|^(['"`])[^'"`]*\1\.repeat\(-\d+\)$|^-?\d+n[/%]0n$|^BigInt\(-?\d*\.\d*[1-9]\d*\)$)re")))
          return true;
        if (rx::regex_match(x, m, rx(R"re(^decodeURI(?:Component)?\((['"])([^'"]*)\1\)$)re"))) return rx::regex_search(m[2].str(), rx(R"re(%(?![0-9a-fA-F]{2}))re"));
        if (rx::regex_match(x, m, rx(R"re(^(?:new)?RegExp\((['"])([^'"\\]*)\1\)$)re"))) return bad_pattern(m[2].str());
        return false;
      }
      case Lang::cpp: {
        if (rx::regex_match(x, m, rx(R"re(^std::bitset<\d+>\("([^"\\]*)"\)$)re"))) return m[1].str().find_first_not_of("01") != std::string::npos;
        return rx::regex_match(x, rx(R"re(^std::(?:vector|string|deque|array<[^>]*,0>)(?:<[^()]*>)?(?:\(\)|\{\})\.at\(\d+\)$|^std::(?:vector|deque|list)<[^()]*>(?:\(\)|\{\})\.(?:front|back)\(\)$)re"));
      }
      case Lang::go: {
        if (rx::regex_match(x, rx(R"re(^log\.Panic(?:f|ln)?\(.*\)$)re"))) return true;
        if (rx::regex_match(x, m, rx(R"re(^regexp\.MustCompile(?:POSIX)?\("([^"\\]*)"\)$)re"))) return bad_pattern(m[1].str());
        return false;
      }
      case Lang::rust: {
        if (rx::regex_match(x, m, rx(R"re(^"([^"\\]*)"\.(?:trim\(\)\.)?parse::<([iu](?:8|16|32|64|128|size))>\(\)\.(?:unwrap|expect)\(.*\)$)re")))
          return !rx::regex_match(m[1].str(), rx(m[2].str()[0] == 'u' ? R"re(^\+?\d+$)re" : R"re(^[+-]?\d+$)re"));
        if (rx::regex_match(x, rx(R"re(^Err(?:::<.*>)?\(.*\)\.(?:unwrap|expect)\(.*\)$|^None(?:::<.*>)?\.(?:unwrap|expect)\(.*\)$|^assert!\(false(?:,.*)?\)$)re")))
          return true;
        return false;
      }
      default: return false;
    }
  }

  /// Does `y` throw whatever the code under test does: a standard parser or converter given a
  /// literal it rejects (`int("TRUE")`, `float("x")`, `json.loads("{")`, `Decimal("x")`,
  /// `Integer.parseInt("x")`, `new BigDecimal("x")`, Kotlin's `"x".toInt()`, `std::stoi("x")`,
  /// `JSON.parse("{")`, `BigInt("x")`), Rust's `panic!`/`unreachable!`/`todo!`/`unimplemented!`,
  /// Go's `panic(...)`, a division by a literal zero (Python; Java integers)? Put before the code
  /// under test in an expectation of a throw, it satisfies the expectation by itself.
  bool throws_for_any_code(TSNode y) const {
    const std::string_view t = type(y);
    if ((t == "call" || t == "call_expression" || t == "method_invocation" || t == "subscript" || t == "binary_operator" ||
         t == "binary_expression" || t == "object_creation_expression" || t == "new_expression" || t == "array_creation_expression" ||
         t == "macro_invocation" || t == "index_expression") &&
        throws_by_its_text(y))
      return true;
    static const rx::regex py_int(R"(^\s*[+-]?\d(?:_?\d)*\s*$)");
    static const rx::regex py_float(R"(^\s*[+-]?(?:(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?|inf|infinity|nan)\s*$)",
                                     rx::regex::icase);
    static const rx::regex java_int(R"(^[+-]?\d+$)");
    static const rx::regex java_float(
        R"(^\s*[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+[fFdD]?)\s*$)");
    static const rx::regex big_decimal(R"(^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$)");
    static const rx::regex cpp_int(R"(^\s*[+-]?\d)");
    static const rx::regex cpp_float(R"(^\s*[+-]?(?:\d|\.\d|inf|nan))", rx::regex::icase);
    static const rx::regex js_bigint(R"(^\s*(?:[+-]?\d+|0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+)?\s*$)");
    const auto json_ok = [&](const std::string& text) {
      if (lang_ == Lang::python && rx::regex_match(trim(text), detail::cached_regex(R"(^-?(?:NaN|Infinity)$)"))) return true;
      if (parse_json(text).has_value()) return true;
      // (Python and JavaScript read numbers of any size, `1e400`, `123456789012345678901234567890`:
      // the parser here does not, so each number outside strings is read as 0.)
      std::string small;
      bool in_string = false;
      for (std::size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if (in_string) {
          small += ch;
          if (ch == '\\' && i + 1 < text.size()) small += text[++i];
          else if (ch == '"') in_string = false;
        } else if (ch == '"') {
          in_string = true;
          small += ch;
        } else if (std::isdigit(static_cast<unsigned char>(ch))) {
          while (i + 1 < text.size() && (std::isdigit(static_cast<unsigned char>(text[i + 1])) || text[i + 1] == '.' || text[i + 1] == 'e' ||
                                         text[i + 1] == 'E' || ((text[i + 1] == '+' || text[i + 1] == '-') && (text[i] == 'e' || text[i] == 'E'))))
            ++i;
          small += '0';
        } else {
          small += ch;
        }
      }
      return small != text && parse_json(small).has_value();
    };
    // (The literal the converter is given: its first argument, with at most a base of 10 after it,
    // `int("x", 10)`, `Integer.parseInt("x", 10)`, `std::stoi("x", nullptr, 10)`.)
    const auto one_literal = [&](TSNode call) -> std::optional<std::string> {
      const auto args = raw_call_args(call);
      if (args.empty() || args.size() > 3) return std::nullopt;
      for (std::size_t i = 1; i < args.size(); ++i) {
        const std::string x = strip_spaces(args[i]);
        if (x != "10" && x != "nullptr" && x != "NULL" && x != "0" && x != "base=10" && x != "null" && !starts_with(x, "MathContext.") &&
            !starts_with(x, "java.math.MathContext."))
          return std::nullopt;
      }
      // (`Decimal(value='x')`, `json.loads(s='{')`; `float('TRUE'.strip())` reads the literal as changed.)
      std::string arg = trim(args[0]);
      if (rx::smatch km; rx::regex_match(arg, km, detail::cached_regex(R"(^(?:value|s|x|string|text)\s*=\s*([\s\S]*)$)"))) arg = km[1].str();
      std::string change;
      if (rx::smatch sm; rx::regex_match(arg, sm, detail::cached_regex(R"(^(['"][\s\S]*['"])\s*\.\s*(strip|lstrip|rstrip|lower|upper|casefold|title|trim)\s*\(\s*\)$)"))) {
        arg = sm[1].str();
        change = sm[2].str();
      }
      // (Escapes and characters beyond ASCII, `int('\u0663')`, may spell digits: not read.)
      auto v = plain_string_literal(arg);
      if (v && !change.empty() && change != "lower" && change != "upper" && change != "casefold" && change != "title") *v = trim(*v);
      if (!v || v->find('\\') != std::string::npos ||
          std::any_of(v->begin(), v->end(), [](char ch) { return static_cast<unsigned char>(ch) >= 0x80; }) ||
          arg.find('\\') != std::string::npos)
        return std::nullopt;
      return v;
    };
    // (Java's integer parsers also reject what overflows the type.)
    const auto fits = [](const std::string& v, const std::string& c) {
      const bool negative = !v.empty() && v[0] == '-';
      std::string digits = v.substr(!v.empty() && (v[0] == '-' || v[0] == '+') ? 1 : 0);
      digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() ? digits.size() - 1 : 0));
      const std::string max = starts_with(c, "Long") ? (negative ? "9223372036854775808" : "9223372036854775807")
                              : starts_with(c, "Short") ? (negative ? "32768" : "32767")
                              : starts_with(c, "Byte") ? (negative ? "128" : "127")
                                                      : (negative ? "2147483648" : "2147483647");
      return digits.size() < max.size() || (digits.size() == max.size() && digits <= max);
    };
    // (A member read of `null`/`undefined` in JavaScript.)
    if (is_js(lang_) && t == "member_expression") {
      TSNode o = field(y, "object");
      return !ts_node_is_null(o) && (type(o) == "null" || type(o) == "undefined" || text(o) == "undefined");
    }
    // (Kotlin: `throw X(...)` is a jump expression.)
    if (lang_ == Lang::kotlin && t == "jump_expression") return starts_with(trim(text(y)), "throw");
    // (JavaScript: `new URL("x")` of a text with no scheme.)
    if (is_js(lang_) && t == "new_expression") {
      TSNode ctor = field(y, "constructor");
      const auto args = raw_call_args(y);
      if (ts_node_is_null(ctor) || text(ctor) != "URL" || args.size() != 1) return false;
      const auto v = plain_string_literal(args[0]);
      return v && !rx::regex_search(*v, detail::cached_regex(R"(^\s*[A-Za-z][A-Za-z0-9+.-]*:)"));
    }
    // (Rust: `None.unwrap()`, `Err(e).unwrap()`, `.expect(...)` of either.)
    if (lang_ == Lang::rust && t == "call_expression") {
      const std::string c = strip_spaces(callee_text(y));
      static const rx::regex unwrap(R"(^(?:None(?:::<[^>]*>)?|Err\(.*\))\.(?:unwrap|expect)$)");
      if (rx::regex_match(c, unwrap)) return true;
    }
    if (t == "macro_invocation" && lang_ == Lang::rust) {
      const std::string m = callee_text(y);
      return m == "panic" || m == "unreachable" || m == "todo" || m == "unimplemented";
    }
    if ((t == "binary_operator" && lang_ == Lang::python) || (t == "binary_expression" && lang_ == Lang::java)) {
      TSNode op = field(y, "operator"), l = field(y, "left"), r = field(y, "right");
      if (ts_node_is_null(op) || ts_node_is_null(l) || ts_node_is_null(r)) return false;
      const std::string o = text(op);
      if (o != "/" && o != "//" && o != "%") return false;
      // (A literal zero: `0`, and in Python `0.0`, `0.`, `0e0` too.)
      const std::string rz = strip_spaces(text(r));
      // (Also a literal sum or product that is zero: `1 / (1 - 1)`.)
      bool computed_zero = false;
      const std::string divisor = compact_condition(rz);
      if (rx::smatch zm; rx::regex_match(divisor, zm, detail::cached_regex(R"(^(-?\d{1,9})([-+*])(-?\d{1,9})$)"))) {
        const long a1 = std::stol(zm[1].str()), a2 = std::stol(zm[3].str());
        computed_zero = (zm[2].str() == "-" ? a1 - a2 : zm[2].str() == "+" ? a1 + a2 : a1 * a2) == 0;
      }
      const bool zero = computed_zero || rz == "0" || rz == "0L" || rz == "0l" || (lang_ == Lang::python && rx::regex_match(rz, detail::cached_regex(R"(^0*\.?0*(?:[eE][+-]?\d+)?$)")) &&
                                      rz.find_first_of("0") != std::string::npos);
      if (!zero) return false;
      // (Java: only integers throw; `1.0 / 0` is Infinity.)
      return lang_ == Lang::python || rx::regex_match(strip_spaces(text(l)), detail::cached_regex(R"(^-?\d+[lL]?$)"));
    }
    if (t == "object_creation_expression" && lang_ == Lang::java) {
      TSNode ty = field(y, "type");
      const std::string tn = ts_node_is_null(ty) ? "" : text(ty);
      if (tn != "BigDecimal" && tn != "BigInteger" && tn != "java.math.BigDecimal" && tn != "java.math.BigInteger") return false;
      const auto v = one_literal(y);
      return v && !rx::regex_match(*v, tn.find("BigInteger") != std::string::npos ? java_int : big_decimal);
    }
    if (t != "call" && t != "call_expression" && t != "method_invocation") return false;
    const std::string c = callee_text(y);
    switch (lang_) {
      case Lang::python: {
        // (`math.sqrt(-1)`, `math.log(0)`: a domain error whatever the code does.)
        if (const auto args = raw_call_args(y); args.size() == 1 && (c == "math.sqrt" || c == "math.log" || c == "math.log10" || c == "math.log2")) {
          const std::string arg = strip_spaces(args[0]);
          if (rx::smatch nm; rx::regex_match(arg, nm, detail::cached_regex(R"(^(-)?(\d+(?:\.\d*)?)$)")))
            return c == "math.sqrt" ? nm[1].matched && std::stod(nm[2].str()) > 0 : nm[1].matched || std::stod(nm[2].str()) == 0;
        }
        const auto v = one_literal(y);
        if (!v) return false;
        if (c == "int") return !rx::regex_match(*v, py_int);
        if (c == "float") return !rx::regex_match(*v, py_float);
        if (c == "Decimal" || c == "decimal.Decimal") return !rx::regex_match(*v, py_float) && !rx::regex_match(*v, detail::cached_regex(R"(^\s*[+-]?s?nan\d*\s*$)", rx::regex::icase));
        if (c == "json.loads") return !json_ok(*v);
        return false;
      }
      case Lang::java: {
        if (const auto args = raw_call_args(y); (c == "Objects.requireNonNull" || c == "java.util.Objects.requireNonNull") && !args.empty() &&
                                                strip_spaces(args[0]) == "null")
          return true;
        const auto v = one_literal(y);
        if (!v) return false;
        static const std::set<std::string, std::less<>> kInt = {"Integer.parseInt", "Integer.valueOf", "Long.parseLong", "Long.valueOf",
                                                                "Short.parseShort", "Short.valueOf", "Byte.parseByte", "Byte.valueOf"};
        static const std::set<std::string, std::less<>> kFloat = {"Double.parseDouble", "Double.valueOf", "Float.parseFloat", "Float.valueOf"};
        if (kInt.count(c)) return !rx::regex_match(*v, java_int) || !fits(*v, c);
        if (kFloat.count(c)) return !rx::regex_match(*v, java_float);
        return false;
      }
      case Lang::kotlin: {
        // (`error("x")`, `TODO()`, `require(false)`, `check(false)`, `requireNotNull(null)`.)
        if (c == "error" || c == "TODO") return true;
        if (const auto args = raw_call_args(y); args.size() >= 1 && (c == "require" || c == "check") && strip_spaces(args[0]) == "false") return true;
        if (const auto args = raw_call_args(y); args.size() >= 1 && (c == "requireNotNull" || c == "checkNotNull") && strip_spaces(args[0]) == "null")
          return true;
        // (`"x".toInt()`: a call of a member of a string literal.)
        static const rx::regex kt(R"(^("(?:[^"\\]|\\.)*")\s*\.\s*(toInt|toLong|toShort|toByte|toDouble|toFloat|toBigDecimal|toBigInteger)\s*\(\s*\)$)");
        rx::smatch m;
        const std::string whole = text(y);
        if (!rx::regex_match(whole, m, kt)) return false;
        const auto v = plain_string_literal(m[1].str());
        if (!v) return false;
        const std::string f = m[2].str();
        return f == "toDouble" || f == "toFloat" || f == "toBigDecimal" ? !rx::regex_match(*v, java_float) : !rx::regex_match(*v, java_int);
      }
      case Lang::cpp: {
        const auto v = one_literal(y);
        if (!v) return false;
        static const std::set<std::string, std::less<>> kInt = {"std::stoi", "std::stol", "std::stoll", "std::stoul", "std::stoull",
                                                                "stoi", "stol", "stoll", "stoul", "stoull"};
        static const std::set<std::string, std::less<>> kFloat = {"std::stof", "std::stod", "std::stold", "stof", "stod", "stold"};
        if (kInt.count(c)) {
          if (!rx::regex_search(*v, cpp_int)) return true;
          // (`std::stoi("99999999999")`: out of the type's range.)
          rx::smatch dm;
          const bool wide = contains(c, "ll") || contains(c, "stol");
          return !contains(c, "stou") && rx::regex_search(*v, dm, detail::cached_regex(R"(^\s*([+-]?\d+))")) && !fits(dm[1].str(), wide ? "Long" : "Integer");
        }
        if (kFloat.count(c)) return !rx::regex_search(*v, cpp_float);
        return false;
      }
      case Lang::javascript: case Lang::typescript: case Lang::tsx: {
        const auto v = one_literal(y);
        if (!v) return false;
        if (c == "JSON.parse") return !json_ok(*v);
        if (c == "BigInt") return !rx::regex_match(*v, js_bigint);
        return false;
      }
      case Lang::go: return c == "panic";
      default: return false;
    }
  }

  /// Does the statement `x` throw by itself (a `throw`/`raise` in it, not in a nested function),
  /// other than an assertion failure?
  bool throws_itself(TSNode x) const {
    bool found = false;
    std::function<void(TSNode, int)> walk = [&](TSNode y, int depth) {
      if (found || depth > kMaxSyntaxDepth) return;
      const std::string_view t = type(y);
      if (t == "lambda" || t == "lambda_expression" || t == "arrow_function" || t == "function_definition" || t == "function_expression" ||
          t == "function_declaration" || t == "func_literal" || t == "lambda_literal" || t == "closure_expression")
        return;
      if ((t == "throw_statement" || t == "raise_statement" || t == "throw_expression") && !contains(text(y), "AssertionError")) {
        found = true;
        return;
      }
      // (A converter given a literal it rejects, `int("TRUE")`, `std::stoi("x")`; `panic!()`.)
      if (throws_for_any_code(y)) {
        found = true;
        return;
      }
      for (uint32_t i = 0; i < ts_node_named_child_count(y); ++i) walk(tsnav::named_child(y, i), depth + 1);
    };
    walk(x, 0);
    return found;
  }

  /// AssertJ's exception assertions, read as assertThrows: `assertThatThrownBy(() -> parse(s))
  /// .isInstanceOf(JSONException.class)`, `assertThatExceptionOfType(JSONException.class)
  /// .isThrownBy(() -> parse(s))`, `assertThatIllegalArgumentException().isThrownBy(...)`: a throw
  /// check of the type (broad when none is named or the broadest) over what the lambda computes.
  /// nullopt for any other call.
  std::optional<Assertion> assertj_throw(TSNode n, Assertion a) const {
    if ((lang_ != Lang::java && lang_ != Lang::kotlin) || type(n) != "method_invocation") return std::nullopt;
    std::vector<TSNode> chain{n};
    for (TSNode o = field(n, "object"); !ts_node_is_null(o) && type(o) == "method_invocation"; o = field(o, "object")) chain.push_back(o);
    const TSNode root = chain.back();
    const std::string r = callee(root);
    const bool thrown_by = r == "assertThatThrownBy";
    const bool of_type = r == "assertThatExceptionOfType" || (starts_with(r, "assertThat") && ends_with(r, "Exception"));
    if (!thrown_by && !of_type) return std::nullopt;
    std::string ty, code;
    if (r == "assertThatExceptionOfType") {
      const auto args = call_args(root);
      ty = args.empty() ? "" : args[0];
    } else if (of_type) {
      ty = r.substr(10);  // assertThatIllegalArgumentException -> IllegalArgumentException
    }
    if (thrown_by) {
      const auto args = call_args(root);
      code = args.empty() ? "" : args[0];
    }
    for (const TSNode c : chain) {
      const std::string m = callee(c);
      const auto args = call_args(c);
      if (thrown_by && (m == "isInstanceOf" || m == "isExactlyInstanceOf" || m == "isInstanceOfAny") && !args.empty()) ty = args[0];
      if (of_type && (m == "isThrownBy") && !args.empty()) code = args[0];
    }
    if (ends_with(ty, ".class")) ty.resize(ty.size() - 6);
    a.kind = broad_exception(ty) ? Kind::throws_broad : Kind::throws_specific;
    bool tautology = false;
    // (The lambda's body: `() -> new JSONObject(s, cfg)` computes `new JSONObject(s, cfg)`.)
    if (const auto arrow = code.find("->"); arrow != std::string::npos) code = trim(code.substr(arrow + 2));
    if (!code.empty()) collect_operands(code, a.operands, tautology, &a.literals, &a.raw_exprs);
    a.trivial = a.operands.empty();
    return a;
  }

  /// The type a handler catches, as written (`JSONException`, `(ValueError, KeyError)`, `const
  /// std::invalid_argument&`); "" for one that catches everything (`catch (e)`, `except:`, `catch (...)`).
  std::string handler_type(TSNode h) const {
    const std::string_view ht = type(h);
    std::string ty;
    // (Kotlin's `catch (e: JSONException) { ... }`.)
    if (ht == "catch_block")
      for (uint32_t j = 0; j < ts_node_named_child_count(h); ++j)
        if (type(tsnav::named_child(h, j)) == "user_type") ty = text(tsnav::named_child(h, j));
    if (ht == "except_clause") {
      // (`except ValueError as e:`, `except (A, B):`; a bare `except:` catches everything.)
      const std::string head = text(h).substr(0, text(h).find(':'));
      ty = trim(std::string_view(head).substr(std::min<std::size_t>(6, head.size())));
      if (const auto as = ty.find(" as "); as != std::string::npos) ty = trim(ty.substr(0, as));
    } else if (lang_ == Lang::java || lang_ == Lang::kotlin) {
      for (uint32_t j = 0; j < ts_node_named_child_count(h); ++j)
        if (TSNode p = tsnav::named_child(h, j); type(p) == "catch_formal_parameter")
          for (uint32_t k = 0; k < ts_node_named_child_count(p); ++k)
            if (type(tsnav::named_child(p, k)) == "catch_type") ty = text(tsnav::named_child(p, k));
    } else if (lang_ == Lang::cpp) {
      // (`catch (const std::invalid_argument& e)`: the type; `catch (...)`: none.)
      if (TSNode ps = field(h, "parameters"); !ts_node_is_null(ps))
        for (uint32_t j = 0; j < ts_node_named_child_count(ps); ++j)
          if (TSNode d = tsnav::named_child(ps, j); type(d) == "parameter_declaration" && !ts_node_is_null(field(d, "type")))
            ty = text(field(d, "type"));
    }
    return ty;
  }

  /// Is `ty` (one type, or a tuple / multi-catch of them) as broad as any failure: catching
  /// everything (""), the base types of a language's errors (`Exception`, `Throwable`,
  /// `std::exception`), C++'s bases of the standard exceptions, or the assertion failure itself?
  static bool broad_type(const std::string& ty) {
    // (One table for every language: no name in it means something narrower in another.)
    static const std::set<std::string, std::less<>> kBroad = {"Exception", "BaseException", "Throwable", "Error", "RuntimeException",
                                                              "exception", "object", "Object", "AssertionError", "AssertionFailedError",
                                                              "logic_error", "runtime_error"};
    if (trim(ty).empty()) return true;
    // (`except (ValueError, Exception):`, `catch (JSONException | RuntimeException e)`, a qualified name.)
    for (const auto& part : split_top(unparen(ty), {",", "|"})) {
      std::string x = trim(part);
      if (starts_with(x, "const ")) x = trim(x.substr(6));
      while (!x.empty() && (x.back() == '&' || x.back() == '*' || x.back() == ' ')) x.pop_back();
      if (kBroad.count(x) || kBroad.count(x.substr(x.rfind(':') == std::string::npos ? 0 : x.rfind(':') + 1)) ||
          kBroad.count(x.substr(x.rfind('.') == std::string::npos ? 0 : x.rfind('.') + 1)))
        return true;
    }
    return false;
  }

  /// Does the JavaScript value `v`, expected of a thrown error (jest's `toThrow(v)`, an
  /// expectation object's property), hold of any error: an empty message (a substring every
  /// message has), a pattern that matches every text (`/.*/`, `/[^]*/`, `/err|/`), `Error`,
  /// `Object`, `true`, `expect.any(...)`, `expect.anything()`, `() => true`?
  static bool any_error_value(const std::string& v) {
    static const rx::regex words(R"(^(?:/Error/\w*|''|""|``|Error|Object|true|expect\.any\(.*\)|expect\.anything\(\)|\(\)\s*=>\s*true|\w+\s*=>\s*true)$)");
    if (rx::regex_match(v, words)) return true;
    if (v.size() >= 2 && v.front() == '/') {
      const auto close = v.rfind('/');
      if (close == 0) return false;
      return universal_pattern(v.substr(1, close - 1), false, contains(v.substr(close + 1), "s"));
    }
    return false;
  }

  /// broad_type of `ty` read through the file's aliases of exception types: `ParseError =
  /// BaseException`, `ERRORS = (ValueError, Exception)`, `const Broad = Error;`, `from builtins
  /// import Exception as ParseError` (a name bound to a broad type catches everything it does).
  bool broad_exception(const std::string& ty) const {
    // (Worked out once per type as written: a file names the same few types in every check.)
    if (const auto it = broad_cache_.find(ty); it != broad_cache_.end()) return it->second;
    return broad_cache_[ty] = broad_exception_uncached(ty);
  }

  bool broad_exception_uncached(const std::string& ty) const {
    // (Python has no builtin `Error`: `configparser.Error`, a project's `Error` class, are specific.)
    const auto broad = [&](const std::string& t) {
      if (lang_ != Lang::python) return broad_type(t);
      std::string kept;
      for (const auto& part : split_top(unparen(t), {",", "|"})) {
        const std::string x = trim(part);
        const std::string last = x.substr(x.rfind('.') == std::string::npos ? 0 : x.rfind('.') + 1);
        if (last != "Error") kept += (kept.empty() ? "" : ",") + x;
      }
      return !kept.empty() && broad_type("(" + kept + ")");
    };
    // Every binding of an alias at the top of the module (any one of them broad makes it broad:
    // a later rebinding to `Exception` is the one the tests see), or an import `as` it.
    std::vector<std::string> frontier{trim(ty)};
    for (int hop = 0; hop < 4 && !frontier.empty(); ++hop) {
      std::vector<std::string> next;
      for (const auto& t : frontier) {
        if (broad(t)) return true;
        const std::string src = s_.src.substr(0, std::size_t{1} << 20);
        for (const auto& part : split_top(unparen(t), {",", "|", "+"})) {
          std::string x = trim(part);
          // Spellings of a type through an expression: a base of a type (`E.__base__`, `E.__mro__[-2]`,
          // JavaScript's `Object.getPrototypeOf(TypeError)`) is broad; `type(Exception())`,
          // `tuple(ERRORS)`, `getattr(builtins, 'Exception')`, `globalThis['Error']`, the arms of
          // `A if c else B` and the members of a list name their types.
          static const rx::regex base_of(R"(\.__(?:base|bases|mro)__\b|^Object\.getPrototypeOf\()");
          if (rx::regex_search(x, base_of)) return true;
          rx::smatch em;
          if (rx::regex_match(x, em, detail::cached_regex(R"re(^(?:type\((\w[\w.]*)\(\)\)|tuple\((\w[\w.]*)\)|getattr\(\s*(?:builtins|__builtins__)\s*,\s*['"](\w+)['"]\s*\)|(?:globalThis|window|global|self)\s*(?:\[\s*['"](\w+)['"]\s*\]|\.(\w+)))$)re"))) {
            for (int g = 1; g <= 5; ++g)
              if (em[g].matched) next.push_back(em[g].str());
            continue;
          }
          if (rx::regex_match(x, em, detail::cached_regex(R"(^([\s\S]+?)\s+if\s+[\s\S]+?\s+else\s+([\s\S]+)$)"))) {
            next.push_back(trim(em[1].str()));
            next.push_back(trim(em[2].str()));
            continue;
          }
          if (x.size() > 2 && ((x.front() == '[' && x.back() == ']') || (x.front() == '(' && x.back() == ')'))) {
            next.push_back("(" + x.substr(1, x.size() - 2) + ")");
            continue;
          }
          // (`self.error` / `cls.error`: the attribute the class body binds; `errors.Parse`: the member
          // of an object literal the module binds.)
          if (rx::regex_match(x, em, detail::cached_regex(R"(^(?:self|cls|this)\.(\w+)$)"))) {
            const rx::regex attr = detail::cached_regex("\\n[ \\t]+" + em[1].str() + R"([ \t]*(?::[^=\n]*)?=[ \t]*([\w.]+)[ \t]*(?:#[^\n]*)?(?=\n|$))");
            for (rx::sregex_iterator it(src.begin(), src.end(), attr), end; it != end; ++it) next.push_back((*it)[1].str());
            continue;
          }
          if (is_js(lang_) && rx::regex_match(x, em, detail::cached_regex(R"(^([A-Za-z_$][\w$]*)\.([A-Za-z_$][\w$]*)$)"))) {
            const rx::regex member = detail::cached_regex("\\b" + em[1].str() + R"(\s*=\s*\{[^}]*\b)" + em[2].str() + R"(\s*:\s*([\w.$]+))");
            for (rx::sregex_iterator it(src.begin(), src.end(), member), end; it != end; ++it) next.push_back((*it)[1].str());
            continue;
          }
          static const rx::regex plain(R"(^[A-Za-z_$][\w$]*$)");
          if (!rx::regex_match(x, plain)) continue;
          // Other binding forms: Python's chained (`A = B = Exception`) and unpacking (`A, B = X, Y`)
          // assignments; JavaScript's later assignment (`let E; E = Error;`) and destructuring
          // (`const { Error: E } = globalThis`, `const [E] = [Error]`); C++'s `using E = std::exception;`,
          // `typedef std::exception E;`, `#define E std::exception`; Kotlin's `typealias E = Exception`;
          // Java's `Class<? extends Throwable> E = Exception.class`.
          if (contains(src, x)) {
            std::vector<rx::regex> forms;
            // (Each form only where a plain search finds its words: the file is searched once per form.)
            const auto has = [&](std::initializer_list<std::string> words) {
              return std::any_of(words.begin(), words.end(), [&](const std::string& w) { return contains(src, w); });
            };
            if (lang_ == Lang::python) {
              if (has({x + " = ", x + "="}) && has({"= " + x + " =", x + " = " + "", "=" + x + "="}))
                forms.push_back(detail::cached_regex("(?:^|\\n)(?:\\w+[ \\t]*=[ \\t]*)*" + x + R"([ \t]*=[ \t]*(?:\w+[ \t]*=[ \t]*)+([\w.]+)[ \t]*(?=\n|$))"));
              static const rx::regex unpack(R"((?:^|\n)([\w \t]*,[\w \t,]*)=([^\n=]+)(?=\n|$))");
              if (has({x + ",", ", " + x, "," + x}))
              for (rx::sregex_iterator it(src.begin(), src.end(), unpack), end; it != end; ++it) {
                const auto names = split_top((*it)[1].str(), {","});
                const auto values = split_top((*it)[2].str(), {","});
                for (std::size_t i = 0; i < names.size() && i < values.size(); ++i)
                  if (trim(names[i]) == x) next.push_back(trim(values[i]));
              }
            } else if (is_js(lang_)) {
              if (has({x + " =", x + "="})) forms.push_back(detail::cached_regex("(?:^|\\n)[ \\t]*" + x + R"(\s*=\s*([\w.$]+)\s*;?)"));
              if (has({": " + x, ":" + x}))
                forms.push_back(detail::cached_regex(R"(\{[^}]*\b([\w$]+)\s*:\s*)" + x + R"(\b[^}]*\}\s*=\s*(?:globalThis|window|global|self)\b)"));
              if (has({"[" + x, "[ " + x})) forms.push_back(detail::cached_regex(R"(\[\s*)" + x + R"(\s*\]\s*=\s*\[\s*([\w.$]+))"));
            } else {
              if (has({"using " + x})) forms.push_back(detail::cached_regex(R"(\busing\s+)" + x + R"(\s*=\s*([\w:.<>]+)\s*;)"));
              if (has({" " + x + ";"}) && has({"typedef"})) forms.push_back(detail::cached_regex(R"(\btypedef\s+([\w:.<>]+)\s+)" + x + R"(\s*;)"));
              if (has({"define " + x})) forms.push_back(detail::cached_regex(R"(#\s*define\s+)" + x + R"(\s+([\w:.<>]+))"));
              if (has({"typealias " + x})) forms.push_back(detail::cached_regex(R"(\btypealias\s+)" + x + R"(\s*=\s*([\w.<>]+))"));
              if (has({x + " = ", x + "="}) && has({".class"})) forms.push_back(detail::cached_regex("\\b" + x + R"(\s*=\s*([\w.]+\.class)\s*;)"));
            }
            for (const auto& form : forms)
              for (rx::sregex_iterator it(src.begin(), src.end(), form), end; it != end; ++it)
                if ((*it)[1].str() != x) next.push_back((*it)[1].str());
          }
          const rx::regex py = detail::cached_regex("(?:^|\n)" + x + R"([ \t]*(?::[^=\n]*)?=[ \t]*([^\n#= \t][^\n#]*?)[ \t]*(?:#[^\n]*)?(?=\n|$))");
          const rx::regex js = detail::cached_regex(R"(\b(?:const|let|var)\s+)" + x + R"(\s*(?::[^=]*)?=\s*([\w.$]+(?:\s*\[\s*['"]\w+['"]\s*\]|\s*\([\w.$]*\))?)\s*;?)");
          const rx::regex as = detail::cached_regex(R"(\bimport\s+[^\n]*?\b([\w.]+)\s+as\s+)" + x + R"(\b)");
          // (The regular expressions only where a plain search finds the name bound: a large file
          // names its exception types in every check.)
          const bool bound_at_top = is_js(lang_) ? (contains(src, "const " + x) || contains(src, "let " + x) || contains(src, "var " + x))
                                                 : (starts_with(src, x) || contains(src, "\n" + x));
          const bool imported_as = contains(src, " as " + x);
          if (bound_at_top)
            for (rx::sregex_iterator it(src.begin(), src.end(), is_js(lang_) ? js : py), end; it != end; ++it)
              if ((*it)[1].str() != x) next.push_back((*it)[1].str());
          if (imported_as)
            for (rx::sregex_iterator it(src.begin(), src.end(), as), end; it != end; ++it)
              if ((*it)[1].str() != x) next.push_back((*it)[1].str());
        }
      }
      frontier = std::move(next);
    }
    return false;
  }

  /// Does the handler `h` expect any failure at all (broad_type), unless it checks what it caught:
  /// JavaScript's untyped `catch (e)` whose body fails on another error, `assert.strictEqual(e.code,
  /// 'EBADLIT')`, expects that error, as specific as `assert.throws(f, {code: 'EBADLIT'})`; so does a
  /// broad one that checks it, `catch (Exception e) { assertTrue(e instanceof JSONException); }`.
  bool broad_handler(TSNode h) const {
    const std::string ty = handler_type(h);
    if (!broad_exception(ty)) return false;
    return !handler_checks_error(h);
  }

  /// The flag idiom: `boolean threw = false; try { parse(s); } catch (E e) { threw = true; }
  /// assertTrue(threw);` (Python's `raised = False` ... `except E: raised = True` ... `assert raised`;
  /// a caught error kept, `err = None` ... `except E as e: err = e` ... `assert err is not None`;
  /// JavaScript's `let err; try {...} catch (e) { err = e; } assert.ok(err instanceof TypeError)`).
  /// The check of the flag at `n` is the expectation that the try's body throws: read, as
  /// expected_throw reads try/fail/catch, as a throw check of the caught type (or the type the check
  /// or the handler tests the error for) over what the body computes. False, `a` untouched, when `n`
  /// is no such check: the flag set before the try or in its body, set again after it, tested for
  /// falsity, or set by no handler.
  bool flag_throw(TSNode n, Assertion& a) const {
    // (`assert type(err) is ValueError`: the caught error's exact type.)
    std::string v, exact_type;
    if (a.operands.size() == 2) {
      for (const auto& o : a.operands) {
        rx::smatch tm;
        if (rx::regex_match(o, tm, detail::cached_regex(R"(^type\(([A-Za-z_]\w*)\)$)"))) v = tm[1].str();
        else exact_type = o;
      }
      if (v.empty() || !rx::regex_match(exact_type, detail::cached_regex(R"(^[A-Za-z_][\w.]*$)"))) return false;
    } else if (a.operands.size() == 1) {
      v = *a.operands.begin();
    } else {
      return false;
    }
    // (`assert.ok(err instanceof TypeError)`: the operand is the whole test, whitespace removed.)
    if (rx::smatch im; rx::regex_match(v, im, detail::cached_regex(R"(^([A-Za-z_$][\w$]*)instanceof[\w.$]+$)"))) v = im[1].str();
    // (`assert isinstance(err, ValueError)`: the same.)
    if (rx::smatch im; rx::regex_match(v, im, detail::cached_regex(R"(^isinstance\(([A-Za-z_]\w*),[\w.()]+\)$)"))) v = im[1].str();
    static const rx::regex ident(R"(^[A-Za-z_$][\w$]*$)");
    if (!rx::regex_match(v, ident)) return false;
    // (The check's own text: a truth, non-null or type check of the flag, not its falsity.)
    const std::string check = text(n).substr(0, kConditionChars);
    const std::string vr = "\\b" + v + "\\b";
    if (rx::regex_search(check, detail::cached_regex(R"(\b(?:false|False|assertFalse|assertNull|assertIsNone|isNull|toBeFalsy|toBeUndefined|toBeNull|notOk|isFalse|isNotOk|is\s+None|==\s*(?:null|None|nil)|not\s+)" + v + R"(\b|!\s*)" + v + R"(\b))")))
      return false;
    std::string checked_type;  // `err instanceof TypeError`, `isinstance(err, ValueError)`, assertIsInstance(err, ValueError)
    {
      rx::smatch m;
      if (rx::regex_search(check, m, detail::cached_regex(vr + R"(\s+instanceof\s+([\w.$]+))")) ||
          rx::regex_search(check, m, detail::cached_regex(R"(\b(?:isinstance|assertIsInstance|assertInstanceOf)\s*\(\s*)" + v + R"(\s*,\s*([\w.()\s,]+?)\s*[,)])")))
        checked_type = trim(m[1].str());
    }
    if (!exact_type.empty()) checked_type = exact_type;
    // (The statement of the check, in a block of the unit.)
    TSNode st = n;
    for (TSNode p = tsnav::parent(st); !ts_node_is_null(p); p = tsnav::parent(st)) {
      const std::string_view pt = type(p);
      // (C++'s `EXPECT_TRUE(threw) << "message";`.)
      if (pt != "expression_statement" && pt != "await_expression" && !(lang_ == Lang::cpp && pt == "binary_expression")) break;
      st = p;
    }
    const auto is_try = [&](TSNode x) {
      return !ts_node_is_null(x) && (type(x) == "try_statement" || type(x) == "try_with_resources_statement" || type(x) == "try_expression");
    };
    const rx::regex assigned = detail::cached_regex("(?:^|[^\\w$.])" + v + R"(\s*(?:[-+*/|&^%]|\?\?|\|\||&&)?=(?!=))");
    // The nearest try before the check in its block, the flag not assigned between them.
    TSNode t{};
    for (TSNode sib = tsnav::prev_named_sibling(st); !ts_node_is_null(sib); sib = tsnav::prev_named_sibling(sib)) {
      if (is_try(sib)) {
        t = sib;
        break;
      }
      if (rx::regex_search(text(sib).substr(0, kRegexLineChars), assigned)) return false;
    }
    if (ts_node_is_null(t)) return false;
    // Its body and any `finally`/`else` leave the flag alone.
    TSNode body = try_body(t);
    if (ts_node_is_null(body) || rx::regex_search(text(body), assigned)) return false;
    // (An exit that skips the check when nothing is thrown, `return` in the body, an `else:` or a
    // `finally:`, makes the flag say nothing.)
    static const rx::regex exits(R"(\b(?:return|break|continue|yield|sys\.exit|os\._exit|System\.exit|exitProcess)\b)");
    if (rx::regex_search(text(body), exits)) return false;
    // Some handler sets it to a truthy value; the expected type is what those handlers catch.
    bool set = false, broad = false;
    for (uint32_t i = 0; i < ts_node_named_child_count(t); ++i) {
      TSNode h = tsnav::named_child(t, i);
      const std::string_view ht = type(h);
      if (ht == "finally_clause" || ht == "else_clause") {
        if (rx::regex_search(text(h), assigned) || rx::regex_search(text(h), exits)) return false;
        continue;
      }
      if (ht != "catch_clause" && ht != "except_clause" && ht != "catch_block") continue;
      const std::string ht_text = text(h);
      rx::smatch m;
      if (!rx::regex_search(ht_text, m, detail::cached_regex("(?:^|[^\\w$.])" + v + R"(\s*=(?!=)\s*([^;\n]+))"))) continue;
      std::string value = trim(m[1].str());
      if (ends_with(value, ";")) value.pop_back();
      static const std::set<std::string, std::less<>> kFalsy = {"false", "False", "null", "None", "nil", "undefined", "0", "nullptr", "\"\"", "''"};
      if (kFalsy.count(trim(value))) continue;
      // (Only a plain truthy value: `true`, `1`, the caught error, or a test of its type; `e
      // instanceof TypeError || true`, `!(e instanceof RangeError)` say something else.)
      static const rx::regex plain_value(
          R"(^(?:true|True|1|[A-Za-z_$][\w$]*|\(?\s*[A-Za-z_$][\w$]*\s+instanceof\s+[\w.$]+\s*\)?|isinstance\s*\(\s*\w+\s*,\s*[\w.]+\s*\))$)");
      if (!rx::regex_match(trim(value), plain_value)) return false;
      set = true;
      std::string ty = handler_type(h);
      // (`threw = e instanceof TypeError` in an untyped catch: that type.)
      if (rx::smatch im; rx::regex_search(value, im, detail::cached_regex(R"(\binstanceof\s+([\w.$]+))"))) ty = im[1].str();
      if (!checked_type.empty()) ty = checked_type;
      broad = broad || broad_exception(ty);
    }
    if (!set) return false;
    // Before the try, the flag starts falsy (or unset: `let err;`), and is bound in the unit.
    bool initialized = false;
    TSNode init_stmt{};
    for (TSNode sib = tsnav::prev_named_sibling(t); !ts_node_is_null(sib); sib = tsnav::prev_named_sibling(sib)) {
      init_stmt = sib;
      const std::string x = trim(text(sib));
      if (!rx::regex_search(x.substr(0, kRegexLineChars), detail::cached_regex(vr))) continue;
      rx::smatch m;
      if (rx::regex_search(x, m, detail::cached_regex(vr + R"(\s*(?::[^=]*)?=\s*([^;\n]*))"))) {
        static const std::set<std::string, std::less<>> kFalsy = {"false", "False", "null", "None", "nil", "undefined", "0", "nullptr"};
        std::string init = trim(m[1].str());
        if (ends_with(init, ";")) init.pop_back();
        if (!kFalsy.count(trim(init))) return false;
        initialized = true;
      } else if (rx::regex_match(x, detail::cached_regex(R"(^(?:let|var)\s+)" + v + R"(\s*;?$)"))) {
        initialized = true;
      } else {
        return false;  // (read or changed some other way before the try)
      }
      break;
    }
    if (!initialized) return false;
    // The flag is named nowhere else in the unit: not in the try's body under another binding form
    // (`for raised in ...`, `with ... as err`, destructuring), not in a nested function that sets it
    // (`nonlocal raised`), not handed to a helper: only where it starts, in the handlers, in the check.
    if (!ts_node_is_null(unit_node_) && !ts_node_is_null(init_stmt)) {
      const std::string& code = unit_code();
      const uint32_t base = ts_node_start_byte(unit_node_);
      std::vector<std::pair<uint32_t, uint32_t>> allowed{{ts_node_start_byte(init_stmt), ts_node_end_byte(init_stmt)},
                                                          {ts_node_start_byte(st), ts_node_end_byte(unit_node_)}};
      for (uint32_t i = 0; i < ts_node_named_child_count(t); ++i)
        if (const std::string_view ht = type(tsnav::named_child(t, i)); ht == "catch_clause" || ht == "except_clause" || ht == "catch_block")
          allowed.emplace_back(ts_node_start_byte(tsnav::named_child(t, i)), ts_node_end_byte(tsnav::named_child(t, i)));
      const rx::regex& word = detail::cached_regex("(?:^|[^\\w$.])(" + v + ")(?![\\w$])");
      for (rx::sregex_iterator it(code.begin(), code.end(), word), end; it != end; ++it) {
        const uint32_t at = base + static_cast<uint32_t>(it->position(1));
        if (std::none_of(allowed.begin(), allowed.end(), [&](const auto& r) { return at >= r.first && at < r.second; })) return false;
      }
    }

    Assertion out;
    out.line = a.line;
    out.swallowed = a.swallowed;
    out.swallow_why = a.swallow_why;
    out.kind = broad ? Kind::throws_broad : Kind::throws_specific;
    if (statement_operands(body, TSNode{}, out)) out.tautology = true;
    out.trivial = out.operands.empty();
    a = std::move(out);
    return true;
  }

  /// A failure call that ends the body of a `try` whose handler catches and does not re-raise
  /// (`try { parse("TRUE"); fail("expected"); } catch (JSONException e) {}`, Python's `try:` ...
  /// `pytest.fail(...)` ... `except ValueError: pass` or the fail in the `try`'s `else:`): the
  /// expectation that the code before it throws, read as `assertThrows(JSONException.class, ...)`
  /// is: a throw check of the caught type (broad for `Exception`, `catch (...)`, an untyped JS
  /// catch) over what the statements before the fail compute. Empty for any other failure call
  /// outside an `if` (it fails the test outright and checks nothing about the code).
  std::vector<Assertion> expected_throw(TSNode n, Assertion a) const {
    // (The fail's own statement: `fail(...);`, C++'s `FAIL() << "..."`, an awaited JS call.)
    TSNode st = n;
    for (TSNode p = tsnav::parent(st); !ts_node_is_null(p); p = tsnav::parent(st)) {
      const std::string_view pt = type(p);
      if (pt != "expression_statement" && pt != "await_expression" && pt != "binary_expression" && pt != "parenthesized_expression") break;
      if (pt == "binary_expression" && !ts_node_eq(field(p, "left"), st)) return {};
      st = p;
    }
    TSNode block = tsnav::parent(st);
    if (ts_node_is_null(block)) return {};
    TSNode owner = tsnav::parent(block);
    if (ts_node_is_null(owner)) return {};
    const auto is_try = [&](TSNode x) {
      return !ts_node_is_null(x) && (type(x) == "try_statement" || type(x) == "try_with_resources_statement" || type(x) == "try_expression");
    };
    // (Where the code expected to throw is: the try's body up to the fail; all of it for the fail
    // in Python's `else:` or after a try whose every handler returns.)
    bool whole_body = false;
    if (type(owner) == "else_clause" && lang_ == Lang::python) {
      whole_body = true;
      owner = tsnav::parent(owner);
    } else if (TSNode prev = tsnav::prev_named_sibling(st); !is_try(owner) && is_try(prev) && handlers_return(prev, in_loop(st))) {
      // (`try { parse(s); } catch (E e) { return; } fail("expected E");`)
      whole_body = true;
      owner = prev;
    } else if (!ts_node_eq(try_body(owner), block)) {
      return {};
    }
    if (!is_try(owner)) return {};
    // (The handlers: one that catches and does not re-raise; its type is what is expected. Every
    // handler that catches: the expectation is as broad as the broadest, `catch (JSONException e) {}
    // catch (Exception e) {}` expects any Exception.)
    bool catches = false, broad = false;
    for (uint32_t i = 0; i < ts_node_named_child_count(owner); ++i) {
      TSNode h = tsnav::named_child(owner, i);
      const std::string_view ht = type(h);
      if (ht != "catch_clause" && ht != "except_clause" && ht != "catch_block") continue;
      if (reraises(h)) continue;
      catches = true;
      broad = broad || broad_handler(h);
    }
    if (!catches) return {};
    a.kind = broad ? Kind::throws_broad : Kind::throws_specific;
    // (What is expected to throw: the statements of the try's body before the fail, each value as
    // computed, `JSONObject j = new JSONObject(s, cfg)` as `new JSONObject(s, cfg)`.)
    // (The test throwing itself before the fail, `if (p != null) throw new JSONException("x");`:
    // the expectation holds whatever the code does.)
    if (statement_operands(whole_body ? try_body(owner) : block, st, a)) a.tautology = true;
    a.trivial = a.operands.empty();
    return {a};
  }

  /// Does the file rebind the failure call's function or its receiver, so that it is not the
  /// runner's: `def fail(...)`, `fail = print`, `pytest = SimpleNamespace(fail=print)`, `t.fail =
  /// ...`, `setattr(pytest, "fail", ...)`, `t.mock.method(assert, 'fail', ...)`, `#define
  /// ADD_FAILURE() ...`, `#undef FAIL`? (A `require(...)` binding of the receiver is its import.)
  bool failure_rebound(const std::string& c, const std::string& name) const {
    if (auto it = rebound_.find(c); it != rebound_.end()) return it->second;
    std::string pattern;
    if (lang_ == Lang::cpp) {
      pattern = "#\\s*(?:define|undef)\\s+" + name + "\\b";
    } else {
      const auto dot = c.rfind('.');
      std::string recv = dot == std::string::npos ? std::string() : c.substr(0, dot), r;
      for (char ch : recv) r += ch == '.' ? std::string("\\s*\\.\\s*") : std::string(1, ch);
      // (Any assignment to the name or the receiver, a parameter's default, a walrus, a loop
      // variable or an unpacking among them; any `.fail = ...`; the name as a string handed to
      // something or used as a key, `setattr(x, 'fail', ...)`, `assert['fail'] = ...`,
      // `mock.method(x, 'fail')`, `globals()["fail"]`, `monkeypatch.setattr("pytest.fail", ...)`;
      // another module imported under the receiver's name. A `require(...)`, `chai.assert` or
      // `await import(...)` binding of the receiver is its import.)
      const std::string assigned = "\\s*(?::=|=(?![=>])(?!\\s*(?:require\\s*\\(|chai\\s*\\.|await\\s+import\\b)))";
      const std::string keyed = "[\\[,(]\\s*['\"](?:[\\w.]+\\.)?" + name + "['\"]";
      if (recv.empty())
        pattern = "\\b(?:def|function)\\s+" + name + "\\b|\\b" + name + assigned + "|\\bfor\\s+" + name + "\\b|\\b" + name +
                  "\\s*,[^\\n]*=|\\bimport\\s+[^\\n]*\\bas\\s+" + name + "\\b|\\bfrom\\s+(?!pytest\\b)[\\w.]+\\s+import\\s+[^\\n]*\\b" + name + "\\b|" + keyed;
      else
        pattern = "\\.\\s*" + name + "\\s*=(?![=>])|(?:^|[^.\\w$])" + r + assigned + "|\\bfor\\s+" + r + "\\b|" + keyed +
                  "|\\bimport\\s+(?!pytest\\b|" + r + "\\b)[\\w.]+\\s+as\\s+" + r + "\\b|\\bfrom\\s+[\\w.]+\\s+import\\s+[^\\n]*\\bas\\s+" + r + "\\b";
    }
    bool found = false;
    if (regex_safe_name(name) && std::all_of(c.begin(), c.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '$'; })) {
      try {
        found = rx::regex_search(s_.src, detail::cached_regex(pattern));
      } catch (const rx::regex_error&) {
        found = true;  // (unreadable: not trusted as the runner's)
      }
    }
    rebound_.emplace(c, found);
    return found;
  }

  /// Does this branch (a block or one statement) fail the test whenever it runs: a statement of it
  /// raises or throws, fails through the runner (`pytest.fail`, `t.Fatal`, `assert.fail`,
  /// `FAIL() << ...`, `t.Errorf`), at its top level.
  bool branch_fails(TSNode b) const {
    auto fails = [&](TSNode x) {
      const std::string_view t = type(x);
      if (t == "raise_statement" || t == "throw_statement") {
        const std::string r = text(x).substr(0, kConditionChars);  // (a skip or an xfail by exception passes no check)
        return !contains(r, "skip") && !contains(r, "Skip") && !contains(r, "xfail");
      }
      if (exit_stmt(x) && !exit_stmt(x, /*passing=*/true) && t != "return_statement" && t != "continue_statement" && t != "break_statement")
        return true;
      if (t != "expression_statement" || ts_node_named_child_count(x) == 0) return false;
      TSNode e = tsnav::named_child(x, 0);
      while (type(e) == "binary_expression" && !ts_node_is_null(field(e, "left"))) e = field(e, "left");  // (`FAIL() << ...`)
      if (type(e) != "call" && type(e) != "call_expression") return false;
      const std::string name = callee(e);
      if (lang_ == Lang::go) return kGoFail.count(name) && !go_package_call(e);
      return failure_call(e, name);
    };
    const std::string_view bt = type(b);
    if (bt != "block" && bt != "statement_block" && bt != "compound_statement") return fails(b);
    for (uint32_t i = 0; i < ts_node_named_child_count(b); ++i)
      if (fails(tsnav::named_child(b, i))) return true;
    return false;
  }

  /// Is `n` inside a try statement (or a C++ try block) of the test being read?
  bool handled_within_unit(TSNode n) const {
    for (TSNode p = tsnav::parent(n); !ts_node_is_null(p) && !ts_node_eq(p, unit_node_); p = tsnav::parent(p))
      if (type(p) == "try_statement" || type(p) == "try_block") return true;
    return false;
  }

  /// A failure branch's check: the condition its failure call runs under; whether the check is
  /// that condition's negation (`if got != 4: fail()`) or the condition itself (the `else` of a
  /// plain `if got == 4:`, `got == 4 or fail()`); the line that runs whenever the check does (the
  /// `if`'s: the validator's runtime check requires a check's line to have run, and the failure
  /// call never runs in a passing test).
  struct FailureBranch {
    std::string condition;
    bool negated = true;
    int line = 0;
  };

  /// The failure branch the failure call `n` is the body of, walking up through blocks, statements
  /// of expressions, `with` bodies and a stream's left end (`FAIL() << ...`). nullopt outside any
  /// `if`, in the `else` of an `elif` or `else if` chain, and when a loop, a switch or match, a
  /// handler, a preprocessor branch or a function lies between them (the call need not run when
  /// the condition holds; a fake's failure is not the test's check).
  std::optional<FailureBranch> failure_branch(TSNode n) const {
    TSNode from = n;
    for (TSNode p = tsnav::parent(n); !ts_node_is_null(p); from = p, p = tsnav::parent(p)) {
      const std::string_view pt = type(p);
      if (pt == "if_statement" || pt == "elif_clause") {
        TSNode cons = field(p, "consequence"), cond = field(p, "condition");
        if (ts_node_is_null(cons) || ts_node_is_null(cond) || !ts_node_eq(cons, from)) return std::nullopt;
        return FailureBranch{unparen(without_comments(text(cond))), true, line(p)};
      }
      if (pt == "else_clause") {
        TSNode owner = tsnav::parent(p);
        if (ts_node_is_null(owner) || type(owner) != "if_statement") return std::nullopt;
        if (TSNode up = tsnav::parent(owner); !ts_node_is_null(up) && type(up) == "else_clause") return std::nullopt;
        for (uint32_t i = 0; i < ts_node_named_child_count(owner); ++i)
          if (type(tsnav::named_child(owner, i)) == "elif_clause") return std::nullopt;
        TSNode cond = field(owner, "condition");
        if (ts_node_is_null(cond)) return std::nullopt;
        return FailureBranch{unparen(without_comments(text(cond))), false, line(owner)};
      }
      const std::string op = pt == "boolean_operator" || pt == "binary_expression" ? compact_condition(text(field(p, "operator"))) : std::string();
      if (op == "or" || op == "||" || op == "and" || op == "&&") {
        // `got == 4 or fail()` (the check: its left side), `got != 4 and fail()` (its negation), as
        // a statement of its own: inside a lambda, a ternary or a comprehension it need not run.
        TSNode left = field(p, "left"), right = field(p, "right");
        if (ts_node_is_null(left) || ts_node_is_null(right) || !ts_node_eq(right, from)) return std::nullopt;
        TSNode up = tsnav::parent(p);
        while (!ts_node_is_null(up) && type(up) == "parenthesized_expression") up = tsnav::parent(up);
        if (ts_node_is_null(up) || type(up) != "expression_statement") return std::nullopt;
        return FailureBranch{unparen(without_comments(text(left))), op == "and" || op == "&&", line(p)};
      }
      if (op == "<<" && ts_node_eq(field(p, "left"), from)) continue;
      if (pt == "block" || pt == "statement_block" || pt == "compound_statement" || pt == "expression_statement" ||
          pt == "parenthesized_expression" || pt == "await_expression" || pt == "with_statement" || pt == "return_statement" ||
          pt == "attributed_statement")
        continue;
      return std::nullopt;
    }
    return std::nullopt;
  }

  /// A failing statement that is no call (`raise AssertionError(...)`, `assert False, msg`) as the
  /// body of a failure branch: its checks added to `unit`. False when it is no such branch.
  template <typename Unit>
  bool push_failure_branch(TSNode n, Unit* unit, bool swallowed) const {
    auto branch = failure_branch(n);
    if (!branch) return false;
    Assertion a;
    a.line = branch->line;
    for (auto& c : failure_branch_checks(a, *branch)) {
      c.swallowed = swallowed;
      last_own_if_ = branch->negated;
      last_own_else_ = !branch->negated;
      annotate(n, c);
      unit->asserts.push_back(std::move(c));
    }
    last_own_if_ = last_own_else_ = false;
    return true;
  }

  /// A failing statement that is no call (`raise AssertionError`, `assert False`, a JS `throw`) at
  /// the end of a try that expects an error: its throw check (expected_throw) added to `unit`.
  /// False when it is none (`specific_only`: nor a broad one).
  template <typename Unit>
  bool push_expected_throw(TSNode n, Unit* unit, bool swallowed, bool specific_only = false) const {
    Assertion proto;
    proto.line = line(n);
    auto checks = expected_throw(n, proto);
    if (checks.empty() || (specific_only && checks.front().kind != Kind::throws_specific)) return false;
    for (auto& c : checks) {
      c.swallowed = swallowed;
      annotate(n, c);
      unit->asserts.push_back(std::move(c));
    }
    return true;
  }

  /// The checks of a failure branch (a negated condition `not x`/`!(x)` is the check `x`).
  std::vector<Assertion> failure_branch_checks(const Assertion& proto, const FailureBranch& b) const {
    if (!b.negated) return clause_checks(proto, b.condition, {"&&", " and "}, /*negated=*/false);
    // (A leading `not`/`!` negates the whole condition only when nothing joins other clauses to it
    // at the top level: `not got == 4 and got < 0` is `(not got == 4) and got < 0`; and `!` only over
    // parentheses: `!got === 4` is `(!got) === 4`.)
    // (Python's `not(got == 4)`, written without a space, is `not (got == 4)`.)
    const std::string c = trim(b.condition);
    const bool not_call = lang_ == Lang::python && starts_with(c, "not(") && wrapped_in_parens(trim(c.substr(3)));
    const bool whole = split_top(c, {"&&", "||", " and ", " or "}).size() == 1 &&
                       (starts_with(c, "not ") || not_call ||
                        (starts_with(c, "!") && !starts_with(c, "!=") && wrapped_in_parens(trim(c.substr(1)))));
    if (const std::string inner = !whole ? std::string() : not_call ? unparen(c.substr(3)) : negated(c); !inner.empty())
      return clause_checks(proto, inner, {"&&", " and "}, /*negated=*/false);
    return clause_checks(proto, c, {"||", " or "}, /*negated=*/true);
  }

  /// A condition's text without comments (`# ...`, `// ...`, `/* ... */`) outside string literals:
  /// a comment naming another clause, `or got is None`, is no clause.
  std::string without_comments(const std::string& c) const {
    std::string out;
    char quote = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
      const char ch = c[i];
      if (quote) {
        out += ch;
        if (ch == '\\' && i + 1 < c.size()) out += c[++i];
        else if (ch == quote) quote = 0;
        continue;
      }
      if (ch == '"' || ch == '\'' || ch == '`') {
        quote = ch;
        out += ch;
        continue;
      }
      const bool hash = lang_ == Lang::python && ch == '#';
      const bool line = lang_ != Lang::python && ch == '/' && i + 1 < c.size() && c[i + 1] == '/';
      if (hash || line) {
        while (i < c.size() && c[i] != '\n') ++i;
        out += ' ';
        continue;
      }
      if (lang_ != Lang::python && ch == '/' && i + 1 < c.size() && c[i + 1] == '*') {
        const auto end = c.find("*/", i + 2);
        i = end == std::string::npos ? c.size() : end + 1;
        out += ' ';
        continue;
      }
      out += ch;
    }
    return out;
  }

  /// The checks of an assertion call: usually one; a condition joined by && (or a Go failure
  /// branch joined by ||) is one check per clause, so weakening one clause is seen.
  std::vector<Assertion> classify_call(TSNode n) const {
    std::string name = callee(n);
    last_own_if_ = false;
    last_own_else_ = false;
    last_inverts_ = false;
    // (Where the check is in its unit: a held condition must be bound before it, held_condition.)
    check_at_ = ts_node_is_null(unit_node_) || ts_node_start_byte(n) < ts_node_start_byte(unit_node_)
                    ? std::string::npos
                    : ts_node_start_byte(n) - ts_node_start_byte(unit_node_);
    struct Unset {
      std::size_t& at;
      ~Unset() { at = std::string::npos; }
    } unset{check_at_};
    if (name.empty()) return {};
    const std::string t = text(n);
    // console.assert only logs: it checks nothing the runner sees.
    if (is_js(lang_) && starts_with(strip_spaces(t), "console.")) return {};
    // A check helper the file defines (`check(cond, msg)`, `self.expect_ok(x)`) is a check only
    // when its body checks or fails.
    if (local_helper_only_looks_like_check(n, name) || imported_non_check(n, name)) return {};
    Assertion a;
    a.line = line(n);
    if (auto thrown = assertj_throw(n, a)) return {*thrown};
    static const std::set<std::string, std::less<>> kEq = {
        "assertEqual", "assertEquals", "assertSame", "assertListEqual", "assertDictEqual", "assertSequenceEqual",
        "assertTupleEqual", "assertCountEqual", "assertMultiLineEqual", "assertArrayEquals", "assertIterableEquals",
        "EXPECT_EQ", "ASSERT_EQ", "EXPECT_STREQ", "ASSERT_STREQ", "EXPECT_DOUBLE_EQ", "ASSERT_DOUBLE_EQ",
        "EXPECT_FLOAT_EQ", "toBe", "toEqual", "toStrictEqual", "strictEqual", "deepStrictEqual", "equal",
        "deepEqual", "assert_eq", "isEqualTo", "Equal", "EqualValues", "Exactly", "assertContentEquals", "same",
        "toMatchObject", "toHaveBeenCalledWith", "toHaveBeenCalledTimes", "assertIs", "assertRegex",
        "toMatch", "eql", "eq"};
    static const std::set<std::string, std::less<>> kApprox = {"assertAlmostEqual", "EXPECT_NEAR", "ASSERT_NEAR",
                                                               "toBeCloseTo", "InDelta", "InEpsilon", "isCloseTo"};
    static const std::set<std::string, std::less<>> kRange = {
        "assertGreater", "assertGreaterEqual", "assertLess", "assertLessEqual", "EXPECT_GT", "EXPECT_GE", "EXPECT_LT",
        "EXPECT_LE", "ASSERT_GT", "ASSERT_GE", "ASSERT_LT", "ASSERT_LE", "toBeGreaterThan", "toBeGreaterThanOrEqual",
        "toBeLessThan", "toBeLessThanOrEqual", "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "isGreaterThan",
        "isLessThan", "assertNotEqual", "assertNotEquals", "EXPECT_NE", "ASSERT_NE", "notStrictEqual", "assert_ne",
        "notEqual", "notDeepStrictEqual", "toHaveLength", "hasSize", "lengthOf", "assertIsNot"};
    static const std::set<std::string, std::less<>> kType = {
        "assertIsNotNone", "assertIsNone", "assertIsInstance", "assertNotNull", "assertNull", "toBeDefined",
        "toBeTruthy", "toBeFalsy", "toBeInstanceOf", "toBeNull", "toBeUndefined", "NotNil", "Nil", "NotEmpty",
        "isNotNull", "isInstanceOf", "assertIn", "assertNotIn", "toContain", "Contains", "assertFalse",
        "toHaveBeenCalled", "notOk", "NoError", "Error", "pass", "NoErr"};
    static const std::set<std::string, std::less<>> kTruth = {"assertTrue", "EXPECT_TRUE", "ASSERT_TRUE", "assert",
                                                              "True", "assertThat", "check", "require", "EXPECT_FALSE",
                                                              "ASSERT_FALSE", "False", "debug_assert"};
    static const std::set<std::string, std::less<>> kThrows = {"assertRaises", "raises", "warns", "assertWarns", "assertWarnsRegex",
                                                               "assertThrows", "EXPECT_THROW",
                                                               "ASSERT_THROW", "toThrow", "throws", "rejects", "throwsAsync", "throw",
                                                               "toThrowError", "assertFailsWith", "Panics", "PanicsWithValue",
                                                               "assertRaisesRegex", "assertRaisesRegexp", "ErrorIs", "ErrorAs", "EqualError"};
    static const std::set<std::string, std::less<>> kBroadThrows = {"EXPECT_ANY_THROW", "ASSERT_ANY_THROW"};
    // testify's assert.Error(t, err) is an existence check; t.Error(...) is Go's failure branch.
    const bool go_failure = lang_ == Lang::go && kGoFail.count(name) && call_args(n).size() >= 1 &&
                            !starts_with(text(field(n, "function")), "assert.") && !starts_with(text(field(n, "function")), "require.");
    // `_ = fmt.Errorf(...)`, `errors.New(...)`: a package's function builds an error, it fails
    // nothing (log.Fatal exits the test binary: a failure).
    if (lang_ == Lang::go && kGoFail.count(name) && go_package_call(n) && !starts_with(text(field(n, "function")), "log.")) return {};
    // Go: a call is an assertion only when made on the test's testing.T (t.Fail()), by testify
    // (assert.Equal(t, ...), a := assert.New(t); a.Equal(...), a suite's s.Equal(...)); the same
    // names elsewhere are comparisons used as values (`if !slices.Equal(got, want)`, err.Error()).
    if (lang_ == Lang::go && !go_assertion_call(n)) return {};
    // quicktest: c.Assert(got, qt.Equals, 4), qt.Check(t, got, qt.DeepEquals, want): the checker says.
    if (lang_ == Lang::go && (name == "Assert" || name == "Check")) {
      const auto args = call_args(n);
      std::string checker;
      for (const auto& x : args)
        if (starts_with(x, "qt.") || starts_with(x, "quicktest.")) checker = x;
      if (checker.empty()) return {};
      const std::string c = checker.substr(checker.find('.') + 1);
      a.kind = starts_with(c, "Not(") ? Kind::range
               : (starts_with(c, "Equals") || starts_with(c, "DeepEquals") || starts_with(c, "CmpEquals") ||
                  starts_with(c, "ContentEquals") || starts_with(c, "JSONEquals"))
                   ? Kind::eq
               : starts_with(c, "HasLen") ? Kind::range
                                          : Kind::type;
      bool tautology = false;
      for (const auto& x : args)
        if (x != checker && !testers_.count(x)) collect_operands(x, a.operands, tautology, &a.literals, &a.raw_exprs);
      a.trivial = a.operands.empty();
      a.tautology = tautology;
      return {a};
    }
    // Python, JS/TS and C/C++: a call that fails the test (pytest.fail, self.fail, assert.fail,
    // t.fail, expect.fail, ADD_FAILURE, FAIL, GTEST_FAIL) as the body of an `if` is a check of the
    // condition's negation, as Go's failure branch is (review 33: such branches were not read at
    // all, so deleting or narrowing one, `and got < 0`, went unseen). One that ends a `try` whose
    // handler catches is an expectation that the code before it throws (expected_throw); any other
    // checks nothing about the code.
    if (lang_ != Lang::go && failure_call(n, name)) {
      auto branch = failure_branch(n);
      if (!branch) return expected_throw(n, a);
      a.line = branch->line;
      last_own_if_ = branch->negated;  // (as Go's: the branch's own `if` is the check)
      last_own_else_ = !branch->negated;
      return failure_branch_checks(a, *branch);
    }
    if (go_failure || (lang_ == Lang::go && kGoFail.count(name) && call_args(n).empty())) {
      last_own_if_ = true;  // the branch's own `if` is the check, not a condition it runs under
      // if got != want { t.Errorf(...) }: the condition tells what was checked.
      for (TSNode child = n, p = tsnav::parent(n); !ts_node_is_null(p); child = p, p = tsnav::parent(p)) {
        // (A tagless switch's case, `switch { case err != nil: t.Fatal(err); case got != 42:
        // t.Errorf(...) }`: a failure branch of its conditions, as an `else if` chain is; `case a,
        // b:` is either.)
        // (In its `default:`, `switch { case got == 42: default: t.Errorf(...) }`: the cases' conditions
        // are what is checked.)
        if (type(p) == "expression_case" || type(p) == "default_case") {
          TSNode sw = tsnav::parent(p);
          if (ts_node_is_null(sw) || type(sw) != "expression_switch_statement" || !ts_node_is_null(field(sw, "value"))) continue;
          const auto conditions = [&](TSNode c) {
            std::string cond;
            if (TSNode values = field(c, "value"); !ts_node_is_null(values))
              for (const auto& v : split_top(text(values), {","})) cond += (cond.empty() ? "(" : " || (") + trim(v) + ")";
            return cond;
          };
          if (type(p) == "expression_case") {
            // (Reached only when no case above holds: a case above that does not fail, `case got > 0:`
            // or `case true:` first, narrows it: `!(got > 0) && got != 42` fails on less.)
            std::string shadow;
            for (TSNode c = tsnav::prev_named_sibling(p); !ts_node_is_null(c); c = tsnav::prev_named_sibling(c))
              if (type(c) == "expression_case" && !go_case_fails(c))
                if (const std::string cond = conditions(c); !cond.empty()) {
                  // (`case true:` above: never reached.)
                  if (unparen(cond) == "true") return {};
                  shadow += "!(" + cond + ") && ";
                }
            if (const std::string cond = conditions(p); !cond.empty())
              return shadow.empty() ? clause_checks(a, cond, {"||"}, /*negated=*/true)
                                    : clause_checks(a, shadow + "(" + cond + ")", {"||"}, /*negated=*/true);
            continue;
          }
          std::string any;
          for (uint32_t i = 0; i < ts_node_named_child_count(sw); ++i)
            if (TSNode c = tsnav::named_child(sw, i); type(c) == "expression_case")
              if (const std::string cond = conditions(c); !cond.empty()) any += (any.empty() ? "" : " || ") + cond;
          if (!any.empty()) return clause_checks(a, any, {"&&"}, /*negated=*/false);
          continue;
        }
        if (type(p) == "if_statement") {
          TSNode cond = field(p, "condition");
          const std::string ct = ts_node_is_null(cond) ? text(p).substr(0, kConditionChars) : text(cond);
          // (In the `else`, `if got == 4 {} else { t.Fatal() }`: it fails when the condition does
          // not hold, so the condition is what is checked.)
          // (Not when the `if` branch returns: the checks after it are skipped on success.)
          if (TSNode alt = field(p, "alternative"), cons = field(p, "consequence");
              !ts_node_is_null(alt) && ts_node_eq(alt, child) && !(ts_node_is_null(cons) ? false : contains(text(cons), "return")))
            return clause_checks(a, ct, {"&&"}, /*negated=*/false);
          return clause_checks(a, ct, {"||"}, /*negated=*/true);
        }
        if (type(p) == "function_declaration" || type(p) == "func_literal") break;
      }
      a.kind = Kind::other;  // an unconditional failure
      a.operands.insert("<fail>");
      return {a};
    }
    // A condition's truth or falsity as the libraries spell it beyond `assert c`, `t.ok(c)` and the
    // truth macros (chai's `assert.isTrue(c)`, `expect(c).to.be.false`, tape's `t.notOk(c)`, jest's
    // `expect(c).toBeFalsy()`, `.not.toBe(true)`, `EXPECT_NE(c, true)`, `assertNotEqual(c, True)`,
    // testify's `NotEqual(t, true, c)`): read as `assert c` / the failure branch `if c { fail }`,
    // so that the check is scored by what the condition compares (they were read as no check, a
    // type check or an inequality: honest rewrites of `t.equal(got, 4)` were rejected).
    if (auto tf = truth_or_falsity(n, name, t)) {
      Assertion proto;
      proto.line = a.line;
      if (!tf->type_only) return failure_branch_checks(proto, FailureBranch{tf->condition, tf->falsity, a.line});
      // (Of a plain value, `expect(x).to.be.null`, `assert.isTrue(done)`: what it is, as toBeNull().)
      a.kind = Kind::type;
      bool tautology = false;
      collect_operands(tf->condition, a.operands, tautology, &a.literals, &a.raw_exprs);
      a.trivial = a.operands.empty();
      a.tautology = tautology;
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
    // Matcher assertions: EXPECT_THAT(x, ElementsAre(2, 4)), assertThat(x, is(5)), assert_that(x,
    // equal_to(5)); the matcher says what is checked (Hamcrest's optional reason comes first).
    static const std::set<std::string, std::less<>> kMatcherAsserts = {"EXPECT_THAT", "ASSERT_THAT", "assertThat",
                                                                      "assert_that", "expectThat"};
    if (kMatcherAsserts.count(name)) {
      // Only the libraries' own: a file that defines assert_that/assertThat itself (or takes it
      // from the project) may make it do anything; its body is judged as a helper's.
      const bool macro = name == "EXPECT_THAT" || name == "ASSERT_THAT";
      if (macro ? names_.defined.count(name) > 0 : !names_.library_name(callee_text(n)))
        return {};
      const auto args = call_args(n);
      // Hamcrest's assertThat(reason, boolean): a truth check of the expression.
      if (args.size() == 2 && !macro && (args[0].front() == '"' || args[0].front() == '\'') &&
          !known_matcher(matcher_call(args[1]).first)) {
        a.kind = comparison_kind(args[1]);
        bool tautology = false;
        collect_operands(args[1], a.operands, tautology, &a.literals, &a.raw_exprs);
        a.trivial = a.operands.empty();
        a.tautology = tautology;
        truth_analysis(args[1], a, false);
        return {a};
      }
      if (args.size() >= 2) {
        bool tautology = false;
        const std::string& actual = args[args.size() - 2];
        collect_operands(actual, a.operands, tautology, &a.literals, &a.raw_exprs);
        const MatcherKind m = matcher_kind(args.back(), a.operands, names_);
        a.kind = m.kind;
        a.tolerance = m.tolerance;
        // EXPECT_THAT(add(2, 2), Eq(add(2, 2))): compared with itself.
        const auto [mname, margs] = matcher_call(args.back());
        const bool self = !is_literal(actual) && (strip_spaces(args.back()) == strip_spaces(actual) ||
                                                  std::any_of(margs.begin(), margs.end(), [&](const std::string& x) {
                                                    return strip_spaces(x) == strip_spaces(actual);
                                                  }));
        a.tautology = tautology || m.tautology || self;
        a.trivial = a.operands.empty();
        // gmock's `Throws<E>()` / `ThrowsMessage<E>(...)` over a callable, `EXPECT_THAT([&] { parse(s); },
        // Throws<std::invalid_argument>())`: EXPECT_THROW's check, over what the callable computes.
        if (std::string mt = strip_spaces(args.back()); macro) {
          for (const std::string_view ns : {"::testing::", "testing::"})
            if (starts_with(mt, ns)) mt = mt.substr(ns.size());
          if (starts_with(mt, "Throws<") || starts_with(mt, "ThrowsMessage<")) {
            std::string ty = mt.substr(mt.find('<') + 1, mt.find('>') == std::string::npos ? 0 : mt.find('>') - mt.find('<') - 1);
            if (starts_with(ty, "std::")) ty = ty.substr(5);
            a.kind = ty.empty() || ty == "exception" || ty == "logic_error" || ty == "runtime_error" ? Kind::throws_broad : Kind::throws_specific;
            std::string code = actual;
            if (const auto open = code.find('{'); open != std::string::npos && ends_with(code, "}")) code = code.substr(open + 1, code.size() - open - 2);
            a.operands.clear();
            bool taut = false;
            for (const auto& stmt : split_top(code, {";"}))
              if (!trim(stmt).empty()) collect_operands(trim(stmt), a.operands, taut, &a.literals, &a.raw_exprs);
            a.trivial = a.operands.empty();
            a.tautology = false;
          }
        }
        return {a};
      }
    }
    // testify's formatted forms check as their plain ones (`assert.Equalf(t, want, got, "msg %d", x)`).
    if (lang_ == Lang::go && name.size() > 2 && name.back() == 'f') {
      const std::string plain = name.substr(0, name.size() - 1);
      if (kEq.count(plain) || kApprox.count(plain) || kRange.count(plain) || kType.count(plain) || kTruth.count(plain) || kThrows.count(plain))
        name = plain;
    }
    // JUnit 4's ExpectedException rule, `thrown.expect(JSONException.class)` (Kotlin `::class.java`):
    // the expectation that the statements after it throw, read as assertThrows over them;
    // `thrown.expectMessage("bad")` a check of the message (contained in it).
    if ((lang_ == Lang::java || lang_ == Lang::kotlin) && (name == "expect" || name == "expectMessage") && !callee_text(n).empty() &&
        callee_text(n) != name) {
      const auto args = raw_call_args(n);
      static const rx::regex type_arg(R"(^([\w.]+)\s*(?:\.|::)\s*class(?:\s*\.\s*java)?$)");
      rx::smatch tm;
      const std::string arg0 = args.size() == 1 ? trim(args[0]) : std::string();
      if (name == "expect" && rx::regex_match(arg0, tm, type_arg)) {
        std::string ty = tm[1].str();
        ty = ty.substr(ty.rfind('.') == std::string::npos ? 0 : ty.rfind('.') + 1);
        a.kind = broad_exception(ty) ? Kind::throws_broad : Kind::throws_specific;
        TSNode st = n;
        while (!ts_node_is_null(tsnav::parent(st)) && type(tsnav::parent(st)) == "expression_statement") st = tsnav::parent(st);
        bool tautology = false;
        for (TSNode x = tsnav::next_named_sibling(st); !ts_node_is_null(x); x = tsnav::next_named_sibling(x)) {
          if (type(x) == "comment" || type(x) == "line_comment" || type(x) == "block_comment") continue;
          if (throws_itself(x)) a.tautology = true;
          std::string e = trim(text(x));
          if (ends_with(e, ";")) e.pop_back();
          if (const auto parts = split_top(e, {"==", "!=", "<=", ">=", "=>", "="}); parts.size() > 1 && top_level_assignment(e))
            e = trim(std::string_view(e).substr(e.find('=', parts[0].size()) + 1));
          collect_operands(e, a.operands, tautology, &a.literals, &a.raw_exprs);
        }
        a.trivial = a.operands.empty();
        return {a};
      }
      if (name == "expectMessage" && args.size() == 1) {
        const auto v = plain_string_literal(arg0);
        a.kind = Kind::type;
        a.tautology = v && v->empty();
        a.operands.insert("<thrown>.message");
        a.literals.insert(arg0);
        return {a};
      }
    }
    // chai's containment and pattern checks, `expect(s).to.include('x')`, `.to.contain(...)`,
    // `.to.have.members([...])`, `.to.match(/x/)`, `s.should.include(...)`, `assert.include(s, 'x')`:
    // checks only on a chai chain (`include` names other things elsewhere).
    if (is_js(lang_)) {
      static const std::set<std::string, std::less<>> kChai = {"include", "contain", "includes", "contains", "members", "keys",
                                                               "property", "string", "oneOf", "match", "deepInclude", "nestedInclude"};
      const std::string ct = callee_text(n);
      if (kChai.count(name) && (starts_with(ct, "expect(") || contains(ct, ".to.") || contains(ct, ".should.") ||
                                ct == "assert." + name || starts_with(ct, "chai.assert."))) {
        // (A search in the value, as an inclusion is: `.to.match(/error/)` ~ `.to.include('error')`.)
        a.kind = Kind::type;
        if (contains(strip_spaces(t), ".not.")) a.kind = Kind::range;
        call_operands(n, a);
        return {a};
      }
    }
    // (ava's `t.is(a, b)`: Object.is equality; only on the test's `t`, `is` names other things.)
    const bool ava_is = is_js(lang_) && name == "is" && callee_text(n) == "t.is";
    // (node:assert's `assert.match(s, /re/)` / `doesNotMatch`, tap's `t.match`, ava's `t.regex` /
    // `t.notRegex`: a pattern check, as jest's toMatch is; `match` names other things elsewhere.)
    static const rx::regex js_match(R"(^(?:assert(?:\.strict)?|t|tt|st)\.(match|doesNotMatch|regex|notRegex|notMatch)$)");
    rx::smatch jm;
    const std::string ct = is_js(lang_) ? callee_text(n) : std::string();
    const bool js_pattern = is_js(lang_) && rx::regex_match(ct, jm, js_match);
    if (js_pattern && call_args(n).size() >= 2) {
      a.kind = jm[1].str() == "match" || jm[1].str() == "regex" ? Kind::eq : Kind::range;
      call_operands(n, a);
      return {a};
    }
    // pytest's `excinfo.match(r"bad")` on the error a `with pytest.raises(E) as excinfo` caught: a
    // search in its message, as `match=` is.
    if (lang_ == Lang::python && name == "match") {
      static const rx::regex receiver(R"(^(\w+)\.match$)");
      rx::smatch rm;
      const std::string c = callee_text(n);
      const auto raw = raw_call_args(n);
      if (rx::regex_match(c, rm, receiver) && raw.size() == 1 &&
          rx::regex_search(s_.src.substr(0, std::size_t{1} << 20),
                            detail::cached_regex(R"(\braises\s*\([^\n]*\)\s+as\s+)" + rm[1].str() + "\\b"))) {
        std::string lit = trim(raw[0]);
        const bool raw_string = !lit.empty() && (lit.front() == 'r' || lit.front() == 'R');
        if (raw_string) lit = lit.substr(1);
        const auto decoded = raw_string && lit.size() >= 2 ? std::optional<std::string>(lit.substr(1, lit.size() - 2)) : plain_string_literal(lit);
        a.kind = Kind::eq;
        a.tautology = decoded && universal_pattern(*decoded, false, false);
        a.operands.insert("<thrown>.message");
        a.literals.insert(lit);
        return {a};
      }
    }
    bool throws_by_itself = false;  // (a throw expectation whose code throws by itself)
    if (kEq.count(name) || ava_is) {
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
    } else if (auto falsy = falsy_condition(n, name)) {
      // `EXPECT_FALSE(c)`, `self.assertFalse(c)`, testify's `assert.False(t, c)`: the failure
      // branch `if c { fail }` (review 41: `EXPECT_FALSE(got != 4)` and `bad = got != 4` ...
      // `EXPECT_FALSE(bad)` were read as no comparison; `EXPECT_FALSE(got == 0)` as an equality).
      Assertion proto;
      proto.line = a.line;
      return failure_branch_checks(proto, FailureBranch{*falsy, true, a.line});
    } else if (kType.count(name)) {
      a.kind = Kind::type;
    } else if (kBroadThrows.count(name)) {
      a.kind = Kind::throws_broad;
    } else if (kThrows.count(name) &&
               // (chai's `expect(fn).to.throw(E)`, `fn.should.throw(E)`; a generator's `.throw(err)` is no check.)
               (name != "throw" || (is_js(lang_) && (starts_with(callee_text(n), "expect(") || contains(callee_text(n), ".should.") ||
                                                     contains(callee_text(n), ".to."))))) {
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
      // (Kotlin's `assertFailsWith<IllegalArgumentException> { ... }`: the type argument.)
      if (name == "assertFailsWith")
        if (const auto lt = t.find('<'), gt = t.find('>'); lt != std::string::npos && gt != std::string::npos && lt < gt &&
                                                           lt < t.find_first_of("({"))
          expected_type = trim(t.substr(lt + 1, gt - lt - 1));
      for (std::string_view suffix : {".class", "::class"})
        if (ends_with(expected_type, suffix)) expected_type.resize(expected_type.size() - suffix.size());
      a.kind = broad_exception(expected_type) ? Kind::throws_broad : Kind::throws_specific;
      // (JavaScript: an expected message or pattern any error matches, `toThrow('')`, `toThrow(/.*/)`,
      // `.to.throw(Error)`, is none; chai's and jest's `.not` expect no throw: that checks nothing
      // specific.)
      if (is_js(lang_)) {
        if ((any_error_value(expected_type) && expected_type != "true") || (name == "throw" && contains(strip_spaces(t), ".not.")))
          a.kind = Kind::throws_broad;
        if (contains(strip_spaces(t), ".not.") && (name == "throw" || name == "toThrow" || name == "toThrowError")) a.kind = Kind::type;
      }
      // Expecting an assertion failure inverts the test: the checks inside pass when they fail.
      // The expectation checks nothing about the code; code it wraps is visited as inverted.
      const bool expects_failure = contains(expected_type, "AssertionError") || contains(expected_type, "AssertionFailedError") ||
                                   contains(expected_type, "ComparisonFailure") || contains(expected_type, "AssertionFailure");
      last_inverts_ = expects_failure || a.kind == Kind::throws_broad;
      if (expects_failure) {
        call_operands(n, a);
        a.kind = Kind::other;
        a.tautology = true;
        std::vector<Assertion> out{a};
        // assertRaises(AssertionError, self.assertEqual, x, 4): the wrapped assertion, inverted.
        if (args.size() >= 2 && contains(args[1], "assert")) {
          Assertion inner;
          inner.kind = Kind::eq;
          inner.line = a.line;
          inner.inverted = true;
          bool taut = false;
          for (std::size_t i = 2; i < args.size(); ++i) collect_operands(args[i], inner.operands, taut);
          inner.trivial = inner.operands.empty();
          out.push_back(std::move(inner));
        }
        return out;
      }
      // A context manager, `with pytest.raises(ValueError): parse("x=")`, `with
      // self.assertRaises(E):`: what its body computes is what is expected to throw.
      // (A callable that throws by itself, `assertThrows(E.class, () -> { parse(s); throw new E(); })`,
      // `assert.throws(() => { throw {code: 'X'} }, ...)`: the expectation holds whatever the code does.)
      // (Also jest's `expect(() => JSON.parse("{")).toThrow()`: the callable is expect's; and gtest's
      // `EXPECT_THROW(std::stoi("x"), std::invalid_argument)`: the statement is the first argument.)
      std::vector<TSNode> lists;
      if (TSNode list = args_node(n); !ts_node_is_null(list)) lists.push_back(list);
      if (is_js(lang_))
        for (TSNode f = field(n, "function"); !ts_node_is_null(f);) {
          const std::string_view ft = type(f);
          if (ft == "member_expression") {
            f = field(f, "object");
          } else if (ft == "call_expression") {
            if (callee(f) == "expect")
              if (TSNode el = args_node(f); !ts_node_is_null(el)) lists.push_back(el);
            f = field(f, "function");
          } else {
            break;
          }
        }
      // (Kotlin's trailing lambda, `assertFailsWith<E> { "x".toInt() }`.)
      if (lang_ == Lang::kotlin) {
        const std::function<void(TSNode, int)> trailing = [&](TSNode x, int depth) {
          if (depth > 3 || throws_by_itself) return;
          for (uint32_t i = 0; i < ts_node_named_child_count(x); ++i) {
            TSNode c = tsnav::named_child(x, i);
            if (type(c) == "lambda_literal") {
              for (uint32_t j = 0; j < ts_node_named_child_count(c); ++j)
                if (throws_itself(tsnav::named_child(c, j))) throws_by_itself = true;
            } else if (type(c) == "call_suffix" || type(c) == "annotated_lambda") {
              trailing(c, depth + 1);
            }
          }
        };
        trailing(n, 0);
      }
      for (TSNode list : lists)
        for (uint32_t i = 0; i < ts_node_named_child_count(list); ++i) {
          TSNode f = tsnav::named_child(list, i);
          const std::string_view ft = type(f);
          if ((ft == "arrow_function" || ft == "lambda_expression" || ft == "lambda" || ft == "function_expression" || ft == "lambda_literal" ||
               ft == "func_literal") &&
              !ts_node_is_null(field(f, "body")) && throws_itself(field(f, "body")))
            throws_by_itself = true;
          if (lang_ == Lang::cpp && i == 0 && throws_itself(f)) throws_by_itself = true;
        }
      if (lang_ == Lang::python && with_body_operands(n, a)) throws_by_itself = true;
      // pytest's `raises(E, match=P)`, unittest's `assertRaisesRegex(E, P, ...)`: besides the
      // throw, a check of the error's message by the pattern P searched in it (one that matches
      // every message, `match=""`, `match=".*"`, checks what it is at most).
      if (lang_ == Lang::python) {
        // (The pattern as written: `match="bad"`, `match=r"bad.*"`, `match=re.escape(msg)`, `match=MSG`,
        // an f-string; unittest's second argument or `expected_regex=`.)
        std::string prefix, lit;
        std::string value;
        {
          const std::string whole = t.substr(0, kRegexLineChars);
          static const rx::regex kw(R"(\b(?:match|expected_regexp?)\s*=\s*)");
          rx::smatch m;
          if (rx::regex_search(whole, m, kw)) {
            // (Up to the `,` or `)` that ends the argument, outside quotes and brackets.)
            std::size_t i = static_cast<std::size_t>(m.position() + m.length()), depth = 0;
            char quote = 0;
            const std::size_t from = i;
            for (; i < whole.size(); ++i) {
              const char ch = whole[i];
              if (quote) {
                if (ch == '\\') ++i;
                else if (ch == quote) quote = 0;
              } else if (ch == '"' || ch == '\'') {
                quote = ch;
              } else if (ch == '(' || ch == '[' || ch == '{') {
                ++depth;
              } else if ((ch == ')' || ch == ']' || ch == '}') && depth > 0) {
                --depth;
              } else if ((ch == ',' || ch == ')') && depth == 0) {
                break;
              }
            }
            value = trim(whole.substr(from, i - from));
          } else if (starts_with(name, "assertRaisesRegex")) {
            const auto raw = raw_call_args(n);
            if (raw.size() >= 2) value = trim(raw[1]);
          }
        }
        // (Read through what the module says of it: a name bound once at its top to a literal, `ANY =
        // '.*'`; an f-string without fields; literals joined with `+`. `match=None` matches nothing:
        // no message check.)
        if (value == "None") value.clear();
        for (int hop = 0; hop < 3 && rx::regex_match(value, detail::cached_regex(R"(^[A-Za-z_]\w*$)")); ++hop) {
          const rx::regex bind = detail::cached_regex("(?:^|\\n)" + value + R"([ \t]*=[ \t]*([^\n#]+))");
          const std::string src = s_.src.substr(0, std::size_t{1} << 20);
          rx::smatch bm;
          if (!rx::regex_search(src, bm, bind) || std::distance(rx::sregex_iterator(src.begin(), src.end(), bind), rx::sregex_iterator()) != 1) break;
          value = trim(bm[1].str());
        }
        if (rx::smatch fm; rx::regex_match(value, fm, detail::cached_regex(R"(^[fF]([rR]?)("[^"{}]*"|'[^'{}]*')$)"))) value = fm[1].str() + fm[2].str();
        if (const auto parts = split_top(value, {"+"}); parts.size() > 1) {
          std::string joined;
          bool all = true;
          for (const auto& part : parts) {
            const auto v = plain_string_literal(trim(part));
            if (!v) {
              all = false;
              break;
            }
            joined += *v;
          }
          if (all && joined.find_first_of("'\\") == std::string::npos) value = "'" + joined + "'";
        }
        rx::smatch lm;
        if (rx::regex_match(value, lm, detail::cached_regex(R"(^([rRbBuU]{0,2})("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')$)"))) {
          prefix = lm[1].str();
          lit = lm[2].str();
        } else if (!value.empty()) {
          lit = value;  // (an expression: its value is not read, so it is no tautology)
          prefix = "?";
        }
        if (!lit.empty()) {
          const bool raw_string = contains(prefix, "r") || contains(prefix, "R");
          const auto decoded = prefix == "?" ? std::nullopt
                               : raw_string  ? std::optional<std::string>(lit.substr(1, lit.size() - 2))
                                             : plain_string_literal(lit);
          call_operands(n, a);
          if (throws_by_itself) a.tautology = true;
          // (A search in the message, read as exact as a message property is in JavaScript, and as
          // `assert "bad" in str(excinfo.value)` is; one that matches every message checks nothing.)
          Assertion msg;
          msg.kind = Kind::eq;
          // (Any message an error has is a line of text, not empty: `.+` and `.` match every one.)
          msg.tautology = decoded && universal_pattern("(?:" + *decoded + ")|^$", false, true);
          msg.line = a.line;
          msg.operands.insert("<thrown>.message");
          msg.literals.insert(lit);
          return {a, msg};
        }
      }
      // Node's and ava's expectation object, `assert.throws(f, {code: 'EBADLIT', message: /bad/})`,
      // `t.throwsAsync(p, {instanceOf: RangeError})`: a check of the error per property (as a
      // handler's `assert.strictEqual(e.code, 'EBADLIT')` is), besides the throw.
      if (is_js(lang_) && (name == "throws" || name == "rejects" || name == "throwsAsync") && args.size() >= 2) {
        const auto raw = raw_call_args(n);
        const std::string expected = raw.size() >= 2 ? trim(raw[1]) : std::string();
        if (expected.size() >= 2 && expected.front() == '{' && matching_close(expected, 0) == expected.size() - 1) {
          call_operands(n, a);
          if (throws_by_itself) a.tautology = true;
          std::vector<Assertion> out{a};
          for (const auto& item : split_top(std::string_view(expected).substr(1, expected.size() - 2), {","})) {
            // (`code: 'EBADLIT'`, `'code': ...`, the shorthand `{ code }`.)
            auto kv = split_top(item, {":"});
            if (kv.size() == 1 && is_plain_name(trim(kv[0]))) kv.push_back(trim(kv[0]));
            std::string key = kv.empty() ? std::string() : trim(kv[0]);
            if (key.size() >= 2 && (key.front() == '\'' || key.front() == '"') && key.back() == key.front()) key = key.substr(1, key.size() - 2);
            if (kv.size() != 2 || !is_plain_name(key)) continue;
            const std::string value = trim(kv[1]);
            // (A value any error has, `/.*/`, `Error`, `expect.any(String)`, `() => true`, checks what it is at most.)
            Assertion p;
            p.kind = any_error_value(value) ? Kind::type : Kind::eq;
            p.line = a.line;
            p.operands.insert("<thrown>." + key);
            p.literals.insert(value);
            out.push_back(std::move(p));
          }
          return out;
        }
        // A validation function, `assert.throws(f, (err) => { assert.strictEqual(err.code, 'EBADLIT');
        // return true; })`, `(err) => err.code === 'EBADLIT'`: the same per-property checks, read from
        // its comparisons of the error's properties (its `instanceof` tests the type).
        static const rx::regex validator(R"(^(?:async\s*)?(?:\(\s*([A-Za-z_$][\w$]*)\s*(?::[^)]*)?\)|([A-Za-z_$][\w$]*)|function\s*[\w$]*\s*\(\s*([A-Za-z_$][\w$]*)[^)]*\))\s*(?:=>)?\s*)");
        rx::smatch vm;
        if (!any_error_value(expected) && rx::regex_search(expected, vm, validator) && vm.length() > 0 &&
            (contains(expected, "=>") || starts_with(expected, "function"))) {
          const std::string e = vm[1].matched ? vm[1].str() : vm[2].matched ? vm[2].str() : vm[3].str();
          const std::string body = expected.substr(static_cast<std::size_t>(vm.length()));
          std::vector<Assertion> props;
          const std::string lit = R"(('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`[^`$]*`|/(?:\\.|[^/\\\n])+/\w*|-?\d[\w.]*|true|false|null|undefined|[A-Z][\w$]*))";
          const rx::regex compared = detail::cached_regex("\\b" + e + R"(\.([A-Za-z_$][\w$]*)\s*===?\s*)" + lit);
          const rx::regex asserted = detail::cached_regex(R"(\b(?:strictEqual|equal|deepStrictEqual|deepEqual|is|toBe|toEqual|match)\s*\(\s*)" + e +
                                                          R"(\.([A-Za-z_$][\w$]*)\s*,\s*)" + lit);
          for (const rx::regex* re : {&compared, &asserted})
            for (rx::sregex_iterator it(body.begin(), body.end(), *re), end; it != end; ++it) {
              Assertion p;
              p.kind = any_error_value((*it)[2].str()) ? Kind::type : Kind::eq;
              p.line = a.line;
              p.operands.insert("<thrown>." + (*it)[1].str());
              p.literals.insert((*it)[2].str());
              props.push_back(std::move(p));
            }
          // (A predicate with an alternative, `err.code === 'X' || true`, accepts more than its comparison.)
          if (contains(body, "||") && !rx::regex_search(body, detail::cached_regex(R"(\b(?:assert|expect)\b)"))) props.clear();
          if (!props.empty()) {
            call_operands(n, a);
            if (throws_by_itself) a.tautology = true;
            std::vector<Assertion> out{a};
            out.insert(out.end(), props.begin(), props.end());
            return out;
          }
        }
      }
    } else if (kTruth.count(name) || starts_with(name, "assert") || (js_ok_name(name) && is_js(lang_))) {
      auto args = call_args(n);
      // (The condition as written, spaces kept: the arguments lost them, and with them ` and `;
      // testify's `assert.True(t, a && b)` after its `t`. Python's `all([a, b])` is `a and b`.)
      {
        const auto raw = raw_call_args(n);
        const std::size_t at = lang_ == Lang::go && raw.size() >= 2 && (name == "True" || name == "False") ? 1 : 0;
        const std::string cond = at < raw.size() ? trim(raw[at]) : std::string();
        if (!cond.empty() && !contains(t, ".not.") &&
            (contains(cond, "&&") || contains(cond, " and ") || (lang_ == Lang::python && starts_with(cond, "all("))))
          return clause_checks(a, cond, {"&&", " and "}, false);
      }
      // (A held conjunction, `const pass = got === 4 && add(3, 3) === 6` ... `assert.ok(pass)`,
      // `EXPECT_TRUE(ok)`, `self.assertTrue(ok)`: one check per clause, as clause_checks reads it.)
      if (args.size() >= 1 && !contains(t, ".not.") && lang_ != Lang::go) {
        const std::string held = held_condition(args[0]);
        if (held != args[0] && !has_ternary(held) && (contains(held, "&&") || contains(held, " and ")) &&
            split_top(js_ternary_marks(held), {"||", " or "}).size() == 1 && split_top(js_ternary_marks(held), {"&&", " and "}).size() >= 2)
          return clause_checks(a, args[0], {"&&", " and "}, false);
      }
      const bool ok = js_ok_name(name) && is_js(lang_);
      // (testify's `assert.True(t, cond)`: the condition follows the test's `t`.)
      const std::size_t cond_at = lang_ == Lang::go && args.size() >= 2 && (name == "True" || name == "False") ? 1 : 0;
      // (A condition compared with a boolean literal, `self.assertTrue((got == 9) == False)`,
      // `assert.ok(ok === true)`, `EXPECT_TRUE(ok == false)`: the truth of the condition, negated
      // for `false`, as clause_checks reads it; otherwise the argument as the call has it.)
      std::string truth_arg;
      if (!args.empty()) {
        const auto raw = raw_call_args(n);
        if (cond_at < raw.size()) truth_arg = truth_of(raw[cond_at]);
        if (truth_arg.empty()) truth_arg = cond_at < args.size() ? args[cond_at] : args[0];
        // (`assert.ok(!(got === 4 ? false : true))`: the ternary's condition; only truthiness counts.)
        truth_arg = literal_ternary(truth_arg, /*strict=*/false);
      }
      // (A condition held in a local, `assert.ok(pass)`, `self.assertTrue(ok)`: scored as the condition.)
      const std::string held = args.empty() ? std::string() : held_condition(truth_arg);
      const bool expanded = !held.empty() && held != truth_arg;
      const bool rewritten = !args.empty() && truth_arg != (cond_at < args.size() ? args[cond_at] : args[0]);
      // (The truth macros and methods by their condition alone, as written: `EXPECT_TRUE(!(got ==
      // 0))` is an inequality, although the call's text holds an `==`.)
      static const std::set<std::string, std::less<>> kConditionOnly = {"assertTrue", "EXPECT_TRUE", "ASSERT_TRUE", "True",
                                                                        "assert", "debug_assert"};
      const auto raw_cond = [&]() {
        const auto raw = raw_call_args(n);
        return cond_at < raw.size() ? trim(raw[cond_at]) : args[std::min(cond_at, args.size() - 1)];
      };
      a.kind = ok                                              ? (args.empty() ? Kind::type : ok_kind(expanded ? held : truth_arg))
               : expanded                                      ? comparison_kind(held)
               : rewritten                                     ? comparison_kind(truth_arg)
               : !args.empty() && kConditionOnly.count(name) ? comparison_kind(raw_cond())
                                                               : comparison_kind(t);
      // numpy's assert_equal(x, 4), pandas' assert_frame_equal(a, b), assert_allclose(x, y, rtol=...):
      // what the name says, when it compares two values.
      if (const auto named = named_kind(name);
          named && args.size() >= 2 && !kTruth.count(name) && names_.library_name(callee_text(n))) {
        a.kind = *named;
        if (a.kind == Kind::approx) {
          const double rtol = number_after(t, "rtol"), atol = number_after(t, "atol"), decimal = number_after(t, "decimal");
          a.tolerance = std::max({rtol, atol, decimal >= 0 ? 1.5 * std::pow(10.0, -decimal) : -1.0});
          if (a.tolerance < 0) a.tolerance = kAlmostEqualDefault;
        }
      }
      call_operands(n, a);
      // (Read with its spaces: `a or b` is two clauses; the arguments above lost them.)
      if (!args.empty() && (kTruth.count(name) || ok || name == "assertTrue")) {
        const auto raw = raw_call_args(n);
        const std::string cond = expanded ? held : rewritten ? truth_arg : cond_at < raw.size() ? raw[cond_at] : args[0];
        if (cond_at == 1) a.kind = comparison_kind(cond);  // (truth_analysis caps its alternatives)
        truth_analysis(cond, a, lang_ == Lang::python);
      }
      return {a};
    } else {
      return {};
    }
    call_operands(n, a);
    if (throws_by_itself) a.tautology = true;
    // An equality with a boolean literal (`expect(sumsEqual(x, 4)).toBe(true)`, assertEquals(true,
    // ok(x))) checks the truth of the other side: as strong as that expression's own comparison.
    if (a.kind == Kind::eq && a.operands.size() == 1) {
      const auto args = call_args(n);
      bool boolean = false;
      std::string other;  // the compared side as written (the operand may have lost a `> 0`)
      std::string literal_written;
      // (testify's `assert.Equal(t, true, ok)`: the sides follow the test's `t`.)
      const std::size_t first = lang_ == Lang::go && args.size() >= 3 ? 1 : 0;
      // (The first two compared arguments; a message after them is no side: `assert.Equal(t, true,
      // ok, "msg")`, `assertEqual(ok, True, msg)`.)
      for (std::size_t i = first; i < args.size() && i < first + 2; ++i) {
        const std::string& x = args[i];
        const bool literal = x == "true" || x == "false" || x == "True" || x == "False";
        boolean = boolean || literal;
        if (literal && literal_written.empty()) literal_written = x;
        if (!literal && other.empty()) other = x;
      }
      // A condition held in a local compared with a boolean literal (`const pass = got === 4` ...
      // `expect(pass).toBe(true)`, `EXPECT_EQ(ok, true)`, `assert.Equal(t, true, ok)`,
      // `assertEqual(ok, True)`; `bad = got != 4` ... `toBe(false)`): the truth check of that
      // condition, as `assert.ok(pass)` and `EXPECT_TRUE(ok)` read it; with `false`, the failure
      // branch `if (bad) fail()` (review 41: honest ones read as no comparison, a widened `ok`
      // compared with `true` passed as an equality).
      const bool falsy = literal_written == "false" || literal_written == "False";
      if (boolean) {
        std::string subject = other;
        if (subject.empty() && is_js(lang_)) subject = js_expect_subject(n);
        if (!subject.empty() && held_condition(subject) != subject) {
          Assertion proto;
          proto.line = a.line;
          return falsy ? clause_checks(proto, subject, {"||", " or "}, /*negated=*/true)
                       : clause_checks(proto, subject, {"&&", " and "}, /*negated=*/false);
        }
      }
      if (boolean && is_js(lang_)) {
        // (`expect(got === 4 || got === 0).toBe(true)`, `strictEqual(got === 4, true)`: as `ok`,
        // over what `expect(...)` holds as written; a predicate's call, `expect(isFour(x)).toBe(true)`,
        // stays an exact check of its truth.)
        std::string subject = other;
        if (subject.empty()) subject = js_expect_subject(n);
        if (subject.empty()) subject = *a.operands.begin();
        // (Compared with `false`: the truth of its negation; `expect(got === 0).toBe(false)` is an
        // inequality, `expect(got !== 4).toBe(false)` an equality.)
        a.kind = ok_kind(falsy ? negation_of(unparen(subject)) : subject);
        // (A predicate's truth is exact; a value's own truth, `!!got`, `!got`, is not: it is what
        // the value is.)
        std::string bare = strip_spaces(subject);
        while (starts_with(bare, "!")) bare = unparen(bare.substr(1));
        a.boolean_literal = a.kind == Kind::type && contains(bare, "(") &&
                            split_top(js_ternary_marks(subject), {"||", "&&", "??", "?", "===", "!==", "==", "!=", "<", ">"}).size() == 1;
      } else if (boolean) {
        a.kind = comparison_kind(*a.operands.begin(), falsy);
        const Kind written = other.empty() ? a.kind : comparison_kind(other, falsy);
        if (written == Kind::range || written == Kind::approx) a.kind = written;
        a.boolean_literal = written == Kind::type;
      }
    }
    return {a};
  }

  /// What a test file importing this module relies on: its functions and classes that drop
  /// failures, and its functions whose body neither checks nor fails.
  void exported_definitions(FileModel& m) const {
    for (const auto& [name, def] : defs_.functions) {
      if (const int at = drops_failures(s_, def, defs_, try_swallows()))
        m.droppers.emplace(name, "`" + name + "` (a helper module's function), whose handler at line " + std::to_string(at) + " drops failures");
      else if (lang_ == Lang::python)
        if (std::string why = applies_dropper(def); !why.empty())
          m.droppers.emplace(name, "`" + name + "` (a helper module's function), which " + why);
      if (!helper_fails(name, def)) m.non_checks.insert(name);
      if (is_js(lang_)) {
        m.predicates.emplace(name, js_predicate_of_assertion_failure(s_, def));
        m.reporters.emplace(name, js_handler_fails(s_, def));
        if (reads_outcome_value(text(def).substr(0, 4096))) m.outcome_readers.insert(name);
      }
    }
    for (const auto& [name, cls] : defs_.classes)
      if (const int at = drops_failures(s_, cls, defs_, try_swallows()))
        m.droppers.emplace(name, "`" + name + "` (a helper module's class), whose handler at line " + std::to_string(at) + " drops failures");
      else if (auto v = exit_returns_true(s_, cls); !v.empty())
        m.droppers.emplace(name, "`" + name + "` (a helper module's class), whose __exit__ returns `" + quote(v) + "`");
  }

  /// A call by plain name or through a module (`helpers.check(...)`) of a function a helper
  /// module the file imports defines, whose body neither checks nor fails.
  bool imported_non_check(TSNode n, const std::string& name) const {
    if (!imported_ || !imported_->non_checks.count(name) || defs_.functions.count(name)) return false;
    TSNode f = field(n, type(n) == "method_invocation" ? "name" : "function");
    const std::string t = ts_node_is_null(f) ? "" : strip_spaces(text(f));
    if (t == name) return true;
    // Through the module itself (`helpers.check`, `tests.helpers.check`), not through a test's
    // receiver (`t.equal` of tape is the library's, whatever a helper module defines).
    if (!ends_with(t, "." + name)) return false;
    std::string prefix = t.substr(0, t.size() - name.size() - 1);
    if (auto dot = prefix.rfind('.'); dot != std::string::npos) prefix = prefix.substr(dot + 1);
    return imported_->modules.count(prefix) > 0;
  }

  /// Go: a call on an imported package (`fmt.Errorf`, `errors.New`), not on a testing.T; the
  /// assertion libraries' packages (testify's assert/require, ...) are checks.
  bool go_package_call(TSNode n) const {
    TSNode f = field(n, "function");
    if (ts_node_is_null(f) || type(f) != "selector_expression") return false;
    TSNode recv = field(f, "operand");
    if (ts_node_is_null(recv) || type(recv) != "identifier") return false;
    const std::string r = text(recv);
    static const std::set<std::string, std::less<>> kAssertionPackages = {"assert", "require", "is", "must", "qt", "check", "be"};
    return defs_.go_packages.count(r) > 0 && !kAssertionPackages.count(r);
  }

  /// A call by plain name (or on self/this) of a function the file defines, whose body neither
  /// checks nor fails (recursively through the file's functions, bounded): `check(cond, msg)` that
  /// only logs is no check, whatever its name.
  bool local_helper_only_looks_like_check(TSNode n, const std::string& name) const {
    auto d = defs_.functions.find(name);
    if (d == defs_.functions.end()) return false;
    TSNode f = field(n, type(n) == "method_invocation" ? "object" : "function");
    const std::string callee_text = ts_node_is_null(f) ? "" : strip_spaces(text(f));
    const bool plain = type(n) == "method_invocation"
                           ? (ts_node_is_null(f) || callee_text == "this")
                           : (callee_text == name || callee_text == "self." + name || callee_text == "this." + name ||
                              callee_text == "cls." + name);
    if (!plain) return false;
    return !helper_fails(name, d->second);
  }

  /// Does the body of the file's function `def` check or fail (an assert, a raise/throw/panic, a
  /// call that is a check or a failure)? Memoised; a cycle or more than kMaxHelperDepth levels
  /// counts as not failing.
  bool helper_fails(const std::string& name, TSNode def) const {
    static constexpr int kMaxHelperDepth = 4;
    if (auto m = helper_fails_.find(name); m != helper_fails_.end()) return m->second;
    if (resolving_.count(name) || static_cast<int>(resolving_.size()) >= kMaxHelperDepth) return false;
    resolving_.insert(name);
    const bool saved_own_if = last_own_if_, saved_inverts = last_inverts_;
    bool fails = false;
    // A check that checks something: not on literals only, not a tautology.
    auto real = [](const std::vector<Assertion>& v) {
      return std::any_of(v.begin(), v.end(), [](const Assertion& c) { return !c.trivial && !c.tautology; });
    };
    std::function<void(TSNode)> scan = [&](TSNode x) {
      if (fails) return;
      const std::string_view t = type(x);
      if (t == "raise_statement" || t == "throw_statement" || t == "throw_expression") {
        fails = true;
        return;
      }
      if (t == "assert_statement") {
        const std::string expr = split_top(text(x).substr(6), {","}).front();
        fails = real(clause_checks(Assertion{}, expr, {" and "}, false));
        return;
      }
      if (t == "call" || t == "call_expression" || t == "method_invocation" || t == "macro_invocation") {
        static const std::set<std::string, std::less<>> kFails = {"fail", "FAIL", "Fail", "FailNow", "Fatal", "Fatalf",
                                                                  "ADD_FAILURE", "GTEST_FAIL", "panic", "abort", "unreachable", "todo"};
        const std::string c = callee(x);
        if (kFails.count(c) || (t == "macro_invocation" && starts_with(c, "assert")) || real(classify_call(x))) {
          fails = true;
          return;
        }
      }
      // A branch that never runs (`if False:`) and what follows an exit in a block check nothing.
      if ((t == "if_statement" || t == "while_statement") && !ts_node_is_null(field(x, "condition")) &&
          const_false(text(field(x, "condition")))) {
        if (TSNode alt = field(x, "alternative"); !ts_node_is_null(alt)) scan(alt);
        return;
      }
      for (uint32_t i = 0; i < ts_node_named_child_count(x) && !fails; ++i) {
        TSNode child = tsnav::named_child(x, i);
        scan(child);
        if (!fails && exit_stmt(child, /*passing=*/true)) break;
      }
    };
    scan(def);
    last_own_if_ = saved_own_if;
    last_inverts_ = saved_inverts;
    resolving_.erase(name);
    helper_fails_[name] = fails;
    return fails;
  }

  /// A Go call made on the test's testing.T/B/F (any name the test declares with that type), on
  /// testify's assert/require packages or an object they made (`a := assert.New(t)`), on a test
  /// suite's receiver (`func (s *Suite) TestX()` ... `s.Equal`), or given the testing.T first.
  bool go_assertion_call(TSNode n) const {
    TSNode fn = field(n, "function");
    if (ts_node_is_null(fn)) return false;
    const uint32_t key = ts_node_is_null(unit_node_) ? UINT32_MAX : ts_node_start_byte(unit_node_);
    if (key != testers_unit_) {  // worked out once per test
      testers_unit_ = key;
      testers_ = {"assert", "require"};
      const std::string unit = ts_node_is_null(unit_node_) ? std::string() : text(unit_node_);
      // Parameters only (`func TestX(t *testing.T)`, `func(tb testing.TB)`): a `var quiet testing.T`
      // or `&testing.T{}` reports to no test.
      static const rx::regex param(R"([(,]\s*([A-Za-z_]\w*)\s+(?:\*testing\.(?:T|B|F)|testing\.TB)\b)");
      static const rx::regex made(R"(\b([A-Za-z_]\w*)\s*:?=\s*(?:assert|require|is|qt|quicktest)\.New\w*\(\s*([A-Za-z_]\w*)\s*\))");
      static const rx::regex receiver(R"(^func\s*\(\s*([A-Za-z_]\w*)\s)");
      // The test's own signature, and subtests/fuzz targets (`t.Run("x", func(t *testing.T)`,
      // `f.Fuzz(func(t *testing.T, ...)`): a `func(b *testing.B)` handed to testing.Benchmark
      // reports to no test.
      bool signature = true;
      for_each_capped_line(unit, [&](int, const std::string& l) {
        if (signature || contains(l, ".Run(") || contains(l, ".Fuzz("))
          for (auto it = rx::sregex_iterator(l.begin(), l.end(), param); it != rx::sregex_iterator(); ++it) testers_.insert((*it)[1].str());
        signature = false;
      });
      // Assertion objects made from one of them (`a := assert.New(t)`, `is := is.New(t)`, `c := qt.New(t)`).
      for_each_capped_line(unit, [&](int, const std::string& l) {
        for (auto it = rx::sregex_iterator(l.begin(), l.end(), made); it != rx::sregex_iterator(); ++it)
          if (testers_.count((*it)[2].str())) testers_.insert((*it)[1].str());
      });
      if (rx::smatch m; rx::regex_search(unit.begin(), unit.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(unit.size(), kConditionChars)), m, receiver))
        testers_.insert(m[1].str());
    }
    const std::set<std::string>& testers = testers_;
    if (type(fn) == "selector_expression") {
      TSNode operand = field(fn, "operand");
      std::string recv = ts_node_is_null(operand) ? std::string() : strip_spaces(text(operand));
      if (ends_with(recv, ".T()") || ends_with(recv, ".Assert()") || ends_with(recv, ".Require()")) return true;  // s.T().Fatal, s.Require().Equal
      if (testers.count(recv)) return true;
    }
    const auto args = call_args(n);
    return !args.empty() && testers.count(args[0]) && args[0] != "assert" && args[0] != "require";
  }

  /// One check per clause of `expr` split at `seps` (top level).
  std::vector<Assertion> clause_checks(const Assertion& proto, std::string_view expr,
                                       std::initializer_list<std::string_view> seps, bool failure) const {
    std::vector<Assertion> out;
    std::vector<std::string> clauses;
    // (`and`/`&&` bind tighter than `or`/`||`: an assertion with a top-level `or` is one
    // disjunction, `got == 4 || got == 0 && got == 0` included, and is not split at `&&`.)
    const bool conjunction = std::any_of(seps.begin(), seps.end(), [](std::string_view x) { return x == "&&" || x == " and "; });
    const bool disjunction = !failure && conjunction && split_top(js_ternary_marks(std::string(expr)), {"||", " or "}).size() > 1;
    for (auto& clause : disjunction ? std::vector<std::string>{std::string(expr)} : split_top(expr, seps)) {
      // Python's chained equality `add(2, 2) == 4 == add(1, 3)` is two comparisons, each of
      // neighbours (review 30: read as one relation between the two calls).
      const auto links = lang_ == Lang::python && !failure ? split_top(clause, {"=="}) : std::vector<std::string>{};
      const bool chain = links.size() >= 3 && std::all_of(links.begin(), links.end(), [](const std::string& l) {
        return split_top(l, {"!=", "<=", ">=", "<", ">", " is ", " in ", " not ", " or ", " and ", " if ", " else ", ","}).size() == 1;
      });
      if (!chain) {
        clauses.push_back(std::move(clause));
        continue;
      }
      for (std::size_t i = 0; i + 1 < links.size(); ++i) clauses.push_back(trim(links[i]) + " == " + trim(links[i + 1]));
    }
    // A Go value's own `Equal` method, `!got.Equal(want)` (time.Time, net.IP): the comparison it
    // is, `got != want`, read as one (pflag c5ce22e836), so that what it compares is judged as any
    // comparison's operands are (`got.Equal(got)`, `g2 := got`: a tautology; hostile review 55).
    if (lang_ == Lang::go)
      for (auto& clause : clauses) {
        std::string c = trim(clause);
        const bool negated_call = starts_with(c, "!");
        if (negated_call) c = trim(c.substr(1));
        const auto at = c.rfind(".Equal(");
        if (at == std::string::npos || at == 0) continue;
        const std::size_t open = at + 6, close = matching_close(c, open);
        const std::string receiver = c.substr(0, at), argument = close == std::string::npos ? std::string() : c.substr(open + 1, close - open - 1);
        // (The whole clause is the one call: its parentheses close at the end, the receiver is
        // balanced, and the call has one argument.)
        if (close != c.size() - 1 || argument.empty() || split_top(argument, {","}).size() != 1 || split_top(receiver, {"&&", "||", "!"}).size() != 1)
          continue;
        int depth = 0;
        for (char ch : receiver) depth += (ch == '(' || ch == '[' || ch == '{') - (ch == ')' || ch == ']' || ch == '}');
        if (depth != 0) continue;
        clause = receiver + (negated_call ? " != " : " == ") + trim(argument);
      }
    struct Read {
      std::string text;
      bool asserted = false;  ///< asserted, not a failure condition
      bool weak = false;      ///< what it checks is unknown: a type check at most
    };
    std::vector<Read> read;
    for (const auto& as_written : clauses) {
      // A held condition or a comparison compared with a boolean literal (`assert ok == True`, `ok
      // is True`, `if ok == false { t.Fatal() }`, `(got == 4) is True`) is the truth of itself,
      // negated for `False`: read as `assert ok` is (review 41: `ok = got == 4 or got == 0` ...
      // `assert ok == True` passed as an equality; `assert ok is True` was read as no comparison).
      std::string written = truth_of(as_written);
      // (Compared with a boolean literal but no boolean, `(True if c else None) is not False`: it
      // holds for other values too, at most a type check.)
      const bool odd_truth = written.empty() && truth_compared(unparen(trim(as_written)), lang_ == Lang::python).has_value();
      if (written.empty()) written = as_written;
      // (`c ? true : false`, `!(c ? false : true)`: `c` itself; only truthiness counts here.)
      if (const std::string plain = literal_ternary(written, /*strict=*/false); plain != unparen(trim(written))) written = plain;
      // Python's `all([a, b])` over a list or tuple written out: `a and b`, one check per item;
      // `any([a, b])` is `a or b`. Not written out (a slice, a product, a starred item) or a
      // rebound `all`: what it checks is unknown, at most a type check.
      if (lang_ == Lang::python && !failure) {
        bool weak = false;
        const auto items = python_all_items(written, weak);
        if (!items.empty()) {
          for (const auto& item : items) read.push_back({item});
          continue;
        }
        if (weak) {
          read.push_back({written, false, true});
          continue;
        }
        if (const std::string any = python_any_text(written, weak); weak || any != written) {
          read.push_back({any, false, weak});
          continue;
        }
      }
      // A held condition joined as this check joins its clauses (`ok = got == 4 and add(3, 3) == 6`
      // ... `assert ok`; `bad = got != 4 or add(3, 3) != 6` ... `if bad: fail()`): one check per
      // clause, as if written here (review 41: two checks folded into one `ok` read as one removed).
      const std::string held = held_condition(written);
      if (held != written && !starts_with(held, "!") && !starts_with(held, "not ") && !has_ternary(held)) {
        const auto parts = split_top(js_ternary_marks(held), seps);
        const bool alternatives = split_top(js_ternary_marks(held), {"||", " or "}).size() > 1;
        if (parts.size() >= 2 && (failure || !alternatives)) {
          std::size_t at = 0;  // (the parts cut from `held` itself: the marks hide `?.`, not lengths)
          for (const auto& part : parts) {
            read.push_back({trim(held.substr(at, part.size()))});
            at += part.size();
            for (const auto sep : seps)
              if (held.compare(at, sep.size(), sep) == 0) {
                at += sep.size();
                break;
              }
          }
          continue;
        }
      }
      // A failure condition that negates a held conjunction (Go's `ok := got == 4 && Add(1, 2) == 3`
      // ... `if !ok { t.Fatal() }`): each clause asserted, as `assert ok` splits it.
      const bool negated_whole = (starts_with(held, "!(") && wrapped_in_parens(held.substr(1))) ||
                                 (starts_with(held, "not (") && wrapped_in_parens(held.substr(4)));
      if (failure && held != written && negated_whole) {
        const std::string inner = ::flowagent::integrity::negated(held);
        const auto parts = inner.empty() ? std::vector<std::string>{} : split_top(js_ternary_marks(inner), {"&&", " and "});
        if (parts.size() >= 2 && split_top(js_ternary_marks(inner), {"||", " or "}).size() == 1 && !has_ternary(inner)) {
          std::size_t at = 0;
          for (const auto& part : parts) {
            read.push_back({trim(inner.substr(at, part.size())), true});
            at += part.size();
            for (const std::string_view sep : {"&&", " and "})
              if (inner.compare(at, sep.size(), sep) == 0) {
                at += sep.size();
                break;
              }
          }
          continue;
        }
      }
      read.push_back({std::move(written), false, odd_truth});
    }
    for (const auto& [written, asserted, weak] : read) {
      std::string clause = held_condition(written);
      bool negated = failure && !asserted;
      // (A failure condition that negates a held condition, `!ok` of `ok := got == 4 || got == 0`:
      // the check is the condition itself, read as an assertion of it.)
      if (negated && clause != written && wrapped_in_parens(trim(clause.substr(std::min(clause.size(), clause.find('(')))))) {
        if (std::string inner = ::flowagent::integrity::negated(clause); !inner.empty()) {
          clause = std::move(inner);
          negated = false;
        }
      }
      // (A failure condition's conjunct that is a held condition, or one compared with a boolean
      // literal, `ok == false && got != 0` of `ok := got == 4`: written out, a negated comparison
      // flipped, `got != 4 && got != 0`, so that the conjuncts are judged as if written so.)
      if (negated) clause = expanded_conjuncts(clause);
      Assertion a = proto;
      a.kind = weak ? Kind::type : comparison_kind(clause, negated);
      bool tautology = false;
      // (A failure condition's conjuncts: the values it checks are those its comparisons compare;
      // a guard beside them, `ok` of `got, ok := m["a"]` in `ok && got != 4`, is no operand.)
      std::vector<std::string> conjuncts = negated ? split_top(unparen(clause), {"&&", " and "}) : std::vector<std::string>{};
      if (conjuncts.size() >= 2) {
        std::vector<std::string> compared;
        for (const auto& part : conjuncts)
          if (split_top(unparen(part), {"!==", "===", "!=", "==", "<=", ">=", "<", ">"}).size() == 2 ||
              comparison_kind(unparen(part), /*negated=*/true) == Kind::eq)
            compared.push_back(part);
        if (!compared.empty()) conjuncts = std::move(compared);
        for (const auto& part : conjuncts) {
          bool t = false;
          collect_operands(part, a.operands, t, &a.literals, &a.raw_exprs);
          tautology = tautology || t;
        }
      } else {
        collect_operands(clause, a.operands, tautology, &a.literals, &a.raw_exprs);
      }
      a.trivial = a.operands.empty();
      a.tautology = tautology;
      if (!negated) truth_analysis(clause, a, lang_ == Lang::python);
      else failure_condition_analysis(clause, a);
      out.push_back(std::move(a));
    }
    return out;
  }

  /// `c` with each top-level conjunct that is a held condition or a condition compared with a
  /// boolean literal written out: as the comparison it holds, negated by flipping its operator
  /// (`!(got == 4)` is `got != 4`); a conjunct that does not come out as one comparison is kept
  /// as written. `c` itself when it has fewer than two conjuncts or nothing to write out.
  std::string expanded_conjuncts(const std::string& c) const {
    const std::string_view join = lang_ == Lang::python ? " and " : " && ";
    const auto ands = split_top(unparen(c), {"&&", " and "});
    if (ands.size() < 2) return c;
    static constexpr std::string_view kOps[] = {"!==", "===", "!=", "==", "<=", ">=", "<", ">"};
    // (One comparison with its operator flipped; "" for anything else.)
    const auto flipped = [&](const std::string& e) -> std::string {
      if (split_top(js_ternary_marks(e), {"&&", "||", " and ", " or ", "??", "?", " if ", " in ", " is "}).size() != 1) return {};
      const auto sides = split_top(e, {"!==", "===", "!=", "==", "<=", ">=", "<", ">"});
      if (sides.size() != 2) return {};
      const std::string_view op = std::string_view(e).substr(sides[0].size());
      static constexpr std::string_view kFlip[] = {"===", "!==", "==", "!=", ">", "<", ">=", "<="};
      for (std::size_t i = 0; i < std::size(kOps); ++i)
        if (starts_with(op, kOps[i])) return trim(sides[0]) + " " + std::string(kFlip[i]) + " " + trim(sides[1]);
      return {};
    };
    std::string out;
    bool changed = false;
    for (const auto& raw : ands) {
      std::string part = trim(raw);
      std::string truth = truth_of(part);
      if (truth.empty()) truth = part;
      const std::string held = held_condition(truth);
      if (held != part) {
        std::string one;
        if (const std::string inner = ::flowagent::integrity::negated(held);
            !inner.empty() && (starts_with(held, "!(") || starts_with(held, "not (") || is_plain_name(inner)))
          one = flipped(inner);
        else if (split_top(held, {"!==", "===", "!=", "==", "<=", ">=", "<", ">"}).size() == 2)
          one = held;
        if (!one.empty()) {
          part = one;
          changed = true;
        }
      }
      out += (out.empty() ? "" : std::string(join)) + part;
    }
    return changed ? out : c;
  }

  /// A failure branch's condition made of conjuncts (`if got != want && X { t.Errorf(...) }`): the
  /// branch fails the test only when every conjunct holds. Read as weaker than the comparison:
  /// - never failing: a conjunct that is always false (`&& false`, `got != got`) or two that
  ///   cannot hold together (`got != 4 && got == 4`): a tautology;
  /// - a range: a conjunct comparing a value another conjunct checks with a literal (`got != 4 &&
  ///   got < 0`, `&& got != 3`, the head's wrong answer, `&& got != 4-1`; not `nil`, a pointer's
  ///   own guard);
  /// - no value checked: a conjunct over the enclosing function's parameters only (`&& a == b` in
  ///   `checkAdd(t, a, b, want)`: it fails only on twins).
  /// Conjuncts about other things are honest: `ok && got != 4` (a map lookup), `tt.wantErr == nil
  /// && ...` (a table's error rows), `!(math.IsNaN(got) && math.IsNaN(want))`, `!errors.Is(err, x)`.
  void failure_condition_analysis(const std::string& clause, Assertion& a) const {
    const auto ands = split_top(unparen(clause), {"&&", " and "});
    if (ands.size() < 2) return;
    // (`got != 4 && got != 4.0`: one value however written, an equality.)
    std::vector<std::string> as_equal;
    for (const auto& part : ands)
      if (const auto ne = split_top(unparen(part), {"!==", "!="}); ne.size() == 2) as_equal.push_back(trim(ne[0]) + " == " + trim(ne[1]));
    if (as_equal.size() == ands.size() && one_value_alternatives(as_equal)) return;
    auto sides = [](const std::string& part) -> std::optional<std::pair<std::string, std::string>> {
      const auto ops = split_top(part, {"!==", "===", "!=", "==", "<=", ">=", "<", ">"});
      if (ops.size() != 2) return std::nullopt;
      return std::pair{strip_spaces(unparen(ops[0])), strip_spaces(unparen(ops[1]))};
    };
    // (A name the enclosing function binds only to false: `strict := false` ... `&& strict`.)
    const std::string unit_text = ts_node_is_null(unit_node_) ? std::string() : text(unit_node_);
    auto bound_false = [&](const std::string& part) {
      std::string name = strip_spaces(unparen(part));
      // (A function of the file that takes nothing and returns false: `shouldReport()`.)
      if (ends_with(name, "()") && name.size() > 2) {
        name.resize(name.size() - 2);
        if (name.size() > 64 || !regex_safe_name(name))
          return false;
        const rx::regex returns_false = detail::cached_regex("\\b(?:func|def|function)\\s+" + name + "\\s*\\(\\s*\\)[^{:\\n]*[{:]\\s*return\\s+(?:false|False)\\b");
        return rx::regex_search(s_.src, returns_false);
      }
      if (name.size() > 64 || !regex_safe_name(name) ||
          std::isdigit(static_cast<unsigned char>(name[0])))
        return false;
      // (Bound: `x = ...`, `x := ...`, `x: bool = ...`, `var x`, C++ `bool x{...}`, `#define x ...`;
      // to false: `false`, `False`, `0`, `!1`, `!true`, `not True`, an empty or false brace.)
      const std::string falsy = "\\s*(?:false|False|0|!\\s*1|!\\s*true|not\\s+True)(?![\\w.])";
      const bool cpp = lang_ == Lang::cpp;  // (a brace initialiser, a macro: C/C++ only; `&& strict {` is Go's if)
      const rx::regex any_binding = detail::cached_regex("\\b" + name + "\\s*(?::\\s*[\\w\\[\\]]+\\s*)?:?=[^=]|\\bvar\\s+" + name + "\\b" +
                                   (cpp ? "|\\b" + name + "\\s*\\{|#\\s*define\\s+" + name + "\\b" : std::string()));
      const rx::regex false_binding = detail::cached_regex("\\b" + name + "\\s*(?::\\s*[\\w\\[\\]]+\\s*)?:?=" + falsy + "|\\bvar\\s+" + name +
                                     "\\s+bool\\s*(?:\\n|;|$)|\\bvar\\s+" + name + "\\s*(?:bool\\s*)?=\\s*false\\b" +
                                     (cpp ? "|\\b" + name + "\\s*\\{\\s*(?:false|0)?\\s*\\}|#\\s*define\\s+" + name + "\\s+(?:0|false)\\b" : std::string()));
      const auto count = [&](const std::string& in, const rx::regex& r) { return std::distance(rx::sregex_iterator(in.begin(), in.end(), r), rx::sregex_iterator()); };
      // (Bound in the function, else in the file: a module's `STRICT = False`.)
      const std::string& where = count(unit_text, any_binding) > 0 ? unit_text : s_.src;
      const auto falses = count(where, false_binding);
      return falses > 0 && falses == count(where, any_binding);
    };
    for (std::size_t i = 0; i < ands.size() && !a.tautology; ++i) {
      if (const_false(ands[i]) || bound_false(ands[i])) a.tautology = true;
      if (auto sd = sides(unparen(ands[i])); sd && sd->first == sd->second && !is_literal(sd->first) && contains(ands[i], "!=")) a.tautology = true;
      for (std::size_t j = i + 1; j < ands.size() && !a.tautology; ++j)
        if (complementary(ands[i], ands[j])) a.tautology = true;
    }
    if (a.tautology) return;
    // (Identifiers a conjunct reads, not members: `tt.wantErr` reads tt.)
    auto names_in = [](const std::string& part) {
      std::set<std::string> out;
      static const std::set<std::string, std::less<>> kWords = {"true", "false", "nil", "null", "None", "True", "False", "and", "or", "not", "undefined"};
      for (std::size_t i = 0; i < part.size();) {
        if ((std::isalpha(static_cast<unsigned char>(part[i])) || part[i] == '_') && (i == 0 || (!std::isalnum(static_cast<unsigned char>(part[i - 1])) && part[i - 1] != '_'))) {
          std::size_t j = i;
          while (j < part.size() && (std::isalnum(static_cast<unsigned char>(part[j])) || part[j] == '_')) ++j;
          const bool member = i > 0 && part[i - 1] == '.';
          const std::string w = part.substr(i, j - i);
          if (!member && !kWords.count(w)) out.insert(w);
          i = j;
        } else {
          ++i;
        }
      }
      return out;
    };
    auto literal_expr = [](const std::string& x) {
      if (x.empty() || x == "nil" || x == "null" || x == "None" || x == "undefined") return false;
      if (is_literal(x)) return true;
      return x.find_first_not_of("0123456789.+-*/%() xXabcdefABCDEF_") == std::string::npos && std::isdigit(static_cast<unsigned char>(x[0]));
    };
    std::set<std::string> params;
    if (!ts_node_is_null(unit_node_)) {
      const std::string unit_name = helper_name(unit_node_);
      if (!unit_name.empty()) {
        const auto ps = definition_params(unit_text.substr(0, unit_text.find('{')), unit_name, lang_);
        params.insert(ps.begin(), ps.end());
      }
    }
    Kind weakest = a.kind;
    // The names each conjunct compares with a literal (`got` of `got != 4`, of `abs(got) != 6`).
    // (Spaces kept: `typeof got === 'string'` compares `typeof got`, which reads `got`.)
    std::vector<std::set<std::string>> literal_names(ands.size());
    for (std::size_t i = 0; i < ands.size(); ++i)
      if (const auto ops = split_top(unparen(ands[i]), {"!==", "===", "!=", "==", "<=", ">=", "<", ">"}); ops.size() == 2)
        for (const auto& [value, lit] : {std::pair{ops[0], ops[1]}, std::pair{ops[1], ops[0]}})
          if (literal_expr(strip_spaces(unparen(lit))) && !literal_expr(strip_spaces(unparen(value))))
            for (const auto& n : names_in(value)) literal_names[i].insert(n);
    for (std::size_t i = 0; i < ands.size(); ++i) {
      const std::string part = unparen(ands[i]);
      const auto names = names_in(part);
      if (auto sd = sides(part)) {
        // The checked value against a literal, where another conjunct compares it too.
        for (const auto& [value, lit] : {std::pair{sd->first, sd->second}, std::pair{sd->second, sd->first}}) {
          if (!literal_expr(lit) || literal_expr(value)) continue;
          // (Also an expression of it, `abs(got) != 6`, `str(got) != "6"`, `got + 0 != 6`, `-got`.)
          auto value_names = names_in(value);
          value_names.insert(literal_names[i].begin(), literal_names[i].end());
          const bool checked_elsewhere = std::any_of(ands.begin(), ands.end(), [&](const std::string& other) {
            if (&other == &ands[i]) return false;
            const auto od = sides(unparen(other));
            if (!od) return false;
            for (const auto& side : {od->first, od->second})
              if (side == value || (!literal_expr(side) && regex_safe_name(side) && value_names.count(side))) return true;
            return false;
          });
          if (checked_elsewhere && strength(Kind::range) < strength(weakest)) weakest = Kind::range;
          // A call with literal arguments only, compared with a literal beside the check (`&&
          // add(1, 1) != 1`, `and os.environ.get("STRICT") == "1"`): what that call answers, not the
          // checked value, decides whether the branch can fail.
          static const rx::regex literal_call(R"(^[A-Za-z_$][\w$.]*\((.+)\)$)");
          if (rx::smatch m; literal_expr(lit) && rx::regex_match(value, m, literal_call)) {
            const auto args = split_top(m[1].str(), {","});
            if (!args.empty() && std::all_of(args.begin(), args.end(), [&](const std::string& x) { return is_literal(trim(x)) || literal_expr(trim(x)); }) &&
                strength(Kind::range) < strength(weakest))
              weakest = Kind::range;
          }
        }
      }
      // Any other conjunct over a value another conjunct checks with a literal (`got != 4 and
      // isinstance(got, str)`, `type(got) is str`, `got instanceof X`, `!Number.isNaN(got)`; an
      // existence guard aside, `got is not None`, like a pointer's own `p != nil`): the branch
      // fails only for the values that also pass it.
      static const rx::regex existence(R"(^\s*(?:[\w$.]+\s*(?:!==?|==)\s*(?:nil|null|None|undefined|nullptr)|(?:nil|null|None|undefined|nullptr)\s*(?:!==?|==)\s*[\w$.]+|[\w$.]+\s+is\s+(?:not\s+)?None)\s*$)");
      if (literal_names[i].empty() && !rx::regex_match(part, existence))
        for (std::size_t j = 0; j < ands.size(); ++j)
          if (j != i && std::any_of(names.begin(), names.end(), [&](const std::string& n) { return literal_names[j].count(n) > 0; }) &&
              strength(Kind::range) < strength(weakest))
            weakest = Kind::range;
      // (Not the check's own comparison, `got != want` of `checkFloat(t, got, want)`, nor a nil
      // guard of a parameter, `wantErr == nil`.)
      const bool own_comparison = comparison_kind(part, /*negated=*/true) == Kind::eq;
      const bool nil_guard = sides(part) && (sides(part)->second == "nil" || sides(part)->first == "nil");
      if (!own_comparison && !nil_guard && !names.empty() && !params.empty() &&
          std::all_of(names.begin(), names.end(), [&](const std::string& n) { return params.count(n) > 0; }) &&
          strength(Kind::type) < strength(weakest))
        weakest = Kind::type;
    }
    a.kind = weakest;
  }

  /// What JS `ok(x)` checks: the truth of its argument, as strong as the argument's own top-level
  /// comparison (`assert.ok(got === 4)` an equality, `got > 3` a range); a value told apart from
  /// one other (`got !== 4`, `x !== undefined`, `x == null`) or plain truth (`assert.ok(got)`, a
  /// comparison inside a callback) is a truthiness check.
  Kind ok_kind(const std::string& arg) const {
    std::string e = unparen(trim(arg));
    // (A comma expression is its last operand, `t.ok((got === 4, true))`; `typeof got ===
    // 'number'` checks what the value is.)
    // (The argument may have lost its spaces: `typeofgot==='number'`.) A function is always truthy
    // (`t.ok(() => got === 4)`); a side that assigns compares what it assigned (`(got = 4) === 4`).
    if (split_top(js_ternary_marks(e), {","}).size() > 1 || function_expression(e)) return Kind::type;
    if (const auto sides = split_top(e, {"!==", "===", "!=", "=="});
        sides.size() == 2 && (starts_with(trim(sides[0]), "typeof") || starts_with(trim(sides[1]), "typeof") ||
                              top_level_assignment(sides[0]) || top_level_assignment(sides[1])))
      return Kind::type;
    // `!(a !== b)`: the equality itself; `!(!(c))`, `!!c`: `c`.
    if (e.size() > 3 && e[0] == '!' && e[1] == '(' && matching_close(e, 1) == e.size() - 1) {
      const std::string inner = unparen(e.substr(1));
      if (starts_with(inner, "!") && !starts_with(inner, "!=") && split_top(js_ternary_marks(inner), {"&&", "||", "??", "?"}).size() == 1)
        return ok_kind(inner.substr(1));
      if (const auto ne = split_top(inner, {"!==", "!="}); ne.size() == 2 &&
          split_top(js_ternary_marks(inner), {"??", "?", "||", "&&"}).size() == 1)
        return ok_kind(trim(ne[0]) + " === " + trim(ne[1]));
      return Kind::type;
    }
    const std::string marked = js_ternary_marks(e);
    // The clauses of `e` between top-level `sep`s, found in `marked` (same length as `e`).
    const auto clauses = [&](std::string_view sep) {
      std::vector<std::string> out;
      std::size_t at = 0;
      for (const auto& c : split_top(marked, {sep})) {
        out.push_back(e.substr(at, c.size()));
        at += c.size() + sep.size();
      }
      return out;
    };
    const bool nullish = split_top(marked, {"??"}).size() >= 2;
    // A ternary: `c ? true : false` is `c`; `c ? x : false` (a guard) as strong as `x`; any other
    // truthy branch lets the check pass without looking (truth_analysis reads it).
    if (!nullish)
      if (const auto q = split_top(marked, {"?"}); q.size() == 2)
        if (const auto r = split_top(q[1], {":"}); r.size() == 2) {
          const std::string t = strip_spaces(r[0]), f = strip_spaces(r[1]);
          const bool t_true = truthy_literal(t) && !falsy_literal(t, false), f_false = falsy_literal(f, false);
          const bool t_false = falsy_literal(t, false);
          if (t_true && f_false) return ok_kind(e.substr(0, q[0].size()));
          if (f_false && !t_false) return ok_kind(r[0]);
          return Kind::type;
        }
    // Alternatives: clauses that only fail or log (`|| assert.fail(...)`, `|| console.error(x)`)
    // widen nothing; spellings of one value (`x === 4 || x === 4.0`) are that value.
    if (auto ors = clauses("||"); ors.size() >= 2) {
      std::vector<std::string> kept;
      for (const auto& clause : ors)
        if (!fails_or_logs(clause)) kept.push_back(clause);
      if (kept.size() == 1) return ok_kind(kept[0]);
      if (kept.size() >= 2 && one_value_alternatives(kept)) return ok_kind(kept[0]);
      return Kind::type;
    }
    // A conjunction checks every clause: as strong as its strongest (`got === 4 && got > 0`).
    if (nullish) return Kind::type;
    if (const auto ands = clauses("&&"); ands.size() >= 2) {
      Kind best = Kind::type;
      for (const auto& c : ands)
        if (const Kind k = ok_kind(c); strength(k) > strength(best)) best = k;
      return best;
    }
    if (split_top(e, {"!==", "!="}).size() >= 2) return Kind::type;
    if (const auto sides = split_top(e, {"===", "=="}); sides.size() == 2) {
      std::string l = strip_spaces(sides[0]), r = strip_spaces(sides[1]);
      while (!r.empty() && r.front() == '=') r.erase(0, 1);
      // (Compared with `true`: as strong as the other side; with `false`, a negation.)
      if (r == "true" || l == "true") return ok_kind(r == "true" ? sides[0] : r);
      if (r == "false" || l == "false") return Kind::type;
      if (l == r) return Kind::type;  // `got === got`
      for (const auto& v : {l, r})
        if (v == "undefined" || v == "null" || v == "void0") return Kind::type;
      return Kind::eq;
    }
    if (split_top(e, {"<=", ">=", "<", ">"}).size() >= 2) return Kind::range;
    // (A named comparison, `Object.is(got, 4)`, `isDeepStrictEqual(a, b)`; nothing nested.)
    if (contains(e, "==") || contains(e, "!=") || contains(e, "=>")) return Kind::type;
    return comparison_kind(e);
  }

  /// Kind of a boolean expression: == is equality, ordering is range, no comparison is a truth or
  /// existence check. Go's failure branches are negated (`!=` guards an equality).
  Kind comparison_kind(std::string_view t, bool negated = false) const {
    // A negation of a whole parenthesised comparison (Go's `if !(got == 4)`, `not (got == 4)`; not
    // of clauses joined by `and`/`or`, which the truth and failure-condition analyses read).
    if (const std::string tt = trim(t); tt.size() > 3) {
      const std::size_t open = starts_with(tt, "!(")                                ? 1
                               : lang_ == Lang::python && starts_with(tt, "not (") ? 4
                               : lang_ == Lang::python && starts_with(tt, "not(")  ? 3
                                                                                   : 0;
      if (open > 0 && matching_close(tt, open) == tt.size() - 1) {
        const std::string inner(std::string_view(tt).substr(open + 1, tt.size() - open - 2));
        if (split_top(js_ternary_marks(inner), {"&&", "||", " and ", " or ", "??", "?"}).size() == 1) return comparison_kind(inner, !negated);
      }
    }
    // (Python's `not` binds looser than a comparison: `not(got) == 4` is `not (got == 4)`; not over
    // `and`/`or` or a conditional expression, which bind looser still.)
    if (const std::string tt = trim(t); lang_ == Lang::python && (starts_with(tt, "not ") || starts_with(tt, "not("))) {
      const std::string rest = trim(tt.substr(3));
      if (!rest.empty() && split_top(rest, {" and ", " or ", " if "}).size() == 1 &&
          split_top(unparen(rest), {" and ", " or ", " if "}).size() == 1)
        return comparison_kind(rest, !negated);
    }
    if (contains(t, "approx(") || contains(t, "isclose(")) return Kind::approx;
    if (lang_ != Lang::python) {
      const std::string e = unparen(trim(t));
      // (A comma expression is its last operand: `EXPECT_TRUE((got == 4, true))` compares nothing.)
      if (split_top(e, {","}).size() > 1 || function_expression(e)) return Kind::type;
      // (JavaScript's `typeof got === 'number'`: what the value is, not which.)
      if (const auto sides = split_top(e, {"!==", "===", "!=", "=="});
          is_js(lang_) && sides.size() == 2 && (starts_with(trim(sides[0]), "typeof") || starts_with(trim(sides[1]), "typeof")))
        return Kind::type;
    }
    // (A side that assigns compares what it assigned: `(got = 4) == 4`, `(got := 4) == 4`.)
    if (const auto sides = split_top(unparen(trim(t)), {"!==", "===", "!=", "==", "<=", ">=", "<", ">"});
        sides.size() == 2 && (top_level_assignment(sides[0]) || top_level_assignment(sides[1])))
      return Kind::type;
    const std::string_view eq = negated ? "!=" : "==";
    // (Asserted, `!==` and `!=` hold no equality: the `==` inside them is not one.)
    std::string without_ne;
    if (!negated) {
      without_ne = std::string(t);
      for (const std::string_view ne : {"!==", "!="})
        for (std::size_t at = without_ne.find(ne); at != std::string::npos; at = without_ne.find(ne, at)) without_ne.replace(at, ne.size(), " <> ");
    }
    if (contains(negated ? t : std::string_view(without_ne), eq) || (!negated && contains(t, " is None")) || contains(t, "reflect.DeepEqual") ||
        contains(t, "cmp.Diff") || contains(t, ".equals("))
      return contains(t, " is None") ? Kind::type : Kind::eq;
    // A comparison function: `!slices.Equal(got, want)` in a failure branch, `np.array_equal(a, b)`
    // asserted: equality when the check holds on equal values, an inequality otherwise.
    for (const auto& f : called_functions(t))
      if ((named_kind(last_segment(f)) == Kind::eq && names_.library_name(f)) || (is_js(lang_) && f == "Object.is")) {
        const std::string e = strip_spaces(std::string(t));
        const bool has_not = starts_with(e, "!") || starts_with(trim(t), "not ");
        return negated == has_not ? Kind::eq : Kind::range;
      }
    if (!negated && lang_ == Lang::python && (anchored_pattern_pin(t) || compiled_pattern_pin(t))) return Kind::eq;
    // Membership in a literal collection: one value is an equality (`got in (4,)`), more a set of
    // values, as a range is (`got in (4, 0)`).
    if (const std::size_t values = literal_membership(t, lang_ == Lang::python, negated); values > 0)
      return values == 1 ? Kind::eq : Kind::range;
    if (contains(t, "<") || contains(t, ">")) return Kind::range;
    return Kind::type;
  }

  /// `re.fullmatch(r'\d{4}-\d\d-\d\dT... ERROR disk full', line)` (also `re.match` anchored with
  /// `$`/`\Z`, `re.search` anchored at both ends): the whole value matched against a pattern with
  /// literal text whose variable parts are digits, spaces or punctuation only (a timestamp, a
  /// count) is an equality modulo those parts, as `assertRegex`/`toMatch` are. A wildcard `.`, a
  /// range of letters (`[A-Z]`, `\w`, `\S`, `[^...]`; `[0-9:T-]` is fine) or alternatives let text other than the
  /// expected one through (`[A-Z]{5} disk full` accepts `ERRRO`). Not negated (`not re.match(...)`).
  static bool anchored_pattern_pin(std::string_view t) {
    static const rx::regex call(R"(^\s*(?:re|regex)\s*\.\s*(fullmatch|match|search)\s*\(\s*[rRuU]{0,2}(['"])((?:\\.|(?!\2)[^\\])*)\2)");
    boost::match_results<std::string_view::const_iterator> m;
    if (!rx::regex_search(t.begin(), t.end(), m, call)) return false;
    const std::string how = m[1].str(), p = m[3].str();
    if (p.empty()) return false;
    auto ends_anchored = [&] {
      if (ends_with(p, "\\Z")) return true;
      if (p.back() != '$') return false;
      std::size_t slashes = 0;
      for (std::size_t i = p.size() - 1; i-- > 0 && p[i] == '\\';) ++slashes;
      return slashes % 2 == 0;
    };
    const bool anchored = how == "fullmatch" || (how == "match" && ends_anchored()) ||
                          (how == "search" && (starts_with(p, "^") || starts_with(p, "\\A")) && ends_anchored());
    if (!anchored) return false;
    int literal = 0;
    bool in_class = false;
    for (std::size_t i = 0; i < p.size(); ++i) {
      const char ch = p[i];
      if (ch == '\\') {
        // An escape: `\d`, `\s` are digits and spaces, `\.` a literal; `\w`, `\S`, `\D`, `\W` take letters.
        if (i + 1 < p.size() && std::string_view("wWSDpPX").find(p[i + 1]) != std::string_view::npos) return false;
        ++i;
        continue;
      }
      if (in_class) {
        // A range of letters or a negated class lets other text through (`[A-Z]`, `[^,]`); single
        // letters are literals (`[0-9:T-]`).
        const bool letter_range = ch == '-' && i > 0 && i + 1 < p.size() && p[i + 1] != ']' &&
                                  (std::isalpha(static_cast<unsigned char>(p[i - 1])) || std::isalpha(static_cast<unsigned char>(p[i + 1])));
        if (letter_range || (ch == '^' && p[i - 1] == '[')) return false;
        in_class = ch != ']';
        continue;
      }
      if (ch == '[') {
        in_class = true;
      } else if (ch == '{') {
        while (i < p.size() && p[i] != '}') ++i;
      } else if (ch == '.' || ch == '|') {
        return false;  // a wildcard, alternatives
      } else if (std::isalnum(static_cast<unsigned char>(ch))) {
        ++literal;
      }
    }
    return literal >= 3;
  }

  /// `LINE.fullmatch(value)` (also `.match`, `.search`) where the file binds LINE once to
  /// `re.compile(<literal>)` (at module level or in a function; `self.LINE` too): read as the same
  /// call of `re` with the literal pattern (anchored_pattern_pin). A pattern with flags (`re.I`
  /// accepts other text) or a name bound more than once is not.
  bool compiled_pattern_pin(std::string_view t) const {
    static const rx::regex use(R"(^\s*(?:self\s*\.\s*|cls\s*\.\s*)?([A-Za-z_]\w*)\s*\.\s*(fullmatch|match|search)\s*\()");
    boost::match_results<std::string_view::const_iterator> m;
    if (!rx::regex_search(t.begin(), t.end(), m, use)) return false;
    if (!compiled_) {
      // (Line by line, once per file: the bindings and how often each name is assigned.)
      compiled_.emplace();
      static const rx::regex bound(R"(^[ \t]*(?:self\.|cls\.)?([A-Za-z_]\w*)[ \t]*=[ \t]*(?:re|regex)[ \t]*\.[ \t]*compile[ \t]*\([ \t]*([rRuU]{0,2}(['"])(?:\\.|(?!\3)[^\\])*\3)[ \t]*\)[ \t]*(?:#.*)?)");
      static const rx::regex assigned(R"(^[ \t]*(?:self\.|cls\.)?([A-Za-z_]\w*)[ \t]*=[^=].*)");
      std::map<std::string, int> times;
      std::map<std::string, std::string> patterns;
      const std::string_view src(s_.src.data(), std::min<std::size_t>(s_.src.size(), 1u << 20));
      for (std::size_t at = 0; at < src.size();) {
        const auto nl = src.find('\n', at);
        const std::string line(src.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at));
        at = nl == std::string_view::npos ? src.size() : nl + 1;
        if (line.find('=') == std::string::npos || line.size() > 2000) continue;
        rx::smatch a;
        if (!rx::regex_match(line, a, assigned)) continue;
        ++times[a[1].str()];
        if (rx::smatch b; line.find("compile") != std::string::npos && rx::regex_match(line, b, bound)) patterns[b[1].str()] = b[2].str();
      }
      for (auto& [name, pattern] : patterns)
        if (times[name] == 1) compiled_->emplace(name, std::move(pattern));
    }
    auto p = compiled_->find(m[1].str());
    if (p == compiled_->end()) return false;
    return anchored_pattern_pin("re." + m[2].str() + "(" + p->second + ", " + std::string(m.suffix().first, t.end()));
  }

  /// Does this try/catch swallow failures? A handler that does not re-raise and catches assertion
  /// failures: any JS/TS catch (untyped), a bare or broad except/catch, or one naming the assertion
  /// error type.
  /// A `finally` that leaves the function or the enclosing loop (`finally: return`, `finally {
  /// break; }`): Python, JS and the JVM drop the exception in flight, so a failed check in the try
  /// is lost.
  bool finally_drops(TSNode try_node) const {
    TSNode fin{};
    for (uint32_t i = 0; i < ts_node_named_child_count(try_node); ++i) {
      TSNode c = tsnav::named_child(try_node, i);
      if (type(c) == "finally_clause" || type(c) == "finally_block") fin = c;
    }
    if (ts_node_is_null(fin)) return false;
    static const std::set<std::string_view> kScopes = {
        "function_definition", "lambda", "arrow_function", "function_expression", "function_declaration",
        "method_declaration", "lambda_expression", "class_definition", "class_declaration", "generator_function",
        "generator_function_declaration", "anonymous_function", "function_literal", "method_definition"};
    static const std::set<std::string_view> kLoops = {"for_statement", "while_statement", "do_statement", "for_in_statement",
                                                      "enhanced_for_statement", "do_while_statement"};
    static const std::set<std::string_view> kSwitches = {"switch_statement", "switch_expression", "switch_block"};
    // Labels declared inside the finally (`outer: for (...)`, Kotlin `outer@ for`): a jump to one
    // of them stays inside.
    std::set<std::string> labels;
    std::function<void(TSNode, int)> collect = [&](TSNode n, int depth) {
      if (depth > kMaxSyntaxDepth) return;
      const std::string_view t = type(n);
      if (t == "labeled_statement") {
        const std::string l = text(n);
        labels.insert(strip_spaces(l.substr(0, l.find(':'))));
      } else if (t == "label") {
        labels.insert(strip_spaces(text(n)).substr(0, strip_spaces(text(n)).find('@')));
      }
      for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) collect(tsnav::named_child(n, i), depth + 1);
    };
    collect(fin, 0);
    // The label a jump names (`break outer`, `break@outer`): "" when none.
    auto jump_label = [&](TSNode n) -> std::string {
      std::string j = strip_spaces(text(n));
      if (auto at = j.find('@'); at != std::string::npos) return j.substr(at + 1);
      for (const char* kw : {"break", "continue"})
        if (starts_with(j, kw)) j = j.substr(std::strlen(kw));
      while (!j.empty() && (j.back() == ';')) j.pop_back();
      return j;
    };
    bool drops = false;
    std::function<void(TSNode, bool, bool, int)> walk = [&](TSNode n, bool in_loop, bool in_switch, int depth) {
      if (drops || depth > kMaxSyntaxDepth) return;
      const std::string_view t = type(n);
      if (kScopes.count(t)) return;
      if (t == "return_statement") drops = true;
      if (t == "break_statement" || t == "continue_statement") {
        const std::string label = jump_label(n);
        if (!label.empty()) drops = !labels.count(label);
        else drops = t == "break_statement" ? !in_loop && !in_switch : !in_loop;
      }
      if (t == "jump_expression") {
        const std::string j = strip_spaces(text(n));
        if (starts_with(j, "return")) drops = drops || !starts_with(j, "return@");  // return@label leaves only a lambda
        else if (starts_with(j, "break") || starts_with(j, "continue")) {
          const std::string label = jump_label(n);
          drops = drops || (label.empty() ? !in_loop : !labels.count(label));
        }
      }
      const bool loop = in_loop || kLoops.count(t) > 0;
      const bool sw = in_switch || kSwitches.count(t) > 0;
      for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) walk(tsnav::named_child(n, i), loop, sw, depth + 1);
    };
    walk(fin, false, false, 0);
    return drops;
  }

  bool swallows(TSNode try_node) const {
    if (lang_ != Lang::cpp && lang_ != Lang::go && lang_ != Lang::rust && finally_drops(try_node)) return true;
    const uint32_t n = ts_node_named_child_count(try_node);
    for (uint32_t i = 0; i < n; ++i) {
      TSNode c = tsnav::named_child(try_node, i);
      std::string_view ct = type(c);
      if (ct != "except_clause" && ct != "except_group_clause" && ct != "catch_clause" && ct != "catch_block") continue;
      const std::string h = text(c);
      if (is_js(lang_)) {
        // Read like a promise's rejection handler: the conditions it passes, the calls it makes.
        // (Or one that checks the caught error as an assertion failure is not, `assert.strictEqual(e.code,
        // 'EBADLIT')`: an assertion failure in the try fails that check.)
        TSNode body = field(c, "body");
        if (ts_node_is_null(body) || (!js_catch_fails(s_, body) && !handler_checks_error(c))) return true;
        continue;
      }
      if (reraises(c)) continue;  // re-raised on every path: nothing is swallowed
      // (A handler whose first checks hold only for another error, `assert isinstance(e,
      // ValueError)`, fails on an assertion failure it catches.)
      if (handler_checks_error(c)) continue;
      // The handler's header: up to ':' in Python, up to '{' elsewhere.
      const std::string head = h.substr(0, h.find(lang_ == Lang::python ? ':' : '{'));
      if (lang_ == Lang::python && head.find_first_not_of(" \t", 6) == std::string::npos) return true;  // bare except
      if (contains(head, "(...)")) return true;
      // Whole type names only: catching IllegalArgumentException does not swallow an AssertionError.
      // (pytest's Failed/OutcomeException, unittest's failureException: what pytest.fail and
      // self.fail raise. Java's and Kotlin's assertion failures are Errors: `catch (Exception e)`
      // lets them through.)
      static const std::set<std::string, std::less<>> kCatchesFailures = {
          "Exception", "BaseException", "AssertionError", "AssertionFailedError", "Throwable", "Error",
          "std::exception", "AssertionException", "Failed", "OutcomeException", "failureException"};
      const bool jvm = lang_ == Lang::java || lang_ == Lang::kotlin;
      std::string word;
      for (char ch : head + " ") {
        if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == ':') {
          word += ch;
          continue;
        }
        if (jvm && word == "Exception") {
          word.clear();
          continue;
        }
        if (kCatchesFailures.count(word) || kCatchesFailures.count(word.substr(word.rfind(':') == std::string::npos ? 0 : word.rfind(':') + 1)))
          return true;
        word.clear();
      }
    }
    return false;
  }

  /// Does an except/catch handler re-raise on every path? Decided from its statements, not its
  /// text (a comment or a string saying "raise" re-raises nothing): one statement at the top level
  /// of the handler's body must be a raise/throw, a call that fails the test (fail, pytest.fail,
  /// Assert.fail, FAIL(), t.Fatal...) or a return/exit of the failure (`return Promise.reject(e)`).
  bool reraises(TSNode handler) const {
    TSNode body = field(handler, "body");
    if (ts_node_is_null(body))
      for (uint32_t i = ts_node_named_child_count(handler); i-- > 0;) {
        TSNode c = tsnav::named_child(handler, i);
        std::string_view ct = type(c);
        if (ct == "block" || ct == "statement_block" || ct == "compound_statement" || ct == "statements") {
          body = c;
          break;
        }
      }
    if (ts_node_is_null(body)) return false;
    static const std::set<std::string, std::less<>> kFailCalls = {"fail", "FAIL", "Fail", "FailNow", "Fatal", "Fatalf",
                                                                  "ADD_FAILURE", "GTEST_FAIL", "reject", "panic", "abort"};
    for (uint32_t i = 0; i < ts_node_named_child_count(body); ++i) {
      TSNode st = tsnav::named_child(body, i);
      std::string_view t = type(st);
      if (t == "raise_statement" || t == "throw_statement" || t == "throw_expression") return true;
      if (t == "expression_statement" || t == "return_statement") {
        for (uint32_t j = 0; j < ts_node_named_child_count(st); ++j) {
          TSNode e = tsnav::named_child(st, j);
          std::string_view et = type(e);
          if (et == "await_expression" && ts_node_named_child_count(e) > 0) e = tsnav::named_child(e, 0), et = type(e);
          // `FAIL() << e.what()`, `ADD_FAILURE() << ...`: the failing call is the stream's left end.
          while (et == "binary_expression" && !ts_node_is_null(field(e, "left"))) e = field(e, "left"), et = type(e);
          if (et == "throw_expression") return true;
          if ((et == "call" || et == "call_expression" || et == "method_invocation") && kFailCalls.count(callee(e))) return true;
        }
      }
    }
    return false;
  }

  void add_marker(TestUnit* unit, const std::string& marker, bool conditional, int at = 0) {
    if (!unit) {
      if (model_->file_markers.empty()) model_->file_markers_conditional = conditional;
      else model_->file_markers_conditional = model_->file_markers_conditional && conditional;
      model_->file_markers.insert(marker);
      return;
    }
    if (unit->markers.empty()) unit->conditional = conditional;
    else unit->conditional = unit->conditional && conditional;
    unit->markers.insert(marker);
    if (at > 0) unit->skip_line = unit->skip_line == 0 || unit->skip_line == at ? at : -1;
  }

  /// The part of a test that is its body (so a renamed test keeps its hash).
  TSNode body_of(TSNode n) const {
    TSNode b = field(n, "body");
    if (!ts_node_is_null(b)) return b;
    if (is_js(lang_)) {
      TSNode args = field(n, "arguments");
      if (!ts_node_is_null(args) && ts_node_named_child_count(args) > 0)
        return tsnav::named_child(args, ts_node_named_child_count(args) - 1);
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
      if (type(tsnav::named_child(n, i)) == "function_body") return tsnav::named_child(n, i);
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

  /// Go source without `//` and `/* */` comments and with string and rune literals emptied: text
  /// checks on it see code only.
  static std::string strip_comments_and_strings(const std::string& src) {
    std::string out;
    out.reserve(src.size());
    for (std::size_t i = 0; i < src.size(); ++i) {
      const char ch = src[i];
      if (ch == '/' && i + 1 < src.size() && src[i + 1] == '/') {
        while (i < src.size() && src[i] != '\n') ++i;
        out += '\n';
      } else if (ch == '/' && i + 1 < src.size() && src[i + 1] == '*') {
        const auto e = src.find("*/", i + 2);
        i = e == std::string::npos ? src.size() : e + 1;
        out += ' ';
      } else if (ch == '"' || ch == '\'' || ch == '`') {
        std::size_t j = i + 1;
        while (j < src.size() && src[j] != ch) j += (src[j] == '\\' && ch != '`') ? 2 : 1;
        out += ch;
        out += ch;
        i = std::min(j, src.size());
      } else {
        out += ch;
      }
    }
    return out;
  }

  /// Go: a deferred recover() that does not report the panic (t.Fatal, t.Error, panic again)
  /// swallows every failure of the test.
  static bool go_recovers(const std::string& test) {
    for (auto p = test.find("recover()"); p != std::string::npos; p = test.find("recover()", p + 1)) {
      const auto start = test.rfind("defer", p);
      const auto end = test.find("}()", p);
      const std::string handler = test.substr(start == std::string::npos ? 0 : start,
                                              end == std::string::npos ? std::string::npos : end - start);
      const std::string code = strip_comments_and_strings(handler);
      if (!contains(code, ".Fatal") && !contains(code, ".Error") && !contains(code, "panic(")) return true;
    }
    return false;
  }

  /// Python class scope: collected by pytest when named Test* or a subclass (unittest.TestCase).
  /// Python: a decorator the file defines that returns a coroutine function or a generator in
  /// place of the test (`async def run(*a): return fn(*a)`, `def run(*a): yield fn(*a)`): pytest
  /// skips or does not run it. Why ("" when it does not).
  std::string python_decorator_hides(const std::string& decorator) const {
    const std::string name = decorator_name(decorator);
    const auto f = defs_.functions.find(name);
    if (f == defs_.functions.end()) return "";
    TSNode body = field(f->second, "body");
    const std::string returned = text(body);
    for (uint32_t i = 0; !ts_node_is_null(body) && i < ts_node_named_child_count(body); ++i) {
      TSNode d = tsnav::named_child(body, i);
      if (type(d) == "decorated_definition") d = field(d, "definition");
      if (ts_node_is_null(d) || type(d) != "function_definition") continue;
      const std::string inner = text(field(d, "name"));
      const bool coroutine = starts_with(text(d), "async");
      bool generator = false;
      std::function<void(TSNode, int)> walk = [&](TSNode n, int depth) {
        if (generator || depth > kMaxSyntaxDepth) return;
        if (type(n) == "yield") generator = true;
        if (depth > 0 && (type(n) == "function_definition" || type(n) == "lambda" || type(n) == "class_definition")) return;
        for (uint32_t k = 0; k < ts_node_named_child_count(n); ++k) walk(tsnav::named_child(n, k), depth + 1);
      };
      walk(field(d, "body"), 1);
      if ((coroutine || generator) && rx::regex_search(returned, detail::cached_regex("\\breturn\\s+" + inner + "\\b")))
        return "the decorator `@" + name + "` (line " + std::to_string(line(f->second)) + ") replaces the test with " +
               (coroutine ? "a coroutine function, which pytest skips without an async plugin" : "a generator, which pytest does not run");
    }
    return "";
  }

  /// A class wrapper (`def quiet(cls)`, a metaclass) that wraps the methods with a function of the
  /// file whose handler drops failures (`setattr(cls, n, tolerant(f))`): why ("" when it does not).
  std::string applies_dropper(TSNode wrapper) const {
    std::string why;
    std::function<void(TSNode, int)> walk = [&](TSNode n, int depth) {
      if (!why.empty() || depth > kMaxSyntaxDepth) return;
      if (type(n) == "call") {
        const std::string callee_name = last_dotted(text(field(n, "function")));
        if (auto f = defs_.functions.find(callee_name); f != defs_.functions.end() && !ts_node_eq(f->second, wrapper))
          if (const int at = drops_failures(s_, f->second, defs_, try_swallows()))
            why = "applies `" + callee_name + "` (line " + std::to_string(line(f->second)) + "), whose handler at line " +
                  std::to_string(at) + " drops failures";
        if (auto d = defs_.imported_droppers.find(callee_name); why.empty() && d != defs_.imported_droppers.end())
          why = "applies " + d->second;
      }
      for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) walk(tsnav::named_child(n, i), depth + 1);
    };
    walk(wrapper, 0);
    return why;
  }

  /// Python: what wraps every method of a test class from outside the methods: a class decorator,
  /// a metaclass, or a base class's `__init_subclass__` the file defines that drops failures (why;
  /// "" when none).
  std::string python_class_wrapper_swallows(TSNode cls, int depth = 0) const {
    if (depth > 6) return "";
    TSNode parent = tsnav::parent(cls);
    if (depth == 0 && !ts_node_is_null(parent) && type(parent) == "decorated_definition")
      for (uint32_t i = 0; i < ts_node_named_child_count(parent); ++i) {
        TSNode d = tsnav::named_child(parent, i);
        if (type(d) != "decorator") continue;
        if (std::string why = decorator_swallows(s_, lang_, text(d), defs_, try_swallows()); !why.empty())
          return starts_with(why, "runs under ") ? "runs in a test class under " + why.substr(11) : "runs in a test class that " + why;
        const std::string name = decorator_name(text(d));
        if (auto f = defs_.functions.find(name); f != defs_.functions.end())
          if (std::string why = applies_dropper(f->second); !why.empty())
            return "runs in a test class under the decorator `@" + name + "` (line " + std::to_string(line(f->second)) + "), which " + why;
      }
    TSNode sup = field(cls, "superclasses");
    for (uint32_t i = 0; !ts_node_is_null(sup) && i < ts_node_named_child_count(sup); ++i) {
      TSNode arg = tsnav::named_child(sup, i);
      std::string base;
      bool meta = false;
      if (type(arg) == "keyword_argument") {
        if (text(field(arg, "name")) != "metaclass") continue;
        base = text(field(arg, "value"));
        meta = true;
      } else {
        base = text(arg);
      }
      base = base.substr(base.rfind('.') == std::string::npos ? 0 : base.rfind('.') + 1);
      // A metaclass: a class the file defines, or a plain function (`metaclass=quiet`).
      TSNode wrapper{};
      TSNode base_class{};
      if (auto c = defs_.classes.find(base); c != defs_.classes.end()) base_class = c->second;
      if (meta) {
        if (!ts_node_is_null(base_class)) wrapper = base_class;
        else if (auto f = defs_.functions.find(base); f != defs_.functions.end()) wrapper = f->second;
      } else if (!ts_node_is_null(base_class)) {
        // A base class wraps its subclasses' methods only through __init_subclass__ (its other
        // methods are the tests' helpers, judged where the tests call them).
        TSNode body = field(base_class, "body");
        for (uint32_t k = 0; !ts_node_is_null(body) && k < ts_node_named_child_count(body); ++k) {
          TSNode d = tsnav::named_child(body, k);
          if (type(d) == "decorated_definition") d = field(d, "definition");
          if (!ts_node_is_null(d) && type(d) == "function_definition" && text(field(d, "name")) == "__init_subclass__") wrapper = d;
        }
      }
      if (!ts_node_is_null(wrapper)) {
        const std::string by = std::string("runs in a test class built by ") + (meta ? "the metaclass " : "the base class ") + base +
                               (meta ? "" : "'s __init_subclass__") + " (line " + std::to_string(line(wrapper)) + "), ";
        if (const int at = drops_failures(s_, wrapper, defs_, try_swallows()))
          return by + "whose handler at line " + std::to_string(at) + " drops failures";
        if (std::string why = applies_dropper(wrapper); !why.empty()) return by + "which " + why;
      }
      // What the base class inherits: its own metaclass and bases.
      if (!meta && !ts_node_is_null(base_class) && !ts_node_eq(base_class, cls))
        if (std::string why = python_class_wrapper_swallows(base_class, depth + 1); !why.empty()) return why;
    }
    return "";
  }

  /// Python: module-level code that applies a failure-dropping wrapper of the file (or of a helper
  /// module) to something (`for n, f in vars(TestAdd).items(): setattr(TestAdd, n, tolerant(f))`,
  /// `TestAdd.test_add = tolerant(TestAdd.test_add)`): why ("" when none).
  std::string module_level_dropper(TSNode root) const {
    std::string why;
    // Only what touches a test: the call or the loop around it names one (`TestAdd`, `test_add`).
    static const rx::regex kTestWord(R"(\b(?:Test|test_?)\w*)");
    std::function<void(TSNode, int, const std::string&)> walk = [&](TSNode n, int depth, const std::string& around) {
      if (!why.empty() || depth > kMaxSyntaxDepth) return;
      const std::string_view t = type(n);
      if (t == "function_definition" || t == "class_definition" || t == "decorated_definition" || t == "lambda") return;
      std::string context = around;
      if (t == "for_statement" || t == "while_statement") {
        const std::string h = text(n);
        context += h.substr(0, std::min(h.find(':'), kRegexLineChars));
      }
      const bool touches_test = t == "call" && rx::regex_search(context + text(n).substr(0, kRegexLineChars), kTestWord);
      if (t == "call" && touches_test) {
        const std::string name = last_dotted(text(field(n, "function")));
        if (auto f = defs_.functions.find(name); f != defs_.functions.end()) {
          if (const int at = drops_failures(s_, f->second, defs_, try_swallows()))
            why = "is wrapped at module level (line " + std::to_string(line(n)) + ") by `" + name + "`, whose handler at line " +
                  std::to_string(at) + " drops failures";
        } else if (auto d = defs_.imported_droppers.find(name); d != defs_.imported_droppers.end()) {
          why = "is wrapped at module level (line " + std::to_string(line(n)) + ") by " + d->second;
        }
      }
      for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) walk(tsnav::named_child(n, i), depth + 1, context);
    };
    walk(root, 0, "");
    return why;
  }

  bool python_class_collectable(TSNode cls, const std::string& name) const {
    TSNode sup = field(cls, "superclasses");
    const bool collectable = starts_with(name, "Test") || (!ts_node_is_null(sup) && strip_spaces(text(sup)) != "()" &&
                                                           strip_spaces(text(sup)) != "(object)");
    TSNode body = field(cls, "body");
    if (!ts_node_is_null(body) && contains(strip_spaces(text(body)), "__test__=False")) return false;
    // pytest does not collect a class with its own constructor ("cannot collect test class ...
    // because it has a __init__ constructor"); unittest.TestCase subclasses keep theirs.
    const bool test_case = !ts_node_is_null(sup) && contains(text(sup), "TestCase");
    for (uint32_t i = 0; !ts_node_is_null(body) && !test_case && i < ts_node_named_child_count(body); ++i) {
      TSNode d = tsnav::named_child(body, i);
      if (type(d) == "decorated_definition") d = field(d, "definition");
      if (ts_node_is_null(d) || type(d) != "function_definition") continue;
      const std::string fn = text(field(d, "name"));
      if (fn == "__init__" || fn == "__new__") return false;
    }
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
        TSNode c = tsnav::child(n, i);
        std::string_view ct = type(c);
        // (Kotlin: the try's statements are children of the try_expression itself, after its `{`.)
        const bool body = ct == "block" || ct == "statement_block" || ct == "compound_statement" || ct == "statements";
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
      // `if got != 4: assert False, msg`: a failure branch, read as `pytest.fail` in one.
      if (const_false(expr) && push_failure_branch(n, unit, swallow_depth > 0 || recovering)) return;
      // (`try: parse(s); assert False, "expected ValueError"` / `except ValueError: pass`: as pytest.fail there.)
      if (const_false(expr) && push_expected_throw(n, unit, swallow_depth > 0 || recovering)) return;
      a.swallowed = swallow_depth > 0 || recovering;
      for (auto& c : clause_checks(a, expr, {" and "}, false)) {
        if (c.kind == Kind::approx) {
          double rel = number_after(s, "rel"), abs_tol = number_after(s, "abs");
          c.tolerance = std::max(rel, abs_tol);
          if (c.tolerance < 0) c.tolerance = kPytestApproxDefault;
        }
        flag_throw(n, c);
        annotate(n, c);
        unit->asserts.push_back(std::move(c));
      }
      return;
    }
    // `if got != 4: raise AssertionError(...)`, `if (got !== 4) throw new assert.AssertionError(...)`:
    // a failure branch, read as classify_call reads `pytest.fail` in one.
    if ((t == "raise_statement" || t == "throw_statement") && lang_ != Lang::go &&
        (contains(text(n).substr(0, kConditionChars), "AssertionError") || contains(text(n).substr(0, kConditionChars), "self.failureException"))) {
      if (push_failure_branch(n, unit, swallow_depth > 0 || recovering)) return;
    }
    // Failing at the end of a try whose handler catches the expected error, `throw new
    // AssertionError("expected")`, `raise AssertionError`, JavaScript's `throw new Error('should have
    // thrown')` under a handler that checks the error: as a fail call there (expected_throw).
    if ((t == "raise_statement" || t == "throw_statement") && lang_ != Lang::go &&
        ((is_js(lang_) && rx::regex_search(text(n).substr(0, kConditionChars), detail::cached_regex(R"(^throw\s+new\s+(?:assert\.)?(?:Assertion)?Error\s*\()"))) ||
         contains(text(n).substr(0, kConditionChars), "AssertionError") ||
         contains(text(n).substr(0, kConditionChars), "failureException")) &&
        push_expected_throw(n, unit, swallow_depth > 0 || recovering, /*specific_only=*/is_js(lang_)))
      return;
    if (t == "raise_statement") {
      // `raise unittest.SkipTest(...)`, `raise pytest.skip.Exception(...)`: a skip by exception.
      const std::string r = text(n).substr(0, kConditionChars);
      if (contains(r, "SkipTest") || contains(r, "skip.Exception") || contains(r, "Skipped")) {
        bool cond = false;
        for (TSNode p = tsnav::parent(n); !ts_node_is_null(p) && type(p) != "function_definition"; p = tsnav::parent(p))
          if (type(p) == "if_statement") {
            TSNode c = field(p, "condition");
            cond = platform_condition(ts_node_is_null(c) ? text(p).substr(0, kConditionChars) : text(c));
            break;
          }
        add_marker(unit, "raise SkipTest", cond, line(n));
      }
    }
    if (t == "call" || t == "call_expression" || t == "method_invocation" || t == "macro_invocation") {
      // (A call inside code an expectation of failure wraps, `assert.throws(() => check(...))`,
      // `assertThrows(AssertionError.class, () -> check(...))`: link_helpers inverts its helper's checks.)
      if (inverted_depth_ > 0) inverted_calls_.insert(ts_node_start_byte(n));
      const std::string name = callee(n);
      static const std::set<std::string> kSkipCalls = {"skip", "Skip", "SkipNow", "Skipf", "skipTest", "GTEST_SKIP",
                                                       "todo", "importorskip", "assumeTrue", "assumeFalse",
                                                       "assumingThat", "assumeThat", "assumeNotNull", "xfail"};
      if (kSkipCalls.count(name)) {
        // Conditional on the platform when an enclosing if says so.
        bool cond = false;
        for (TSNode p = tsnav::parent(n); !ts_node_is_null(p); p = tsnav::parent(p)) {
          std::string_view pt = type(p);
          if (pt == "if_statement" || pt == "if_expression") {
            TSNode c = field(p, "condition");
            cond = platform_condition(ts_node_is_null(c) ? text(p).substr(0, kConditionChars) : text(c));
            break;
          }
          if (pt == "function_definition" || pt == "function_declaration" || pt == "arrow_function" || pt == "function_item") break;
        }
        if (starts_with(name, "assum")) cond = cond || platform_condition(text(n));
        add_marker(unit, "call " + name, cond, line(n));
      } else if (name == "EXPECT_NONFATAL_FAILURE" || name == "EXPECT_FATAL_FAILURE" ||
                 name == "EXPECT_NONFATAL_FAILURE_ON_ALL_THREADS" || name == "EXPECT_FATAL_FAILURE_ON_ALL_THREADS") {
        // gtest-spi: the wrapped statement's failures are expected (they make the check pass).
        ++inverted_depth_;
        for (uint32_t i = 0; i < ts_node_child_count(n); ++i)
          visit(tsnav::child(n, i), scope, scope_collectable, unit, swallow_depth, recovering);
        --inverted_depth_;
        return;
      } else if (name == "catch_unwind") {
        for (uint32_t i = 0; i < ts_node_child_count(n); ++i)
          visit(tsnav::child(n, i), scope, scope_collectable, unit, swallow_depth + 1, recovering);
        return;
      } else if (auto checks = classify_call(n); !checks.empty()) {
        const bool inverts = last_inverts_;
        for (auto& a : checks) {
          a.swallowed = swallow_depth > 0 || recovering;
          if (checks.size() == 1) flag_throw(n, a);
          annotate(n, a);
          unit->asserts.push_back(std::move(a));
        }
        // Code an expectation of failure wraps (assert.throws(() => { assert... }),
        // assertThrows(AssertionError.class, () -> ...)): its checks are inverted.
        if (inverts) {
          ++inverted_depth_;
          visit_functions_in(n, scope, scope_collectable, unit, swallow_depth, recovering);
          --inverted_depth_;
        }
        // Nested calls (expect(x).toBe(y) holds expect(x)) are part of the same assertion.
        return;
      }
    }
    for (uint32_t i = 0; i < ts_node_child_count(n); ++i)
      visit(tsnav::child(n, i), scope, scope_collectable, unit, swallow_depth, recovering);
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
          if (type(tsnav::named_child(n, i)) == "type_identifier") {
            cls = text(tsnav::named_child(n, i));
            break;
          }
      // Class-level skip markers apply to every test inside.
      std::string head = text(n).substr(0, text(n).find_first_of("{:"));
      TSNode parent = tsnav::parent(n);
      if (!ts_node_is_null(parent) && type(parent) == "decorated_definition") head = text(parent).substr(0, text(parent).find("class "));
      if (auto m = skip_marker(head)) add_marker(nullptr, "class " + cls + ": " + *m, platform_condition(head));
      const bool collectable = lang_ != Lang::python || python_class_collectable(n, cls);
      const std::string saved_class_swallow = class_swallow_;
      if (lang_ == Lang::python && class_swallow_.empty()) class_swallow_ = python_class_wrapper_swallows(n);
      for (uint32_t i = 0; i < ts_node_child_count(n); ++i)
        visit(tsnav::child(n, i), scope.empty() ? cls : scope + "." + cls, collectable && scope_collectable, nullptr,
              swallow_depth, recovering);
      class_swallow_ = saved_class_swallow;
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
          title = text(tsnav::named_child(args, 0));
          if (title.size() >= 2) title = title.substr(1, title.size() - 2);
        }
        if (base == "xdescribe" || contains(f, ".skip")) add_marker(nullptr, "describe " + title + ": " + f, false);
        if (base == "fdescribe" || contains(f, ".only")) add_marker(nullptr, "focus " + title, false);
        for (uint32_t i = 0; i < ts_node_child_count(n); ++i)
          visit(tsnav::child(n, i), scope.empty() ? title : scope + " " + title, scope_collectable, nullptr,
                swallow_depth, recovering);
        return;
      }
    }
    if (lang_ == Lang::python && (t == "expression_statement" || t == "raise_statement") && ts_node_is_null(tsnav::parent(tsnav::parent(n)))) {
      // Module level: pytestmark, pytest.skip(allow_module_level=True), importorskip, raise SkipTest.
      std::string s = text(n);
      if (starts_with(s, "pytestmark") || contains(s, "allow_module_level") || t == "raise_statement")
        if (auto m = skip_marker(s)) add_marker(nullptr, "module: " + *m, platform_condition(s));
      if (contains(s, "pytest.skip(") && contains(s, "allow_module_level")) add_marker(nullptr, "module: pytest.skip", platform_condition(s));
      if (contains(s, "importorskip(")) add_marker(nullptr, "module: importorskip", false);
    }
    if (lang_ == Lang::python && t == "if_statement" && ts_node_is_null(tsnav::parent(tsnav::parent(n)))) {
      // Module level `if cond: pytest.skip(..., allow_module_level=True)` / `raise unittest.SkipTest`.
      std::string s = text(n);
      // (Not one only in the branch of a condition never true on Python 3, `if sys.version_info[:2] ==
      // (2, 6): raise SkipTest(...)`: it skips nothing.)
      const auto skips = [](const std::string& x) { return contains(x, "allow_module_level") || contains(x, "SkipTest"); };
      TSNode cons = field(n, "consequence"), alt = field(n, "alternative");
      std::string cond = text(field(n, "condition"));
      for (char& ch : cond)
        if (ch == '\n' || ch == '\t' || ch == '\r') ch = ' ';
      const bool never_runs = !ts_node_is_null(cons) && skips(text(cons)) && (ts_node_is_null(alt) || !skips(text(alt))) &&
                              never_true_condition(cond);
      if (skips(s) && !never_runs) add_marker(nullptr, "module: conditional skip", platform_condition(text(field(n, "condition"))));
    }
    if (lang_ == Lang::rust && t == "mod_item") {
      TSNode name = field(n, "name");
      for (uint32_t i = 0; i < ts_node_child_count(n); ++i)
        visit(tsnav::child(n, i), ts_node_is_null(name) ? scope : text(name), scope_collectable, nullptr, swallow_depth, recovering);
      return;
    }
    UnitInfo info = recognize(n, scope, scope_collectable);
    if (info.name.empty()) {
      for (uint32_t i = 0; i < ts_node_child_count(n); ++i)
        visit(tsnav::child(n, i), scope, scope_collectable, nullptr, swallow_depth, recovering);
      return;
    }
    TestUnit u;
    u.name = info.name;
    u.line = line(n);
    u.end_line = static_cast<int>(ts_node_end_point(n).row) + 1;
    u.focus = info.focus;
    u.collectable = info.collectable;
    u.hidden_by = info.hidden_by;
    if (lang_ == Lang::python && u.collectable)
      for (const auto& d : info.decorators)
        if (std::string why = python_decorator_hides(d); !why.empty()) {
          u.collectable = false;
          u.hidden_by = why;
          break;
        }
    u.cases = std::max(1, info.cases);
    u.cases_unknown = info.cases_unknown;
    TSNode parent = tsnav::parent(n);
    if (lang_ == Lang::python && !ts_node_is_null(parent) && type(parent) == "decorated_definition") u.line = line(parent);
    for (const auto& d : info.decorators) {
      if (lang_ == Lang::python)
        for (auto& [param, values] : parametrize_columns(d)) u.table_values[param] += values;
      if (starts_with(d, "build: ")) add_marker(&u, d, platform_condition(d));
      else if (auto m = skip_marker(d))
        add_marker(&u, *m, platform_condition(d) && (contains(d, "skipif") || contains(d, "skipIf") || contains(d, "OnOs") ||
                                                      contains(d, "cfg_attr") || contains(d, "EnabledIf") || contains(d, "DisabledIf")));
      else if (contains(d, ".skip") || contains(d, "skip:") || contains(d, "todo") || starts_with(d, "x"))
        add_marker(&u, "skip: " + d.substr(0, kMarkerChars), contains(d, "skip:") && platform_condition(d));
      // Rust's #[should_panic], JUnit 4's @Test(expected = JSONException.class): the body is expected to throw.
      static const rx::regex junit_expected(R"(@Test\s*\([^)]*\bexpected\s*=\s*([\w.]+)\s*(?:\.|::)\s*class)");
      rx::smatch expected;
      const bool junit = (lang_ == Lang::java || lang_ == Lang::kotlin) && rx::regex_search(d, expected, junit_expected);
      if (contains(d, "should_panic") || junit) {
        Assertion a;
        const std::string ty = junit ? expected[1].str().substr(expected[1].str().rfind('.') == std::string::npos ? 0 : expected[1].str().rfind('.') + 1) : "";
        a.kind = junit ? (broad_exception(ty) ? Kind::throws_broad : Kind::throws_specific)
                       : contains(d, "expected") ? Kind::throws_specific : Kind::throws_broad;
        a.line = u.line;
        a.operands = {"<panic>"};
        // (What the body computes is what is expected to panic: `add(i32::MAX, 1);`, `let r = add(i32::MAX, 1);`.)
        if (statement_operands(body_of(n), TSNode{}, a)) a.tautology = true;
        u.asserts.push_back(a);
      }
    }
    // C/C++: a test inside #if/#ifdef is compiled only when the condition holds.
    if (lang_ == Lang::cpp)
      for (TSNode p = parent; !ts_node_is_null(p); p = tsnav::parent(p)) {
        std::string_view pt = type(p);
        if (pt == "preproc_if" || pt == "preproc_ifdef" || pt == "preproc_else" || pt == "preproc_elif") {
          TSNode c = field(p, "condition");
          if (ts_node_is_null(c)) c = field(p, "name");
          std::string cond = ts_node_is_null(c) ? std::string(pt) : text(c);
          add_marker(&u, "build: #if " + cond.substr(0, kMarkerChars), platform_condition(cond));
        }
      }
    u.body_hash = code_hash(body_of(n));
    model_->tests.push_back(std::move(u));
    // A pointer into tests stays valid: nested tests are not visited (a test does not hold a test).
    const std::size_t index = model_->tests.size() - 1;
    // Go: a deferred recover() swallows every failure of the test.
    const bool rec = lang_ == Lang::go && go_recovers(text(n));
    // A decorator the file defines whose wrapper drops failures swallows every check of the test.
    unit_swallow_.clear();
    for (const auto& d : info.decorators)
      if (unit_swallow_.empty()) unit_swallow_ = decorator_swallows(s_, lang_, d, defs_, try_swallows());
    if (unit_swallow_.empty()) unit_swallow_ = class_swallow_;
    model_->tests[index].calls = called_names(text(body_of(n)));
    unit_node_ = n;
    unit_is_test_ = true;
    // A test that expects to fail as a whole (test.failing, @Test(expected = AssertionError.class),
    // #[should_panic]): its checks are inverted.
    if (info.expects_failure) ++inverted_depth_;
    // JUnit 4's `@Test(expected = E.class)` or an ExpectedException rule's `thrown.expect(E.class)`:
    // the test passes only when its statements throw (annotate: checks after the last of them never run).
    static const rx::regex junit_expected(R"(@Test\s*\([^)]*\bexpected\s*=)");
    static const rx::regex rule_expect(R"(\b\w+\s*\.\s*expect\s*\(\s*[\w.]+\s*(?:\.|::)\s*class(?:\s*\.\s*java)?\s*\))");
    unit_expects_throw_ = (lang_ == Lang::java || lang_ == Lang::kotlin) && !info.expects_failure &&
                          (std::any_of(info.decorators.begin(), info.decorators.end(),
                                       [](const std::string& d) { return rx::regex_search(d.substr(0, kRegexLineChars), junit_expected); }) ||
                           rx::regex_search(text(body_of(n)).substr(0, kRegexLineChars * 8), rule_expect));
    for (uint32_t i = 0; i < ts_node_child_count(n); ++i)
      visit(tsnav::child(n, i), scope, scope_collectable, &model_->tests[index], swallow_depth, rec);
    unit_expects_throw_ = false;
    if (info.expects_failure) --inverted_depth_;
    unit_node_ = TSNode{};
    unit_swallow_.clear();
    self_computed_expectations(text(body_of(n)), model_->tests[index]);
    link_helpers(model_->tests[index], n, text(body_of(n)));
    unit_is_test_ = false;
    resolve_operand_sources(s_, n, model_->tests[index].asserts, &names_, imported_);
  }

  // ---- tautologies the text does not show ------------------------------------------------------------

  /// `want = add(2, 2)` then `assert add(2, 2) == want`: the expected value is computed by the code
  /// under test from the same call, so the comparison cannot fail.
  static void self_computed_expectations(const std::string& body, TestUnit& u) {
    static const rx::regex assign(R"(^\s*(?:(?:const|let|var|final|auto)\s+)?([A-Za-z_$][\w$]*)\s*(?::[^=]+)?(?::=|=)\s*([^=].*?)\s*;?\s*$)");
    std::map<std::string, std::string> computed;  // variable -> the call it holds, whitespace removed
    for_each_capped_line(body, [&](int, const std::string& line) {
      rx::smatch m;
      if (!rx::regex_match(line, m, assign)) return;
      const std::string rhs = strip_spaces(m[2].str());
      if (auto chained = computed.find(rhs); chained != computed.end()) computed[m[1].str()] = chained->second;  // want = x
      else if (rhs.find('(') != std::string::npos) computed[m[1].str()] = rhs;
      else computed.erase(m[1].str());
    });
    if (computed.empty()) return;
    for (auto& a : u.asserts) {
      if (a.kind != Kind::eq || a.operands.size() != 2) continue;
      const std::string& x = *a.operands.begin();
      const std::string& y = *std::next(a.operands.begin());
      // The expected value holds the very call the check makes (`want = add(2, 2) + 0`).
      auto same = [&](const std::string& var, const std::string& other) {
        auto it = computed.find(var);
        if (it == computed.end() || other.find('(') == std::string::npos) return false;
        const std::string& v = it->second;
        if (v == other) return true;
        static constexpr std::string_view kOps = "+-*/|&%";
        return (starts_with(v, other) && kOps.find(v[other.size()]) != std::string_view::npos) ||
               (ends_with(v, other) && kOps.find(v[v.size() - other.size() - 1]) != std::string_view::npos);
      };
      if (same(x, y) || same(y, x)) a.tautology = true;
    }
  }

  /// A quotient and a remainder by the same divisor of one value, each checked exactly (`p >> 8 ==
  /// 1` with `p & 0xFF == 2`, `n // 10` with `n % 10`): together they pin the value, so both are
  /// exact checks again.
  static void complementary_lossy_views(TestUnit& t) {
    struct View {
      std::string base;
      bool quotient = false;
      unsigned long long divisor = 0;
    };
    auto view = [](std::string e) -> std::optional<View> {
      while (wrapped_in_parens(e)) e = e.substr(1, e.size() - 2);
      // `Math.floor(p / 256)`, `Math.trunc(...)`, `int(p / 256)`: a quotient spelled as a rounded division.
      static const rx::regex rounded(R"(^(?:Math\.(?:floor|trunc)|int)\((.+)/([0-9]+)\)$)");
      if (rx::smatch rm; rx::regex_match(e, rm, rounded)) e = "(" + rm[1].str() + ")//" + rm[2].str();
      static const rx::regex split(R"(^(.+?)(>>|//|/|%|&)(0[xX][0-9a-fA-F]+|[0-9]+)$)");
      rx::smatch m;
      if (!rx::regex_match(e, m, split)) return std::nullopt;
      unsigned long long n = 0;
      try {
        n = std::stoull(m[3].str(), nullptr, 0);
      } catch (...) {
        return std::nullopt;
      }
      const std::string op = m[2].str();
      std::string base = m[1].str();
      while (wrapped_in_parens(base)) base = base.substr(1, base.size() - 2);
      View v{base, op == ">>" || op == "//" || op == "/", n};
      if (op == ">>") v.divisor = n < 63 ? 1ULL << n : 0;
      if (op == "&") v.divisor = (n + 1) != 0 && ((n + 1) & n) == 0 ? n + 1 : 0;  // a mask of the low bits
      if (v.divisor < 2) return std::nullopt;
      return v;
    };
    std::vector<std::pair<Assertion*, View>> views;
    for (auto& a : t.asserts)
      if (a.kind == Kind::range && !a.lossy.empty() && !a.tautology && !a.swallowed && !a.inverted && a.dead.empty())
        if (auto v = view(a.lossy)) views.emplace_back(&a, *v);
    for (std::size_t i = 0; i < views.size(); ++i)
      for (std::size_t j = 0; j < views.size(); ++j) {
        const auto& [qa, q] = views[i];
        const auto& [ra, r] = views[j];
        if (!q.quotient || r.quotient || q.base != r.base || q.divisor != r.divisor || qa->guards != ra->guards) continue;
        qa->kind = ra->kind = Kind::eq;
      }
  }

  /// Helpers that only return a constant truthy value, and the checks that assert one of them.
  void constant_helper_tautologies() {
    std::set<std::string> constant;
    for (const auto& h : model_->helpers)
      if (h.constant_truthy && h.asserts.empty()) constant.insert(h.name);
    if (constant.empty()) return;
    auto mark = [&](TestUnit& t) {
      for (auto& a : t.asserts) {
        if (a.operands.empty() || a.kind == Kind::throws_specific || a.kind == Kind::throws_broad) continue;
        const bool all = std::all_of(a.operands.begin(), a.operands.end(), [&](const std::string& o) {
          auto paren = o.find('(');
          if (paren == std::string::npos) return false;
          std::string name = o.substr(0, paren);
          if (auto dot = name.rfind('.'); dot != std::string::npos) name = name.substr(dot + 1);
          return constant.count(name) > 0;
        });
        if (all) a.tautology = true;
      }
    };
    for (auto& t : model_->tests) mark(t);
    for (auto& h : model_->helpers) mark(h);
  }

  /// The body of a function only returns a constant truthy value (docstrings and `pass` aside).
  bool returns_constant_truthy(TSNode fn) const {
    if (type(fn) == "variable_declarator") fn = field(fn, "value");  // `const ok = () => true`
    else if (type(fn) == "assignment") fn = field(fn, "right");      // `ok = lambda: True`
    if (ts_node_is_null(fn)) return false;
    TSNode body = field(fn, "body");
    if (ts_node_is_null(body)) return false;
    if ((type(fn) == "arrow_function" && type(body) != "statement_block") || type(fn) == "lambda") {  // an expression body is the value
      const std::string v = strip_spaces(text(body));
      return const_true(v) || (v.size() > 2 && (v.front() == '"' || v.front() == '\'' || v.front() == '`'));
    }
    bool returned = false;
    for (uint32_t i = 0; i < ts_node_named_child_count(body); ++i) {
      TSNode st = tsnav::named_child(body, i);
      const std::string_view t = type(st);
      if (t == "comment" || t == "pass_statement") continue;
      if (t == "expression_statement" && ts_node_named_child_count(st) == 1 && type(tsnav::named_child(st, 0)) == "string") continue;
      if (t != "return_statement" || returned) return false;
      std::string v = strip_spaces(text(st));
      v = v.substr(6);  // "return"
      if (!v.empty() && v.back() == ';') v.pop_back();
      if (!const_true(v) && !(v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.size() > 2)) return false;
      returned = true;
    }
    return returned;
  }

  // ---- can the assertion still run? ----------------------------------------------------------------

  static std::string compact_condition(const std::string& c) {
    std::string e = strip_spaces(c);
    while (wrapped_in_parens(e)) e = e.substr(1, e.size() - 2);
    return e;
  }
  static bool const_false(const std::string& c) {
    const std::string e = compact_condition(c);
    static const std::set<std::string, std::less<>> k = {"False", "0", "None", "false", "null", "undefined", "nil", "''",
                                                         "\"\"", "0==1", "1==0", "notTrue", "!true", "!1", "[]", "()",
                                                         "{}", "1>2", "2<1", "0>1", "0.0", "not1", "void0", "NaN", "![]", "!{}",
                                                         "nullptr", "NULL", "bool(0)", "Boolean(0)", "FalseisTrue", "TrueisFalse",
                                                         "NoneisnotNone", "false==true", "true==false", "not[1]", "!!0", "!!false"};
    if (k.count(e)) return true;
    // Two different number literals compared for equality (`1 == 2`, `1 === 2`).
    static const rx::regex unequal(R"(^(-?[0-9.]+)(?:===|==)(-?[0-9.]+)$)");
    if (rx::smatch m; rx::regex_match(e, m, unequal) && m[1].str() != m[2].str()) return true;
    return starts_with(e, "Falseand") || starts_with(e, "false&&") || starts_with(e, "0and") ||
           starts_with(e, "None and") || starts_with(e, "0&&");
  }
  static bool const_true(const std::string& c) {
    const std::string e = compact_condition(c);
    static const std::set<std::string, std::less<>> k = {"True", "1", "true", "notFalse", "!false", "!0", "1==1", "notNone"};
    return k.count(e) || starts_with(e, "Trueor") || starts_with(e, "true||") || starts_with(e, "1or") || starts_with(e, "1||");
  }
  /// A statement after which the rest of its block does not run. `passing`: only exits that end
  /// the test without failing it (return, continue, a skip, exiting the process), not raise/fail.
  bool exit_stmt(TSNode s, bool passing = false) const {
    const std::string_view t = type(s);
    if (t == "return_statement" || t == "continue_statement" || t == "break_statement" || t == "return_expression") return true;
    if (t == "raise_statement" || t == "throw_statement") return !passing;
    if (t != "expression_statement") return false;
    if (ts_node_named_child_count(s) > 0 && type(tsnav::named_child(s, 0)) == "return_expression") return true;
    const std::string x = strip_spaces(text(s));
    static constexpr std::string_view kPassing[] = {
        "pytest.skip(", "pytest.exit(", "self.skipTest(", "sys.exit(", "os._exit(", "exit(", "quit(", "t.Skip(",
        "t.SkipNow(", "t.Skipf(", "runtime.Goexit(", "GTEST_SKIP(", "process.exit(", "os.Exit(", "System.exit(", "std::exit("};
    static constexpr std::string_view kFailing[] = {"pytest.fail(", "self.fail(", "t.FailNow(", "t.Fatal(", "t.Fatalf(",
                                                    "panic(", "panic!(", "unreachable!(", "abort("};
    auto starts = [&](auto k) { return starts_with(x, k); };
    return std::any_of(std::begin(kPassing), std::end(kPassing), starts) ||
           (!passing && std::any_of(std::begin(kFailing), std::end(kFailing), starts));
  }

  /// `if c: return` (no else): the condition under which the rest of the block does not run (a
  /// branch that fails the test, `if err != nil { t.Fatal(err) }`, guards nothing).
  std::optional<std::string> conditional_exit(TSNode s) const {
    if (type(s) != "if_statement") return std::nullopt;
    if (!ts_node_is_null(field(s, "alternative"))) return std::nullopt;
    TSNode cons = field(s, "consequence");
    TSNode cond = field(s, "condition");
    if (ts_node_is_null(cons) || ts_node_is_null(cond)) return std::nullopt;
    bool exits = exit_stmt(cons, true);
    for (uint32_t i = 0; !exits && i < ts_node_named_child_count(cons); ++i) exits = exit_stmt(tsnav::named_child(cons, i), true);
    if (!exits) return std::nullopt;
    return text(cond);
  }

  /// Is the nested function `fn` (inside the unit; also a lambda, a closure or a generator
  /// expression) ever called or handed on? A value passed as an argument, called in place, stored
  /// in a container or registered by a decorator is taken as called. One bound to a name (its own
  /// name, a variable, a wrapper like `jest.fn(...)` or `functools.partial(...)` that is itself the
  /// value, or the object literal a method shorthand sits in) must be named again in the unit's code:
  /// not in a comment or string, not only in `del f`, `_ = f`, `(void)f` or (in a test) `return f`;
  /// a generator function not only called as a statement of its own (its body runs when iterated).
  /// One that is a statement of its own is never called.
  bool nested_called(TSNode fn) const {
    if (ts_node_is_null(unit_node_)) return true;
    auto parent_of = [&](TSNode x) {
      TSNode up = tsnav::parent(x);
      while (!ts_node_is_null(up) && type(up) == "parenthesized_expression") up = tsnav::parent(up);
      return up;
    };
    const std::string_view ft = type(fn);
    TSNode value = fn;
    TSNode up = parent_of(fn);
    if (ts_node_is_null(up)) return true;
    // (`@app.route('/')`, `@signal.connect`: its decorator registers it; not one that only wraps it,
    // `@functools.lru_cache`, `@staticmethod`, `@pytest.fixture`: then its name must be called.)
    if (type(up) == "decorated_definition") {
      static const rx::regex wrapping(R"(^@\s*(?:functools\.)?(?:lru_cache|cache|cached_property|wraps|total_ordering)\b|^@\s*(?:staticmethod|classmethod|property|pytest\.fixture|fixture|contextlib\.contextmanager|contextmanager|asynccontextmanager)\b)");
      bool registers = false;
      for (uint32_t i = 0; i < ts_node_named_child_count(up); ++i) {
        const TSNode d = tsnav::named_child(up, i);
        if (type(d) == "decorator" && !rx::regex_search(trim(text(d)), wrapping)) registers = true;
      }
      if (registers) return true;
    }
    // (A method or attribute of a class the test defines, `class Fake: write = lambda self, v: ...`:
    // what the class is handed to calls it.)
    for (TSNode c = up; !ts_node_is_null(c) && !ts_node_eq(c, unit_node_); c = tsnav::parent(c)) {
      const std::string_view ct = type(c);
      if (ct == "assignment" || ct == "expression_statement" || ct == "variable_declarator" || ct == "lexical_declaration" ||
          ct == "field_definition" || ct == "public_field_definition" || ct == "field_declaration" || ct == "init_declarator")
        continue;
      const TSNode cp = tsnav::parent(c);
      if (ct == "class_body" || ct == "field_declaration_list" || ct == "declaration_list" ||
          (ct == "block" && !ts_node_is_null(cp) && type(cp) == "class_definition") || ct == "class_definition")
        return true;
      break;
    }
    // A method shorthand of an object literal: the object is the value (`const checks = { run() {...} }`).
    if (ft == "method_definition") {
      if (type(up) != "object") return true;
      value = up;
      up = parent_of(up);
    }
    // Wrapped without being called: the wrapper is the value (`const cb = jest.fn(() => ...)`).
    if (!ts_node_is_null(up) && (type(up) == "arguments" || type(up) == "argument_list")) {
      TSNode call = tsnav::parent(up);
      if (ts_node_is_null(call)) return true;
      TSNode callee = field(call, "function");
      static const std::set<std::string, std::less<>> kWrappers = {"jest.fn", "vi.fn", "sinon.spy", "sinon.fake", "functools.partial", "partial"};
      if (ts_node_is_null(callee) || !kWrappers.count(strip_spaces(text(callee)))) return true;
      value = call;
      up = parent_of(call);
    }
    if (ts_node_is_null(up)) return true;
    const std::string_view ut = type(up);
    TSNode name_node{};
    const bool declaration = ft == "function_definition" || ft == "function_declaration" || ft == "generator_function_declaration";
    if (declaration && ts_node_eq(value, fn)) {
      name_node = field(fn, "name");
    } else if (ut == "init_declarator" && !cpp_plain_holder(up)) {
      return true;  // (`absl::Cleanup verify = [&] {...};`: handed to the object's constructor)
    } else if (ut == "variable_declarator" || ut == "assignment" || ut == "init_declarator" || ut == "let_declaration") {
      name_node = field(up, ut == "variable_declarator" ? "name" : ut == "assignment" ? "left" : ut == "init_declarator" ? "declarator" : "pattern");
      if (!ts_node_is_null(name_node) && ut != "variable_declarator" && !ts_node_eq(field(up, ut == "assignment" ? "right" : "value"), value)) return true;
    } else if (ut == "expression_list") {  // Go: `later := func() {...}`
      TSNode decl = tsnav::parent(up);
      if (ts_node_is_null(decl) || type(decl) != "short_var_declaration") return true;
      name_node = field(decl, "left");
    } else {
      return ut != "expression_statement";
    }
    if (ts_node_is_null(name_node)) return true;
    const std::string name = strip_spaces(text(name_node));
    static const rx::regex plain(R"(^[A-Za-z_$][\w$]*$)");
    if (!rx::regex_match(name, plain)) return true;
    const bool generator = is_generator(fn);
    // (A method of a class the test defines is reached by its name as a member: `Rows.verify(...)`.)
    bool method = false;
    for (TSNode c = tsnav::parent(fn); !method && !ts_node_is_null(c) && !ts_node_eq(c, unit_node_); c = tsnav::parent(c))
      method = type(c) == "class_definition" || type(c) == "class_body" || type(c) == "class_declaration" || type(c) == "class";
    const uint32_t vb = ts_node_start_byte(value), ve = ts_node_end_byte(value);
    bool used = false;
    const std::function<void(TSNode, int)> find = [&](TSNode x, int depth) {
      if (used || depth > kMaxSyntaxDepth) return;
      if (ts_node_start_byte(x) >= vb && ts_node_end_byte(x) <= ve) return;  // (the definition itself)
      if (ts_node_eq(x, name_node)) return;
      const std::string_view xt = type(x);
      // (Strings are read: an f-string's or a template's substitutions are code; plain text holds no identifiers.)
      if (xt == "comment" || xt == "line_comment" || xt == "block_comment") return;
      if ((xt == "identifier" || xt == "property_identifier" || xt == "field_identifier" || xt == "shorthand_property_identifier") &&
          text(x) == name) {
        TSNode p = tsnav::parent(x);
        const std::string_view pt = ts_node_is_null(p) ? std::string_view() : type(p);
        TSNode gp = ts_node_is_null(p) ? TSNode{} : tsnav::parent(p);
        const bool discarded =
            pt == "delete_statement" ||                                                         // Python `del f`
            (pt == "return_statement" && unit_is_test_ && returns_from_unit(p)) ||              // a test's return value is dropped
            (pt == "cast_expression" && contains(text(p).substr(0, 8), "void")) ||              // C++ `(void)f`
            (pt == "expression_list" && !ts_node_is_null(gp) && type(gp) == "assignment_statement" &&
             strip_spaces(text(field(gp, "left"))) == "_") ||                                   // Go `_ = f`
            (pt == "assignment" && strip_spaces(text(field(p, "left"))) == "_") ||              // Python `_ = f`
            (generator && (pt == "call" || pt == "call_expression") && ts_node_eq(field(p, "function"), x) && !ts_node_is_null(gp) &&
             type(gp) == "expression_statement");                                               // a generator called, never iterated
        if (!discarded && !mention_only(x, method)) used = true;
        return;
      }
      for (uint32_t i = 0; i < ts_node_named_child_count(x); ++i) find(tsnav::named_child(x, i), depth + 1);
    };
    find(unit_node_, 0);
    // Looked up by a name the test builds (`locals()['check_' + kind]()`, `vars()[f"check_{k}"]`,
    // `eval("check_" + k)`): a string the test writes that begins the function's name.
    if (!used && lang_ == Lang::python) {
      const std::string unit = text(unit_node_).substr(0, kRegexLineChars * 8);
      static const rx::regex lookup(R"(\b(?:locals|vars|globals)\s*\(\s*\)\s*(?:\[|\.\s*get\s*\()|\beval\s*\()");
      static const rx::regex literal(R"(f?(['"])([A-Za-z_]\w*)(?:\{|\1))");
      if (rx::regex_search(unit_code().substr(0, kRegexLineChars * 8), lookup))  // (not in a comment or string)
        for (rx::sregex_iterator it(unit.begin(), unit.end(), literal), e; it != e && !used; ++it)
          used = (*it)[2].length() >= 2 && starts_with(name, (*it)[2].str());
    }
    return used;
  }

  /// Does the identifier `x` (named like a function the test holds) not run it: a member's or
  /// keyword's name (`calc.later`, `{later: 1}`, `dict(later=1)`, `o.later()`), or a mention that
  /// only looks at the function: printed, logged, `typeof`-ed, compared with nil, asserted to exist
  /// (`callable(later)`, `assert.ok(h.run)`), its name or text read (`later.toString()`,
  /// `later.__name__`), `bind` without a call, or a bare statement. `method`: the function is a
  /// method of a class the test defines.
  bool mention_only(TSNode x, bool method) const {
    TSNode p = tsnav::parent(x);
    if (ts_node_is_null(p)) return false;
    const std::string_view pt = type(p);
    auto is_field = [&](TSNode parent, const char* f) { const TSNode v = field(parent, f); return !ts_node_is_null(v) && ts_node_eq(v, x); };
    // (A name in a member's or keyword's position is no reference to the variable; for a method, a
    // member's name is how it is reached.)
    if (method && ((pt == "attribute" && is_field(p, "attribute")) || (pt == "member_expression" && is_field(p, "property")) ||
                   (pt == "field_access" && is_field(p, "field")) || (pt == "method_invocation" && is_field(p, "name")) ||
                   (pt == "field_expression" && is_field(p, "field")) || (pt == "selector_expression" && is_field(p, "field"))))
      return false;
    if ((pt == "attribute" && is_field(p, "attribute")) || (pt == "member_expression" && is_field(p, "property")) ||
        (pt == "selector_expression" && is_field(p, "field")) || (pt == "field_expression" && is_field(p, "field")) ||
        (pt == "field_access" && is_field(p, "field")) || (pt == "method_invocation" && is_field(p, "name") && !ts_node_is_null(field(p, "object"))) ||
        (pt == "keyword_argument" && is_field(p, "name")) || (pt == "pair" && is_field(p, "key")) ||
        (pt == "navigation_suffix") || (pt == "scoped_identifier" && is_field(p, "name")) ||
        ((pt == "method_definition" || pt == "function_definition" || pt == "function_declaration" || pt == "class_definition" ||
          pt == "method_declaration") && is_field(p, "name")))  // (another definition's own name)
      return true;
    auto called_as = [&](TSNode callee) {
      const TSNode up = tsnav::parent(callee);
      if (ts_node_is_null(up)) return false;
      const std::string_view ut = type(up);
      return (ut == "call" || ut == "call_expression") && ts_node_eq(field(up, "function"), callee);
    };
    TSNode cur = x;
    // `later.toString()`, `later.__name__`, `later.bind(null)` (no call of what bind returns); a
    // member of an object the test holds used as a value (`h.run` in `assert.ok(h.run)`).
    const bool member_of = (pt == "attribute" || pt == "member_expression" || pt == "selector_expression" || pt == "field_expression" ||
                            pt == "field_access") && (is_field(p, "object") || is_field(p, "operand") || is_field(p, "argument") || is_field(p, "value"));
    if (member_of || (pt == "method_invocation" && is_field(p, "object"))) {
      TSNode prop = field(p, pt == "attribute" ? "attribute" : pt == "member_expression" ? "property" : pt == "method_invocation" ? "name" : "field");
      const std::string name = ts_node_is_null(prop) ? std::string() : text(prop);
      static const std::set<std::string, std::less<>> kLooks = {"toString", "name", "length", "__name__", "__qualname__", "__doc__",
                                                                "displayName", "hashCode", "getClass", "__module__", "__code__"};
      if (kLooks.count(name)) return true;
      if (pt == "method_invocation") return false;
      if (name == "bind" && called_as(p)) {  // (only a bound copy dropped on the floor runs nothing)
        const TSNode bound = tsnav::parent(p);
        const TSNode up = tsnav::parent(bound);
        return !ts_node_is_null(up) && type(up) == "expression_statement";
      }
      if (called_as(p)) return false;  // (`later.call(...)`, `h.run()`)
      cur = p;
    }
    const TSNode pc = tsnav::parent(cur);
    if (ts_node_is_null(pc)) return false;
    const std::string_view pct = type(pc);
    if (pct == "expression_statement" || pct == "assert_statement") return true;
    if (pct == "unary_expression") {
      const std::string op = strip_spaces(text(pc).substr(0, 6));
      return starts_with(op, "typeof") || starts_with(op, "void");
    }
    if (pct == "binary_expression" || pct == "comparison_operator") {
      static const rx::regex nil_check(R"(^(?:(?:None|nil|null|undefined|nullptr)(?:==|!=|===|!==|is|isnot).+|.+(?:==|!=|===|!==|is|isnot)(?:None|nil|null|undefined|nullptr))$)");
      return rx::regex_match(strip_spaces(text(pc).substr(0, 400)), nil_check);
    }
    if (pct == "arguments" || pct == "argument_list") {
      const TSNode call = tsnav::parent(pc);
      if (ts_node_is_null(call)) return false;
      TSNode callee = field(call, "function");
      std::string name;
      if (!ts_node_is_null(callee)) name = strip_spaces(text(callee));
      else if (type(call) == "method_invocation") {
        const TSNode object = field(call, "object"), called = field(call, "name");
        name = ts_node_is_null(called) ? std::string() : text(called);
        if (!ts_node_is_null(object)) name = strip_spaces(text(object)) + "." + name;
      }
      // (`Objects.requireNonNull(check).run()`: what the call returns is the function, used on.)
      const TSNode up = tsnav::parent(call);
      if (!ts_node_is_null(up) && type(up) != "expression_statement" && (name == "Objects.requireNonNull" || name == "requireNonNull"))
        return false;
      static const std::set<std::string, std::less<>> kLooks = {
          "print", "repr", "str", "id", "type", "callable", "isinstance", "hasattr", "bool", "dir", "vars", "len", "assert", "assert.ok",
          "assertTrue", "assertIsNotNone", "self.assertTrue", "self.assertIsNotNone", "self.assertIsInstance", "console.log",
          "console.info", "console.debug", "console.error", "console.warn", "String", "Boolean", "JSON.stringify", "fmt.Println",
          "fmt.Printf", "fmt.Print", "fmt.Sprint", "fmt.Sprintf", "fmt.Sprintln", "t.Log", "t.Logf", "log.Println", "log.Printf",
          "log.Print", "System.out.println", "System.out.print", "String.valueOf", "Objects.toString", "Objects.requireNonNull",
          "assertNotNull", "Assertions.assertNotNull", "assert.NotNil", "require.NotNil", "logging.info", "logging.debug", "logger.info",
          "logger.debug", "util.inspect", "std::ignore", "static_cast<void>"};
      return kLooks.count(name) > 0;
    }
    return false;
  }

  /// Is `fn` a generator function (Python: a `yield` in its own body; JavaScript: `function*`),
  /// whose body runs only when its result is iterated?
  bool is_generator(TSNode fn) const {
    const std::string_view ft = type(fn);
    if (ft == "generator_function_declaration" || ft == "generator_function") return true;
    if (ft != "function_definition" || lang_ != Lang::python) return false;
    bool found = false;
    const std::function<void(TSNode, int)> find = [&](TSNode x, int depth) {
      if (found || depth > kMaxSyntaxDepth) return;
      const std::string_view xt = type(x);
      if (xt == "yield") {
        found = true;
        return;
      }
      if (xt == "function_definition" || xt == "lambda" || xt == "class_definition") return;
      for (uint32_t i = 0; i < ts_node_named_child_count(x); ++i) find(tsnav::named_child(x, i), depth + 1);
    };
    find(field(fn, "body"), 0);
    return found;
  }

  /// A node that defines a function, method, lambda or closure (in any of the languages read).
  bool function_like(TSNode c) const {
    const std::string_view ct = type(c);
    return ct == "function_definition" || ct == "function_declaration" || ct == "arrow_function" || ct == "function_expression" ||
           ct == "function" || ct == "lambda" || ct == "func_literal" || ct == "method_definition" || ct == "lambda_expression" ||
           ct == "closure_expression" || ct == "method_declaration" || ct == "function_item" || ct == "generator_function_declaration" ||
           ct == "generator_function";
  }

  /// Does condition `c` read only the environment: a dependency's or the interpreter's version
  /// (`importlib.metadata.version("werkzeug") >= "3.2."`, `sys.version_info`, `x.__version__`),
  /// the platform, an environment variable, literals; through names bound once at the top of the
  /// file (`werkzeug_3_2 = importlib.metadata.version(...) >= ...`, never bound again)? A local, a
  /// call of anything else, a name bound twice: no.
  bool environment_condition(const std::string& c, int depth = 0) const {
    if (depth > 3 || c.size() > 400) return false;
    static const rx::regex chain(R"((?:^|[^\w.'"])([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*)(\s*\()?)");
    static const std::set<std::string, std::less<>> kWords = {"not", "and", "or", "is", "in", "None", "True", "False", "true", "false",
                                                              "null", "undefined", "nil", "typeof"};
    static const std::set<std::string, std::less<>> kCalls = {
        "importlib.metadata.version", "metadata.version", "importlib_metadata.version", "pkg_resources.get_distribution",
        "packaging.version.parse", "version.parse", "Version", "parse_version", "LooseVersion", "StrictVersion",
        "platform.system", "platform.python_implementation", "platform.machine", "platform.python_version",
        "platform.python_version_tuple", "sys.platform.startswith", "os.environ.get", "os.getenv", "shutil.which", "tuple", "int",
        "str", "semver.gte", "semver.satisfies"};
    static const rx::regex env_name(
        R"(^(?:sys\.(?:version_info|platform|implementation(?:\.\w+)*|version|maxsize|byteorder)|os\.(?:name|sep|environ)|\w+(?:\.\w+)*\.__version__|\w+(?:\.\w+)*\.VERSION|\w+(?:\.\w+)*\.version_info|process\.(?:platform|arch|version|versions(?:\.\w+)*|env(?:\.\w+)*)|runtime\.(?:GOOS|GOARCH|Version)|IS_\w+|PY\w*)$)");
    const std::string_view src = s_.src;
    // (Strings are not read for names: `version("werkzeug")` names no variable.)
    std::string code;
    char quote = 0;
    for (char ch : c) {
      if (quote) {
        if (ch == quote) quote = 0, code += ch;
        continue;
      }
      if (ch == '"' || ch == '\'') quote = ch;
      code += ch;
    }
    for (rx::sregex_iterator it(code.begin(), code.end(), chain), e; it != e; ++it) {
      const std::string name = strip_spaces((*it)[1].str());
      const bool called = (*it)[2].matched;
      if (kWords.count(name)) continue;
      if (called) {
        if (!kCalls.count(name)) return false;
        continue;
      }
      if (rx::regex_match(name, env_name)) continue;
      if (name.find('.') != std::string::npos) return false;
      // (A name bound once, at the top of the file, to an environment condition.)
      static const rx::regex top_binding_tail(R"(^\s*(?::[^=]+)?=(?!=)\s*(.+)$)");
      static const rx::regex changed(R"(^\s*(?:[-+*/|&]?=(?!=)|:=))");
      std::string value;
      int bindings = 0;
      for (std::size_t at = src.find(name); at != std::string_view::npos && bindings < 2; at = src.find(name, at + 1)) {
        if (at > 0 && (std::isalnum(static_cast<unsigned char>(src[at - 1])) || src[at - 1] == '_' || src[at - 1] == '.')) continue;
        const std::size_t end = at + name.size();
        if (end < src.size() && (std::isalnum(static_cast<unsigned char>(src[end])) || src[end] == '_')) continue;
        const std::size_t line_start = src.rfind('\n', at) == std::string_view::npos ? 0 : src.rfind('\n', at) + 1;
        const std::size_t line_end = std::min(src.find('\n', at), src.size());
        const std::string before(src.substr(line_start, at - line_start)), after(src.substr(end, line_end - end));
        rx::smatch m;
        const bool declared = trim(before).empty() || trim(before) == "const" || trim(before) == "let" || trim(before) == "var" ||
                              trim(before) == "global" || starts_with(trim(before), "global ");
        if (starts_with(trim(before), "global") || (declared && rx::regex_match(after, m, top_binding_tail))) {
          ++bindings;
          if (before.empty() || before == "const " || before == "let " || before == "var ") value = m.size() > 1 ? m[1].str() : std::string();
          else value.clear();  // (bound inside a block or function)
        } else if (rx::regex_search(after, changed)) {
          bindings = 2;  // (changed elsewhere)
        }
      }
      if (bindings != 1 || value.empty() || !environment_condition(value, depth + 1)) return false;
    }
    return true;
  }

  /// The literal a condition that is a local flag (`strict`, `not strict`, `!strict`) holds at
  /// `at` (local_literal): "True"/"False" for a boolean literal, `c` itself otherwise.
  std::string local_flag_value(TSNode at, const std::string& c) const {
    std::string e = trim(c);
    while (wrapped_in_parens(e)) e = trim(e.substr(1, e.size() - 2));
    bool negated = false;
    if (starts_with(e, "!")) e = trim(e.substr(1)), negated = true;
    else if (starts_with(e, "not ")) e = trim(e.substr(4)), negated = true;
    if (e.empty() || !is_plain_name(e) || e.find('.') != std::string::npos) return c;
    const auto v = local_literal(at, e);
    if (!v || (*v != "True" && *v != "False" && *v != "true" && *v != "false")) return c;
    return ((*v == "True" || *v == "true") != negated) ? "True" : "False";
  }

  /// The literal (a boolean, number or string) the local `name` holds at `at`, when the enclosing
  /// function binds it only to literals, all before `at`, in the block holding `at` or one around
  /// it, and only reads it from `at` on (`strict = False` / `strict = True` / `if strict:`).
  std::optional<std::string> local_literal(TSNode at, const std::string& name) const {
    if (name.empty() || !is_plain_name(name) || name.find('.') != std::string::npos) return std::nullopt;
    TSNode fn = unit_node_;
    for (TSNode x = tsnav::parent(at); !ts_node_is_null(x); x = tsnav::parent(x))
      if (function_like(x) || ts_node_eq(x, unit_node_)) {
        fn = x;
        break;
      }
    if (ts_node_is_null(fn)) return std::nullopt;
    const std::size_t from = ts_node_start_byte(fn), to = std::min<std::size_t>(ts_node_end_byte(fn), s_.src.size());
    const std::size_t at_byte = ts_node_start_byte(at);
    auto indent_of = [&](std::size_t line_start) {
      std::size_t i = line_start;
      while (i < s_.src.size() && (s_.src[i] == ' ' || s_.src[i] == '\t')) ++i;
      return i - line_start;
    };
    const std::size_t nl = at_byte == 0 ? std::string::npos : s_.src.rfind('\n', at_byte - 1);
    const std::size_t at_line = nl == std::string::npos ? 0 : nl + 1;
    const std::size_t at_indent = indent_of(at_line);
    const rx::regex binding = detail::cached_regex(
        R"(^[ \t]*(?:(?:let|var|const|auto|bool|boolean|val|int|String|final)\s+)*(?:mut\s+)?)" + name +
        R"(\s*(?::\s*[\w:&']+\s*)?:?=\s*(True|False|true|false|-?\d+(?:\.\d+)?|"[^"\\\n]*"|'[^'\\\n]*')\s*;?\s*(?:(?:#|//).*)?$)");
    const rx::regex assigns = detail::cached_regex(R"(^\s*(?:[-+*/|&^]|\?\?|\|\||&&)?=(?!=)|^\s*(?:\+\+|--))");
    std::optional<std::string> value;
    std::size_t value_line = 0, value_indent = 0;
    for (std::size_t ls = from; ls < to;) {
      std::size_t le = s_.src.find('\n', ls);
      if (le == std::string::npos || le > to) le = to;
      const std::string line = s_.src.substr(ls, le - ls);
      for (std::size_t k = line.find(name); k != std::string::npos; k = line.find(name, k + 1)) {
        if ((k > 0 && (ident_char(line[k - 1]) || line[k - 1] == '$' || line[k - 1] == '.')) ||
            (k + name.size() < line.size() && (ident_char(line[k + name.size()]) || line[k + name.size()] == '$')))
          continue;
        rx::smatch m;
        if (ls < at_line) {  // before the condition: only its literal bindings
          if (!rx::regex_match(line, m, binding) || indent_of(ls) > at_indent) return std::nullopt;
          value = m[1].str();
          value_line = ls, value_indent = indent_of(ls);
          break;
        }
        // (Set again from the condition on; not `at`'s own left side, `go &&= check()`.)
        if (ls + k != at_byte && rx::regex_search(line.substr(k + name.size()), assigns)) return std::nullopt;
      }
      ls = le + 1;
    }
    if (!value) return std::nullopt;
    // (No line between the last binding and the condition leaves the binding's block.)
    for (std::size_t ls = s_.src.find('\n', value_line); ls != std::string::npos && ls + 1 < at_line; ls = s_.src.find('\n', ls + 1)) {
      const std::size_t next = ls + 1;
      const std::size_t end = s_.src.find('\n', next);
      const std::string l = s_.src.substr(next, end == std::string::npos ? std::string::npos : end - next);
      if (l.find_first_not_of(" \t\r") == std::string::npos) continue;
      if (indent_of(next) < value_indent) return std::nullopt;
    }
    return value;
  }

  /// empty_collection_in for the iterable `expr` at `at`: a name the enclosing function binds is
  /// read in that function (another test's `rows = []` is not this one's), others in the file.
  bool empty_iterable(TSNode at, const std::string& expr) const {
    if (is_plain_name(expr))
      for (TSNode c = tsnav::parent(at); !ts_node_is_null(c); c = tsnav::parent(c)) {
        if (!function_like(c)) continue;
        const std::string fn = text(c);
        const rx::regex binds = detail::cached_regex("(?:^|\\n)[ \\t]*(?:(?:const|let|var|auto|val)\\s+)?(?:mut\\s+)?" + expr + "[ \\t]*(?::[^=\\n]*)?=[^=]");
        if (rx::regex_search(fn, binds)) return empty_collection_in(fn, expr);
        break;
      }
    return empty_collection_in(s_.src, expr);
  }

  /// Is the `return` statement `r` the unit's own (not a nested function's)?
  bool returns_from_unit(TSNode r) const {
    bool seen = false;  // (one function between the return and the unit: the unit's own callback)
    for (TSNode c = tsnav::parent(r); !ts_node_is_null(c); c = tsnav::parent(c)) {
      if (ts_node_eq(c, unit_node_)) return !seen || !function_like(unit_node_);
      if (function_like(c)) {
        if (seen) return false;
        seen = true;
      }
    }
    return false;
  }

  /// C++: does the declaration `decl` (an init_declarator's) only hold the lambda (`auto f = ...`,
  /// `std::function<void()> f = ...`), rather than hand it to an object that runs it?
  bool cpp_plain_holder(TSNode init_declarator) const {
    const TSNode decl = tsnav::parent(init_declarator);
    if (ts_node_is_null(decl)) return true;
    const TSNode ty = field(decl, "type");
    if (ts_node_is_null(ty)) return true;
    const std::string t = strip_spaces(text(ty));
    return t == "auto" || t == "constauto" || contains(t, "function<") || contains(t, "function_ref<");
  }

  static bool block_type(std::string_view t) {
    return t == "block" || t == "statement_block" || t == "compound_statement" || t == "statements" || t == "function_body" ||
           t == "expression_statement_list" || t == "statement_list";
  }

  /// Does the statement `s` never complete normally: every way through it returns, raises, exits
  /// the test or loops forever? `loop_exits`: a `break`/`continue` leaves the block in question too
  /// (not inside a loop nested in it).
  bool always_exits(TSNode s, bool loop_exits = true, int depth = 0) const {
    if (ts_node_is_null(s) || depth > 24) return false;
    const std::string_view t = type(s);
    if (t == "break_statement" || t == "continue_statement") return loop_exits;
    if (exit_stmt(s)) return true;
    const std::function<bool(TSNode, bool)> block_exits = [&](TSNode b, bool le) {
      if (ts_node_is_null(b)) return false;
      if (!block_type(type(b))) return always_exits(b, le, depth + 1);
      for (uint32_t i = 0; i < ts_node_named_child_count(b); ++i)
        if (always_exits(tsnav::named_child(b, i), le, depth + 1)) return true;
      return false;
    };
    // The block a clause holds (`except E: ...`, `catch (e) {...}`, `finally {...}`, `else {...}`).
    auto clause_block = [&](TSNode c) {
      TSNode b = field(c, "body");
      for (uint32_t i = ts_node_named_child_count(c); ts_node_is_null(b) && i-- > 0;)
        if (block_type(type(tsnav::named_child(c, i)))) b = tsnav::named_child(c, i);
      if (ts_node_is_null(b) && ts_node_named_child_count(c) > 0) b = tsnav::named_child(c, ts_node_named_child_count(c) - 1);
      return b;
    };
    // A block whose first statement (after `pass`, docstrings, comments) leaves it: nothing before
    // the exit can raise, so no handler or manager around it changes that (`try: return` /
    // `except: pass`, `with suppress(...): return`).
    const auto leaves_first = [&](TSNode b) {
      if (ts_node_is_null(b) || !block_type(type(b))) return false;
      for (uint32_t i = 0; i < ts_node_named_child_count(b); ++i) {
        const TSNode c = tsnav::named_child(b, i);
        const std::string_view ct = type(c);
        if (ct == "pass_statement" || ct == "comment" || ct == "line_comment" || ct == "block_comment" || ct == "empty_statement") continue;
        if (ct == "expression_statement" && ts_node_named_child_count(c) == 1 && type(tsnav::named_child(c, 0)) == "string") continue;
        const std::string_view first = type(c);
        return first == "return_statement" || (loop_exits && (first == "break_statement" || first == "continue_statement"));
      }
      return false;
    };
    if (block_type(t)) return block_exits(s, loop_exits);
    if (t == "expression_statement" && ts_node_named_child_count(s) == 1) {
      const TSNode e = tsnav::named_child(s, 0);
      const std::string_view et = type(e);
      return (et == "loop_expression" || et == "while_expression" || et == "if_expression" || et == "block" || et == "for_expression") &&
             always_exits(e, loop_exits, depth + 1);
    }
    if (t == "with_statement") {
      // (Not a manager that may swallow what its body raises: `raises`, `suppress`, ...)
      TSNode body = field(s, "body");
      if (ts_node_is_null(body)) return false;
      const std::string head = text(s).substr(0, ts_node_start_byte(body) - ts_node_start_byte(s));
      static const rx::regex swallowing(R"(raises|Raises|suppress|ignor|catch|Catch|Stack|warns|Warns|Throw|expect|assert|error|Error)");
      return leaves_first(body) || (!rx::regex_search(head, swallowing) && block_exits(body, loop_exits));
    }
    if (t == "if_statement" || t == "if_expression") {
      if (!block_exits(field(s, "consequence"), loop_exits)) return false;
      if (lang_ == Lang::python) {
        bool has_else = false;
        for (uint32_t i = 0; i < ts_node_named_child_count(s); ++i) {
          const TSNode c = tsnav::named_child(s, i);
          if (type(c) == "elif_clause" && !block_exits(field(c, "consequence"), loop_exits)) return false;
          if (type(c) == "else_clause") {
            if (!block_exits(clause_block(c), loop_exits)) return false;
            has_else = true;
          }
        }
        return has_else;
      }
      TSNode alt = field(s, "alternative");
      if (ts_node_is_null(alt)) return false;
      if (type(alt) == "else_clause") alt = clause_block(alt);
      return block_exits(alt, loop_exits);
    }
    if (t == "try_statement") {
      bool handlers_exit = true, finally_exits = false;
      for (uint32_t i = 0; i < ts_node_named_child_count(s); ++i) {
        const TSNode c = tsnav::named_child(s, i);
        const std::string_view ct = type(c);
        if (ct == "except_clause" || ct == "catch_clause" || ct == "except_group_clause") handlers_exit = handlers_exit && block_exits(clause_block(c), loop_exits);
        else if (ct == "finally_clause") finally_exits = block_exits(clause_block(c), loop_exits);
      }
      if (TSNode h = field(s, "handler"); !ts_node_is_null(h)) handlers_exit = handlers_exit && block_exits(clause_block(h), loop_exits);
      if (TSNode f = field(s, "finalizer"); !ts_node_is_null(f)) finally_exits = block_exits(clause_block(f), loop_exits);
      return finally_exits || leaves_first(field(s, "body")) || (handlers_exit && block_exits(field(s, "body"), loop_exits));
    }
    // A loop that never ends but by leaving the block (`while True:` without a `break`, Rust's `loop`, Go's `for {`).
    if (t == "while_statement" || t == "while_expression" || t == "loop_expression" || t == "for_statement" || t == "for_in_statement" ||
        t == "enhanced_for_statement" || t == "for_expression") {
      TSNode body = field(s, "body");
      if (ts_node_is_null(body)) return false;
      const TSNode cond = field(s, "condition");
      bool forever = t == "loop_expression" || (t == "while_statement" && !ts_node_is_null(cond) && const_true(text(cond))) ||
                     (t == "while_expression" && !ts_node_is_null(cond) && const_true(text(cond)));
      if (t == "for_statement" && lang_ == Lang::go) {
        forever = true;  // (`for {`; `for true {`)
        for (uint32_t i = 0; i < ts_node_named_child_count(s); ++i) {
          const TSNode c = tsnav::named_child(s, i);
          if (!ts_node_eq(c, body) && type(c) != "comment" && !const_true(text(c))) forever = false;
        }
      }
      static const rx::regex leaves(R"(\bbreak\b)");
      if (forever) return !rx::regex_search(text(body), leaves);
      // A loop over a literal that is not empty, whose body leaves the block on its first pass.
      TSNode over = field(s, "right");
      if (ts_node_is_null(over)) over = field(s, "value");
      if (ts_node_is_null(over)) return false;
      const auto rows = literal_table(text(over));
      return rows && !rows->empty() && block_exits(body, false);
    }
    return false;
  }

  /// Never runs: the body of a C-style loop whose condition is false on entry (`for (let i = 0; i <
  /// 0; i++)`, Go's `for false {`, `for i := 0; i < 0; i++ {`).
  bool loop_never_runs(TSNode loop) const {
    TSNode cond = field(loop, "condition"), init = field(loop, "initializer");
    if (ts_node_is_null(init)) init = field(loop, "init");
    if (lang_ == Lang::go)
      for (uint32_t i = 0; i < ts_node_named_child_count(loop); ++i) {
        const TSNode c = tsnav::named_child(loop, i);
        if (type(c) == "for_clause") {
          cond = field(c, "condition");
          init = field(c, "initializer");
        } else if (!ts_node_eq(c, field(loop, "body")) && type(c) != "range_clause" && type(c) != "comment") {
          cond = c;
        }
      }
    if (ts_node_is_null(cond)) return false;
    std::string c = strip_spaces(text(cond));
    if (!c.empty() && c.back() == ';') c.pop_back();
    if (const_false(c)) return true;
    static const rx::regex compare(R"(^([A-Za-z_]\w*)(<=|<|>=|>|!=)(-?\d{1,9})$)");
    static const rx::regex start(R"(^\s*(?:(?:let|var|const|int|auto|long|unsigned|size_t|std::size_t|u?int\d+_t|i32|usize)\s+)?([A-Za-z_]\w*)\s*(?::=|=)\s*(-?\d{1,9})\s*;?\s*$)");
    rx::smatch m, s;
    if (ts_node_is_null(init) || !rx::regex_match(c, m, compare)) return false;
    const std::string it = text(init);
    if (!rx::regex_match(it, s, start) || s[1].str() != m[1].str()) return false;
    const long from = std::stol(s[2].str()), to = std::stol(m[3].str());
    const std::string op = m[2].str();
    const bool enters = op == "<" ? from < to : op == "<=" ? from <= to : op == ">" ? from > to : op == ">=" ? from >= to : from != to;
    return !enters;
  }

  /// A `try` whose body cannot raise: nothing but `pass`, `...`, a docstring or comments.
  bool cannot_raise(TSNode try_stmt) const {
    if (ts_node_is_null(try_stmt) || type(try_stmt) != "try_statement") return false;
    const TSNode body = field(try_stmt, "body");
    if (ts_node_is_null(body)) return false;
    for (uint32_t i = 0; i < ts_node_named_child_count(body); ++i) {
      const TSNode c = tsnav::named_child(body, i);
      const std::string_view ct = type(c);
      if (ct == "pass_statement" || ct == "comment" || ct == "line_comment" || ct == "block_comment" || ct == "empty_statement") continue;
      if (ct == "expression_statement" && ts_node_named_child_count(c) == 1 &&
          (type(tsnav::named_child(c, 0)) == "string" || type(tsnav::named_child(c, 0)) == "ellipsis"))
        continue;
      return false;
    }
    return true;
  }

  /// `try: import calc_native` / `except ImportError: return` (a handler that ends the test without
  /// failing it): what the rest of the block runs unless, or nothing.
  std::optional<std::string> handler_exit(TSNode s) const {
    if (type(s) != "try_statement") return std::nullopt;
    const TSNode body = field(s, "body");
    if (ts_node_is_null(body) || cannot_raise(s)) return std::nullopt;
    auto passing_exit = [&](TSNode clause) {
      TSNode b = field(clause, "body");
      for (uint32_t i = ts_node_named_child_count(clause); ts_node_is_null(b) && i-- > 0;)
        if (block_type(type(tsnav::named_child(clause, i)))) b = tsnav::named_child(clause, i);
      if (ts_node_is_null(b)) return false;
      // (A handler that fails the test first, `ADD_FAILURE() << ...; return;`, or one for an
      // interruption, `catch (InterruptedException e) { ...interrupt(); return; }`, skips nothing.)
      if (branch_fails(b) || rx::regex_search(text(b).substr(0, kRegexLineChars), detail::cached_regex(R"(\b(?:ADD_FAILURE|FAIL|fail|Fail|Fatal|Fatalf|Errorf|Error)\s*\()")) ||
          contains(text(clause).substr(0, kConditionChars), "InterruptedException"))
        return false;
      // (A handler that skips, `except ImportError: pytest.skip(...)`, reports the test skipped,
      // not passed: the skip markers judge it, as they judged `importorskip`.)
      for (uint32_t i = 0; i < ts_node_named_child_count(b); ++i) {
        const TSNode st = tsnav::named_child(b, i);
        if (!exit_stmt(st, true)) continue;
        static const rx::regex skips(R"(^\s*(?:pytest\.skip|self\.skipTest|t\.Skip(?:Now|f)?|GTEST_SKIP)\s*\()");
        return !rx::regex_search(text(st).substr(0, kConditionChars), skips);
      }
      return false;
    };
    for (uint32_t i = 0; i < ts_node_named_child_count(s); ++i) {
      const TSNode c = tsnav::named_child(s, i);
      const std::string_view ct = type(c);
      if ((ct == "except_clause" || ct == "catch_clause" || ct == "except_group_clause") && passing_exit(c)) {
        std::string what = trim(text(body));
        if (block_type(type(body)) && ts_node_named_child_count(body) > 0) what = trim(text(tsnav::named_child(body, 0)));
        what = what.substr(0, what.find('\n'));
        return "`" + what.substr(0, kConditionChars) + "` raises";
      }
    }
    return std::nullopt;
  }

  /// A `case` that never matches: `switch (1) { case 2: ... }`, Go's `switch { case false: ... }`
  /// or `switch 1 { case 2:`, Java's `case 2 ->`, C++'s `case 2:`, Rust's `match 1 { 2 => ... }`,
  /// a subject that is a local bound only to a literal (`const mode = 'a'`), and no case before
  /// it falls through into it. `clause`: the case node holding `cur`.
  std::optional<std::string> dead_case(TSNode clause, TSNode cur) const {
    const std::string_view ct = type(clause);
    // The values the clause matches (as written), "" for a default / wildcard.
    auto values_of = [&](TSNode c, bool& is_default) {
      std::vector<std::string> out;
      is_default = false;
      const std::string_view t = type(c);
      if (t == "switch_block_statement_group" || t == "switch_rule") {  // Java: its labels
        for (uint32_t i = 0; i < ts_node_named_child_count(c); ++i) {
          const TSNode l = tsnav::named_child(c, i);
          if (type(l) != "switch_label") continue;
          if (ts_node_named_child_count(l) == 0) is_default = true;
          for (uint32_t k = 0; k < ts_node_named_child_count(l); ++k) out.push_back(text(tsnav::named_child(l, k)));
        }
        return out;
      }
      if (t == "match_arm") {  // Rust: `2 | 3`, `_`, a binding, a range: only literals are read
        const TSNode pat = field(c, "pattern");
        const std::string pt = ts_node_is_null(pat) ? std::string() : strip_spaces(text(pat));
        if (pt.empty() || pt == "_" || !ts_node_is_null(field(pat, "condition"))) is_default = true;
        for (const auto& v : split_top(pt, {"|"})) out.push_back(std::string(v));
        return out;
      }
      const TSNode v = field(c, "value");
      if (ts_node_is_null(v)) {
        is_default = true;
        return out;
      }
      for (const auto& x : split_top(text(v), {","})) out.push_back(std::string(x));
      return out;
    };
    const bool case_like = ct == "switch_case" || ct == "expression_case" || ct == "case_statement" || ct == "switch_block_statement_group" ||
                           ct == "switch_rule" || ct == "match_arm";
    if (!case_like) return std::nullopt;
    // (The clause's own values, `case check():`, are evaluated.)
    if (const TSNode v = field(clause, ct == "match_arm" ? "pattern" : "value"); !ts_node_is_null(v) && ts_node_eq(v, cur)) return std::nullopt;
    if ((ct == "switch_block_statement_group" || ct == "switch_rule") && ts_node_named_child_count(clause) > 0 &&
        ts_node_eq(tsnav::named_child(clause, 0), cur))
      return std::nullopt;
    TSNode sw = tsnav::parent(clause);
    while (!ts_node_is_null(sw) && (type(sw) == "switch_body" || type(sw) == "switch_block" || type(sw) == "match_block" ||
                                    type(sw) == "compound_statement"))
      sw = tsnav::parent(sw);
    if (ts_node_is_null(sw)) return std::nullopt;
    TSNode subject = field(sw, "value");
    if (ts_node_is_null(subject)) subject = field(sw, "condition");
    if (!ts_node_is_null(subject) && type(subject) == "condition_clause") {
      const TSNode v = field(subject, "value");
      subject = ts_node_is_null(v) ? subject : v;
    }
    static const rx::regex literal(R"(^(?:-?\d+(?:\.\d+)?|"[^"\\]*"|'[^'\\]*'|true|false|null|nil)$)");
    auto same_quotes = [](std::string x) {  // ('sum' and "sum" are one string)
      if (x.size() >= 2 && x.front() == '\'' && x.back() == '\'') x = "\"" + x.substr(1, x.size() - 2) + "\"";
      return x;
    };
    std::string sv;
    if (!ts_node_is_null(subject)) {
      sv = compact_condition(text(subject));
      if (is_plain_name(sv)) sv = local_literal(sw, sv).value_or(sv);
      sv = same_quotes(sv);
    }
    auto never = [&](const std::string& v) {
      const std::string c = same_quotes(compact_condition(v));
      if (ts_node_is_null(subject)) return const_false(c);  // (Go's tagless `switch {`)
      return rx::regex_match(sv, literal) && rx::regex_match(c, literal) && sv != c;
    };
    bool is_default = false;
    const auto own = values_of(clause, is_default);
    if (is_default || own.empty()) return std::nullopt;
    for (const auto& v : own)
      if (!never(v)) return std::nullopt;
    // (An earlier case may fall into this one: JavaScript, Java and C++ without `break`, Go's
    // `fallthrough`; Rust's arms and Java's `->` rules do not fall through.)
    if (ct != "match_arm" && ct != "switch_rule")
      for (TSNode prev = tsnav::prev_named_sibling(clause); !ts_node_is_null(prev); prev = tsnav::prev_named_sibling(prev)) {
        const std::string_view pt = type(prev);
        if (ts_node_eq(prev, subject) || pt == "comment" || pt == "line_comment" || pt == "block_comment") continue;
        if (pt != "switch_case" && pt != "expression_case" && pt != "case_statement" && pt != "switch_block_statement_group") return std::nullopt;
        bool prev_default = false;
        const auto vs = values_of(prev, prev_default);
        if (prev_default) return std::nullopt;
        for (const auto& v : vs)
          if (!never(v)) return std::nullopt;
      }
    return "in a `case` that never matches (line " + std::to_string(line(clause)) + ")";
  }

  /// A callback that never runs while the test does: `[].forEach(() => ...)` (an empty array), or a
  /// timer callback (`setTimeout(() => ..., 10000)`) in a test that neither waits (done callback,
  /// promise, await) nor drives fake timers.
  std::optional<std::string> callback_never_runs(TSNode fn) const {
    static const std::set<std::string, std::less<>> kEach = {"forEach", "map", "filter", "some", "every", "find", "findIndex", "flatMap",
                                                             "peek", "anyMatch", "allMatch", "forEachOrdered", "reduce"};
    const TSNode args = tsnav::parent(fn);
    if (lang_ == Lang::java && !ts_node_is_null(args) && type(args) == "argument_list") {
      // `List.of().forEach(x -> ...)`, `IntStream.range(0, 0).forEach(...)`, `Stream.empty().forEach(...)`.
      const TSNode call = tsnav::parent(args);
      if (ts_node_is_null(call) || type(call) != "method_invocation") return std::nullopt;
      const TSNode object = field(call, "object");
      if (!ts_node_is_null(object) && kEach.count(text(field(call, "name"))) && empty_iterable(call, text(object)))
        return "in a callback over an empty collection (line " + std::to_string(line(call)) + ")";
      return std::nullopt;
    }
    if (!is_js(lang_)) return std::nullopt;
    if (ts_node_is_null(args) || type(args) != "arguments") return std::nullopt;
    const TSNode call = tsnav::parent(args);
    if (ts_node_is_null(call)) return std::nullopt;
    const TSNode callee = field(call, "function");
    if (ts_node_is_null(callee)) return std::nullopt;
    if (type(callee) == "member_expression") {
      // `[].forEach(...)`, `rows.forEach(...)` of a `rows = []` nothing fills, `Object.keys({}).forEach(...)`.
      const TSNode object = field(callee, "object");
      if (!ts_node_is_null(object) && kEach.count(text(field(callee, "property"))) && empty_iterable(call, text(object)))
        return "in a callback over an empty array (line " + std::to_string(line(call)) + ")";
      const std::string property = text(field(callee, "property"));
      if (property != "setTimeout" && property != "setInterval" && property != "setImmediate") return std::nullopt;
    }
    std::string name = strip_spaces(text(callee));
    // (`globalThis.setTimeout`, `window.setTimeout`, `require('timers').setTimeout`, a local alias `const later = setTimeout`.)
    static const rx::regex owner(R"(^(?:globalThis|global|window|self|timers|require\(['"](?:node:)?timers['"]\))\.)");
    name = rx::regex_replace(name, owner, "");
    if (is_plain_name(name) && name != "setTimeout" && name != "setInterval" && name != "setImmediate")
      if (const auto v = single_binding(name); v == "setTimeout" || v == "setInterval" || v == "setImmediate") name = v;
    if (name != "setTimeout" && name != "setInterval" && name != "setImmediate") return std::nullopt;
    // Not when the test may wait for it: a callback parameter (`done`, `t.end`, any name), a plan
    // of its checks, a returned or awaited promise; nor when the file drives fake timers. (Words
    // in comments and strings wait for nothing.)
    const std::string unit = unit_code().substr(0, kRegexLineChars * 8);
    static const rx::regex waits(R"(\b(?:done|resolve|await|return|plan|end|[Tt]imers?|[Tt]icks?|tick|clock|callback|cb|next|finish|complete)\b)");
    if (rx::regex_search(unit, waits)) return std::nullopt;
    static const rx::regex fake(R"(useFakeTimers|advanceTimers|runAllTimers|runOnlyPendingTimers|runAllTicks|fakeTimers|FakeTimers|\.tick\s*\()");
    if (rx::regex_search(s_.src.substr(0, std::size_t{1} << 20), fake)) return std::nullopt;
    // (The test's own function takes no parameter: no callback to end it.)
    for (TSNode c = tsnav::parent(fn); !ts_node_is_null(c); c = tsnav::parent(c)) {
      const std::string_view ct = type(c);
      if (ct == "arrow_function" || ct == "function_expression" || ct == "function" || ct == "function_declaration") {
        const TSNode ps = field(c, "parameters");
        const TSNode p1 = field(c, "parameter");
        if (!ts_node_is_null(p1) || (!ts_node_is_null(ps) && ts_node_named_child_count(ps) > 0)) return std::nullopt;
      }
      if (ts_node_eq(c, unit_node_)) break;
    }
    return "in a timer callback the test does not wait for (line " + std::to_string(line(call)) + ")";
  }

  /// Where the assertion at `n` sits in its unit: dead code, the conditions it runs under, a
  /// handler or platform branch (optional), an expectation of failure around it (inverted).
  /// A check that uses the variables of a loop over a literal table (`vars` bound from `iterable`)
  /// checks once per row.
  void table_rows(Assertion& a, TSNode check, const std::string& iterable, TSNode vars, TSNode loop_body) const {
    // Distinct rows only (a row repeated checks nothing new), and a body that leaves the loop early
    // (`break`, `return`) may check only the first.
    const auto table = literal_table(iterable);
    const int rows = table ? static_cast<int>(table->size()) : 0;
    if (rows <= 1 || ts_node_is_null(vars)) return;
    static const rx::regex leaves(R"(\b(?:break|return)\b)");
    if (!ts_node_is_null(loop_body) && rx::regex_search(text(loop_body), leaves)) return;
    static const rx::regex word(R"([A-Za-z_$][\w$]*)");
    static const std::set<std::string> kDecl = {"const", "let", "var", "in", "of"};
    const std::string names = text(vars), body = text(check);
    bool uses = false;
    for (rx::sregex_iterator w(names.begin(), names.end(), word), e; w != e && !uses; ++w) {
      if (kDecl.count(w->str())) continue;
      const rx::regex use = detail::cached_regex("(^|[^\\w$.])" + w->str() + "([^\\w$]|$)");
      uses = rx::regex_search(body, use);
    }
    if (uses) a.rows = std::min(kMaxTableRows, a.rows * rows);
  }

  /// Is `x` (through `list(...)`, `tuple(...)`, `Array.from(...)`, parentheses) a side the check `n`
  /// compares: of its comparison, an argument of the check call itself or of its `expect(...)`;
  /// not inside another call (`sum(map(...))`).
  bool compared_side(TSNode x, TSNode n) const {
    for (TSNode p = tsnav::parent(x); !ts_node_is_null(p); x = p, p = tsnav::parent(p)) {
      const std::string_view tp = type(p);
      if (tp == "parenthesized_expression" || tp == "await_expression" || tp == "await" || tp == "list_splat") continue;
      // `tuple(f(a) for a in [...])`: the generator is the call's argument list.
      if (tp == "call" && type(x) == "generator_expression") {
        const std::string callee = strip_spaces(text(field(p, "function")));
        if (callee == "list" || callee == "tuple") continue;
        return callee == "all" && ts_node_eq(tsnav::parent(p), n);  // (`assert all(...)`)
      }
      if (tp == "argument_list" || tp == "arguments") {
        TSNode call = tsnav::parent(p);
        if (ts_node_is_null(call)) return false;
        const std::string callee = strip_spaces(text(field(call, "function")));
        if ((callee == "list" || callee == "tuple" || callee == "Array.from" || callee == "Promise.all" || callee == "asyncio.gather") &&
            ts_node_named_child_count(p) == 1) {
          p = call;
          continue;
        }
        return ts_node_eq(call, n) || callee == "expect";
      }
      return tp == "comparison_operator" || tp == "binary_expression";
    }
    return false;
  }

  /// The distinct rows an operand node maps a call over (mapped_rows): a list, tuple or array of
  /// calls (a bare tuple `add(2, 2), add(1, 3)` too), a comprehension or generator over a literal
  /// table whose element calls something (a dict or set comprehension too), `map`, `starmap`, JS
  /// `[..].map(cb)`. 0 otherwise.
  int node_rows(TSNode x) const {
    const std::string_view t = type(x);
    int r = 0;
    auto calls_with = [](const std::string& params, const std::string& body) {
      return body.find('(') != std::string::npos && uses_any_word(params, body);
    };
    if (t == "list" || t == "tuple" || t == "array" || t == "expression_list") {
      // `[add(2, 2), add(1, 3)] == [4, 4]`, `(f(1), f(2)) == (1, 4)`: each distinct call a check.
      std::set<std::string> elems;
      bool all_calls = ts_node_named_child_count(x) >= 2;
      for (uint32_t i = 0; i < ts_node_named_child_count(x) && all_calls; ++i) {
        TSNode e = tsnav::named_child(x, i);
        if (type(e) == "comment") continue;
        const std::string et = strip_spaces(text(e));
        all_calls = et.find('(') != std::string::npos && !is_literal(et);
        elems.insert(by_value(et, lang_ == Lang::python || is_js(lang_)));  // (`add(2.0, 2.0)` repeats `add(2, 2)`)
      }
      if (all_calls) r = static_cast<int>(elems.size());
    } else if (t == "list_comprehension" || t == "generator_expression" || t == "dictionary_comprehension" || t == "set_comprehension") {
      // (`{(a, b): add(a, b) for a, b in [...]} == {...}`: the value of each entry is the call.)
      const std::string s = text(x);
      TSNode body = field(x, "body");
      if (!ts_node_is_null(body) && type(body) == "pair") body = field(body, "value");
      const auto table = literal_table(t == "list_comprehension" ? s : "[" + s.substr(1, s.size() - 2) + "]");
      if (table && !ts_node_is_null(body) && text(body).find('(') != std::string::npos) r = static_cast<int>(table->size());
    } else if (t == "call" || t == "call_expression") {
      TSNode fn = field(x, "function");
      TSNode args = field(x, "arguments");
      if (!ts_node_is_null(fn) && !ts_node_is_null(args)) {
        const std::string callee = strip_spaces(text(fn));
        // (`pool.starmap(f, rows)`, `itertools.starmap(f, rows)`: each row the arguments.)
        const bool starmap = callee == "starmap" || ends_with(callee, ".starmap");
        if (t == "call" && starmap && ts_node_named_child_count(args) == 2) {
          TSNode f = tsnav::named_child(args, 0);
          if (type(f) == "identifier" || type(f) == "attribute")
            if (const auto table = literal_table(text(tsnav::named_child(args, 1)))) r = static_cast<int>(table->size());
        } else if (t == "call" && (callee == "map" || ends_with(callee, ".map")) && ts_node_named_child_count(args) >= 2) {
          TSNode f = tsnav::named_child(args, 0);
          bool maps_a_call = type(f) == "identifier" || type(f) == "attribute";
          if (type(f) == "lambda") {
            TSNode ps = field(f, "parameters"), b = field(f, "body");
            maps_a_call = !ts_node_is_null(ps) && !ts_node_is_null(b) && calls_with(text(ps), text(b));
          }
          std::string cols;
          for (uint32_t i = 1; i < ts_node_named_child_count(args); ++i) cols += (i > 1 ? ", " : "") + text(tsnav::named_child(args, i));
          if (maps_a_call)
            if (const auto table = literal_table("zip(" + cols + ")")) r = static_cast<int>(table->size());
        } else if (t == "call_expression" && type(fn) == "member_expression" && text(field(fn, "property")) == "map" &&
                   ts_node_named_child_count(args) == 1) {
          TSNode cb = tsnav::named_child(args, 0);
          TSNode ps = field(cb, "parameters");
          if (ts_node_is_null(ps)) ps = field(cb, "parameter");
          TSNode b = field(cb, "body");
          if (!ts_node_is_null(ps) && !ts_node_is_null(b) && calls_with(text(ps), text(b)))
            if (const auto table = literal_table(text(field(fn, "object")))) r = static_cast<int>(table->size());
        }
      }
    }
    return r;
  }

  /// The Python function `name` defined at the top level of the file holding `n` (decorated or
  /// not); a null node when there is none.
  TSNode top_level_function(TSNode n, const std::string& name) const {
    TSNode root = n;
    for (TSNode up = tsnav::parent(root); !ts_node_is_null(up); up = tsnav::parent(up)) root = up;
    for (uint32_t i = 0; i < ts_node_named_child_count(root); ++i) {
      TSNode d = tsnav::named_child(root, i);
      if (type(d) == "decorated_definition") d = field(d, "definition");
      if (!ts_node_is_null(d) && type(d) == "function_definition" && text(field(d, "name")) == name) return d;
    }
    return TSNode{};
  }

  /// The rows of an operand that is a name (`got == (4, 4)`): bound once in the unit, before the
  /// check, to what node_rows counts (`got = add(2, 2), add(1, 3)`, `const got = [f(1), f(2)]`), or,
  /// in Python, a parameter of the unit that a function of the file returns it from (a pytest
  /// fixture: `def sums(): return [add(2, 2), add(1, 3)]`). 0 otherwise.
  int bound_rows(TSNode n, const std::string& name) const {
    if (ts_node_is_null(unit_node_) || !is_plain_name(name)) return 0;
    if (binding_count(name) == 1) {
      TSNode value{};
      std::function<void(TSNode, int)> find = [&](TSNode x, int depth) {
        if (depth > 40 || !ts_node_is_null(value) || ts_node_start_byte(x) >= ts_node_start_byte(n)) return;
        const std::string_view t = type(x);
        if (t == "assignment" || t == "variable_declarator") {
          TSNode left = field(x, t == "assignment" ? "left" : "name"), right = field(x, t == "assignment" ? "right" : "value");
          if (!ts_node_is_null(left) && !ts_node_is_null(right) && text(left) == name) {
            value = right;
            return;
          }
        }
        for (uint32_t i = 0; i < ts_node_named_child_count(x); ++i) find(tsnav::named_child(x, i), depth + 1);
      };
      find(unit_node_, 0);
      if (!ts_node_is_null(value)) return node_rows(value);
    }
    if (lang_ != Lang::python) return 0;
    TSNode params = field(unit_node_, "parameters");
    if (ts_node_is_null(params)) return 0;
    bool param = false;
    for (uint32_t i = 0; i < ts_node_named_child_count(params); ++i) param = param || text(tsnav::named_child(params, i)) == name;
    if (!param) return 0;
    if (TSNode d = top_level_function(unit_node_, name); !ts_node_is_null(d)) {
      TSNode body = field(d, "body");
      // (One statement: `return <value>`, after a docstring at most.)
      TSNode last{};
      int statements = 0;
      for (uint32_t j = 0; !ts_node_is_null(body) && j < ts_node_named_child_count(body); ++j) {
        TSNode st = tsnav::named_child(body, j);
        if (type(st) == "comment" || (type(st) == "expression_statement" && ts_node_named_child_count(st) == 1 &&
                                      type(tsnav::named_child(st, 0)) == "string"))
          continue;
        ++statements;
        last = st;
      }
      if (statements != 1 || type(last) != "return_statement" || ts_node_named_child_count(last) != 1) return 0;
      return node_rows(tsnav::named_child(last, 0));
    }
    return 0;
  }

  /// The rows of an operand that calls a function of the file with a literal table, the function
  /// returning a comprehension over its one parameter whose element calls something (`_sums([(2,
  /// 2), (1, 3)])` with `async def _sums(pairs): ... return [await f(a, b) for a, b in pairs]`),
  /// through `asyncio.run(...)` or `await`. Python; 0 otherwise.
  int helper_rows(TSNode n, std::string operand) const {
    if (lang_ != Lang::python || ts_node_is_null(n)) return 0;
    if (starts_with(operand, "asyncio.run(") && operand.back() == ')' && matching_close(operand, 11) == operand.size() - 1)
      operand = operand.substr(12, operand.size() - 13);
    if (starts_with(operand, "await")) operand = operand.substr(5);
    static const rx::regex call(R"(^([A-Za-z_]\w*)\((.*)\)$)");
    rx::smatch m;
    if (!rx::regex_match(operand, m, call) || matching_close(operand, m[1].length()) != operand.size() - 1) return 0;
    const std::string name = m[1].str(), arg = m[2].str();
    const auto table = literal_table(arg);
    if (!table || table->size() < 2 || split_top(arg, {","}).size() != 1) return 0;
    if (TSNode d = top_level_function(n, name); !ts_node_is_null(d)) {
      TSNode params = field(d, "parameters"), body = field(d, "body");
      if (ts_node_is_null(params) || ts_node_is_null(body) || ts_node_named_child_count(params) != 1) return 0;
      const std::string param = text(tsnav::named_child(params, 0));
      TSNode last = tsnav::named_child(body, ts_node_named_child_count(body) - 1);
      if (ts_node_is_null(last) || type(last) != "return_statement" || ts_node_named_child_count(last) != 1) return 0;
      TSNode value = tsnav::named_child(last, 0);
      if (type(value) != "list_comprehension" && type(value) != "generator_expression") return 0;
      TSNode elem = field(value, "body");
      if (ts_node_is_null(elem) || text(elem).find('(') == std::string::npos) return 0;
      // One `for ... in <the parameter>` and nothing else (no filter, no second `for`).
      int clauses = 0;
      bool over_param = false;
      for (uint32_t j = 0; j < ts_node_named_child_count(value); ++j) {
        TSNode c = tsnav::named_child(value, j);
        if (type(c) == "for_in_clause") {
          ++clauses;
          TSNode right = field(c, "right"), left = field(c, "left");
          over_param = !ts_node_is_null(right) && text(right) == param && !ts_node_is_null(left) && uses_any_word(text(left), text(elem));
        } else if (type(c) == "if_clause") {
          return 0;
        }
      }
      return clauses == 1 && over_param ? static_cast<int>(table->size()) : 0;
    }
    return 0;
  }

  /// The distinct rows of the literal table the check `n` maps a call over, when that mapping is
  /// its compared operand (`operand`, whitespace removed; `list(...)`, `tuple(...)`,
  /// `Array.from(...)` around it keep the values; `sum(...)`, `len(...)` do not): `map(f, [..],
  /// [..])` (rows as `zip` makes them; `f` a name, or a lambda that uses its parameters in a call),
  /// a comprehension or generator whose element calls something with the row's variables, JS
  /// `[..].map((row) => f(row))`. 0 otherwise: a mapping that ignores its rows, a filtered or
  /// nested comprehension, a table that is not written out.
  int mapped_rows(TSNode n, std::string target) const {
    for (bool unwrapped = true; unwrapped;) {
      unwrapped = false;
      // (`all(f(a) == w for a, w in [...])`: each element is a check of its own.)
      static constexpr std::string_view kKeep[] = {"list(", "tuple(", "Array.from(", "Promise.all(", "asyncio.gather(*", "all("};
      // (`await Promise.all(...)` reads `awaitPromise.all(...)` without its spaces.)
      if (starts_with(target, "await") && target.size() > 5 &&
          (!std::isalnum(static_cast<unsigned char>(target[5])) ||
           std::any_of(std::begin(kKeep), std::end(kKeep), [&](std::string_view w) { return starts_with(std::string_view(target).substr(5), w); }))) {
        target = target.substr(5);
        unwrapped = true;
      }
      for (std::string_view w : kKeep)
        if (starts_with(target, w) && target.back() == ')' && matching_close(target, target.find('(')) == target.size() - 1) {
          target = target.substr(w.size(), target.size() - w.size() - 1);
          unwrapped = true;
        }
    }
    int found = 0, rows = 0;
    std::function<void(TSNode, int)> walk = [&](TSNode x, int depth) {
      if (depth > 12 || found > 1) return;
      int r = 0;
      if (const std::string own = strip_spaces(text(x)); own == target || own == "(" + target + ")") r = node_rows(x);
      if (r > 0 && compared_side(x, n)) {
        ++found;
        rows = r;
        return;
      }
      for (uint32_t i = 0; i < ts_node_named_child_count(x); ++i) walk(tsnav::named_child(x, i), depth + 1);
    };
    walk(n, 0);
    return found == 1 ? rows : 0;
  }

  /// A check inside a local function the unit calls with several distinct argument lists
  /// (`run := func(t *testing.T, a, b, want int) {...}; run(t, 2, 2, 4); run(t, 1, 5, 6)`) that
  /// uses the function's parameters checks once per distinct call, like a table row.
  void closure_rows(Assertion& a, TSNode check, TSNode fn) const {
    std::string name;
    TSNode nm = field(fn, "name");
    TSNode up = tsnav::parent(fn);
    if (!ts_node_is_null(nm)) name = text(nm);
    else if (!ts_node_is_null(up) && (type(up) == "variable_declarator" || type(up) == "assignment"))
      name = text(field(up, type(up) == "variable_declarator" ? "name" : "left"));
    else if (!ts_node_is_null(up) && type(up) == "expression_list" && !ts_node_is_null(tsnav::parent(up)) &&
             type(tsnav::parent(up)) == "short_var_declaration")
      name = text(field(tsnav::parent(up), "left"));
    if (name.empty() || ts_node_is_null(unit_node_) || name.find_first_of(" ,") != std::string::npos) return;
    const std::string all = text(unit_node_);
    const std::size_t base = ts_node_start_byte(unit_node_);
    const std::size_t fb = ts_node_start_byte(fn) - base, fe = ts_node_end_byte(fn) - base;
    auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; };
    std::set<std::string> calls;
    for (std::size_t p = all.find(name); p != std::string::npos; p = all.find(name, p + 1)) {
      if ((p >= fb && p < fe) || (p > 0 && (ident(all[p - 1]) || all[p - 1] == '.'))) continue;
      std::size_t q = p + name.size();
      while (q < all.size() && (all[q] == ' ' || all[q] == '\t')) ++q;
      if (q >= all.size() || all[q] != '(') continue;
      const std::size_t e = closing_paren(all, q);
      calls.insert(strip_spaces(all.substr(q, e - q)));
    }
    if (calls.size() < 2) return;
    TSNode params = field(fn, "parameters");
    if (ts_node_is_null(params)) return;
    static const rx::regex word(R"([A-Za-z_$][\w$]*)");
    const std::string names = text(params), body = text(check);
    for (rx::sregex_iterator w(names.begin(), names.end(), word), e; w != e; ++w) {
      const rx::regex use = detail::cached_regex("(^|[^\\w$.])" + w->str() + "([^\\w$]|$)");
      static const std::set<std::string, std::less<>> kNotValues = {"t", "tt", "self", "this", "testing", "T", "int", "string",
                                                                    "bool", "error", "func", "float64", "int64", "any"};
      if (!kNotValues.count(w->str()) && rx::regex_search(body, use)) {
        a.rows = std::min(kMaxTableRows, a.rows * static_cast<int>(calls.size()));
        return;
      }
    }
  }

  /// `[[1, 2], [3, 4]].forEach(([a, b]) => { assert... })`: the callback `fn` runs once per row.
  void js_table_callback(Assertion& a, TSNode check, TSNode fn) const {
    TSNode args = tsnav::parent(fn);
    TSNode call = ts_node_is_null(args) ? args : tsnav::parent(args);
    if (ts_node_is_null(call) || type(args) != "arguments" || type(call) != "call_expression") return;
    TSNode callee = field(call, "function");
    if (ts_node_is_null(callee) || type(callee) != "member_expression") return;
    TSNode object = field(callee, "object"), prop = field(callee, "property");
    const std::string method = ts_node_is_null(prop) ? "" : text(prop);
    if (ts_node_is_null(object) || !literal_table(text(object)) || (method != "forEach" && method != "map")) return;
    TSNode params = field(fn, "parameters");
    if (ts_node_is_null(params)) params = field(fn, "parameter");
    table_rows(a, check, text(object), params, field(fn, "body"));
  }

  TrySwallows try_swallows() const {
    return [this](TSNode t) { return swallows(t); };
  }

  /// A failure dropped beyond a try around the check (swallow.hpp).
  void swallowed_by(Assertion& a, const std::string& why) const {
    if (why.empty() || !a.swallow_why.empty()) return;
    a.swallowed = true;
    a.swallow_why = why;
  }

  /// `const outcomes = await Promise.allSettled([...])` whose outcomes the test then fails on: a
  /// rejected one rethrown (`if (o.status === 'rejected') throw o.reason`) or each asserted
  /// fulfilled (`expect(o.status).toBe('fulfilled')`, `assert.equal(o.status, 'fulfilled')`).
  bool settled_outcomes_checked(TSNode call) const {
    return !ts_node_is_null(unit_node_) && js_settled_outcomes_checked(s_, call, unit_node_);
  }

  /// Is the Python builtin `name` (`all`, `any`) rebound in the file: `all = any`, `def all(`,
  /// `from builtins import any as all`, `import all`?
  bool python_builtin_rebound(const std::string& name) const {
    const rx::regex bound = detail::cached_regex("\\bdef\\s+" + name + "\\s*\\(|(?:^|[^\\w.])" + name +
                                                  "\\s*(?::[^=\\n]*)?=(?!=)|\\bimport\\s+[^\\n]*\\b" + name + "\\b|\\bas\\s+" + name + "\\b");
    return rx::regex_search(s_.src, bound);
  }

  /// Is `arg` a Python list or tuple written out (`[a, b]`, `(a, b)`), not a comprehension nor
  /// one made otherwise (`[a] * 0`, `[a, b][1:]`)?
  static bool python_written_out(const std::string& arg) {
    return arg.size() >= 2 && ((arg.front() == '[' && arg.back() == ']') || (arg.front() == '(' && arg.back() == ')')) &&
           matching_close(arg, 0) == arg.size() - 1 && split_top(arg.substr(1, arg.size() - 2), {" for "}).size() == 1;
  }

  /// The items of Python's `all([a, b])` / `all((a, b))` written out, each with a nested `any([...])`
  /// as its disjunction: the clauses it asserts. Empty for anything else; then `weak` tells a call
  /// of `all` whose items are not written out (a slice, `* 0`, a starred item) or a rebound `all`.
  std::vector<std::string> python_all_items(const std::string& written, bool& weak) const {
    const std::string e = unparen(trim(written));
    if (!starts_with(e, "all(") || matching_close(e, 3) != e.size() - 1) return {};
    const std::string arg = trim(std::string_view(e).substr(4, e.size() - 5));
    const bool listed = python_written_out(arg);
    if (python_builtin_rebound("all")) {
      weak = true;
      return {};
    }
    if (!listed) {
      // (`[got == 4] * 0`, `[...][1:]`, `[...].copy()[2:]`: a list written out, then made otherwise.)
      weak = (arg.front() == '[' || arg.front() == '(') && matching_close(arg, 0) != arg.size() - 1;
      return {};
    }
    std::vector<std::string> items;
    for (auto& item : split_top(arg.substr(1, arg.size() - 2), {","})) {
      std::string x = trim(item);
      if (x.empty()) continue;
      // (A starred item hides what it holds; a lambda is always true.)
      if (starts_with(x, "*") || function_expression(x)) {
        weak = true;
        return {};
      }
      bool inner_weak = false;
      x = python_any_text(x, inner_weak);
      if (inner_weak) {
        weak = true;
        return {};
      }
      items.push_back(std::move(x));
    }
    return items;
  }

  /// Python's `any([a, b])` written out as `(a) or (b)`; `e` itself otherwise (`weak` set for an
  /// `any` whose items are not written out, or a rebound one).
  std::string python_any_text(const std::string& written, bool& weak) const {
    const std::string e = unparen(trim(written));
    if (!starts_with(e, "any(") || matching_close(e, 3) != e.size() - 1) return written;
    const std::string arg = trim(std::string_view(e).substr(4, e.size() - 5));
    const bool listed = python_written_out(arg);
    if (python_builtin_rebound("any") || !listed) {
      weak = python_builtin_rebound("any") || ((arg.front() == '[' || arg.front() == '(') && matching_close(arg, 0) != arg.size() - 1);
      return written;
    }
    std::string out;
    for (const auto& item : split_top(arg.substr(1, arg.size() - 2), {","})) {
      const std::string x = trim(item);
      if (x.empty()) continue;
      if (starts_with(x, "*")) {
        weak = true;
        return written;
      }
      out += (out.empty() ? "(" : " or (") + x + ")";
    }
    return out.empty() ? written : out;
  }

  /// A ternary picking one literal of each truth (`c ? false : true`, `True if c else False`): `c`
  /// itself or its negation; `c ? 1 : 0`, `c ? null : 1` too where only truthiness counts (`strict`
  /// false); a negation of one, `!(c ? false : true)`, is `c`. `c` as written (trimmed) otherwise.
  std::string literal_ternary(const std::string& c, bool strict) const {
    const std::string e = unparen(trim(c));
    for (const std::string_view neg : {"!", "not "})
      if (starts_with(e, neg) && (neg == "not " ? lang_ == Lang::python : !starts_with(e, "!=")) &&
          wrapped_in_parens(trim(e.substr(neg.size())))) {
        const std::string inner = unparen(e.substr(neg.size()));
        if (const std::string plain = literal_ternary(inner, strict); plain != inner) return negation_of(plain);
      }
    std::string cond, yes, no;
    if (lang_ == Lang::python) {
      const auto parts = split_top(e, {" if ", " else "});
      if (parts.size() != 3) return trim(c);
      yes = trim(parts[0]), cond = trim(parts[1]), no = trim(parts[2]);
    } else {
      const std::string marked = js_ternary_marks(e);
      const auto q = split_top(marked, {"?"});
      if (q.size() != 2 || contains(marked, "??")) return trim(c);
      const auto r = split_top(std::string_view(e).substr(q[0].size() + 1), {":"});
      if (r.size() != 2) return trim(c);
      cond = trim(e.substr(0, q[0].size())), yes = trim(r[0]), no = trim(r[1]);
    }
    const auto truth = [&](const std::string& x) {
      if (x == "true" || x == "True") return 1;
      if (x == "false" || x == "False") return 0;
      if (!strict && truthy_literal(x)) return 1;
      if (!strict && falsy_literal(x, lang_ == Lang::python)) return 0;
      return -1;
    };
    const int ty = truth(yes), tn = truth(no);
    if (ty < 0 || tn < 0 || ty == tn || cond.empty() || has_ternary(cond)) return trim(c);
    return ty == 1 ? cond : negation_of(cond);
  }

  /// Is `c` a boolean made of comparisons: a comparison (`got == 4`, `a < b`, `x in xs`, `x is
  /// None`, `x instanceof C`), a negation (`!x`, `not x`), clauses of those joined by and/or, or a
  /// local holding one (held_condition)? Not a ternary, a comma expression, a function (`() => got
  /// === 4`), `??`, a comparison with an assignment inside (`(got = 4) !== 4`) or a plain value.
  bool boolean_condition(const std::string& c, int depth = 0) const {
    const std::string e = unparen(trim(c));
    if (e.empty() || depth > 8) return false;
    const std::string marked = js_ternary_marks(e);
    if (split_top(marked, {","}).size() > 1 || split_top(marked, {"??"}).size() > 1 || has_ternary(e) || function_expression(e)) return false;
    if (const auto joined = split_top(marked, {"||", "&&", " or ", " and "}); joined.size() > 1) {
      std::size_t at = 0;
      for (const auto& part : joined) {
        if (!boolean_condition(e.substr(at, part.size()), depth + 1)) return false;
        at += part.size();
        for (const std::string_view sep : {"||", "&&", " or ", " and "})
          if (e.compare(at, sep.size(), sep) == 0) {
            at += sep.size();
            break;
          }
      }
      return true;
    }
    if (starts_with(e, "!") && !starts_with(e, "!=")) return !trim(e.substr(1)).empty();
    if (lang_ == Lang::python && (starts_with(e, "not ") || starts_with(e, "not("))) return !trim(e.substr(3)).empty();
    if (const std::string held = held_condition(e); held != e) return boolean_condition(held, depth + 1);
    const auto sides = split_top(marked, {"!==", "===", "!=", "==", "<=", ">=", "<", ">", " in ", " is ", " instanceof "});
    return sides.size() == 2 && !top_level_assignment(sides[0]) && !top_level_assignment(sides[1]) &&
           !starts_with(trim(sides[0]), "typeof") && !starts_with(trim(sides[1]), "typeof");
  }

  /// What truth_or_falsity found: the condition as written and whether its falsity is checked;
  /// `type_only` for a plain value (`expect(x).to.be.null`, `assert.isTrue(done)`), checked for
  /// what it is rather than compared.
  struct TruthCheck {
    std::string condition;
    bool falsity = false;
    bool type_only = false;
  };

  /// A truth or falsity check classify_call reads through the condition itself (see its use);
  /// nullopt for any other call, and for a call whose own reading already holds: a plain value
  /// under a call the sets of classify_call know (`t.notOk(err)`, `expect(x).toBeTruthy()`).
  std::optional<TruthCheck> truth_or_falsity(TSNode n, const std::string& name, const std::string& t) const {
    const auto is_bool = [](const std::string& x) { return x == "true" || x == "false" || x == "True" || x == "False"; };
    const auto falsy_literal = [](const std::string& x) { return x == "false" || x == "False"; };
    // (A condition: a comparison or a join, a held one, either negated: boolean_condition. Strict
    // checks against `true`/`false`, `.not.toBe(true)`, hold only for such a boolean, and a comma
    // expression, a function or a ternary is none. A literal ternary is its condition: literal_ternary.)
    // (chai's and jest's `not` sets negation, it does not toggle it: `.not.not.be.true` is `.not.be.true`.)
    const auto negated_flag = [&](bool falsity) { return contains(strip_spaces(t), ".not.") ? !falsity : falsity; };
    if (is_js(lang_) && name == "expect" && !contains(callee_text(n), ".")) {
      // chai's property assertions: `expect(c).to.be.true`, `expect(c).not.to.be.ok`,
      // `expect(x).to.be.null`; a chain that ends in a call (`.to.equal(4)`) is that call's.
      const auto raw = raw_call_args(n);
      // (chai's `expect(c, 'message')`.)
      const bool message = raw.size() == 2 && !trim(raw[1]).empty() && (trim(raw[1])[0] == '\'' || trim(raw[1])[0] == '"' || trim(raw[1])[0] == '`');
      if (raw.size() != 1 && !message) return std::nullopt;
      TSNode cur = n;
      bool negate = false;
      std::string last;
      for (TSNode up = tsnav::parent(cur); !ts_node_is_null(up) && type(up) == "member_expression"; up = tsnav::parent(cur)) {
        if (!ts_node_eq(field(up, "object"), cur)) break;
        last = text(field(up, "property"));
        if (last == "not") negate = true;
        cur = up;
      }
      TSNode parent = tsnav::parent(cur);
      if (last.empty() || (!ts_node_is_null(parent) && type(parent) == "call_expression" && ts_node_eq(field(parent, "function"), cur)))
        return std::nullopt;
      const std::string c = literal_ternary(raw[0], /*strict=*/last != "ok");
      if (last == "true" || last == "ok") return TruthCheck{c, negate, !boolean_condition(c)};
      if (last == "false") return TruthCheck{c, !negate, !boolean_condition(c)};
      static const std::set<std::string, std::less<>> kWhat = {"null", "undefined", "exist", "empty", "NaN", "finite",
                                                               "extensible", "sealed", "frozen", "arguments"};
      if (kWhat.count(last)) return TruthCheck{c, false, true};
      return std::nullopt;
    }
    if (is_js(lang_)) {
      const std::string callee = callee_text(n);
      const auto dot = callee.rfind('.');
      const bool method = dot != std::string::npos && dot > 0;
      const auto raw = raw_call_args(n);
      // chai's assert.isTrue / isOk / isFalse / isNotOk / isNotTrue, tape's t.notOk / t.false,
      // ava's t.falsy: on an object (`assert.`, `t.`), the condition first.
      static const std::set<std::string, std::less<>> kTrue = {"isTrue", "isOk", "isNotFalse"};
      static const std::set<std::string, std::less<>> kFalse = {"notOk", "notok", "false", "falsy", "isFalse", "isNotOk", "isNotTrue"};
      if (method && !raw.empty() && (kTrue.count(name) || kFalse.count(name)) && !starts_with(callee, "expect(")) {
        const bool strict = name == "isTrue" || name == "isFalse" || name == "isNotTrue" || name == "isNotFalse";
        const std::string c = literal_ternary(raw[0], strict);
        const bool falsity = kFalse.count(name) > 0;
        if (boolean_condition(c)) return TruthCheck{c, falsity, false};
        // (A plain value: tape's t.notOk(err) keeps its reading; the names no set knows are what they test.)
        if (name == "notOk") return std::nullopt;
        return TruthCheck{c, falsity, true};
      }
      // jest's expect(c).toBeTruthy() / toBeFalsy(), and `.not.toBe(true)`: over what expect(...) holds.
      if (starts_with(callee, "expect(")) {
        const std::string c = literal_ternary(js_expect_subject(n), /*strict=*/name != "toBeTruthy" && name != "toBeFalsy");
        if (c.empty()) return std::nullopt;
        const bool compared = boolean_condition(c);
        if (compared && name == "toBeTruthy" && raw.empty()) return TruthCheck{c, negated_flag(false), false};
        if (compared && name == "toBeFalsy" && raw.empty()) return TruthCheck{c, negated_flag(true), false};
        // (chai's `expect(c).to.not.equal(true)` too.)
        static const std::set<std::string, std::less<>> kEqual = {"toBe", "toEqual", "toStrictEqual", "equal", "equals", "eq", "eql"};
        if (kEqual.count(name) && raw.size() == 1 && is_bool(trim(raw[0])) && contains(strip_spaces(t), ".not."))
          return TruthCheck{c, !falsy_literal(trim(raw[0])), !compared};
      }
    }
    // gmock's `EXPECT_THAT(c, IsTrue())` / `IsFalse()`.
    if (lang_ == Lang::cpp && (name == "EXPECT_THAT" || name == "ASSERT_THAT")) {
      const auto raw = raw_call_args(n);
      if (raw.size() != 2) return std::nullopt;
      std::string m = strip_spaces(raw[1]);
      for (std::string_view ns : {"::testing::", "testing::"})
        if (starts_with(m, ns)) m = m.substr(ns.size());
      const std::string c = literal_ternary(raw[0], /*strict=*/false);
      if ((m != "IsTrue()" && m != "IsFalse()") || !boolean_condition(c)) return std::nullopt;
      return TruthCheck{c, m == "IsFalse()", false};
    }
    // An inequality with a boolean literal (`EXPECT_NE(c, true)`, `assertNotEqual(c, True)`,
    // `assert.notStrictEqual(c, true)`, testify's `NotEqual(t, true, c)`): the falsity of `c` (its
    // truth for `false`).
    static const std::set<std::string, std::less<>> kNotEqual = {"EXPECT_NE", "ASSERT_NE", "assertNotEqual", "assertNotEquals",
                                                                 "assertIsNot", "notStrictEqual", "notEqual", "NotEqual",
                                                                 "NotEqualValues", "assert_ne"};
    // (ava's `t.not(c, true)`: Object.is inequality.)
    if (kNotEqual.count(name) || (is_js(lang_) && name == "not" && callee_text(n) == "t.not")) {
      const auto raw = raw_call_args(n);
      const std::size_t first = lang_ == Lang::go ? 1 : 0;
      if (raw.size() < first + 2) return std::nullopt;
      const std::string x = trim(raw[first]), y = trim(raw[first + 1]);
      if (is_bool(x) == is_bool(y)) return std::nullopt;
      const std::string c = literal_ternary(is_bool(x) ? y : x, /*strict=*/true);
      const std::string& literal = is_bool(x) ? x : y;
      // (Of a plain value, `assertNotEqual(err, True)`: at most what it is, never a range; it
      // fails on one value only.)
      return TruthCheck{c, !falsy_literal(literal), !boolean_condition(c)};
    }
    return std::nullopt;
  }

  /// The condition of a falsity check (`EXPECT_FALSE(c)`, `ASSERT_FALSE(c)`, `self.assertFalse(c)`,
  /// testify's `assert.False(t, c)`), as written; nullopt for any other call.
  std::optional<std::string> falsy_condition(TSNode n, const std::string& name) const {
    const bool go = lang_ == Lang::go && name == "False";
    if (name != "EXPECT_FALSE" && name != "ASSERT_FALSE" && name != "assertFalse" && !go) return std::nullopt;
    const auto raw = raw_call_args(n);
    const std::size_t at = go ? 1 : 0;
    if (raw.size() <= at || trim(raw[at]).empty()) return std::nullopt;
    return trim(raw[at]);
  }

  /// What `expect(...)` holds in the chain `n` (`expect(pass).toBe(true)`: `pass`), as written; "".
  std::string js_expect_subject(TSNode n) const {
    const std::string whole = text(n);
    if (const auto at = whole.find("expect("); at != std::string::npos)
      if (const auto close = matching_close(whole, at + 6); close != std::string::npos) return whole.substr(at + 7, close - at - 7);
    return {};
  }

  /// Does `e` hold a ternary at its top level (`a && b ? x : y`, Python's `a and b if c else d`)?
  bool has_ternary(const std::string& e) const {
    return split_top(js_ternary_marks(e), {"?"}).size() > 1 || (lang_ == Lang::python && split_top(e, {" if "}).size() > 1);
  }

  /// Does `e` compare or join clauses at its top level (`got == 4`, `a < b`, `x in xs`, `a and b`)?
  bool is_condition(const std::string& e) const {
    return split_top(js_ternary_marks(e), {"==", "!=", "<", ">", " in ", "||", "&&", " or ", " and "}).size() >= 2;
  }

  /// A condition compared with a boolean literal (`ok == True`, `ok is True`, `(got == 4) is
  /// True`, `ok === false`, `got != 4 == false`), as the truth of the condition, negated for a
  /// false literal: when the compared side is a held condition, a condition itself or a plain name
  /// (a plain name compared with a literal is its truth whether held or not: `assert ok == True`
  /// of an `ok` bound twice is `assert ok`, no equality). "" for anything else.
  std::string truth_of(const std::string& written) const {
    const auto compared = truth_compared(unparen(trim(written)), lang_ == Lang::python);
    if (!compared) return {};
    // (A boolean only: `(True if c else None) is not False` holds for None too.)
    const std::string subject = literal_ternary(unparen(compared->first), /*strict=*/true);
    if (held_condition(subject) != subject || boolean_condition(subject) || is_plain_name(subject))
      return compared->second ? negation_of(subject) : subject;
    return {};
  }

  /// `e` negated as the unit's language writes it: `not (e)` in Python, `!(e)` elsewhere; a plain
  /// name without parentheses (`not ok`, `!ok`), as held_condition reads it.
  std::string negation_of(const std::string& e) const {
    const bool name = is_plain_name(e);
    if (lang_ == Lang::python) return name ? "not " + e : "not (" + e + ")";
    return name ? "!" + e : "!(" + e + ")";
  }

  /// A hash of what the code of `n` is, token by token: its comments and its layout left out, so
  /// that a test renamed with a comment added or its body re-indented has the same body.
  std::size_t code_hash(TSNode n) const {
    std::string tokens;
    walk_code(n, [](TSNode) {}, [&](TSNode x) {
      tokens += text(x);
      tokens += '\x1f';
    });
    return std::hash<std::string>{}(tokens);
  }

  /// The current unit's text (its first 65536 bytes) with its comments and string literals blanked
  /// by the syntax tree (same length, newlines kept): a JavaScript regular expression, a raw
  /// string, a char literal are what the grammar says, not what a quote scan guesses.
  /// Interpolations (`${...}` in a template literal, `{...}` in a Python f-string) are kept. Worked
  /// out once per unit.
  const std::string& unit_code() const {
    const auto key = std::make_pair(ts_node_start_byte(unit_node_), ts_node_end_byte(unit_node_));
    if (const auto it = unit_codes_.find(key); it != unit_codes_.end()) return it->second;
    std::string& out = unit_codes_[key];
    out = text(unit_node_).substr(0, 65536);
    const std::string original = out;
    const uint32_t base = ts_node_start_byte(unit_node_);
    static const std::set<std::string, std::less<>> kText = {"string", "template_string", "string_literal", "raw_string_literal",
                                                             "char_literal", "character_literal", "interpreted_string_literal",
                                                             "rune_literal", "regex", "text_block", "concatenated_string"};
    static const std::set<std::string, std::less<>> kComment = {"comment", "line_comment", "block_comment"};
    static const std::set<std::string, std::less<>> kInterpolation = {"template_substitution", "interpolation"};
    const auto span = [&](TSNode x) {
      const std::size_t from = ts_node_start_byte(x) - base, to = ts_node_end_byte(x) - base;
      return std::pair{std::min(from, out.size()), std::min(to, out.size())};
    };
    std::function<void(TSNode, int)> mask = [&](TSNode x, int depth) {
      if (depth > kMaxSyntaxDepth || ts_node_start_byte(x) - base >= out.size()) return;
      const std::string_view t = type(x);
      if (kText.count(t) || kComment.count(t)) {
        const auto [from, to] = span(x);
        for (std::size_t k = from; k < to; ++k)
          if (out[k] != '\n') out[k] = ' ';
        if (kComment.count(t)) return;
        // (What an interpolation computes is code: restored, its own strings masked again.)
        for (uint32_t i = 0; i < ts_node_named_child_count(x); ++i) {
          TSNode c = tsnav::named_child(x, i);
          if (!kInterpolation.count(type(c))) continue;
          const auto [cf, ct] = span(c);
          for (std::size_t k = cf; k < ct; ++k) out[k] = original[k];
          mask(c, depth + 1);
        }
        return;
      }
      for (uint32_t i = 0; i < ts_node_child_count(x); ++i) mask(tsnav::child(x, i), depth + 1);
    };
    mask(unit_node_, 0);
    return out;
  }

  /// A condition held in a local the unit binds once (`ok = got == 4` ... `assert ok`, `const pass
  /// = got === 4 || got === 0` ... `assert.ok(pass)`, Go's `ok := got == 4` ... `if !ok {
  /// t.Fatal() }`): `clause` with the name replaced by the condition (a negation kept), so that
  /// the check is scored by what it compares; `clause` itself otherwise.
  std::string held_condition(const std::string& clause) const {
    if (ts_node_is_null(unit_node_)) return clause;
    std::string e = unparen(trim(clause)), prefix;
    if (starts_with(e, "!")) {
      prefix = "!";
      e = trim(e.substr(1));
    } else if (lang_ == Lang::python && starts_with(e, "not ")) {
      prefix = "not ";
      e = trim(e.substr(4));
    }
    if (!is_plain_name(e)) return clause;
    const auto& [value, bound_at] = held_value(e);
    // (Bound after the check, a hoisted `var bad = ...` below `t.notOk(bad)`: the check reads it unset.)
    if (value.empty() || (check_at_ != std::string::npos && bound_at >= check_at_)) return clause;
    return prefix.empty() ? value : prefix + "(" + value + ")";
  }

  /// Does the current unit's code bind names its text does not spell: `eval('ok = true')`,
  /// `exec(...)`, `Function(...)`, frame locals (`locals()`, `sys._getframe`, `f_locals`), `\u`
  /// escapes in identifiers, JavaScript's `with`? Not a method of such a name (a regular
  /// expression's `.exec(`). Worked out once per unit.
  bool unit_binds_dynamically() const {
    const auto key = std::make_pair(ts_node_start_byte(unit_node_), ts_node_end_byte(unit_node_));
    if (const auto it = unit_dynamic_.find(key); it != unit_dynamic_.end()) return it->second;
    static const rx::regex dynamic(R"((?:^|[^.\w$])(?:eval|exec|Function|locals|globals|vars|_getframe|currentframe)\s*\(|f_locals|\\u[0-9a-fA-F{])");
    const std::string& code = unit_code();
    return unit_dynamic_[key] = rx::regex_search(code, dynamic) || (is_js(lang_) && rx::regex_search(code, detail::cached_regex(R"(\bwith\s*\()")));
  }

  /// The condition the unit binds the plain local `e` to, once, in its body, `e` named nowhere else
  /// but there and at its check (held_condition's rules); "" when `e` holds no such condition.
  /// Worked out once per unit and name.
  const std::pair<std::string, std::size_t>& held_value(const std::string& e) const {
    const auto key = std::make_tuple(ts_node_start_byte(unit_node_), ts_node_end_byte(unit_node_), e);
    if (const auto it = held_values_.find(key); it != held_values_.end()) return it->second;
    auto& entry = held_values_[key];  // ({"", 0} unless the end below is reached)
    const auto& none = entry;
    if (single_binding(e).empty()) return none;
    // Bound exactly once, counting compound assignments (`ok |= ...`, `pass ||= ...`) and those
    // after a condition (`if (got === 0) pass = true`); the value read whole, continuation lines
    // included (`ok = got == 4 \` / `or got == 0`, `const pass = got === 4` / `|| got === 0;`).
    const std::string all = text(unit_node_).substr(0, 65536);
    // (Go's `var ok bool = ...`; C++'s `const bool ok{...}` and `bool ok(...)`: the value from the bracket on.)
    const rx::regex assign = detail::cached_regex("(?:^|[^\\w$.])" + e +
                                                   R"((?:\s*:\s*[\w<>\[\]]+|\s+bool)?\s*(?:\|\||&&|\?\?|<<|>>|//|\*\*|[-+*/%&|^:])?=(?!=))" +
                                                   (lang_ == Lang::cpp ? "|" + cpp_initializer(e) : std::string()));
    // (Found in the code: a comment or a string, `# ok = True`, binds nothing.)
    const std::string& code = unit_code();
    // (Code that binds names the text does not spell: `eval('ok = true')`, `exec(...)`, JS's
    // `with`, frame locals, `\u` escapes in identifiers, a C++ macro of the file naming it or
    // pasting tokens: no held reading in such a unit.)
    {
      if (unit_binds_dynamically()) return none;
      if (lang_ == Lang::cpp)
        for (std::size_t at = s_.src.find("#define"); at != std::string::npos; at = s_.src.find("#define", at + 1)) {
          const std::string line = s_.src.substr(at, s_.src.find('\n', at) - at);
          if (contains(line, "##") || has_word(line, e)) return none;
        }
    }
    std::size_t assignments = 0, start = std::string::npos, bound_at = 0;
    for (rx::sregex_iterator it(code.begin(), code.end(), assign), end; it != end && assignments < 2; ++it, ++assignments) {
      start = static_cast<std::size_t>(it->position() + it->length());
      // (Where the name itself is: the match may start at the `{` of the block around it.)
      const std::string m = it->str();
      bound_at = static_cast<std::size_t>(it->position());
      for (std::size_t at = m.find(e); at != std::string::npos; at = m.find(e, at + 1))
        if ((at == 0 || !ident_char(m[at - 1])) && (at + e.size() >= m.size() || !ident_char(m[at + e.size()]))) {
          bound_at += at;
          break;
        }
    }
    if (assignments != 1) return none;
    // Python: a statement of the test's body itself, at its indentation (not a lambda's walrus, a
    // nested class's or function's body, a comprehension): what `assert ok` then reads.
    if (lang_ == Lang::python) {
      const std::size_t line_start = code.rfind('\n', bound_at) == std::string::npos ? 0 : code.rfind('\n', bound_at) + 1;
      const std::string_view before = std::string_view(code).substr(line_start, bound_at - line_start);
      if (before.find_first_not_of(" \t") != std::string_view::npos) return none;
      // (The body's indentation: the first code line after the `def` line, decorators before it.)
      std::size_t body_indent = std::string::npos;
      const std::size_t def_at = code.find("def ");
      for (std::size_t at = def_at == std::string::npos ? def_at : code.find('\n', def_at); at != std::string::npos && at + 1 < code.size();
           at = code.find('\n', at + 1)) {
        const std::size_t text_at = code.find_first_not_of(" \t", at + 1);
        if (text_at == std::string::npos) break;
        if (code[text_at] == '\n' || code[text_at] == '#') continue;
        body_indent = text_at - (at + 1);
        break;
      }
      if (body_indent == std::string::npos || before.size() != body_indent) return none;
    }
    // Named nowhere else in the unit but its binding and this check: a rebinding the assignment
    // pattern does not see (`(ok) = True`, `ok, _ = True, 0`, `for ok in [True]`, `[ok] = [true]`,
    // `bool& r = ok; r = true;`, `f(&ok)`, a block of its own that shadows it) leaves it at a third
    // place, and then the check is read as written (review 42).
    {
      // (Counted in the code: a message or a comment naming it, `t.notOk(bad, 'bad sum')`, is no use;
      // an interpolation, `${bad}`, `f"{bad}"`, is.)
      const rx::regex word = detail::cached_regex("(?:^|[^\\w$.])" + e + "(?![\\w$])");  // (not `assert.ok`)
      std::size_t uses = 0;
      for (rx::sregex_iterator it(code.begin(), code.end(), word), end; it != end && uses < 3; ++it) ++uses;
      if (uses > 2) return none;
    }
    // Bound in the unit's body itself, not in a block of its own (`{ const ok = got === 4; }` ...
    // `assert.ok(ok === true)` checks another `ok`, the one the block shadowed: review 42).
    // (In the code, a `}` in a string or a comment aside; nor inside parentheses: a `for (let ok =
    // ...;;)` initializer binds in the loop's scope.)
    if (lang_ != Lang::python) {
      int depth = 0, least = -1, parens = 0;
      for (std::size_t k = 0; k < bound_at; ++k) {  // (before the binding: `bool ok{` opens no block)
        if (code[k] == '{') {
          ++depth;
          if (least < 0) least = depth;  // (the body's own brace)
        } else if (code[k] == '}') {
          --depth;
        } else if (least >= 0 && code[k] == '(') {
          ++parens;
        } else if (least >= 0 && code[k] == ')') {
          --parens;
        }
      }
      if ((least >= 0 && depth != least) || parens != 0) return none;
    }
    std::string value;
    int depth = 0;
    char q = 0;
    for (std::size_t k = start; k < all.size() && value.size() < 1024; ++k) {
      const char c = all[k];
      if (q) {
        if (c == '\\' && k + 1 < all.size()) value += all[k++];
        else if (c == q) q = 0;
        value += c;
        continue;
      }
      // (A comment to the end of its line: `# or got is None` is no clause.)
      if ((c == '#' && lang_ == Lang::python) || (c == '/' && k + 1 < all.size() && all[k + 1] == '/' && lang_ != Lang::python)) {
        while (k + 1 < all.size() && all[k + 1] != '\n') ++k;
        continue;
      }
      if (c == '"' || c == '\'' || c == '`') q = c;
      else if (c == '(' || c == '[' || c == '{') ++depth;
      else if (c == ')' || c == ']' || c == '}') --depth;
      if (depth < 0) break;
      if (depth == 0 && c == ';') break;
      if (c == '\\' && k + 1 < all.size() && all[k + 1] == '\n') {  // (a Python line continuation)
        value += ' ';
        ++k;
        continue;
      }
      if (depth == 0 && c == '\n') {
        const std::string sofar = trim(value);
        if (sofar.empty()) {  // (`const pass =` with the value on the next lines)
          value += ' ';
          continue;
        }
        std::size_t next = k + 1;
        while (next < all.size() && (all[next] == ' ' || all[next] == '\t')) ++next;
        const std::string_view rest = std::string_view(all).substr(next, 4);
        const bool continues =
            ends_with(sofar, "||") || ends_with(sofar, "&&") || ends_with(sofar, "??") || ends_with(sofar, " or") ||
            ends_with(sofar, " and") || ends_with(sofar, "?") || ends_with(sofar, ":") || ends_with(sofar, "=") ||
            starts_with(rest, "||") || starts_with(rest, "&&") || starts_with(rest, "??") || starts_with(rest, "or ") ||
            starts_with(rest, "and ") || starts_with(rest, "?") || starts_with(rest, ":");
        if (!continues) break;
        value += ' ';
        continue;
      }
      value += c;
    }
    value = trim(value);
    while (!value.empty() && (value.back() == ';' || value.back() == ',')) value.pop_back();
    if (value.empty() || contains(value, "=>") || starts_with(value, "lambda") || contains(value, "function")) return none;
    int open = 0;
    for (const char c : value) open += (c == '(' || c == '[' || c == '{') ? 1 : (c == ')' || c == ']' || c == '}') ? -1 : 0;
    if (open != 0) return none;
    // (Parentheses around it, `ok = (got == 4)`; a ternary of boolean literals, `bad = got === 4 ?
    // false : true`, is its condition or the negation.)
    value = literal_ternary(unparen(value), /*strict=*/true);
    // (Not a tuple, `ok = (got == 4,)`, always true; not a ternary with other branches.)
    if (ends_with(value, ",") || split_top(value, {","}).size() > 1 || has_ternary(value)) return none;
    // (A negated condition is one too: `const bad = !(got === 4)`, `bad = not (got == 4)`.)
    const std::string inner = (starts_with(value, "!(") && wrapped_in_parens(value.substr(1)))         ? unparen(value.substr(1))
                              : lang_ == Lang::python && starts_with(value, "not ") ? unparen(value.substr(4))
                                                                                    : std::string();
    const bool condition = split_top(js_ternary_marks(value), {"==", "!=", "<", ">", " in ", "||", "&&", " or ", " and "}).size() >= 2 ||
                           (!inner.empty() && is_condition(inner));
    if (!condition) return none;
    entry = {value, bound_at};
    return entry;
  }

  /// The value a plain local is bound to when the unit binds it exactly once (`got := Add(2, 2) / 10`,
  /// `const got = f() / 10`, `int got = f() / 10;`, `got = f() / 10`), or "".
  std::string single_binding(const std::string& name) const {
    if (!is_plain_name(name)) return {};
    const std::string all = text(unit_node_).substr(0, 65536);
    // Truncated in place (`v //= 2`, `v >>= 1`, `v %= 10`; `v /= 10` where `/` truncates integers):
    // read as a division of what it held.
    const bool truncating = lang_ == Lang::go || lang_ == Lang::cpp || lang_ == Lang::java || lang_ == Lang::kotlin || lang_ == Lang::rust;
    const rx::regex in_place = detail::cached_regex("(?:^|[^\\w$.])" + name + (truncating ? R"(\s*(?://|>>|%|/)=\s*([0-9]+))" : R"(\s*(?://|>>|%)=\s*([0-9]+))"));
    if (rx::smatch im; rx::regex_search(all, im, in_place) && im[1].str() != "1" && im[1].str() != "0")
      return truncating ? name + "/" + im[1].str() : "int(" + name + "/" + im[1].str() + ")";
    // (Go's `if ok := got == 4; !ok {` and `var ok bool = got == 4` bind too.)
    const rx::regex bind = detail::cached_regex("(?:^|[\\n;{(])[ \\t]*(?:if\\s+)?(?:(?:var|let|const|val|auto|final|constexpr|bool|boolean|int|long|short|double|float|int64|int32|uint|usize|i32|i64|u32|u64|mut|"
                          "unsigned|size_t|std::size_t|int64_t|int32_t|uint64_t|uint32_t|uint8_t|std::uint8_t|char)\\s+)*" + name +
                          "(?:\\s*:\\s*[\\w<>\\[\\]]+|\\s+bool)?\\s*(?::=|=(?!=))\\s*([^\\n;]+)");
    // (Bindings are found in the code, comments and string contents blanked: `# ok = True`,
    // `"ok=false"` bind nothing; the value is read from the text as written.)
    const std::string& code = unit_code();
    std::string value;
    int count = 0;
    for (rx::sregex_iterator it(code.begin(), code.end(), bind), e; it != e && count < 2; ++it, ++count)
      value = all.substr(static_cast<std::size_t>(it->position(1)), static_cast<std::size_t>(it->length(1)));
    // (C++'s brace and paren initializers, `const bool ok{got == 4};`, `bool ok(got == 4);`, after a type.)
    if (lang_ == Lang::cpp && count < 2) {
      const rx::regex init = detail::cached_regex(cpp_initializer(name) + R"(([^\n;]*)[)}]\s*;)");
      for (rx::sregex_iterator it(code.begin(), code.end(), init), e; it != e && count < 2; ++it, ++count)
        value = all.substr(static_cast<std::size_t>(it->position(1)), static_cast<std::size_t>(it->length(1)));
    }
    if (count != 1) return {};
    // (`got === 4 ? true : false` holds `got === 4`: no value chosen, no lossy view.)
    if (const std::string plain = literal_ternary(value, /*strict=*/true); plain != trim(value)) return plain;
    return value;
  }

  /// The pattern of a C++ local `name` declared with an initializer in braces or parentheses after
  /// its type (`const bool ok{`, `bool ok(`, `const auto ok {`), up to that bracket. (Not a
  /// `static` local: initialized once, it keeps the first run's value in every later one.)
  static std::string cpp_initializer(const std::string& name) {
    return "(?:^|[\\n;{(])[ \\t]*(?:(?:const|constexpr)\\s+)*(?:bool|auto|int|long|unsigned|size_t|std::size_t)\\s+" + name + "\\s*[({]";
  }

  /// The name a lossy view starts from: `p` of `(p >> 8)`, `Math.floor(n / 10)`, `int(n / 10)`.
  static std::string lossy_root(const std::string& view) {
    static const rx::regex root(R"(^[(]*(?:Math\.(?:floor|trunc)\(|int\()?[(]*([A-Za-z_$][\w$]*))");
    rx::smatch m;
    return rx::regex_search(view, m, root) ? m[1].str() : std::string();
  }

  /// How often the unit binds `name`: declarations, assignments (compound ones too), tuple
  /// targets, Go `:=` (an `if`/`for` initializer that shadows it included) and loop variables.
  int binding_count(const std::string& name) const {
    // (No `$`: the name goes into the patterns below as it is.)
    if (ts_node_is_null(unit_node_) || !regex_safe_name(name) || std::isdigit(static_cast<unsigned char>(name[0]))) return 0;
    const std::string all = text(unit_node_).substr(0, 65536);
    const rx::regex bind = detail::cached_regex("(?:^|[^\\w$.=!<>])" + name +
                          R"(\s*(?:,[^=\n;()]*)?(?::=|=(?!=)|[-+*/%&|^]=|<<=|>>=|//=))");
    const rx::regex loop = detail::cached_regex(R"(\bfor\s*\(?\s*(?:const|let|var|final|auto|int|long)?\s*)" + name + R"(\s+(?:in|of)\b)");
    int n = 0;
    for (rx::sregex_iterator it(all.begin(), all.end(), bind), e; it != e; ++it) ++n;
    for (rx::sregex_iterator it(all.begin(), all.end(), loop), e; it != e; ++it) ++n;
    return n;
  }

  /// JavaScript source without its string literals, which say nothing of what is read
  /// (`Object.keys(r)` against `['status', 'value']`), except those used as a key (`r['value']`).
  static std::string without_string_literals(const std::string& t) {
    std::string out;
    for (std::size_t i = 0; i < t.size();) {
      const char q = t[i];
      if (q != '\'' && q != '"' && q != '`') {
        out += t[i++];
        continue;
      }
      std::size_t j = i + 1;
      while (j < t.size() && t[j] != q) j += t[j] == '\\' ? 2 : 1;
      const std::size_t last = out.find_last_not_of(" \t\n");
      if (last != std::string::npos && out[last] == '[') out += t.substr(i, std::min(j + 1, t.size()) - i);
      else out += "''";
      i = j + 1;
    }
    return out;
  }

  /// JavaScript: does code read the `value` or `reason` of a settled outcome: `.value`,
  /// `['value']`, a `value:` key of an expected object, a destructured `{ value }`, or the whole
  /// outcome through `Object.values`/`entries` (not its first, the status) or `JSON.stringify`?
  /// Comments, string literals and names that merely contain the word (`values`) are no read.
  static bool reads_outcome_value(const std::string& code) {
    static const rx::regex comments(R"(/\*[\s\S]*?\*/|//[^\n]*)");
    const std::string uncommented = rx::regex_replace(code, comments, " ");
    // The field named as a call's argument (`_.map(rs, 'value')`, `pluck('value')`).
    static const rx::regex named_field(R"([(,\[]\s*['"`](?:value|reason)['"`]\s*[,)\]])");
    if (rx::regex_search(uncommented, named_field)) return true;
    // A status read first decides `r.status ?? r.value` and `r.status || r.value` (a status is never
    // empty): what follows is never read.
    static const rx::regex after_status(R"(\.\s*status\s*(?:\?\?|\|\|)\s*[^,;)\n]*)");
    std::string t = without_string_literals(rx::regex_replace(uncommented, after_status, ".status"));
    // A callback's destructured `value`/`reason` (`({ status, value }) => status`) is read only
    // when the code after it uses the name it binds.
    static const rx::regex destructured(R"(\(\s*\{([^{}()]*)\}\s*\)\s*=>)");
    static const rx::regex bound_field(R"(\b(value|reason)\b(?:\s*:\s*([A-Za-z_$][\w$]*))?)");
    for (std::size_t from = 0;;) {
      rx::smatch m;
      const std::string rest = t.substr(from);
      if (!rx::regex_search(rest, m, destructured)) break;
      std::string pattern = m[1].str();
      const std::string after = rest.substr(static_cast<std::size_t>(m.position() + m.length()));
      std::string kept;
      std::size_t last = 0;
      for (rx::sregex_iterator it(pattern.begin(), pattern.end(), bound_field), e; it != e; ++it) {
        const std::string name = (*it)[2].matched ? (*it)[2].str() : (*it)[1].str();
        kept += pattern.substr(last, static_cast<std::size_t>(it->position()) - last);
        kept += has_word(after, name) ? it->str() : std::string("_");
        last = static_cast<std::size_t>(it->position() + it->length());
      }
      kept += pattern.substr(last);
      const std::size_t at = from + static_cast<std::size_t>(m.position(1));
      t.replace(at, pattern.size(), kept);
      from = at + kept.size() + 1;
    }
    static const rx::regex read(
        R"((?:\.\s*(?:value|reason)\b|\[\s*['"`](?:value|reason)['"`]\s*\]|(?:^|[^\w$.])(?:value|reason)\s*[:,}]|\{\s*(?:value|reason)\b|JSON\.stringify\s*\(|inspect\s*\())");
    if (rx::regex_search(t, read)) return true;
    static const rx::regex whole(R"(Object\.(?:values|entries)\s*\(([^()]*)\)(\s*\[\s*0\s*\])?)");
    for (rx::sregex_iterator it(t.begin(), t.end(), whole), e; it != e; ++it)
      if (!(*it)[2].matched) return true;
    return false;
  }

  /// JavaScript: does code hand the outcomes to a function of the file that reads their value
  /// (`rs.map(unwrap)`, `rs.filter(isFulfilled).map(getValue)` with `getValue = (r) => r.value`)?
  bool helper_reads_outcome_value(const std::string& code) const {
    static const rx::regex passed(R"([(,]\s*([A-Za-z_$][\w$]*)\s*[,)])");
    const std::string src = s_.src.substr(0, 262144);
    for (rx::sregex_iterator it(code.begin(), code.end(), passed), e; it != e; ++it) {
      const std::string name = (*it)[1].str();
      // A function only (`function unwrap(`, `const unwrap = (r) =>`), not another test's `const rs = ...`.
      const rx::regex head = detail::cached_regex("(?:function\\s+" + name + "\\s*\\(|(?:const|let|var)\\s+" + name +
                            "\\s*=\\s*(?:async\\s*)?(?:function\\b|\\([^)]*\\)\\s*=>|[A-Za-z_$][\\w$]*\\s*=>))");
      rx::smatch m;
      if (!rx::regex_search(src, m, head)) continue;
      const std::size_t at = static_cast<std::size_t>(m.position());
      std::size_t end = src.find("\n}", at);
      const std::size_t eol = src.find('\n', at);
      // An arrow or function on one line ends there; a block ends at its closing brace.
      if (eol != std::string::npos) {
        const std::string line = src.substr(at, eol - at);
        const std::size_t open = line.find('{'), close = line.rfind('}');
        const std::size_t last = line.find_last_not_of(" \t\r");
        const bool continues = last != std::string::npos && last >= 1 && line.compare(last - 1, 2, "=>") == 0;  // prettier: body on the next line
        if (continues) {
          const std::size_t next = src.find('\n', eol + 1);
          end = next == std::string::npos ? src.size() : next;
        } else if (end == std::string::npos || open == std::string::npos || (close != std::string::npos && close > open)) {
          end = eol;
        }
      }
      if (reads_outcome_value(src.substr(at, std::min(end, at + 2000) - at))) return true;
    }
    // A function or method the code calls (`rs.map((r) => settled.unwrap(r))`, `unwrapAll(rs)`):
    // the file's definition, or a helper module's the file imports, reads the value there.
    // A method handed by reference counts the same way (`rs.map(Settled.unwrap)`).
    static const rx::regex called(R"(([A-Za-z_$][\w$]*)\s*(?=\()|[(,]\s*(?:[A-Za-z_$][\w$]*\s*\.\s*)+([A-Za-z_$][\w$]*)\s*[,)])");
    for (rx::sregex_iterator it(code.begin(), code.end(), called), e; it != e; ++it) {
      const std::string name = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
      if (auto d = defs_.functions.find(name); d != defs_.functions.end()) {
        if (reads_outcome_value(text(d->second).substr(0, 4096))) return true;
      } else if (imported_ && imported_->outcome_readers.count(name)) {
        return true;
      }
    }
    return false;
  }

  /// JavaScript: the names the unit binds to the outcomes of `Promise.allSettled` (`const [r] =
  /// await Promise.allSettled(...)`, `const rs = ...`, and `for (const r of rs)`).
  std::set<std::string> settled_outcome_names() const {
    std::set<std::string> names;
    if (ts_node_is_null(unit_node_)) return names;
    const std::string all = text(unit_node_).substr(0, 65536);
    if (!contains(all, "Promise.allSettled")) return names;
    static const rx::regex bind(R"((?:const|let|var)\s*(\[[^\]=]*\]|[A-Za-z_$][\w$]*)\s*=\s*(?:await\s*)?Promise\s*\.\s*allSettled\b)");
    static const rx::regex ident(R"([A-Za-z_$][\w$]*)");
    // Names bound to a value or reason (`[{ value: sum }]`, `{ value }`) are values, not outcomes.
    static const rx::regex value_binding(R"(\b(?:value|reason)\b(?:\s*:\s*[A-Za-z_$][\w$]*)?)");
    for (rx::sregex_iterator it(all.begin(), all.end(), bind), e; it != e; ++it) {
      const std::string lhs = rx::regex_replace((*it)[1].str(), value_binding, " ");
      for (rx::sregex_iterator w(lhs.begin(), lhs.end(), ident), we; w != we; ++w) names.insert(w->str());
    }
    // Names derived from them without reading a value (`for (const r of rs)`, `const statuses =
    // rs.map((r) => r.status)`, `const { status } = r`), a few rounds deep.
    static const rx::regex derived(R"((?:const|let|var)\s*(\[[^\]=]*\]|\{[^}=]*\}|[A-Za-z_$][\w$]*)\s*=\s*([^;\n]+))");
    static const rx::regex loop(R"(for\s*\(\s*(?:const|let|var)\s+(\[[^\]]*\]|\{[^}]*\}|[A-Za-z_$][\w$]*)\s+of\s+([^)]+)\))");
    for (int round = 0; round < 3; ++round) {
      const std::size_t before = names.size();
      for (const auto* re : {&derived, &loop})
        for (rx::sregex_iterator it(all.begin(), all.end(), *re), e; it != e; ++it) {
          const std::string value = (*it)[2].str();
          if (reads_outcome_value(value) || helper_reads_outcome_value(value)) continue;
          if (std::none_of(names.begin(), names.end(), [&](const std::string& n) { return has_word(value, n); })) continue;
          const std::string lhs = rx::regex_replace((*it)[1].str(), value_binding, " ");
          for (rx::sregex_iterator w(lhs.begin(), lhs.end(), ident), we; w != we; ++w) names.insert(w->str());
        }
      if (names.size() == before) break;
    }
    return names;
  }

  /// Does the pattern `p` (a regular expression's source; `dotall`: `.` takes newlines) match
  /// every text: searched for (`full` false: `toMatch`, `assertRegex`, `ContainsRegex`, `re.search`)
  /// or matched whole (`full`: `MatchesRegex`, Java's `String.matches`, `re.fullmatch`)? Tried on
  /// texts of every kind of character; a pattern the engine cannot read matches nothing here.
  static bool universal_pattern(std::string p, bool full, bool dotall) {
    // (Inline flags: `(?s)` takes newlines; others do not change what is universal.)
    static const rx::regex inline_flags(R"(^\(\?([a-zA-Z]+)\))");
    if (rx::smatch f; rx::regex_search(p, f, inline_flags)) {
      dotall = dotall || contains(f[1].str(), "s");
      p = p.substr(static_cast<std::size_t>(f.length()));
    }
    // (Syntax the engine lacks, read as what it means here: Python's and .NET's named groups, `\A`,
    // `\Z`/`\z`, scoped flags `(?s:...)`, inline flags in the middle, `\p{...}` classes.)
    {
      static const rx::regex named_group(R"(\(\?P?<(?![=!])[A-Za-z_]\w*>)");
      p = rx::regex_replace(p, named_group, "(");
      if (contains(p, "(?s:")) dotall = true;
      static const rx::regex scoped(R"(\(\?[a-zA-Z]+:)"), inline_flag(R"(\(\?[a-zA-Z]+\))"), start(R"(\\A)"), end(R"(\\[Zz])"),
          property(R"(\\[pP]\{[^}]*\})");
      p = rx::regex_replace(p, scoped, "(?:");
      p = rx::regex_replace(p, inline_flag, "");
      p = rx::regex_replace(p, start, "^");
      p = rx::regex_replace(p, end, "$");
      p = rx::regex_replace(p, property, "\\w");
    }
    // (JavaScript's `[^]`, any character; with dotall, `.` outside a class.) `ecmascript`: the
    // pattern for std::regex, escapes as written; otherwise for Boost: `[]` as the empty class it is
    // in JavaScript, escapes ECMAScript gives no meaning as their letters (std::regex read `\h` as
    // `h`; Perl's `\h`, `\X`, `\K`... mean something else), `\v` the tab, `\uXXXX` as its byte.
    const auto translated = [&](bool ecmascript) {
      std::string q;
      bool in_class = false;
      for (std::size_t i = 0; i < p.size(); ++i) {
        const char c = p[i];
        if (c == '\\' && i + 1 < p.size()) {
          const char e = p[i + 1];
          const bool hex4 = i + 5 < p.size() && std::all_of(p.begin() + static_cast<std::ptrdiff_t>(i) + 2, p.begin() + static_cast<std::ptrdiff_t>(i) + 6,
                                                            [](char h) { return std::isxdigit(static_cast<unsigned char>(h)) != 0; });
          if (ecmascript) {
            q += p.substr(i, 2);
          } else if (e == 'v') {
            q += "\\x0b";
          } else if (e == 'u' && hex4) {
            const unsigned long code = std::stoul(p.substr(i + 2, 4), nullptr, 16);
            static constexpr char kHex[] = "0123456789abcdef";
            q += code < 0x80 ? std::string("\\x") + kHex[code >> 4] + kHex[code & 15] : std::string("\\xff");  // (above: a byte no probe holds)
            i += 4;
          } else if (std::isalpha(static_cast<unsigned char>(e)) && std::string_view("dDwWsSbBfnrtcx").find(e) == std::string_view::npos) {
            q += e;
          } else {
            q += p.substr(i, 2);
          }
          ++i;
          continue;
        }
        if (!in_class && c == '[' && p.compare(i, 3, "[^]") == 0) {
          q += "[\\s\\S]";
          i += 2;
          continue;
        }
        if (!ecmascript && !in_class && c == '[' && p.compare(i, 2, "[]") == 0) {
          q += "(?!)";
          i += 1;
          continue;
        }
        if (c == '[') in_class = true;
        else if (c == ']') in_class = false;
        q += !in_class && c == '.' && dotall ? std::string("[\\s\\S]") : std::string(1, c);
      }
      return q;
    };
    static const std::array<std::string, 6> probes{"", "abc", "\n", "Zz 9-\n_q", "ERROR: disk full", "\t0.5%"};
    try {
      // (Boost's own calls: a match past its budget throws here instead of going on in std::regex.)
      const rx::regex re(translated(false), rx::regex::ECMAScript);
      for (const std::string& probe : probes)
        if (full ? !boost::regex_match(probe, re) : !boost::regex_search(probe, re)) return false;
      return true;
    } catch (const rx::regex_error& e) {
      // A pattern whose matching runs away on these short probes cannot be shown to check
      // anything: read as matching everything (fail closed).
      if (rx::detail::past_budget(e)) return true;
    }
    // Boost refuses it (syntax JavaScript allows and Perl reads otherwise: `\8` without groups, a
    // legacy `\xZZ`, ...): std::regex judges it, as it did before the library moved to Boost. A
    // pattern neither compiles is no universal pattern (the test errs).
    try {
      const std::regex re(translated(true), std::regex::ECMAScript);
      for (const std::string& probe : probes)
        if (full ? !std::regex_match(probe, re) : !std::regex_search(probe, re)) return false;
      return true;
    } catch (const std::regex_error& e) {
      return e.code() == std::regex_constants::error_complexity || e.code() == std::regex_constants::error_stack;
    }
  }

  /// Is the empty-string query `m` (matched in the check's text `text`) a question about a
  /// collection, not a substring check: membership of `""` in a list (`"" in parse_csv("a,,b")`,
  /// `expect(split(s)).toContain('')`, `fields.contains("")`, `slices.Contains(xs, "")`), or a
  /// position lookup (`find('')`, `indexOf('')`) not compared with "not found" (-1)?
  bool empty_query_of_a_collection(const std::string& text, const rx::smatch& m) const {
    static const rx::regex callee(R"(^(\w+)\s*\()");
    rx::smatch cm;
    const std::string hit = m.str();
    const std::string name = rx::regex_search(hit, cm, callee) ? cm[1].str() : std::string();
    const std::size_t at = static_cast<std::size_t>(m.position()), end = at + hit.size();
    if (name == "find" || name == "index" || name == "indexOf" || name == "Index") {
      static const rx::regex not_found(R"(-\s*1\b|>=\s*0\b|<\s*0\b|\bnpos\b|\bis\s+not\s+None\b|!=\s*None\b|toBeGreaterThanOrEqual\s*\(\s*0)");
      return !rx::regex_search(text, not_found);
    }
    // The collection or string queried.
    std::string subject;
    auto balanced_back = [&](std::size_t stop) {  // the expression ending right before `stop` (`a.b(c)[d]`)
      std::size_t i = stop;
      int depth = 0;
      while (i > 0) {
        const char c = text[i - 1];
        if (c == ')' || c == ']') ++depth;
        else if ((c == '(' || c == '[') && depth > 0) --depth;
        else if (depth == 0 && !(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' || c == '"' || c == '\'')) break;
        --i;
      }
      return text.substr(i, stop - i);
    };
    auto balanced_forward = [&](std::size_t from) {  // up to the next top-level `,`, `)` or line end
      std::size_t i = from;
      int depth = 0;
      for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '(' || c == '[' || c == '{') ++depth;
        else if ((c == ')' || c == ']' || c == '}') && depth-- == 0) break;
        else if ((c == ',' || c == '\n' || c == ';') && depth == 0) break;
      }
      return text.substr(from, i - from);
    };
    if (name.empty()) {  // `"" in X`
      subject = balanced_forward(end);
    } else if (name == "assertIn" || name == "assertNotIn") {
      subject = balanced_forward(end);  // (the match ends after `"",`)
    } else if (name == "Contains" && at >= 7 && contains(text.substr(at - 7, 7), "slices.")) {
      return true;  // (Go: slices.Contains is membership)
    } else {
      // `X.includes('')`, `expect(X).toContain('')`: the receiver.
      std::size_t dot = at;
      while (dot > 0 && std::isspace(static_cast<unsigned char>(text[dot - 1]))) --dot;
      if (dot == 0 || text[dot - 1] != '.') return false;
      subject = balanced_back(dot - 1);
      static const rx::regex expect_of(R"(^(?:expect|assertThat)\((.*)\)(?:\.not)?$)");
      if (rx::smatch em; rx::regex_match(subject, em, expect_of)) subject = em[1].str();
    }
    return collection_like(subject);
  }

  /// Does the expression read as a collection (a list, array, set, the fields of a split), not a
  /// string: a literal, a constructor or a call or name whose words say so (`split(...)`,
  /// `parse_csv(...)`, `keys()`, `fields`, `names`)? Unknown values read as strings.
  bool collection_like(const std::string& expr) const {
    const std::string x = strip_spaces(expr);
    if (x.empty()) return false;
    // (What the last call of a chain makes decides: `Object.keys(o).join(',')` is a string,
    // `"a,b".split(',')` a list.)
    static const rx::regex last_call(R"(\.?([A-Za-z_$][\w$]*)\((?:[^()]|\([^()]*\))*\)$)");
    rx::smatch lc;
    const bool ends_in_call = rx::regex_search(x, lc, last_call);
    static const rx::regex string_maker(R"(^(?:join|format|toString|to_string|lower|upper|strip|trim|decode|repr|str|String|render|dumps|stringify|getvalue|read|text)$)");
    if (ends_in_call && rx::regex_match(lc[1].str(), string_maker)) return false;
    // (A name, not a call: a collection only where the code binds it to one, `rows = [...]`,
    // `fields = line.split(',')`; `csv_line`, `user.names` may be strings.)
    static const rx::regex plain_name(R"(^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$)");
    if (rx::regex_match(x, plain_name)) {
      const std::string last = x.substr(x.rfind('.') == std::string::npos ? 0 : x.rfind('.') + 1);
      const rx::regex bound = detail::cached_regex("\\b" + last + R"(\s*(?::[^=\n]*)?=\s*(?:\[|list\(|tuple\(|set\(|sorted\(|\{\s*\}|new\s+(?:Set|Array|ArrayList)|Arrays\.asList|List\.of|[\w.$]*\.split\(|[\w.$]*\.(?:keys|values|items|entries|splitlines|readlines)\(|Object\.(?:keys|values|entries)\())");
      return rx::regex_search(s_.src.substr(0, std::size_t{1} << 20), bound);
    }
    if (x.front() == '[' || starts_with(x, "set(") || starts_with(x, "list(") || starts_with(x, "tuple(") || starts_with(x, "sorted(") ||
        starts_with(x, "frozenset(") || starts_with(x, "newSet") || starts_with(x, "Arrays.asList(") || starts_with(x, "List.of(") ||
        starts_with(x, "Set.of(") || starts_with(x, "Array.from(") || starts_with(x, "Object.keys(") || starts_with(x, "Object.values("))
      return true;
    static const rx::regex stringy(R"(^(?:str|repr|String|JSON\.stringify|format|f"|f'|"|'|`)|\.(?:text|stdout|stderr|output|message|msg|getvalue\(\)|read\(\)|decode\(|format\(|join\(|toString\(\)|lower\(\)|upper\(\)|strip\(\)|trim\(\)))");
    if (rx::regex_search(x, stringy)) return false;
    // The last name of the expression (a call's callee or a variable), split into its words.
    static const rx::regex last_name(R"(([A-Za-z_$][\w$]*)(?:\([^()]*(?:\([^()]*\)[^()]*)*\))?(?:\[[^\]]*\])?$)");
    rx::smatch nm;
    if (!rx::regex_search(x, nm, last_name)) return false;
    std::string words;
    for (const char c : nm[1].str()) {
      if (std::isupper(static_cast<unsigned char>(c)) && !words.empty()) words += '_';
      words += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    static const rx::regex collection_word(
        R"((?:^|_)(?:split|splitlines|readlines|lines|keys|values|items|entries|list|lists|tuple|set|array|fields|names|tokens|parts|rows|columns|cols|args|argv|tags|csv|collect|elements|children|members|ids|words|labels|headers|options|choices|splits|tokenize|tokenise|findall|find_all|all|glob|listdir|readdir|scandir|getlist|to_list|to_vec|vec)(?:_|$))");
    return rx::regex_search(words, collection_word);
  }

  /// Does the check, as written in `text`, accept every string: a substring, prefix or suffix check
  /// with the empty string (`HasSubstr("")`, `"" in s`, `s.startswith("")`, `toContain('')`,
  /// `strings.Contains(s, "")`, `s.contains("")`), or a pattern that matches everything
  /// (`toMatch(/[^]*/)`, `ContainsRegex(".*")`, `assertRegex(s, "")`, `re.search(r".*", s)`,
  /// `s.matches("(?s).*")`)? Such a check holds whatever the code returns.
  bool matches_anything(const std::string& text) const {
    static const rx::regex empty_part(
        // (The empty string also spelled `[]byte("")`, `String.valueOf("")`, `std::string()`, `str()`.)
        R"(\b(?:HasSubstr|StartsWith|EndsWith|containsString|startsWith|endsWith|contains_string|starts_with|ends_with|toContain|includes|startswith|endswith|include|contains|Contains|HasPrefix|HasSuffix|assertIn|toStartWith|toEndWith|stringContaining|containing|containsSubstring|index|find|indexOf|Index|containsStringIgnoringCase|containsIgnoringCase|containsAnyOf|StrContains|StartsWith|EndsWith|contain|have\.string|startsWithIgnoringCase|endsWithIgnoringCase))"
        R"(\s*\((?:(?:[^()]|\([^()]*\))*,)?\s*(?:[bru]?(?:""|''|``)|\[\]byte\(\s*""\s*\)|String\.valueOf\(\s*""\s*\)|(?:std::)?string\(\s*(?:"")?\s*\)|str\(\s*\))\s*[,)])"
        R"(|(?:^|[\s(,\[!])(?:[bru]?(?:""|'')|str\(\s*\))\s+in\s)"
        // (A tuple of prefixes with an empty one, `startswith(("disk", ""))`; kotest's infix `shouldContain ""`.)
        R"(|\b(?:startswith|endswith)\s*\(\s*\([^()]*(?:""|'')\s*[,)])"
        R"(|\b(?:shouldContain|shouldStartWith|shouldEndWith|shouldInclude)\s+"")");
    // (Only a text holding an empty string is searched: the pattern is slow on long checks.)
    const bool empty_string = contains(text, "\"\"") || contains(text, "''") || contains(text, "``") || contains(text, "string()") ||
                              contains(text, "str()");
    if (empty_string)
      for (rx::sregex_iterator it(text.begin(), text.end(), empty_part), end; it != end; ++it)
        if (!empty_query_of_a_collection(text, *it)) return true;
    // (Pattern checks: the callee and its first literal pattern argument.)
    static const rx::regex pattern_call(
        R"(\b(ContainsRegex|MatchesRegex|toMatch|assertRegex|assertRegexpMatches|assertNotRegex|match|matches|matches_regexp|matchesPattern|matchesRegex|containsPattern|regex|MatchString|search|fullmatch|Match|MatchReader|like|RegExp|compile|MustCompile|Regex::new|stringMatching|shouldMatch)\s*[\s(](?:\s*[\w.$]+(?:\([^()]*\))?\s*,)?\s*(?:r|R|rb|br)?(/(?:\\.|[^/\\\n])*/[a-z]*|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`[^`]*`))"
        // (A regex literal tested directly: `/.*/.test(s)`.)
        R"(|()(/(?:\\.|[^/\\\n*])(?:\\.|[^/\\\n])*/[a-z]*)\s*\.\s*test\s*\()");
    for (rx::sregex_iterator it(text.begin(), text.end(), pattern_call), end; it != end; ++it) {
      const bool tested = (*it)[4].matched;  // (`/.*/.test(s)`)
      const std::string name = tested ? std::string("test") : (*it)[1].str(), lit = tested ? (*it)[4].str() : (*it)[2].str();
      const std::size_t lit_at = static_cast<std::size_t>(it->position(tested ? 4 : 2));
      // (`match`, `search`, `fullmatch` are patterns when a regular-expression module
      // calls them (`re.search(...)`) or given a regex literal (`s.match(/x/)`); `index.search('')`,
      // `router.match('')` are calls of the code with an empty argument.)
      if ((name == "match" || name == "search" || name == "fullmatch") && lit.front() != '/') {
        const std::size_t at = static_cast<std::size_t>(it->position(1));
        const std::string before = strip_spaces(text.substr(at >= 16 ? at - 16 : 0, std::min<std::size_t>(16, at)));
        static const rx::regex module(R"((?:^|[^\w.])(?:re|regex|re2)\.$)");
        if (!rx::regex_search(before, module)) continue;
      }
      // (A compiled pattern is used as the rest of the text says: `.matches()`/`fullmatch` whole.)
      const bool compiled = name == "RegExp" || name == "compile" || name == "MustCompile";
      const bool full = name == "MatchesRegex" || name == "matches" || name == "fullmatch" || name == "matchesPattern" ||
                        name == "matchesRegex" || name == "matches_regexp" || name == "shouldMatch" ||
                        (compiled && (contains(text, ".matches(") || contains(text, "fullmatch")));
      std::string pattern;
      bool dotall = false;
      if (lit.front() == '/') {
        const auto close = lit.rfind('/');
        pattern = lit.substr(1, close - 1);
        dotall = contains(lit.substr(close + 1), "s");
      } else {
        // (A raw string keeps its backslashes; a plain one with simple escapes is read.)
        const std::string prefix = text.substr(lit_at >= 2 ? lit_at - 2 : 0, std::min<std::size_t>(2, lit_at));
        if (contains(prefix, "r") || contains(prefix, "R")) pattern = lit.substr(1, lit.size() - 2);
        else if (auto v = plain_string_literal(lit)) pattern = *v;
        else pattern = lit.substr(1, lit.size() - 2);
      }
      // (A flag argument that takes newlines: `re.DOTALL`, `re.S`, `Pattern.DOTALL`.)
      if (rx::regex_search(text, detail::cached_regex(R"(\b(?:re\.(?:DOTALL|S)|Pattern\.DOTALL)\b)"))) dotall = true;
      // (A whole-text match of `.*` holds for every text of one line, what a rendered value is: a
      // check it keeps says nothing of the value.)
      if (full && (pattern == ".*" || pattern == "^.*$" || pattern == "(.*)" || pattern == "^(.*)$")) return true;
      if (universal_pattern(pattern, full, dotall)) return true;
    }
    return false;
  }

  void annotate(TSNode n, Assertion& a) const {
    a.inverted = a.inverted || inverted_depth_ > 0;
    // Python: the message of the error a `with pytest.raises(E) as excinfo` / `with
    // self.assertRaises(E) as cm` caught, `str(excinfo.value)`, `excinfo.value.args[0]`,
    // `str(cm.exception)`: the same thing `match=` searches (`<thrown>.message`).
    if (lang_ == Lang::python && !a.operands.empty()) {
      static const rx::regex message(R"(^(?:str\((\w+)\.(?:value|exception)\)|(\w+)\.(?:value|exception)\.(?:args\[0\]|message|msg))$)");
      std::set<std::string> rewritten;
      for (const auto& o : a.operands) {
        rx::smatch mm;
        const std::string name = rx::regex_match(o, mm, message) ? (mm[1].matched ? mm[1].str() : mm[2].str()) : std::string();
        const bool caught = !name.empty() && rx::regex_search(s_.src.substr(0, std::size_t{1} << 20),
                                                               detail::cached_regex(R"(\b(?:raises|assertRaises|assertRaisesRegexp?)\s*\([^\n]*\)\s+as\s+)" + name + "\\b"));
        rewritten.insert(caught ? std::string("<thrown>.message") : o);
      }
      // (`"bad" in str(excinfo.value)` searches the message as `match="bad"` does.)
      if (rewritten.count("<thrown>.message") && a.kind == Kind::type) a.kind = Kind::eq;
      a.operands = std::move(rewritten);
    }
    // A substring or pattern check that accepts every string checks nothing about the value.
    if (!a.tautology && (a.kind == Kind::eq || a.kind == Kind::type || a.kind == Kind::range)) {
      std::string written;
      for (const auto& e : a.raw_exprs) written += e + "\n";
      if (type(n) != "assert_statement") written += s_.text(n).substr(0, kRegexLineChars);
      if (matches_anything(written)) a.tautology = true;
    }
    // `assert.strictEqual(r.status, 'fulfilled')` on an outcome of Promise.allSettled checks only
    // that the promise settled one way, not what it produced: a check that it did (not) throw.
    // Any check of the outcomes that never reads a `value` or `reason` (their statuses, keys or
    // count) says no more.
    if (is_js(lang_) && a.kind == Kind::eq && !a.operands.empty()) {
      const std::string raw = s_.text(n).substr(0, 4096);
      // What is compared, not a message argument (`'failed: ' + r.reason`, `JSON.stringify(rs)`):
      // the operands and the values they are bound to (`expected = [{ status, value: 4 }]`).
      std::string compared;
      std::vector<std::string> sides(a.operands.begin(), a.operands.end());
      if (type(n) == "call_expression") {
        static const std::set<std::string, std::less<>> kWithMessage = {
            "strictEqual", "deepStrictEqual", "equal", "deepEqual", "notStrictEqual", "notDeepStrictEqual", "notEqual",
            "notDeepEqual", "same", "notSame", "eq", "is", "equals", "deepEquals", "strictSame", "isEqual"};
        TSNode f = field(n, "function");
        TSNode prop = ts_node_is_null(f) || type(f) != "member_expression" ? f : field(f, "property");
        if (const auto args = call_args(n); args.size() >= 3 && !ts_node_is_null(prop) && kWithMessage.count(text(prop)))
          sides = {args[0], args[1]};
        // chai's `expect(x, message).to.equal(y)`: the message is no operand.
        for (TSNode c = f; !ts_node_is_null(c);) {
          const std::string_view ct = type(c);
          if (ct == "call_expression") {
            TSNode cf = field(c, "function");
            if (!ts_node_is_null(cf) && type(cf) == "identifier" && text(cf) == "expect") {
              if (const auto eargs = call_args(c); eargs.size() == 2) {
                const std::string message = strip_spaces(eargs[1]);
                sides.erase(std::remove_if(sides.begin(), sides.end(), [&](const std::string& x) { return strip_spaces(x) == message; }),
                            sides.end());
              }
              break;
            }
            c = cf;
          } else if (ct == "member_expression") {
            c = field(c, "object");
          } else {
            break;
          }
        }
      }
      for (const auto& o : sides) compared += o + "\n" + single_binding(strip_spaces(o)) + "\n";
      if (!reads_outcome_value(compared) && !helper_reads_outcome_value(compared)) {
        const std::set<std::string> settled = settled_outcome_names();
        for (const auto& o : a.operands)
          if (contains(o, "Promise.allSettled") ||
              std::any_of(settled.begin(), settled.end(), [&](const std::string& name) { return has_word(o, name); })) {
            a.kind = contains(raw, "rejected") ? Kind::throws_broad : Kind::other;
            break;
          }
      }
      // `await Promise.race([Promise.resolve(4), add(2, 2)])` / `Promise.any(...)`: a constant
      // member may settle first, so the value need not be the call's.
      static const rx::regex raced(R"(Promise\.(?:race|any)\(\[(?:[^\]]*,)?\s*(?:Promise\.resolve\(|-?[0-9]|['"`]))");
      for (const auto& o : a.operands) {
        const std::string value = single_binding(o);
        if (rx::regex_search(o, raced) || (!value.empty() && rx::regex_search(value, raced))) {
          a.kind = Kind::other;
          break;
        }
      }
    }
    // An equality whose expected value the actual chooses, whose actual falls back to the expected
    // value, or whose actual is multiplied by itself accepts several values: a range at most.
    if (a.kind == Kind::eq && !a.tautology && !a.trivial && chosen_value_equality(a.raw_exprs, a.literals, lang_ == Lang::python))
      a.kind = Kind::range;
    // `len(got) == len(want)`, `expect(xs.length).toBe(3)`: only the sizes are compared.
    if (a.kind == Kind::eq && !a.operands.empty()) {
      // The check's own text, and the condition of the `if` it sits in (Go: `if got/2 != 3.5 { t.Fatal(...) }`).
      std::string context = s_.text(n).substr(0, 4096);
      TSNode p = tsnav::parent(n);
      for (int up = 0; up < 4 && !ts_node_is_null(p); ++up, p = tsnav::parent(p))
        if (type(p) == "if_statement") {
          TSNode cond = Syntax::field(p, "condition");
          if (!ts_node_is_null(cond)) context += " " + s_.text(cond).substr(0, 4096);
          break;
        }
      // Sizes only, or a lossy view compared with sizes, other lossy views or plain names (`LIMIT`).
      bool coarse = false, others_fit = true;
      std::string lossy;
      for (const auto& o : a.operands) {
        const bool size = size_expression(o);
        bool lossy_view = !size && coarse_expression(o, lang_, context);
        if (lossy_view && lossy.empty()) lossy = o;
        // A local bound once in the test to a lossy view (`got := Add(2, 2) / 10` ... `if got != 0`).
        if (!size && !lossy_view && !ts_node_is_null(unit_node_)) {
          const std::string value = single_binding(o);
          lossy_view = !value.empty() && value != o && coarse_expression(value, lang_, context);
          if (lossy_view && lossy.empty()) lossy = strip_spaces(value);
        }
        coarse = coarse || lossy_view;
        static const rx::regex plain_name(R"(^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$)");
        if (!size && !lossy_view && !rx::regex_match(o, plain_name)) others_fit = false;
      }
      const bool all_sizes = std::all_of(a.operands.begin(), a.operands.end(), [](const std::string& o) { return size_expression(o); });
      if (all_sizes || (coarse && others_fit)) a.kind = Kind::range;
      // (Only a value bound once can be paired with its complement: a name rebound, reassigned or
      // shadowed between two views may hold two values.)
      if (!all_sizes && coarse && others_fit && binding_count(lossy_root(lossy)) <= 1) a.lossy = lossy;
    }
    // One equality of a literal with the function mapped over a literal table pins it once per row
    // (`list(map(add, [1, 2], [3, 4])) == [4, 6]`, `[add(a, b) for a, b in [(1, 2), (3, 4)]] ==
    // [4, 6]`, `deepStrictEqual([[1, 2], [3, 4]].map(([a, b]) => add(a, b)), [4, 6])`): as many
    // checks as the asserts it replaces.
    if (a.kind == Kind::eq && a.operands.size() == 1 && !a.tautology && !a.trivial)
      if (const int r = std::max({mapped_rows(n, *a.operands.begin()), bound_rows(n, *a.operands.begin()), helper_rows(n, *a.operands.begin())}); r > 1)
        a.rows = std::min(kMaxTableRows, a.rows * r);
    if (ts_node_is_null(unit_node_)) return;
    swallowed_by(a, unit_swallow_);
    if (type(n) != "assert_statement") swallowed_by(a, receiver_reassigned(s_, lang_, n, unit_node_));
    bool skip_own_if = last_own_if_, skip_own_else = last_own_else_;
    auto mark_dead = [&](const std::string& why) {
      if (a.dead.empty()) a.dead = why;
    };
    TSNode cur = n;
    for (TSNode p = tsnav::parent(n); !ts_node_is_null(p) && !ts_node_eq(cur, unit_node_); cur = p, p = tsnav::parent(p)) {
      const std::string_view pt = type(p);
      const bool block = pt == "block" || pt == "statement_block" || pt == "compound_statement" || pt == "statements" ||
                         pt == "function_body" || pt == "expression_statement_list" || pt == "statement_list";
      // (A test that passes only when its statements throw, `@Test(expected = E.class)`: a check after
      // the last statement that is not itself a check never completes when the test passes.)
      // (Kotlin: the body holds its `statements`; a check in a `finally` runs whether or not the try body throws.)
      const TSNode unit_body = body_of(unit_node_);
      const bool top_block = ts_node_eq(p, unit_body) || (type(p) == "statements" && ts_node_eq(tsnav::parent(p), unit_body));
      bool in_finally = false;
      for (TSNode up = tsnav::parent(n); !ts_node_is_null(up) && !ts_node_eq(up, p) && !in_finally; up = tsnav::parent(up))
        in_finally = type(up) == "finally_clause";
      if (block && unit_expects_throw_ && top_block && type(cur) != "statements" && !in_finally) {
        static const rx::regex check_stmt(
            R"(^\s*(?:(?:org\.junit\.)?(?:Assert|Assertions)\s*\.\s*)?(?:assert(?:Equals|NotEquals|True|False|Null|NotNull|Same|NotSame|ArrayEquals|That|All|InstanceOf|Iterable\w*|Lines\w*|Throws|DoesNotThrow|Contains\w*)?|fail)\s*[(<])");
        bool later_statement = false;
        for (TSNode sib = tsnav::next_named_sibling(cur); !ts_node_is_null(sib) && !later_statement; sib = tsnav::next_named_sibling(sib))
          later_statement = type(sib) != "line_comment" && type(sib) != "block_comment" && type(sib) != "comment" &&
                            !rx::regex_search(text(sib).substr(0, kConditionChars), check_stmt);
        bool earlier_statement = false;
        for (TSNode sib = tsnav::prev_named_sibling(cur); !ts_node_is_null(sib) && !earlier_statement; sib = tsnav::prev_named_sibling(sib))
          earlier_statement = type(sib) != "line_comment" && type(sib) != "block_comment" && type(sib) != "comment" &&
                              !rx::regex_search(text(sib).substr(0, kConditionChars), check_stmt);
        if (!later_statement)
          mark_dead(earlier_statement ? "after the statements the test expects to throw (it passes only when they do)"
                                      : "in a test that passes only when a statement throws: its own operand must throw, so it never compares");
      }
      // (JavaScript hoists a function declaration: one after a `return` is still defined.)
      const bool hoisted = is_js(lang_) && (type(cur) == "function_declaration" || type(cur) == "generator_function_declaration");
      // Rust: `#[cfg(...)]` right before the statement compiles it only under that configuration.
      if (block && lang_ == Lang::rust) {
        TSNode attr = tsnav::prev_named_sibling(cur);
        while (!ts_node_is_null(attr) && (type(attr) == "line_comment" || type(attr) == "block_comment")) attr = tsnav::prev_named_sibling(attr);
        static const rx::regex cfg(R"(^#\[\s*cfg\s*\(([\s\S]*)\)\s*\]$)");
        rx::smatch cm;
        const std::string at = ts_node_is_null(attr) || type(attr) != "attribute_item" ? std::string() : text(attr);
        if (rx::regex_match(at, cm, cfg)) {
          const std::string c = strip_spaces(cm[1].str());
          if (c == "all()" || c == "not(any())") {
            // (Always set.)
          } else if (c == "any()" || c == "not(all())") mark_dead("under `" + quote(at) + "`, a configuration never set (line " + std::to_string(line(attr)) + ")");
          else if (platform_condition(c)) a.optional = true;
          else a.guards.push_back("if cfg(" + c + ")");
        }
      }
      bool labeled = type(cur) == "labeled_statement";  // (code after a label runs when a `goto` jumps to it)
      if (block && !hoisted)
        for (TSNode sib = tsnav::prev_named_sibling(cur); !ts_node_is_null(sib); sib = tsnav::prev_named_sibling(sib)) {
          if (exit_stmt(sib)) {
            mark_dead("after `" + quote(text(sib).substr(0, text(sib).find('\n'))) + "` (line " + std::to_string(line(sib)) + ")");
          } else if (type(sib) == "goto_statement" && !labeled) {
            mark_dead("after `" + quote(text(sib).substr(0, text(sib).find('\n'))) + "`, which jumps past it (line " + std::to_string(line(sib)) + ")");
          } else if (auto c = conditional_exit(sib)) {
            if (const_true(*c)) mark_dead("after an unconditional exit (line " + std::to_string(line(sib)) + ")");
            else if (platform_condition(*c)) a.optional = true;
            else a.guards.push_back("unless " + compact_condition(*c));
          } else if (always_exits(sib)) {
            mark_dead("after `" + quote(text(sib).substr(0, text(sib).find('\n'))) + "` (line " + std::to_string(line(sib)) +
                      "), which never completes");
          } else if (auto h = handler_exit(sib); h && !branch_fails(cur) &&
                                                 !rx::regex_search(text(cur).substr(0, kConditionChars), detail::cached_regex(R"(^\s*(?:[\w.]+\s*\.\s*)?fail\s*\()"))) {
            // (Not the failure call of `try { x(); } catch (E e) { return; } fail(...)`: that is the check.)
            // (`try: import calc_native` / `except ImportError: return`: runs only when the try body does not raise.)
            if (platform_condition(*h)) a.optional = true;
            else a.guards.push_back("unless " + *h);
          } else if (raises_block(p) && type(sib) != "assert_statement" && type(sib) != "comment" &&
                     !starts_with(trim(text(sib)), "self.assert")) {
            // (`with pytest.raises(ValueError): parse("x")` then a check in the same block: the raise
            // the block expects ends it before the check.)
            mark_dead("after `" + quote(text(sib).substr(0, text(sib).find('\n'))) + "` (line " + std::to_string(line(sib)) +
                      "), which the enclosing `with ...raises(...)` expects to raise");
          }
          labeled = labeled || type(sib) == "labeled_statement";
        }
      if (pt == "if_statement" || pt == "elif_clause" || pt == "if_expression") {
        TSNode cond = field(p, "condition");
        if (ts_node_is_null(cond) || ts_node_eq(cond, cur)) continue;
        if (skip_own_if && (pt == "if_statement" || pt == "elif_clause")) {
          skip_own_if = false;
          continue;
        }
        TSNode cons = field(p, "consequence");
        const bool then_branch = !ts_node_is_null(cons) && ts_node_eq(cons, cur);
        if (skip_own_else && !then_branch && pt == "if_statement") {  // (`else: fail()`: its `if`'s condition is the check)
          skip_own_else = false;
          continue;
        }
        // (The `else`/`elif` of a branch that fails the test, `if got is None: pytest.fail(...)`
        // `elif got != 4: ...`: a passing test ran this branch, so its condition guards nothing;
        // not when a handler around them may catch what the branch raises.)
        if (!then_branch && !ts_node_is_null(cons) && branch_fails(cons) && !handled_within_unit(p)) continue;
        const std::string c = local_flag_value(p, text(cond));
        if (then_branch ? const_false(c) : const_true(c))
          mark_dead("in a branch that never runs (`" + quote(text(cond)) + "`, line " + std::to_string(line(p)) + ")");
        // (The branch that always runs, `if True:` / the `else:` of `if False:`, is no condition.)
        if (then_branch ? const_true(c) : const_false(c)) continue;
        if (platform_condition(c)) a.optional = true;
        else {
          a.guards.push_back((then_branch ? "if " : "else ") + compact_condition(c));
          if (environment_condition(c)) a.environment_guards.insert(a.guards.back());
        }
      } else if (pt == "while_statement" || pt == "while_expression") {
        TSNode cond = field(p, "condition");
        if (!ts_node_is_null(cond) && !ts_node_eq(cond, cur) && const_false(text(cond)))
          mark_dead("in a loop that never runs (line " + std::to_string(line(p)) + ")");
      } else if (pt == "boolean_operator" || pt == "binary_expression") {
        // `False and check()`, `true || check()`: the right side never evaluates; `ready && check()`
        // runs under a condition like `if ready:`.
        TSNode left = field(p, "left"), right = field(p, "right"), op = field(p, "operator");
        // (Not `got == 4 or pytest.fail(...)`: a failure call whose condition is the left side is the check.)
        const bool failing = !ts_node_is_null(right) && (type(right) == "call" || type(right) == "call_expression") &&
                             (lang_ == Lang::go ? kGoFail.count(callee(right)) > 0 : failure_call(right, callee(right)));
        if (!failing && !ts_node_is_null(left) && !ts_node_is_null(op) && !ts_node_is_null(right) && ts_node_eq(right, cur)) {
          const std::string o = strip_spaces(text(op)), c = local_flag_value(p, text(left));
          const bool both = o == "and" || o == "&&", either = o == "or" || o == "||";
          // `1 ?? check()`: a left side that is never null or undefined leaves the right unevaluated.
          static const rx::regex never_nullish(R"(^(?:-?\d+(?:\.\d+)?|"[^"]*"|'[^']*'|`[^`]*`|true|false|\[\]|\{\})$)");
          if (o == "??" && rx::regex_match(compact_condition(text(left)), never_nullish))
            mark_dead("after `" + quote(compact_condition(text(left))) + " ??`, which never evaluates it (line " + std::to_string(line(p)) + ")");
          if ((both && const_false(c)) || (either && const_true(c)))
            mark_dead("after `" + quote(compact_condition(text(left))) + " " + o + "`, which never evaluates it (line " + std::to_string(line(p)) + ")");
          else if ((both && !const_true(c)) || (either && !const_false(c))) {
            if (platform_condition(c)) a.optional = true;
            else a.guards.push_back((both ? "if " : "unless ") + compact_condition(c));
          }
        }
      } else if (pt == "augmented_assignment_expression" && is_js(lang_) && ts_node_eq(field(p, "right"), cur)) {
        // `done ||= check()` with `done` true, `go &&= check()` with `go` false: the right side
        // never evaluates; otherwise it runs under the variable's truth.
        const TSNode left = field(p, "left");
        const std::string whole = text(p);
        const std::string o = whole.substr(ts_node_end_byte(left) - ts_node_start_byte(p), 8);
        const std::string lop = strip_spaces(o).substr(0, 3);
        const std::string c = local_flag_value(p, text(left));
        if ((lop == "||=" && const_true(c)) || (lop == "&&=" && const_false(c)))
          mark_dead("after `" + quote(text(left)) + " " + lop + "`, which never evaluates it (line " + std::to_string(line(p)) + ")");
        else if ((lop == "||=" && !const_false(c)) || (lop == "&&=" && !const_true(c)))
          a.guards.push_back((lop == "&&=" ? "if " : "unless ") + compact_condition(text(left)));
      } else if (pt == "conditional_expression" || pt == "ternary_expression") {
        // `check() if False else None`, `cond ? null : check()`.
        const bool py = lang_ == Lang::python;
        TSNode cond = py ? tsnav::named_child(p, 1) : field(p, "condition");
        TSNode cons = py ? tsnav::named_child(p, 0) : field(p, "consequence");
        if (!ts_node_is_null(cond) && !ts_node_eq(cond, cur) && !ts_node_is_null(cons)) {
          const bool then_branch = ts_node_eq(cons, cur);
          const std::string c = local_flag_value(p, text(cond));
          if (then_branch ? const_false(c) : const_true(c))
            mark_dead("in a branch that never runs (`" + quote(c) + "`, line " + std::to_string(line(p)) + ")");
          else if (!(then_branch ? const_true(c) : const_false(c))) {
            if (platform_condition(c)) a.optional = true;
            else a.guards.push_back((then_branch ? "if " : "else ") + compact_condition(c));
          }
        }
      } else if (pt == "switch_case" || pt == "expression_case" || pt == "case_statement" || pt == "switch_block_statement_group" ||
                 pt == "switch_rule" || pt == "match_arm") {
        if (auto why = dead_case(p, cur)) mark_dead(*why);
      } else if (pt == "preproc_if" || pt == "preproc_ifdef" || pt == "preproc_elif") {
        // `#if 0`, `#ifdef NEVER_DEFINED`: compiled only under that condition; `#else` under its negation.
        TSNode cond = field(p, pt == "preproc_ifdef" ? "name" : "condition");
        TSNode alt = field(p, "alternative");
        if (!ts_node_is_null(cond) && !ts_node_eq(cond, cur)) {
          const bool else_branch = !ts_node_is_null(alt) && ts_node_eq(alt, cur);
          const bool negated = pt == "preproc_ifdef" && starts_with(trim(text(p)), "#ifndef");
          std::string c = pt == "preproc_ifdef" ? std::string(negated ? "!" : "") + "defined(" + text(cond) + ")" : text(cond);
          // (`#ifdef X` of a macro the file defines is compiled; `#ifndef X` of one it never defines
          // is the default build.)
          if (pt == "preproc_ifdef") {
            const bool defined_here = rx::regex_search(s_.src.substr(0, std::size_t{1} << 20),
                                                        detail::cached_regex("#\\s*define\\s+" + text(cond) + "\\b"));
            if (defined_here || negated) c = defined_here == !negated ? "1" : "0";
          }
          const bool alternative = !ts_node_is_null(alt);  // (`#if 0` ... `#else` ...: one of two spellings kept)
          if (else_branch ? const_true(c) : const_false(c)) {
            if (alternative) a.trivial = true;
            else mark_dead("in a preprocessor branch never compiled (`" + quote(c) + "`, line " + std::to_string(line(p)) + ")");
          } else if (!(else_branch ? const_false(c) : const_true(c))) {
            if (platform_condition(c)) a.optional = true;
            else a.guards.push_back(std::string(else_branch ? "else #if " : "#if ") + compact_condition(c));
          }
        }
      } else if (pt == "go_statement") {
        // `go check(t, ...)`: a goroutine the test does not wait for may run after it has passed (a
        // `go func() {...}()` is read by unwaited_goroutine_checks, lang_go.cpp, with the same waits).
        const TSNode started = tsnav::named_child(p, 0);
        const TSNode fn = ts_node_is_null(started) ? TSNode{} : field(started, "function");
        if (!ts_node_is_null(fn) && type(fn) != "func_literal") {
          const std::string unit = text(unit_node_);
          const std::size_t after = std::min<std::size_t>(unit.size(), ts_node_end_byte(p) - ts_node_start_byte(unit_node_));
          static const rx::regex waits(R"(\.\s*Wait\s*\(|<-|\brange\b|\bCleanup\s*\(|\bEventually\b|\bselect\b)");
          static const rx::regex deferred(R"(\bdefer\s+[\w.]*\.\s*Wait\s*\(|\bCleanup\s*\([^)]*\bWait\b)");
          std::string rest = unit.substr(after, kRegexLineChars * 8);
          bool waited = rx::regex_search(rest, waits) || rx::regex_search(unit.substr(0, kRegexLineChars * 8), deferred);
          for (const auto& [name, def] : defs_.functions)  // (a function of the file called after it may wait)
            if (!waited && contains(rest, name + "(") && rx::regex_search(text(def), waits)) waited = true;
          // (Calls after it may synchronize with it, a client talking to the server it runs: only a
          // goroutine nothing follows is surely left behind.)
          if (!waited && rest.find('(') == std::string::npos)
            mark_dead("in a goroutine the test does not wait for (line " + std::to_string(line(p)) + ")");
        }
      } else if (pt == "list_comprehension" || pt == "set_comprehension" || pt == "dictionary_comprehension" || pt == "generator_expression") {
        // `[check() for _ in []]`; a generator expression never consumed runs nothing.
        bool in_clause = false;
        for (uint32_t i = 0; i < ts_node_named_child_count(p); ++i) {
          const TSNode c = tsnav::named_child(p, i);
          if (ts_node_eq(c, cur) && (type(c) == "for_in_clause" || type(c) == "if_clause")) in_clause = true;
        }
        if (!in_clause) {
          for (uint32_t i = 0; i < ts_node_named_child_count(p); ++i) {
            const TSNode c = tsnav::named_child(p, i);
            if (type(c) != "for_in_clause") continue;
            const TSNode right = field(c, "right");
            if (!ts_node_is_null(right) && empty_iterable(right, text(right)))
              mark_dead("in a comprehension over nothing (`" + quote(text(right)) + "`, line " + std::to_string(line(p)) + ")");
          }
          if (pt == "generator_expression" && !nested_called(p))
            mark_dead("in a generator expression never consumed (line " + std::to_string(line(p)) + ")");
        }
      } else if (pt == "for_statement" && ts_node_eq(field(p, "body"), cur) && loop_never_runs(p)) {
        mark_dead("in a loop whose condition is false on entry (line " + std::to_string(line(p)) + ")");
      } else if (pt == "for_statement" || pt == "for_in_statement" || pt == "enhanced_for_statement" || pt == "for_expression" ||
                 pt == "for_range_loop") {
        TSNode right = field(p, "right");
        if (ts_node_is_null(right)) right = field(p, "value");
        if (ts_node_is_null(right) && lang_ == Lang::go)  // (`for _, x := range xs {`)
          for (uint32_t i = 0; i < ts_node_named_child_count(p); ++i)
            if (type(tsnav::named_child(p, i)) == "range_clause") right = field(tsnav::named_child(p, i), "right");
        if (!ts_node_is_null(right) && !ts_node_eq(right, cur) && (empty_iterable(right, text(right)) || empty_iterable(right, compact_condition(text(right)))))
          mark_dead("in a loop over nothing (`" + quote(text(right)) + "`, line " + std::to_string(line(p)) + ")");
        else if (!ts_node_is_null(right) && !ts_node_eq(right, cur))
          table_rows(a, n, text(right), field(p, "left"), field(p, "body"));
      } else if ((pt == "except_clause" || pt == "catch_clause" || pt == "except_group_clause") && cannot_raise(tsnav::parent(p))) {
        mark_dead("in a handler of a `try` whose body cannot raise (line " + std::to_string(line(p)) + ")");
      } else if (pt == "except_clause" || pt == "catch_clause" || pt == "except_group_clause") {
        // A handler's check may honestly not run, unless the test makes jest count its checks
        // (`expect.assertions(n)`, `expect.hasAssertions()`): then the handler must run.
        if (!(is_js(lang_) && !ts_node_is_null(unit_node_) && jest_counts_assertions(text(unit_node_)))) a.optional = true;
      } else if (pt == "with_statement" && lang_ == Lang::python) {
        // with pytest.raises(AssertionError) / self.assertRaises(AssertionError) / raises(Exception):
        // the body's checks pass when they fail.
        TSNode body = field(p, "body");
        if (!ts_node_is_null(body) && ts_node_eq(body, cur)) {
          const std::string head = strip_spaces(text(p).substr(0, ts_node_start_byte(body) - ts_node_start_byte(p)));
          for (std::string_view k : {"raises(", "assertRaises(", "assertRaisesRegex(", "assertRaisesRegexp("})
            for (auto at = head.find(k); at != std::string::npos; at = head.find(k, at + 1)) {
              const std::string arg = head.substr(at + k.size(), head.find_first_of(",)", at + k.size() + 1) - at - k.size());
              const std::string first = starts_with(arg, "(") ? arg.substr(1) : arg;
              static const std::set<std::string, std::less<>> kCatchesFailure = {"AssertionError", "Exception", "BaseException"};
              std::string last = first.substr(first.rfind('.') == std::string::npos ? 0 : first.rfind('.') + 1);
              if (kCatchesFailure.count(last)) a.inverted = true;
            }
          // A manager the file defines whose __exit__ returns True, or a @contextmanager whose
          // handler around its `yield` swallows.
          swallowed_by(a, with_swallows(s_, p, defs_, try_swallows()));
          // with contextlib.suppress(AssertionError) / suppress(Exception): the failure is dropped.
          if (auto at = head.find("suppress("); at != std::string::npos) {
            const std::string args = head.substr(at + 9, head.find(')', at) - at - 9);
            for (std::string_view type : {"AssertionError", "Exception", "BaseException"})
              if (contains("," + args + ",", std::string(",") + std::string(type) + ",") ||
                  contains(args, "." + std::string(type)))
                a.swallowed = true;
          }
        }
      } else if (pt == "call_expression" && is_js(lang_) && !ts_node_eq(p, n)) {
        // Promise.allSettled([...]) settles rejected promises as values: a failing check inside
        // one of them does not fail the test.
        TSNode fn = field(p, "function");
        if (!ts_node_is_null(fn) && ends_with(strip_spaces(text(fn)), "Promise.allSettled") && !settled_outcomes_checked(p)) a.swallowed = true;
      } else if ((pt == "function_definition" || pt == "function_declaration" || pt == "arrow_function" ||
                  pt == "function_expression" || pt == "function" || pt == "func_literal" || pt == "generator_function_declaration") &&
                 !ts_node_eq(p, unit_node_)) {
        if (!nested_called(p)) mark_dead("in a nested function never called (line " + std::to_string(line(p)) + ")");
        else if (auto why = callback_never_runs(p)) mark_dead(*why);
        else closure_rows(a, n, p);
        if (is_js(lang_)) js_table_callback(a, n, p);
        // Handed to a thread, an executor, a promise chain or a wrapper that drops its failure.
        swallowed_by(a, handoff_swallows(s_, lang_, p, unit_node_, defs_, try_swallows()));
      } else if ((pt == "lambda_expression" || pt == "closure_expression" || pt == "lambda" || pt == "lambda_literal") &&
                 !ts_node_eq(p, unit_node_)) {
        if (!nested_called(p)) mark_dead("in a lambda never called (line " + std::to_string(line(p)) + ")");
        else if (auto why = callback_never_runs(p)) mark_dead(*why);
        swallowed_by(a, handoff_swallows(s_, lang_, p, unit_node_, defs_, try_swallows()));
      } else if (pt == "method_definition" && is_js(lang_) && !ts_node_is_null(tsnav::parent(p)) && type(tsnav::parent(p)) == "object" &&
                 !nested_called(p)) {
        mark_dead("in a method of an object literal never used (line " + std::to_string(line(p)) + ")");
      }
    }
  }

  /// Visits the function literals inside `n` (callbacks of an expectation) as part of the unit.
  void visit_functions_in(TSNode n, const std::string& scope, bool scope_collectable, TestUnit* unit, int swallow_depth,
                          bool recovering) {
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
      TSNode c = tsnav::named_child(n, i);
      const std::string_view ct = type(c);
      if (ct == "arrow_function" || ct == "function_expression" || ct == "function" || ct == "lambda_expression" ||
          ct == "lambda" || ct == "closure_expression" || ct == "func_literal")
        visit(c, scope, scope_collectable, unit, swallow_depth, recovering);
      else
        visit_functions_in(c, scope, scope_collectable, unit, swallow_depth, recovering);
    }
  }

  /// How the unit `u` (node `n`, `body` its text) uses the file's other functions: those it passes
  /// as values join its calls, each call's arguments are kept (for helpers with parameters), and a
  /// helper it only hands to something that drops failures is marked (swallow.hpp).
  void link_helpers(TestUnit& u, TSNode n, const std::string& body) {
    for (auto& passed : functions_passed(s_, n, defs_))
      if (passed != u.name) u.calls.insert(passed);
    std::set<std::string> local;
    for (const auto& c : u.calls)
      if (defs_.functions.count(c)) local.insert(c);
    // (The checking functions of the helper modules the file imports too, also through the module.)
    u.call_args = call_arguments(body, local);
    std::set<std::string> imported_checks;
    if (imported_)
      for (const auto& [module, h] : imported_->helpers)
        if (u.calls.count(h.name) && !local.count(h.name)) imported_checks.insert(h.name);
    // (Through any name the module is bound to: `h.check_add(` with `import tests.helpers as h`.)
    for (auto& [name, calls] : call_arguments(body, imported_checks, {"*"})) u.call_args[name] = std::move(calls);
    // A helper handed to a map over a literal table whose results the test consumes
    // (`list(ex.map(check, [(2, 2, 4), (1, 5, 6)]))`, `for r in pool.imap(check, rows)`: a lazy map
    // left unread never raises), or `[[2, 2, 4], [1, 5, 6]].forEach(check)`, runs once per row, with the row.
    for (const auto& f : local) {
      if (u.call_args.count(f)) continue;
      const std::string flat = strip_spaces(body);
      std::vector<std::string> rows;
      const rx::regex consumed = detail::cached_regex(R"((?:\b(?:list|tuple|set|frozenset|sorted|sum|all|any|dict)\s*\(\s*|\bfor\s+[\w\s,()]+?\s+in\s+))"
                                R"((?:[\w.]+\s*\.\s*)?(?:map|starmap|imap|imap_unordered)\s*\(\s*)" + f + R"(\s*,)");
      for (rx::sregex_iterator it(body.begin(), body.end(), consumed), e; it != e && rows.empty(); ++it) {
        const std::size_t map_open = static_cast<std::size_t>(it->position()) + it->str().rfind('(');  // map's own '('
        const std::size_t close = closing_paren(body, map_open);
        if (close >= body.size()) continue;
        const auto args = split_top(std::string_view(body).substr(map_open + 1, close - map_open - 1), {","});
        if (args.size() == 2)
          if (auto t = literal_table(strip_spaces(args[1]))) rows = *t;
      }
      for (const std::string& tail : {".forEach(" + f + ")", ".map(" + f + ")"})
        if (auto at = flat.find(tail); at != std::string::npos && rows.empty() && at > 0 && flat[at - 1] == ']') {
          // The array literal right before: back to its matching '['.
          int depth = 0;
          for (std::size_t i = at; i-- > 0;) {
            if (flat[i] == ']') ++depth;
            else if (flat[i] == '[' && --depth == 0) {
              if (auto t = literal_table(flat.substr(i, at - i))) rows = *t;
              break;
            }
          }
        }
      for (const auto& row : rows) u.call_args[f].push_back({row});
    }
    for (const auto& called : local)
      if (std::string why = helper_handed_off(s_, lang_, n, called, defs_.functions.find(called)->second, defs_, try_swallows());
          !why.empty())
        u.handed_off.emplace(called, std::move(why));
    // Each call of a helper read where it sits, as a check there would be: a helper whose every call
    // is dead (`if False: check(2, 2, 4)`, after a `return`) checks nothing for the unit; one whose
    // every call sits in a handler that drops failures hands its checks to it.
    std::set<std::string> helpers = local;
    helpers.insert(imported_checks.begin(), imported_checks.end());
    if (helpers.empty()) return;
    std::map<std::string, std::pair<int, int>> sites;  // name -> (calls, dead calls)
    std::map<std::string, std::string> dead_why, swallow_why;
    std::map<std::string, int> swallowed_sites;
    std::map<std::string, std::vector<Assertion>> live;
    std::set<std::string> named;  // helpers the body names as code (a call, or a value handed on)
    const TSNode saved_unit = unit_node_;
    unit_node_ = n;
    std::vector<TSNode> calls;
    const std::function<void(TSNode)> gather = [&](TSNode c) {
      const std::string_view ct = type(c);
      if (ct == "call" || ct == "call_expression" || ct == "method_invocation") calls.push_back(c);
      if ((ct == "identifier" || ct == "field_identifier" || ct == "property_identifier") && helpers.count(text(c))) named.insert(text(c));
      for (uint32_t i = 0; i < ts_node_named_child_count(c); ++i) gather(tsnav::named_child(c, i));
    };
    gather(n);
    for (TSNode c : calls) {
      const std::string_view ct = type(c);
      TSNode fn = field(c, ct == "method_invocation" ? "name" : "function");
      if (ts_node_is_null(fn)) continue;
      std::string callee = strip_spaces(text(fn));
      if (ct == "method_invocation")
        if (TSNode o = field(c, "object"); !ts_node_is_null(o)) callee = strip_spaces(text(o)) + "." + callee;
      std::size_t e = callee.size();
      while (e > 0 && (std::isalnum(static_cast<unsigned char>(callee[e - 1])) || callee[e - 1] == '_' || callee[e - 1] == '$')) --e;
      const std::string name = callee.substr(e);
      if (!helpers.count(name)) continue;
      // (The helper itself: the bare name, or through `self`/`this`/a module or class name; not a
      // method of some other object that happens to share the name, `mock.Mock().check(...)`.)
      std::string receiver = e > 0 ? callee.substr(0, e - 1) : std::string();
      if (ends_with(receiver, ":")) receiver.pop_back();  // (`ns::check`: `ns:` before the last `:`)
      static const rx::regex plain_receiver(R"(^(?:[A-Za-z_$][\w$]*)(?:(?:\.|::)[A-Za-z_$][\w$]*)*:?$)");
      if (!receiver.empty() && !rx::regex_match(receiver, plain_receiver)) continue;
      // (A function of the file is called bare, through `self`/`this`/`cls`/its class, or a
      // namespace; `validator.check(...)` is some other object's method.)
      if (!receiver.empty() && local.count(name) && !imported_checks.count(name)) {
        const std::string r = receiver.substr(receiver.find_last_of(".:") == std::string::npos ? 0 : receiver.find_last_of(".:") + 1);
        std::string owner;
        if (auto d = defs_.functions.find(name); d != defs_.functions.end())
          for (TSNode up = tsnav::parent(d->second); !ts_node_is_null(up) && owner.empty(); up = tsnav::parent(up))
            if (const std::string_view ut = type(up); ut == "class_definition" || ut == "class_declaration" || ut == "class_specifier" || ut == "class")
              if (TSNode cn = field(up, "name"); !ts_node_is_null(cn)) owner = text(cn);
        const bool self_like = r == "self" || r == "this" || r == "cls" || r == "super()" || (!owner.empty() && r == owner);
        const bool module_like = owner.empty() && (lang_ == Lang::cpp || lang_ == Lang::go || lang_ == Lang::rust);
        if (!self_like && !module_like) continue;
      }
      Assertion site;
      site.line = line(c);
      annotate(c, site);
      // (A generator helper called as a statement of its own: its body runs only when iterated.)
      if (auto d = defs_.functions.find(name); d != defs_.functions.end() && local.count(name) && is_generator(d->second) &&
                                               !ts_node_is_null(tsnav::parent(c)) && type(tsnav::parent(c)) == "expression_statement" &&
                                               site.dead.empty())
        site.dead = "a generator called as a statement of its own, never iterated (line " + std::to_string(line(c)) + ")";
      if (inverted_calls_.count(ts_node_start_byte(c))) site.inverted = true;
      auto& [count, dead] = sites[name];
      ++count;
      if (!site.dead.empty()) {
        ++dead;
        dead_why.emplace(name, site.dead);
      } else if (site.swallowed) {
        ++swallowed_sites[name];
        swallow_why.emplace(name, site.swallow_why.empty() ? "its call sits in a handler that drops failures" : site.swallow_why);
      } else {
        live[name].push_back(std::move(site));
      }
    }
    unit_node_ = saved_unit;
    for (const auto& [name, cd] : sites) {
      if (cd.second == cd.first) u.dead_calls.emplace(name, dead_why[name]);
      else if (swallowed_sites[name] + cd.second == cd.first && swallowed_sites[name] > 0) u.handed_off.emplace(name, swallow_why[name]);
    }
    // (A function of the same name the unit defines itself, `def check(...): pass` in the test:
    // its calls reach that one, not the helper.)
    for (const auto& name : helpers) {
      bool shadowed = false;
      const std::function<void(TSNode, bool)> find_def = [&](TSNode c, bool top) {
        if (shadowed) return;
        if (!top && helper_name(c) == name) {
          shadowed = true;
          u.dead_calls.emplace(name, "shadowed by the test's own definition of " + name + " (line " + std::to_string(line(c)) + ")");
          return;
        }
        for (uint32_t i = 0; i < ts_node_named_child_count(c); ++i) find_def(tsnav::named_child(c, i), false);
      };
      find_def(n, true);
    }
    // (Named only in a comment or a string, `# check(2, 2, 4)`: never called.)
    for (const auto& name : helpers)
      if (u.calls.count(name) && !named.count(name) && !sites.count(name)) u.dead_calls.emplace(name, "named only in a comment or a string");
    // The conditions every live call runs under, and whether every one is optional or inverted.
    for (const auto& [name, ls] : live) {
      TestUnit::CallSite cs;
      cs.guards = ls.front().guards;
      cs.optional = cs.inverted = true;
      for (const auto& site : ls) {
        std::vector<std::string> kept;
        for (const auto& g : cs.guards)
          if (std::find(site.guards.begin(), site.guards.end(), g) != site.guards.end()) kept.push_back(g);
        cs.guards = std::move(kept);
        cs.optional = cs.optional && site.optional;
        cs.inverted = cs.inverted && site.inverted;
      }
      if (!cs.guards.empty() || cs.optional || cs.inverted) u.call_sites.emplace(name, std::move(cs));
    }
  }

  /// Names called in a body: `check(`, `self.check(`, `helpers.check (`.
  static std::set<std::string> called_names(const std::string& body) {
    std::set<std::string> out;
    std::string word;
    for (std::size_t i = 0; i <= body.size(); ++i) {
      const char c = i < body.size() ? body[i] : ' ';
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$') {
        word += c;
        continue;
      }
      if (!word.empty() && !std::isdigit(static_cast<unsigned char>(word[0]))) {
        std::size_t j = i;
        while (j < body.size() && (body[j] == ' ' || body[j] == '\t')) ++j;
        if (j + 2 < body.size() && body[j] == '?' && body[j + 1] == '.' && body[j + 2] == '(') j += 2;  // (`check?.(...)`)
        if (j < body.size() && body[j] == '(') out.insert(word);
      }
      word.clear();
    }
    return out;
  }

  /// The name of a function definition that is not a test, or "".
  std::string helper_name(TSNode n) const {
    const std::string_view t = type(n);
    auto name_of = [&](TSNode x) { return ts_node_is_null(x) ? std::string() : text(x); };
    switch (lang_) {
      case Lang::python:
        if (t == "assignment") {  // `same = lambda a, b: True`
          TSNode left = field(n, "left"), right = field(n, "right");
          return !ts_node_is_null(left) && type(left) == "identifier" && !ts_node_is_null(right) && type(right) == "lambda" ? text(left) : "";
        }
        return t == "function_definition" ? name_of(field(n, "name")) : "";
      case Lang::javascript: case Lang::typescript: case Lang::tsx:
        if (t == "function_declaration" || t == "generator_function_declaration" || t == "method_definition") return name_of(field(n, "name"));
        if (t == "variable_declarator") {
          TSNode v = field(n, "value");
          if (!ts_node_is_null(v) && (type(v) == "arrow_function" || type(v) == "function_expression" || type(v) == "function"))
            return name_of(field(n, "name"));
        }
        return "";
      case Lang::go: return t == "function_declaration" || t == "method_declaration" ? name_of(field(n, "name")) : "";
      case Lang::java: case Lang::kotlin:
        if (t == "method_declaration") return name_of(field(n, "name"));
        if (t == "function_declaration")
          for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
            if (type(tsnav::named_child(n, i)) == "simple_identifier") return text(tsnav::named_child(n, i));
        return "";
      case Lang::cpp: {
        if (t != "function_definition") return "";
        std::string d = strip_spaces(name_of(field(n, "declarator")));
        d = d.substr(0, d.find('('));
        auto cut = d.find_last_of(":*&");
        return cut == std::string::npos ? d : d.substr(cut + 1);
      }
      case Lang::rust: return t == "function_item" ? name_of(field(n, "name")) : "";
      case Lang::none: break;
    }
    return "";
  }

  /// Second pass: functions that are not tests and hold no test, with their assertions.
  void collect_helpers(TSNode n) {
    const std::string name = helper_name(n);
    if (!name.empty()) {
      TSNode outer = n;
      if (lang_ == Lang::python && !ts_node_is_null(tsnav::parent(n)) && type(tsnav::parent(n)) == "decorated_definition")
        outer = tsnav::parent(n);
      const int b = line(outer), e = static_cast<int>(ts_node_end_point(n).row) + 1;
      const bool holds_test = std::any_of(model_->tests.begin(), model_->tests.end(),
                                          [&](const TestUnit& t) { return t.line >= b && t.line <= e; });
      // A function inside a test is part of that test (visited with it), not a helper of its own.
      const bool in_test = std::any_of(model_->tests.begin(), model_->tests.end(),
                                       [&](const TestUnit& t) { return t.end_line > 0 && b > t.line && e <= t.end_line; });
      if (in_test) return;
      if (!holds_test) {
        model_->helpers.emplace_back();
        model_->helpers.back().name = name;
        model_->helpers.back().line = line(n);
        model_->helpers.back().end_line = e;
        model_->helpers.back().constant_truthy = returns_constant_truthy(n);
        for (TSNode up = tsnav::parent(n); !ts_node_is_null(up); up = tsnav::parent(up))
          if (type(up) == "class_definition" || type(up) == "class_declaration" || type(up) == "class") {
            if (TSNode cn = field(up, "name"); !ts_node_is_null(cn)) model_->helpers.back().owner = text(cn);
            break;
          }
        model_->helpers.back().calls = called_names(text(n));
        model_->helpers.back().calls.erase(name);
        const std::string saved_comments = model_->comments;
        unit_node_ = n;
        const std::size_t index = model_->helpers.size() - 1;
        for (uint32_t i = 0; i < ts_node_child_count(n); ++i) visit(tsnav::child(n, i), "", true, &model_->helpers[index], 0, false);
        resolve_operand_sources(s_, n, model_->helpers[index].asserts, &names_, imported_);
        model_->helpers[index].params = definition_params(text(n), name, lang_);
        model_->helpers[index].param_defaults = definition_param_defaults(text(n), name, lang_);
        link_helpers(model_->helpers[index], n, text(n));
        unit_node_ = TSNode{};
        model_->comments = saved_comments;
        return;
      }
    }
    for (uint32_t i = 0; i < ts_node_child_count(n); ++i) collect_helpers(tsnav::child(n, i));
  }

  Lang lang_;
  Syntax s_;
  FileModel* model_ = nullptr;
  TSNode unit_node_{};            ///< the test (or helper) being visited
  bool unit_is_test_ = false;     ///< unit_node_ is a test (its return value is dropped)
  int inverted_depth_ = 0;        ///< inside code an expectation of an assertion failure wraps
  mutable bool last_own_else_ = false;  ///< classify_call: a failure branch in an `else` (its `if`'s condition is the check)
  mutable std::map<std::string, bool> rebound_;  ///< failure_rebound, by callee
  mutable std::map<std::tuple<uint32_t, uint32_t, std::string>, std::pair<std::string, std::size_t>> held_values_;  ///< held_value, by unit span and name
  mutable std::size_t check_at_ = std::string::npos;  ///< classify_call: the check's offset in its unit
  mutable std::map<std::pair<uint32_t, uint32_t>, std::string> unit_codes_;  ///< unit_code, by unit span
  mutable std::map<std::pair<uint32_t, uint32_t>, bool> unit_dynamic_;       ///< unit_binds_dynamically, by unit span
  mutable bool last_own_if_ = false;   ///< classify_call: a Go failure branch (its `if` is the check)
  bool unit_expects_throw_ = false;    ///< the test being visited passes only when its statements throw (JUnit 4)
  mutable bool last_inverts_ = false;  ///< classify_call: an expectation that catches assertion failures
  FileNames names_;                 ///< what the file's names refer to (defined here, imported from where)
  const ImportedDefs* imported_ = nullptr;  ///< what the helper modules the file imports define
  LocalDefs defs_;                     ///< the file's functions and classes (check helpers, wrappers, managers)
  std::string unit_swallow_;           ///< the unit's decorator drops failures: why
  std::string class_swallow_;          ///< the enclosing class's decorator, metaclass or base wraps its methods: why
  mutable std::map<std::string, bool> helper_fails_;  ///< helper_fails, by name
  mutable std::map<std::string, bool> broad_cache_;   ///< broad_exception, by type as written
  std::set<uint32_t> inverted_calls_;                  ///< calls visited inside an expectation of failure (their start bytes)
  mutable std::set<std::string> resolving_;           ///< helpers being resolved (cycles)
  mutable uint32_t testers_unit_ = UINT32_MAX;  ///< go_assertion_call: the test testers_ was worked out for
  mutable std::set<std::string> testers_;       ///< the names a Go test asserts through (t, assert, a suite)
  mutable std::optional<std::map<std::string, std::string>> compiled_;  ///< compiled_pattern_pin: name -> pattern literal
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
    const std::size_t i = closing_paren(out, q);
    if (i >= out.size()) break;
    for (std::size_t k = q + 1; k < i; ++k)
      if (out[k] != '\n') out[k] = ' ';
  }
  return out;
}


/// Python's soft keyword `match`: tree-sitter-python 0.20 reads a statement that starts with a
/// call or attribute of a name `match` (`match(left, right)`, `match.group(1)`) as a broken match
/// statement, and the whole file as unparseable. Such a statement (its logical line does not end
/// in `:`) gets the name `m4tch` instead, same length, so lines and columns stay.
std::string python_soft_keywords(const std::string& src) {
  if (src.find("match") == std::string::npos) return src;
  std::string out = src;
  for (std::size_t i = 0; i < out.size();) {
    const std::size_t eol = std::min(out.find('\n', i), out.size());
    std::size_t p = i;
    while (p < eol && (out[p] == ' ' || out[p] == '\t')) ++p;
    std::size_t after = p + 5;
    while (after < eol && (out[after] == ' ' || out[after] == '\t')) ++after;
    if (out.compare(p, 5, "match") == 0 && after < eol && (out[after] == '(' || out[after] == '.' || out[after] == '[')) {
      int depth = 0;
      char last = 0;
      for (std::size_t q = p + 5; q < out.size(); ++q) {
        const char c = out[q];
        if (c == '#') {
          while (q < out.size() && out[q] != '\n') ++q;
          if (q >= out.size()) break;
        }
        if (out[q] == '\n') {
          if (depth <= 0) break;
          continue;
        }
        if (c == '"' || c == '\'') {
          for (++q; q < out.size() && out[q] != c && out[q] != '\n'; ++q)
            if (out[q] == '\\') ++q;
          last = c;
          continue;
        }
        if (c == '(' || c == '[' || c == '{') ++depth;
        else if (c == ')' || c == ']' || c == '}') --depth;
        if (!std::isspace(static_cast<unsigned char>(c))) last = c;
      }
      if (last != ':') out[p + 1] = '4';
    }
    i = eol + 1;
  }
  return out;
}

}  // namespace

FileModel analyze(Lang lang, const std::string& src, const ImportedDefs* imported) {
  if (lang == Lang::cpp && src.find("MOCK_") != std::string::npos) return Analyzer(lang, blank_gmock(src), imported).run();
  if (lang == Lang::python && src.find("match") != std::string::npos) return Analyzer(lang, python_soft_keywords(src), imported).run();
  return Analyzer(lang, src, imported).run();
}

}  // namespace flowagent::integrity
