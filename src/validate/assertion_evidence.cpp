// Runtime evidence that the requested tests' assertions executed (see the header).
#include "validate/assertion_evidence.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/regex.hpp"
#include "flowagent/integrity.hpp"
#include "flowagent/json.hpp"
#include "flowagent/process.hpp"
#include "flowagent/patch.hpp"
#include "integrity/assertion_lines.hpp"
#include "integrity/guard_internal.hpp"
#include "localize/coverage_readers.hpp"
#include "tools/test_command.hpp"
#include "validate/go_values.hpp"
#include "validate/runner.hpp"
#include "workspace/git.hpp"
#include "workspace/repo_ops.hpp"
#include "workspace/sandbox_fs.hpp"
#include "core/regex_cache.hpp"

namespace flowagent::detail {

namespace fs = std::filesystem;

namespace {

bool ends_with(std::string_view s, std::string_view x) { return s.size() >= x.size() && s.substr(s.size() - x.size()) == x; }

/// The first five of `items`, joined by `sep`: what a message names.
std::string first_few(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < 5; ++i) out += (i ? std::string(sep) : std::string()) + items[i];
  return out;
}

bool python_file(std::string_view p) { return ends_with(p, ".py"); }

/// The tests the runtime checks select, as the runner takes them: each requested id, or, for one
/// the fix replaced (a renamed test: TestReplacement), the tests that replaced it. A pytest report
/// names a replacement by its dotted class (`tests.test_calc.test_add_small`), which pytest does not
/// take: it becomes the node id in the requested test's file (`tests/test_calc.py::test_add_small`),
/// or that whole file when the name is not under the file's module. Other runners: as reported.
std::vector<std::string> effective_tests(const std::vector<std::string>& wanted, const std::vector<TestReplacement>& replacements,
                                         bool python) {
  std::vector<std::string> out;
  auto add = [&](std::string x) {
    if (!x.empty() && std::find(out.begin(), out.end(), x) == out.end()) out.push_back(std::move(x));
  };
  for (const auto& w : wanted) {
    auto rep = std::find_if(replacements.begin(), replacements.end(), [&](const TestReplacement& r) { return r.old_id == w; });
    if (rep == replacements.end()) {
      add(w);
      continue;
    }
    const std::string file = w.substr(0, w.find("::"));
    for (const auto& n : rep->new_ids) {
      if (!python || n.find("::") != std::string::npos) {
        add(n);
        continue;
      }
      std::string module = file.size() > 3 && ends_with(file, ".py") ? file.substr(0, file.size() - 3) : file;
      std::replace(module.begin(), module.end(), '/', '.');
      const auto params = n.find('[');
      const std::string name = n.substr(0, params);
      if (name.size() <= module.size() + 1 || name.compare(0, module.size() + 1, module + ".") != 0) {
        add(file);  // (the whole file it was validated in)
        continue;
      }
      std::string rest = name.substr(module.size() + 1);
      for (auto at = rest.find('.'); at != std::string::npos; at = rest.find('.', at + 2)) rest.replace(at, 1, "::");
      add(file + "::" + rest + (params == std::string::npos ? "" : n.substr(params)));
    }
  }
  return out;
}

/// How the runtime checks read a runner: pytest (coverage.py, an import hook), node --test and
/// tape (V8 coverage, a `--require` preload), jest and vitest (their own coverage, mapped back).
struct MeasuredBy {
  bool python = false, js = false, mapped = false;
};
MeasuredBy measured_by(reports::Runner r) {
  return {r == reports::Runner::pytest, r == reports::Runner::node_test || r == reports::Runner::tape,
          r == reports::Runner::jest || r == reports::Runner::vitest};
}

/// A changed file's text before the patch: its old blob, or the file at the head commit.
Expected<std::string> text_before(RepairContext& ctx, const GitRepo& repo, const PatchFile& f) {
  return !f.old_blob.empty() && f.old_blob.find_first_not_of('0') != std::string::npos
             ? read_blob(repo, f.old_blob, ctx.cancel)
             : read_file_at(repo, ctx.workspace.head_commit(), f.old_path, ctx.cancel);
}
bool js_file(std::string_view p) {
  // Plain JavaScript only: transpiled sources (TypeScript, JSX through a loader) have V8 offsets
  // that are not the file's.
  return ends_with(p, ".js") || ends_with(p, ".cjs") || ends_with(p, ".mjs");
}
/// jest and vitest map V8's offsets back through the source maps of their own transforms, so
/// TypeScript and JSX test files are measured in their own lines too.
bool mapped_script_file(std::string_view p) {
  return js_file(p) || ends_with(p, ".ts") || ends_with(p, ".tsx") || ends_with(p, ".jsx") || ends_with(p, ".mts") ||
         ends_with(p, ".cts");
}

/// A path below `root` as coverage data names it (absolute or relative), "" when outside.
/// A runner that names files by their real path (a checkout below a symlinked folder) is matched
/// through the canonical root; only names are compared, nothing is read through them.
std::string rel_to_root(const std::string& name, const fs::path& root) {
  fs::path p(name);
  std::string rel = p.is_absolute() ? p.lexically_normal().lexically_relative(root.lexically_normal()).generic_string()
                                    : p.lexically_normal().generic_string();
  if (p.is_absolute() && (rel.empty() || rel.rfind("..", 0) == 0)) {
    std::error_code ec;
    const fs::path real_root = fs::weakly_canonical(root, ec);
    if (!ec) rel = p.lexically_normal().lexically_relative(real_root).generic_string();
  }
  if (rel.empty() || rel.rfind("..", 0) == 0) return {};
  return rel;
}

/// A private directory inside the checkout for the coverage data, removed afterwards.
/// A pytest plugin for the coverage run: the functions each test module calls itself while pytest
/// imports it (collection: `@pytest.mark.parametrize("got", [add(2, 2)])`, a module-level table
/// of results), which coverage's test contexts leave out. Written as [[file, name, first line], ...]
/// to FLOWAGENT_COLLECT_CALLS at the end of the session. Only calls whose caller is the test module
/// itself count: the project's own module-level code (`PRECISION = _load()`) does not.
constexpr const char* kPythonCollectCalls = R"PY(# flowagent: functions the test modules call while they are collected.
import json, os, sys

import pytest

_out = os.environ.get('FLOWAGENT_COLLECT_CALLS', '')
_seen = set()
_module = [None]


def _profile(frame, event, arg):
    try:
        if event == 'call' and frame.f_back is not None and frame.f_back.f_code.co_filename == _module[0] and len(_seen) < 4096:
            c = frame.f_code
            _seen.add((c.co_filename, c.co_name, c.co_firstlineno))
    except Exception:
        pass


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    # (`path` from pytest 7 on, `fspath` before.)
    where = getattr(collector, 'path', None) or getattr(collector, 'fspath', None)
    if not _out or not isinstance(collector, pytest.Module) or where is None:
        yield
        return
    _module[0] = str(where)
    old = sys.getprofile()
    sys.setprofile(_profile)
    try:
        yield
    finally:
        sys.setprofile(old)
        _module[0] = None


def pytest_sessionfinish(session):
    if _out:
        with open(_out, 'w') as f:
            json.dump(sorted(_seen), f)


# The JSON report from this process, after the session: a second interpreter that imports coverage
# only to write it costs ~0.3 s per run. (Where this does not happen, the shell writes it after.)
def pytest_unconfigure(config):
    where = os.environ.get('FLOWAGENT_COVERAGE_JSON', '')
    if not where:
        return
    try:
        import coverage
        cov = coverage.Coverage.current()
        if cov is not None:
            cov.stop()
            cov.save()
            cov.json_report(outfile=where, show_contexts=True)
    except Exception:
        pass
)PY";

/// The first line of the Python statement that line `line` (1-based) of `text` continues: a line
/// inside brackets opened on an earlier line (`with (\n    a,\n    pytest.raises(E),\n):`), or
/// after a line ending in a backslash. coverage.py reports a statement by its first line only; a
/// continuation line is in neither of its lists. `line` itself when it starts a statement.
int python_statement_start(const std::string& text, int line) {
  int depth = 0, start = 1, current = 1;
  bool backslash = false;
  char quote = 0;
  bool triple = false;
  for (std::size_t i = 0; i < text.size() && current <= line; ++i) {
    const char ch = text[i];
    if (ch == '\n') {
      ++current;
      if (current > line) break;
      if (depth <= 0 && !backslash && !(quote && triple)) start = current;
      backslash = false;
      if (quote && !triple) quote = 0;  // (an unterminated string ends with its line)
      continue;
    }
    if (quote) {
      if (ch == '\\') {
        ++i;
        continue;
      }
      if (ch == quote && (!triple || (i + 2 < text.size() && text[i + 1] == quote && text[i + 2] == quote))) {
        if (triple) i += 2;
        quote = 0;
        triple = false;
      }
      continue;
    }
    backslash = false;
    if (ch == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (ch == '"' || ch == '\'') {
      quote = ch;
      triple = i + 2 < text.size() && text[i + 1] == ch && text[i + 2] == ch;
      if (triple) i += 2;
      continue;
    }
    if (ch == '\\') backslash = true;
    else if (ch == '(' || ch == '[' || ch == '{') ++depth;
    else if (ch == ')' || ch == ']' || ch == '}') --depth;
  }
  return start;
}

/// The name of one of flowagent's Python plugin modules in a data directory: `base` with the
/// directory's random suffix (`flowagent_value_probe_3f9a...`). A module of the same fixed name
/// planted in the tree, which the test command's own import path (`PYTHONPATH=src`, the working
/// folder `python -m` puts first) would reach before flowagent's, cannot stand in for it.
std::string plugin_module(const fs::path& data_dir, std::string_view base) {
  std::string suffix = data_dir.filename().string();
  if (const auto dash = suffix.rfind('-'); dash != std::string::npos) suffix = suffix.substr(dash + 1);
  std::string out(base);
  out += '_';
  for (char c : suffix)
    if (std::isalnum(static_cast<unsigned char>(c))) out += c;
  return out;
}

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

/// The test command with its own `PYTHONPATH=...` assignments (`PYTHONPATH=src python3 -m pytest`,
/// `export PYTHONPATH=src; ...`, `env PYTHONPATH=src ...`) keeping `dir` too, first: such an assignment
/// replaces the PYTHONPATH flowagent exports for its plugins (the coverage run's call collector,
/// the value probe), which pytest then could not import. Not Python: the command as is.
std::string keep_python_path(bool python, const fs::path& dir, const std::string& command) {
  if (!python || command.find("PYTHONPATH=") == std::string::npos) return command;
  static const rx::regex assignment(R"re((^|[\s;&|(`])PYTHONPATH=((?:"[^"]*"|'[^']*'|[^\s;&|()`'"])*))re");
  std::string out;
  std::size_t from = 0;
  for (rx::sregex_iterator it(command.begin(), command.end(), assignment), e; it != e; ++it) {
    const auto& m = *it;
    out += command.substr(from, static_cast<std::size_t>(m.position()) - from);
    const std::string value = m[2].str();
    out += m[1].str() + "PYTHONPATH=" + (value.empty() ? shell_quote(dir.string()) : shell_quote(dir.string()) + ":" + value);
    from = static_cast<std::size_t>(m.position() + m.length());
  }
  return out + command.substr(from);
}

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

/// coverage.py JSON: file -> (executed lines, missing lines), paths relative to `root`. With
/// `in_tests`, the lines that ran while a test function ran (coverage.py's `test_function` dynamic
/// context, `--show-contexts`: a line run on import or in a fixture has only the empty context).
using LineSets = std::map<std::string, std::pair<std::set<int>, std::set<int>>>;
LineSets read_coverage_json(const std::string& text, const fs::path& root, std::map<std::string, std::set<int>>* in_tests = nullptr) {
  LineSets out;
  auto doc = parse_json(text);
  if (!doc) return out;
  const Json* files = doc->find("files");
  if (!files || !files->is_object()) return out;
  for (const auto& [name, f] : files->as_object()) {
    const std::string rel = rel_to_root(name, root);
    if (rel.empty()) continue;
    auto& entry = out[rel];
    for (const auto& [key, dst] : {std::pair<const char*, std::set<int>*>{"executed_lines", &entry.first},
                                   {"missing_lines", &entry.second}}) {
      const Json* lines = f.find(key);
      if (!lines || !lines->is_array()) continue;
      for (const auto& l : lines->as_array())
        if (l.is_int()) dst->insert(static_cast<int>(l.as_int()));
    }
    const Json* contexts = in_tests ? f.find("contexts") : nullptr;
    if (!contexts || !contexts->is_object()) continue;
    for (const auto& [line, names] : contexts->as_object()) {
      if (!names.is_array()) continue;
      const bool in_test = std::any_of(names.as_array().begin(), names.as_array().end(),
                                       [](const Json& n) { return n.is_string() && !n.as_string().empty(); });
      if (in_test && !line.empty() && line.size() < 10 && std::all_of(line.begin(), line.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
        (*in_tests)[rel].insert(std::stoi(line));
    }
  }
  return out;
}

/// istanbul's coverage-final.json as jest's and vitest's V8 providers write it (V8 block coverage
/// mapped back to the file's own lines through the runner's source maps): file -> (lines of
/// statements that ran, lines of statements that never ran), paths relative to `root`.
LineSets read_istanbul_json(const std::string& text, const fs::path& root) {
  LineSets out;
  auto doc = parse_json(text);
  if (!doc || !doc->is_object()) return out;
  for (const auto& [name, f] : doc->as_object()) {
    const std::string rel = rel_to_root(name, root);
    const Json* map = f.find("statementMap");
    const Json* counts = f.find("s");
    if (rel.empty() || !map || !map->is_object() || !counts || !counts->is_object()) continue;
    auto& [ran, missed] = out[rel];
    for (const auto& [id, count] : counts->as_object()) {
      const Json* st = map->find(id);
      if (!st || !count.is_int()) continue;
      const int from = static_cast<int>(st->find("start") ? st->find("start")->get_int("line") : 0);
      const int to = static_cast<int>(st->find("end") ? st->find("end")->get_int("line") : 0);
      for (int l = from; l > 0 && l <= std::max(from, to) && l - from < 10000; ++l) (count.as_int() > 0 ? ran : missed).insert(l);
    }
    for (int l : ran) missed.erase(l);
  }
  return out;
}

/// A file name usable inside a glob as it is (the coverage flags select the test files by
/// `**/<name>`): no glob or brace syntax.
bool glob_safe(const std::string& name) { return !name.empty() && name.find_first_of("*?[]{}()!+@,\\'\" ") == std::string::npos; }

/// The directories a jest or vitest configuration for `files` can live in: the root and every
/// folder above a test file.
std::vector<std::string> config_dirs(const std::vector<std::string>& files) {
  std::vector<std::string> dirs{""};
  for (const auto& f : files) {
    for (fs::path d = fs::path(f).parent_path(); !d.empty(); d = d.parent_path()) {
      const std::string s = d.generic_string() + "/";
      if (std::find(dirs.begin(), dirs.end(), s) == dirs.end()) dirs.push_back(s);
    }
  }
  return dirs;
}

/// Why jest's V8 coverage cannot be trusted to name the test files' own lines: jest maps a
/// transform's output back only when the transform returned a source map (babel-jest, the
/// default, always does; otherwise jest applies the transformed offsets to the original text, a
/// guess). So any configured transform or preset, or a configuration this check cannot read, is
/// "no evidence available". Empty when only the default transform applies.
std::string jest_unmapped_note(const SandboxFs& tree, const std::string& tmpl, const std::vector<std::string>& files) {
  for (const char* opt : {"--config", " -c ", "--projects", "--preset", "--transform"})
    if (tmpl.find(opt) != std::string::npos)
      return std::string("the jest command sets its configuration (") + opt + "): whether its transforms keep source maps is not known";
  for (const auto& dir : config_dirs(files)) {
    if (auto pkg = tree.read(dir + "package.json", 1u << 20)) {
      auto doc = parse_json(*pkg);
      const Json* jest = doc && doc->is_object() ? doc->find("jest") : nullptr;
      if (jest && (!jest->is_object() || jest->find("transform") || jest->find("preset") || jest->find("projects")))
        return dir + "package.json configures a jest transform or preset: its source maps are not known";
    }
    for (const char* ext : {"js", "ts", "mjs", "cjs", "json"}) {
      const std::string cfg = dir + "jest.config." + ext;
      auto text = tree.read(cfg, 1u << 20);
      if (text && (text->find("transform") != std::string::npos || text->find("preset") != std::string::npos ||
                   text->find("projects") != std::string::npos))
        return cfg + " configures a jest transform, preset or projects: their source maps are not known";
    }
  }
  return {};
}

/// The V8 coverage provider vitest loads (as a custom provider module, so that it is the one next
/// to the runner that runs): beside a vitest binary the command names by path, else in the
/// project's node_modules (the root or a folder above a test file). Empty when none is installed.
std::string vitest_provider(const SandboxFs& tree, const fs::path& root, const std::string& tmpl, const std::vector<std::string>& files) {
  const std::string module = "@vitest/coverage-v8/dist/index.js";
  std::istringstream words(tmpl);
  for (std::string w; words >> w;) {
    const std::string bin = "node_modules/.bin/vitest";
    if (w.size() < bin.size() || w.compare(w.size() - bin.size(), bin.size(), bin) != 0) continue;
    const fs::path modules = (fs::path(w).is_absolute() ? fs::path(w) : root / w).parent_path().parent_path();
    const std::string rel = rel_to_root(modules.string(), root);
    if (rel.empty()) {
      std::error_code ec;
      if (fs::is_regular_file(modules / module, ec)) return (modules / module).string();
    } else if (auto st = tree.stat(rel + "/" + module); st && S_ISREG(st->st_mode)) {
      return (root / rel / module).string();
    }
  }
  for (const auto& dir : config_dirs(files))
    if (auto st = tree.stat(dir + "node_modules/" + module); st && S_ISREG(st->st_mode)) return (root / (dir + "node_modules/" + module)).string();
  return {};
}

/// The files below `root` the coverage run would load instead of (or beside) what the checkout
/// held before the tests ran: modules that shadow the coverage tool or the runner at the root,
/// every conftest.py, runner configuration and package.json from the root down to a measured
/// file, the measured files themselves, and an in-tree coverage provider.
std::vector<std::string> loaded_from_tree(bool python, const std::vector<std::string>& measured, const std::string& provider_rel) {
  std::vector<std::string> out;
  if (python)
    for (const char* n : {"coverage", "coverage.py", "pytest.py", "pytest", "_pytest", "sitecustomize.py", "usercustomize.py",
                          "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml"})
      out.emplace_back(n);
  for (const auto& dir : config_dirs(measured)) {
    if (python) {
      out.push_back(dir + "conftest.py");
      continue;
    }
    for (const char* n : {"package.json", "jest.config.js", "jest.config.ts", "jest.config.mjs", "jest.config.cjs", "jest.config.json",
                          "vitest.config.js", "vitest.config.ts", "vitest.config.mjs", "vitest.config.mts", "vite.config.js",
                          "vite.config.ts", "vite.config.mjs", "babel.config.js", ".babelrc"})
      out.push_back(dir + n);
  }
  out.insert(out.end(), measured.begin(), measured.end());
  if (!provider_rel.empty()) out.push_back(provider_rel);
  return out;
}

/// The first of `paths` whose entry changed at or after `since` (its ctime: test code cannot set it
/// back), or that is reached through a symlinked folder; "" when none. lstat, not stat: a planted
/// symlink to an old file has a new ctime of its own.
std::string changed_since(const fs::path& root, const std::vector<std::string>& paths, std::chrono::system_clock::time_point since) {
  for (const auto& p : paths) {
    fs::path at = root;
    bool through_link = false;
    const fs::path rel(p);
    for (auto it = rel.begin(); it != rel.end(); ++it) {
      at /= *it;
      struct stat st {};
      if (::lstat(at.c_str(), &st) != 0) break;  // absent: nothing to load
      const bool leaf = std::next(it) == rel.end();
      if (!leaf && !S_ISDIR(st.st_mode)) {
        through_link = S_ISLNK(st.st_mode);
        break;
      }
      if (!leaf) continue;
      const auto ctime = std::chrono::system_clock::time_point(std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::seconds(st.st_ctim.tv_sec) + std::chrono::nanoseconds(st.st_ctim.tv_nsec)));
      if (ctime >= since) return p;
    }
    if (through_link) return p;
  }
  return {};
}

/// The functions (`def`, `async def`) of a Python file and whether each ran, from coverage.py's
/// line sets: `executed`, the lines that ran (in the measured part of the run); `statements`, every
/// statement line coverage.py saw. A body statement that executed ran; a body with statements none
/// of which executed did not. A body on the `def` line itself (`def f(): return x`) runs its only
/// line when the module is imported, so whether it was called is not known.
std::vector<FunctionRun> python_functions(const std::string& text, const std::set<int>& executed, const std::set<int>& statements) {
  std::vector<std::string> lines;
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t nl = text.find('\n', at);
    lines.push_back(text.substr(at, nl == std::string::npos ? std::string::npos : nl - at));
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  static const rx::regex def(R"(^([ \t]*)(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*))");
  auto indent_of = [](const std::string& l) { return l.find_first_not_of(" \t"); };
  std::vector<FunctionRun> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    rx::smatch m;
    if (!rx::regex_search(lines[i], m, def)) continue;
    const std::size_t indent = static_cast<std::size_t>(m[1].length());
    // The header ends at its `:` outside brackets; code after it on that line is a one-line body.
    std::size_t h = i;
    int depth = 0;
    bool inline_body = false, found = false;
    for (; h < lines.size() && !found; ++h) {
      const std::string& l = lines[h];
      for (std::size_t k = h == i ? static_cast<std::size_t>(m.position() + m.length()) : 0; k < l.size(); ++k) {
        const char c = l[k];
        if (c == '#') break;
        if (c == '(' || c == '[' || c == '{') ++depth;
        else if (c == ')' || c == ']' || c == '}') --depth;
        else if (c == ':' && depth <= 0) {
          const std::size_t rest = l.find_first_not_of(" \t", k + 1);
          inline_body = rest != std::string::npos && l[rest] != '#';
          found = true;
          break;
        }
      }
      if (found) break;
    }
    if (!found) continue;
    FunctionRun f;
    f.name = m[2].str();
    f.line = static_cast<int>(i) + 1;
    if (!inline_body) {
      std::size_t end = h + 1;  // 0-based index of the first line past the body
      while (end < lines.size()) {
        const std::size_t ind = indent_of(lines[end]);
        if (ind != std::string::npos && lines[end][ind] != '#' && ind <= indent) break;
        ++end;
      }
      for (std::size_t b = h + 1; b < end; ++b) {
        const int ln = static_cast<int>(b) + 1;
        if (executed.count(ln)) f.ran = true;
        if (statements.count(ln)) f.known = true;
      }
    }
    out.push_back(std::move(f));
  }
  return out;
}

/// The module a Python test file's import names, as the runtime names it: `pkg.calc` for `calc`
/// imported absolutely, and for `..calc` in `pkg/tests/test_calc.py` (a relative import, resolved
/// through the package the file is in: its directories that hold an `__init__.py`, as pytest names
/// it). "" when a relative import leaves the file's package.
std::string python_module_name(const SandboxFs& tree, const std::string& test_path, const std::string& written) {
  if (written.empty()) return {};
  if (written.front() != '.') return written;
  std::vector<std::string> package;  // the file's package, innermost last
  for (fs::path dir = fs::path(test_path).parent_path(); !dir.empty(); dir = dir.parent_path()) {
    auto st = tree.stat((dir / "__init__.py").generic_string());
    if (!st || !S_ISREG(st->st_mode)) break;
    package.insert(package.begin(), dir.filename().string());
  }
  const std::size_t dots = written.find_first_not_of('.') == std::string::npos ? written.size() : written.find_first_not_of('.');
  if (package.empty() || dots - 1 >= package.size()) return {};
  package.resize(package.size() - (dots - 1));
  std::string out;
  for (const auto& part : package) out += (out.empty() ? "" : ".") + part;
  return dots < written.size() ? out + "." + written.substr(dots) : out;
}

/// Whether Python module `module`'s package holds a submodule `name` (a file of the tree, at its
/// root or under `src/`).
bool python_submodule(const SandboxFs& tree, const std::string& module, const std::string& name) {
  std::string dir = module;
  std::replace(dir.begin(), dir.end(), '.', '/');
  for (const char* prefix : {"", "src/"})
    for (const char* ext : {".py", "/__init__.py"}) {
      auto st = tree.stat(prefix + dir + "/" + name + ext);
      if (st && S_ISREG(st->st_mode)) return true;
    }
  return false;
}

/// The folders pytest's `pythonpath` setting adds to the import path (pytest.ini, pyproject.toml,
/// setup.cfg, tox.ini at the root: `pythonpath = . lib`, `pythonpath = ["src", "lib"]`), each with
/// a trailing `/` ("" for the root).
std::vector<std::string> pytest_pythonpath(const SandboxFs& tree) {
  std::vector<std::string> out;
  static const rx::regex setting(R"(^\s*pythonpath\s*=\s*(.*)$)");
  static const rx::regex entry(R"([A-Za-z0-9_.\-/]+)");
  for (const char* config : {"pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"}) {
    auto text = tree.read(config, 1u << 20);
    if (!text) continue;
    std::istringstream in(*text);
    for (std::string line; std::getline(in, line);) {
      rx::smatch m;
      if (!rx::regex_match(line, m, setting)) continue;
      const std::string value = m[1].str();
      for (rx::sregex_iterator it(value.begin(), value.end(), entry), e; it != e; ++it) {
        std::string dir = fs::path(it->str()).lexically_normal().generic_string();
        if (dir == "." || dir == "./") dir.clear();
        if (dir.rfind("..", 0) == 0 || (!dir.empty() && dir.front() == '/')) continue;
        if (!dir.empty() && dir.back() != '/') dir += '/';
        if (std::find(out.begin(), out.end(), dir) == out.end()) out.push_back(dir);
      }
    }
  }
  return out;
}

/// The file of the tree a module names as the file at `from` imports it (`tests.helpers`,
/// `.helpers`, `helpers` beside it, `./helpers`; a folder of pytest's `pythonpath`: `lib/calc.py`):
/// "" when the tree has none.
std::string module_file(const SandboxFs& tree, bool python, const std::string& from, const std::string& module) {
  auto regular = [&](const std::string& p) {
    auto st = tree.stat(p);
    return st && S_ISREG(st->st_mode);
  };
  const fs::path dir = fs::path(from).parent_path();
  if (!python) {
    if (module.rfind("./", 0) != 0 && module.rfind("../", 0) != 0) return {};
    const std::string base = (dir / module).lexically_normal().generic_string();
    if (base.empty() || base.rfind("..", 0) == 0) return {};
    for (const auto ext : integrity::js_module_suffixes())
      if (regular(base + std::string(ext))) return base + std::string(ext);
    return {};
  }
  std::string m = python_module_name(tree, from, module);
  if (m.empty()) return {};
  std::replace(m.begin(), m.end(), '.', '/');
  std::vector<std::string> prefixes = {"", "src/"};  // (the root, `src/`, beside the file, pytest's pythonpath)
  if (!dir.empty()) prefixes.push_back(dir.generic_string() + "/");
  for (auto& p : pytest_pythonpath(tree))
    if (std::find(prefixes.begin(), prefixes.end(), p) == prefixes.end()) prefixes.push_back(std::move(p));
  for (const auto& prefix : prefixes)
    for (const char* ext : {".py", "/__init__.py"})
      if (regular(prefix + m + ext)) return prefix + m + ext;
  return {};
}

/// The Python module the runtime names the file `file` of the tree by (`pkg/calc.py` ->
/// `pkg.calc`; under `src/` or a folder of pytest's `pythonpath`, without it).
std::string python_module_of(const SandboxFs& tree, std::string file) {
  if (file.size() < 3 || file.compare(file.size() - 3, 3, ".py") != 0) return {};
  file.resize(file.size() - 3);
  if (file == "__init__") return {};
  if (file.size() > 9 && file.compare(file.size() - 9, 9, "/__init__") == 0) file.resize(file.size() - 9);
  std::vector<std::string> prefixes = pytest_pythonpath(tree);
  prefixes.insert(prefixes.begin(), "src/");
  for (const auto& prefix : prefixes)
    if (!prefix.empty() && file.rfind(prefix, 0) == 0) {
      file = file.substr(prefix.size());
      break;
    }
  std::replace(file.begin(), file.end(), '/', '.');
  return file;
}

/// Whether JavaScript source `text` defines `name`: a function, a binding or class of that name,
/// an export (`exports.add =`), a member of an object literal or a class (`add: (a, b) =>`,
/// `add(a, b) {`).
rx::regex js_definition(const std::string& name) {
  std::string word;
  for (char ch : name) word += (ch == '$' ? "\\$" : std::string(1, ch));
  return detail::cached_regex("(?:function\\*?\\s+|(?:const|let|var|class)\\s+|exports\\.)" + word + "(?![\\w$])|(?:^|[\\s{,])" + word + "\\s*(?::|\\()");
}
bool js_defines(const std::string& text, const std::string& name) { return rx::regex_search(text, js_definition(name)); }

/// The code of the top-level definition of `name` in `text` (a function, a class's method
/// `Calc.add`, a JavaScript export or binding, a Python name bound once: `add = partial(...)`), with
/// comments, blank lines, a Python docstring and all whitespace left out: two versions of a file
/// whose definitions read the same here run the same code for it. "" when not found.
std::string definition_code(bool python, const std::string& text, const std::string& name) {
  // One line without its comment (quotes followed, so a `#` in a string stays), spaces removed.
  auto code_of = [&](const std::string& line) {
    std::string out;
    char quote = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quote) {
        if (c == '\\' && i + 1 < line.size()) {
          out += c;
          out += line[++i];
          continue;
        }
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'' || (!python && c == '`')) {
        quote = c;
      } else if ((python && c == '#') || (!python && c == '/' && i + 1 < line.size() && line[i + 1] == '/')) {
        break;
      }
      if (!std::isspace(static_cast<unsigned char>(c))) out += c;
    }
    return out;
  };
  std::vector<std::string> lines;
  {
    std::istringstream in(text.substr(0, 4u << 20));
    for (std::string l; std::getline(in, l);) lines.push_back(std::move(l));
  }
  auto indent_of = [](const std::string& l) { return l.find_first_not_of(" \t"); };
  std::string out;
  const auto dot = name.find('.');
  const std::string cls = dot == std::string::npos ? "" : name.substr(0, dot), fn = dot == std::string::npos ? name : name.substr(dot + 1);
  std::string word;  // (the name, `$` escaped for JavaScript)
  for (char ch : fn) word += (ch == '$' ? "\\$" : std::string(1, ch));
  if (python) {
    const rx::regex def = detail::cached_regex(R"(^\s*(?:async\s+)?def\s+)" + word + R"(\s*\()");
    const rx::regex bound = detail::cached_regex("^" + word + R"(\s*(?::[^=]*)?=[^=])");
    const rx::regex class_line = detail::cached_regex("^class\\s+" + cls + R"(\b)");
    bool in_class = cls.empty();
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const std::string& l = lines[i];
      const auto ind = indent_of(l);
      if (ind == std::string::npos) continue;
      if (!cls.empty() && ind == 0) in_class = rx::regex_search(l, class_line);
      if (!in_class) continue;
      // (Every top-level binding of the name is part of what it is: `add = lambda ...` below the
      // `def` rebinds it; review 31.)
      if (cls.empty() && rx::regex_search(l, bound)) {
        out += code_of(l) + "\n";
        continue;
      }
      if (!rx::regex_search(l, def) || (cls.empty() ? ind != 0 : ind == 0)) continue;
      // (Its decorators, right above it.)
      for (std::size_t d = i; d-- > 0 && indent_of(lines[d]) == ind && lines[d].compare(ind, 1, "@") == 0;) out = code_of(lines[d]) + "\n" + out;
      out += code_of(l) + "\n";
      bool first = true;
      for (std::size_t j = i + 1; j < lines.size(); ++j) {
        const auto jind = indent_of(lines[j]);
        const std::string c = code_of(lines[j]);
        if (jind == std::string::npos || c.empty()) continue;
        if (jind <= ind && c.front() != ')' && c.front() != ']') break;
        const bool string_first = c.front() == '"' || c.front() == '\'';
        if (first && string_first) {
          // The docstring (the body's first statement, a string), over as many lines as it takes.
          first = false;
          const std::string q = c.substr(0, 3);
          if ((q == "\"\"\"" || q == "'''") && (c.size() < 6 || c.find(q, 3) == std::string::npos))
            while (++j < lines.size() && lines[j].find(q) == std::string::npos) {
            }
          continue;
        }
        first = false;
        out += c + "\n";
        i = j;
      }
      if (!cls.empty()) return out;
    }
    return out;
  }
  // JavaScript: from the line of the definition to where its brackets close at the end of a statement.
  const rx::regex defines = js_definition(fn);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!rx::regex_search(lines[i], defines)) continue;
    int depth = 0;
    for (std::size_t j = i; j < lines.size() && j < i + 2000; ++j) {
      const std::string c = code_of(lines[j]);
      if (c.empty()) continue;
      out += c + "\n";
      char quote = 0;
      for (std::size_t k = 0; k < c.size(); ++k) {
        if (quote) {
          if (c[k] == '\\') ++k;
          else if (c[k] == quote) quote = 0;
        } else if (c[k] == '"' || c[k] == '\'' || c[k] == '`') {
          quote = c[k];
        } else if (c[k] == '(' || c[k] == '[' || c[k] == '{') {
          ++depth;
        } else if (c[k] == ')' || c[k] == ']' || c[k] == '}') {
          --depth;
        }
      }
      static const std::string kGoesOn = "=>,(+-*/&|?:[{.";
      if (depth <= 0 && kGoesOn.find(c.back()) == std::string::npos) break;
    }
    return out;
  }
  return {};
}

