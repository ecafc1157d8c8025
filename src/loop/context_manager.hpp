// Internal: the loop's context manager. Keeps every model call under a token budget by eliding
// older tool outputs; the rule is documented in docs/PROMPTS.md ("Bounded context").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "flowagent/llm.hpp"

namespace flowagent::detail {

struct ContextBudget {
  /// Per model call (messages only; tool schemas are extra). 0: the first two messages (system
  /// prompt, initial context with the ledger) plus working_tokens; both <= 0: no bound.
  std::int64_t max_tokens = 0;
  std::int64_t working_tokens = 4'000;
  int keep_recent = 2;               ///< newest tool outputs never elided (but cut in the middle when huge)
  double chars_per_token = 4.0;
};

/// What the last bounding cut (for the trajectory and tests).
struct ContextCut {
  int elided = 0;                 ///< tool outputs replaced by a placeholder or cut in the middle
  std::int64_t budget = 0;        ///< the bound applied (tokens; 0: none)
  std::int64_t tokens_before = 0;
  std::int64_t tokens_after = 0;
};

std::int64_t estimate_tokens(const std::vector<ChatMessage>& messages, double chars_per_token = 4.0);

/// The messages to send: `history` with tool outputs elided oldest first until the estimate fits.
/// Never elided: the system and first user message, assistant turns (they hold every edit as tool
/// arguments), edit/write/delete results, the newest `keep_recent` tool outputs, the newest
/// build/run_tests output, and errors. `pinned` (the hypothesis ledger) is appended to the first
/// user message, so it survives every cut. When anything is elided, the first user message says so.
std::vector<ChatMessage> bound_context(const std::vector<ChatMessage>& history, const ContextBudget& budget,
                                       const std::string& pinned, ContextCut* cut);

}  // namespace flowagent::detail
