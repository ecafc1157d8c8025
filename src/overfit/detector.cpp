// The overfitting detector: tree-sitter rules over the production files of a candidate patch.
#include <tree_sitter/api.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <map>
#include <set>

#include "core/regex.hpp"
#include "flowagent/overfit.hpp"
#include "core/deep_stack.hpp"
#include "integrity/ts_nav.hpp"

extern "C" {
const TSLanguage* tree_sitter_python();
const TSLanguage* tree_sitter_cpp();
const TSLanguage* tree_sitter_javascript();
const TSLanguage* tree_sitter_typescript();
}

namespace flowagent {

// The rules' helpers live in a named namespace: in a unity build (the CI presets) an anonymous
// namespace is shared with the other files of the batch, and `Lang`/`lang_of` exist in integrity too.
namespace overfit_detail {
namespace tsnav = integrity::tsnav;
namespace {

enum class Lang { none, python, cpp, javascript, typescript };

bool ends_with(std::string_view s, std::string_view x) { return s.size() >= x.size() && s.substr(s.size() - x.size()) == x; }
bool starts_with(std::string_view s, std::string_view x) { return s.substr(0, x.size()) == x; }
bool contains(std::string_view s, std::string_view x) { return s.find(x) != std::string_view::npos; }

Lang lang_of(std::string_view path) {
  static const std::pair<std::string_view, Lang> kExt[] = {
      {".py", Lang::python},      {".cc", Lang::cpp},         {".cpp", Lang::cpp},         {".cxx", Lang::cpp},
      {".h", Lang::cpp},          {".hpp", Lang::cpp},        {".hh", Lang::cpp},          {".js", Lang::javascript},
      {".jsx", Lang::javascript}, {".mjs", Lang::javascript}, {".cjs", Lang::javascript},  {".ts", Lang::typescript},
      {".mts", Lang::typescript}};
  for (auto [ext, l] : kExt)
    if (ends_with(path, ext)) return l;
  return Lang::none;
}

const TSLanguage* ts_language(Lang l) {
  switch (l) {
    case Lang::python: return tree_sitter_python();
    case Lang::cpp: return tree_sitter_cpp();
    case Lang::javascript: return tree_sitter_javascript();
    case Lang::typescript: return tree_sitter_typescript();
    case Lang::none: return nullptr;
  }
  return nullptr;
}

std::string trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  auto e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::size_t p = 0;
  while (p < s.size()) {
    auto e = s.find('\n', p);
    out.push_back(s.substr(p, e == std::string::npos ? std::string::npos : e - p));
    p = e == std::string::npos ? s.size() : e + 1;
  }
  return out;
}

/// 1-based line numbers of `after` not matched by a line of `before` (multiset match).
std::set<int> added_line_numbers(const std::optional<std::string>& before, const std::string& after) {
  std::multiset<std::string> old;
  if (before)
    for (auto& l : split_lines(*before)) old.insert(trim(l));
  std::set<int> out;
  int n = 0;
  for (auto& l : split_lines(after)) {
    ++n;
    auto it = old.find(trim(l));
    if (it != old.end()) old.erase(it);
    else out.insert(n);
  }
  return out;
}

/// Lines of `a` (trimmed, non-empty) with no counterpart in `b`.
std::vector<std::pair<int, std::string>> unmatched_lines(const std::optional<std::string>& a, const std::optional<std::string>& b) {
  std::vector<std::pair<int, std::string>> out;
  if (!a) return out;
  std::multiset<std::string> other;
  if (b)
    for (auto& l : split_lines(*b)) other.insert(trim(l));
  int n = 0;
  for (auto& l : split_lines(*a)) {
    ++n;
    auto t = trim(l);
    if (t.empty()) continue;
    auto it = other.find(t);
    if (it != other.end()) other.erase(it);
    else out.emplace_back(n, t);
  }
  return out;
}

// ---- tree-sitter helpers ------------------------------------------------------------------------

/// Parses `s`; owns the tree and its navigation cache (integrity/ts_nav.hpp).
TSTree* parse_tree(Lang lang, const std::string& s) {
  const TSLanguage* language = ts_language(lang);
  if (!language) return nullptr;
  TSParser* parser = ts_parser_new();
  TSTree* tree = nullptr;
  if (ts_parser_set_language(parser, language))
    tree = ts_parser_parse_string(parser, nullptr, s.data(), static_cast<uint32_t>(s.size()));
  ts_parser_delete(parser);
  return tree;
}

struct Tree {
  tsnav::OwnedTree owned;
  TSTree* tree = nullptr;
  const std::string* src = nullptr;
  Tree(Lang lang, const std::string& s) : owned(parse_tree(lang, s)), tree(owned.get()), src(&s) {}
  TSNode root() const { return ts_tree_root_node(tree); }
  std::string text(TSNode n) const { return src->substr(ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n)); }
};

std::string_view type(TSNode n) { return ts_node_type(n); }
int line(TSNode n) { return static_cast<int>(ts_node_start_point(n).row) + 1; }
TSNode field(TSNode n, const char* name) { return ts_node_child_by_field_name(n, name, static_cast<uint32_t>(std::strlen(name))); }

void walk(TSNode n, const std::function<void(TSNode)>& f) {
  f(n);
  for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) walk(tsnav::named_child(n, i), f);
}

