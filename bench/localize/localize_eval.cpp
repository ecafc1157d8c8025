// Evaluates fault localization on one prepared failing state (bench/localize/run.py prepares it):
// coverage ranking, lexical retrieval, their combination and the baseline (the change's own files),
// each as the rank of the first fixed file and function. Prints one JSON object.
//
// usage: localize_eval [--one-run] <case.json>   with fields root, repository, base, head, test,
//        build, failing (array), query, fixed_files (array), fixed_functions (array of
//        "file:symbol"), change_files (array), timeout_seconds, read_only_paths (array), env
//        (object). Every command of the project runs through run_sandboxed with those sandbox
//        options. --one-run: only one run of the failing tests (build included) in a copy of the
//        tree, for scale: its time and peak RSS (a separate process, so peak memory is its own).
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <map>
#include <thread>

#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "flowagent/flowagent.hpp"
#include "tools/test_command.hpp"

using namespace flowagent;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> strings(const Json& doc, std::string_view key) {
  std::vector<std::string> out;
  if (const Json* a = doc.find(key); a && a->is_array())
    for (const auto& x : a->as_array())
      if (x.is_string()) out.push_back(x.as_string());
  return out;
}

// 1-based rank of the first entry matching a fixed file / function; 0 = not found.
struct Ranks {
  int file = 0, function = 0;
};
Ranks ranks(const std::vector<std::pair<std::string, std::string>>& ranked, const std::vector<std::string>& files,
            const std::vector<std::string>& functions) {
  Ranks r;
  std::vector<std::string> seen_files;
  int fn_rank = 0;
  for (const auto& [file, symbol] : ranked) {
    ++fn_rank;
    if (std::find(seen_files.begin(), seen_files.end(), file) == seen_files.end()) seen_files.push_back(file);
    if (!r.file && std::find(files.begin(), files.end(), file) != files.end()) r.file = static_cast<int>(seen_files.size());
    if (!r.function)
      for (const auto& f : functions) {
        const auto colon = f.find(':');
        const std::string ffile = f.substr(0, colon), fsym = f.substr(colon + 1);
        // A fixed method matches by its unqualified name too ("Class.m" vs "m").
        auto tail = [](const std::string& s) {
          auto p = s.find_last_of(".:");
          return p == std::string::npos ? s : s.substr(p + 1);
        };
        if (ffile == file && (fsym == symbol || tail(fsym) == tail(symbol))) r.function = fn_rank;
      }
  }
  return r;
}

Json rank_json(const Ranks& r) { return Json::obj({{"file", r.file}, {"function", r.function}}); }

// Peak memory of everything this process starts, sandboxed runs included (getrusage does not see
// through bubblewrap's PID namespace: its children are reaped by the namespace's init). A thread
// walks /proc every 20 ms, finds this process's descendants by parent pid, and keeps the largest
// VmHWM (peak RSS of one process) and the largest sum of VmRSS at one instant.
class MemoryWatch {
 public:
  MemoryWatch() : thread_([this] { loop(); }) {}
  ~MemoryWatch() {
    stop_ = true;
    thread_.join();
  }
  long max_process_kb() const { return max_hwm_; }
  long max_total_kb() const { return max_total_; }

