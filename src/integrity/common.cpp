// Languages, text helpers and shared rule helpers of the test-integrity guard.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>

#include "core/regex.hpp"
#include "reports/test_identity.hpp"
#include "integrity/guard_internal.hpp"
#include "core/regex_cache.hpp"

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

namespace flowagent::integrity {

Lang lang_of(std::string_view path) {
  static const std::pair<std::string_view, Lang> kExt[] = {
      {".py", Lang::python},      {".pyi", Lang::python},        {".java", Lang::java},     {".kt", Lang::kotlin},
      {".kts", Lang::kotlin},     {".cc", Lang::cpp},            {".cpp", Lang::cpp},       {".cxx", Lang::cpp},
      {".c", Lang::cpp},          {".h", Lang::cpp},             {".hpp", Lang::cpp},       {".hh", Lang::cpp},
      {".hxx", Lang::cpp},        {".js", Lang::javascript},     {".jsx", Lang::javascript}, {".mjs", Lang::javascript},
      {".cjs", Lang::javascript}, {".ts", Lang::typescript},     {".mts", Lang::typescript}, {".cts", Lang::typescript},
      {".tsx", Lang::tsx},        {".go", Lang::go},             {".rs", Lang::rust}};
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

bool is_js(Lang l) { return l == Lang::javascript || l == Lang::typescript || l == Lang::tsx; }

std::span<const std::string_view> js_module_suffixes() {
  static constexpr std::string_view kSuffixes[] = {"",           ".js",         ".cjs",        ".mjs",       ".jsx",
                                                   ".ts",        ".tsx",        ".mts",        ".cts",       "/index.js",
                                                   "/index.cjs", "/index.mjs",  "/index.jsx",  "/index.ts",  "/index.tsx"};
  return kSuffixes;
}

bool is_unsupported_code(std::string_view path) {
  static constexpr std::string_view kExt[] = {".rb", ".php", ".cs", ".fs", ".vb", ".swift", ".scala", ".sc", ".m",
                                              ".mm", ".ex", ".exs", ".erl", ".clj", ".cljs", ".dart", ".lua", ".pl",
                                              ".pm", ".t", ".bats", ".r", ".R", ".jl", ".hs", ".ml", ".groovy",
                                              ".zig", ".nim", ".cr", ".elm", ".vue", ".svelte"};
  return std::any_of(std::begin(kExt), std::end(kExt), [&](auto e) { return ends_with(path, e); });
}

bool collectable_test_file(std::string_view path, Lang lang) {
  const std::string_view base = basename(path);
  switch (lang) {
    case Lang::python: return (starts_with(base, "test") && ends_with(base, ".py")) || ends_with(base, "_test.py");
    case Lang::go: {
      // `go test ./...` skips folders named testdata or starting with `_` or `.`.
      for (std::size_t p = 0; p < path.size();) {
        const auto slash = path.find('/', p);
        if (slash == std::string_view::npos) break;
        const std::string_view dir = path.substr(p, slash - p);
        if (dir == "testdata" || starts_with(dir, "_") || (starts_with(dir, ".") && dir != "." && dir != "..")) return false;
        p = slash + 1;
      }
      return ends_with(base, "_test.go");
    }
    case Lang::javascript: case Lang::typescript: case Lang::tsx:
      return contains(base, ".test.") || contains(base, ".spec.") || contains(base, "_test.") || contains(base, "-test.") ||
             contains(path, "__tests__/") || contains(path, "test/") || contains(path, "tests/");
    case Lang::java: case Lang::kotlin: {
      const std::string_view stem = base.substr(0, base.rfind('.'));
      return starts_with(stem, "Test") || ends_with(stem, "Test") || ends_with(stem, "Tests") || ends_with(stem, "TestCase") ||
             ends_with(stem, "IT") || ends_with(stem, "Spec");
    }
    default: return true;  // C/C++ and Rust tests are collected by the build, not by file name
  }
}

std::vector<Interpolation> interpolations(std::string_view body, bool template_literal) {
  std::vector<Interpolation> out;
  for (std::size_t at = 0; at < body.size(); ++at) {
    if (template_literal) {
      if (body[at] == '\\') {
        ++at;
        continue;
      }
      if (body[at] != '$' || at + 1 >= body.size() || body[at + 1] != '{') continue;
      ++at;
    } else if (body[at] != '{') {
      continue;
    } else if (at + 1 < body.size() && body[at + 1] == '{') {  // `{{`: a brace, not a field
      ++at;
      continue;
    }
    // From the `{` to its matching `}`; in Python the expression ends at a top-level `!s`/`!r`/`!a`
    // or `:` (not `!=`, not a `:` inside brackets or a lambda's parentheses).
    int level = 0;
    std::size_t end = at, conv = std::string_view::npos, colon = std::string_view::npos;
    char quote = 0;
    for (; end < body.size(); ++end) {
      const char c = body[end];
      if (quote) {
        if (c == quote) quote = 0;
        continue;
      }
      if ((c == '"' || c == '\'') && !template_literal) {
        quote = c;
        continue;
      }
      if (c == '{' || c == '(' || c == '[') {
        ++level;
      } else if (c == '}' || c == ')' || c == ']') {
        if (--level == 0) break;
      } else if (!template_literal && level == 1 && colon == std::string_view::npos) {
        if (c == '!' && conv == std::string_view::npos && end + 1 < body.size() && body[end + 1] != '=') conv = end;
        else if (c == ':') colon = end;
      }
    }
    if (end >= body.size()) break;
    Interpolation x;
    const std::size_t expr_end = std::min({conv, colon, end});
    x.expression = std::string(body.substr(at + 1, expr_end - at - 1));
    if (conv != std::string_view::npos) x.conversion = trim(body.substr(conv + 1, std::min(colon, end) - conv - 1));
    if (colon != std::string_view::npos) x.spec = std::string(body.substr(colon + 1, end - colon - 1));
    out.push_back(std::move(x));
    at = end;
  }
  return out;
}

/// Splits `text` at top-level occurrences of any separator (outside brackets and quotes).
std::vector<std::string> split_top(std::string_view text, std::initializer_list<std::string_view> seps) {
  std::vector<std::string> out;
  int depth = 0;
  char quote_ch = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quote_ch) {
      if (ch == '\\') ++i;
      else if (ch == quote_ch) quote_ch = 0;
      continue;
    }
    if (ch == '"' || ch == '\'' || ch == '`') { quote_ch = ch; continue; }
    if (ch == '(' || ch == '[' || ch == '{') { ++depth; continue; }
    if (ch == ')' || ch == ']' || ch == '}') { --depth; continue; }
    if (depth != 0) continue;
    for (auto sep : seps)
      if (text.substr(i, sep.size()) == sep) {
        // `->`, `=>`, `<<`, `>>` and `<=` inside `<=>` are not comparisons.
        if ((sep == ">" || sep == ">=") && i > 0 && (text[i - 1] == '-' || text[i - 1] == '=' || text[i - 1] == '>')) continue;
        if ((sep == "<" || sep == ">") && i + 1 < text.size() && text[i + 1] == sep[0]) { ++i; break; }
        out.emplace_back(text.substr(start, i - start));
        start = i + sep.size();
        i = start - 1;
        break;
      }
  }
  out.emplace_back(text.substr(start));
  return out;
}

