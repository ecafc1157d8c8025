// mocked_code_under_test by name resolution: test-side files and definitions the patch adds that
// the tests reach instead of the production code of the same name.
//   Python  a new module in test code (`tests/calc.py`, `tests/calc/__init__.py`) named like a
//           top-level production module: pytest puts the test's folder (rootdir-relative, the
//           first folder up without __init__.py) first on sys.path, so `import calc` loads it.
//   JVM     a class in a test source set with the fully qualified name of a production class: the
//           test classes come first on the test class path.
//   JS      a jest `__mocks__` file named like a project module (the project's own module replaced;
//           `__mocks__/axios.js` for a third-party package is how jest mocks dependencies).
//   C/C++   a `#define` or a function in test code named like a production function or variable
//           that the test file uses (`#define add(a, b) ((a) + (b))`).
//   Go      an init() or TestMain in a `_test.go` file that assigns package-level state declared by
//           the package's production files (`func init() { offset = 0 }`).
#include <algorithm>
#include <map>
#include <set>

#include "core/regex.hpp"
#include "integrity/guard_internal.hpp"
#include "core/regex_cache.hpp"

namespace flowagent::integrity {

namespace {

/// What the project holds after the patch: its files (head + the patch's new ones - deleted) and a
/// reader that prefers the patch's version.
struct Project {
  const std::vector<FileVersions>& files;
  const IntegrityOptions& o;
  std::set<std::string> paths;

