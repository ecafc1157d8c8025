// A scripted OpenAI-compatible model on loopback for end-to-end tests: replies come from a queue;
// the summarizer's call gets its own reply; an empty queue answers with `fallback`.
#pragma once

#include <deque>
#include <mutex>
#include <string>

#include "flowagent/json.hpp"
#include "support/http_server.hpp"

namespace flowagent::testkit {

inline std::string tool_calls_reply(const std::vector<std::pair<std::string, Json>>& calls, int tokens = 100) {
  Json tc = Json::array();
  int i = 0;
  for (const auto& [name, args] : calls)
    tc.push_back(Json::obj({{"id", "call_" + std::to_string(++i) + "_" + name},
                            {"type", "function"},
                            {"function", Json::obj({{"name", name}, {"arguments", dump_json_lossy(args)}})}}));
  return dump_json_lossy(Json::obj(
      {{"choices", Json(Json::Array{Json::obj({{"finish_reason", "tool_calls"},
                                               {"message", Json::obj({{"role", "assistant"}, {"content", nullptr}, {"tool_calls", tc}})}})})},
       {"usage", Json::obj({{"prompt_tokens", tokens}, {"completion_tokens", 20}})}}));
}

inline std::string final_reply(const std::string& text) {
  return dump_json_lossy(Json::obj(
      {{"choices", Json(Json::Array{Json::obj({{"finish_reason", "stop"},
                                               {"message", Json::obj({{"role", "assistant"}, {"content", text}})}})})},
       {"usage", Json::obj({{"prompt_tokens", 100}, {"completion_tokens", 10}})}}));
}

class ScriptedModel {
 public:
  ScriptedModel() {
    server.set_handler([this](const Recorded& r) {
      std::lock_guard lock(mu);
      calls++;
      if (r.body.find("You write the note a code reviewer sees") != std::string::npos) {
        summary_calls++;
        return Reply::json(final_reply(summary));
      }
      std::string body = fallback;
      if (!queue.empty()) {
        body = queue.front();
        queue.pop_front();
      }
      Reply rep = Reply::json(body);
      rep.delay = delay;
      return rep;
    });
  }
  void push(std::string body) {
    std::lock_guard lock(mu);
    queue.push_back(std::move(body));
  }
  std::string base_url() const { return server.url() + "/v1"; }

  TestHttpServer server;
  std::mutex mu;
  std::deque<std::string> queue;
  std::string fallback = final_reply("I am done.");
  std::string summary = "<b>Root cause:</b> <code>add()</code> adds one too many.<script>alert(1)</script> The fix removes the extra term.";
  std::chrono::milliseconds delay{0};
  int calls = 0, summary_calls = 0;
};

}  // namespace flowagent::testkit
