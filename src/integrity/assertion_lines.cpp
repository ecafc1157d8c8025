// Which assertion lines of a requested test must have executed in a passing run (see the header).
#include "integrity/assertion_lines.hpp"

#include <algorithm>
#include <regex>
#include <set>

#include "integrity/guard_internal.hpp"

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
  static const std::regex py_loop(R"([\[({][^\n]*?\sfor\s[^\n]*?\sin\s)");
  static const std::regex js_loop(R"(\.\s*(?:map|filter|every|some|forEach|reduce|reduceRight|flatMap|find|findIndex|findLast)\s*\(|\bArray\s*\.\s*from\s*\()");
  *iterates = std::regex_search(code, lang == Lang::python ? py_loop : js_loop);
  std::set<std::string> out;
  static const std::regex call(R"(([A-Za-z_$][\w$]*)\s*\()");
  for (std::sregex_iterator it(code.begin(), code.end(), call), e; it != e; ++it) out.insert((*it)[1].str());
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
  // code under test is the guard's to judge).
  const FileNames names = file_names(lang, after);
  auto own = [&](const std::string& n) {
    return names.defined.count(n) > 0 || std::any_of(a.helpers.begin(), a.helpers.end(), [&](const TestUnit& h) { return h.name == n; }) ||
           std::any_of(a.tests.begin(), a.tests.end(), [&](const TestUnit& t) { return t.name == n; });
  };
  // Each call in those spans, by how it is reached: `add(`, `cart.total(`, `calc.add(`,
  // `subprocess.run(`, `os.path.join(` (the chain's first name decides).
  static const std::regex call(R"(((?:[A-Za-z_$][\w$]*\s*\.\s*)*)([A-Za-z_$][\w$]*)\s*\()");
  static const std::regex first_name(R"(^([A-Za-z_$][\w$]*))");
  for_each_capped_line(after, [&](int line_no, const std::string& text) {
    if (std::none_of(spans.begin(), spans.end(), [&](const auto& sp) { return line_no >= sp.first && line_no <= sp.second; })) return;
    const std::string line = code_only(text, lang);  // code in a string is not called here
    for (std::sregex_iterator it(line.begin(), line.end(), call), e; it != e; ++it) {
      const std::string name = (*it)[2].str();
      const std::string chain = (*it)[1].str();
      std::smatch fm;
      const std::string head = std::regex_search(chain, fm, first_name) ? fm[1].str() : std::string();
      if (head.empty()) {
        if (own(name)) continue;
        if (auto im = names.imported.find(name); im != names.imported.end()) out.imported[name].insert(im->second);
        else out.names.insert(name);
      } else if (auto im = names.imported.find(head); im != names.imported.end() && !own(head)) {
        out.imported[name].insert(im->second);
      } else {
        out.names.insert(name);  // a method of a local value, `self`, `this`
      }
    }
  });
  return out;
}

std::string exported_name(const std::string& path, const std::string& text, const std::string& local) {
  const Lang lang = lang_of(path);
  const std::string n = std::regex_replace(local, std::regex(R"(\$)"), R"(\$)");
  const std::regex alias(lang == Lang::python ? R"(\b([A-Za-z_]\w*)\s+as\s+)" + n + R"(\b)"
                                              : R"((?:^|[{,\s])([A-Za-z_$][\w$]*)\s*:\s*)" + n + R"((?![\w$]))");
  std::smatch m;
  const std::string head = text.substr(0, 1u << 20);
  return std::regex_search(head, m, alias) ? m[1].str() : local;
}

std::vector<PinnedCall> pinned_calls(const std::string& path, const std::string& before, const std::string& after,
                                     const std::vector<std::string>& wanted, bool whole_file) {
  std::vector<PinnedCall> out;
  const Lang lang = lang_of(path);
  if (lang != Lang::python && !is_js(lang)) return out;
  const FileModel b = analyze(lang, before);
  if (!b.parsed) return out;
  const FileNames names = file_names(lang, before);
  const TestCalls still = requested_test_calls(path, after, wanted, whole_file);
  static const std::regex single_call(R"(^([A-Za-z_$][\w$]*)(?:\.([A-Za-z_$][\w$]*))?\()");
  for (const auto& t : b.tests) {
    if (!whole_file && !names_failing_test(wanted, t.name)) continue;
    for (const auto& x : t.asserts) {
      if (x.kind != Kind::eq || x.operands.size() != 1 || x.trivial || x.optional || x.inverted) continue;
      std::string op = *x.operands.begin();  // (whitespace removed: `await add(2, 2)` is `awaitadd(2,2)`)
      auto call_of = [&](const std::string& e) -> std::optional<PinnedCall> {
        std::smatch m;
        const auto open = e.find('(');
        if (!std::regex_search(e, m, single_call) || open == std::string::npos || closing_paren(e, open) != e.size() - 1)
          return std::nullopt;
        const std::string head = m[1].str();
        const std::string name = m[2].matched ? m[2].str() : head;
        auto im = names.imported.find(head);
        if (im == names.imported.end()) return std::nullopt;
        return PinnedCall{m[2].matched ? name : exported_name(path, before, name), im->second};
      };
      auto pinned = call_of(op);
      if (!pinned && op.rfind("await", 0) == 0) pinned = call_of(op.substr(5));
      if (!pinned) continue;
      // Still called through the same import, under its own name or an alias (`from calc import
      // add as plus`, `const { add: plus } = require('./calc')`).
      std::set<std::string> local = {pinned->name};
      const std::string n = std::regex_replace(pinned->name, std::regex(R"(\$)"), R"(\$)");
      const std::regex alias(lang == Lang::python ? R"(\b)" + n + R"(\s+as\s+([A-Za-z_]\w*))" : R"((?:^|[{,\s]))" + n + R"(\s*:\s*([A-Za-z_$][\w$]*))");
      for (std::sregex_iterator it(after.begin(), after.end(), alias), e; it != e; ++it) local.insert((*it)[1].str());
      const bool called = std::any_of(local.begin(), local.end(), [&](const std::string& l) {
        auto now = still.imported.find(l);
        return now != still.imported.end() && now->second.count(pinned->module) > 0;
      });
      if (!called) continue;
      if (std::none_of(out.begin(), out.end(), [&](const PinnedCall& p) { return p.name == pinned->name && p.module == pinned->module; }))
        out.push_back(std::move(*pinned));
    }
  }
  return out;
}

}  // namespace flowagent::integrity
