// The initial context's "Where the failure most likely is" section.
#include <algorithm>
#include <chrono>
#include <sstream>

#include "flowagent/integrity.hpp"
#include "flowagent/localize.hpp"
#include "workspace/sandbox_fs.hpp"

namespace flowagent {

namespace fs = std::filesystem;

namespace {

// The first `last` lines of a workspace file, read confined to the tree (SandboxFs: no symlink out
// of it, no hard link, no device); none when it cannot be read.
std::vector<std::string> read_lines(const detail::SandboxFs* tree, const std::string& rel, int last) {
  std::vector<std::string> out;
  if (!tree) return out;
  auto text = tree->read(rel, 8u << 20);
  if (!text) return out;
  std::istringstream in(*text);
  for (std::string l; static_cast<int>(out.size()) < last && std::getline(in, l);) out.push_back(std::move(l));
  return out;
}

std::string score_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", s);
  return buf;
}

// Up to `max_lines` lines of the function around its most suspicious statement, numbered.
std::string excerpt(const detail::SandboxFs* tree, const SuspiciousLocation& l, int max_lines) {
  const int focus = l.top_lines.empty() ? l.start_line : l.top_lines.front();
  int from = std::max(l.start_line, focus - max_lines / 2);
  int to = std::min(l.end_line, from + max_lines - 1);
  from = std::max(l.start_line, std::min(from, to - max_lines + 1));
  auto lines = read_lines(tree, l.file, to);
  std::string out;
  for (int i = from; i <= to && i <= static_cast<int>(lines.size()); ++i) {
    std::string text = lines[static_cast<std::size_t>(i - 1)];
    if (text.size() > 160) text = text.substr(0, 160) + "...";
    out += std::to_string(i) + (std::find(l.top_lines.begin(), l.top_lines.end(), i) != l.top_lines.end() ? "* " : "  ") +
           text + "\n";
  }
  return out;
}

}  // namespace

Expected<FaultSection> build_fault_section(const FaultSectionInput& in, const RepairRequest& request,
                                           const CancelToken& cancel) {
  FaultSection out;
  if (in.localizer) {
    ChangedLines changed;
    if (!request.change.base_commit.empty() && !request.change.head_commit.empty() && fs::exists(request.repository)) {
      auto c = changed_lines(request.repository, request.change.base_commit, request.change.head_commit, cancel);
      if (c) changed = std::move(*c);
      else if (c.error().code == Errc::cancelled) return unexpected(c.error());
    }
    auto l = in.localizer->localize(in.root, request, changed, cancel, in.sandbox);
    if (!l) return unexpected(l.error());
    out.localization = std::move(*l);
  }
  if (in.retriever) {
    std::string query = request.change.description;
    for (const auto& t : request.failure.failing_tests) query += " " + t;
    auto hits = in.retriever->search(in.root, request.repository + "\x1f" + request.change.head_commit, query,
                                     in.max_locations * 2, cancel, in.git_dir);
    if (!hits && hits.error().code == Errc::cancelled) return unexpected(hits.error());
    if (hits)
      for (auto& h : *hits)
        if (h.kind == "function" && !is_test_path(h.file)) out.retrieval.push_back(std::move(h));
  }
  const auto& L = out.localization;
  out.record = "localization: " + std::string(L.tool.empty() ? "none" : L.tool) + ", " +
               std::to_string(L.failing_tests) + " failing / " + std::to_string(L.passing_tests) + " passing tests, " +
               std::to_string(L.duration_ms) + " ms of " + std::to_string(L.budget_ms) + " ms budget" +
               (L.cut_off ? ", cut off" : "") + (L.from_cache ? ", cached" : "") + (L.note.empty() ? "" : " (" + L.note + ")");
  if (in.retriever)
    out.record += "\nretrieval: " + in.retriever->describe() + ", " + std::to_string(in.retriever->texts_embedded()) +
                  " chunk text(s) embedded so far";

  std::string text = "# Where the failure most likely is\n";
  std::vector<SuspiciousLocation> candidates;
  if (!L.functions.empty()) {
    text += "Ranked by which code the failing tests execute and the passing ones do not (" + L.tool + ", " +
            std::to_string(L.failing_tests) + " failing and " + std::to_string(L.passing_tests) + " passing tests, " +
            std::string(to_string(L.formula)) + "; code the change touched ranks higher). `*` marks the most "
            "suspicious lines. A lead, not proof: read the code.\n";
    for (const auto& f : L.functions) candidates.push_back(f);
  } else if (!out.retrieval.empty()) {
    text += "Functions whose names and identifiers best match the failing tests and the change description "
            "(lexical search; no coverage ranking" + (L.note.empty() ? std::string() : ": " + L.note) + "). A lead, not proof.\n";
  }
  for (const auto& h : out.retrieval) {
    if (candidates.size() >= in.max_locations + (L.functions.empty() ? 0 : 2)) break;
    if (std::any_of(candidates.begin(), candidates.end(), [&](auto& c) { return c.file == h.file && c.symbol == h.symbol; }))
      continue;
    if (!L.functions.empty() && candidates.size() >= in.max_locations) break;
    candidates.push_back(SuspiciousLocation{h.file, h.symbol, h.start_line, h.end_line, h.score, false, {}});
  }
  if (candidates.empty()) return out;
  const std::size_t coverage_count = L.functions.size();
  auto tree = detail::SandboxFs::open(in.root);
  std::size_t i = 0;
  for (const auto& c : candidates) {
    if (out.shown.size() >= in.max_locations) break;
    const bool from_cov = i++ < coverage_count;
    std::string block = "## " + c.file + ":" + std::to_string(c.start_line) + "-" + std::to_string(c.end_line) + " " +
                        (c.symbol.empty() ? std::string("(top-level code)") : c.symbol) + " — " +
                        (from_cov ? "suspiciousness " : "text relevance ") + score_text(c.score) +
                        (c.in_change ? ", changed by this change" : "") + "\n```\n" +
                        excerpt(tree ? &*tree : nullptr, c, 8) + "```\n";
    if (text.size() + block.size() > in.max_chars) break;
    text += block;
    out.shown.push_back(c);
  }
  if (out.shown.empty()) return out;
  out.text = std::move(text);
  out.record += "\nshown:";
  for (const auto& s : out.shown)
    out.record += "\n  " + s.file + ":" + std::to_string(s.start_line) + "-" + std::to_string(s.end_line) + " " +
                  s.symbol + " " + score_text(s.score);
  return out;
}

}  // namespace flowagent
