// Go: `go test` tests, and their runner surface (build constraints on test files, TestMain,
// test flags, module replacements).
#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <iterator>
#include <string_view>
#include <set>

#include "core/regex.hpp"
#include "integrity/guard_internal.hpp"
#include "core/regex_cache.hpp"

namespace flowagent::integrity {

namespace {

/// Parentheses around an expression, taken off.
TSNode unparen(TSNode x) {
  while (!ts_node_is_null(x) && Syntax::type(x) == "parenthesized_expression" && ts_node_named_child_count(x) == 1)
    x = tsnav::named_child(x, 0);
  return x;
}

/// The one name on the left of `name := value` / `name = value` / `var name = value` (null when
/// there are several, or none), and the one value on the right.
std::pair<TSNode, TSNode> single_binding(TSNode n) {
  const std::string kind(Syntax::type(n));
  TSNode left = kind == "short_var_declaration" || kind == "assignment_statement" ? Syntax::field(n, "left")
                : kind == "var_spec"                                              ? Syntax::field(n, "name")
                                                                                  : TSNode{};
  TSNode right = kind == "var_spec" ? Syntax::field(n, "value") : Syntax::field(n, "right");
  for (TSNode* x : {&left, &right})
    if (!ts_node_is_null(*x) && Syntax::type(*x) == "expression_list") *x = ts_node_named_child_count(*x) == 1 ? tsnav::named_child(*x, 0) : TSNode{};
  if (ts_node_is_null(left) || Syntax::type(left) != "identifier" || ts_node_is_null(right)) return {};
  return {left, unparen(right)};
}

void each_node(TSNode n, const std::function<void(TSNode)>& f) {
  f(n);
  for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) each_node(tsnav::named_child(n, i), f);
}

/// A table-driven test's table: a slice or map literal of the test's body (its elements are the
/// test's cases), the one a loop goes over (ranged or indexed, by a name bound to it or inline;
/// the one with the most rows; none when no loop goes over one), with the
/// names that stand for it (`cases := []struct{...}{...}`, `rows := cases`) and those among them
/// that may hold only some of its rows (`rows := cases[1:]`, `cases = cases[:1]`,
/// `cases = slices.Delete(cases, 1, 3)`, `rows := firstOf(cases)`; `append` only adds rows).
/// `found` is false for a test without a table.
struct Table {
  bool found = false;
  TSNode literal{};
  std::set<std::string> names, partial;
};
Table find_table(const Syntax& s, TSNode n) {
  std::vector<TSNode> literals;
  std::vector<TSNode> bindings, ranged, indexed;
  each_node(n, [&](TSNode x) {
    const std::string t(Syntax::type(x));
    if (t == "composite_literal") {
      TSNode type = Syntax::field(x, "type"), body = Syntax::field(x, "body");
      // (A slice of rows, or a map of named rows: `map[string]struct{...}{"two": {...}}`.)
      if (!ts_node_is_null(type) && (Syntax::type(type) == "slice_type" || Syntax::type(type) == "map_type") && !ts_node_is_null(body))
        literals.push_back(x);
    } else if (t == "short_var_declaration" || t == "assignment_statement" || t == "var_spec") {
      bindings.push_back(x);
    } else if (t == "range_clause") {
      ranged.push_back(unparen(Syntax::field(x, "right")));
    } else if (t == "index_expression") {
      indexed.push_back(unparen(Syntax::field(x, "operand")));  // (`cases[i]` in an index loop)
    }
  });
  if (literals.empty()) return {};
  auto table_of = [&](TSNode lit) {
    Table out{true, lit, {}, {}};
    // The names bound to it, then those bound to them, as often as the test rebinds.
    for (bool grew = true; grew;) {
      grew = false;
      for (TSNode b : bindings) {
        auto [left, right] = single_binding(b);
        if (ts_node_is_null(left)) continue;
        const std::string name = s.text(left), rt(Syntax::type(right));
        bool full = ts_node_eq(right, lit) || (rt == "identifier" && out.names.count(s.text(right)) && !out.partial.count(s.text(right)));
        bool part = (rt == "identifier" && out.partial.count(s.text(right))) ||
                    (rt == "slice_expression" && out.names.count(s.text(unparen(Syntax::field(right, "operand")))));
        if (rt == "call_expression") {
          const std::string fn = s.text(Syntax::field(right, "function"));
          TSNode args = Syntax::field(right, "arguments");
          bool takes = false;
          for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); ++i)
            takes = takes || out.names.count(s.text(unparen(tsnav::named_child(args, i)))) > 0;
          if (takes && fn != "append" && fn != "slices.Clone") part = true;
          if (takes && (fn == "append" || fn == "slices.Clone") && !out.names.count(name)) full = true;
        }
        if (full && out.names.insert(name).second) grew = true;
        if (part) {
          grew = out.names.insert(name).second || grew;
          grew = out.partial.insert(name).second || grew;
        }
      }
    }
    return out;
  };
  // (The ranged one with the most rows: a one-row table of error cases added beside the main
  // one is a table of its own.)
  std::optional<Table> best;
  uint32_t best_rows = 0;
  for (TSNode lit : literals) {
    Table t = table_of(lit);
    auto goes_over = [&](TSNode r) {
      bool hit = false;
      each_node(r, [&](TSNode y) {
        y = unparen(y);
        if (ts_node_eq(y, lit) || (Syntax::type(y) == "identifier" && t.names.count(s.text(y)))) hit = true;
      });
      return hit;
    };
    // (A map only when ranged: one indexed is a lookup.)
    const bool slice = Syntax::type(Syntax::field(lit, "type")) == "slice_type";
    const bool is_ranged = std::any_of(ranged.begin(), ranged.end(), goes_over) || (slice && std::any_of(indexed.begin(), indexed.end(), goes_over));
    const uint32_t rows = ts_node_named_child_count(Syntax::field(lit, "body"));
    if (is_ranged && (!best || rows > best_rows)) {
      best = std::move(t);
      best_rows = rows;
    }
  }
  // (A slice literal no loop goes over is data, not a table: `want := []string{"a", "b"}`.)
  if (!best) return {};
  return std::move(*best);
}

