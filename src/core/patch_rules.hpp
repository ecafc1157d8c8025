// What the pipeline and the validator say when a patch breaks the patch rules (check_patch in
// flowagent/patch.hpp): one message for all of its problems, so both say it the same way.
#pragma once

#include <string>
#include <vector>

#include "flowagent/patch.hpp"

namespace flowagent::detail {

/// The problems' messages joined with "; " (empty for none).
inline std::string join_patch_problems(const std::vector<PatchProblem>& problems) {
  std::string msg;
  for (const auto& pr : problems) msg += (msg.empty() ? "" : "; ") + pr.message;
  return msg;
}

}  // namespace flowagent::detail
