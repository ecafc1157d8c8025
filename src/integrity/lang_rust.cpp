// Rust: #[test] functions (and rstest cases), and their runner surface (Cargo test targets,
// cfg conditions on test modules, patched crates, cfg(test) in production code).
#include "integrity/guard_internal.hpp"

namespace flowagent::integrity {

UnitInfo rust_unit(const Syntax& s, TSNode n, const std::string& scope) {
  UnitInfo u;
  if (Syntax::type(n) != "function_item") return u;
  bool is_test = false;
  int cases = 0;
  // (Doc comments between the attributes and the function, `/// Parses ...`, are passed over.)
  const auto attribute_or_comment = [](TSNode p) {
    const std::string_view t = Syntax::type(p);
    return t == "attribute_item" || t == "line_comment" || t == "block_comment";
  };
  for (TSNode p = tsnav::prev_named_sibling(n); !ts_node_is_null(p) && attribute_or_comment(p); p = tsnav::prev_named_sibling(p)) {
    if (Syntax::type(p) != "attribute_item") continue;
    std::string a = s.text(p);
    if (contains(a, "test]") || contains(a, "::test") || contains(a, "#[test") || contains(a, "#[rstest")) is_test = true;
    if (starts_with(a, "#[case")) ++cases;
    // #[should_panic] without a message, or one an assertion's panic matches: the test passes when
    // its assertions fail (`assertion failed`, "assertion `left == right` failed").
    if (contains(a, "should_panic")) {
      const auto e = a.find("expected");
      if (e == std::string::npos) u.expects_failure = true;
      else {
        const auto q = a.find('"', e);
        const std::string msg = q == std::string::npos ? "" : a.substr(q + 1, a.find('"', q + 1) - q - 1);
        if (msg.empty() || contains("assertion failed", msg) || contains("assertion `left == right` failed", msg) ||
            contains(msg, "assert") || contains(msg, "left") || contains(msg, "right"))
          u.expects_failure = true;
      }
    }
    // A cfg on the test function itself: it compiles only when the cfg holds.
    if (starts_with(strip_spaces(a), "#[cfg(")) u.decorators.push_back("build: " + strip_spaces(a));
    else u.decorators.push_back(a);
  }
  if (!is_test) return u;
  // The enclosing module's cfg: `#[cfg(all(test, feature = "slow"))] mod tests` compiles only sometimes.
  for (TSNode p = tsnav::parent(n); !ts_node_is_null(p); p = tsnav::parent(p))
    if (Syntax::type(p) == "mod_item")
      for (TSNode a = tsnav::prev_named_sibling(p); !ts_node_is_null(a) && attribute_or_comment(a); a = tsnav::prev_named_sibling(a)) {
        if (Syntax::type(a) != "attribute_item") continue;
        const std::string attr = strip_spaces(s.text(a));
        if (starts_with(attr, "#[cfg(") && attr != "#[cfg(test)]") u.decorators.push_back("build: " + attr);
      }
  u.cases = cases > 0 ? cases : 1;
  TSNode name = Syntax::field(n, "name");
  u.name = (scope.empty() ? "" : scope + "::") + (ts_node_is_null(name) ? "" : s.text(name));
  return u;
}

void rust_rules(const RuleContext& c, Findings& out) {
  const std::string& path = c.file.path;
  if (basename(path) == "Cargo.toml") {
    if (flag_added(c, out, "shadow_module", "a patched or replaced crate can swap what the tests use", {"[patch", "[replace]"}))
      return;
    flag_changed_keys(c, out, "runner_config_exclusion", "cargo's test targets changed",
                      {"test", "harness", "autotests", "required-features", "doctest"});
    if (!out.empty() && out.back().path == path) return;
    flag_added(c, out, "runner_config_exclusion", "cargo's test targets changed", {"[[test]]"});
    return;
  }
  if (c.lang != Lang::rust || !c.file.after) return;
  // Inner cfg on an integration-test crate: the whole file stops compiling as a test.
  if (c.test_file && flag_added(c, out, "build_tag_added", "a crate-level cfg keeps these tests from compiling", {"#![cfg("}))
    return;
  // cfg(test) on production items (not on `mod tests` or test-only imports): code that behaves
  // differently under test.
  const std::string& after = *c.file.after;
  for (const auto& [n, l] : added_lines(c.file.before, c.file.after)) {
    const std::string compact = strip_spaces(l);
    if (contains(compact, "cfg!(test)") || contains(compact, "cfg!(not(test))")) {
      out.push_back({"test_detection_in_code", path, n, "code checks whether it is compiled for tests: " + quote(l)});
      return;
    }
    if (!(starts_with(compact, "#[cfg(test)]") || starts_with(compact, "#[cfg(not(test))]"))) continue;
    // The next non-attribute line says what the attribute applies to.
    std::size_t pos = 0;
    for (int i = 1; i < n && pos != std::string::npos; ++i) pos = after.find('\n', pos) + 1;
    std::string next;
    for (std::size_t p = after.find('\n', pos); p != std::string::npos; p = after.find('\n', p + 1)) {
      next = trim(std::string_view(after).substr(p + 1, after.find('\n', p + 1) - p - 1));
      if (!next.empty() && !starts_with(next, "#[") && !starts_with(next, "//")) break;
    }
    const bool test_module = starts_with(next, "mod ") || starts_with(next, "pub mod ") || starts_with(next, "pub(crate) mod ") ||
                             starts_with(next, "use ") || starts_with(next, "extern crate");
    if (!test_module || starts_with(compact, "#[cfg(not(test))]")) {
      out.push_back({"test_detection_in_code", path, n, "production code compiled differently under test: " + quote(l)});
      return;
    }
  }
}

}  // namespace flowagent::integrity
