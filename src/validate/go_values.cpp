// Fail to pass's values for go test: calls read from a test's source, and their driver (see the header).
#include "validate/go_values.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <sstream>

#include "core/regex.hpp"
#include "flowagent/json.hpp"
#include "integrity/guard_internal.hpp"
#include "core/regex_cache.hpp"

namespace flowagent::detail::go_values {

namespace {

using integrity::matching_close;
using integrity::split_top;
using integrity::trim;

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// `code` with the insides of its strings, raw strings and runes blanked (quotes and length kept):
/// where a name is bound or changed is read there, so a failure message `"Add = %d"` binds nothing.
std::string blank_strings(const std::string& code) {
  std::string s = code;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char q = s[i];
    if (q != '"' && q != '\'' && q != '`') continue;
    for (++i; i < s.size() && s[i] != q; ++i) {
      if (s[i] == '\\' && q != '`' && i + 1 < s.size()) s[i++] = ' ';
      if (s[i] != '\n') s[i] = ' ';
    }
  }
  return s;
}

/// `text` with comments blanked (newlines kept), strings, raw strings and runes left as they are.
std::string without_comments(const std::string& text) {
  std::string s = text;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"' || c == '\'') {
      for (++i; i < s.size() && s[i] != c && s[i] != '\n'; ++i)
        if (s[i] == '\\') ++i;
    } else if (c == '`') {
      for (++i; i < s.size() && s[i] != '`'; ++i) {
      }
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      for (; i < s.size() && s[i] != '\n'; ++i) s[i] = ' ';
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      std::size_t e = s.find("*/", i + 2);
      e = e == std::string::npos ? s.size() : e + 2;
      for (; i < e; ++i)
        if (s[i] != '\n') s[i] = ' ';
      --i;
    }
  }
  return s;
}

/// A Go string literal's value ("..." with escapes, `raw`); nullopt when it is not one.
std::optional<std::string> string_value(const std::string& e) {
  if (e.size() >= 2 && e.front() == '`' && e.back() == '`' && e.find('`', 1) == e.size() - 1) return e.substr(1, e.size() - 2);
  if (e.size() < 2 || e.front() != '"' || e.back() != '"') return std::nullopt;
  std::string out;
  for (std::size_t i = 1; i + 1 < e.size(); ++i) {
    char c = e[i];
    if (c == '"') return std::nullopt;  // (two literals: "a" + "b")
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i + 1 > e.size() - 1) return std::nullopt;
    c = e[i];
    switch (c) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '\\': out += '\\'; break;
      case '"': out += '"'; break;
      case '\'': out += '\''; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case 'x': {
        if (i + 2 >= e.size() - 1 + 1) return std::nullopt;
        const std::string hex = e.substr(i + 1, 2);
        if (hex.size() != 2 || !std::isxdigit(static_cast<unsigned char>(hex[0])) || !std::isxdigit(static_cast<unsigned char>(hex[1])))
          return std::nullopt;
        out += static_cast<char>(std::strtol(hex.c_str(), nullptr, 16));
        i += 2;
        break;
      }
      default: return std::nullopt;  // (\u, octal: left out rather than read wrong)
    }
  }
  return out;
}

/// A Go constant literal as JSON: an integer (decimal, 0x, 0o, 0b, legacy octal, `_` separators),
/// a decimal float, a string, true/false; a leading `-`/`+`. nullopt for anything else (a rune, a
/// hex float, an imaginary number, a name, an expression).
std::optional<Json> literal_json(std::string e) {
  e = trim(e);
  while (e.size() >= 2 && e.front() == '(' && matching_close(e, 0, true) == e.size() - 1) e = trim(e.substr(1, e.size() - 2));
  if (e == "true") return Json(true);
  if (e == "false") return Json(false);
  if (auto s = string_value(e)) return Json(*s);
  bool negative = false;
  if (!e.empty() && (e[0] == '-' || e[0] == '+')) {
    negative = e[0] == '-';
    e = trim(e.substr(1));
  }
  if (e.empty() || (!std::isdigit(static_cast<unsigned char>(e[0])) && e[0] != '.')) return std::nullopt;
  std::string n;
  for (char c : e)
    if (c != '_') n += c;
  if (n.empty() || n.back() == 'i') return std::nullopt;
  const bool hex = n.size() > 1 && n[0] == '0' && (n[1] == 'x' || n[1] == 'X');
  const bool is_float = !hex && n.find_first_of(".eE") != std::string::npos;
  if (is_float) {
    char* end = nullptr;
    const double v = std::strtod(n.c_str(), &end);
    if (end != n.c_str() + n.size() || !std::isfinite(v)) return std::nullopt;
    return Json(negative ? -v : v);
  }
  int base = 10;
  std::string digits = n;
  if (hex) {
    base = 16;
    digits = n.substr(2);
  } else if (n.size() > 1 && n[0] == '0' && (n[1] == 'b' || n[1] == 'B')) {
    base = 2;
    digits = n.substr(2);
  } else if (n.size() > 1 && n[0] == '0' && (n[1] == 'o' || n[1] == 'O')) {
    base = 8;
    digits = n.substr(2);
  } else if (n.size() > 1 && n[0] == '0') {
    base = 8;
    digits = n.substr(1);
  }
  if (digits.empty() || digits.size() > 18) return std::nullopt;
  char* end = nullptr;
  const long long v = std::strtoll(digits.c_str(), &end, base);
  if (end != digits.c_str() + digits.size()) return std::nullopt;
  return Json(negative ? -v : v);
}

/// The first `{` at depth 0 from `i` on its line (brackets and parentheses skipped: a function's
/// results `(int, error)`, a ranged call `f(x)`); npos when the line ends first.
std::size_t brace_on_line(const std::string& code, std::size_t i) {
  while (i < code.size() && code[i] != '{' && code[i] != '\n') {
    if (code[i] == '(' || code[i] == '[') {
      const std::size_t c = matching_close(code, i, true);
      if (c == std::string::npos) return std::string::npos;
      i = c;
    }
    ++i;
  }
  return i < code.size() && code[i] == '{' ? i : std::string::npos;
}

/// A constant expression of numbers (`50 * 1000`, `2*goldMin + 1`, `(a - 1) / 2`; Go's integer
/// division and remainder, floats when an operand is one) or of strings joined by `+`, its names
/// read by `name`; nullopt for anything else (a call, a conversion, an unknown name, a division by
/// zero, an integer overflow).
class ConstExpr {
 public:
  using Names = std::function<std::optional<Json>(const std::string&)>;
  ConstExpr(const std::string& text, const Names& names) : t_(text), names_(names) {}
  std::optional<Json> value() {
    auto v = sum();
    skip();
    return pos_ == t_.size() ? v : std::nullopt;
  }

