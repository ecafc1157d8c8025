// Per-call overhead of the model client against curl on the same loopback server (a canned
// OpenAI-style reply), and the parse time of a 1 MB model response.
#include <benchmark/benchmark.h>

#include "flowagent/model_client.hpp"
#include "flowagent/process.hpp"
#include "support/http_server.hpp"

using namespace flowagent;

namespace {

const std::string kReply =
    R"({"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,)"
    R"("tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"src/a.py\"}"}}]}}],)"
    R"("usage":{"prompt_tokens":120,"completion_tokens":12}})";

testkit::TestHttpServer& server() {
  static testkit::TestHttpServer s;
  static bool init = [] {
    s.set_handler([](const testkit::Recorded&) { return testkit::Reply::json(kReply); });
    return true;
  }();
  (void)init;
  return s;
}

ChatRequest small_request() {
  ChatRequest r;
  r.messages = {{Role::system, "You repair tests.", {}, {}, {}, false}, {Role::user, "Test A fails.", {}, {}, {}, false}};
  return r;
}

}  // namespace

static void BM_ClientCallKeepAlive(benchmark::State& state) {
  ModelClientOptions o;
  o.model.spec = "openai-compatible:m";
  o.model.base_url = server().url() + "/v1";
  auto c = *make_llm_client(o);
  const auto req = small_request();
  for (auto _ : state) {
    auto r = c->complete(req, CancelToken());
    if (!r) state.SkipWithError(r.error().message.c_str());
  }
}
BENCHMARK(BM_ClientCallKeepAlive)->Unit(benchmark::kMicrosecond)->UseRealTime();

static void BM_CurlCall(benchmark::State& state) {
  const std::string body = *dump_json(openai_request_body(small_request()));
  for (auto _ : state) {
    ProcessOptions o;
    o.argv = {"curl", "-s", "-X", "POST", "-H", "content-type: application/json", "--data-binary", body,
              server().url() + "/v1/chat/completions"};
    auto r = run_process(o);
    if (!r || r->exit_code != 0) state.SkipWithError("curl failed");
  }
}
BENCHMARK(BM_CurlCall)->Unit(benchmark::kMicrosecond)->UseRealTime();

static void BM_Parse1MBResponse(benchmark::State& state) {
  std::string content(1 << 20, 'x');
  for (std::size_t i = 0; i < content.size(); i += 80) content[i] = '\n';
  Json doc = Json::obj({{"choices", Json(Json::Array{Json::obj(
                                        {{"finish_reason", "stop"},
                                         {"message", Json::obj({{"role", "assistant"}, {"content", content}})}})})},
                        {"usage", Json::obj({{"prompt_tokens", 10}, {"completion_tokens", 300000}})}});
  const std::string text = *dump_json(doc);
  for (auto _ : state) benchmark::DoNotOptimize(parse_openai_response(text));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_Parse1MBResponse)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
