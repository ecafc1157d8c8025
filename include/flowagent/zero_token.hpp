// flowagent/zero_token.hpp: the zero-token repair tier (src/strategies/), which runs before the
// model. docs/INTEGRITY.md ("Zero-token tier").
// [Threading] the strategy is stateless; one instance may serve concurrent jobs.
// [Errors] none: a failure it cannot handle makes it step aside (no candidate).
#pragma once

#include <memory>

#include "flowagent/strategy.hpp"

namespace flowagent {

/// Zero-token tier: when a failure shows expected and actual values and points at an expectation
/// literal in a test, rewrite that literal to the actual value (the language's own quoting), then
/// let validation decide. Steps aside when the literal is not found exactly once. Never edits
/// production code (is_test_path in integrity.hpp decides); never changes the kind of assertion.
std::shared_ptr<RepairStrategy> make_expectation_update_strategy();

}  // namespace flowagent
