// What the tests reach beyond their own files: the project modules they import (Python, JS/TS, Go,
// Java/Kotlin, C/C++ and Rust imports, any depth within a budget of files and bytes), skip calls
// placed outside any test (in a helper, a helper module, the code under test), and assertion
// functions patched from any module.
#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include "core/regex.hpp"

#include "integrity/guard_internal.hpp"
#include "core/regex_cache.hpp"

namespace flowagent::integrity {

std::string dir_of(std::string_view path) {
  auto p = path.rfind('/');
  return p == std::string_view::npos ? std::string() : std::string(path.substr(0, p));
}

/// `a/./b/../c` -> `a/c`; "" when it climbs out of the repository.
std::string normalize(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t p = 0;
  while (p <= path.size()) {
    auto e = path.find('/', p);
    if (e == std::string::npos) e = path.size();
    const std::string seg = path.substr(p, e - p);
    if (seg == "..") {
      if (parts.empty()) return {};
      parts.pop_back();
    } else if (!seg.empty() && seg != ".") {
      parts.push_back(seg);
    }
    p = e + 1;
  }
  std::string out;
  for (const auto& s : parts) out += (out.empty() ? "" : "/") + s;
  return out;
}

std::string join(const std::string& dir, const std::string& rel) { return normalize(dir.empty() ? rel : dir + "/" + rel); }

namespace {

/// What resolving an import needs beyond the importing file: the project's files (by path and by
/// folder), the Go module path (go.mod), JS specifier maps (package.json "imports", tsconfig/
/// jsconfig `paths`, jest `moduleNameMapper` with plain prefixes) and Java/Kotlin source roots.
struct Resolver {
  const std::set<std::string>& known;
  std::map<std::string, std::vector<std::string>> by_dir;        ///< folder -> files in it
  std::map<std::string, std::vector<std::string>> jvm_classes;   ///< `com/x/Foo` -> files (under src/<set>/{java,kotlin}/: main, test, testFixtures, ...)
  std::string go_module;                                         ///< `module` of go.mod
  /// JS specifier maps: (specifier prefix, exact?) -> (path prefix, path suffix).
  struct Alias {
    std::string from;
    bool exact;
    std::string to, suffix;
  };
  std::vector<Alias> js_aliases;