bool is_string(std::string_view t) {
  return t == "string" || t == "string_literal" || t == "raw_string_literal" || t == "template_string" || t == "char_literal";
}
bool is_number(std::string_view t) { return t == "integer" || t == "float" || t == "number" || t == "number_literal"; }

/// A literal's value as a test and production code would both spell it.
std::string literal_value(std::string_view t, std::string s) {
  if (is_number(t)) {
    s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
    s.erase(std::remove(s.begin(), s.end(), '\''), s.end());
    while (!s.empty() && std::strchr("uUlLfF", s.back()) && !(s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))
      s.pop_back();
    return s;
  }
  std::size_t b = 0;
  while (b < s.size() && std::strchr("rRbBfFuUL8", s[b])) ++b;  // prefixes: r"", b'', u8"", L""
  if (s.compare(b, 2, "R\"") == 0) ++b;
  s = s.substr(b);
  for (std::string_view q : {"\"\"\"", "'''", "\"", "'", "`"})
    if (s.size() >= 2 * q.size() && starts_with(s, q) && ends_with(s, q)) return s.substr(q.size(), s.size() - 2 * q.size());
  return s;
}

bool trivial(std::string_view t, const std::string& v) {
  if (is_number(t)) return v == "0" || v == "1" || v == "2" || v == "-1" || v == "0.0" || v == "1.0";
  return v.size() < 2;
}

/// Non-trivial literals inside a node (negative numbers keep their sign).
/// The value of the literal node `c` (a string or number), a leading minus included; "" when it
/// is trivial.
std::string literal_of(const Tree& tree, TSNode c) {
  const auto t = type(c);
  std::string v = literal_value(t, tree.text(c));
  TSNode p = tsnav::parent(c);
  if (is_number(t) && !ts_node_is_null(p) && (type(p) == "unary_expression" || type(p) == "unary_operator") &&
      starts_with(trim(tree.text(p)), "-"))
    v = "-" + v;
  return trivial(t, v) ? std::string() : v;
}

std::vector<std::string> literals_in(const Tree& tree, TSNode n) {
  std::vector<std::string> out;
  walk(n, [&](TSNode c) {
    auto t = type(c);
    if (!is_string(t) && !is_number(t)) return;
    if (std::string v = literal_of(tree, c); !v.empty()) out.push_back(std::move(v));
  });
  return out;
}

/// The literals of a condition that it compares the code's values with: not a key it reads
/// (`self.config["TRUSTED_HOSTS"]`, `os.environ["CI"]`), nor a side of a comparison of the
/// environment (`sys.version_info >= (3, 11)`, `sys.platform == "win32"`): a test that uses `3` or
/// the key's name is not special-cased by them (flask fbb6f0b, 4f7156f).
std::vector<std::string> compared_literals_in(const Tree& tree, TSNode cond) {
  std::vector<std::string> out;
  static const rx::regex environment(R"(\bsys\s*\.\s*(?:version_info|platform|version|implementation)|\bos\s*\.\s*name\b|\bplatform\s*\.|__version__|\bprocess\s*\.\s*(?:platform|version|versions|arch)\b|\bruntime\s*\.\s*GO(?:OS|ARCH)\b)");
  walk(cond, [&](TSNode c) {
    auto t = type(c);
    if (!is_string(t) && !is_number(t)) return;
    for (TSNode p = tsnav::parent(c); !ts_node_is_null(p); p = tsnav::parent(p)) {
      const auto pt = type(p);
      if (pt == "subscript" || pt == "subscript_expression" || pt == "element_reference" || pt == "index_expression") return;
      if (pt == "comparison_operator" || pt == "binary_expression") {
        if (rx::regex_search(tree.text(p), environment)) return;
        break;
      }
      if (ts_node_eq(p, cond)) break;
    }
    if (std::string v = literal_of(tree, c); !v.empty()) out.push_back(std::move(v));
  });
  return out;
}