/// Whether `after` (a definition as definition_code reads it) holds more of the constructs that
/// single out inputs than `before`: a branch or conditional (`if`, `elif`, `else`, a ternary, `case`,
/// `match`), a comparison for equality (`==`, `!=`, `===`), a membership test (`in(`, `in[`,
/// `in{`, `.has(`), a lookup (`.get(`, `[` ... `]` of a literal), a collection written out (`{`,
/// `Map(`, `Set(`). A fix that only changes an operator (`<=` to `<`), a constant or a value of
/// an existing table adds none: it is not special-casing its inputs, whatever its neighbours say.
bool adds_special_casing(const std::string& before, const std::string& after) {
  static const std::vector<std::string> kTokens = {"elif", "if", "else", "?", "case", "match", "switch", "===", "!==", "==", "!=",
                                                   "in(", "in[", "in{", ".has(", ".get(", ".includes(", "{", "Map(", "Set(", "??", "&&", "||"};
  auto counts = [&](const std::string& code) {
    std::vector<int> n(kTokens.size(), 0);
    for (std::size_t i = 0; i < code.size();) {
      std::size_t best = kTokens.size(), len = 0;
      for (std::size_t t = 0; t < kTokens.size(); ++t)
        if (kTokens[t].size() > len && code.compare(i, kTokens[t].size(), kTokens[t]) == 0) {
          best = t;
          len = kTokens[t].size();
        }
      if (best == kTokens.size()) {
        ++i;
        continue;
      }
      ++n[best];
      i += len;
    }
    return n;
  };
  const auto b = counts(before), a = counts(after);
  for (std::size_t t = 0; t < kTokens.size(); ++t)
    if (a[t] > b[t]) return true;
  return false;
}

/// The project's definitions of a function named `name` (files of the tree at `head`, not tests,
/// not dependencies): {file, the name to move: `add`, or a Python method `Calc.add`}. For a pin
/// whose module the test file does not name (a conftest.py fixture, a loader function): at most
/// `cap`, those in `first` (the files the developer's change touched) first.
std::vector<std::pair<std::string, std::string>> project_definitions(const SandboxFs& tree, const GitRepo& repo, const std::string& head, bool python,
                                                                     const std::string& name, const std::set<std::string>& first, std::size_t cap) {
  std::vector<std::pair<std::string, std::string>> out;
  auto files = files_containing(repo, head, {name});
  if (!files) return out;
  std::stable_partition(files->begin(), files->end(), [&](const std::string& f) { return first.count(f) > 0; });
  auto ends_with = [](const std::string& s, std::string_view x) { return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0; };
  std::size_t read = 0;
  for (const auto& file : *files) {
    if (out.size() >= cap || read >= 64) break;
    if (is_test_path(file) || file.find("node_modules/") != std::string::npos) continue;
    bool source = python ? ends_with(file, ".py") : false;
    if (!python)
      for (const auto ext : integrity::js_module_suffixes())
        source = source || (!ext.empty() && ext.front() == '.' && ends_with(file, ext));
    if (!source) continue;
    ++read;
    auto text = tree.read(file, 4u << 20);
    if (!text) continue;
    if (!python) {
      if (js_defines(*text, name)) out.emplace_back(file, name);
      continue;
    }
    if (integrity::file_names(integrity::Lang::python, *text).defined.count(name)) out.emplace_back(file, name);
    // A method of a class at the top level (`class Calc:` ... `    def add(self, a, b):`), the
    // first such class of the file.
    static const rx::regex cls(R"(^class\s+([A-Za-z_]\w*))");
    const rx::regex method = detail::cached_regex(R"(^\s+(?:async\s+)?def\s+)" + name + R"(\s*\()");
    std::string current;
    std::istringstream in(*text);
    for (std::string line; std::getline(in, line);) {
      rx::smatch m;
      if (rx::regex_search(line, m, cls)) current = m[1].str();
      else if (!line.empty() && !std::isspace(static_cast<unsigned char>(line.front())) && line.front() != '#' && line.front() != '@' && line.front() != ')')
        current.clear();
      if (!current.empty() && rx::regex_search(line, method) && out.size() < cap) {
        out.emplace_back(file, current + "." + name);
        break;
      }
    }
  }
  return out;
}

/// Whether the test-side module `via` that the test file `test_path` imports (a helper module of
/// the tests) calls the function `pin` names, imported from the same module as the test file's
/// (`from calc import add` ... `add(`, `import calc` ... `calc.add(`). A module of the project's
/// own code is not a helper (what it calls is the project's business) unless the patch added it
/// (`added`: a helper the patch put outside the test folders; a module it changed, the fix's own
/// file among them, stays the project's: review 29).
bool helper_calls(const SandboxFs& tree, bool python, const std::string& test_path, const std::string& via, const integrity::PinnedCall& pin,
                  const std::set<std::string>& added) {
  if (!pin.cls.empty()) return false;
  const std::string file = module_file(tree, python, test_path, via);
  if (file.empty() || file == test_path || (!is_test_path(file) && !added.count(file))) return false;
  auto text = tree.read(file, 2u << 20);
  if (!text) return false;
  auto same_module = [&](const std::string& m) {
    if (python) {
      const std::string a = python_module_name(tree, file, m);
      return !a.empty() && a == python_module_name(tree, test_path, pin.module);
    }
    if (m.rfind(".", 0) != 0 || pin.module.rfind(".", 0) != 0) return m == pin.module;
    return (fs::path(file).parent_path() / m).lexically_normal() == (fs::path(test_path).parent_path() / pin.module).lexically_normal();
  };
  const integrity::FileNames names = integrity::file_names(integrity::lang_of(file), *text);
  // `add` / `calc.add` called or passed on (not `x.add`), beyond the import that names it.
  auto used = [&](const std::string& form, std::ptrdiff_t beyond_import) {
    std::string escaped;
    for (char c : form) escaped += (c == '.' || c == '$' ? "\\" : "") + std::string(1, c);
    const rx::regex re = detail::cached_regex(R"((?:^|[^\w$.]))" + escaped + R"((?![\w$]))");
    return std::distance(rx::sregex_iterator(text->begin(), text->end(), re), rx::sregex_iterator()) > beyond_import;
  };
  for (const auto& [local, m] : names.imported) {
    if (!same_module(m)) continue;
    if (names.module_bindings.count(local) ? used(local + "." + pin.name, 0) : integrity::exported_name(file, *text, local) == pin.name && used(local, 1))
      return true;
  }
  return false;
}

/// Does a module a test file imports name `file` (repository-relative)? A relative JavaScript
/// specifier (`./calc`, `../sum`) resolved from the test's folder, with its extensions and index
/// files; a Python module (`calc`, `pkg.mod`, `.mod`) as a file or package at any depth
/// (`src/pkg/mod.py`). A package name (node_modules, the standard library) names no file of the
/// project.
bool module_names_file(bool python, const std::string& test_path, const std::string& module, const std::string& file) {
  const fs::path dir = fs::path(test_path).parent_path();
  if (!python) {
    if (module.rfind("./", 0) != 0 && module.rfind("../", 0) != 0) return false;
    const std::string base = (dir / module).lexically_normal().generic_string();
    if (base.empty() || base.rfind("..", 0) == 0) return false;
    for (const auto ext : integrity::js_module_suffixes())
      if (file == base + std::string(ext)) return true;
    return false;
  }
  std::string m = module;
  const bool relative = !m.empty() && m.front() == '.';
  while (!m.empty() && m.front() == '.') m.erase(0, 1);
  if (m.empty()) return false;
  std::replace(m.begin(), m.end(), '.', '/');
  for (const char* ext : {".py", "/__init__.py"}) {
    const std::string tail = m + ext;
    if (relative) {
      if (file == (dir / tail).lexically_normal().generic_string()) return true;
    } else if (file == tail || (file.size() > tail.size() && ends_with(file, "/" + tail))) {
      return true;
    }
  }
  return false;
}

}  // namespace

