// Internal: the job store (idempotency, supersede, cancel, events), the embedded queue and the
// Prometheus metrics of flowagentd.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "flowagent/agent.hpp"
#include "service/service.hpp"

namespace flowagent::service {

using Clock = std::chrono::steady_clock;

/// Fixed-bucket histogram in seconds.
struct Histogram {
  std::vector<double> bounds;
  std::vector<std::uint64_t> counts;  // per bound, not cumulative; last = +Inf
  double sum = 0;
  std::uint64_t n = 0;
  explicit Histogram(std::vector<double> b) : bounds(std::move(b)), counts(bounds.size() + 1, 0) {}
  void observe(double v);
  void render(std::string& out, const std::string& name, const std::string& help) const;
};

/// What finished jobs add up to: the funnel of the paper's Table 2, usage and latency. The
/// embedded queue keeps one in memory; in Redis mode workers add each job's counters to a Redis
/// hash once, when its result is first stored (fields()), and front ends read it back at scrape time
/// (add_fields()). [Threading] a plain value.
struct JobCounters {
  std::int64_t received = 0, attempted = 0, patch_produced = 0, validated = 0, delivered = 0, no_fix = 0, superseded = 0;
  std::map<std::string, std::int64_t> abstained, rejected, errors;
  std::int64_t input_tokens = 0, output_tokens = 0, cached_tokens = 0, tool_calls = 0, model_calls = 0;
  std::int64_t cost_micro_usd = 0;
  Histogram start_latency, run_seconds, total_seconds;
  JobCounters();
  /// A worker started a job `queue_s` after it was enqueued.
  void started(double queue_s);
  /// A job ended; `run_s` < 0 when it never ran (superseded or cancelled while queued).
  void finished(const RepairResult& r, double queue_s, double run_s);
  /// Integer fields for HINCRBY ("attempted", "filtered:<reason>", "h:start:<bucket>", ...); zeros left out.
  std::vector<std::pair<std::string, std::int64_t>> fields() const;
  /// Adds fields as fields() names them (unknown names are ignored).
  void add_fields(const std::map<std::string, std::string>& f);
  void render(std::string& out) const;
};

/// The service's counters. [Threading] thread-safe.
class Metrics {
 public:
  void received();
  void finished(const RepairResult& r, double queue_s, double run_s);
  void started(double queue_s);
  void http(int status);
  /// The exposition with this process's job counters, or `shared` (Redis mode: every worker's),
  /// or none (`with_jobs` false: Redis could not be read; counters are left out, not reset to 0).
  std::string render(std::size_t queued, std::size_t running, std::size_t connections,
                     const JobCounters* shared = nullptr, bool with_jobs = true) const;

 private:
  mutable std::mutex mu_;
  JobCounters jobs_;
  std::map<int, std::int64_t> http_;
};

struct Watcher {
  std::function<void()> notify;
};

struct JobRec {
  enum class State { queued, running, done };
  std::string id;
  RepairRequest request;
  std::string owner;  ///< token name
  State state = State::queued;
  CancelToken cancel;
  std::atomic<bool> superseded{false};
  bool counted = false;  ///< counts toward its owner's active jobs
  std::vector<std::string> events;  ///< SSE frames without the id line: "event: K\ndata: J\n"
  std::optional<RepairResult> result;
  Json last_progress;  ///< the last progress event (for listings)
  Clock::time_point submitted = Clock::now(), started, finished;
  std::int64_t submitted_unix_ms = 0;
  std::vector<std::weak_ptr<Watcher>> watchers;
};

std::string_view to_string(JobRec::State s);

/// Jobs by id, the embedded FIFO, per-owner counts. [Threading] thread-safe; one mutex.
class JobStore {
 public:
  JobStore(Metrics& metrics, std::size_t retain) : metrics_(metrics), retain_(retain) {}

  struct Submitted {
    std::shared_ptr<JobRec> job;
    bool existing = false;
  };
  enum class Refusal { none, queue_full, owner_limit, draining };
  /// Idempotent per change id + revision; a newer revision supersedes older live jobs; an older
  /// revision than one already seen ends at once as superseded.
  Submitted submit(RepairRequest request, const std::string& owner, int owner_limit, std::size_t max_queued,
                   Refusal& refusal);
  std::shared_ptr<JobRec> get(const std::string& id) const;
  std::vector<std::shared_ptr<JobRec>> list(std::size_t limit) const;
  /// Calls `f(const JobRec&)` under the store's lock and returns what it returns: a job's state,
  /// result, progress and events change while a worker runs it, so they are read only this way
  /// (or through the copies below). `f` must not call back into the store.
  template <class F>
  auto read(const std::shared_ptr<JobRec>& job, F&& f) const {
    std::lock_guard lock(mu_);
    return std::forward<F>(f)(static_cast<const JobRec&>(*job));
  }
  /// A copy of the result of a finished job (read under the store's lock); nullopt otherwise.
  std::optional<RepairResult> finished_result(const std::string& id) const;
  /// Cancels a queued or running job; false when unknown or already done.
  bool cancel(const std::string& id);
  /// The next queued job (marked running), or nullptr once stopped and empty.
  std::shared_ptr<JobRec> next();
  void finish(const std::shared_ptr<JobRec>& job, RepairResult result);
  void append_event(const std::string& id, const Event& e);
  void append(const std::shared_ptr<JobRec>& job, std::string_view kind, const Json& data);
  /// Copies the frames after `after` (1-based ids) and whether the job is done.
  bool frames_since(const std::shared_ptr<JobRec>& job, std::size_t after, std::vector<std::string>& out) const;
  void watch(const std::shared_ptr<JobRec>& job, const std::shared_ptr<Watcher>& w);
  /// Stops handing out jobs; queued ones end as error "service_shutdown".
  void stop_queue();
  void cancel_running();
  std::size_t queued() const;
  std::size_t running() const;

 private:
  void finish_locked(const std::shared_ptr<JobRec>& job, RepairResult result, std::vector<std::function<void()>>& notes);
  void append_locked(JobRec& job, std::string_view kind, const Json& data, std::vector<std::function<void()>>& notes);
  void retain_locked();

  Metrics& metrics_;
  std::size_t retain_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::shared_ptr<JobRec>> jobs_;
  std::deque<std::shared_ptr<JobRec>> queue_;
  std::deque<std::string> finished_order_;
  std::map<std::string, std::int64_t> newest_;  // change id -> newest revision seen
  std::map<std::string, std::vector<std::weak_ptr<JobRec>>> live_;  // change id -> live jobs
  std::map<std::string, int> active_;  // owner -> queued + running
  std::size_t running_ = 0;
  bool stopped_ = false;
};

}  // namespace flowagent::service
