// Internal: the parts of the several-candidates stage (src/agent/candidates.cpp) that tests reach.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "flowagent/agent.hpp"
#include "flowagent/patch.hpp"

namespace flowagent::detail {

/// What makes two candidates "the same fix": per file (sorted by path) its status and paths, then
/// its added and removed lines in order with runs of blanks collapsed and ends trimmed; context
/// lines, hunk positions and blank lines do not count. Equal keys = equivalent edits.
std::string equivalence_key(const Patch& patch);

/// Added plus removed lines.
std::int64_t changed_lines(const Patch& patch);

struct RankInput {
  std::string key;         ///< equivalence (any string; equal = equivalent)
  std::int64_t size = 0;   ///< changed lines
  std::size_t index = 0;   ///< candidate order
};

/// Positions of `in`, best first: more candidates with an equivalent edit, then fewer changed
/// lines, then the earlier candidate.
std::vector<std::size_t> rank_candidates(const std::vector<RankInput>& in);

/// Candidate i's temperature under `policy` (CandidatePolicy in flowagent/agent.hpp).
double candidate_temperature(const CandidatePolicy& policy, double requested, std::size_t i);

}  // namespace flowagent::detail