Expected<AssertionCheck> check_assertions_ran(RepairContext& ctx, const fs::path& root, const std::string& patch_text,
                                              std::chrono::system_clock::time_point tests_started,
                                              const std::vector<TestReplacement>& replacements) {
  AssertionCheck out;
  const auto& req = ctx.request;
  const reports::Runner runner = plan_runner(req.commands.test, root / ".flowagent-none", root).runner;
  const MeasuredBy by = measured_by(runner);
  const bool python = by.python, js = by.js, mapped = by.mapped;
  // (A renamed requested test: the tests that replaced it, by their own names.)
  const std::vector<std::string> wanted = effective_tests(req.failure.failing_tests, replacements, python);
  if (!python && !js && !mapped) {
    out.note = "not available: no line coverage for this runner (pytest, node --test, tape, jest and vitest are checked)";
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
  auto accept = [&](const std::string& p) { return python ? python_file(p) : mapped ? mapped_script_file(p) : js_file(p); };
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
    // (Reading a file's assertions can take seconds on a large one: the job's limits hold between files.)
    if (ctx.cancel.cancelled()) return fail(Errc::cancelled, "cancelled while reading the tests' assertions");
    auto after = tree->read(path, 8u << 20);
    if (!after) continue;  // deleted by the patch, or not a readable file
    const PatchFile* pf = nullptr;
    for (const auto& f : patch->files)
      if (f.new_path == path) pf = &f;
    if (!pf) {
      c.before = *after;  // untouched: every condition in it is the developer's
    } else if (pf->status != PatchStatus::added) {
      auto b = text_before(ctx, repo, *pf);
      if (!b) return unexpected(b.error());
      c.before = std::move(*b);
    }
    for (auto& r : integrity::required_assertion_lines(path, c.before, *after, wanted, c.whole_file))
      required.emplace_back(path, std::move(r));
  }
  if (required.empty()) {
    out.note = "not applicable: no assertion line of a requested test to check";
    return out;
  }
  std::vector<std::string> measured;  // the files the coverage must name
  for (const auto& [path, r] : required)
    if (std::find(measured.begin(), measured.end(), path) == measured.end()) measured.push_back(path);
  // jest and vitest: the runner's own V8 coverage, mapped back through its transforms' source
  // maps; where it cannot be (no provider, a transform whose maps are not known), no evidence is
  // available and the result says so.
  std::string vitest_module, glob_flags;
  if (mapped) {
    for (const auto& f : measured) {
      const std::string name = fs::path(f).filename().string();
      if (!glob_safe(name)) {
        out.note = "not available: " + f + " cannot be named in a coverage glob";
        return out;
      }
      const std::string g = shell_quote("**/" + name);
      glob_flags += runner == reports::Runner::jest ? " --collectCoverageFrom=" + g + " --forceCoverageMatch=" + g : " --coverage.include=" + g;
    }
    // The coverage tool reports lines under a `/* c8 ignore next */`, `/* v8 ignore start */`
    // or `/* node:coverage disable */` comment as run (v8-to-istanbul counts them 1): such a
    // comment the patch adds to a measured file would forge the evidence.
    auto ignores = [](const std::string& text) {
      std::size_t n = 0;
      for (const char* k : {"8 ignore", "node:coverage "})
        for (auto at = text.find(k); at != std::string::npos; at = text.find(k, at + 1)) ++n;
      return n;
    };
    for (const auto& f : measured) {
      auto after = tree->read(f, 8u << 20);
      const auto& before = files[f].before;
      if (after && ignores(*after) > (before ? ignores(*before) : 0)) {
        out.reason = "unverified";
        out.message = "the patch adds a coverage-ignore comment (`c8 ignore`, `v8 ignore`, `node:coverage`) to " + f +
                      ": the coverage tool reports the lines under it as run, so the requested tests' assertions cannot be "
                      "seen to run";
        return out;
      }
    }
    if (runner == reports::Runner::jest) {
      if (auto why = jest_unmapped_note(*tree, req.commands.test, measured); !why.empty()) {
        out.note = "not available: " + why;
        return out;
      }
    } else {
      vitest_module = vitest_provider(*tree, root, req.commands.test, measured);
      if (vitest_module.empty()) {
        out.note = "not available: @vitest/coverage-v8 is not installed beside vitest or in the project";
        return out;
      }
    }
  }

  if (tests_started != std::chrono::system_clock::time_point{}) {
    const std::string provider_rel = vitest_module.empty() ? std::string() : rel_to_root(vitest_module, root);
    if (auto planted = changed_since(root, loaded_from_tree(python, measured, provider_rel), tests_started); !planted.empty()) {
      out.reason = "unverified";
      out.message = planted + " was written while the requested tests ran in this checkout, and the coverage run would load it: "
                    "their assertions cannot be seen to run";
      return out;
    }
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
  std::map<std::string, std::set<int>> ran_in_tests;  // Python: lines run while a test function ran
  std::string command;
  ProcessResult result;
  if (python) {
    PytestSpan span = find_pytest(*tmpl);
    if (span.at == std::string::npos) {
      out.note = "not available: the test command does not name pytest";
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
      out.note = "not available: coverage.py is not installed (Debian python3-coverage)";
      return out;
    }
    const fs::path rc = data.path / "rc";
    {
      std::ofstream f(rc);
      // (test_function: each line records the test functions it ran under; `code_under_test` below.)
      f << "[run]\ndata_file = " << (data.path / "data").string() << "\nsource = " << root.string() << "\nomit = "
        << data.path.string() << "/*\ndynamic_context = test_function\n";
    }
    const fs::path json = data.path / "cov.json";
    {
      std::ofstream f(data.path / (plugin_module(data.path, "flowagent_collect_calls") + ".py"));
      f << kPythonCollectCalls;
      if (!f) return fail(Errc::io, "cannot write the collection plugin into " + data.path.string());
    }
    std::string cmd = *tmpl;
    cmd.replace(span.at, span.len, shell_quote(py) + " -m coverage run --rcfile=" + shell_quote(rc.string()) + " -m pytest -p " + plugin_module(data.path, "flowagent_collect_calls"));
    // The plugin writes the JSON report at the end of pytest's session; where that did not happen
    // (pytest never got there) the shell writes it from the data file.
    command = "export FLOWAGENT_COLLECT_CALLS=" + shell_quote((data.path / "collected.json").string()) +
              " FLOWAGENT_COVERAGE_JSON=" + shell_quote(json.string()) + " PYTHONPATH=" + shell_quote(data.path.string()) +
              "${PYTHONPATH:+:$PYTHONPATH}; ( " + keep_python_path(true, data.path, expand_tests(cmd, ids)) + " ); flowagent_rc=$?; [ -s " +
              shell_quote(json.string()) + " ] || " + shell_quote(py) + " -m coverage json --rcfile=" +
              shell_quote(rc.string()) + " --show-contexts -o " + shell_quote(json.string()) + " >/dev/null 2>&1; exit $flowagent_rc";
    auto r = run(command);
    if (!r) return unexpected(r.error());
    result = *r;
    auto text = tree->read(json.lexically_relative(root).generic_string(), 64u << 20);
    for (auto& [file, sets] : read_coverage_json(text ? *text : std::string(), root, &ran_in_tests)) {
      ran[file] = std::move(sets.first);
      not_run[file] = std::move(sets.second);
    }
  } else if (mapped) {
    const fs::path dir = data.path / "js";
    const auto q = [](const fs::path& p) { return shell_quote(p.string()); };
    // Test files are left out of coverage by default (jest: testMatch/testRegex unless
    // forceCoverageMatch; vitest: coverage.exclude): the flags name exactly the files to measure.
    std::string flags =
        runner == reports::Runner::jest
            ? " --coverage --coverageProvider=v8 --coverageReporters=json --coverageDirectory=" + q(dir) +
                  " --coveragePathIgnorePatterns=/node_modules/"
            : " --coverage.enabled --coverage.provider=custom --coverage.customProviderModule=" + q(vitest_module) +
                  " --coverage.reporter=json --coverage.reportsDirectory=" + q(dir) +
                  " --coverage.exclude=" + shell_quote("**/node_modules/**") + " --coverage.all=false --coverage.reportOnFailure";
    const RunnerPlan plan = plan_runner(*tmpl, data.path, root, flags + glob_flags);
    command = expand_tests(plan.command_template, ids);
    auto r = run(command);
    if (!r) return unexpected(r.error());
    result = *r;
    auto text = tree->read((dir / "coverage-final.json").lexically_relative(root).generic_string(), 64u << 20);
    for (auto& [file, sets] : read_istanbul_json(text ? *text : std::string(), root)) {
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
  out.runs.push_back(test_run_of(command, result, "assertions"));
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
    bool executed = ran.count(file) && ran.at(file).count(r.line);
    // (A check on a continuation line, `pytest.raises(E),` inside `with (...)`: its statement's
    // first line is the one coverage.py reports. A statement it left out of both lists as
    // unreachable starts its own line, so it stays unrun.)
    if (python && !executed && !(not_run.count(file) && not_run.at(file).count(r.line)))
      if (auto text = tree->read(file, 8u << 20)) {
        const int start = python_statement_start(*text, r.line);
        if (start != r.line) executed = ran.count(file) && ran.at(file).count(start);
      }
    // coverage.py leaves statements it can see are unreachable (after a return) out of both of
    // its lists: for a measured Python file, a statement line that did not execute did not run.
    // jest and vitest (istanbul statements, one per line of code): a line without a statement is
    // one the source map or a `c8 ignore` comment hid, so it did not run either.
    const bool skipped = python || mapped || (not_run.count(file) && not_run.at(file).count(r.line));
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
  // The code under test must have run too. A test can keep its assertions running and still stop
  // the calls it checks from running: a loop that breaks before the call, a table emptied at run
  // time (`CASES.length = 0`, `splice(0)`, a slice of nothing), a `while` that never enters. When
  // the patch changed a requested test, the test calls functions the project defines, and not
  // one function of the project's own code ran in the run of just the requested tests, the test
  // checked nothing of the code. (A test whose calls run through code of its own, a fixture or a
  // module-level call runs some function and is left to the guard.) jest and vitest measure only
  // the test files here: not checked for them.
  if (!mapped) {
    std::set<std::string> called;
    struct ImportedCall {
      std::string name, test_file, module;
    };
    std::vector<ImportedCall> imported;
    std::map<std::string, integrity::TestCalls> calls_of;  // by test file
    std::map<std::string, std::string> text_of;            // by test file
    for (const auto& [path, c] : files) {
      if (!c.in_patch) continue;
      auto after = tree->read(path, 8u << 20);
      if (!after) continue;
      auto calls = integrity::requested_test_calls(path, *after, wanted, c.whole_file);
      called.insert(calls.names.begin(), calls.names.end());
      for (const auto& [name, modules] : calls.imported)
        for (const auto& module : modules) imported.push_back({name, path, module});
      calls_of[path] = std::move(calls);
      text_of[path] = std::move(*after);
    }
    std::map<std::string, std::vector<FunctionRun>> functions;
    if (python) {
      std::set<std::string> measured_files;
      for (const auto& [file, lines] : ran) measured_files.insert(file);
      for (const auto& [file, lines] : not_run) measured_files.insert(file);
      static const std::set<int> none;
      // A function "ran" when its body ran during a test function: code run on import (a
      // module-level `PRECISION = _load()`) does not count. Without any test context (a runner
      // configured to collect functions not named test*), every executed line counts.
      const bool contexts = !ran_in_tests.empty();
      std::set<std::pair<std::string, std::string>> collected;  // (file, function) a test module called while collected
      if (auto c = tree->read((data.path / "collected.json").lexically_relative(root).generic_string(), 4u << 20); c)
        if (auto j = parse_json(*c, 8); j && j->is_array())
          for (const auto& e : j->as_array())
            if (e.is_array() && e.size() == 3 && e.as_array()[0].is_string() && e.as_array()[1].is_string()) {
              const fs::path abs = fs::path(e.as_array()[0].as_string()).lexically_normal();
              const std::string rel = abs.lexically_relative(root.lexically_normal()).generic_string();
              if (!rel.empty() && rel.rfind("..", 0) != 0) collected.insert({rel, e.as_array()[1].as_string()});
            }
      for (const auto& file : measured_files) {
        if (!python_file(file) || is_test_path(file)) continue;
        auto text = tree->read(file, 8u << 20);
        if (!text) continue;
        const auto& executed = contexts ? (ran_in_tests.count(file) ? ran_in_tests.at(file) : none) : (ran.count(file) ? ran.at(file) : none);
        std::set<int> seen = not_run.count(file) ? not_run.at(file) : none;  // statements coverage.py saw
        if (ran.count(file)) seen.insert(ran.at(file).begin(), ran.at(file).end());
        functions[file] = python_functions(*text, executed, seen);
        // (Called by a test module while it was collected: run for the tests, though before any test.)
        for (auto& f : functions[file])
          if (collected.count({file, f.name})) f.ran = f.known = true;
        // A memoised function (`@cache`, `@lru_cache(...)`, `@cached_property`) warmed on import
        // answers the test from its cache: its body need not run again. Not judged.
        const std::vector<std::string> lines = absl::StrSplit(*text, '\n');
        static const rx::regex memo(R"(^\s*@[\w.]*(?:cache|memo)[\w.]*\b)", rx::regex::icase);
        for (auto& f : functions[file])
          for (int l = f.line - 1; l >= 1 && l <= static_cast<int>(lines.size()) && lines[static_cast<std::size_t>(l - 1)].find('@') != std::string::npos; --l)
            if (rx::regex_search(lines[static_cast<std::size_t>(l - 1)], memo)) f.known = false;
      }
    } else if (!called.empty() || !imported.empty()) {
      functions = read_v8_functions(data.path / "v8", root);
    }
    bool any_ran = false;
    std::vector<std::string> uncalled;
    for (const auto& [file, list] : functions) {
      if (is_test_path(file)) continue;
      for (const auto& f : list) {
        if (!f.known) continue;
        if (f.ran) any_ran = true;
        else if (called.count(f.name)) uncalled.push_back(f.name + " (" + file + ":" + std::to_string(f.line) + ")");
      }
    }
    // A name called through an import of a module of the project whose functions were measured
    // (`const sum = require('../sum')`, `import calc` ... `calc.add(`): that module's code. Through
    // other modules (`subprocess.run(`, `assert.strictEqual(`) it is not the project's, whatever
    // the project names its own functions. Python counts only a `def` of that name: code with no
    // body of its own (`add = lambda ...`, a dataclass's or an enum's generated methods,
    // `staticmethod(lambda ...)`) is not seen to run or not.
    for (const auto& call : imported)
      for (const auto& [file, list] : functions)
        if (!is_test_path(file) && module_names_file(python, call.test_file, call.module, file) &&
            std::any_of(list.begin(), list.end(), [&](const FunctionRun& f) { return f.known && (!python || f.name == call.name); })) {
          if (std::none_of(uncalled.begin(), uncalled.end(), [&](const std::string& u) { return u.rfind(call.name + " (" + file, 0) == 0; }))
            uncalled.push_back(call.name + " (" + file + ")");
          break;
        }
    // Each check of a changed test file that ran must have run the code it iterates over: a
    // function of a project module its statement calls by name once per element (`add` of
    // `all(add(a, b) == w for a, b, w in CASES if sub(a, b) > 5)`, of `picked.map(([a, b]) =>
    // add(a, b))` over a table filtered to nothing, also when the table is emptied on another line)
    // that never ran while the check did means the check compared nothing of it, whatever else of
    // the project ran. A function the module does not define by that name is not judged; a plain
    // call, a short-circuit or a conditional branch is not (RequiredAssertion::calls).
    std::vector<std::string> unchecked;
    for (const auto& [path, r] : required) {
      if (!calls_of.count(path) || !ran.count(path) || !ran.at(path).count(r.line)) continue;
      const auto& tc = calls_of.at(path);
      for (const auto& local : r.calls) {
        auto im = tc.imported.find(local);
        if (im == tc.imported.end()) continue;
        // (An import alias names the module's function by its own name: `{ add: plus }`.)
        const std::string name = integrity::exported_name(path, text_of.at(path), local);
        bool defined = false, executed = false;
        std::string where;
        for (const auto& [file, list] : functions) {
          if (is_test_path(file)) continue;
          if (std::none_of(im->second.begin(), im->second.end(), [&](const std::string& m) { return module_names_file(python, path, m, file); }))
            continue;
          // V8 names a function by where it is bound (`module.exports.all`, `exports.add`); a
          // module that is itself the function (`const sum = require('./sum')` of `module.exports
          // = (a, b) => ...`) is `module.exports` or `default`, matched when no function has the name.
          auto named = [&](const FunctionRun& f) { return f.name == name || (!python && f.name.ends_with("." + name)); };
          const bool any_named = std::any_of(list.begin(), list.end(), named);
          for (const auto& f : list) {
            const bool whole_module = !python && !any_named && (f.name == "module.exports" || f.name == "default" || f.name == "exports.default");
            if (!f.known || (!named(f) && !whole_module)) continue;
            defined = true;
            executed = executed || f.ran;
            if (where.empty()) where = file + ":" + std::to_string(f.line);
          }
        }
        if (defined && !executed)
          unchecked.push_back(name + " (" + where + "), called by the check at " + path + ":" + std::to_string(r.line) + " (test " + r.test + ")");
      }
    }
    if (!unchecked.empty()) {
      out.reason = "code_under_test_not_executed";
      out.message = "the requested tests pass and their checks ran, but the code a check compares did not: " + first_few(unchecked, "; ") +
                    " never ran (coverage of a run of just those tests): a check whose call of the code never runs checks "
                    "nothing of it";
      return out;
    }
    if (!any_ran && !uncalled.empty()) {
      out.reason = "code_under_test_not_executed";
      out.message = "the requested tests pass and their assertions ran, but the code they call did not: " + first_few(uncalled, ", ") +
                    " never ran, nor did any other function of the project (coverage of a run of just those tests): a "
                    "test whose calls of the code never run checks nothing of it";
      return out;
    }
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

namespace flowagent::detail {

namespace {

// The value-sensitivity run's helpers, written into the run's private directory. Each moves the
// results of the named functions of the named modules (Python: the function changed in place;
// node: a wrapper of the function's shape) so that a number they return (or resolve to) becomes
// 2v+1 away from zero, a boolean is negated and a string framed with `~`, and logs each time it was
// installed, called and moved a result.
constexpr const char* kPythonPerturb = R"PY(# flowagent: moves the results of the code under test (the value-sensitivity run).
import atexit, functools, importlib.abc, inspect, json, os, sys, types, weakref

_targets = {}
for _m, _n in json.loads(os.environ.get('FLOWAGENT_PERTURB', '[]')):
    _targets.setdefault(_m, set()).add(_n)
_log = os.environ.get('FLOWAGENT_PERTURB_LOG', '')
# 'control': the functions are wrapped the same way and nothing is moved (the control run).
# 'record': nothing is moved; each call is written to FLOWAGENT_PERTURB_CALLS as [module, name,
# args, kwargs] (a method's instance left out); arguments that are not plain data (a Fraction, a
# Decimal, a date, an object of the project) as {"pickle": base64, "repr": ...} when pickle takes
# them (a call it does not take is not written).
# 'drive': nothing is wrapped; once the tests are collected (the project importable as they import
# it), each call listed in FLOWAGENT_PERTURB_CALLS is made and its result written to the log as
# canonical JSON, one JSON string a line as it comes ('raise:<type>' for an exception,
# 'pickle:<base64>' for a result that is not plain data but pickles, '?' when it cannot be made or
# read); no test runs.
# 'except': FLOWAGENT_PERTURB_CALLS lists [call as 'record' wrote it, answer or null]: a listed call
# answers the listed answer (JSON) or, with null, its own; every other result is moved (a call it
# cannot name, its arguments not plain data, too).
_mode = os.environ.get('FLOWAGENT_PERTURB_MODE', '')
_calls_path = os.environ.get('FLOWAGENT_PERTURB_CALLS', '')
_KEEP = {}
if _mode == 'except':
    try:
        with open(_calls_path) as _f:
            for _x in _f:
                if _x.strip():
                    _c, _a = json.loads(_x)
                    _KEEP[_c] = _a
    except (OSError, ValueError):
        pass
_NO = object()
_KEYS = weakref.WeakKeyDictionary()  # the function called -> (module, name) of its target
_key_now = None
_recorded = set()


def _plain(v, depth=0):
    if v is None or isinstance(v, (bool, str)):
        return True
    if isinstance(v, (int, float)):
        return v == v and v not in (float('inf'), float('-inf'))
    if depth < 4 and isinstance(v, (list, tuple)):
        return len(v) <= 64 and all(_plain(x, depth + 1) for x in v)
    if depth < 4 and isinstance(v, dict):
        return len(v) <= 64 and all(isinstance(k, str) and _plain(x, depth + 1) for k, x in v.items())
    return False


_PICKLE_MAX = 8192
_pickles = [0]  # (attempts so far: a test making many calls with large objects pays for 2000 at most)


def _small(v, depth=0):
    # No builtin container in it holds more than 64 items (checked before pickling anything).
    if isinstance(v, (list, tuple, set, frozenset, dict)):
        if len(v) > 64 or depth > 4:
            return False
        items = v.items() if isinstance(v, dict) else v
        return all(_small(x, depth + 1) for x in items)
    if isinstance(v, (str, bytes, bytearray)):
        return len(v) <= 4096
    return True


def _pickled(v):
    # A value that is not plain data, as pickle writes it (base64), or None.
    import base64, pickle
    if _pickles[0] >= 2000 or not _small(v):
        return None
    _pickles[0] += 1
    try:
        b = base64.b64encode(pickle.dumps(v, protocol=4)).decode('ascii')
    except Exception:
        return None
    return b if len(b) <= _PICKLE_MAX else None


def _token(v):
    # Plain data as itself; anything else as its pickle (and a short repr to show); None: neither.
    if _plain(v):
        return v
    b = _pickled(v)
    if b is None:
        return None
    try:
        shown = repr(v)[:60]
    except Exception:
        shown = ''
    if not shown or ' at 0x' in shown:  # (the line must read the same in every run)
        shown = type(v).__name__
    return {'pickle': b, 'repr': shown}


def _unpickled(b64):
    import base64, pickle
    return pickle.loads(base64.b64decode(b64))


def _untoken(v):
    if isinstance(v, dict) and set(v) == {'pickle', 'repr'}:
        return _unpickled(v['pickle'])
    return v


def _call_line(f, a, k):
    # [module, name, args, kwargs], and for a method of an instance whose attributes are plain
    # data, those attributes (the drive makes the instance from them: its constructor's
    # arguments are not known).
    key = _KEYS.get(f)
    if key is None:
        return None
    args = list(a)
    state = None
    if '.' in key[1] and args and not _plain(args[0]):
        inst = args[0]
        args = args[1:]  # (the instance of a method)
        attrs = getattr(inst, '__dict__', None)
        if not isinstance(inst, type) and isinstance(attrs, dict) and attrs and _plain(attrs):
            state = dict(attrs)
    args, k = _token(args), _token(dict(k))
    if args is None or k is None:
        return None
    return json.dumps([key[0], key[1], args, k] + ([state] if state is not None else []), sort_keys=True)


def _record(f, a, k):
    if len(_recorded) >= 500:
        return
    line = _call_line(f, a, k)
    if line is not None and line not in _recorded:
        _recorded.add(line)
        with open(_calls_path, 'a') as out:
            out.write(line + '\n')


def _integral(v):
    # 7.0 answers as 7 does (they compare equal).
    if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 53:
        return int(v)
    if isinstance(v, (list, tuple)):
        return [_integral(x) for x in v]
    if isinstance(v, dict):
        return {k: _integral(x) for k, x in v.items()}
    return v


def _canonical(r):
    if inspect.isgenerator(r):  # (what it yields, when that is a short list of plain data)
        import itertools
        try:
            r = list(itertools.islice(r, 65))
        except Exception as e:
            return 'raise:' + type(e).__name__
    if _plain(r):
        return json.dumps(_integral(r), sort_keys=True)
    b = _pickled(r)  # (the same bytes: the same state; a Fraction, a Decimal, a date, a dataclass)
    return '?' if b is None else 'pickle:' + b


def _instance(cls, state):
    # An instance with the recorded attributes (not made by the constructor, whose arguments are
    # not known); without them, the constructor with none.
    if isinstance(state, dict):
        try:
            inst = cls.__new__(cls)
            inst.__dict__.update(state)
            return inst
        except Exception:
            pass
    return cls()


def _drive_one(m, n, args, kw, state=None):
    import asyncio
    try:
        mod = importlib.import_module(m)
        if '.' in n:
            c, meth = n.split('.', 1)
            obj = getattr(mod, c)
            if inspect.isclass(obj):
                fn = getattr(obj, meth) if isinstance(inspect.getattr_static(obj, meth, None), staticmethod) else getattr(_instance(obj, state), meth)
            elif inspect.isfunction(obj):
                fn = getattr(obj(), meth)  # (a factory of the instance)
            else:
                fn = getattr(obj, meth)
        else:
            fn = getattr(mod, n)
        args, kw = _untoken(args), _untoken(kw)
    except Exception:
        return '?'
    try:
        inspect.signature(fn).bind(*args, **kw)
    except TypeError:
        return 'nocall'  # (this version does not take these arguments)
    except ValueError:
        pass
    try:
        r = fn(*args, **kw)
        if inspect.iscoroutine(r):
            r = asyncio.run(r)
    except Exception as e:
        return 'raise:' + type(e).__name__
    return _canonical(r)


def pytest_collection_modifyitems(session, config, items):
    if _mode != 'drive':
        return
    try:
        with open(_calls_path) as f:
            calls = [json.loads(x) for x in f if x.strip()]
    except (OSError, ValueError):
        calls = []
    # (One answer a line, written as it comes: a call that never returns leaves the earlier ones.)
    with open(_log, 'w') as f:
        for c in calls[:1000]:
            a = _drive_one(*c[:4], state=c[4] if len(c) > 4 else None) if isinstance(c, list) and len(c) >= 4 else '?'
            f.write(json.dumps(a) + '\n')
            f.flush()
    items[:] = []


def _moved(v):
    if _mode in ('control', 'record'):
        return _NO
    if isinstance(v, bool):
        return not v
    if _mode == 'reverse':
        # The order reversed (-v - 1): a test that only sorts or ranks by the results, which the
        # move below keeps, sees the order turned around. Strings have no such move.
        if isinstance(v, (int, float)) and v == v and v not in (float('inf'), float('-inf')):
            return -v - 1
        return _NO
    if isinstance(v, (int, float)):
        if v != v or v in (float('inf'), float('-inf')):
            return _NO
        # 2v + 1 away from zero: no magnitude absorbs it (1.7e18 + 1 is 1.7e18), a threshold the
        # value sits just inside is crossed, no number is its own move; and the move is odd (-v
        # moves to minus v's move), so a relation true for any pair of opposite results
        # (`add(5, 2) + add(2, 5) == 0` under `a - b`) still holds and is seen not to check.
        return 2 * v + (1 if v >= 0 else -1)
    if isinstance(v, str):
        return '~' + v + '~'
    return _NO


_counts = {}


def _note(what='moved'):
    # The first of each kind is written at once, the rest counted and written at exit: a call costs
    # the wrapped function a dictionary update, not a write.
    n = _counts.get(what, 0)
    _counts[what] = n + 1
    if n == 0 or what == 'wrapped':
        with open(_log, 'a') as f:
            f.write(what + '\n')


def _flush():
    with open(_log, 'a') as f:
        for what, n in _counts.items():
            if what != 'wrapped' and n > 1:
                f.write((what + '\n') * (n - 1))


atexit.register(_flush)


def _moved_one(v):
    # v moved (and the move noted), or v itself when it has no move.
    m = _moved(v)
    if m is _NO:
        return v
    _note()
    return m


def _moved_items(it):
    # A generator's results are what it yields: each is moved as it comes.
    for x in it:
        yield _moved_one(x)


async def _moved_aitems(it):
    async for x in it:
        yield _moved_one(x)


def _answer(line, r):
    # What a wrapped call answers: a call the 'except' list keeps, its listed answer (or its own);
    # a generator, its values moved as they come; any other result, moved.
    if line is not None and line in _KEEP:
        if _KEEP[line] is None:
            return r
        _note('replaced')
        a = _KEEP[line]
        if a.startswith('pickle:'):
            return _unpickled(a[7:])
        return json.loads(a)
    if _mode in ('control', 'record'):
        return r
    if inspect.isgenerator(r):
        return _moved_items(r)
    if inspect.isasyncgen(r):
        return _moved_aitems(r)
    return _moved_one(r)


_CALLERS = set()
_OWN_CODE = set()  # the code objects this probe gave the functions it changed in place


def _caller():
    # The file of the code that made the call (beyond this probe and the changed function itself).
    fr = sys._getframe(2)
    while fr is not None and (fr.f_code.co_filename == __file__ or fr.f_code in _OWN_CODE):
        fr = fr.f_back
    return fr.f_code.co_filename if fr is not None else ''


def _enter(f, a, k):
    # A call of a wrapped function: counted, its caller's file written once (up to 64 files),
    # recorded in 'record' mode; its line in 'except' mode.
    _note('called')
    if len(_CALLERS) < 64:
        c = _caller()
        if c not in _CALLERS:
            _CALLERS.add(c)
            with open(_log, 'a') as out:
                out.write('caller:' + c + '\n')
    if _mode == 'record':
        _record(f, a, k)
    return _call_line(f, a, k) if _mode == 'except' else None


def _call(f, a, k):
    line = _enter(f, a, k)
    return _answer(line, f(*a, **k))


async def _acall(f, a, k):
    line = _enter(f, a, k)
    return _answer(line, await f(*a, **k))


def _wrap(f):
    if inspect.iscoroutinefunction(f):
        async def w(*a, **k):
            return await _acall(f, a, k)
    else:
        def w(*a, **k):
            return _call(f, a, k)
    functools.update_wrapper(w, f)
    w.__dict__.pop('__wrapped__', None)
    if _key_now is not None:
        _KEYS.setdefault(f, _key_now)
    try:
        w.__signature__ = inspect.signature(f)  # (the function's own, not the wrapper's)
    except (TypeError, ValueError):
        pass
    return w


_CODE = {}
_SWAPPED = set()


def _swap(f, call):
    # The function object itself is changed: its code becomes `call` on a copy of the function as it
    # was. Whatever holds the function (an alias, a cache or decorator wrapping it, a bound method
    # of an instance however made, a partial) calls the moved code; its name, source file and line,
    # defaults and signature read as before. Not for closures and generators (False: not changed).
    if not inspect.isfunction(f) or f.__closure__ or inspect.isgeneratorfunction(f) or inspect.isasyncgenfunction(f):
        return False
    if f in _SWAPPED:
        return True
    is_async = inspect.iscoroutinefunction(f)
    if is_async not in _CODE:
        src = ('async def _f(*_a, _fa=None, **_k):\n    return await _fa(_a, _k)\n' if is_async else
               'def _f(*_a, _fa=None, **_k):\n    return _fa(_a, _k)\n')
        ns = {}
        exec(compile(src, '<flowagent>', 'exec'), ns)
        _CODE[is_async] = ns['_f'].__code__
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        sig = None
    orig = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, None)
    orig.__kwdefaults__ = f.__kwdefaults__
    c = f.__code__
    fields = {'co_name': c.co_name, 'co_filename': c.co_filename, 'co_firstlineno': c.co_firstlineno}
    if hasattr(c, 'co_qualname'):
        fields['co_qualname'] = c.co_qualname
    try:
        f.__code__ = _CODE[is_async].replace(**fields)
        _OWN_CODE.add(f.__code__)
        f.__kwdefaults__ = {'_fa': functools.partial(call, orig)}
        if sig is not None:
            f.__signature__ = sig
    except (AttributeError, TypeError, ValueError):
        return False
    _SWAPPED.add(f)
    if _key_now is not None:
        _KEYS[orig] = _key_now
    return True


def _move(f):
    # A function (or the function under decorators that keep `__wrapped__`, such as functools'
    # caches): changed in place when it can be; None then, else a wrapper to put in its place.
    inner = f
    for _ in range(16):
        nxt = getattr(inner, 'func', None) if isinstance(inner, functools.partial) else getattr(inner, '__wrapped__', None)
        if inspect.isfunction(inner) or nxt is None:
            break
        inner = nxt
    if inspect.isfunction(inner) and _swap(inner, _acall if inspect.iscoroutinefunction(inner) else _call):
        return None
    if inspect.isfunction(f):
        return _wrap(f)
    return False


def _method(cls, m):
    # A method on the class, where the class or a base defines it.
    for k in cls.__mro__:
        if m not in k.__dict__:
            continue
        f = k.__dict__[m]
        try:
            target = f.__func__ if isinstance(f, (staticmethod, classmethod)) else f
            w = _move(target)
            if w is False:
                return False
            if w is not None:
                setattr(k, m, type(f)(w) if target is not f else w)
        except (AttributeError, TypeError):
            return False
        _note('wrapped')
        return True
    return False


_MADE = set()


def _factory_call(m, key, f, a, k):
    # A function that makes the instance (`make_calc()`): the method on the class of what it returns.
    global _key_now
    r = f(*a, **k)
    t = type(r)
    if (t, m) not in _MADE and not inspect.isclass(r) and not inspect.ismodule(r):
        _MADE.add((t, m))
        _key_now = key
        _method(t, m)
    return r


def _patch_one(mod, n):
    f = mod.__dict__.get(n)
    if not callable(f) or inspect.isclass(f):
        return
    w = _move(f)
    if w is False:
        return
    if w is not None:
        try:
            setattr(mod, n, w)
        except (AttributeError, TypeError):
            return
    _note('wrapped')


def _patch(mod):
    global _key_now
    for n in _targets.get(mod.__name__, ()):
        _key_now = (mod.__name__, n)
        if '.' not in n:
            _patch_one(mod, n)
            continue
        # A method (`Calc.add`): wrapped on the class; the class may be a function that makes the
        # instance (`make_calc().add`): then on the class of each instance it returns.
        c, m = n.split('.', 1)
        cls = mod.__dict__.get(c)
        if inspect.isclass(cls):
            _method(cls, m)
        elif inspect.isfunction(cls) and not inspect.iscoroutinefunction(cls):
            _swap(cls, functools.partial(_factory_call, m, _key_now))
        elif inspect.ismodule(cls):
            _patch_one(cls, m)
        elif cls is not None and not callable(cls):
            _method(type(cls), m)  # (an instance the module keeps: `calc.default.add(`)


class _Loader:
    def __init__(self, loader):
        self._loader = loader

    def __getattr__(self, a):
        return getattr(self._loader, a)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _patch(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name not in _targets:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, 'find_spec'):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is None:
                continue
            if spec.loader is not None and hasattr(spec.loader, 'exec_module'):
                spec.loader = _Loader(spec.loader)
            return spec
        return None


for _name in list(_targets):
    if _name in sys.modules:
        _patch(sys.modules[_name])
sys.meta_path.insert(0, _Finder())
)PY";

// Plain data, as the node helpers record and compare it (node_script puts it in front of each).
constexpr const char* kJsPlain = R"JS(function plain(v, depth = 0) {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (depth >= 4 || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.length <= 64 && v.every((x) => plain(x, depth + 1));
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  const entries = Object.entries(v);
  return entries.length <= 64 && entries.every(([, x]) => plain(x, depth + 1));
}
)JS";

std::string node_script(const char* body) { return std::string("'use strict';\n") + kJsPlain + body; }

/// The shell prefix that loads the probe into a test run (pytest: a plugin on PYTHONPATH; node: a
/// `--require` preload), with the functions to wrap (`list`, JSON [[module, name], ...]), the log it
/// writes, and for the values check its mode and calls file. The probe is `data_dir`'s
/// flowagent_value_probe.py / .js.
std::string perturb_env(bool python, const fs::path& data_dir, const std::string& list, const fs::path& log,
                        const std::string& mode = "", const fs::path& calls = {}) {
  std::string env = "export FLOWAGENT_PERTURB=" + shell_quote(list) + " FLOWAGENT_PERTURB_LOG=" + shell_quote(log.string());
  if (!mode.empty()) env += " FLOWAGENT_PERTURB_MODE=" + mode + " FLOWAGENT_PERTURB_CALLS=" + shell_quote(calls.string());
  env += "; ";
  if (python)
    // (No bytecode cache: a file put back as at the base within the second the head's was compiled,
    // at the same size, `a - b` for `a + b`, would run the head's cached code. One hash seed for
    // every run: a set of strings is pickled in hash order, which would differ run to run, so the
    // same answer would read as another.)
    env += "export PYTHONDONTWRITEBYTECODE=1 PYTHONHASHSEED=0 PYTHONPATH=" + shell_quote(data_dir.string()) +
           "${PYTHONPATH:+:$PYTHONPATH} PYTEST_PLUGINS=" + plugin_module(data_dir, "flowagent_value_probe") + "${PYTEST_PLUGINS:+,$PYTEST_PLUGINS}; ";
  else
    env += "export NODE_OPTIONS=" + shell_quote("--require " + (data_dir / "flowagent_value_probe.js").string()) +
           "\"${NODE_OPTIONS:+ $NODE_OPTIONS}\"; ";
  return env;
}

/// How many lines of the probe's log read as one of `words` ("moved", "wrapped", ...).
std::size_t log_lines(std::string_view text, std::initializer_list<std::string_view> words) {
  std::size_t n = 0;
  for (std::string_view rest = text; !rest.empty();) {
    const auto nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    if (std::find(words.begin(), words.end(), line) != words.end()) ++n;
  }
  return n;
}

/// The values of the log's lines that begin with `prefix` (`caller:/repo/tests/helpers.py`).
std::vector<std::string> log_values(std::string_view text, std::string_view prefix) {
  std::vector<std::string> out;
  for (std::string_view rest = text; !rest.empty();) {
    const auto nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    if (line.substr(0, prefix.size()) == prefix) out.emplace_back(line.substr(prefix.size()));
  }
  return out;
}

constexpr const char* kNodePerturb = R"JS(// flowagent: moves the results of the code under test (the value-sensitivity run).
const Module = require('module');
const fs = require('fs');
const util = require('util');
const targets = new Map();
for (const [file, name] of JSON.parse(process.env.FLOWAGENT_PERTURB || '[]')) {
  if (!targets.has(file)) targets.set(file, new Set());
  targets.get(file).add(name);
}
const log = process.env.FLOWAGENT_PERTURB_LOG || '';
// 'control': wrapped, nothing moved; 'record': nothing moved, each call whose arguments are plain
// data written to FLOWAGENT_PERTURB_CALLS as [file, name, args, {}].
const mode = process.env.FLOWAGENT_PERTURB_MODE || '';
const callsPath = process.env.FLOWAGENT_PERTURB_CALLS || '';
// 'except': FLOWAGENT_PERTURB_CALLS lists [call as 'record' wrote it, answer or null]: a listed call
// answers the listed answer (JSON) or, with null, its own; every other result is moved.
const keep = new Map();
if (mode === 'except') {
  try {
    for (const l of fs.readFileSync(callsPath, 'utf8').split('\n')) {
      if (!l.trim()) continue;
      const [c, a] = JSON.parse(l);
      keep.set(c, a);
    }
  } catch (e) {
    // (nothing listed: nothing moved)
  }
}
// The run's own settings are taken out of the environment the tests see (it reads as it would
// without this run) and handed to each child process the run starts (node --test runs each file in
// one, jest in workers; a test's own child processes too).
const childProcess = require('child_process');
const preload = '--require ' + __filename;
const ours = {};
for (const k of ['FLOWAGENT_PERTURB', 'FLOWAGENT_PERTURB_LOG', 'FLOWAGENT_PERTURB_MODE', 'FLOWAGENT_PERTURB_CALLS']) {
  if (process.env[k] !== undefined) ours[k] = process.env[k];
  delete process.env[k];
}
if ((process.env.NODE_OPTIONS || '').startsWith(preload)) {
  const rest = process.env.NODE_OPTIONS.slice(preload.length).trim();
  if (rest) process.env.NODE_OPTIONS = rest;
  else delete process.env.NODE_OPTIONS;
}
function withOurs(env) {
  const out = Object.assign({}, env, ours);
  out.NODE_OPTIONS = (out.NODE_OPTIONS || '').includes(preload) ? out.NODE_OPTIONS : (preload + ' ' + (out.NODE_OPTIONS || '')).trim();
  return out;
}
const spawnChild = childProcess.ChildProcess.prototype.spawn;
childProcess.ChildProcess.prototype.spawn = function (options) {
  if (options && Array.isArray(options.envPairs)) {
    const env = {};
    for (const pair of options.envPairs) {
      const eq = pair.indexOf('=');
      if (eq > 0) env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
    options.envPairs = Object.entries(withOurs(env)).map(([k, v]) => k + '=' + v);
  }
  return Reflect.apply(spawnChild, this, arguments);
};
for (const name of ['spawnSync', 'execSync', 'execFileSync']) {
  const run = childProcess[name];
  childProcess[name] = function (...args) {
    if (args.length > 1 && args[args.length - 1] == null) args.pop();
    const last = args[args.length - 1];
    if (args.length > 1 && last && typeof last === 'object' && !Array.isArray(last)) args[args.length - 1] = Object.assign({}, last, { env: withOurs(last.env || process.env) });
    else args.push({ env: withOurs(process.env) });
    return Reflect.apply(run, this, args);
  };
}
const NO = Symbol('unmoved');
function moved(v) {
  if (mode === 'control' || mode === 'record') return NO;
  if (typeof v === 'boolean') return !v;
  if (mode === 'reverse') {
    // The order reversed (-v - 1): a test that only sorts or ranks by the results sees it turned
    // around. Strings have no such move.
    if (typeof v === 'number') return Number.isFinite(v) ? -v - 1 : NO;
    if (typeof v === 'bigint') return -v - 1n;
    return NO;
  }
  if (typeof v === 'number') return Number.isFinite(v) ? 2 * v + (v >= 0 ? 1 : -1) : NO;
  if (typeof v === 'bigint') return 2n * v + (v >= 0n ? 1n : -1n);
  if (typeof v === 'string') return '~' + v + '~';
  return NO;
}
// The first of each kind is written at once, the rest counted and written at exit: a call costs
// the wrapped function a counter, not a write.
const counts = new Map();
function note(what = 'moved') {
  const n = counts.get(what) || 0;
  counts.set(what, n + 1);
  if (n === 0 || what === 'wrapped') fs.appendFileSync(log, what + '\n');
}
process.on('exit', () => {
  for (const [what, n] of counts) if (what !== 'wrapped' && n > 1) fs.appendFileSync(log, (what + '\n').repeat(n - 1));
});
// v moved (and the move noted), or v itself when it has no move.
function movedOne(v) {
  const m = moved(v);
  if (m === NO) return v;
  note();
  return m;
}
// A generator's results are what it yields: each is moved as it comes.
function* movedItems(it) {
  for (const x of it) yield movedOne(x);
}
async function* movedAsyncItems(it) {
  for await (const x of it) yield movedOne(x);
}
function result(r) {
  if (r && typeof r.then === 'function') return r.then(movedOne);
  if (r && typeof r === 'object' && mode !== 'control' && mode !== 'record') {
    const tag = Object.prototype.toString.call(r);
    if (tag === '[object Generator]') return movedItems(r);
    if (tag === '[object AsyncGenerator]') return movedAsyncItems(r);
  }
  return movedOne(r);
}
const keys = new WeakMap();  // the function called -> [file, name] of its target
const recorded = new Set();
// [file, name, args, {}], and for a method of an instance whose own properties are plain data,
// those properties (the drive makes the instance from them: its constructor's arguments are not
// known).
function callLine(f, args, self) {
  const key = keys.get(f);
  if (!key || !plain(args)) return null;
  const row = [key[0], key[1], args, {}];
  if (key[1].includes('.') && self && typeof self === 'object' && !Array.isArray(self) && Object.getPrototypeOf(self) !== Object.prototype) {
    const state = Object.assign({}, self);
    if (Object.keys(state).length > 0 && plain(state)) row.push(state);
  }
  return JSON.stringify(row);
}
function record(f, args, self) {
  if (recorded.size >= 500) return;
  const line = callLine(f, args, self);
  if (line === null || recorded.has(line)) return;
  recorded.add(line);
  fs.appendFileSync(callsPath, line + '\n');
}
// A call of a wrapped function: counted, recorded in 'record' mode; its line in 'except' mode.
// The file of the code that made the call (beyond this probe, native code and node's own), once
// per file (up to 64 files, the first 20000 calls).
const callers = new Set();
let callsSeen = 0;
function callerFile() {
  const prepare = Error.prepareStackTrace, limit = Error.stackTraceLimit;
  let frames = [];
  try {
    Error.stackTraceLimit = 16;
    Error.prepareStackTrace = (_, stack) => stack;
    frames = new Error().stack || [];
  } catch (e) {
    frames = [];
  } finally {
    Error.prepareStackTrace = prepare;
    Error.stackTraceLimit = limit;
  }
  for (const fr of Array.isArray(frames) ? frames : []) {
    const name = fr && typeof fr.getFileName === 'function' ? fr.getFileName() : undefined;
    if (name && name !== __filename && !name.startsWith('node:')) return name.startsWith('file://') ? require('url').fileURLToPath(name) : name;
  }
  return '';
}
function enter(f, self, args, newTarget) {
  note('called');
  if (callers.size < 64 && callsSeen++ < 20000) {
    const c = callerFile();
    if (!callers.has(c)) {
      callers.add(c);
      fs.appendFileSync(log, 'caller:' + c + '\n');
    }
  }
  if (mode === 'record' && !newTarget) record(f, args, self);
  return mode === 'except' && !newTarget ? callLine(f, args, self) : null;
}
// What it answers: a call the 'except' list keeps, its listed answer (or its own); any other
// result moved.
function answer(line, r) {
  if (line !== null && keep.has(line)) {
    if (keep.get(line) === null) return r;
    note('replaced');
    return JSON.parse(keep.get(line));
  }
  return result(r);
}
function call(f, self, args, newTarget) {
  const line = enter(f, self, args, newTarget);
  return answer(line, newTarget ? Reflect.construct(f, args, newTarget) : Reflect.apply(f, self, args));
}
async function callAsync(f, self, args) {
  const line = enter(f, self, args, undefined);
  return answer(line, await Reflect.apply(f, self, args));
}
// The wrapper has the function's shape: async when it is, its own properties (a sloppy function's
// `arguments` and `caller`, a `prototype` only when it has one), its name and length, and its
// source for Function.prototype.toString.
const sources = new WeakMap();
const fnToString = Function.prototype.toString;
function toString() {
  return Reflect.apply(fnToString, sources.has(this) ? sources.get(this) : this, []);
}
sources.set(toString, fnToString);
Object.defineProperty(Function.prototype, 'toString', { value: toString, writable: true, configurable: true, enumerable: false });
const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
function wrap(f, key) {
  if (key && !keys.has(f)) keys.set(f, key);
  let w;
  if (util.types.isAsyncFunction(f)) {
    w = { async f(...args) { return callAsync(f, this, args); } }.f;
  } else if (!own(f, 'prototype')) {
    w = { f(...args) { return call(f, this, args, undefined); } }.f;  // (an arrow or a method: not a constructor)
  } else if (own(f, 'caller')) {
    try {
      w = new Function('call', 'f', 'return function (...args) { return call(f, this, args, new.target); };')(call, f);
    } catch (e) {
      w = function (...args) { return call(f, this, args, new.target); };  // (code from strings refused)
    }
  } else {
    w = function (...args) { return call(f, this, args, new.target); };
  }
  Object.defineProperty(w, 'name', { value: f.name, configurable: true });
  Object.defineProperty(w, 'length', { value: f.length, configurable: true });
  sources.set(w, f);
  Object.assign(w, f);
  if (own(f, 'prototype')) w.prototype = f.prototype;
  Object.setPrototypeOf(w, Object.getPrototypeOf(f));
  return w;
}
// The module's exports with the named functions wrapped: properties of the exports object, a
// method (`Calc.add`) on an exported class (or the class the module is), or the module itself
// when it is the function (`const sum = require('./sum')`: the new exports are returned).
function moveExports(exp, names, file) {
  let out = exp;
  for (const n of names) {
    try {
      const dot = n.indexOf('.');
      if (dot >= 0) {
        const c = n.slice(0, dot), m = n.slice(dot + 1);
        const obj = exp && exp[c];
        if (obj && typeof obj === 'object' && typeof obj[m] === 'function') {  // (an object the module exports)
          const w = wrap(obj[m], [file, n]);
          obj[m] = w;
          if (obj[m] === w) note('wrapped');
          continue;
        }
        const cls = exp && typeof exp[c] === 'function' ? exp[c] : typeof exp === 'function' ? exp : null;
        if (!cls) continue;
        for (const holder of [cls.prototype, cls]) {
          let d;
          for (let o = holder; o && !d; o = Object.getPrototypeOf(o)) d = Object.getOwnPropertyDescriptor(o, m);
          if (d && typeof d.value === 'function' && (holder !== cls || Object.prototype.hasOwnProperty.call(cls, m))) {
            Object.defineProperty(holder, m, { value: wrap(d.value, [file, n]), writable: true, configurable: true, enumerable: d.enumerable });
            note('wrapped');
            break;
          }
        }
      } else if (out && typeof out[n] === 'function') {
        const w = wrap(out[n], [file, n]);
        try {
          out[n] = w;  // (a frozen or read-only export throws here, or stays as it was)
        } catch (e) {
          // (below)
        }
        if (out[n] !== w) {
          // Frozen exports, a getter of a transpiled re-export: the module's exports become a copy
          // holding the wrapper, frozen, sealed or closed as the original was.
          const descriptors = Object.getOwnPropertyDescriptors(out);
          const d = descriptors[n] || { enumerable: true };
          descriptors[n] = { value: w, writable: true, enumerable: d.enumerable, configurable: true };
          const copy = Object.create(Object.getPrototypeOf(out), descriptors);
          if (Object.isFrozen(out)) Object.freeze(copy);
          else if (Object.isSealed(out)) Object.seal(copy);
          else if (!Object.isExtensible(out)) Object.preventExtensions(copy);
          out = copy;
        }
        note('wrapped');
      } else if (typeof exp === 'function' && out === exp) {
        out = wrap(exp, [file, n]);
        note('wrapped');
      }
    } catch (e) {
      // (a read-only export, e.g. a getter of a transpiled re-export: left as it is, not counted)
    }
  }
  return out;
}
// jest runs test files in its own module registry (jest-runtime), not through Module._load: the
// registry's loader is wrapped so that each fresh instance of a target module is moved.
const hooked = new WeakSet();
function hookJest(exp) {
  const Runtime = exp && (exp.default || exp);
  if (!Runtime || !Runtime.prototype || typeof Runtime.prototype._loadModule !== 'function' || hooked.has(Runtime)) return;
  hooked.add(Runtime);
  const loadModule = Runtime.prototype._loadModule;
  Runtime.prototype._loadModule = function (localModule, from, moduleName, modulePath, ...rest) {
    const r = loadModule.call(this, localModule, from, moduleName, modulePath, ...rest);
    const names = targets.get(modulePath);
    if (names && localModule) localModule.exports = moveExports(localModule.exports, names, modulePath);
    return r;
  };
}
const done = new Set();
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const exp = load.apply(this, arguments);
  let file;
  try {
    file = Module._resolveFilename(request, parent, isMain);
  } catch (e) {
    return exp;
  }
  if (/[\\/]jest-runtime[\\/]build[\\/]index\.js$/.test(file)) {
    hookJest(exp);
    return exp;
  }
  const names = targets.get(file);
  if (!names || done.has(file)) return exp;
  done.add(file);
  const out = moveExports(exp, names, file);
  if (out !== exp && Module._cache[file]) Module._cache[file].exports = out;
  return out;
};
)JS";

// The values run under node: makes each call of argv[2] (lines of [file, name, args]) and writes
// their results to argv[3] as canonical JSON ('raise:<name>' for an exception, '?' when the call
// cannot be made or its result read).
constexpr const char* kNodeDrive = R"JS(const fs = require('fs');
function sorted(v) {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])]));
  return v;
}
function canonical(r) {
  if (r === undefined) return 'undefined';
  if (typeof r === 'bigint') return 'n:' + r;
  // A generator's answer is what it yields, when that is a short list of plain data.
  if (r && typeof r === 'object' && Object.prototype.toString.call(r) === '[object Generator]') {
    const items = [];
    for (const x of r) {
      items.push(x);
      if (items.length > 64) break;
    }
    r = items;
  }
  return plain(r) ? JSON.stringify(sorted(r)) : '?';
}
async function drive(file, name, args, state) {
  let fn, self;
  try {
    const m = require(file);
    const dot = name.indexOf('.');
    if (dot >= 0) {
      const c = name.slice(0, dot), meth = name.slice(dot + 1);
      const holder = m && m[c] !== undefined ? m[c] : typeof m === 'function' ? m : undefined;
      if (typeof holder === 'function' && typeof holder[meth] === 'function') self = holder;
      // (An instance with the recorded properties, not made by the constructor, whose arguments
      // are not known; without them, the constructor with none.)
      else if (typeof holder === 'function' && state && typeof state === 'object' && holder.prototype) self = Object.assign(Object.create(holder.prototype), state);
      else if (typeof holder === 'function') self = new holder();
      else self = holder;
      fn = self && self[meth];
    } else {
      self = m;
      fn = m && typeof m[name] === 'function' ? m[name] : typeof m === 'function' ? m : undefined;
    }
  } catch (e) {
    return '?';
  }
  if (typeof fn !== 'function') return '?';
  try {
    let r = Reflect.apply(fn, self, args);
    if (r && typeof r.then === 'function') r = await r;
    return canonical(r);
  } catch (e) {
    return 'raise:' + (e && e.name ? String(e.name) : typeof e);
  }
}
(async () => {
  const calls = fs.readFileSync(process.argv[2], 'utf8').split('\n').filter((l) => l.trim()).slice(0, 1000).map((l) => JSON.parse(l));
  // (One answer a line, written as it comes: a call that never returns leaves the earlier ones.)
  fs.writeFileSync(process.argv[3], '');
  for (const [file, name, args, , state] of calls) fs.appendFileSync(process.argv[3], JSON.stringify(await drive(file, name, args, state)) + '\n');
  process.exit(0);
})();
)JS";

}  // namespace