 private:
  void skip() {
    while (pos_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[pos_]))) ++pos_;
  }
  static std::optional<Json> apply(char op, const Json& a, const Json& b) {
    if (a.is_string() && b.is_string()) return op == '+' ? std::optional<Json>(Json(a.as_string() + b.as_string())) : std::nullopt;
    if (!a.is_number() || !b.is_number()) return std::nullopt;
    if (a.type() == Json::Type::integer && b.type() == Json::Type::integer) {
      long long x = a.as_int(), y = b.as_int(), r = 0;
      switch (op) {
        case '+': if (__builtin_add_overflow(x, y, &r)) return std::nullopt; return Json(r);
        case '-': if (__builtin_sub_overflow(x, y, &r)) return std::nullopt; return Json(r);
        case '*': if (__builtin_mul_overflow(x, y, &r)) return std::nullopt; return Json(r);
        case '/': if (y == 0 || (x == LLONG_MIN && y == -1)) return std::nullopt; return Json(x / y);
        case '%': if (y == 0 || (x == LLONG_MIN && y == -1)) return std::nullopt; return Json(x % y);
        default: return std::nullopt;
      }
    }
    const double x = a.as_double(), y = b.as_double();
    switch (op) {
      case '+': return Json(x + y);
      case '-': return Json(x - y);
      case '*': return Json(x * y);
      case '/': if (y == 0) return std::nullopt; return Json(x / y);
      default: return std::nullopt;
    }
  }
  std::optional<Json> sum() {
    auto a = product();
    for (skip(); a && pos_ < t_.size() && (t_[pos_] == '+' || t_[pos_] == '-'); skip()) {
      const char op = t_[pos_++];
      auto b = product();
      if (!b) return std::nullopt;
      a = apply(op, *a, *b);
    }
    return a;
  }
  std::optional<Json> product() {
    auto a = unary();
    for (skip(); a && pos_ < t_.size() && (t_[pos_] == '*' || t_[pos_] == '/' || t_[pos_] == '%'); skip()) {
      const char op = t_[pos_++];
      auto b = unary();
      if (!b) return std::nullopt;
      a = apply(op, *a, *b);
    }
    return a;
  }
  std::optional<Json> unary() {
    skip();
    if (pos_ < t_.size() && (t_[pos_] == '-' || t_[pos_] == '+')) {
      const char op = t_[pos_++];
      auto v = unary();
      if (!v || op == '+') return v;
      return apply('-', Json(0), *v);
    }
    if (pos_ < t_.size() && t_[pos_] == '(') {
      const std::size_t c = matching_close(t_, pos_, true);
      if (c == std::string::npos) return std::nullopt;
      auto v = ConstExpr(t_.substr(pos_ + 1, c - pos_ - 1), names_).value();
      pos_ = c + 1;
      return v;
    }
    // An operand: a literal (a string with its quotes) or a name.
    const std::size_t b = pos_;
    if (pos_ < t_.size() && (t_[pos_] == '"' || t_[pos_] == '`')) {
      const char q = t_[pos_];
      for (++pos_; pos_ < t_.size() && t_[pos_] != q; ++pos_)
        if (t_[pos_] == '\\' && q == '"') ++pos_;
      if (pos_ >= t_.size()) return std::nullopt;
      ++pos_;
      return literal_json(t_.substr(b, pos_ - b));
    }
    while (pos_ < t_.size() && (ident_char(t_[pos_]) || t_[pos_] == '.' ||
                                ((t_[pos_] == '+' || t_[pos_] == '-') && pos_ > b && (t_[pos_ - 1] == 'e' || t_[pos_ - 1] == 'E') &&
                                 std::isdigit(static_cast<unsigned char>(t_[b])))))
      ++pos_;
    const std::string word = t_.substr(b, pos_ - b);
    if (word.empty()) return std::nullopt;
    if (std::isdigit(static_cast<unsigned char>(word[0])) || word[0] == '.' || word == "true" || word == "false") return literal_json(word);
    return names_(word);
  }
  std::string t_;
  const Names& names_;
  std::size_t pos_ = 0;
};

/// A function of the file: its parameters' names in order ("" for `_`/unnamed) and its body.
struct FuncDef {
  std::vector<std::string> params;
  std::size_t body_open = std::string::npos, body_close = std::string::npos;
};

/// Parameter names of a Go parameter list's text (`t *testing.T, a, b int, want int`).
std::vector<std::string> param_names(const std::string& list) {
  std::vector<std::string> out;
  for (const auto& piece : split_top(list, {","})) {
    const std::string p = trim(piece);
    if (p.empty()) continue;
    std::size_t i = 0;
    while (i < p.size() && ident_char(p[i])) ++i;
    out.push_back(p.substr(0, i) == "_" ? "" : p.substr(0, i));
  }
  return out;
}

/// The plain functions (no receiver) `code` (comments blanked) defines, by name.
std::map<std::string, FuncDef> functions_of(const std::string& code) {
  std::map<std::string, FuncDef> out;
  static const rx::regex def(R"((?:^|\n)func[ \t]+([A-Za-z_]\w*)[ \t]*\()");
  for (rx::sregex_iterator it(code.begin(), code.end(), def), e; it != e; ++it) {
    const std::size_t open = static_cast<std::size_t>(it->position() + it->length()) - 1;
    const std::size_t close = matching_close(code, open, true);
    if (close == std::string::npos) continue;
    FuncDef f;
    f.params = param_names(code.substr(open + 1, close - open - 1));
    // The body: the first `{` after the results.
    const std::size_t i = brace_on_line(code, close + 1);
    if (i == std::string::npos) continue;
    f.body_open = i;
    f.body_close = matching_close(code, i, true);
    if (f.body_close == std::string::npos) continue;
    out.emplace((*it)[1].str(), std::move(f));
  }
  return out;
}

using Row = std::map<std::string, Json>;  ///< a table row's constant fields ("" : a row that is one value)
using Constants = std::map<std::string, std::string>;  ///< package constants: name -> JSON

/// A literal, or a constant of the package by its name.
std::optional<Json> constant_value(const std::string& e, const Constants* constants) {
  if (auto v = literal_json(e)) return v;
  const ConstExpr::Names names = [&](const std::string& n) -> std::optional<Json> {
    if (!constants) return std::nullopt;
    if (auto it = constants->find(n); it != constants->end())
      if (auto j = parse_json(it->second, 4)) return *j;
    return std::nullopt;
  };
  return ConstExpr(e, names).value();
}