void walk_code(TSNode n, const std::function<void(TSNode)>& comment, const std::function<void(TSNode)>& leaf) {
  if (ts_node_is_null(n)) return;
  std::function<void(TSNode, int)> walk = [&](TSNode x, int depth) {
    const std::string_view t = ts_node_type(x);
    if (t == "comment" || t == "line_comment" || t == "block_comment") {
      comment(x);
      return;
    }
    if (ts_node_child_count(x) == 0 || depth > kMaxSyntaxDepth) {
      leaf(x);
      return;
    }
    for (uint32_t i = 0; i < ts_node_child_count(x); ++i) walk(tsnav::child(x, i), depth + 1);
  };
  walk(n, 0);
}

int count_elements(std::string_view list) {
  std::string t = trim(list);
  if (t.size() < 2 || (t.front() != '[' && t.front() != '(' && t.front() != '{')) return 0;
  int n = 0;
  for (const auto& e : split_top(std::string_view(t).substr(1, t.size() - 2), {","}))
    if (!trim(e).empty()) ++n;
  return n;
}

/// Does `text` use any name bound in `names` (`a, (b, c)`, `[a, b]`, `(n)`) as a whole word?
bool uses_any_word(std::string_view names, std::string_view text) {
  static const rx::regex word(R"([A-Za-z_$][\w$]*)");
  static const std::set<std::string> kDecl = {"const", "let", "var", "in", "of", "function", "async"};
  const std::string n(names), t(text);
  for (rx::sregex_iterator w(n.begin(), n.end(), word), e; w != e; ++w) {
    if (kDecl.count(w->str()) || w->str() == "_") continue;
    const rx::regex use = detail::cached_regex("(^|[^\\w$.])" + w->str() + "([^\\w$]|$)");
    if (rx::regex_search(t, use)) return true;
  }
  return false;
}

