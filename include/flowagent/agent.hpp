// flowagent/agent.hpp: the Agent composes the policies and runs repairs as jobs.
//
// Pipeline of one job (docs/ARCHITECTURE.md): pre-filters -> workspace -> strategies (each
// candidate validated) -> post-filters -> summarizer -> result. Every stage reports Events.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flowagent/error.hpp"
#include "flowagent/filters.hpp"
#include "flowagent/host.hpp"
#include "flowagent/llm.hpp"
#include "flowagent/request.hpp"
#include "flowagent/result.hpp"
#include "flowagent/sandbox.hpp"
#include "flowagent/strategy.hpp"
#include "flowagent/tools.hpp"
#include "flowagent/workspace.hpp"

namespace flowagent {

/// Creates the model client for a request's ModelConfig (used when AgentOptions::llm is null).
/// Returning nullptr means "no model": model strategies step aside.
using LlmFactory = std::function<Expected<std::shared_ptr<LlmClient>>(const ModelConfig&)>;

/// How a job with several candidates (RepairRequest::candidates) varies and bounds them.
/// Candidate i (0-based) samples at temperatures[i % size] and runs the strategy chain
/// strategies[i % size]; the defaults are the request's temperature for the first candidate and
/// +0.3 for each further one (at most 1.0), and AgentOptions::strategies for every candidate.
struct CandidatePolicy {
  int max_count = 8;        ///< a request asking for more runs this many (a trajectory note says so)
  int max_concurrency = 4;  ///< candidates of one job running at once, whatever the request asks
  std::vector<double> temperatures;
  std::vector<std::vector<std::shared_ptr<RepairStrategy>>> strategies;
};

/// The policies and knobs of an Agent. Any null policy is replaced by the built-in default at
/// Agent::create (see default_agent_options()); set a field to swap one policy only.
struct AgentOptions {
  /// The host's own pre-filters: they run after the built-in ones (build_failure, automated_author,
  /// binary_files, change_too_large, and newer_revision / known_flaky / baseline_failing when the
  /// fields below ask for them). A host filter with a built-in's name() replaces that built-in.
  std::vector<std::shared_ptr<PreFilter>> pre_filters;
  std::shared_ptr<WorkspaceProvider> workspaces;
  std::shared_ptr<ToolRegistry> tools;
  std::shared_ptr<LlmClient> llm;  ///< fixed client for every job; else llm_factory per request
  LlmFactory llm_factory;
  std::vector<std::shared_ptr<RepairStrategy>> strategies;
  std::shared_ptr<Validator> validator;
  std::vector<std::shared_ptr<PostFilter>> post_filters;
  std::shared_ptr<Summarizer> summarizer;
  std::shared_ptr<ChangeTracker> change_tracker;  ///< optional
  std::shared_ptr<EventSink> event_sink;          ///< optional
  int worker_threads = 2;                         ///< jobs run concurrently up to this many
  bool use_default_pre_filters = true;            ///< false: only pre_filters run (the explicit opt-out)
  bool use_default_post_filters = true;           ///< when post_filters is empty
  // Inputs of the default pre-filters that need the host or the repository:
  std::vector<std::string> known_flaky_tests;     ///< "known_flaky" abstains when every failing test is listed...
  std::function<bool(const std::string&)> is_flaky;  ///< ...or the host says so
  std::function<Expected<std::vector<std::string>>(const RepairRequest&, const std::vector<std::string>&)>
      baseline_oracle;                            ///< which tests already fail at the base (host)
  bool run_baseline = false;                      ///< else run the tests at the base commit (cached per commit)
  std::filesystem::path trajectory_dir;           ///< when set, each job writes <change>-<rev>-<job>.jsonl here
  /// How every untrusted command (build, tests, validator runs, baseline run, zero-token probes)
  /// is confined; docs/SECURITY.md. A job whose request has commands ends with status error,
  /// reason "sandbox_unavailable" when the sandbox cannot be set up, unless
  /// sandbox.allow_unsandboxed_commands is set (the result's evidence then says "not isolated").
  SandboxOptions sandbox;
  /// Extra secret values the host knows of (tokens of its review system, ...). Each job masks
  /// them, the model client's key (LlmClient::secrets()), the value of the request's
  /// model.api_key_env and credential-looking environment variables (environment_secrets()) and
  /// common key shapes in every model request, event, trajectory and result (flowagent/redact.hpp).
  std::vector<std::string> secrets;
  /// Origins ("https://llm.example.com:8443") to which a request's model section may send the key
  /// from the environment besides its provider's own endpoint (check_model_destination(),
  /// docs/SECURITY.md "Model endpoints"). Checked when the client comes from llm_factory.
  std::vector<std::string> trusted_model_origins;
  /// Whether a request may name "replay:<path>" (a recording read from this machine).
  bool allow_replay_models = false;
  /// Several candidates per job: variation and host-side caps (the request says how many).
  CandidatePolicy candidates;
};

/// The funnel of the paper's Table 2: what happened to the requests an Agent received.
struct Funnel {
  std::int64_t received = 0;
  std::map<std::string, std::int64_t> abstained;  ///< by reason
  std::int64_t attempted = 0;                     ///< passed the pre-filters
  std::int64_t patch_produced = 0;                ///< a validated candidate reached the post-filters
  std::map<std::string, std::int64_t> rejected;   ///< by reason (rejected and superseded after a patch)
  std::int64_t delivered = 0;                     ///< status fixed
  std::int64_t no_fix = 0;
  std::int64_t errors = 0;
  std::int64_t superseded = 0;
};
Json to_json(const Funnel& funnel);

class Agent;

/// A handle to one submitted repair. Copyable; all copies refer to the same job.
/// [Threading] every member is safe from any thread. [Lifetime] a Job may outlive its Agent; the
/// Agent's destructor cancels and finishes every job first.
class Job {
 public:
  struct State;
  Job() = default;
  explicit Job(std::shared_ptr<State> state) : state_(std::move(state)) {}