 private:
  static long field_kb(const std::string& status, const char* name) {
    auto p = status.find(name);
    return p == std::string::npos ? 0 : std::atol(status.c_str() + p + std::strlen(name));
  }
  void loop() {
    while (!stop_) {
      try {
        sample();
      } catch (const std::exception&) {  // a process that ended while being read
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  void sample() {
    const int self = getpid();
    {
      std::map<int, int> parent;
      std::error_code ec;
      for (const auto& e : fs::directory_iterator("/proc", ec)) {
        const std::string name = e.path().filename().string();
        if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
        std::ifstream st(e.path() / "stat");
        std::string line;
        std::getline(st, line);
        auto close = line.rfind(')');
        if (close == std::string::npos) continue;
        int ppid = 0;
        char state = 0;
        if (std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid) == 2) parent[std::atoi(name.c_str())] = ppid;
      }
      long total = 0;
      for (const auto& [pid, pp] : parent) {
        int up = pp, hops = 0;
        while (up > 1 && up != self && hops++ < 64) {
          auto it = parent.find(up);
          up = it == parent.end() ? 0 : it->second;
        }
        if (up != self) continue;
        std::ifstream in("/proc/" + std::to_string(pid) + "/status");
        std::string status((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        max_hwm_ = std::max(max_hwm_.load(), field_kb(status, "VmHWM:"));
        total += field_kb(status, "VmRSS:");
      }
      max_total_ = std::max(max_total_.load(), total);
    }
  }
  std::atomic<bool> stop_{false};
  std::atomic<long> max_hwm_{0}, max_total_{0};
  std::thread thread_;
};

}  // namespace

int main(int argc, char** argv) {
  const bool one_run_only = argc == 3 && std::string_view(argv[1]) == "--one-run";
  if (argc != 2 && !one_run_only) {
    std::cerr << "usage: localize_eval [--one-run] <case.json>\n";
    return 2;
  }
  std::ifstream in(argv[argc - 1]);
  std::stringstream ss;
  ss << in.rdbuf();
  auto doc = parse_json(ss.str());
  if (!doc) {
    std::cerr << doc.error().to_string() << "\n";
    return 2;
  }
  const fs::path root = doc->get_string("root");
  RepairRequest r;
  r.repository = doc->get_string("repository");
  r.change.id = "bench";
  r.change.base_commit = doc->get_string("base");
  r.change.head_commit = doc->get_string("head");
  r.commands.test = doc->get_string("test");
  r.commands.build = doc->get_string("build");
  r.commands.timeout_seconds = doc->get_int("timeout_seconds", 600);
  r.failure.failing_tests = strings(*doc, "failing");
  auto fixed_files = strings(*doc, "fixed_files");
  auto fixed_functions = strings(*doc, "fixed_functions");
  // Ground truth from the developer's fix: the functions of the failing state whose lines the fix
  // changed or deleted (old side of git diff -U0 head fix, production files only).
  if (const std::string fix = doc->get_string("fix_commit"); !fix.empty() && fixed_files.empty()) {
    ProcessOptions g;
    g.argv = {"git", "-C", doc->get_string("repository"), "diff", "-U0", "--no-color", r.change.head_commit, fix};
    auto d = run_process(g);
    std::map<std::string, std::set<int>> old_lines;
    std::string file;
    std::istringstream lines(d ? d->output : "");
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("--- a/", 0) == 0) file = line.substr(6);
      else if (line.rfind("--- ", 0) == 0) file.clear();
      else if (line.rfind("@@ -", 0) == 0 && !file.empty() && !is_test_path(file)) {
        int a = 0, n = 1;
        if (std::sscanf(line.c_str() + 4, "%d,%d", &a, &n) < 1) continue;
        if (n == 0) old_lines[file].insert(a);  // an insertion after line a
        for (int i = 0; i < n; ++i) old_lines[file].insert(a + i);
      }
    }
    for (const auto& [f, ls] : old_lines) {
      if (!has_code_grammar(f)) continue;  // .gitignore, docs, build files: not what a ranking names
      fixed_files.push_back(f);
      std::ifstream src(root / f);
      std::string text((std::istreambuf_iterator<char>(src)), std::istreambuf_iterator<char>());
      for (const auto& c : code_chunks(f, text)) {
        if (c.kind != "function") continue;
        auto it = ls.lower_bound(c.start_line);
        if (it != ls.end() && *it <= c.end_line) fixed_functions.push_back(f + ":" + c.symbol);
      }
    }
  }
  const auto change_files = strings(*doc, "change_files");
  SandboxOptions sandbox;
  for (const auto& p : strings(*doc, "read_only_paths")) sandbox.read_only_paths.emplace_back(p);
  if (const Json* env = doc->find("env"); env && env->is_object())
    for (const auto& [k, v] : env->as_object())
      if (v.is_string()) sandbox.env_set[k] = v.as_string();

  if (one_run_only) {
    // One sandboxed run of the failing tests (the build first, when there is one), in a copy of the
    // tree so the failing state stays untouched, for scale.
    const fs::path copy = root.string() + ".one-run";
    ProcessOptions cp;
    cp.argv = {"cp", "-a", root.string(), copy.string()};
    if (auto c = run_process(cp); !c || !c->ok()) {
      std::cerr << "cannot copy the tree\n";
      return 1;
    }
    SandboxCommand sc;
    sc.argv = shell_argv((r.commands.build.empty() ? "" : r.commands.build + " && ") +
                         detail::expand_tests(r.commands.test, r.failure.failing_tests));
    sc.workspace = copy;
    sc.timeout = std::chrono::seconds(r.commands.timeout_seconds);
    MemoryWatch mem;
    const auto t0 = std::chrono::steady_clock::now();
    auto run = run_sandboxed(sc, sandbox);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    std::error_code ec;
    fs::remove_all(copy, ec);
    std::cout << dump_json_lossy(Json::obj({{"one_run_ms", ms},
                                            {"one_run_exit", run ? run->exit_code : -1},
                                            {"max_rss_kb_test_run", mem.max_process_kb()},
                                            {"max_total_rss_kb_test_run", mem.max_total_kb()}}))
              << "\n";
    return run ? 0 : 1;
  }

  CoverageLocalizerOptions co;
  co.cache = false;
  if (const auto m = doc->get_int("min_budget_ms", -1); m >= 0) co.min_budget = std::chrono::milliseconds(m);
  if (const auto m = doc->get_int("max_budget_ms", -1); m > 0) co.max_budget = std::chrono::milliseconds(m);
  auto loc = make_coverage_localizer(co);
  auto changed = changed_lines(r.repository, r.change.base_commit, r.change.head_commit);
  auto mem = std::make_unique<MemoryWatch>();
  const auto t1 = std::chrono::steady_clock::now();
  auto l = loc->localize(root, r, changed ? *changed : ChangedLines{}, CancelToken(), &sandbox);
  const auto cov_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t1).count();
  const long rss_cov = mem->max_process_kb(), rss_cov_total = mem->max_total_kb();
  mem.reset();