namespace {

/// `name(args)` spanning the whole text: the args.
std::optional<std::string> call_args(std::string_view t, std::string_view name) {
  if (!starts_with(t, name)) return std::nullopt;
  std::size_t open = name.size();
  while (open < t.size() && t[open] == ' ') ++open;
  if (open >= t.size() || t[open] != '(' || matching_close(t, open) != t.size() - 1) return std::nullopt;
  return std::string(t.substr(open + 1, t.size() - open - 2));
}

std::optional<std::vector<std::string>> literal_table_at(std::string_view text, int depth) {
  std::string t = trim(text);
  for (auto& ch : t)
    if (ch == '\n' || ch == '\t' || ch == '\r') ch = ' ';
  if (depth > 4 || t.size() < 2) return std::nullopt;
  // (Distinct by value, the same number however written: `(0x2, 2)` repeats `(2, 2)`; a float is
  // no integer here, `[1, 1.0]` may test both types.)
  auto distinct = [](const std::vector<std::string>& rows) {
    std::vector<std::string> out, seen;
    for (const auto& r : rows) {
      std::string v = by_value(strip_spaces(r));
      if (std::find(seen.begin(), seen.end(), v) != seen.end()) continue;
      seen.push_back(std::move(v));
      out.push_back(r);
    }
    return out;
  };
  for (std::string_view wrap : {"list", "tuple", "sorted", "reversed"})  // list(zip(...)): the same rows
    if (auto a = call_args(t, wrap)) return literal_table_at(*a, depth + 1);
  if (auto a = call_args(t, "enumerate")) {
    const auto parts = split_top(*a, {","});
    return literal_table_at(parts.front(), depth + 1);
  }
  if (auto a = call_args(t, "zip")) {  // rows: the i-th elements of every literal, as many as the shortest
    // The columns as written (a literal each), row i from the i-th element of every column.
    std::vector<std::vector<std::string>> raw;
    for (const auto& part : split_top(*a, {","})) {
      const std::string p = trim(part);
      if (p.empty() || starts_with(p, "strict")) continue;
      std::vector<std::string> elems;
      if ((p.front() == '[' || p.front() == '(') && matching_close(p, 0) == p.size() - 1)
        for (const auto& e : split_top(std::string_view(p).substr(1, p.size() - 2), {","}))
          if (!trim(e).empty()) elems.push_back(strip_spaces(e));
      if (elems.empty()) return std::nullopt;
      raw.push_back(std::move(elems));
    }
    if (raw.empty()) return std::nullopt;
    std::size_t n = raw.front().size();
    for (const auto& c : raw) n = std::min(n, c.size());
    std::vector<std::string> rows;
    for (std::size_t i = 0; i < n; ++i) {
      std::string row;
      for (const auto& c : raw) row += c[i] + ";";
      rows.push_back(row);
    }
    return distinct(rows);
  }
  // A dict written out, by its entries: `{(2, 2): 4, (1, 3): 4}.items()` (also `.keys()`,
  // `.values()`, JS `Object.entries({...})`): one row per entry.
  for (std::string_view view : {".items()", ".keys()", ".values()"})
    if (t.front() == '{' && ends_with(t, view) && matching_close(t, 0) == t.size() - view.size() - 1)
      return literal_table_at(std::string("[") + t.substr(1, t.size() - view.size() - 2) + "]", depth + 1);
  for (std::string_view wrap : {"Object.entries", "Object.values", "Object.keys"})
    if (auto a = call_args(t, wrap); a && starts_with(trim(*a), "{")) {
      const std::string d = trim(*a);
      if (matching_close(d, 0) == d.size() - 1) return literal_table_at("[" + d.substr(1, d.size() - 2) + "]", depth + 1);
    }
  if (t.front() != '[' && t.front() != '(' && t.front() != '{') return std::nullopt;
  const std::size_t close = matching_close(t, 0);
  if (close == std::string::npos) return std::nullopt;
  if (close != t.size() - 1) {
    // JS `[1, 2, 3].map((n) => [n, n + 1])`: one row per element of the array.
    std::string rest = trim(std::string_view(t).substr(close + 1));
    if (t.front() == '[' && starts_with(rest, ".map(") && rest.back() == ')' && matching_close(rest, 4) == rest.size() - 1) {
      // The callback must make each row from its element (`(n) => [n, 2 * n]`, not `() => [2, 4]`).
      const std::string fn = rest.substr(5, rest.size() - 6);
      std::string params, body;
      if (const auto arrow = split_top(fn, {"=>"}); arrow.size() == 2) {
        params = arrow[0];
        body = arrow[1];
      } else if (const auto open = fn.find('('), close_p = fn.find(')'); starts_with(trim(fn), "function") && open < close_p &&
                                                                            close_p != std::string::npos) {
        params = fn.substr(open, close_p - open + 1);
        body = fn.substr(close_p + 1);
      }
      if (!uses_any_word(params, body)) return std::nullopt;
      return literal_table_at(std::string_view(t).substr(0, close + 1), depth + 1);
    }
    return std::nullopt;
  }
  const std::string inner = t.substr(1, t.size() - 2);
  // A comprehension: `[(a, a + 1) for a in [1, 2, 3]]` has the rows of its source; a filter
  // (`if`) or a second `for` makes the count unknown.
  const auto fors = split_top(inner, {" for "});
  if (fors.size() > 1) {
    if (fors.size() > 2 || t.front() == '{') return std::nullopt;
    const auto in = split_top(fors[1], {" in "});
    if (in.size() != 2 || split_top(in[1], {" if "}).size() > 1) return std::nullopt;
    // A row that ignores the source (`[(2, 2, 4) for _ in [1, 2, 3]]`) is one row, repeated.
    if (!uses_any_word(in[0], fors[0])) return std::nullopt;
    return literal_table_at(in[1], depth + 1);
  }
  std::vector<std::string> rows;
  for (const auto& e : split_top(inner, {","}))
    if (!trim(e).empty()) rows.push_back(strip_spaces(e));
  return distinct(rows);
}

}  // namespace