struct Function {
  std::string name;
  int line = 0;
  TSNode node{};
  TSNode body{};
};

std::string declarator_name(const Tree& tree, TSNode d) {
  // C++: function_definition -> declarator (function_declarator, pointer/reference declarators) -> declarator
  for (int guard = 0; guard < 8 && !ts_node_is_null(d); ++guard) {
    auto t = type(d);
    if (t == "identifier" || t == "field_identifier" || t == "qualified_identifier" || t == "destructor_name" ||
        t == "operator_name")
      return tree.text(d);
    TSNode inner = field(d, "declarator");
    if (ts_node_is_null(inner)) break;
    d = inner;
  }
  return {};
}

std::vector<Function> functions(const Tree& tree, Lang lang) {
  std::vector<Function> out;
  walk(tree.root(), [&](TSNode n) {
    auto t = type(n);
    Function f;
    f.node = n;
    f.line = line(n);
    if (t == "function_definition" && lang == Lang::python) {
      f.name = tree.text(field(n, "name"));
      f.body = field(n, "body");
    } else if (t == "function_definition" && lang == Lang::cpp) {
      f.name = declarator_name(tree, field(n, "declarator"));
      f.body = field(n, "body");
    } else if (t == "function_declaration" || t == "method_definition" || t == "generator_function_declaration") {
      f.name = tree.text(field(n, "name"));
      f.body = field(n, "body");
    } else if (t == "variable_declarator") {
      TSNode v = field(n, "value");
      if (ts_node_is_null(v) || (type(v) != "arrow_function" && type(v) != "function_expression" && type(v) != "function")) return;
      f.name = tree.text(field(n, "name"));
      f.body = field(v, "body");
    } else {
      return;
    }
    if (!f.name.empty() && !ts_node_is_null(f.body)) out.push_back(f);
  });
  return out;
}

/// The statements of a body, comments and docstrings left out.
std::vector<TSNode> statements(const Tree& tree, TSNode body) {
  std::vector<TSNode> out;
  if (ts_node_is_null(body)) return out;
  auto bt = type(body);
  if (bt != "block" && bt != "statement_block" && bt != "compound_statement") {
    out.push_back(body);  // an arrow function's expression body
    return out;
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(body); ++i) {
    TSNode c = tsnav::named_child(body, i);
    auto t = type(c);
    if (t == "comment") continue;
    if (t == "expression_statement" && ts_node_named_child_count(c) == 1 && type(tsnav::named_child(c, 0)) == "string" &&
        out.empty())
      continue;  // docstring
    out.push_back(c);
  }
  (void)tree;
  return out;
}

bool constant_expression(const std::string& e0) {
  std::string e;
  for (char c : e0)
    if (!std::isspace(static_cast<unsigned char>(c)) && c != '(' && c != ')') e += c;
  static const std::set<std::string, std::less<>> kConst = {"", "None", "null", "nullptr", "undefined", "True", "False",
                                                            "true", "false", "{}", "[]", "0", "-1", "1", "''", "\"\"",
                                                            "NULL", "std::nullopt", "{}"};
  if (kConst.count(e)) return true;
  // a single literal
  return (e.size() >= 2 && (e.front() == '"' || e.front() == '\'' || e.front() == '`') && e.back() == e.front()) ||
         (!e.empty() && std::all_of(e.begin(), e.end(), [](unsigned char c) { return std::isdigit(c) || c == '.' || c == '-'; }));
}

/// A handler statement that does no work: pass, empty, return of a constant, continue, logging.
bool trivial_statement(const Tree& tree, TSNode s) {
  auto t = type(s);
  if (t == "pass_statement" || t == "empty_statement" || t == "continue_statement" || t == "break_statement" ||
      t == "comment")
    return true;
  const std::string text = tree.text(s);
  if (t == "return_statement") {
    std::string e = trim(text.substr(6));
    if (!e.empty() && e.back() == ';') e.pop_back();
    return constant_expression(e);
  }
  if (t == "expression_statement") {
    std::string e = trim(text);
    if (e == "..." || e == "...;") return true;
    static constexpr std::string_view kLog[] = {"print(", "console.", "logging.", "logger.", "log.", "LOG(",
                                                "std::cerr", "std::cout", "fprintf(", "printf(", "puts(", "warnings.warn("};
    return std::any_of(std::begin(kLog), std::end(kLog), [&](auto k) { return starts_with(e, k); });
  }
  return false;
}

