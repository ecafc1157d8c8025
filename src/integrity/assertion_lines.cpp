// Which assertion lines of a requested test must have executed in a passing run (see the header).
#include "integrity/assertion_lines.hpp"

#include <algorithm>
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

}  // namespace flowagent::integrity
