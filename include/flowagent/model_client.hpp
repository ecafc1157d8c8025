// flowagent/model_client.hpp: model clients over HTTP(S): OpenAI Chat Completions (and the servers
// that speak it: Ollama, vLLM, llama.cpp, Gemini's compatible endpoint) and Anthropic Messages,
// with retries, token and cost budgets, key redaction, and record/replay.
//
// [Threading] clients, transports and budgets are thread-safe; complete() may run concurrently.
// [Errors] Errc::model (endpoint refused after retries; the message carries the endpoint's error),
// Errc::protocol (reply not usable), Errc::timeout, Errc::cancelled, Errc::budget_exceeded,
// Errc::invalid_argument (bad spec or URL), Errc::unsupported (unknown provider).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "flowagent/llm.hpp"
#include "flowagent/request.hpp"

namespace flowagent {

// ---- HTTP ---------------------------------------------------------------------------------------

struct HttpRequest {
  std::string method = "POST";
  std::string url;  ///< http:// or https://
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

struct HttpResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  ///< names lower-cased
  std::string body;
  /// First header with this (lower-case) name, or nullopt.
  std::optional<std::string> header(std::string_view name) const;
};

struct HttpOptions {
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds tls_timeout{10'000};
  std::chrono::milliseconds first_byte_timeout{120'000};  ///< request sent -> response headers
  std::chrono::milliseconds total_timeout{300'000};       ///< the whole call
  std::size_t max_response_bytes = 32u << 20;
  std::string extra_ca_file;   ///< PEM file trusted in addition to the system store
  bool use_system_ca = true;
  bool use_env_proxy = true;   ///< HTTPS_PROXY / HTTP_PROXY / NO_PROXY (also lower-case)
  std::size_t max_idle_per_host = 4;  ///< keep-alive connections kept per host
};

/// Sends one request. Implementations: the built-in Beast client, or a host's own (C API model
/// transport) to route calls through a proxy or auth layer.
/// [Errors] Errc::io (connection, TLS, reset), Errc::timeout, Errc::cancelled, Errc::protocol
/// (malformed HTTP, body over the cap). HTTP error statuses are responses, not Errors.
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  virtual Expected<HttpResponse> send(const HttpRequest& request, const CancelToken& cancel) = 0;
};

/// Boost.Beast + OpenSSL: certificate and host-name verification (SNI), CONNECT proxies, keep-alive
/// per host, separate connect/TLS/first-byte/total timeouts, chunked bodies, a size cap, and
/// cancellation from another thread. Owns one I/O thread.
Expected<std::shared_ptr<HttpTransport>> make_beast_transport(HttpOptions options = {});

// ---- retries, budgets, prices -------------------------------------------------------------------

struct RetryPolicy {
  int max_attempts = 3;  ///< first try + 2 retries
  std::chrono::milliseconds initial_backoff{500};
  std::chrono::milliseconds max_backoff{8'000};
  double jitter = 0.25;  ///< backoff is multiplied by a random factor in [1 - jitter, 1]
  std::chrono::milliseconds max_retry_after{60'000};  ///< server hints above this are ignored
};

/// Decides whether a response/attempt is retried and how long to wait first. Exposed for tests.
struct RetryDecision {
  bool retry = false;
  std::chrono::milliseconds wait{0};
  std::string reason;
};
RetryDecision decide_retry(const RetryPolicy& policy, int attempt, const Expected<HttpResponse>& outcome,
                           std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

struct Pricing {
  double input_per_mtok = 0;        ///< USD per million uncached input tokens
  double output_per_mtok = 0;
  double cached_input_per_mtok = 0;
};

/// Token and cost budget shared by the calls of one job. Thread-safe.
class Budget {
 public:
  Budget(std::int64_t max_tokens, double max_cost_usd) : max_tokens_(max_tokens), max_cost_(max_cost_usd) {}
  /// Errc::budget_exceeded once either limit is reached (0 = unlimited).
  Expected<void> check() const;
  void add(const Usage& usage, double cost_usd);
  std::int64_t tokens() const;
  double cost() const;

 private:
  mutable std::mutex mu_;
  std::int64_t max_tokens_;
  double max_cost_;
  std::int64_t tokens_ = 0;
  double cost_ = 0;
};

// ---- clients ------------------------------------------------------------------------------------

/// Returns the API key for a provider ("openai", "anthropic", ...); nullopt when none.
using KeyProvider = std::function<std::optional<std::string>(std::string_view provider)>;

struct ModelClientOptions {
  ModelConfig model;                      ///< spec, base_url, api_key_env, sampling
  HttpOptions http;
  RetryPolicy retry;
  std::map<std::string, Pricing> prices;  ///< by model name; unknown models cost 0
  KeyProvider key_provider;               ///< consulted before the environment variable
  std::shared_ptr<HttpTransport> transport;  ///< default: make_beast_transport(http)
  std::shared_ptr<Budget> budget;         ///< optional; checked before every call
  std::filesystem::path record_path;      ///< when set, every request/response pair is appended (JSONL)
};

/// What a spec resolves to.
struct ModelEndpoint {
  std::string provider;   ///< "openai", "anthropic", "ollama", "vllm", "llamacpp", "gemini", "openai-compatible"
  std::string protocol;   ///< "openai" or "anthropic"
  std::string model;
  std::string base_url;   ///< without trailing slash, e.g. https://api.openai.com/v1
  std::string key_env;    ///< environment variable consulted for the key ("" = no key needed)
};
Expected<ModelEndpoint> resolve_model_spec(const ModelConfig& config);

/// "scheme://host[:port]" of a URL, lower-cased, without a default port (https 443, http 80);
/// "" when `url` has no scheme.
std::string url_origin(std::string_view url);

/// Where a request may send the model key. A request's model section comes from whoever submits
/// the job (a CI system, a service client), not from the host that holds the keys, so a key from
/// the environment goes only to (a) its provider's own default origin under the provider's
/// conventional variable (OPENAI_API_KEY to https://api.openai.com, ...), or (b) an origin in
/// `trusted_origins` (the host's list). A configuration that sends no key (no variable, or the
/// variable unset) may name any endpoint. `replay:<path>` (a recording read from this machine) is
/// allowed only with `allow_replay`. Errors: Errc::invalid_argument naming the field and the fix.
Expected<void> check_model_destination(const ModelConfig& config, const std::vector<std::string>& trusted_origins,
                                       bool allow_replay);

/// A client for `options.model.spec`: openai:/anthropic:/ollama:/vllm:/llamacpp:/gemini:/
/// openai-compatible:<model>, or replay:<path>. Keys come only from the key provider or the
/// environment and are redacted from every error, log and recording.
Expected<std::shared_ptr<LlmClient>> make_llm_client(ModelClientOptions options);

/// Serves a JSONL recording (as written with record_path) in order. A request that differs from
/// the recorded one (roles, contents with digits normalised, tool calls) fails with Errc::model
/// naming the call and the first difference; so does a call past the end of the recording.
Expected<std::shared_ptr<LlmClient>> make_replay_client(const std::filesystem::path& recording);

/// Wire formats, exposed for tests and for hosts with their own transport.
Json openai_request_body(const ChatRequest& request);
Expected<ChatResponse> parse_openai_response(std::string_view body);
Json anthropic_request_body(const ChatRequest& request);
Expected<ChatResponse> parse_anthropic_response(std::string_view body);

}  // namespace flowagent
