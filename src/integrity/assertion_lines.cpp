// Which assertion lines of a requested test must have executed in a passing run (see the header).
#include "integrity/assertion_lines.hpp"

#include <algorithm>
#include <regex>
#include <set>

#include "integrity/guard_internal.hpp"

namespace flowagent::integrity {

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
      if (lines.insert(x.line).second) out.push_back({t.name, x.line});
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

}  // namespace flowagent::integrity