  Project(const std::vector<FileVersions>& f, const IntegrityOptions& opts) : files(f), o(opts) {
    paths.insert(o.project_files.begin(), o.project_files.end());
    for (const auto& c : o.change_files)
      if (c.after) paths.insert(c.path);
    for (const auto& x : files) {
      if (x.after) paths.insert(x.path);
      else paths.erase(x.path);
    }
  }
  bool has(const std::string& p) const { return paths.count(p) > 0; }
  std::optional<std::string> read(const std::string& p) const {
    for (const auto& x : files)
      if (x.path == p) return x.after;
    for (const auto& c : o.change_files)
      if (c.path == p) return c.after;
    if (!o.read_head_file) return std::nullopt;
    return o.read_head_file(p);
  }
  bool new_in_patch(const std::string& p) const {
    return std::any_of(files.begin(), files.end(), [&](const FileVersions& x) { return x.path == p && !x.before && x.after; });
  }
};

bool third_party(std::string_view p) {
  for (std::string_view d : {"node_modules/", "site-packages/", ".venv/", "venv/", "vendor/", "third_party/", "build/", "dist/"})
    if (starts_with(p, d) || contains(p, "/" + std::string(d))) return true;
  return false;
}

bool production(std::string_view p) { return !is_test_path(p) && !third_party(p) && basename(p) != "conftest.py"; }

std::string stem(std::string_view p) {
  std::string b(basename(p));
  return b.substr(0, b.rfind('.'));
}

// ---- Python ---------------------------------------------------------------------------------------

/// The name a file is imported by from the first sys.path folder above it (the first folder up
/// that is not a package): `calc.py` -> calc, `pkg/sub/x.py` (pkg a package) -> pkg.
std::string top_level_module(const Project& pr, const std::string& path) {
  std::string dir = dir_of(path), name = basename(path) == "__init__.py" ? "" : stem(path);
  if (name.empty()) {  // a package: its folder is the module
    name = std::string(basename(dir));
    dir = dir_of(dir);
  }
  while (!dir.empty() && pr.has(dir + "/__init__.py")) {
    name = std::string(basename(dir));
    dir = dir_of(dir);
  }
  return name;
}

/// The patch adds a line that changes Python's module search path (sys.path, pythonpath, rootdir):
/// a module inside a test package can then be found by its bare name too.
bool search_path_changed(const Project& pr) {
  return std::any_of(pr.files.begin(), pr.files.end(), [](const FileVersions& f) {
    const auto added = added_lines(f.before, f.after);
    return std::any_of(added.begin(), added.end(), [](const auto& l) {
      return contains(l.second, "sys.path") || contains(l.second, "pythonpath") || contains(l.second, "PYTHONPATH") ||
             contains(l.second, "rootdir") || contains(l.second, "import-mode") || contains(l.second, "import_mode");
    });
  });
}

void python_shadowing(const Project& pr, Findings& out) {
  std::map<std::string, std::string> prod;  // top-level module name -> a file of it
  for (const auto& p : pr.paths)
    if (ends_with(p, ".py") && production(p) && !pr.new_in_patch(p)) prod.emplace(top_level_module(pr, p), p);
  static const std::set<std::string, std::less<>> kIgnored = {"", "__init__", "__main__", "conftest", "setup", "manage", "noxfile"};
  for (const auto& f : pr.files) {
    // Any new module outside a package (test side or not: a conftest or pytest.ini can put any
    // folder on sys.path) named like a top-level production module elsewhere.
    if (f.before || !f.after || !ends_with(f.path, ".py") || third_party(f.path)) continue;
    const std::string dir = dir_of(f.path);
    // Inside a test package it is `tests.calc`, unless the patch also changes the search path.
    const bool in_package = basename(f.path) == "__init__.py" ? pr.has(dir_of(dir) + "/__init__.py") : pr.has(dir + "/__init__.py");
    if (in_package && !search_path_changed(pr)) continue;
    const std::string name = basename(f.path) == "__init__.py" ? std::string(basename(dir)) : stem(f.path);
    if (kIgnored.count(name)) continue;
    auto it = prod.find(name);
    if (it == prod.end() || it->second == f.path) continue;
    out.push_back({"mocked_code_under_test", f.path, 0,
                   "a new module named " + name + " shadows the project's " + it->second +
                       ": pytest puts the test's folder (and conftest/pythonpath folders) first on sys.path, so `import " + name +
                       "` in the tests can load this file instead of the code under test"});
  }
}

// ---- JVM ------------------------------------------------------------------------------------------

void jvm_shadowing(const Project& pr, Findings& out) {
  static const rx::regex kPackage(R"((?:^|\n)\s*package\s+([\w.]+))");
  static const rx::regex kType(R"((?:^|\n)(?:(?:public|final|abstract|sealed|open|data|internal|enum|annotation)\s+)*(?:class|interface|enum|record|object)\s+(\w+))");
  for (const auto& f : pr.files) {
    const Lang l = lang_of(f.path);
    // Any class the patch adds (a new file, or another top-level class in a changed one), in a test
    // source set or another source folder the build can put first.
    if ((l != Lang::java && l != Lang::kotlin) || !f.after || third_party(f.path)) continue;
    const std::string head = f.after->substr(0, std::size_t{1} << 20);
    const std::string old_head = f.before ? f.before->substr(0, std::size_t{1} << 20) : "";
    rx::smatch m;
    const std::string pkg = rx::regex_search(head, m, kPackage) ? m[1].str() : "";
    std::set<std::string> existed;
    for (auto it = rx::sregex_iterator(old_head.begin(), old_head.end(), kType); it != rx::sregex_iterator(); ++it) existed.insert((*it)[1].str());
    std::string pkg_path = pkg;
    std::replace(pkg_path.begin(), pkg_path.end(), '.', '/');
    for (auto it = rx::sregex_iterator(head.begin(), head.end(), kType); it != rx::sregex_iterator(); ++it) {
      const std::string cls = (*it)[1].str();
      if (existed.count(cls)) continue;
      const std::string tail = (pkg_path.empty() ? "" : pkg_path + "/") + cls;
      for (const auto& p : pr.paths) {
        if (p == f.path || !production(p) || (!ends_with(p, tail + ".java") && !ends_with(p, tail + ".kt"))) continue;
        // The whole path tail (`.../calc/Calc.java`, not `.../mycalc/Calc.java`).
        const std::size_t named = tail.size() + (ends_with(p, ".kt") ? std::size_t{3} : std::size_t{5});
        if (p.size() > named && p[p.size() - named - 1] != '/') continue;
        out.push_back({"mocked_code_under_test", f.path, 0,
                       "a new class " + (pkg.empty() ? cls : pkg + "." + cls) + " has the fully qualified name of " + p +
                           ": the test classes come first on the test class path, so the tests use it instead of the code under test"});
        return;
      }
    }
  }
}

// ---- JS: __mocks__ --------------------------------------------------------------------------------

/// jest/vitest resolution that looks in a test-side folder first (`moduleDirectories: ['node_modules',
/// 'test/fakes']`, `modulePaths`): a bare import of the project's module finds the stand-in there.
void js_resolution_folders(const Project& pr, Findings& out) {
  for (const auto& f : pr.files) {
    const std::string_view base = basename(f.path);
    if (!f.after || !(base == "package.json" || starts_with(base, "jest.config") || starts_with(base, "vitest.config") ||
                      starts_with(base, "vite.config")))
      continue;
    const auto added = added_lines(f.before, f.after);
    for (std::size_t i = 0; i < added.size(); ++i) {
      std::string window = added[i].second;
      for (std::size_t j = i + 1; j < added.size() && j <= i + 4; ++j) window += "\n" + added[j].second;
      if (!contains(added[i].second, "moduleDirectories") && !contains(added[i].second, "modulePaths")) continue;
      for (std::string_view folder : {"test", "__mocks__", "fake", "mock", "stub", "spec"})
        if (contains(window, folder)) {
          out.push_back({"mocked_code_under_test", f.path, added[i].first,
                         "module resolution now looks in a test-side folder, where a stand-in of a project module wins: " +
                             quote(added[i].second)});
          return;
        }
    }
  }
}

void js_mocks_folders(const Project& pr, Findings& out) {
  std::map<std::string, std::string> prod;  // module stem -> a file
  for (const auto& p : pr.paths)
    if (is_js(lang_of(p)) && production(p) && !contains(p, "__mocks__/") && stem(p) != "index") prod.emplace(stem(p), p);
  for (const auto& f : pr.files) {
    if (!f.after || !is_js(lang_of(f.path)) || !contains(f.path, "__mocks__/")) continue;
    if (f.before && f.before == f.after) continue;
    const std::string name = stem(f.path);
    auto it = prod.find(name);
    if (it == prod.end()) continue;
    out.push_back({"mocked_code_under_test", f.path, 0,
                   "a __mocks__ file for the project's own module " + it->second +
                       ": jest loads it in place of the code under test"});
  }
}

// ---- C/C++ ----------------------------------------------------------------------------------------

/// Production C/C++ text (preprocessor lines and comments dropped) of the project, read lazily.
class CppProduction {
 public:
  explicit CppProduction(const Project& pr) : pr_(pr) {}
  bool declares(const std::string& name) {
    load();
    const rx::regex word = detail::cached_regex("\\b" + name + "\\b");
    return std::any_of(texts_.begin(), texts_.end(), [&](const std::string& t) { return rx::regex_search(t, word); });
  }

