#include "flowagent/llm.hpp"

namespace flowagent {

std::string_view to_string(Role role) noexcept {
  switch (role) {
    case Role::system: return "system";
    case Role::user: return "user";
    case Role::assistant: return "assistant";
    case Role::tool: return "tool";
  }
  return "user";
}

std::string_view to_string(StopReason reason) noexcept {
  switch (reason) {
    case StopReason::end_turn: return "end_turn";
    case StopReason::tool_use: return "tool_use";
    case StopReason::max_tokens: return "max_tokens";
    case StopReason::content_filter: return "content_filter";
    case StopReason::other: return "other";
  }
  return "other";
}

}  // namespace flowagent