/// The fields of a struct type's body text (`name string; a, b int`), in order.
std::vector<std::string> struct_fields(const std::string& body) {
  std::vector<std::string> out;
  std::string cleaned;
  for (char c : body) cleaned += c == ';' ? '\n' : c;
  std::istringstream in(cleaned);
  for (std::string line; std::getline(in, line);) {
    line = trim(line);
    if (auto tag = line.find('`'); tag != std::string::npos) line = trim(line.substr(0, tag));
    if (line.empty()) continue;
    // `a, b int` -> a, b; an embedded field `Base` or `*pkg.Base` -> Base.
    std::size_t i = 0;
    std::vector<std::string> names;
    while (true) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      std::size_t b = i;
      while (i < line.size() && ident_char(line[i])) ++i;
      if (i == b) break;
      names.push_back(line.substr(b, i - b));
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      if (i < line.size() && line[i] == ',') {
        ++i;
        continue;
      }
      break;
    }
    if (names.size() == 1 && (i >= line.size() || line[i] == '.')) {
      std::string t = line;
      if (!t.empty() && t[0] == '*') t = t.substr(1);
      if (auto dot = t.rfind('.'); dot != std::string::npos) t = t.substr(dot + 1);
      out.push_back(t);
      continue;
    }
    if (names.empty()) return {};
    out.insert(out.end(), names.begin(), names.end());
  }
  return out;
}

/// The constant fields of a struct value `T{a: 1, b: 3}` or `T{1, 3}` (T a struct type declared in
/// `code`; positional fields need it), nested values flattened (`inner.a`); nullopt otherwise.
/// The fields of a struct type by its name, as seen where a table is written (a type declared in
/// the test itself first, then the package's top level); nullopt when unknown.
using TypeFields = std::function<std::optional<std::vector<std::string>>(const std::string& type)>;

std::optional<Row> struct_value(const TypeFields& types, const std::string& value, const Constants* constants, int depth = 0,
                                const std::vector<std::string>* known_fields = nullptr) {
  const std::size_t open = value.find('{');
  if (depth > 3 || open == std::string::npos || value.back() != '}' || matching_close(value, open, true) != value.size() - 1) return std::nullopt;
  std::string type = trim(value.substr(0, open));
  if (!type.empty() && type[0] == '&') type = trim(type.substr(1));
  if (!type.empty() && !std::all_of(type.begin(), type.end(), [](char c) { return ident_char(c) || c == '.'; })) return std::nullopt;
  std::vector<std::string> fields;
  if (known_fields) fields = *known_fields;
  else if (!type.empty() && type.find('.') == std::string::npos) {
    if (auto f = types(type)) fields = *f;
  }
  Row row;
  std::size_t k = 0;
  for (auto part : split_top(value.substr(open + 1, value.size() - open - 2), {","})) {
    part = trim(part);
    if (part.empty()) continue;
    auto kv = split_top(part, {":"});
    std::string field, v;
    const std::string key = kv.size() >= 2 ? trim(kv[0]) : std::string();
    if (!key.empty() && std::all_of(key.begin(), key.end(), ident_char)) {
      field = key;
      v = part.substr(kv[0].size() + 1);
    } else {
      if (k >= fields.size()) return std::nullopt;
      field = fields[k++];
      v = part;
    }
    if (auto lit = constant_value(v, constants)) row[field] = *lit;
    else if (auto nested = struct_value(types, trim(v), constants, depth + 1))
      for (auto& [f, x] : *nested) row[field + "." + f] = std::move(x);
  }
  return row;
}

/// The rows of a composite literal `lit` (`[]struct{...}{...}`, `[]T{...}`, `map[K]T{...}`):
/// each row's constant fields; nullopt when it is not a table this reading knows.
std::optional<std::vector<Row>> table_rows(const TypeFields& types, std::string lit, const Constants* constants) {
  lit = trim(lit);
  std::size_t i = 0;
  bool map = false;
  if (lit.rfind("[]", 0) == 0) {
    i = 2;
  } else if (lit.rfind("map[", 0) == 0) {
    const std::size_t c = matching_close(lit, 3, true);
    if (c == std::string::npos) return std::nullopt;
    i = c + 1;
    map = true;
  } else {
    return std::nullopt;
  }
  while (i < lit.size() && (std::isspace(static_cast<unsigned char>(lit[i])) || lit[i] == '*')) ++i;
  std::vector<std::string> fields;
  if (lit.compare(i, 6, "struct") == 0) {
    const std::size_t open = lit.find('{', i);
    if (open == std::string::npos) return std::nullopt;
    const std::size_t close = matching_close(lit, open, true);
    if (close == std::string::npos) return std::nullopt;
    fields = struct_fields(lit.substr(open + 1, close - open - 1));
    i = close + 1;
  } else {
    std::size_t b = i;
    while (i < lit.size() && ident_char(lit[i])) ++i;
    const std::string type = lit.substr(b, i - b);
    if (type.empty()) return std::nullopt;
    if (auto f = types(type)) {
      fields = std::move(*f);
      if (fields.empty()) return std::nullopt;
    }
  }
  while (i < lit.size() && std::isspace(static_cast<unsigned char>(lit[i]))) ++i;
  if (i >= lit.size() || lit[i] != '{') return std::nullopt;
  const std::size_t close = matching_close(lit, i, true);
  if (close == std::string::npos) return std::nullopt;
  std::vector<Row> rows;
  if (fields.empty()) {
    // A slice of values (`[]int{1, 3, goldMin}`): each row is one value; one not read (`2 * goldMin`)
    // is a row without it, whose calls are not read.
    if (map) return std::nullopt;
    for (auto element : split_top(lit.substr(i + 1, close - i - 1), {","})) {
      element = trim(element);
      if (element.empty()) continue;
      auto v = constant_value(element, constants);
      rows.push_back(v ? Row{{"", *v}} : Row{});
    }
    return rows;
  }
  for (auto element : split_top(lit.substr(i + 1, close - i - 1), {","})) {
    element = trim(element);
    if (element.empty()) continue;
    if (map) {
      auto kv = split_top(element, {":"});
      if (kv.size() < 2) return std::nullopt;
      element = trim(element.substr(kv[0].size() + 1));
    }
    auto row = struct_value(types, element, constants, 0, &fields);
    if (!row) return std::nullopt;
    rows.push_back(std::move(*row));
  }
  return rows;
}

/// A loop over a table: `for _, tt := range tests {` (its variable, rows and body span).
struct Loop {
  std::string var;
  std::vector<Row> rows;
  std::size_t open, close;
};

class Reader {
 public:
  Reader(const std::string& text, const std::set<std::string>& functions, const std::string& qualifier,
         const std::map<std::string, std::string>& constants, std::size_t cap)
      : code_(without_comments(text)),
        functions_(functions),
        qualifier_(qualifier),
        constants_(constants),
        cap_(cap),
        blank_(blank_strings(code_)),
        defs_(functions_of(code_)),
        depth_(brace_depths(code_)) {}

  TestCalls read(const std::string& test) {
    auto it = defs_.find(test);
    if (it == defs_.end()) return out_;
    out_.found = true;
    example_ = test.rfind("Example", 0) == 0;
    static const rx::regex testing_param(R"(\b([A-Za-z_]\w*)[ \t]+\*?testing\.(?:T|B|F|TB)\b)");
    for (rx::sregex_iterator m(code_.begin(), code_.end(), testing_param), e; m != e; ++m) testing_names_.insert((*m)[1].str());
    walk(it->second, {}, {}, 0);
    return out_;
  }