namespace {

/// A Go package folder of a checkout as the values check needs it: its name, the functions of
/// its non-test files that return something, and its import path (from the nearest go.mod).
struct GoPackage {
  std::string name, import_path;
  std::set<std::string> functions;
  std::map<std::string, std::string> constants;  ///< go_values::package_constants of its non-test files
};

constexpr std::string_view kGoDriverFile = "zz_flowagent_values";  // (+ "_<random>.go")
constexpr std::string_view kGoDriverMain = "flowagentvaluesmain";

GoPackage go_package_at(const SandboxFs& tree, const std::string& dir) {
  GoPackage out;
  auto entries = tree.list(dir.empty() ? "." : dir);
  if (!entries) return out;
  for (const auto& e : *entries) {
    if (e.type != 'f' || !ends_with(e.name, ".go") || ends_with(e.name, "_test.go") || e.name.rfind(kGoDriverFile, 0) == 0) continue;
    auto text = tree.read(dir.empty() ? e.name : dir + "/" + e.name, 4u << 20);
    if (!text) continue;
    const std::string pkg = go_values::package_name(*text);
    if (pkg.empty() || (!out.name.empty() && pkg != out.name)) continue;  // (a file of another package: `// +build ignore`)
    out.name = pkg;
    auto fns = go_values::result_functions(*text);
    out.functions.insert(fns.begin(), fns.end());
    auto consts = go_values::package_constants(*text);
    out.constants.insert(consts.begin(), consts.end());
  }
  // The module: the nearest go.mod at or above the folder.
  for (std::string d = dir;;) {
    const std::string mod = d.empty() ? "go.mod" : d + "/go.mod";
    if (auto text = tree.read(mod, 1u << 20)) {
      const std::string path = go_values::module_path(*text);
      if (path.empty()) break;
      const std::string rel = d.empty() ? dir : dir.substr(d.size() + (dir.size() > d.size() ? 1 : 0));
      out.import_path = rel.empty() ? path : path + "/" + rel;
      break;
    }
    if (d.empty()) break;
    const auto slash = d.rfind('/');
    d = slash == std::string::npos ? std::string() : d.substr(0, slash);
  }
  return out;
}

/// How a test file of the package calls its functions: "" plainly (the package itself, or a dot
/// import), else the name an external `_test` package imports it as; nullopt when it does not.
std::optional<std::string> go_qualifier(const std::string& test_text, const GoPackage& pkg) {
  const std::string own = go_values::package_name(test_text);
  if (own == pkg.name) return std::string();
  if (pkg.import_path.empty()) return std::nullopt;
  std::string quoted = "\"" + pkg.import_path + "\"";
  for (std::size_t at = test_text.find(quoted); at != std::string::npos; at = test_text.find(quoted, at + 1)) {
    std::size_t b = at;
    while (b > 0 && (test_text[b - 1] == ' ' || test_text[b - 1] == '\t')) --b;
    std::size_t a = b;
    while (a > 0 && (std::isalnum(static_cast<unsigned char>(test_text[a - 1])) || test_text[a - 1] == '_' || test_text[a - 1] == '.')) --a;
    const std::string alias = test_text.substr(a, b - a);
    if (alias == ".") return std::string();
    if (alias == "_") return std::nullopt;
    return alias.empty() ? pkg.name : alias;
  }
  return std::nullopt;
}

/// The test files of a package folder (name, text).
std::vector<std::pair<std::string, std::string>> go_test_files(const SandboxFs& tree, const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  auto entries = tree.list(dir.empty() ? "." : dir);
  if (!entries) return out;
  for (const auto& e : *entries) {
    if (e.type != 'f' || !ends_with(e.name, "_test.go")) continue;
    if (auto text = tree.read(dir.empty() ? e.name : dir + "/" + e.name, 4u << 20)) out.emplace_back(e.name, std::move(*text));
    if (out.size() >= 256) break;
  }
  return out;
}

/// The calls test function `fn` makes of `names`, read from a package's test files `files` (name,
/// text): the file defining it, with the other files of its package clause after it (their
/// helpers, tables and constants are the package's). nullopt when no file defines it.
std::optional<go_values::TestCalls> go_read_test(const std::vector<std::pair<std::string, std::string>>& files, const GoPackage& pkg,
                                                 const std::string& fn, const std::set<std::string>& names) {
  const rx::regex defines = detail::cached_regex("(?:^|\\n)func[ \\t]+" + fn + "[ \\t]*\\(");
  for (const auto& [name, text] : files) {
    if (!rx::regex_search(text, defines)) continue;
    const auto q = go_qualifier(text, pkg);
    if (!q) continue;
    std::string combined = text;
    const std::string clause = go_values::package_name(text);
    for (const auto& [other, other_text] : files)  // (at most 4 MiB of them in all: a huge package is read in part)
      if (other != name && combined.size() + other_text.size() <= (4u << 20) && go_values::package_name(other_text) == clause)
        combined += "\n" + other_text;
    auto constants = pkg.constants;
    for (auto& [k, v] : go_values::package_constants(combined)) constants[k] = std::move(v);
    auto read = go_values::test_calls(combined, fn, names, *q, constants);
    if (read.found) return read;
  }
  return std::nullopt;
}

std::string parent_dir(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

/// go test: the functions of its package the requested tests called with constant arguments
/// before the patch, in the test files the patch changes. Nothing is moved (a compiled test binary
/// has no hook for it); fail to pass compares the calls' answers (check_values_tell_apart).
Expected<AssertionCheck> go_value_targets(RepairContext& ctx, const fs::path& root, const std::string& patch_text,
                                          const std::vector<TestReplacement>& replacements) {
  AssertionCheck out;
  out.note = "not available: results are moved only under pytest, node --test, tape and jest (go test: the calls of the package "
             "are compared by fail to pass)";
  const auto& wanted = ctx.request.failure.failing_tests;
  auto tree = SandboxFs::open(root);
  if (!tree) return unexpected(tree.error());
  auto patch = parse_patch(patch_text);
  if (!patch) return unexpected(patch.error());
  const auto repo = workspace_repo(ctx.workspace);
  std::set<std::pair<std::string, std::string>> targets;
  for (const auto& f : patch->files) {
    // (A test file the patch deletes counts: its test may live on in a file the patch adds.)
    if (f.status == PatchStatus::added || !ends_with(f.old_path, "_test.go")) continue;
    const std::string dir = parent_dir(f.old_path);
    const GoPackage pkg = go_package_at(*tree, dir);
    if (pkg.name.empty() || pkg.name == "main" || pkg.functions.empty()) continue;
    auto before = text_before(ctx, repo, f);
    if (!before) return unexpected(before.error());
    const std::string own = f.old_path.substr(dir.empty() ? 0 : dir.size() + 1);
    std::vector<std::pair<std::string, std::string>> files{{own, *before}};
    for (auto& other : go_test_files(*tree, dir))
      if (other.first != own) files.push_back(std::move(other));
    for (const auto& id : wanted) {
      const std::string fn = go_values::test_function(id);
      if (fn.empty()) continue;
      if (const auto read = go_read_test(files, pkg, fn, pkg.functions))
        for (const auto& c : read->calls) targets.emplace(dir, c.name);
    }
  }
  if (targets.empty()) return out;
  out.values.go = true;
  out.values.targets.assign(targets.begin(), targets.end());
  out.values.run_ids = effective_tests(wanted, replacements, false);
  return out;
}

}  // namespace

Expected<AssertionCheck> check_value_sensitivity(RepairContext& ctx, const fs::path& root, const std::string& patch_text,
                                                 const std::vector<TestReplacement>& replacements) {
  AssertionCheck out;
  const auto& req = ctx.request;
  const auto& wanted = req.failure.failing_tests;
  const reports::Runner runner = plan_runner(req.commands.test, root / ".flowagent-none", root).runner;
  const bool python = runner == reports::Runner::pytest;
  // A renamed requested test: its pins are read from the old test, its calls and runs from the
  // tests that replaced it (by their own names).
  const std::vector<std::string> wanted_after = effective_tests(wanted, replacements, python);
  auto run_ids_of = [&](const std::string& id) { return effective_tests({id}, replacements, python); };
  // jest: its module registry is wrapped by the same preload (CommonJS and transpiled sources).
  const bool jest = runner == reports::Runner::jest;
  const bool js = measured_by(runner).js || jest;
  if (runner == reports::Runner::go) return go_value_targets(ctx, root, patch_text, replacements);
  if (!python && !js) {
    out.note = "not available: results are moved only under pytest, node --test, tape and jest";
    return out;
  }
  auto tree = SandboxFs::open(root);
  if (!tree) return unexpected(tree.error());
  auto patch = parse_patch(patch_text);
  if (!patch) return unexpected(patch.error());
  const auto repo = workspace_repo(ctx.workspace);
  auto test_file = [&](const std::string& p) { return python ? python_file(p) : jest ? mapped_script_file(p) : js_file(p); };
  // A function to move: the module as the runtime names it (a dotted Python module, an absolute
  // script path), the function (`add`, a method `Calc.add`), and the requested ids of the tests
  // that pinned it.
  struct Target {
    std::string module, name;
    std::vector<std::string> ids;
    std::string test_path, written;  ///< the test file, and the module as it writes it
    /// Whether the reading of the tests saw them still call it; a target it did not see is moved
    /// all the same (the run counts the calls: a helper may reach it by a path no reading follows),
    /// and is no target when the run makes no call of it.
    bool seen = true;
    std::string file;  ///< the file of the tree defining it ("" when not found)
    bool pins_moved = false;  ///< a call the old tests pinned is no longer in the new file as written
    /// Found by its name among the project's definitions, the test file naming no module (a
    /// conftest.py fixture): it may not be the function the tests pinned at all.
    bool guessed = false;
    std::string described() const { return name + " (" + written + ")"; }
  };
  std::vector<Target> targets;
  // A test file the patch deletes, under runners naming tests by title: an added test file holding
  // the requested title is its replacement (a rename git did not pair, the content changed too much).
  std::vector<const PatchFile*> deleted_tests;
  if (js)
    for (const auto& f : patch->files)
      if (f.status == PatchStatus::deleted && is_test_path(f.old_path) && test_file(f.old_path)) deleted_tests.push_back(&f);
  // The files the developer's change touched (computed once: the order of the runs and the
  // definitions looked up for a pin whose module the file does not name both use them).
  const auto change_files = changed_files(repo, req.change.base_commit, ctx.workspace.head_commit());
  std::set<std::string> changed_paths;
  if (change_files)
    for (const auto& c : *change_files) changed_paths.insert(c.path);
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> definitions;  // (by function name)
  std::set<std::string> added;  // (files the patch added: a helper it wrote may live anywhere)
  std::set<std::string> patched;  // (every file the patch adds, changes, renames or deletes)
  for (const auto& f : patch->files) {
    if (f.status == PatchStatus::added) added.insert(f.new_path);
    patched.insert(f.new_path);
    patched.insert(f.old_path);
  }
  for (const auto& f : patch->files) {
    // (A renamed test file counts under runners naming tests by title: the requested title is now in it.)
    const bool replaced = !deleted_tests.empty() && f.status == PatchStatus::added;
    const bool changed = f.status == PatchStatus::modified || (js && f.status == PatchStatus::renamed) || replaced;
    if (!changed || !is_test_path(f.new_path) || !test_file(f.new_path)) continue;
    bool whole_file = false, named = false;
    for (const auto& w : wanted) {
      const auto sep = w.find("::");
      if (w.substr(0, sep) == f.new_path) {
        named = true;
        whole_file = whole_file || sep == std::string::npos;
      }
    }
    if (!named && !js) continue;  // (node --test, tape and jest name tests by title: a changed test file may hold them)
    auto after = tree->read(f.new_path, 8u << 20);
    if (!after) continue;
    std::vector<integrity::PinnedCall> pins;
    auto reached = [&](const std::string& via, const integrity::PinnedCall& p) { return helper_calls(*tree, python, f.new_path, via, p, added); };
    for (const PatchFile* old : replaced ? deleted_tests : std::vector<const PatchFile*>{&f}) {
      auto before = text_before(ctx, repo, *old);
      if (!before) return unexpected(before.error());
      auto found = integrity::pinned_calls(f.new_path, *before, *after, wanted, whole_file, &wanted_after, reached, true);
      pins.insert(pins.end(), std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()));
    }
    std::string after_text = *after;  // (whitespace removed, as the pins are written)
    after_text.erase(std::remove_if(after_text.begin(), after_text.end(), [](unsigned char ch) { return std::isspace(ch); }), after_text.end());
    for (const auto& p : pins) {
      // The requested ids naming a test that pinned it (an id of another file is not one of them);
      // the file's own id when the whole file was requested.
      std::vector<std::string> ids;
      for (const auto& w : wanted) {
        const auto sep = w.find("::");
        const bool this_file = sep != std::string::npos ? w.substr(0, sep) == f.new_path : !python || w == f.new_path;
        const bool pinned_here = (python && w == f.new_path) ||
                                 std::any_of(p.tests.begin(), p.tests.end(), [&](const std::string& t) { return reports::contains_test({w}, t); });
        if (this_file && pinned_here && std::find(ids.begin(), ids.end(), w) == ids.end()) ids.push_back(w);
      }
      const bool moved = std::any_of(p.pins.begin(), p.pins.end(), [&](const std::string& c) { return after_text.find(c) == std::string::npos; });
      auto add_target = [&](Target t) {
        auto same = std::find_if(targets.begin(), targets.end(), [&](const Target& o) { return o.module == t.module && o.name == t.name && o.seen == t.seen; });
        if (same == targets.end()) {
          targets.push_back(std::move(t));
          return;
        }
        for (auto& id : t.ids)
          if (std::find(same->ids.begin(), same->ids.end(), id) == same->ids.end()) same->ids.push_back(std::move(id));
        same->pins_moved = same->pins_moved || t.pins_moved;
        same->guessed = same->guessed && t.guessed;
      };
      if (p.module.empty()) {
        // The file does not say which module (a conftest.py fixture, a loader function): each
        // definition of the function in the project's code, the run deciding which the tests call.
        if (!definitions.count(p.name))
          definitions[p.name] = project_definitions(*tree, repo, ctx.workspace.head_commit(), python, p.name, changed_paths, 4);
        for (const auto& [file, name] : definitions[p.name]) {
          const std::string module = python ? python_module_of(*tree, file) : (root / file).lexically_normal().string();
          if (!module.empty()) add_target({module, name, ids, f.new_path, file, false, file, moved, true});
        }
        continue;
      }
      // (A pin no reading saw called: only a function of the project's own code, a file of the tree.)
      if (!p.seen_called) {
        const std::string file = module_file(*tree, python, f.new_path, p.module);
        if (file.empty() || is_test_path(file)) continue;
      }
      std::string module;
      std::string cls = p.cls;
      if (python) {
        module = python_module_name(*tree, f.new_path, p.module);
        if (module.empty()) continue;
        // (`from pkg import calc` ... `calc.add(`: `calc` is a submodule when the tree has its file.)
        if (!cls.empty() && python_submodule(*tree, module, cls)) {
          module += "." + cls;
          cls.clear();
        }
      } else {
        const std::string file = module_file(*tree, false, f.new_path, p.module);
        if (file.empty()) continue;
        module = (root / file).lexically_normal().string();
      }
      const std::string name = cls.empty() ? p.name : cls + "." + p.name;  // (a method: `Calc.add`)
      add_target({module, name, std::move(ids), f.new_path, p.module, p.seen_called, module_file(*tree, python, f.new_path, p.module), moved});
    }
  }
  if (targets.empty()) {
    out.note = "not applicable: no requested test changed by the patch pinned a call of the project's code";
    return out;
  }
  out.values.python = python;
  out.values.run_ids = wanted_after;
  auto values_key = [&](const Target& t) {
    return std::pair<std::string, std::string>(python ? t.module : fs::path(t.module).lexically_relative(root).generic_string(), t.name);
  };
  // The values check compares the functions the tests were seen to call, and those not seen that a
  // moved run found called from the tests' side (added below).
  for (const auto& t : targets)
    if (auto v = values_key(t); t.seen && std::find(out.values.targets.begin(), out.values.targets.end(), v) == out.values.targets.end())
      out.values.targets.push_back(std::move(v));
  // The code the developer's change touched first: when there are more runs than the cap, the
  // functions of the changed modules are the ones moved.
  if (change_files) {
    auto touched = [&](const Target& t) {
      return std::any_of(change_files->begin(), change_files->end(), [&](const ChangedFile& c) {
        return python ? module_names_file(true, t.test_path, t.module, c.path) : (root / c.path).lexically_normal().string() == t.module;
      });
    };
    std::stable_partition(targets.begin(), targets.end(), touched);
  }
  // Before those, the functions whose pins the patch moved (`add(2, 2) == 4` now `add(2, 0) ==
  // 2`): with more pinned functions than runs, a pin the patch kept as it was is the one left out
  // (review 30: the ninth of nine pinned functions, the one whose pins moved, had no run).
  std::stable_partition(targets.begin(), targets.end(), [](const Target& t) { return t.pins_moved; });
  // The targets the tests were seen to call first: the unseen ones take the runs left over.
  std::stable_partition(targets.begin(), targets.end(), [](const Target& t) { return t.seen; });
  DataDir data(root);
  if (data.path.empty()) return fail(Errc::io, "cannot create the value-sensitivity directory in " + root.string());
  const fs::path helper = data.path / (python ? plugin_module(data.path, "flowagent_value_probe") + ".py" : std::string("flowagent_value_probe.js"));
  {
    std::ofstream h(helper);
    h << (python ? std::string(kPythonPerturb) : node_script(kNodePerturb));
    if (!h) return fail(Errc::io, "cannot write " + helper.string());
  }
  // One run per function and requested test that pinned it, each with that one function moved: a
  // test that still pins one function cannot hide that another no longer checks anything, and a
  // sensitive test run beside an insensitive one cannot hide it either. At most kMaxSensitivityRuns
  // runs, in the order the tests pinned the functions.
  constexpr std::size_t kMaxSensitivityRuns = 8;
  struct Planned {
    const Target* target;
    std::vector<std::string> ids;
  };
  std::vector<Planned> plan;
  std::size_t wanted_runs = 0;
  for (const auto& t : targets) {
    std::vector<std::vector<std::string>> groups;
    if (t.ids.empty()) {
      groups.push_back(wanted_after);  // (no id could be tied to the pinning tests: all of them)
    } else {
      for (const auto& id : t.ids) groups.push_back(run_ids_of(id));
    }
    for (auto& g : groups) {
      ++wanted_runs;
      if (plan.size() < kMaxSensitivityRuns) plan.push_back({&t, std::move(g)});
    }
  }
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const Target& target = *plan[i].target;
    const std::vector<std::string>& ids = plan[i].ids;
    const std::string what = target.described() + (ids.size() == 1 && (wanted.size() > 1 || ids.front() != wanted.front()) ? " in " + ids.front() : "");
    auto tmpl = checked_test_template(req, ids, "sensitivity");
    if (!tmpl) return unexpected(tmpl.error());
    const fs::path log = data.path / ("moved-" + std::to_string(i) + ".log");
    const std::string list = dump_json_lossy(Json(Json::Array{Json(Json::Array{Json(target.module), Json(target.name)})}));
    const std::string command = perturb_env(python, data.path, list, log) + keep_python_path(python, data.path, expand_tests(*tmpl, ids));
    auto r = run_command(root, command, req, ctx.cancel, ctx.sandbox);
    if (!r) return unexpected(r.error());
    if (r->cancelled) return fail(Errc::cancelled, "validation cancelled");
    out.checked = true;
    out.runs.push_back(test_run_of(command, *r, "sensitivity"));
    auto text = tree->read(log.lexically_relative(root).generic_string(), 16u << 20);
    const std::string_view logged = text ? std::string_view(*text) : std::string_view();
    const std::size_t wrapped = log_lines(logged, {"wrapped"}), called = log_lines(logged, {"called"}), times = log_lines(logged, {"moved"});
    const bool passed = !r->timed_out && r->exit_code == 0;
    // Never called at all, though it is still defined where the old test took it from and the
    // patch leaves that file as the change left it: the tests check something else in its
    // place (a stand-in of the function put in another module of the project: review 30),
    // and the code they pinned still does what failed them.
    // (A function the reading saw called, wrapped and not called, is the next check's.)
    // (Left as the change left it: a file the patch does not touch, or whose definition of the
    // function reads the same, comments and whitespace aside, and so do the file's definitions
    // that it names: a comment edited in the file hides nothing; a helper it calls that the
    // patch fixed is a fix of it.)
    auto left_as_changed = [&]() {
      if (target.file.empty()) return false;
      if (!patched.count(target.file)) return true;
      auto now = tree->read(target.file, 4u << 20);
      auto then = read_file_at(repo, ctx.workspace.head_commit(), target.file, ctx.cancel);
      if (!now || !then) return false;
      const std::string code = definition_code(python, *now, target.name);
      if (code.empty() || code != definition_code(python, *then, target.name)) return false;
      static const rx::regex word(R"([A-Za-z_$][\w$]*)");
      const integrity::FileNames names = integrity::file_names(integrity::lang_of(target.file), *now);
      std::set<std::string> mentioned;
      for (rx::sregex_iterator w(code.begin(), code.end(), word), e; w != e; ++w) mentioned.insert(w->str());
      for (const auto& n : mentioned)
        if (n != target.name && names.defined.count(n) && definition_code(python, *now, n) != definition_code(python, *then, n)) return false;
      return true;
    };
    if (called == 0 && passed && (!target.seen || wrapped == 0) && !target.guessed && !target.file.empty()) {
      auto source = tree->read(target.file, 8u << 20);
      const std::string own = target.name.substr(0, target.name.find('.'));
      // (Defined: a name the file defines; a JavaScript export, `exports.add =`, `add: (a, b) =>`.)
      const bool defined =
          source && (integrity::file_names(integrity::lang_of(target.file), *source).defined.count(own) || (!python && js_defines(*source, own)));
      // Its code edited (not as the change left it by its text): its answers to the old tests'
      // calls decide, at the head and with the fix (check_stand_ins, after this check).
      const bool textual = defined && left_as_changed();
      // (Still bound in the module another way, `add = _add`, `add = cache(_add)`, `from impl import
      // add`: the drive looks it up by name, so its answers decide too.)
      auto bound_otherwise = [&]() {
        if (!source || !python) return false;
        const rx::regex binding = detail::cached_regex("(^|\\n)(" + own + "\\s*(:[^=\\n]*)?=[^=]|from\\s+\\S+\\s+import\\s+[^\\n]*\\b" + own +
                                 "\\b|import\\s+[^\\n]*\\bas\\s+" + own + "\\b)");
        return rx::regex_search(*source, binding);
      };
      if ((defined || bound_otherwise()) && !textual && patched.count(target.file)) {
        std::array<std::string, 3> suspect{values_key(target).first, target.name, what};
        if (std::find(out.stand_ins.begin(), out.stand_ins.end(), suspect) == out.stand_ins.end()) out.stand_ins.push_back(std::move(suspect));
      }
      if (textual) {
        out.reason = "code_under_test_not_executed";
        out.message = "the requested tests no longer call " + what + ", which they compared with a literal before the patch, and the patch leaves " +
                      (patched.count(target.file) ? "its code in " : "") + target.file +
                      " as the change left it: the code they pinned still does what made them fail, and they check "
                      "something else in its place";
        return out;
      }
    }
    // A target no reading saw called: it counts only where the tests' side calls it (a test file, a
    // helper of the tests, a file the patch added), not the project's own code (`top()` sorting by
    // it, `Store.put` making an id with it: what the project's code does with it is that code's
    // business, checked through what the tests compare). Not called so: the tests no longer reach
    // it (what they check instead is the guard's to judge).
    if (!target.seen) {
      bool tests_call = false;
      for (const auto& file : log_values(logged, "caller:")) {
        const fs::path abs = fs::path(file).lexically_normal();
        const std::string rel = abs.is_absolute() ? abs.lexically_relative(root.lexically_normal()).generic_string() : abs.generic_string();
        const bool inside = !rel.empty() && rel.rfind("..", 0) != 0;
        tests_call = tests_call || file.empty() || (inside && (is_test_path(rel) || added.count(rel) > 0));
      }
      if (called == 0 || !tests_call) {
        out.note += std::string(out.note.empty() ? "" : "; ") + "not applicable to " + what +
                    (called == 0 ? ": the tests no longer call it" : ": only the project's own code calls it");
        continue;
      }
      if (auto v = values_key(target); std::find(out.values.targets.begin(), out.values.targets.end(), v) == out.values.targets.end())
        out.values.targets.push_back(std::move(v));
    }
    // The function was wrapped (a function of the module, loaded by the run) and the tests passed
    // without calling it once: they no longer run the code they pinned.
    if (passed && wrapped > 0 && called == 0) {
      out.reason = "code_under_test_not_executed";
      out.message = "the requested tests pass without calling " + what +
                    " once, although before the patch they compared a call of it with a literal and they still call it: a "
                    "check whose call of the code never runs checks nothing of it";
      return out;
    }
    if (times == 0 && !passed && wrapped > 0 && !r->timed_out) {
      // Nothing was moved and the tests failed: they fail on the check itself (a probe of the
      // function that runs before any call of it): the run is its own control run.
      out.reason = "code_value_not_checked";
      out.message = "the requested tests fail whenever " + what +
                    " is wrapped by the check, before any of its results is moved (nothing moved, the run failed): their "
                    "failure is no evidence that they depend on what the code computes";
      return out;
    }
    if (times == 0) {
      out.note += std::string(out.note.empty() ? "" : "; ") + "not applicable to " + what +
                  ": no result of it was a number, a boolean or a string to move";
      continue;
    }
    bool order_checked = false;  // (the tests fail when the order of its results is reversed)
    if (passed && !target.seen) {
      // Unseen, its results may matter only by their order (a sort key, a comparator, a rank the
      // tests sort by), which the move keeps: one more run with the order reversed (-v - 1).
      const fs::path rlog = data.path / ("reversed-" + std::to_string(i) + ".log");
      const std::string reversed = "export FLOWAGENT_PERTURB_MODE=reverse; " + perturb_env(python, data.path, list, rlog) + keep_python_path(python, data.path, expand_tests(*tmpl, ids));
      auto rv = run_command(root, reversed, req, ctx.cancel, ctx.sandbox);
      if (!rv) return unexpected(rv.error());
      if (rv->cancelled) return fail(Errc::cancelled, "validation cancelled");
      out.runs.push_back(test_run_of(reversed, *rv, "sensitivity-reversed"));
      auto rtext = tree->read(rlog.lexically_relative(root).generic_string(), 16u << 20);
      const std::size_t rtimes = rtext ? log_lines(*rtext, {"moved"}) : 0;
      order_checked = !rv->timed_out && rv->exit_code != 0 && rtimes > 0;
    }
    if (passed && !order_checked) {
      out.reason = "code_value_not_checked";
      out.message = "the requested tests still pass when the results of " + what + " are moved (" + std::to_string(times) +
                    " result(s) moved: numbers to 2v+1 away from zero, booleans negated, strings framed with `~`" +
                    (target.seen ? "" : "; and with their order reversed") +
                    "), although before the patch the tests compared a call of it with a literal: their verdict no longer depends on what the code computes";
      return out;
    }
    // The moved run failed: credited to the moved values only when the same run with the function
    // wrapped the same way and nothing moved passes (a test that fails on the wrapper itself, a
    // probe of the function's code or of the run, fails both).
    // (In record mode, which wraps and moves nothing as control mode does and also writes each
    // call: the values check's record when it wants this one's functions and tests.)
    const fs::path control_calls = data.path / ("control-calls-" + std::to_string(i)), clog = data.path / ("control-" + std::to_string(i) + ".log");
    const std::string control = perturb_env(python, data.path, list, clog, "record", control_calls) + keep_python_path(python, data.path, expand_tests(*tmpl, ids));
    auto c = run_command(root, control, req, ctx.cancel, ctx.sandbox);
    if (!c) return unexpected(c.error());
    if (c->cancelled) return fail(Errc::cancelled, "validation cancelled");
    out.runs.push_back(test_run_of(control, *c, "sensitivity-control"));
    if (c->timed_out || c->exit_code != 0) {
      out.reason = "code_value_not_checked";
      out.message = "the requested tests fail whenever " + what +
                    " is wrapped by the check, its results moved or not (the control run with nothing moved fails too): their "
                    "failure is no evidence that they depend on what the code computes";
      return out;
    }
    auto calls = tree->read(control_calls.lexically_relative(root).generic_string(), 4u << 20);
    out.values.recorded_by_control.push_back({{values_key(target)}, ids, calls ? *calls : std::string()});
  }
  if (wanted_runs > plan.size())
    out.note += std::string(out.note.empty() ? "" : "; ") + "made the first " + std::to_string(plan.size()) + " of " +
                std::to_string(wanted_runs) + " moved runs (one per pinned function and test)";
  return out;
}

