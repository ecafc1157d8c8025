// Internal: the loop's hypothesis ledger and its record_hypothesis tool. The ledger lives in the
// loop (one per job), is pinned into every model call by the context manager, and is copied into
// RepairResult::hypotheses.
#pragma once

#include <string>
#include <vector>

#include "flowagent/json.hpp"
#include "flowagent/llm.hpp"
#include "flowagent/result.hpp"
#include "flowagent/tools.hpp"

namespace flowagent::detail {

inline constexpr const char* kRecordHypothesis = "record_hypothesis";

class HypothesisLedger {
 public:
  static ToolDefinition definition();

  /// Handles one record_hypothesis call made as tool call number `tool_call`. A statement like a
  /// refuted one (same words, Jaccard >= 0.6) is not recorded: the reply is a warning naming the
  /// refuted entry and its evidence. `warned` is set then.
  ToolOutput record(const Json& arguments, std::int64_t tool_call, bool* warned = nullptr);

  /// The ledger as text for the model ("" when empty).
  std::string render() const;
  const std::vector<Hypothesis>& entries() const { return entries_; }
  /// The newest confirmed hypothesis, or nullptr.
  const Hypothesis* confirmed() const;

 private:
  std::vector<Hypothesis> entries_;
};

/// Word-set similarity (lower case, words of 3+ letters) in [0, 1].
double statement_similarity(const std::string& a, const std::string& b);

}  // namespace flowagent::detail
