// Which assertion lines of a requested test must have executed in a passing run (see the header).
#include "integrity/assertion_lines.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "core/regex.hpp"
#include "integrity/guard_internal.hpp"
#include "core/regex_cache.hpp"

namespace flowagent::integrity {

namespace {

/// The names called in the statement that starts on `line` (1-based) of a file whose lines are
/// `lines` (as for_each_capped_line gives them): its lines up to where its brackets close, code
/// only (strings and comments left out). A Python `assert`'s message, evaluated only when the
/// check fails, is left out.
std::set<std::string> statement_calls(const std::vector<std::string>& lines, int line, Lang lang, bool* iterates) {
  *iterates = false;
  if (line < 1 || static_cast<std::size_t>(line) > lines.size()) return {};
  std::string code;
  int depth = 0;
  for (std::size_t i = static_cast<std::size_t>(line - 1); i < lines.size() && i < static_cast<std::size_t>(line) + 200; ++i) {
    const std::string c = code_only(lines[i], lang);
    for (char ch : c) {
      if (ch == '(' || ch == '[' || ch == '{') ++depth;
      else if (ch == ')' || ch == ']' || ch == '}') --depth;
    }
    code += c + "\n";
    const bool continued = !c.empty() && c.find_last_not_of(" \t") != std::string::npos && c[c.find_last_not_of(" \t")] == '\\';
    if (depth <= 0 && !continued) break;
  }
  if (lang == Lang::python) {
    const auto at = code.find_first_not_of(" \t");
    if (at != std::string::npos && code.compare(at, 7, "assert ") == 0) code = split_top(code.substr(at + 7), {","}).front();
  }
  // A comprehension or generator, or an array method that calls back per element: the calls
  // inside run once per element, so none when the collection is empty at run time.
  static const rx::regex py_loop(R"([\[({][^\n]*?\sfor\s[^\n]*?\sin\s)");
  static const rx::regex js_loop(R"(\.\s*(?:map|filter|every|some|forEach|reduce|reduceRight|flatMap|find|findIndex|findLast)\s*\(|\bArray\s*\.\s*from\s*\()");
  *iterates = rx::regex_search(code, lang == Lang::python ? py_loop : js_loop);
  std::set<std::string> out;
  static const rx::regex call(R"(([A-Za-z_$][\w$]*)\s*\()");
  for (rx::sregex_iterator it(code.begin(), code.end(), call), e; it != e; ++it) out.insert((*it)[1].str());
  return out;
}

}  // namespace

std::vector<RequiredAssertion> required_assertion_lines(const std::string& path, const std::optional<std::string>& before,
                                                        const std::string& after, const std::vector<std::string>& wanted,
                                                        bool whole_file) {
  std::vector<RequiredAssertion> out;
  const Lang lang = lang_of(path);
  if (lang != Lang::python && !is_js(lang)) return out;
  const FileModel a = analyze(lang, after);
  if (!a.parsed) return out;
  FileModel b;
  if (before) b = analyze(lang, *before);
  std::vector<std::string> file_lines;  // (split once: each assertion's statement is read from them)
  for_each_capped_line(after, [&](int, const std::string& l) { file_lines.push_back(l); });
  for (const auto& t : a.tests) {
    if (!whole_file && !names_failing_test(wanted, t.name)) continue;
    // The developer's own conditions: those the same test had before the patch.
    std::set<std::string> old_guards;
    for (const auto& bt : b.tests)
      if (bt.name == t.name)
        for (const auto& x : bt.asserts) old_guards.insert(x.guards.begin(), x.guards.end());
    std::set<int> lines;
    for (const auto& x : t.asserts) {
      if (x.trivial || x.optional || x.inverted) continue;
      const bool old_condition = std::any_of(x.guards.begin(), x.guards.end(), [&](const std::string& g) { return old_guards.count(g) > 0; });
      if (old_condition) continue;
      bool iterates = false;
      std::set<std::string> calls = statement_calls(file_lines, x.line, lang, &iterates);
      if (!iterates) calls.clear();  // (see RequiredAssertion::calls)
      // (Several checks on one line: the line's record holds all of their calls.)
      if (lines.insert(x.line).second) {
        out.push_back({t.name, x.line, std::move(calls)});
      } else {
        for (auto& r : out)
          if (r.test == t.name && r.line == x.line) r.calls.insert(calls.begin(), calls.end());
      }
    }
  }
  return out;
}

TestCalls requested_test_calls(const std::string& path, const std::string& after, const std::vector<std::string>& wanted,
                               bool whole_file) {
  TestCalls out;
  const Lang lang = lang_of(path);
  if (lang != Lang::python && !is_js(lang)) return out;
  const FileModel a = analyze(lang, after);
  if (!a.parsed) return out;
  // The test's calls, and the file's own helpers they reach (by name, any depth).
  std::set<std::string> reached;
  std::vector<std::string> todo;
  for (const auto& t : a.tests)
    if (whole_file || names_failing_test(wanted, t.name)) todo.insert(todo.end(), t.calls.begin(), t.calls.end());
  while (!todo.empty()) {
    const std::string n = std::move(todo.back());
    todo.pop_back();
    if (!reached.insert(n).second) continue;
    for (const auto& h : a.helpers)
      if (h.name == n) todo.insert(todo.end(), h.calls.begin(), h.calls.end());
  }
  std::vector<std::pair<int, int>> spans;
  for (const auto& t : a.tests)
    if (whole_file || names_failing_test(wanted, t.name)) spans.emplace_back(t.line, t.end_line);
  for (const auto& h : a.helpers)
    if (reached.count(h.name)) spans.emplace_back(h.line, h.end_line);
  // A name the file defines itself is its own code, not the project's (a local stand-in for the
  // code under test is the guard's to judge). A Python test is a function the file defines; a JS
  // test's name is a title, no binding: `test('add', () => add(2, 2))` calls the project's add.
  const FileNames names = file_names(lang, after);
  auto own = [&](const std::string& n) {
    return names.defined.count(n) > 0 || std::any_of(a.helpers.begin(), a.helpers.end(), [&](const TestUnit& h) { return h.name == n; }) ||
           (lang == Lang::python && std::any_of(a.tests.begin(), a.tests.end(), [&](const TestUnit& t) { return t.name == n; }));
  };
  // Each call in those spans, by how it is reached: `add(`, `cart.total(`, `calc.add(`,
  // `subprocess.run(`, `os.path.join(` (the chain's first name decides).
  static const rx::regex call(R"(((?:[A-Za-z_$][\w$]*\s*\.\s*)*)([A-Za-z_$][\w$]*)\s*\()");
  static const rx::regex first_name(R"(^([A-Za-z_$][\w$]*))");
  static const rx::regex word(R"((?:^|[^\w$.])([A-Za-z_$][\w$]*)(?![\w$]))");
  // The imported names in the value of each top-level name (`OPS = {'+': add}`, `const ops = {
  // add }`; a statement runs on over its indented or closing lines).
  std::map<std::string, std::set<std::string>> top_values;
  {
    static const rx::regex top(R"(^(?:(?:const|let|var)\s+)?([A-Za-z_$][\w$]*)\s*(?::[^=]*)?=(?!=)(.*)$)");
    std::string current;
    for_each_capped_line(after, [&](int, const std::string& text) {
      const std::string line = code_only(text, lang);
      rx::smatch m;
      std::string rest;
      if (!line.empty() && !std::isspace(static_cast<unsigned char>(line[0])) && std::string_view(")]}").find(line[0]) == std::string_view::npos) {
        current.clear();
        if (!rx::regex_match(line, m, top)) return;
        current = m[1].str();
        rest = m[2].str();
      } else if (current.empty()) {
        return;
      } else {
        rest = line;
      }
      for (rx::sregex_iterator it(rest.begin(), rest.end(), word), e; it != e; ++it)
        if (const std::string n = (*it)[1].str(); n != current && names.imported.count(n) && !own(n)) top_values[current].insert(n);
    });
  }
  for_each_capped_line(after, [&](int line_no, const std::string& text) {
    if (std::none_of(spans.begin(), spans.end(), [&](const auto& sp) { return line_no >= sp.first && line_no <= sp.second; })) return;
    const std::string line = code_only(text, lang);  // code in a string is not called here
    for (rx::sregex_iterator it(line.begin(), line.end(), call), e; it != e; ++it) {
      const std::string name = (*it)[2].str();
      const std::string chain = (*it)[1].str();
      rx::smatch fm;
      const std::string head = rx::regex_search(chain, fm, first_name) ? fm[1].str() : std::string();
      if (head.empty()) {
        if (own(name)) continue;
        if (auto im = names.imported.find(name); im != names.imported.end()) out.imported[name].insert(im->second);
        else out.names.insert(name);
      } else if (auto im = names.imported.find(head); im != names.imported.end() && !own(head)) {
        out.imported[name].insert(im->second);
        // (`from tests import helpers` ... `helpers.check_add(`: a member that may be a submodule.)
        if (!names.module_bindings.count(head) && lang == Lang::python && chain.find('.') == chain.rfind('.'))
          out.submodules[name].insert(im->second + "." + head);
      } else {
        out.names.insert(name);  // a method of a local value, `self`, `this`
      }
    }
    // Imported names used as a value (not followed by `(`, not a member `x.add`), here or in the
    // value of a top-level name the test uses (`OPS = {'+': add}` ... `OPS['+'](2, 2)`). Not a
    // sort key or comparator (`key=priority`, `cmp_to_key(compare)`, `xs.sort(compare)`): only the order of its
    // results counts there, which a moved result keeps.
    static const rx::regex order_only(R"((?:\bkey\s*=|\bcmp_to_key\s*\(|\.(?:sort|toSorted)\s*\()\s*$)");
    for (rx::sregex_iterator it(line.begin(), line.end(), word), e; it != e; ++it) {
      const std::string name = (*it)[1].str();
      const std::size_t next = line.find_first_not_of(" \t", static_cast<std::size_t>(it->position(1) + it->length(1)));
      if (rx::regex_search(line.substr(0, static_cast<std::size_t>(it->position(1))), order_only)) continue;
      if (auto tv = top_values.find(name); tv != top_values.end()) out.referenced.insert(tv->second.begin(), tv->second.end());
      if (next != std::string::npos && line[next] == '(') continue;
      if (names.imported.count(name) && !own(name)) out.referenced.insert(name);
    }
  });
  return out;
}

namespace {

/// The import aliases of a test file, each as (name the module exports, local name): `from calc
/// import add as plus`, `import numpy as np`, `const { add: plus } = require(...)` (also any
/// `key: value` pair of an object literal: the callers look up only names imported from a module).
std::vector<std::pair<std::string, std::string>> import_aliases(Lang lang, const std::string& text) {
  static const rx::regex py(R"(\b([A-Za-z_]\w*)\s+as\s+([A-Za-z_]\w*)\b)");
  static const rx::regex js(R"((?:^|[{,\s])([A-Za-z_$][\w$]*)\s*:\s*([A-Za-z_$][\w$]*)(?![\w$]))");
  std::vector<std::pair<std::string, std::string>> out;
  const std::string head = text.substr(0, 1u << 20);
  for (rx::sregex_iterator it(head.begin(), head.end(), lang == Lang::python ? py : js), e; it != e; ++it)
    out.emplace_back((*it)[1].str(), (*it)[2].str());
  return out;
}

std::string exported_of(const std::vector<std::pair<std::string, std::string>>& aliases, const std::string& local) {
  for (const auto& [exported, l] : aliases)
    if (l == local) return exported;
  return local;
}

/// The position of the `(` whose `)` ends `e` (npos when `e` does not end with a call's `)`).
std::size_t final_call_open(const std::string& e) {
  if (e.empty() || e.back() != ')') return std::string::npos;
  int depth = 0;
  for (std::size_t i = e.size(); i-- > 0;) {
    if (e[i] == ')' || e[i] == ']' || e[i] == '}') ++depth;
    else if (e[i] == '(' || e[i] == '[' || e[i] == '{') {
      if (--depth == 0) return e[i] == '(' ? i : std::string::npos;
    }
  }
  return std::string::npos;
}

/// The callee of the call `e` ends with (`calc.add` of `calc.add(2,2)`), the position of its last
/// `.` (npos: none) and the name after it; nullopt when `e` does not end with a call of a name.
struct Callee {
  std::string callee;
  std::size_t dot;
  std::string name;
};
std::optional<Callee> callee_of(const std::string& e) {
  const auto open = final_call_open(e);
  if (open == std::string::npos || open == 0) return std::nullopt;
  Callee c{e.substr(0, open), 0, ""};
  c.dot = c.callee.rfind('.');
  c.name = c.dot == std::string::npos ? c.callee : c.callee.substr(c.dot + 1);
  if (!is_plain_name(c.name)) return std::nullopt;
  return c;
}

}  // namespace

std::string exported_name(const std::string& path, const std::string& text, const std::string& local) {
  return exported_of(import_aliases(lang_of(path), text), local);
}

std::vector<PinnedCall> pinned_calls(const std::string& path, const std::string& before, const std::string& after,
                                     const std::vector<std::string>& wanted, bool whole_file,
                                     const std::vector<std::string>* wanted_after,
                                     const std::function<bool(const std::string& via, const PinnedCall& pin)>& reached_through,
                                     bool unseen_too) {
  std::vector<PinnedCall> out;
  const Lang lang = lang_of(path);
  if (lang != Lang::python && !is_js(lang)) return out;
  const FileModel b = analyze(lang, before);
  if (!b.parsed) return out;
  const FileNames names = file_names(lang, before);
  const auto aliases_before = import_aliases(lang, before);
  // A class of another module as the test names it (`Calc`, `calc.Calc`, with JS's `new` in front,
  // whitespace removed): {class as its module exports it, the module as written}.
  auto class_of = [&](std::string ctor) -> std::optional<std::pair<std::string, std::string>> {
    for (int pass = 0; pass < 2; ++pass) {
      const auto dot = ctor.find('.');
      const std::string head = ctor.substr(0, dot);
      const std::string tail = dot == std::string::npos ? "" : ctor.substr(dot + 1);
      if (is_plain_name(head) && (tail.empty() || is_plain_name(tail))) {
        if (auto im = names.imported.find(head); im != names.imported.end())
          return std::pair{tail.empty() ? exported_of(aliases_before, head) : tail, im->second};
      }
      if (pass == 0 && is_js(lang) && ctor.rfind("new", 0) == 0) ctor = ctor.substr(3);  // (`new Calc` without its space)
      else break;
    }
    return std::nullopt;
  };
  // Instances of those classes the file keeps in a name: `c = Calc()`, `self.calc = calc.Calc()`,
  // `const c = new Calc(...)`, a pytest fixture or helper that returns one (`return Calc()`).
  std::map<std::string, std::pair<std::string, std::string>> instances;
  {
    static const rx::regex assigned(R"((?:^|[^\w$.])((?:self\.|this\.)?[A-Za-z_$][\w$]*)\s*=\s*(new\s+)?([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)?)\s*\()");
    static const rx::regex returned(R"(^\s*(?:return|yield)\s+(new\s+)?([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)?)\s*\()");
    auto strip = [](std::string s) {
      s.erase(std::remove_if(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); }), s.end());
      return s;
    };
    for_each_capped_line(before, [&](int line_no, const std::string& text) {
      const std::string line = code_only(text, lang);
      for (rx::sregex_iterator it(line.begin(), line.end(), assigned), e; it != e; ++it)
        if (auto c = class_of(strip((*it)[3].str())); c && !instances.count((*it)[1].str())) instances.emplace((*it)[1].str(), *c);
      rx::smatch m;
      if (!rx::regex_search(line, m, returned)) return;
      for (const auto& h : b.helpers)
        if (line_no > h.line && line_no <= h.end_line)
          if (auto c = class_of(strip(m[2].str())); c && !instances.count(h.name)) instances.emplace(h.name, *c);
    });
  }
  // Names bound to a module other than by an import statement (Python): `calc =
  // importlib.import_module("calc")` / `__import__("calc")`, a fixture or helper that imports a
  // module and returns it (`def calc_mod(): import calc; return calc`); and names bound to a
  // function of a module (`self.add = calc.add` in setUp, `op = calc.add`).
  std::map<std::string, std::string> module_names;
  std::map<std::string, std::pair<std::string, std::string>> member_names;  // name -> {function, module}
  if (lang == Lang::python) {
    static const rx::regex by_name(R"(^\s*((?:self\.)?[A-Za-z_]\w*)\s*=\s*(?:importlib\s*\.\s*)?(?:import_module|__import__)\s*\(\s*['"]([\w.]+)['"]\s*\))");
    static const rx::regex member(R"(^\s*((?:self\.|cls\.)?[A-Za-z_]\w*)\s*=\s*([A-Za-z_]\w*)\s*\.\s*([A-Za-z_]\w*)\s*$)");
    static const rx::regex local_import(R"(^\s*import\s+([\w.]+)(?:\s+as\s+(\w+))?\s*$)");
    static const rx::regex returns_name(R"(^\s*(?:return|yield)\s+([A-Za-z_]\w*)\s*$)");
    std::map<std::string, std::string> imported_here;  // (per helper: local name -> module)
    const TestUnit* current = nullptr;
    for_each_capped_line(before, [&](int line_no, const std::string& text) {
      const std::string line = code_only(text, lang);
      rx::smatch m;
      if (rx::regex_search(text, m, by_name)) module_names[m[1].str()] = m[2].str();  // (the name is a literal)
      if (rx::regex_search(line, m, member) && names.module_bindings.count(m[2].str()))
        member_names[m[1].str()] = {m[3].str(), names.imported.at(m[2].str())};
      const TestUnit* in = nullptr;
      for (const auto& h : b.helpers)
        if (line_no > h.line && line_no <= h.end_line) in = &h;
      if (in != current) {
        current = in;
        imported_here.clear();
      }
      if (!in) return;
      if (rx::regex_search(line, m, local_import)) imported_here[m[2].matched ? m[2].str() : m[1].str()] = m[1].str();
      if (rx::regex_search(line, m, returns_name)) {
        if (auto it = imported_here.find(m[1].str()); it != imported_here.end()) module_names[in->name] = it->second;
        else if (names.module_bindings.count(m[1].str())) module_names[in->name] = names.imported.at(m[1].str());
      }
    });
  }
  // The call an operand pins: a function of an imported module (`add(2,2)`, `calc.add(2,2)`) or a
  // method of an instance of an imported class (`Calc().add(2,2)`, `c.add(2,2)`, `self.calc.add(`).
  auto call_of = [&](const std::string& e) -> std::optional<PinnedCall> {
    const auto parts = callee_of(e);
    if (!parts) return std::nullopt;
    const auto& [callee, dot, name] = *parts;
    if (auto mem = member_names.find(callee); mem != member_names.end()) return PinnedCall{mem->second.first, mem->second.second, "", {}};
    if (dot == std::string::npos) {
      auto im = names.imported.find(name);
      if (im != names.imported.end()) return PinnedCall{exported_of(aliases_before, name), im->second, "", {}};
      // A name of the one module the file imports with * (`from calc import *`) that it does not
      // define itself.
      if (lang == Lang::python && names.star_imports.size() == 1 && !names.defined.count(name))
        return PinnedCall{name, names.star_imports.front(), "", {}};
      return std::nullopt;
    }
    const std::string receiver = callee.substr(0, dot);
    // (Before the imports: `calc = importlib.import_module("calc")` reads as a member of importlib there.)
    if (auto mn = module_names.find(receiver); mn != module_names.end()) return PinnedCall{name, mn->second, "", {}};
    if (auto im = names.imported.find(receiver); im != names.imported.end()) {
      if (names.module_bindings.count(receiver)) return PinnedCall{name, im->second, "", {}};  // `calc.add(` (`import calc`)
      // A member of its module (`from pkg import calc` or `const { Calc } = require(...)`, then
      // `calc.add(` / `Calc.add(`): a submodule, a class's static method, an object's method.
      return PinnedCall{name, im->second, exported_of(aliases_before, receiver), {}};
    }
    // (`self.calc` also finds a class attribute `calc = Calc()` of the test class.)
    for (const std::string& r : {receiver, receiver.rfind("self.", 0) == 0 || receiver.rfind("this.", 0) == 0 ? receiver.substr(5) : std::string()})
      if (auto in = instances.find(r); !r.empty() && in != instances.end()) return PinnedCall{name, in->second.second, in->second.first, {}};
    const auto ctor_open = final_call_open(receiver);  // `Calc(...).add(`, `new Calc(...).add(`
    if (ctor_open == std::string::npos || ctor_open == 0) return std::nullopt;
    if (auto c = class_of(receiver.substr(0, ctor_open))) return PinnedCall{name, c->second, c->first, {}};
    return std::nullopt;
  };
  // A call through something the file does not tie to a module: a pytest fixture of a conftest.py
  // (`def test_add(calc_mod): calc_mod.add(2, 2)`, `def test_add(adder): adder(2, 2)`), a
  // loader function (`load().add(2, 2)`), an object a helper returns (`self.make().add(`). The
  // module is left empty: the caller looks for the project's definitions of the function, and
  // the run decides whether the tests call them.
  auto unresolved_call = [&](const std::string& e, const TestUnit& t) -> std::optional<PinnedCall> {
    // A function named by a string: a member of a dict of functions (`ops["add"](2, 2)`, a
    // fixture returning `{"add": calc.add}`), `getattr(calc, "add")(2, 2)` (review 31).
    static const rx::regex by_string(R"(^(?:[A-Za-z_$][\w$.]*\[|getattr\([A-Za-z_$][\w$.]*,)['"]([A-Za-z_$][\w$]*)['"][\])]\()");
    if (rx::smatch m; rx::regex_search(e, m, by_string) && final_call_open(e) == static_cast<std::size_t>(m.length()) - 1) {
      const bool through_getattr = e.rfind("getattr(", 0) == 0;
      const std::string receiver = through_getattr ? e.substr(8, e.find(',') - 8) : e.substr(0, e.find('['));
      if (auto im = names.imported.find(receiver); im != names.imported.end() && names.module_bindings.count(receiver))
        return PinnedCall{m[1].str(), im->second, "", {}};
      return PinnedCall{m[1].str(), "", "", {}};
    }
    const auto parts = callee_of(e);
    if (!parts) return std::nullopt;
    const auto& [callee, dot, name] = *parts;
    if (dot == std::string::npos) {
      // (A plain name: only a parameter of the test, a fixture that is a function.)
      if (lang != Lang::python || std::find(t.params.begin(), t.params.end(), name) == t.params.end()) return std::nullopt;
      return PinnedCall{name, "", "", {}};
    }
    std::string receiver = callee.substr(0, dot);
    for (const char* own : {"self.", "this."})
      if (receiver.rfind(own, 0) == 0) receiver = receiver.substr(5);
    static const rx::regex name_or_call(R"(^[A-Za-z_$][\w$]*(?:\(.*\))?$)");
    if (!rx::regex_match(receiver, name_or_call)) return std::nullopt;
    const std::string head = receiver.substr(0, receiver.find('('));
    // (Not a module the file imports, a module of the runtime or a value the language owns.)
    static const std::set<std::string> owned = {"self", "cls", "this", "super", "os", "sys", "re", "json", "math", "str", "dict", "list",
                                                "Object", "Array", "JSON", "Math", "Promise", "String", "Number", "console", "process", "assert"};
    if (names.imported.count(head) || owned.count(head)) return std::nullopt;
    return PinnedCall{name, "", "", {}};
  };
  const TestCalls still = requested_test_calls(path, after, wanted_after ? *wanted_after : wanted, whole_file);
  const FileNames names_after = file_names(lang, after);
  const auto aliases_after = import_aliases(lang, after);
  // Still reached through the same import, under its own name or an alias (`from calc import
  // add as plus`, `const { add: plus } = require('./calc')`).
  auto locals_of = [&](const std::string& exported) {
    std::set<std::string> local = {exported};
    for (const auto& [x, l] : aliases_after)
      if (x == exported) local.insert(l);
    return local;
  };
  // Names the new file binds to a module it requires by a path computed at run time
  // (`const sum = require(path.join(__dirname, '..', 'sum'))`): they may be the same module.
  std::set<std::string> dynamic;
  if (is_js(lang)) {
    static const rx::regex bound(R"((?:const|let|var)\s+([A-Za-z_$][\w$]*|\{[^}]*\})\s*=\s*(?:await\s+)?(?:require|import)\s*\(\s*(?!['"`][^'"`]*['"`]\s*\)))");
    static const rx::regex name(R"([A-Za-z_$][\w$]*)");
    const std::string code = after.substr(0, 1u << 20);
    for (rx::sregex_iterator it(code.begin(), code.end(), bound), e; it != e; ++it) {
      const std::string names_bound = (*it)[1].str();
      for (rx::sregex_iterator n(names_bound.begin(), names_bound.end(), name); n != e; ++n) dynamic.insert((*n)[0].str());
    }
  }
  // The pinned function still called through such a name that the old file bound to its module
  // (`sum(` for the module that is the function, `calc.add(`, a destructured `add(`).
  auto dynamically_called = [&](const PinnedCall& p) {
    auto escaped = [](std::string n) { return rx::regex_replace(n, detail::cached_regex(R"(\$)"), R"(\$)"); };
    for (const auto& [local, module] : names.imported) {
      if (module != p.module || !dynamic.count(local)) continue;
      const bool binding = names.module_bindings.count(local) > 0;
      const bool itself = exported_of(aliases_before, local) == p.name;
      if (!binding && !itself) continue;
      const std::string form = itself ? escaped(local) : escaped(local) + R"(\s*\.\s*)" + escaped(p.name);
      if (rx::regex_search(after, detail::cached_regex(R"((?:^|[^\w$.]))" + form + R"(\s*\()"))) return true;
    }
    return false;
  };
  // Names the old file binds once, at its top level, to a literal (`FOUR = 4`, `const WANT = 'x';`):
  // a call compared with one is pinned as with the literal.
  std::set<std::string> constants;
  {
    static const rx::regex py_const(R"(^([A-Za-z_]\w*)[ \t]*(?::[ \t]*\w+[ \t]*)?=[ \t]*(-?\d[\d_.eE+-]*|[rRbBuU]?(['"])[^'"\\]*\3|True|False)[ \t]*(?:#.*)?$)");
    static const rx::regex js_const(R"(^(?:const|let|var)[ \t]+([A-Za-z_$][\w$]*)[ \t]*=[ \t]*(-?\d[\d_.eE+-]*|(['"`])[^'"`\\$]*\3|true|false)[ \t]*;?[ \t]*(?://.*)?$)");
    static const rx::regex bound_py(R"(^[ \t]*([A-Za-z_]\w*)[ \t]*(?::[^=]*)?=[^=])");
    static const rx::regex bound_js(R"((?:^|[^\w$.])([A-Za-z_$][\w$]*)[ \t]*=[^=>])");
    std::map<std::string, int> times;
    std::set<std::string> literal_bound;
    for_each_capped_line(before, [&](int, const std::string& line) {
      rx::smatch m;
      if (lang == Lang::python) {
        if (rx::regex_search(line, m, bound_py)) ++times[m[1].str()];
        if (rx::regex_match(line, m, py_const)) literal_bound.insert(m[1].str());
      } else {
        for (rx::sregex_iterator it(line.begin(), line.end(), bound_js), e; it != e; ++it) ++times[(*it)[1].str()];
        if (rx::regex_match(line, m, js_const)) literal_bound.insert(m[1].str());
      }
    });
    for (const auto& n : literal_bound)
      if (times[n] == 1) constants.insert(n);
  }
  for (const auto& t : b.tests) {
    if (!whole_file && !names_failing_test(wanted, t.name)) continue;
    for (const auto& x : t.asserts) {
      if (x.kind != Kind::eq || x.trivial || x.optional || x.inverted) continue;
      // A call compared with a literal, or with a column of the test's literal table (`add(a, b) ==
      // want` under `parametrize('a,b,want', ...)` or in a loop over rows of literals), or with a
      // constant of the file bound to a literal.
      std::string op;  // (whitespace removed: `await add(2, 2)` is `awaitadd(2,2)`)
      if (x.operands.size() == 1) {
        op = *x.operands.begin();
      } else if (x.operands.size() == 2) {
        auto column = [&](const std::string& n) {
          return is_plain_name(n) && (t.table_values.count(n) > 0 || x.rows > 1 || constants.count(n) > 0);
        };
        const std::string& o1 = *x.operands.begin();
        const std::string& o2 = *std::next(x.operands.begin());
        if (column(o2) && !column(o1)) op = o1;
        else if (column(o1) && !column(o2)) op = o2;
        else continue;
      } else {
        continue;
      }
      // (Through a conversion that keeps the value: `list(sums(pairs))` of a generator,
      // `Array.from(gen())`, `str(label(2))`.)
      static const rx::regex converted(R"(^(?:list|tuple|sorted|set|frozenset|dict|str|int|float|Array\.from|String|Number)\((.*)\)$)");
      for (rx::smatch m; rx::regex_match(op, m, converted) && final_call_open(op) == op.find('(');) op = m[1].str();
      auto pinned = call_of(op);
      if (!pinned && op.rfind("await", 0) == 0) pinned = call_of(op.substr(5));
      if (!pinned && unseen_too) pinned = unresolved_call(op, t);
      if (!pinned && unseen_too && op.rfind("await", 0) == 0) pinned = unresolved_call(op.substr(5), t);
      if (!pinned) continue;
      bool called = false;
      if (pinned->module.empty()) {
        // (A module the file does not name: only a run can tell whether the tests still call it.)
      } else if (pinned->cls.empty()) {
        for (const auto& l : locals_of(pinned->name))
          if (auto now = still.imported.find(l); now != still.imported.end() && now->second.count(pinned->module)) called = true;
        if (!called) called = dynamically_called(*pinned);  // (required now by a computed path)
        for (const auto& l : locals_of(pinned->name))  // (passed on as a value: `map(add, xs, ys)`)
          if (auto im = names_after.imported.find(l); !called && still.referenced.count(l) && im != names_after.imported.end() && im->second == pinned->module)
            called = true;
        if (!called && reached_through)  // (through a helper of another module: `check_add(2, 2, 4)`)
          for (const auto* via : {&still.imported, &still.submodules})
            for (const auto& [n, modules] : *via)
              for (const auto& m : modules)
                if (!called && m != pinned->module && reached_through(m, *pinned)) called = true;
      } else {
        // A method: the tests still call it by name, and the file still imports its class from
        // the same module (the instance may be made in a fixture or setUp the tests do not call).
        const bool method_called = still.names.count(pinned->name) > 0 || still.imported.count(pinned->name) > 0;
        bool class_imported = false;
        for (const auto& l : locals_of(pinned->cls))
          if (auto im = names_after.imported.find(l); im != names_after.imported.end() && im->second == pinned->module) class_imported = true;
        for (const auto& [local, module] : names_after.imported)  // (`import calc` ... `calc.Calc(`)
          if (module == pinned->module && after.find(local + "." + pinned->cls) != std::string::npos) class_imported = true;
        called = method_called && class_imported;
      }
      if (!called && !unseen_too) continue;
      pinned->seen_called = called;  // (a pin seen called in one test and not in another: two entries)
      auto same = std::find_if(out.begin(), out.end(), [&](const PinnedCall& p) {
        return p.name == pinned->name && p.module == pinned->module && p.cls == pinned->cls && p.seen_called == called;
      });
      if (same == out.end()) {
        pinned->tests.push_back(t.name);
        pinned->pins.push_back(op);
        out.push_back(std::move(*pinned));
      } else {
        if (std::find(same->tests.begin(), same->tests.end(), t.name) == same->tests.end()) same->tests.push_back(t.name);
        if (std::find(same->pins.begin(), same->pins.end(), op) == same->pins.end()) same->pins.push_back(op);
      }
    }
  }
  return out;
}

}  // namespace flowagent::integrity
