// Coverage-based fault localization: per-test coverage with each ecosystem's own tool, in a scratch
// copy of the workspace, inside a time budget; spectrum ranking mapped to tree-sitter functions.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <mutex>
#include <sstream>

#include <stdlib.h>

#include "flowagent/json.hpp"
#include "flowagent/integrity.hpp"
#include "flowagent/localize.hpp"
#include "localize/coverage_readers.hpp"
#include "localize/tape_coverage.hpp"
#include "tools/test_command.hpp"
#include "workspace/git_patch.hpp"
#include "workspace/git.hpp"
#include "workspace/sandbox_fs.hpp"

namespace flowagent {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// A file below `root` (relative, or absolute inside it), read confined to the tree: the project's
// code wrote the coverage data and can plant symlinks or hard links, so nothing outside the tree is
// ever read (SandboxFs). Empty when it cannot be read or is larger than `cap`.
std::string read_text(const fs::path& root, const fs::path& p, std::size_t cap = 8u << 20) {
  std::string rel = p.generic_string();
  if (p.is_absolute()) {
    rel = p.lexically_normal().lexically_relative(root.lexically_normal()).generic_string();
    if (rel.empty() || rel.rfind("..", 0) == 0) {
      std::error_code ec;
      rel = fs::weakly_canonical(p, ec).lexically_relative(fs::weakly_canonical(root, ec)).generic_string();
    }
    if (rel.empty() || rel.rfind("..", 0) == 0) return {};
  }
  auto tree = detail::SandboxFs::open(root);
  if (!tree) return {};
  auto text = tree->read(rel, cap);
  return text ? std::move(*text) : std::string();
}

bool contains(std::string_view s, std::string_view x) { return s.find(x) != std::string_view::npos; }

std::string rel_under(const fs::path& root, const fs::path& p) {
  std::error_code ec;
  auto canon_root = fs::weakly_canonical(root, ec);
  auto canon = fs::weakly_canonical(p.is_absolute() ? p : root / p, ec);
  auto rel = canon.lexically_relative(canon_root).generic_string();
  if (rel.empty() || rel.rfind("..", 0) == 0 || rel.find("node_modules/") != std::string::npos ||
      rel.rfind(".flowagent-cov", 0) == 0)
    return {};
  return rel;
}

}  // namespace

namespace detail {

namespace {

/// Calls `fn(rel, source, functions)` for every script of the V8 coverage files in `dir` that lies
/// below `root` (node_modules left out), its source read confined to `root`.
template <class Fn>
void for_each_v8_script(const fs::path& dir, const fs::path& root, Fn&& fn) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".json") continue;
    auto doc = parse_json(read_text(root, e.path(), 256u << 20));
    if (!doc) continue;
    const Json* result = doc->find("result");
    if (!result || !result->is_array()) continue;
    for (const auto& script : result->as_array()) {
      std::string url = script.get_string("url");
      if (url.rfind("file://", 0) != 0) continue;
      const std::string rel = rel_under(root, fs::path(url.substr(7)));
      if (rel.empty()) continue;
      const Json* fns = script.find("functions");
      if (!fns || !fns->is_array()) continue;
      fn(rel, read_text(root, rel), *fns);
    }
  }
}

}  // namespace

std::map<std::string, std::vector<FunctionRun>> read_v8_functions(const fs::path& dir, const fs::path& root) {
  std::map<std::string, std::vector<FunctionRun>> out;
  for_each_v8_script(dir, root, [&](const std::string& rel, const std::string& src, const Json& fns) {
    auto& list = out[rel];
    for (const auto& fn : fns.as_array()) {
      const Json* rs = fn.find("ranges");
      if (!rs || !rs->is_array() || rs->as_array().empty()) continue;
      const Json& whole = rs->as_array().front();
      const auto start = static_cast<std::size_t>(std::max<std::int64_t>(0, whole.get_int("startOffset")));
      const std::string name = fn.get_string("functionName");
      if (name.empty() && start == 0) continue;  // the script's top level
      FunctionRun f;
      f.name = name;
      f.line = 1 + static_cast<int>(std::count(src.begin(), src.begin() + static_cast<std::ptrdiff_t>(std::min(start, src.size())), '\n'));
      f.ran = whole.get_int("count") > 0;
      f.known = true;
      // Scripts a run loads more than once (worker processes) merge: a function that ran in one ran.
      auto same = std::find_if(list.begin(), list.end(), [&](const FunctionRun& x) { return x.name == f.name && x.line == f.line; });
      if (same == list.end()) list.push_back(std::move(f));
      else same->ran = same->ran || f.ran;
    }
  });
  return out;
}

void read_v8_coverage(const fs::path& dir, const fs::path& root, std::map<std::string, std::set<int>>& out,
                      std::map<std::string, std::set<int>>* not_run) {
  for_each_v8_script(dir, root, [&](const std::string& rel, const std::string& src, const Json& functions) {
    struct Range { std::size_t start, end; std::int64_t count; };
    std::vector<Range> ranges;
    for (const auto& fn : functions.as_array()) {
      const Json* rs = fn.find("ranges");
      if (!rs || !rs->is_array()) continue;
      for (const auto& r : rs->as_array())
        ranges.push_back({static_cast<std::size_t>(r.get_int("startOffset")),
                          static_cast<std::size_t>(r.get_int("endOffset")), r.get_int("count")});
    }
    // Outer ranges first, inner ranges paint over them.
    std::stable_sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) {
      if (a.start != b.start) return a.start < b.start;
      return a.end > b.end;
    });
    std::vector<std::int64_t> count(src.size(), 0);
    for (const auto& r : ranges)
      for (std::size_t i = r.start; i < std::min(r.end, src.size()); ++i) count[i] = r.count;
    // Covered by some range at all (V8 reports every function of a script it loaded).
    std::vector<bool> known(src.size(), false);
    for (const auto& r : ranges)
      for (std::size_t i = r.start; i < std::min(r.end, src.size()); ++i) known[i] = true;
    int line = 1;
    bool hit = false, missed = false;
    for (std::size_t i = 0; i <= src.size(); ++i) {
      if (i == src.size() || src[i] == '\n') {
        if (hit) out[rel].insert(line);
        else if (missed && not_run) (*not_run)[rel].insert(line);
        ++line;
        hit = missed = false;
        continue;
      }
      if (std::isspace(static_cast<unsigned char>(src[i]))) continue;
      if (count[i] > 0) hit = true;
      else if (known[i]) missed = true;
    }
  });
}

}  // namespace detail