  Resolver(const std::set<std::string>& k, const std::function<std::optional<std::string>(const std::string&)>& text_of) : known(k) {
    static const rx::regex jvm_root(R"((?:^|/)src/\w+/(?:java|kotlin)/(.+)\.(?:java|kt)$)");
    for (const auto& p : known) {
      by_dir[dir_of(p)].push_back(p);
      rx::smatch m;
      if ((ends_with(p, ".java") || ends_with(p, ".kt")) && rx::regex_search(p, m, jvm_root)) jvm_classes[m[1].str()].push_back(p);
    }
    if (known.count("go.mod"))
      if (auto t = text_of("go.mod")) {
        static const rx::regex module_re(R"(^\s*module\s+"?([^\s"]+))");
        for_each_capped_line(*t, [&](int, const std::string& line) {
          rx::smatch m;
          if (go_module.empty() && rx::regex_search(line, m, module_re)) go_module = m[1].str();
        });
      }
    read_js_maps(text_of);
  }

  void alias(const std::string& from, const std::string& target, const std::string& base) {
    const auto star = from.find('*');
    const auto tstar = target.find('*');
    std::string to = target;
    if (starts_with(to, "<rootDir>/")) to = to.substr(10);
    if (star == std::string::npos || tstar == std::string::npos) {
      if (star == std::string::npos && tstar == std::string::npos) js_aliases.push_back({from, true, join(base, to), ""});
      return;
    }
    const std::string prefix = join(base, to.substr(0, tstar));
    js_aliases.push_back({from.substr(0, star), false, prefix.empty() ? prefix : prefix + "/", to.substr(tstar + 1)});
  }

  void read_js_maps(const std::function<std::optional<std::string>(const std::string&)>& text_of) {
    static const rx::regex entry(R"re("([^"]+)"\s*:\s*(?:\[\s*)?"([^"]+)")re");
    // The object following `"key": {` (balanced braces; strings are not expected to hold braces).
    auto object_after = [](const std::string& text, const std::string& key) -> std::string {
      const auto k = text.find("\"" + key + "\"");
      if (k == std::string::npos) return {};
      const auto open = text.find('{', k);
      if (open == std::string::npos) return {};
      int depth = 0;
      for (std::size_t i = open; i < text.size(); ++i) {
        if (text[i] == '{') ++depth;
        if (text[i] == '}' && --depth == 0) return text.substr(open + 1, std::min<std::size_t>(i - open - 1, 100000));
      }
      return {};
    };
    // Line by line, each line capped (std::regex recurses per character: a crafted long string in a
    // configuration must not exhaust the stack). An entry split over lines (`"#c": {` then
    // `"node": "./c.js"`) belongs to the key that opened it.
    auto entries = [&](const std::string& obj, const std::function<void(const std::string&, const std::string&)>& fn) {
      static const rx::regex opens(R"re("([^"]{1,200})"\s*:\s*\{)re");
      std::string open_key;
      for_each_capped_line(obj, [&](int, const std::string& line) {
        rx::smatch m;
        if (rx::regex_search(line, m, opens)) open_key = m[1].str();
        for (rx::sregex_iterator it(line.begin(), line.end(), entry), end; it != end; ++it) {
          fn((*it)[1].str(), (*it)[2].str());
          if (!open_key.empty()) fn(open_key, (*it)[2].str());  // a conditional target: {"node": "./c.js"}
        }
        if (contains(line, "}")) open_key.clear();
      });
    };
    if (known.count("package.json"))
      if (auto t = text_of("package.json")) {
        // "imports": { "#x": "./src/x.js", "#u/*": "./src/u/*.js", "#c": { "node": "./c.js" } }
        entries(object_after(*t, "imports"), [&](const std::string& k, const std::string& v) {
          if (starts_with(k, "#")) alias(k, v, "");
        });
        read_mapper(object_after(*t, "moduleNameMapper"));
      }
    for (const char* cfg : {"tsconfig.json", "jsconfig.json"}) {
      if (!known.count(cfg)) continue;
      auto t = text_of(cfg);
      if (!t) continue;
      static const rx::regex base_re(R"re("baseUrl"\s*:\s*"([^"]*)")re");
      std::string base;
      for_each_capped_line(*t, [&](int, const std::string& line) {
        rx::smatch m;
        if (contains(line, "baseUrl") && rx::regex_search(line, m, base_re)) base = join("", m[1].str());
      });
      entries(object_after(*t, "paths"), [&](const std::string& k, const std::string& v) { alias(k, v, base); });
    }
    for (const char* cfg : {"jest.config.js", "jest.config.ts", "jest.config.cjs", "jest.config.mjs", "jest.config.json"}) {
      if (!known.count(cfg)) continue;
      if (auto t = text_of(cfg)) {
        const auto k = t->find("moduleNameMapper");
        if (k == std::string::npos) continue;
        const auto open = t->find('{', k), close = open == std::string::npos ? open : t->find('}', open);
        if (close != std::string::npos) read_mapper(t->substr(open + 1, close - open - 1));
      }
    }
  }

  /// jest moduleNameMapper entries with a plain prefix: `"^@/(.*)$": "<rootDir>/src/$1"`,
  /// `"^config$": "<rootDir>/src/config.js"`.
  void read_mapper(const std::string& obj) {
    static const rx::regex prefix_re(R"re(['"]\^?([\w@~#/.-]*)\(\.\*\)\$?['"]\s*:\s*['"](?:<rootDir>/)?([^'"$]*)\$1([^'"]*)['"])re");
    static const rx::regex exact_re(R"re(['"]\^([\w@~#/.-]+)\$['"]\s*:\s*['"](?:<rootDir>/)?([^'"$]+)['"])re");
    for_each_capped_line(obj, [&](int, const std::string& line) {
      for (rx::sregex_iterator it(line.begin(), line.end(), prefix_re), end; it != end; ++it) {
        const std::string to = join("", (*it)[2].str());
        js_aliases.push_back({(*it)[1].str(), false, to.empty() ? to : to + "/", (*it)[3].str()});
      }
      for (rx::sregex_iterator it(line.begin(), line.end(), exact_re), end; it != end; ++it)
        js_aliases.push_back({(*it)[1].str(), true, join("", (*it)[2].str()), ""});
    });
  }

  /// Project paths `text` (the file at `path`) imports, among `known`.
  std::vector<std::string> imported_paths(const std::string& path, const std::string& text, Lang lang) const {
    std::vector<std::string> out;
    auto take = [&](const std::string& p) {
      if (!p.empty() && known.count(p) && p != path && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    };
    auto take_dir = [&](const std::string& d, const std::function<bool(const std::string&)>& keep) {
      if (auto it = by_dir.find(d); it != by_dir.end())
        for (const auto& p : it->second)
          if (keep(p)) take(p);
    };
    const std::string dir = dir_of(path);
    // Python: folders put on sys.path by the file (`sys.path.insert(0, "tests/support")`,
    // `os.path.join(os.path.dirname(__file__), "support")`), searched by its absolute imports.
    std::vector<std::string> py_extra;
    if (lang == Lang::python) {
      static const rx::regex sys_path(R"re(\bsys\s*\.\s*path\s*\.\s*(?:insert\s*\(\s*-?\d+\s*,|append\s*\()\s*(.*))re");
      static const rx::regex literal(R"re(['"]([\w./-]+)['"])re");
      for_each_capped_line(text, [&](int, const std::string& line) {
        rx::smatch m;
        if (!rx::regex_search(line, m, sys_path)) return;
        const std::string arg = m[1].str();
        // The literal parts in order (`os.path.join(os.path.dirname(__file__), "..", "vendor")`),
        // relative to the file when the expression starts from `__file__`.
        std::string rel;
        for (rx::sregex_iterator it(arg.begin(), arg.end(), literal), end; it != end; ++it) rel += (rel.empty() ? "" : "/") + (*it)[1].str();
        if (contains(arg, "__file__")) {
          py_extra.push_back(join(dir, rel));
        } else if (!rel.empty()) {
          py_extra.push_back(join("", rel));
          py_extra.push_back(join(dir, rel));
        }
      });
    }
    bool go_block = false;
    auto go_import = [&](const std::string& ip) {
      if (go_module.empty() || !(ip == go_module || starts_with(ip, go_module + "/"))) return;
      const std::string d = ip == go_module ? std::string() : ip.substr(go_module.size() + 1);
      take_dir(d, [](const std::string& p) { return ends_with(p, ".go") && !ends_with(p, "_test.go"); });
    };
    if (lang == Lang::go && ends_with(path, "_test.go"))  // the package's own files are compiled into its test
      take_dir(dir, [](const std::string& p) { return ends_with(p, ".go") && !ends_with(p, "_test.go"); });
    if ((lang == Lang::java || lang == Lang::kotlin) && is_test_path(path)) {
      // Same-package classes need no import: beside the test, and in every source set.
      take_dir(dir, [](const std::string& p) { return ends_with(p, ".java") || ends_with(p, ".kt"); });
      static const rx::regex own(R"((?:^|/)src/\w+/(?:java|kotlin)/(.+)\.(?:java|kt)$)");
      rx::smatch m;
      if (rx::regex_search(path, m, own)) {
        const std::string package = dir_of(m[1].str());
        for (const auto& [name, paths] : jvm_classes)
          if (dir_of(name) == package)
            for (const auto& p : paths) take(p);
      }
    }
    // Lines that can import at all (the regular expressions are slow; most lines are not imports).
    static constexpr std::string_view kPyWords[] = {"import", "run_path", "open(", "Loader", "spec_from"};
    static constexpr std::string_view kJsWords[] = {"require", "import", "from"};
    static constexpr std::string_view kCppWords[] = {"include"};
    static constexpr std::string_view kRustWords[] = {"mod ", "use "};
    auto may_import = [&](const std::string& line) {
      auto any = [&](const auto& words) { return std::any_of(std::begin(words), std::end(words), [&](auto w) { return contains(line, w); }); };
      if (lang == Lang::python) return any(kPyWords);
      if (is_js(lang)) return any(kJsWords);
      if (lang == Lang::cpp) return any(kCppWords);
      if (lang == Lang::rust) return any(kRustWords);
      return go_block || contains(line, "import");  // Go (inside an import block too), Java/Kotlin
    };
    for_each_capped_line(text, [&](int, const std::string& line) {
      if (!may_import(line)) return;
      rx::smatch m;
      if (lang == Lang::python) {
        static const rx::regex from(R"(^\s*from\s+(\.*)([\w.]*)\s+import\s+\(?([\w\s,*]+))");
        static const rx::regex imp(R"(^\s*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*))");
        static const rx::regex dynamic(R"re(\b(?:import_module|__import__)\s*\(\s*['"]([\w.]+)['"])re");
        static const rx::regex word(R"(\w+)");
        std::vector<std::pair<std::string, std::vector<std::string>>> modules;  // (slash path, bases)
        std::vector<std::string> bases;
        if (rx::regex_search(line, m, from)) {
          const std::size_t dots = m[1].length();
          std::string mod = m[2].str();
          std::replace(mod.begin(), mod.end(), '.', '/');
          if (dots > 0) {
            std::string base = dir;
            for (std::size_t i = 1; i < dots; ++i) base = dir_of(base);
            bases = {base};
          }
          std::vector<std::string> mods = {mod};
          const std::string names = m[3].str();
          for (rx::sregex_iterator w(names.begin(), names.end(), word), end; w != end; ++w)
            if (w->str() != "as") mods.push_back(mod.empty() ? w->str() : mod + "/" + w->str());  // `from pkg import helpers`
          for (const auto& x : mods) modules.push_back({x, bases});
        } else if (rx::regex_search(line, m, imp)) {
          const std::string list = m[1].str();
          for (const auto& part : split_top(list, {","})) {
            std::string mod = trim(part.substr(0, part.find(" as ")));
            std::replace(mod.begin(), mod.end(), '.', '/');
            modules.push_back({mod, {}});
          }
        }
        // A file run or read by its path: `runpy.run_path("tools/h.py")`, `exec(open("tools/h.py").read())`.
        static const rx::regex by_path(R"re(\b(?:run_path|open|(?:SourceFileLoader|spec_from_file_location)\s*\([^,]*,)\s*\(?\s*['"]([\w./-]+\.py)['"])re");
        for (rx::sregex_iterator it(line.begin(), line.end(), by_path), end; it != end; ++it) {
          take(join("", (*it)[1].str()));
          take(join(dir, (*it)[1].str()));
        }
        for (rx::sregex_iterator it(line.begin(), line.end(), dynamic), end; it != end; ++it) {
          std::string mod = (*it)[1].str();
          std::replace(mod.begin(), mod.end(), '.', '/');
          modules.push_back({mod, {}});
        }
        for (auto& [mod, bs] : modules) {
          if (mod.empty()) continue;
          if (bs.empty()) {
            // Absolute: from the root, src/ or lib/, a folder of the importer (pytest puts the
            // test's rootdir-relative folders on sys.path), or a folder the file put on sys.path.
            bs = {"", "src", "lib"};
            for (std::string d = dir; !d.empty(); d = dir_of(d)) bs.push_back(d);
            bs.insert(bs.end(), py_extra.begin(), py_extra.end());
          }
          for (const auto& b : bs) {
            take(join(b, mod + ".py"));
            take(join(b, mod + "/__init__.py"));
          }
        }
      } else if (is_js(lang)) {
        static const rx::regex spec(
            R"((?:require\s*\(|import\s*\(|from\s+|^\s*import\s+)\s*(?:path\s*\.\s*(?:join|resolve)\s*\(\s*__dirname\s*,\s*)?['"]([^'"]+)['"])");
        for (rx::sregex_iterator it(line.begin(), line.end(), spec), end; it != end; ++it) {
          const std::string s = (*it)[1].str();
          std::vector<std::string> bases;
          // `require(path.join(__dirname, "x"))` names a path relative to the file too.
          const bool dirname_join = contains((*it)[0].str(), "__dirname");
          if (dirname_join || starts_with(s, "./") || starts_with(s, "../") || s == "." || s == "..") bases.push_back(join(dir, s));
          for (const auto& a : js_aliases) {
            if (a.exact ? s == a.from : starts_with(s, a.from)) bases.push_back(a.exact ? a.to : normalize(a.to + s.substr(a.from.size()) + a.suffix));
          }
          for (const auto& b : bases) {
            if (b.empty()) continue;
            for (const auto ext : js_module_suffixes()) take(b + std::string(ext));
          }
        }
      } else if (lang == Lang::go) {
        static const rx::regex single(R"re(^\s*import\s+(?:[\w.]+\s+)?"([^"]+)")re");
        static const rx::regex block_open(R"(^\s*import\s*\(\s*$)");
        static const rx::regex block_line(R"re(^\s*(?:[\w.]+\s+)?"([^"]+)")re");
        if (go_block) {
          if (rx::regex_search(line, m, block_line)) go_import(m[1].str());
          if (contains(line, ")")) go_block = false;
        } else if (rx::regex_search(line, m, single)) {
          go_import(m[1].str());
        } else if (rx::regex_search(line, block_open)) {
          go_block = true;
        }
      } else if (lang == Lang::java || lang == Lang::kotlin) {
        static const rx::regex imp(R"(^\s*import\s+(static\s+)?([\w.]+?)(\.\*)?\s*;?\s*$)");
        if (!rx::regex_search(line, m, imp)) return;
        std::string cls = m[2].str();
        std::replace(cls.begin(), cls.end(), '.', '/');
        auto take_class = [&](const std::string& c) {
          if (auto it = jvm_classes.find(c); it != jvm_classes.end())
            for (const auto& p : it->second) take(p);
        };
        if (m[1].matched) {
          take_class(m[3].matched ? cls : dir_of(cls));  // `import static com.x.Helpers.check` / `Helpers.*`
        } else if (m[3].matched) {  // a package: every class in it
          for (const auto& [name, paths] : jvm_classes)
            if (dir_of(name) == cls)
              for (const auto& p : paths) take(p);
        } else {
          take_class(cls);
        }
      } else if (lang == Lang::cpp) {
        static const rx::regex inc(R"re(^\s*#\s*include\s*["<]([^">]+)[">])re");
        if (!rx::regex_search(line, m, inc)) return;
        const std::string h = m[1].str();
        for (const std::string& b : {dir, std::string("include"), std::string("tests"), std::string("test"), std::string()}) {
          const std::string p = join(b, h);
          if (p.empty() || !known.count(p)) continue;
          take(p);
          // The matching source beside the header (`helpers.h` -> `helpers.cc`).
          const std::string stem = p.substr(0, p.rfind('.'));
          for (const char* ext : {".c", ".cc", ".cpp", ".cxx"}) take(stem + ext);
        }
      } else if (lang == Lang::rust) {
        static const rx::regex mod(R"(^\s*(?:pub(?:\([\w\s]+\))?\s+)?mod\s+(\w+)\s*;)");
        static const rx::regex use(R"(^\s*(?:pub\s+)?use\s+(?:crate|[a-z_]\w*)\s*::\s*(\w+)(?:\s*::\s*(\w+))?)");
        if (rx::regex_search(line, m, mod)) {
          const std::string name = m[1].str();
          // `mod x;` in a crate root or mod.rs: beside it; in `a/b.rs`: a/b/x.rs (both are tried).
          const std::string own = path.substr(0, path.size() - 3);
          for (const std::string& b : {dir, own}) {
            take(join(b, name + ".rs"));
            take(join(b, name + "/mod.rs"));
          }
        } else if (rx::regex_search(line, m, use)) {
          const std::string a = m[1].str();
          take(join("src", a + ".rs"));
          take(join("src", a + "/mod.rs"));
          if (m[2].matched) {
            take(join("src", a + "/" + m[2].str() + ".rs"));
            take(join("src", a + "/" + m[2].str() + "/mod.rs"));
          }
        }
      }
    });
    return out;
  }
};

/// The file of a failing test id, when the id names one (`tests/test_x.py::test_y`, `a.test.js > t`).
std::string file_of_test_id(const std::string& id) {
  std::string f = id.substr(0, id.find("::"));
  f = f.substr(0, f.find(' '));
  return lang_of(f) == Lang::none || f == id ? std::string() : f;
}

/// The functions a Go file defines that are not tests (`checkAdd`, `mustParse`; not `TestX`,
/// `BenchmarkX`, `ExampleX`, `FuzzX`, `TestMain`): what the package's test files can call of it.
std::set<std::string> go_helper_functions(const std::string& text) {
  static const rx::regex def(R"((?:^|\n)func\s+([A-Za-z_]\w*)\s*[\[(])");
  std::set<std::string> out;
  for (rx::sregex_iterator it(text.begin(), text.end(), def), e; it != e; ++it) {
    const std::string n = (*it)[1].str();
    static const rx::regex test_name(R"(^(?:Test|Benchmark|Example|Fuzz)(?:[^a-z].*)?$)");
    if (!rx::regex_match(n, test_name)) out.insert(n);
  }
  return out;
}

/// Does `text` name one of `names` (a call `name(`, `x.name(`, or a function value `var online =
/// requireBackend`)?
bool names_any(const std::string& text, const std::set<std::string>& names) {
  std::string alt;
  for (const auto& n : names)
    if (n.size() <= 64 && regex_safe_name(n))
      alt += (alt.empty() ? "" : "|") + n;
  if (alt.empty()) return false;
  const rx::regex name = detail::cached_regex("\\b(?:" + alt + ")\\b");
  return rx::regex_search(text, name);
}

/// The helper functions of a test-side file that the patch changes (their text differs, or one
/// version lacks them), with those of the same file that call one of them (`checkAdd` calling a
/// changed `expectEq`).
std::set<std::string> changed_helpers(const FileVersions& f) {
  std::set<std::string> out;
  if (!f.before || !f.after) return out;
  const Lang lang = lang_of(f.path);
  const FileModel b = analyze(lang, *f.before), a = analyze(lang, *f.after);
  auto body = [](const std::string& text, const TestUnit& u) { return std::string(line_span(text, u.line, std::max(u.line, u.end_line))); };
  std::map<std::string, std::string> before_bodies;
  for (const auto& h : b.helpers) before_bodies[h.name] += body(*f.before, h);
  std::map<std::string, std::string> after_bodies;
  for (const auto& h : a.helpers) after_bodies[h.name] += body(*f.after, h);
  for (const auto& [n, t] : before_bodies)
    if (auto it = after_bodies.find(n); it == after_bodies.end() || it->second != t) out.insert(n);
  for (const auto& [n, t] : after_bodies)
    if (!before_bodies.count(n)) out.insert(n);
  for (bool grew = !out.empty(); grew;) {
    grew = false;
    for (const FileModel* m : {&b, &a})
      for (const auto& h : m->helpers)
        if (!out.count(h.name) && std::any_of(h.calls.begin(), h.calls.end(), [&](const std::string& c) { return out.count(c) > 0; }))
          grew = out.insert(h.name).second || grew;
  }
  return out;
}

/// A test module by its name (test_x.py, x_test.py, x.test.js, x.spec.ts): not a helper.
bool test_by_name(std::string_view path) {
  const std::string_view base = basename(path);
  return (starts_with(base, "test") && ends_with(base, ".py")) || ends_with(base, "_test.py") || contains(base, ".test.") ||
         contains(base, ".spec.") || contains(base, "_test.") || contains(base, "-test.");
}

}  // namespace

std::string go_package(const std::string& text) {
  static const rx::regex package(R"((?:^|\n)[ \t]*package[ \t]+(\w+))");
  rx::smatch m;
  const std::string head = text.substr(0, 20000);
  return rx::regex_search(head, m, package) ? m[1].str() : std::string();
}

std::map<std::string, std::string> test_imported_modules(const std::vector<FileVersions>& files, const IntegrityOptions& o,
                                                         std::map<std::string, std::string>* unchanged,
                                                         std::vector<std::pair<std::string, std::string>>* unpatched_tests) {
  std::map<std::string, std::string> out;
  std::map<std::string, const FileVersions*> patched;
  std::set<std::string> known(o.project_files.begin(), o.project_files.end());
  for (const auto& f : files) {
    patched[f.path] = &f;
    known.insert(f.path);
  }
  std::set<std::string> code_under_test;  // the developer's change: code under test, not helpers
  for (const auto& f : o.change_files) code_under_test.insert(f.path);
  // Nothing to find when the patch touches no module that could be a helper (unless the unchanged
  // ones are asked for).
  const bool no_patched_helper = std::none_of(files.begin(), files.end(), [&](const FileVersions& f) {
    const bool go_helpers = f.after && lang_of(f.path) == Lang::go && ends_with(f.path, "_test.go") && !go_helper_functions(*f.after).empty();
    return f.after && lang_of(f.path) != Lang::none && (!test_by_name(f.path) || go_helpers) &&
           basename(f.path) != "conftest.py" && !code_under_test.count(f.path);
  });
  if (no_patched_helper && !unchanged) return out;
  // What may be read: a budget of files and bytes (stated in docs/INTEGRITY.md), so any depth is
  // followed while a large project cannot make the guard slow.
  std::size_t files_read = 0, bytes_read = 0;
  auto text_of = [&](const std::string& path) -> std::optional<std::string> {
    if (auto it = patched.find(path); it != patched.end()) return it->second->after;
    if (!o.read_head_file || files_read >= kImportFilesBudget || bytes_read >= kImportBytesBudget) return std::nullopt;
    auto t = o.read_head_file(path);
    ++files_read;
    if (t) bytes_read += t->size();
    return t;
  };
  const Resolver resolver(known, text_of);
  // The tests: the patch's test files and the failing tests' files.
  std::vector<std::pair<std::string, std::string>> level;  // (path, text)
  std::set<std::string> seen;
  for (const auto& f : files)
    if (f.after && (is_test_path(f.path) || basename(f.path) == "conftest.py") && seen.insert(f.path).second)
      level.emplace_back(f.path, *f.after);
  for (const auto& id : o.failing_tests) {
    const std::string p = file_of_test_id(id);
    if (p.empty() || !seen.insert(p).second) continue;
    if (auto t = text_of(p)) {
      if (unpatched_tests && !patched.count(p)) unpatched_tests->emplace_back(p, *t);
      level.emplace_back(p, std::move(*t));
    }
    // pytest loads the conftest.py files of the test's folders first: their imports count too.
    if (lang_of(p) != Lang::python) continue;
    for (std::string d = dir_of(p);; d = dir_of(d)) {
      const std::string conftest = d.empty() ? "conftest.py" : d + "/conftest.py";
      if (known.count(conftest) && seen.insert(conftest).second)
        if (auto t = text_of(conftest)) level.emplace_back(conftest, std::move(*t));
      if (d.empty()) break;
    }
  }
  // Test files the patch leaves alone that call a helper the patch changes (their tests are
  // weakened through it: review 32 D, review 33): for a changed Go test file, the test files of its
  // package; for a changed C/C++ test-support header, the test sources that include it; for a
  // changed Python or JS helper module, the test files that name it. Read in the changed file's
  // folder first (at most 256 read per changed file), kept when they name a changed helper (at
  // most 8: each is analysed twice), so a package of many test files costs reads, not analyses.
  for (const auto& f : files) {
    if (!f.before || !f.after || code_under_test.count(f.path)) continue;
    const Lang lang = lang_of(f.path);
    const bool go_test = lang == Lang::go && ends_with(f.path, "_test.go");
    const bool header = lang == Lang::cpp && !cpp_source_path(f.path) && test_support_module(f.path, *f.after);
    const bool module = (lang == Lang::python || is_js(lang)) && !test_by_name(f.path) && basename(f.path) != "conftest.py" &&
                        test_support_module(f.path, *f.after);
    if (!go_test && !header && !module) continue;
    const std::set<std::string> changed = changed_helpers(f);
    if (changed.empty()) continue;
    std::vector<std::string> near, far;
    if (go_test) {
      if (auto d = resolver.by_dir.find(dir_of(f.path)); d != resolver.by_dir.end())
        for (const auto& p : d->second)
          if (ends_with(p, "_test.go")) near.push_back(p);
    } else {
      for (const auto& p : o.project_files)
        if (is_test_path(p) && (header ? cpp_source_path(p) : (lang_of(p) == Lang::python) == (lang == Lang::python) && lang_of(p) != Lang::none))
          (dir_of(p) == dir_of(f.path) ? near : far).push_back(p);
      near.insert(near.end(), far.begin(), far.end());
    }
    const std::string stem = [&] {
      const std::string b(basename(f.path));
      return b.substr(0, b.find('.'));
    }();
    std::size_t read = 0, kept = 0;
    for (const auto& p : near) {
      if (p == f.path || patched.count(p) || seen.count(p)) continue;
      if (++read > 256 || kept >= 8) break;
      auto t = text_of(p);
      if (!t) continue;
      const bool names_it = go_test ? go_package(*t) == go_package(*f.after) : contains(*t, stem);
      if (!names_it || !names_any(*t, changed) || !seen.insert(p).second) continue;
      ++kept;
      if (unpatched_tests) unpatched_tests->emplace_back(p, *t);
      level.emplace_back(p, std::move(*t));
    }
  }
  // Level by level, as deep as the chain goes (within the budget): the modules the tests import,
  // the modules those import, ... A module reached through the code under test is not a helper,
  // and its imports are not followed (production code's imports are the program, not the tests).
  // (A Go test file's package: its folder's other test files of the same package whose functions
  // it calls are its helper modules, called without an import: `helpers_test.go`, a `main_test.go`
  // beside TestMain, a `util_test.go` with tests of its own.)
  std::map<std::string, std::optional<std::string>> go_texts;
  std::map<std::string, std::set<std::string>> go_defs;
  auto go_helper_of = [&](const std::string& test, const std::string& test_text, const std::string& p) {
    if (p == test || !ends_with(p, "_test.go") || !ends_with(test, "_test.go") || dir_of(p) != dir_of(test)) return false;
    auto it = go_texts.find(p);
    if (it == go_texts.end()) {
      it = go_texts.emplace(p, text_of(p)).first;
      if (it->second) go_defs[p] = go_helper_functions(*it->second);
    }
    return it->second && go_package(*it->second) == go_package(test_text) && names_any(test_text, go_defs[p]);
  };
  while (!level.empty()) {
    std::vector<std::pair<std::string, std::string>> next;
    for (const auto& [path, text] : level) {
      std::vector<std::string> imported = resolver.imported_paths(path, text, lang_of(path));
      if (lang_of(path) == Lang::go)
        if (auto d = resolver.by_dir.find(dir_of(path)); d != resolver.by_dir.end())
          for (const auto& p : d->second)
            if (go_helper_of(path, text, p) && std::find(imported.begin(), imported.end(), p) == imported.end()) imported.push_back(p);
      for (const auto& imp : imported) {
        const bool go_helper = go_helper_of(path, text, imp);
        if ((test_by_name(imp) && !go_helper) || basename(imp) == "conftest.py" || code_under_test.count(imp)) continue;
        if (patched.count(imp)) out[imp] += text + "\n";  // what the importers use of it
        if (!seen.insert(imp).second) continue;
        if (auto t = go_helper ? go_texts[imp] : text_of(imp)) {
          if (unchanged && !patched.count(imp)) (*unchanged)[imp] = *t;
          next.emplace_back(imp, std::move(*t));
        }
      }
    }
    level = std::move(next);
  }
  if (no_patched_helper) out.clear();
  return out;
}

bool ArgumentGuard::taken(const std::string& value) const {
  if (op == "endswith") return ends_with(value, literal);
  if (op == "startswith") return starts_with(value, literal);
  if (op == "==") return value == literal;
  if (op == "!=") return value != literal;
  if (op == "in") return contains(value, literal);
  if (op == "not in") return !contains(value, literal);
  return true;
}

ArgumentGuard python_skip_guard(const std::string& text, int def_line, int skip_line) {
  std::vector<std::string> ls{""};
  for_each_capped_line(text, [&](int, const std::string& l) { ls.push_back(l); });
  if (def_line < 1 || skip_line <= def_line || static_cast<std::size_t>(skip_line) >= ls.size()) return {};
  const auto indent = [](const std::string& l) { return l.find_first_not_of(" \t"); };
  // The `if` right above the skip (the nearest less indented line), with nothing but a plain `if`.
  const std::size_t mine = indent(ls[static_cast<std::size_t>(skip_line)]);
  std::string cond;
  for (int k = skip_line - 1; k > def_line; --k) {
    const std::string& l = ls[static_cast<std::size_t>(k)];
    if (trim(l).empty() || indent(l) >= mine) continue;
    static const rx::regex if_re(R"(^\s*if\s+(.+):\s*(?:#.*)?$)");
    rx::smatch m;
    if (!rx::regex_search(l, m, if_re)) return {};
    cond = trim(m[1].str());
    // Nested deeper than the function body's first level: other conditions may hold too.
    if (indent(l) != indent(ls[static_cast<std::size_t>(def_line) + 1])) return {};
    break;
  }
  if (cond.empty()) return {};
  ArgumentGuard g;
  std::string param;
  rx::smatch m;
  static const rx::regex method(R"re(^(\w+)\s*\.\s*(endswith|startswith)\s*\(\s*(['"])([^'"\\]*)\3\s*\)$)re");
  static const rx::regex compare(R"re(^(\w+)\s*(==|!=)\s*(['"])([^'"\\]*)\3$|^(['"])([^'"\\]*)\5\s*(==|!=)\s*(\w+)$)re");
  static const rx::regex member(R"re(^(['"])([^'"\\]*)\1\s+(not\s+in|in)\s+(\w+)$)re");
  if (rx::regex_match(cond, m, method)) {
    param = m[1].str(), g.op = m[2].str(), g.literal = m[4].str();
  } else if (rx::regex_match(cond, m, compare)) {
    if (m[1].matched) param = m[1].str(), g.op = m[2].str(), g.literal = m[4].str();
    else param = m[8].str(), g.op = m[7].str(), g.literal = m[6].str();
  } else if (rx::regex_match(cond, m, member)) {
    param = m[4].str(), g.op = contains(m[3].str(), "not") ? "not in" : "in", g.literal = m[2].str();
  } else {
    return {};
  }
  // The parameter's position, and no rebinding of it before the skip.
  std::string sig;
  for (int k = def_line; k < static_cast<int>(ls.size()) && k < def_line + 20; ++k) {
    sig += ls[static_cast<std::size_t>(k)] + " ";
    if (const auto open = sig.find('('); open != std::string::npos && closing_paren(sig, open) < sig.size()) break;
  }
  const auto open = sig.find('(');
  if (open == std::string::npos) return {};
  const auto params = split_top(std::string_view(sig).substr(open + 1, closing_paren(sig, open) - open - 1), {","});
  int index = -1;
  for (std::size_t i = 0; i < params.size(); ++i) {
    std::string n = strip_spaces(params[i]);
    n = n.substr(0, n.find_first_of(":="));
    if (n == "self" || n == "cls") continue;  // (methods: the call passes no receiver argument)
    if (n.empty() || n[0] == '*') return {};
    ++index;
    if (n == param) break;
    if (i + 1 == params.size()) index = -1;
  }
  if (index < 0) return {};
  const rx::regex rebound = detail::cached_regex("(?:^|[^.\\w])" + param + "\\s*(?:[-+*/|&^%]|//)?=[^=]|\\bfor\\s+" + param + "\\b");
  for (int k = def_line + 1; k < skip_line; ++k)
    if (rx::regex_search(ls[static_cast<std::size_t>(k)], rebound)) return {};
  g.param = index;
  return g;
}

std::map<std::string, std::map<std::string, SkipHelper>> external_skip_helpers(const std::vector<FileVersions>& files,
                                                                            const IntegrityOptions& o) {
  std::map<std::string, std::map<std::string, SkipHelper>> out;
  std::vector<const FileVersions*> tests;
  for (const auto& f : files) {
    const Lang l = lang_of(f.path);
    if (f.after && is_test_path(f.path) && (l == Lang::python || l == Lang::go || is_js(l))) tests.push_back(&f);
  }
  if (tests.empty()) return out;
  std::map<std::string, const FileVersions*> patched;
  std::set<std::string> known(o.project_files.begin(), o.project_files.end());
  for (const auto& f : files) {
    patched[f.path] = &f;
    known.insert(f.path);
  }
  std::size_t files_read = 0, bytes_read = 0;
  auto text_of = [&](const std::string& path) -> std::optional<std::string> {
    if (auto it = patched.find(path); it != patched.end()) return it->second->after;
    if (!o.read_head_file || files_read >= 64 || bytes_read >= (std::size_t{8} << 20)) return std::nullopt;
    auto t = o.read_head_file(path);
    ++files_read;
    if (t) bytes_read += t->size();
    return t;
  };
  const Resolver resolver(known, text_of);
  std::map<std::string, std::map<std::string, SkipHelper>> by_module;
  // A module's skipping helpers: those whose body skips, and those that call a skipping helper of a
  // module it imports in turn (two levels deeper at most).
  std::function<const std::map<std::string, SkipHelper>&(const std::string&, int)> skips_of =
      [&](const std::string& p, int depth) -> const std::map<std::string, SkipHelper>& {
    if (auto it = by_module.find(p); it != by_module.end()) return it->second;
    auto& skips = by_module[p];
    auto text = text_of(p);
    if (!text) return skips;
    const FileModel m = analyze(lang_of(p), *text);
    std::map<std::string, SkipHelper> deeper;
    if (depth < 2)
      for (const auto& q : resolver.imported_paths(p, *text, lang_of(p)))
        if (q != p && lang_of(q) != Lang::none)
          for (const auto& [name, skip] : skips_of(q, depth + 1)) deeper.emplace(name, skip);
    std::map<std::string, SkipHelper> found;
    for (const auto& h : m.helpers) {
      if (!h.markers.empty()) {
        SkipHelper sh{*h.markers.begin() + " in " + p, h.conditional, {}};
        if (lang_of(p) == Lang::python) sh.guard = python_skip_guard(*text, h.line, h.skip_line);
        found.emplace(h.name, std::move(sh));
        continue;
      }
      for (const auto& call : h.calls)
        if (auto d = deeper.find(call); d != deeper.end()) {
          found.emplace(h.name, SkipHelper{d->second.marker + ", through " + h.name + " in " + p, d->second.conditional, {}});
          break;
        }
    }
    auto& slot = by_module[p];
    slot = std::move(found);
    return slot;
  };
  for (const FileVersions* t : tests) {
    const Lang lang = lang_of(t->path);
    std::vector<std::string> sources = resolver.imported_paths(t->path, *t->after, lang);
    if (lang == Lang::go)  // one package: the folder's other test files whose functions it calls
      if (auto d = resolver.by_dir.find(dir_of(t->path)); d != resolver.by_dir.end())
        for (const auto& p : d->second)
          if (p != t->path && ends_with(p, "_test.go"))
            if (auto text = text_of(p); text && names_any(*t->after, go_helper_functions(*text))) sources.push_back(p);
    if (lang == Lang::python)  // pytest loads the conftest.py files of the test's folders: their fixtures
      for (std::string d = dir_of(t->path);; d = dir_of(d)) {
        const std::string conftest = d.empty() ? "conftest.py" : d + "/conftest.py";
        if (known.count(conftest)) sources.push_back(conftest);
        if (d.empty()) break;
      }
    for (const auto& p : sources) {
      if (p == t->path || lang_of(p) == Lang::none) continue;
      for (const auto& [name, skip] : skips_of(p, 0)) out[t->path].emplace(name, skip);
    }
  }
  return out;
}

bool test_support_module(std::string_view path, const std::string& text) {
  if (is_test_path(path)) return true;
  static const rx::regex framework(
      R"((?:^|\n)\s*(?:import\s+(?:pytest|unittest|_pytest|hypothesis)\b|from\s+(?:pytest|unittest|_pytest|hypothesis)\b))"
      R"(|\brequire\s*\(\s*['"](?:node:test|tape|tap|chai|sinon|@jest/globals|vitest|ava|mocha|uvu|expect)['"])"
      R"(|\bfrom\s+['"](?:node:test|tape|tap|chai|sinon|@jest/globals|vitest|ava|mocha|uvu|expect)['"])"
      R"re(|(?:^|\n)\s*(?:import\s+)?(?:\w+\s+)?"(?:testing|github\.com/stretchr/testify/\w+)"\s*(?:\n|$))re"
      R"(|(?:^|\n)\s*import\s+(?:static\s+)?(?:org\.junit|org\.testng|org\.assertj|org\.hamcrest|kotlin\.test)\b)"
      R"re(|(?:^|\n)\s*#\s*include\s*[<"](?:gtest/|gmock/|catch2/|catch\.hpp|doctest))re");
  std::string lower(basename(path));
  for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  static constexpr std::string_view kNames[] = {"helper", "testing", "testutil", "test_util", "fixture", "fake", "stub", "mock"};
  return rx::regex_search(text.substr(0, 200000), framework) ||
         std::any_of(std::begin(kNames), std::end(kNames), [&](auto n) { return contains(lower, n); });
}

void imported_helper_tautologies(const RuleContext& c, const std::string& importers, Findings& out) {
  if (!c.file.after || !c.after.parsed) return;
  for (const auto& h : c.after.helpers) {
    if (!h.constant_truthy || !h.asserts.empty() || h.name.empty() || h.name.size() > 64) continue;
    // It answered something before (or is new): a helper that always answered True is not the patch's doing.
    const bool was_constant = std::any_of(c.before.helpers.begin(), c.before.helpers.end(),
                                          [&](const TestUnit& b) { return b.name == h.name && b.constant_truthy; });
    if (was_constant) continue;
    std::string name;
    for (char ch : h.name) name += std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' ? std::string(1, ch) : "\\" + std::string(1, ch);
    // Asserted on by an importer: `assert same(...)`, `assert.ok(h.same(...))`, `expect(same(...))`,
    // `self.assertTrue(same(...))`, `assert!(same(...))`, `assertTrue(Checks.same(...))`.
    const rx::regex asserted = detail::cached_regex("(?:\\bassert\\w*!?(?:\\s*\\.\\s*\\w+)?\\s*\\(?|\\bexpect\\s*\\(|\\b(?:t|tt|st)\\s*\\.\\s*(?:ok|true|assert)\\s*\\()"
                              "\\s*(?:[\\w$]+\\s*\\.\\s*)*" + name + "\\s*\\(");
    bool used = false;
    for_each_capped_line(importers, [&](int, const std::string& l) { used = used || rx::regex_search(l, asserted); });
    if (!used) continue;
    out.push_back({"assertion_weakened", c.file.path, h.line,
                   "the helper " + h.name + " in a module the tests import now only returns a constant truthy value: "
                   "every check that asserts on it passes whatever the code under test does"});
    return;
  }
}

void helper_skip_rules(const RuleContext& c, Findings& out) {
  if (!c.file.after || !c.after.parsed) return;
  // Skip calls by their test-framework spelling (a production `query.skip(10)` is not one).
  static const rx::regex py(
      R"(\b_?pytest\s*\.\s*(?:skip|xfail|importorskip)\b|\b_?pytest\s*\.\s*mark\s*\.\s*(?:skip|skipif|xfail)\b|\bskipTest\s*\()"
      R"(|\bSkipTest\b|\bunittest\s*\.\s*skip|\bgetattr\s*\(\s*_?pytest\b)");
  // `import pytest as p` / `p = pytest`: the alias's skips too; `from pytest import skip as s`: the
  // bare name's calls (the import line itself skips nothing: `from nose.plugins.skip import SkipTest`
  // in a new module whose only raise of it is under a condition never true on Python 3).
  std::string alias_pattern, bare_pattern;
  if (c.lang == Lang::python) {
    static const rx::regex alias_re(R"((?:^|\n)\s*(?:import\s+_?pytest(?:\.\w+)*\s+as\s+(\w+)|(\w+)\s*=\s*_?pytest\s*(?:\n|$)))");
    // (`from pytest import (\n skip,\n)`, a backslash continuation, `from unittest.case import SkipTest as X`.)
    static const rx::regex from_re(R"((?:^|\n)[ \t]*from[ \t]+(?:_?pytest|unittest|nose)(?:\.\w+)*[ \t]+import[ \t]+(\([^)]*\)|[^\n]*))");
    static const rx::regex name_re(R"(\b(skip\w*|xfail|importorskip|SkipTest|Skipped|mark)\b(?:\s+as\s+(\w+))?)");
    std::string text = *c.file.after;
    for (auto at = text.find("\\\n"); at != std::string::npos; at = text.find("\\\n", at)) text.replace(at, 2, " ");
    for (rx::sregex_iterator it(text.begin(), text.end(), alias_re), end; it != end; ++it)
      alias_pattern += (alias_pattern.empty() ? "" : "|") + ((*it)[1].matched ? (*it)[1].str() : (*it)[2].str());
    for (rx::sregex_iterator it(text.begin(), text.end(), from_re), end; it != end; ++it) {
      const std::string names = (*it)[1].str();
      for (rx::sregex_iterator n(names.begin(), names.end(), name_re); n != end; ++n) {
        const std::string local = (*n)[2].matched ? (*n)[2].str() : (*n)[1].str();
        // (`from pytest import mark`: its skips are `mark.skip(...)`, as the module's.)
        if ((*n)[1].str() == "mark") alias_pattern += (alias_pattern.empty() ? "" : "|") + local;
        else bare_pattern += (bare_pattern.empty() ? "" : "|") + local;
      }
    }
  }
  std::string py_extra;
  if (!alias_pattern.empty()) py_extra = "\\b(?:" + alias_pattern + ")\\s*\\.\\s*(?:skip|xfail|importorskip|mark)\\b";
  if (!bare_pattern.empty()) py_extra += (py_extra.empty() ? "" : "|") + ("(?:^|[^.\\w])(?:" + bare_pattern + ")\\s*[(@]|\\braise\\s+(?:" + bare_pattern + ")\\b");
  const rx::regex py_alias = detail::cached_regex(py_extra.empty() ? std::string("(?!)") : py_extra);
  static const rx::regex py_import(R"(^\s*(?:from\s+[\w.]+\s+)?import\s)");
  // JS: the test API's skips anywhere; a mocha context's `this.skip()` and `{ skip: true }` options
  // only in test-side code (production code has its own `this.skip()` and `{ skip: 10 }` pagination).
  static const rx::regex js(R"(\b(?:t|test|it|describe|context|suite)\s*\.\s*(?:skip|todo)\s*\()");
  static const rx::regex js_test_side(
      R"(\b(?:t|tt|st|test|it|describe|context|suite|this|ctx)\s*\.\s*(?:skip|todo)\s*\(|\{\s*(?:skip|todo)\s*:\s*(?!false\b))"
      R"(|\[\s*['"`](?:skip|todo)['"`]\s*\]|\{\s*(?:skip|todo)\s*\}\s*=)");
  // Go: any receiver in test code (`tb.Skip()`), the usual names elsewhere.
  static const rx::regex go(R"(\b(?:t|tb|b|tt|f)\s*\.\s*(?:Skip|SkipNow|Skipf)\s*\()");
  static const rx::regex go_test_side(R"(\.\s*(?:Skip|SkipNow|Skipf)\s*\()");
  static const rx::regex cpp(R"(\bGTEST_SKIP\b)");
  static const rx::regex jvm(R"(\bassume(?:True|False|That|NotNull)\s*\(|\bassumingThat\s*\()");
  const bool test_side = c.test_file || c.imported_by_tests;
  const rx::regex* re = c.lang == Lang::python ? &py : is_js(c.lang) ? (test_side ? &js_test_side : &js)
                       : c.lang == Lang::go ? (test_side ? &go_test_side : &go)
                       : c.lang == Lang::cpp ? &cpp : (c.lang == Lang::java || c.lang == Lang::kotlin) ? &jvm : nullptr;
  if (!re) return;
  const auto added = added_lines(c.file.before, c.file.after);
  std::vector<std::string> lines;
  for_each_capped_line(*c.file.after, [&](int, const std::string& l) { lines.push_back(l); });
  auto within = [](const TestUnit& u, int n) { return n >= u.line && n <= std::max(u.line, u.end_line); };
  for (const auto& [n, full] : added) {
    const std::string l = full.substr(0, kRegexLineChars);
    rx::smatch call;
    if (!rx::regex_search(l, call, *re) && !(c.lang == Lang::python && rx::regex_search(l, call, py_alias))) continue;
    if (c.lang == Lang::python && rx::regex_search(l, py_import) && !contains(l, ";")) continue;
    // Inside a test: the test-by-test comparison judges it (platform conditions, failing tests).
    if (std::any_of(c.after.tests.begin(), c.after.tests.end(), [&](const TestUnit& t) { return within(t, n); })) continue;
    // A platform condition around it: an `if` before the call on its line, or the nearest less
    // indented line above it being such an `if` (the skip's own message naming a platform is not one).
    static const rx::regex cond_re(R"(^\s*(?:\}\s*)?(?:if|elif|else\s+if|unless)\b)");
    const std::string before_call = l.substr(0, static_cast<std::size_t>(call.position()));
    // A marker that carries its condition (`skipif(sys.platform ...)`, `{ skip: isWindows }`).
    const std::string rest = l.substr(static_cast<std::size_t>(call.position()));
    const bool carries = contains(call.str(), ":") || contains(rest, "skipif") || contains(rest, "skipIf") || contains(rest, "skipUnless");
    // An `if` whose condition is never true on Python 3 (`sys.version_info[:2] == (2, 6)`) skips nothing.
    const auto never = [&](const std::string& head) {
      if (c.lang != Lang::python) return false;
      static const rx::regex cond(R"(^\s*(?:if|elif)\s+(.*\S)\s*:\s*(?:#.*)?$)");
      rx::smatch m;
      return rx::regex_search(head, m, cond) && never_true_condition(m[1].str());
    };
    const std::size_t colon = before_call.rfind(':');
    bool conditional = (contains(before_call, "if") &&
                        (platform_condition(before_call) || (colon != std::string::npos && never(before_call.substr(0, colon + 1))))) ||
                       (carries && platform_condition(rest));
    const std::size_t indent = l.find_first_not_of(" \t");
    for (int k = std::min(n - 2, static_cast<int>(lines.size()) - 1); !conditional && k >= 0 && indent != std::string::npos && indent > 0; --k) {
      const std::string& above = lines[static_cast<std::size_t>(k)];
      const std::size_t ind = above.find_first_not_of(" \t");
      if (ind == std::string::npos || ind >= indent) continue;
      const std::string head = above.substr(0, kConditionChars);
      // (A condition over several lines, `if (sys.version_info[0] < 3 or\n sys.version_info[:2] == (2, 6)):`.)
      std::string whole = above;
      for (std::size_t j = static_cast<std::size_t>(k) + 1; j < lines.size() && j < static_cast<std::size_t>(k) + 6 &&
                                                            !rx::regex_search(whole, detail::cached_regex(R"(:\s*(?:#.*)?$)"));
           ++j)
        whole += " " + trim(lines[j]);
      conditional = rx::regex_search(head, cond_re) && (platform_condition(head) || never(whole.substr(0, kRegexLineChars)));
      break;
    }
    if (conditional) continue;
    // (A skip only moved, to the module or into a fixture, under the conditions the tests skipped under.)
    if (c.test_file && python_skips_only_moved(c, n)) continue;
    auto helper = std::find_if(c.after.helpers.begin(), c.after.helpers.end(), [&](const TestUnit& h) { return within(h, n); });
    const std::string where = helper != c.after.helpers.end() ? "the helper " + helper->name : "module-level code";
    out.push_back({"skip_added", c.file.path, n,
                   "a skip call added outside any test (" + where + (c.test_file ? "" : " of a module the tests import") +
                       "): every test that reaches it is skipped: " + quote(l)});
    return;
  }
}

void assertion_patch_rules(const RuleContext& c, Findings& out) {
  if (!c.file.after || (c.lang != Lang::python && !is_js(c.lang))) return;
  // Patching the assertion library itself: what no production code or honest helper does, in any
  // module (a helper the tests import, the code under test, a plugin).
  static const rx::regex py(
      R"(\b(?:unittest\s*\.\s*)?(?:TestCase|case\s*\.\s*TestCase)\s*\.\s*(?:assert\w*|fail\w*)\s*=[^=])"
      R"(|\bsetattr\s*\(\s*(?:unittest\s*\.\s*)?TestCase\s*,)"
      R"(|\b(?:numpy\s*\.\s*testing|np\s*\.\s*testing|pytest)\s*\.\s*\w+\s*=[^=])"
      R"(|\b(?!self\b|cls\b)\w+\s*\.\s*(?:assert[A-Z_]\w*|fail[A-Z]\w*|failureException)\s*=[^=])");
  // Builtins the checks themselves use (`assert len(x) == 3`); tests honestly stub input, open, print
  // and __import__ (a missing module).
  static const rx::regex builtins(
      R"(\b(?:builtins|__builtins__)\s*(?:\.\s*(\w+)\s*=[^=]|\[\s*['"](\w+)['"]\s*\]\s*=[^=])|\bsetattr\s*\(\s*(?:builtins|__builtins__)\s*,\s*['"](\w+)['"])");
  auto patched_builtin = [](const std::string& l) {
    rx::smatch m;
    if (!rx::regex_search(l, m, builtins)) return false;
    const std::string name = m[1].matched ? m[1].str() : m[2].matched ? m[2].str() : m[3].str();
    static const std::set<std::string> kStubbed = {"input", "open", "print", "__import__", "_", "exit", "quit", "help"};
    return !kStubbed.count(name);
  };
  static const rx::regex js(
      R"(\b(?:assert|expect|chai|should)\s*(?:\.\s*[\w$]+\s*)*\.\s*[\w$]+\s*=[^=>])"
      R"(|\brequire\s*\(\s*['"](?:node:)?assert(?:/strict)?['"]\s*\)\s*(?:\.\s*[\w$]+\s*)+=[^=>])"
      R"(|\bObject\s*\.\s*(?:defineProperty|assign|setPrototypeOf)\s*\(\s*(?:assert|expect|chai)\b)");
  // JS names bound to an assertion library (`const a = require('node:assert')`, `import * as a from 'chai'`).
  std::string js_aliases;
  if (is_js(c.lang)) {
    static const rx::regex bind(
        R"((?:const|let|var)\s+([\w$]+)\s*=\s*require\(\s*['"](?:node:)?(?:assert(?:/strict)?|chai|should|expect)['"]\s*\))"
        R"(|import\s+(?:\*\s+as\s+)?([\w$]+)\s+from\s+['"](?:node:)?(?:assert(?:/strict)?|chai|should|expect)['"])");
    const std::string& text = *c.file.after;
    for (rx::sregex_iterator it(text.begin(), text.end(), bind), end; it != end; ++it) {
      const std::string name = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
      if (name.find('$') == std::string::npos) js_aliases += (js_aliases.empty() ? "" : "|") + name;
    }
  }
  const rx::regex js_alias = detail::cached_regex(js_aliases.empty() ? std::string("(?!)")
                                               : "\\b(?:" + js_aliases + ")\\s*(?:\\.\\s*[\\w$]+\\s*)*\\.\\s*[\\w$]+\\s*=[^=>]"
                                                 "|\\bObject\\s*\\.\\s*(?:defineProperty|assign|setPrototypeOf)\\s*\\(\\s*(?:" + js_aliases + ")\\b");
  for (const auto& [n, full] : added_lines(c.file.before, c.file.after)) {
    const std::string l = full.substr(0, kRegexLineChars);
    const bool hit = c.lang == Lang::python ? rx::regex_search(l, py) || patched_builtin(l)
                                            : rx::regex_search(l, js) || rx::regex_search(l, js_alias);
    if (!hit) continue;
    out.push_back({"assertion_replaced", c.file.path, n,
                   "the assertion library is patched" + std::string(c.test_file ? "" : " from a module outside the tests") +
                       ": every check that uses it stops checking: " + quote(l)});
    return;
  }
}

}  // namespace flowagent::integrity