/// A handler that names a specific exception type (`except KeyError:`, `catch (const
/// std::out_of_range&)`) handles a known condition: returning a default there is a fix, not a
/// swallowed failure. Broad handlers (bare `except`, `Exception`/`BaseException`, `catch (...)`,
/// `std::exception`, JavaScript's untyped `catch`) are the ones that can hide any failure.
bool broad_handler(const Tree& tree, TSNode handler) {
  const std::string text = tree.text(handler);
  const auto t = type(handler);
  // The handler's head: Python's ends at ':', a brace language's at '{' ("std::" holds colons).
  const auto head_end = text.find(t == "except_clause" ? ':' : '{');
  std::string head = trim(text.substr(0, head_end == std::string::npos ? text.size() : head_end));
  if (t == "except_clause") {
    std::string rest = trim(head.substr(std::min<std::size_t>(6, head.size())));  // after "except"
    if (const auto as = rest.find(" as "); as != std::string::npos) rest = trim(rest.substr(0, as));
    if (rest.empty()) return true;
    for (std::string_view broad : {"Exception", "BaseException", "(Exception", "(BaseException"})
      if (starts_with(rest, broad)) return true;
    return false;
  }
  if (t == "catch_clause") {
    if (contains(head, "...") || contains(head, "std::exception") || contains(head, "exception&") ||
        contains(head, "Throwable") || contains(head, "(Exception"))
      return true;
    // A C++ or Java handler with a declared type names what it handles; JavaScript's never does.
    const auto open = head.find('(');
    if (open == std::string::npos) return true;  // `catch {` (JS optional binding)
    std::string param = trim(head.substr(open + 1));
    if (!param.empty() && param.back() == ')') param.pop_back();
    return trim(param).find_first_of(" &*") == std::string::npos;  // a bare name: JS `catch (e)`
  }
  return true;
}

bool raises(const Tree& tree, TSNode n) {
  bool found = false;
  walk(n, [&](TSNode c) {
    auto t = type(c);
    if (t == "raise_statement" || t == "throw_statement" || t == "throw_expression") found = true;
    (void)tree;
  });
  return found;
}

std::size_t body_hash(const Tree& tree, TSNode body) {
  std::string s = tree.text(body);
  s.erase(std::remove_if(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); }), s.end());
  return std::hash<std::string>{}(s);
}

/// Candidate spellings of a test's own name in its source ("tests/x.py::test_a" -> test_a,
/// "Suite.Name" -> Name, "file.test.js > adds two" -> adds two).
std::vector<std::string> name_candidates(const std::string& id) {
  std::set<std::string> out{id};
  for (std::string_view sep : {"::", " › ", " > ", ">", ".", "/", "#", " "}) {
    auto p = id.rfind(sep);
    if (p != std::string::npos) out.insert(trim(id.substr(p + sep.size())));
  }
  // pytest parametrization: test_a[1-2]
  for (auto s : std::vector<std::string>(out.begin(), out.end()))
    if (auto b = s.find('['); b != std::string::npos) out.insert(s.substr(0, b));
  std::vector<std::string> v;
  for (auto& s : out)
    if (s.size() >= 3) v.push_back(s);
  return v;
}

/// The nodes defining the failing tests in a test file: functions, TEST() macros, it()/test() calls
/// whose first line names the test.
std::vector<TSNode> test_nodes(const Tree& tree, const std::vector<std::string>& names) {
  std::vector<TSNode> out;
  walk(tree.root(), [&](TSNode n) {
    auto t = type(n);
    if (t != "function_definition" && t != "function_declaration" && t != "method_definition" && t != "call_expression" &&
        t != "decorated_definition")
      return;
    std::string head = tree.text(n);
    head = head.substr(0, head.find('\n'));
    for (const auto& nm : names) {
      auto p = head.find(nm);
      if (p == std::string::npos) continue;
      // whole-word match for identifiers
      auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
      if ((p > 0 && word(head[p - 1]) && word(nm.front())) ||
          (p + nm.size() < head.size() && word(head[p + nm.size()]) && word(nm.back())))
        continue;
      out.push_back(n);
      return;
    }
  });
  return out;
}