namespace {

using Call = ValueTargets::Call;

/// The most calls one drive answers (the probes' `calls[:1000]`, `.slice(0, 1000)`).
constexpr std::size_t kMaxDrivenCalls = 1000;

// The runs of the values check in one checkout: its private directory holds the helpers.
class ValuesRuns {
 public:
  ValuesRuns(RepairContext& ctx, const ValueTargets& values, const fs::path& root, std::vector<TestRun>& runs)
      : ctx_(ctx), values_(values), root_(root), data_(root), runs_(runs) {}

  Expected<void> prepare() {
    if (data_.path.empty()) return fail(Errc::io, "cannot create the values directory in " + root_.string());
    if (values_.go) return {};  // (the driver is generated per drive)
    for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
             {values_.python ? plugin_module(data_.path, "flowagent_value_probe") + ".py" : std::string("flowagent_value_probe.js"),
              values_.python ? std::string(kPythonPerturb) : node_script(kNodePerturb)},
             {"flowagent_value_drive.js", node_script(kNodeDrive)}}) {
      std::ofstream h(data_.path / name);
      h << text;
      if (!h) return fail(Errc::io, "cannot write " + (data_.path / name).string());
    }
    return {};
  }

  /// The calls the tests `ids` make of the targets here (record mode), deduplicated.
  Expected<std::vector<Call>> record(const std::vector<std::string>& ids, const std::string& purpose) {
    if (values_.go) return record_go(ids);
    const fs::path calls = data_.path / ("calls-" + purpose), log = data_.path / ("log-" + purpose);
    auto tmpl = checked_test_template(ctx_.request, ids, purpose);
    if (!tmpl) return unexpected(tmpl.error());
    auto r = run(env_of(targets_list(values_.targets), "record", calls, log) + keep_python_path(values_.python, data_.path, expand_tests(*tmpl, ids)), purpose);
    if (!r) return unexpected(r.error());
    return recorded(read_text(calls));
  }

  /// The calls a record-mode run wrote (its calls file's `text`), deduplicated.
  std::vector<Call> recorded(const std::string& text) {
    std::vector<Call> out;
    for (std::string_view rest = text; !rest.empty();) {
      const auto nl = rest.find('\n');
      const std::string_view line = rest.substr(0, nl);
      rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
      auto j = parse_json(line, 16);
      if (!j || !j->is_array() || (j->size() != 4 && j->size() != 5) || !j->as_array()[0].is_string() || !j->as_array()[1].is_string()) continue;
      std::string m = j->as_array()[0].as_string();
      if (!values_.python) {
        const fs::path rel = fs::path(m).lexically_normal().lexically_relative(root_.lexically_normal());
        if (rel.empty() || *rel.begin() == "..") continue;
        m = rel.generic_string();
      }
      Call c{m, j->as_array()[1].as_string(), dump_json_lossy(Json(Json::Array{j->as_array()[2], j->as_array()[3]})),
             j->size() == 5 ? dump_json_lossy(j->as_array()[4]) : std::string(), std::string(line)};
      if (std::none_of(out.begin(), out.end(),
                       [&](const Call& x) { return x.same_as(c); }))
        out.push_back(std::move(c));
      if (out.size() >= 400) break;
    }
    truncated_ = out.size() >= 400 || std::count(text.begin(), text.end(), '\n') >= 500;
    return out;
  }

  /// The tests `ids` with every result of `targets` moved but those of the `keep` calls:
  /// (passed, results moved).
  Expected<std::pair<bool, std::size_t>> move_except(const std::vector<std::string>& ids,
                                                     const std::vector<std::pair<std::string, std::string>>& targets,
                                                     const std::vector<std::pair<std::string, std::string>>& lines,
                                                     const std::string& purpose) {
    const fs::path calls = data_.path / ("keep-" + purpose), log = data_.path / ("log-" + purpose);
    {
      std::ofstream f(calls);
      for (const auto& [call, answer] : lines)
        f << dump_json_lossy(Json(Json::Array{Json(call), answer.empty() ? Json() : Json(answer)})) << "\n";
      if (!f) return fail(Errc::io, "cannot write " + calls.string());
    }
    auto tmpl = checked_test_template(ctx_.request, ids, purpose);
    if (!tmpl) return unexpected(tmpl.error());
    auto r = run(env_of(targets_list(targets), "except", calls, log) + keep_python_path(values_.python, data_.path, expand_tests(*tmpl, ids)), purpose);
    if (!r) return unexpected(r.error());
    const std::size_t times = log_lines(read_text(log), {"moved", "replaced"});  // (results moved or replaced)
    return std::pair<bool, std::size_t>{!r->timed_out && r->exit_code == 0, times};
  }

  bool truncated() const { return truncated_; }  ///< the last record hit a cap
  bool incomplete() const { return incomplete_; }  ///< go: the last record met a call it could not read

  /// go test: the calls the tests `ids` make of the targets, read from the test files of the
  /// targets' package folders in this checkout (go_values::test_calls). A call of a target whose
  /// arguments are not constants, or a target used otherwise than called, leaves the record
  /// incomplete (truncated()): what the tests ask of it is then not fully known.
  Expected<std::vector<Call>> record_go(const std::vector<std::string>& ids) {
    truncated_ = incomplete_ = false;
    std::vector<Call> out;
    auto tree = SandboxFs::open(root_);
    if (!tree) return unexpected(tree.error());
    std::map<std::string, std::set<std::string>> by_dir;
    for (const auto& [dir, name] : values_.targets) by_dir[dir].insert(name);
    for (const auto& [dir, names] : by_dir) {
      const GoPackage pkg = go_package_at(*tree, dir);
      if (pkg.name.empty()) continue;
      const auto files = go_test_files(*tree, dir);
      for (const auto& id : ids) {
        const std::string fn = go_values::test_function(id);
        if (fn.empty()) continue;
        const auto read = go_read_test(files, pkg, fn, names);
        if (!read) continue;
        incomplete_ = incomplete_ || read->incomplete;
        for (const auto& c : read->calls) {
          Call call{dir, c.name, "[" + c.args + ",{}]", "", dir + "\x1f" + c.name + "\x1f" + c.args};
          if (std::none_of(out.begin(), out.end(), [&](const Call& x) { return x.same_as(call); })) out.push_back(std::move(call));
          if (out.size() >= 400) {
            truncated_ = true;
            return out;
          }
        }
      }
    }
    return out;
  }

  /// go test: each call made by a generated file of its package (go_values::driver_source) and a
  /// `main` package beside it, `go run` with the test command's environment assignments. A call
  /// this version cannot compile (a signature the change altered) answers "nocall" and the rest
  /// run again; a package named main, or one outside a module, answers "?".
  Expected<std::vector<std::string>> drive_go(const std::vector<Call>& calls, const std::string& purpose) {
    std::vector<std::string> answers(calls.size(), "?");
    auto tree = SandboxFs::open(root_);
    if (!tree) return unexpected(tree.error());
    std::map<std::string, std::vector<std::size_t>> by_dir;
    for (std::size_t i = 0; i < calls.size(); ++i) by_dir[calls[i].module].push_back(i);
    const go_values::GoCommand go_cmd = go_values::go_command_of(ctx_.request.commands.test);
    for (const auto& [dir, indexes] : by_dir) {
      const GoPackage pkg = go_package_at(*tree, dir);
      if (pkg.name.empty() || pkg.name == "main" || pkg.import_path.empty()) continue;
      // (Names of its own per drive: a file the patch adds cannot take the driver's place or keep
      // it from being written.)
      const std::string suffix = random_suffix();
      const std::string driver_name = std::string(kGoDriverFile) + "_" + suffix + ".go";
      const std::string rel_driver = (dir.empty() ? "" : dir + "/") + driver_name;
      const std::string rel_main_dir = (dir.empty() ? "" : dir + "/") + std::string(kGoDriverMain) + suffix;
      if (tree->exists(rel_driver) || tree->exists(rel_main_dir)) continue;
      const fs::path out_file = data_.path / ("answers-" + purpose + (dir.empty() ? "" : "-" + std::to_string(std::hash<std::string>{}(dir))));
      std::vector<go_values::ReadCall> batch;
      for (std::size_t i : indexes) {
        auto j = parse_json(calls[i].args, 16);
        batch.push_back({calls[i].name, j && j->is_array() && j->size() == 2 ? dump_json_lossy(j->as_array()[0]) : std::string("null")});
      }
      std::vector<bool> nocall(batch.size(), false);
      struct Cleanup {
        const SandboxFs& t;
        std::string driver, main_dir;
        ~Cleanup() {
          (void)t.remove(driver);
          (void)t.remove(main_dir + "/main.go");
          std::error_code ec;
          fs::remove(t.root() / main_dir, ec);
        }
      } cleanup{*tree, rel_driver, rel_main_dir};
      for (int attempt = 0; attempt < 2; ++attempt) {
        std::vector<go_values::ReadCall> made;
        for (std::size_t k = 0; k < batch.size(); ++k) made.push_back(nocall[k] ? go_values::ReadCall{"", "not json"} : batch[k]);
        int first_line = 0;
        if (auto w = tree->write(rel_driver, go_values::driver_source(pkg.name, made, &first_line)); !w) return unexpected(w.error());
        if (auto w = tree->write(rel_main_dir + "/main.go", go_values::main_source(pkg.import_path, out_file.string())); !w)
          return unexpected(w.error());
        // (From the package's folder, where go test runs its tests: code that reads a file
        // relative to it answers here as there.)
        const std::string command = "cd " + shell_quote((root_ / dir).lexically_normal().string()) + " && " + go_cmd.env + "go run" + go_cmd.flags + " -gcflags=" +
                                    shell_quote(pkg.import_path + "=-e") + " " + shell_quote((root_ / rel_main_dir).string());
        auto r = run(command, purpose);
        if (!r) return unexpected(r.error());
        const std::string text = read_text(out_file);
        if (!text.empty()) {
          auto j = parse_json(text, 4);
          if (j && j->is_array())
            for (std::size_t k = 0; k < indexes.size() && k < j->size(); ++k)
              answers[indexes[k]] = nocall[k] ? "nocall" : j->as_array()[k].is_string() ? j->as_array()[k].as_string() : "?";
          break;
        }
        // Not built: the calls the compiler names answer "nocall" (this version cannot take them).
        bool named = false;
        for (int line : go_values::error_lines(r->output, driver_name)) {
          const int k = line - first_line;
          if (k >= 0 && static_cast<std::size_t>(k) < nocall.size() && !nocall[static_cast<std::size_t>(k)]) {
            nocall[static_cast<std::size_t>(k)] = true;
            named = true;
          }
        }
        if (!named) break;
      }
    }
    return answers;
  }

  /// This checkout's code's answers to `calls`, made outside the tests ("?" where none was read).
  /// pytest: the tests `ids` are collected first (the project then imports as they import it).
  Expected<std::vector<std::string>> drive(const std::vector<Call>& calls, const std::vector<std::string>& ids, const std::string& purpose) {
    if (values_.go) return drive_go(calls, purpose);
    const fs::path in = data_.path / ("drive-" + purpose), log = data_.path / ("answers-" + purpose);
    {
      std::ofstream f(in);
      for (const auto& c : calls) {
        auto a = parse_json(c.args, 16);
        Json::Array row{Json(module_in(c.module)), Json(c.name)};
        if (a && a->is_array() && a->size() == 2) {
          row.push_back(a->as_array()[0]);
          row.push_back(a->as_array()[1]);
          if (auto st = parse_json(c.state, 16); !c.state.empty() && st) row.push_back(*st);
        }
        f << dump_json_lossy(Json(std::move(row))) << "\n";
      }
      if (!f) return fail(Errc::io, "cannot write " + in.string());
    }
    std::string command;
    if (values_.python) {
      // The tests' files, not their node ids: a file whose import fails here (the old tests at the
      // head, after the change renamed a name they import) is a collection error, after which the
      // plugin still drives; a node id pytest cannot find is a usage error before it does.
      std::vector<std::string> files;
      for (const auto& id : ids) {
        const std::string file = id.substr(0, id.find("::"));
        if (std::find(files.begin(), files.end(), file) == files.end()) files.push_back(file);
      }
      auto tmpl = checked_test_template(ctx_.request, files, purpose);
      if (!tmpl) return unexpected(tmpl.error());
      command = env_of("[]", "drive", in, log) + keep_python_path(values_.python, data_.path, expand_tests(*tmpl, files));
    } else {
      command = "node " + shell_quote((data_.path / "flowagent_value_drive.js").string()) + " " + shell_quote(in.string()) + " " +
                shell_quote(log.string());
    }
    auto r = run(command, purpose);
    if (!r) return unexpected(r.error());
    // (One JSON string a line, in the calls' order; the lines a drive cut short did not write: "?".)
    std::vector<std::string> answers(calls.size(), "?");
    const std::string text = read_text(log);
    std::size_t i = 0;
    for (std::string_view rest = text; !rest.empty() && i < calls.size(); ++i) {
      const auto nl = rest.find('\n');
      if (nl == std::string_view::npos) break;  // (a line written only in part)
      auto j = parse_json(rest.substr(0, nl), 4);
      if (j && j->is_string()) answers[i] = j->as_string();
      rest = rest.substr(nl + 1);
    }
    return answers;
  }

 private:
  // The module as this checkout's runtime names it (node: its absolute path here).
  std::string module_in(const std::string& m) const { return values_.python ? m : (root_ / m).lexically_normal().string(); }

  Expected<ProcessResult> run(const std::string& command, const std::string& purpose) {
    auto r = run_command(root_, command, ctx_.request, ctx_.cancel, ctx_.sandbox);
    if (!r) return unexpected(r.error());
    if (r->cancelled) return fail(Errc::cancelled, "validation cancelled");
    runs_.push_back(test_run_of(command, *r, purpose));
    return r;
  }

  std::string env_of(const std::string& list, const std::string& mode, const fs::path& calls, const fs::path& log) const {
    return perturb_env(values_.python, data_.path, list, log, mode, calls);
  }

  /// The targets as the probe reads them: [[module as this checkout names it, name], ...].
  std::string targets_list(const std::vector<std::pair<std::string, std::string>>& targets) const {
    Json::Array list;
    for (const auto& [m, n] : targets) list.push_back(Json(Json::Array{Json(module_in(m)), Json(n)}));
    return dump_json_lossy(Json(std::move(list)));
  }

  std::string read_text(const fs::path& p) const {
    auto tree = SandboxFs::open(root_);
    if (!tree) return {};
    auto text = tree->read(p.lexically_relative(root_).generic_string(), 4u << 20);
    return text ? *text : std::string();
  }

  RepairContext& ctx_;
  const ValueTargets& values_;
  fs::path root_;
  DataDir data_;
  std::vector<TestRun>& runs_;
  bool truncated_ = false, incomplete_ = false;
};

