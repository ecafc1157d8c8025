// Runtime evidence that the requested tests' assertions executed (see the header).
#include "validate/assertion_evidence.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "flowagent/integrity.hpp"
#include "flowagent/json.hpp"
#include "flowagent/process.hpp"
#include "flowagent/patch.hpp"
#include "integrity/assertion_lines.hpp"
#include "localize/coverage_readers.hpp"
#include "tools/test_command.hpp"
#include "validate/runner.hpp"
#include "workspace/git.hpp"
#include "workspace/repo_ops.hpp"
#include "workspace/sandbox_fs.hpp"

namespace flowagent::detail {

namespace fs = std::filesystem;

namespace {

bool ends_with(std::string_view s, std::string_view x) { return s.size() >= x.size() && s.substr(s.size() - x.size()) == x; }

bool python_file(std::string_view p) { return ends_with(p, ".py"); }
bool js_file(std::string_view p) {
  // Plain JavaScript only: transpiled sources (TypeScript, JSX through a loader) have V8 offsets
  // that are not the file's.
  return ends_with(p, ".js") || ends_with(p, ".cjs") || ends_with(p, ".mjs");
}

std::string random_suffix() {
  std::random_device rd;
  std::ostringstream ss;
  ss << std::hex << ((static_cast<std::uint64_t>(rd()) << 32) | rd());
  return ss.str();
}

/// A private directory inside the checkout for the coverage data, removed afterwards.
struct DataDir {
  fs::path path;
  explicit DataDir(const fs::path& root) : path(root / (".flowagent-cov-" + random_suffix())) {
    std::error_code ec;
    fs::create_directory(path, ec);
    if (ec) path.clear();
  }
  ~DataDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

/// `.../python3 -m pytest` or `pytest` in the template: (start, length, interpreter or "").
struct PytestSpan {
  std::size_t at = std::string::npos, len = 0;
  std::string python;
};
PytestSpan find_pytest(const std::string& tmpl) {
  PytestSpan s;
  std::size_t at = tmpl.find("-m pytest");
  if (at != std::string::npos && at >= 2) {
    std::size_t b = tmpl.rfind(' ', at - 2);
    b = b == std::string::npos ? 0 : b + 1;
    s.python = tmpl.substr(b, at - 1 - b);
    s.at = b;
    s.len = at + 9 - b;
    return s;
  }
  at = tmpl.find("pytest");
  if (at == std::string::npos) return s;
  s.at = at;
  s.len = 6;
  return s;
}

/// coverage.py JSON: file -> (executed lines, missing lines), paths relative to `root`.
using LineSets = std::map<std::string, std::pair<std::set<int>, std::set<int>>>;
LineSets read_coverage_json(const std::string& text, const fs::path& root) {
  LineSets out;
  auto doc = parse_json(text);
  if (!doc) return out;
  const Json* files = doc->find("files");
  if (!files || !files->is_object()) return out;
  for (const auto& [name, f] : files->as_object()) {
    fs::path p(name);
    std::string rel = p.is_absolute() ? p.lexically_normal().lexically_relative(root.lexically_normal()).generic_string()
                                      : p.lexically_normal().generic_string();
    if (rel.empty() || rel.rfind("..", 0) == 0) continue;
    auto& entry = out[rel];
    for (const auto& [key, dst] : {std::pair<const char*, std::set<int>*>{"executed_lines", &entry.first},
                                   {"missing_lines", &entry.second}}) {
      const Json* lines = f.find(key);
      if (!lines || !lines->is_array()) continue;
      for (const auto& l : lines->as_array())
        if (l.is_int()) dst->insert(static_cast<int>(l.as_int()));
    }
  }
  return out;
}

}  // namespace

Expected<AssertionCheck> check_assertions_ran(RepairContext& ctx, const fs::path& root, const std::string& patch_text) {
  AssertionCheck out;
  const auto& req = ctx.request;
  const auto& wanted = req.failure.failing_tests;
  const reports::Runner runner = plan_runner(req.commands.test, root / ".flowagent-none", root).runner;
  const bool python = runner == reports::Runner::pytest;
  const bool js = runner == reports::Runner::node_test || runner == reports::Runner::tape;
  if (!python && !js) {
    out.note = "no line coverage for this runner (pytest, node --test and tape are checked)";
    return out;
  }
  auto tree = SandboxFs::open(root);
  if (!tree) return unexpected(tree.error());
  auto patch = parse_patch(patch_text);
  if (!patch) return unexpected(patch.error());

  // The files holding requested tests: named by a pytest id or a file id, or test files the patch touches.
  struct Candidate {
    std::optional<std::string> before;
    bool whole_file = false;
    bool in_patch = false;
  };
  std::map<std::string, Candidate> files;
  auto accept = [&](const std::string& p) { return python ? python_file(p) : js_file(p); };
  for (const auto& w : wanted) {
    const auto sep = w.find("::");
    const std::string file = sep == std::string::npos ? w : w.substr(0, sep);
    if (!accept(file)) continue;
    auto st = tree->stat(file);
    if (!st || !S_ISREG(st->st_mode)) continue;
    files[file].whole_file = files[file].whole_file || sep == std::string::npos;
  }
  for (const auto& f : patch->files)
    if (f.status != PatchStatus::deleted && is_test_path(f.new_path) && accept(f.new_path)) files[f.new_path].in_patch = true;
  const auto repo = workspace_repo(ctx.workspace);
  std::vector<std::pair<std::string, integrity::RequiredAssertion>> required;
  for (auto& [path, c] : files) {
    auto after = tree->read(path, 8u << 20);
    if (!after) continue;  // deleted by the patch, or not a readable file
    const PatchFile* pf = nullptr;
    for (const auto& f : patch->files)
      if (f.new_path == path) pf = &f;
    if (!pf) {
      c.before = *after;  // untouched: every condition in it is the developer's
    } else if (pf->status != PatchStatus::added) {
      auto b = !pf->old_blob.empty() && pf->old_blob.find_first_not_of('0') != std::string::npos
                   ? read_blob(repo, pf->old_blob, ctx.cancel)
                   : read_file_at(repo, ctx.workspace.head_commit(), pf->old_path, ctx.cancel);
      if (!b) return unexpected(b.error());
      c.before = std::move(*b);
    }
    for (auto& r : integrity::required_assertion_lines(path, c.before, *after, wanted, c.whole_file))
      required.emplace_back(path, std::move(r));
  }
  if (required.empty()) {
    out.note = "no assertion line of a requested test to check";
    return out;
  }

  DataDir data(root);
  if (data.path.empty()) return fail(Errc::io, "cannot create the coverage directory in " + root.string());
  // The ids the coverage run selects: pytest ids without their parameters (all cases of a test
  // function together cover its branches), others as requested.
  std::vector<std::string> ids;
  for (const auto& w : wanted) {
    std::string id = w;
    if (python && id.find("::") != std::string::npos && id.back() == ']') id = id.substr(0, id.rfind('['));
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  auto tmpl = checked_test_template(req, ids, "assertions");
  if (!tmpl) return unexpected(tmpl.error());
  auto run = [&](const std::string& cmd) -> Expected<ProcessResult> {
    auto r = run_command(root, cmd, req, ctx.cancel, ctx.sandbox);
    if (r && r->cancelled) return fail(Errc::cancelled, "validation cancelled");
    return r;
  };
  std::map<std::string, std::set<int>> ran, not_run;
  std::string command;
  ProcessResult result;
  if (python) {
    PytestSpan span = find_pytest(*tmpl);
    if (span.at == std::string::npos) {
      out.note = "the test command does not name pytest";
      return out;
    }
    std::vector<std::string> interpreters;
    if (!span.python.empty()) interpreters.push_back(span.python);
    for (auto p : {"python3", "/usr/bin/python3"}) interpreters.push_back(p);
    // The probe runs alone (no test code runs beside it, so nothing can forge its answer); find_spec
    // finds the modules without importing them. The tests and the JSON report then share one
    // sandboxed shell: the tests in a subshell (a `cd` or `exit` in the project's command cannot
    // skip the report), the exit status the tests'.
    std::string py;
    for (const auto& c : interpreters) {
      auto probe = run(shell_quote(c) + " -c 'import importlib.util as u, sys; sys.exit(0 if u.find_spec(\"coverage\") "
                                       "and u.find_spec(\"pytest\") else 1)'");
      if (!probe) return unexpected(probe.error());
      if (probe->ok()) {
        py = c;
        break;
      }
    }
    if (py.empty()) {
      out.note = "coverage.py is not installed (Debian python3-coverage): assertion execution not checked";
      return out;
    }
    const fs::path rc = data.path / "rc";
    {
      std::ofstream f(rc);
      f << "[run]\ndata_file = " << (data.path / "data").string() << "\nsource = " << root.string() << "\nomit = "
        << data.path.string() << "/*\n";
    }
    const fs::path json = data.path / "cov.json";
    std::string cmd = *tmpl;
    cmd.replace(span.at, span.len, shell_quote(py) + " -m coverage run --rcfile=" + shell_quote(rc.string()) + " -m pytest");
    command = "( " + expand_tests(cmd, ids) + " ); flowagent_rc=$?; " + shell_quote(py) + " -m coverage json --rcfile=" +
              shell_quote(rc.string()) + " -o " + shell_quote(json.string()) + " >/dev/null 2>&1; exit $flowagent_rc";
    auto r = run(command);
    if (!r) return unexpected(r.error());
    result = *r;
    auto text = tree->read(json.lexically_relative(root).generic_string(), 64u << 20);
    for (auto& [file, sets] : read_coverage_json(text ? *text : std::string(), root)) {
      ran[file] = std::move(sets.first);
      not_run[file] = std::move(sets.second);
    }
  } else {
    command = "export NODE_V8_COVERAGE=" + shell_quote((data.path / "v8").string()) + "; " + expand_tests(*tmpl, ids);
    auto r = run(command);
    if (!r) return unexpected(r.error());
    result = *r;
    read_v8_coverage(data.path / "v8", root, ran, &not_run);
  }
  out.checked = true;
  out.run.command = command;
  out.run.exit_code = result.exit_code;
  out.run.timed_out = result.timed_out;
  out.run.duration_ms = result.duration_ms;
  out.run.purpose = "assertions";
  if (result.timed_out) {
    out.reason = "unverified";
    out.message = "the coverage run of the requested tests timed out: their assertions were not seen to run";
    return out;
  }
  std::vector<std::string> missed, blind;
  for (const auto& [file, r] : required) {
    const bool seen = ran.count(file) || not_run.count(file);
    if (!seen) {
      if (std::find(blind.begin(), blind.end(), file) == blind.end()) blind.push_back(file);
      continue;
    }
    const bool executed = ran.count(file) && ran.at(file).count(r.line);
    // coverage.py leaves statements it can see are unreachable (after a return) out of both of
    // its lists: for a measured Python file, a statement line that did not execute did not run.
    const bool skipped = python || (not_run.count(file) && not_run.at(file).count(r.line));
    if (!executed && skipped) missed.push_back(file + ":" + std::to_string(r.line) + " (test " + r.test + ")");
  }
  if (!missed.empty()) {
    out.reason = "assertion_not_executed";
    std::string list;
    for (std::size_t i = 0; i < missed.size() && i < 10; ++i) list += (i ? ", " : "") + missed[i];
    out.message = "the requested tests pass, but their assertion(s) at " + list +
                  " did not execute (line coverage of a run of just those tests): a check that does not run "
                  "checks nothing";
    return out;
  }
  if (!blind.empty()) {
    std::string list;
    for (const auto& b : blind) list += (list.empty() ? "" : ", ") + b;
    out.reason = "unverified";
    out.message = "the coverage run of the requested tests recorded nothing for " + list +
                  ": their assertions were not seen to run";
  }
  return out;
}

}  // namespace flowagent::detail