Expected<ChangedLines> changed_lines(const fs::path& repository, const std::string& base, const std::string& head,
                                     const CancelToken& cancel) {
  // The one diff parser (flowagent/patch.hpp) over git's canonical, attribute-proof diff.
  auto patch = detail::git_patch(detail::GitRepo(repository), {base, head}, /*check_blobs=*/false, cancel);
  if (!patch) return unexpected(patch.error());
  ChangedLines out;
  for (const auto& f : patch->files) {
    if (f.status == PatchStatus::deleted || f.new_path.empty()) continue;
    auto& lines = out[f.new_path];
    for (const auto& h : f.hunks) {
      int cursor = h.new_start;  // the new-side line the next line of the hunk would be
      for (const auto& l : h.lines) {
        if (l.kind == '-') {  // a deletion: mark the lines around the gap
          if (cursor > 1) lines.insert(cursor - 1);
          lines.insert(cursor);
          continue;
        }
        if (l.kind == '+') lines.insert(l.new_line);
        cursor = l.new_line + 1;
      }
    }
    if (lines.empty()) out.erase(f.new_path);
  }
  return out;
}

std::vector<SuspiciousLocation> rank_functions(const std::vector<TestCoverage>& coverage, const ChangedLines& changed,
                                               const fs::path& root, const RankOptions& opt) {
  SpectrumCounts totals;
  for (const auto& t : coverage) (t.failed ? totals.total_failed : totals.total_passed)++;
  // (file, line) -> counts
  std::map<std::string, std::map<int, SpectrumCounts>> counts;
  for (const auto& t : coverage)
    for (const auto& [file, lines] : t.lines) {
      if (is_test_path(file)) continue;
      auto& f = counts[file];
      for (int l : lines) (t.failed ? f[l].failed_covered : f[l].passed_covered)++;
    }
  std::vector<SuspiciousLocation> out;
  for (const auto& [file, lines] : counts) {
    const std::string src = read_text(root, file);
    std::vector<CodeChunk> fns;
    for (auto& c : code_chunks(file, src))
      if (c.kind == "function") fns.push_back(std::move(c));
    std::map<std::string, SuspiciousLocation> by_fn;  // symbol@start -> location
    std::vector<std::pair<double, int>> scored;
    for (const auto& [line, c] : lines) {
      SpectrumCounts k = c;
      k.total_failed = totals.total_failed;
      k.total_passed = totals.total_passed;
      const double s = suspiciousness(opt.formula, k);
      if (s <= 0) continue;
      // Innermost function holding the line.
      const CodeChunk* best = nullptr;
      for (const auto& fn : fns)
        if (fn.start_line <= line && line <= fn.end_line &&
            (!best || fn.end_line - fn.start_line < best->end_line - best->start_line))
          best = &fn;
      const std::string key = best ? best->symbol + "@" + std::to_string(best->start_line) : std::string("@");
      auto& loc = by_fn[key];
      if (loc.file.empty()) {
        loc.file = file;
        if (best) {
          loc.symbol = best->symbol;
          loc.start_line = best->start_line;
          loc.end_line = best->end_line;
        } else {
          loc.start_line = loc.end_line = line;
        }
      }
      if (!best) {
        loc.start_line = std::min(loc.start_line, line);
        loc.end_line = std::max(loc.end_line, line);
      }
      if (s > loc.score) loc.score = s;
      loc.top_lines.push_back(line);
      scored.emplace_back(s, line);
    }
    std::map<int, double> line_score;
    for (auto [s, l] : scored) line_score[l] = s;
    auto ch = changed.find(file);
    for (auto& [key, loc] : by_fn) {
      if (ch != changed.end()) {
        auto it = ch->second.lower_bound(loc.start_line);
        loc.in_change = it != ch->second.end() && *it <= loc.end_line;
      }
      if (loc.in_change) loc.score *= 1.0 + opt.change_boost;
      std::stable_sort(loc.top_lines.begin(), loc.top_lines.end(),
                       [&](int a, int b) { return line_score[a] > line_score[b]; });
      if (loc.top_lines.size() > 5) loc.top_lines.resize(5);
      out.push_back(std::move(loc));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const SuspiciousLocation& a, const SuspiciousLocation& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.in_change != b.in_change) return a.in_change;
    return a.end_line - a.start_line < b.end_line - b.start_line;
  });
  if (out.size() > opt.max_functions) out.resize(opt.max_functions);
  return out;
}

namespace {

// ---- per-ecosystem coverage readers ------------------------------------------------------------------

// coverage.py JSON with contexts: test function name -> lines.
std::map<std::string, std::map<std::string, std::set<int>>> read_coverage_py(const fs::path& json_path,
                                                                              const fs::path& root) {
  std::map<std::string, std::map<std::string, std::set<int>>> out;
  auto doc = parse_json(read_text(root, json_path, 256u << 20));
  if (!doc) return out;
  const Json* files = doc->find("files");
  if (!files || !files->is_object()) return out;
  for (const auto& [path, f] : files->as_object()) {
    const std::string rel = rel_under(root, path);
    if (rel.empty()) continue;
    const Json* ctxs = f.find("contexts");
    if (!ctxs || !ctxs->is_object()) continue;
    for (const auto& [line, names] : ctxs->as_object()) {
      if (!names.is_array()) continue;
      const int l = std::atoi(line.c_str());
      for (const auto& n : names.as_array())
        if (n.is_string() && !n.as_string().empty()) {
          std::string name = n.as_string();
          if (auto bar = name.find('|'); bar != std::string::npos) name.resize(bar);
          out[name][rel].insert(l);
        }
    }
  }
  return out;
}

// "tests/test_calc.py::TestX::test_m[1]" -> "test_calc.TestX.test_m"
std::string pytest_context_key(std::string id) {
  if (auto br = id.find('['); br != std::string::npos) id.resize(br);
  auto sep = id.find("::");
  if (sep == std::string::npos) return id;
  std::string file = id.substr(0, sep), rest = id.substr(sep + 2);
  for (std::size_t p; (p = rest.find("::")) != std::string::npos;) rest.replace(p, 2, ".");
  return fs::path(file).stem().string() + "." + rest;
}

bool context_matches(const std::string& ctx, const std::string& key) {
  return ctx == key || (ctx.size() > key.size() && ctx.compare(ctx.size() - key.size(), key.size(), key) == 0 &&
                        ctx[ctx.size() - key.size() - 1] == '.');
}

// gcov JSON (one document per line, or one document).
void read_gcov_json(const std::string& text, const fs::path& root, std::map<std::string, std::set<int>>& out) {
  auto one = [&](std::string_view doc_text) {
    auto doc = parse_json(doc_text);
    if (!doc) return;
    const fs::path cwd = doc->get_string("current_working_directory");
    const Json* files = doc->find("files");
    if (!files || !files->is_array()) return;
    for (const auto& f : files->as_array()) {
      fs::path p = f.get_string("file");
      if (p.is_relative()) p = cwd / p;
      const std::string rel = rel_under(root, p);
      if (rel.empty()) continue;
      const Json* lines = f.find("lines");
      if (!lines || !lines->is_array()) continue;
      for (const auto& l : lines->as_array())
        if (l.get_int("count") > 0) out[rel].insert(static_cast<int>(l.get_int("line_number")));
    }
  };
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string_view line(text.data() + pos, eol - pos);
    if (!line.empty() && line.front() == '{') one(line);
    pos = eol + 1;
  }
}

