// Wire formats: OpenAI Chat Completions and Anthropic Messages, mapped to ChatRequest/ChatResponse.
#include "flowagent/model_client.hpp"

namespace flowagent {

namespace {

/// Parses a tool call's JSON arguments; a failure is recorded on the call (the loop shows it to
/// the model) rather than failing the whole response.
void parse_arguments(ToolCall& call, bool cut_off) {
  if (call.raw_arguments.empty()) {
    call.arguments = Json::object();
    return;
  }
  auto args = parse_json(call.raw_arguments);
  if (!args) {
    call.error = cut_off ? "the arguments were cut off (the reply hit max_tokens)"
                         : "the arguments are not valid JSON: " + args.error().message;
    return;
  }
  if (!args->is_object()) {
    call.error = "the arguments must be a JSON object";
    return;
  }
  call.arguments = std::move(*args);
}

const Json* member(const Json& j, std::string_view k) { return j.is_object() ? j.find(k) : nullptr; }

}  // namespace

// ---- OpenAI Chat Completions --------------------------------------------------------------------

Json openai_request_body(const ChatRequest& r) {
  Json msgs = Json::array();
  for (const auto& m : r.messages) {
    Json j = Json::obj({{"role", to_string(m.role)}});
    if (m.role == Role::tool) {
      j["tool_call_id"] = m.tool_call_id;
      j["content"] = m.content;
    } else if (m.role == Role::assistant && !m.tool_calls.empty()) {
      j["content"] = m.content.empty() ? Json(nullptr) : Json(m.content);
      Json calls = Json::array();
      for (const auto& c : m.tool_calls) {
        Json cj = Json::obj({{"id", c.id},
                             {"type", "function"},
                             {"function", Json::obj({{"name", c.name}, {"arguments", c.raw_arguments}})}});
        if (c.extra.is_object())
          for (const auto& [k, v] : c.extra.as_object()) cj[k] = v;
        calls.push_back(std::move(cj));
      }
      j["tool_calls"] = std::move(calls);
    } else {
      j["content"] = m.content;
    }
    msgs.push_back(std::move(j));
  }
  Json body = Json::obj({{"model", r.model},
                         {"messages", msgs},
                         {"temperature", r.temperature},
                         {"top_p", r.top_p},
                         {"max_tokens", r.max_output_tokens}});
  if (!r.tools.empty()) {
    Json tools = Json::array();
    for (const auto& t : r.tools)
      tools.push_back(Json::obj(
          {{"type", "function"},
           {"function", Json::obj({{"name", t.name}, {"description", t.description}, {"parameters", t.parameters}})}}));
    body["tools"] = std::move(tools);
    body["tool_choice"] = "auto";
  }
  return body;
}

Expected<ChatResponse> parse_openai_response(std::string_view text) {
  auto doc = parse_json(text);
  if (!doc) return fail(Errc::protocol, "model reply is not JSON: " + doc.error().message);
  if (const Json* err = member(*doc, "error"))
    return fail(Errc::model, "endpoint error: " + (err->is_object() ? err->get_string("message") : dump_json_lossy(*err)));
  const Json* choices = member(*doc, "choices");
  if (!choices || !choices->is_array() || choices->as_array().empty())
    return fail(Errc::protocol, "model reply has no choices");
  const Json& choice = choices->as_array()[0];
  const Json* msg = member(choice, "message");
  if (!msg || !msg->is_object()) return fail(Errc::protocol, "model reply has no message");
  ChatResponse r;
  r.message.role = Role::assistant;
  if (const Json* c = msg->find("content"); c && c->is_string()) r.message.content = c->as_string();
  r.raw_stop_reason = choice.get_string("finish_reason");
  const bool cut = r.raw_stop_reason == "length";
  if (const Json* calls = msg->find("tool_calls"); calls && calls->is_array()) {
    for (const auto& c : calls->as_array()) {
      ToolCall call;
      call.id = c.get_string("id");
      if (c.is_object())
        for (const auto& [k, v] : c.as_object())
          if (k != "id" && k != "type" && k != "function" && k != "index") call.extra[k] = v;
      const Json* f = member(c, "function");
      if (!f) {
        call.error = "tool call without a function";
      } else {
        call.name = f->get_string("name");
        const Json* a = f->find("arguments");
        if (a && a->is_string()) call.raw_arguments = a->as_string();
        else if (a && a->is_object()) call.raw_arguments = dump_json_lossy(*a);  // Ollama's native shape
        if (call.name.empty()) call.error = "tool call without a name";
        else parse_arguments(call, cut);
      }
      if (call.id.empty()) call.id = "call_" + std::to_string(r.message.tool_calls.size());
      r.message.tool_calls.push_back(std::move(call));
    }
  }
  if (r.raw_stop_reason == "tool_calls" || r.raw_stop_reason == "function_call" || !r.message.tool_calls.empty())
    r.stop = StopReason::tool_use;
  if (cut) r.stop = StopReason::max_tokens;
  else if (r.raw_stop_reason == "content_filter") r.stop = StopReason::content_filter;
  else if (r.raw_stop_reason == "stop" && r.message.tool_calls.empty()) r.stop = StopReason::end_turn;
  if (const Json* u = member(*doc, "usage")) {
    r.usage.input_tokens = u->get_int("prompt_tokens");
    r.usage.output_tokens = u->get_int("completion_tokens");
    if (const Json* d = u->find("prompt_tokens_details")) r.usage.cached_tokens = d->get_int("cached_tokens");
  }
  return r;
}

// ---- Anthropic Messages -------------------------------------------------------------------------

Json anthropic_request_body(const ChatRequest& r) {
  Json system = Json::array();
  Json msgs = Json::array();
  bool first_user_cached = false;
  for (std::size_t i = 0; i < r.messages.size(); ++i) {
    const auto& m = r.messages[i];
    if (m.role == Role::system) {
      system.push_back(Json::obj({{"type", "text"}, {"text", m.content}}));
      continue;
    }
    if (m.role == Role::tool) {
      // Consecutive tool results go into one user message, tool_result blocks first.
      Json block = Json::obj({{"type", "tool_result"}, {"tool_use_id", m.tool_call_id}, {"content", m.content}});
      if (m.is_error) block["is_error"] = true;
      auto& arr = msgs.as_array();
      if (!arr.empty() && arr.back().get_string("role") == "user" && arr.back().find("content")->is_array() &&
          i > 0 && r.messages[i - 1].role == Role::tool) {
        arr.back()["content"].push_back(std::move(block));
      } else {
        msgs.push_back(Json::obj({{"role", "user"}, {"content", Json(Json::Array{std::move(block)})}}));
      }
      continue;
    }
    Json content = Json::array();
    if (!m.content.empty()) content.push_back(Json::obj({{"type", "text"}, {"text", m.content}}));
    for (const auto& c : m.tool_calls)
      content.push_back(Json::obj({{"type", "tool_use"},
                                   {"id", c.id},
                                   {"name", c.name},
                                   {"input", c.arguments.is_object() ? c.arguments : Json::object()}}));
    if (content.size() == 0) content.push_back(Json::obj({{"type", "text"}, {"text", "(empty)"}}));
    if (m.role == Role::user && !first_user_cached) {
      // The first user turn (change, diff, failures) is part of the stable prefix.
      content.as_array().back()["cache_control"] = Json::obj({{"type", "ephemeral"}});
      first_user_cached = true;
    }
    msgs.push_back(Json::obj({{"role", m.role == Role::assistant ? "assistant" : "user"}, {"content", content}}));
  }
  Json body = Json::obj({{"model", r.model}, {"max_tokens", r.max_output_tokens}, {"temperature", r.temperature}});
  // top_p is not sent: recent Anthropic models refuse requests that set both temperature and top_p.
  if (system.size()) {
    system.as_array().back()["cache_control"] = Json::obj({{"type", "ephemeral"}});
    body["system"] = std::move(system);
  }
  if (!r.tools.empty()) {
    Json tools = Json::array();
    for (const auto& t : r.tools)
      tools.push_back(Json::obj({{"name", t.name}, {"description", t.description}, {"input_schema", t.parameters}}));
    tools.as_array().back()["cache_control"] = Json::obj({{"type", "ephemeral"}});
    body["tools"] = std::move(tools);
    body["tool_choice"] = Json::obj({{"type", "auto"}});
  }
  // A moving breakpoint on the latest turn caches the conversation so far (4 breakpoints at most).
  if (msgs.size() > 1) {
    auto& last = msgs.as_array().back()["content"];
    if (last.is_array() && last.size() && !last.as_array().back().find("cache_control"))
      last.as_array().back()["cache_control"] = Json::obj({{"type", "ephemeral"}});
  }
  body["messages"] = std::move(msgs);
  return body;
}

Expected<ChatResponse> parse_anthropic_response(std::string_view text) {
  auto doc = parse_json(text);
  if (!doc) return fail(Errc::protocol, "model reply is not JSON: " + doc.error().message);
  if (doc->get_string("type") == "error") {
    const Json* e = doc->find("error");
    return fail(Errc::model, "endpoint error: " + (e ? e->get_string("type") + ": " + e->get_string("message") : ""));
  }
  const Json* content = member(*doc, "content");
  if (!content || !content->is_array()) return fail(Errc::protocol, "model reply has no content");
  ChatResponse r;
  r.message.role = Role::assistant;
  r.raw_stop_reason = doc->get_string("stop_reason");
  const bool cut = r.raw_stop_reason == "max_tokens";
  for (const auto& b : content->as_array()) {
    const std::string type = b.get_string("type");
    if (type == "text") {
      r.message.content += b.get_string("text");
    } else if (type == "tool_use") {
      ToolCall call;
      call.id = b.get_string("id");
      call.name = b.get_string("name");
      const Json* in = b.find("input");
      if (in && in->is_object()) {
        call.arguments = *in;
        call.raw_arguments = dump_json_lossy(*in);
      } else {
        call.error = cut ? "the arguments were cut off (the reply hit max_tokens)" : "tool_use without an input object";
      }
      if (call.name.empty()) call.error = "tool_use without a name";
      r.message.tool_calls.push_back(std::move(call));
    }
  }
  if (r.raw_stop_reason == "tool_use") r.stop = StopReason::tool_use;
  else if (cut || r.raw_stop_reason == "model_context_window_exceeded") r.stop = StopReason::max_tokens;
  else if (r.raw_stop_reason == "refusal") r.stop = StopReason::content_filter;
  else if (r.raw_stop_reason == "end_turn" || r.raw_stop_reason == "stop_sequence") r.stop = StopReason::end_turn;
  else r.stop = r.message.tool_calls.empty() ? StopReason::other : StopReason::tool_use;
  if (const Json* u = member(*doc, "usage")) {
    const auto creation = u->get_int("cache_creation_input_tokens"), read = u->get_int("cache_read_input_tokens");
    r.usage.input_tokens = u->get_int("input_tokens") + creation + read;
    r.usage.output_tokens = u->get_int("output_tokens");
    r.usage.cached_tokens = read;
  }
  return r;
}

}  // namespace flowagent