 private:
  using Env = std::map<std::string, Json>;

  /// The brace depth at each position of `code` (strings skipped): 0 at the file's top level.
  static std::vector<int> brace_depths(const std::string& code) {
    std::vector<int> out(code.size() + 1, 0);
    int depth = 0;
    for (std::size_t i = 0; i < code.size(); ++i) {
      const char c = code[i];
      out[i] = depth;
      if (c == '"' || c == '\'' || c == '`') {
        for (++i; i < code.size() && code[i] != c; ++i) {
          out[i] = depth;
          if (code[i] == '\\' && c != '`' && i + 1 < code.size()) out[++i] = depth;
        }
        if (i < code.size()) out[i] = depth;
        continue;
      }
      if (c == '{') ++depth;
      else if (c == '}') depth = std::max(0, depth - 1);
    }
    out[code.size()] = depth;
    return out;
  }

  /// Names bound in [open, close] (every left side of `:=`/`=`, `var` names, range variables),
  /// and how often: a name bound more than once is no constant there, and any bound name shadows
  /// a package constant.
  std::map<std::string, int> bindings(std::size_t open, std::size_t close) const {
    std::map<std::string, int> times;
    const std::string body = blank_.substr(open, close - open);
    static const rx::regex lhs(R"(([A-Za-z_]\w*(?:[ \t]*,[ \t]*[A-Za-z_]\w*)*)[ \t]*(?::=|=)(?!=))");
    for (rx::sregex_iterator it(body.begin(), body.end(), lhs), e; it != e; ++it) {
      // (`a != b`, `a <= b` do not match: the name must be right before the operator.)
      const auto before = it->position() > 0 ? body[static_cast<std::size_t>(it->position()) - 1] : ' ';
      if (before == '.' || ident_char(before)) continue;  // (`x.f = 1` binds no local)
      for (const auto& n : split_top((*it)[1].str(), {","})) ++times[trim(n)];
    }
    static const rx::regex var(R"((?:^|[\n;{])[ \t]*var[ \t]+([A-Za-z_]\w*(?:[ \t]*,[ \t]*[A-Za-z_]\w*)*)[ \t]+[A-Za-z_*\[])");
    for (rx::sregex_iterator it(body.begin(), body.end(), var), e; it != e; ++it)
      for (const auto& n : split_top((*it)[1].str(), {","})) ++times[trim(n)];
    // (Closures' parameters shadow too: `func(a int) { ... }`.)
    static const rx::regex lit(R"(\bfunc[ \t]*\()");
    for (rx::sregex_iterator it(body.begin(), body.end(), lit), e; it != e; ++it) {
      const std::size_t o = static_cast<std::size_t>(it->position() + it->length()) - 1;
      const std::size_t c = matching_close(body, o, true);
      if (c == std::string::npos) continue;
      for (const auto& n : param_names(body.substr(o + 1, c - o - 1)))
        if (!n.empty()) times[n] += 2;
    }
    return times;
  }

  /// Is `name` changed in `body` (strings blanked) otherwise than by binding it: `x++`, `x += 1`,
  /// `&x` passed on?
  static bool changed_in(const std::string& name, const std::string& body) {
    const rx::regex re = detail::cached_regex("(?:\\b" + name + "[ \\t]*(?:\\+\\+|--|[-+*/%|&^]=|<<=|>>=))|&" + name + "\\b");
    return rx::regex_search(body, re);
  }

  /// Locals bound exactly once in [open, close] to a constant (`a := 2`, `a, b := 2, 3`, `var a = 2`).
  Env locals(std::size_t open, std::size_t close, const std::map<std::string, int>& times) const {
    Env out;
    const std::string body = code_.substr(open, close - open);
    static const rx::regex assign(R"((?:^|[\n;{])[ \t]*(?:var[ \t]+)?([A-Za-z_]\w*(?:[ \t]*,[ \t]*[A-Za-z_]\w*)*)[ \t]*(?:[A-Za-z_][\w.]*[ \t]*)?(:?=)[ \t]*([^\n;]*))");
    for (rx::sregex_iterator it(body.begin(), body.end(), assign), e; it != e; ++it) {
      auto names = split_top((*it)[1].str(), {","});
      auto values = split_top((*it)[3].str(), {","});
      for (std::size_t k = 0; k < names.size() && names.size() == values.size(); ++k)
        if (auto v = literal_json(values[k])) out[trim(names[k])] = *v;
    }
    // (`x++`, `x += 1`, `&x` passed on, bound twice: no longer one constant.)
    const std::string blank_body = blank_.substr(open, close - open);
    for (auto i = out.begin(); i != out.end();) {
      const auto t = times.find(i->first);
      if (t == times.end() || t->second != 1 || changed_in(i->first, blank_body)) i = out.erase(i);
      else ++i;
    }
    return out;
  }

  /// Struct types as the function [open, close] sees them: declared in it (the last before its
  /// end), else at the package's top level; a type local to another test is not seen (review 37:
  /// two tests declaring `type testCase struct` with fields in another order).
  TypeFields types_in(std::size_t open, std::size_t close) const {
    return [this, open, close](const std::string& type) -> std::optional<std::vector<std::string>> {
      if (type.empty() || !std::all_of(type.begin(), type.end(), ident_char)) return std::nullopt;
      const rx::regex decl = detail::cached_regex("(?:^|\\n)[ \\t]*type[ \\t]+" + type + "[ \\t]+struct[ \\t]*\\{");
      std::optional<std::size_t> inside, top;
      for (rx::sregex_iterator it(blank_.begin(), blank_.end(), decl), e; it != e; ++it) {
        const std::size_t brace = static_cast<std::size_t>(it->position() + it->length()) - 1;
        if (brace > open && brace < close) inside = brace;
        else if (depth_[brace] == 0 && !top) top = brace;
      }
      const auto at = inside ? inside : top;
      if (!at) return std::nullopt;
      const std::size_t c = matching_close(code_, *at, true);
      if (c == std::string::npos) return std::nullopt;
      return struct_fields(code_.substr(*at + 1, c - *at - 1));
    };
  }

