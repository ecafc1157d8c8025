// The initial prompt: structured failures first, then the description, then the diff trimmed
// around what failed, inside a token budget.
#include <algorithm>
#include <set>

#include "flowagent/repair.hpp"
#include "reports/test_identity.hpp"
#include "workspace/git.hpp"
#include "workspace/git_patch.hpp"

namespace flowagent {

namespace {

namespace fs = std::filesystem;

struct FileDiff {
  std::string path;
  std::string header;              // "diff --git ..." up to the first hunk
  std::vector<std::string> hunks;  // each starting with "@@"
  std::size_t size() const {
    std::size_t n = header.size();
    for (const auto& h : hunks) n += h.size();
    return n;
  }
};

std::vector<FileDiff> split_diff(const std::string& diff) {
  std::vector<FileDiff> files;
  auto patch = parse_patch(diff);
  if (!patch) return files;
  for (const auto& pf : patch->files) {
    FileDiff f;
    f.path = pf.path();
    f.header = render_file_header(pf);
    if (pf.is_text)
      for (const auto& h : pf.hunks) f.hunks.push_back(render_hunk(h));
    files.push_back(std::move(f));
  }
  return files;
}

std::string resolve(const RepairRequest& r, const std::string& p) {
  fs::path path(p);
  if (path.is_relative()) path = fs::path(r.repository) / path;
  return path.string();
}

std::string render_failure(const reports::TestCase& t, std::size_t max_chars) {
  std::string s = "## " + t.id + "\n";
  if (!t.file.empty()) s += "location: " + t.file + (t.line ? ":" + std::to_string(t.line) : "") + "\n";
  if (!t.expected.empty() || !t.actual.empty()) s += "expected: " + t.expected + "\nactual: " + t.actual + "\n";
  std::string body = t.excerpt.empty() ? t.message : t.excerpt;
  if (body.size() > max_chars) body = body.substr(0, max_chars) + "\n[... excerpt trimmed]\n";
  s += "```\n" + body + (body.empty() || body.back() == '\n' ? "" : "\n") + "```\n";
  return s;
}

}  // namespace

Expected<InitialContext> build_initial_context(const RepairRequest& req, const CancelToken& cancel,
                                               ContextOptions opt, std::string fault_section) {
  InitialContext ctx;
  const std::int64_t budget_tokens = req.limits.context_tokens > 0 ? req.limits.context_tokens : opt.token_budget;
  const std::size_t budget = static_cast<std::size_t>(budget_tokens) * opt.chars_per_token;

  // 1. Structured failures from reports and logs.
  std::vector<reports::TestCase> all;
  for (const auto& list : {req.failure.reports, req.failure.logs})
    for (const auto& p : list) {
      auto rep = reports::parse_report_file(resolve(req, p));
      for (auto& t : rep.tests)
        if (t.outcome == reports::Outcome::failed || t.outcome == reports::Outcome::error) all.push_back(std::move(t));
    }
  // Failing tests named by the request first (matching by id suffix too: runners differ in prefixes).
  auto named = [&](const reports::TestCase& t) { return reports::contains_test(req.failure.failing_tests, t.id); };
  std::stable_partition(all.begin(), all.end(), named);
  std::set<std::string> seen;
  for (auto& t : all)
    if (seen.insert(t.id).second) ctx.failures.push_back(std::move(t));

  std::string failures_text = "# Failing tests\n";
  const std::size_t failure_budget = budget * 2 / 5;
  std::size_t shown = 0;
  for (const auto& t : ctx.failures) {
    if (shown == opt.max_failures) break;
    std::string block = render_failure(t, std::max<std::size_t>(400, failure_budget / std::min<std::size_t>(ctx.failures.size(), opt.max_failures)));
    if (failures_text.size() + block.size() > failure_budget) {
      ctx.trimmed.push_back("failure " + t.id);
      continue;
    }
    failures_text += block;
    ++shown;
  }
  for (const auto& name : req.failure.failing_tests)
    if (!seen.count(name) &&
        std::none_of(ctx.failures.begin(), ctx.failures.end(), [&](auto& t) { return reports::denotes(name, t.id); }))
      failures_text += "## " + name + "\n(no report details; run it with run_tests)\n";
  if (ctx.failures.size() > shown)
    failures_text += "(" + std::to_string(ctx.failures.size() - shown) + " more failures not shown)\n";

  // 2. Description.
  std::string desc = req.change.description;
  if (desc.size() > budget / 10) {
    desc = desc.substr(0, budget / 10) + "\n[... description trimmed]";
    ctx.trimmed.push_back("description");
  }

  // 3. The change's diff, read-only from the developer's repository.
  if (!req.change.base_commit.empty() && !req.change.head_commit.empty() && fs::exists(req.repository)) {
    // The same canonical diff the post-filters see: attributes cannot hide a part of the change.
    auto d = detail::git_patch(req.repository, {req.change.base_commit, req.change.head_commit}, false, cancel);
    if (d) ctx.change_diff = std::move(d->text);
    else if (d.error().code == Errc::cancelled) return unexpected(d.error());
  }
  std::string header = "You are repairing a change whose tests fail. Work only through the tools.\n\n";
  std::string commands = "# Commands\n";
  if (!req.commands.build.empty()) commands += "build: " + req.commands.build + "\n";
  if (!req.commands.test.empty()) commands += "test: " + req.commands.test + "\n";
  std::string description = "# Change description\n" + (desc.empty() ? std::string("(none)") : desc) + "\n\n";

  if (fault_section.size() > budget / 5) {
    fault_section = fault_section.substr(0, budget / 5) + "\n[... trimmed]\n";
    ctx.trimmed.push_back("fault localization section");
  }
  if (!fault_section.empty() && fault_section.back() != '\n') fault_section += '\n';
  ctx.fault_section = fault_section;
  const std::size_t fixed = header.size() + failures_text.size() + fault_section.size() + description.size() +
                            commands.size() + 200;
  const std::size_t diff_budget = budget > fixed ? budget - fixed : 0;
  std::string diff_text;
  auto files = split_diff(ctx.change_diff);
  // Rank: files that the failures mention first, then smaller files.
  std::string failure_blob;
  for (const auto& t : ctx.failures) failure_blob += t.file + "\n" + t.id + "\n" + t.excerpt + "\n";
  auto mentioned = [&](const FileDiff& f) {
    auto base = fs::path(f.path).filename().string();
    auto stem = fs::path(f.path).stem().string();
    return failure_blob.find(f.path) != std::string::npos || failure_blob.find(base) != std::string::npos ||
           (stem.size() > 3 && failure_blob.find(stem) != std::string::npos);
  };
  std::stable_sort(files.begin(), files.end(), [&](const FileDiff& a, const FileDiff& b) {
    bool ma = mentioned(a), mb = mentioned(b);
    if (ma != mb) return ma;
    return a.size() < b.size();
  });
  std::vector<std::string> omitted;
  for (const auto& f : files) {
    if (diff_text.size() + f.size() <= diff_budget) {
      diff_text += f.header;
      for (const auto& h : f.hunks) diff_text += h;
      continue;
    }
    // Keep what fits of this file, hunk by hunk.
    if (diff_text.size() + f.header.size() + 200 > diff_budget) {
      omitted.push_back(f.path);
      continue;
    }
    diff_text += f.header;
    std::size_t kept = 0;
    for (const auto& h : f.hunks) {
      if (diff_text.size() + h.size() + 100 > diff_budget) break;
      diff_text += h;
      ++kept;
    }
    diff_text += "[... " + std::to_string(f.hunks.size() - kept) + " more hunk(s) of " + f.path +
                 " omitted; read the file with read_file]\n";
    ctx.trimmed.push_back("hunks of " + f.path);
  }
  if (!omitted.empty()) {
    diff_text += "[... changes to " + std::to_string(omitted.size()) + " more file(s) omitted:";
    for (const auto& o : omitted) diff_text += " " + o;
    diff_text += "]\n";
    for (const auto& o : omitted) ctx.trimmed.push_back("diff of " + o);
  }

  ctx.text = header + failures_text + "\n" + (fault_section.empty() ? "" : fault_section + "\n") + description + "# The change (diff base..head)\n```diff\n" +
             (diff_text.empty() ? std::string("(no diff available)\n") : diff_text) + "```\n\n" + commands;
  if (ctx.text.size() > budget) {  // last resort: never exceed the budget
    ctx.text = ctx.text.substr(0, budget - 40) + "\n[... context trimmed to budget]\n";
    ctx.trimmed.push_back("tail of the context");
  }
  ctx.estimated_tokens = static_cast<std::int64_t>(ctx.text.size() / opt.chars_per_token);
  return ctx;
}

}  // namespace flowagent
