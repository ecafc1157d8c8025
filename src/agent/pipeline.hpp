// Internal: one repair, start to finish, on the calling thread.
#pragma once

#include <chrono>
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

using Emit = std::function<void(const Event&)>;

/// Times one phase into metrics.phase_ms and the trajectory.
class PhaseTimer {
 public:
  PhaseTimer(RepairResult& r, std::string name);
  ~PhaseTimer();
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  RepairResult& r_;
  std::string name_;
  std::chrono::steady_clock::time_point t0_;
};

void set(RepairResult& r, Status s, std::string reason, std::string message);
/// An empty result naming the request's change.
RepairResult base_result(const RepairRequest& request);

/// A candidate that passed validation and every post-filter (not yet summarized).
struct Accepted {
  Candidate candidate;
  Patch patch;
  std::string strategy;  ///< the strategy that produced it
};

/// What one attempt (the strategy chain in one workspace, then validation and post-filters) works with.
struct AttemptEnv {
  const RepairRequest& request;
  const CancelToken& cancel;
  RepairResult& result;  ///< trajectory, metrics, evidence; status/reason/message when it ends without a fix
  Emit emit;             ///< thread-safe, never null
  LlmClient* llm;        ///< may be null
  const std::vector<std::shared_ptr<RepairStrategy>>& strategies;
  std::function<bool()> take_tool_call;  ///< shared tool-call budget of several candidates; may be empty
};

/// Makes `id` what current_job_id() answers on the calling thread (a thread the pipeline starts
/// for a job: its deep stack, a candidate's worker).
void set_current_job_id(std::uint64_t id) noexcept;
/// Which job and which pipeline run the calling thread works for. The run id is set for each
/// Pipeline::run (Agent::run's jobs have job id 0 but a run id of their own): what is kept for
/// the length of one repair (the validator's memo of its checks) is kept by it.
struct RunIds {
  std::uint64_t job = 0;
  std::uint64_t run = 0;  ///< 0: not inside a pipeline run
};
std::uint64_t current_run_id() noexcept;
/// A run id no earlier run had (process-wide).
std::uint64_t new_run_id() noexcept;
RunIds current_run_ids() noexcept;
void set_current_run_ids(RunIds ids) noexcept;
/// Runs `fn` on a deep-stack thread (core/deep_stack.hpp) as the calling thread's job and run
/// (`run`, when not 0, instead of the caller's): there, current_job_id() and current_run_id()
/// answer so. Exceptions of `fn` reach the caller.
void run_as_job_on_deep_stack(const std::function<void()>& fn, std::uint64_t run = 0);

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
  /// Strategies, validation and post-filters in `ws`. True: `out` holds a deliverable candidate
  /// (result.evidence is its evidence). False: env.result's status says why (unchanged on cancel).
  bool run_attempt(const AttemptEnv& env, Workspace& ws, Accepted& out) const;
  /// The summary stage for an accepted candidate; marks `result` fixed.
  void finish_fixed(const AttemptEnv& env, Workspace& ws, Accepted& accepted) const;
  /// Several candidates (src/agent/candidates.cpp): runs them, ranks the accepted ones, delivers one.
  void run_candidates(const RepairRequest& request, const CancelToken& cancel, RepairResult& result, const Emit& emit,
                      const std::shared_ptr<LlmClient>& llm) const;
  const AgentOptions& options_;
  mutable EtaModel eta_;
};

RepairResult superseded_result(const RepairRequest& request, std::string message);

}  // namespace flowagent::detail