std::optional<std::vector<std::string>> literal_table(std::string_view text) { return literal_table_at(text, 0); }

std::string_view basename(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string strip_spaces(std::string s) {
  s.erase(std::remove_if(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); }), s.end());
  return s;
}

std::string trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  auto e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

std::string quote(std::string_view line) { return trim(line.substr(0, kQuoteChars)); }

bool platform_condition(std::string_view text) {
  // `whole`: matched as a whole word (`_` and punctuation bound it): `WINDOW`, `unixtime` and
  // `darwinism` are not platforms; `IS_WINDOWS`, `linux_only` and `'win32'` are.
  struct Word {
    std::string_view text;
    bool whole;
  };
  static constexpr Word kWords[] = {
      {"sys.platform", false}, {"os.name", false},      {"platform.system", false}, {"runtime.GOOS", false}, {"target_os", false},
      {"OnOs", false},         {"process.platform", false}, {"_WIN32", false},     {"__APPLE__", false},    {"__linux__", false},
      {"IS_WINDOWS", false},   {"win32", false},        {"darwin", true},          {"windows", true},       {"linux", true},
      {"unix", true},          {"freebsd", true},       {"GOARCH", false},         {"target_arch", false},  {"amd64", false},
      {"arm64", false},        {"IS_OSX", false},       {"IS_MAC", false},         {"cfg(windows)", false}, {"cfg(unix)", false},
      {"WIN", true},           {"MACOS", true},         {"LINUX", true},           {"WINDOWS", true},       {"is_windows", false},
      {"is_win", true},        {"ON_WINDOWS", false},   {"WIN32", false},
      // (Go's short mode, `if testing.Short() { t.Skip() }`: a mode of the runner, as a platform is.)
      {"testing.Short()", false}};
  auto found = [&](const Word& w) {
    if (!w.whole) return contains(text, w.text);
    for (auto at = text.find(w.text); at != std::string_view::npos; at = text.find(w.text, at + 1)) {
      const bool left = at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1])) || !std::isalnum(static_cast<unsigned char>(w.text.front()));
      const std::size_t end = at + w.text.size();
      const bool right = end >= text.size() || !std::isalnum(static_cast<unsigned char>(text[end])) || !std::isalnum(static_cast<unsigned char>(w.text.back()));
      if (left && right) return true;
    }
    return false;
  };
  return std::any_of(std::begin(kWords), std::end(kWords), found);
}

std::optional<std::string> skip_marker(std::string_view text) {
  static constexpr std::string_view kMarkers[] = {
      "pytest.mark.skip", "pytest.mark.xfail", "unittest.skip", "unittest.expectedFailure", "@skip", "@expectedFailure",
      "SkipTest", "@Ignore", "junit.Ignore", "@Disabled", "enabled = false", "enabled=false", "#[ignore", "GTEST_SKIP",
      "DISABLED_", "@EnabledIf", "@DisabledIf", "@EnabledOnJre", "@EnabledForJreRange", "@EnabledInNativeImage", "@EnabledOnOs"};
  // Java allows blanks between `@` and the name (`@ Disabled`).
  std::string squeezed;
  if (text.find("@ ") != std::string_view::npos || text.find("@\t") != std::string_view::npos) {
    static const rx::regex blanks(R"(@\s+)");
    squeezed = rx::regex_replace(std::string(text.substr(0, std::size_t{1} << 20)), blanks, "@");
    text = squeezed;
  }
  for (auto m : kMarkers)
    if (contains(text, m)) return std::string(m);
  return std::nullopt;
}

