// flowagent/llm.hpp: the provider-neutral chat model interface.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "flowagent/cancel.hpp"
#include "flowagent/error.hpp"
#include "flowagent/json.hpp"

namespace flowagent {

enum class Role { system, user, assistant, tool };

struct ToolCall {
  std::string id;
  std::string name;
  Json arguments;             ///< parsed arguments (an object) when they parsed
  std::string raw_arguments;  ///< arguments as the model sent them
  std::string error;          ///< non-empty when the arguments could not be used (invalid JSON, ...)
  /// Provider fields of the call object that flowagent does not interpret, sent back verbatim
  /// (e.g. Gemini's extra_content.google.thought_signature, which must be echoed).
  Json extra;
};

struct ChatMessage {
  Role role = Role::user;
  std::string content;
  std::vector<ToolCall> tool_calls;  ///< assistant turns
  std::string tool_call_id;          ///< tool turns: which call this answers
  std::string tool_name;             ///< tool turns: the tool's name
  bool is_error = false;             ///< tool turns: the tool failed
};

struct ToolDefinition {
  std::string name;
  std::string description;
  Json parameters;
};

struct ChatRequest {
  std::string model;
  std::vector<ChatMessage> messages;
  std::vector<ToolDefinition> tools;
  double temperature = 0.1;
  double top_p = 0.95;
  std::int64_t max_output_tokens = 4096;
};

enum class StopReason { end_turn, tool_use, max_tokens, content_filter, other };

struct Usage {
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cached_tokens = 0;
};

/// One HTTP attempt of a model call (retries make several).
struct Attempt {
  int status = 0;            ///< HTTP status; 0 when the connection failed
  std::string error;         ///< transport error or the endpoint's error message
  std::int64_t waited_ms = 0;  ///< backoff slept before the next attempt
  std::int64_t ms = 0;         ///< duration of the attempt
};

struct ChatResponse {
  ChatMessage message;  ///< role assistant
  StopReason stop = StopReason::end_turn;
  std::string raw_stop_reason;
  Usage usage;
  double cost_usd = 0;            ///< from the configured prices; 0 when unknown
  std::vector<Attempt> attempts;  ///< every HTTP attempt, the last one successful
};

/// A chat model with tool calling.
/// [Threading] complete() may be called concurrently from several jobs.
/// [Errors] Errc::model (endpoint error after retries), Errc::protocol (unusable reply),
/// Errc::budget_exceeded, Errc::timeout, Errc::cancelled. Never throws.
/// [Lifetime] shared_ptr-held; must outlive every in-flight complete() call (the Agent ensures it).
class LlmClient {
 public:
  virtual ~LlmClient() = default;
  virtual std::string_view name() const = 0;
  virtual Expected<ChatResponse> complete(const ChatRequest& request, const CancelToken& cancel) = 0;
  /// The values this client authenticates with (API keys), so the pipeline can mask them in
  /// everything the model and the host see (flowagent/redact.hpp). Default: none.
  virtual std::vector<std::string> secrets() const { return {}; }
};

std::string_view to_string(Role role) noexcept;
std::string_view to_string(StopReason reason) noexcept;

/// Provider-neutral JSON forms (used by record/replay). Round-trip exactly.
Json to_json(const ChatMessage& message);
Json to_json(const ChatRequest& request);
Json to_json(const ChatResponse& response);
Expected<ChatMessage> chat_message_from_json(const Json& doc);
Expected<ChatRequest> chat_request_from_json(const Json& doc);
Expected<ChatResponse> chat_response_from_json(const Json& doc);

}  // namespace flowagent
