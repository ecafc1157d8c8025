// Internal: jobs over Redis Streams (hiredis). Front ends XADD jobs; workers read them through one
// consumer group, reclaim entries idle past the visibility timeout (XAUTOCLAIM), store the result
// once (a Lua guard keyed by the job id = change id + revision) with a TTL, keep a capped event
// stream per job, XACK, and move a job to a dead-letter stream after N attempts. docs/SERVICE.md.
// [Threading] one connection per object, guarded by a mutex: members are thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "flowagent/json.hpp"
#include "service/service.hpp"

struct redisContext;

namespace flowagent::service {

struct RedisOptions {
  std::string host = "127.0.0.1";
  int port = 6379;
  int db = 0;
  std::string prefix = "fa:";
  std::chrono::milliseconds visibility{30'000};  ///< an entry idle this long is claimed by another worker
  int max_attempts = 3;                          ///< claims beyond this go to the dead-letter stream
  std::chrono::seconds result_ttl{7 * 24 * 3600};
  int events_cap = 1000;                         ///< per job (MAXLEN ~)
};

/// redis://HOST:PORT/DB -> options (other fields default).
Expected<RedisOptions> parse_redis_url(std::string_view url);

class RedisQueue {
 public:
  static Expected<std::unique_ptr<RedisQueue>> connect(const RedisOptions& options);
  ~RedisQueue();

  struct Submitted {
    std::string id;
    bool existing = false;
    bool refused = false;  ///< the owner already has `owner_limit` queued + running jobs (nothing stored)
  };
  /// Idempotent per change id + revision; a newer revision marks older live jobs superseded. An
  /// owner may have at most `owner_limit` jobs queued or running (counted in Redis, so the limit
  /// holds across front ends).
  Expected<Submitted> submit(const RepairRequest& request, const std::string& owner, int owner_limit = 1 << 30);
  /// The funnel and latency counters every worker added (JobCounters::fields names).
  Expected<std::map<std::string, std::string>> counters();
  struct Backlog {
    long long queued = 0;   ///< entries no worker has read yet (the group's lag)
    long long running = 0;  ///< entries read and not yet acknowledged
  };
  Expected<Backlog> backlog();
  /// Queued + running jobs of an owner.
  Expected<long long> active_jobs(const std::string& owner);
  /// {id, state, change_id, revision, result|null}; nullopt when unknown (or expired).
  Expected<std::optional<Json>> job(const std::string& id);
  Expected<std::optional<RepairResult>> result(const std::string& id);
  /// Marks a live job cancelled (the worker running it stops); false when unknown or done.
  Expected<bool> cancel(const std::string& id);
  struct Frame {
    std::string id, kind, data;
  };
  /// Event frames after stream id `after` ("0" for all).
  Expected<std::vector<Frame>> events_after(const std::string& id, const std::string& after);
  Expected<std::vector<std::string>> recent(std::size_t limit);

  /// One step of a worker: claims an idle entry or reads a new one (blocking up to `block`),
  /// runs it and acknowledges it. Returns false when there was nothing to do.
  Expected<bool> work_once(const std::string& consumer, const Runner& runner, std::chrono::milliseconds block);

  /// Appends a progress event to a job's capped stream (workers' pipeline event sink).
  void publish_event(const std::string& id, const Event& e);

  /// Test and operations helpers.
  Expected<long long> counter(const std::string& name);
  Expected<long long> stream_length(const std::string& name);

 private:
  explicit RedisQueue(RedisOptions o) : opt_(std::move(o)) {}
  /// Stores the result once; the job's counters go to the metrics hash with it. run_s < 0: never ran.
  Expected<void> finish(const std::string& id, const RepairResult& r, double queue_s, double run_s);
  Expected<void> emit(const std::string& id, std::string_view kind, const std::string& data);
  Expected<bool> process(const std::string& consumer, const std::string& entry, const std::string& id, const Runner& runner);
  RedisOptions opt_;
  std::mutex mu_;
  redisContext* ctx_ = nullptr;
  std::chrono::steady_clock::time_point last_claim_{};
  struct Reply;
  Expected<std::shared_ptr<Reply>> command(const std::vector<std::string>& args);
};

}  // namespace flowagent::service
