// Internal: the loop's refinement round. When the model says it is done, the overfitting detector
// looks at the patch; findings go back to the model for a bounded number of rounds.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "flowagent/strategy.hpp"

namespace flowagent::detail {

/// The message for the model when `patch` overfits and fewer than `max_rounds` rounds were used
/// (then `rounds` is incremented), else nullopt. Every check is a trajectory note ("overfitting").
Expected<std::optional<std::string>> overfitting_feedback(RepairContext& ctx, std::string_view patch, int& rounds,
                                                          int max_rounds);

}  // namespace flowagent::detail
