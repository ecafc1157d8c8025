#include "loop/hypotheses.hpp"

#include <cctype>
#include <set>

namespace flowagent::detail {

namespace {

std::set<std::string> words(const std::string& s) {
  std::set<std::string> out;
  std::string w;
  for (char c : s + " ") {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      if (w.size() >= 3) out.insert(w);
      w.clear();
    }
  }
  return out;
}

}  // namespace

double statement_similarity(const std::string& a, const std::string& b) {
  auto wa = words(a), wb = words(b);
  if (wa.empty() || wb.empty()) return 0;
  std::size_t both = 0;
  for (const auto& w : wa) both += wb.count(w);
  return static_cast<double>(both) / static_cast<double>(wa.size() + wb.size() - both);
}

ToolDefinition HypothesisLedger::definition() {
  return ToolDefinition{
      kRecordHypothesis,
      "Record a hypothesis about the root cause, or update one: status proposed when you start testing it, "
      "confirmed or refuted (with the evidence) when you know. The ledger stays visible for the whole repair; "
      "do not retry refuted hypotheses.",
      *parse_json(R"({"type":"object","properties":{
        "statement":{"type":"string","description":"the hypothesis, one sentence"},
        "evidence":{"type":"string","description":"what supports or refutes it"},
        "status":{"type":"string","enum":["proposed","confirmed","refuted"]},
        "id":{"type":"integer","description":"update this hypothesis instead of adding one"}},
        "required":["status"]})")};
}

ToolOutput HypothesisLedger::record(const Json& args, std::int64_t tool_call, bool* warned) {
  if (warned) *warned = false;
  const std::string status = args.get_string("status", "proposed");
  if (status != "proposed" && status != "confirmed" && status != "refuted")
    return ToolOutput{false, "status must be proposed, confirmed or refuted"};
  const std::string statement = args.get_string("statement");
  const std::string evidence = args.get_string("evidence");
  const std::int64_t id = args.get_int("id", 0);
  Hypothesis* target = nullptr;
  if (id > 0) {
    if (id > static_cast<std::int64_t>(entries_.size())) return ToolOutput{false, "no hypothesis #" + std::to_string(id)};
    target = &entries_[static_cast<std::size_t>(id - 1)];
  } else {
    if (statement.empty()) return ToolOutput{false, "a new hypothesis needs a statement"};
    for (auto& h : entries_) {
      if (statement_similarity(h.statement, statement) < 0.6) continue;
      if (h.status == "refuted" && status != "refuted") {
        if (warned) *warned = true;
        return ToolOutput{false, "WARNING: this repeats hypothesis #" + std::to_string(h.id) + " (\"" + h.statement +
                                     "\"), which you refuted" + (h.evidence.empty() ? "" : ": " + h.evidence) +
                                     ". Do not retry it; look for another cause. (Pass id to revise #" +
                                     std::to_string(h.id) + " if new evidence changes the verdict.)"};
      }
      target = &h;  // the same idea again: update it
      break;
    }
  }
  if (!target) {
    entries_.push_back(Hypothesis{static_cast<std::int64_t>(entries_.size()) + 1, statement, evidence, status, tool_call});
    return ToolOutput{true, "recorded hypothesis #" + std::to_string(entries_.size()) + " (" + status + ")"};
  }
  if (!statement.empty()) target->statement = statement;
  if (!evidence.empty()) target->evidence = evidence;
  target->status = status;
  target->tool_call = tool_call;
  return ToolOutput{true, "updated hypothesis #" + std::to_string(target->id) + " (" + status + ")"};
}

std::string HypothesisLedger::render() const {
  if (entries_.empty()) return {};
  std::string out = "Hypothesis ledger (kept for the whole repair):";
  for (const auto& h : entries_) {
    out += "\n#" + std::to_string(h.id) + " [" + h.status + "] " + h.statement;
    if (!h.evidence.empty()) out += " (evidence: " + h.evidence + ")";
  }
  return out;
}

const Hypothesis* HypothesisLedger::confirmed() const {
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
    if (it->status == "confirmed") return &*it;
  return nullptr;
}

}  // namespace flowagent::detail
