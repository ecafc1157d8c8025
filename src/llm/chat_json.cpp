// Provider-neutral JSON of chat requests and responses (record/replay, trajectories).
#include "core/json_reader.hpp"
#include "flowagent/llm.hpp"

namespace flowagent {

namespace {
constexpr std::string_view kRoles[] = {"system", "user", "assistant", "tool"};
constexpr std::string_view kStops[] = {"end_turn", "tool_use", "max_tokens", "content_filter", "other"};
}  // namespace

Json to_json(const ChatMessage& m) {
  Json j = Json::obj({{"role", to_string(m.role)}, {"content", m.content}});
  if (!m.tool_calls.empty()) {
    Json calls = Json::array();
    for (const auto& c : m.tool_calls) {
      Json cj = Json::obj({{"id", c.id}, {"name", c.name}, {"arguments", c.raw_arguments}});
      if (!c.error.empty()) cj["error"] = c.error;
      if (!c.extra.is_null()) cj["extra"] = c.extra;
      calls.push_back(std::move(cj));
    }
    j["tool_calls"] = std::move(calls);
  }
  if (m.role == Role::tool) {
    j["tool_call_id"] = m.tool_call_id;
    j["tool_name"] = m.tool_name;
    j["is_error"] = m.is_error;
  }
  return j;
}

Json to_json(const ChatRequest& r) {
  Json msgs = Json::array();
  for (const auto& m : r.messages) msgs.push_back(to_json(m));
  Json tools = Json::array();
  for (const auto& t : r.tools)
    tools.push_back(Json::obj({{"name", t.name}, {"description", t.description}, {"parameters", t.parameters}}));
  return Json::obj({{"model", r.model},
                    {"messages", msgs},
                    {"tools", tools},
                    {"temperature", r.temperature},
                    {"top_p", r.top_p},
                    {"max_output_tokens", r.max_output_tokens}});
}

Json to_json(const ChatResponse& r) {
  return Json::obj({{"message", to_json(r.message)},
                    {"stop", to_string(r.stop)},
                    {"raw_stop_reason", r.raw_stop_reason},
                    {"usage", Json::obj({{"input_tokens", r.usage.input_tokens},
                                         {"output_tokens", r.usage.output_tokens},
                                         {"cached_tokens", r.usage.cached_tokens}})},
                    {"cost_usd", r.cost_usd}});
}

Expected<ChatMessage> chat_message_from_json(const Json& doc) {
  ChatMessage m;
  detail::ObjectReader rd(doc, "message", false);
  int role = 1;
  rd.choice("role", {std::begin(kRoles), std::end(kRoles)}, role, true);
  m.role = static_cast<Role>(role);
  rd.string("content", m.content).string("tool_call_id", m.tool_call_id).string("tool_name", m.tool_name);
  rd.boolean("is_error", m.is_error);
  rd.objects("tool_calls", [&](detail::ObjectReader& c, std::size_t) {
    ToolCall call;
    c.string("id", call.id).string("name", call.name, true).string("arguments", call.raw_arguments);
    c.string("error", call.error).any("extra", call.extra);
    if (call.error.empty()) {
      auto args = parse_json(call.raw_arguments.empty() ? "{}" : call.raw_arguments);
      if (args) call.arguments = std::move(*args);
      else call.error = args.error().message;
    }
    m.tool_calls.push_back(std::move(call));
  });
  if (auto e = rd.finish(); !e.empty()) return fail(Errc::schema, e);
  return m;
}

Expected<ChatRequest> chat_request_from_json(const Json& doc) {
  ChatRequest r;
  detail::ObjectReader rd(doc, "request", false);
  rd.string("model", r.model).number("temperature", r.temperature).number("top_p", r.top_p);
  rd.integer("max_output_tokens", r.max_output_tokens);
  std::string err;
  if (const Json* msgs = doc.find("messages"); msgs && msgs->is_array()) {
    for (const auto& m : msgs->as_array()) {
      auto mm = chat_message_from_json(m);
      if (!mm) return unexpected(mm.error());
      r.messages.push_back(std::move(*mm));
    }
  }
  rd.objects("tools", [&](detail::ObjectReader& t, std::size_t) {
    ToolDefinition d;
    t.string("name", d.name, true).string("description", d.description).any("parameters", d.parameters);
    r.tools.push_back(std::move(d));
  });
  Json ignored;
  rd.any("messages", ignored);
  if (auto e = rd.finish(); !e.empty()) return fail(Errc::schema, e);
  return r;
}

Expected<ChatResponse> chat_response_from_json(const Json& doc) {
  ChatResponse r;
  detail::ObjectReader rd(doc, "response", false);
  int stop = 0;
  rd.choice("stop", {std::begin(kStops), std::end(kStops)}, stop);
  r.stop = static_cast<StopReason>(stop);
  rd.string("raw_stop_reason", r.raw_stop_reason).number("cost_usd", r.cost_usd);
  rd.object("usage", [&](detail::ObjectReader& u) {
    u.integer("input_tokens", r.usage.input_tokens)
        .integer("output_tokens", r.usage.output_tokens)
        .integer("cached_tokens", r.usage.cached_tokens);
  });
  Json msg;
  rd.any("message", msg);
  if (auto e = rd.finish(); !e.empty()) return fail(Errc::schema, e);
  if (!msg.is_object()) return fail(Errc::schema, "response.message: required field is missing");
  auto m = chat_message_from_json(msg);
  if (!m) return unexpected(m.error());
  r.message = std::move(*m);
  return r;
}

}  // namespace flowagent
