// Where a check's operands come from: the calls and names they are computed from inside the test,
// through its local variables. `got := Split("ab")` ... `if !reflect.DeepEqual(got, want)` and
// `if diff := cmp.Diff(want, got); diff != ""` both look at Split: the same check, rewritten with
// another comparator. The old and new versions of a test are matched on these sources when their
// operands differ in spelling (rules_tests.cpp, compare_checks), so a change of comparison library
// (reflect.DeepEqual -> cmp.Diff / slices.Equal, `if got != want` -> testify's assert.Equal) is not
// mistaken for a removed check.
#include <cctype>
#include <climits>
#include <functional>
#include <optional>
#include <map>
#include <set>

#include "core/regex.hpp"
#include "core/regex_cache.hpp"
#include "integrity/guard_internal.hpp"

namespace flowagent::integrity {

namespace {

/// Words that say nothing about what is checked: keywords, builtins, the test framework's own
/// objects. A chain starting with one of them is read without it (`self.calc.add` -> `calc.add`).
bool uninformative(std::string_view w) {
  static const std::set<std::string, std::less<>> kWords = {
      "t",      "tt",       "self",     "this",      "cls",       "assert",  "require", "expect",
      "testing", "nil",     "None",     "null",     "undefined", "true",      "false",   "True",    "False",
      "new",    "make",     "len",      "cap",      "append",    "string",    "int",     "int32",   "int64",
      "uint",   "uint8",    "uint32",   "uint64",   "float32",   "float64",   "bool",    "byte",    "rune",
      "error",  "any",      "interface", "struct",  "map",       "chan",      "func",    "str",     "list",
      "dict",   "set",      "tuple",    "float",    "bytes",     "var",       "let",     "const",   "auto",
      "std",    "vector",   "return",   "function", "lambda",    "await",     "async",   "if",      "else",
      "for",    "in",       "of",       "not",      "and",       "or",        "is",      "typeof",  "instanceof",
      "Object", "Array",    "String",   "Number",   "Boolean",   "JSON",      "Math",    "console", "fmt",
      "vec",    "Vec",      "Some",     "Ok",       "Err",       "unwrap",  "clone",   "to_string",
      "sizeof", "static_cast", "final",  "val",     "mut",       "ref",       "range",   "sorted",  "print"};
  return kWords.count(w) > 0;
}

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

/// The dotted name chains of an expression outside string literals: `cmp.Diff(want, got)` ->
/// {cmp.Diff, want, got}. Each chain as its segments.
std::vector<std::vector<std::string>> chains(std::string_view e, int depth = 0) {
  std::vector<std::vector<std::string>> out;
  std::size_t i = 0;
  bool formatted = false;  // the string starting here interpolates (`f"{...}"`, a JS template)
  while (i < e.size()) {
    const char c = e[i];
    if (c == '"' || c == '\'' || c == '`') {
      const std::size_t start = i + 1;
      for (++i; i < e.size() && e[i] != c; ++i)
        if (e[i] == '\\') ++i;
      // What an f-string or a template literal interpolates is read like code:
      // `f"{calc.price(3):.2f}"` looks at calc.price.
      if ((formatted || c == '`') && depth < 3) {
        const std::string_view body = e.substr(start, std::min(i, e.size()) - start);
        for (const auto& x : interpolations(body, c == '`'))
          for (auto& inner : chains(x.expression, depth + 1)) out.push_back(std::move(inner));
      }
      formatted = false;
      ++i;
      continue;
    }
    // A string prefix (`f"`, `rf'`, `F"`): not a name.
    if (ident_start(c) && (i == 0 || !(ident_char(e[i - 1]) || e[i - 1] == '.'))) {
      std::size_t j = i;
      while (j < e.size() && std::string_view("rRbBfFuU").find(e[j]) != std::string_view::npos) ++j;
      if (j > i && j - i <= 2 && j < e.size() && (e[j] == '"' || e[j] == '\'')) {
        formatted = e.substr(i, j - i).find_first_of("fF") != std::string_view::npos;
        i = j;
        continue;
      }
    }
    if (!ident_start(c) || (i > 0 && (ident_char(e[i - 1]) || e[i - 1] == '.'))) {
      ++i;
      continue;
    }
    std::vector<std::string> chain;
    for (;;) {
      std::size_t j = i;
      while (j < e.size() && ident_char(e[j])) ++j;
      chain.emplace_back(e.substr(i, j - i));
      i = j;
      std::size_t sep = 0;
      if (i < e.size() && e[i] == '.') sep = 1;
      else if (e.substr(i, 2) == "::" || e.substr(i, 2) == "->") sep = 2;
      if (sep == 0 || i + sep >= e.size() || !ident_start(e[i + sep])) break;
      i += sep;
    }
    // Operands are compared without whitespace: `await add(2, 2)` reads `awaitadd(2,2)`. The chain
    // without the keyword is a source too (`add`).
    for (std::string_view kw : {"await", "yield"})
      if (chain.front().size() > kw.size() && starts_with(chain.front(), kw) && ident_start(chain.front()[kw.size()])) {
        auto bare = chain;
        bare.front().erase(0, kw.size());
        out.push_back(std::move(bare));
        break;
      }
    out.push_back(std::move(chain));
  }
  return out;
}

/// The names a declaration or assignment's left side binds: `a, b`, `*p`, `[x, y]`, `(x, y)`.
std::vector<std::string> bound_names(std::string_view left) {
  std::vector<std::string> out;
  // A destructuring pattern (`[four, two]`, `(a, b)`, `{ sum }`): its names.
  std::string whole = strip_spaces(std::string(left));
  const bool object_pattern = !whole.empty() && whole.front() == '{';
  if (whole.size() >= 2 && ((whole.front() == '[' && whole.back() == ']') || (whole.front() == '(' && whole.back() == ')') ||
                            (whole.front() == '{' && whole.back() == '}')))
    whole = whole.substr(1, whole.size() - 2);
  for (const auto& part : split_top(whole, {","})) {
    std::string n = strip_spaces(part);
    const bool in_object = object_pattern || (!n.empty() && n.front() == '{');
    while (!n.empty() && std::string_view("*&([{").find(n.front()) != std::string_view::npos) n.erase(0, 1);
    while (!n.empty() && std::string_view(")]}").find(n.back()) != std::string_view::npos) n.pop_back();
    // `x: int` (Python, TS, Rust) binds x; a JavaScript object pattern's `{ value: sum }` binds sum.
    if (auto colon = n.find(':'); colon != std::string::npos) n = in_object ? n.substr(colon + 1) : n.substr(0, colon);
    if (auto eq = n.find('='); in_object && eq != std::string::npos) n.resize(eq);  // `{ value: sum = 0 }`
    if (!n.empty() && ident_start(n[0]) &&
        std::all_of(n.begin(), n.end(), [](char ch) { return ident_char(ch); }))
      out.push_back(n);
  }
  return out;
}

/// A local definition: the line it is made on and the expression assigned.
struct Definition {
  int line = 0;
  std::string value;
};
using Definitions = std::map<std::string, std::vector<Definition>>;

/// A collection written empty (`[]`, `()`, `{}`, `set()`, `new Set()`), or a name the unit
/// last bound to one: a loop over it never runs.
bool empty_collection(const Syntax& s, TSNode e, const Definitions& defs) {
  if (ts_node_is_null(e)) return false;
  std::string text = strip_spaces(s.text(e));
  if (auto d = defs.find(text); d != defs.end() && !d->second.empty()) text = strip_spaces(d->second.back().value);
  return empty_collection_in(s.src, text);
}

/// A value with the terms that cannot move written as 0: a product with a literal zero or false
/// (`(await add(a, b)) * 0`, `0 * got`, `got * false`) and a difference of a value with itself
/// (`add(2, 2) - add(2, 2)`). `add(2, 2) * 0 + 4` reads `0 + 4`; the expression itself when no term
/// is annihilated.
std::string annihilated(const std::string& value) {
  std::string v = trim(value);
  while (v.size() > 2 && v.front() == '(' && closing_paren(v, 0) == v.size() - 1) v = trim(v.substr(1, v.size() - 2));
  if (split_top(v, {"||", "&&", "??", " or ", " and ", "?", ","}).size() != 1) return value;
  static const rx::regex zero(R"(^\(*\s*(?:-?0+(?:\.0*)?n?|false|False)\s*\)*$)");
  // `x - x` (one subtraction of a value from itself).
  if (const auto minus = split_top(v, {"-"}); minus.size() == 2 && split_top(v, {"+"}).size() == 1 &&
                                              strip_spaces(minus[0]) == strip_spaces(minus[1]) && !literal_text(strip_spaces(minus[0])))
    return "0";
  const auto terms = split_top(v, {"+"});
  bool any = false;
  std::string out;
  for (const auto& t : terms) {
    const auto factors = split_top(t, {"*"});
    bool dead = false;
    for (const auto& f : factors)
      if (factors.size() >= 2 && rx::regex_match(trim(f), zero)) dead = true;
    any = any || dead;
    out += (out.empty() ? "" : " + ") + (dead ? std::string("0") : trim(t));
  }
  return any ? out : value;
}

/// A value with the parts that cannot reach the result dropped: a short circuit a literal decides
/// (`4 || v`, `4 or r`, `0 && v` is that literal) and annihilated terms (`v * 0 + 4` is `0 + 4`),
/// in the arguments of a call too (`append(got, v*0+4)`). What a callback stores flows from its
/// parameters only when they survive this.
std::string live_value(const std::string& value, int depth = 0) {
  std::string v = trim(value);
  while (v.size() > 2 && v.front() == '(' && closing_paren(v, 0) == v.size() - 1) v = trim(v.substr(1, v.size() - 2));
  if (depth > 6 || v.empty()) return v;
  static const std::set<std::string, std::less<>> kFalsy = {"False", "0", "None", "''", "\"\"", "[]", "()", "{}", "false",
                                                            "null", "undefined", "0.0", "NaN", "nil", "``"};
  // (What type a value is, `typeof v`, `type(v)`, `isinstance(v, int)`: not the value.)
  if (starts_with(v, "typeof ") || starts_with(v, "type(") || starts_with(v, "isinstance(") || starts_with(v, "typeof(")) return "'type'";
  // (A clamp against a literal, `max(v, 4)`, `Math.min(v, 4)`, `std::max(v, 4)`, `v.max(4)`: the
  // literal wherever the check can pass; an item of a literal tuple, `(v, 4)[1]`: that item.)
  {
    static const rx::regex clamp(R"(^(?:(?:Math|std|math|numpy|np)(?:\.|::))?(?:max|min)\((.*)\)$)");
    static const rx::regex method_clamp(R"(^(.+)\.(?:max|min)\((.+)\)$)");
    rx::smatch m;
    if (rx::regex_match(v, m, clamp)) {
      for (const auto& arg : split_top(m[1].str(), {","}))
        if (literal_text(strip_spaces(arg))) return trim(arg);
    } else if (rx::regex_match(v, m, method_clamp) && literal_text(strip_spaces(m[2].str()))) {
      return trim(m[2].str());
    }
    static const rx::regex item_of(R"(^[(\[](.*)[)\]]\s*\[\s*(\d+)\s*\]$)");
    if (rx::regex_match(v, m, item_of))
      if (const auto items = split_top(m[1].str(), {","}); m[2].length() < 6 && std::stoul(m[2].str()) < items.size())
        return live_value(items[std::stoul(m[2].str())], depth + 1);
  }
  // (A call: its callee and its arguments, each read so.)
  if (v.back() == ')') {
    std::size_t open = std::string::npos;
    for (std::size_t i = 0; i < v.size(); ++i)
      if (v[i] == '(' && closing_paren(v, i) == v.size() - 1) {
        open = i;
        break;
      }
    if (open != std::string::npos && open > 0 && split_top(v, {"||", "&&", "??", " or ", " and ", "+", "-", "*", "?"}).size() == 1) {
      std::string out = v.substr(0, open) + "(";
      bool first = true;
      for (const auto& arg : split_top(std::string_view(v).substr(open + 1, v.size() - open - 2), {","})) {
        out += (first ? "" : ", ") + live_value(arg, depth + 1);
        first = false;
      }
      return out + ")";
    }
  }
  // (A value less itself, `v - v + 4`: that term is 0.)
  if (const auto terms = split_top(v, {"+"}); terms.size() > 1) {
    std::string out;
    bool dead = false;
    for (const auto& t : terms) {
      const auto minus = split_top(t, {"-"});
      const bool self = minus.size() == 2 && strip_spaces(minus[0]) == strip_spaces(minus[1]) && !literal_text(strip_spaces(minus[0]));
      dead = dead || self;
      out += (out.empty() ? "" : " + ") + (self ? std::string("0") : trim(t));
    }
    if (dead) return annihilated(out);
  }
  if (const auto either = split_top(v, {"||", " or ", "??"}); either.size() > 1) {
    const std::string head = strip_spaces(either.front());
    if (literal_text(head) && !kFalsy.count(head)) return trim(either.front());
  }
  if (const auto both = split_top(v, {"&&", " and "}); both.size() > 1) {
    const std::string head = strip_spaces(both.front());
    if (literal_text(head) && kFalsy.count(head)) return trim(both.front());
    // (`v && 4`, `v and 4`: the literal wherever the check can pass.)
    if (const std::string last = strip_spaces(both.back()); literal_text(last) && !kFalsy.count(last)) return trim(both.back());
  }
  // (A choice between the same two values, `c ? 4 : 4`, `4 if v else 4`.)
  if (const auto q = split_top(v, {"?"}); q.size() == 2)
    if (const auto arms = split_top(q[1], {":"}); arms.size() == 2 && strip_spaces(arms[0]) == strip_spaces(arms[1])) return trim(arms[0]);
  if (const auto py = split_top(v, {" if "}); py.size() == 2)
    if (const auto rest = split_top(py[1], {" else "}); rest.size() == 2 && strip_spaces(py[0]) == strip_spaces(rest[1])) return trim(py[0]);
  return annihilated(v);
}

/// The one literal every element of a collection built by a comprehension or `map` is, when its
/// element expression is a literal that ignores what it maps (`[4 for _ in results]`,
/// `results.map(() => 4)`, `xs.map(function () { return 4; })`); "" otherwise.
std::string constant_elements(const Syntax& s, TSNode e) {
  if (ts_node_is_null(e)) return {};
  const std::string_view t = Syntax::type(e);
  if (t == "list_comprehension" || t == "set_comprehension" || t == "generator_expression") {
    TSNode body = Syntax::field(e, "body");
    const std::string v = ts_node_is_null(body) ? std::string() : strip_spaces(s.text(body));
    return literal_text(v) ? v : std::string();
  }
  if (t == "binary_operator") {  // Python `[4] * len(results)`: the one literal element, repeated
    TSNode left = Syntax::field(e, "left"), right = Syntax::field(e, "right");
    for (TSNode side : {left, right}) {
      if (ts_node_is_null(side) || Syntax::type(side) != "list" || ts_node_named_child_count(side) != 1) continue;
      const std::string v = strip_spaces(s.text(tsnav::named_child(side, 0)));
      if (s.text(e).find('*') != std::string::npos && literal_text(v)) return v;
    }
    return {};
  }
  if (t != "call_expression" && t != "call") return {};
  TSNode callee = Syntax::field(e, "function");
  TSNode args = Syntax::field(e, "arguments");
  if (ts_node_is_null(callee) || ts_node_is_null(args)) return {};
  // The mapping function: `xs.map(fn)`, `xs.flatMap(fn)`, `Array.from(xs, fn)`, Python `map(fn, xs)`.
  TSNode fn{};
  const std::string head = strip_spaces(s.text(callee));
  const uint32_t n_args = ts_node_named_child_count(args);
  if (t == "call") {
    if (head != "map" || n_args != 2) return {};
    fn = tsnav::named_child(args, 0);
  } else if (head == "Array.from" && n_args == 2) {
    fn = tsnav::named_child(args, 1);
  } else {
    if (Syntax::type(callee) != "member_expression" || n_args != 1) return {};
    TSNode prop = Syntax::field(callee, "property");
    if (ts_node_is_null(prop) || (s.text(prop) != "map" && s.text(prop) != "flatMap")) return {};
    fn = tsnav::named_child(args, 0);
  }
  const std::string_view ft = Syntax::type(fn);
  if (ft != "arrow_function" && ft != "function_expression" && ft != "function" && ft != "lambda") return {};
  std::string v = strip_spaces(s.text(Syntax::field(fn, "body")));
  if (v.size() > 2 && v.front() == '{' && v.back() == '}') {  // `{ return 4; }`
    v = v.substr(1, v.size() - 2);
    if (v.rfind("return", 0) != 0) return {};
    v = v.substr(6);
    while (!v.empty() && v.back() == ';') v.pop_back();
  }
  while (v.size() > 2 && v.front() == '(' && v.back() == ')') v = v.substr(1, v.size() - 2);
  return literal_text(v) ? v : std::string();
}

/// Does `n` sit in a loop (within its function) over an empty collection?
bool in_loop_over_nothing(const Syntax& s, TSNode n, const Definitions& defs) {
  for (TSNode p = tsnav::parent(n); !ts_node_is_null(p); p = tsnav::parent(p)) {
    const std::string_view t = Syntax::type(p);
    static const std::set<std::string_view> kFunctions = {"function_definition", "function_declaration", "arrow_function",
                                                          "function_expression", "method_definition", "func_literal",
                                                          "method_declaration", "lambda"};
    if (kFunctions.count(t)) return false;
    if (t == "for_in_statement" || t == "for_statement" || t == "enhanced_for_statement") {
      TSNode over = Syntax::field(p, t == "enhanced_for_statement" ? "value" : "right");
      if (t == "for_statement" && ts_node_is_null(over))  // Go: `for _, x := range xs`
        for (uint32_t i = 0; i < ts_node_named_child_count(p); ++i)
          if (Syntax::type(tsnav::named_child(p, i)) == "range_clause") over = Syntax::field(tsnav::named_child(p, i), "right");
      if (empty_collection(s, over, defs)) return true;
    }
  }
  return false;
}

bool constant(std::string_view e);

/// A collection the test started empty (`[]`, `{}`, `Vec::new()`, `new ArrayList<>()`, a C++
/// container declared without a value) that the statement `n` fills with `added`: joined to its
/// definition as `+=` is, so that it holds what is put in (`got.append(add(2, 2))` is no constant,
/// `got.append(4)` still is). Any other name, `calc.add(2, 2)`'s `calc`, is left alone.
void fill_collection(const Syntax& s, TSNode root, TSNode n, Definitions& defs, const std::string& name, const std::string& added,
                     bool may_declare = true) {
  static const rx::regex empty_start(
      R"(^(?:\[\]|\{\}|\(\)|(?:set|list|dict|deque|collections\.deque|Counter|OrderedDict|bytearray)\(\)|(?:collections\.)?defaultdict\([\w.]*\)|new(?:Array|Set|Map)\(\)|)"
      R"((?:Vec|HashMap|HashSet|BTreeMap|BTreeSet|VecDeque|String)::(?:new\(\)|with_capacity\([^()]*\))|vec!\[\]|)"
      R"((?:queue\.|asyncio\.)?(?:Simple|Lifo|Priority)?Queue\(\)|(?:jest|vi)\.fn\(\)|sinon\.(?:spy|fake)\(\)|(?:unittest\.mock\.|mock\.)?(?:Magic|Async)?Mock\(\)|)"
      R"(new(?:ArrayList|LinkedList|HashMap|HashSet|TreeMap|TreeSet|LinkedHashMap|LinkedHashSet|ArrayDeque|Vector)(?:<[^()]*>)?\(\)|)"
      R"((?:mutableListOf|mutableSetOf|mutableMapOf|arrayListOf)(?:<[^()]*>)?\(\)|\[\][\w.*]+\{\}|map\[[^\]]*\][\w.*]+\{\}|make\(\[\][\w.*]+,0\)|)"
      R"(new\w+\[\d+\]|\[0;\d+\]|std::(?:vector|map|set)<[^()]*>\{\})$|^\(.*\)\+\(.*\)$)");
  static const rx::regex container(R"((?:^|[^\w])(?:std::)?(?:vector|list|deque|set|map|multiset|multimap|unordered_map|unordered_set|string|array)\b|\[\]\s*$|\w\s*\[\s*\d+\s*\]\s*$)");
  if (!is_plain_name(name) || name.find('.') != std::string::npos) return;
  auto it = defs.find(name);
  if (it == defs.end() || it->second.empty()) {
    // (C++ `std::vector<int> got;`, Go `var got []int`: declared without a value. The file is searched
    // only for a fill method's receiver or an address handed out, `&out`: not for every argument.)
    if (!may_declare) return;
    // (A cheap look first: the regexes below are per name, and most receivers are no local container.)
    const std::size_t from = std::min<std::size_t>(ts_node_start_byte(root), s.src.size());
    const std::string_view all = std::string_view(s.src).substr(from, std::min<std::size_t>(ts_node_end_byte(root), s.src.size()) - from);
    if (all.find(name + ";") == std::string_view::npos && all.find(name + "{") == std::string_view::npos &&
        all.find(name + " {") == std::string_view::npos && all.find(name + "[") == std::string_view::npos &&
        all.find("var " + name) == std::string_view::npos)
      return;
    const std::string whole(all);
    const rx::regex declared = detail::cached_regex("([\\w:<>, \\[\\]]+)\\s+" + name + "\\s*(?:;|\\{\\s*\\}\\s*;|\\[\\s*\\d+\\s*\\]\\s*;|$)");
    const rx::regex go_var = detail::cached_regex("(?:^|\\n)[ \\t]*var[ \\t]+" + name + "[ \\t]+(?:\\[\\]|map\\[)");
    rx::smatch dm;
    if (((rx::regex_search(whole, dm, declared) && rx::regex_search(dm[1].str(), container)) || rx::regex_search(whole, go_var)) &&
        !in_loop_over_nothing(s, n, defs))
      defs[name].push_back({Syntax::line(n), added});
    return;
  }
  auto& last = it->second.back();
  // (Started empty, or as a literal collection of placeholders, `got = [0, 0]` or `[None, None]` then
  // `got[0] = add(1, 1)`: not `[4]`, whose first item stays the constant 4 whatever is added.)
  const std::string start = strip_spaces(last.value);
  // (Or an object of placeholders, `state = { sum: null }` then `state.sum = v`.)
  const bool object = start.size() >= 2 && start.front() == '{';
  bool literal_collection = start.size() >= 2 && (start.front() == '[' || start.front() == '(' || object) && (object || constant(start));
  if (literal_collection)
    for (const auto& item : split_top(std::string_view(start).substr(1, start.size() - 2), {","})) {
      static const std::set<std::string, std::less<>> kPlaceholders = {"0", "None", "null", "undefined", "''", "\"\"", "False", "false", "0.0", "nil", "NaN"};
      std::string value = strip_spaces(item);
      if (object) {
        const auto colon = split_top(value, {":"});
        if (colon.size() != 2 || !is_plain_name(strip_spaces(colon[0]))) {
          literal_collection = false;
          continue;
        }
        value = strip_spaces(colon[1]);
      }
      if (!kPlaceholders.count(value)) literal_collection = false;
    }
  if ((!literal_collection && !rx::regex_match(start, empty_start)) || in_loop_over_nothing(s, n, defs)) return;
  last.value = "(" + last.value + ") + (" + added + ")";
  last.line = std::max(last.line, Syntax::line(n));
}

/// The function node types, anonymous (a lambda, an arrow function, a Go func literal) and named
/// (a `def`, a function declaration, a method).
bool anonymous_function(std::string_view t) {
  return t == "arrow_function" || t == "function_expression" || t == "function" || t == "lambda_expression" || t == "func_literal" ||
         t == "lambda" || t == "closure_expression";
}
bool named_function(std::string_view t) {
  return t == "function_declaration" || t == "method_definition" || t == "function_definition" || t == "function_item" ||
         t == "method_declaration";
}

/// The functions around `n` within the unit `root`, innermost first: not the unit's own body (the
/// callback of `test('x', () => {...})`).
std::vector<TSNode> functions_around(TSNode n, TSNode root) {
  std::vector<TSNode> around;
  for (TSNode f = tsnav::parent(n); !ts_node_is_null(f) && !ts_node_eq(f, root); f = tsnav::parent(f))
    if (anonymous_function(Syntax::type(f)) || named_function(Syntax::type(f))) around.push_back(f);
  if (!ts_node_is_null(root) && !anonymous_function(Syntax::type(root)) && !named_function(Syntax::type(root)) && !around.empty())
    around.pop_back();
  return around;
}

/// The name a function `f` is bound to: a `def`'s or a declaration's name, `const onSum = (v) =>
/// ...`, Go `onSum := func(v int) {...}`; "" when none.
std::string function_name(const Syntax& s, TSNode f) {
  if (named_function(Syntax::type(f))) {
    TSNode nm = Syntax::field(f, "name");
    return ts_node_is_null(nm) ? std::string() : s.text(nm);
  }
  TSNode up = tsnav::parent(f);
  if (ts_node_is_null(up)) return {};
  const std::string_view ut = Syntax::type(up);
  if (ut != "variable_declarator" && ut != "assignment_expression" && ut != "assignment" && ut != "init_declarator" &&
      ut != "short_var_declaration" && ut != "expression_list" && ut != "let_declaration")
    return {};
  TSNode named = Syntax::field(up, "name");
  if (ts_node_is_null(named)) named = Syntax::field(up, "left");
  if (ts_node_is_null(named)) named = Syntax::field(up, "declarator");
  if (ts_node_is_null(named)) named = Syntax::field(up, "pattern");
  if (ts_node_is_null(named) && ut == "expression_list" && ts_node_named_child_count(up) == 1)
    if (TSNode decl = tsnav::parent(up); !ts_node_is_null(decl)) named = Syntax::field(decl, "left");
  const std::string fn = ts_node_is_null(named) ? std::string() : strip_spaces(s.text(named));
  return is_plain_name(fn) && fn.find('.') == std::string::npos ? fn : std::string();
}

/// The call a function `f` is handed to: as an argument, under a keyword (`on_result=lambda v:
/// ...`) or in an object of options (`{ onResult: (v) => ... }`); or, bound to a name, the unit's
/// first call handed that name (`add(2, 2, onSum)`, `reg.on_row(on_row)`). A null node when none.
TSNode handed_call(const Syntax& s, TSNode f, TSNode root) {
  TSNode args = tsnav::parent(f);
  while (!ts_node_is_null(args) && (Syntax::type(args) == "pair" || Syntax::type(args) == "object" || Syntax::type(args) == "keyword_argument" ||
                                    Syntax::type(args) == "parenthesized_expression"))
    args = tsnav::parent(args);
  if (!ts_node_is_null(args) && (Syntax::type(args) == "arguments" || Syntax::type(args) == "argument_list") && anonymous_function(Syntax::type(f)))
    return tsnav::parent(args);
  const std::string fn = function_name(s, f);
  TSNode call{};
  if (fn.empty() || ts_node_is_null(root)) return call;
  std::function<void(TSNode, int)> find = [&](TSNode x, int depth) {
    if (!ts_node_is_null(call) || depth > kMaxSyntaxDepth) return;
    const std::string_view xt = Syntax::type(x);
    if (xt == "arguments" || xt == "argument_list")
      for (uint32_t i = 0; i < ts_node_named_child_count(x) && ts_node_is_null(call); ++i) {
        TSNode a = tsnav::named_child(x, i);
        if (Syntax::type(a) == "keyword_argument") a = Syntax::field(a, "value");
        // (`add(2, 2, { onResult })`, `{ onResult: onSum }`.)
        if (!ts_node_is_null(a) && Syntax::type(a) == "object")
          for (uint32_t j = 0; j < ts_node_named_child_count(a); ++j) {
            TSNode member = tsnav::named_child(a, j);
            if (Syntax::type(member) == "pair") member = Syntax::field(member, "value");
            if (!ts_node_is_null(member) && (Syntax::type(member) == "shorthand_property_identifier" || Syntax::type(member) == "identifier") &&
                s.text(member) == fn)
              call = tsnav::parent(x);
          }
        if (!ts_node_is_null(a) && Syntax::type(a) == "identifier" && s.text(a) == fn) call = tsnav::parent(x);
      }
    for (uint32_t i = 0; i < ts_node_named_child_count(x); ++i) find(tsnav::named_child(x, i), depth + 1);
  };
  find(root, 0);
  return call;
}

/// A timer: its callback has not run when the test's next statement does.
bool timer_callee(const std::string& name) {
  static const rx::regex timer(R"(^(?:(?:globalThis|window|global)\.)?(?:setTimeout|setInterval|setImmediate|queueMicrotask)$)");
  return rx::regex_match(name, timer);
}

/// Does `n` sit in a function handed to the code or called (a callback, a stub), within `root`
/// (the unit)? How often such a function runs is the code's: a variable it changes holds an
/// unknown value. In the test's own statements, or in a function nothing calls, it does not; nor
/// in one only the test's constants reach (`[2, 2].forEach(...)`, `Promise.resolve(1).then(...)`,
/// `map(on, [2, 2])`): what that changes stays a constant, as the code under test never sees it.
bool runs_handed(const Syntax& s, TSNode n, TSNode root) {
  const std::vector<TSNode> around = functions_around(n, root);
  if (around.empty()) return false;
  // (The innermost function decides.)
  const TSNode f = around.front();
  const TSNode up_node = tsnav::parent(f);
  if (ts_node_is_null(up_node)) return false;
  const TSNode call = handed_call(s, f, root);
  if (!ts_node_is_null(call)) {
    // (Handed to what never runs it before the check: a timer, a loop over an empty literal, a
    // function of the file that does nothing with what it is given; or to what runs it on the
    // test's constants only.)
    const TSNode callee = Syntax::field(call, "function");
    if (ts_node_is_null(callee)) return true;
    const std::string name = strip_spaces(s.text(callee));
    static const rx::regex over_nothing(R"(^(?:\[\]|\{\}|\(\))\.(?:forEach|map|filter|some|every|reduce|flatMap|find)$)");
    if (timer_callee(name) || rx::regex_match(name, over_nothing)) return false;
    static const rx::regex over_literals(R"(^(\[.*\]|Promise\.(?:resolve|reject)\(.*\))\.(?:forEach|map|filter|some|every|reduce|flatMap|find|then|catch|finally)$)");
    rx::smatch lm;
    if (rx::regex_match(name, lm, over_literals) && constant(lm[1].str())) return false;
    static const std::set<std::string, std::less<>> kApplies = {"map", "filter", "reduce", "functools.reduce", "itertools.starmap", "sorted",
                                                                "min", "max", "list", "tuple", "any", "all", "sum"};
    if (kApplies.count(name))
      if (TSNode args = Syntax::field(call, "arguments"); !ts_node_is_null(args)) {
        bool others_constant = true;
        for (uint32_t i = 0; i < ts_node_named_child_count(args) && others_constant; ++i) {
          TSNode a = tsnav::named_child(args, i);
          if (ts_node_eq(a, f) || (Syntax::type(a) == "identifier" && s.text(a) == function_name(s, f))) continue;
          if (Syntax::type(a) == "keyword_argument") continue;
          others_constant = constant(strip_spaces(s.text(a)));
        }
        if (others_constant) return false;
      }
    // (Whether the file defines `name` as a function that does nothing with what it is given: asked
    // once per file and name, as every callback handed to it asks, and only where the file can
    // define it at all.)
    thread_local std::map<std::tuple<const char*, std::size_t, std::string>, bool> does_nothing_memo;
    if (does_nothing_memo.size() > 4096) does_nothing_memo.clear();
    const auto memo_key = std::make_tuple(s.src.data(), s.src.size(), name);
    if (const auto known = does_nothing_memo.find(memo_key); known != does_nothing_memo.end()) return !known->second;
    bool does_nothing = false;
    if (is_plain_name(name) && name.find('.') == std::string::npos && name.size() < 64 &&
        (s.src.find("function " + name) != std::string_view::npos || s.src.find("def " + name) != std::string_view::npos ||
         s.src.find(name + " =") != std::string_view::npos || s.src.find(name + "=") != std::string_view::npos)) {
      // (`const later = (f) => {}`, `function later(f) {}`, `def later(f): pass`, `later = lambda f: None`.)
      const rx::regex noop = detail::cached_regex(
          "(?:\\b(?:const|let|var)\\s+" + name + "\\s*=\\s*(?:async\\s*)?\\(([^()]*)\\)\\s*=>\\s*\\{([^{}]*)\\}|\\bfunction\\s+" + name +
          "\\s*\\(([^()]*)\\)\\s*\\{([^{}]*)\\}|\\bdef\\s+" + name + "\\s*\\(([^()]*)\\)\\s*:\\s*(pass|\\.\\.\\.|return(?:\\s+None)?)\\s*(?:\\n|$)|\\b" + name +
          "\\s*=\\s*lambda\\s*([^:]*):\\s*(None|0|False)\\s*(?:\\n|$))");
      rx::smatch m;
      const std::string_view src = s.src;
      const std::string text(src.substr(0, std::min<std::size_t>(src.size(), 200000)));
      if (rx::regex_search(text, m, noop)) {
        const int group = m[1].matched ? 1 : m[3].matched ? 3 : m[5].matched ? 5 : 7;
        const std::string params = m[group].str(), body = m[group + 1].str();
        bool uses = false;
        for (const auto& part : split_top(params, {","})) {
          std::string pn = strip_spaces(part);
          pn = pn.substr(0, pn.find_first_of(":="));
          while (!pn.empty() && (pn.front() == '*' || pn.front() == '.')) pn.erase(0, 1);
          if (!pn.empty() && has_word(body, pn)) uses = true;
        }
        does_nothing = !uses;
      }
    }
    does_nothing_memo.emplace(memo_key, does_nothing);
    return !does_nothing;
  }
  const std::string_view ut = Syntax::type(up_node);
  if (ut == "call_expression" || ut == "pair") return true;
  if (const std::string fn = function_name(s, f); !fn.empty()) {
    // (Bound to a name and handed to no call: it runs when the name is used again, `fetch: bump` or
    // `bump()`; a `def` nothing names again never runs.)
    TSNode scope = f;
    while (!ts_node_is_null(tsnav::parent(scope))) scope = tsnav::parent(scope);
    const std::string all = s.text(scope);
    std::size_t mentions = 0;
    for (std::size_t at = all.find(fn); at != std::string::npos && mentions < 2; at = all.find(fn, at + 1))
      if ((at == 0 || !ident_char(all[at - 1])) && (at + fn.size() >= all.size() || !ident_char(all[at + fn.size()]))) ++mentions;
    return mentions >= 2;
  }
  // (Bound to a name by a form function_name does not read, or a method of an object literal:
  // assume it runs.)
  return true;
}

/// A call's text and, when it is a method of a plain name (`em.on(...)`, `reg.on_row(...)`), the
/// later calls on that name within the unit (`em.emit('sum', add(2, 2))`), joined with `+`: what a
/// callback handed to the call receives comes through them.
std::string call_and_receiver_calls(const Syntax& s, TSNode call, TSNode root) {
  std::string out = annihilated(s.text(call));
  TSNode fn = Syntax::field(call, "function");
  TSNode object{};
  if (!ts_node_is_null(fn)) {
    const std::string_view ft = Syntax::type(fn);
    if (ft == "attribute" || ft == "member_expression") object = Syntax::field(fn, "object");
    else if (ft == "field_expression") object = Syntax::field(fn, "argument");
    else if (ft == "selector_expression") object = Syntax::field(fn, "operand");
    if (ft == "field_expression" && ts_node_is_null(object)) object = Syntax::field(fn, "value");
  } else if (Syntax::type(call) == "method_invocation") {
    object = Syntax::field(call, "object");
  }
  // (Its receiver, and the name its result is bound to: `m = mock.Mock(side_effect=got.append)`
  // then `m(add(2, 2))`, `reg = Registry(on_row=got.append)` then `reg.emit(...)`.)
  std::vector<std::string> receivers;
  if (!ts_node_is_null(object)) {
    receivers.push_back(strip_spaces(s.text(object)));
    // (`calc.events.on('sum', ...)` then `calc.add(2, 2)`: the object the emitter belongs to.)
    if (const auto dot = receivers.back().find('.'); dot != std::string::npos && dot > 0) receivers.push_back(receivers.back().substr(0, dot));
  }
  for (TSNode up = tsnav::parent(call); !ts_node_is_null(up); up = tsnav::parent(up)) {
    const std::string_view ut = Syntax::type(up);
    if (ut == "await_expression" || ut == "parenthesized_expression") continue;
    if (ut == "assignment" || ut == "assignment_expression" || ut == "variable_declarator" || ut == "short_var_declaration" ||
        ut == "let_declaration" || ut == "init_declarator") {
      TSNode named = Syntax::field(up, "left");
      for (const char* f : {"name", "pattern", "declarator"})
        if (ts_node_is_null(named)) named = Syntax::field(up, f);
      if (!ts_node_is_null(named)) receivers.push_back(strip_spaces(s.text(named)));
    }
    break;
  }
  receivers.erase(std::remove_if(receivers.begin(), receivers.end(),
                                 [](const std::string& r) { return !is_plain_name(r) || r.find('.') != std::string::npos; }),
                  receivers.end());
  if (receivers.empty() || ts_node_is_null(root)) return out;
  // (An event's name, `em.on('sum', ...)`: only calls on the receiver for that event, `em.emit('sum',
  // ...)`, or that name no event.)
  std::string event;
  if (TSNode args = Syntax::field(call, "arguments"); !ts_node_is_null(args) && ts_node_named_child_count(args) >= 2) {
    const std::string first = strip_spaces(s.text(tsnav::named_child(args, 0)));
    if (first.size() >= 2 && (first.front() == '\'' || first.front() == '"' || first.front() == '`') && first.back() == first.front()) event = first;
  }
  // (The unit's later calls on them: statements after the call, a few.)
  const uint32_t after = ts_node_end_byte(call);
  int taken = 0;
  bool fed_constants = false;
  const std::string alone = out;
  std::function<void(TSNode, int)> visit = [&](TSNode x, int depth) {
    if (taken >= 8 || depth > kMaxSyntaxDepth || ts_node_end_byte(x) <= after) return;
    const std::string_view xt = Syntax::type(x);
    if ((xt == "call" || xt == "call_expression" || xt == "method_invocation") && ts_node_start_byte(x) >= after) {
      const std::string text = strip_spaces(s.text(x));
      bool on = std::any_of(receivers.begin(), receivers.end(), [&](const std::string& r) {
        return text.size() > r.size() + 1 && starts_with(text, r) &&
               (text[r.size()] == '.' || text[r.size()] == '(' || text.compare(r.size(), 2, "->") == 0);
      });
      if (on && !event.empty()) {
        // (Another event's literal name first: not this listener's.)
        TSNode xargs = Syntax::field(x, "arguments");
        const std::string first = ts_node_is_null(xargs) || ts_node_named_child_count(xargs) == 0 ? std::string()
                                                                                                  : strip_spaces(s.text(tsnav::named_child(xargs, 0)));
        if (first.size() >= 2 && (first.front() == '\'' || first.front() == '"' || first.front() == '`') && first != event) on = false;
      }
      if (on && text.size() < 400) {
        // (A call that hands the listener only constants, `em.emit('sum', 4)`: what the collection
        // holds is partly those constants, whichever item the check reads; nothing flows from the code then.)
        // (Only a call that hands values on, `emit`, `send`, `next`, the receiver called itself: not one
        // that computes, `calc.add(2, 2)`.)
        static const rx::regex hands_on(
            R"((?:^|\.|->)(?:emit|emitAsync|dispatch|dispatchEvent|trigger|fire|send|sendMessage|publish|next|notify|write|push|put|call|apply|invoke|resolve|reject|feed|handle|on_\w+|onNext|onResult|accept|run)$)");
        TSNode xfn = Syntax::field(x, "function");
        const std::string xcallee = ts_node_is_null(xfn) ? std::string() : strip_spaces(s.text(xfn));
        const bool passes_on = xcallee.empty() || is_plain_name(xcallee) || rx::regex_search(xcallee, hands_on);
        TSNode xargs = Syntax::field(x, "arguments");
        bool literal_only = passes_on && !ts_node_is_null(xargs) && ts_node_named_child_count(xargs) > (event.empty() ? 0u : 1u);
        for (uint32_t i = event.empty() ? 0 : 1; !ts_node_is_null(xargs) && i < ts_node_named_child_count(xargs) && literal_only; ++i)
          literal_only = constant(strip_spaces(s.text(tsnav::named_child(xargs, i))));
        if (literal_only) fed_constants = true;
        out += " + (" + annihilated(s.text(x)) + ")";
        ++taken;
        return;
      }
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(x); ++i) visit(tsnav::named_child(x, i), depth + 1);
  };
  visit(root, 0);
  return fed_constants ? alone : out;
}

/// Does the unit call `name` itself with constants only (`onSum(4)`, a mock `cb(4)`)?
bool called_with_constants(const Syntax& s, TSNode root, const std::string& name) {
  if (ts_node_is_null(root) || name.empty()) return false;
  bool fed = false;
  std::function<void(TSNode, int)> visit = [&](TSNode x, int depth) {
    if (fed || depth > kMaxSyntaxDepth) return;
    const std::string_view xt = Syntax::type(x);
    if (xt == "call" || xt == "call_expression") {
      TSNode callee = Syntax::field(x, "function");
      TSNode xargs = Syntax::field(x, "arguments");
      if (!ts_node_is_null(callee) && s.text(callee) == name && !ts_node_is_null(xargs) && ts_node_named_child_count(xargs) > 0) {
        bool all_constant = true;
        for (uint32_t i = 0; i < ts_node_named_child_count(xargs) && all_constant; ++i)
          all_constant = constant(strip_spaces(s.text(tsnav::named_child(xargs, i))));
        fed = all_constant;
      }
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(x); ++i) visit(tsnav::named_child(x, i), depth + 1);
  };
  visit(root, 0);
  return fed;
}

/// What flows into a callback `n` sits in, when that callback is an argument of a call in the unit
/// (`add(2, 2, (v) => got.push(v))`, `em.on('sum', (v) => got.push(v))`): the call's text, and the
/// later calls on the same receiver (`em.emit('sum', add(2, 2))`), which is how values reach it.
/// "" when `n` is in no such callback, or `value` (what `n` stores) uses none of its parameters.
std::string flows_into_callback(const Syntax& s, TSNode n, TSNode root, std::string_view value) {
  const std::vector<TSNode> around = functions_around(n, root);
  if (around.empty()) return {};
  const TSNode f = around.front();
  // (Only a value made from the callback's parameters flows in: `got.push(v)`, not `got.push(4)`;
  // a parameter with a default, `(v, want = 4) => got.push(want)`, is no value handed in.)
  {
    std::vector<std::string> names;
    std::function<void(TSNode, int)> collect = [&](TSNode p, int depth) {
      if (ts_node_is_null(p) || depth > 6) return;
      const std::string_view pt = Syntax::type(p);
      // (`({ sum }) => ...`: a destructured field is a value handed in.)
      if (pt == "identifier" || pt == "shorthand_property_identifier_pattern") {
        names.push_back(s.text(p));
        return;
      }
      if (pt == "default_parameter" || pt == "assignment_pattern" || pt == "optional_parameter" || pt == "typed_default_parameter" ||
          pt == "type_identifier" || pt == "primitive_type" || pt == "type_annotation")
        return;
      // (A parameter's name, not its type: `int v`, `v: i32`, `v int`.)
      for (const char* fname : {"name", "pattern", "declarator"})
        if (TSNode x = Syntax::field(p, fname); !ts_node_is_null(x)) {
          collect(x, depth + 1);
          return;
        }
      for (uint32_t i = 0; i < ts_node_named_child_count(p); ++i) collect(tsnav::named_child(p, i), depth + 1);
    };
    TSNode params = Syntax::field(f, "parameters");
    if (ts_node_is_null(params)) params = Syntax::field(f, "parameter");
    if (ts_node_is_null(params) && Syntax::type(f) == "lambda_expression") params = Syntax::field(f, "declarator");  // C++
    collect(params, 0);
    // (A parameter bound again in the callback, `v = 4`, `let v = 4`, Go `v := 4`, is no value handed in.)
    const std::string body = s.text(f);
    names.erase(std::remove_if(names.begin(), names.end(),
                               [&](const std::string& w) {
                                 // (Also `[v] = [4]`, `v, = (4,)`, `v &&= 4`, `for (v of [4])`, `for v in (4,):`.)
                                 const rx::regex again = detail::cached_regex(
                                     "(?:^|[^\\w.$])(?:let\\s+|var\\s+|const\\s+|auto\\s+|int\\s+|mut\\s+)?" + w +
                                     "\\s*(?::=|=(?![=>])|\\+=|-=|\\*=|&&=|\\|\\|=|\\?\\?=|,\\s*=(?![=>]))|[\\[(,]\\s*" + w + "\\s*[\\]),][^=;\\n]*=(?![=>])|\\bfor\\s*\\(?\\s*(?:const\\s+|let\\s+|var\\s+)?" + w +
                                     "\\s+(?:of|in)\\b|\\barguments\\s*\\[");
                                 return rx::regex_search(body, again);
                               }),
                names.end());
    bool mentioned = false;
    const std::string live = live_value(std::string(value));
    value = live;
    for (const auto& word : names)
      for (std::size_t at = value.find(word); at != std::string_view::npos && !mentioned; at = value.find(word, at + 1))
        mentioned = (at == 0 || !ident_char(value[at - 1])) && (at + word.size() >= value.size() || !ident_char(value[at + word.size()]));
    if (!mentioned) return {};
  }
  const TSNode call = handed_call(s, f, root);
  if (ts_node_is_null(call)) return {};
  // (A method of an object the test makes itself, `const fake = { add: (a, b, cb) => cb(4) }` then
  // `fake.add(2, 2, cb)`, `SimpleNamespace(add=...)`: the test's own code, not the code's.)
  if (TSNode callee = Syntax::field(call, "function"); !ts_node_is_null(callee) && !ts_node_is_null(root)) {
    TSNode object{};
    if (Syntax::type(callee) == "member_expression" || Syntax::type(callee) == "attribute") object = Syntax::field(callee, "object");
    if (!ts_node_is_null(object) && Syntax::type(object) == "identifier") {
      const std::string o = s.text(object);
      const rx::regex local_object = detail::cached_regex("(?:^|[^\\w.$])" + o + "\\s*=\\s*(?:\\{|(?:types\\.)?SimpleNamespace\\(|type\\()");
      if (rx::regex_search(s.text(root), local_object)) return {};
    }
  }
  // (A named callback the test also calls itself with constants, `onSum(4)`: what it holds is partly
  // those, whichever item the check reads.)
  if (const std::string fn = function_name(s, f); !fn.empty() && called_with_constants(s, root, fn)) return {};
  // (A timer's callback has not run when the test's next statement does.)
  if (TSNode fn = Syntax::field(call, "function"); !ts_node_is_null(fn) && timer_callee(strip_spaces(s.text(fn)))) return {};
  return call_and_receiver_calls(s, call, root);
}

/// Does `n` sit in a function of its own within the unit `root` (not the unit's own body, the
/// callback of `test('x', () => {...})`)?
bool in_nested_function(const Syntax&, TSNode n, TSNode root) { return !functions_around(n, root).empty(); }

/// The variable an update changes: `n` itself, or the local collection or object of an item or
/// member update (`counts[i]++`, `got[k] += v`, `o.n++`'s `o`); "" for anything else.
std::string changed_name(const Syntax& s, TSNode target) {
  if (ts_node_is_null(target)) return {};
  const std::string_view tt = Syntax::type(target);
  if (tt == "identifier") return s.text(target);
  if (tt != "subscript" && tt != "subscript_expression" && tt != "index_expression" && tt != "array_access" &&
      tt != "member_expression" && tt != "attribute" && tt != "field_expression" && tt != "selector_expression")
    return {};
  TSNode object = Syntax::field(target, "value");
  for (const char* f : {"object", "operand", "array", "argument"})
    if (ts_node_is_null(object)) object = Syntax::field(target, f);
  if (ts_node_is_null(object) && ts_node_named_child_count(target) > 0) object = tsnav::named_child(target, 0);
  return ts_node_is_null(object) ? std::string() : changed_name(s, object);
}

/// Local definitions of the unit: variable -> the expressions assigned to it.
void collect_definitions(const Syntax& s, TSNode n, Definitions& defs, int depth, TSNode root = TSNode{}) {
  if (depth > kMaxSyntaxDepth) return;
  if (depth == 0) root = n;
  const std::string_view t = Syntax::type(n);
  auto bind = [&](TSNode left, TSNode right) {
    if (ts_node_is_null(left) || ts_node_is_null(right)) return;
    const auto names = bound_names(s.text(left));
    std::string rhs = annihilated(s.text(right));
    // (A ternary of boolean literals, `ok = got === 4 ? true : false`, `ok = True if got == 4 else
    // False`: its condition, negated when the literals are the other way round.)
    {
      TSNode r = right;
      while (!ts_node_is_null(r) && Syntax::type(r) == "parenthesized_expression" && ts_node_named_child_count(r) == 1) r = tsnav::named_child(r, 0);
      const std::string_view rt = ts_node_is_null(r) ? std::string_view() : Syntax::type(r);
      if ((rt == "ternary_expression" || rt == "conditional_expression") && ts_node_named_child_count(r) == 3) {
        const bool python = Syntax::field(r, "condition").id == nullptr;  // (Python's has no fields)
        TSNode cond = python ? tsnav::named_child(r, 1) : Syntax::field(r, "condition");
        TSNode yes = python ? tsnav::named_child(r, 0) : Syntax::field(r, "consequence");
        TSNode no = python ? tsnav::named_child(r, 2) : Syntax::field(r, "alternative");
        const auto truth = [&](TSNode x) {
          const std::string v = ts_node_is_null(x) ? std::string() : strip_spaces(s.text(x));
          return v == "true" || v == "True" ? 1 : v == "false" || v == "False" ? 0 : -1;
        };
        const int ty = truth(yes), tn = truth(no);
        if (!ts_node_is_null(cond) && ty >= 0 && tn >= 0 && ty != tn)
          rhs = ty == 1 ? annihilated(s.text(cond)) : "!(" + annihilated(s.text(cond)) + ")";
      }
    }
    auto values = split_top(rhs, {","});
    if (values.size() != names.size()) values.assign(names.size(), rhs);
    // (Bound in a callback handed to a call, `add(2, 2, (v) => { result = v; })`, Go's `func(v int)
    // { got = append(got, v) }`: what it holds comes from that call.)
    const std::string flows = names.empty() ? std::string() : flows_into_callback(s, n, root, rhs);
    if (!flows.empty())
      for (auto& v : values) v = "(" + v + ") + (" + flows + ")";
    for (std::size_t k = 0; k < names.size(); ++k) {
      auto& list = defs[names[k]];
      // (A placeholder the callback then sets, `int got = 0;` / `result = None` then `(v) => got = v`:
      // what the check reads is what the callback was handed, not the placeholder.)
      static const std::set<std::string, std::less<>> kPlaceholders = {"0", "None", "null", "undefined", "''", "\"\"", "False",
                                                                        "false", "0.0", "nil", "-1", "{}", "[]", "NaN", "\"\".to_string()", "String::new()"};
      if (!flows.empty() && list.size() == 1 && kPlaceholders.count(strip_spaces(list.front().value))) list.clear();
      list.push_back({Syntax::line(n), values[k]});
    }
  };
  if (t == "short_var_declaration" || t == "assignment_statement" || t == "assignment" || t == "assignment_expression") {
    // `got['two'] = add(1, 1)`, `got[0] = ...`, C++ `got["four"] = Add(2, 2)`: an item set in an empty
    // collection (fill_collection); other item and attribute sets are left as before.
    TSNode left = Syntax::field(n, "left");
    const std::string_view lt = ts_node_is_null(left) ? std::string_view() : Syntax::type(left);
    // (JavaScript `got.four = add(2, 2)` on an object literal too.)
    if (lt == "subscript" || lt == "subscript_expression" || lt == "index_expression" || lt == "array_access" ||
        lt == "member_expression") {
      TSNode right = Syntax::field(n, "right");
      if (const std::string object = changed_name(s, left); !object.empty() && !ts_node_is_null(right)) {
        // (In a callback, `(v) => { seen.sum = v; }`: what it is set to comes from the call it is handed to.)
        std::string added = annihilated(s.text(right));
        if (const std::string flows = flows_into_callback(s, n, root, added); !flows.empty()) added = "(" + added + ") + (" + flows + ")";
        fill_collection(s, root, n, defs, object, added);
      }
    }
    bind(left, Syntax::field(n, "right"));
  }
  else if (t == "augmented_assignment_expression" || t == "augmented_assignment" || t == "update_expression" || t == "inc_statement" ||
           t == "dec_statement") {
    // `total += r.value` accumulates: the variable is computed from what it held and what is added,
    // so the addend joins its latest definition instead of replacing it (and a total built in a
    // loop is not "reassigned, value unknown"). `requestCount++`, `--left`, Go's `n++` add one.
    // An item or member update (`counts[i]++`, `got[k] += v`, `o.n++`) changes the collection or
    // object it is in, when that is a local (ky's `const perAttempt = [0]` counted up by
    // `perAttempt[i]++` in a callback was read as `[0]`).
    // In a function handed to the code or called (a callback, a stub), how often it runs is the
    // code's: the value is unknown (ky's `let requestCount = 0` counted up in a fetch callback was
    // read as 0). In the test's own statements it is what it held changed (`n = 4; n++; n--` is
    // still the constant 4).
    const bool update = t == "update_expression" || t == "inc_statement" || t == "dec_statement";
    TSNode left = update ? Syntax::field(n, "argument") : Syntax::field(n, "left");
    if (update && ts_node_is_null(left) && ts_node_named_child_count(n) >= 1) left = tsnav::named_child(n, 0);
    TSNode right = update ? TSNode{} : Syntax::field(n, "right");
    const bool item = !ts_node_is_null(left) && Syntax::type(left) != "identifier";
    std::string name = changed_name(s, left);
    auto found = name.empty() ? defs.end() : defs.find(name);
    // (An update of what is no local, `self.total += x`, is kept under its own text, as before.)
    if (item && !update && (found == defs.end() || found->second.empty())) name = strip_spaces(s.text(left));
    else if (item && (found == defs.end() || found->second.empty())) name.clear();
    // (An update that changes nothing, `totals.a += 0`, `x *= 1`, `n -= v * 0`: no change.)
    bool identity = false;
    if (!update && !ts_node_is_null(left) && !ts_node_is_null(right) && ts_node_end_byte(left) <= ts_node_start_byte(right)) {
      const std::string op = strip_spaces(std::string(std::string_view(s.src).substr(ts_node_end_byte(left), ts_node_start_byte(right) - ts_node_end_byte(left))));
      const std::string by = strip_spaces(live_value(s.text(right)));
      static const rx::regex zero(R"(^(?:0+(?:\.0*)?|0\+0|\(0\))$)");
      static const rx::regex one(R"(^(?:1(?:\.0*)?|\(1\))$)");
      identity = ((op == "+=" || op == "-=" || op == "|=" || op == "^=" || op == "<<=" || op == ">>=") && rx::regex_match(by, zero)) ||
                 ((op == "*=" || op == "/=" || op == "//=" || op == "**=") && rx::regex_match(by, one));
    }
    if (!identity && !name.empty() && (update || !ts_node_is_null(right)) && !in_loop_over_nothing(s, n, defs)) {
      const std::string added = update ? "1" : annihilated(s.text(right));
      const std::string op = update ? (s.text(n).find("--") != std::string::npos ? " - " : " + ") : " + ";
      auto& list = defs[name];
      if (list.empty()) {
        list.push_back({Syntax::line(n), update ? name + op + added : added});
      } else if (runs_handed(s, n, root)) {
        // (What the code hands the callback, when the update uses it: `(v) => { totals.a += v }`.)
        const std::string flows = flows_into_callback(s, n, root, added);
        // (A placeholder the callback accumulates into, `total = 0` then `(v) => { total += v; }`: what
        // flows, as `total = total + v` reads.)
        static const std::set<std::string, std::less<>> kZero = {"0", "0.0", "None", "null", "undefined", "''", "\"\""};
        if (!flows.empty() && list.size() == 1 && !item && kZero.count(strip_spaces(list.front().value))) list.clear();
        list.push_back({Syntax::line(n), name + op + "(" + added + ")" + (flows.empty() ? "" : " + (" + flows + ")")});
      } else if ((item && literal_text(added)) || in_nested_function(s, n, root)) {
        // (In a function that never runs, `later((v) => { totals.a += v })` with a `later` that
        // does nothing: unchanged.)
        // (An item of a constant changed by a constant, `counts = [3]; counts[0]++`: still a constant.)
        list.back().line = std::max(list.back().line, Syntax::line(n));
      } else {
        // (Folded into the definition it changes: still one value, a constant stays one. The
        // accumulated value is read from here on: what it is computed from is defined by now.)
        list.back().value = "(" + list.back().value + ")" + op + "(" + added + ")";
        list.back().line = std::max(list.back().line, Syntax::line(n));
      }
    }
  } else if (t == "call" || t == "call_expression" || t == "method_invocation") {
    // `got.append(add(2, 2))`, `got.push(...)`, `got.push_back(...)`, `seen.add(...)`: a collection
    // filled in place holds what is put in, joined to its definition as `+=` is (`got = []` then
    // `got.append(add(2, 2))` is no constant; `got.append(4)` still is).
    TSNode fn = Syntax::field(n, "function");
    TSNode object{}, method{};
    if (!ts_node_is_null(fn)) {
      const std::string_view ft = Syntax::type(fn);
      if (ft == "attribute") object = Syntax::field(fn, "object"), method = Syntax::field(fn, "attribute");
      else if (ft == "member_expression") object = Syntax::field(fn, "object"), method = Syntax::field(fn, "property");
      else if (ft == "field_expression") object = Syntax::field(fn, "argument"), method = Syntax::field(fn, "field");
      if (ft == "field_expression" && ts_node_is_null(object)) object = Syntax::field(fn, "value");
    } else if (t == "method_invocation") {
      object = Syntax::field(n, "object"), method = Syntax::field(n, "name");
    }
    static const std::set<std::string, std::less<>> kFills = {"append", "extend", "insert", "push", "push_back", "emplace_back",
                                                              "emplace", "add", "addAll", "update", "unshift", "put", "putAll",
                                                              "set", "setdefault", "appendleft", "extendleft", "push_front",
                                                              "push_str", "write", "splice"};
    if (!ts_node_is_null(object) && !ts_node_is_null(method) && kFills.count(s.text(method))) {
      // (An item's collection, `got['x'].append(...)` on a defaultdict: the collection's.)
      const std::string_view ot = Syntax::type(object);
      const std::string receiver = ot == "subscript" || ot == "subscript_expression" || ot == "index_expression" ? changed_name(s, object)
                                                                                                                 : strip_spaces(s.text(object));
      TSNode args = Syntax::field(n, "arguments");
      if (!ts_node_is_null(args)) {
        std::string added = annihilated(s.text(args));
        if (added.size() >= 2 && added.front() == '(') added = added.substr(1, added.size() - 2);
        // (In a callback handed to a call, `add(2, 2, (v) => got.push(v))`, `em.on('x', (v) =>
        // got.push(v))`: what is put in comes from that call, or from later calls on its receiver.)
        // (Not when it puts a constant in beside, `got.push(v, 4)`, `got.extend([v, 4])`,
        // `seen.update(raw=v, sum=4)`: a check may read that item.)
        bool mixed = false;
        // (A key beside the value, `seen.set('sum', v)`, `d.setdefault('sum', v)`: not a value put in.)
        const bool keyed = s.text(method) == "set" || s.text(method) == "put" || s.text(method) == "setdefault";
        bool first_part = true;
        for (auto part : split_top(live_value(added), {","})) {
          if (std::exchange(first_part, false) && keyed) continue;
          part = strip_spaces(part);
          static const rx::regex keyword(R"(^\w+=(?!=))");
          part = rx::regex_replace(part, keyword, "");
          if (part.size() >= 2 && (part.front() == '[' || part.front() == '(') && matching_close(part, 0) == part.size() - 1) {
            for (const auto& item : split_top(std::string_view(part).substr(1, part.size() - 2), {","}))
              mixed = mixed || literal_text(strip_spaces(item));
          } else {
            mixed = mixed || literal_text(part);
          }
        }
        if (const std::string flows = mixed ? std::string() : flows_into_callback(s, n, root, added); !flows.empty())
          added = "(" + added + ") + (" + flows + ")";
        if (!receiver.empty()) fill_collection(s, root, n, defs, receiver, added);
      }
    }
    // An empty collection handed to a call, which may fill it: an out-parameter (`add(2, 2, out=out)`,
    // `Add(2, 2, &out)`, `load(rows)`), a bound fill method as a callback (`bus.on(got.append)`,
    // `got::add`, `std::back_inserter(got)`): it holds what that call computes.
    if (TSNode args = Syntax::field(n, "arguments"); !ts_node_is_null(args)) {
      static const rx::regex handed(
          R"(^(?:&(?:mut)?|\w+=|\.\.\.)?([A-Za-z_]\w*)$|^(?:\w+=)?([A-Za-z_]\w*)(?:\.|::)(?:append|push|add|push_back|extend|insert|update|put|set|emplace_back)$|^(?:std::)?(?:back_inserter|inserter)\(([A-Za-z_]\w*)[,)])");
      const std::string call_text = annihilated(s.text(n));
      // (Not a callee that only looks at it, nor the check itself.)
      static const rx::regex looks(
          R"(^(?:print|len|str|repr|id|type|isinstance|sorted|list|tuple|set|frozenset|any|all|sum|min|max|bool|iter|enumerate|zip|)"
          R"(console\.\w+|JSON\.stringify|Array\.isArray|Object\.(?:keys|values|entries|freeze)|expect|assert\w*|self\.assert\w*|)"
          R"(t\.(?:Log|Logf|Error|Errorf|Fatal|Fatalf)|fmt\.\w+|reflect\.DeepEqual|(?:assert|require)\.\w+|EXPECT_\w+|ASSERT_\w+|)"
          R"(assert_eq!?|assert_ne!?|assert!?|copy\.\w+|json\.dumps|logging\.\w+|log\.\w+)$)");
      const std::string callee_text = ts_node_is_null(fn) ? (t == "method_invocation" ? s.text(Syntax::field(n, "name")) : std::string())
                                                          : strip_spaces(s.text(fn));
      for (uint32_t i = 0; i < ts_node_named_child_count(args) && !rx::regex_match(callee_text, looks); ++i) {
        rx::smatch m;
        const std::string a = strip_spaces(s.text(tsnav::named_child(args, i)));
        if (a.size() > 200 || !rx::regex_search(a, m, handed)) continue;
        const std::string name = m[1].matched ? m[1].str() : m[2].matched ? m[2].str() : m[3].str();
        // (A mock or a collector the test also calls with constants, `cb(4)`: not filled by the code
        // alone. Looked for only where the name is one, as the look walks the unit.)
        static const rx::regex callable_start(R"(^(?:(?:jest|vi)\.fn|sinon\.(?:spy|fake)|(?:unittest\.mock\.|mock\.)?(?:Magic|Async)?Mock)\(\)$)");
        if (m[1].matched)
          if (const auto d = defs.find(name); d != defs.end() && !d->second.empty() &&
                                              rx::regex_match(strip_spaces(d->second.back().value), callable_start) &&
                                              called_with_constants(s, root, name))
            continue;
        fill_collection(s, root, n, defs, name, m[2].matched ? call_and_receiver_calls(s, n, root) : call_text,
                        /*may_declare=*/a.front() == '&' || !m[1].matched);
      }
    }
  } else if ((t == "for_in_statement" || t == "for_statement" || t == "range_clause") &&
             !empty_collection(s, Syntax::field(n, "right"), defs)) {
    // `for (const r of rs)`, Python `for r in rs:`, Go `for _, r := range rs`: each r is an
    // element of rs (a loop over nothing binds nothing). Several names (`for i, got in
    // enumerate(xs)`, `for k, v := range m`) are each a different part of the element, not the
    // same value: `got == i` compares two things.
    if (TSNode left = Syntax::field(n, "left"), right = Syntax::field(n, "right"); !ts_node_is_null(left) && !ts_node_is_null(right)) {
      const auto names = bound_names(s.text(left));
      // Over `[4 for _ in results]` or `results.map(() => 4)` each element is that literal.
      const std::string constant = constant_elements(s, right);
      for (std::size_t k = 0; k < names.size(); ++k)
        defs[names[k]].push_back({Syntax::line(n), !constant.empty() && names.size() == 1 ? constant
                                                   : names.size() == 1                   ? s.text(right)
                                                                                         : s.text(right) + "[" + std::to_string(k) + "]"});
    }
  } else if (t == "enhanced_for_statement")
    bind(Syntax::field(n, "name"), Syntax::field(n, "value"));
  else if (t == "variable_declarator" || t == "var_spec")
    bind(Syntax::field(n, "name"), Syntax::field(n, "value"));
  else if (t == "init_declarator")
    bind(Syntax::field(n, "declarator"), Syntax::field(n, "value"));
  else if (t == "let_declaration")
    bind(Syntax::field(n, "pattern"), Syntax::field(n, "value"));
  else if (t == "as_pattern" && !ts_node_is_null(tsnav::parent(n)) && Syntax::type(tsnav::parent(n)) == "with_item" &&
           ts_node_named_child_count(n) >= 1)
    // Python `with client.get() as rv:`: rv is what the manager's `__enter__` gives, read as the
    // expression itself (a response, a file, a connection used as its own manager).
    bind(Syntax::field(n, "alias"), tsnav::named_child(n, 0));
  else if (t == "resource")
    // Java `try (var in = open(path))`.
    bind(Syntax::field(n, "name"), Syntax::field(n, "value"));
  else if (t == "catch_clause") {
    // JavaScript `try { await div(1, 0) } catch (e) { expect(e.message)... }` in a test that makes
    // jest count its checks (`expect.assertions(1)`, so the handler must run): the error comes
    // from what the try block runs. (Without the count the handler's check is optional.)
    TSNode param = Syntax::field(n, "parameter");
    TSNode owner = tsnav::parent(n);
    TSNode block = ts_node_is_null(owner) ? owner : Syntax::field(owner, "body");
    bool counted = false;
    for (TSNode f = owner; !ts_node_is_null(f) && !counted; f = tsnav::parent(f)) {
      const std::string_view ft = Syntax::type(f);
      if (ft != "arrow_function" && ft != "function_expression" && ft != "function" && ft != "function_declaration") continue;
      counted = jest_counts_assertions(s.text(f));
    }
    if (counted && !ts_node_is_null(param) && Syntax::type(param) == "identifier" && !ts_node_is_null(block))
      defs[s.text(param)].push_back({Syntax::line(n), s.text(block).substr(0, 4096)});
  }
  else if (t == "arrow_function" || t == "function_expression" || t == "function") {
    // The value a promise resolves to, handed to its `.then` callback: `add(2, 2).then((v) => ...)`
    // binds `v` to `add(2, 2)`, as `const v = await add(2, 2)` would.
    TSNode args = tsnav::parent(n);
    TSNode call = ts_node_is_null(args) ? args : tsnav::parent(args);
    TSNode callee = ts_node_is_null(call) ? call : Syntax::field(call, "function");
    if (!ts_node_is_null(callee) && Syntax::type(args) == "arguments" && Syntax::type(callee) == "member_expression" &&
        ts_node_eq(tsnav::named_child(args, 0), n)) {
      TSNode prop = Syntax::field(callee, "property");
      TSNode object = Syntax::field(callee, "object");
      TSNode param = Syntax::field(n, "parameter");
      if (ts_node_is_null(param)) {
        TSNode params = Syntax::field(n, "parameters");
        if (!ts_node_is_null(params) && ts_node_named_child_count(params) >= 1) param = tsnav::named_child(params, 0);
      }
      if (!ts_node_is_null(prop) && !ts_node_is_null(object) && !ts_node_is_null(param) && s.text(prop) == "then" &&
          Syntax::type(param) == "identifier")
        defs[s.text(param)].push_back({Syntax::line(n), s.text(object)});
      // An element of an array handed to its callback: `[add(2, 2)].map((p) => p.then(...))` binds
      // `p` to what the array holds.
      if (!ts_node_is_null(prop) && !ts_node_is_null(object) && !ts_node_is_null(param) && Syntax::type(object) == "array" &&
          Syntax::type(param) == "identifier" &&
          std::set<std::string>{"map", "forEach", "flatMap", "filter", "some", "every"}.count(s.text(prop)))
        defs[s.text(param)].push_back({Syntax::line(n), s.text(object)});
    }
    // The values a callback handed to a call receives, `add(2, 2, (err, sum) => { expect(sum)... })`:
    // what that call (and later calls on its receiver) computes. Not a timer's, nor one of the
    // test's own objects (handed_call, flows_into_callback).
    if (!ts_node_eq(n, root)) {
      TSNode params = Syntax::field(n, "parameters");
      if (ts_node_is_null(params)) params = Syntax::field(n, "parameter");
      std::vector<std::string> names;
      if (!ts_node_is_null(params) && Syntax::type(params) == "identifier") names.push_back(s.text(params));
      for (uint32_t i = 0; !ts_node_is_null(params) && Syntax::type(params) != "identifier" && i < ts_node_named_child_count(params); ++i)
        if (TSNode p = tsnav::named_child(params, i); Syntax::type(p) == "identifier") names.push_back(s.text(p));
      // (Only a parameter a check of the callback reads itself, `expect(sum).toBe(4)`: one stored
      // into a collection is read through that collection, dead parts and all.)
      const std::string body = names.empty() ? std::string() : s.text(n);
      names.erase(std::remove_if(names.begin(), names.end(),
                                 [&](const std::string& x) {
                                   const rx::regex checked = detail::cached_regex(
                                       "\\b(?:expect|assert\\w*|equal|deepEqual|strictEqual|deepStrictEqual|is|same)\\s*\\(\\s*" + x + "\\s*[,)]");
                                   return defs.count(x) > 0 || !rx::regex_search(body, checked);
                                 }),
                  names.end());
      // (Only where the test makes sure the callback runs: it calls `done()`, or the test counts its
      // checks, `expect.assertions(n)`, `expect.hasAssertions()`, `t.plan(n)`. Otherwise a code that never
      // calls it passes the test with no check run.)
      static const rx::regex ensured(R"(\bexpect\s*\.\s*(?:assertions|hasAssertions)\s*\(|\.plan\s*\()");
      static const rx::regex calls_done(R"(\b(?:done|cb|callback|end|finish|resolve)\s*\()");
      // (Asked only of a callback with such a parameter: every node of the unit comes here, and the
      // unit's text is long.)
      if (!names.empty() && !rx::regex_search(body, calls_done) && !rx::regex_search(s.text(root), ensured)) names.clear();
      if (!names.empty()) {
        // (Asked as for a value made of the first parameter: the same rules decide whether anything flows.)
        const std::string flows = flows_into_callback(s, tsnav::named_child(n, ts_node_named_child_count(n) - 1), root, names.front());
        if (!flows.empty())
          for (const auto& x : names) defs[x].push_back({Syntax::line(n), flows});
      }
    }
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) collect_definitions(s, tsnav::named_child(n, i), defs, depth + 1, root);
}

/// The one definition of `name` a check at `line` sees, nullptr when there is none; `ambiguous`
/// when there are several before it (reassigned, or assigned in branches): its value is unknown.
const Definition* visible(const Definitions& defs, const std::string& name, int line, bool& ambiguous) {
  const auto it = defs.find(name);
  if (it == defs.end()) return nullptr;
  const Definition* found = nullptr;
  int count = 0;
  for (const auto& d : it->second)
    if (d.line <= line) {
      ++count;
      if (!found || d.line >= found->line) found = &d;
    }
  if (count > 1) ambiguous = true;
  return found;
}

/// An expression with no name in it beyond literals and uninformative words: `4`, `[]string{"a"}`.
bool constant(std::string_view e) {
  for (auto chain : chains(e)) {
    // (A promise of a constant, `Promise.resolve(1)`: its arguments are read on their own.)
    if (chain.size() == 2 && chain[0] == "Promise" && (chain[1] == "resolve" || chain[1] == "reject" || chain[1] == "all")) continue;
    while (!chain.empty() && uninformative(chain.front())) chain.erase(chain.begin());
    if (!chain.empty()) return false;
  }
  return true;
}

/// Local names bound to a module imported by a computed name: `mod = importlib.import_module("calc")`,
/// `__import__("calc")`, or `import_module(backend)` with `backend` a parameter whose parametrized
/// values are module names (`@pytest.mark.parametrize("backend", ["calc", "calc_c"])`): name -> modules.
using ModuleValues = std::map<std::string, std::set<std::string>>;

/// What a function of the file returns, as text (`function inputs() { return [add(2, 2)]; }` ->
/// `[add(2, 2)]`), "" when the file defines no such function.
using FileReturns = std::function<std::string(const std::string&)>;

void leaves(std::string_view expr, const Definitions& defs, int line, std::set<std::string>& seen, std::set<std::string>& out,
            bool& ambiguous, int depth, const ModuleValues* modules = nullptr, const FileReturns* returns = nullptr) {
  // (A type assertion is no source: `o.headers as Headers` reads `o.headers`.)
  for (auto chain : chains(without_type_assertions(expr))) {
    while (!chain.empty() && uninformative(chain.front())) chain.erase(chain.begin());
    if (chain.empty()) continue;
    // An operand is kept without whitespace: `new Store().total(xs)` reads `newStore`. A name the
    // test does not define that is `new` and a capitalized name is the class it constructs, as
    // `const s = new Store()` ... `s.total(xs)` reads it.
    if (const std::string& f = chain.front(); f.size() > 3 && f.compare(0, 3, "new") == 0 &&
                                              std::isupper(static_cast<unsigned char>(f[3])) && !defs.count(f))
      chain.front() = f.substr(3);
    if (modules)
      if (auto m = modules->find(chain.front()); m != modules->end() && chain.size() > 1) {
        std::string rest;
        for (std::size_t k = 1; k < chain.size(); ++k) rest += "." + chain[k];
        for (const auto& module : m->second) out.insert(module + rest);
        continue;
      }
    if (depth < kMaxSourceDepth)
      if (const Definition* d = visible(defs, chain.front(), line, ambiguous)) {
        if (seen.insert(chain.front()).second) leaves(d->value, defs, d->line, seen, out, ambiguous, depth + 1, modules, returns);
        continue;
      }
    // A helper function of the test file: what it returns is what the check looks at too
    // (`await Promise.all(inputs())`, `await compute().sum`). Its own name stays a source.
    if (returns && depth < kMaxSourceDepth && chain.size() <= 2 && seen.insert("()" + chain.front()).second)
      if (const std::string r = (*returns)(chain.front()); !r.empty()) {
        const Definitions none;
        leaves(r, none, INT_MAX, seen, out, ambiguous, depth + 1, modules, returns);
      }
    std::string name = chain.front();
    for (std::size_t k = 1; k < chain.size(); ++k) name += "." + chain[k];
    out.insert(std::move(name));
  }
}

/// `e` with each local name replaced by its one visible definition, whitespace removed:
/// `got` -> `(add(2,2))`. Names with no single definition stay as they are.
std::string expand(std::string_view e, const Definitions& defs, int line, int depth) {
  std::string out;
  for (std::size_t i = 0; i < e.size();) {
    const char c = e[i];
    if (c == '"' || c == '\'' || c == '`') {
      const std::size_t start = i;
      for (++i; i < e.size() && e[i] != c; ++i)
        if (e[i] == '\\') ++i;
      ++i;
      out += e.substr(start, std::min(i, e.size()) - start);
      continue;
    }
    if (ident_start(c) && (i == 0 || (!ident_char(e[i - 1]) && e[i - 1] != '.'))) {
      std::size_t j = i;
      while (j < e.size() && ident_char(e[j])) ++j;
      const std::string name(e.substr(i, j - i));
      bool ambiguous = false;
      const Definition* d = depth < kMaxSourceDepth ? visible(defs, name, line, ambiguous) : nullptr;
      if (d && !ambiguous) {
        // Parentheses only where the value is an operation (`a + b`), so that `same = got` and
        // `got` expand alike.
        const std::string v = expand(d->value, defs, d->line, depth + 1);
        const bool operation = split_top(d->value, {"+", "-", "*", "/", "%", "&&", "||", "?", " and ", " or ", " if "}).size() > 1;
        out += operation ? "(" + v + ")" : v;
      }
      else out += name;
      i = j;
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
    ++i;
  }
  return out;
}

}  // namespace

std::vector<std::vector<std::string>> name_chains(std::string_view e) { return chains(e); }

/// Python: the string values a test's parameter takes (`@pytest.mark.parametrize("backend", ["a", "b"])`,
/// also `"backend, x"` with tuples, first element only for the first name); empty when not all literal.
/// The names a column of the unit's pytest parametrize table holds (`@pytest.mark.parametrize('fn,
/// a, b, want', [(add, 2, 2, 4), (sub, 3, 1, 2)])` -> {add, sub} for `fn`): the parameter is each of
/// them in turn. Every name chain of each cell (a lambda's calls too); empty when the parameter is
/// no column of a table the decorator writes out, or goes to a fixture (`indirect`).
std::set<std::string> parametrized_names(const Syntax& s, TSNode unit, const std::string& param) {
  TSNode outer = tsnav::parent(unit);
  if (ts_node_is_null(outer) || Syntax::type(outer) != "decorated_definition") return {};
  static const rx::regex head(R"(parametrize\(\s*['"]([\w\s,]+)['"]\s*,\s*\[)");
  for (uint32_t i = 0; i < ts_node_named_child_count(outer); ++i) {
    TSNode d = tsnav::named_child(outer, i);
    if (Syntax::type(d) != "decorator") continue;
    const std::string text = s.text(d);
    rx::smatch m;
    if (!rx::regex_search(text, m, head) || contains(text, "indirect")) continue;
    std::vector<std::string> params;
    for (const auto& p : split_top(m[1].str(), {","})) params.push_back(strip_spaces(p));
    const auto column = std::find(params.begin(), params.end(), param);
    if (column == params.end()) continue;
    const std::size_t at = static_cast<std::size_t>(column - params.begin());
    // The list: from its `[` to the matching `]`.
    const std::size_t open = static_cast<std::size_t>(m.position() + m.length()) - 1;
    int depth = 0;
    std::size_t close = std::string::npos;
    for (std::size_t k = open; k < text.size(); ++k) {
      if (text[k] == '[' || text[k] == '(' || text[k] == '{') ++depth;
      else if ((text[k] == ']' || text[k] == ')' || text[k] == '}') && --depth == 0) {
        close = k;
        break;
      }
    }
    if (close == std::string::npos) return {};
    std::set<std::string> names;
    for (std::string row : split_top(text.substr(open + 1, close - open - 1), {","})) {
      row = trim(row);
      if (row.empty()) continue;
      if (row.rfind("pytest.param(", 0) == 0) row = row.substr(12);
      if ((row.front() == '(' || row.front() == '[') && row.size() >= 2) row = row.substr(1, row.size() - 2);
      const auto cells = split_top(row, {","});
      if (params.size() > 1 && at >= cells.size()) return {};
      const std::string cell = params.size() > 1 ? cells[at] : row;
      for (const auto& chain : chains(cell)) {
        std::string name;
        for (const auto& part : chain) name += (name.empty() ? "" : ".") + part;
        if (!chain.empty() && !uninformative(chain.front())) names.insert(name);
      }
    }
    return names;
  }
  return {};
}

std::set<std::string> parametrized_strings(const Syntax& s, TSNode unit, const std::string& param) {
  TSNode outer = tsnav::parent(unit);
  if (ts_node_is_null(outer) || Syntax::type(outer) != "decorated_definition") return {};
  static const rx::regex head(R"(parametrize\(\s*['"]\s*(\w+)\s*['"]\s*,\s*[\[(]([^\]\)]*)[\])])");
  static const rx::regex literal(R"(^\s*['"]([\w.]+)['"]\s*$)");
  for (uint32_t i = 0; i < ts_node_named_child_count(outer); ++i) {
    TSNode d = tsnav::named_child(outer, i);
    if (Syntax::type(d) != "decorator") continue;
    const std::string text = s.text(d);
    rx::smatch m;
    if (!rx::regex_search(text, m, head) || m[1].str() != param) continue;
    if (contains(text, "indirect")) return {};  // the values go to a fixture, which returns anything
    std::set<std::string> values;
    for (const auto& item : split_top(m[2].str(), {","})) {
      if (strip_spaces(item).empty()) continue;
      rx::smatch v;
      if (!rx::regex_match(item, v, literal)) return {};
      values.insert(v[1].str());
    }
    return values;
  }
  return {};
}

namespace {

/// One function of a file and what it returns (function_returns), in the order a walk meets them.
struct FunctionReturn {
  uint32_t start = 0, end = 0;  ///< the function's bytes and symbol: what identifies it in any parse of the same text
  TSSymbol symbol = 0;
  std::string name, returned;
};

/// Every function of the tree at `root` with a non-empty return, in pre-order, up to the point
/// where 515 names were seen (function_returns keeps at most 513, one function left out).
std::vector<FunctionReturn> all_function_returns(const Syntax& s, TSNode root) {
  std::vector<FunctionReturn> out;
  std::set<std::string, std::less<>> names;
  std::function<void(TSNode, int)> visit = [&](TSNode n, int d) {
    if (d > kMaxSyntaxDepth || names.size() > 514) return;
    const std::string_view t = Syntax::type(n);
    TSNode body{};
    std::string fname;
    // (Fields a grammar does not have come back null: C++'s function_definition has no "name".)
    const auto named = [&](TSNode x) { return ts_node_is_null(x) ? std::string{} : s.text(x); };
    if (t == "function_declaration" || t == "function_definition" || t == "generator_function_declaration") {
      fname = named(Syntax::field(n, "name"));
      body = Syntax::field(n, "body");
    } else if (t == "variable_declarator") {
      TSNode v = Syntax::field(n, "value");
      if (!ts_node_is_null(v) && (Syntax::type(v) == "arrow_function" || Syntax::type(v) == "function_expression" ||
                                  Syntax::type(v) == "function")) {
        fname = named(Syntax::field(n, "name"));
        body = Syntax::field(v, "body");
      }
    }
    if (!fname.empty() && !ts_node_is_null(body)) {
      std::string returned;
      if (Syntax::type(body) != "statement_block" && Syntax::type(body) != "block") {
        returned = s.text(body);  // a concise arrow body
      } else {
        std::function<void(TSNode, int)> find = [&](TSNode b, int dd) {
          if (dd > kMaxSyntaxDepth || returned.size() > 4096) return;
          const std::string_view bt = Syntax::type(b);
          if (bt == "function_declaration" || bt == "function_definition" || bt == "arrow_function" || bt == "function_expression" ||
              bt == "lambda")
            return;
          if (bt == "return_statement" && ts_node_named_child_count(b) > 0) returned += s.text(tsnav::named_child(b, 0)) + ";";
          for (uint32_t i = 0; i < ts_node_named_child_count(b); ++i) find(tsnav::named_child(b, i), dd + 1);
        };
        find(body, 0);
      }
      if (!returned.empty()) {
        names.insert(fname);
        out.push_back({ts_node_start_byte(n), ts_node_end_byte(n), ts_node_symbol(n), std::move(fname), std::move(returned)});
      }
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) visit(tsnav::named_child(n, i), d + 1);
  };
  visit(root, 0);
  return out;
}

}  // namespace

/// What each function of the file holding `any` returns, as text (`function inputs() { return
/// [add(2, 2)]; }` -> `[add(2, 2)];`): its return statements' expressions, a concise arrow's body.
/// `skip`: a function left out (the unit being read).
/// Each test of a file asks this with itself left out: the file's functions are read once per
/// file text and grammar (per thread) and filtered per call, or the guard's time grew with tests
/// x file size (guard_bench: a Java file of 800 tests took 13.7 s in a Debug build).
std::map<std::string, std::string> function_returns(const Syntax& s, TSNode any, TSNode skip = TSNode{}) {
  TSNode root = any;
  while (!ts_node_is_null(tsnav::parent(root))) root = tsnav::parent(root);
  struct Cache {
    std::string src;
    const TSLanguage* language = nullptr;
    std::vector<FunctionReturn> functions;
  };
  thread_local Cache cache;
  const TSLanguage* language = ts_tree_language(root.tree);
  if (cache.language != language || cache.src != s.src) {
    cache.functions = all_function_returns(s, root);
    cache.src = s.src;
    cache.language = language;
  }
  std::map<std::string, std::string> out;
  const bool skipping = !ts_node_is_null(skip);
  for (const auto& f : cache.functions) {
    if (out.size() > 512) break;
    if (skipping && f.start == ts_node_start_byte(skip) && f.end == ts_node_end_byte(skip) && f.symbol == ts_node_symbol(skip)) continue;
    out.emplace(f.name, f.returned);
  }
  return out;
}

std::map<std::string, std::set<std::string>> returned_sources(const Syntax& s, TSNode root, const FileNames* names) {
  std::map<std::string, std::set<std::string>> out;
  // The file's top-level functions (`def f`, `function f`, `const f = (...) =>`, exported or
  // decorated), each read with its own locals.
  auto read = [&](const std::string& name, TSNode fn, TSNode body) {
    if (name.empty() || ts_node_is_null(body) || out.size() >= 512) return;
    std::vector<std::string> returned;
    if (Syntax::type(body) != "statement_block" && Syntax::type(body) != "block") {
      returned.push_back(s.text(body));  // a concise arrow body
    } else {
      std::function<void(TSNode, int)> find = [&](TSNode b, int d) {
        if (d > kMaxSyntaxDepth || returned.size() > 32) return;
        const std::string_view bt = Syntax::type(b);
        if (bt == "function_declaration" || bt == "function_definition" || bt == "arrow_function" || bt == "function_expression" || bt == "lambda")
          return;
        if (bt == "return_statement" && ts_node_named_child_count(b) > 0) returned.push_back(s.text(tsnav::named_child(b, 0)));
        for (uint32_t i = 0; i < ts_node_named_child_count(b); ++i) find(tsnav::named_child(b, i), d + 1);
      };
      find(body, 0);
    }
    if (returned.empty()) return;
    Definitions defs;
    collect_definitions(s, body, defs, 0);
    std::set<std::string> sources, seen;
    bool ambiguous = false;
    for (const auto& r : returned) leaves(r, defs, INT_MAX, seen, sources, ambiguous, 0);
    // Only what names something outside the function, by the module it comes from (`add` and
    // `@calc.add`): its parameters and locals (`a`, `total`) are no source a test could share.
    std::set<std::string> kept;
    if (names)
      for (const auto& src : sources)
        if (std::string c = names->canonical(src); !c.empty()) {
          kept.insert(src);
          kept.insert("@" + c);
        }
    kept.erase(name);
    (void)fn;
    if (!kept.empty()) out[name] = std::move(kept);
  };
  for (uint32_t i = 0; i < ts_node_named_child_count(root); ++i) {
    TSNode st = tsnav::named_child(root, i);
    for (int unwrap = 0; unwrap < 2; ++unwrap) {  // (`export ...`, `@decorator def ...`)
      const std::string_view t = Syntax::type(st);
      if (t != "export_statement" && t != "decorated_definition") break;
      TSNode inner = Syntax::field(st, t == "export_statement" ? "declaration" : "definition");
      if (ts_node_is_null(inner)) break;
      st = inner;
    }
    const std::string_view t = Syntax::type(st);
    if (t == "function_definition" || t == "function_declaration") {
      TSNode n = Syntax::field(st, "name");
      read(ts_node_is_null(n) ? std::string() : s.text(n), st, Syntax::field(st, "body"));
    } else if (t == "lexical_declaration" || t == "variable_declaration") {
      for (uint32_t k = 0; k < ts_node_named_child_count(st); ++k) {
        TSNode d = tsnav::named_child(st, k);
        if (Syntax::type(d) != "variable_declarator") continue;
        TSNode v = Syntax::field(d, "value"), n = Syntax::field(d, "name");
        if (ts_node_is_null(v) || ts_node_is_null(n) || Syntax::type(n) != "identifier") continue;
        if (Syntax::type(v) == "arrow_function" || Syntax::type(v) == "function_expression" || Syntax::type(v) == "function")
          read(s.text(n), v, Syntax::field(v, "body"));
      }
    } else if (t == "expression_statement" && ts_node_named_child_count(st) == 1) {
      // `exports.compute = (a, b) => ...`, `module.exports.compute = function (...) { ... }`
      TSNode e = tsnav::named_child(st, 0);
      if (Syntax::type(e) != "assignment_expression") continue;
      TSNode l = Syntax::field(e, "left"), v = Syntax::field(e, "right");
      if (ts_node_is_null(l) || ts_node_is_null(v) || Syntax::type(l) != "member_expression") continue;
      const std::string target = s.text(l);
      static const rx::regex exported(R"(^(?:module\.)?exports\.([A-Za-z_$][\w$]*)$)");
      rx::smatch m;
      if (rx::regex_match(target, m, exported) &&
          (Syntax::type(v) == "arrow_function" || Syntax::type(v) == "function_expression" || Syntax::type(v) == "function"))
        read(m[1].str(), v, Syntax::field(v, "body"));
    }
  }
  return out;
}

void resolve_operand_sources(const Syntax& s, TSNode unit, std::vector<Assertion>& asserts, const FileNames* file_names,
                             const ImportedDefs* imported) {
  const auto* imported_returns = imported && !imported->returns.empty() ? &imported->returns : nullptr;
  // The unit's parameters (a pytest test's fixtures), when conftest.py fixtures are known.
  std::set<std::string> params;
  if (imported && !imported->fixtures.empty())
    if (TSNode ps = Syntax::field(unit, "parameters"); !ts_node_is_null(ps))
      for (uint32_t i = 0; i < ts_node_named_child_count(ps); ++i)
        if (TSNode p = tsnav::named_child(ps, i); Syntax::type(p) == "identifier") params.insert(s.text(p));
  Definitions defs;
  collect_definitions(s, unit, defs, 0);
  // A method of a Python class: an attribute its `__init__` (or `setUp`) binds to a name, `self.fn =
  // add`, or to a parameter whose default is a name, `def __init__(self, fn=add): self.fn = fn`,
  // is read as that name (`self.fn(a, b)` computes with add; review 30 h09). (`self.` is no part of
  // a source: `self.fn` reads `fn`.)
  for (TSNode up = tsnav::parent(unit); !ts_node_is_null(up); up = tsnav::parent(up)) {
    if (Syntax::type(up) != "class_definition") continue;
    TSNode body = Syntax::field(up, "body");
    for (uint32_t i = 0; !ts_node_is_null(body) && i < ts_node_named_child_count(body); ++i) {
      TSNode f = tsnav::named_child(body, i);
      if (Syntax::type(f) == "decorated_definition") f = Syntax::field(f, "definition");
      if (ts_node_is_null(f) || Syntax::type(f) != "function_definition" || ts_node_eq(f, unit)) continue;
      const std::string name = s.text(Syntax::field(f, "name"));
      if (name != "__init__" && name != "setUp" && name != "setup_method") continue;
      const std::string text = s.text(f);
      const auto defaults = definition_param_defaults(text, name, Lang::python);
      const auto init_params = definition_params(text, name, Lang::python);
      static const rx::regex bound(R"((?:^|\n)[ \t]+self\s*\.\s*([A-Za-z_]\w*)\s*=\s*([A-Za-z_][\w.]*)[ \t]*(?=\n|$))");
      for (rx::sregex_iterator m(text.begin(), text.end(), bound), e; m != e; ++m) {
        std::string value = (*m)[2].str();
        if (std::find(init_params.begin(), init_params.end(), value) != init_params.end()) {
          const auto d = defaults.find(value);
          if (d == defaults.end() || d->second.empty() || !(std::isalpha(static_cast<unsigned char>(d->second[0])) || d->second[0] == '_') ||
              d->second == "None")
            continue;
          value = d->second;
        }
        if (value != (*m)[1].str() && !defs.count((*m)[1].str())) defs[(*m)[1].str()].push_back({0, value});
      }
    }
    break;
  }
  // A name the file declares at its top level and assigns once in all of it, outside this unit
  // too (`let s;` ... `beforeEach(() => { s = new Store(); })`, a module-level `calc = Calc()`):
  // the unit sees that value wherever it does not bind the name itself.
  {
    TSNode root = unit;
    while (!ts_node_is_null(tsnav::parent(root))) root = tsnav::parent(root);
    std::set<std::string> top;
    for (uint32_t i = 0; i < ts_node_named_child_count(root); ++i) {
      TSNode st = tsnav::named_child(root, i);
      const std::string_view t = Syntax::type(st);
      if (t == "lexical_declaration" || t == "variable_declaration") {
        for (uint32_t k = 0; k < ts_node_named_child_count(st); ++k)
          if (TSNode d = tsnav::named_child(st, k); Syntax::type(d) == "variable_declarator")
            if (TSNode nm = Syntax::field(d, "name"); !ts_node_is_null(nm) && Syntax::type(nm) == "identifier") top.insert(s.text(nm));
      } else if (t == "expression_statement" && ts_node_named_child_count(st) == 1) {
        TSNode a = tsnav::named_child(st, 0);
        if (Syntax::type(a) == "assignment")
          if (TSNode l = Syntax::field(a, "left"); !ts_node_is_null(l) && Syntax::type(l) == "identifier") top.insert(s.text(l));
      }
    }
    // (Only names the checks look at: the file is walked again for a unit that needs one.)
    std::erase_if(top, [&](const std::string& name) {
      if (defs.count(name)) return true;
      for (const auto& x : asserts)
        for (const auto& o : x.operands)
          for (const auto& chain : chains(o))
            if (!chain.empty() && chain.front() == name) return false;
      return true;
    });
    if (!top.empty()) {
      Definitions file_defs;
      collect_definitions(s, root, file_defs, 0);
      // (A module the file binds is its imports' business: `const calc = require('./calc')`.)
      static const rx::regex module_value(R"(^\s*(?:await\s+)?(?:require|import|(?:importlib\s*\.\s*)?import_module|__import__)\s*\()");
      for (const auto& name : top)
        if (auto it = file_defs.find(name); it != file_defs.end() && it->second.size() == 1 &&
                                            !(file_names && file_names->imported.count(name)) &&
                                            !rx::regex_search(it->second.front().value, module_value))
          defs[name].push_back({0, it->second.front().value});
    }
  }
  ModuleValues modules;
  for (const auto& [name, ds] : defs) {
    if (ds.size() != 1) continue;
    static const rx::regex import_call(R"(^\s*(?:importlib\s*\.\s*)?(?:import_module|__import__)\s*\(\s*(?:(['"])([\w.]+)\1|(\w+))\s*\)\s*$)");
    rx::smatch m;
    if (!rx::regex_match(ds.front().value, m, import_call)) continue;
    if (m[2].matched) modules[name].insert(m[2].str());
    // A parameter the test rebinds is not what the parametrization passes.
    else if (!defs.count(m[3].str()))
      if (auto values = parametrized_strings(s, unit, m[3].str()); !values.empty()) modules[name] = std::move(values);
  }
  // The file's own functions, found on first use: name -> the expressions they return.
  std::optional<std::map<std::string, std::string>> file_functions;
  const FileReturns returns = [&](const std::string& name) -> std::string {
    if (!file_functions) file_functions = function_returns(s, unit, unit);
    auto it = file_functions->find(name);
    return it == file_functions->end() ? std::string{} : it->second;
  };
  for (auto& a : asserts) {
    bool ambiguous = false, all_constant = !a.operands.empty();
    for (const auto& o : a.operands) {
      if (o.empty() || o.front() == '<') {  // <fail>, <panic>
        all_constant = false;
        continue;
      }
      std::set<std::string> seen;
      leaves(o, defs, a.line, seen, a.sources, ambiguous, 0, &modules, &returns);
      // `got := Add(2, 2)` ... `got = 4` ... `if got != 4`: the value computed was overwritten by a
      // constant before the check (in any branch).
      const auto names = chains(o);
      for (const auto& chain : names) {
        const auto it = defs.find(chain.front());
        if (it == defs.end()) continue;
        int first = INT_MAX;
        for (const auto& d : it->second)
          if (d.line <= a.line) first = std::min(first, d.line);
        for (const auto& d : it->second)
          if (d.line <= a.line && d.line != first && constant(d.value)) a.overwritten = true;
      }
      // `got = 4` (the last value before the check): the operand is a constant.
      if (!constant(o)) {
        bool amb = false;
        const Definition* d = names.size() == 1 && names.front().size() == 1 ? visible(defs, o, a.line, amb) : nullptr;
        if (!d || amb || !constant(d->value)) all_constant = false;
      }
    }
    // A value reassigned or assigned in branches before the check: what it holds is not known, so
    // the check is not credited through it.
    if (ambiguous) a.sources.clear();
    // A parameter of a parametrize table's column of functions (`fn(a, b) == want` with `fn` taking
    // `add`, then `sub`): each of them is looked at.
    for (const auto& src : std::set<std::string>(a.sources))
      if (src.find('.') == std::string::npos && !defs.count(src))
        for (auto& n : parametrized_names(s, unit, src)) a.sources.insert(std::move(n));
    // Also by module: `add(2, 2)` with `from calc import add` and `calc.add(2, 2)` with `import calc`
    // look at the same function.
    if (file_names)
      for (const auto& src : std::set<std::string>(a.sources))
        if (std::string c = file_names->canonical(src); !c.empty()) a.sources.insert("@" + c);
    // A function of a test-side module the file imports: what it returns is what the check looks
    // at too, as that module names it (`from tests.core import compute` ... `compute(a, b)` with
    // `def compute(a, b): return add(a, b)` there), as a function of this file's is.
    if (imported_returns && file_names)
      for (const auto& src : std::set<std::string>(a.sources)) {
        const auto dot = src.find('.');
        const std::string head = src.substr(0, dot);
        const bool through_module = dot != std::string::npos && src.find('.', dot + 1) == std::string::npos && file_names->module_bindings.count(head);
        if (!file_names->imported.count(head) || (dot != std::string::npos && !through_module) || (!through_module && file_names->module_bindings.count(head)))
          continue;
        if (auto r = imported_returns->find(through_module ? src.substr(dot + 1) : src); r != imported_returns->end())
          a.sources.insert(r->second.begin(), r->second.end());
      }
    // A fixture of a conftest.py the test takes as a parameter (`def test_add(adder)` ...
    // `adder(2, 2)` with `def adder(): return add`): what it returns.
    for (const auto& src : std::set<std::string>(a.sources))
      if (params.count(src) && !defs.count(src))
        if (auto r = imported->fixtures.find(src); r != imported->fixtures.end()) a.sources.insert(r->second.begin(), r->second.end());
    // Every operand a constant, or two operands computed the same way (`got = add(2, 2); want =
    // add(2, 2); assert got == want`): the check cannot fail.
    if (all_constant && a.kind != Kind::throws_specific && a.kind != Kind::throws_broad) a.tautology = true;
    a.expanded.clear();
    for (const auto& o : a.operands)
      if (!a.expanded.insert(expand(o, defs, a.line, 0)).second && a.operands.size() >= 2 && (a.kind == Kind::eq || a.kind == Kind::approx))
        a.tautology = true;
    // What each name its operands start from holds here: its last definition before the check, a
    // name it is bound to (`r = r`, `same = got; got = same`) followed back to that name's own.
    a.bound.clear();
    std::set<std::string> roots;
    for (const auto& o : a.operands)
      for (const auto& chain : chains(o))
        if (!chain.empty() && defs.count(chain.front())) roots.insert(chain.front());
    for (const auto& root : roots) {
      std::string name = root, value;
      int before = a.line;
      for (int hop = 0; hop < 4; ++hop) {
        const Definition* last = nullptr;
        if (const auto it = defs.find(name); it != defs.end())
          for (const auto& d : it->second)
            if (d.line < before && (!last || d.line >= last->line)) last = &d;
        if (!last) break;
        value = strip_spaces(last->value);
        if (!is_plain_name(value) || value == name) break;
        name = value;
        before = last->line + 1;
      }
      a.bound += root + "=" + value + ";";
    }
  }
}

}  // namespace flowagent::integrity