// V8 coverage (NODE_V8_COVERAGE): block ranges with counts, byte offsets -> lines.
void read_v8_dir(const fs::path& dir, const fs::path& root, std::map<std::string, std::set<int>>& out) {
  detail::read_v8_coverage(dir, root, out, nullptr);
}

// go -coverprofile: "module/pkg/file.go:10.2,12.3 2 1".
void read_go_profile(const fs::path& profile, const fs::path& root, std::map<std::string, std::set<int>>& out) {
  std::string module;
  {
    std::istringstream gm(read_text(root, "go.mod"));
    for (std::string l; std::getline(gm, l);)
      if (l.rfind("module ", 0) == 0) {
        module = l.substr(7);
        while (!module.empty() && std::isspace(static_cast<unsigned char>(module.back()))) module.pop_back();
        break;
      }
  }
  std::istringstream in(read_text(root, profile, 256u << 20));
  for (std::string l; std::getline(in, l);) {
    auto colon = l.rfind(':');
    if (colon == std::string::npos || l.rfind("mode:", 0) == 0) continue;
    std::string file = l.substr(0, colon);
    int sl = 0, sc = 0, el = 0, ec = 0, stmts = 0;
    long long cnt = 0;
    if (std::sscanf(l.c_str() + colon + 1, "%d.%d,%d.%d %d %lld", &sl, &sc, &el, &ec, &stmts, &cnt) != 6 || cnt <= 0)
      continue;
    if (!module.empty() && file.rfind(module + "/", 0) == 0) file = file.substr(module.size() + 1);
    else if (fs::path(file).is_absolute()) file = rel_under(root, file);
    if (file.empty()) continue;
    for (int i = sl; i <= el; ++i) out[file].insert(i);
  }
}

// JaCoCo: the Java sources of the tree by package path ("calc/Calc.java" -> "src/main/java/calc/Calc.java").
std::map<std::string, std::vector<std::string>> java_source_index(const fs::path& root) {
  std::map<std::string, std::vector<std::string>> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const auto name = it->path().filename().string();
    if (it->is_directory(ec) && (name == ".flowagent-cov" || name == ".git" || name == "node_modules")) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->path().extension() != ".java" || !it->is_regular_file(ec)) continue;
    const std::string rel = it->path().lexically_relative(root).generic_string();
    // Every suffix at a folder boundary: the package path is one of them.
    for (std::size_t pos = 0;; ++pos) {
      out[rel.substr(pos)].push_back(rel);
      pos = rel.find('/', pos);
      if (pos == std::string::npos) break;
    }
  }
  return out;
}

// FlowagentJacocoLines output: "pkg/File.java 3 4 9" per source file.
void read_jacoco_lines(const std::string& text, const fs::path& root,
                       const std::map<std::string, std::vector<std::string>>& sources,
                       std::map<std::string, std::set<int>>& out) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    std::istringstream words(l);
    std::string file;
    words >> file;
    auto it = sources.find(file);
    if (it == sources.end() || it->second.size() != 1) continue;  // not in the tree, or ambiguous
    const std::string rel = rel_under(root, it->second.front());
    if (rel.empty()) continue;
    for (int n; words >> n;) out[rel].insert(n);
  }
}

// The exec-file reader, compiled in the scratch tree against Debian's org.jacoco.core (Java 11).
// args: <exec> <out> <class roots...>. Class files are read without following links; one JaCoCo
// cannot read (or a second copy of a class) is skipped.
constexpr const char* kJacocoLinesJava = R"java(
import java.io.*;
import java.nio.file.*;
import java.util.*;
import java.util.stream.*;
import org.jacoco.core.analysis.*;
import org.jacoco.core.tools.ExecFileLoader;

public class FlowagentJacocoLines {
  public static void main(String[] a) throws Exception {
    ExecFileLoader loader = new ExecFileLoader();
    loader.load(new File(a[0]));
    CoverageBuilder builder = new CoverageBuilder();
    Analyzer analyzer = new Analyzer(loader.getExecutionDataStore(), builder);
    for (int i = 2; i < a.length; i++) {
      List<Path> classes;
      try (Stream<Path> s = Files.walk(Paths.get(a[i]))) {
        classes = s.filter(p -> p.toString().endsWith(".class") && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
                      .collect(Collectors.toList());
      }
      for (Path p : classes) {
        try (InputStream in = Files.newInputStream(p, LinkOption.NOFOLLOW_LINKS)) {
          analyzer.analyzeClass(in, p.toString());
        } catch (Exception | LinkageError e) {
        }
      }
    }
    try (PrintStream out = new PrintStream(new FileOutputStream(a[1]), false, "UTF-8")) {
      for (ISourceFileCoverage f : builder.getSourceFiles()) {
        StringBuilder line = new StringBuilder(f.getPackageName().isEmpty() ? f.getName() : f.getPackageName() + "/" + f.getName());
        boolean any = false;
        for (int n = f.getFirstLine(); n > 0 && n <= f.getLastLine(); n++) {
          int st = f.getLine(n).getStatus();
          if (st == ICounter.FULLY_COVERED || st == ICounter.PARTLY_COVERED) {
            line.append(' ').append(n);
            any = true;
          }
        }
        if (any) out.println(line);
      }
    }
  }
}
)java";

// The JVM's own and the test frameworks' classes are not instrumented.
constexpr const char* kJacocoExcludes = "org.junit.*:junit.*:org.opentest4j.*:org.apiguardian.*:org.hamcrest.*";

