// Internal: the loop's refinement round. When the model says it is done, the overfitting detector
// looks at the patch; findings go back to the model for a bounded number of rounds.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "flowagent/review.hpp"
#include "flowagent/strategy.hpp"

namespace flowagent::detail {

/// The message for the model when `patch` overfits and fewer than `max_rounds` rounds were used
/// (then `rounds` is incremented), else nullopt. Every check is a trajectory note ("overfitting").
Expected<std::optional<std::string>> overfitting_feedback(RepairContext& ctx, std::string_view patch, int& rounds,
                                                          int max_rounds);

/// The rubric review of the candidate in `patch` (`reviewer` null: nothing happens). Flagged with
/// rounds left: the message for the model (`rounds` incremented). Flagged after the rounds, or
/// unavailable: nullopt, and `candidate` gets the rejection ("overfitting_review",
/// "review_unavailable"). Every review is a trajectory note ("review"); its tokens go to the metrics.
Expected<std::optional<std::string>> review_feedback(RepairContext& ctx, PatchReviewer* reviewer, std::string_view patch,
                                                     int& rounds, int max_rounds, Candidate& candidate);

}  // namespace flowagent::detail