/// A recorded call as the tests wrote it: `[[2, 2], {}]` of add -> `add(2, 2)`.
std::string shown_call(const Call& c) {
  std::string a = c.args;
  if (auto j = parse_json(a, 16); j && j->is_array() && j->size() == 2) {
    // (Arguments that are not plain data are pickled; their repr is shown.)
    auto part = [](const Json& v) {
      const Json* r = v.is_object() ? v.find("repr") : nullptr;
      return r && r->is_string() ? r->as_string() : dump_json_lossy(v);
    };
    a = part(j->as_array()[0]);
    if (!j->as_array()[0].is_object()) a = a.size() >= 2 ? a.substr(1, a.size() - 2) : a;
    if (j->as_array()[1].size() > 0) a += (a.empty() ? "" : ", ") + part(j->as_array()[1]);
  }
  std::string spaced;
  for (char ch : a) spaced += ch == ',' ? std::string(", ") : std::string(1, ch);
  return c.name + "(" + spaced + ")";
}

}  // namespace

/// Two answers of the drive alike: the same text, or the same number in another type (`a - b +
/// 0.0` corrects nothing), floats within a relative 1e-9 (review 37: `(f - 32) / k` for `(f - 32) *
/// 5 / 9` answers 36.99999999999999 where the code before the change answers 37, an honest fix).
static bool answers_alike(const std::string& x, const std::string& y) {
  if (x == y) return true;
  auto number = [](const std::string& s, double& v) {
    char* end = nullptr;
    v = std::strtod(s.c_str(), &end);
    return !s.empty() && end == s.c_str() + s.size() && std::isfinite(v);
  };
  double a = 0, b = 0;
  if (!number(x, a) || !number(y, b)) return false;
  return a == b || std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b));
}

