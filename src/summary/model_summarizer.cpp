// The model summarizer (the paper's prompt (b)) and the HTML sanitizer every summary goes through.
#include <algorithm>
#include <cctype>

#include "flowagent/repair.hpp"
#include "flowagent/summary.hpp"

namespace flowagent {

namespace {

bool allowed_tag(std::string_view name) {
  static constexpr std::string_view kAllowed[] = {"b", "i", "code", "ul", "li", "p", "br"};
  return std::find(std::begin(kAllowed), std::end(kAllowed), name) != std::end(kAllowed);
}

bool entity_at(std::string_view s, std::size_t i) {
  static constexpr std::string_view kNamed[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&nbsp;"};
  for (auto e : kNamed)
    if (s.substr(i, e.size()) == e) return true;
  if (s.substr(i, 2) == "&#") {
    std::size_t j = i + 2;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    return j > i + 2 && j < s.size() && s[j] == ';' && j - i < 10;
  }
  return false;
}

}  // namespace

std::string sanitize_summary_html(std::string_view in, std::size_t max_sentences) {
  std::string out;
  std::vector<std::string> open;
  std::size_t sentences = 0;
  bool done = false;
  for (std::size_t i = 0; i < in.size() && !done; ++i) {
    char c = in[i];
    if (c == '\n' || c == '\r' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
      continue;
    }
    if (c == '<') {
      // <name> or </name> or <br/> with a lowercase allowed name and no attributes.
      auto close = in.find('>', i);
      if (close != std::string_view::npos) {
        std::string_view tag = in.substr(i + 1, close - i - 1);
        bool closing = !tag.empty() && tag.front() == '/';
        if (closing) tag.remove_prefix(1);
        bool self = !tag.empty() && tag.back() == '/';
        if (self) tag.remove_suffix(1);
        while (!tag.empty() && tag.back() == ' ') tag.remove_suffix(1);
        std::string name(tag);
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return std::tolower(ch); });
        if (allowed_tag(name) && name == tag) {
          if (name == "br") {
            out += "<br>";
          } else if (!closing) {
            out += "<" + name + ">";
            open.push_back(name);
          } else if (std::find(open.begin(), open.end(), name) != open.end()) {
            while (!open.empty()) {  // close inner tags too, keeping nesting valid
              std::string top = open.back();
              open.pop_back();
              out += "</" + top + ">";
              if (top == name) break;
            }
          }
          i = close;
          continue;
        }
      }
      out += "&lt;";
      continue;
    }
    if (c == '>') {
      out += "&gt;";
      continue;
    }
    if (c == '"') {
      out += "&quot;";
      continue;
    }
    if (c == '\'') {
      out += "&#39;";
      continue;
    }
    if (c == '&') {
      out += entity_at(in, i) ? "&" : "&amp;";
      continue;
    }
    out += c;
    if ((c == '.' || c == '!' || c == '?') && (i + 1 == in.size() || in[i + 1] == ' ' || in[i + 1] == '\n' || in[i + 1] == '<')) {
      // A dot inside code (a.b) or a number is not a sentence end: we only count ". " style ends.
      if (std::find(open.begin(), open.end(), "code") == open.end() && ++sentences >= max_sentences) done = true;
    }
  }
  while (!open.empty()) {
    out += "</" + open.back() + ">";
    open.pop_back();
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return sanitize_utf8(out);
}

namespace {

std::string clip(const std::string& s, std::size_t n) { return s.size() <= n ? s : s.substr(0, n) + "\n[...]"; }

/// The loop's newest confirmed hypothesis, for the root-cause sentence (issue 14).
std::string confirmed_hypothesis(const RepairContext& ctx) {
  for (auto it = ctx.result.hypotheses.rbegin(); it != ctx.result.hypotheses.rend(); ++it)
    if (it->status == "confirmed")
      return "\nConfirmed root-cause hypothesis (use it for the first sentence): " + clip(it->statement, 600) +
             (it->evidence.empty() ? "" : " Evidence: " + clip(it->evidence, 600)) + "\n";
  return {};
}

class ModelSummarizer final : public Summarizer {
 public:
  std::string_view name() const override { return "model"; }
  std::string summarize(RepairContext& ctx, const Candidate& candidate) override {
    auto fallback = make_template_summarizer();
    if (!ctx.llm) return fallback->summarize(ctx, candidate);
    std::string trajectory;
    for (const auto& s : ctx.result.trajectory) {
      if (s.kind != "tool" && s.kind != "model") continue;
      // Model steps are named by the client ("openai:...", "replay:..."): left out so the prompt
      // depends only on what happened.
      trajectory += "[" + s.kind + (s.kind == "tool" ? " " + s.name : std::string()) + "] " + clip(s.input, 200) +
                    " => " + clip(s.output, 400) + "\n";
    }
    std::string failing;
    for (const auto& t : ctx.request.failure.failing_tests) failing += t + "\n";
    for (const auto& x : ctx.result.evidence.replacements) {
      failing += "(" + x.old_id + " no longer exists; the fix replaced it with:";
      for (const auto& n : x.new_ids) failing += " " + n;
      failing += ")\n";
    }
    ChatRequest req;
    req.temperature = ctx.request.model.temperature;
    req.top_p = ctx.request.model.top_p;
    req.max_output_tokens = 400;
    req.messages.push_back(ChatMessage{
        Role::system,
        "You write the note a code reviewer sees beside a failing test, next to a proposed fix. Write at most "
        "five sentences of HTML on one line. Start with the root cause of the failure, then say what the fix "
        "changes. Only these tags are allowed: <b>, <i>, <code>, <ul>, <li>, <p>, <br>. No links, no "
        "markdown, no preamble.",
        {}, {}, {}, false});
    req.messages.push_back(ChatMessage{
        Role::user,
        "Change description:\n" + clip(ctx.request.change.description, 2000) + "\n\nFailing tests:\n" + failing +
            confirmed_hypothesis(ctx) + "\nThe agent's own account: " + clip(candidate.explanation, 1500) + "\n\nFix (diff):\n" +
            clip(ctx.result.patch, 6000) + "\n\nTrajectory (tail):\n" +
            (trajectory.size() > 6000 ? trajectory.substr(trajectory.size() - 6000) : trajectory),
        {}, {}, {}, false});
    auto resp = ctx.llm->complete(req, ctx.cancel);
    if (resp) {
      ctx.result.metrics.model_calls++;
      ctx.result.metrics.input_tokens += resp->usage.input_tokens;
      ctx.result.metrics.output_tokens += resp->usage.output_tokens;
      ctx.result.metrics.cost_usd += resp->cost_usd;
      const std::string replaced = describe_replacements(ctx.result.evidence);
      std::string html = sanitize_summary_html(resp->message.content, replaced.empty() ? 5 : 4);
      // The reviewer must learn which test replaced which, whatever the model wrote.
      if (!html.empty()) return replaced.empty() ? html : html + " " + replaced;
    }
    ctx.result.trajectory.push_back(TrajectoryStep{"note", "summarizer", {},
                                                   resp ? "empty summary; using the template" : resp.error().to_string(),
                                                   false, 0});
    return fallback->summarize(ctx, candidate);
  }
};

}  // namespace

std::shared_ptr<Summarizer> make_model_summarizer() { return std::make_shared<ModelSummarizer>(); }

}  // namespace flowagent