struct TestFacts {
  std::set<std::string> literals;
  std::string text;  // every test source, for "does a test name this function"
};

TestFacts test_facts(const OverfitInput& in) {
  TestFacts f;
  std::vector<std::string> names;
  for (const auto& id : in.failing_tests)
    for (auto& c : name_candidates(id)) names.push_back(c);
  for (const auto& src : in.test_sources) {
    if (!src.after) continue;
    f.text += *src.after;
    f.text += "\n";
    const Lang lang = lang_of(src.path);
    if (lang == Lang::none) continue;
    Tree tree(lang, *src.after);
    if (!tree.tree) continue;
    for (TSNode n : test_nodes(tree, names))
      for (auto& l : literals_in(tree, n)) f.literals.insert(l);
  }
  return f;
}

/// A function's name as a rename or a move keeps it: leading and trailing underscores dropped,
/// lower case (`safecall` -> `_safecall`, `populate_function_table` -> a method
/// `_populate_function_table`).
std::string normalized_name(std::string name) {
  if (const auto cut = name.rfind("::"); cut != std::string::npos) name = name.substr(cut + 2);
  if (const auto cut = name.rfind('.'); cut != std::string::npos) name = name.substr(cut + 1);
  while (!name.empty() && name.front() == '_') name.erase(0, 1);
  while (!name.empty() && name.back() == '_') name.pop_back();
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

/// The identifiers and other tokens of a function's body, as a set: bodies compared by what they
/// are made of (a docstring edited, a line added, a parameter renamed leave most of it).
std::set<std::string> body_tokens(const Tree& tree, TSNode body) {
  std::set<std::string> out;
  const std::string text = tree.text(body);
  std::string cur;
  for (char ch : text) {
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') {
      cur += ch;
      continue;
    }
    if (!cur.empty()) out.insert(std::move(cur)), cur.clear();
    if (!std::isspace(static_cast<unsigned char>(ch))) out.insert(std::string(1, ch));
  }
  if (!cur.empty()) out.insert(cur);
  return out;
}

/// The production files of the patch read together, for a function one file loses: the functions
/// of every file after the patch (by normalized name, and their bodies' tokens) and the files'
/// text before and after.
struct PatchFunctions {
  std::set<std::string> names_after;
  std::vector<std::set<std::string>> bodies_after;
  std::string before_text, after_text;
};

class FileRules {
 public:
  FileRules(const FileVersions& f, Lang lang, const TestFacts& facts, std::vector<OverfitFinding>& out,
            const PatchFunctions* patch = nullptr)
      : f_(f), lang_(lang), facts_(facts), out_(out), patch_(patch) {}

  void run() {
    if (f_.after) added_ = added_line_numbers(f_.before, *f_.after);
    if (lang_ != Lang::none) syntactic();
    textual();
  }

 private:
  void add(std::string rule, int line_no, std::string message) {
    for (const auto& o : out_)
      if (o.rule == rule && o.path == f_.path && o.line == line_no) return;
    out_.push_back({std::move(rule), f_.path, line_no, std::move(message)});
  }
  /// The condition of an if/elif/while/ternary, the value of a case, the pattern of a match case.
  TSNode decision(TSNode n) const {
    const auto nt = type(n);
    TSNode cond{};
    if (nt == "if_statement" || nt == "elif_clause" || nt == "while_statement" || nt == "conditional_expression" ||
        nt == "ternary_expression") {
      cond = field(n, "condition");
      if (ts_node_is_null(cond) && nt == "conditional_expression" && lang_ == Lang::python && ts_node_named_child_count(n) >= 2)
        cond = tsnav::named_child(n, 1);  // a if COND else b
    } else if (nt == "switch_case" || nt == "case_statement") {
      cond = field(n, "value");
    } else if (nt == "case_clause" && lang_ == Lang::python && ts_node_named_child_count(n) > 0) {
      cond = tsnav::named_child(n, 0);
    }
    return cond;
  }
  bool is_new(TSNode n) const { return added_.count(line(n)) > 0; }

  std::optional<std::string> test_literal(const std::vector<std::string>& lits) const {
    for (const auto& l : lits)
      if (facts_.literals.count(l)) return l;
    return std::nullopt;
  }

