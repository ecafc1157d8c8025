#include "flowagent/error.hpp"

namespace flowagent {

std::string_view errc_name(Errc code) noexcept {
  switch (code) {
    case Errc::ok: return "ok";
    case Errc::invalid_argument: return "invalid_argument";
    case Errc::invalid_json: return "invalid_json";
    case Errc::schema: return "schema";
    case Errc::io: return "io";
    case Errc::process: return "process";
    case Errc::timeout: return "timeout";
    case Errc::cancelled: return "cancelled";
    case Errc::budget_exceeded: return "budget_exceeded";
    case Errc::not_found: return "not_found";
    case Errc::sandbox: return "sandbox";
    case Errc::tool_failed: return "tool_failed";
    case Errc::model: return "model";
    case Errc::protocol: return "protocol";
    case Errc::unsupported: return "unsupported";
    case Errc::conflict: return "conflict";
    case Errc::internal: return "internal";
    case Errc::user: return "user";
    case Errc::sandbox_unavailable: return "sandbox_unavailable";
    case Errc::not_fixed: return "not_fixed";
  }
  return "unknown";
}

std::string Error::to_string() const { return std::string(errc_name(code)) + ": " + message; }

}  // namespace flowagent