  CodeRetriever retriever;
  std::string query = doc->get_string("query");
  for (const auto& t : r.failure.failing_tests) query += " " + t;
  const auto t2 = std::chrono::steady_clock::now();
  auto hits = retriever.search(root, "", query, 50, CancelToken(), root / ".git");
  const auto lex_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t2).count();

  std::vector<std::pair<std::string, std::string>> cov_list, lex_list, comb_list, base_list;
  std::vector<SuspiciousLocation> covs = l ? l->functions : std::vector<SuspiciousLocation>{};
  for (const auto& f : covs) cov_list.emplace_back(f.file, f.symbol);
  std::vector<RetrievalHit> lex;
  if (hits)
    for (const auto& h : *hits)
      if (h.kind == "function" && !is_test_path(h.file)) lex.push_back(h);
  for (const auto& h : lex) lex_list.emplace_back(h.file, h.symbol);
  for (const auto& c : combine_rankings(covs, lex)) comb_list.emplace_back(c.file, c.symbol);
  // Baseline: the change's own (non-test) files in the order the diff lists them; functions of
  // those files in source order.
  for (const auto& f : change_files) {
    if (is_test_path(f)) continue;
    std::ifstream src(root / f);
    std::string text((std::istreambuf_iterator<char>(src)), std::istreambuf_iterator<char>());
    bool any = false;
    for (const auto& c : code_chunks(f, text))
      if (c.kind == "function") {
        base_list.emplace_back(f, c.symbol);
        any = true;
      }
    if (!any) base_list.emplace_back(f, "");
  }
  Json out = Json::obj({
      {"coverage", rank_json(ranks(cov_list, fixed_files, fixed_functions))},
      {"lexical", rank_json(ranks(lex_list, fixed_files, fixed_functions))},
      {"combined", rank_json(ranks(comb_list, fixed_files, fixed_functions))},
      {"baseline", rank_json(ranks(base_list, fixed_files, fixed_functions))},
      {"fixed_files", Json([&] { Json::Array a; for (auto& x : fixed_files) a.emplace_back(x); return a; }())},
      {"fixed_functions", Json([&] { Json::Array a; for (auto& x : fixed_functions) a.emplace_back(x); return a; }())},
      {"coverage_tool", l ? l->tool : std::string()},
      {"coverage_note", l ? l->note : l.error().to_string()},
      {"coverage_cut_off", l && l->cut_off},
      {"failing_covered", l ? l->failing_tests : 0},
      {"passing_covered", l ? l->passing_tests : 0},
      {"coverage_ms", cov_ms},
      {"coverage_budget_ms", l ? l->budget_ms : 0},
      {"coverage_test_runs", l ? l->test_runs : 0},
      {"lexical_ms", lex_ms},
      {"max_rss_kb_coverage", rss_cov},
      {"max_total_rss_kb_coverage", rss_cov_total},
  });
  std::cout << dump_json_lossy(out) << "\n";
  return 0;
}