  void syntactic() {
    std::optional<Tree> before_tree, after_tree;
    if (f_.before) before_tree.emplace(lang_, *f_.before);
    if (f_.after) after_tree.emplace(lang_, *f_.after);
    if ((before_tree && !before_tree->tree) || (after_tree && !after_tree->tree)) return;

    // Literals the before version already compared with or returned: not new special cases.
    std::set<std::string> old_literals;
    if (before_tree)
      walk(before_tree->root(), [&](TSNode n) {
        TSNode c = decision(n);
        if (!ts_node_is_null(c))
          for (auto& l : literals_in(*before_tree, c)) old_literals.insert(l);
        if (type(n) == "return_statement")
          for (auto& l : literals_in(*before_tree, n)) old_literals.insert(l);
      });

    if (after_tree) {
      const Tree& t = *after_tree;
      walk(t.root(), [&](TSNode n) {
        const auto nt = type(n);
        // conditions
        const TSNode cond = decision(n);
        const bool is_if = nt != "while_statement";
        if (!ts_node_is_null(cond) && is_new(n)) {
          std::vector<std::string> lits;
          for (auto& l : compared_literals_in(t, cond))
            if (!old_literals.count(l)) lits.push_back(l);
          if (auto lit = test_literal(lits))
            add("special_cased_test_value", line(n),
                "a new condition `" + trim(t.text(cond)).substr(0, 80) + "` singles out " + quoted(*lit) +
                    ", a value from the failing test, instead of fixing the general case");
          std::string c = trim(t.text(cond));
          std::string bare;
          for (char ch : c)
            if (!std::isspace(static_cast<unsigned char>(ch)) && ch != '(' && ch != ')') bare += ch;
          static const std::set<std::string, std::less<>> kFalse = {"False", "false", "0", "None", "null", "undefined",
                                                                     "nullptr"};
          static const std::set<std::string, std::less<>> kTrue = {"True", "true", "1"};
          if (kFalse.count(bare) || (is_if && kTrue.count(bare)) || contains(c, "and False") || contains(bare, "&&false") ||
              contains(c, "or True") || contains(bare, "||true") || contains(bare, "false&&") || starts_with(c, "False and") ||
              contains(bare, "true||") || starts_with(c, "True or"))
            add("check_disabled", line(n), "a new condition `" + c.substr(0, 80) + "` is constant, so a branch never (or always) runs");
        }
        // returns of a test's expected value
        if (nt == "return_statement" && is_new(n) && ts_node_named_child_count(n) >= 1) {
          TSNode v = tsnav::named_child(n, 0);
          while (type(v) == "parenthesized_expression" && ts_node_named_child_count(v) == 1) v = tsnav::named_child(v, 0);
          TSNode num = v;
          if ((type(v) == "unary_expression" || type(v) == "unary_operator") && ts_node_named_child_count(v) == 1)
            num = tsnav::named_child(v, 0);
          if (is_string(type(num)) || is_number(type(num))) {
            auto lits = literals_in(t, v);
            if (auto lit = test_literal(lits); lit && !old_literals.count(*lit))
              add("hardcoded_expected_output", line(n),
                  "returns the constant " + quoted(*lit) + ", the value the failing test expects, instead of computing it");
          }
        }
        // handlers that swallow
        if ((nt == "except_clause" || nt == "catch_clause") && is_new(n)) {
          TSNode body = field(n, "body");
          if (ts_node_is_null(body))
            for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
              if (type(tsnav::named_child(n, i)) == "block") body = tsnav::named_child(n, i);
          auto st = statements(t, body);
          if (!ts_node_is_null(body) && !raises(t, body) && broad_handler(t, n) &&
              std::all_of(st.begin(), st.end(), [&](TSNode s) { return trivial_statement(t, s); }))
            add("exception_swallowed", line(n),
                "a new handler `" + trim(t.text(n)).substr(0, trim(t.text(n)).find('\n')).substr(0, 60) +
                    "` discards the exception instead of handling or propagating it");
        }
      });
    }

    // functions removed, stubbed, or returning early
    std::map<std::string, std::pair<const Tree*, Function>> before_fns, after_fns;
    std::set<std::size_t> after_hashes;
    if (before_tree)
      for (auto& fn : functions(*before_tree, lang_)) before_fns.emplace(fn.name, std::make_pair(&*before_tree, fn));
    if (after_tree)
      for (auto& fn : functions(*after_tree, lang_)) {
        after_fns.emplace(fn.name, std::make_pair(&*after_tree, fn));
        after_hashes.insert(body_hash(*after_tree, fn.body));
      }
    for (const auto& [name, bf] : before_fns) {
      const auto& [bt, fn] = bf;
      const std::string short_name = name.substr(name.rfind("::") == std::string::npos ? 0 : name.rfind("::") + 2);
      const bool tests_name_it = word_in(facts_.text, short_name);
      auto bst = statements(*bt, fn.body);
      auto it = after_fns.find(name);
      if (it == after_fns.end()) {
        if (!f_.after || after_hashes.count(body_hash(*bt, fn.body)) || tests_name_it) continue;  // renamed / covered
        // (Renamed or moved, in this file or another of the patch: a function of its name, or one
        // made of nearly the same tokens; still named after the patch (a deprecation shim's
        // `__getattr__`); a private helper or override nothing else named. Real fixes rename,
        // move and retire functions: jmespath 6ccaed4, click 7a0a344, flask c17f379.)
        if (patch_) {
          if (patch_->names_after.count(normalized_name(short_name))) continue;
          const auto mine = body_tokens(*bt, fn.body);
          if (mine.size() >= 8 && std::any_of(patch_->bodies_after.begin(), patch_->bodies_after.end(), [&](const std::set<std::string>& other) {
                std::size_t shared = 0;
                for (const auto& x : mine) shared += other.count(x);
                return 10 * shared >= 7 * std::max(mine.size(), other.size());
              }))
            continue;
          // (A private helper or an override, `_x`/`__getitem__`, nothing else named: the class's
          // or module's own business. A public function is API: its callers may be elsewhere.)
          const bool named_elsewhere = word_count(patch_->before_text, short_name) > 1 + word_count(bt->text(fn.body), short_name);
          if ((!short_name.empty() && short_name.front() == '_' && !named_elsewhere) || word_in(patch_->after_text, short_name)) continue;
        }
        add("functionality_removed", fn.line,
            "function " + name + " was deleted; no failing test exercises it, so the tests cannot tell it is missing");
        continue;
      }
      const auto& [at, afn] = it->second;
      auto ast = statements(*at, afn.body);
      if (bst.size() >= 2 && ast.size() <= 1 && body_hash(*bt, fn.body) != body_hash(*at, afn.body) &&
          (ast.empty() || trivial_statement(*at, ast[0]) || passthrough(*at, ast[0]) ||
           type(ast[0]) == "raise_statement" || type(ast[0]) == "throw_statement") &&
          !tests_name_it) {
        add("functionality_removed", afn.line, "the body of " + name + " was replaced by a stub");
        continue;
      }
      // (line matching cannot tell which `return` is new when the function already ends in the same one)
      if (ast.size() >= 2 && type(ast[0]) == "return_statement" &&
          (bst.empty() || type(bst[0]) != "return_statement"))
        add("check_disabled", line(ast[0]),
            "an unconditional return at the top of " + name + " skips the rest of the function");
    }
  }