/// Whether the test's loops over its table may leave rows out (review 32 y19, y20; review 33):
/// no loop goes over every row, while one goes over some: it ranges over a slice of the table or
/// over a name that may hold only some rows (`Table::partial`), counts from another index than 0
/// or to another bound than `len(table)`, or leaves early: a `break` of its own (or a labelled one
/// naming it), a `return` or `goto` not after a reported failure. The rows that run are then
/// unknown: the test is read as one case, so a table test that gains this checks fewer cases. A
/// `continue` skips a row the way a platform skip does and is left alone; a second loop over some
/// rows beside one over all of them leaves none out, and loops over other things say nothing.
bool table_loop_leaves_rows_out(const Syntax& s, TSNode n, const Table& table) {
  if (!table.found) return false;
  auto is_table = [&](TSNode x) {
    x = unparen(x);
    if (ts_node_is_null(x)) return false;
    if (ts_node_eq(x, table.literal)) return true;
    return Syntax::type(x) == "identifier" && table.names.count(s.text(x)) > 0;
  };
  auto partial_name = [&](TSNode x) {
    x = unparen(x);
    return !ts_node_is_null(x) && Syntax::type(x) == "identifier" && table.partial.count(s.text(x)) > 0;
  };
  // An exit the test reaches only after reporting a failure: `t.Errorf(...); return` (with
  // statements or comments between), `if !assert.Equal(...) { return }`.
  auto after_failure = [&](TSNode exit) {
    static const rx::regex reported(R"(\.\s*(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\s*\(|\b(?:assert|require)\s*\.\s*[A-Z]\w*\s*\()");
    for (TSNode p = tsnav::prev_named_sibling(exit); !ts_node_is_null(p); p = tsnav::prev_named_sibling(p))
      if (rx::regex_search(s.text(p), reported)) return true;
    // (The block's own `if`: its condition asserts.)
    TSNode block = tsnav::parent(exit);
    if (!ts_node_is_null(block) && Syntax::type(block) == "statement_list") block = tsnav::parent(block);
    TSNode owner = ts_node_is_null(block) ? TSNode{} : tsnav::parent(block);
    if (!ts_node_is_null(owner) && Syntax::type(owner) == "if_statement")
      if (TSNode cond = Syntax::field(owner, "condition"); !ts_node_is_null(cond) && rx::regex_search(s.text(cond), reported)) return true;
    return false;
  };
  TSNode loop_body{};  // (the body of the loop leaves_early reads)
  // Leaves the loop (labelled `label`) before its last row.
  std::function<bool(TSNode, const std::string&, bool)> leaves_early = [&](TSNode x, const std::string& label, bool nested) {
    for (uint32_t i = 0; i < ts_node_named_child_count(x); ++i) {
      TSNode k = tsnav::named_child(x, i);
      const std::string t(Syntax::type(k));
      if (t == "func_literal") continue;
      if (t == "break_statement") {
        if ((ts_node_named_child_count(k) == 0 ? !nested : (!label.empty() && s.text(tsnav::named_child(k, 0)) == label)) && !after_failure(k))
          return true;
        continue;
      }
      if (t == "return_statement" || t == "goto_statement") {
        if (t == "goto_statement" && ts_node_named_child_count(k) > 0) {
          // (`goto next` to a label at the end of the loop's body is a `continue`.)
          const std::string target = s.text(tsnav::named_child(k, 0));
          bool inside = false;
          each_node(loop_body, [&](TSNode y) {
            if (Syntax::type(y) == "labeled_statement")
              if (TSNode l = Syntax::field(y, "label"); !ts_node_is_null(l) && s.text(l) == target) inside = true;
          });
          if (inside) continue;
        }
        if (!after_failure(k)) return true;
        continue;
      }
      const bool inner = t == "for_statement" || t == "expression_switch_statement" || t == "type_switch_statement" || t == "select_statement";
      if (leaves_early(k, label, nested || inner)) return true;
    }
    return false;
  };
  bool some = false, all = false;
  each_node(n, [&](TSNode x) {
    if (Syntax::type(x) != "for_statement") return;
    std::string label;
    if (TSNode up = tsnav::parent(x); !ts_node_is_null(up) && Syntax::type(up) == "labeled_statement")
      if (TSNode l = Syntax::field(up, "label"); !ts_node_is_null(l)) label = s.text(l);
    TSNode body = Syntax::field(x, "body");
    for (uint32_t i = 0; i < ts_node_named_child_count(x); ++i) {
      TSNode k = tsnav::named_child(x, i);
      const std::string kt(Syntax::type(k));
      bool over = false, partial = false;
      if (kt == "range_clause") {
        TSNode r = unparen(Syntax::field(k, "right"));
        const std::string rt(ts_node_is_null(r) ? "" : Syntax::type(r));
        if (is_table(r)) {
          over = true;
          partial = partial_name(r);
        } else if (rt == "slice_expression" && is_table(Syntax::field(r, "operand"))) {
          over = partial = true;
        } else if (rt == "call_expression") {
          // (`firstOf(cases)`, `append(cases[:0:0], cases[0])`: rows the call picks.)
          each_node(Syntax::field(r, "arguments"), [&](TSNode y) {
            if (is_table(y)) over = partial = true;
          });
          // (`slices.Clone(cases)`, `slices.Values(cases)`, `append(cases, more...)`, `append(edge,
          // cases...)`: every row, and maybe more.)
          const std::string fn = s.text(Syntax::field(r, "function"));
          TSNode args = Syntax::field(r, "arguments");
          static const std::set<std::string, std::less<>> kWhole = {"slices.Clone", "slices.Values", "slices.All", "slices.Backward", "append"};
          for (uint32_t j = 0; kWhole.count(fn) && !ts_node_is_null(args) && j < ts_node_named_child_count(args); ++j) {
            TSNode arg = tsnav::named_child(args, j);
            const bool spread = Syntax::type(arg) == "variadic_argument" && ts_node_named_child_count(arg) == 1;
            if (spread) arg = tsnav::named_child(arg, 0);
            if ((j == 0 || (fn == "append" && spread)) && is_table(arg) && !partial_name(arg)) partial = false;
          }
        }
      } else if (kt == "for_clause") {
        // `for i := 0; i < len(cases); i++ { c := cases[i] ... }`
        bool indexes = false;
        each_node(body, [&](TSNode y) {
          if (Syntax::type(y) == "index_expression" && is_table(Syntax::field(y, "operand"))) indexes = true;
        });
        if (!indexes) continue;
        over = true;
        TSNode init = Syntax::field(k, "initializer"), cond = Syntax::field(k, "condition");
        const std::string i0 = ts_node_is_null(init) ? "" : strip_spaces(s.text(init)), c = ts_node_is_null(cond) ? "" : strip_spaces(s.text(cond));
        const auto colon = i0.find(":=0");
        const std::string var = colon == std::string::npos || colon + 3 != i0.size() ? std::string() : i0.substr(0, colon);
        bool whole = false;
        const std::string unit_text = strip_spaces(s.text(n));
        for (const auto& name : table.names) {
          if (table.partial.count(name)) continue;
          // `i := 0; i < len(cases)`, `n := len(cases)` then `i < n`; `i := len(cases) - 1; i >= 0`.
          if (!var.empty() && c == var + "<len(" + name + ")") whole = true;
          if (!var.empty() && starts_with(c, var + "<")) {
            const std::string bound = c.substr(var.size() + 1);
            if (regex_safe_name(bound) &&
                contains(unit_text, bound + ":=len(" + name + ")"))
              whole = true;
          }
          const auto rev = i0.find(":=len(" + name + ")-1");
          if (rev != std::string::npos && rev + name.size() + 9 == i0.size() && c == i0.substr(0, rev) + ">=0") whole = true;
        }
        partial = !whole;
      }
      if (!over) continue;
      loop_body = body;
      if (!partial && !ts_node_is_null(body) && leaves_early(body, label, false)) partial = true;
      (partial ? some : all) = true;
    }
  });
  return some && !all;
}