std::string without_type_assertions(std::string_view expr) {
  std::string e(expr);
  const bool asserted = e.find(" as ") != std::string::npos || e.find(" satisfies ") != std::string::npos;
  bool non_null_mark = false;
  for (std::size_t at = e.find('!'); at != std::string::npos && !non_null_mark; at = e.find('!', at + 1))
    non_null_mark = at > 0 && (at + 1 == e.size() || std::string_view(".[),;").find(e[at + 1]) != std::string_view::npos);
  if (!asserted && !non_null_mark) return e;
  // (`as T` / `satisfies T` before a closing bracket, a comma, a semicolon or the end: T a name, a
  // qualified or generic name, an indexed type, an array type; a Rust primitive stays.)
  static const rx::regex assertion(
      R"re(\s+(?:as|satisfies)\s+(?!(?:u8|u16|u32|u64|u128|usize|i8|i16|i32|i64|i128|isize|f32|f64|char|bool)\b)(?:const\b|unknown\b|any\b|[A-Za-z_$][\w$.]*(?:<[^<>()]*>)?(?:\[\s*(?:'[^']*'|"[^"]*"|\w*)\s*\])*)(?=\s*(?:[)\],;]|$)))re");
  if (asserted) e = rx::regex_replace(e, assertion, "");
  if (!non_null_mark) return e;
  // (A non-null assertion: `x!.y`, `x![0]`, `f(x!)`; not `!=`, nor a Rust macro `m!(`.)
  static const rx::regex non_null(R"(([\w$)\]])!(?=[.\[),;]|$))");
  return rx::regex_replace(e, non_null, "$1");
}

std::string python_without_comment(const std::string& l) {
  char quote = 0;
  for (std::size_t i = 0; i < l.size(); ++i) {
    const char ch = l[i];
    if (quote) {
      if (ch == '\\') ++i;
      else if (ch == quote) quote = 0;
    } else if (ch == '\'' || ch == '"') {
      quote = ch;
    } else if (ch == '#') {
      return l.substr(0, i);
    }
  }
  return l;
}

std::vector<std::pair<int, std::string>> added_lines(const std::optional<std::string>& before,
                                                     const std::optional<std::string>& after) {
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

/// Lines `first`..`last` (1-based, inclusive) of `text`.
std::string_view line_span(std::string_view text, int first, int last) {
  std::size_t begin = 0;
  for (int n = 1; n < first && begin < text.size(); ++n) {
    auto e = text.find('\n', begin);
    begin = e == std::string_view::npos ? text.size() : e + 1;
  }
  std::size_t end = begin;
  for (int n = first; n <= last && end < text.size(); ++n) {
    auto e = text.find('\n', end);
    end = e == std::string_view::npos ? text.size() : e + 1;
  }
  return text.substr(begin, end - begin);
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

bool is_plain_name(std::string_view s) {
  return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) && std::all_of(s.begin(), s.end(), ident_char);
}

bool regex_safe_name(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool has_word(std::string_view text, std::string_view name) {
  if (name.empty()) return false;
  for (auto p = text.find(name); p != std::string_view::npos; p = text.find(name, p + 1)) {
    const bool left = p == 0 || !ident_char(text[p - 1]);
    const bool right = p + name.size() >= text.size() || !ident_char(text[p + name.size()]);
    if (left && right) return true;
  }
  return false;
}

std::vector<std::string> added_lines(const std::optional<std::string>& before, const std::string& after) {
  std::map<std::string, int> old_lines;
  if (before) for_each_capped_line(*before, [&](int, const std::string& l) { ++old_lines[strip_spaces(l)]; });
  std::vector<std::string> out;
  for_each_capped_line(after, [&](int, const std::string& l) {
    const std::string t = strip_spaces(l);
    if (auto it = old_lines.find(t); it != old_lines.end() && it->second > 0) --it->second;
    else if (!t.empty()) out.push_back(trim(l));  // (words kept apart: `return Add(1, 3)`)
  });
  return out;
}

bool jest_counts_assertions(std::string_view code) {
  const std::string flat = strip_spaces(std::string(code.substr(0, 65536)));
  return contains(flat, "expect.assertions(") || contains(flat, "expect.hasAssertions()");
}

std::string code_only(std::string_view line, Lang lang) {
  std::string out;
  char quote = 0;
  const bool hash_comment = lang == Lang::python;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quote) {
      if (ch == '\\' && i + 1 < line.size()) {
        ++i;
        continue;
      }
      if (ch == quote) {
        quote = 0;
        out += ch;
      }
      continue;
    }
    if (ch == '"' || ch == '`' || (ch == '\'' && lang != Lang::rust)) {
      quote = ch;
      out += ch;
      continue;
    }
    if (hash_comment && ch == '#') break;
    if (!hash_comment && ch == '/' && i + 1 < line.size() && line[i + 1] == '/') break;
    out += ch;
  }
  return out;
}