  /// `return x` of a bare name: the function hands its input back untouched.
  static bool passthrough(const Tree&, TSNode s) {
    if (type(s) != "return_statement" || ts_node_named_child_count(s) != 1) return false;
    return type(tsnav::named_child(s, 0)) == "identifier";
  }

  /// How many times `w` stands in `text` as a whole word (counting stops at `limit`).
  static std::size_t word_count(std::string_view text, const std::string& w, std::size_t limit = std::string_view::npos) {
    if (w.empty()) return 0;
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    std::size_t n = 0;
    for (auto p = text.find(w); p != std::string_view::npos && n < limit; p = text.find(w, p + 1))
      n += (p == 0 || !word(text[p - 1])) && (p + w.size() >= text.size() || !word(text[p + w.size()]));
    return n;
  }
  static bool word_in(const std::string& text, const std::string& w) { return word_count(text, w, 1) > 0; }

  static std::string quoted(const std::string& v) { return "\"" + v.substr(0, 60) + "\""; }

  void textual() {
    auto added = unmatched_lines(f_.after, f_.before);
    auto removed = unmatched_lines(f_.before, f_.after);
    // #if 0 / #if false
    for (const auto& [n, l] : added) {
      std::string c;
      for (char ch : l)
        if (!std::isspace(static_cast<unsigned char>(ch))) c += ch;
      if (c == "#if0" || c == "#iffalse" || starts_with(c, "#if0&&") || starts_with(c, "#if0//") || starts_with(c, "#if0/*"))
        add("check_disabled", n, "`" + l + "` compiles the code below out");
    }
    // A boolean flag flipped from on to off.
    static const rx::regex kFlag(
        R"(^(?:export\s+)?(?:(?:const|let|var|static|constexpr|inline|bool|auto|final|private|public)\s+)*([A-Za-z_][\w.]*)\s*(?::\s*bool(?:ean)?\s*)?(?:=|\{)\s*(True|False|true|false|0|1)\s*\}?\s*[;,]?\s*(?:#.*|//.*)?$)");
    std::map<std::string, std::string> was;
    for (const auto& [n, l] : removed) {
      rx::smatch m;
      if (rx::regex_match(l, m, kFlag)) was[m[1]] = m[2];
    }
    for (const auto& [n, l] : added) {
      rx::smatch m;
      if (!rx::regex_match(l, m, kFlag)) continue;
      auto it = was.find(m[1]);
      const std::string now = m[2];
      if (it != was.end() && (it->second == "True" || it->second == "true" || it->second == "1") &&
          (now == "False" || now == "false" || now == "0"))
        add("check_disabled", n, "the flag " + std::string(m[1]) + " was switched off (" + it->second + " -> " + now + ")");
    }
    // A check commented out: a removed raise/throw/assert/if line that comes back as a comment.
    std::set<std::string> removed_checks;
    for (const auto& [n, l] : removed)
      for (std::string_view k : {"raise ", "throw ", "assert", "if ", "if(", "validate", "check"})
        if (starts_with(l, k)) removed_checks.insert(l);
    for (const auto& [n, l] : added) {
      std::string body;
      if (starts_with(l, "#")) body = trim(l.substr(1));
      else if (starts_with(l, "//")) body = trim(l.substr(2));
      else continue;
      if (removed_checks.count(body)) add("check_disabled", n, "a check was commented out: " + body.substr(0, 80));
    }
  }