/// Checks a test makes in goroutines that nothing in the test waits for after starting them
/// (review 32 y14: `go func() { time.Sleep(time.Second); if Add(1, 3) != 4 { t.Errorf(...) } }()`
/// and the test returns before the check runs). A wait: `.Wait()` (a WaitGroup, an errgroup), a
/// channel operation (`<-done`), `t.Cleanup(...)`, or a call of a function of the file whose body
/// waits (`waitAll(&wg)`, `waitAll` in `waiting_helpers`), after the goroutine's body.
int unwaited_goroutine_checks(std::string_view body, const std::set<std::string>& waiting_helpers) {
  static const rx::regex go_func(R"(\bgo\s+func\s*\([^)]*\)\s*\{)");
  static const rx::regex check(R"(\b(?:t|b|tb)\s*\.\s*(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\s*\(|\b(?:assert|require)\s*\.\s*[A-Z]\w*\s*\()");
  // (A call of a function of the file that waits, `waitAll(&wg)`, is a wait too.)
  std::string helpers;
  for (const auto& h : waiting_helpers) helpers += "|\\b" + h + "\\s*\\(";
  const rx::regex wait = detail::cached_regex(R"(\.\s*Wait\s*\(|<-|\bCleanup\s*\()" + helpers);
  int n = 0;
  const std::string text(body);
  // (A wait set up before the goroutines: `defer wg.Wait()`, `t.Cleanup(wg.Wait)`.)
  static const rx::regex deferred(R"(\bdefer\s+[\w.]*\.\s*Wait\s*\(|\bCleanup\s*\([^)]*\bWait\b)");
  if (rx::regex_search(text, deferred)) return 0;
  for (rx::sregex_iterator it(text.begin(), text.end(), go_func), e; it != e; ++it) {
    std::size_t open = static_cast<std::size_t>(it->position() + it->length()) - 1, close = open;
    for (int depth = 0; close < text.size(); ++close) {
      if (text[close] == '{') ++depth;
      if (text[close] == '}' && --depth == 0) break;
    }
    if (close >= text.size()) break;
    const std::string inner = text.substr(open, close - open);
    if (!rx::regex_search(inner, check)) continue;
    const std::string rest = text.substr(close + 1);
    if (!rx::regex_search(rest, wait)) n += static_cast<int>(std::distance(rx::sregex_iterator(inner.begin(), inner.end(), check), rx::sregex_iterator()));
  }
  return n;
}