 private:
  void load() {
    if (loaded_) return;
    loaded_ = true;
    std::size_t bytes = 0;
    for (const auto& p : pr_.paths) {
      if (lang_of(p) != Lang::cpp || !production(p) || texts_.size() >= kImportFilesBudget || bytes >= kImportBytesBudget) continue;
      auto text = pr_.read(p);
      if (!text) continue;
      bytes += text->size();
      std::string code;
      for_each_capped_line(*text, [&](int, const std::string& line) {
        const std::string t = trim(line);
        if (starts_with(t, "#") || starts_with(t, "//") || starts_with(t, "*") || starts_with(t, "/*")) return;
        code += line.substr(0, line.find("//")) + "\n";
      });
      texts_.push_back(std::move(code));
    }
  }
  const Project& pr_;
  bool loaded_ = false;
  std::vector<std::string> texts_;
};

void cpp_shadowing(const Project& pr, Findings& out) {
  CppProduction prod(pr);
  // Build files: a macro defined for the test targets (`-Dadd(a,b)=...`, compile_definitions) or a
  // linker wrap (`-Wl,--wrap=add`) of a production name.
  static const rx::regex kBuildDefine(R"((?:-D\s*|--wrap=)([A-Za-z_]\w*))"), kListed(R"(([A-Za-z_]\w*)(?:\([\w, ]*\))?=)");
  for (const auto& f : pr.files) {
    const std::string_view base = basename(f.path);
    if (!f.after || !(base == "CMakeLists.txt" || ends_with(base, ".cmake") || base == "meson.build" || base == "Makefile" ||
                      base == "BUILD" || base == "BUILD.bazel" || ends_with(base, ".mk")))
      continue;
    for (const auto& [n, line] : added_lines(f.before, f.after)) {
      std::vector<std::string> names;
      for (auto it = rx::sregex_iterator(line.begin(), line.end(), kBuildDefine); it != rx::sregex_iterator(); ++it) names.push_back((*it)[1].str());
      if (contains(line, "compile_definitions") || contains(line, "add_definitions") || contains(line, "defines"))
        for (auto it = rx::sregex_iterator(line.begin(), line.end(), kListed); it != rx::sregex_iterator(); ++it) names.push_back((*it)[1].str());
      for (const auto& name : names)
        if (name.size() > 1 && prod.declares(name)) {
          out.push_back({"mocked_code_under_test", f.path, n,
                         "the build defines or wraps " + name + ", a name of the code under test, for its targets: " + quote(line)});
          return;
        }
    }
  }
  static const rx::regex kDefine(R"(^\s*#\s*define\s+([A-Za-z_]\w*))");
  // A function definition's head: `int add(int a, int b) {`, `static long add(long a, long b)`.
  static const rx::regex kFunction(R"(^\s*(?:(?:static|inline|constexpr|extern)\s+)*[A-Za-z_][\w:<>,\s\*&]*?[\s\*&]([A-Za-z_]\w*)\s*\([^;]*\)\s*(?:const\s*)?(?:noexcept\s*)?\{?\s*$)");
  static const std::set<std::string, std::less<>> kKeywords = {"if", "for", "while", "switch", "return", "sizeof", "catch", "main"};
  // A new test-side header named like a production header: `#include "calc.h"` searches the
  // including file's folder (and the test target's include folders) first.
  std::map<std::string, std::string> headers;  // basename -> a production header
  for (const auto& p : pr.paths)
    if (lang_of(p) == Lang::cpp && !cpp_source_path(p) && production(p) && !pr.new_in_patch(p)) headers.emplace(std::string(basename(p)), p);
  for (const auto& f : pr.files) {
    if (lang_of(f.path) != Lang::cpp || f.before || !f.after || cpp_source_path(f.path) || production(f.path)) continue;
    auto it = headers.find(std::string(basename(f.path)));
    if (it == headers.end()) continue;
    out.push_back({"mocked_code_under_test", f.path, 0,
                   "a new test-side header with the name of " + it->second + ": an #include \"" + it->first +
                       "\" from the tests finds it first, in place of the code under test's declarations"});
  }
  for (const auto& f : pr.files) {
    if (lang_of(f.path) != Lang::cpp || !f.after || production(f.path)) continue;
    for (const auto& [n, line] : added_lines(f.before, f.after)) {
      rx::smatch m;
      std::string name;
      bool macro = false;
      if (rx::regex_search(line, m, kDefine)) name = m[1].str(), macro = true;
      else if (rx::regex_search(line, m, kFunction) && !contains(line, "TEST")) name = m[1].str();
      if (starts_with(name, "__wrap_")) name = name.substr(7);  // the linker's --wrap replacement of `name`
      if (name.empty() || kKeywords.count(name) || starts_with(name, "_")) continue;
      // A macro of a production name replaces every later use; a function counts when the file
      // uses it beyond its definition (a header's definitions are used by the files including it).
      const bool header = lang_of(f.path) == Lang::cpp && !cpp_source_path(f.path);
      if (!macro && !header) {
        const rx::regex use = detail::cached_regex("\\b" + name + "\\b");
        if (std::distance(rx::sregex_iterator(f.after->begin(), f.after->end(), use), rx::sregex_iterator()) < 2) continue;
      }
      if (!prod.declares(name)) continue;
      out.push_back({"mocked_code_under_test", f.path, n,
                     "test code defines " + name + ", a name of the code under test: the test calls this definition "
                     "instead of the production one (" + quote(line) + ")"});
      break;
    }
  }
}

// ---- Go -------------------------------------------------------------------------------------------

/// Package-level variables the production files of a Go package folder declare.
std::set<std::string> go_package_vars(const Project& pr, const std::string& dir) {
  std::set<std::string> out;
  static const rx::regex kVar(R"(^var\s+(\w+))"), kInBlock(R"(^\s+(\w+)(?:\s*,\s*(\w+))*\s*(?:[\w.\[\]\*]+\s*)?(?:=|$))");
  for (const auto& p : pr.paths) {
    if (dir_of(p) != dir || !ends_with(p, ".go") || ends_with(p, "_test.go")) continue;
    auto text = pr.read(p);
    if (!text) continue;
    bool block = false;
    for_each_capped_line(*text, [&](int, const std::string& line) {
      rx::smatch m;
      if (starts_with(line, "var (")) block = true;
      else if (block && starts_with(line, ")")) block = false;
      else if (block && rx::regex_search(line, m, kInBlock)) out.insert(m[1].str());
      else if (rx::regex_search(line, m, kVar)) out.insert(m[1].str());
    });
  }
  return out;
}

/// A top-level function (or a `var x = func() ...` initializer) of a Go file: its lines and text.
struct GoRegion {
  int first = 0, last = 0;
  bool setup = false;  ///< init(), TestMain or a package-level initializer: runs before every test
  std::string text;
};

std::vector<GoRegion> go_regions(const std::string& src) {
  std::vector<GoRegion> out;
  int depth = 0;
  bool open = false;
  for_each_capped_line(src, [&](int n, const std::string& line) {
    if (!open && (starts_with(line, "func ") || (starts_with(line, "var ") && contains(line, "func(")))) {
      open = true;
      depth = 0;
      out.push_back({n, n, starts_with(line, "func init()") || starts_with(line, "func TestMain(") || starts_with(line, "var "), ""});
    }
    if (!open) return;
    out.back().last = n;
    out.back().text += line + "\n";
    depth += static_cast<int>(std::count(line.begin(), line.end(), '{')) - static_cast<int>(std::count(line.begin(), line.end(), '}'));
    if (depth <= 0 && contains(line, "}")) open = false;
  });
  return out;
}

void go_init_state(const Project& pr, Findings& out) {
  // `offset = 0`, `calc.Offset = 0`, `scale, offset = 1, 0`, `table["k"] = v`, `n += 1`.
  static const rx::regex kAssign(R"(^\s*([\w.]+(?:\[[^\]]*\])?(?:\s*,\s*[\w.]+)*)\s*(?:=|\+=|-=|\*=|/=|\|=|&=)[^=])");
  for (const auto& f : pr.files) {
    if (!ends_with(f.path, "_test.go") || !f.after) continue;
    const auto regions = go_regions(*f.after);
    std::optional<std::set<std::string>> vars;
    for (const auto& [n, line] : added_lines(f.before, f.after)) {
      if (starts_with(trim(line), "//go:linkname")) {
        out.push_back({"mocked_code_under_test", f.path, n,
                       "test code binds a symbol of another package by its linker name, which can replace the code under test: " + quote(line)});
        break;
      }
      // Every statement of the line: `func init() { offset = 0 }`, `var _ = func() int { offset = 0; return 0 }()`.
      rx::smatch m;
      std::string statement, cur;
      for (char ch : line + ";") {
        if (ch != '{' && ch != '}' && ch != ';') {
          cur += ch;
          continue;
        }
        if (rx::regex_search(cur, kAssign)) {
          statement = cur;
          break;
        }
        cur.clear();
      }
      if (statement.empty() || !rx::regex_search(statement, m, kAssign)) continue;
      auto region = std::find_if(regions.begin(), regions.end(), [&](const GoRegion& r) { return r.first <= n && n <= r.last; });
      if (region == regions.end()) continue;
      if (!vars) vars = go_package_vars(pr, dir_of(f.path));
      std::string hit;
      for (auto target : split_top(m[1].str(), {","})) {
        target = trim(target.substr(0, target.find('[')));
        if (auto dot = target.rfind('.'); dot != std::string::npos) target = target.substr(dot + 1);
        if (vars->count(target) && !external_looking(target)) hit = target;
      }
      if (hit.empty()) continue;
      // A test that sets package state and puts it back (`old := offset; offset = 0; defer func()
      // { offset = old }()`, t.Cleanup) configures the code for itself; init()/TestMain and a test
      // that leaves the state changed rewrite it for every test that runs after.
      if (!region->setup) {
        const rx::regex assign = detail::cached_regex("\\b" + hit + "\\s*(?:,[^=\\n]*)?=[^=]");
        const auto assigns = std::distance(rx::sregex_iterator(region->text.begin(), region->text.end(), assign), rx::sregex_iterator());
        if ((contains(region->text, "defer ") || contains(region->text, "Cleanup(")) && assigns >= 2) continue;
      }
      out.push_back({"mocked_code_under_test", f.path, n,
                     std::string(region->setup ? "an init()/TestMain/package initializer" : "a test that does not restore it") +
                         " in test code assigns " + hit + ", package state of the code under test, for the tests that run after: " +
                         quote(line)});
      break;
    }
  }
}

}  // namespace

void shadowing_rules(const std::vector<FileVersions>& files, const IntegrityOptions& options, Findings& out) {
  const Project pr(files, options);
  python_shadowing(pr, out);
  jvm_shadowing(pr, out);
  js_mocks_folders(pr, out);
  js_resolution_folders(pr, out);
  cpp_shadowing(pr, out);
  go_init_state(pr, out);
}

}  // namespace flowagent::integrity