  /// The loops over literal tables in [open, close].
  std::vector<Loop> loops(std::size_t open, std::size_t close) const {
    std::vector<Loop> out;
    static const rx::regex head(R"(\bfor[ \t]+(?:[A-Za-z_]\w*[ \t]*,[ \t]*)?([A-Za-z_]\w*)[ \t]*:=[ \t]*range[ \t]+)");
    const std::string body = blank_.substr(open, close - open);
    for (rx::sregex_iterator it(body.begin(), body.end(), head), e; it != e; ++it) {
      const std::string match = (*it)[0].str();
      // (`for i := range tests`: one variable is the index, no row.)
      if (match.find(',') == std::string::npos) continue;
      std::size_t at = open + static_cast<std::size_t>(it->position() + it->length());
      // The ranged expression, up to the loop's `{` at depth 0.
      const std::size_t i = brace_on_line(code_, at);
      if (i == std::string::npos) continue;
      std::string expr = trim(code_.substr(at, i - at));
      std::size_t body_open = i;
      std::optional<std::vector<Row>> rows;
      if (expr.rfind("[]", 0) == 0 || expr.rfind("map[", 0) == 0) {
        // An inline table: `range []struct{...}{...} {`; its own braces come first.
        std::size_t j = i;
        for (int braces = 0; j < code_.size() && braces < 2;) {
          const std::size_t c = matching_close(code_, j, true);
          if (c == std::string::npos) break;
          ++braces;
          j = c + 1;
          while (j < code_.size() && std::isspace(static_cast<unsigned char>(code_[j]))) ++j;
          if (braces == 1 && expr.find("struct") == std::string::npos) break;
        }
        expr = trim(code_.substr(at, j - at));
        while (j < code_.size() && code_[j] != '{') ++j;
        body_open = j;
        rows = table_rows(types_in(open, close), expr, &constants_);
      } else if (std::all_of(expr.begin(), expr.end(), ident_char) && !expr.empty()) {
        rows = table_named(expr, open, close, at);
      }
      if (!rows || body_open >= code_.size()) continue;
      const std::size_t body_close = matching_close(code_, body_open, true);
      if (body_close == std::string::npos) continue;
      out.push_back(Loop{(*it)[1].str(), std::move(*rows), body_open, body_close});
    }
    return out;
  }

  /// The literal bound to `name` at `at` (`name := []struct{...}{...}`): its end, or npos.
  std::size_t literal_end(std::size_t at) const {
    for (int braces = 0; at < code_.size();) {
      if (code_[at] == '\n' && braces == 0) return std::string::npos;
      if (code_[at] == '{' || code_[at] == '[') {
        const std::size_t c = matching_close(code_, at, true);
        if (c == std::string::npos) return std::string::npos;
        if (code_[at] == '{') ++braces;
        at = c + 1;
        if (code_[c] == '}') {
          // A struct type's braces come before the rows'.
          std::size_t k = at;
          while (k < code_.size() && (code_[k] == ' ' || code_[k] == '\t')) ++k;
          if (k < code_.size() && code_[k] == '{') continue;
          return at;
        }
        continue;
      }
      ++at;
    }
    return std::string::npos;
  }

  /// The table `name` names at `use` in the function [open, close]: its binding in the function
  /// before the use (the last), else one at the file's top level (`var addCases = ...`). Not a
  /// table when the function binds or changes the name otherwise too (`tests = tests[1:]`,
  /// `tests[0].a = 9`, `tests = append(...)`).
  std::optional<std::vector<Row>> table_named(const std::string& name, std::size_t open, std::size_t close, std::size_t use) const {
    const rx::regex bound = detail::cached_regex("\\b" + name + "[ \\t]*(?::=|=)[ \\t]*((?:\\[\\]|map\\[))");
    const rx::regex assigned = detail::cached_regex("(?:^|[^\\w.])" + name + "\\b(?:[ \\t]*\\[[^\\]\\n]*\\])?(?:[ \\t]*\\.[ \\t]*\\w+)*[ \\t]*(?::=|[-+*/]?=)(?!=)");
    const std::string body = blank_.substr(open, close - open);
    const auto times = std::distance(rx::sregex_iterator(body.begin(), body.end(), assigned), rx::sregex_iterator());
    std::optional<std::pair<std::size_t, std::size_t>> inside, top;
    for (rx::sregex_iterator it(blank_.begin(), blank_.end(), bound), e; it != e; ++it) {
      const std::size_t pos = static_cast<std::size_t>(it->position());
      if (pos > 0 && (ident_char(code_[pos - 1]) || code_[pos - 1] == '.')) continue;
      const std::size_t at = static_cast<std::size_t>(it->position(1));
      const std::size_t end = literal_end(at);
      if (end == std::string::npos) continue;
      if (pos > open && pos < use) inside = std::pair{at, end};
      else if (depth_[pos] == 0 && !top) top = std::pair{at, end};
    }
    if (inside) {
      if (times != 1) return std::nullopt;
      return table_rows(types_in(open, close), code_.substr(inside->first, inside->second - inside->first), &constants_);
    }
    if (top && times == 0) return table_rows(types_in(open, close), code_.substr(top->first, top->second - top->first), &constants_);
    return std::nullopt;
  }

  void add(const std::string& name, Json::Array args) {
    if (out_.calls.size() >= cap_) {
      out_.incomplete = true;
      return;
    }
    ReadCall c{name, dump_json_lossy(Json(std::move(args)))};
    if (std::none_of(out_.calls.begin(), out_.calls.end(), [&](const ReadCall& x) { return x.name == c.name && x.args == c.args; }))
      out_.calls.push_back(std::move(c));
  }

