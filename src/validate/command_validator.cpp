// Deterministic validation: the candidate patch applied to a fresh, pristine checkout of the change
// head, then the build, the failing tests (seen to pass in per-test results), optional re-runs
// against flakiness, and the wider set for regressions. The loop's own check (check()) runs the
// same steps in the loop's tree, for feedback only.
#include <absl/strings/str_join.h>
#include <absl/strings/str_replace.h>
#include <re2/re2.h>

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <variant>

#include "core/deep_stack.hpp"
#include "core/patch_rules.hpp"
#include "core/regex.hpp"
#include "agent/pipeline.hpp"
#include "flowagent/integrity.hpp"
#include "flowagent/json.hpp"
#include "flowagent/patch.hpp"
#include "flowagent/repair.hpp"
#include "reports/test_identity.hpp"
#include "tools/test_command.hpp"
#include "validate/assertion_evidence.hpp"
#include "validate/runner.hpp"
#include "workspace/git.hpp"
#include "workspace/repo_ops.hpp"
#include "workspace/sandbox_fs.hpp"

namespace flowagent {

namespace {

using reports::Outcome;

/// The one place the validator reads the candidate patch: the pipeline's Patch value (the text
/// rendered from it is what git printed), else the loop's workspace diff (a loop's own check()).
/// The request's build in the checkout `root`: whether it succeeded (true when there is none to
/// run). Cancellation is an error; a failed build is each caller's own outcome.
Expected<bool> builds_in(RepairContext& ctx, const std::filesystem::path& root) {
  const auto& req = ctx.request;
  if (req.commands.build.empty()) return true;
  auto b = detail::run_command(root, req.commands.build, req, ctx.cancel, ctx.sandbox);
  if (!b) return unexpected(b.error());
  if (b->cancelled) return fail(Errc::cancelled, "validation cancelled");
  return b->ok();
}

Expected<std::string> candidate_patch(RepairContext& ctx) {
  if (ctx.patch) return ctx.patch->text;
  return ctx.workspace.diff();
}

/// Lines the patch adds, concatenated (for "is this test new?"), read through the one patch parser.
/// Does one of the `added` lines define a test named `leaf`: `def leaf(`, `func leaf(`, `fn leaf(`,
/// `void leaf(`, `TEST(Suite, leaf)`, or a quoted name in a test call (`it('leaf'`, `test("leaf"`)?
/// A bare mention (a comment, a call) is not a definition: crediting it would let a patch move the
/// failing test away and name a neighbour as its "replacement".
bool defines_test(const std::string& added, const std::string& leaf) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; };
  for (std::size_t b = 0; b < added.size();) {
    std::size_t e = added.find('\n', b);
    if (e == std::string::npos) e = added.size();
    const std::string_view line(added.data() + b, e - b);
    b = e + 1;
    for (std::size_t at = line.find(leaf); at != std::string_view::npos; at = line.find(leaf, at + 1)) {
      const char before = at ? line[at - 1] : ' ';
      const char after = at + leaf.size() < line.size() ? line[at + leaf.size()] : ' ';
      if (ident(before) || ident(after)) continue;  // part of a longer name
      std::string_view head = line.substr(0, at);
      while (!head.empty() && (head.back() == ' ' || head.back() == '\t')) head.remove_suffix(1);
      const bool keyword = head.ends_with("def") || head.ends_with("func") || head.ends_with("fn") ||
                           head.ends_with("void") || head.ends_with("fun") || head.ends_with(",");  // TEST(S, leaf)
      const bool quoted = (before == '\'' || before == '"' || before == '`') &&
                          (line.find("it(") != std::string_view::npos || line.find("test(") != std::string_view::npos ||
                           line.find("describe(") != std::string_view::npos || line.find("t.Run(") != std::string_view::npos ||
                           line.find(".test(") != std::string_view::npos);
      const bool gtest = keyword && head.ends_with(",") &&
                         (line.find("TEST(") != std::string_view::npos || line.find("TEST_F(") != std::string_view::npos ||
                          line.find("TEST_P(") != std::string_view::npos);
      if ((keyword && !head.ends_with(",")) || gtest || quoted) return true;
    }
  }
  return false;
}

std::string added_lines(std::string_view patch) {
  std::string out;
  auto parsed = parse_patch(patch);
  if (!parsed) return out;
  for (const auto& f : parsed->files)
    for (const auto& h : f.hunks)
      for (const auto& l : h.lines)
        if (l.kind == '+') out.append(l.text).push_back('\n');
  return out;
}

/// A dotted Python name ("tests.test_x.TestA.test_b", JUnit XML's form) as the test module's path
/// when that file exists in the checkout ("tests/test_x.py").
std::vector<std::string> module_file(const std::string& id, const std::filesystem::path& root) {
  auto name = reports::parse_test_name(id);
  const auto& seg = name.segments;
  for (std::size_t k = seg.size() > 1 ? seg.size() - 1 : 0; k > 0; --k) {
    std::string path;
    for (std::size_t i = 0; i < k; ++i) path += (i ? "/" : "") + seg[i];
    path += ".py";
    std::error_code ec;
    if (path.find("..") == std::string::npos && std::filesystem::is_regular_file(root / path, ec)) return {path};
  }
  return {};
}

/// Does a requested id name a test file of the checkout (`test/bool.js`, as tape, node --test and
/// jest take files): a relative path without `..` to a regular file?
bool names_file(const std::string& id, const std::filesystem::path& root) {
  if (id.empty() || id.front() == '/' || id.find("..") != std::string::npos || id.find("::") != std::string::npos ||
      id.find('\n') != std::string::npos)
    return false;
  std::error_code ec;
  return std::filesystem::is_regular_file(root / id, ec);
}

/// Was this result reported from the file `path` (a report's file attribute, relative or absolute)?
bool from_file(const reports::TestCase& t, const std::string& path) {
  if (t.file.empty()) return false;
  std::string f = t.file;
  if (f.rfind("./", 0) == 0) f.erase(0, 2);
  return f == path || (f.size() > path.size() && f.compare(f.size() - path.size(), path.size(), path) == 0 &&
                       f[f.size() - path.size() - 1] == '/');
}

/// Did the runner say that a selected test does not exist (pytest exit 4/5, "not found", go's
/// "no tests to run", jest's "No tests found")?
bool runner_says_not_found(const detail::Observed& o) {
  if (o.runner == reports::Runner::pytest && (o.run.exit_code == 4 || o.run.exit_code == 5)) return true;
  for (std::string_view needle : {"ERROR: not found:", "no tests ran", "no tests to run", "No tests found",
                                  "0 tests collected", "no test files"})
    if (o.log.find(needle) != std::string::npos) return true;
  return false;
}

/// Appends `x` to `v` unless it is there already.
void add_unique(std::vector<std::string>& v, const std::string& x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

/// The first `n` of `v`, comma-separated, then ", ..." when there are more (for messages).
std::string first_few(const std::vector<std::string>& v, std::size_t n) {
  return absl::StrJoin(std::vector<std::string>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(v.size(), n))), ", ") +
         (v.size() > n ? ", ..." : "");
}

/// How the test command selects the patch's test files, if it can: a plain `{tests}` that is a
/// word of its own and not the value of an option that selects by name (`-k {tests}`,
/// `--grep {tests}`, `-t {tests}`), for the runners that take files (pytest, jest, vitest,
/// node --test, tape); `{tests|SEP}` after go test's `-run`, which selects the test functions the
/// files define; `--gtest_filter={tests|:}`, which selects the GoogleTest cases they define.
enum class FileSelection { none, files, go_functions, gtest_cases };

FileSelection file_selection(const std::string& tmpl, reports::Runner runner) {
  using reports::Runner;
  const auto p = tmpl.find("{tests");
  if (p == std::string::npos || tmpl.find("{tests", p + 1) != std::string::npos) return FileSelection::none;
  std::size_t e = p;  // the word before the placeholder
  while (e > 0 && tmpl[e - 1] == ' ') --e;
  std::size_t b = e;
  while (b > 0 && tmpl[b - 1] != ' ') --b;
  const std::string before = tmpl.substr(b, e - b);
  if (runner == Runner::go) {
    // `-run {tests|SEP}`, `-run={tests|SEP}`, `-test.run ...`, quoted or anchored (`-run '^({tests||})$'`).
    std::string_view lead = std::string_view(tmpl).substr(0, p);
    while (!lead.empty() && (lead.back() == '\'' || lead.back() == '"' || lead.back() == '^' || lead.back() == '(')) lead.remove_suffix(1);
    if (lead.ends_with("=")) lead.remove_suffix(1);
    else while (!lead.empty() && lead.back() == ' ') lead.remove_suffix(1);
    const bool run = lead.ends_with(" -run") || lead.ends_with(" -test.run") || lead.ends_with(" --run");
    return run && tmpl.compare(p, 7, "{tests|") == 0 ? FileSelection::go_functions : FileSelection::none;
  }
  if (runner == Runner::gtest)
    return std::string_view(tmpl).substr(0, p).ends_with("--gtest_filter=") && tmpl.compare(p, 9, "{tests|:}") == 0 ? FileSelection::gtest_cases
                                                                                                                    : FileSelection::none;
  static const std::set<std::string> by_name = {"-k", "-m", "-t", "-g", "-f", "-R", "-E", "--grep", "--fgrep", "--testNamePattern",
                                                "--test-name-pattern", "--filter", "--tests", "--match", "--pattern"};
  if (tmpl.compare(p, 7, "{tests}") != 0 || by_name.count(before) || (e == p && p > 0)) return FileSelection::none;
  switch (runner) {
    case Runner::pytest:
    case Runner::jest:
    case Runner::vitest:
    case Runner::node_test:
    case Runner::tape:
      return FileSelection::files;
    default:
      return FileSelection::none;
  }
}

/// A test command that starts in a folder of the repository (`cd web && npx jest {tests}`, or `;`) names
/// files from there: the folder ("web/"), or "" when it starts at the root.
std::string command_folder(const std::string& tmpl) {
  static const RE2 cd(R"(^\s*cd\s+(?:\./)?([\w.\-/]+?)/?\s*(?:&&|;))");
  std::string dir;
  if (!RE2::PartialMatch(tmpl, cd, &dir) || dir == "." || dir.find("..") != std::string::npos) return "";
  return dir + "/";
}

