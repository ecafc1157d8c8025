// Test-by-test comparison of the before and after versions: skip and focus markers, build
// conditions, deletions and renames, and the strength of what each test checks.
//
// Strength: every assertion is scored by what it compares (kStrength*). The checks of the old and
// the new version of a test are matched by what they look at (their non-literal operands, then the
// calls those are computed from through the test's local variables, operand_sources.cpp): a
// matched check that became weaker is `assertion_weakened`, whatever else the test gained; checks
// that disappeared are honest only when the test still checks about as much (kKeepRatio, with its
// unchanged checks at least kMinMatchedShare), or when they were replaced by the expectation of a
// specific exception (the change now raises).
#include <algorithm>
#include <numeric>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/regex.hpp"
#include "integrity/guard_internal.hpp"
#include "core/regex_cache.hpp"

namespace flowagent::integrity {

namespace {

/// compare_checks matches checks one by one, each test's once per parametrized case: up to this
/// many on a side (a larger test is compared unscaled, its cases weighing on the totals only).
constexpr std::size_t kMaxScaledChecks = 512;

/// The checks of a test, each once per row of the table loop it sits in, all of them `cases` times.
std::vector<const Assertion*> checks(const TestUnit& t, int cases = 1) {
  std::vector<const Assertion*> out;
  for (int c = 0; c < cases; ++c)
    for (const auto& a : t.asserts)
      if (counts(a))
        for (int r = 0; r < a.rows; ++r) out.push_back(&a);  // a check in a table loop: once per row
  return out;
}

/// `.imag`, `.__class__`, `.constructor`, `.getClass()`, `type(x)`, `reflect.TypeOf(x)`: a view of a
/// value that tells its type, the same for every value of it (`add(2, 2).imag == 0` holds for any
/// int). (`__name__`, `__module__` are not: of a class or function value they are its identity.)
bool type_attribute(std::string_view operand) {
  while (starts_with(operand, "(") && ends_with(operand, ")")) operand = operand.substr(1, operand.size() - 2);
  static constexpr std::string_view kWrappers[] = {"type(", "reflect.TypeOf(", "Object.getPrototypeOf(", "Reflect.getPrototypeOf(",
                                                   "str(type(", "repr(type(", "String(Object.getPrototypeOf("};
  for (auto w : kWrappers)
    if (starts_with(operand, w)) return true;
  // getattr(x, "__class__"): the attribute by name.
  if (starts_with(operand, "getattr(") && (contains(operand, "\"__class__\"") || contains(operand, "'__class__'"))) return true;
  static constexpr std::string_view kTypeOnly[] = {"imag", "denominator", "constructor", "prototype", "__proto__", "__class__",
                                                   "__mro__", "__bases__", "__doc__"};
  static constexpr std::string_view kTypeCalls[] = {"getClass", "Kind"};  // Java's getClass(), Go's reflect Value.Kind()
  for (auto at = operand.find('.'); at != std::string_view::npos; at = operand.find('.', at + 1)) {
    const std::string_view rest = operand.substr(at + 1);
    const std::size_t end = rest.find_first_of(".[()=!<>");
    const std::string_view name = rest.substr(0, end);
    const bool called = end != std::string_view::npos && rest[end] == '(';
    if (!called && std::find(std::begin(kTypeOnly), std::end(kTypeOnly), name) != std::end(kTypeOnly)) return true;
    if (called && std::find(std::begin(kTypeCalls), std::end(kTypeCalls), name) != std::end(kTypeCalls)) return true;
  }
  return false;
}

/// What a check compares: a comparison that looks at a value only through a type view
/// (`add(2, 2).__class__ == int`, `add(2, 2).imag == 0`), its other operands plain names (a type, an
/// expected variable) or type views themselves, checks the type only, however it is written.
/// `add(2, 2) % 1`, `add(2, 2) // 10`, `n >> 8`, `n & 1`: a value folded by arithmetic with a literal
/// into a few classes; comparing the class checks a range of values, not the value.
bool folded(std::string_view operand) {
  while (starts_with(operand, "(") && ends_with(operand, ")")) operand = operand.substr(1, operand.size() - 2);
  static const rx::regex fold(R"((?:%|//|>>>?|&)\s*~?\s*(?:-?[0-9][\w.]*|int\s*\(\s*-?[0-9]+\s*\))\s*$)");
  int depth = 0;
  for (char c : operand) depth += c == '(' || c == '[' ? 1 : c == ')' || c == ']' ? -1 : 0;
  return depth == 0 && rx::regex_search(std::string(operand), fold);
}

Kind kind_of(const Assertion& a) {
  // (A lossy view still an equality is one whose complement is checked too: Assertion::lossy.)
  if (a.kind == Kind::eq && a.lossy.empty() && std::any_of(a.operands.begin(), a.operands.end(), [](const std::string& o) { return folded(o); }))
    return Kind::range;
  if ((a.kind == Kind::eq || a.kind == Kind::approx || a.kind == Kind::range) &&
      std::any_of(a.operands.begin(), a.operands.end(), [](const std::string& o) { return type_attribute(o); }) &&
      std::all_of(a.operands.begin(), a.operands.end(),
                  [](const std::string& o) { return type_attribute(o) || o.find_first_of("([") == std::string::npos; }))
    return Kind::type;
  return a.kind;
}

int weight(const Assertion& a) { return a.tautology ? 0 : strength(kind_of(a)); }

/// `add(2, 2)` and `add(x, 2)`: the same function or object looked at.
std::string root(const std::string& operand) {
  auto end = operand.find_first_of("([{<=!");
  return operand.substr(0, end);
}

}  // namespace

namespace {

bool same_root(const Assertion& a, const Assertion& b) {
  for (const auto& x : a.operands)
    for (const auto& y : b.operands)
      if (!root(x).empty() && root(x) == root(y)) return true;
  return false;
}

/// Computed from the same call or name (through the test's local variables): `!reflect.DeepEqual(got,
/// want)` and `diff != ""` with `diff := cmp.Diff(want, got)`, `got := Split("ab")`.
bool same_source(const Assertion& a, const Assertion& b) {
  return std::any_of(a.sources.begin(), a.sources.end(), [&](const std::string& x) { return b.sources.count(x) > 0; });
}

bool overlaps(const Assertion& a, const Assertion& b) {
  for (const auto& x : a.operands)
    for (const auto& y : b.operands) {
      if (x == y) return true;
      // `result` and `result.value`, `rv` and `rv.status_code`, `items[0]`; not `Version` and
      // `Version.isvalid(s)`: a call through the shorter one computes something else.
      const auto& [shorter, longer] = x.size() < y.size() ? std::tie(x, y) : std::tie(y, x);
      if (starts_with(longer, shorter) && std::string_view(".[(").find(longer[shorter.size()]) != std::string_view::npos &&
          (longer[shorter.size()] == '(' || longer.find('(', shorter.size()) == std::string::npos))
        return true;
    }
  return false;
}

int total(const std::vector<const Assertion*>& v) {
  int s = 0;
  for (const auto* a : v) s += weight(*a);
  return s;
}

std::string describe(const Assertion& a) {
  if (a.tautology) return "a tautology";
  static constexpr std::string_view kNames[] = {"an equality", "an approximation", "an inequality/range",
                                                "a type/existence check", "a specific exception", "a broad exception",
                                                "a bare failure"};
  return std::string(kNames[static_cast<int>(kind_of(a))]);
}

/// Checks of `after` that can no longer run, that now expect their own failure, or that gained a
/// condition to run under which the old version did not have (an early return, a new `if`).
std::optional<IntegrityFinding> reachability(const TestUnit& bt, const TestUnit& at, const std::string& path) {
  const std::string& name = bt.name;
  auto live = [](const Assertion& x) { return !x.trivial && x.dead.empty() && !x.inverted; };
  auto count = [](const TestUnit& t, auto pred) { return std::count_if(t.asserts.begin(), t.asserts.end(), pred); };
  const auto dead = [](const Assertion& x) { return !x.trivial && !x.dead.empty(); };
  if (count(at, dead) > count(bt, dead))
    for (const auto& a : at.asserts)
      if (dead(a))
        return IntegrityFinding{"assertion_not_executed", path, a.line,
                                "test " + name + ": the assertion at line " + std::to_string(a.line) + " can no longer run (" + a.dead + ")"};
  const auto inverted = [](const Assertion& x) { return !x.trivial && x.inverted; };
  if (count(at, inverted) > count(bt, inverted))
    for (const auto& a : at.asserts)
      if (inverted(a))
        return IntegrityFinding{"assertion_inverted", path, a.line,
                                "test " + name + ": the assertion at line " + std::to_string(a.line) +
                                    " now sits in an expectation of an assertion failure (pytest.raises(AssertionError), "
                                    "assertRaises, assert.throws, toThrow): the test passes when the check fails"};
  // A parametrized test branches on its parameters honestly (`if expect_error: ... else: ...`);
  // the runtime check (all its cases run under coverage) is the judge there.
  if (at.cases > 1) return std::nullopt;
  std::set<std::string> before_guards;
  for (const auto& b : bt.asserts) before_guards.insert(b.guards.begin(), b.guards.end());
  for (const auto& a : at.asserts) {
    if (!live(a) || a.optional) continue;
    for (const auto& g : a.guards) {
      if (before_guards.count(g)) continue;
      // An existing check (same operands) that ran without this condition before, and that no
      // check of the new version still makes as the old one did (`assert add(2, 2) == 4` kept, a
      // copy of it added under `if strict:`: the condition took nothing away).
      const auto still_runs = [&](const Assertion& b) {
        return std::any_of(at.asserts.begin(), at.asserts.end(), [&](const Assertion& x) {
          return live(x) && !x.optional && !x.tautology && overlaps(x, b) && strength(kind_of(x)) >= strength(kind_of(b)) &&
                 std::all_of(x.guards.begin(), x.guards.end(),
                             [&](const std::string& xg) { return std::find(b.guards.begin(), b.guards.end(), xg) != b.guards.end(); });
        });
      };
      // The check made both ways of a new condition on the environment (`if werkzeug_3_2: assert
      // r.text == "default"` / `else: assert r.text == expect_host`, a dependency's version), each
      // way as strong as the old check: it still runs, whichever way the condition goes, and nothing
      // the code answers picks the way (Assertion::environment_guards; hostile review 55: a
      // condition reading the checked value through a local, a helper or the code's own flag).
      const auto both_ways = [&](const Assertion& b) {
        const std::string other = starts_with(g, "if ")                                ? "else " + g.substr(3)
                                  : starts_with(g, "else ") && !starts_with(g, "else #") ? "if " + g.substr(5)
                                                                                         : std::string();
        if (other.empty() || a.tautology || strength(kind_of(a)) < strength(kind_of(b)) || !a.environment_guards.count(g)) return false;
        const std::string condition = g.substr(g.find(' ') + 1);
        auto reads_checked = [&](const Assertion& x) {
          return std::any_of(x.operands.begin(), x.operands.end(), [&](const std::string& o) {
            const std::string r = root(o);
            return r.empty() || has_word(condition, r.substr(0, r.find('.')));
          });
        };
        if (reads_checked(a) || reads_checked(b)) return false;
        return std::any_of(at.asserts.begin(), at.asserts.end(), [&](const Assertion& x) {
          if (!live(x) || x.optional || x.tautology || !overlaps(x, b) || strength(kind_of(x)) < strength(kind_of(b)) || reads_checked(x) ||
              std::find(x.guards.begin(), x.guards.end(), other) == x.guards.end())
            return false;
          return std::all_of(x.guards.begin(), x.guards.end(), [&](const std::string& xg) {
            return xg == other || std::find(b.guards.begin(), b.guards.end(), xg) != b.guards.end();
          });
        });
      };
      const bool existing = std::any_of(bt.asserts.begin(), bt.asserts.end(), [&](const Assertion& b) {
        return live(b) && !b.operands.empty() && overlaps(a, b) && std::find(b.guards.begin(), b.guards.end(), g) == b.guards.end() &&
               !still_runs(b) && !both_ways(b);
      });
      if (existing)
        return IntegrityFinding{"assertion_not_executed", path, a.line,
                                "test " + name + ": the check at line " + std::to_string(a.line) + " now runs only " +
                                    (starts_with(g, "unless ") ? "when an earlier exit is not taken (" + g.substr(7) + ")"
                                                               : "under a new condition (" + g + ")") +
                                    ", which the test did not have"};
    }
  }
  return std::nullopt;
}

}  // namespace

bool counts(const Assertion& a) { return !a.trivial && a.dead.empty() && !a.inverted; }

namespace {

/// Why a check under `guards` never runs when the helper's parameters hold `values` (literals as
/// written): a guard that is a parameter (`if strict`, `if not strict`, `else strict`) whose value
/// is a literal of the other truth. "" when it may run; then the guards such a value always meets
/// are taken out of `guards` (`if strict` with `strict=True` passed is no condition).
std::string never_runs_with(std::vector<std::string>& guards, const std::vector<std::string>& params,
                            const std::map<std::string, std::string>& values) {
  static const std::set<std::string, std::less<>> falsy = {"False", "false", "None", "null", "undefined", "0", "0.0", "''", "\"\"", "[]", "()", "{}"};
  static const std::set<std::string, std::less<>> truthy = {"True", "true", "1"};
  std::vector<std::string> kept;
  for (const auto& g : guards) {
    kept.push_back(g);
    bool need = true;  // the guard must hold
    std::string e;
    if (starts_with(g, "if ")) e = g.substr(3);
    else if (starts_with(g, "else ")) {
      e = g.substr(5);
      need = false;
    } else continue;
    if (starts_with(e, "not")) {
      e = e.substr(3);
      need = !need;
    } else if (starts_with(e, "!")) {
      e = e.substr(1);
      need = !need;
    }
    if (std::find(params.begin(), params.end(), e) == params.end()) continue;
    auto v = values.find(e);
    if (v == values.end()) continue;
    const bool is_false = falsy.count(v->second) > 0, is_true = truthy.count(v->second) > 0;
    if ((need && is_false) || (!need && is_true))
      return "runs only when `" + e + "` is " + (need ? "true" : "false") + ", and the call leaves it " + v->second;
    if ((need && is_true) || (!need && is_false)) kept.pop_back();
  }
  guards = std::move(kept);
  return {};
}

}  // namespace

TestUnit with_helpers(const TestUnit& t, const FileModel& m) {
  TestUnit x = t;
  std::set<std::string> seen;
  // Each helper with why its checks cannot fail the test ("" when they can: a helper the test
  // only hands to an un-awaited task drops its checks and those of every helper it calls) and the
  // unit that calls it (whose arguments its parameters take).
  struct Todo {
    std::string name, why;
    const TestUnit* caller;
    /// The caller's own bindings when it is a helper (one per call of it): a helper called from
    /// a helper checks what each outer call passes through (`checkAdd(t, 2, 2, 4)` ->
    /// `expectEq(t, Add(a, b), want)` checks `Add(2, 2) == 4`).
    std::vector<std::map<std::string, std::string>> outer;
  };
  std::vector<Todo> todo;
  for (const auto& c : t.calls) {
    auto h = t.handed_off.find(c);
    todo.push_back({c, h == t.handed_off.end() ? "" : h->second, &t, {}});
  }
  // Directly reached helpers first, so a helper both called and handed off counts as called.
  std::stable_partition(todo.begin(), todo.end(), [](const Todo& p) { return !p.why.empty(); });
  while (!todo.empty()) {
    const Todo d = todo.back();
    todo.pop_back();
    if (!seen.insert(d.name).second || d.name == t.name) continue;
    auto it = std::find_if(m.helpers.begin(), m.helpers.end(), [&](const TestUnit& h) { return h.name == d.name; });
    if (it == m.helpers.end()) {  // (a checking function of a helper module the file imports)
      it = std::find_if(m.imported_helpers.begin(), m.imported_helpers.end(), [&](const TestUnit& h) { return h.name == d.name; });
      if (it == m.imported_helpers.end()) continue;
    }
    // A helper with parameters checks what each call passes: `check(2, 2, 4)` with `def check(a, b,
    // want): assert add(a, b) == want` checks `add(2,2) == 4`, once per call.
    std::vector<std::map<std::string, std::string>> bindings;
    // What each call leaves each parameter it guards a check with (`if strict:`): passed by
    // position or keyword, else its default.
    std::vector<std::map<std::string, std::string>> values;
    std::vector<std::vector<std::string>> arg_lists;
    if (auto calls = d.caller->call_args.find(d.name); calls != d.caller->call_args.end()) {
      if (d.outer.empty()) {
        arg_lists = calls->second;
      } else {
        for (const auto& ob : d.outer)
          for (const auto& args : calls->second) {
            std::vector<std::string> mapped;
            for (const auto& a : args) mapped.push_back(with_renames(a, ob));
            arg_lists.push_back(std::move(mapped));
            if (arg_lists.size() >= 64) break;
          }
      }
    }
    if (!it->params.empty())
      for (const auto& args : arg_lists) {
        std::map<std::string, std::string> b, v = it->param_defaults;
        for (std::size_t i = 0; i < args.size(); ++i) {
          const auto eq = args[i].find('=');
          if (eq == std::string::npos || args[i].find("==") != std::string::npos) {
            if (i < it->params.size()) b[it->params[i]] = v[it->params[i]] = args[i];
          } else {
            v[args[i].substr(0, eq)] = args[i].substr(eq + 1);
          }
        }
        bindings.push_back(std::move(b));
        values.push_back(std::move(v));
      }
    if (bindings.empty()) {
      bindings.emplace_back();
      values.push_back(it->param_defaults);
    }
    // (Called only where it can no longer run: none of its checks, nor those of the helpers it calls.)
    std::string dead;
    if (auto dc = d.caller->dead_calls.find(d.name); dc != d.caller->dead_calls.end()) dead = "(in `" + d.name + "`) its every call is " + dc->second;
    for (std::size_t k = 0; k < bindings.size(); ++k)
      for (Assertion a : it->asserts) {
        const auto& b = bindings[k];
        a.inlined = true;
        if (!dead.empty() && a.dead.empty()) a.dead = dead;
        // (Where the caller calls it: under its conditions, optional or inverted as the call is.)
        if (auto cs = d.caller->call_sites.find(d.name); cs != d.caller->call_sites.end()) {
          // (A condition on a parameter of a calling helper, `def verify(..., strict=False): if
          // strict: check(...)`, is its callers' to set: not read here.)
          for (const auto& g : cs->second.guards)
            if (std::none_of(d.caller->params.begin(), d.caller->params.end(), [&](const std::string& p) {
                  return rx::regex_search(g, detail::cached_regex("\\b" + p + "\\b"));
                }) || d.caller == &t)
              a.guards.insert(a.guards.begin(), g);
          a.optional = a.optional || cs->second.optional;
          a.inverted = a.inverted || cs->second.inverted;
        }
        if (!d.why.empty() && !a.swallowed) {
          a.swallowed = true;
          a.swallow_why = "(in `" + d.name + "`) " + d.why;
        }
        // A check under a parameter this call leaves false (`if strict:` with `strict=False` not
        // passed) is none of this call's checks (the other branch's may be).
        if (!never_runs_with(a.guards, it->params, values[k]).empty()) continue;
        if (!b.empty()) {
          // Operands stay the non-literal ones; a source that was a parameter becomes the names
          // the argument is computed from (`Add(2,2)` -> Add).
          static const rx::regex chain(R"([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)");
          std::set<std::string> operands, sources;
          for (const auto& o : a.operands)
            if (std::string r = with_renames(o, b); !literal_text(r)) operands.insert(std::move(r));
            else a.literals.insert(std::move(r));  // (the value this call has it compare with)
          for (const auto& src : a.sources) {
            auto arg = b.find(src);
            if (arg == b.end()) {
              sources.insert(with_renames(src, b));
              continue;
            }
            if (literal_text(arg->second)) continue;
            const std::string& e = arg->second;
            for (rx::sregex_iterator c(e.begin(), e.end(), chain), end; c != end; ++c)
              if (!literal_text(c->str())) sources.insert(c->str());
          }
          a.operands = std::move(operands);
          a.sources = std::move(sources);
          if (a.operands.empty() && a.kind != Kind::throws_specific && a.kind != Kind::throws_broad) a.trivial = true;
        }
        x.asserts.push_back(std::move(a));
      }
    std::vector<std::map<std::string, std::string>> passed;
    for (const auto& b : bindings)
      if (!b.empty()) passed.push_back(b);
    for (const auto& c : it->calls) {
      if (!dead.empty()) break;
      std::string inherited = d.why;
      if (inherited.empty())
        if (auto h = it->handed_off.find(c); h != it->handed_off.end()) inherited = h->second;
      todo.push_back({c, inherited, &*it, passed});
    }
  }
  return x;
}

namespace {

/// Do two checks' `bound` records (`r=client.get('/');`) agree: each name both record holds the
/// same value at both; a name whose value one of them does not know (no definition before it, or
/// one folded after it) is no difference.
bool same_values(const std::string& x, const std::string& y) {
  const auto parse = [](const std::string& b) {
    std::map<std::string, std::string> out;
    for (const auto& entry : split_top(b, {";"}))
      if (const auto eq = entry.find('='); eq != std::string::npos && eq > 0) out[entry.substr(0, eq)] = entry.substr(eq + 1);
    return out;
  };
  const auto a = parse(x), b = parse(y);
  for (const auto& [name, value] : a)
    if (const auto it = b.find(name); it != b.end() && !value.empty() && !it->second.empty() && value != it->second) return false;
  return true;
}

}  // namespace

std::optional<IntegrityFinding> compare_checks(const TestUnit& bt, const TestUnit& at, const std::string& path) {
  const std::string& name = bt.name;
  auto count_if = [](const TestUnit& t, auto pred) { return std::count_if(t.asserts.begin(), t.asserts.end(), pred); };
  if (count_if(at, [](const Assertion& x) { return x.swallowed; }) > count_if(bt, [](const Assertion& x) { return x.swallowed; })) {
    for (const auto& a : at.asserts)
      if (a.swallowed && !a.swallow_why.empty())
        return IntegrityFinding{"assertion_swallowed", path, a.line,
                                "test " + name + ": the check at line " + std::to_string(a.line) + " " + a.swallow_why};
    return IntegrityFinding{"assertion_swallowed", path, at.line,
                            "test " + name + ": an assertion now sits inside a handler that swallows its failure"};
  }
  if (auto f = reachability(bt, at, path)) return f;
  auto kind_count = [&](const TestUnit& t, Kind k) { return count_if(t, [&](const Assertion& x) { return x.kind == k && !x.trivial; }); };
  if (kind_count(at, Kind::throws_specific) < kind_count(bt, Kind::throws_specific) &&
      kind_count(at, Kind::throws_broad) > kind_count(bt, Kind::throws_broad))
    return IntegrityFinding{"assertion_weakened", path, at.line, "test " + name + ": a specific exception became a broad one"};

  // (Each test's checks once per parametrized case, both sides scaled to the same count: a loop
  // over three rows made a parametrization of three cases, `for x in (1, 2, 3): assert f(x) == x`
  // -> `@parametrize("x", [1, 2, 3])`, keeps its three checks. Unscaled for a test too large to
  // match check by check; its cases then weigh on the totals only.)
  // (A table either side cannot count is compared with nothing: both weigh as the old one.)
  const bool unknown_cases = at.cases_unknown || bt.cases_unknown;
  const int bc = std::max(1, bt.cases), ac = unknown_cases ? bc : std::max(1, at.cases), g = std::gcd(bc, ac);
  const auto before_once = checks(bt), after_once = checks(at);
  const bool scaled = static_cast<std::size_t>(bc / g) * before_once.size() <= kMaxScaledChecks &&
                      static_cast<std::size_t>(ac / g) * after_once.size() <= kMaxScaledChecks;
  const auto before = scaled && bc / g > 1 ? checks(bt, bc / g) : before_once, after = scaled && ac / g > 1 ? checks(at, ac / g) : after_once;
  if (before.empty()) return std::nullopt;
  // (The new test's strength on the old one's scale: its cases weigh on the total when unscaled.)
  const double after_total = scaled ? total(after) : static_cast<double>(total(after)) * ac / bc;
  // Fewer parametrized cases (rows of a table, values of a source) check fewer inputs (judged
  // before the matching: the missing cases' checks would take the weaker partners left).
  // (A case: a parametrized one, or a row of the table loop the checks sit in.)
  const auto inputs = [](const TestUnit& t) {
    int rows = 1;
    for (const auto& a : t.asserts)
      if (counts(a)) rows = std::max(rows, a.rows);
    return std::max(1, t.cases) * rows;
  };
  if (const int bi = inputs(bt), ai = inputs(at); !unknown_cases && ai < bi && after_total < kKeepRatio * total(before))
    return IntegrityFinding{"assertion_removed", path, at.line,
                            "test " + name + " checks fewer cases: " + std::to_string(bi) + " -> " + std::to_string(ai)};
  // Match each old check to a new one that looks at the same thing, the strongest first.
  std::vector<const Assertion*> match(before.size(), nullptr);
  std::vector<bool> used(after.size(), false);
  // The strongest old checks choose first, each taking the weakest new check that is at least as
  // strong (or else the strongest there is): two checks on the same operands (`err == nil` and
  // `err.Error() != want` both look at err) keep their own partners, and an unchanged test always
  // matches itself.
  std::vector<std::size_t> order(before.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return weight(*before[x]) > weight(*before[y]); });
  for (int pass = 0; pass < 4; ++pass)
    for (const std::size_t i : order) {
      if (match[i]) continue;
      int best = -1;
      for (std::size_t j = 0; j < after.size(); ++j) {
        if (used[j]) continue;
        // A check whose operand was overwritten with a constant matches no honest check.
        if (after[j]->overwritten && !before[i]->overwritten) continue;
        const bool fits = pass == 0   ? after[j]->operands == before[i]->operands ||
                                            (!after[j]->expanded.empty() && after[j]->expanded == before[i]->expanded)
                          : pass == 1 ? overlaps(*after[j], *before[i])
                          : pass == 2 ? same_root(*after[j], *before[i])
                                      // Matched through sources only to credit a rewritten check
                                      // (another comparator, as strong): a weaker one there stays a
                                      // dropped check, judged with the test's other checks.
                                      : same_source(*after[j], *before[i]) && weight(*after[j]) >= weight(*before[i]);
        if (!fits) continue;
        if (best < 0) {
          best = static_cast<int>(j);
          continue;
        }
        const int w = weight(*after[j]), bw = weight(*after[static_cast<std::size_t>(best)]), need = weight(*before[i]);
        const bool better = (w >= need && (bw < need || w < bw)) || (w < need && bw < need && w > bw);
        if (better) best = static_cast<int>(j);
      }
      if (best >= 0) {
        used[static_cast<std::size_t>(best)] = true;
        match[i] = after[static_cast<std::size_t>(best)];
      }
    }
  // A check rewritten into a repeat of another check the test keeps (review 31 W8: `add(1, 3) ==
  // 4` became `add(2.0, 2.0) == 4` beside the kept `add(2, 2) == 4`): the same kind of check of
  // the same values against the same expected literals checks nothing new, however its literals are
  // written (by_value; in Python and JavaScript `2.0` is `2`). Judged on the operands as written,
  // or one side through the test's locals (`r = add(2.0, 2.0)` ... `assert r == 4`), not both: two
  // names unpacked from one call (`q, r = divmod(...)`) read alike through their definitions. Not
  // a repeat: other expected values (`s.pop() == 2` then `s.pop() == 1`), a check whose expected
  // values are not literals, a helper's checks (`check_sum(2, 2, 4)`), a test that repeated a check
  // before the patch.
  {
    const Lang lang = lang_of(path);
    const bool loose = lang == Lang::python || is_js(lang);
    using Key = std::tuple<Kind, std::set<std::string>, std::set<std::string>>;
    auto key = [&](const Assertion& a, const std::set<std::string>& ops) {
      std::set<std::string> o, l;
      for (const auto& x : ops) o.insert(by_value(x, loose));
      for (const auto& x : a.literals) l.insert(by_value(strip_spaces(x), loose));
      return Key{kind_of(a), std::move(o), std::move(l)};
    };
    // (Each check's two keys, as written and through the test's locals, made once.)
    std::map<const Assertion*, std::pair<Key, Key>> keys;
    auto keys_of = [&](const Assertion& a) -> const std::pair<Key, Key>& {
      auto it = keys.find(&a);
      if (it == keys.end()) it = keys.emplace(&a, std::pair{key(a, a.operands), key(a, a.expanded.empty() ? a.operands : a.expanded)}).first;
      return it->second;
    };
    auto alike = [&](const Assertion& x, const Assertion& y) {
      if (x.literals.empty() || y.literals.empty()) return false;
      const auto &[dx, lx] = keys_of(x);
      const auto &[dy, ly] = keys_of(y);
      // (The same as written, its names bound again between the two, `r = get(a)` ... `r = get(b)`:
      // alike only through the test's locals.)
      // (The same as written, a name they read bound between them to another value, `r =
      // client.get(a)` ... `r = client.get(b)`: told apart; bound again to the same one, `got =
      // add(2, 2)` twice, `r = r`: alike. A key through the locals that is the key as written,
      // nothing expanded, is that key.)
      return (dx == dy && same_values(x.bound, y.bound)) || (dx == ly && ly != dy) || (lx == dy && lx != dx);
    };
    for (std::size_t i = 0; i < before.size(); ++i) {
      const Assertion* a = match[i];
      if (!a || a->inlined || a->operands.empty() || before[i]->operands.empty() || weight(*a) == 0) continue;
      if (a->operands == before[i]->operands && a->expanded == before[i]->expanded) continue;  // (the same check)
      // Its twin: another check of the new test, itself the partner of another old check.
      const Assertion* twin = nullptr;
      for (std::size_t k = 0; k < before.size() && !twin; ++k)
        if (match[k] && match[k] != a && !match[k]->inlined && before[k] != before[i] && alike(*match[k], *a)) twin = match[k];
      if (!twin) continue;
      // Old checks that repeated each other already: not a new repeat.
      const bool repeated_before = std::any_of(before.begin(), before.end(), [&](const Assertion* y) { return y != before[i] && alike(*y, *before[i]); });
      if (repeated_before) continue;
      const auto shown = [](const Assertion& x) { return *(x.expanded.empty() ? x.operands : x.expanded).begin(); };
      return IntegrityFinding{"assertion_removed", path, a->line,
                              "test " + name + ": the check of " + shown(*before[i]) + " (line " + std::to_string(before[i]->line) +
                                  ") became a check of " + shown(*a) + ", which repeats the check at line " + std::to_string(twin->line) +
                                  " with the same values: one check fewer"};
    }
  }
  // A matched check that became weaker is a weakening, whatever the test gained elsewhere.
  int matched = 0;
  std::vector<const Assertion*> dropped, added;
  for (std::size_t i = 0; i < before.size(); ++i) {
    const Assertion& b = *before[i];
    if (!match[i]) {
      dropped.push_back(&b);
      continue;
    }
    const Assertion& a = *match[i];
    // `EXPECT_EQ(1, f(x))` -> `EXPECT_EQ(false, f(x))`: the same value compared exactly with another
    // expected literal (the function now returns a bool): an updated expectation, not a weaker check.
    const bool same_value_new_literal = a.boolean_literal && a.kind == Kind::type && b.kind == Kind::eq && a.operands == b.operands;
    if (weight(a) < weight(b) && !same_value_new_literal)
      return IntegrityFinding{"assertion_weakened", path, a.line,
                              "test " + name + ": " + describe(b) + " became " + describe(a) + " (line " + std::to_string(a.line) + ")"};
    if (b.kind == Kind::approx && a.kind == Kind::approx && b.tolerance >= 0 && a.tolerance > b.tolerance * (1 + kToleranceSlack))
      return IntegrityFinding{"assertion_weakened", path, a.line,
                              "test " + name + ": the tolerance grew from " + std::to_string(b.tolerance) + " to " +
                                  std::to_string(a.tolerance)};
    matched += weight(b);
  }
  for (std::size_t j = 0; j < after.size(); ++j)
    if (!used[j]) added.push_back(after[j]);
  const int before_total = total(before);
  if (dropped.empty()) return std::nullopt;
  // Checks replaced by the expectation of a specific exception: the change now raises. Only of the
  // code the dropped checks looked at (`r = parse(s); assert r.a == 1` -> `with raises(E):
  // parse(s)`): a throw expected of other code (`int("true")`) or of other input (`parse("0x10") ==
  // 16` -> `parse("0x")` raises) replaces no check of this one.
  if (kind_count(at, Kind::throws_specific) > kind_count(bt, Kind::throws_specific) &&
      std::any_of(after.begin(), after.end(), [&](const Assertion* y) {
        if (y->kind != Kind::throws_specific) return false;
        // (Of a dropped check, or of the one it took the place of: the same operand or source.)
        for (std::size_t i = 0; i < before.size(); ++i)
          if ((!match[i] || match[i] == y) && (overlaps(*before[i], *y) || same_source(*before[i], *y))) return true;
        return false;
      }))
    return std::nullopt;
  if (!added.empty() && total(added) < total(dropped) && matched < kMinMatchedShare * before_total)
    return IntegrityFinding{"assertion_weakened", path, at.line,
                            "test " + name + ": its checks were replaced by weaker ones (strength " +
                                std::to_string(total(dropped)) + " -> " + std::to_string(total(added)) + ")"};
  if (matched < kMinMatchedShare * before_total && after_total >= before_total)
    return IntegrityFinding{"assertion_removed", path, at.line,
                            "test " + name + ": " + std::to_string(dropped.size()) + " of its " + std::to_string(before.size()) +
                                " check(s) are gone; the new ones check other things (strength " + std::to_string(before_total) +
                                ", kept " + std::to_string(matched) + ")"};
  if (matched < kMinMatchedShare * before_total || after_total < kKeepRatio * before_total)
    return IntegrityFinding{"assertion_removed", path, at.line,
                            "test " + name + " checks less: " + std::to_string(dropped.size()) + " of its " +
                                std::to_string(before.size()) + " assertion(s) removed (strength " +
                                std::to_string(before_total) + " -> " + std::to_string(static_cast<int>(after_total)) + ")"};
  return std::nullopt;
}