bool literal_text(const std::string& e) {
  static const rx::regex literal(R"(^(?:-?[0-9][\w.+-]*|"[^"]*"|'[^']*'|`[^`$]*`|true|false|True|False|None|null|nil|undefined)$)");
  return rx::regex_match(e, literal);
}

std::size_t matching_close(std::string_view t, std::size_t open, bool raw_backticks) {
  int depth = 0;
  char quote_ch = 0;
  for (std::size_t i = open; i < t.size(); ++i) {
    const char ch = t[i];
    if (quote_ch) {
      if (ch == '\\' && !(raw_backticks && quote_ch == '`')) ++i;
      else if (ch == quote_ch) quote_ch = 0;
      continue;
    }
    if (ch == '"' || ch == '\'' || ch == '`') quote_ch = ch;
    else if (ch == '(' || ch == '[' || ch == '{') ++depth;
    else if ((ch == ')' || ch == ']' || ch == '}') && --depth == 0) return i;
  }
  return std::string_view::npos;
}

std::size_t closing_paren(std::string_view s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    else if (s[i] == ')' && --depth == 0) return i;
  }
  return s.size();
}

std::string test_tail(std::string_view id) {
  std::string s(id);
  if (auto bracket = s.find('['); bracket != std::string::npos) s.resize(bracket);  // pytest parameters
  while (!s.empty() && (s.back() == ')' || s.back() == ' ')) s.pop_back();
  auto p = s.find_last_of(".:/ #>");
  return p == std::string::npos ? s : s.substr(p + 1);
}

bool names_failing_test(const std::vector<std::string>& failing, std::string_view test) {
  return reports::contains_test(failing, test);  // the one test-identity module decides
}

namespace {

bool flag_lines(const std::vector<std::pair<int, std::string>>& lines, const std::string& path, Findings& out,
                std::string_view rule, const std::string& why, std::initializer_list<std::string_view> needles) {
  for (const auto& [n, l] : lines)
    for (auto k : needles)
      if (contains(l, k)) {
        out.push_back({std::string(rule), path, n, why + ": " + quote(l)});
        return true;
      }
  return false;
}

}  // namespace

bool flag_added(const RuleContext& c, Findings& out, std::string_view rule, std::string_view why,
                std::initializer_list<std::string_view> needles) {
  return flag_lines(added_lines(c.file.before, c.file.after), c.file.path, out, rule, std::string(why), needles);
}

bool flag_removed(const RuleContext& c, Findings& out, std::string_view rule, std::string_view why,
                  std::initializer_list<std::string_view> needles) {
  return flag_lines(added_lines(c.file.after, c.file.before), c.file.path, out, rule, std::string(why) + " (removed)", needles);
}

bool has_key(std::string_view line, std::string_view key) {
  for (std::size_t p = line.find(key); p != std::string_view::npos; p = line.find(key, p + 1)) {
    const bool left_ok = p == 0 || !(std::isalnum(static_cast<unsigned char>(line[p - 1])) || line[p - 1] == '_' || line[p - 1] == '-');
    std::size_t q = p + key.size();
    if (q < line.size() && (line[q] == '"' || line[q] == '\'')) ++q;
    while (q < line.size() && line[q] == ' ') ++q;
    const bool right_ok = q < line.size() && (line[q] == ':' || line[q] == '=' || line[q] == '(' || line[q] == '{' || line[q] == '>');
    if (left_ok && right_ok) return true;
  }
  return false;
}

bool flag_changed_keys(const RuleContext& c, Findings& out, std::string_view rule, std::string_view why,
                       std::initializer_list<std::string_view> keys, bool (*ignore)(std::string_view)) {
  auto scan = [&](const std::vector<std::pair<int, std::string>>& lines, std::string_view verb) {
    for (const auto& [n, l] : lines) {
      if (ignore && ignore(l)) continue;
      for (auto k : keys)
        if (has_key(l, k)) {
          out.push_back({std::string(rule), c.file.path, n, std::string(why) + " (" + std::string(verb) + " " +
                                                                std::string(k) + "): " + quote(l)});
          return true;
        }
    }
    return false;
  };
  return scan(added_lines(c.file.before, c.file.after), "sets") || scan(added_lines(c.file.after, c.file.before), "removes");
}

std::string with_renames(const std::string& text, const std::map<std::string, std::string>& renamed) {
  // A name the file defines itself (a local reference implementation `def add` kept beside the
  // renamed production `plus`) is its own, not the renamed one.
  std::set<std::string> own;
  static const rx::regex definition(
      R"((?:^|\n)[ \t]*(?:(?:export|async|static|public|private|protected|final)\s+)*(?:def|class|function|func|fn|const|let|var|val)\s+(\w+))"
      R"(|(?:^|\n)(\w+)\s*(?::[^=\n]+)?=[^=])");
  const std::string head = text.substr(0, std::size_t{1} << 20);
  for (rx::sregex_iterator it(head.begin(), head.end(), definition), e; it != e; ++it) {
    const std::string n = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
    if (!renamed.count(n)) continue;
    // `add = calc.add`, `const add = require('./calc').add`: an alias of the renamed name, renamed with it.
    const auto from = static_cast<std::size_t>(it->position() + it->length());
    const std::string rest = head.substr(from, head.find('\n', from) == std::string::npos ? std::string::npos : head.find('\n', from) - from);
    if (!has_word(rest, n)) own.insert(n);
  }
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (ident_char(text[i]) && (i == 0 || !ident_char(text[i - 1]))) {
      std::size_t j = i;
      while (j < text.size() && ident_char(text[j])) ++j;
      const std::string word = text.substr(i, j - i);
      auto it = renamed.find(word);
      out += it == renamed.end() || own.count(word) ? word : it->second;
      i = j;
      continue;
    }
    out += text[i++];
  }
  return out;
}