  /// Is the call whose name starts at `i` (its `(` at `open`, `)` at `close`) one whose answer
  /// the test does not look at: an argument of a logging or reporting call (`t.Logf("%d",
  /// Add(1, 3))`, a failure message), a statement of its own, `_ = Add(1, 3)`, `go`/`defer`?
  bool unchecked(std::size_t i, std::size_t close, const std::string& enclosing, const FuncDef& f) const {
    // (The test's own reporting, `t.Errorf(...)`, not a check helper of that name, testify's
    // `assert.Error(t, f(x))`; printing, except in an Example, whose output go test compares.)
    static const std::set<std::string> reporting = {"Log", "Logf", "Error", "Errorf", "Fatal", "Fatalf", "Skip", "Skipf"};
    static const std::set<std::string> printing = {"Print", "Printf", "Println", "Fprint", "Fprintf", "Fprintln"};
    const auto dot = enclosing.find('.');
    const std::string recv = dot == std::string::npos ? std::string() : enclosing.substr(0, dot);
    const std::string callee = dot == std::string::npos ? enclosing : enclosing.substr(dot + 1);
    if (reporting.count(callee) && testing_names_.count(recv)) return true;
    if (!example_ && ((printing.count(callee) && (recv == "fmt" || recv == "log")) || (recv.empty() && (callee == "print" || callee == "println"))))
      return true;
    if (!enclosing.empty()) return false;
    std::size_t b = i;
    while (b > 0 && (code_[b - 1] == ' ' || code_[b - 1] == '\t')) --b;
    const std::size_t line_start = code_.rfind('\n', b == 0 ? 0 : b - 1);
    const std::string before = trim(code_.substr(line_start == std::string::npos ? 0 : line_start + 1, i - (line_start == std::string::npos ? 0 : line_start + 1)));
    std::size_t a = close + 1;
    while (a < code_.size() && (code_[a] == ' ' || code_[a] == '\t')) ++a;
    const bool statement_ends = a >= code_.size() || code_[a] == '\n' || code_[a] == ';' || code_[a] == '}';
    const bool starts = before.empty() || before == "_ =" || before == "go" || before == "defer" || (!before.empty() && (before.back() == '{' || before.back() == ';'));
    if (starts) return statement_ends;
    // `odd := Add(1, 3)` whose name only reporting reads afterwards (review 37: a moved pin kept as
    // a logged local).
    static const rx::regex bound(R"(^([A-Za-z_]\w*)[ \t]*:?=$)");
    rx::smatch m;
    if (!statement_ends || !rx::regex_match(before, m, bound) || m[1].str() == "_") return false;
    const std::string name = m[1].str();
    const rx::regex use = detail::cached_regex("\\b" + name + "\\b");
    for (rx::sregex_iterator it(blank_.begin() + static_cast<std::ptrdiff_t>(close), blank_.begin() + static_cast<std::ptrdiff_t>(f.body_close), use), e;
         it != e; ++it) {
      const std::size_t at = close + static_cast<std::size_t>(it->position());
      if (at > 0 && blank_[at - 1] == '.') continue;  // (a field of that name)
      const std::size_t ls = blank_.rfind('\n', at);
      std::string line = trim(blank_.substr(ls == std::string::npos ? 0 : ls + 1, at - (ls == std::string::npos ? 0 : ls + 1)));
      static const rx::regex reporting_line(R"(^(?:([A-Za-z_]\w*)\.(?:Log|Logf|Error|Errorf|Fatal|Fatalf|Skip|Skipf)|(?:fmt|log)\.(?:Print|Printf|Println))[ \t]*\(|^_[ \t]*=[ \t]*$)");
      rx::smatch r;
      if (!rx::regex_search(line, r, reporting_line)) return false;
      if (r[1].matched && !testing_names_.count(r[1].str())) return false;
      if (!r[1].matched && example_ && line.rfind("_", 0) != 0) return false;
    }
    return true;
  }

  /// How rows leave loop `l` before position `at`: `if tt.pending { continue }` (the field, and
  /// whether a row with it false leaves: `if !tt.run { continue }`), `t.Skip()` too. nullopt when
  /// the body leaves before `at` otherwise (another condition, a bare `continue`, a `return`).
  std::optional<std::vector<std::pair<std::string, bool>>> row_exits(const Loop& l, std::size_t at) const {
    std::vector<std::pair<std::string, bool>> out;
    if (at <= l.open + 1) return out;
    std::string region = blank_.substr(l.open + 1, at - l.open - 1);
    const rx::regex by_field = detail::cached_regex("\\bif[ \\t]+(!?)[ \\t]*" + l.var +
                              "\\.([A-Za-z_]\\w*)[ \\t]*\\{[^{}]*?(?:\\bcontinue\\b|\\breturn\\b|\\.Skip(?:Now|f)?\\()[^{}]*\\}");
    for (rx::sregex_iterator it(region.begin(), region.end(), by_field), e; it != e; ++it)
      out.emplace_back((*it)[2].str(), !(*it)[1].str().empty());
    region = rx::regex_replace(region, by_field, " ");
    static const rx::regex leaves(R"(\b(?:continue|break|return|goto)\b|\.Skip(?:Now|f)?\()");
    if (rx::regex_search(region, leaves)) return std::nullopt;
    return out;
  }

  /// A row's field as a condition: true, a number other than 0, a string other than ""; a field the
  /// row does not set (Go's zero value) or could not read is false.
  static bool truthy(const Row& row, const std::string& field) {
    const auto it = row.find(field);
    if (it == row.end()) return false;
    const Json& v = it->second;
    switch (v.type()) {
      case Json::Type::boolean: return v.as_bool();
      case Json::Type::integer: return v.as_int() != 0;
      case Json::Type::number: return v.as_double() != 0;
      case Json::Type::string: return !v.as_string().empty();
      default: return false;
    }
  }