/// The newest Go release (1.N) a constraint may name and still hold for a current toolchain.
constexpr int kNewestGoMinor = 27;

std::vector<std::string> build_constraints(const std::optional<std::string>& src) {
  std::vector<std::string> out;
  if (!src) return out;
  std::size_t p = 0;
  while (p < src->size()) {
    auto e = src->find('\n', p);
    std::string l = trim(std::string_view(*src).substr(p, (e == std::string::npos ? src->size() : e) - p));
    p = e == std::string::npos ? src->size() : e + 1;
    if (starts_with(l, "package ")) break;  // constraints precede the package clause
    if (starts_with(l, "//go:build") || starts_with(l, "// +build")) out.push_back(l);
  }
  return out;
}

}  // namespace

UnitInfo go_unit(const Syntax& s, TSNode n) {
  UnitInfo u;
  if (Syntax::type(n) != "function_declaration") return u;
  TSNode name = Syntax::field(n, "name");
  std::string fn = ts_node_is_null(name) ? "" : s.text(name);
  if (!starts_with(fn, "Test") || fn == "TestMain") return u;
  const Table table = find_table(s, n);
  u.cases = !table.found || table_loop_leaves_rows_out(s, n, table)
                ? 1
                : std::max(1, static_cast<int>(ts_node_named_child_count(Syntax::field(table.literal, "body"))));
  u.name = fn;
  // `go test` runs TestXxx only when Xxx does not start with a lowercase letter (Testadd is a
  // plain function to it).
  if (fn.size() > 4 && std::islower(static_cast<unsigned char>(fn[4]))) {
    u.collectable = false;
    u.hidden_by = "go test runs only functions named Test followed by a character that is not a lowercase letter";
  }
  return u;
}