  std::uint64_t id() const;
  const std::string& change_id() const;
  std::int64_t revision() const;
  bool done() const;
  /// Waits until done or the timeout passes; true when done.
  bool wait_for(std::chrono::milliseconds timeout) const;
  void wait() const;
  /// Requests cancellation; the job ends soon after with status error, reason "cancelled"
  /// (or superseded, when a newer revision cancelled it). Idempotent.
  void cancel() const;
  /// The result once done(); nullopt before.
  std::optional<RepairResult> result() const;
  bool valid() const { return state_ != nullptr; }

 private:
  std::shared_ptr<State> state_;
};

/// [Threading] submit(), run() and cancel_all() are thread-safe.
class Agent {
 public:
  /// Fills defaults for null policies and starts the worker threads.
  /// Errc::invalid_argument for worker_threads < 1.
  static Expected<std::unique_ptr<Agent>> create(AgentOptions options);
  ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  /// Queues a repair. A job for the same change id with an older revision is cancelled and ends
  /// superseded; submitting an older revision than one already seen ends at once as superseded.
  Expected<Job> submit(RepairRequest request);
  /// Runs a repair while the calling thread waits, and returns its result. The stages run on a
  /// thread of the pipeline's own with a deep stack (the guard and the validation match patterns
  /// over the developer's files; a host thread's stack may be small), so policies, tools and the
  /// event sink are called there and on candidate threads, never concurrently with this call's
  /// return.
  RepairResult run(const RepairRequest& request, const CancelToken& cancel = CancelToken());
  void cancel_all();
  const AgentOptions& options() const;
  /// Counters over every job this Agent finished (submit and run).
  Funnel funnel() const;

  struct Impl;

 private:
  explicit Agent(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Job::id() of the job the calling thread is running for an Agent (inside policies, events and
/// host callbacks); 0 on any other thread and inside Agent::run.
std::uint64_t current_job_id() noexcept;

/// The built-in pre- and post-filters, workspace provider, tools, strategies, validator and
/// summarizer. Hosts start from this and replace what they need.
AgentOptions default_agent_options();

}  // namespace flowagent