  /// The calls in a function's body with `env` bound (a helper's parameters; `params` every
  /// parameter, bound or not), depth 0 the test.
  void walk(const FuncDef& f, const Env& env, const std::set<std::string>& params, int depth) {
    const auto own = bindings(f.body_open, f.body_close);
    // (A parameter the helper assigns or changes is not the caller's constant: review 37, `if a <
    // b { a, want = b, want+b-a }` before the call.)
    const std::string blank_body = blank_.substr(f.body_open, f.body_close - f.body_open);
    auto changed = [&](const std::string& name) { return own.count(name) > 0 || changed_in(name, blank_body); };
    auto times = own;
    for (const auto& p : params) times[p] += 2;
    Env scope = locals(f.body_open, f.body_close, times);
    for (const auto& [k, v] : env)
      if (!changed(k)) scope[k] = v;
    const auto table_loops = loops(f.body_open, f.body_close);
    // The callee of each open parenthesis around the position (the innermost last).
    std::vector<std::pair<std::size_t, std::string>> parens;
    for (std::size_t i = f.body_open + 1; i < f.body_close; ++i) {
      const char c = code_[i];
      if (c == '"' || c == '\'' || c == '`') {  // (skip literals)
        const char q = c;
        for (++i; i < f.body_close && code_[i] != q; ++i)
          if (code_[i] == '\\' && q != '`') ++i;
        continue;
      }
      if (c == '(') {
        std::size_t e = i;
        while (e > 0 && (code_[e - 1] == ' ' || code_[e - 1] == '\t')) --e;
        std::size_t b = e;
        while (b > 0 && ident_char(code_[b - 1])) --b;
        std::string callee = code_.substr(b, e - b);
        if (b > 1 && code_[b - 1] == '.' && ident_char(code_[b - 2])) {  // (`t.Errorf`: its receiver too)
          std::size_t r = b - 1;
          while (r > 0 && ident_char(code_[r - 1])) --r;
          callee = code_.substr(r, b - 1 - r) + "." + callee;
        }
        const std::size_t close = matching_close(code_, i, true);
        parens.emplace_back(close == std::string::npos ? f.body_close : close, std::move(callee));
        continue;
      }
      while (!parens.empty() && parens.back().first <= i) parens.pop_back();
      if (!ident_start(c) || ident_char(code_[i - 1])) continue;
      std::size_t e = i;
      while (e < f.body_close && ident_char(code_[e])) ++e;
      std::string name = code_.substr(i, e - i);
      const bool after_dot = code_[i - 1] == '.';
      std::size_t p = e;
      bool qualified = false;
      if (!qualifier_.empty() && name == qualifier_ && !after_dot && p < f.body_close && code_[p] == '.') {
        std::size_t b = p + 1;
        std::size_t q = b;
        while (q < f.body_close && ident_char(code_[q])) ++q;
        name = code_.substr(b, q - b);
        p = q;
        qualified = true;
      }
      std::size_t open = p;
      while (open < f.body_close && (code_[open] == ' ' || code_[open] == '\t')) ++open;
      const bool target = functions_.count(name) && !after_dot && (qualifier_.empty() ? !qualified : qualified) &&
                          (qualified || !times.count(name));
      if (open >= f.body_close || code_[open] != '(') {
        // (A target passed on as a value, `fn := Add`, `apply(Add, 2, 2)`: called where this
        // reading does not follow. A local or a field of that name is a false alarm on the safe side.)
        if (target && (open >= f.body_close || code_[open] != ':' || open + 1 >= f.body_close || code_[open + 1] == '=')) out_.incomplete = true;
        i = p - 1;
        continue;
      }
      const auto helper = defs_.find(name);
      const bool is_helper = !target && !after_dot && !qualified && helper != defs_.end() && depth < 2 && name.rfind("Test", 0) != 0;
      if (!target && !is_helper) {
        i = open - 1;
        continue;
      }
      const std::size_t close = matching_close(code_, open, true);
      if (close == std::string::npos || close > f.body_close) break;
      if (target && unchecked(i, close, parens.empty() ? std::string() : parens.back().second, f)) {
        i = open - 1;  // (its arguments may hold calls too)
        continue;
      }
      auto args = split_top(code_.substr(open + 1, close - open - 1), {","});
      if (!args.empty() && trim(args.back()).empty()) args.pop_back();  // (`Add(\n\t1,\n\t3,\n)`, `Add()`)
      // The rows of the table loops around the call (at most two nested).
      std::vector<const Loop*> around;
      for (const auto& l : table_loops)
        if (l.open < i && i < l.close && around.size() < 2) around.push_back(&l);
      std::vector<Env> envs{scope};
      bool rows_known = true;
      for (const Loop* l : around) {
        const auto exits = row_exits(*l, i);
        if (!exits) {
          rows_known = false;
          break;
        }
        std::vector<Env> next;
        for (const auto& base : envs)
          for (const auto& row : l->rows) {
            if (std::any_of(exits->begin(), exits->end(), [&](const auto& x) { return truthy(row, x.first) != x.second; })) continue;
            Env x = base;
            x.erase(l->var);
            for (const auto& [field, v] : row) x[field.empty() ? l->var : l->var + "." + field] = v;
            next.push_back(std::move(x));
            if (next.size() > 256) break;
          }
        envs = std::move(next);
      }
      if (!rows_known) {
        // (A row may leave the loop before the call by a condition this reading does not follow:
        // which rows make it is not known.)
        if (target) out_.incomplete = true;
        i = open - 1;
        continue;
      }
      for (const auto& en : envs) {
        std::vector<std::optional<Json>> values;
        for (const auto& a : args) values.push_back(resolve(a, en, times));
        if (target) {
          if (std::any_of(values.begin(), values.end(), [](const auto& v) { return !v; })) {
            out_.incomplete = true;
            continue;
          }
          Json::Array list;
          for (auto& v : values) list.push_back(*v);
          add(name, std::move(list));
        } else {
          Env bound;
          std::set<std::string> names;
          for (std::size_t k = 0; k < helper->second.params.size(); ++k) {
            if (helper->second.params[k].empty()) continue;
            names.insert(helper->second.params[k]);
            if (k < values.size() && values[k]) bound[helper->second.params[k]] = *values[k];
          }
          walk(helper->second, bound, names, depth + 1);
        }
      }
      i = open - 1;  // (arguments may hold calls too)
    }
  }

  std::optional<Json> resolve(const std::string& arg, const Env& env, const std::map<std::string, int>& times) const {
    const std::string a = trim(arg);
    if (auto v = literal_json(a)) return v;
    // A name: bound in `env`, or a constant of the package (`one`, `calc.One`) unless a local or
    // parameter shadows it; an expression of them (`2 * goldMin`, `tt.a + 1`).
    const ConstExpr::Names name = [&](const std::string& n) -> std::optional<Json> {
      if (auto it = env.find(n); it != env.end()) return it->second;
      std::string c = n;
      if (!qualifier_.empty() && c.rfind(qualifier_ + ".", 0) == 0) c = c.substr(qualifier_.size() + 1);
      else if (times.count(c)) return std::nullopt;
      if (auto it = constants_.find(c); it != constants_.end())
        if (auto j = parse_json(it->second, 4)) return *j;
      return std::nullopt;
    };
    return ConstExpr(a, name).value();
  }

  std::string code_;
  const std::set<std::string>& functions_;
  std::string qualifier_;
  const std::map<std::string, std::string>& constants_;
  std::size_t cap_;
  std::string blank_;  ///< code_ with strings blanked (blank_strings)
  std::map<std::string, FuncDef> defs_;
  std::vector<int> depth_;
  bool example_ = false;                ///< an Example function: what it prints is checked
  std::set<std::string> testing_names_;  ///< names of *testing.T/B/F/TB parameters
  TestCalls out_;
};

/// A JSON value as a Go constant literal: strings quoted with Go escapes, floats with a point.
std::optional<std::string> go_literal(const Json& v) {
  switch (v.type()) {
    case Json::Type::boolean: return v.as_bool() ? "true" : "false";
    case Json::Type::integer: return std::to_string(v.as_int());
    case Json::Type::number: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", v.as_double());
      std::string s = buf;
      if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
      return s;
    }
    case Json::Type::string: {
      std::string out = "\"";
      for (unsigned char c : v.as_string()) {
        if (c == '"' || c == '\\') {
          out += '\\';
          out += static_cast<char>(c);
        } else if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
      }
      return out + "\"";
    }
    default: return std::nullopt;
  }
}

}  // namespace

std::set<std::string> result_functions(const std::string& text) {
  std::set<std::string> out;
  const std::string code = without_comments(text);
  static const rx::regex def(R"((?:^|\n)func[ \t]+([A-Za-z_]\w*)[ \t]*\()");
  for (rx::sregex_iterator it(code.begin(), code.end(), def), e; it != e; ++it) {
    const std::string name = (*it)[1].str();
    if (name == "main" || name == "init") continue;
    const std::size_t open = static_cast<std::size_t>(it->position() + it->length()) - 1;
    const std::size_t close = matching_close(code, open, true);
    if (close == std::string::npos) continue;
    std::size_t i = close + 1;
    while (i < code.size() && (code[i] == ' ' || code[i] == '\t')) ++i;
    if (i < code.size() && code[i] != '{' && code[i] != '\n') out.insert(name);
  }
  return out;
}

TestCalls test_calls(const std::string& text, const std::string& test, const std::set<std::string>& functions,
                     const std::string& qualifier, const std::map<std::string, std::string>& constants, std::size_t cap) {
  return Reader(text, functions, qualifier, constants, cap).read(test);
}

