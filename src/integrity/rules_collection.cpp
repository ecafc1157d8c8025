// Tests the runner no longer collects although their code is still there: through the build graph
// (a Rust module declaration removed or put under another cfg, a test source dropped from every
// CMake/Meson/Bazel/Make list while the file stays) and through the conditions a test definition
// sits under (a Python or JS `if` around a test). Name, visibility and class rules of each runner
// live in the lang_*.cpp unit recognizers (UnitInfo::collectable / hidden_by).
#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <utility>

#include "core/regex.hpp"
#include "integrity/guard_internal.hpp"
#include "core/regex_cache.hpp"

namespace flowagent::integrity {

std::string definition_condition(const Syntax& s, TSNode n, Lang lang) {
  std::string conds;
  TSNode child = n;
  for (TSNode p = tsnav::parent(n); !ts_node_is_null(p); child = p, p = tsnav::parent(p)) {
    const std::string_view t = Syntax::type(p);
    if (lang == Lang::python && (t == "function_definition" || t == "lambda")) break;
    if (t != "if_statement") continue;
    TSNode cond = Syntax::field(p, "condition");
    std::string c = ts_node_is_null(cond) ? "?" : strip_spaces(s.text(cond));
    const std::string_view via = Syntax::type(child);
    if (via == "else_clause") {
      c = "not(" + c + ")";
    } else if (via == "elif_clause") {
      TSNode ec = Syntax::field(child, "condition");
      c = "not(" + c + ")and" + (ts_node_is_null(ec) ? "?" : strip_spaces(s.text(ec)));
    } else if (lang != Lang::python && ts_node_eq(child, Syntax::field(p, "alternative"))) {
      c = "not(" + c + ")";
    }
    conds = conds.empty() ? c : c + " and " + conds;
  }
  return conds;
}

bool never_true_condition(std::string_view cond_in) {
  // (Parentheses around the whole: `(sys.version_info[0] < 3 or ...)`.)
  std::string trimmed = trim(cond_in);
  while (trimmed.size() >= 2 && trimmed.front() == '(' && closing_paren(trimmed, 0) == trimmed.size() - 1)
    trimmed = trim(trimmed.substr(1, trimmed.size() - 2));
  const std::string_view cond = trimmed;
  // A disjunction is never true when none of its parts ever is (`or` binds looser than `and`).
  if (const auto parts = split_top(cond, {" or ", "||"}); parts.size() > 1)
    return std::all_of(parts.begin(), parts.end(), [](const std::string& p) { return never_true_condition(p); });
  // One conjunct that is never true makes the whole never true.
  if (const auto parts = split_top(cond, {" and ", "&&"}); parts.size() > 1)
    return std::any_of(parts.begin(), parts.end(), [](const std::string& p) { return never_true_condition(p); });
  std::string c = strip_spaces(std::string(cond));
  while (c.size() >= 2 && c.front() == '(' && c.back() == ')') c = c.substr(1, c.size() - 2);
  static const std::set<std::string, std::less<>> kFalse = {"False", "0", "None", "false", "null", "undefined", "''", "\"\"",
                                                            "notTrue", "!true", "!1"};
  if (kFalse.count(c)) return true;
  // The module body under pytest is imported, never run as the main script.
  if (c == "__name__==\"__main__\"" || c == "__name__=='__main__'") return true;
  // Python 2 only: `six.PY2`, `PY2`, `not six.PY3`, `sys.version_info[0] == 2`, `sys.version_info.major < 3`.
  static const std::set<std::string, std::less<>> kPy2 = {"six.PY2", "PY2", "notsix.PY3", "notPY3", "not(six.PY3)", "not(PY3)", "compat.PY2",
                                                          "IS_PY2", "PYTHON2", "PY26", "PY27"};
  if (kPy2.count(c)) return true;
  {
    static const rx::regex major(R"(^sys\.version_info(?:\[0\]|\.major)(==|<=|<|!=|>=|>)(\d+)$)");
    rx::smatch m;
    if (rx::regex_match(c, m, major)) {
      const std::string op = m[1].str();
      const long v = std::stol(m[2].str());
      const bool holds = op == "==" ? 3 == v : op == "<" ? 3 < v : op == "<=" ? 3 <= v : op == "!=" ? 3 != v : op == ">" ? 3 > v : 3 >= v;
      return !holds;
    }
  }
  // sys.version_info OP (major, minor): false for every Python 3.0 - 3.99.
  static const rx::regex kVersion(R"(^sys\.version_info(?:\[:?\d?\])?(<=|>=|<|>|==)\((\d{1,4}),?(\d{1,4})?[^)]*\)$)");
  rx::smatch m;
  const std::string head = c.substr(0, kRegexLineChars);
  if (!rx::regex_match(head, m, kVersion)) return false;
  const std::string op = m[1].str();
  const long major = std::stol(m[2].str()), minor = m[3].matched ? std::stol(m[3].str()) : 0;
  for (long v = 0; v <= 99; ++v) {
    const auto cmp = std::make_pair(3L, v) <=> std::make_pair(major, minor);
    const bool holds = op == "<" ? cmp < 0 : op == "<=" ? cmp <= 0 : op == ">" ? cmp > 0 : op == ">=" ? cmp >= 0 : cmp == 0;
    if (holds) return false;
  }
  return true;
}

bool cpp_source_path(std::string_view p) {
  for (std::string_view ext : {".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".m", ".mm", ".cu"})
    if (ends_with(p, ext)) return true;
  return false;
}

namespace {

bool in_patch_deleted(const std::vector<FileVersions>& files, const std::string& path) {
  return std::any_of(files.begin(), files.end(), [&](const FileVersions& f) { return f.path == path && !f.after; });
}

/// The content of `path` after the patch: the patch's version, else the head's (nullopt: absent).
std::optional<std::string> content_after(const std::vector<FileVersions>& files, const IntegrityOptions& o, const std::string& path) {
  for (const auto& f : files)
    if (f.path == path) return f.after;
  if (o.read_head_file) return o.read_head_file(path);
  return std::nullopt;
}

bool exists_after(const std::vector<FileVersions>& files, const IntegrityOptions& o, const std::string& path) {
  for (const auto& f : files)
    if (f.path == path) return f.after.has_value();
  return std::find(o.project_files.begin(), o.project_files.end(), path) != o.project_files.end() ||
         (o.read_head_file && o.read_head_file(path).has_value());
}

// ---- Rust: module declarations ------------------------------------------------------------------

struct ModDecl {
  std::string name;
  std::string attrs;  ///< the attribute lines before it, whitespace removed
  int line = 0;
};

std::vector<ModDecl> mod_decls(const std::optional<std::string>& text) {
  std::vector<ModDecl> out;
  if (!text) return out;
  static const rx::regex kDecl(R"(^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;)");
  std::string attrs;
  for_each_capped_line(*text, [&](int n, const std::string& line) {
    const std::string t = trim(line);
    if (starts_with(t, "#[")) {
      attrs += strip_spaces(t);
      return;
    }
    rx::smatch m;
    if (rx::regex_search(line, m, kDecl)) out.push_back({m[1].str(), attrs, n});
    if (!t.empty() && !starts_with(t, "//")) attrs.clear();
  });
  return out;
}

bool inline_module(const std::optional<std::string>& text, const std::string& name) {
  if (!text) return false;
  const rx::regex inline_mod = detail::cached_regex("(^|\\n)\\s*(?:pub(?:\\([^)]*\\))?\\s+)?mod\\s+" + name + "\\s*\\{");
  return rx::regex_search(text->substr(0, std::size_t{1} << 20), inline_mod);
}

/// Files a `mod name;` in `file` may name (`#[path = "..."]` first).
std::vector<std::string> module_files(const std::string& file, const ModDecl& d) {
  const std::string dir = dir_of(file);
  static const rx::regex kPath(R"re(#\[path="([^"]+)"\])re");
  rx::smatch m;
  if (rx::regex_search(d.attrs, m, kPath)) return {join(dir, m[1].str())};
  const std::string_view base = basename(file);
  const bool root = base == "lib.rs" || base == "main.rs" || base == "mod.rs" || starts_with(dir_of(file), "tests") ||
                    contains(file, "src/bin/");
  const std::string sub = root ? dir : join(dir, std::string(base.substr(0, base.size() - 3)));
  return {join(sub, d.name + ".rs"), join(sub, d.name + "/mod.rs")};
}

bool holds_rust_tests(const std::string& text) {
  return contains(text, "#[test]") || contains(text, "#[cfg(test)]") || contains(text, "#[rstest") || contains(text, "::test]") ||
         contains(text, "#[test_case");
}

void rust_module_rules(const FileVersions& f, const std::vector<FileVersions>& files, const IntegrityOptions& o, Findings& out) {
  const auto before = mod_decls(f.before), after = mod_decls(f.after);
  for (const auto& b : before) {
    auto a = std::find_if(after.begin(), after.end(), [&](const ModDecl& x) { return x.name == b.name; });
    if (a == after.end()) {
      if (!f.after || inline_module(f.after, b.name)) continue;  // deleted with its file, or now written inline
      for (const auto& path : module_files(f.path, b)) {
        if (in_patch_deleted(files, path)) break;  // the module was removed with its file
        const auto text = content_after(files, o, path);
        const bool named_like_tests = b.name == "tests" || b.name == "test" || ends_with(b.name, "_tests") || ends_with(b.name, "_test");
        if (text ? !holds_rust_tests(*text) : !named_like_tests) continue;
        out.push_back({"collection_disabled", f.path, b.line,
                       "`mod " + b.name + ";` was removed while " + path +
                           " still holds tests: cargo compiles only the modules declared from the crate root, so they no "
                           "longer build or run"});
        return;
      }
      continue;
    }
    // The cfg it compiles under changed (cfg(test) to a cfg that never holds under `cargo test`).
    const bool was_test = contains(b.attrs, "#[cfg(test)]");
    rx::smatch m;
    static const rx::regex kCfg(R"(#\[cfg\((.*?)\)\])");
    if (!was_test || a->attrs == b.attrs || !rx::regex_search(a->attrs, m, kCfg) || m[1].str() == "test") continue;
    if (platform_condition(m[1].str())) continue;
    out.push_back({"build_tag_added", f.path, a->line,
                   "the tests of `mod " + b.name + ";` now compile only under cfg(" + m[1].str() + ") instead of cfg(test)"});
    return;
  }
}

// ---- build files: test sources dropped from every list ------------------------------------------

bool build_file(std::string_view path) {
  const std::string_view base = basename(path);
  return base == "CMakeLists.txt" || ends_with(base, ".cmake") || base == "meson.build" || base == "BUILD" ||
         base == "BUILD.bazel" || base == "Makefile" || base == "makefile" || base == "GNUmakefile" || base == "Makefile.am" ||
         ends_with(base, ".mk");
}

/// Test sources a build file names (project paths) -> the line naming it; patterns (`*`) kept as
/// written, joined with the file's folder.
std::map<std::string, int> test_sources(const std::string& build, const std::optional<std::string>& text) {
  std::map<std::string, int> out;
  if (!text) return out;
  const std::string dir = dir_of(build);
  for_each_capped_line(*text, [&](int n, const std::string& line) {
    const std::string code = line.substr(0, line.find('#'));
    std::string tok;
    auto flush = [&] {
      for (std::string_view prefix : {"${CMAKE_CURRENT_SOURCE_DIR}/", "${CMAKE_CURRENT_LIST_DIR}/", "${PROJECT_SOURCE_DIR}/",
                                      "${CMAKE_SOURCE_DIR}/", "$(srcdir)/", "./"})
        if (starts_with(tok, prefix)) tok = (starts_with(prefix, "${PROJECT") || starts_with(prefix, "${CMAKE_SOURCE"))
                                                ? "/" + tok.substr(prefix.size())
                                                : tok.substr(prefix.size());
      if (cpp_source_path(tok)) {
        const std::string path = tok.front() == '/' ? normalize(tok.substr(1)) : join(dir, tok);
        if (!path.empty() && (is_test_path(path) || is_test_path(tok))) out.emplace(path, n);
      }
      tok.clear();
    };
    for (char ch : code) {
      if (std::isspace(static_cast<unsigned char>(ch)) || std::string_view("\"'(),[]=:\\").find(ch) != std::string_view::npos) flush();
      else tok += ch;
    }
    flush();
  });
  return out;
}

void dropped_test_sources(const std::vector<FileVersions>& files, const IntegrityOptions& o, Findings& out) {
  std::map<std::string, std::pair<std::string, int>> before;  // source -> build file, line
  std::set<std::string> after;
  for (const auto& f : files) {
    if (!build_file(f.path)) continue;
    for (const auto& [src, n] : test_sources(f.path, f.before)) before.emplace(src, std::make_pair(f.path, n));
    for (const auto& [src, n] : test_sources(f.path, f.after)) after.insert(src);
  }
  for (const auto& [src, where] : before) {
    if (after.count(src) || in_patch_deleted(files, src)) continue;
    // Still matched by a pattern (file(GLOB ...), wildcard) in a build file after the patch.
    const bool globbed = std::any_of(after.begin(), after.end(), [&](const std::string& p) {
      return contains(p, "*") && fnmatch(p.c_str(), src.c_str(), 0) == 0;
    });
    if (globbed || contains(src, "*")) continue;
    if (!o.project_files.empty() && !exists_after(files, o, src)) continue;  // the list named a file that is not there
    out.push_back({"collection_disabled", where.first, where.second,
                   src + " is no longer in any build list while the file stays: its tests are no longer compiled or run"});
  }
}

/// Lines of `before` not in `after`, with their line numbers in `before`.
std::vector<std::pair<int, std::string>> removed_lines(const std::optional<std::string>& before, const std::optional<std::string>& after) {
  return added_lines(after, before);
}

// ---- name rebinding, test-class and engine switches, build-file conditions -------------------------

/// Python: `del test_x` or `test_x = ...` (also `TestX`; at module level or under a condition)
/// beside the definition: the module no longer holds a test of that name when pytest collects it.
void python_rebinding(const FileVersions& f, Findings& out) {
  // `del test_add`, `test_add = None`, `test_add, _ = None, None`, `TestAdd.test_add = ...`.
  static const rx::regex kRebind(
      R"(^\s*(?:del\s+((?:test|Test)\w*(?:\s*,\s*\w+)*)\s*$|((?:\w+\s*,\s*)*(?:test|Test)\w*(?:\s*,\s*\w+)*)\s*(?::[^=]+)?=[^=]|(Test\w*)\.(test\w*)\s*=[^=]))");
  // Through the module's namespace: globals().pop("test_add"), del globals()['test_add'],
  // vars()['test_add'] = ..., delattr(sys.modules[__name__], 'test_add'), setattr(module, ...),
  // globals().update(test_add=None); a computed name (`if n.startswith("test_")`) removes them all.
  static const rx::regex kNamespace(
      R"((?:globals|vars|locals)\s*\(\s*\)|sys\s*\.\s*modules\s*\[\s*__name__\s*\]|__dict__|(?:delattr|setattr)\s*\()");
  static const rx::regex kQuotedTest(R"(['"]((?:test|Test)\w*)['"])");
  static const rx::regex kModuleNamespace(R"((?:globals|vars|locals)\s*\(\s*\)|sys\s*\.\s*modules\s*\[\s*__name__\s*\])");
  static const rx::regex kKeyword(R"(\b((?:test|Test)\w*)\s*=[^=])");
  static const rx::regex kWord(R"(\w+)");
  const std::string& after = *f.after;
  auto defines = [&](const std::string& name) { return contains(after, "def " + name + "(") || contains(after, "class " + name); };
  auto defines_prefixed = [&](const std::string& prefix) {
    return contains(after, "def " + prefix) || contains(after, "class " + prefix);
  };
  const auto added = added_lines(f.before, f.after);
  for (std::size_t i = 0; i < added.size(); ++i) {
    const auto& [n, line] = added[i];
    // A call split over lines: this line and the next added one together.
    std::string window = line.substr(0, kRegexLineChars);
    if (i + 1 < added.size() && added[i + 1].first == n + 1) window += " " + added[i + 1].second.substr(0, kRegexLineChars);
    rx::smatch m;
    std::vector<std::string> names;
    bool computed = false;
    if (rx::regex_search(line, m, kRebind)) {
      if (m[3].matched) {
        names.push_back(m[4].str());
      } else {
        const std::string list = m[1].matched ? m[1].str() : m[2].str();
        for (rx::sregex_iterator w(list.begin(), list.end(), kWord), e; w != e; ++w) names.push_back(w->str());
      }
      if (m[3].matched && !contains(after, "class " + m[3].str())) names.clear();
      if (m[3].matched && !names.empty()) {
        if (!defines(names.front())) names.clear();
        else {
          out.push_back({"collection_disabled", f.path, n,
                         "test " + m[3].str() + "." + names.front() + " is replaced at module level (" + quote(line) +
                             "): what runs is what the attribute holds, not the test"});
          return;
        }
      }
    } else if (rx::regex_search(window, kNamespace)) {
      for (rx::sregex_iterator q(window.begin(), window.end(), kQuotedTest), e; q != e; ++q) {
        const std::string name = (*q)[1].str();
        if (defines(name)) names.push_back(name);
        else if (defines_prefixed(name) && rx::regex_search(window, kModuleNamespace)) computed = true;
      }
      for (rx::sregex_iterator k(window.begin(), window.end(), kKeyword), e; k != e; ++k) names.push_back((*k)[1].str());
    } else {
      continue;
    }
    for (const auto& name : names) {
      if (!defines(name)) continue;
      out.push_back({"collection_disabled", f.path, n,
                     "test " + name + " is rebound at module level (" + quote(line) +
                         "): pytest collects what the name holds when the module is imported, so the test is gone"});
      return;
    }
    if (computed) {
      out.push_back({"collection_disabled", f.path, n,
                     "tests are removed through the module's namespace by a computed name (" + quote(line) +
                         "): pytest collects what the module holds when it is imported"});
      return;
    }
  }
}

/// JVM: the `@Test` annotation now comes from another engine (JUnit Jupiter -> JUnit 4 or TestNG:
/// a Jupiter-only platform runs none of them), or a test class became abstract with no subclass in
/// the patch to run its tests.
void jvm_engine_switch(const FileVersions& f, const std::vector<FileVersions>& files, Findings& out) {
  const std::string& before = *f.before;
  const std::string& after = *f.after;
  const bool jupiter_before = contains(before, "import org.junit.jupiter.api.Test;") || contains(before, "import org.junit.jupiter.api.Test\n") ||
                              contains(before, "import org.junit.jupiter.api.*");
  const bool jupiter_after = contains(after, "import org.junit.jupiter.api.Test;") || contains(after, "import org.junit.jupiter.api.Test\n") ||
                             contains(after, "import org.junit.jupiter.api.*");
  if (jupiter_before && !jupiter_after && contains(after, "@Test")) {
    out.push_back({"collection_disabled", f.path, 0,
                   "the tests' @Test no longer comes from JUnit Jupiter (org.junit.jupiter.api.Test): a project run by the "
                   "Jupiter engine does not collect them"});
    return;
  }
  static const rx::regex kAbstract(R"(^\s*(?:public\s+|internal\s+)?abstract\s+class\s+(\w+))");
  for (const auto& [n, line] : added_lines(f.before, f.after)) {
    rx::smatch m;
    if (!rx::regex_search(line, m, kAbstract)) continue;
    const rx::regex was = detail::cached_regex("(^|\\n)\\s*(?:public\\s+|final\\s+|open\\s+|internal\\s+)*class\\s+" + m[1].str() + "\\b");
    if (!rx::regex_search(before.substr(0, std::size_t{1} << 20), was)) continue;
    const bool subclassed = std::any_of(files.begin(), files.end(), [&](const FileVersions& x) {
      return x.after && (contains(*x.after, "extends " + m[1].str()) || contains(*x.after, ": " + m[1].str() + "("));
    });
    if (subclassed) continue;
    out.push_back({"collection_disabled", f.path, n,
                   "test class " + m[1].str() + " became abstract: JUnit does not instantiate abstract classes, so its tests do not run"});
    return;
  }
}

/// JS/TS: the runner's registration functions shadowed in a test file (`const test = () => {}`,
/// `function it() {}`, `globalThis.test = ...`): the file registers nothing. Taking them from a
/// runner module (`const test = require('node:test')`, `import test from 'ava'`) is how they are used.
void js_runner_globals(const FileVersions& f, Findings& out) {
  static const rx::regex kShadow(
      R"(^\s*(?:(?:export\s+)?(?:const|let|var)\s+(test|it|describe|specify)\s*=\s*(.*)|(?:async\s+)?function\s*\*?\s*(test|it|describe|specify)\s*\(|(?:globalThis|global|window)\.(test|it|describe|specify)\s*=[^=]))");
  for (const auto& [n, line] : added_lines(f.before, f.after)) {
    rx::smatch m;
    if (!rx::regex_search(line, m, kShadow)) continue;
    if (m[1].matched && (contains(m[2].str(), "require(") || contains(m[2].str(), "import(") || starts_with(m[2].str(), "await import")))
      continue;
    out.push_back({"collection_disabled", f.path, n,
                   "the test file redefines the runner's registration function (" + quote(line) + "): its tests are no longer registered"});
    return;
  }
}

/// Build files: a constant-false `if(...)` added around targets, `enable_testing()`/`include(CTest)`
/// removed (ctest then finds no tests).
void build_conditions(const FileVersions& f, Findings& out) {
  static const rx::regex kFalse(R"(^\s*(?:if|elseif)\s*\(\s*(?:FALSE|OFF|NO|N|0|IGNORE|NOTFOUND|false|off|no)\s*\))");
  for (const auto& [n, line] : added_lines(f.before, f.after)) {
    if (!rx::regex_search(line, kFalse)) continue;
    out.push_back({"collection_disabled", f.path, n, "a build-file condition that is never true now encloses targets: " + quote(line)});
    return;
  }
  if (basename(f.path) != "CMakeLists.txt") return;
  // A test folder's build dropped as a whole.
  static const rx::regex kSubdir(R"(^\s*add_subdirectory\s*\(\s*["']?([^\s"')]+))");
  for (const auto& [n, line] : removed_lines(f.before, f.after)) {
    rx::smatch m;
    if (!rx::regex_search(line, m, kSubdir)) continue;
    const std::string dir = join(dir_of(f.path), m[1].str());
    if (!in_test_folder(dir + "/") || contains(*f.after, m[1].str())) continue;
    out.push_back({"collection_disabled", f.path, n, "add_subdirectory(" + m[1].str() + ") was removed: the tests built there no longer build or run"});
    return;
  }
  const auto enables = [](const std::string& t) { return contains(t, "enable_testing(") || contains(t, "include(CTest)"); };
  if (enables(*f.before) && !enables(*f.after))
    out.push_back({"collection_disabled", f.path, 0, "enable_testing()/include(CTest) was removed: ctest no longer finds the tests"});
}

/// JVM: what a Java/Kotlin file says about names: its package, its single-type imports (simple
/// name or `as` alias -> qualified name) and its on-demand imports (`import a.b.*`).
struct JvmNames {
  std::string package;
  std::map<std::string, std::string> imports;
  std::vector<std::string> wildcards;
};

JvmNames jvm_names(const std::string& text) {
  JvmNames n;
  static const rx::regex package_re(R"(^\s*package\s+([\w.]+))");
  static const rx::regex import_re(R"(^\s*import\s+(?:static\s+)?([\w.]+?)(\.\*)?\s*(?:as\s+(\w+))?\s*;?\s*$)");
  for_each_capped_line(text, [&](int, const std::string& l) {
    rx::smatch m;
    if (n.package.empty() && rx::regex_search(l, m, package_re)) n.package = m[1].str();
    else if (rx::regex_search(l, m, import_re)) {
      const std::string q = m[1].str();
      if (m[2].matched) n.wildcards.push_back(q);
      else n.imports[m[3].matched ? m[3].str() : q.substr(q.rfind('.') + 1)] = q;
    }
  });
  return n;
}

/// The annotations written before a declaration starting at `at`: its own line up to there, then
/// the lines above while they hold annotations (or their arguments), modifiers, comments or blanks;
/// never into the previous declaration (Kotlin's `annotation class A` ends without `;` or `}`).
std::string annotations_before(const std::string& text, std::size_t at) {
  std::size_t line_start = at == 0 ? std::string::npos : text.rfind('\n', at - 1);
  line_start = line_start == std::string::npos ? 0 : line_start + 1;
  std::string mods = text.substr(line_start, at - line_start);
  // A declaration keyword, not `Foo::class` or `Foo.class` in an annotation's arguments.
  static const rx::regex declaration(R"((?:^|[^:.\w])(?:class|interface|object|fun|val|var|typealias|import|package|enum|record)\b)");
  static const rx::regex modifiers(
      R"(^(?:(?:public|private|protected|internal|abstract|static|final|open|sealed|data|inline|expect|actual|strictfp)\s*)*$)");
  int depth = 0;
  for (std::size_t end = line_start, lines = 0; end > 0 && lines < 200; ++lines) {
    const std::size_t nl = end - 1;  // the newline that ends the line above
    std::size_t start = nl == 0 ? std::string::npos : text.rfind('\n', nl - 1);
    start = start == std::string::npos ? 0 : start + 1;
    const std::string l = text.substr(start, nl - start);
    depth += static_cast<int>(std::count(l.begin(), l.end(), ')')) - static_cast<int>(std::count(l.begin(), l.end(), '('));
    const auto first = l.find_first_not_of(" \t\r");
    const std::string t = first == std::string::npos ? "" : l.substr(first);
    const bool inside_arguments = depth > 0;
    const bool fits = inside_arguments || t.empty() || starts_with(t, "//") || starts_with(t, "/*") || starts_with(t, "*") ||
                      rx::regex_match(t, modifiers) || (starts_with(t, "@") && !rx::regex_search(t, declaration));
    // `;`, `{`, `}` outside an annotation's arguments (`@Target({TYPE, METHOD})` holds braces) end a
    // previous declaration or body.
    std::string outside;
    int d = 0;
    for (char ch : t) {
      if (ch == '(') ++d;
      else if (ch == ')') d = std::max(0, d - 1);
      else if (d == 0) outside += ch;
    }
    if (!fits || (!inside_arguments && (contains(outside, ";") || contains(outside, "}") || contains(outside, "{")))) break;
    mods = l + "\n" + mods;
    end = start;
  }
  return mods;
}

/// The project's annotation types and aliases (Java `@interface`, Kotlin `annotation class`,
/// `typealias`), by qualified name (package + simple name; nested types by their package too),
/// with the files' names to resolve what they are annotated with.
struct JvmAnnotations {
  struct Decl {
    std::string mods;    ///< its own annotations
    std::string target;  ///< for an alias: the name it stands for, as written
    const JvmNames* names = nullptr;
  };
  std::multimap<std::string, Decl> decls;           // qualified name -> declaration
  std::map<std::string, std::vector<std::string>> by_simple;  // simple name -> qualified names
  std::vector<std::unique_ptr<JvmNames>> names;
  std::map<std::string, std::string> disabling;     // qualified name -> the skip it carries
  /// The project's JUnit extensions that decide whether tests run (`class DockerCondition
  /// implements ExecutionCondition`): `@ExtendWith(DockerCondition.class)` can disable a test.
  std::set<std::string> conditions;
  /// The project's classes and interfaces that carry annotations (a test base class with
  /// `@ExtendWith(DockerCondition.class)`) or have supertypes, by qualified name: JUnit finds
  /// `@ExtendWith` (it is @Inherited) on superclasses and implemented interfaces.
  struct ClassDecl {
    std::string mods;
    std::vector<std::string> supers;  ///< as written, generics and constructor arguments removed
    std::vector<std::string> registered;  ///< types of its `@RegisterExtension` fields
    bool assumes = false;                 ///< a lifecycle method of it makes an assumption (skips when false)
    bool aborts = false;                  ///< its body anywhere assumes or aborts (a constructor, a helper)
    std::vector<std::string> calls;       ///< static methods what runs for every test calls (`Env.require`)
    std::set<std::string> aborting_methods;  ///< its methods that assume or abort
    const JvmNames* names = nullptr;
  };
  /// Exception handlers whose every handling method rethrows what it was given (`throw throwable;`):
  /// they log, they swallow nothing.
  std::set<std::string> rethrowing;
  std::multimap<std::string, ClassDecl> classes;
  std::map<std::string, std::vector<std::string>> classes_by_simple;

  /// `extends A implements B, C`, Kotlin `: A(), B`: A, B, C.
  static std::vector<std::string> supertypes(const std::string& rest) {
    std::vector<std::string> out;
    std::string flat;
    int depth = 0;
    for (char ch : rest) {  // drop generics and constructor arguments
      if (ch == '<' || ch == '(') ++depth;
      else if (ch == '>' || ch == ')') depth = std::max(0, depth - 1);
      else if (depth == 0) flat += ch;
    }
    std::string list;
    if (const auto at = flat.find_first_of(":"); at != std::string::npos && !contains(flat, "extends") && !contains(flat, "implements"))
      list = flat.substr(at + 1);
    else if (const auto ext = std::min(flat.find("extends"), flat.find("implements")); ext != std::string::npos)
      list = flat.substr(ext);
    else
      return out;
    static const rx::regex word(R"([A-Za-z_][\w.]*)");
    for (rx::sregex_iterator it(list.begin(), list.end(), word), e; it != e; ++it) {
      const std::string w = it->str();
      if (w != "extends" && w != "implements" && w != "where" && w != "by") out.push_back(w);
    }
    return out;
  }

  void add(const std::string& text) {
    const std::string head = text.substr(0, std::size_t{1} << 20);
    auto& n = *names.emplace_back(std::make_unique<JvmNames>(jvm_names(head)));
    // Extensions that decide whether a test runs or that can turn its failure into something else.
    static const rx::regex condition(
        R"(\b(?:class|object|interface)\s+(\w+)[^{]*\b(?:ExecutionCondition|TestExecutionExceptionHandler|InvocationInterceptor|LifecycleMethodExecutionExceptionHandler)\b)");
    for (rx::sregex_iterator it(head.begin(), head.end(), condition), e; it != e; ++it) conditions.insert((*it)[1].str());
    static const rx::regex decl(R"(@\s*interface\s+(\w+)|\bannotation\s+class\s+(\w+)|\btypealias\s+(\w+)\s*=\s*([\w.]+))");
    static const rx::regex comment(R"(/\*[\s\S]*?\*/|//[^\n]*)");
    for (rx::sregex_iterator it(head.begin(), head.end(), decl), e; it != e; ++it) {
      const std::string simple = (*it)[1].matched ? (*it)[1].str() : (*it)[2].matched ? (*it)[2].str() : (*it)[3].str();
      const std::string q = n.package.empty() ? simple : n.package + "." + simple;
      Decl d;
      d.names = &n;
      if ((*it)[4].matched) d.target = (*it)[4].str();
      // Its documentation is not its annotations (`/** Not {@link Disabled}; tags only. */`).
      else d.mods = rx::regex_replace(annotations_before(head, static_cast<std::size_t>(it->position())), comment, " ");
      decls.emplace(q, std::move(d));
      by_simple[simple].push_back(q);
    }
    static const rx::regex class_decl(R"((?:^|[^:.\w@])(class|interface)\s+(\w+)\b([^{;=]*))");
    static const rx::regex registered(R"(@\s*RegisterExtension\b[^;=]*?\b([A-Z]\w*)(?:<[^>]*>)?\s+\w+\s*([=;][^;]*))");
    std::vector<std::pair<std::size_t, std::size_t>> spans;  // each declaration: header start, body start
    for (rx::sregex_iterator it(head.begin(), head.end(), class_decl), e; it != e; ++it)
      spans.emplace_back(static_cast<std::size_t>(it->position(1)), static_cast<std::size_t>(it->position() + it->length()));
    std::size_t index = 0;
    for (rx::sregex_iterator it(head.begin(), head.end(), class_decl), e; it != e; ++it, ++index) {
      ClassDecl c;
      c.names = &n;
      c.supers = supertypes((*it)[3].str());
      c.mods = rx::regex_replace(annotations_before(head, static_cast<std::size_t>(it->position(1))), comment, " ");
      // Its body, up to the next declaration: the extension fields it registers.
      const std::size_t from = spans[index].second;
      const std::size_t to = index + 1 < spans.size() ? spans[index + 1].first : head.size();
      if (to > from && contains(std::string_view(head).substr(from, to - from), "RegisterExtension")) {
        const std::string body = head.substr(from, to - from);
        static const rx::regex type_word(R"(\b([A-Z]\w*)\b)");
        for (rx::sregex_iterator r(body.begin(), body.end(), registered), re; r != re; ++r) {
          c.registered.push_back((*r)[1].str());
          // The initializer's types too: `Extension x = (TestExecutionExceptionHandler) (ctx, t) -> {}`, `new Lenient()`.
          const std::string init = (*r)[2].str().substr(0, 2048);
          for (rx::sregex_iterator w(init.begin(), init.end(), type_word), we; w != we; ++w) c.registered.push_back((*w)[1].str());
        }
      }
      // `@BeforeEach void docker() { assumeTrue(...); }`: every test of the class and its subclasses skips.
      if (to > from) {
        // (`assumingThat(c, body)` runs its body only when c holds and never aborts: not an assumption.)
        static const rx::regex lifecycle(R"(@\s*(?:BeforeEach|BeforeAll|Before|BeforeClass)\b[^{]*\{[^}]*\b(?:assume(?:True|False|That|NotNull|NoException)|Assume\.)\b)");
        const std::string body = head.substr(from, std::min(to - from, std::size_t{1} << 16));
        c.assumes = (contains(body, "assum") || contains(body, "Assum")) && rx::regex_search(body, lifecycle);
        // What runs for every test of the class: its constructors, initializer blocks, field initializers
        // and @Before* methods, and the methods of the class they call (two levels). An assumption or
        // abort there skips every test; one in a helper only some tests call does not.
        static const rx::regex aborting(
            R"(\b(?:assume(?:True|False|That|NotNull|NoException)|abort)\s*\(|\bTestAbortedException\b|\bAssumptionViolatedException\b|\bAssume\s*\.)");
        const std::string simple_name = (*it)[2].str();
        std::map<std::string, std::string> methods;  // name -> its text
        std::string entry;                          // what runs for every test
        {
          std::size_t open = body.find('{');
          int depth = 0;
          std::size_t last = open == std::string::npos ? body.size() : open + 1;
          for (std::size_t k = open == std::string::npos ? body.size() : open; k < body.size(); ++k) {
            const char ch = body[k];
            if (ch == '"' || ch == '\'') {  // skip literals
              for (++k; k < body.size() && body[k] != ch; ++k)
                if (body[k] == '\\') ++k;
              continue;
            }
            if (ch == '{') {
              if (++depth == 2) {
                const std::string header = trim(body.substr(last, k - last));
                int d = 1;
                std::size_t end = k + 1;
                for (; end < body.size() && d > 0; ++end) {
                  if (body[end] == '{') ++d;
                  else if (body[end] == '}') --d;
                }
                const std::string block = header + body.substr(k, end - k);
                static const rx::regex method_name(R"((\w+)\s*\([^()]*\)\s*(?:throws\s+[\w.,\s]+)?$)");
                rx::smatch mm;
                const bool is_method = rx::regex_search(header, mm, method_name) && header.find('=') == std::string::npos;
                if (is_method && mm[1].str() != simple_name && !rx::regex_search(header, detail::cached_regex(R"(@\s*(?:BeforeEach|BeforeAll|Before|BeforeClass)\b)")))
                  methods[mm[1].str()] = block;
                else
                  entry += block + "\n";  // a constructor, an initializer block, a field's initializer, a @Before* method
                depth = 1;
                k = end - 1;
                last = end;
              }
            } else if (ch == '}') {
              if (--depth <= 0) break;
              last = k + 1;
            } else if (ch == ';' && depth == 1) {
              const std::string stmt = body.substr(last, k - last);
              if (stmt.find('=') != std::string::npos) entry += stmt + ";\n";  // a field initializer
              last = k + 1;
            }
          }
        }
        for (int level = 0; level < 2; ++level)
          for (const auto& [mname, mtext] : methods)
            if (rx::regex_search(entry, detail::cached_regex("\\b" + mname + "\\s*\\(")) && !contains(entry, mtext)) entry += mtext + "\n";
        c.aborts = rx::regex_search(entry, aborting);
        for (const auto& [mname, mtext] : methods)
          if (rx::regex_search(mtext, aborting)) c.aborting_methods.insert(mname);
        static const rx::regex static_call(R"(\b([A-Z]\w*)\s*\.\s*([a-z]\w*)\s*\()");
        std::set<std::string> called;
        for (rx::sregex_iterator sc(entry.begin(), entry.end(), static_call), se; sc != se && called.size() < 32; ++sc)
          if (called.insert((*sc)[1].str() + "." + (*sc)[2].str()).second) c.calls.push_back((*sc)[1].str() + "." + (*sc)[2].str());
        // Other classes' constructors and instance methods run there too: `new Docker()` (its
        // constructor and initializers: `Docker.<init>`), `new Env().require("X")`, and a method
        // called on a field or local of a project type (`Env env = new Env();` ... `env.require("X")`).
        {
          static const rx::regex constructed(R"(\bnew\s+([A-Z]\w*)\s*(?:<[^<>]*>)?\s*\()");
          for (rx::sregex_iterator k(entry.begin(), entry.end(), constructed), ke; k != ke && called.size() < 48; ++k) {
            const std::string cls = (*k)[1].str();
            if (called.insert(cls + ".<init>").second) c.calls.push_back(cls + ".<init>");
            // `new Env(...).require(`: the method called on the new object.
            const std::size_t open = static_cast<std::size_t>(k->position() + k->length()) - 1;
            const std::size_t close = closing_paren(entry, open);
            static const rx::regex then_call(R"(^\s*\.\s*([a-z]\w*)\s*\()");
            rx::smatch tm;
            const std::string after = close < entry.size() ? entry.substr(close + 1, 256) : std::string();
            if (rx::regex_search(after, tm, then_call) && called.insert(cls + "." + tm[1].str()).second)
              c.calls.push_back(cls + "." + tm[1].str());
          }
          // Typed names of the class body and of what runs: `Env env`, `private final Docker docker`.
          std::map<std::string, std::string> typed;
          static const rx::regex declared(R"(\b([A-Z]\w*)(?:<[^<>]*>)?\s+([a-z_]\w*)\s*[=;,)])");
          for (const std::string* t : {&body, static_cast<const std::string*>(&entry)})
            for (rx::sregex_iterator k(t->begin(), t->end(), declared), ke; k != ke; ++k) typed.emplace((*k)[2].str(), (*k)[1].str());
          // A static factory's product (`Env.system().require("X")`): read as the factory class's method.
          static const rx::regex factory(R"(\b([A-Z]\w*)\s*\.\s*[a-z]\w*\s*\([^()]*\)\s*\.\s*([a-z]\w*)\s*\()");
          for (rx::sregex_iterator k(entry.begin(), entry.end(), factory), ke; k != ke && called.size() < 48; ++k)
            if (called.insert((*k)[1].str() + "." + (*k)[2].str()).second) c.calls.push_back((*k)[1].str() + "." + (*k)[2].str());
          static const rx::regex on_name(R"(\b([a-z_]\w*)\s*\.\s*([a-z]\w*)\s*\()");
          for (rx::sregex_iterator k(entry.begin(), entry.end(), on_name), ke; k != ke && called.size() < 48; ++k)
            if (auto ty = typed.find((*k)[1].str()); ty != typed.end() && called.insert(ty->second + "." + (*k)[2].str()).second)
              c.calls.push_back(ty->second + "." + (*k)[2].str());
        }
        // Exception handlers that rethrow on every path.
        static const rx::regex handler(R"(\bhandle\w*Exception\s*\([^)]*\bThrowable\s+(\w+)\s*\)[^{;]*\{)");
        rx::smatch hm;
        bool any_handler = false, all_rethrow = true;
        for (auto hs = body.cbegin(); rx::regex_search(hs, body.cend(), hm, handler);) {
          any_handler = true;
          const std::size_t open = static_cast<std::size_t>(hm[0].second - body.cbegin()) - 1;
          std::size_t depth = 0, close = open;
          for (; close < body.size(); ++close) {
            if (body[close] == '{') ++depth;
            else if (body[close] == '}' && --depth == 0) break;
          }
          const std::string m = strip_spaces(body.substr(open, close - open + 1));
          const std::string last = "throw" + hm[1].str() + ";}";
          // Or wrapped in another failure (`throw new AssertionError(msg, throwable);`), not in an abort.
          const rx::regex wrapped = detail::cached_regex("thrownew(\\w+)\\([^;]*\\b" + hm[1].str() + "\\b[^;]*\\);\\}$");
          rx::smatch wm;
          const bool rethrows = ends_with(m, last) || (rx::regex_search(m, wm, wrapped) && !contains(wm[1].str(), "Abort") &&
                                                       !contains(wm[1].str(), "Assumption") && !contains(wm[1].str(), "Skipped") &&
                                                       !contains(wm[1].str(), "Incomplete"));
          if (!rethrows || contains(m, "return") || contains(m, "catch") || contains(m, "System.exit")) all_rethrow = false;
          hs = body.cbegin() + static_cast<std::ptrdiff_t>(std::min(close, body.size()));
        }
        if (any_handler && all_rethrow && !contains(body, "evaluateExecutionCondition") && !contains(body, "intercept"))
          rethrowing.insert((*it)[2].str());
      }
      if (c.supers.empty() && c.registered.empty() && !c.assumes && !c.aborts && c.calls.empty() && c.aborting_methods.empty() &&
          !contains(c.mods, "@"))
        continue;
      const std::string simple = (*it)[2].str();
      const std::string q = n.package.empty() ? simple : n.package + "." + simple;
      classes.emplace(q, std::move(c));
      classes_by_simple[simple].push_back(q);
    }
  }

  /// `@ExtendWith` of a project condition on the class `use` names (in a file with `n`), on its
  /// superclasses or on its interfaces, at most 8 levels up.
  std::optional<std::string> inherited_condition(const std::string& use, const JvmNames& n, int depth = 0) const {
    if (depth > 8) return std::nullopt;
    for (const auto& r : resolve(use, n, true)) {
      auto [b, e] = classes.equal_range(r);
      for (auto it = b; it != e; ++it) {
        if (auto c = condition_in(it->second.mods)) return *c + " on " + r;
        for (const auto& t : it->second.registered)
          if (is_condition(t)) return "@RegisterExtension " + t + ", an ExecutionCondition, in " + r;
        if (it->second.assumes) return "an assumption in a @BeforeEach/@BeforeAll method of " + r + " (a false one skips the tests)";
        if (it->second.aborts) return "an assumption or abort in " + r + " (its constructor or a method; it skips the tests)";
        // A class its body calls that assumes or aborts (`@BeforeEach void env() { Env.require("X"); }`).
        for (const auto& callee : it->second.calls) {
          const std::string cls = callee.substr(0, callee.find('.')), method = callee.substr(callee.find('.') + 1);
          for (const auto& q : resolve(cls, *it->second.names, true)) {
            auto [cb, ce] = classes.equal_range(q);
            for (auto k = cb; k != ce; ++k)
              if (method == "<init>" ? k->second.aborts : k->second.aborting_methods.count(method) > 0)
                return "an assumption or abort in " + q + (method == "<init>" ? " (its constructor or initializers)" : "." + method) + ", which " + r +
                       (method == "<init>" ? " constructs" : " calls");
          }
        }
        // A composed annotation on it that carries the condition (`@RequiresDocker`).
        static const rx::regex use_re(R"(@\s*([A-Za-z_][\w.]*))");
        const std::string& mods = it->second.mods;
        for (rx::sregex_iterator u(mods.begin(), mods.end(), use_re), ue; u != ue; ++u)
          for (const auto& a : resolve((*u)[1].str(), *it->second.names))
            if (auto d = disabling.find(a); d != disabling.end()) return d->second + " (through @" + a + ") on " + r;
        for (const auto& sup : it->second.supers)
          if (auto w = inherited_condition(sup, *it->second.names, depth + 1)) return w;
      }
    }
    return std::nullopt;
  }

  /// What `use` (`Flaky`, `TestSupport.Flaky`, `calc.legacy.Flaky`, an import alias) names in a file
  /// with `n`: the project's declarations it resolves to, or else the qualified name it stands for.
  std::vector<std::string> resolve(std::string use, const JvmNames& n, bool of_classes = false) const {
    const auto known = [&](const std::string& q) { return of_classes ? classes.count(q) > 0 : decls.count(q) > 0; };
    const auto& simple_names = of_classes ? classes_by_simple : by_simple;
    use.erase(std::remove_if(use.begin(), use.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }), use.end());
    const std::string simple = use.substr(use.rfind('.') == std::string::npos ? 0 : use.rfind('.') + 1);
    const std::string first = use.substr(0, use.find('.'));
    std::vector<std::string> tries;
    if (known(use)) tries.push_back(use);  // fully qualified
    if (auto it = n.imports.find(first); it != n.imports.end()) {
      if (first == use) {
        tries.push_back(it->second);  // the import itself, maybe an alias
        // A nested type imported through its outer ones (`import calc.Markers.KnownBroken`): keyed by
        // its package, without the outer types.
        std::string q = it->second;
        for (auto dot = q.rfind('.'); dot != std::string::npos && dot > 0;) {
          const auto prev = q.rfind('.', dot - 1);
          if (prev == std::string::npos) break;
          const std::string segment = q.substr(prev + 1, dot - prev - 1);
          if (segment.empty() || !std::isupper(static_cast<unsigned char>(segment[0]))) break;
          q = q.substr(0, prev) + q.substr(dot);
          tries.push_back(q);
          dot = prev;
        }
      }
      const std::string pkg = it->second.substr(0, it->second.rfind('.') == std::string::npos ? 0 : it->second.rfind('.'));
      tries.push_back(pkg.empty() ? simple : pkg + "." + simple);  // a type nested in an imported one
    }
    tries.push_back(n.package.empty() ? simple : n.package + "." + simple);
    for (const auto& w : n.wildcards) tries.push_back(w + "." + simple);
    std::vector<std::string> found;
    for (const auto& t : tries)
      if (known(t)) {
        found.push_back(t);
        return found;
      }
    if (!tries.empty() && n.imports.count(first) && first == use) return {n.imports.at(first)};  // a library type
    // Not resolved through the file's names: every project type of that simple name.
    if (auto it = simple_names.find(simple); it != simple_names.end()) return it->second;
    return {use};
  }

  /// The skip a resolved name carries: the project's types through their annotations, other names
  /// (JUnit's own) by their spelling.
  /// `@ExtendWith(X.class)` / `@ExtendWith(X::class)` in `text` with X one of the project's conditions.
  /// A project class that implements ExecutionCondition, directly or through its superclasses
  /// (`class DockerCondition extends EnvCondition`, `abstract class EnvCondition implements
  /// ExecutionCondition`), by simple name, at most 8 levels up.
  bool is_condition(const std::string& simple, int depth = 0) const {
    static const std::set<std::string, std::less<>> kInterfaces = {"ExecutionCondition", "TestExecutionExceptionHandler",
                                                                   "InvocationInterceptor", "LifecycleMethodExecutionExceptionHandler"};
    if (rethrowing.count(simple)) return false;
    if (conditions.count(simple) || kInterfaces.count(simple)) return true;
    if (depth > 8) return false;
    auto it = classes_by_simple.find(simple);
    if (it == classes_by_simple.end()) return false;
    for (const auto& q : it->second) {
      auto [b, e] = classes.equal_range(q);
      for (auto c = b; c != e; ++c)
        for (const auto& sup : c->second.supers)
          if (const std::string s = sup.substr(sup.rfind('.') == std::string::npos ? 0 : sup.rfind('.') + 1); s != simple && is_condition(s, depth + 1))
            return true;
    }
    return false;
  }

  std::optional<std::string> condition_in(const std::string& text) const {
    if (!contains(text, "ExtendWith")) return std::nullopt;
    static const rx::regex ext(R"(ExtendWith\s*\(([^)]*)\))");
    static const rx::regex cls(R"((\w+)\s*(?:\.|::)\s*class\b)");
    for (rx::sregex_iterator it(text.begin(), text.end(), ext), e; it != e; ++it) {
      const std::string args = (*it)[1].str();
      for (rx::sregex_iterator c(args.begin(), args.end(), cls), ce; c != ce; ++c)
        if (is_condition((*c)[1].str())) return "@ExtendWith(" + (*c)[1].str() + "), an ExecutionCondition";
    }
    return std::nullopt;
  }

  std::optional<std::string> skip_of(const std::string& q) const {
    if (auto it = disabling.find(q); it != disabling.end()) return it->second;
    if (decls.count(q)) return std::nullopt;
    return skip_marker("@" + q.substr(q.rfind('.') == std::string::npos ? 0 : q.rfind('.') + 1));
  }

  void settle() {
    static const rx::regex use_re(R"(@\s*([A-Za-z_][\w.]*))");
    for (bool grew = true; grew;) {
      grew = false;
      for (const auto& [q, d] : decls) {
        if (disabling.count(q)) continue;
        std::optional<std::string> why;
        if (!d.target.empty()) {
          for (const auto& r : resolve(d.target, *d.names))
            if (auto m = skip_of(r)) why = *m + (r == d.target ? "" : " (through " + r + ")");
        } else if (auto own = skip_marker(d.mods)) {
          why = *own;
        } else if (auto cond = condition_in(d.mods)) {
          why = *cond;
        } else {
          for (rx::sregex_iterator it(d.mods.begin(), d.mods.end(), use_re), e; it != e && !why; ++it)
            for (const auto& r : resolve((*it)[1].str(), *d.names))
              if (r != q)
                if (auto m = skip_of(r)) why = *m + " (through @" + r + ")";
        }
        if (why) {
          disabling[q] = *why;
          grew = true;
        }
      }
    }
  }
};

/// Java and Kotlin files of the project at the head that declare annotation types or aliases, read
/// through options.read_head_file: files named like a wanted type first, then test sources, then the
/// rest (at most 2,000 files and 32 MiB); the patch's own files are not read from the head.
std::vector<std::string> head_annotation_sources(const std::vector<FileVersions>& files, const IntegrityOptions& options,
                                                 const std::set<std::string>& wanted, bool classes_too) {
  std::vector<std::string> out;
  if (!options.read_head_file || options.project_files.empty()) return out;
  std::set<std::string> patched;
  for (const auto& f : files) patched.insert(f.path);
  auto jvm = [](const std::string& path) { return ends_with(path, ".java") || ends_with(path, ".kt"); };
  std::vector<std::string> order;
  std::set<std::string> named_files;
  for (int pass = 0; pass < 3; ++pass)
    for (const auto& path : options.project_files) {
      if (!jvm(path) || patched.count(path)) continue;
      const std::string base(basename(path));
      const bool named = wanted.count(base.substr(0, base.rfind('.'))) > 0;
      if ((pass == 0 && named) || (pass == 1 && !named && is_test_path(path)) || (pass == 2 && !named && !is_test_path(path)))
        order.push_back(path);
      if (pass == 0 && named) named_files.insert(path);
    }
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < order.size() && i < 2000 && bytes < (std::size_t{32} << 20); ++i) {
    auto text = options.read_head_file(order[i]);
    if (!text) continue;
    bytes += text->size();
    // With a class's supertypes changed, every class: a condition may sit several supertypes up.
    if (contains(*text, "interface") || contains(*text, "annotation class") || contains(*text, "typealias") ||
        contains(*text, "ExecutionCondition") || contains(*text, "ExtendWith") || contains(*text, "RegisterExtension") ||
        (classes_too && (named_files.count(order[i]) || contains(*text, "extends") || contains(*text, "implements") ||
                         contains(*text, " : ") || contains(*text, "ssum") || contains(*text, "bort"))))
      out.push_back(std::move(*text));
  }
  return out;
}

/// JVM: an annotation type that carries a skip (`@Disabled @Retention(RUNTIME) @interface Flaky`,
/// Kotlin `@Disabled annotation class Flaky`), directly or through other such types (`@Quarantined
/// @interface Flaky`) or aliases (`typealias Later = Disabled`, `import ...EnabledOnOs as OnlyOn`),
/// nested in a class or not, declared by the patch or anywhere in the project at the head: JUnit
/// reads meta-annotations, so a test the patch annotates with it is disabled; so is every test
/// annotated with a type whose declaration the patch makes carry a skip.
/// The class and interface declarations of a file: name, what follows up to the body (supertypes,
/// over several lines too) and the lines the header spans.
struct ClassHeader {
  std::string name, rest;
  int first = 0, last = 0;
};

std::vector<ClassHeader> class_headers(const std::string& text) {
  std::vector<ClassHeader> out;
  const std::string head = text.substr(0, std::size_t{1} << 20);
  static const rx::regex class_decl(R"((?:^|[^:.\w@])(?:class|interface)\s+(\w+)\b([^{;=]*))");
  std::size_t counted = 0;
  int line = 1;
  for (rx::sregex_iterator it(head.begin(), head.end(), class_decl), e; it != e; ++it) {
    const auto at = static_cast<std::size_t>(it->position(1));
    line += static_cast<int>(std::count(head.begin() + static_cast<std::ptrdiff_t>(counted), head.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    counted = at;
    const std::string rest = (*it)[2].str();
    out.push_back({(*it)[1].str(), rest, line, line + static_cast<int>(std::count(rest.begin(), rest.end(), '\n'))});
  }
  return out;
}

void jvm_meta_annotation_skips(const std::vector<FileVersions>& files, const IntegrityOptions& options, Findings& out) {
  static const rx::regex use_re(R"((?:^|[\s(,])@\s*([A-Za-z_][\w.]*(?:\s*\.\s*\w+)*)\b(?!\s*(?:class|interface)\b))");
  std::set<std::string> wanted;
  bool any = false;
  for (const auto& f : files) {
    const Lang l = lang_of(f.path);
    if (!f.after || (l != Lang::java && l != Lang::kotlin)) continue;
    any = true;
    for (const auto& [n, line] : added_lines(f.before, f.after)) {
      const std::string l2 = line.substr(0, kRegexLineChars);
      for (rx::sregex_iterator it(l2.begin(), l2.end(), use_re), e; it != e; ++it) {
        const std::string u = (*it)[1].str();
        wanted.insert(u.substr(u.rfind('.') == std::string::npos ? 0 : u.rfind('.') + 1));
      }
      if (contains(l2, "interface") || contains(l2, "annotation class") || contains(l2, "typealias")) wanted.insert("");
      if (contains(l2, "ExtendWith")) wanted.insert("ExtendWith");
    }
  }
  // Class declarations whose header the patch touches (`class CalcTest extends DockerTestBase {`,
  // over several lines too), by file.
  std::map<std::string, std::vector<ClassHeader>> changed_headers;
  for (const auto& f : files) {
    const Lang l = lang_of(f.path);
    if (!f.after || (l != Lang::java && l != Lang::kotlin)) continue;
    std::set<int> added;
    for (const auto& [n, line] : added_lines(f.before, f.after)) added.insert(n);
    for (auto& h : class_headers(*f.after)) {
      if (added.lower_bound(h.first) == added.end() || *added.lower_bound(h.first) > h.last) continue;
      for (const auto& sup : JvmAnnotations::supertypes(h.rest)) wanted.insert(sup.substr(sup.rfind('.') == std::string::npos ? 0 : sup.rfind('.') + 1));
      changed_headers[f.path].push_back(std::move(h));
    }
  }
  if (!any || wanted.empty()) return;
  const std::vector<std::string> head = head_annotation_sources(files, options, wanted, !changed_headers.empty());
  auto build = [&](bool after) {
    JvmAnnotations a;
    for (const auto& t : head) a.add(t);
    for (const auto& f : files) {
      const Lang l = lang_of(f.path);
      const auto& text = after ? f.after : f.before;
      if (text && (l == Lang::java || l == Lang::kotlin)) a.add(*text);
    }
    a.settle();
    return a;
  };
  const JvmAnnotations now = build(true);
  // A class that newly extends or implements a type carrying such a condition (up its supertypes,
  // through a composed annotation or a registered extension field): compared with the class's old
  // declaration by the types the names resolve to. A class the patch adds runs only new tests,
  // unless a failing test names it.
  for (const auto& [path, headers] : changed_headers) {
    const auto f = std::find_if(files.begin(), files.end(), [&](const FileVersions& x) { return x.path == path; });
    const JvmNames names = jvm_names(*f->after);
    const JvmNames old_names = f->before ? jvm_names(*f->before) : JvmNames{};
    const std::vector<ClassHeader> old_headers = f->before ? class_headers(*f->before) : std::vector<ClassHeader>{};
    for (const auto& h : headers) {
      const auto old = std::find_if(old_headers.begin(), old_headers.end(), [&](const ClassHeader& o) { return o.name == h.name; });
      if (old == old_headers.end() &&
          !std::any_of(options.failing_tests.begin(), options.failing_tests.end(), [&](const std::string& id) { return has_word(id, h.name); }))
        continue;
      std::set<std::string> had;
      if (old != old_headers.end())
        for (const auto& sup : JvmAnnotations::supertypes(old->rest))
          for (const auto& r : now.resolve(sup, old_names, true)) had.insert(r);
      for (const auto& sup : JvmAnnotations::supertypes(h.rest)) {
        const auto resolved = now.resolve(sup, names, true);
        if (std::any_of(resolved.begin(), resolved.end(), [&](const std::string& r) { return had.count(r) > 0; })) continue;
        if (auto cond = now.inherited_condition(sup, names)) {
          out.push_back({"skip_added", path, h.first,
                         "class " + h.name + " now extends or implements " + sup + ", which brings " + *cond +
                             " (JUnit inherits @ExtendWith and registered extensions): it decides whether the tests run"});
          return;
        }
      }
    }
  }
  for (const auto& f : files) {
    const Lang l = lang_of(f.path);
    if (!f.after || (l != Lang::java && l != Lang::kotlin)) continue;
    const JvmNames names = jvm_names(*f.after);
    for (const auto& [n, line] : added_lines(f.before, f.after)) {
      static const rx::regex declares(R"(@\s*interface\b)");
      if (rx::regex_search(line, declares)) continue;
      const std::string l2 = line.substr(0, kRegexLineChars);
      if (auto cond = now.condition_in(l2)) {
        out.push_back({"skip_added", f.path, n,
                       "the patch adds " + *cond + " of the project: it decides whether the tests under it run"});
        return;
      }
      for (rx::sregex_iterator it(l2.begin(), l2.end(), use_re), e; it != e; ++it) {
        const std::string use = (*it)[1].str();
        const std::string simple = use.substr(use.rfind('.') == std::string::npos ? 0 : use.rfind('.') + 1);
        for (const auto& r : now.resolve(use, names)) {
          // A project type that carries a skip, or JUnit's own under another name (an import alias).
          std::optional<std::string> why;
          if (auto d = now.disabling.find(r); d != now.disabling.end()) why = d->second;
          else if (!ends_with(r, "." + simple) && r != simple) why = now.skip_of(r);
          if (!why) continue;
          out.push_back({"skip_added", f.path, n,
                         "the patch annotates code with @" + use + ", an annotation type (" + r + ") that carries " + *why +
                             ": JUnit reads meta-annotations, so the tests under it are disabled"});
          return;
        }
      }
    }
  }
  // A declaration the patch changed so that it now carries a skip: every test already annotated
  // with it stops running.
  if (!wanted.count("")) return;
  const JvmAnnotations then = build(false);
  for (const auto& [q, why] : now.disabling)
    if (!then.disabling.count(q))
      for (const auto& f : files)
        if (f.after && (lang_of(f.path) == Lang::java || lang_of(f.path) == Lang::kotlin) &&
            has_word(*f.after, q.substr(q.rfind('.') == std::string::npos ? 0 : q.rfind('.') + 1))) {
          out.push_back({"skip_added", f.path, 0,
                         "the patch makes the annotation type " + q + " carry " + why +
                             ": JUnit reads meta-annotations, so every test annotated with it is disabled"});
          return;
        }
}

}  // namespace

void collection_rules(const std::vector<FileVersions>& files, const IntegrityOptions& options, Findings& out) {
  for (const auto& f : files) {
    if (!f.before) continue;
    const Lang l = lang_of(f.path);
    if (l == Lang::rust) rust_module_rules(f, files, options, out);
    if (!f.after) continue;
    if (l == Lang::python && collectable_test_file(f.path, l)) python_rebinding(f, out);
    if ((l == Lang::java || l == Lang::kotlin) && is_test_path(f.path)) jvm_engine_switch(f, files, out);
    if (is_js(l) && collectable_test_file(f.path, l)) js_runner_globals(f, out);
    if (build_file(f.path)) build_conditions(f, out);
  }
  dropped_test_sources(files, options, out);
  jvm_meta_annotation_skips(files, options, out);
}

}  // namespace flowagent::integrity