  const FileVersions& f_;
  Lang lang_;
  const TestFacts& facts_;
  std::vector<OverfitFinding>& out_;
  const PatchFunctions* patch_ = nullptr;
  std::set<int> added_;
};

}  // namespace
}  // namespace overfit_detail

std::vector<std::string> failing_test_literals(const OverfitInput& input) {
  auto facts = overfit_detail::test_facts(input);
  return {facts.literals.begin(), facts.literals.end()};
}

static std::vector<OverfitFinding> overfit_findings(const OverfitInput& input);

std::vector<OverfitFinding> check_overfitting(const OverfitInput& input) {
  // Patterns over whole files: on a deep stack (core/deep_stack.hpp); one the files' text makes
  // too large to compile fails closed, as in check_test_integrity.
  try {
    return detail::with_deep_stack([&] { return overfit_findings(input); });
  } catch (const rx::regex_error& e) {
    return {OverfitFinding{"unreadable", "", 0,
                           std::string("the production code could not be read with the overfitting patterns (") + e.what() +
                               ": a name or an expression too long for them); not judged"}};
  } catch (const std::exception& e) {  // out of memory, most likely: still never passed
    return {OverfitFinding{"unreadable", "", 0,
                           std::string("the overfitting check failed while reading the production code (") + e.what() + "); not judged"}};
  }
}

static std::vector<OverfitFinding> overfit_findings(const OverfitInput& input) {
  std::vector<OverfitFinding> out;
  const overfit_detail::TestFacts facts = overfit_detail::test_facts(input);
  overfit_detail::PatchFunctions patch;
  for (const auto& f : input.files) {
    if (is_test_path(f.path)) continue;
    if (f.before) patch.before_text += *f.before + "\n";
    if (!f.after) continue;
    patch.after_text += *f.after + "\n";
    const auto lang = overfit_detail::lang_of(f.path);
    if (lang == overfit_detail::Lang::none) continue;
    const overfit_detail::Tree tree(lang, *f.after);
    if (!tree.tree) continue;
    for (const auto& fn : overfit_detail::functions(tree, lang)) {
      patch.names_after.insert(overfit_detail::normalized_name(fn.name));
      patch.bodies_after.push_back(overfit_detail::body_tokens(tree, fn.body));
    }
  }
  for (const auto& f : input.files) {
    if (is_test_path(f.path)) continue;  // the integrity guard's business
    overfit_detail::FileRules(f, overfit_detail::lang_of(f.path), facts, out, &patch).run();
  }
  return out;
}

std::string format_overfit_findings(const std::vector<OverfitFinding>& findings) {
  std::string msg;
  for (const auto& f : findings) {
    if (!msg.empty()) msg += "; ";
    msg += f.path + ":" + std::to_string(f.line) + " [" + f.rule + "] " + f.message;
  }
  return msg;
}

}  // namespace flowagent
