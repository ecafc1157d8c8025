#include "loop/context_manager.hpp"

#include <algorithm>
#include <set>

namespace flowagent::detail {

namespace {

std::int64_t message_chars(const ChatMessage& m) {
  std::int64_t n = static_cast<std::int64_t>(m.content.size()) + 16;
  for (const auto& c : m.tool_calls) n += static_cast<std::int64_t>(c.raw_arguments.size() + c.name.size()) + 16;
  return n;
}

bool is_edit(const std::string& tool) { return tool == "edit_file" || tool == "write_file" || tool == "delete_file"; }
bool is_test_run(const std::string& tool) { return tool == "run_tests" || tool == "build"; }

}  // namespace

std::int64_t estimate_tokens(const std::vector<ChatMessage>& messages, double cpt) {
  std::int64_t chars = 0;
  for (const auto& m : messages) chars += message_chars(m);
  return static_cast<std::int64_t>(static_cast<double>(chars) / cpt);
}

std::vector<ChatMessage> bound_context(const std::vector<ChatMessage>& history, const ContextBudget& b,
                                       const std::string& pinned, ContextCut* cut) {
  std::vector<ChatMessage> out = history;
  ContextCut c;
  c.tokens_before = estimate_tokens(out, b.chars_per_token);
  // The first user message carries the pinned ledger.
  std::size_t first_user = out.size();
  for (std::size_t i = 0; i < out.size(); ++i)
    if (out[i].role == Role::user) {
      first_user = i;
      break;
    }
  if (first_user < out.size() && !pinned.empty()) out[first_user].content += "\n\n" + pinned;

  std::int64_t budget = b.max_tokens;
  if (budget <= 0 && b.working_tokens > 0) {
    std::vector<ChatMessage> head(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(2, out.size())));
    budget = estimate_tokens(head, b.chars_per_token) + b.working_tokens;
  }
  c.budget = std::max<std::int64_t>(budget, 0);
  if (budget > 0) {
    // Protected tool outputs: the newest keep_recent, the newest test run, edits, short ones.
    std::set<std::size_t> keep;
    int recent = 0;
    bool test_seen = false;
    for (std::size_t i = out.size(); i-- > 0;) {
      if (out[i].role != Role::tool) continue;
      if (recent < b.keep_recent) {
        keep.insert(i);
        ++recent;
      }
      if (is_test_run(out[i].tool_name) && !test_seen) {
        keep.insert(i);
        test_seen = true;
      }
      if (is_edit(out[i].tool_name) || out[i].content.size() <= 400) keep.insert(i);
    }
    // 320 characters are kept for the note that tells the model about the cut.
    const auto limit = static_cast<std::int64_t>(static_cast<double>(budget) * b.chars_per_token) - 320;
    std::int64_t chars = 0;
    for (const auto& m : out) chars += message_chars(m);
    for (std::size_t i = 0; i < out.size() && chars > limit; ++i) {
      auto& m = out[i];
      if (m.role != Role::tool || keep.count(i)) continue;
      const std::size_t was = m.content.size();
      m.content = "[elided by the context manager: " + std::to_string(was) + " characters of " + m.tool_name +
                  " output; call the tool again if you need it]";
      chars -= static_cast<std::int64_t>(was) - static_cast<std::int64_t>(m.content.size());
      ++c.elided;
    }
    // Still over (huge recent outputs): cut the middle of the largest kept outputs, newest test run last.
    for (std::size_t i = 0; i < out.size() && chars > limit; ++i) {
      auto& m = out[i];
      if (m.role != Role::tool || m.content.size() <= 4000) continue;
      const std::size_t was = m.content.size();
      m.content = m.content.substr(0, 1500) + "\n[... " + std::to_string(was - 3000) +
                  " characters elided by the context manager ...]\n" + m.content.substr(was - 1500);
      chars -= static_cast<std::int64_t>(was) - static_cast<std::int64_t>(m.content.size());
      ++c.elided;
    }
    if (c.elided > 0 && first_user < out.size())
      out[first_user].content +=
          "\n\n[Context note: " + std::to_string(c.elided) + " earlier tool output(s) were elided to keep this request under " +
          std::to_string(budget) + " tokens. Your edits (your tool calls), the latest test results, failures and " +
          "hypotheses are kept; call a tool again to see an elided output.]";
  }
  c.tokens_after = estimate_tokens(out, b.chars_per_token);
  if (cut) *cut = c;
  return out;
}

}  // namespace flowagent::detail
