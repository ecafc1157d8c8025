#include <set>

#include "absl/strings/str_cat.h"

#include "flowagent/summary.hpp"

namespace flowagent {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\n': case '\r': out += ' '; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

std::set<std::string> patch_files(const Patch& patch) {
  std::set<std::string> files;
  for (const auto& f : patch.files) files.insert(f.path());
  return files;
}

/// The first three sentences of the strategy's account (within 600 characters).
std::string first_sentence(std::string_view text) {
  std::string t(text.substr(0, 600));
  for (auto& c : t)
    if (c == '\n' || c == '\r') c = ' ';
  std::size_t dot = std::string::npos;
  for (int i = 0, from = 0; i < 3; ++i) {
    auto d = t.find(". ", static_cast<std::size_t>(from));
    if (d == std::string::npos) break;
    dot = d;
    from = static_cast<int>(d) + 2;
  }
  if (dot != std::string::npos && t.find(". ", dot + 2) != std::string::npos) t.resize(dot + 1);
  while (!t.empty() && t.back() == ' ') t.pop_back();
  if (!t.empty() && t.back() != '.') t += '.';
  return t;
}

class TemplateSummarizer final : public Summarizer {
 public:
  std::string_view name() const override { return "template"; }
  std::string summarize(RepairContext& ctx, const Candidate& candidate) override {
    std::string out;
    const Hypothesis* confirmed = nullptr;  // the loop's confirmed hypothesis names the root cause (issue 14)
    for (auto it = ctx.result.hypotheses.rbegin(); it != ctx.result.hypotheses.rend() && !confirmed; ++it)
      if (it->status == "confirmed") confirmed = &*it;
    if (confirmed)
      out += "<b>Root cause:</b> " + html_escape(first_sentence(confirmed->statement)) + " ";
    else if (!candidate.explanation.empty())
      out += "<b>Root cause:</b> " + html_escape(first_sentence(candidate.explanation)) + " ";
    else
      out += "<b>Root cause:</b> the change broke " +
             html_escape(ctx.request.failure.failing_tests.empty() ? std::string("the failing tests")
                                                                   : ctx.request.failure.failing_tests.front()) +
             ". ";
    std::set<std::string> files;
    if (ctx.patch) files = patch_files(*ctx.patch);
    else if (auto parsed = parse_patch(ctx.result.patch)) files = patch_files(*parsed);
    if (!files.empty()) {
      out += "The fix edits ";
      std::size_t i = 0;
      for (const auto& f : files) {
        if (i == 3) {
          absl::StrAppend(&out, " and ", files.size() - 3, " more");
          break;
        }
        absl::StrAppend(&out, i ? ", " : "", "<code>", html_escape(f), "</code>");
        ++i;
      }
      out += ". ";
    }
    if (!ctx.request.failure.failing_tests.empty())
      absl::StrAppend(&out, ctx.request.failure.failing_tests.size(), " failing test(s) now pass. ");
    out += describe_replacements(ctx.result.evidence);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  }
};

}  // namespace

std::string describe_replacements(const Evidence& evidence) {
  std::string out;
  for (const auto& x : evidence.replacements) {
    // (absl::StrAppend, not `"" + std::string(...)`: GCC 12 at -O3 warns falsely on the temporary,
    // -Wstringop-overflow.)
    absl::StrAppend(&out, out.empty() ? "" : " ", "<code>", html_escape(x.old_id), "</code> was replaced by ");
    for (std::size_t i = 0; i < x.new_ids.size(); ++i) {
      if (i == 3) {
        absl::StrAppend(&out, " and ", x.new_ids.size() - 3, " more");
        break;
      }
      absl::StrAppend(&out, i ? ", " : "", "<code>", html_escape(x.new_ids[i]), "</code>");
    }
    out += ".";
  }
  return out;
}

std::shared_ptr<Summarizer> make_template_summarizer() { return std::make_shared<TemplateSummarizer>(); }

}  // namespace flowagent