namespace {
/// The identifiers of `t` in order.
std::vector<std::string> identifiers(std::string_view t) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < t.size();) {
    if ((std::isalpha(static_cast<unsigned char>(t[i])) || t[i] == '_' || t[i] == '$') && (i == 0 || !ident_char(t[i - 1]))) {
      std::size_t j = i;
      while (j < t.size() && ident_char(t[j])) ++j;
      out.emplace_back(t.substr(i, j - i));
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}
}  // namespace

namespace {

/// The parameter list of the definition of `name` in `def_text` (between its parentheses).
std::optional<std::string_view> parameter_list(const std::string& def_text, const std::string& name) {
  std::size_t at = 0;
  for (;;) {
    at = def_text.find(name, at);
    if (at == std::string::npos) return std::nullopt;
    if ((at == 0 || !ident_char(def_text[at - 1])) && (at + name.size() >= def_text.size() || !ident_char(def_text[at + name.size()])))
      break;
    at += name.size();
  }
  const auto open = def_text.find('(', at + name.size());
  if (open == std::string::npos || open > at + name.size() + 64) return std::nullopt;
  const auto close = closing_paren(def_text, open);
  if (close >= def_text.size()) return std::nullopt;
  return std::string_view(def_text).substr(open + 1, close - open - 1);
}

}  // namespace

std::vector<std::string> definition_params(const std::string& def_text, const std::string& name, Lang lang) {
  std::vector<std::string> out;
  const auto list = parameter_list(def_text, name);
  if (!list) return out;
  const bool type_first = lang == Lang::cpp || lang == Lang::java;
  for (const auto& part : split_top(*list, {","})) {
    std::string p = part.substr(0, part.find('='));
    const auto ids = identifiers(p);
    if (ids.empty()) continue;
    std::string id = type_first ? ids.back() : ids.front();
    if (!type_first && (id == "mut" || id == "ref") && ids.size() > 1) id = ids[1];
    if (id == "self" || id == "cls" || id == "this") continue;
    out.push_back(id);
  }
  return out;
}

std::map<std::string, std::string> definition_param_defaults(const std::string& def_text, const std::string& name, Lang lang) {
  std::map<std::string, std::string> out;
  const auto list = parameter_list(def_text, name);
  if (lang == Lang::cpp || lang == Lang::java || !list) return out;
  for (const auto& part : split_top(*list, {","})) {
    const auto eq = part.find('=');
    if (eq == std::string::npos || part.compare(eq, 2, "==") == 0) continue;
    std::string p = part.substr(0, eq);
    if (auto colon = p.find(':'); colon != std::string::npos) p = p.substr(0, colon);  // (an annotation)
    const auto ids = identifiers(p);
    if (ids.size() != 1) continue;
    out[ids.front()] = strip_spaces(part.substr(eq + 1));
  }
  return out;
}

std::map<std::string, std::vector<std::vector<std::string>>> call_arguments(const std::string& body, const std::set<std::string>& names,
                                                                            const std::set<std::string>& modules) {
  std::map<std::string, std::vector<std::vector<std::string>>> out;
  for (const auto& name : names) {
    for (std::size_t at = body.find(name); at != std::string::npos; at = body.find(name, at + 1)) {
      if (at > 0 && ident_char(body[at - 1])) continue;
      if (at > 0 && body[at - 1] == '.') {
        std::size_t start = at - 1;
        while (start > 0 && ident_char(body[start - 1]) && body[start - 1] != '.') --start;
        const std::string qualifier = body.substr(start, at - 1 - start);
        if (qualifier != "self" && qualifier != "this" && !modules.count(qualifier) && !modules.count("*")) continue;
      }
      std::size_t open = at + name.size();
      while (open < body.size() && (body[open] == ' ' || body[open] == '\t')) ++open;
      if (open >= body.size() || body[open] != '(') continue;
      const auto close = closing_paren(body, open);
      if (close >= body.size()) continue;
      std::vector<std::string> args;
      for (const auto& a : split_top(std::string_view(body).substr(open + 1, close - open - 1), {","})) {
        std::string x = strip_spaces(a);
        if (!x.empty()) args.push_back(std::move(x));
      }
      out[name].push_back(std::move(args));
      if (out[name].size() >= 64) break;
    }
  }
  return out;
}

