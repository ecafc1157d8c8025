// Internal: one repair, start to finish, on the calling thread.
#pragma once

#include <functional>

#include "flowagent/agent.hpp"

namespace flowagent::detail {

class Pipeline {
 public:
  explicit Pipeline(const AgentOptions& options) : options_(options) {}
  /// Runs every stage; never throws (a stage that throws ends the job with status error).
  /// `superseded` tells whether a cancel came from a newer revision.
  RepairResult run(const RepairRequest& request, const CancelToken& cancel,
                   const std::function<bool()>& superseded) const;

 private:
  RepairResult run_stages(const RepairRequest& request, const CancelToken& cancel,
                          const std::function<bool()>& superseded, RepairResult& result) const;
  const AgentOptions& options_;
};

RepairResult superseded_result(const RepairRequest& request, std::string message);

}  // namespace flowagent::detail