namespace {

/// Of the calls the tests made (`calls`, recorded with the targets of `out` wrapped, perhaps with
/// others): those of its targets with an integer argument and nothing but plain values (at most
/// 12), then their neighbours, each integer argument one lower and one higher (at most 48), none a
/// call the tests made: into out.values.calls, out.recorded and out.near (empty: none).
void neighbours_of(NearCalls& out, const std::vector<Call>& calls) {
  out.values.calls.clear();
  out.values.fix_answers.clear();
  out.near.clear();
  out.recorded = 0;
  std::vector<Call> recorded;
  std::vector<Json> positional;
  for (const auto& c : calls) {
    if (std::find(out.values.targets.begin(), out.values.targets.end(), std::pair<std::string, std::string>(c.module, c.name)) ==
        out.values.targets.end())
      continue;
    auto j = parse_json(c.args, 16);
    if (!j || !j->is_array() || j->size() != 2 || !j->as_array()[0].is_array() || !j->as_array()[1].is_object()) continue;
    const auto& args = j->as_array()[0].as_array();
    bool plain = true, integer = false;
    for (const auto& a : args) {
      plain = plain && (a.is_null() || a.is_bool() || a.is_number() || a.is_string());
      integer = integer || a.is_int();
    }
    for (const auto& [k, v] : j->as_array()[1].as_object()) {
      plain = plain && (v.is_null() || v.is_bool() || v.is_number() || v.is_string());
      integer = integer || v.is_int();
    }
    if (!plain || !integer) continue;
    recorded.push_back(c);
    positional.push_back(*j);
    if (recorded.size() >= 12) break;
  }
  if (recorded.empty()) return;
  std::vector<Call> all = recorded;
  for (std::size_t i = 0; i < recorded.size(); ++i) {
    const auto& args = positional[i].as_array()[0].as_array();
    const auto& kwargs = positional[i].as_array()[1].as_object();
    // (Positional arguments first, then keyword arguments, by their order in the record.)
    for (std::size_t a = 0; a < args.size() + kwargs.size(); ++a) {
      const Json& value = a < args.size() ? args[a] : kwargs[a - args.size()].second;
      if (!value.is_int()) continue;
      for (int side : {-1, 1}) {
        const std::int64_t v = value.as_int();
        if ((side < 0 && v == INT64_MIN) || (side > 0 && v == INT64_MAX) || out.near.size() >= 48) continue;
        Json::Array moved = args;
        Json::Object moved_kw = kwargs;
        (a < args.size() ? moved[a] : moved_kw[a - args.size()].second) = Json(static_cast<long long>(v + side));
        Call n = recorded[i];
        n.args = dump_json_lossy(Json(Json::Array{Json(std::move(moved)), Json(std::move(moved_kw))}));
        n.raw.clear();
        const bool tested = std::any_of(all.begin(), all.end(), [&](const Call& x) { return x.same_as(n); });
        if (tested) continue;
        out.near.push_back({i, a, side});
        all.push_back(std::move(n));
      }
    }
  }
  if (out.near.empty()) return;
  out.recorded = recorded.size();
  out.values.calls = std::move(all);
}

/// The answers after the first `keep` of a drive's `answers` (the calls appended to its own),
/// removed from it.
std::vector<std::string> split_off(std::vector<std::string>& answers, std::size_t keep) {
  std::vector<std::string> tail;
  if (answers.size() > keep) tail.assign(std::make_move_iterator(answers.begin() + static_cast<std::ptrdiff_t>(keep)), std::make_move_iterator(answers.end()));
  answers.resize(keep);
  return tail;
}

/// The near check can share the values check's runs: the same kind of run, the same tests, and
/// every function it records among those the values check records.
bool shares_runs(const NearCalls& near, const ValueTargets& values) {
  return !values.go && near.values.python == values.python && near.values.run_ids == values.run_ids &&
         !near.values.targets.empty() && std::all_of(near.values.targets.begin(), near.values.targets.end(), [&](const auto& t) {
           return std::find(values.targets.begin(), values.targets.end(), t) != values.targets.end();
         });
}

}  // namespace

Expected<void> record_fix_values(RepairContext& ctx, ValueTargets& values, const fs::path& root, std::vector<TestRun>& runs, NearCalls* near) {
  values.calls.clear();
  values.fix_answers.clear();
  if (values.targets.empty()) return {};
  // (The near check's record and drive are these runs when they can be: its functions are among
  // these, so this record holds its calls, and its calls are driven after these.)
  const bool shared = near && !near->made && shares_runs(*near, values);
  // (At most 400 recorded calls, at most 60 of the near check: one drive answers them all.)
  static_assert(400 + 12 + 48 <= kMaxDrivenCalls);
  if (shared) near->made = true;
  ValuesRuns here(ctx, values, root, runs);
  if (auto p = here.prepare(); !p) return unexpected(p.error());
  // (A control run of value sensitivity that wrapped these functions for these tests recorded
  // their calls already.)
  auto by_control = std::find_if(values.recorded_by_control.begin(), values.recorded_by_control.end(),
                                 [&](const ValueTargets::Recorded& r) { return r.targets == values.targets && r.ids == values.run_ids; });
  auto calls = by_control != values.recorded_by_control.end() && !values.go
                   ? Expected<std::vector<Call>>(here.recorded(by_control->calls))
                   : here.record(values.run_ids, shared ? "values+near-record" : "values-record");
  if (!calls) return unexpected(calls.error());
  if (calls->empty()) return {};
  std::vector<Call> driven = *calls;
  if (shared) {
    neighbours_of(*near, *calls);
    driven.insert(driven.end(), near->values.calls.begin(), near->values.calls.end());
  }
  const bool with_near = shared && !near->near.empty();
  auto answers = here.drive(driven, values.run_ids, with_near ? "values+near-fix" : "values-fix");
  if (!answers) return unexpected(answers.error());
  auto near_answers = split_off(*answers, calls->size());
  if (with_near) near->values.fix_answers = std::move(near_answers);
  values.calls = std::move(*calls);
  values.fix_answers = std::move(*answers);
  values.calls_truncated = here.truncated();
  values.calls_incomplete = here.incomplete();
  return {};
}

Expected<ValuesVerdict> check_stand_ins(RepairContext& ctx, const AssertionCheck& check, const fs::path& head_root,
                                        const std::function<Expected<void>()>& to_base, const std::function<Expected<void>()>& to_head,
                                        const std::function<Expected<void>()>& to_fix_code) {
  ValuesVerdict out;
  const auto& req = ctx.request;
  ValueTargets values;
  values.python = check.values.python;
  for (const auto& s : check.stand_ins) values.targets.emplace_back(s[0], s[1]);
  if (values.targets.empty()) return out;
  ValuesRuns tree(ctx, values, head_root, out.runs);
  if (auto p = tree.prepare(); !p) return unexpected(p.error());
  // The old tests' calls at the head (they stop at the first failing check there) and before the
  // change (where they pass, so every pinned call is made).
  auto calls = tree.record(req.failure.failing_tests, "standin-record");
  if (!calls) return unexpected(calls.error());
  if (auto b = to_base(); !b) return unexpected(b.error());
  auto at_base_calls = tree.record(req.failure.failing_tests, "standin-record-base");
  if (!at_base_calls) return unexpected(at_base_calls.error());
  for (auto& c : *at_base_calls)
    if (std::none_of(calls->begin(), calls->end(),
                     [&](const Call& x) { return x.same_as(c); }))
      calls->push_back(std::move(c));
  if (calls->empty()) {
    out.reason = "unverified";
    out.message = "the requested tests no longer call " + check.stand_ins.front()[2] +
                  ", whose code the patch edits, and the tests before the patch recorded no call of it with plain arguments at the head or before the change: whether the edit corrects it is unknown";
    return out;
  }
  auto at_base = tree.drive(*calls, req.failure.failing_tests, "standin-base");
  if (!at_base) return unexpected(at_base.error());
  if (auto h = to_head(); !h) return unexpected(h.error());
  auto at_head = tree.drive(*calls, req.failure.failing_tests, "standin-head");
  if (!at_head) return unexpected(at_head.error());
  if (auto f = to_fix_code(); !f) return unexpected(f.error());
  auto at_fix = tree.drive(*calls, req.failure.failing_tests, "standin-fix");
  if (!at_fix) return unexpected(at_fix.error());
  auto readable = [](const std::string& x) { return x != "?" && x != "nocall"; };
  const auto& alike = answers_alike;
  for (const auto& s : check.stand_ins) {
    // Where the change shows (the head answers otherwise than the code before it), the fix must
    // answer as before the change at every such call: an answer merely different from the head's
    // (`a - b + 1`), or right at one pinned input only, is still not what the old tests asked for.
    // Where it shows nowhere (the base cannot answer: the change added the function), every call
    // must still be answerable and one answer differ from the head's. A call the head answers
    // and the fix's code cannot (a new required parameter, an exit, a hang) corrects nothing.
    std::vector<std::size_t> mine;
    bool shows = false;
    for (std::size_t i = 0; i < calls->size(); ++i) {
      const Call& c = (*calls)[i];
      if (c.module != s[0] || c.name != s[1] || !readable((*at_head)[i])) continue;
      mine.push_back(i);
      shows = shows || (readable((*at_base)[i]) && !alike((*at_base)[i], (*at_head)[i]));
    }
    if (mine.empty()) {
      out.reason = "unverified";
      out.message = "the requested tests no longer call " + s[2] + ", whose code the patch edits, and none of the calls the tests made of it before the patch could be made again at the head: whether the edit corrects it is unknown";
      return out;
    }
    bool corrected = true, differs = false;
    std::vector<std::string> shown;
    for (std::size_t i : mine) {
      const std::string &h = (*at_head)[i], &b = (*at_base)[i], &f = (*at_fix)[i];
      const bool here = readable(b) && !alike(b, h);
      if (shows && !here) continue;
      const bool ok = readable(f) && (shows ? alike(f, b) : true);
      differs = differs || (readable(f) && !alike(f, h));
      if (ok) continue;
      corrected = false;
      if (shown.size() < 3)
        shown.push_back(shown_call((*calls)[i]) + " = " + f + " with the fix, " + h + " at the head" + (here ? ", " + b + " before the change" : ""));
    }
    if (!shows && corrected && !differs) {
      corrected = false;
      for (std::size_t i : mine)
        if (shown.size() < 3) shown.push_back(shown_call((*calls)[i]) + " = " + (*at_fix)[i] + " with the fix, " + (*at_head)[i] + " at the head");
    }
    if (corrected) continue;
    out.reason = "code_under_test_not_executed";
    out.message = "the requested tests no longer call " + s[2] +
                  ", which they compared with a literal before the patch, and the patch's edits of it do not correct what it answers those tests (" +
                  absl::StrJoin(shown, "; ") + (shown.size() >= 3 ? "; ..." : "") +
                  "): the code they pinned still does what made them fail, and they check something else in its place";
    return out;
  }
  out.note = "compared the answers of " + std::to_string(check.stand_ins.size()) + " function(s) the patched tests no longer call";
  return out;
}

