// Tests the runner no longer collects although their code is still there: through the build graph
// (a Rust module declaration removed or put under another cfg, a test source dropped from every
// CMake/Meson/Bazel/Make list while the file stays) and through the conditions a test definition
// sits under (a Python or JS `if` around a test). Name, visibility and class rules of each runner
// live in the lang_*.cpp unit recognizers (UnitInfo::collectable / hidden_by).
#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <utility>

#include "integrity/guard_internal.hpp"

namespace flowagent::integrity {

std::string definition_condition(const Syntax& s, TSNode n, Lang lang) {
  std::string conds;
  TSNode child = n;
  for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); child = p, p = ts_node_parent(p)) {
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

bool never_true_condition(std::string_view cond) {
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
  // sys.version_info OP (major, minor): false for every Python 3.0 - 3.99.
  static const std::regex kVersion(R"(^sys\.version_info(?:\[:?\d?\])?(<=|>=|<|>|==)\((\d{1,4}),?(\d{1,4})?[^)]*\)$)");
  std::smatch m;
  const std::string head = c.substr(0, kRegexLineChars);
  if (!std::regex_match(head, m, kVersion)) return false;
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
  static const std::regex kDecl(R"(^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;)");
  std::string attrs;
  for_each_capped_line(*text, [&](int n, const std::string& line) {
    const std::string t = trim(line);
    if (starts_with(t, "#[")) {
      attrs += strip_spaces(t);
      return;
    }
    std::smatch m;
    if (std::regex_search(line, m, kDecl)) out.push_back({m[1].str(), attrs, n});
    if (!t.empty() && !starts_with(t, "//")) attrs.clear();
  });
  return out;
}

bool inline_module(const std::optional<std::string>& text, const std::string& name) {
  if (!text) return false;
  const std::regex inline_mod("(^|\\n)\\s*(?:pub(?:\\([^)]*\\))?\\s+)?mod\\s+" + name + "\\s*\\{");
  return std::regex_search(text->substr(0, std::size_t{1} << 20), inline_mod);
}

/// Files a `mod name;` in `file` may name (`#[path = "..."]` first).
std::vector<std::string> module_files(const std::string& file, const ModDecl& d) {
  const std::string dir = dir_of(file);
  static const std::regex kPath(R"re(#\[path="([^"]+)"\])re");
  std::smatch m;
  if (std::regex_search(d.attrs, m, kPath)) return {join(dir, m[1].str())};
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
    std::smatch m;
    static const std::regex kCfg(R"(#\[cfg\((.*?)\)\])");
    if (!was_test || a->attrs == b.attrs || !std::regex_search(a->attrs, m, kCfg) || m[1].str() == "test") continue;
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
  static const std::regex kRebind(
      R"(^\s*(?:del\s+((?:test|Test)\w*(?:\s*,\s*\w+)*)\s*$|((?:\w+\s*,\s*)*(?:test|Test)\w*(?:\s*,\s*\w+)*)\s*(?::[^=]+)?=[^=]|(Test\w*)\.(test\w*)\s*=[^=]))");
  // Through the module's namespace: globals().pop("test_add"), del globals()['test_add'],
  // vars()['test_add'] = ..., delattr(sys.modules[__name__], 'test_add'), setattr(module, ...),
  // globals().update(test_add=None); a computed name (`if n.startswith("test_")`) removes them all.
  static const std::regex kNamespace(
      R"((?:globals|vars|locals)\s*\(\s*\)|sys\s*\.\s*modules\s*\[\s*__name__\s*\]|__dict__|(?:delattr|setattr)\s*\()");
  static const std::regex kQuotedTest(R"(['"]((?:test|Test)\w*)['"])");
  static const std::regex kModuleNamespace(R"((?:globals|vars|locals)\s*\(\s*\)|sys\s*\.\s*modules\s*\[\s*__name__\s*\])");
  static const std::regex kKeyword(R"(\b((?:test|Test)\w*)\s*=[^=])");
  static const std::regex kWord(R"(\w+)");
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
    std::smatch m;
    std::vector<std::string> names;
    bool computed = false;
    if (std::regex_search(line, m, kRebind)) {
      if (m[3].matched) {
        names.push_back(m[4].str());
      } else {
        const std::string list = m[1].matched ? m[1].str() : m[2].str();
        for (std::sregex_iterator w(list.begin(), list.end(), kWord), e; w != e; ++w) names.push_back(w->str());
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
    } else if (std::regex_search(window, kNamespace)) {
      for (std::sregex_iterator q(window.begin(), window.end(), kQuotedTest), e; q != e; ++q) {
        const std::string name = (*q)[1].str();
        if (defines(name)) names.push_back(name);
        else if (defines_prefixed(name) && std::regex_search(window, kModuleNamespace)) computed = true;
      }
      for (std::sregex_iterator k(window.begin(), window.end(), kKeyword), e; k != e; ++k) names.push_back((*k)[1].str());
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
  static const std::regex kAbstract(R"(^\s*(?:public\s+|internal\s+)?abstract\s+class\s+(\w+))");
  for (const auto& [n, line] : added_lines(f.before, f.after)) {
    std::smatch m;
    if (!std::regex_search(line, m, kAbstract)) continue;
    const std::regex was("(^|\\n)\\s*(?:public\\s+|final\\s+|open\\s+|internal\\s+)*class\\s+" + m[1].str() + "\\b");
    if (!std::regex_search(before.substr(0, std::size_t{1} << 20), was)) continue;
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
  static const std::regex kShadow(
      R"(^\s*(?:(?:export\s+)?(?:const|let|var)\s+(test|it|describe|specify)\s*=\s*(.*)|(?:async\s+)?function\s*\*?\s*(test|it|describe|specify)\s*\(|(?:globalThis|global|window)\.(test|it|describe|specify)\s*=[^=]))");
  for (const auto& [n, line] : added_lines(f.before, f.after)) {
    std::smatch m;
    if (!std::regex_search(line, m, kShadow)) continue;
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
  static const std::regex kFalse(R"(^\s*(?:if|elseif)\s*\(\s*(?:FALSE|OFF|NO|N|0|IGNORE|NOTFOUND|false|off|no)\s*\))");
  for (const auto& [n, line] : added_lines(f.before, f.after)) {
    if (!std::regex_search(line, kFalse)) continue;
    out.push_back({"collection_disabled", f.path, n, "a build-file condition that is never true now encloses targets: " + quote(line)});
    return;
  }
  if (basename(f.path) != "CMakeLists.txt") return;
  // A test folder's build dropped as a whole.
  static const std::regex kSubdir(R"(^\s*add_subdirectory\s*\(\s*["']?([^\s"')]+))");
  for (const auto& [n, line] : removed_lines(f.before, f.after)) {
    std::smatch m;
    if (!std::regex_search(line, m, kSubdir)) continue;
    const std::string dir = join(dir_of(f.path), m[1].str());
    if (!in_test_folder(dir + "/") || contains(*f.after, m[1].str())) continue;
    out.push_back({"collection_disabled", f.path, n, "add_subdirectory(" + m[1].str() + ") was removed: the tests built there no longer build or run"});
    return;
  }
  const auto enables = [](const std::string& t) { return contains(t, "enable_testing(") || contains(t, "include(CTest)"); };
  if (enables(*f.before) && !enables(*f.after))
    out.push_back({"collection_disabled", f.path, 0, "enable_testing()/include(CTest) was removed: ctest no longer finds the tests"});
}

/// JVM: an annotation type that carries a skip (`@Disabled @Retention(RUNTIME) @interface Flaky`,
/// Kotlin `@Disabled annotation class Flaky`), directly or through another such type (`@Quarantined
/// @interface Flaky`) or an alias (`import ...Disabled as Later`, `typealias Later = Disabled`),
/// declared at top level or nested in a class: JUnit reads meta-annotations, so a test annotated
/// `@Flaky` is disabled. Annotation types the files declare, by simple name -> the marker.
std::map<std::string, std::string> disabling_annotations(const std::vector<FileVersions>& files) {
  std::map<std::string, std::string> out;
  std::map<std::string, std::string> mods_of;  // annotation type -> its own annotations
  std::map<std::string, std::string> alias_of;  // alias -> the simple name it stands for
  static const std::regex kDecl(R"(@interface\s+(\w+)|\bannotation\s+class\s+(\w+))");
  static const std::regex kComment(R"(/\*[\s\S]*?\*/|//[^\n]*)");
  static const std::regex kAlias(R"(\bimport\s+[\w.]*?\b(\w+)\s+as\s+(\w+)|\btypealias\s+(\w+)\s*=\s*(?:[\w.]*\.)?(\w+)\b)");
  for (const auto& f : files) {
    const Lang l = lang_of(f.path);
    if (!f.after || (l != Lang::java && l != Lang::kotlin)) continue;
    const std::string head = f.after->substr(0, std::size_t{1} << 20);
    for (std::sregex_iterator it(head.begin(), head.end(), kDecl), e; it != e; ++it) {
      // The declaration's own annotations: back to the end of the previous declaration or import.
      const auto at = static_cast<std::size_t>(it->position());
      const auto prev = head.find_last_of(";}", at == 0 ? 0 : at - 1);
      std::string mods = head.substr(prev == std::string::npos ? 0 : prev + 1, at - (prev == std::string::npos ? 0 : prev + 1));
      // Its documentation is not its annotations (`/** Not {@link Disabled}; tags only. */`).
      mods_of[(*it)[1].matched ? (*it)[1].str() : (*it)[2].str()] = std::regex_replace(mods, kComment, " ");
    }
    for (std::sregex_iterator it(head.begin(), head.end(), kAlias), e; it != e; ++it)
      alias_of[(*it)[2].matched ? (*it)[2].str() : (*it)[3].str()] = (*it)[1].matched ? (*it)[1].str() : (*it)[4].str();
  }
  for (const auto& [name, mods] : mods_of)
    if (auto m = skip_marker(mods)) out[name] = *m;
  for (const auto& [alias, target] : alias_of)
    if (target == "Disabled" || target == "Ignore") out[alias] = "@" + target;
  // Through other annotation types and aliases, as deep as they go.
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [name, mods] : mods_of) {
      if (out.count(name)) continue;
      static const std::regex kUse(R"(@(?:\w+\.)*(\w+))");
      for (std::sregex_iterator it(mods.begin(), mods.end(), kUse), e; it != e; ++it)
        if (auto d = out.find((*it)[1].str()); d != out.end() && (*it)[1].str() != name) {
          out[name] = d->second + " (through @" + d->first + ")";
          grew = true;
          break;
        }
    }
    for (const auto& [alias, target] : alias_of)
      if (!out.count(alias) && out.count(target)) {
        out[alias] = out[target] + " (through " + target + ")";
        grew = true;
      }
  }
  return out;
}

/// Annotation types the patch newly applies, declared by the project at the head, read through
/// options.read_head_file: files named like a type first (`Flaky.java`), then the project's other
/// Java and Kotlin files that declare annotation types or aliases (nested in a class, several in
/// one file, chained; at most 400 files and 16 MiB). The patch's own versions of files win.
void head_disabling_annotations(const std::vector<FileVersions>& files, const IntegrityOptions& options,
                                std::map<std::string, std::string>& out) {
  if (!options.read_head_file || options.project_files.empty()) return;
  static const std::regex kUse(R"((?:^|\s)@(?:[A-Za-z]\w*\.)*([A-Z]\w*)\b)");
  static const std::set<std::string, std::less<>> kKnown = {
      "Test", "Override", "Disabled", "Ignore", "BeforeEach", "AfterEach", "BeforeAll", "AfterAll", "Before", "After",
      "BeforeClass", "AfterClass", "ParameterizedTest", "ValueSource", "CsvSource", "MethodSource", "Nested", "Tag",
      "DisplayName", "Timeout", "RepeatedTest", "TestFactory", "ExtendWith", "Mock", "Spy", "InjectMocks", "Deprecated",
      "SuppressWarnings", "FunctionalInterface", "SafeVarargs", "JvmStatic", "JvmField", "Throws", "RunWith"};
  std::set<std::string> wanted;
  std::set<std::string> patched;
  for (const auto& f : files) {
    patched.insert(f.path);
    const Lang l = lang_of(f.path);
    if (!f.after || (l != Lang::java && l != Lang::kotlin)) continue;
    for (const auto& [n, line] : added_lines(f.before, f.after)) {
      const std::string l2 = line.substr(0, kRegexLineChars);
      for (std::sregex_iterator it(l2.begin(), l2.end(), kUse), e; it != e; ++it)
        if (!kKnown.count((*it)[1].str()) && !out.count((*it)[1].str())) wanted.insert((*it)[1].str());
    }
  }
  if (wanted.empty()) return;
  std::vector<FileVersions> declared = files;
  std::set<std::string> read;
  std::size_t reads = 0, bytes = 0;
  auto take = [&](const std::string& path, bool named) {
    if (patched.count(path) || read.count(path) || ++reads > 400 || bytes > (std::size_t{16} << 20)) return;
    read.insert(path);
    auto text = options.read_head_file(path);
    if (!text) return;
    bytes += text->size();
    if (named || contains(*text, "@interface") || contains(*text, "annotation class") || contains(*text, "typealias") ||
        contains(*text, " as "))
      declared.push_back({path, text, text});
  };
  auto jvm = [](const std::string& path) { return ends_with(path, ".java") || ends_with(path, ".kt"); };
  for (const auto& path : options.project_files) {
    const std::string base(basename(path));
    if (jvm(path) && wanted.count(base.substr(0, base.rfind('.')))) take(path, true);
  }
  for (const auto& path : options.project_files)
    if (jvm(path)) take(path, false);
  for (auto& [name, marker] : disabling_annotations(declared)) out.emplace(name, marker);
}

/// Tests the patch annotates with such an annotation type.
void jvm_meta_annotation_skips(const std::vector<FileVersions>& files, const IntegrityOptions& options, Findings& out) {
  auto disabling = disabling_annotations(files);
  head_disabling_annotations(files, options, disabling);
  if (disabling.empty()) return;
  for (const auto& f : files) {
    const Lang l = lang_of(f.path);
    if (!f.after || (l != Lang::java && l != Lang::kotlin)) continue;
    for (const auto& [n, line] : added_lines(f.before, f.after))
      for (const auto& [name, marker] : disabling)
        if (std::regex_search(line.substr(0, kRegexLineChars), std::regex("(^|\\s)@(?:\\w+\\.)*" + name + "\\b(?!\\s*(?:class|interface)\\b)")) &&
            !contains(line, "@interface")) {
          out.push_back({"skip_added", f.path, n,
                         "the patch annotates code with @" + name + ", an annotation type that carries " + marker +
                             ": JUnit reads meta-annotations, so the tests under it are disabled"});
          return;
        }
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