bool run_status_replaced(const std::string& text, const rx::regex& held, const rx::regex& ends, std::string_view run) {
  rx::smatch m;
  const std::string result = rx::regex_search(text, m, held) ? m[1].str() : std::string();
  for (rx::sregex_iterator it(text.begin(), text.end(), ends), e; it != e; ++it) {
    const std::string v = strip_spaces((*it)[1].str());
    const bool passes_on = contains(v, run) || (!result.empty() && (v == result || starts_with(v, result + "?") ||
                                                                    starts_with(v, result + "!=0?") || starts_with(v, result + "==0?")));
    if (!passes_on) return true;
  }
  if (result.empty()) return false;
  // Its result assigned again after the run (`code = 0`, `code++`): more than the one binding.
  const rx::regex assigned = detail::cached_regex("(?:^|[^\\w.])" + result + R"(\s*(?:[-+*/|&^:]?=[^=]|\+\+|--))");
  return std::distance(rx::sregex_iterator(text.begin(), text.end(), assigned), rx::sregex_iterator()) > 1;
}

/// guard_internal.hpp. (Review 31 W8: `add(2.0, 2.0)` repeats `add(2, 2)`.)
std::string by_value(std::string_view s, bool loose) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; };
  auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    // A string: `'` after a digit is C++'s digit separator (`2'000`), not a quote.
    if (c == '"' || c == '`' || (c == '\'' && !(i > 0 && digit(s[i - 1])))) {
      std::size_t j = i + 1;
      bool plain = c != '`';
      while (j < s.size() && s[j] != c) {
        if (s[j] == '\\' || s[j] == '"' || s[j] == '\'' || s[j] == '`' || s[j] == '$') plain = false;
        if (s[j] == '\\') ++j;
        ++j;
      }
      if (j >= s.size()) {  // unterminated: the rest as written
        out.append(s.substr(i));
        break;
      }
      const bool prefixed = i > 0 && ident(s[i - 1]);  // b'..', f"..", r'..', u8"..": not a plain string
      if (loose && plain && !prefixed) {
        out += '"';
        out.append(s.substr(i + 1, j - i - 1));
        out += '"';
      } else {
        out.append(s.substr(i, j + 1 - i));
      }
      i = j + 1;
      continue;
    }
    const bool starts_number = (digit(c) || (c == '.' && i + 1 < s.size() && digit(s[i + 1]))) && (i == 0 || (!ident(s[i - 1]) && s[i - 1] != '.'));
    if (!starts_number) {
      out += c;
      ++i;
      continue;
    }
    const bool radix = c == '0' && i + 1 < s.size() && std::string_view("xXoObB").find(s[i + 1]) != std::string_view::npos;
    std::size_t j = i;
    while (j < s.size() && (ident(s[j]) || s[j] == '.' || (s[j] == '\'' && j > i && digit(s[j - 1]) && j + 1 < s.size() && digit(s[j + 1])) ||
                            ((s[j] == '+' || s[j] == '-') && !radix && (s[j - 1] == 'e' || s[j - 1] == 'E'))))
      ++j;
    const std::string written(s.substr(i, j - i));
    std::string token;
    for (char d : written)
      if (d != '_' && d != '\'') token += d;
    i = j;
    auto keep = [&] { out += written; };
    if (radix) {
      if (token.size() <= 2) {
        keep();
        continue;
      }
      const int base = (token[1] == 'x' || token[1] == 'X') ? 16 : (token[1] == 'o' || token[1] == 'O') ? 8 : 2;
      errno = 0;
      char* end = nullptr;
      const unsigned long long v = std::strtoull(token.c_str() + 2, &end, base);
      if (errno == ERANGE || !end || *end != '\0') keep();  // (too large, or a suffix: as written)
      else out += std::to_string(v);
      continue;
    }
    const bool integer = token.find_first_not_of("0123456789") == std::string::npos;
    if (integer) {
      if (token.size() > 1 && token[0] == '0') keep();  // (`010`: octal in the C family, an error in Python 3)
      else out += token;                                // (exact: `9007199254740993` is not `...992`)
      continue;
    }
    if (token.find_first_not_of("0123456789.eE+-") != std::string::npos || std::count(token.begin(), token.end(), '.') > 1) {
      keep();  // (`2.0f`, `2n`, `1.0L`, a version: as written)
      continue;
    }
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(token.c_str(), &end);
    if (errno == ERANGE || !end || *end != '\0' || !std::isfinite(v)) {
      keep();
      continue;
    }
    char buf[48];
    if (loose && v == std::floor(v) && std::fabs(v) < 9007199254740992.0)
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    else
      std::snprintf(buf, sizeof buf, "%.17gf", v);  // (a float: never the same text as an integer)
    out += buf;
  }
  return out;
}

}  // namespace flowagent::integrity