// pytest's default test files (test_*.py, *_test.py) below `root`, outside hidden folders,
// virtual environments and node_modules: the whole suite's size in files.
std::size_t python_test_files(const fs::path& root) {
  std::size_t n = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    if (it->is_directory(ec)) {
      if (name.front() == '.' || name == "node_modules" || name == "venv" || name == "site-packages" ||
          name == "__pycache__")
        it.disable_recursion_pending();
      continue;
    }
    if (it->path().extension() == ".py" && it->is_regular_file(ec) &&
        (name.rfind("test_", 0) == 0 || (name.size() > 8 && name.compare(name.size() - 8, 8, "_test.py") == 0)))
      ++n;
  }
  return n;
}

// ---- the localizer -----------------------------------------------------------------------------------

std::string detect_ecosystem(const RepairRequest& r, const fs::path& root) {
  const std::string& t = r.commands.test;
  if (contains(t, "pytest")) return "python";
  if (contains(t, "go test")) return "go";
  if (contains(t, "node") || contains(t, "npm") || contains(t, "npx") || contains(t, "jest") || contains(t, "yarn"))
    return "javascript";
  if (contains(t, "mvn") || contains(t, "gradle") || contains(t, "junit") || contains(t, "java ") ||
      contains(r.commands.build, "javac") || contains(r.commands.build, "mvn") || fs::exists(root / "pom.xml") ||
      fs::exists(root / "build.gradle") || fs::exists(root / "build.gradle.kts"))
    return "java";
  if (fs::exists(root / "CMakeLists.txt") || fs::exists(root / "Makefile") || fs::exists(root / "meson.build") ||
      !r.commands.build.empty())
    return "cpp";
  return {};
}