/// Is `path` (with `content`) a test file the runner runs when named: for pytest a module that
/// defines a test function or class (pytest collects a file named on its command line whatever
/// its name: `python_files = check_*.py` projects included), never conftest.py; for the
/// JavaScript runners a script whose name says test or spec or that lies under `__tests__/`, or
/// that makes a test call (`test(`, `it.concurrent(`, `describe(`, `tape(`, `specify(`, however
/// named) or loads a test framework. Helpers and fixtures beside the tests do not. The content is
/// the model's: it is scanned with RE2 (linear time, no recursion: std::regex recurses per
/// character and a long line overflows the stack).
bool runnable_test_file(const std::string& path, std::string_view content, reports::Runner runner) {
  const auto slash = path.rfind('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const re2::StringPiece text(content.data(), content.size());
  if (runner == reports::Runner::pytest) {
    static const RE2 defines(R"((?m)^[ \t]*(?:async[ \t]+)?(?:def[ \t]+test|class[ \t]+Test))");
    return base.ends_with(".py") && base != "conftest.py" && base != "__init__.py" && RE2::PartialMatch(text, defines);
  }
  static const RE2 script(R"(\.[cm]?[jt]sx?$)");
  static const RE2 named(R"((?:^|[._-])(?:test|spec)s?(?:[._-]|$))");
  static const RE2 call(R"((?:^|[^\w.$])(?:test|it|describe|tape|suite|specify)(?:\.\w+)*\s*\()");
  static const RE2 framework(R"(['"](?:tape|tap|node:test|vitest|@jest/globals|mocha|ava|uvu)['"/])");
  if (!RE2::PartialMatch(base, script)) return false;
  const std::string stem = base.substr(0, base.find('.'));
  return RE2::PartialMatch(stem, named) || base.find(".test.") != std::string::npos || base.find(".spec.") != std::string::npos ||
         ("/" + path).find("/__tests__/") != std::string::npos || RE2::PartialMatch(text, call) || RE2::PartialMatch(text, framework);
}

/// The GoogleTest cases a C++ file defines, as --gtest_filter names them: `TEST(S, N)` and
/// `TEST_F(S, N)` as `S.N`, `TEST_P(S, N)` as `*/S.N/*` (every instantiation), `TYPED_TEST(S, N)`
/// as `S/*.N` (every type). (RE2 over the model's content, as runnable_test_file.)
std::vector<std::string> gtest_cases(std::string_view content) {
  static const RE2 def(R"(\b(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)\s*\(\s*(\w+)\s*,\s*(\w+)\s*\))");
  std::vector<std::string> out;
  re2::StringPiece in(content.data(), content.size());
  std::string kind, suite, name;
  while (RE2::FindAndConsume(&in, def, &kind, &suite, &name)) {
    std::string id = kind == "TEST_P"                        ? "*/" + suite + "." + name + "/*"
                     : kind.rfind("TYPED_TEST", 0) == 0 ? suite + "/*." + name
                                                             : suite + "." + name;
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(std::move(id));
  }
  return out;
}

/// The Go tests a file defines, as `go test -run` selects them: `Test*`, `Example*` and `Fuzz*`
/// functions at the top level, however their parameters are spelled (an aliased `testing`, a
/// signature over several lines); go's own rule that the name goes on with no lower-case letter.
std::vector<std::string> go_test_functions(std::string_view content) {
  static const RE2 def(R"((?m)^func[ \t]+((Test|Example|Fuzz)(\w*))[ \t]*\()");
  std::vector<std::string> out;
  re2::StringPiece in(content.data(), content.size());
  std::string name, prefix, rest;
  while (RE2::FindAndConsume(&in, def, &name, &prefix, &rest)) {
    if (!rest.empty() && std::islower(static_cast<unsigned char>(rest[0]))) continue;  // Testify is no test
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

/// A tape or node --test run that exited 0 and whose TAP says it had no test at all (`1..0`: tape
/// given only helper files that load it): no result to read, and none missing. (A test point
/// anywhere in the output makes it a run whose results could not be read.)
bool no_tap_tests(const detail::Observed& o) {
  if (o.run.exit_code != 0 || !o.tests.empty() || (o.runner != reports::Runner::tape && o.runner != reports::Runner::node_test)) return false;
  if (o.log.find("\nok ") != std::string::npos || o.log.find("\nnot ok ") != std::string::npos) return false;
  for (std::size_t at = o.log.find("1..0"); at != std::string::npos; at = o.log.find("1..0", at + 1))
    if ((at == 0 || o.log[at - 1] == '\n') && (at + 4 == o.log.size() || o.log[at + 4] == '\n' || o.log[at + 4] == ' ' || o.log[at + 4] == '\r'))
      return true;
  return false;
}

struct Outcome2 {
  bool passed = false;
  std::string reason;
  std::string message;
};

class CommandValidator final : public Validator {
 public:
  explicit CommandValidator(ValidatorOptions o) : opt_(o) {}
  std::string_view name() const override { return "command"; }

  /// The pipeline's validation stage: a fresh checkout of head + the patch. A report the loop's
  /// check() made in this repair run for this same request, head and patch in a fresh checkout is
  /// that validation already (check() keeps only verdicts that another run would repeat, and a
  /// pass only while no check of the run failed): it is taken, once, instead of running the same
  /// tests again.
  Expected<ValidationReport> validate(RepairContext& ctx) override {
    if (auto text = candidate_patch(ctx); text && !text->empty()) {
      if (auto known = recall(memo_key(ctx, *text), /*take=*/true)) {
        ctx.result.trajectory.push_back(TrajectoryStep{
            "note", "validator", {},
            std::string("the loop's check of this same patch ran in a fresh checkout of the head (") +
                (known->report.passed ? "passed" : known->report.reason) + "): its runs are the validation's",
            true, 0});
        return std::move(known->report);
      }
    }
    return guarded([&] { return validate_here(ctx); });
  }

  /// The loop's feedback. With a workspace provider, the validation itself: a fresh checkout of
  /// head + the patch, so what the loop left in its tree (untracked files, build outputs) cannot
  /// make the check pass; the report is remembered for validate() (see there), and a check of the
  /// same patch again (the model answers "done" without a change) gets the same verdict without a
  /// run, so "done" again cannot re-roll a flaky test. Without a provider, the same checks in the
  /// loop's own tree. Never final evidence by itself.
  Expected<ValidationReport> check(RepairContext& ctx) override {
    if (!ctx.workspaces) return guarded([&] { return check_here(ctx); });
    auto text = candidate_patch(ctx);
    std::string key;
    if (text && !text->empty()) {
      key = memo_key(ctx, *text);
      if (auto known = recall(key, /*take=*/false)) {
        ctx.state.last_build_log = std::move(known->build_log);
        ctx.state.last_test_log = std::move(known->test_log);
        relocate_logs(ctx, known->fresh_root);
        return std::move(known->report);
      }
    }
    std::string fresh_root;
    auto rep = guarded([&] { return validate_here(ctx, &fresh_root); });
    if (rep && !key.empty()) {
      const std::uint64_t run = detail::current_run_id();
      std::lock_guard lock(mu_);
      // A pass after a failed check of the run is not taken: the model, shown the failure, could
      // have tried again until a flaky fix passed once. The validation then runs on its own.
      if (!rep->passed) remember_failed_run(run);
      if (repeatable(*rep) && (!rep->passed || !failed_runs_.count(run)))
        remember(std::move(key), Remembered{*rep, ctx.state.last_build_log, ctx.state.last_test_log, fresh_root, 0});
    }
    relocate_logs(ctx, fresh_root);
    return rep;
  }

 private:
  static constexpr char kMemoSeparator = '\x1f';
  /// A check's report (from its fresh checkout), with the logs it left for the model's tools.
  struct Remembered {
    ValidationReport report;
    std::string build_log, test_log;
    std::string fresh_root;  ///< the checkout the logs name (relocated for each loop that recalls them)
    std::uint64_t seq;       ///< insertion order (the oldest goes first when full)
  };

  /// The build and test logs a check left for the model's tools (read_log) name the fresh checkout
  /// it ran in, a directory the loop's tools cannot reach: they name the loop's own tree instead,
  /// which holds the same files (head + the same patch).
  static void relocate_logs(RepairContext& ctx, const std::string& fresh_root) {
    const std::string own = ctx.workspace.root().string();
    if (fresh_root.empty() || fresh_root == own) return;
    for (std::string* log : {&ctx.state.last_build_log, &ctx.state.last_test_log})
      if (log->find(fresh_root) != std::string::npos) *log = absl::StrReplaceAll(*log, {{fresh_root, own}});
  }

  /// A verdict another run of the same patch would give again: a pass in a fresh checkout, or a
  /// failure of the tests themselves; never one the machine may have caused (a timeout, the
  /// sandbox's bounds, a build that failed, results that could not be read).
  static bool repeatable(const ValidationReport& rep) {
    for (const auto& r : rep.evidence.runs)
      if (r.timed_out || !r.stopped_by.empty()) return false;
    if (rep.passed) return rep.evidence.fresh_checkout;
    static const std::set<std::string, std::less<>> kTestVerdicts = {"failing_tests_still_fail", "failing_test_missing",
                                                                     "patch_tests_fail", "empty_patch", "patch_does_not_apply"};
    return kTestVerdicts.count(rep.reason) > 0;
  }

  /// Everything a validation's outcome depends on besides this validator's options: the repair run
  /// (the memo never outlives it: a host's retry of a request validates again), the sandbox and the
  /// checkouts it runs in, the whole request, the head, the patch. Empty outside a pipeline run (a
  /// host's own call) or when the request is not valid UTF-8 (no memo then).
  static std::string memo_key(const RepairContext& ctx, const std::string& patch) {
    const std::uint64_t run = detail::current_run_id();
    if (run == 0) return {};
    auto request = dump_json(to_json(ctx.request));
    if (!request) return {};
    return std::to_string(run) + kMemoSeparator + std::to_string(reinterpret_cast<std::uintptr_t>(ctx.sandbox)) + kMemoSeparator +
           std::to_string(reinterpret_cast<std::uintptr_t>(ctx.workspaces)) + kMemoSeparator + *request + kMemoSeparator +
           ctx.workspace.head_commit() + kMemoSeparator + patch;
  }
  /// (Under mu_.)
  void remember(std::string key, Remembered r) {
    if (passed_.size() >= kMaxRemembered) {
      auto oldest = std::min_element(passed_.begin(), passed_.end(), [](const auto& x, const auto& y) { return x.second.seq < y.second.seq; });
      passed_.erase(oldest);
    }
    r.seq = ++seq_;
    passed_.insert_or_assign(std::move(key), std::move(r));
  }
  /// (Under mu_.) Run ids grow: the smallest is the oldest run, the one most likely over.
  void remember_failed_run(std::uint64_t run) {
    if (failed_runs_.size() >= kMaxFailedRuns) failed_runs_.erase(failed_runs_.begin());
    failed_runs_.insert(run);
  }
  std::optional<Remembered> recall(const std::string& key, bool take) {
    if (key.empty()) return std::nullopt;
    std::lock_guard lock(mu_);
    auto it = passed_.find(key);
    if (it == passed_.end()) return std::nullopt;
    if (!take) return it->second;
    Remembered r = std::move(it->second);
    passed_.erase(it);
    return r;
  }

  /// The checks read the files with patterns: on a deep stack (core/deep_stack.hpp; a host may
  /// call validate() or check() outside the pipeline). A pattern built from the files' text that
  /// std::regex cannot compile (too many states) leaves the candidate unverified, never passed; so
  /// does any other exception of the checks (out of memory), as in check_test_integrity.
  template <class F>
  static Expected<ValidationReport> guarded(F&& f) {
    try {
      return detail::with_deep_stack(f);
    } catch (const rx::regex_error& e) {
      ValidationReport rep;
      return failed(rep, "unverified",
                    std::string("the candidate's files could not be read with the validation's patterns (") + e.what() +
                        ": a name or an expression too long for them)");
    } catch (const std::exception& e) {
      ValidationReport rep;
      return failed(rep, "unverified", std::string("the validation failed while reading the candidate (") + e.what() + ")");
    }
  }

  /// (`fresh_root`, when given: where the fresh checkout was.)
  Expected<ValidationReport> validate_here(RepairContext& ctx, std::string* fresh_root = nullptr) {
    ValidationReport rep;
    auto patch = start(ctx, rep);
    if (!patch) return unexpected(patch.error());
    if (!rep.reason.empty()) return rep;
    if (patch->empty()) return failed(rep, "empty_patch", "the candidate changes nothing");
    if (!ctx.workspaces) return fail(Errc::invalid_argument, "validation needs a workspace provider for a fresh checkout");

    RepairRequest at_head = ctx.request;
    at_head.change.head_commit = ctx.workspace.head_commit();
    auto fresh = ctx.workspaces->acquire(at_head, ctx.cancel);
    if (!fresh) return unexpected(fresh.error());
    Workspace& ws = **fresh;
    if (fresh_root) *fresh_root = ws.root().string();
    if (ws.head_commit() != ctx.workspace.head_commit())
      return fail(Errc::internal, "the fresh checkout is at " + ws.head_commit() + ", not " + ctx.workspace.head_commit());
    if (auto r = ws.make_pristine(); !r) return unexpected(r.error());
    if (auto r = ws.apply_patch(*patch); !r) {
      if (r.error().code == Errc::conflict) return failed(rep, "patch_does_not_apply", r.error().message);
      return unexpected(r.error());
    }
    // The checkout now holds exactly head + the patch: git shows the same diff.
    auto again = ws.diff();
    if (!again) return unexpected(again.error());
    if (*again != *patch)
      return failed(rep, "patch_mismatch", "the patch applied to a fresh checkout does not reproduce the candidate");
    rep.evidence.fresh_checkout = true;
    // The wider set's baseline runs in this same checkout, made pristine again (the patch removed).
    auto head = [&ws]() -> Expected<Workspace*> {
      if (auto r = ws.make_pristine(); !r) return unexpected(r.error());
      return &ws;
    };
    return run_checks(ctx, ws.root(), *patch, rep, head);
  }

  Expected<ValidationReport> check_here(RepairContext& ctx) {
    ValidationReport rep;
    auto patch = start(ctx, rep);
    if (!patch) return unexpected(patch.error());
    if (!rep.reason.empty()) return rep;
    // The baseline needs a pristine head beside the loop's tree: a second workspace from the pool.
    std::unique_ptr<Workspace> other;
    auto head = [&]() -> Expected<Workspace*> {
      if (!ctx.workspaces) return fail(Errc::unsupported, "no workspace provider for a checkout of the head");
      if (!other) {
        RepairRequest at_head = ctx.request;
        at_head.change.head_commit = ctx.workspace.head_commit();
        auto w = ctx.workspaces->acquire(at_head, ctx.cancel);
        if (!w) return unexpected(w.error());
        other = std::move(*w);
      }
      if (auto r = other->make_pristine(); !r) return unexpected(r.error());
      return other.get();
    };
    return run_checks(ctx, ctx.workspace.root(), *patch, rep, head);
  }

 private:
  /// The candidate's patch; `rep` gets a reason when there is nothing to validate with.
  static Expected<std::string> start(RepairContext& ctx, ValidationReport& rep) {
    if (ctx.request.commands.test.empty()) {
      failed(rep, "no_test_command", "the request has no test command to validate with");
      return std::string();
    }
    auto text = candidate_patch(ctx);
    if (!text || text->empty()) return text;
    // The patch rules first (the pipeline applies them before validate(); the loop's check() and a
    // host's call would otherwise run tests on, and read, a patch no rule lets through: a symlink,
    // megabytes of generated test code).
    // (The pipeline hands its parsed patch in ctx.patch; a host's call may not have checked it.)
    std::optional<Patch> parsed;
    if (!ctx.patch) {
      auto p = parse_patch(*text);
      if (!p) return unexpected(p.error());
      parsed = std::move(*p);
    }
    if (auto problems = check_patch(ctx.patch ? *ctx.patch : *parsed); !problems.empty())
      failed(rep, problems.front().reason, "the patch breaks the patch rules: " + detail::join_patch_problems(problems));
    return text;
  }

  static ValidationReport failed(ValidationReport& rep, std::string reason, std::string message) {
    rep.passed = false;
    rep.reason = std::move(reason);
    rep.message = std::move(message);
    rep.evidence.kind.clear();
    return rep;
  }

  /// A pristine checkout of the change head without the patch (for the wider set's baseline), as a
  /// workspace (to apply part of the patch to) or its root.
  using HeadWorkspace = std::function<Expected<Workspace*>()>;
  using HeadCheckout = std::function<Expected<std::filesystem::path>()>;
  /// The files of the developer's change outside tests, read on first use (change_code_files).
  using ChangeCode = std::function<Expected<const std::vector<std::string>*>()>;

  Expected<ValidationReport> run_checks(RepairContext& ctx, const std::filesystem::path& root, const std::string& patch,
                                        ValidationReport& rep, const HeadWorkspace& head_ws) {
    const HeadCheckout head = [&]() -> Expected<std::filesystem::path> {
      auto w = head_ws();
      if (!w) return unexpected(w.error());
      return (*w)->root();
    };
    auto& ev = rep.evidence;
    const auto& req = ctx.request;
    if (!req.commands.build.empty()) {
      auto b = detail::run_command(root, req.commands.build, req, ctx.cancel, ctx.sandbox);
      if (!b) return unexpected(b.error());
      if (b->cancelled) return fail(Errc::cancelled, "validation cancelled");
      ctx.state.last_build_log = b->output;
      ev.build_ok = b->ok();
      if (!ev.build_ok)
        return failed(rep, "build_failed",
                      "the build fails: " + reports::failure_excerpt(reports::strip_ansi(b->output), 20, 2000));
    } else {
      ev.build_ok = true;
    }

    detail::ValueTargets values;  // (what value sensitivity moved: fail to pass compares their answers)
    detail::AssertionCheck stand_ins;  // (functions the patched tests stopped calling, their code edited)
    FixCode fix_code;                  // (and the fix's files outside tests, to compare them on)
    // The cases of each passing requested test, skipped or not (checked against the head below).
    std::vector<std::pair<std::string, std::string>> skipped;
    const auto tests_started = std::chrono::system_clock::now();
    for (int round = 0; round <= opt_.flaky_reruns; ++round) {
      ev.tests.clear();
      ev.replacements.clear();
      auto verdict = failing_tests(ctx, root, patch, ev, round == 0 ? "failing" : "rerun", skipped);
      if (!verdict) return unexpected(verdict.error());
      if (!verdict->passed) {
        if (round > 0 && verdict->reason == "failing_tests_still_fail")
          return failed(rep, "flaky_fix", "a re-run failed: " + verdict->message);
        return failed(rep, verdict->reason, verdict->message);
      }
    }
    ev.failing_tests_pass = true;
    // The functions the near check judges (read now, no run): when the values check below records
    // them too, its runs make the near check's calls as well (detail::record_fix_values).
    detail::NearCalls near;
    const bool near_check = opt_.check_fail_to_pass && opt_.check_near_tested_inputs;
    if (near_check) {
      auto n = detail::near_targets(ctx, root, patch, ev.replacements);
      if (!n) return unexpected(n.error());
      near = std::move(*n);
    }
    // The requested tests' assertions must have run (issue 11: a check that cannot run checks nothing).
    ev.assertion_check = "off";
    if (opt_.check_assertion_execution) {
      auto ran = detail::check_assertions_ran(ctx, root, patch, tests_started, ev.replacements);
      if (!ran) return unexpected(ran.error());
      ev.runs.insert(ev.runs.end(), ran->runs.begin(), ran->runs.end());
      ev.assertion_check = ran->checked ? "runtime" : ran->note;
      if (!ran->reason.empty()) return failed(rep, ran->reason, ran->message);
      // A test that pinned a call of the code must still depend on its value (a relation between
      // its results, a settled status or a product with zero would not).
      auto sensitive = detail::check_value_sensitivity(ctx, root, patch, ev.replacements);
      if (!sensitive) return unexpected(sensitive.error());
      ev.runs.insert(ev.runs.end(), sensitive->runs.begin(), sensitive->runs.end());
      if (!sensitive->reason.empty()) return failed(rep, sensitive->reason, sensitive->message);
      // (Functions the patched tests stopped calling whose code the patch edits: judged at the end.)
      stand_ins.values.python = sensitive->values.python;
      stand_ins.stand_ins = sensitive->stand_ins;
      // (Read for the stand-ins and for fail to pass's values, which makes dropped calls on it.)
      if (!stand_ins.stand_ins.empty() || (opt_.check_fail_to_pass && !sensitive->values.targets.empty())) {
        auto kept = fix_code_files(root, patch);  // (the fix's code, while this checkout holds it)
        if (!kept) return unexpected(kept.error());
        fix_code = std::move(*kept);
      }
      // (Now, while this checkout holds the fix: fail to pass compares these answers at the end.)
      values = sensitive->values;
      if (opt_.check_fail_to_pass)
        if (auto r = detail::record_fix_values(ctx, values, root, ev.runs, near_check ? &near : nullptr); !r) return unexpected(r.error());
    }
    // (Also while this checkout holds the fix: the calls near the tested ones, compared at the end;
    // made above already when the values check could share its runs.)
    if (near_check)
      if (auto n = detail::record_near_calls(ctx, near, root, ev.runs); !n) return unexpected(n.error());

    // The patch's own test files, run while this checkout holds the patch (judged below, after the
    // wider set: a baseline takes this tree back to the head).
    auto patch_tests = patch_tests_run(ctx, root, patch, ev);
    if (!patch_tests) return unexpected(patch_tests.error());
    if (!req.commands.wider_test.empty()) {
      auto run = detail::observe_tests(root, req, req.failure.failing_tests, ctx.cancel, ctx.sandbox, "wider",
                                       req.commands.wider_test);
      if (!run) return unexpected(run.error());
      ev.runs.push_back(run->run);
      if (run->run.timed_out) return failed(rep, "regression", "the wider test set timed out");
      if (!run->run.stopped_by.empty())
        return failed(rep, "regression", "the sandbox stopped the wider test set: " + run->run.stopped_by);
      if (!run->summary_problem.empty()) return failed(rep, "unverified", "the wider test set: " + run->summary_problem);
      // A requested test (or its replacement) that passed in the targeted run but fails beside the
      // others depends on the order or on other tests: not fixed, whatever it did alone.
      std::vector<std::string> failures, order_dependent;
      for (const auto& f : run->run.failed) {
        const bool requested =
            reports::contains_test(req.failure.failing_tests, f) ||
            std::any_of(ev.replacements.begin(), ev.replacements.end(),
                        [&](const TestReplacement& x) { return reports::contains_test(x.new_ids, f); });
        auto& into = requested ? order_dependent : failures;
        if (std::find(into.begin(), into.end(), f) == into.end()) into.push_back(f);
      }
      if (!order_dependent.empty())
        return failed(rep, "order_dependent",
                      absl::StrJoin(order_dependent, ", ") +
                          " passed when run alone but failed in the wider test set: the fix depends on test order or "
                          "on which other tests run");
      std::vector<std::string> regressions = failures;
      std::string baseline_note;
      if (!failures.empty()) {
        // Failures that were there before the fix are not its regressions: the head's own results
        // for just these tests decide (lazily: only when the fix's run shows failures).
        auto pre = preexisting(ctx, head, failures, selectors(*run, failures), ev, baseline_note);
        if (!pre) return unexpected(pre.error());
        regressions.clear();
        for (const auto& f : failures) {
          if (pre->count(f)) ev.preexisting_failures.push_back(f);
          else regressions.push_back(f);
        }
      }
      if (!regressions.empty())
        return failed(rep, "regression",
                      "the fix breaks " + absl::StrJoin(regressions, ", ") + (baseline_note.empty() ? "" : " (" + baseline_note + ")"));
      // A failing exit is explained only by per-test results that are all pre-existing failures.
      const bool explained = run->readable && !failures.empty() && ev.preexisting_failures.size() == failures.size();
      if (run->run.exit_code != 0 && !explained)
        return failed(rep, "regression", "the wider test command exited with " + std::to_string(run->run.exit_code));
    }
    ev.wider_tests_pass = true;
    // The developer's change outside tests (a git diff of base..head), read once for the checks
    // below, when the first of them needs it.
    std::optional<std::vector<std::string>> change_code_read;
    const ChangeCode change_code = [&]() -> Expected<const std::vector<std::string>*> {
      if (!change_code_read) {
        auto c = change_code_files(ctx);
        if (!c) return unexpected(c.error());
        change_code_read = std::move(*c);
      }
      return &*change_code_read;
    };
    if (*patch_tests) {
      auto judged = patch_tests_judged(ctx, head, **patch_tests, change_code, ev);
      if (!judged) return unexpected(judged.error());
      if (*judged) return failed(rep, (*judged)->reason, (*judged)->message);
    }
    // Last: it checks out the head without the patch in the same tree.
    auto hidden = skipped_failing_cases(ctx, head, skipped, ev);
    if (!hidden) return unexpected(hidden.error());
    if (*hidden) return failed(rep, (*hidden)->reason, (*hidden)->message);
    // A function the patched tests stopped calling, whose code the patch edits: the edit must
    // change what it answers the old tests (detail::check_stand_ins).
    if (!stand_ins.stand_ins.empty()) {
      auto s = stand_ins_answer_alike(ctx, head_ws, fix_code, stand_ins, change_code, ev);
      if (!s) return unexpected(s.error());
      if (*s) return failed(rep, (*s)->reason, (*s)->message);
    }
    if (opt_.check_fail_to_pass) {
      auto without = tests_without_the_fix(ctx, head_ws, patch, change_code, ev, values, fix_code, near);
      if (!without) return unexpected(without.error());
      if (*without) return failed(rep, (*without)->reason, (*without)->message);
      auto special = near_the_tests(ctx, head_ws, near, change_code, ev);
      if (!special) return unexpected(special.error());
      if (*special) return failed(rep, (*special)->reason, (*special)->message);
    }
    rep.passed = true;
    return rep;
  }

  /// What a run of the patch's test files showed (patch_tests_run), judged later against the head
  /// (patch_tests_judged): the fix's checkout must hold the patch for the run, and the head's
  /// baseline takes the same tree back.
  struct PatchTests {
    std::vector<std::string> ids;       ///< what ran: the files, or the Go/GoogleTest tests they define
    std::vector<std::string> at_head;   ///< of them, what the head has too (files the patch only modifies)
    std::vector<std::string> added;     ///< Go/GoogleTest: the tests the patch adds (none of that name in the file at the head)
    std::vector<std::string> failures;  ///< each failing or erring result of the fix's run (a name twice: two results)
    std::map<std::string, int> results;  ///< how many results of each name the fix's run showed, any outcome
    std::string problem;                ///< the run cannot be judged: unverified
  };

  /// Every test file the patch adds or changes runs, not only the requested tests: a partial fix
  /// must not move the still-failing check out of the requested test into another test or file
  /// the validation would not run (issue 11, the moved pin). Where the test command selects files
  /// (file_selection: pytest, jest, vitest, node --test, tape) those files run, each a test file
  /// by runnable_test_file; for go test and GoogleTest, the tests the patch's test files define.
  /// Nothing to do when the command selects no tests (its one run ran all of them) or selects
  /// them otherwise (by name, `-k`, a filter), or when the patch changes no such file. A file
  /// whose name a runner reads as a pattern (`[id].test.js`: jest's regex, tape's glob) or that
  /// the runner says it did not find cannot be shown to run: unverified.
  Expected<std::optional<PatchTests>> patch_tests_run(RepairContext& ctx, const std::filesystem::path& root, const std::string& patch_text,
                                                      Evidence& ev) {
    const auto& req = ctx.request;
    const std::string& tmpl = req.commands.test;
    const auto runner = detail::plan_runner(tmpl, root / ".flowagent-evidence", root).runner;
    const FileSelection selection = file_selection(tmpl, runner);
    if (selection == FileSelection::none) return std::nullopt;
    auto patch = parse_patch(patch_text);
    if (!patch) return unexpected(patch.error());
    auto tree = detail::SandboxFs::open(root);
    if (!tree) return unexpected(tree.error());
    const std::string folder = command_folder(tmpl);
    PatchTests out;
    std::vector<std::string> patterns;  // (files named like patterns)
    for (const auto& f : patch->files) {
      if (f.status == PatchStatus::deleted || !test_side(f)) continue;
      if (!folder.empty() && f.new_path.rfind(folder, 0) != 0) continue;  // (outside the folder the command runs in)
      std::string path = f.new_path.substr(folder.size());
      if (path.empty()) continue;
      if (selection == FileSelection::go_functions && !path.ends_with("_test.go")) continue;
      if (selection == FileSelection::gtest_cases && !path.ends_with(".cc") && !path.ends_with(".cpp") && !path.ends_with(".cxx"))
        continue;
      auto content = tree->read(f.new_path, 8u << 20);
      if (!content) continue;  // (not a regular file of the checkout: the patch rules say why elsewhere)
      if (selection == FileSelection::go_functions || selection == FileSelection::gtest_cases) {
        auto tests_of = [&](std::string_view text) { return selection == FileSelection::go_functions ? go_test_functions(text) : gtest_cases(text); };
        std::vector<std::string> before;  // (the file at the head: a test named there is not added)
        if (f.status != PatchStatus::added) {
          auto old = detail::read_file_at(detail::workspace_repo(ctx.workspace), ctx.workspace.head_commit(), f.old_path, ctx.cancel);
          if (!old && old.error().code == Errc::cancelled) return unexpected(old.error());
          if (old) before = tests_of(*old);
        }
        for (const auto& name : tests_of(*content)) {
          add_unique(out.ids, name);
          add_unique(out.at_head, name);  // (a test the head lacks runs nothing there)
          // (go test runs an Example only when it has an output comment: it need not run)
          if (std::find(before.begin(), before.end(), name) == before.end() && !name.starts_with("Example")) add_unique(out.added, name);
        }
        continue;
      }
      if (!runnable_test_file(path, *content, runner)) continue;
      if (path.find_first_of("[](){}*?+^$|\\!") != std::string::npos) {
        add_unique(patterns, path);
        continue;
      }
      if (path.front() == '-' || path.front() == '@' || path.front() == '+') path = "./" + path;  // (a file, not an option)
      add_unique(out.ids, path);
      if (f.status == PatchStatus::modified) add_unique(out.at_head, path);
    }
    if (!patterns.empty()) {
      out.problem = "the patch's test files " + absl::StrJoin(patterns, ", ") +
                    " have names a test runner reads as a pattern (a glob or a regular expression), so they cannot be shown to run";
      return out;
    }
    if (out.ids.empty()) return std::nullopt;
    const std::string what = "the patch's test " + std::string(selection == FileSelection::files ? "files " : selection == FileSelection::gtest_cases ? "cases " : "functions ") +
                             first_few(out.ids, 5);
    auto run = detail::observe_tests(root, req, out.ids, ctx.cancel, ctx.sandbox, "patch-tests");
    if (!run) {
      if (run.error().code == Errc::cancelled) return unexpected(run.error());
      out.problem = what + " could not be run: " + run.error().message;
      return out;
    }
    ev.runs.push_back(run->run);
    if (run->run.timed_out) out.problem = what + " timed out";
    else if (!run->run.stopped_by.empty()) out.problem = "the sandbox stopped " + what + ": " + run->run.stopped_by;
    else if (!run->summary_problem.empty()) out.problem = what + ": " + run->summary_problem;
    if (!out.problem.empty()) return out;
    for (const auto& t : run->tests) {
      ++out.results[t.id];
      if (t.outcome == Outcome::failed || t.outcome == Outcome::error) out.failures.push_back(t.id);
    }
    const bool go_or_gtest = selection != FileSelection::files;  // (a name of another package or binary runs nothing here)
    if (selection == FileSelection::files && runner_says_not_found(*run))
      out.problem = "the runner did not find " + what + " (they make test calls, yet nothing of them ran)";
    else if (out.failures.empty() && run->run.exit_code != 0 && !(go_or_gtest && runner_says_not_found(*run)))
      out.problem = what + " exited with " + std::to_string(run->run.exit_code) +
                    (run->readable ? " though no test failed" : " and their results could not be read");
    else if (!run->readable && !(go_or_gtest && runner_says_not_found(*run)) && !no_tap_tests(*run))
      out.problem = what + " ran, but their results could not be read";
    if (!out.problem.empty() || !go_or_gtest) return out;
    // A Go function or GoogleTest case of another package or binary runs nothing here, but one
    // the patch adds must run: a check moved out of the requested test into a new test in a file
    // the build does not compile (or a build tag leaves out, or another binary holds) would
    // otherwise never run at all.
    std::vector<std::string> shown, not_run;
    for (const auto& t : run->tests) shown.push_back(t.id);
    for (const auto& name : out.added) {
      const bool ran = name.find('*') != std::string::npos
                           ? std::any_of(shown.begin(), shown.end(), [&](const std::string& id) { return fnmatch(name.c_str(), id.c_str(), 0) == 0; })
                           : reports::contains_test(shown, name);
      if (!ran) not_run.push_back(name);
    }
    if (!not_run.empty())
      out.problem = "the test " + std::string(selection == FileSelection::gtest_cases ? "cases " : "functions ") + first_few(not_run, 5) +
                    " that the patch adds did not run with the test command (a file the build does not compile, a build tag that "
                    "leaves it out, another test binary or package): what they check cannot be shown to pass";
    return out;
  }

  /// Failures in the patch's test files (patch_tests_run) that the head did not have fail the
  /// validation ("patch_tests_fail"): a test the patch adds, or one of a file it changes that
  /// passed at the head without the patch. A failure the head had too is pre-existing, as in the
  /// wider set: the same name failing as many times there, with no more results of that name in
  /// the fix's run than at the head (tape names tests freely and says no file: a new test named
  /// like one failing at the head, the requested one say, is another test). Never one named like a
  /// requested test or its replacement. When the head's results cannot be had, every failure counts.
  Expected<std::optional<Outcome2>> patch_tests_judged(RepairContext& ctx, const HeadCheckout& head, const PatchTests& pt,
                                                       const ChangeCode& change_code, Evidence& ev) {
    if (!pt.problem.empty()) return std::optional<Outcome2>(Outcome2{false, "unverified", pt.problem});
    if (pt.failures.empty()) return std::nullopt;
    // One baseline: how many results of each name failed, and how many there were; whether some
    // failure there is no test the fix's run shows (the head could not load a file or package:
    // a collection, import or compile error hides what its tests would do).
    struct FileBaseline {
      std::map<std::string, int> failed, results;
      bool blind = false;
      std::string note;
    };
    auto baseline_at = [&](const std::filesystem::path& root, const std::string& purpose, const std::string& where) -> Expected<FileBaseline> {
      FileBaseline b;
      auto built = builds_in(ctx, root);
      if (!built) return unexpected(built.error());
      if (!*built) {
        b.note = " (no baseline: the build fails " + where + ")";
        return b;
      }
      auto run = detail::observe_tests(root, ctx.request, pt.at_head, ctx.cancel, ctx.sandbox, purpose);
      if (!run) return unexpected(run.error());
      ev.runs.push_back(run->run);
      if (run->run.timed_out || !run->summary_problem.empty()) {
        b.note = " (the results " + where + " could not be read)";
        return b;
      }
      for (const auto& t : run->tests) {
        ++b.results[t.id];
        if (t.outcome != Outcome::failed && t.outcome != Outcome::error) continue;
        ++b.failed[t.id];
        if (!pt.results.count(t.id)) b.blind = true;
      }
      if (run->tests.empty() && run->run.exit_code != 0) b.blind = true;
      return b;
    };
    auto requested = [&](const std::string& id) {
      return reports::contains_test(ctx.request.failure.failing_tests, id) ||
             std::any_of(ev.replacements.begin(), ev.replacements.end(),
                         [&](const TestReplacement& x) { return reports::contains_test(x.new_ids, id); });
    };
    // The failures a baseline does not explain: the same name failing as many times there, with
    // no more results of that name in the fix's run than there.
    auto unexplained = [&](const std::vector<std::string>& failures, FileBaseline b) {
      std::vector<std::string> left;
      for (const auto& f : failures) {
        auto at = b.failed.find(f);
        const bool no_new_of_that_name = pt.results.count(f) && pt.results.at(f) <= b.results[f];
        if (!requested(f) && no_new_of_that_name && at != b.failed.end() && at->second > 0) {
          --at->second;
          add_unique(ev.preexisting_failures, f);
          continue;
        }
        left.push_back(f);
      }
      return left;
    };
    std::string note;
    std::vector<std::string> fresh = pt.failures;
    if (!pt.at_head.empty()) {
      auto root = head();
      if (!root) {
        note = " (no baseline at the head: " + root.error().message + ")";
      } else {
        auto at_head = baseline_at(*root, "patch-tests-baseline", "at the head");
        if (!at_head) return unexpected(at_head.error());
        note = at_head->note;
        fresh = unexplained(fresh, *at_head);
        // The head could not load some of the files (the change renamed what they import): what
        // their tests do without the change tells instead, on the head's tests with the change's
        // code files as at the base.
        if (!fresh.empty() && at_head->blind) {
          auto change = change_code();
          if (!change) return unexpected(change.error());
          if (!(*change)->empty()) {
            if (auto r = put_files(ctx, *root, **change, ctx.request.change.base_commit); !r) return unexpected(r.error());
            auto before = baseline_at(*root, "patch-tests-before-change", "before the change");
            if (!before) return unexpected(before.error());
            fresh = unexplained(fresh, *before);
            note += " nor, where the head could not load them, before the change" + before->note;
          }
        }
      }
    }
    std::vector<std::string> distinct;
    for (const auto& f : fresh) add_unique(distinct, f);
    if (distinct.empty()) return std::nullopt;
    return std::optional<Outcome2>(Outcome2{
        false, "patch_tests_fail",
        "tests in the files the patch adds or changes fail with it: " +
            first_few(distinct, 5) + " (they did not fail at the head without the patch" + note +
            "); a fix leaves no test it touches failing"});
  }


  /// The files of the developer's change outside tests (base..head).
  static Expected<std::vector<std::string>> change_code_files(RepairContext& ctx) {
    auto changed = detail::changed_files(detail::workspace_repo(ctx.workspace), ctx.request.change.base_commit, ctx.workspace.head_commit());
    if (!changed) return unexpected(changed.error());
    std::vector<std::string> out;
    for (const auto& c : *changed)
      if (!is_test_path(c.path)) out.push_back(c.path);
    return out;
  }

  /// Writes `paths` into the checkout at `root` as they are in `commit` (removing those it lacks).
  static Expected<void> put_files(RepairContext& ctx, const std::filesystem::path& root, const std::vector<std::string>& paths,
                                  const std::string& commit) {
    const auto repo = detail::workspace_repo(ctx.workspace);
    auto tree = detail::SandboxFs::open(root);
    if (!tree) return unexpected(tree.error());
    auto files = detail::commit_files(repo, commit, ctx.cancel);
    if (!files) return unexpected(files.error());
    const std::set<std::string> existed(files->begin(), files->end());
    for (const auto& path : paths) {
      if (!existed.count(path)) {
        if (auto r = tree->remove(path); !r && r.error().code != Errc::not_found) return unexpected(r.error());
        continue;
      }
      auto text = detail::read_file_at(repo, commit, path, ctx.cancel);
      if (!text) return unexpected(text.error());
      if (auto r = tree->write(path, *text); !r) return unexpected(r.error());
    }
    return {};
  }

  /// The patch's files outside tests (path, text; nullopt: deleted).
  using FixCode = std::vector<std::pair<std::string, std::optional<std::string>>>;

  /// Writes the fix's code (`fix_code`) into the checkout at `root` (removing what it deleted).
  static Expected<void> put_fix_code(const std::filesystem::path& root, const FixCode& fix_code) {
    auto tree = detail::SandboxFs::open(root);
    if (!tree) return unexpected(tree.error());
    for (const auto& [path, text] : fix_code) {
      if (!text) {
        if (auto r = tree->remove(path); !r && r.error().code != Errc::not_found) return unexpected(r.error());
      } else if (auto r = tree->write(path, *text); !r) {
        return unexpected(r.error());
      }
    }
    return {};
  }

  /// A file of the patch on the tests' side: a test path, or renamed from one.
  static bool test_side(const PatchFile& f) { return is_test_path(f.path()) || (f.status == PatchStatus::renamed && is_test_path(f.old_path)); }

  /// The patch's files outside tests as the checkout at `root` holds them (nullopt: deleted).
  static Expected<FixCode> fix_code_files(const std::filesystem::path& root, const std::string& patch_text) {
    auto patch = parse_patch(patch_text);
    if (!patch) return unexpected(patch.error());
    auto tree = detail::SandboxFs::open(root);
    if (!tree) return unexpected(tree.error());
    FixCode out;
    for (const auto& f : patch->files) {
      if (test_side(f)) continue;
      if (f.status == PatchStatus::renamed) out.emplace_back(f.old_path, std::nullopt);
      if (f.status == PatchStatus::deleted) {
        out.emplace_back(f.path(), std::nullopt);
        continue;
      }
      auto text = tree->read(f.path(), 16u << 20);
      if (!text) return unexpected(text.error());
      out.emplace_back(f.path(), std::move(*text));
    }
    return out;
  }

  /// detail::check_stand_ins on a checkout of the head: the change's files and the fix's code are
  /// put in place by writing them (never through git's index, which the writes leave stale).
  Expected<std::optional<Outcome2>> stand_ins_answer_alike(RepairContext& ctx, const HeadWorkspace& head_ws, const FixCode& fix_code,
                                                           const detail::AssertionCheck& check, const ChangeCode& change_code,
                                                           Evidence& ev) {
    if (fix_code.empty()) return std::nullopt;
    auto ws = head_ws();
    if (!ws) return std::optional<Outcome2>(Outcome2{false, "unverified", "no checkout of the head to compare the answers of a function the tests no longer call on: " + ws.error().message});
    auto change = change_code();
    if (!change) return unexpected(change.error());
    std::vector<std::string> paths = **change;  // (and the fix's files outside tests)
    for (const auto& [path, text] : fix_code)
      if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
    const std::filesystem::path root = (*ws)->root();
    auto v = detail::check_stand_ins(
        ctx, check, root, [&] { return put_files(ctx, root, paths, ctx.request.change.base_commit); },
        [&] { return put_files(ctx, root, paths, ctx.workspace.head_commit()); },
        [&] { return put_fix_code(root, fix_code); });
    if (!v) return unexpected(v.error());
    ev.runs.insert(ev.runs.end(), v->runs.begin(), v->runs.end());
    if (!v->reason.empty()) return std::optional<Outcome2>(Outcome2{false, v->reason, v->message});
    return std::nullopt;
  }

  /// Behaviour near the tested inputs (detail::check_near_calls), on a pristine checkout of the head
  /// (none when the values check's runs made the calls already: near.driven_at_head()).
  Expected<std::optional<Outcome2>> near_the_tests(RepairContext& ctx, const HeadWorkspace& head_ws, const detail::NearCalls& near,
                                                   const ChangeCode& change_code, Evidence& ev) {
    if (near.near.empty()) return std::nullopt;
    std::filesystem::path root;
    const std::vector<std::string>* put_back = nullptr;
    if (!near.driven_at_head()) {
      auto ws = head_ws();
      if (!ws) return std::optional<Outcome2>(Outcome2{false, "unverified", "no checkout of the head to make the calls near the tested ones on: " + ws.error().message});
      root = (*ws)->root();
      auto change = change_code();
      if (!change) return unexpected(change.error());
      put_back = *change;
    }
    auto v = detail::check_near_calls(
        ctx, near, root, [&] { return put_files(ctx, root, *put_back, ctx.request.change.base_commit); },
        [&] { return put_files(ctx, root, *put_back, ctx.workspace.head_commit()); });
    if (!v) return unexpected(v.error());
    ev.runs.insert(ev.runs.end(), v->runs.begin(), v->runs.end());
    if (!v->reason.empty()) return std::optional<Outcome2>(Outcome2{false, v->reason, v->message});
    return std::nullopt;
  }

  /// Fail to pass (issue 11): the requested tests, as the patch leaves them, must not pass on every
  /// version of the code. With the patch's test changes alone applied to the head, they run on the
  /// head's code (a patch that also changes code: without its code changes) and on the code before
  /// the developer's change (the change's files outside tests put back as at the base). Passing on
  /// both, they do not tell the fix apart: "tests_pass_without_the_fix" (the patch changes code: its
  /// code change is not what makes them pass) or "tests_pass_without_the_change" (tests only: they
  /// no longer check what the change did). Failing on either is the honest case: a code fix whose
  /// tests fail on the broken code, an expectation that follows an intended change (it fails on the
  /// code before it), a test fix shipped with unrelated code edits. A patch of tests only passes on
  /// the head's code by definition, so only the second run is made for it. Not applicable when the
  /// patch changes no test file. A run that fails, errs, times out or cannot be read is no pass.
  Expected<std::optional<Outcome2>> tests_without_the_fix(RepairContext& ctx, const HeadWorkspace& head_ws, const std::string& patch_text,
                                                          const ChangeCode& change_code, Evidence& ev,
                                                          const detail::ValueTargets& values, const FixCode& fix_code,
                                                          detail::NearCalls& near) {
    const auto& req = ctx.request;
    auto patch = parse_patch(patch_text);
    if (!patch) return unexpected(patch.error());
    std::vector<PatchFile> test_files;
    bool code = false;
    for (const auto& f : patch->files) {
      if (test_side(f)) test_files.push_back(f);
      else code = true;
    }
    if (test_files.empty()) return std::nullopt;
    auto change = change_code();
    if (!change) return unexpected(change.error());
    const std::vector<std::string>& put_back = **change;  // the change's own files outside tests, as they were at the base
    if (!code && put_back.empty()) return std::nullopt;  // (tests only, and the change touched only tests)
    // The tests the fix's run passed: the requested ones, or what replaced them. A replacement is
    // named as the runner's report names it (`tests.test_calc.test_add_identity`), which the test
    // command may not take: its enclosing scope (the file or target the fix was validated at) runs.
    std::vector<std::string> ids, run_ids;
    bool scoped = false;  // (a replacement runs at its scope: the scope's other tests are not the question)
    for (const auto& id : req.failure.failing_tests) {
      auto rep = std::find_if(ev.replacements.begin(), ev.replacements.end(), [&](const TestReplacement& x) { return x.old_id == id; });
      if (rep == ev.replacements.end()) {
        add_unique(ids, id);
        add_unique(run_ids, id);
        continue;
      }
      for (const auto& n : rep->new_ids) add_unique(ids, n);
      add_unique(run_ids, rep->scope);
      scoped = true;
    }
    if (ids.empty()) return std::nullopt;
    auto stop = [](std::string reason, std::string message) {
      return std::optional<Outcome2>(Outcome2{false, std::move(reason), std::move(message)});
    };
    const std::string at_head = "the head's code without the patch's code changes";
    const std::string at_base = "the code before the change (" + first_few(put_back, 3) + " as at the base)";
    // The change's files outside tests as they were at the base, in the checkout at `root`.
    // (`put_back_into`; put_files_into with the head commit writes the head's versions again.)
    auto put_files_into = [&](const std::filesystem::path& root, const std::string& commit) { return put_files(ctx, root, put_back, commit); };
    auto put_back_into = [&](const std::filesystem::path& root) { return put_files_into(root, req.change.base_commit); };
    // A run failed: the tests tell the versions apart, unless the answers of the functions they
    // pinned do not (detail::check_values_tell_apart: the failure then comes from elsewhere).
    auto by_values = [&]() -> Expected<std::optional<Outcome2>> {
      if (values.targets.empty()) return std::nullopt;
      auto ws = head_ws();
      if (!ws) return stop("unverified", "no checkout of the head to compare the tests' calls on: " + ws.error().message);
      const std::filesystem::path root = (*ws)->root();
      auto v = detail::check_values_tell_apart(
          ctx, values, root, [&] { return put_back_into(root); }, [&] { return put_files_into(root, ctx.workspace.head_commit()); }, code,
          [&] { return put_fix_code(root, fix_code); }, &near);
      if (!v) return unexpected(v.error());
      ev.runs.insert(ev.runs.end(), v->runs.begin(), v->runs.end());
      if (!v->reason.empty()) return stop(v->reason, v->message);
      if (v->judged.empty()) return std::nullopt;
      // The calls that tell the versions apart must be checked: head + the whole patch once more.
      auto again = head_ws();
      if (!again) return stop("unverified", "no checkout of the head to run the patch's tests on: " + again.error().message);
      if (auto r = (*again)->apply_patch(patch_text); !r)
        return stop("unverified", "the patch does not apply again to the head: " + r.error().message);
      const std::filesystem::path fix_root = (*again)->root();
      auto built = builds_in(ctx, fix_root);
      if (!built) return unexpected(built.error());
      if (!*built) return stop("unverified", "the fix no longer builds in a fresh checkout");
      auto checked = detail::check_telling_calls_checked(ctx, values, fix_root, v->judged, v->keep);
      if (!checked) return unexpected(checked.error());
      ev.runs.insert(ev.runs.end(), checked->runs.begin(), checked->runs.end());
      if (!checked->reason.empty()) return stop(checked->reason, checked->message);
      return std::nullopt;
    };
    // One run of the patch's tests on the head's checkout; `base`: with the change's files put back.
    // Whether every one of them passed, or the outcome that ends the validation (unverified).
    auto passes_on = [&](bool base) -> Expected<std::variant<bool, Outcome2>> {
      const std::string& where = base ? at_base : at_head;
      auto ws = head_ws();
      if (!ws) return *stop("unverified", "no checkout of the head to run the patch's tests on " + where + ": " + ws.error().message);
      if (auto r = (*ws)->apply_patch(render_patch(test_files)); !r)
        return *stop("unverified", "the patch's test changes do not apply alone to the head: " + r.error().message);
      const std::filesystem::path root = (*ws)->root();
      if (base)
        if (auto r = put_back_into(root); !r) return unexpected(r.error());
      auto built = builds_in(ctx, root);
      if (!built) return unexpected(built.error());
      if (!*built) return false;  // (nothing built: the tests cannot pass there)
      auto run = detail::observe_tests(root, req, run_ids, ctx.cancel, ctx.sandbox, base ? "before-change" : "without-fix");
      if (!run) {
        if (run.error().code == Errc::cancelled) return unexpected(run.error());
        return *stop("unverified", "the patch's tests could not be run on " + where + ": " + run.error().message);
      }
      ev.runs.push_back(run->run);
      return !run->run.timed_out && run->run.stopped_by.empty() && (scoped || run->run.exit_code == 0) && run->readable &&
             run->summary_problem.empty() && std::all_of(ids.begin(), ids.end(), [&](const std::string& id) {
               return reports::contains_test(run->run.passed, id) && !reports::contains_test(run->run.failed, id);
             });
    };
    if (code) {
      auto without = passes_on(false);
      if (!without) return unexpected(without.error());
      if (auto* o = std::get_if<Outcome2>(&*without)) return std::optional<Outcome2>(*o);
      if (!std::get<bool>(*without)) return by_values();
    }
    std::string where = at_head;
    if (!put_back.empty()) {
      auto before = passes_on(true);
      if (!before) return unexpected(before.error());
      if (auto* o = std::get_if<Outcome2>(&*before)) return std::optional<Outcome2>(*o);
      if (!std::get<bool>(*before)) return by_values();
      where = code ? at_head + " and on " + at_base : at_base;
    }
    if (code)
      return stop("tests_pass_without_the_fix", "the requested tests, as the patch changes them, pass on " + where + " too (" + first_few(ids, 3) +
                                                    "): the code change is not what makes them pass, and they do not tell the change apart");
    return stop("tests_pass_without_the_change", "the requested tests, as the patch changes them, pass on " + where + " too (" + first_few(ids, 3) +
                                                     "): they no longer check what the change did, so updating them is no fix of the failure");
  }

  /// A requested id without parameters that covers several cases passes when one case passed and
  /// the others were skipped (a platform skip). A case that failed at the head without the patch
  /// (the failing run the request reports) and is skipped with it is a failing case hidden, not a
  /// pass: the requested tests run once more at `head()` (only when such skips were seen), and a
  /// case failing there and skipped here fails the validation naming the case; a case skipped at
  /// the head too stays honest. A case that failed at the head and that the fix's run does not show
  /// at all (its parameters renamed) while others are skipped is unverified: it may be among them.
  /// When the head's results cannot be had, the skips cannot be told apart: unverified.
  /// `skipped`: (requested id, case) for every case of a passing requested test; a case the run
  /// showed not skipped has "\x1f" in front.
  Expected<std::optional<Outcome2>> skipped_failing_cases(RepairContext& ctx, const HeadCheckout& head,
                                                          const std::vector<std::pair<std::string, std::string>>& skipped,
                                                          Evidence& ev) {
    const auto& req = ctx.request;
    std::vector<std::string> ids, cases;
    std::set<std::pair<std::string, std::string>> shown;  // (requested id, case) the fix's run showed run
    for (const auto& [id, c] : skipped) {
      if (!c.empty() && c[0] == '\x1f') {
        shown.emplace(id, c.substr(1));
        continue;
      }
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
      cases.push_back(c);
    }
    if (cases.empty()) return std::nullopt;
    const std::string what = absl::StrJoin(cases, ", ") + " skipped with the fix";
    auto stop = [](std::string reason, std::string message) {
      return std::optional<Outcome2>(Outcome2{false, std::move(reason), std::move(message)});
    };
    auto root = head();
    if (!root) return stop("unverified", what + ", and no checkout of the head shows whether they failed before it: " + root.error().message);
    auto built = builds_in(ctx, *root);
    if (!built) return unexpected(built.error());
    if (!*built) return stop("unverified", what + ", and the build fails at the head: whether they failed before it is not known");
    auto run = detail::observe_tests(*root, req, ids, ctx.cancel, ctx.sandbox, "skipped-baseline");
    if (!run) return unexpected(run.error());
    ev.runs.push_back(run->run);
    if (run->run.timed_out || !run->readable || !run->summary_problem.empty())
      return stop("unverified", what + ", and the head's results of " + absl::StrJoin(ids, ", ") + " could not be read");
    for (const auto& t : run->tests) {
      if (t.outcome != Outcome::failed && t.outcome != Outcome::error) continue;
      for (const auto& id : ids) {
        if (!reports::denotes(id, t.id)) continue;
        if (std::find(cases.begin(), cases.end(), t.id) != cases.end())
          return stop("failing_tests_still_fail",
                      "the case " + t.id + " of " + id + " failed before the fix and is skipped with it: " + id + " did not pass");
        // A failing case the fix's run does not show at all (its parameters renamed) while other
        // cases are skipped: which of them it became cannot be told.
        if (!shown.count({id, t.id}))
          return stop("unverified", "the case " + t.id + " of " + id + " failed before the fix, the fix's run does not show it, and " +
                                        what + ": the failing case may be among the skipped ones");
      }
    }
    return std::nullopt;
  }

  /// Which of `failures` also fail at the pristine change head without the patch: those tests alone
  /// (the wider or the test command selecting them), in `head()` after the build. Results are cached per head commit and
  /// command (every candidate of a job shares the head). A baseline that cannot be established
  /// (build fails at head, unreadable results) explains nothing: every failure stays a regression.
  /// How a runner selects each reported test: JUnit XML names pytest tests by dotted class name
  /// ("tests.test_x.TestA.test_b"), which pytest cannot select; its file attribute gives the node
  /// id ("tests/test_x.py::TestA::test_b"). Other ids select as reported.
  static std::map<std::string, std::string> selectors(const detail::Observed& run, const std::vector<std::string>& ids) {
    std::map<std::string, std::string> out;
    for (const auto& id : ids) out[id] = id;
    if (run.runner != reports::Runner::pytest) return out;
    for (const auto& t : run.tests) {
      if (!out.count(t.id) || t.file.size() < 4 || t.file.compare(t.file.size() - 3, 3, ".py") != 0) continue;
      std::string module = t.file.substr(0, t.file.size() - 3);
      std::replace(module.begin(), module.end(), '/', '.');
      std::string scope = t.suite == module ? "" : t.suite.rfind(module + ".", 0) == 0 ? t.suite.substr(module.size() + 1) : "";
      std::replace(scope.begin(), scope.end(), '.', ':');
      std::string node = t.file;
      for (std::size_t p = 0; !scope.empty();) {  // "A:B" -> "::A::B"
        auto e = scope.find(':', p);
        node += "::" + scope.substr(p, e == std::string::npos ? std::string::npos : e - p);
        if (e == std::string::npos) break;
        p = e + 1;
      }
      out[t.id] = node + "::" + t.name;
    }
    return out;
  }

  Expected<std::set<std::string>> preexisting(RepairContext& ctx, const HeadCheckout& head,
                                              const std::vector<std::string>& failures,
                                              const std::map<std::string, std::string>& select, Evidence& ev,
                                              std::string& note) {
    const auto& req = ctx.request;
    const std::string key = req.repository + "\n" + ctx.workspace.head_commit() + "\n" + req.commands.build + "\n" +
                            req.commands.wider_test;
    std::set<std::string> out;
    std::vector<std::string> todo;
    {
      // Results cached by an earlier candidate (or the loop's check): their run goes into this
      // evidence too, once.
      std::lock_guard lock(mu_);
      auto& known = baseline_[key];
      std::set<const TestRun*> shown;
      for (const auto& f : failures) {
        auto it = known.find(f);
        if (it == known.end()) {
          todo.push_back(f);
          continue;
        }
        if (it->second.failed) out.insert(f);
        if (it->second.run && shown.insert(it->second.run.get()).second) ev.runs.push_back(*it->second.run);
      }
    }
    if (todo.empty()) return out;
    auto root = head();
    if (!root) {
      note = "no baseline at the head: " + root.error().message;
      return out;
    }
    auto built = builds_in(ctx, *root);
    if (!built) return unexpected(built.error());
    if (!*built) {
      note = "no baseline: the build fails at the head";
      return out;
    }
    // Just these tests: through the wider command when it selects tests, else through the test
    // command (which does), else the whole wider command.
    const auto& c = req.commands;
    const std::string& tmpl = c.wider_test.find("{tests") != std::string::npos ? c.wider_test
                              : c.test.find("{tests") != std::string::npos      ? c.test
                                                                                 : c.wider_test;
    std::vector<std::string> ids;
    for (const auto& f : todo) ids.push_back(select.count(f) ? select.at(f) : f);
    auto run = detail::observe_tests(*root, req, ids, ctx.cancel, ctx.sandbox, "wider-baseline", tmpl);
    if (!run) return unexpected(run.error());
    ev.runs.push_back(run->run);
    auto shared = std::make_shared<const TestRun>(run->run);
    std::lock_guard lock(mu_);
    auto& known = baseline_[key];
    for (const auto& f : todo) {
      // Failed at head: some reported name denotes it and failed. Not seen, or passed: not pre-existing.
      const bool failed_at_head =
          !run->run.timed_out && std::any_of(run->tests.begin(), run->tests.end(), [&](const reports::TestCase& t) {
            return reports::denotes(f, t.id) && (t.outcome == Outcome::failed || t.outcome == Outcome::error);
          });
      known[f] = Baseline{failed_at_head, shared};
      if (failed_at_head) out.insert(f);
    }
    return out;
  }

  /// Runs the requested failing tests and decides from per-test results whether each was seen to
  /// pass; a test that no longer exists is validated through its enclosing file or target.
  Expected<Outcome2> failing_tests(RepairContext& ctx, const std::filesystem::path& root, const std::string& patch,
                                   Evidence& ev, const std::string& purpose,
                                   std::vector<std::pair<std::string, std::string>>& skipped) {
    const auto& req = ctx.request;
    const auto& wanted = req.failure.failing_tests;
    auto obs = detail::observe_tests(root, req, wanted, ctx.cancel, ctx.sandbox, purpose);
    if (!obs) return unexpected(obs.error());
    ctx.state.last_test_log = obs->log;
    ev.runs.push_back(obs->run);
    if (obs->run.timed_out) return Outcome2{false, "failing_tests_still_fail", "the tests timed out"};
    if (!obs->run.stopped_by.empty())
      return Outcome2{false, "failing_tests_still_fail", "the sandbox stopped the tests: " + obs->run.stopped_by};
    if (!obs->summary_problem.empty()) return Outcome2{false, "unverified", obs->summary_problem};

    const bool not_found = runner_says_not_found(*obs);
    if (!obs->readable && !not_found) {
      if (obs->run.exit_code != 0)
        return Outcome2{false, "failing_tests_still_fail",
                        "the test command exited with " + std::to_string(obs->run.exit_code) +
                            " and its results could not be read"};
      if (opt_.accept_exit_code_evidence) {
        for (const auto& w : wanted) ev.tests.push_back(TestVerdict{w, "unverified", {}});
        ev.kind = "exit_code";
        return Outcome2{true, {}, {}};
      }
      for (const auto& w : wanted) ev.tests.push_back(TestVerdict{w, "unverified", {}});
      return Outcome2{false, "unverified",
                      "the test command exited with 0 but no per-test result could be read, so no requested test "
                      "was seen to pass"};
    }

    std::vector<std::string> missing;
    // (Runs of one requested test file alone, kept for its results: see below.)
    std::vector<std::shared_ptr<const detail::Observed>> alone_runs;
    for (const auto& w : wanted) {
      auto v = verdict_for(w, obs->tests);
      const std::vector<reports::TestCase>* results = &obs->tests;
      std::function<bool(const reports::TestCase&)> picked = [&w](const reports::TestCase& t) { return reports::denotes(w, t.id); };
      // A requested test file (`test/bool.js`: tape and node --test take files, and name their
      // tests freely): its tests are the results reported from that file; when the results say no
      // file (TAP's `# name` sections), those of a run of that file alone.
      if (v.outcome == "missing" && names_file(w, root)) {
        const bool attributed = std::any_of(obs->tests.begin(), obs->tests.end(), [](const reports::TestCase& t) { return !t.file.empty(); });
        if (attributed) {
          picked = [&w](const reports::TestCase& t) { return from_file(t, w); };
        } else if (wanted.size() == 1) {
          picked = [](const reports::TestCase&) { return true; };
        } else {
          auto one = detail::observe_tests(root, req, {w}, ctx.cancel, ctx.sandbox, "scope");
          if (!one) return unexpected(one.error());
          ev.runs.push_back(one->run);
          if (one->run.timed_out || !one->run.stopped_by.empty() || !one->summary_problem.empty() || !one->readable)
            return Outcome2{false, "unverified", "the results of a run of " + w + " alone could not be read"};
          if (one->run.exit_code != 0)
            return Outcome2{false, "failing_tests_still_fail", "the tests of " + w + " exited with " + std::to_string(one->run.exit_code)};
          if (auto trusted = label_evidence(*one, ev); !trusted.passed) return trusted;
          alone_runs.push_back(std::make_shared<const detail::Observed>(std::move(*one)));
          results = &alone_runs.back()->tests;
          picked = [](const reports::TestCase&) { return true; };
        }
        v = verdict_over(w, *results, picked);
      }
      if (v.outcome == "missing") {
        missing.push_back(w);
        continue;
      }
      ev.tests.push_back(v);
      if (v.outcome == "failed") return Outcome2{false, "failing_tests_still_fail", w + " still fails"};
      if (v.outcome == "skipped") return Outcome2{false, "failing_tests_still_fail", w + " was skipped, not run"};
      // The cases of a passing requested test: the skipped ones are checked against the head
      // (run_checks), the others ("\x1f" in front) say which cases the fix's run showed at all.
      for (const auto& t : *results) {
        if (!picked(t)) continue;
        std::pair<std::string, std::string> c{w, (t.outcome == Outcome::skipped ? "" : "\x1f") + t.id};
        if (std::find(skipped.begin(), skipped.end(), c) == skipped.end()) skipped.push_back(std::move(c));
      }
    }
    if (missing.empty()) {
      if (obs->run.exit_code != 0)
        return Outcome2{false, "failing_tests_still_fail",
                        "the test command exited with " + std::to_string(obs->run.exit_code)};
      return label_evidence(*obs, ev);
    }
    return replaced_tests(ctx, root, patch, ev, *obs, missing, purpose);
  }

  static TestVerdict verdict_for(const std::string& wanted, const std::vector<reports::TestCase>& tests) {
    return verdict_over(wanted, tests, [&](const reports::TestCase& t) { return reports::denotes(wanted, t.id); });
  }

  /// The verdict of `wanted` over the results `picked` says it denotes.
  static TestVerdict verdict_over(const std::string& wanted, const std::vector<reports::TestCase>& tests,
                                  const std::function<bool(const reports::TestCase&)>& picked) {
    TestVerdict v{wanted, "missing", {}};
    // What the copies of each distinct test (file and id) the requested name denotes say.
    struct Copies {
      bool passed = false, failed = false, other = false;
    };
    std::map<std::string, Copies> seen;
    for (const auto& t : tests) {
      if (!picked(t)) continue;
      v.seen_as.push_back(t.id);
      auto& c = seen[t.file + '\x1f' + t.id];
      if (t.outcome == Outcome::passed) c.passed = true;
      else if (t.outcome == Outcome::failed || t.outcome == Outcome::error) c.failed = true;
      else c.other = true;
    }
    if (seen.empty()) return v;
    bool any_failed = false, any_passed = false, contradiction = false;
    for (const auto& [key, c] : seen) {
      any_failed |= c.failed;
      // One test reported passed in one place and skipped (or anything but passed) in another is a
      // contradiction between reports (one of them forged), never a pass.
      contradiction |= c.passed && (c.other || c.failed);
      any_passed |= c.passed && !c.other && !c.failed;
    }
    // Several tests under the requested name (the cases of a parametrized test): it passes when one
    // of them ran and passed and the others were skipped (a case skipped by a platform condition),
    // none failed. A skip the patch adds is the integrity guard's business (skip_added).
    v.outcome = any_failed ? "failed" : (any_passed && !contradiction) ? "passed" : "skipped";
    return v;
  }

  /// Requested tests the results do not show: run their enclosing file or target (all of it must
  /// pass and it must hold a test), then name the tests that replaced each.
  Expected<Outcome2> replaced_tests(RepairContext& ctx, const std::filesystem::path& root, const std::string& patch,
                                    Evidence& ev, const detail::Observed& first, const std::vector<std::string>& missing,
                                    const std::string& purpose) {
    const auto& req = ctx.request;
    const detail::Observed* scope_run = &first;
    std::optional<detail::Observed> scoped;
    std::string scope_text = "the whole test command";
    if (req.commands.test.find("{tests") != std::string::npos) {
      // The enclosing files or targets; when the runner cannot select one by name (tape and
      // node:test names are free text), the whole test command, with no test selected.
      std::vector<std::string> scopes;
      bool whole = false;
      for (const auto& m : missing) {
        auto s = reports::enclosing_scope(m, first.runner);
        if (s.empty()) s = module_file(m, root);
        if (s.empty()) whole = true;
        for (auto& x : s)
          if (std::find(scopes.begin(), scopes.end(), x) == scopes.end()) scopes.push_back(std::move(x));
      }
      // node --test selects by --test-name-pattern, which refuses an empty pattern: ".*" is every test.
      if (whole) scopes = first.runner == reports::Runner::node_test ? std::vector<std::string>{".*"} : std::vector<std::string>{};
      auto run = detail::observe_tests(root, req, scopes, ctx.cancel, ctx.sandbox, purpose == "rerun" ? "rerun" : "scope");
      if (!run) return unexpected(run.error());
      ev.runs.push_back(run->run);
      scoped = std::move(*run);
      scope_run = &*scoped;
      if (!whole) scope_text = absl::StrJoin(scopes, ", ");
    }
    const auto& o = *scope_run;
    if (o.run.timed_out) return Outcome2{false, "failing_tests_still_fail", "the tests of " + scope_text + " timed out"};
    if (!o.run.stopped_by.empty())
      return Outcome2{false, "failing_tests_still_fail", "the sandbox stopped the tests of " + scope_text + ": " + o.run.stopped_by};
    if (!o.summary_problem.empty()) return Outcome2{false, "unverified", "in " + scope_text + ": " + o.summary_problem};
    if (!o.readable) {
      if (o.run.exit_code == 0 && !opt_.accept_exit_code_evidence)
        return Outcome2{false, "unverified", "the results of " + scope_text + " could not be read"};
      return Outcome2{false, "failing_test_missing",
                      absl::StrJoin(missing, ", ") + " did not run, and " + scope_text + " shows no test result"};
    }
    std::vector<std::string> failing;
    std::size_t ran = 0;
    for (const auto& t : o.tests) {
      if (t.outcome == Outcome::skipped) continue;
      ++ran;
      if (t.outcome != Outcome::passed) failing.push_back(t.id);
    }
    if (!failing.empty())
      return Outcome2{false, "failing_tests_still_fail", "in " + scope_text + ": " + absl::StrJoin(failing, ", ") + " fail"};
    if (ran == 0) return Outcome2{false, "failing_test_missing", scope_text + " holds no test that runs"};
    if (o.run.exit_code != 0)
      return Outcome2{false, "failing_tests_still_fail",
                      "the tests of " + scope_text + " exited with " + std::to_string(o.run.exit_code)};

    const std::string added = added_lines(patch);
    for (const auto& m : missing) {
      // Present after all (a runner that stops at the first unknown id shows nothing the first time).
      auto v = verdict_for(m, o.tests);
      if (v.outcome == "passed") {
        ev.tests.push_back(v);
        continue;
      }
      TestReplacement rep;
      rep.old_id = m;
      auto scope = reports::enclosing_scope(m, o.runner);
      if (scope.empty()) scope = module_file(m, root);
      rep.scope = scope.empty() ? scope_text : scope.front();
      std::set<std::string> seen;
      for (const auto& t : o.tests) {
        if (t.outcome != Outcome::passed || reports::contains_test(req.failure.failing_tests, t.id)) continue;
        const std::string leaf = reports::defined_name(t.id, o.runner);
        // Only a test the patch itself adds (its name is on an added line) can replace the missing
        // one; a test that existed at head, however similar its name, is not a replacement (else
        // moving the failing test elsewhere would be credited to its neighbours).
        const bool added_by_patch = leaf.size() >= 3 && defines_test(added, leaf);
        if (added_by_patch && seen.insert(t.id).second) rep.new_ids.push_back(t.id);
      }
      if (rep.new_ids.empty())
        return Outcome2{false, "failing_test_missing",
                        m + " no longer exists and no test in " + rep.scope + " replaces it"};
      ev.tests.push_back(TestVerdict{m, "replaced", rep.new_ids});
      ev.replacements.push_back(std::move(rep));
    }
    return label_evidence(o, ev);
  }

  /// What passing results are worth: a known runner's report (or its output, cross-checked with its
  /// own summary) is "structured"; results parsed from the output of a runner flowagent does not
  /// know were printed by the test process with nothing to cross-check them, so they are
  /// "unverified" unless the host accepts output evidence (kind "output").
  Outcome2 label_evidence(const detail::Observed& o, Evidence& ev) const {
    const bool parsed_output = o.runner == reports::Runner::unknown && o.run.report_format.rfind("output:", 0) == 0;
    if (o.run.report_format == "output:tap") {
      // TAP read from the output (tape, node's TAP reporter on stdout, tape used as a library under
      // `node test.js` or `npm test`) is structured only when it counts its own results: a plan
      // that agrees with the test points and trailer counts (tape's, node's) that agree with them,
      // and, whoever started the producer, results that agree with those counts. A script echoing
      // `ok 1 - x`, or a test printing test points into the runner's stream, is not.
      std::string problem = detail::tap_count_problem(o.log);
      if (problem.empty() && parsed_output) {
        problem = detail::summary_contradiction(reports::Runner::tape, o.log, o.tests);
        if (problem.find("no final summary") != std::string::npos) problem.clear();  // the plan counted them
      }
      if (problem.empty()) {
        ev.kind = "structured";
        return Outcome2{true, {}, {}};
      }
      if (opt_.accept_output_evidence || opt_.accept_exit_code_evidence) {
        ev.kind = "output";
        return Outcome2{true, {}, {}};
      }
      return Outcome2{false, "unverified", problem + ": not evidence unless the host accepts output evidence"};
    }
    if (!parsed_output) {
      ev.kind = "structured";
      return Outcome2{true, {}, {}};
    }
    // A known runner started by a wrapper (`make test`, tox, a script): its own final summary,
    // printed after every test, is cross-checked like the runner's; each of these summaries is
    // required (absent is a contradiction), so output without one stays unverified below.
    for (const auto runner : {reports::Runner::pytest, reports::Runner::jest, reports::Runner::gtest, reports::Runner::cargo}) {
      if (!o.tests.empty() && detail::summary_contradiction(runner, o.log, o.tests).empty()) {
        ev.kind = "structured";
        return Outcome2{true, {}, {}};
      }
    }
    if (opt_.accept_output_evidence || opt_.accept_exit_code_evidence) {
      ev.kind = "output";
      return Outcome2{true, {}, {}};
    }
    return Outcome2{false, "unverified",
                    "the results were parsed from the output of a test command whose runner flowagent does not know (" +
                        o.run.report_format.substr(7) +
                        " text printed by the tests themselves, no runner report or summary to cross-check): not "
                        "evidence unless the host accepts output evidence"};
  }

  ValidatorOptions opt_;
  std::mutex mu_;
  /// Reports of check() in a fresh checkout, by memo_key; each taken once by validate().
  /// (Bounded: candidates of concurrent jobs each leave at most one before their validation.)
  static constexpr std::size_t kMaxRemembered = 16;
  std::map<std::string, Remembered> passed_;
  std::uint64_t seq_ = 0;
  /// Runs (detail::current_run_id: one per repair) with a failed check: their passes are not remembered.
  static constexpr std::size_t kMaxFailedRuns = 4096;
  std::set<std::uint64_t> failed_runs_;
  /// (repository, head, build, wider command) -> test id -> failed at the head.
  struct Baseline {
    bool failed = false;                  ///< the test failed at the head
    std::shared_ptr<const TestRun> run;   ///< the run that showed it
  };
  std::map<std::string, std::map<std::string, Baseline>> baseline_;
};

}  // namespace

std::shared_ptr<Validator> make_command_validator(ValidatorOptions options) {
  return std::make_shared<CommandValidator>(options);
}

}  // namespace flowagent