std::map<std::string, std::string> package_constants(const std::string& text) {
  std::map<std::string, std::string> out;
  const std::string code = without_comments(text);
  auto take = [&](const std::string& spec) {
    // `name [type] = value` (one name: `a, b = 1, 2` and iota's implicit repeats are left out).
    static const rx::regex one(R"(^[ \t]*([A-Za-z_]\w*)(?:[ \t]+[A-Za-z_][\w.]*)?[ \t]*=[ \t]*(.+?)[ \t]*$)");
    rx::smatch m;
    if (!rx::regex_match(spec, m, one)) return;
    if (auto v = constant_value(m[2].str(), &out)) out[m[1].str()] = dump_json_lossy(*v);  // (`50 * 1000`, `2 * one`)
  };
  static const rx::regex single(R"((?:^|\n)const[ \t]+([^(\n][^\n]*))");
  for (rx::sregex_iterator it(code.begin(), code.end(), single), e; it != e; ++it) take((*it)[1].str());
  static const rx::regex block(R"((?:^|\n)const[ \t]*\()");
  for (rx::sregex_iterator it(code.begin(), code.end(), block), e; it != e; ++it) {
    const std::size_t open = static_cast<std::size_t>(it->position() + it->length()) - 1;
    const std::size_t close = matching_close(code, open, true);
    if (close == std::string::npos) continue;
    std::istringstream in(code.substr(open + 1, close - open - 1));
    for (std::string line; std::getline(in, line);) take(line);
  }
  return out;
}

std::string package_name(const std::string& text) {
  static const rx::regex pkg(R"((?:^|\n)[ \t]*package[ \t]+([A-Za-z_]\w*))");
  const std::string code = without_comments(text);
  rx::smatch m;
  return rx::regex_search(code, m, pkg) ? m[1].str() : std::string();
}

std::string driver_source(const std::string& package, const std::vector<ReadCall>& calls, int* first_line) {
  std::string s = "// Code generated by flowagent (fail to pass's values). DO NOT EDIT.\n\npackage " + package +
                  "\n\nimport (\n\tflowagentJSON \"encoding/json\"\n\tflowagentFmt \"fmt\"\n\tflowagentOS \"os\"\n\tflowagentReflect \"reflect\"\n\tflowagentStrings \"strings\"\n)\n\n"
                  "func flowagentPack(v ...interface{}) []interface{} { return v }\n\n"
                  "func flowagentAnswer(f func() []interface{}) (answer string) {\n"
                  "\tdefer func() {\n\t\tif r := recover(); r != nil {\n\t\t\tanswer = \"raise:\" + flowagentFmt.Sprint(r)\n\t\t}\n\t}()\n"
                  "\tvar parts []string\n\tfor _, v := range f() {\n\t\tif rv := flowagentReflect.ValueOf(v); rv.IsValid() && rv.Kind() == flowagentReflect.Ptr && !rv.IsNil() {\n"
                  "\t\t\tparts = append(parts, \"&\"+flowagentFmt.Sprintf(\"%#v\", rv.Elem().Interface()))\n\t\t\tcontinue\n\t\t}\n"
                  "\t\tparts = append(parts, flowagentFmt.Sprintf(\"%#v\", v))\n\t}\n"
                  "\treturn flowagentStrings.Join(parts, \", \")\n}\n\n"
                  "// FlowagentValuesDrive makes each call and writes the answers to out as a JSON array.\n"
                  "func FlowagentValuesDrive(out string) {\n\tvar answers []string\n";
  int line = static_cast<int>(std::count(s.begin(), s.end(), '\n')) + 1;
  if (first_line) *first_line = line;
  for (const auto& c : calls) {
    std::string args;
    auto j = parse_json(c.args, 8);
    bool ok = j && j->is_array();
    if (ok)
      for (const auto& a : j->as_array()) {
        auto lit = go_literal(a);
        if (!lit) {
          ok = false;
          break;
        }
        args += (args.empty() ? "" : ", ") + *lit;
      }
    if (ok)
      s += "\tanswers = append(answers, flowagentAnswer(func() []interface{} { return flowagentPack(" + c.name + "(" + args + ")) }))\n";
    else
      s += "\tanswers = append(answers, \"?\")\n";
  }
  s += "\tb, _ := flowagentJSON.Marshal(answers)\n\t_ = flowagentOS.WriteFile(out, b, 0o644)\n}\n";
  return s;
}

std::string main_source(const std::string& import_path, const std::string& out) {
  return "// Code generated by flowagent (fail to pass's values). DO NOT EDIT.\n\npackage main\n\nimport flowagentPkg \"" + import_path +
         "\"\n\nfunc main() { flowagentPkg.FlowagentValuesDrive(" + *go_literal(Json(out)) + ") }\n";
}

std::set<int> error_lines(const std::string& output, const std::string& file_name) {
  std::set<int> out;
  const rx::regex line = detail::cached_regex(rx::regex_replace(file_name, detail::cached_regex(R"([.^$|()\[\]{}*+?\\])"), "\\$&") + R"(:(\d+):)");
  for (rx::sregex_iterator it(output.begin(), output.end(), line), e; it != e; ++it) out.insert(std::stoi((*it)[1].str()));
  return out;
}

GoCommand go_command_of(const std::string& test_command) {
  GoCommand out;
  const std::string cmd = " " + test_command;
  static const rx::regex go_test(R"([\s;&|(]((?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*)(?:\S*/)?go\s+test\b)");
  rx::smatch m;
  if (!rx::regex_search(cmd, m, go_test)) return out;
  out.env = m[1].str();
  static const rx::regex tags(R"(^[^;&|]*?\s-?-tags(?:=|\s+)([A-Za-z0-9_.,]+))");
  const std::string rest = m.suffix().str();
  if (rx::regex_search(rest, m, tags)) out.flags = " -tags=" + m[1].str();
  return out;
}

std::string module_path(const std::string& go_mod) {
  static const rx::regex mod(R"((?:^|\n)[ \t]*module[ \t]+"?([^\s"]+))");
  rx::smatch m;
  return rx::regex_search(go_mod, m, mod) ? m[1].str() : std::string();
}

std::string test_function(const std::string& id) {
  // The first path segment naming a test function (`Test`, `Example`, `Benchmark`, `Fuzz` + not a
  // lowercase letter), after the package path.
  std::size_t b = 0;
  while (b <= id.size()) {
    std::size_t e = id.find('/', b);
    if (e == std::string::npos) e = id.size();
    const std::string seg = id.substr(b, e - b);
    for (const char* prefix : {"Test", "Example", "Fuzz"}) {
      const std::size_t n = std::char_traits<char>::length(prefix);
      if (seg.rfind(prefix, 0) == 0 && (seg.size() == n || !std::islower(static_cast<unsigned char>(seg[n]))) &&
          std::all_of(seg.begin(), seg.end(), ident_char))
        return seg;
    }
    b = e + 1;
  }
  return {};
}

}  // namespace flowagent::detail::go_values