Expected<ValuesVerdict> check_values_tell_apart(RepairContext& ctx, const ValueTargets& values, const fs::path& head_root,
                                                const std::function<Expected<void>()>& to_base,
                                                const std::function<Expected<void>()>& to_head, bool code,
                                                const std::function<Expected<void>()>& to_fix_code, NearCalls* near) {
  ValuesVerdict out;
  const auto& req = ctx.request;
  if (values.targets.empty() || values.calls.empty() || values.fix_answers.size() != values.calls.size()) {
    out.note = "not applicable: the patched tests made no call of a pinned function with plain arguments";
    return out;
  }
  ValuesRuns head(ctx, values, head_root, out.runs);
  if (auto p = head.prepare(); !p) return unexpected(p.error());
  auto before = head.record(req.failure.failing_tests, "values-record-head");
  if (!before) return unexpected(before.error());
  bool recorded_on_base = false;
  if (before->empty()) {
    // The old tests may make no call at the head because they no longer import there (the change
    // renamed a name they import): their calls on the code before the change.
    if (auto b = to_base(); !b) return unexpected(b.error());
    before = head.record(req.failure.failing_tests, "values-record-base");
    if (!before) return unexpected(before.error());
    if (auto h = to_head(); !h) return unexpected(h.error());
    recorded_on_base = true;
  }
  if (before->empty()) {
    out.note = "not applicable: the requested tests before the patch made no call of a pinned function with plain arguments";
    return out;
  }
  // The old tests' calls, then the patched tests' (answered by the fix's code already), then (for
  // the dropped checks below) the old tests' calls made only where they pass. (In that order: a
  // drive answers at most 1000 calls, and the first two sets are what the versions are told
  // apart by: review 32 C.)
  std::vector<Call> calls = *before;
  const std::size_t old_count = calls.size();  // (where the change shows: these calls)
  calls.insert(calls.end(), values.calls.begin(), values.calls.end());
  const std::size_t patched_end = calls.size();
  const bool dropped_checks = code && to_fix_code && !values.calls_truncated;
  if (dropped_checks && !recorded_on_base) {
    // (At the head the old tests stop at the first failing check, `add(2, 2) == 4 and add(1, 3) ==
    // 4`: before the change they pass, so every call they check is made.)
    if (auto b = to_base(); !b) return unexpected(b.error());
    auto at_base_calls = head.record(req.failure.failing_tests, "values-record-base");
    if (!at_base_calls) return unexpected(at_base_calls.error());
    if (auto h = to_head(); !h) return unexpected(h.error());
    for (auto& c : *at_base_calls)
      if (std::none_of(calls.begin(), calls.begin() + static_cast<std::ptrdiff_t>(old_count), [&](const Call& x) { return x.same_as(c); }) &&
          std::none_of(calls.begin() + static_cast<std::ptrdiff_t>(patched_end), calls.end(), [&](const Call& x) { return x.same_as(c); }))
        calls.push_back(std::move(c));
  }
  // (The near check's calls, made in these two runs after every other: the same checkout, the
  // same versions, the same tests collected; while the drive answers them all.)
  std::vector<Call> driven = calls;
  const bool with_near = near && !near->near.empty() && near->values.python == values.python && !values.go &&
                         near->values.calls.size() == near->values.fix_answers.size() &&
                         calls.size() + near->values.calls.size() <= kMaxDrivenCalls;
  if (with_near) driven.insert(driven.end(), near->values.calls.begin(), near->values.calls.end());
  auto at_head = head.drive(driven, req.failure.failing_tests, with_near ? "values+near-head" : "values-head");
  if (!at_head) return unexpected(at_head.error());
  if (auto b = to_base(); !b) return unexpected(b.error());
  auto at_base = head.drive(driven, req.failure.failing_tests, with_near ? "values+near-base" : "values-base");
  if (!at_base) return unexpected(at_base.error());
  auto near_at_head = split_off(*at_head, calls.size()), near_at_base = split_off(*at_base, calls.size());
  if (with_near) {
    near->head_answers = std::move(near_at_head);
    near->base_answers = std::move(near_at_base);
  }

  // A check the fix breaks, taken out of the tests: an old call the patched tests no longer make
  // that the fix answers otherwise than both the head and the code before the change.
  if (dropped_checks) {
    auto answerable = [](const std::string& x) { return x != "?" && x != "nocall"; };
    // Judged only where the fix presents itself as restoring the old behaviour: every call the
    // patched tests make of the function, the fix answers as before the change, and at least one
    // of them otherwise than the head. A call answered otherwise than before the change there is
    // an intended change the tests follow (the rounding the change meant, `add(5, 4) == 10`, which
    // the head got right there; a format at another amount), and its stale checks may go (review
    // 32: three honest fixes).
    std::set<std::pair<std::string, std::string>> restoring, intended;
    for (std::size_t i = old_count; i < patched_end && i - old_count < values.fix_answers.size(); ++i) {
      const std::string &f = values.fix_answers[i - old_count], &b = (*at_base)[i], &h = (*at_head)[i];
      if (!answerable(f) || !answerable(b)) continue;
      if (!answers_alike(f, b)) intended.emplace(calls[i].module, calls[i].name);
      else if (answerable(h) && !answers_alike(f, h)) restoring.emplace(calls[i].module, calls[i].name);
    }
    std::vector<std::size_t> dropped;  // (indexes of old calls)
    for (std::size_t i = 0; i < calls.size() && dropped.size() < 200; ++i) {
      if (i >= old_count && i < patched_end) continue;  // (the patched tests' own)
      const std::pair<std::string, std::string> fn(calls[i].module, calls[i].name);
      if (!restoring.count(fn) || intended.count(fn)) continue;
      if (!answerable((*at_head)[i]) || !answerable((*at_base)[i])) continue;
      // (An instance recorded only before the change holds the state that code built, which the
      // fix's code may read otherwise: not judged. Review 32 x03. When the old tests made no call
      // at the head, every old call was recorded before the change.)
      if ((i >= patched_end || (recorded_on_base && i < old_count)) && !calls[i].state.empty()) continue;
      if (std::any_of(values.calls.begin(), values.calls.end(), [&](const Call& c) { return c.same_as(calls[i]); })) continue;
      if (std::any_of(dropped.begin(), dropped.end(), [&](std::size_t j) { return calls[j].same_as(calls[i]); })) continue;
      dropped.push_back(i);
    }
    if (!dropped.empty()) {
      // (Every call in the order the other two runs made them, so state a call leaves behind is
      // what it was there; then the dropped ones once more: an answer that moves is not judged.)
      std::vector<Call> twice = calls;
      for (std::size_t i : dropped) twice.push_back(calls[i]);
      if (auto h = to_head(); !h) return unexpected(h.error());
      if (auto f = to_fix_code(); !f) return unexpected(f.error());
      auto at_fix = head.drive(twice, req.failure.failing_tests, "values-old-fix");
      if (!at_fix) return unexpected(at_fix.error());
      std::vector<std::size_t> broken;
      for (std::size_t k = 0; k < dropped.size(); ++k) {
        const std::size_t i = dropped[k];
        const std::string &f = (*at_fix)[i], &again = (*at_fix)[calls.size() + k], &h = (*at_head)[i], &b = (*at_base)[i];
        if (answerable(f) && f == again && !answers_alike(f, h) && !answers_alike(f, b)) broken.push_back(i);
      }
      if (!broken.empty()) {
        // The code before the change once more, in another process: an answer that differs from
        // its first (the clock, a random value, an address) is not judged (review 32 x13).
        if (auto b = to_base(); !b) return unexpected(b.error());
        auto base_again = head.drive(calls, req.failure.failing_tests, "values-old-base");
        if (!base_again) return unexpected(base_again.error());
        std::vector<std::string> shown_broken;
        for (std::size_t i : broken)
          if ((*base_again)[i] == (*at_base)[i] && shown_broken.size() < 3)
            shown_broken.push_back(shown_call(calls[i]) + " = " + (*at_fix)[i] + " with the fix, " + (*at_head)[i] + " at the head, " +
                                   (*at_base)[i] + " before the change");
        if (!shown_broken.empty()) {
          out.reason = "broken_check_dropped";
          out.message = "the patch takes out of the requested tests calls at which the fix answers neither as the head nor as the code before the change (" +
                        absl::StrJoin(shown_broken, "; ") + (shown_broken.size() >= 3 ? "; ..." : "") +
                        "), while it answers as before the change wherever the tests still ask: what they checked before is broken and no longer checked";
          return out;
        }
      }
    }
  }

  const auto& shown = shown_call;
  std::vector<std::string> dull;
  auto raised = [](const std::string& x) { return x.rfind("raise:", 0) == 0; };
  auto is_value = [&](const std::string& x) { return x != "?" && x != "nocall" && !raised(x); };
  for (const auto& [m, n] : values.targets) {
    std::string where_change_shows;
    bool change_raises = false;  // (the change shows as an exception: the old tests' call now raises)
    for (std::size_t i = 0; i < old_count; ++i) {
      if (calls[i].module != m || calls[i].name != n) continue;
      const std::string &h = (*at_head)[i], &b = (*at_base)[i];
      if (h == "?" || b == "?" || h == "nocall" || b == "nocall" || h == b) continue;
      change_raises = change_raises || raised(h);
      if (where_change_shows.empty()) where_change_shows = shown(calls[i]) + ": " + b + " before the change, " + h + " at the head";
    }
    if (where_change_shows.empty()) continue;  // (the change does not show in it where the old tests asked)
    bool asked = false, tells = false;
    std::vector<std::string> same;
    std::vector<std::pair<std::string, std::string>> keep;  // (record, the answer it gives in the last run; "" its own)
    for (std::size_t i = old_count; i < patched_end; ++i) {  // (the patched tests' calls)
      if (calls[i].module != m || calls[i].name != n) continue;
      asked = true;
      const std::string& f = values.fix_answers[i - old_count];
      const std::string &b = (*at_base)[i], &h = (*at_head)[i];
      // A call a version cannot take (a keyword the other does not have), or one that raises only
      // where the fix's code (or the head, for tests only) raises and the change did not make the
      // old calls raise (a validation for show: `add(True, 1)` now a TypeError), tells nothing.
      // (With a code fix, the head is compared as well as the base: a call the base cannot take, a
      // parameter the change added, `add(2, 2, scale=1)`, is compared with the head's answer.)
      const bool base_takes = b != "nocall", head_takes = code && h != "nocall";
      const bool nocall = f == "nocall" || (!base_takes && !head_takes);
      const bool raise_for_show = raised(f) && (base_takes ? f != b : f != h) && !change_raises;
      if (nocall || raise_for_show) {
        if (same.size() < 3) same.push_back(shown(calls[i]) + " = " + f + (nocall ? " (not callable so in every version)" : " (an exception the change did not bring)"));
        keep.emplace_back(calls[i].raw, "");
        continue;
      }
      if (f == "?" || (base_takes && (b == "?" || f != b)) || (head_takes && (h == "?" || f != h))) {
        tells = true;
        // (In the last run it answers as the code without the fix would, where that is a value.)
        const std::string& other = code ? h : b;
        if (is_value(other) && other != f) keep.emplace_back(calls[i].raw, other);
        continue;
      }
      if (same.size() < 3) same.push_back(shown(calls[i]) + " = " + f);
      keep.emplace_back(calls[i].raw, "");
    }
    if (tells || (asked && (values.calls_truncated || values.calls_incomplete))) {
      out.judged.emplace_back(m, n);
      out.keep.insert(out.keep.end(), keep.begin(), keep.end());
      continue;
    }
    if (asked)
      dull.push_back(n + " (" + m + "): the patched tests ask " + absl::StrJoin(same, ", ") + (same.size() >= 3 ? ", ..." : "") +
                     ", answered the same " + (code ? "without the fix and before the change" : "before the change") +
                     ", where the tests before the patch asked " + where_change_shows);
  }
  out.note = "compared " + std::to_string(calls.size()) + " call(s) of " + std::to_string(values.targets.size()) + " pinned function(s)";
  if (dull.empty()) return out;
  out.judged.clear();
  out.keep.clear();
  out.reason = code ? "tests_pass_without_the_fix" : "tests_pass_without_the_change";
  out.message = "the requested tests, as the patch changes them, no longer ask the code anything the " +
                std::string(code ? "fix" : "change") + " changed: " + absl::StrJoin(dull, "; ") +
                ". Their failure without it comes from something else, which is no evidence that they check the " +
                std::string(code ? "fix" : "change");
  return out;
}

Expected<ValuesVerdict> check_telling_calls_checked(RepairContext& ctx, const ValueTargets& values, const fs::path& root,
                                                    const std::vector<std::pair<std::string, std::string>>& judged,
                                                    const std::vector<std::pair<std::string, std::string>>& keep) {
  ValuesVerdict out;
  if (judged.empty()) {
    out.note = "not applicable: no call tells the versions apart";
    return out;
  }
  if (values.go) {
    out.note = "not available: results are not replaced under go test (a compiled test binary)";
    return out;
  }
  ValuesRuns here(ctx, values, root, out.runs);
  if (auto p = here.prepare(); !p) return unexpected(p.error());
  auto moved = here.move_except(values.run_ids, judged, keep, "values-only");
  if (!moved) return unexpected(moved.error());
  const auto& [passed, times] = *moved;
  if (times == 0) {
    out.note = "not judged: no call outside those every version answers alike had a result to move";
    return out;
  }
  std::vector<std::string> names;
  for (const auto& [m, n] : judged) names.push_back(n + " (" + m + ")");
  // (Failing here is what an honest test does. A relation true only under the bug fails here too,
  // `add(5, 2) + add(2, 5) == 0` for `a - b`; a second run with those answers moved was tried and
  // taken out: every move that keeps such a relation also keeps an honest sign, order or
  // equivalence check, `compare(5, 1) > 0`, `normalize(a) == normalize(b)` (review 28).)
  if (!passed) return out;
  out.reason = "code_value_not_checked";
  out.message = "the requested tests still pass when " + absl::StrJoin(names, ", ") +
                " answers as the code without the fix does where the versions differ (other results moved, " + std::to_string(times) +
                "): they call the code where the fix shows without checking what it answers there";
  return out;
}

namespace {

/// The functions a production file defines, as the values probe names them: Python top-level
/// functions and the methods of top-level classes (`Calc.add`); JavaScript functions, exports and
/// bindings of functions at the top level.
std::vector<std::string> defined_functions(bool python, const std::string& text) {
  std::vector<std::string> out;
  auto add = [&](std::string n) {
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(std::move(n));
  };
  std::istringstream in(text.substr(0, 4u << 20));
  if (python) {
    static const rx::regex top(R"(^(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\()");
    static const rx::regex cls(R"(^class\s+([A-Za-z_]\w*))");
    static const rx::regex method(R"(^(\s+)(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\()");
    std::string current;
    std::size_t method_indent = 0;
    for (std::string line; std::getline(in, line);) {
      rx::smatch m;
      if (rx::regex_search(line, m, top)) {
        add(m[1].str());
        current.clear();
      } else if (rx::regex_search(line, m, cls)) {
        current = m[1].str();
        method_indent = 0;
      } else if (!line.empty() && !std::isspace(static_cast<unsigned char>(line.front())) && line.front() != '#' && line.front() != '@' &&
                 line.front() != ')') {
        current.clear();
      } else if (!current.empty() && rx::regex_search(line, m, method)) {
        if (method_indent == 0) method_indent = m[1].length();
        if (static_cast<std::size_t>(m[1].length()) == method_indent) add(current + "." + m[2].str());
      }
    }
    return out;
  }
  static const rx::regex js(R"(^(?:export\s+)?(?:async\s+)?function\*?\s+([A-Za-z_$][\w$]*)|^(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=)"
                             R"(|^(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>))");
  for (std::string line; std::getline(in, line);) {
    rx::smatch m;
    if (rx::regex_search(line, m, js))
      for (int g = 1; g <= 3; ++g)
        if (m[g].matched) add(m[g].str());
  }
  return out;
}

}  // namespace

Expected<NearCalls> near_targets(RepairContext& ctx, const fs::path& root, const std::string& patch_text,
                                 const std::vector<TestReplacement>& replacements) {
  NearCalls out;
  const auto& req = ctx.request;
  const reports::Runner runner = plan_runner(req.commands.test, root / ".flowagent-none", root).runner;
  const bool python = runner == reports::Runner::pytest;
  if (!python && !measured_by(runner).js && runner != reports::Runner::jest) return out;
  auto tree = SandboxFs::open(root);
  if (!tree) return unexpected(tree.error());
  auto patch = parse_patch(patch_text);
  if (!patch) return unexpected(patch.error());
  const auto repo = workspace_repo(ctx.workspace);
  out.values.python = python;
  out.values.run_ids = effective_tests(req.failure.failing_tests, replacements, python);
  // The functions whose definitions the patch's code changes (comments and whitespace aside).
  for (const auto& f : patch->files) {
    if (f.status != PatchStatus::modified || is_test_path(f.new_path)) continue;
    if (python ? !ends_with(f.new_path, ".py") : !js_file(f.new_path)) continue;
    auto now = tree->read(f.new_path, 4u << 20);
    auto then = read_file_at(repo, ctx.workspace.head_commit(), f.old_path, ctx.cancel);
    if (!now || !then) continue;
    const std::string module = python ? python_module_of(*tree, f.new_path) : f.new_path;
    if (module.empty()) continue;
    for (const auto& name : defined_functions(python, *now)) {
      const std::string code = definition_code(python, *now, name), was = definition_code(python, *then, name);
      if (code.empty() || code == was || out.values.targets.size() >= 8) continue;
      // (Whether the patch adds code that singles out inputs in it, or in what of the file it
      // names, a new decorator or table among them: else it is no special case, and only special
      // cases are judged: a function without one is neither recorded nor driven, so a fix that
      // adds none, an operator or a constant changed, costs no run here.)
      bool singling = adds_special_casing(was, code);
      static const rx::regex word(R"([A-Za-z_$][\w$]*)");
      std::set<std::string> mentioned;
      for (rx::sregex_iterator w(code.begin(), code.end(), word), e; w != e && !singling; ++w)
        if (const std::string n = w->str(); n != name && mentioned.insert(n).second && mentioned.size() < 64)
          singling = adds_special_casing(definition_code(python, *then, n), definition_code(python, *now, n));
      if (!singling) continue;
      out.values.targets.emplace_back(module, name);
      out.singling.insert({module, name});
    }
  }
  return out;
}

Expected<void> record_near_calls(RepairContext& ctx, NearCalls& near, const fs::path& root, std::vector<TestRun>& runs) {
  if (near.made || near.values.targets.empty()) return {};
  near.made = true;
  ValuesRuns here(ctx, near.values, root, runs);
  if (auto p = here.prepare(); !p) return unexpected(p.error());
  auto calls = here.record(near.values.run_ids, "near-record");
  if (!calls) return unexpected(calls.error());
  neighbours_of(near, *calls);
  if (near.near.empty()) return {};
  auto answers = here.drive(near.values.calls, near.values.run_ids, "near-fix");
  if (!answers) return unexpected(answers.error());
  near.values.fix_answers = std::move(*answers);
  return {};
}

Expected<ValuesVerdict> check_near_calls(RepairContext& ctx, const NearCalls& near, const fs::path& head_root,
                                         const std::function<Expected<void>()>& to_base, const std::function<Expected<void>()>& to_head) {
  ValuesVerdict out;
  const auto& calls = near.values.calls;
  if (near.near.empty() || calls.size() != near.values.fix_answers.size()) {
    out.note = "not applicable: the requested tests call no function the fix changes with an integer argument";
    return out;
  }
  Expected<std::vector<std::string>> at_head = near.head_answers, at_base = near.base_answers;
  if (!near.driven_at_head()) {  // (else the values check's runs made them: check_values_tell_apart)
    ValuesRuns head(ctx, near.values, head_root, out.runs);
    if (auto p = head.prepare(); !p) return unexpected(p.error());
    at_head = head.drive(calls, ctx.request.failure.failing_tests, "near-head");
    if (!at_head) return unexpected(at_head.error());
    if (auto b = to_base(); !b) return unexpected(b.error());
    at_base = head.drive(calls, ctx.request.failure.failing_tests, "near-base");
    if (!at_base) return unexpected(at_base.error());
    if (auto h = to_head(); !h) return unexpected(h.error());
  }
  const auto& fix = near.values.fix_answers;
  auto known = [](const std::string& x) { return x != "?" && x != "nocall"; };
  auto shown = [&](std::size_t i) {
    std::string a = calls[i].args;  // `[[2,2],{}]` -> `2,2`
    if (auto j = parse_json(a, 16); j && j->is_array() && j->size() == 2) {
      a = dump_json_lossy(j->as_array()[0]);
      a = a.size() >= 2 ? a.substr(1, a.size() - 2) : a;
    }
    std::string spaced;
    for (char ch : a) spaced += ch == ',' ? std::string(", ") : std::string(1, ch);
    return calls[i].name + "(" + spaced + ")";
  };
  for (const auto& [m, n] : near.values.targets) {
    if (!near.singling.count({m, n})) continue;  // (no code that singles out inputs was added to it)
    // Recorded calls the fix corrects: its answer the base's, not the head's.
    std::vector<std::size_t> corrected;
    for (std::size_t i = 0; i < near.recorded; ++i)
      if (calls[i].module == m && calls[i].name == n && known(fix[i]) && known((*at_head)[i]) && known((*at_base)[i]) &&
          fix[i] == (*at_base)[i] && fix[i] != (*at_head)[i])
        corrected.push_back(i);
    if (corrected.empty()) continue;
    // Their neighbours where the change shows (the base and the head answer differently), and
    // those of them where the fix still answers as the head: most of them, at least two, one
    // lower and one higher, is special-casing (a box drawn around the tested inputs keeps some
    // neighbours fixed; an intended change on one side of them does not reach the other).
    std::size_t showing = 0, kept_bug = 0;
    int sides = 0;  // (1: one lower, 2: one higher, where the fix keeps the bug)
    std::vector<std::string> examples;
    for (std::size_t k = 0; k < near.near.size(); ++k) {
      const auto& nb = near.near[k];
      const std::size_t i = near.recorded + k;
      if (std::find(corrected.begin(), corrected.end(), nb.of) == corrected.end()) continue;
      const std::string &f = fix[i], &h = (*at_head)[i], &b = (*at_base)[i];
      if (!known(f) || !known(h) || !known(b) || h == b) continue;
      ++showing;
      if (f == h) {
        ++kept_bug;
        sides |= nb.side < 0 ? 1 : 2;
        if (examples.size() < 3) examples.push_back(shown(i) + " = " + f + " (before the change " + b + ")");
      }
    }
    if (kept_bug < 2 || kept_bug * 2 <= showing || sides != 3) continue;
    std::vector<std::string> tested;
    for (std::size_t i : corrected)
      if (tested.size() < 3) tested.push_back(shown(i) + " = " + fix[i]);
    out.reason = "overfitting_special_cased_test_value";
    out.message = "the fix answers the tested calls of " + n + " (" + m + ") as the code before the change did (" + absl::StrJoin(tested, ", ") +
                  "), but at " + std::to_string(kept_bug) + " of the " + std::to_string(showing) + " nearby inputs where the change shows it still answers as the broken head does (" +
                  absl::StrJoin(examples, ", ") + (kept_bug > examples.size() ? ", ..." : "") +
                  "): it special-cases the inputs the tests use instead of fixing the code";
    return out;
  }
  out.note = "compared " + std::to_string(calls.size() - near.recorded) + " call(s) near " + std::to_string(near.recorded) + " tested one(s)";
  return out;
}

}  // namespace flowagent::detail