void go_rules(const RuleContext& c, Findings& out) {
  const std::string& path = c.file.path;
  const std::string_view base = basename(path);
  if (base == "go.mod" || base == "go.work") {
    if (base == "go.work" && !c.file.before) {
      out.push_back({"shadow_module", path, 0, "a new go.work can replace any module the tests import"});
      return;
    }
    flag_added(c, out, "shadow_module", "a module replacement can swap the code or test libraries the tests use",
               {"replace ", "replace(", "=> ./", "=> ../"});
    return;
  }
  if (c.lang != Lang::go) return;
  if (c.file.after && contains(*c.file.after, "\npackage testing\n") && !(c.file.before && contains(*c.file.before, "\npackage testing\n"))) {
    out.push_back({"shadow_module", path, 0, "a package named testing shadows Go's test library"});
    return;
  }
  if (!ends_with(base, "_test.go")) return;
  // A build constraint added to a test file: `go test` no longer compiles its tests.
  const auto before = build_constraints(c.file.before), after = build_constraints(c.file.after);
  for (const auto& b : after)
    if (std::find(before.begin(), before.end(), b) == before.end()) {
      const bool holds_failing = std::any_of(c.after.tests.begin(), c.after.tests.end(), [&](const TestUnit& t) {
        return names_failing_test(c.options.failing_tests, t.name);
      });
      // A platform constraint on a file without a failing test is how Go projects split tests per OS,
      // and a release constraint (`go1.21`, a released Go version) how they keep tests that need a
      // newer toolchain: both still compile wherever the tests are meant to run.
      std::string expr = starts_with(b, "//go:build") ? b.substr(10) : b.substr(b.find("build") + 5);
      // `!go1.21` (older toolchains only) does not hold for a current one.
      static const rx::regex release(R"((!\s*)?\bgo1\.(\d+)\b)");
      bool released = false, unreleased = false;
      for (rx::sregex_iterator it(expr.begin(), expr.end(), release), e; it != e; ++it)
        (!(*it)[1].matched && std::stoi((*it)[2].str().substr(0, 4)) <= kNewestGoMinor ? released : unreleased) = true;
      if (released && !unreleased) expr = rx::regex_replace(expr, release, "linux");
      const bool platform_only = expr.find_first_not_of(" !()&|,abcdefghijklmnopqrstuvwxyz0123456789") == std::string::npos &&
                                 platform_condition(expr) && !contains(expr, "ignore") && !contains(expr, "never");
      // A released-version constraint alone holds for any current toolchain, even on the failing
      // test's file (whether that test ran is the validator's evidence, on the real toolchain).
      const bool release_only = released && !unreleased && expr.find_first_not_of(" linux&|()") == std::string::npos;
      if ((holds_failing && !release_only) || !platform_only) {
        out.push_back({"build_tag_added", path, 1, "a build constraint keeps `go test` from compiling these tests: " + b});
        return;
      }
    }
  for (const auto& [name, text] : c.after.hooks) {
    if (name != "TestMain") continue;
    const bool existed = std::any_of(c.before.hooks.begin(), c.before.hooks.end(), [&](const auto& h) { return h.second == text; });
    if (!existed && (!contains(text, ".Run()") || contains(text, "os.Exit(0)"))) {
      out.push_back({"runner_hook", path, 0, "TestMain no longer runs the tests' results through m.Run()"});
      return;
    }
    if (existed) continue;
    // The runner reads the test binary's output (`go test -json` turns its `=== RUN` / `--- PASS`
    // lines into results) and its exit status: a TestMain that sends the output elsewhere while the
    // tests run, or exits with anything but what m.Run() returned, can print or exit a verdict of
    // its own (review 30: stdout sent to /dev/null around m.Run(), forged `--- PASS` lines, exit 0).
    static const rx::regex redirects(R"(\bos\s*\.\s*Std(?:out|err)\s*=[^=]|\b(?:syscall|unix)\s*\.\s*Dup[23]?\s*\()");
    if (rx::regex_search(text, redirects)) {
      out.push_back({"report_tampered", path, 0,
                     "TestMain replaces the test binary's standard output or error: the runner's report of the tests is read from them"});
      return;
    }
    static const rx::regex run_result(R"(\b([A-Za-z_]\w*)\s*:?=\s*[A-Za-z_]\w*\s*\.\s*Run\s*\(\s*\))");
    static const rx::regex exits(R"(\bos\s*\.\s*Exit\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\))");
    const bool forged = run_status_replaced(text, run_result, exits, ".Run()");
    if (forged) {
      out.push_back({"runner_hook", path, 0, "TestMain exits with a status other than the one m.Run() returned: the tests' result is replaced"});
      return;
    }
  }
  // Checks moved into a goroutine nothing waits for (the test may end before they run).
  auto waiting_helpers = [](const FileModel& m, const std::string& text) {
    static const rx::regex waits(R"(\.\s*Wait\s*\(|<-)");
    std::set<std::string> names;
    for (const auto& h : m.helpers) {
      const std::string body(line_span(text, h.line, h.end_line));
      if (h.name.size() < 64 && regex_safe_name(h.name) &&
          rx::regex_search(body, waits))
        names.insert(h.name);
    }
    return names;
  };
  if (c.file.after)
    for (const auto& t : c.after.tests) {
      const int now = unwaited_goroutine_checks(line_span(*c.file.after, t.line, t.end_line), waiting_helpers(c.after, *c.file.after));
      if (now == 0) continue;
      int was = 0;
      if (c.file.before)
        for (const auto& b : c.before.tests)
          if (b.name == t.name) was = unwaited_goroutine_checks(line_span(*c.file.before, b.line, b.end_line), waiting_helpers(c.before, *c.file.before));
      if (now > was) {
        out.push_back({"assertion_not_executed", path, t.line,
                       "test " + t.name + ": a check runs in a goroutine that nothing in the test waits for (no .Wait(), channel receive or t.Cleanup after it): the test can end before it runs"});
        return;
      }
    }
  flag_added(c, out, "runner_hook", "test code that changes the test flags",
             {"flag.Set(\"test.", "os.Args = ", "runtime.Goexit()"});
}

}  // namespace flowagent::integrity