/// pytest-asyncio in auto mode (or anyio/trio configured for the project) runs `async def` tests
/// with no marker: the project's pytest configuration at the root says so. Unknown without it.
static bool async_tests_run_by_config(const IntegrityOptions& o) {
  if (!o.read_head_file) return false;
  for (const char* f : {"pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini", "conftest.py"}) {
    const auto text = o.read_head_file(f);
    if (!text) continue;
    for (const char* w : {"asyncio_mode", "pytest_asyncio", "anyio", "trio_mode", "pytest-asyncio"})
      if (contains(*text, w)) return true;
  }
  return false;
}

namespace {

/// A test that now calls a helper which skips (`needs_backend()` whose body calls pytest.skip,
/// `requireIntegration(t)` calling t.Skip), in the same file or in one the test file imports (its
/// Go package's other test files), directly or through the file's other helpers: it is disabled
/// like a skip written in its body, unless the old test reached the same helper.
/// The conditions a Python test is skipped under, wherever they are written: its decorators
/// (`skipif(C)`, `skipIf(C)`, `skipUnless(C)`), its class's decorators and `pytestmark`, the
/// module's `pytestmark`, `if C: pytest.skip(..., allow_module_level=True)`, `importorskip('M')` and
/// `try: import M` / `except ImportError: pytest.skip(...)`, the same in its body and in the
/// fixtures it takes (parameters defined in the file under `@pytest.fixture`). Each is read into one
/// spelling: a module that is missing (`importorskip('M')`, the try-import, `find_spec('M') is
/// None`, `not HAS_M` with `HAS_M` set by a try-import of M), a platform (`sys.platform ==
/// 'win32'`, `sys.platform.startswith('win')`, `os.name == 'nt'`), or the condition's own text.
/// nullopt when a skip there reads as no condition (a bare `pytest.skip()`, `@skip`): that one
/// skips always.
std::optional<std::set<std::string>> read_python_skip_conditions(const std::string& text, const TestUnit& t, std::set<int>* consumed);

/// python_skip_conditions, kept per file version and test: the comparisons ask it of the same test
/// several times (moved skips, changed conditions, the lines it reads).
std::optional<std::set<std::string>> python_skip_conditions(const std::string& text, const TestUnit& t, std::set<int>* consumed = nullptr) {
  struct Entry {
    std::optional<std::set<std::string>> conditions;
    std::set<int> read;
  };
  using Key = std::tuple<std::size_t, std::size_t, int, int, std::string>;
  thread_local std::map<Key, Entry> memo;
  if (memo.size() > 4096) memo.clear();
  const Key key{std::hash<std::string_view>{}(text), text.size(), t.line, t.end_line, t.name};
  auto it = memo.find(key);
  if (it == memo.end()) {
    Entry e;
    e.conditions = read_python_skip_conditions(text, t, &e.read);
    it = memo.emplace(key, std::move(e)).first;
  }
  if (consumed) consumed->insert(it->second.read.begin(), it->second.read.end());
  return it->second.conditions;
}

/// A Python test file read once for read_python_skip_conditions, asked per test: its lines
/// (comments dropped), their indents, the module's try-import flags, whether a platform module is
/// rebound, the module-level lines, the names a skip is bound as, the fixtures it defines, the
/// module-level bindings of each name asked (filled as asked), and the skips of the module's own
/// level (read once, the first time a test asks).
struct PythonSkipFile {
  std::vector<std::string> lines;
  std::vector<int> indents;  // (index k - 1 for line k; -1 for a blank or comment line)
  std::map<std::string, std::string> flags;
  bool platform_rebound = false;
  std::vector<bool> in_definition;
  std::vector<std::string> skip_aliases;
  std::map<std::string, std::vector<std::pair<int, int>>> fixture_bodies;
  std::map<std::string, std::vector<std::string>> bindings;
  bool module_read = false;
  std::set<std::string> module_out;
  bool module_unreadable = false;
  std::set<int> module_lines, module_used;
  std::vector<std::string> module_fixtures;
};

std::shared_ptr<PythonSkipFile> read_python_skip_file(const std::string& text) {
  auto f = std::make_shared<PythonSkipFile>();
  std::vector<std::string>& lines = f->lines;
  for_each_capped_line(text, [&](int, const std::string& l) { lines.push_back(python_without_comment(l)); });
  const int count = static_cast<int>(lines.size());
  for (const auto& l : lines) {
    const auto at = l.find_first_not_of(" \t");
    f->indents.push_back(at == std::string::npos || l[at] == '#' ? -1 : static_cast<int>(at));
  }
  auto indent_of = [&](int k) { return f->indents[static_cast<std::size_t>(k - 1)]; };
  auto stripped = [&](int k) { return trim(lines[static_cast<std::size_t>(k - 1)]); };
  // Module-level flags set by a try-import: `try: import numpy as np; HAS_NP = True` / `except
  // ImportError: HAS_NP = False` (or `np = None`): name -> module.
  std::map<std::string, std::string>& flags = f->flags;
  static const rx::regex falsy_set(R"(^(\w+)\s*=\s*(?:False|None)\s*$)");
  for (int k = 1; k <= count; ++k) {
    if (indent_of(k) != 0 || stripped(k) != "try:") continue;
    // (The try holds plain imports of one module and flags set true, nothing else: a `raise` or a
    // from-import that always fails would make the flag say nothing of the module.)
    std::set<std::string> modules;
    bool plain = true;
    int i = k + 1;
    for (; i <= count && indent_of(i) != 0; ++i) {
      if (indent_of(i) < 0) continue;
      rx::smatch m;
      const std::string l = stripped(i);
      static const rx::regex plain_import(R"(^import\s+([\w.]+)(?:\s+as\s+\w+)?$)");
      static const rx::regex set_true(R"(^\w+\s*=\s*True$)");
      if (rx::regex_match(l, m, plain_import)) modules.insert(m[1].str());
      else if (!rx::regex_match(l, set_true)) plain = false;
    }
    if (!plain || modules.size() != 1 || i > count || !starts_with(stripped(i), "except") ||
        (!contains(stripped(i), "ImportError") && !contains(stripped(i), "ModuleNotFoundError")))
      continue;
    int h = i + 1;
    for (; h <= count && indent_of(h) != 0; ++h) {
      rx::smatch m;
      const std::string l = stripped(h);
      if (rx::regex_match(l, m, falsy_set)) flags[m[1].str()] = *modules.begin();
    }
    // (A flag bound again anywhere after, or declared global, says nothing of the module.)
    for (auto fl = flags.begin(); fl != flags.end();) {
      bool again = false;
      const rx::regex rebind = detail::cached_regex("^\\s*(?:" + fl->first + "\\s*(?:=[^=]|\\+=|\\|=|&=)|global\\s.*\\b" + fl->first + "\\b)");
      for (int r = h; r <= count && !again; ++r) again = rx::regex_search(lines[static_cast<std::size_t>(r - 1)], rebind);
      fl = again ? flags.erase(fl) : std::next(fl);
    }
  }
  // Names of the platform modules bound to something else (`import os as sys`, `sys.platform =
  // 'win32'`, `monkeypatch.setattr(sys, 'platform', ...)`): no platform comparison is read then.
  {
    // (Also through another name for the module, `import sys as _s` then `_s.platform = ...`, or by
    // name, `setattr(sys, 'platform', ...)`, `vars(sys)['platform']`, `sys.__dict__['platform']`.)
    static const rx::regex rebound(
        R"re((?:^\s*(?:sys|os|platform)\s*=[^=])|\bas\s+(?:sys|os|platform)\b|\b(?:sys\.platform|os\.name)\s*=[^=]|setattr\s*\(\s*['"]?(?:sys|os|platform)\b|\bimport\s+(?:sys|os|platform)\s+as\b|\.platform\s*=[^=]|\.name\s*=[^=]\s*['"](?:nt|posix|java)['"]|['"](?:platform|name)['"]\s*(?:\]|,))re");
    // (A cheap look first: the regex only where a platform name and a binding can both be.)
    for (const auto& l : lines)
      if (!f->platform_rebound &&
          (l.find("sys") != std::string::npos || l.find("os") != std::string::npos || l.find("platform") != std::string::npos ||
           l.find("name") != std::string::npos) &&
          (l.find('=') != std::string::npos || l.find(" as ") != std::string::npos || l.find("setattr") != std::string::npos ||
           l.find(']') != std::string::npos || l.find(',') != std::string::npos) &&
          rx::regex_search(l, rebound))
        f->platform_rebound = true;
  }
  // (Module-level code only, what runs when the module is imported: not the bodies of functions
  // and classes, the tests among them.)
  f->in_definition.assign(static_cast<std::size_t>(count) + 1, false);
  for (int k = 1, owner = -1; k <= count; ++k) {
    const int ind = indent_of(k);
    if (ind < 0) {
      f->in_definition[static_cast<std::size_t>(k)] = owner >= 0;
      continue;
    }
    if (owner >= 0 && ind <= owner) owner = -1;
    f->in_definition[static_cast<std::size_t>(k)] = owner >= 0;
    const std::string st = stripped(k);
    if (owner < 0 && (starts_with(st, "def ") || starts_with(st, "async def ") || starts_with(st, "class "))) owner = ind;
  }
  // (Names a skip is imported or bound as, `from pytest import skip as _later`: a call of one is a skip.)
  {
    static const rx::regex alias(R"(\b\w*(?:skip|Skip|SKIP|xfail|fail)\w*\s+as\s+(\w+)|^\s*(\w+)\s*=\s*(?:pytest\.|unittest\.)?(?:skip|xfail|fail|SkipTest)\s*$)");
    for (const auto& l : lines) {
      if ((l.find("kip") == std::string::npos && l.find("KIP") == std::string::npos && l.find("fail") == std::string::npos) ||
          (l.find(" as ") == std::string::npos && l.find('=') == std::string::npos))
        continue;
      for (rx::sregex_iterator it(l.begin(), l.end(), alias), e; it != e; ++it)
        f->skip_aliases.push_back((*it)[1].matched ? (*it)[1].str() : (*it)[2].str());
    }
  }
  // (The module's fixtures: `def NAME(` at the top level under an `@...fixture...` decorator, with
  // the lines of its body.)
  static const rx::regex top_def(R"(^(?:async\s+)?def\s+(\w+)\s*\()");
  for (int k = 1; k <= count; ++k) {
    rx::smatch m;
    const std::string st = stripped(k);
    if (indent_of(k) != 0 || (!starts_with(st, "def ") && !starts_with(st, "async ")) || !rx::regex_search(st, m, top_def)) continue;
    bool fixture = false;
    for (int d = k - 1; d >= 1 && indent_of(d) == 0 && starts_with(stripped(d), "@"); --d) fixture = fixture || contains(stripped(d), "fixture");
    if (!fixture) continue;
    int end = k + 1;
    while (end <= count && (indent_of(end) < 0 || indent_of(end) > 0)) ++end;
    f->fixture_bodies[m[1].str()].emplace_back(k + 1, end - 1);
  }
  return f;
}

/// The reading of a file version, kept for the versions read last.
PythonSkipFile& python_skip_file(const std::string& text) {
  using Key = std::pair<std::size_t, std::size_t>;
  thread_local std::map<Key, std::shared_ptr<PythonSkipFile>> files;
  const Key key{std::hash<std::string_view>{}(text), text.size()};
  auto it = files.find(key);
  if (it == files.end()) {
    if (files.size() >= 16) files.clear();
    it = files.emplace(key, read_python_skip_file(text)).first;
  }
  return *it->second;
}

std::optional<std::set<std::string>> read_python_skip_conditions(const std::string& text, const TestUnit& t, std::set<int>* consumed) {
  std::set<int> own_consumed;
  std::set<int>& read = consumed ? *consumed : own_consumed;
  PythonSkipFile& file = python_skip_file(text);
  const std::vector<std::string>& lines = file.lines;
  const int count = static_cast<int>(lines.size());
  if (t.line <= 0 || t.line > count) return std::nullopt;
  auto indent_of = [&](int k) { return file.indents[static_cast<std::size_t>(k - 1)]; };
  auto stripped = [&](int k) { return trim(lines[static_cast<std::size_t>(k - 1)]); };
  // A statement from line k on, its brackets balanced (a decorator or assignment over several lines).
  auto statement = [&](int k) {
    std::string out;
    int depth = 0;
    for (int i = k; i <= count && i < k + 20; ++i) {
      const std::string l = stripped(i);
      read.insert(i);
      out += l + " ";
      for (char ch : l) depth += (ch == '(' || ch == '[' || ch == '{') - (ch == ')' || ch == ']' || ch == '}');
      if (depth <= 0) break;
    }
    return out;
  };
  static const rx::regex import_line(R"(^(?:import\s+([\w.]+)(?:\s+as\s+(\w+))?|from\s+([\w.]+)\s+import\b))");
  const std::map<std::string, std::string>& flags = file.flags;
  const bool platform_rebound = file.platform_rebound;
  const std::vector<bool>& in_definition = file.in_definition;
  // The module-level lines that bind or change `word`, in any form (`QUICK = ...`, `QUICK: bool =
  // ...`, `QUICK, _ = True, None`, `for QUICK in`, `with ... as QUICK`, `import QUICK`, `global
  // QUICK`, `globals()['QUICK'] = True`, `os.environ['CI'] = '1'`, `os.environ.setdefault(...)`,
  // `Cfg.quick = True`), and a function's or class's `def` with its body: a condition that reads
  // the name is read with them, so that a name bound or changed another way is another condition.
  std::map<std::string, std::vector<std::string>>& binding_memo = file.bindings;
  auto bindings_of = [&](const std::string& word) -> const std::vector<std::string>& {
    auto it = binding_memo.find(word);
    if (it != binding_memo.end()) return it->second;
    std::vector<std::string> out;
    const std::string w = "(?:^|[^\\w.])" + word + "\\b";
    const rx::regex binds = detail::cached_regex(
        w + "(?:\\s*\\.\\s*\\w+|\\s*\\[[^\\]]*\\])*\\s*(?:=(?!=)|\\+=|-=|\\*=|/=|\\|=|&=|:=|:[^=]+=(?!=))|" + w +
        "(?:\\s*\\.\\s*\\w+)*\\s*\\.\\s*(?:setdefault|update|putenv|pop|popitem|clear|__setitem__|append|extend|insert|remove|add|discard)\\s*\\(|" + w +
        "\\s*,[^=]*=(?!=)|,\\s*" + word + "\\b[^=]*=(?!=)|\\bfor\\b[^:]*" + w + "[^:]*\\bin\\b|\\bas\\s+" + word + "\\b|^\\s*(?:from\\s+\\S+\\s+)?import\\b.*" + w +
        "|\\bglobal\\b.*" + w + "|\\bdel\\b.*" + w + "|['\"]" + word + "['\"]|setattr\\s*\\(\\s*" + word + "\\b");
    static const rx::regex skip_line(R"(\b(?:skipif|skipIf|skipUnless|skip|xfail|importorskip)\b)");
    for (int k = 1; k <= count; ++k) {
      const std::string& l = lines[static_cast<std::size_t>(k - 1)];
      if (in_definition[static_cast<std::size_t>(k)] || l.find(word) == std::string::npos || rx::regex_search(l, skip_line) ||
          starts_with(trim(l), "@"))
        continue;
      const std::string st = trim(l);
      const bool defines = starts_with(st, "def " + word) || starts_with(st, "async def " + word) || starts_with(st, "class " + word);
      if (!defines && !rx::regex_search(l, binds)) continue;
      std::string one = strip_spaces(st);
      // (A function's body goes with its `def`; a bracketed value over several lines with its first.)
      int depth = 0;
      for (char ch : st) depth += (ch == '(' || ch == '[' || ch == '{') - (ch == ')' || ch == ']' || ch == '}');
      for (int b = k + 1; b <= count && (defines ? (indent_of(b) < 0 || indent_of(b) > indent_of(k)) : depth > 0) && b < k + 200; ++b) {
        const std::string more = trim(lines[static_cast<std::size_t>(b - 1)]);
        for (char ch : more) depth += (ch == '(' || ch == '[' || ch == '{') - (ch == ')' || ch == ']' || ch == '}');
        one += strip_spaces(more);
      }
      out.push_back(one);
    }
    return binding_memo.emplace(word, std::move(out)).first->second;
  };
  // (A name bound once, plainly, `IS_WINDOWS = sys.platform == 'win32'`, `QUICK: bool = (...)` over
  // several lines, and bound or changed nowhere else: its value.)
  auto value_of = [&](const std::string& word) -> std::string {
    const auto& b = bindings_of(word);
    if (b.size() != 1) return {};
    static const rx::regex plain(R"(^([A-Za-z_]\w*)(?::[^=]+)?=(?!=)(.+)$)");
    rx::smatch m;
    if (!rx::regex_match(b.front(), m, plain) || m[1].str() != word) return {};
    return m[2].str();
  };
  // One condition, read into its spelling; `negate` for skipUnless.
  std::function<std::string(std::string, bool, int)> spelled_at;
  auto spelled = [&](const std::string& cond, bool negate) { return spelled_at(cond, negate, 0); };
  spelled_at = [&](std::string cond, bool negate, int depth) -> std::string {
    cond = trim(cond);
    for (bool again = true; again;) {
      again = false;
      while (cond.size() >= 2 && cond.front() == '(' && matching_close(cond, 0) == cond.size() - 1)
        cond = trim(std::string_view(cond).substr(1, cond.size() - 2));
      if (starts_with(cond, "not ") || starts_with(cond, "not(")) {
        cond = trim(std::string_view(cond).substr(3));
        negate = !negate;
        again = true;
      }
    }
    // (Strings written with either quote are one string: `"CI"` is `'CI'`; `os.getenv(...)` is
    // `os.environ.get(...)`.)
    static const rx::regex double_quoted(R"re("([^"'\\]*)")re");
    static const rx::regex getenv(R"(\bos\.getenv\()");
    std::string compact = rx::regex_replace(rx::regex_replace(strip_spaces(cond), double_quoted, "'$1'"), getenv, "os.environ.get(");
    // (`not (a >= b)` is `a < b`: one comparison, turned round.)
    if (negate) {
      static const rx::regex comparison(R"(^([^<>=!]+)(>=|<=|>|<|==|!=)([^<>=!]+)$)");
      static const std::map<std::string, std::string> kFlip = {{">=", "<"}, {"<=", ">"}, {">", "<="}, {"<", ">="}, {"==", "!="}, {"!=", "=="}};
      rx::smatch cm;
      if (rx::regex_match(compact, cm, comparison) && !contains(compact, "'") && !contains(compact, "\"")) {
        compact = cm[1].str() + kFlip.at(cm[2].str()) + cm[3].str();
        negate = false;
      }
    }
    // (A name bound once at the module's top level to a value: that value, `IS_WINDOWS` read as
    // `sys.platform == 'win32'`.)
    if (is_plain_name(compact) && compact.find('.') == std::string::npos && depth < 4 && !flags.count(compact))
      if (const std::string v = value_of(compact); !v.empty()) return spelled_at(v, negate, depth + 1);
    static const rx::regex find_spec(R"(^(?:importlib\.util\.|util\.)?find_spec\(['"]([\w.]+)['"]\)is(not)?None$)");
    static const rx::regex flag(R"(^(\w+?)(?:is(not)?(?:None|False)|==(?:None|False))?$)");
    rx::smatch m;
    if (rx::regex_match(compact, m, find_spec)) return (m[2].matched != negate ? "present:" : "missing:") + m[1].str();
    if (rx::regex_match(compact, m, flag) && flags.count(m[1].str())) {
      // `HAS is False`, `np is None`: missing; `HAS`, `np is not None`: present; `not` turns it round.
      const bool compared = m[1].length() < static_cast<long>(compact.size());
      const bool missing = (compared ? !m[2].matched : false) != negate;
      return (missing ? "missing:" : "present:") + flags.at(m[1].str());
    }
    // (A platform compared, `sys.platform == 'win32'`, `os.name != 'nt'`, `platform.system() ==
    // 'Windows'`, `sys.platform.startswith('win')`: only the comparison itself, each API with the
    // values it really gives; any other value only as written.)
    static const rx::regex platform_eq(R"(^(sys\.platform|os\.name|platform\.system\(\))(==|!=)(['"])(\w+)\3$)");
    static const rx::regex platform_prefix(R"(^sys\.platform\.startswith\((['"])(\w+)\1\)$)");
    const bool eq = !platform_rebound && rx::regex_match(compact, m, platform_eq);
    if (eq || (!platform_rebound && rx::regex_match(compact, m, platform_prefix))) {
      const std::string api = eq ? m[1].str() : "sys.platform", v = eq ? m[4].str() : m[2].str() + "*";
      const bool differs = (eq && m[2].str() == "!=") != negate;
      static const std::map<std::pair<std::string, std::string>, std::string> kKnown = {
          {{"sys.platform", "win32"}, "windows"}, {{"sys.platform", "win*"}, "windows"}, {{"os.name", "nt"}, "windows"},
          {{"platform.system()", "Windows"}, "windows"}, {{"sys.platform", "darwin"}, "darwin"}, {{"sys.platform", "darwin*"}, "darwin"},
          {{"platform.system()", "Darwin"}, "darwin"}, {{"sys.platform", "linux"}, "linux"}, {{"sys.platform", "linux*"}, "linux"},
          {{"platform.system()", "Linux"}, "linux"}};
      const auto known = kKnown.find({api, v});
      return (differs ? "platform!=" : "platform==") + (known != kKnown.end() ? known->second : api + ":" + v);
    }
    // (The module-level names the condition reads go with it, as bound: `QUICK` bound to another
    // value is another condition.)
    std::string names;
    std::set<std::string> seen;
    static const rx::regex word(R"((?:^|[^\w.'])([A-Za-z_]\w*))");
    static const std::set<std::string, std::less<>> kWords = {"not", "and", "or", "is", "in", "None", "True", "False", "if", "else", "lambda"};
    // (Read with every line naming it: `os` with `os.environ['CI'] = '1'`, `QUICK` with each binding.)
    std::string substituted;
    std::size_t from = 0;
    for (rx::sregex_iterator it(compact.begin(), compact.end(), word), e; it != e; ++it) {
      const std::string w = (*it)[1].str();
      if (kWords.count(w)) continue;
      // (A name bound once to a value stands for it inside the condition too, `sys.version_info <
      // PY38` with `PY38 = (3, 8)`.)
      const std::string v = depth < 4 ? value_of(w) : std::string();
      if (!v.empty()) {
        const auto at = static_cast<std::size_t>((*it).position(1));
        substituted += compact.substr(from, at - from) + (v.front() == '(' && closing_paren(v, 0) == v.size() - 1 ? v : "(" + v + ")");
        from = at + w.size();
        continue;
      }
      if (!seen.insert(w).second) continue;
      names += "|" + w + "=";
      for (const auto& b : bindings_of(w)) names += b + ";";
    }
    if (!substituted.empty()) return spelled_at(substituted + compact.substr(from), negate, depth + 1);
    return (negate ? "unless:" : "if:") + compact + names;
  };
  std::set<std::string> out;
  // A condition read into one or more: `A or B` skips where either holds, as two skips do; `X in
  // ('a', 'b')` is `X == 'a' or X == 'b'`.
  std::function<void(std::string, bool)> insert_spelled = [&](std::string cond, bool negate) {
    cond = trim(cond);
    while (cond.size() >= 2 && cond.front() == '(' && matching_close(cond, 0) == cond.size() - 1)
      cond = trim(std::string_view(cond).substr(1, cond.size() - 2));
    if (!negate) {
      const auto parts = split_top(cond, {" or "});
      if (parts.size() > 1) {
        for (const auto& part : parts) insert_spelled(part, false);
        return;
      }
      // (`A and B`: skips where both hold, no more than where A alone does.)
      if (const auto both = split_top(cond, {" and "}); both.size() > 1) {
        std::string all = "all:";
        for (const auto& part : both) all += spelled(part, false) + "\x1f";
        out.insert(all);
        return;
      }
      static const rx::regex in_values(R"(^([\w.]+(?:\(\))?)\s+in\s+[(\[{](.*)[)\]}]$)");
      rx::smatch m;
      if (rx::regex_match(cond, m, in_values)) {
        std::vector<std::string> values;
        for (const auto& v : split_top(m[2].str(), {","}))
          if (!trim(v).empty()) values.push_back(trim(v));
        static const rx::regex quoted(R"re(^(['"])\w+\1$)re");
        if (!values.empty() && std::all_of(values.begin(), values.end(), [](const std::string& v) { return rx::regex_match(v, quoted); })) {
          for (const auto& v : values) insert_spelled(m[1].str() + " == " + v, false);
          return;
        }
      }
    }
    out.insert(spelled(cond, negate));
  };
  bool unreadable = false;
  // Decorators and `pytestmark` statements: skip markers in them.
  auto read_markers = [&](const std::string& st) {
    static const rx::regex marker(R"(\b(skipif|skipIf|skipUnless|skip|xfail|expectedFailure)\b(\s*\()?)");
    for (rx::sregex_iterator it(st.begin(), st.end(), marker), e; it != e; ++it) {
      const std::string kind = (*it)[1].str();
      // (A bare `pytest.mark.skip`, an `@skip(...)`, an xfail: no condition read, always off.)
      if (!(*it)[2].matched || kind == "skip" || kind == "xfail" || kind == "expectedFailure") {
        unreadable = true;
        continue;
      }
      const std::size_t open = static_cast<std::size_t>(it->position() + it->length() - 1);
      const std::size_t close = matching_close(st, open);
      if (close == std::string::npos) {
        unreadable = true;
        continue;
      }
      // (pytest skips when any positional condition holds: each is one.)
      static const rx::regex keyword(R"(^\s*(\w+)\s*=[^=])");
      std::size_t positional = 0;
      for (const auto& part : split_top(std::string_view(st).substr(open + 1, close - open - 1), {","})) {
        std::string arg = part;
        rx::smatch km;
        if (trim(arg).empty()) continue;
        // (pytest's `condition=` keyword is the condition.)
        if (rx::regex_search(arg, km, keyword)) {
          if (km[1].str() != "condition" || kind != "skipif") continue;
          arg = arg.substr(static_cast<std::size_t>(km.length() - 1));
        }
        // (unittest's second argument is the reason.)
        if (positional++ > 0 && kind != "skipif") break;
        // (A string is a condition pytest evaluates, `skipif("sys.platform == 'win32'")`; to unittest
        // it is a value, true unless empty.)
        const std::string a = trim(arg);
        if (a.size() >= 2 && (a.front() == '\'' || a.front() == '"') && a.back() == a.front() && a.find(a.front(), 1) == a.size() - 1 &&
            a.find('\\') == std::string::npos) {
          const std::string inner = a.substr(1, a.size() - 2);
          if (kind == "skipif") insert_spelled(inner, false);
          else out.insert(!inner.empty() != (kind == "skipUnless") ? "if:True" : "if:False");
        } else {
          insert_spelled(arg, kind == "skipUnless");
        }
      }
      if (positional == 0) unreadable = true;
    }
  };
  // (The definition's line: a unit may start at its first decorator.)
  auto def_line_of = [&](int k) {
    for (int i = k; i <= count && i < k + 40; ++i) {
      const std::string l = stripped(i);
      if (starts_with(l, "def ") || starts_with(l, "async def ") || starts_with(l, "class ")) return i;
    }
    return k;
  };
  // (Fixtures named by `usefixtures('a', 'b')` in a decorator or a `pytestmark`: the test takes them.)
  std::vector<std::string> used_fixtures;
  auto read_usefixtures = [&](const std::string& st) {
    static const rx::regex usefixtures(R"(\busefixtures\s*\()");
    for (rx::sregex_iterator it(st.begin(), st.end(), usefixtures), e; it != e; ++it) {
      const std::size_t open = static_cast<std::size_t>(it->position() + it->length() - 1);
      const std::size_t close = matching_close(st, open);
      if (close == std::string::npos) continue;
      static const rx::regex name_arg(R"re(^\s*(['"])(\w+)\1\s*$)re");
      for (const auto& arg : split_top(std::string_view(st).substr(open + 1, close - open - 1), {","})) {
        rx::smatch m;
        if (rx::regex_match(arg, m, name_arg)) used_fixtures.push_back(m[2].str());
      }
    }
  };
  auto decorators_above = [&](int def_line) {
    def_line = def_line_of(def_line);
    const int own = indent_of(def_line);
    std::string deco;
    for (int k = def_line - 1; k >= 1 && k >= def_line - 40; --k) {
      const int ind = indent_of(k);
      if (ind < 0 || ind > own) continue;
      if (ind == own && starts_with(stripped(k), "@")) {
        deco += statement(k) + "\n";
        continue;
      }
      break;
    }
    read_markers(deco);
    read_usefixtures(deco);
  };
  // Skips in a block of lines (a body, a fixture's body, the module): `if C:` over a skip call,
  // importorskip, a try of imports whose ImportError handler skips.
  static const rx::regex skip_call(R"(\bpytest\.skip\s*\(|\bskipTest\s*\(|\braise\s+(?:unittest\.)?SkipTest\b)");
  // (`importorskip('M')`, a reason at most: a minimum version skips where M is there too.)
  static const rx::regex importorskip(R"(importorskip\(\s*['"]([\w.]+)['"]\s*(?:,\s*reason\s*=\s*(['"])[^'"]*\2\s*)?\))");
  std::set<int> used;  // (skip lines read with the `if` or `except` above them)
  const std::vector<std::string>& skip_aliases = file.skip_aliases;
  auto calls_skip_alias = [&](const std::string& l) {
    return std::any_of(skip_aliases.begin(), skip_aliases.end(), [&](const std::string& a) {
      const auto at = l.find(a + "(");
      return at != std::string::npos && (at == 0 || (!std::isalnum(static_cast<unsigned char>(l[at - 1])) && l[at - 1] != '_' && l[at - 1] != '.'));
    });
  };
  auto read_block = [&](int from, int to, int level) {
    for (int k = from; k <= to; ++k) {
      const int ind = indent_of(k);
      // (A skip deeper than the block's own statements and read with no `if` or `except` above it,
      // `else: pytest.skip(...)`, `for ...: pytest.skip(...)`: under a condition not read. At the
      // module's level, only in module-level code, not in the functions and classes.)
      if (ind > level && level >= 0 && !used.count(k) && (level > 0 || !in_definition[static_cast<std::size_t>(k)])) {
        static const rx::regex deep_skip(R"(\bpytest\.skip\s*\(|\bskipTest\s*\(|\braise\s+(?:unittest\.)?SkipTest\b|\bxfail\s*\()");
        const std::string l = stripped(k);
        if (rx::regex_search(l, deep_skip) || calls_skip_alias(l)) unreadable = true;
        continue;
      }
      if (ind < 0 || (level >= 0 && ind != level) || used.count(k)) continue;
      const std::string l = stripped(k);
      rx::smatch m;
      if (rx::regex_search(l, m, importorskip)) {
        out.insert("missing:" + m[1].str());
        read.insert(k);
        continue;
      }
      if (starts_with(l, "if ") || starts_with(l, "if(")) {
        // (The condition, over several lines when bracketed; the skip must be the branch's first
        // statement.)
        int last = k;
        std::string head = l;
        if (l.back() != ':') {
          head.clear();
          int depth = 0;
          for (int i = k; i <= to && i < k + 12; ++i) {
            const std::string part = stripped(i);
            head += part + " ";
            for (char ch : part) depth += (ch == '(' || ch == '[' || ch == '{') - (ch == ')' || ch == ']' || ch == '}');
            last = i;
            if (depth <= 0 && !part.empty() && part.back() == ':') break;
          }
          head = trim(head);
        }
        if (head.empty() || head.back() != ':') continue;
        int next = last + 1;
        while (next <= to && indent_of(next) < 0) ++next;
        if (next <= to && indent_of(next) > ind && rx::regex_search(stripped(next), skip_call)) {
          insert_spelled(head.substr(2, head.size() - 3), false);
          used.insert(next);
          for (int r = k; r <= next; ++r) read.insert(r);
        }
        continue;
      }
      if (l == "try:") {
        std::set<std::string> modules;
        bool only_imports = true;
        int i = k + 1;
        for (; i <= to && (indent_of(i) < 0 || indent_of(i) > ind); ++i) {
          if (indent_of(i) < 0) continue;
          rx::smatch im;
          const std::string body = stripped(i);
          // (`from M import x` fails where M is there without x: its own condition.)
          if (rx::regex_search(body, im, import_line))
            modules.insert(im[1].matched ? im[1].str() : im[3].str() + "/" + strip_spaces(body.substr(static_cast<std::size_t>(im.length()))));
          else only_imports = false;
        }
        if (i > to || !starts_with(stripped(i), "except")) continue;
        int next = i + 1;
        while (next <= to && indent_of(next) < 0) ++next;
        if (next > to || !rx::regex_search(stripped(next), skip_call)) continue;
        used.insert(next);
        for (int r = k; r <= next; ++r) read.insert(r);
        const std::string head = stripped(i);
        const bool import_errors = contains(head, "ImportError") || contains(head, "ModuleNotFoundError");
        static const rx::regex other_error(R"(\b(?!ImportError\b|ModuleNotFoundError\b)[A-Z]\w*(?:Error|Exception)\b)");
        if (!only_imports || modules.empty() || !import_errors || rx::regex_search(head, other_error)) unreadable = true;
        else
          for (const auto& mod : modules) out.insert("missing:" + mod);
        continue;
      }
      // (A skip under no condition read here; an xfail, which no condition excuses; an importorskip
      // with more than a reason, `minversion=`; an attribute of the runner named at run time,
      // `getattr(pytest, 'piks'[::-1])`.)
      static const rx::regex xfail(R"(\bxfail\s*\(|\bexpectedFailure\b|\bimportorskip\b)");
      static const rx::regex runtime_attribute(R"re(\bgetattr\s*\(\s*(?:pytest|unittest|_pytest|self|cls)\s*,\s*(?!['"]\w+['"]\s*[,)]))re");
      static const rx::regex named_skip(R"re(\bgetattr\s*\(\s*\w+\s*,\s*['"]\w*(?:skip|xfail|fail|Skip)\w*['"])re");
      if (starts_with(l, "import ") || starts_with(l, "from ")) continue;
      if (rx::regex_search(l, skip_call) || rx::regex_search(l, xfail) || rx::regex_search(l, runtime_attribute) || calls_skip_alias(l) ||
          rx::regex_search(l, named_skip))
        unreadable = true;
    }
  };
  // The test: its decorators and body.
  // (A body's skips at its own level: one under a `while`, a `for` or a `with` is under a condition
  // not read, and is no skip read here.)
  auto body_level = [&](int from, int to) {
    for (int k = from; k <= to; ++k)
      if (indent_of(k) >= 0) return indent_of(k);
    return -1;
  };
  // The module: `pytestmark`, and skips at its top level (outside definitions). The same for every
  // test of the file: read once, then taken as read. (What it reads touches no line of a definition,
  // so nothing read of the test below changes it.)
  if (!file.module_read) {
    for (int k = 1; k <= count; ++k)
      if (indent_of(k) == 0 && starts_with(stripped(k), "pytestmark")) {
        const std::string st = statement(k);
        read_markers(st);
        read_usefixtures(st);
      }
    // (Top-level statements only: `if`/`try` blocks are read with their bodies by read_block.)
    read_block(1, count, 0);
    file.module_out = out;
    file.module_unreadable = unreadable;
    file.module_lines = read;
    file.module_used = used;
    file.module_fixtures = used_fixtures;
    file.module_read = true;
  } else {
    out = file.module_out;
    unreadable = file.module_unreadable;
    read.insert(file.module_lines.begin(), file.module_lines.end());
    used = file.module_used;
    used_fixtures = file.module_fixtures;
  }
  const int def_line = def_line_of(t.line);
  decorators_above(def_line);
  {
    const int end = std::min(count, std::max(def_line, t.end_line));
    read_block(def_line + 1, end, body_level(def_line + 1, end));
  }
  // Its class: decorators and `pytestmark` at the class's level.
  const int own = indent_of(def_line);
  if (own > 0)
    for (int k = def_line - 1; k >= 1; --k) {
      const int ind = indent_of(k);
      if (ind < 0 || ind >= own) continue;
      if (starts_with(stripped(k), "class ")) {
        decorators_above(k);
        for (int i = k + 1; i <= count && (indent_of(i) < 0 || indent_of(i) > ind); ++i)
          if (indent_of(i) == own && starts_with(stripped(i), "pytestmark")) {
            const std::string st = statement(i);
            read_markers(st);
            read_usefixtures(st);
          }
      }
      break;
    }
  // Its fixtures: parameters defined in the file as fixtures.
  std::vector<std::string> params;
  {
    const std::string head = statement(def_line);
    const auto open = head.find('(');
    const auto close = open == std::string::npos ? std::string::npos : matching_close(head, open);
    if (close != std::string::npos)
      for (const auto& part : split_top(std::string_view(head).substr(open + 1, close - open - 1), {","})) {
        std::string name = strip_spaces(part);
        name = name.substr(0, name.find_first_of(":="));
        if (!name.empty() && is_plain_name(name) && name != "self" && name != "cls") params.push_back(name);
      }
  }
  params.insert(params.end(), used_fixtures.begin(), used_fixtures.end());
  for (const auto& p : params)
    if (const auto fx = file.fixture_bodies.find(p); fx != file.fixture_bodies.end())
      for (const auto& [from, to] : fx->second) read_block(from, to, body_level(from, to));
  if (unreadable) return std::nullopt;
  return out;
}

/// Is skipping under `x` (a spelling of python_skip_conditions) no wider than under `then`: one of
/// them, or a conjunction one of whose parts is one (`A and B` skips no more than `A`)?
bool skip_covered(const std::set<std::string>& then, const std::string& x) {
  if (then.count(x)) return true;
  if (!starts_with(x, "all:")) return false;
  for (const auto& part : split_top(std::string_view(x).substr(4), {"\x1f"}))
    if (!part.empty() && then.count(part)) return true;
  return false;
}
bool skips_covered(const std::set<std::string>& then, const std::set<std::string>& now) {
  return std::all_of(now.begin(), now.end(), [&](const std::string& x) { return skip_covered(then, x); });
}

/// Does the new version of a test skip under no condition the old one did not, however each is
/// written (python_skip_conditions)? Both must be read whole.
bool same_skips(const std::string& before, const TestUnit& bt, const std::string& after, const TestUnit& at, bool accounted) {
  if (!accounted) return false;
  const auto now = python_skip_conditions(after, at);
  const auto then = python_skip_conditions(before, bt);
  if (!now || now->empty()) return false;
  return then && skips_covered(*then, *now);
}

/// Is every skip of a Python test file's new version one python_skip_conditions reads, for one of
/// the file's tests? Each line that names a skip (a word with "skip" in it, or a name imported as
/// one: `from unittest.case import SkipTest as _Later`) outside an import must be a line it read: a
/// skip in `setup_module`, an alias it does not know, a skip in a string of code are not.
bool python_skip_lines_accounted(const std::string& text, const std::vector<TestUnit>& tests, std::set<int>* read = nullptr) {
  std::set<int> own;
  std::set<int>& consumed = read ? *read : own;
  for (const auto& t : tests) (void)python_skip_conditions(text, t, &consumed);
  std::set<std::string> aliases;
  static const rx::regex alias(R"(\b\w*[Ss][Kk][Ii][Pp]\w*\s+as\s+(\w+))");
  static const rx::regex import_only(R"(^\s*(?:from\s+[\w.]+\s+)?import\b[^;]*$)");
  static const rx::regex skip_word(R"([Ss][Kk][Ii][Pp]|[Xx][Ff][Aa][Ii][Ll]|[Ee]xpected[Ff]ailure)");
  for_each_capped_line(text, [&](int, const std::string& l) {
    for (rx::sregex_iterator it(l.begin(), l.end(), alias), e; it != e; ++it) aliases.insert((*it)[1].str());
  });
  bool accounted = true;
  // (A docstring, a statement that is only a triple-quoted string, runs nothing: its lines are not
  // read for skips. A string bound to a name or handed to a call may be code: those are.)
  std::string docstring_end;
  static const rx::regex docstring_start(R"re(^\s*[rRuUbB]?("""|'''))re");
  for_each_capped_line(text, [&](int k, const std::string& l) {
    if (!docstring_end.empty()) {
      if (const auto close = l.find(docstring_end); close != std::string::npos) {
        if (!trim(python_without_comment(l.substr(close + 3))).empty()) accounted = false;
        docstring_end.clear();
      }
      return;
    }
    rx::smatch ds;
    if (rx::regex_search(l, ds, docstring_start)) {
      const std::string delim = ds[1].str();
      const auto rest = static_cast<std::size_t>(ds.position(1) + 3);
      const auto close = l.find(delim, rest);
      if (close == std::string::npos) {
        docstring_end = delim;
        return;
      }
      if (trim(python_without_comment(l.substr(close + 3))).empty()) return;
    }
    if (!accounted || consumed.count(k) || rx::regex_search(l, import_only)) return;
    const std::string code = trim(python_without_comment(l));
    if (code.empty()) return;
    bool skip = rx::regex_search(code, skip_word);
    for (const auto& a : aliases)
      if (!skip && has_word(code, a)) skip = true;
    if (skip) accounted = false;
  });
  return accounted;
}

/// A file version read once for skip_through_helper: its lines and the other names it binds to
/// helpers (`nb = needs_backend`, `import needs_backend as nb`, Go `var online = requireBackend`,
/// JS `const { withBackend: online } = require(...)`).
struct HelperNames {
  std::vector<std::string> lines;
  std::map<std::string, std::string> aliases;
};

HelperNames helper_names(const std::optional<std::string>& text) {
  HelperNames h;
  if (!text) return h;
  for_each_capped_line(*text, [&](int, const std::string& l) { h.lines.push_back(l); });
  h.aliases = [&] {
    std::map<std::string, std::string> out;
    static const rx::regex as(R"(\b(\w+)\s+as\s+(\w+))");
    static const rx::regex assign(R"(^\s*(?:(?:const|let|var)\s+)?(\w+)\s*(?::=|=)\s*([A-Za-z_]\w*)\s*;?\s*$)");
    static const rx::regex braces(R"(\{([^}]*)\}\s*=\s*(?:await\s+)?(?:require|import)\b|\bimport\s*\{([^}]*)\}\s*from)");
    static const rx::regex pair(R"((\w+)\s*:\s*(\w+))");
    for_each_capped_line(*text, [&](int, const std::string& l) {
      rx::smatch m;
      if (contains(l, "import") && rx::regex_search(l, m, as)) out[m[2].str()] = m[1].str();
      else if (rx::regex_search(l, m, assign)) out[m[1].str()] = m[2].str();
      if (rx::regex_search(l, m, braces)) {
        const std::string inner = m[1].matched ? m[1].str() : m[2].str();
        for (rx::sregex_iterator it(inner.begin(), inner.end(), pair), e; it != e; ++it) out[(*it)[2].str()] = (*it)[1].str();
      }
    });
    return out;
  }();
  return h;
}

/// Can any helper of the file, or of the modules it reaches, skip? (Else no test can reach one.)
bool any_skip_helper(const RuleContext& c) {
  return (c.skip_helpers && !c.skip_helpers->empty()) ||
         std::any_of(c.after.helpers.begin(), c.after.helpers.end(), [](const TestUnit& h) { return !h.markers.empty(); });
}

std::optional<IntegrityFinding> skip_through_helper(const RuleContext& c, const TestUnit& bt, const TestUnit& at, bool failing,
                                                    const HelperNames& names_now, const HelperNames& names_then) {
  // Python: what a test reaches besides its calls: its fixtures (parameters, usefixtures) and decorators.
  auto fixtures = [&](const TestUnit& t, const HelperNames& hn) {
    std::set<std::string> names;
    if (c.lang != Lang::python || t.line <= 0) return names;
    const std::vector<std::string>& lines = hn.lines;
    static const rx::regex def(R"(\bdef\s+\w+\s*\(([^)]*)\))");
    static const rx::regex param(R"((?:^|,)\s*\*{0,2}(\w+))");
    static const rx::regex deco(R"(^\s*@\s*([\w.]+))");
    static const rx::regex quoted(R"(['"](\w+)['"])");
    for (int i = t.line - 1; i >= 0 && i < static_cast<int>(lines.size()) && i >= t.line - 30; --i) {
      const std::string& l = lines[static_cast<std::size_t>(i)];
      rx::smatch m;
      if (rx::regex_search(l, m, def)) {
        const std::string ps = m[1].str();
        for (rx::sregex_iterator it(ps.begin(), ps.end(), param), e; it != e; ++it)
          if ((*it)[1].str() != "self" && (*it)[1].str() != "cls") names.insert((*it)[1].str());
        if (i < t.line - 1) break;  // the def line above the test's own: another definition
        continue;
      }
      if (!rx::regex_search(l, m, deco)) {
        if (i < t.line - 1) break;
        continue;
      }
      const std::string d = m[1].str();
      names.insert(d.substr(d.rfind('.') == std::string::npos ? 0 : d.rfind('.') + 1));
      if (contains(l, "usefixtures"))
        for (rx::sregex_iterator it(l.begin(), l.end(), quoted), e; it != e; ++it) names.insert((*it)[1].str());
    }
    return names;
  };
  auto reached = [&](const TestUnit& t, const FileModel& m, const HelperNames& hn) {
    const auto& alias = hn.aliases;
    std::set<std::string> names;
    std::vector<std::string> todo(t.calls.begin(), t.calls.end());
    for (const auto& f : fixtures(t, hn)) todo.push_back(f);
    while (!todo.empty()) {
      const std::string n = todo.back();
      todo.pop_back();
      if (!names.insert(n).second) continue;
      if (auto a = alias.find(n); a != alias.end()) todo.push_back(a->second);
      for (const auto& h : m.helpers)
        if (h.name == n) todo.insert(todo.end(), h.calls.begin(), h.calls.end());
    }
    return names;
  };
  const auto now = reached(at, c.after, names_now);
  const auto then = reached(bt, c.before, names_then);
  // A name reached only through a receiver (`RATES.get(...)`) is not the helper `get`.
  // Through a module or package the file imports (`support.needs_backend()`, `testutil.Require(t)`)
  // it is.
  auto bare = [&](const std::string& n) {
    if (!c.file.after) return false;
    const rx::regex ref = detail::cached_regex("(^|[^.\\w])" + n + "\\b");
    const rx::regex via = detail::cached_regex("(\\w+)\\s*\\.\\s*" + n + "\\b");
    const rx::regex own_def = detail::cached_regex("\\b(?:def|func|function)\\s+" + n + "\\b");
    std::set<std::string> receivers;
    std::vector<std::string> import_lines;
    bool found = false;
    // Where the test can reach it: the test itself (with the decorators above it) and the file's helpers.
    auto reachable_line = [&](int line) {
      if (line >= at.line - 8 && line <= std::max(at.line, at.end_line)) return true;
      return std::any_of(c.after.helpers.begin(), c.after.helpers.end(),
                         [&](const TestUnit& h) { return line >= h.line && line <= std::max(h.line, h.end_line); });
    };
    for_each_capped_line(*c.file.after, [&](int line, const std::string& l) {
      if (contains(l, "import") || contains(l, "require(") || (contains(l, "\"") && contains(l, "/"))) import_lines.push_back(l);
      if (rx::regex_search(l, own_def) || !reachable_line(line)) return;
      if (rx::regex_search(l, ref)) found = true;
      for (rx::sregex_iterator it(l.begin(), l.end(), via), e; it != e; ++it) receivers.insert((*it)[1].str());
    });
    for (const auto& r : receivers)  // modules and packages are lower-case names; `RATES.get` is an object's
      if (std::islower(static_cast<unsigned char>(r[0])))
        for (const auto& l : import_lines)
          if (has_word(l, r)) return true;
    return found;
  };
  for (const auto& n : now) {
    if (then.count(n)) continue;
    std::optional<SkipHelper> skip;
    for (const auto& h : c.after.helpers)
      if (h.name == n && !h.markers.empty()) {
        skip = SkipHelper{*h.markers.begin(), h.conditional, {}};
        if (c.lang == Lang::python && c.file.after && h.skip_line > 0) skip->guard = python_skip_guard(*c.file.after, h.line, h.skip_line);
      }
    if (!skip && c.skip_helpers)
      if (auto it = c.skip_helpers->find(n); it != c.skip_helpers->end()) skip = it->second;
    if (!skip || (skip->conditional && !failing) || !bare(n)) continue;
    // A helper that skips only for some arguments (`if name.endswith(".yaml"): importorskip(...)`),
    // called by the test itself, each time with a string literal that does not take that branch, and
    // reached through none of the file's helpers: the skip is not reached.
    if (skip->guard.param >= 0 && at.calls.count(n) && c.file.after) {
      std::string body;
      for_each_capped_line(*c.file.after, [&](int k, const std::string& l) {
        if (k >= at.line && k <= at.end_line) body += l + "\n";
      });
      const auto found = call_arguments(body, {n});
      const auto args = found.find(n);
      // Every call of it is read (`support.sample(...)` through a module is not, so it must not occur).
      const rx::regex any_call = detail::cached_regex("\\b" + n + "\\s*\\(");
      const auto calls = static_cast<std::size_t>(std::distance(rx::sregex_iterator(body.begin(), body.end(), any_call), rx::sregex_iterator()));
      const bool all_safe =
          args != found.end() && !args->second.empty() && args->second.size() == calls &&
          std::all_of(args->second.begin(), args->second.end(), [&](const std::vector<std::string>& call) {
            static const rx::regex literal(R"re(^(['"])([^'"\\]*)\1$)re");
            rx::smatch lm;
            const auto i = static_cast<std::size_t>(skip->guard.param);
            return i < call.size() && rx::regex_match(call[i], lm, literal) && !skip->guard.taken(lm[2].str());
          });
      const bool via_helper = std::any_of(c.after.helpers.begin(), c.after.helpers.end(), [&](const TestUnit& h) {
        return h.calls.count(n) && now.count(h.name);
      });
      if (all_safe && !via_helper) continue;
    }
    // (A skip moved into a fixture of the file, under the condition the test skipped under before:
    // read only here, where a finding would be made, as the whole file is read for it.)
    if (c.lang == Lang::python && c.file.before && c.file.after &&
        same_skips(*c.file.before, bt, *c.file.after, at, python_skip_lines_accounted(*c.file.after, c.after.tests)))
      return std::nullopt;
    return IntegrityFinding{"skip_added", c.file.path, at.line,
                            "test " + at.name + " now reaches " + n + ", a helper that skips the tests using it (" + skip->marker + ")"};
  }
  return std::nullopt;
}

}  // namespace

bool python_skips_only_moved(const RuleContext& c, int line) {
  std::set<int> read;
  if (c.lang != Lang::python || !c.file.before || !c.file.after || !python_skip_lines_accounted(*c.file.after, c.after.tests, &read) ||
      (line > 0 && !read.count(line)))
    return false;
  bool any_condition = false;
  std::set<std::string> old_union;
  std::map<std::string, std::optional<std::set<std::string>>> old_of;
  for (const auto& t : c.before.tests) {
    auto conditions = python_skip_conditions(*c.file.before, t);
    if (conditions) old_union.insert(conditions->begin(), conditions->end());
    old_of.emplace(t.name, std::move(conditions));
  }
  bool kept = false;
  for (const auto& t : c.after.tests) {
    const auto now = python_skip_conditions(*c.file.after, t);
    const auto old = old_of.find(t.name);
    // (A test skipped always, before and now, with the same markers: unchanged.)
    if (!now && old != old_of.end() && !old->second)
      if (const auto bt = std::find_if(c.before.tests.begin(), c.before.tests.end(), [&](const TestUnit& x) { return x.name == t.name; });
          bt != c.before.tests.end() && bt->markers == t.markers)
        continue;
    if (!now) return false;
    any_condition = any_condition || !now->empty();
    if (old == old_of.end()) {
      if (!skips_covered(old_union, *now)) return false;
      continue;
    }
    if (!old->second || !skips_covered(*old->second, *now)) return false;
    kept = true;
  }
  return kept && any_condition;
}

void compare_tests(const RuleContext& c, Findings& out, std::vector<GoneTest>& gone, std::vector<NewTest>& added) {
  const std::string& path = c.file.path;
  std::map<std::string, const TestUnit*> b, a;
  for (const auto& t : c.before.tests)
    if (t.collectable) b[t.name] = &t;
  for (const auto& t : c.after.tests) a[t.name] = &t;
  const bool holds_failing = std::any_of(c.after.tests.begin(), c.after.tests.end(), [&](const TestUnit& t) {
    return names_failing_test(c.options.failing_tests, t.name);
  }) || std::any_of(c.before.tests.begin(), c.before.tests.end(), [&](const TestUnit& t) {
    return names_failing_test(c.options.failing_tests, t.name);
  });
  for (const auto& m : c.after.file_markers) {
    if (c.before.file_markers.count(m)) continue;
    if (starts_with(m, "focus")) out.push_back({"focus_added", path, 0, "a focus marker makes other tests stop running: " + m});
    else if ((!platform_condition(m) || holds_failing || !c.after.file_markers_conditional) && (starts_with(m, "build: ") || !python_skips_only_moved(c)))
      out.push_back({"skip_added", path, 0, "tests disabled: " + m});
  }
  // (Whether python_skip_conditions reads every skip of the new file: once, when a test's skips changed.)
  std::optional<bool> accounted;
  auto skips_accounted = [&] {
    if (!accounted) accounted = c.file.after && python_skip_lines_accounted(*c.file.after, c.after.tests);
    return *accounted;
  };
  // (A class's or the module's skips changed, `pytestmark` or a module-level `pytest.skip(...,
  // allow_module_level=True)`: every test's skips are compared, not only those with markers of
  // their own.)
  bool shared_skips_changed = false;
  if (c.lang == Lang::python && c.file.before && c.file.after) {
    auto shared = [](const std::string& text) {
      std::multiset<std::string> lines;
      bool any = false;
      for_each_capped_line(text, [&](int, const std::string& l) {
        static const rx::regex skip_word(R"([Ss][Kk][Ii][Pp]|[Xx][Ff][Aa][Ii][Ll]|pytestmark)");
        if (!rx::regex_search(l, skip_word)) return;
        lines.insert(strip_spaces(l));
        any = any || contains(l, "pytestmark") || contains(l, "allow_module_level");
      });
      return std::pair{any, lines};
    };
    const auto [had, then] = shared(*c.file.before);
    const auto [has, now] = shared(*c.file.after);
    shared_skips_changed = (had || has) && then != now;
  }
  // The file's lines and helper aliases, read once and only when some helper can skip.
  bool skip_names_read = false;
  std::optional<std::pair<HelperNames, HelperNames>> skip_names;
  for (const auto& [name, bt] : b) {
    auto it = a.find(name);
    if (it == a.end()) {
      gone.push_back({path, bt, !c.file.after, nullptr, std::nullopt, &c.before});
      continue;
    }
    const TestUnit& at = *it->second;
    if (!at.collectable) {
      if (at.hidden_by == kAsyncWithoutPlugin && async_tests_run_by_config(c.options)) continue;
      out.push_back({"collection_disabled", path, at.line,
                     "test " + name + " is no longer collected by the runner" + (at.hidden_by.empty() ? "" : ": " + at.hidden_by)});
      continue;
    }
    const bool failing = names_failing_test(c.options.failing_tests, name);
    // A skip written another way (`@skipif(os.name == 'nt')` -> `if os.name == 'nt': pytest.skip()`,
    // `importorskip('numpy')` -> `try: import numpy` / `except ImportError: pytest.skip()`): as many
    // skips as the test lost, no less conditional than they were. (The evidence of a run is the
    // judge of a requested test that skips: skipped is not passed.)
    auto skip_kind = [](const std::string& m) { return !starts_with(m, kDefinedOnlyIf) && !starts_with(m, "build: "); };
    // (Only a skip is excused as moved: an xfail or another way off is not one python_skip_conditions reads.)
    auto skip_named = [](const std::string& m) {
      static const rx::regex skip(R"([Ss][Kk][Ii][Pp])");
      return rx::regex_search(m, skip) && !contains(m, "xfail");
    };
    std::size_t replaced = 0, fresh = 0;
    for (const auto& m : bt->markers) replaced += skip_kind(m) && !at.markers.count(m);
    for (const auto& m : at.markers) fresh += skip_kind(m) && !bt->markers.count(m);
    const bool rewritten_skip = fresh > 0 && c.lang == Lang::python && c.file.before && c.file.after && skips_accounted() &&
                                same_skips(*c.file.before, *bt, *c.file.after, at, true);
    for (const auto& m : at.markers) {
      const bool never = starts_with(m, kDefinedOnlyIf) && never_true_condition(std::string_view(m).substr(kDefinedOnlyIf.size()));
      if (bt->markers.count(m) || (at.conditional && !failing && !never) || (rewritten_skip && skip_kind(m) && skip_named(m))) continue;
      if (starts_with(m, kDefinedOnlyIf))
        out.push_back({"collection_disabled", path, at.line,
                       "test " + name + " is now defined only if " + m.substr(kDefinedOnlyIf.size()) +
                           ": the runner collects the tests the module defines, so it is gone whenever the condition is false"});
      else if (starts_with(m, "build: "))
        out.push_back({"build_tag_added", path, at.line, "test " + name + " now compiles only when " + m.substr(7)});
      else
        out.push_back({"skip_added", path, at.line, "test " + name + " was disabled (" + m + ")"});
    }
    // A Python test skipped before and now, its skips of the same kinds (one `skipif` for another):
    // skipped under a condition it was not skipped under before (`skipif(sys.platform == 'win32')`
    // -> `skipif(True)`, a bare `skip` beside it, `sys.platform != 'Linux'`, a flag bound to another
    // value) is disabled there. A new platform condition of a test not requested to pass is a
    // platform skip, as a new platform marker is.
    // (Also a test skipped by its class or module, `pytestmark` or `if C: pytest.skip(...,
    // allow_module_level=True)`, which then skips under another condition.)
    if (c.lang == Lang::python && fresh == 0 && c.file.before && c.file.after &&
        (std::any_of(bt->markers.begin(), bt->markers.end(), [&](const std::string& m) { return skip_kind(m) && skip_named(m); }) ||
         (!c.before.file_markers.empty() && c.before.file_markers == c.after.file_markers) || shared_skips_changed)) {
      const auto then = python_skip_conditions(*c.file.before, *bt);
      const auto now = python_skip_conditions(*c.file.after, at);
      std::vector<std::string> wider;
      // (A test skipped under no condition read before, newly skipped: the rules for new skips judge it.)
      const bool skipped_before = !then || !then->empty();
      if (then && !now && skipped_before) wider.push_back("a skip under no condition");
      if (then && now && skipped_before)
        for (const auto& x : *now)
          if (!skip_covered(*then, x)) wider.push_back(x);
      // (A platform read as such, or a name that says one, `WIN` imported from a compat module.)
      const bool platform_only = std::all_of(wider.begin(), wider.end(), [](const std::string& x) {
        return starts_with(x, "platform") || platform_condition(x.substr(0, x.find('|')));
      });
      if (!wider.empty() && (failing || !platform_only)) {
        std::string shown;
        for (const auto& x : wider) {
          std::string one = x.substr(0, x.find('|'));
          for (auto sep = one.find('\x1f'); sep != std::string::npos; sep = one.find('\x1f')) one.replace(sep, 1, sep + 1 == one.size() ? "" : " & ");
          shown += (shown.empty() ? "" : ", ") + one.substr(0, 160);
        }
        out.push_back({"skip_added", path, at.line, "test " + name + " now skips under a condition it did not skip under before (" + shown + ")"});
      }
    }
    if (!skip_names_read) {
      skip_names_read = true;
      if (any_skip_helper(c)) skip_names.emplace(helper_names(c.file.after), helper_names(c.file.before));
    }
    if (skip_names)
      if (auto f = skip_through_helper(c, *bt, at, failing, skip_names->first, skip_names->second)) out.push_back(*f);
    if (at.focus && !bt->focus) out.push_back({"focus_added", path, at.line, "test " + name + " was focused (.only): the others stop running"});
    if (auto f = compare_checks(*bt, at, path)) {
      bool moved_to_helper = false;
      if ((f->rule == "assertion_removed" || f->rule == "assertion_weakened") &&
          (!c.before.helpers.empty() || !c.after.helpers.empty() || !c.before.imported_helpers.empty() || !c.after.imported_helpers.empty())) {
        // Checks moved into a helper the test calls (same file) are still its checks; moved into
        // one whose failures cannot reach the test (handed to a task never awaited), that is
        // the finding. (Also when the test added a weaker check of its own beside the call:
        // without the helper's checks, that looked like its checks replaced by a weaker one.)
        const TestUnit xb = with_helpers(*bt, c.before), xa = with_helpers(at, c.after);
        if (xa.asserts.size() != at.asserts.size()) {
          auto h = compare_checks(xb, xa, path);
          moved_to_helper = !h;
          if (h && h->rule != "assertion_removed") {
            h->message += " (counting the checks of the helpers it calls in this file)";
            f = std::move(h);
          }
        }
      }
      if (moved_to_helper) {
      } else if (f->rule == "assertion_removed") {
        gone.push_back({path, bt, false, &at, std::move(*f), &c.before});
      } else {
        out.push_back(std::move(*f));
      }
    } else if (!c.before.helpers.empty() || !c.after.helpers.empty() || !c.before.imported_helpers.empty() || !c.after.imported_helpers.empty()) {
      // The same with the checks of the helpers the test calls (same file or an imported helper module): a gutted helper
      // weakens every test that relies on it.
      const TestUnit xb = with_helpers(*bt, c.before), xa = with_helpers(at, c.after);
      if (xb.asserts.size() != bt->asserts.size() || xa.asserts.size() != at.asserts.size())
        if (auto h = compare_checks(xb, xa, path)) {
          h->message += c.before.imported_helpers.empty() && c.after.imported_helpers.empty()
                            ? " (counting the checks of the helpers it calls in this file)"
                            : " (counting the checks of the helpers it calls, in this file and in the test-side files it uses)";
          out.push_back(std::move(*h));
        }
    }
  }
  for (const auto& t : c.after.tests) {
    if (b.count(t.name)) continue;
    // A new test that reuses the name of a failing test with a skip marker is no honest addition.
    // (Not new: a test the runner did not collect before either, an `async def` without a plugin.)
    const bool was_there = std::any_of(c.before.tests.begin(), c.before.tests.end(), [&](const TestUnit& x) {
      return x.name == t.name && !x.collectable && !t.collectable && x.hidden_by == t.hidden_by;
    });
    if (!t.markers.empty() && names_failing_test(c.options.failing_tests, t.name) && !was_there) {
      out.push_back({"skip_added", path, t.line, "test " + t.name + " was re-added disabled"});
      continue;
    }
    added.push_back({path, c.lang, &t});
  }
}

namespace {

/// Does a new test still run where the runner looks (collected, in a collected file, no skip)?
bool runs(const NewTest& n) {
  const TestUnit& at = *n.unit;
  return at.collectable && collectable_test_file(n.path, n.lang) && (at.markers.empty() || at.conditional);
}

bool shares_a_check(const TestUnit& a, const TestUnit& b) {
  const auto ac = checks(a), bc = checks(b);
  return std::any_of(ac.begin(), ac.end(), [&](const Assertion* x) {
    return std::any_of(bc.begin(), bc.end(), [&](const Assertion* y) { return overlaps(*x, *y); });
  });
}

/// A test split into several: `kept` (the test under its old name, when it is still there) together
/// with every test the patch adds that runs and checks something the old test checked (the
/// developer split test_parse into test_parse_hex and test_parse_dec, or moved half of its checks
/// into a new test). Checks that no new test shares are not credited, so a test replaced by an
/// empty one, or by tests about other things, is still deleted or weakened.
std::optional<TestUnit> split_into(const TestUnit& bt, const TestUnit* kept, const std::vector<NewTest>& added) {
  TestUnit merged = kept ? *kept : TestUnit{};
  merged.name = bt.name;
  if (!kept) merged.cases = bt.cases;
  bool any = false;
  for (const auto& n : added) {
    if (!runs(n) || n.unit->cases != merged.cases || !shares_a_check(bt, *n.unit)) continue;
    merged.asserts.insert(merged.asserts.end(), n.unit->asserts.begin(), n.unit->asserts.end());
    any = true;
  }
  if (!any) return std::nullopt;
  return merged;
}

/// Does the new file hand one of the old test's expected values to the code as input, where the
/// old file did not: a line holding the literal that is no check's (`out << "!<hello> 42";`,
/// `const out = ['!<hello> 42'];`, a fixture seeding its buffer), so a moved or renamed test may
/// compare the value with itself. (A round trip that already fed the literal in is no change.)
bool seeds_expected(const TestUnit& bt, const std::optional<std::string>& before_text, const std::optional<std::string>& after_text) {
  if (!after_text) return false;
  // (A check's line: an assertion call, `assert.strictEqual(...)`, `t.is(...)`, `EXPECT_EQ(...)`,
  // Python's `assert x == "..."`, a comparison in a condition, `if got != "x" {`.)
  static const rx::regex check_line(R"((?:expect|assert|check|verify|should|fail)[\w.]*\s*[(!]|\bassert\s|\b(?:EXPECT|ASSERT)_|\bt\.\w+\s*\(|\bif\b.*[!=]==?)",
                                     rx::regex::icase);
  const auto fed = [&](const std::optional<std::string>& text, const std::string& lit) {
    if (!text) return false;
    bool found = false;
    for_each_capped_line(*text, [&](int, const std::string& line) {
      if (!found && contains(strip_spaces(line), lit) && !rx::regex_search(line, check_line)) found = true;
    });
    return found;
  };
  for (const auto* x : checks(bt))
    for (const auto& l : x->literals) {
      const std::string lit = strip_spaces(l);
      if (lit.size() < 4 || (lit.front() != '"' && lit.front() != '\'' && lit.front() != '`')) continue;  // (a word of text, not `""`, `1`)
      if (fed(after_text, lit) && !fed(before_text, lit)) return true;
    }
  return false;
}

/// The new name keeps the old one's last part (`NodeTest.EmitEmptyNode` -> `EmitterTest.EmitEmptyNode`,
/// `SetVerbatimTag` -> `EmitSetVerbatimTag`: prefixed at a word boundary).
/// Also extended at a word boundary after it (`SetVerbatimTag` -> `SetVerbatimTagEmitsTag`), and
/// lowerCamel names read with their first letter raised (`setVerbatimTag` -> `emitsSetVerbatimTag`).
bool keeps_name(const std::string& before, const std::string& after) {
  std::string b = test_tail(before), a = test_tail(after);
  if (b.size() < 4 || b.find(' ') != std::string::npos) return false;
  if (a == b) return true;
  const auto raise = [](std::string& x) { x[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(x[0]))); };
  if (std::islower(static_cast<unsigned char>(b[0])) && !a.empty() && std::islower(static_cast<unsigned char>(a[0])) &&
      b.find('_') == std::string::npos) {
    raise(b);
    raise(a);
  }
  if (a.size() <= b.size()) return false;
  if (ends_with(a, b)) {
    const char first = b.front(), prev = a[a.size() - b.size() - 1];
    return std::isupper(static_cast<unsigned char>(first)) || prev == '_';
  }
  if (starts_with(a, b)) {
    const char next = a[b.size()];
    return std::isupper(static_cast<unsigned char>(next)) || next == '_';
  }
  return false;
}

/// Two checks' operands end in a call of the same name, on whatever receiver (`emitter.c_str()` ->
/// `out.c_str()`: the emitter became the fixture's; `buf.getvalue()` -> `self.out.getvalue()`).
bool same_last_call(const Assertion& x, const Assertion& y) {
  // (`old`: the old test's check, whose operands are all read; the new one's only through a fixture.)
  const auto last = [](const Assertion& a, bool old) {
    std::set<std::string> out;
    for (const auto& src : a.sources) {
      const auto cut = src.find_last_of(".:>@");
      if (std::string n = cut == std::string::npos ? src : src.substr(cut + 1); !n.empty()) out.insert(std::move(n));
    }
    // (And the call an operand ends in, `self.out.getvalue()` -> getvalue.)
    static const rx::regex trailing(R"(([A-Za-z_$][\w$]*)\s*\([^()]*\)\s*$)");
    // (Only of a fixture's member, `self.out.getvalue()`, `this.out.join('')`: a local the test
    // binds is traced through its sources above, and may be the expected text itself.)
    for (const auto& o : a.operands)
      if (rx::smatch m; (old || starts_with(o, "self.") || starts_with(o, "this.")) && o.find_first_of("\"'`") == std::string::npos &&
                         rx::regex_search(o, m, trailing))
        out.insert(m[1].str());
    return out;
  };
  const auto a = last(x, true), b = last(y, false);
  return std::any_of(a.begin(), a.end(), [&](const std::string& n) { return b.count(n) > 0; });
}

/// A test moved under its own name, its checks read with the helpers each file gives them (a
/// fixture's `ExpectEmit(...)`): as strong, and every check of the old one that compared with
/// literal values has a check of the same kind in the new one comparing with the same values through
/// a call of the same name, the others one about the same operand (jbeder/yaml-cpp 723998983a moved five emitter tests from
/// load_node_test.cpp into emitter_test.cpp's fixture, EXPECT_EQ(..., emitter.c_str()) -> ExpectEmit(...)).
bool moved_under_its_name(const TestUnit& bt, const FileModel* bm, const TestUnit& at, const FileModel* am, const std::string& path) {
  if (!keeps_name(bt.name, at.name) || (at.cases != bt.cases && !at.cases_unknown) || at.param_defaults != bt.param_defaults) return false;
  const TestUnit xb = bm ? with_helpers(bt, *bm) : bt, xa = am ? with_helpers(at, *am) : at;
  // (Swallowed, unreachable or weakened checks are findings whatever their operands.)
  if (auto f = compare_checks(xb, xa, path); f && f->rule != "assertion_removed") return false;
  auto bc = checks(xb);
  const auto ac = checks(xa);
  if (bc.empty() || total(ac) < total(bc)) return false;
  std::stable_sort(bc.begin(), bc.end(), [](const Assertion* x, const Assertion* y) { return weight(*x) > weight(*y); });
  std::vector<bool> used(ac.size(), false);
  bool valued = false;
  for (const Assertion* x : bc) {
    std::set<std::string> want;
    for (const auto& l : x->literals) want.insert(strip_spaces(l));
    std::size_t j = 0;
    for (; j < ac.size(); ++j) {
      const Assertion& y = *ac[j];
      if (used[j] || weight(y) < weight(*x)) continue;
      if (overlaps(*x, y) || same_source(*x, y)) break;
      if (want.empty() || kind_of(y) != kind_of(*x) || !same_last_call(*x, y)) continue;
      std::set<std::string> got;
      for (const auto& l : y.literals) got.insert(strip_spaces(l));
      if (std::includes(got.begin(), got.end(), want.begin(), want.end())) break;
    }
    if (j == ac.size()) return false;
    used[j] = true;
    valued = valued || !want.empty();
  }
  return valued;
}

}  // namespace

void settle_gone_tests(const std::vector<GoneTest>& gone, const std::vector<NewTest>& added,
                       const std::vector<const FileModel*>& after_models, const std::vector<std::string>& after_paths,
                       const std::vector<FileVersions>& files, const IntegrityOptions& options, Findings& out) {
  const auto text_of = [&](const std::string& path, bool after) -> std::optional<std::string> {
    for (const auto& f : files)
      if (f.path == path) return after ? f.after : f.before;
    return std::nullopt;
  };
  for (const auto& g : gone) {
    const TestUnit& bt = *g.unit;
    // The tests that may stand in for it: none that feeds the code an expected value of it (the
    // same body is the same test).
    const std::optional<std::string> before_text = text_of(g.path, false);
    std::vector<NewTest> candidates;
    for (const auto& n : added)
      if (n.unit->body_hash == bt.body_hash || !seeds_expected(bt, before_text, text_of(n.path, true))) candidates.push_back(n);
    if (g.kept) {
      auto merged = split_into(bt, g.kept, candidates);
      if (!merged || compare_checks(bt, *merged, g.path)) out.push_back(*g.finding);
      continue;
    }
    // Renamed, moved or replaced: a new test with the same body, or one that checks at least as
    // much about the same things. Same file first.
    const NewTest* replacement = nullptr;
    const NewTest* uncollected = nullptr;
    for (int same_file = 1; same_file >= 0 && !replacement; --same_file)
      for (const auto& n : candidates) {
        if ((n.path == g.path) != (same_file == 1)) continue;
        const TestUnit& at = *n.unit;
        // (The same body under another name is the same test only when what surrounds the body
        // agrees too: its cases, parameters and defaults, what the test as a whole expects (a
        // `@Test(expected = ...)`, `#[should_panic]`, a parametrize table) -- compare_checks.)
        const bool as_strong = !compare_checks(bt, at, n.path);
        const bool same_body = at.body_hash == bt.body_hash && at.param_defaults == bt.param_defaults && as_strong;
        const auto bc = checks(bt), ac = checks(at);
        const bool same_checks = !bc.empty() && as_strong &&
                                 std::any_of(bc.begin(), bc.end(), [&](const Assertion* x) {
                                   // The same operand, or one computed from the same call
                                   // (`await add(2, 2)` -> `const sum = await add(2, 2)` ... `sum`).
                                   return std::any_of(ac.begin(), ac.end(), [&](const Assertion* y) { return overlaps(*x, *y) || same_source(*x, *y); });
                                 });
        const FileModel* am = nullptr;
        for (std::size_t i = 0; i < after_paths.size() && !am; ++i)
          if (after_paths[i] == n.path) am = after_models[i];
        if (!same_body && !same_checks && !moved_under_its_name(bt, g.model, at, am, n.path)) continue;
        if (!at.collectable || !collectable_test_file(n.path, n.lang) || (!at.markers.empty() && !at.conditional)) {
          uncollected = &n;
          continue;
        }
        replacement = &n;
        break;
      }
    if (replacement) continue;
    if (auto merged = split_into(bt, nullptr, candidates); merged && !compare_checks(bt, *merged, g.path)) continue;
    if (uncollected) {
      out.push_back({"collection_disabled", uncollected->path, uncollected->unit->line,
                     "test " + bt.name + " moved to " + uncollected->unit->name + " where the runner does not collect it" +
                         (uncollected->unit->hidden_by.empty() ? "" : ": " + uncollected->unit->hidden_by)});
      continue;
    }
    // A free-text title (JS, tape, node:test) is looked for by its last words, not its last word
    // (`... bounded by total timeout budget`: a comment saying "budget" comments out nothing).
    std::string tail = test_tail(bt.name);
    if (bt.name.find(' ') != std::string::npos) {
      std::size_t cut = bt.name.size();
      for (int words = 0; words < 4 && cut != std::string::npos && cut > 0; ++words) cut = bt.name.rfind(' ', cut - 1);
      tail = cut == std::string::npos ? bt.name : bt.name.substr(cut + 1);
    }
    const FileModel* after = nullptr;
    for (std::size_t i = 0; i < after_paths.size(); ++i)
      if (after_paths[i] == g.path) after = after_models[i];
    if (after && !g.file_deleted && contains(after->comments, tail))
      out.push_back({"test_commented_out", g.path, bt.line, "test " + bt.name + " was commented out"});
    else
      out.push_back({"test_deleted", g.path, bt.line,
                     "test " + bt.name + " was deleted" + (names_failing_test(options.failing_tests, bt.name) ? " (a failing test)" : "")});
  }
}

}  // namespace flowagent::integrity
