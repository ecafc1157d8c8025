// Internal: one repair, start to finish, on the calling thread.
#pragma once

#include <functional>
#include <map>
#include <mutex>

#include "flowagent/agent.hpp"
#include "flowagent/redact.hpp"

namespace flowagent::detail {

/// Learns phase durations from finished jobs to estimate the time left (thread-safe).
class EtaModel {
 public:
  void learn(const RepairResult& r);
  /// -1 when nothing has been learned yet.
  std::int64_t remaining_ms(const std::string& phase, std::int64_t phase_elapsed_ms,
                            const std::map<std::string, std::int64_t>& done_phases) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, double> avg_ms_;  // exponential moving average per phase
  int samples_ = 0;
};

class Pipeline {
 public:
  explicit Pipeline(const AgentOptions& options) : options_(options) {}
  EtaModel& eta() { return eta_; }
  /// Runs every stage; never throws (a stage that throws ends the job with status error).
  /// `superseded` tells whether a cancel came from a newer revision.
  RepairResult run(const RepairRequest& request, const CancelToken& cancel,
                   const std::function<bool()>& superseded) const;

 private:
  void write_trajectory(const RepairResult& result) const;
  /// Records in the evidence whether the job's commands ran in the sandbox.
  void note_isolation(const RepairRequest& request, RepairResult& result) const;
  RepairResult run_stages(const RepairRequest& request, const CancelToken& cancel, RepairResult& result,
                          const std::shared_ptr<Redactor>& redactor) const;
  const AgentOptions& options_;
  mutable EtaModel eta_;
};

RepairResult superseded_result(const RepairRequest& request, std::string message);

}  // namespace flowagent::detail
