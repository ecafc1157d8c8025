// flowagentd's library part: the HTTP service over Boost.Beast, its job store and embedded queue,
// bearer-token authentication and the Prometheus metrics. docs/SERVICE.md.
//
// [Threading] Service's public members are thread-safe. The service runs `http_threads` I/O
// threads (one coroutine per connection, on its own strand) and `workers` job threads.
// [Lifetime] stop() (or the destructor) stops accepting, drains running jobs up to
// `drain_timeout`, cancels what is left and joins every thread.
// [Errors] start() returns Errc::io for a port it cannot bind, Errc::invalid_argument for bad
// options (a token file that cannot be read, a repository root that does not exist, TLS files).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flowagent/agent.hpp"
#include "flowagent/error.hpp"

namespace flowagent::service {

// ---- authentication ---------------------------------------------------------------------------

enum Scope : unsigned { scope_submit = 1, scope_read = 2, scope_admin = 4 };

struct TokenEntry {
  std::string name;                 ///< who (appears in logs and metrics, never the token)
  std::array<unsigned char, 32> hash{};  ///< SHA-256 of the token
  unsigned scopes = 0;
  int max_active_jobs = 16;         ///< queued + running jobs this token may have
  int max_inflight = 64;            ///< concurrent HTTP requests (event streams included)
};

/// Bearer tokens. The file holds one token per line: `sha256:<64 hex> <name> <scopes>
/// [max_jobs=N] [max_inflight=N]` where scopes is a comma list of submit, read, admin (admin
/// implies the others); `#` starts a comment. Only hashes are stored; presented tokens are hashed
/// and compared with every entry in constant time (CRYPTO_memcmp).
class TokenStore {
 public:
  static Expected<TokenStore> load(const std::filesystem::path& file);
  static Expected<TokenStore> parse(std::string_view text);
  /// The entry of a presented token, or nullptr.
  const TokenEntry* verify(std::string_view token) const;
  std::size_t size() const { return entries_.size(); }

 private:
  std::vector<TokenEntry> entries_;
};

/// "sha256:<hex>" of a token (what `flowagentd hash-token` prints).
std::string token_hash_line(std::string_view token);

// ---- jobs ------------------------------------------------------------------------------------

/// Runs one repair; the default runs the library's pipeline. `superseded` tells whether a cancel
/// came from a newer revision; `emit` receives progress events.
using Runner = std::function<RepairResult(const RepairRequest&, const CancelToken&,
                                          const std::function<bool()>& superseded,
                                          const std::function<void(const Event&)>& emit)>;

/// A runner that does nothing (status no_fix, reason "noop") after one phase event: for load
/// tests and benchmarks of the queue and the HTTP layer, `flowagentd --runner noop`.
RepairResult noop_result(const RepairRequest& request);

/// The job id of a change revision: the first 20 hex digits of SHA-256(change id, revision).
/// Deterministic, so every front end names a job the same way (idempotency).
std::string job_id(std::string_view change_id, std::int64_t revision);

/// The library's pipeline as a Runner: Agent::create fills the policies `options` leaves null;
/// progress events go to `sink`.
Expected<Runner> pipeline_runner(AgentOptions options, std::function<void(const Event&)> sink);

/// `noop` (noop_result after one phase event), `sleep:MS` (waits MS or until cancelled, then
/// noop) or `result:MS:FILE` (ten tool_call progress events with an ETA over MS, then the recorded
/// flowagent.repair_result/v1 in FILE for the job's change): runners for load tests of the service
/// and for the review page's browser test. nullopt for another name or an unreadable FILE.
std::optional<Runner> test_runner(std::string_view name);

struct ServiceOptions {
  std::string listen_address = "127.0.0.1";
  unsigned short port = 8080;  ///< 0: any free port (see Service::port())
  std::filesystem::path repos_root;       ///< every path a request names must be under it (required)
  std::optional<TokenStore> tokens;       ///< required
  std::filesystem::path tls_cert, tls_key;  ///< both set: HTTPS only
  int http_threads = 2;
  int workers = 2;                        ///< jobs run concurrently
  std::size_t max_queued = 10'000;        ///< POST answers 503 beyond this
  std::size_t max_body_bytes = 1 << 20;   ///< 413 beyond
  std::size_t max_header_bytes = 16 << 10;  ///< 431 beyond
  std::chrono::milliseconds read_timeout{10'000};   ///< whole request (header, then body)
  std::chrono::milliseconds idle_timeout{30'000};   ///< between keep-alive requests
  std::chrono::milliseconds write_timeout{30'000};  ///< a response / one event write
  std::chrono::milliseconds heartbeat{15'000};      ///< SSE comment line when idle
  std::chrono::milliseconds drain_timeout{30'000};  ///< stop(): wait for running jobs
  std::size_t max_connections = 1024;
  std::size_t retain_jobs = 10'000;       ///< finished jobs kept (oldest dropped first)
  /// The model every job uses (the request's model.spec/base_url/api_key_env must be empty or
  /// equal: a request may not point the service's key at another host).
  ModelConfig model;
  AgentOptions agent;                     ///< the library's policies (event_sink is the service's)
  Runner runner;                          ///< null: the library's pipeline
  /// "redis://HOST:PORT/DB": jobs go to Redis Streams for `flowagentd worker` processes; this
  /// process runs no jobs itself. Empty: the embedded in-memory queue.
  std::string queue_url;
  bool log_requests = false;              ///< one line per request on stderr
};

class Service {
 public:
  static Expected<std::unique_ptr<Service>> start(ServiceOptions options);
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;
  unsigned short port() const;
  /// Stops accepting, lets running jobs finish up to drain_timeout, cancels the rest. Idempotent.
  void stop();
  /// The Prometheus text exposition (what GET /metrics serves).
  std::string metrics_text() const;
  struct Impl;

 private:
  explicit Service(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace flowagent::service