// Copies the tree without .git into `dst` (a scratch copy: coverage builds and data never touch the
// workspace the repair uses).
Expected<void> copy_tree(const fs::path& src, const fs::path& dst, const CancelToken& cancel) {
  std::error_code ec;
  fs::create_directories(dst, ec);
  if (ec) return fail(Errc::io, "cannot create " + dst.string() + ": " + ec.message());
  for (auto it = fs::recursive_directory_iterator(src, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return fail(Errc::io, "cannot walk " + src.string() + ": " + ec.message());
    if (cancel.cancelled()) return fail(Errc::cancelled, "cancelled");
    const auto name = it->path().filename();
    if (name == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    const fs::path to = dst / it->path().lexically_relative(src);
    if (it->is_symlink(ec)) fs::copy_symlink(it->path(), to, ec);
    else if (it->is_directory(ec)) fs::create_directories(to, ec);
    else if (it->is_regular_file(ec)) fs::copy_file(it->path(), to, fs::copy_options::overwrite_existing, ec);
    if (ec) return fail(Errc::io, "cannot copy " + it->path().string() + ": " + ec.message());
  }
  return {};
}

// A private (0700, mkdtemp) directory holding the scratch copy; empty path when it cannot be made.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::error_code ec;
    std::string tmpl = (fs::temp_directory_path(ec) / "flowagent-localize-XXXXXX").string();
    if (::mkdtemp(tmpl.data())) path = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

// The failing test's group: the pytest file, the GoogleTest suite ("Suite.*"), else the test itself.
std::string group_of(const std::string& eco, const std::string& id) {
  if (eco == "python") {
    auto sep = id.find("::");
    return sep == std::string::npos ? id : id.substr(0, sep);
  }
  if (eco == "cpp") {
    auto dot = id.find('.');
    if (dot != std::string::npos && id.find('/') == std::string::npos) return id.substr(0, dot) + ".*";
  }
  if (eco == "java") {  // "pkg.Class#method", "pkg.Class.method()" (JUnit XML) -> "pkg.Class"
    if (auto hash = id.find('#'); hash != std::string::npos) return id.substr(0, hash);
    std::string head = id.substr(0, id.find('('));
    if (auto dot = head.rfind('.'); dot != std::string::npos && head.find('/') == std::string::npos)
      return head.substr(0, dot);
  }
  return id;
}

// Other files of the failing test files' folders with the same extension (sorted): the passing
// neighbours when test ids are files.
std::vector<std::string> sibling_test_files(const detail::SandboxFs& tree, const std::vector<std::string>& failing) {
  std::vector<std::string> out;
  for (const auto& f : failing) {
    const fs::path p(f);
    const std::string folder = p.parent_path().generic_string();
    auto entries = tree.list(folder.empty() ? "." : folder);
    if (!entries) continue;
    std::vector<std::string> names;
    for (const auto& e : *entries)
      if (e.type == 'f' && fs::path(e.name).extension() == p.extension()) names.push_back(e.name);
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
      std::string rel = folder.empty() ? name : folder + "/" + name;
      if (std::find(failing.begin(), failing.end(), rel) == failing.end() &&
          std::find(out.begin(), out.end(), rel) == out.end())
        out.push_back(std::move(rel));
    }
  }
  return out;
}

class CoverageLocalizer final : public Localizer {
 public:
  explicit CoverageLocalizer(CoverageLocalizerOptions o) : opt_(std::move(o)) {}
  std::string_view name() const override { return "coverage"; }

  Expected<Localization> localize(const fs::path& root, const RepairRequest& request, const ChangedLines& changed,
                                  const CancelToken& cancel, const SandboxOptions* sandbox) override {
    std::string key = request.repository + "\x1f" + request.change.head_commit + "\x1f" +
                      std::string(to_string(opt_.rank.formula));
    for (const auto& t : request.failure.failing_tests) key += "\x1f" + t;
    if (opt_.cache && !request.change.head_commit.empty()) {
      std::lock_guard lk(mu_);
      auto it = cache_.find(key);
      if (it != cache_.end()) {
        Localization l = it->second;
        l.from_cache = true;
        return l;
      }
    }
    Run run{opt_, request, cancel, sandbox};
    auto l = run.go(root, changed);
    if (!l) return l;
    // Only complete, non-empty results are cached: a cut-off run may succeed with more time.
    if (opt_.cache && !request.change.head_commit.empty() && !l->cut_off && !l->functions.empty()) {
      std::lock_guard lk(mu_);
      cache_[key] = *l;
    }
    return l;
  }

 private:
  struct Run {
    Run(const CoverageLocalizerOptions& o, const RepairRequest& r, const CancelToken& c, const SandboxOptions* s)
        : opt(o), request(r), cancel(c), sandbox(s) {}
    const CoverageLocalizerOptions& opt;
    const RepairRequest& request;
    const CancelToken& cancel;
    const SandboxOptions* sandbox;  // every command below runs through run_sandboxed with it
    Clock::time_point start = Clock::now();
    // The reference run starts after the scratch copy (as the benchmark times one run: the
    // sandboxed command alone); the copy still counts against the budget, which runs from `start`.
    Clock::time_point ref_start = start;
    Clock::time_point ran = start;  // when the last command ended (reading its coverage is not the run)
    Clock::time_point deadline = start + (opt.budget.count() > 0 ? opt.budget : opt.max_budget);
    Localization out;

    std::int64_t remaining_ms() const {
      return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    }
    // Each command's timeout: what the budget has left, to the millisecond (at least 1 ms).
    std::chrono::milliseconds left() const { return std::chrono::milliseconds(std::max<std::int64_t>(1, remaining_ms())); }
    bool over() { return remaining_ms() <= 0; }
    Localization cut(std::string why) {
      out.cut_off = true;
      out.note = std::move(why);
      return finish();
    }
    Localization finish() {
      out.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
      out.budget_ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - start).count();
      return out;
    }
    // After the reference run: the rest of the run gets budget_factor x what it took.
    void set_budget_from_reference() { set_budget((ran > ref_start ? ran : Clock::now()) - ref_start); }
    void set_budget(Clock::duration ref) {
      if (opt.budget.count() > 0) return;
      auto total = std::chrono::duration_cast<std::chrono::milliseconds>(ref * request.limits.localization_budget);
      total = std::clamp(total, opt.min_budget, opt.max_budget);
      deadline = std::min(deadline, start + total);
    }

    // The project's code runs in every command: each goes through run_sandboxed (run_command,
    // run_tests) with the scratch tree as its only writable workspace.
    Expected<ProcessResult> command(const fs::path& dir, const std::string& cmd) {
      auto r = detail::run_command(dir, cmd, request, cancel, sandbox, left());
      ran = Clock::now();
      if (r && r->cancelled) return fail(Errc::cancelled, "cancelled");
      return r;
    }
    Expected<detail::TestRunOutcome> tests(const fs::path& dir, const std::vector<std::string>& ids,
                                           const std::string& tmpl) {
      auto r = detail::run_tests(dir, request, ids, cancel, sandbox, "localize", tmpl, left());
      ran = Clock::now();
      return r;
    }

    Expected<Localization> go(const fs::path& root, const ChangedLines& changed) {
      out.formula = opt.rank.formula;
      out.ecosystem = detect_ecosystem(request, root);
      if (request.limits.localization_budget <= 0 && opt.budget.count() == 0)
        return (out.note = "disabled by the request (limits.localization_budget = 0)", finish());
      if (request.commands.test.empty()) return (out.note = "no test command", finish());
      if (request.failure.failing_tests.empty()) return (out.note = "no failing tests named", finish());
      if (out.ecosystem.empty()) return (out.note = "no coverage tool for this project", finish());
      ScratchDir scratch;
      if (scratch.path.empty()) return (out.note = "cannot create a private scratch directory", finish());
      const fs::path dir = scratch.path / "tree";
      if (auto c = copy_tree(root, dir, cancel); !c) {
        if (c.error().code == Errc::cancelled) return unexpected(c.error());
        return (out.note = c.error().message, finish());
      }
      const fs::path data = dir / ".flowagent-cov";
      std::error_code ec;
      fs::create_directories(data, ec);
      std::vector<TestCoverage> cov;
      ref_start = Clock::now();
      Expected<void> r = out.ecosystem == "python" ? python(dir, data, cov) : per_test(dir, data, cov);
      if (!r) {
        // Fail closed: without the sandbox nothing of the project runs, here or later in the job.
        if (r.error().code == Errc::cancelled || r.error().code == Errc::sandbox_unavailable)
          return unexpected(r.error());
        if (r.error().code == Errc::timeout) out.cut_off = true;
        out.note = r.error().message;
      }
      for (const auto& t : cov) (t.failed ? out.failing_tests : out.passing_tests)++;
      if (out.failing_tests > 0) out.functions = rank_functions(cov, changed, dir, opt.rank);
      else if (out.note.empty()) out.note = "no coverage of a failing test was collected";
      return finish();
    }

    Expected<void> timed_out_if(const ProcessResult& p, const std::string& what) {
      if (p.timed_out) return fail(Errc::timeout, "localization cut off by its time budget during " + what);
      return {};
    }

    // coverage.py with per-test contexts. One sandboxed command finds the interpreter, runs the
    // failing tests' files (their other tests are the nearest passing neighbours) and writes the
    // JSON report: one sandbox and interpreter start, and it is the reference run. When the budget
    // has room, a second command runs the whole suite appending to the same data.
    Expected<void> python(const fs::path& dir, const fs::path& data, std::vector<TestCoverage>& cov) {
      out.tool = "coverage.py";
      const std::string rc = (data / "rc").string();
      {
        std::ofstream f(rc);
        f << "[run]\ndynamic_context = test_function\ndata_file = " << (data / "data").string()
          << "\nsource = " << dir.string() << "\nomit = " << data.string() << "/*\n";
      }
      // Find the interpreter and splice "-m coverage run" in front of pytest.
      std::string tmpl = request.commands.test;
      std::string py;
      std::size_t at = tmpl.find("-m pytest"), len = 9;
      if (at != std::string::npos && at >= 2) {
        std::size_t b = tmpl.rfind(' ', at - 2);
        b = b == std::string::npos ? 0 : b + 1;
        py = tmpl.substr(b, at - 1 - b);
        len += at - b;
        at = b;
      } else {
        at = tmpl.find("pytest");
        len = 6;
        if (at == std::string::npos) return fail(Errc::unsupported, "the test command does not run pytest");
      }
      std::vector<std::string> candidates;
      if (!py.empty()) candidates.push_back(py);
      for (auto c : {"python3", "/usr/bin/python3"}) candidates.push_back(c);
      constexpr std::string_view kNoCoverage = "@@flowagent-localize: no coverage.py";
      std::string probe = "FLOWAGENT_PY=; for c in";
      for (const auto& c : candidates) probe += " " + shell_quote(c);
      probe += "; do if \"$c\" -c 'import coverage, pytest' >/dev/null 2>&1; then FLOWAGENT_PY=$c; break; fi; done; "
               "if [ -z \"$FLOWAGENT_PY\" ]; then echo '" + std::string(kNoCoverage) + "'; exit 97; fi; ";
      const std::string prefix = "\"$FLOWAGENT_PY\" -m coverage run --rcfile=" + shell_quote(rc) + " -m pytest";
      tmpl = tmpl.substr(0, at) + prefix + tmpl.substr(at + len);
      // The tests run in a subshell (a `cd` or `exit` in the project's command cannot skip the
      // report); the command's exit status is the tests'.
      // The tests' own time (without the probe and the report) goes to test_ms: it sizes the
      // whole-suite run before it starts.
      const fs::path test_ms = data / "test_ms";
      auto with_report = [&](const std::string& run_tmpl, const fs::path& json) {
        return probe + "flowagent_t0=$(date +%s%N); ( " + run_tmpl +
               " ); flowagent_rc=$?; echo $((($(date +%s%N) - flowagent_t0) / 1000000)) >" +
               shell_quote(test_ms.string()) + "; \"$FLOWAGENT_PY\" -m coverage json --rcfile=" + shell_quote(rc) +
               " --show-contexts -o " + shell_quote(json.string()) + " >/dev/null 2>&1; exit $flowagent_rc";
      };
      std::vector<std::string> groups;
      for (const auto& t : request.failure.failing_tests) {
        auto g = group_of("python", t);
        if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
      }
      fs::path json = data / "cov.json";
      out.test_runs++;
      auto run = tests(dir, groups, with_report(tmpl, json));
      if (!run) return unexpected(run.error());
      if (run->run.timed_out) return fail(Errc::timeout, "localization cut off by its time budget during the test run");
      if (run->run.exit_code == 97 && contains(run->log, kNoCoverage))
        return fail(Errc::unsupported, "coverage.py is not installed (Debian python3-coverage)");
      set_budget_from_reference();
      // More passing tests sharpen the spectrum: when the budget has room for it, the whole suite
      // runs too (appending to the same data; contexts keep the tests apart). Its cost is
      // estimated before it starts -- the failing files' test time scaled by the suite's test
      // files over theirs, plus the rest of the reference run (copy, probe, report) -- so a run
      // that could not finish is not started. A run the budget kills writes no report, so the
      // failing files' report stands.
      const auto ref_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
      const std::int64_t tests_ms = std::clamp<std::int64_t>(std::atoll(read_text(dir, test_ms, 64).c_str()), 0, ref_ms);
      const std::size_t suite_files = std::max<std::size_t>(python_test_files(dir), groups.size());
      const double scale = static_cast<double>(suite_files) / static_cast<double>(std::max<std::size_t>(1, groups.size()));
      const auto wide_estimate = static_cast<std::int64_t>(static_cast<double>(ref_ms - tests_ms) +
                                                           static_cast<double>(tests_ms) * scale);
      if (contains(tmpl, "{tests") && suite_files > groups.size() && remaining_ms() >= wide_estimate) {
        std::string all = tmpl;
        all.replace(all.find(" run --rcfile="), 14, " run -a --rcfile=");
        const fs::path wide_json = data / "cov-all.json";
        out.test_runs++;
        auto wide = tests(dir, {}, with_report(all, wide_json));
        if (!wide) return unexpected(wide.error());
        if (wide->run.timed_out) {
          out.note = "the whole suite's coverage run was cut off by the budget; the failing files' run stands";
        } else {
          for (const auto& t : wide->run.failed) run->run.failed.push_back(t);  // other failures are not passes
          json = wide_json;
        }
      }
      std::vector<std::string> failing_keys;
      for (const auto& t : request.failure.failing_tests) failing_keys.push_back(pytest_context_key(t));
      for (const auto& t : run->run.failed) failing_keys.push_back(pytest_context_key(t));
      auto contexts = read_coverage_py(json, dir);
      if (contexts.empty())
        return fail(Errc::tool_failed, "coverage json wrote no per-test data: " + run->log.substr(0, 300));
      for (auto& [name, lines] : contexts) {
        TestCoverage tc;
        tc.test = name;
        tc.failed = std::any_of(failing_keys.begin(), failing_keys.end(),
                                [&](const std::string& k) { return context_matches(name, k); });
        tc.lines = std::move(lines);
        cov.push_back(std::move(tc));
      }
      return {};
    }

    std::string jacoco_classpath() const {
      std::string cp;
      for (const char* jar : {"org.jacoco.core.jar", "asm.jar", "asm-commons.jar", "asm-tree.jar"})
        cp += (cp.empty() ? "" : ":") + (opt.jacoco_dir / jar).string();
      return cp;
    }

    // JaCoCo (Debian libjacoco-java): the agent jar comes out of org.jacoco.agent.jar, and a small
    // reader (FlowagentJacocoLines, compiled here against org.jacoco.core) turns each test's exec
    // file into covered lines; then the project's build command. All of it is the reference run's.
    Expected<void> java_setup(const fs::path& dir, const fs::path& data) {
      for (const char* jar : {"org.jacoco.agent.jar", "org.jacoco.core.jar", "asm.jar"})
        if (!fs::exists(opt.jacoco_dir / jar))
          return fail(Errc::unsupported, "Java: no JaCoCo agent (" + (opt.jacoco_dir / jar).string() +
                                             " is missing; Debian libjacoco-java)");
      const fs::path jd = data / "jacoco";
      std::error_code ec;
      fs::create_directories(jd, ec);
      {
        std::ofstream f(jd / "FlowagentJacocoLines.java");
        f << kJacocoLinesJava;
      }
      std::string cmd = "cd " + shell_quote(jd.string()) + " && jar xf " +
                        shell_quote((opt.jacoco_dir / "org.jacoco.agent.jar").string()) +
                        " jacocoagent.jar && javac -nowarn --release 11 -d . -cp " + shell_quote(jacoco_classpath()) +
                        " FlowagentJacocoLines.java";
      if (!request.commands.build.empty()) cmd += " && cd " + shell_quote(dir.string()) + " && " + request.commands.build;
      auto b = command(dir, cmd);
      if (!b) return unexpected(b.error());
      if (auto t = timed_out_if(*b, "the JaCoCo setup and the build"); !t) return t;
      if (!b->ok()) return fail(Errc::tool_failed, "the JaCoCo setup or the build failed: " + b->output.substr(0, 300));
      return {};
    }

    // Ecosystems without per-test contexts: every selected test runs alone with its own coverage
    // slot, but all of them in one sandboxed shell (one sandbox start per batch, not per test).
    // The reference run is the failing test files themselves when ids are files (tape, node:test),
    // else the failing tests' groups or the whole command (it names the passing neighbours). Then
    // the failing tests first and the nearest passing neighbours, while the budget lasts.
    Expected<void> per_test(const fs::path& dir, const fs::path& data, std::vector<TestCoverage>& cov) {
      const std::string& eco = out.ecosystem;
      if (eco == "cpp") {
        out.tool = "gcov";
        if (request.commands.build.empty()) return fail(Errc::unsupported, "C/C++: no build command to instrument");
        const std::string flags = "'--coverage -O0 -g'";
        auto b = command(dir, "export CFLAGS=" + flags + " CXXFLAGS=" + flags + " LDFLAGS=--coverage; " +
                                  request.commands.build);
        if (!b) return unexpected(b.error());
        if (auto t = timed_out_if(*b, "the coverage build"); !t) return t;
        if (!b->ok()) return fail(Errc::tool_failed, "the coverage build failed: " + b->output.substr(0, 300));
      } else if (eco == "java") {
        out.tool = "JaCoCo";
        if (auto j = java_setup(dir, data); !j) return j;
      } else if (eco == "javascript") {
        out.tool = "NODE_V8_COVERAGE";
      } else if (eco == "go") {
        out.tool = "go -coverprofile";
      }
      const std::string& tmpl = request.commands.test;
      const auto& failing = request.failure.failing_tests;
      const bool selectable = contains(tmpl, "{tests");
      std::vector<std::string> groups;
      for (const auto& t : failing) {
        auto g = group_of(eco, t);
        if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
      }
      int n = 0;
      std::map<std::string, std::vector<std::string>> java_sources;  // "pkg/File.java" -> tree paths
      if (eco == "java") java_sources = java_source_index(dir);
      // The shell lines that give one test run its own coverage slot, and read it back.
      auto slot_env = [&](const fs::path& slot) -> std::string {
        if (eco == "javascript") return "export NODE_V8_COVERAGE=" + shell_quote(slot.string()) + "; ";
        if (eco == "go") return "export GOFLAGS=\"$GOFLAGS -coverprofile=\"" + shell_quote((slot / "cover.out").string()) + "; ";
        if (eco == "java")  // every JVM the command starts (mvn, surefire forks, the JUnit launcher)
          return "export JAVA_TOOL_OPTIONS=\"$JAVA_TOOL_OPTIONS \"" +
                 shell_quote("-javaagent:" + (data / "jacoco" / "jacocoagent.jar").string() +
                             "=destfile=" + (slot / "jacoco.exec").string() + ",excludes=" + kJacocoExcludes) + "; ";
        return {};
      };
      auto reset = [&]() -> std::string {  // gcov counters accumulate across runs
        return eco == "cpp" ? "find . -name '*.gcda' -type f -delete 2>/dev/null; " : std::string();
      };
      auto dump = [&](const fs::path& slot) -> std::string {
        if (eco == "java")  // exec file -> covered lines per source file (the helper java_setup compiled)
          return "[ -f " + shell_quote((slot / "jacoco.exec").string()) + " ] && java -cp " +
                 shell_quote((data / "jacoco").string() + ":" + jacoco_classpath()) + " FlowagentJacocoLines " +
                 shell_quote((slot / "jacoco.exec").string()) + " " + shell_quote((slot / "lines.txt").string()) +
                 " . >/dev/null 2>&1; ";
        return eco == "cpp" ? "find . -name '*.gcda' -type f -exec gcov --json-format --stdout {} + >" +
                                  shell_quote((slot / "gcov.json").string()) + " 2>/dev/null; "
                            : std::string();
      };
      auto read_slot = [&](const fs::path& slot) {
        std::map<std::string, std::set<int>> lines;
        if (eco == "javascript") read_v8_dir(slot, dir, lines);
        if (eco == "go") read_go_profile(slot / "cover.out", dir, lines);
        if (eco == "cpp") read_gcov_json(read_text(dir, slot / "gcov.json", 256u << 20), dir, lines);
        if (eco == "java") read_jacoco_lines(read_text(dir, slot / "lines.txt", 64u << 20), dir, java_sources, lines);
        return lines;
      };
      auto new_slot = [&]() {
        const fs::path slot = data / std::to_string(n++);
        std::error_code ec;
        fs::create_directories(slot, ec);
        return slot;
      };
      // Reads the slots of `ids` that have an exit status (`rc`) into `cov`; returns the ids
      // without one (they did not finish).
      auto collect = [&](const std::vector<std::string>& ids, const std::vector<fs::path>& slots) {
        std::vector<std::string> unfinished;
        for (std::size_t i = 0; i < ids.size(); ++i) {
          const std::string rc = read_text(dir, slots[i] / "rc", 64);
          if (rc.empty()) {
            unfinished.push_back(ids[i]);
            continue;
          }
          auto lines = read_slot(slots[i]);
          if (lines.empty()) continue;  // the test did not run (a filter matched nothing)
          TestCoverage tc;
          tc.test = ids[i];
          // A test (file) fails as a whole: a non-zero exit. A test named failing that passes
          // here is a pass: the spectrum records what this run saw.
          tc.failed = std::atoi(rc.c_str()) != 0;
          tc.lines = std::move(lines);
          cov.push_back(std::move(tc));
        }
        return unfinished;
      };
      auto cut_after = [&](std::size_t finished, std::size_t of) -> Expected<void> {
        return fail(Errc::timeout, "localization cut off by its time budget after " + std::to_string(finished) + " of " +
                                       std::to_string(of) + " test run(s) of a batch");
      };
      // One sandboxed shell runs `ids` one by one, each alone with its own slot and exit status;
      // a kill by the budget keeps every test that finished before it. Appends to `cov`.
      auto batch = [&](const std::vector<std::string>& ids) -> Expected<void> {
        auto checked = detail::checked_test_template(request, ids, "localize");
        if (!checked) return unexpected(checked.error());
        std::string script;
        std::vector<fs::path> slots;
        for (const auto& id : ids) {
          slots.push_back(new_slot());
          script += reset() + "( " + slot_env(slots.back()) + detail::expand_tests(*checked, {id}) +
                    " ) </dev/null >/dev/null 2>&1; flowagent_rc=$?; " + dump(slots.back()) +
                    "echo $flowagent_rc >" + shell_quote((slots.back() / "rc").string()) + "\n";
        }
        out.test_runs += static_cast<int>(ids.size());
        auto r = command(dir, script);
        if (!r) return unexpected(r.error());
        const auto unfinished = collect(ids, slots);  // a kill by the budget: the tests before it stand
        if (r->timed_out || !unfinished.empty()) return cut_after(ids.size() - unfinished.size(), ids.size());
        return {};
      };
      // tape test files: every one in ONE node process (detail::kTapeCoverageDriver, preloaded),
      // one V8 coverage window and exit status per file -- one node and tape start for the
      // failing files and all the neighbours instead of one each. The first `ref` ids (the failing
      // files) are the reference run: the driver reports its time and ends the process when the
      // budget is spent. Files the process did not finish (it died, or the driver found no tape
      // harness) run one by one afterwards while the budget lasts.
      auto tape_batch = [&](const std::vector<std::string>& ids, std::size_t ref) -> Expected<void> {
        const fs::path driver = data / "flowagent-tape-cov.js";
        const fs::path windows = data / "tape-v8";
        std::error_code ec;
        fs::create_directories(windows, ec);
        {
          std::ofstream f(driver);
          f << detail::kTapeCoverageDriver;
        }
        auto checked = detail::checked_test_template(request, ids, "localize");
        if (!checked) return unexpected(checked.error());
        Json::Array plan_json;
        std::vector<fs::path> slots;
        for (const auto& id : ids) {
          slots.push_back(new_slot());
          plan_json.emplace_back(Json::Array{Json(id), Json(slots.back().string())});
        }
        // NODE_OPTIONS splits on spaces: a driver path with one falls back to a process per file.
        if (driver.string().find_first_of(" \t\n\"'\\") != std::string::npos) return batch(ids);
        const fs::path ref_file = data / "tape-ref-ms";
        const auto ms = [](auto d) { return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()); };
        const std::string script =
            "( export NODE_V8_COVERAGE=" + shell_quote(windows.string()) +
            " FLOWAGENT_TAPE_PLAN=" + shell_quote(dump_json_lossy(Json(std::move(plan_json)))) +
            " FLOWAGENT_TAPE_REF=" + std::to_string(ref) + " FLOWAGENT_TAPE_REF_FILE=" + shell_quote(ref_file.string()) +
            " FLOWAGENT_TAPE_FACTOR=" + (opt.budget.count() > 0 ? "0" : std::to_string(request.limits.localization_budget)) +
            " FLOWAGENT_TAPE_MIN_MS=" + ms(opt.min_budget) + " FLOWAGENT_TAPE_MAX_MS=" + ms(opt.max_budget) +
            " FLOWAGENT_TAPE_SPENT_MS=" + ms(Clock::now() - start) +
            "; export NODE_OPTIONS=\"$NODE_OPTIONS\"" + shell_quote(" --require=" + driver.string()) + "; " +
            detail::expand_tests(*checked, ids) + " ) </dev/null >/dev/null 2>&1\n";
        out.test_runs++;
        auto r = command(dir, script);
        if (!r) return unexpected(r.error());
        // The budget from the reference files' time in the process (the driver's), else the whole command's.
        if (const auto ref_ms = std::atoll(read_text(dir, ref_file, 64).c_str()); ref > 0 && ref_ms > 0)
          set_budget(std::chrono::milliseconds(ref_ms));
        else if (ref > 0)
          set_budget_from_reference();
        const auto unfinished = collect(ids, slots);
        if (unfinished.empty()) return {};
        if (r->timed_out || over()) return cut_after(ids.size() - unfinished.size(), ids.size());
        return batch(unfinished);
      };
      // Test files as ids (tape, node:test, mocha files): the passing neighbours are the other
      // test files of the failing files' folders, and the reference run is the failing files.
      auto tree = detail::SandboxFs::open(dir);
      const bool file_ids = selectable && tree && std::all_of(failing.begin(), failing.end(), [&](const std::string& f) {
        auto st = tree->stat(f);
        return st && S_ISREG(st->st_mode);
      });
      std::vector<std::string> plan;  // failing tests first, then passing neighbours (same group first)
      std::vector<std::string> passed;
      // tape: the failing files and their neighbours in one process (tape_batch), the failing
      // files first: they are the reference run.
      const bool tape = eco == "javascript" && file_ids && contains(tmpl, "tape");
      if (file_ids && !tape) {
        if (auto b = batch(failing); !b) return b;
        set_budget_from_reference();
        passed = sibling_test_files(*tree, failing);
      } else if (tape) {
        plan = failing;
        passed = sibling_test_files(*tree, failing);
      } else {
        // Without a grouping (JavaScript, Go) the reference run is the whole command: it names the
        // passing tests to compare with.
        const bool grouped = groups != failing;
        const fs::path slot = new_slot();
        const std::vector<std::string> ids = selectable && grouped ? groups : std::vector<std::string>{};
        out.test_runs++;
        auto ref = tests(dir, ids, reset() + slot_env(slot) + tmpl);
        if (!ref) return unexpected(ref.error());
        if (ref->run.timed_out) return fail(Errc::timeout, "localization cut off by its time budget during the reference run");
        set_budget_from_reference();
        if (!selectable) {  // one run of everything: the failing tests' coverage, no per-test spectrum
          if (eco == "cpp" || eco == "java") {
            auto g = command(dir, dump(slot));
            if (!g) return unexpected(g.error());
          }
          TestCoverage tc{"(all tests)", true, read_slot(slot)};
          cov.push_back(std::move(tc));
          out.note = "the test command has no {tests} placeholder: coverage of the whole run, not per test";
          return {};
        }
        plan = failing;
        passed = ref->run.passed;
      }
      std::stable_partition(passed.begin(), passed.end(), [&](const std::string& p) {
        return std::any_of(failing.begin(), failing.end(), [&](const std::string& f) {
          return group_of(eco, f) == group_of(eco, p);
        });
      });
      for (const auto& p : passed)
        if (std::find(failing.begin(), failing.end(), p) == failing.end()) plan.push_back(p);
      // max_tests bounds the per-test runs, the failing files' reference runs included.
      const std::size_t limit = tape ? std::max(opt.max_tests, failing.size())
                                : file_ids ? (opt.max_tests > failing.size() ? opt.max_tests - failing.size() : 0)
                                           : std::max(opt.max_tests, failing.size());
      if (plan.size() > limit) plan.resize(limit);
      if (tape) return tape_batch(plan, failing.size());
      if (plan.empty()) return {};
      if (over()) return fail(Errc::timeout, "localization cut off by its time budget after the reference run");
      return batch(plan);
    }
  };

  CoverageLocalizerOptions opt_;
  std::mutex mu_;
  std::map<std::string, Localization> cache_;
};

}  // namespace

std::shared_ptr<Localizer> make_coverage_localizer(CoverageLocalizerOptions options) {
  return std::make_shared<CoverageLocalizer>(std::move(options));
}

}  // namespace flowagent
