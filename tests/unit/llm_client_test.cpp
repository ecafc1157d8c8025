#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "flowagent/model_client.hpp"
#include "support/http_server.hpp"
#include "support/test_support.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::testkit;
using namespace std::chrono_literals;

namespace {

const char* kOpenAiToolCall = R"({"id":"c1","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls",
  "message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",
  "function":{"name":"read_file","arguments":"{\"path\":\"src/a.py\"}"}}]}}],
  "usage":{"prompt_tokens":120,"completion_tokens":12,"total_tokens":132,"prompt_tokens_details":{"cached_tokens":100}}})";
const char* kOpenAiFinal = R"({"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Done: off by one."}}],
  "usage":{"prompt_tokens":200,"completion_tokens":8}})";
const char* kAnthropicToolUse = R"({"id":"msg_1","type":"message","role":"assistant","model":"claude-x","stop_reason":"tool_use",
  "content":[{"type":"text","text":"Let me look."},{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"src/a.py"}}],
  "usage":{"input_tokens":50,"cache_creation_input_tokens":1000,"cache_read_input_tokens":0,"output_tokens":20}})";
const char* kAnthropicFinal = R"({"type":"message","role":"assistant","stop_reason":"end_turn",
  "content":[{"type":"text","text":"Fixed."}],"usage":{"input_tokens":60,"cache_read_input_tokens":1000,"output_tokens":5}})";

ChatRequest conversation() {
  ChatRequest r;
  r.messages = {{Role::system, "You repair tests.", {}, {}, {}, false}, {Role::user, "Test A fails.", {}, {}, {}, false}};
  r.tools = {{"read_file", "Read a file", *parse_json(R"({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]})")}};
  return r;
}

ModelClientOptions options_for(const TestHttpServer& server, const std::string& spec) {
  ModelClientOptions o;
  o.model.spec = spec;
  o.model.base_url = server.url() + "/v1";
  o.key_provider = [](std::string_view) { return std::optional<std::string>("sk-test-secret-key"); };
  o.retry.initial_backoff = 20ms;
  o.retry.max_backoff = 100ms;
  o.http.first_byte_timeout = 2s;
  o.http.total_timeout = 5s;
  return o;
}

std::shared_ptr<LlmClient> client(ModelClientOptions o) {
  auto c = make_llm_client(std::move(o));
  EXPECT_TRUE(c) << c.error().message;
  return c ? *c : nullptr;
}

}  // namespace

TEST(OpenAiClient, ToolCallingConversation) {
  TestHttpServer server;
  server.push(Reply::json(kOpenAiToolCall));
  server.push(Reply::json(kOpenAiFinal));
  auto c = client(options_for(server, "openai-compatible:gpt-test"));
  auto req = conversation();
  auto r1 = c->complete(req, CancelToken());
  ASSERT_TRUE(r1) << r1.error().message;
  EXPECT_EQ(r1->stop, StopReason::tool_use);
  ASSERT_EQ(r1->message.tool_calls.size(), 1u);
  EXPECT_EQ(r1->message.tool_calls[0].name, "read_file");
  EXPECT_EQ(r1->message.tool_calls[0].arguments.get_string("path"), "src/a.py");
  EXPECT_EQ(r1->usage.input_tokens, 120);
  EXPECT_EQ(r1->usage.cached_tokens, 100);
  req.messages.push_back(r1->message);
  req.messages.push_back({Role::tool, "1| x = 1", {}, "call_1", "read_file", false});
  auto r2 = c->complete(req, CancelToken());
  ASSERT_TRUE(r2);
  EXPECT_EQ(r2->stop, StopReason::end_turn);
  EXPECT_EQ(r2->message.content, "Done: off by one.");

  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].target, "/v1/chat/completions");
  EXPECT_EQ(reqs[0].header("authorization"), "Bearer sk-test-secret-key");
  auto body = *parse_json(reqs[1].body);
  EXPECT_EQ(body.get_string("model"), "gpt-test");
  EXPECT_DOUBLE_EQ(body.find("temperature")->as_double(), 0.1);
  EXPECT_DOUBLE_EQ(body.find("top_p")->as_double(), 0.95);
  EXPECT_EQ(body.find("tools")->as_array()[0].find("function")->get_string("name"), "read_file");
  const auto& msgs = body.find("messages")->as_array();
  ASSERT_EQ(msgs.size(), 4u);
  EXPECT_EQ(msgs[2].find("tool_calls")->as_array()[0].find("function")->get_string("arguments"), "{\"path\":\"src/a.py\"}");
  EXPECT_EQ(msgs[3].get_string("role"), "tool");
  EXPECT_EQ(msgs[3].get_string("tool_call_id"), "call_1");
  EXPECT_EQ(server.connections(), 1);  // keep-alive reuse
}

TEST(AnthropicClient, ToolUseConversationWithPromptCaching) {
  TestHttpServer server;
  server.push(Reply::json(kAnthropicToolUse));
  server.push(Reply::json(kAnthropicFinal));
  auto c = client(options_for(server, "anthropic:claude-x"));
  auto req = conversation();
  auto r1 = c->complete(req, CancelToken());
  ASSERT_TRUE(r1) << r1.error().message;
  EXPECT_EQ(r1->stop, StopReason::tool_use);
  EXPECT_EQ(r1->message.content, "Let me look.");
  ASSERT_EQ(r1->message.tool_calls.size(), 1u);
  EXPECT_EQ(r1->message.tool_calls[0].id, "toolu_1");
  EXPECT_EQ(r1->usage.input_tokens, 1050);
  req.messages.push_back(r1->message);
  req.messages.push_back({Role::tool, "1| x = 1", {}, "toolu_1", "read_file", false});
  auto r2 = c->complete(req, CancelToken());
  ASSERT_TRUE(r2);
  EXPECT_EQ(r2->message.content, "Fixed.");
  EXPECT_EQ(r2->usage.cached_tokens, 1000);

  auto reqs = server.requests();
  EXPECT_EQ(reqs[0].target, "/v1/messages");
  EXPECT_EQ(reqs[0].header("x-api-key"), "sk-test-secret-key");
  EXPECT_EQ(reqs[0].header("anthropic-version"), "2023-06-01");
  auto body = *parse_json(reqs[1].body);
  EXPECT_EQ(body.find("system")->as_array()[0].get_string("text"), "You repair tests.");
  EXPECT_TRUE(body.find("system")->as_array()[0].find("cache_control"));
  EXPECT_TRUE(body.find("tools")->as_array().back().find("cache_control"));
  EXPECT_EQ(body.find("tools")->as_array()[0].find("input_schema")->get_string("type"), "object");
  EXPECT_FALSE(body.find("top_p"));
  const auto& msgs = body.find("messages")->as_array();
  ASSERT_EQ(msgs.size(), 3u);
  EXPECT_TRUE(msgs[0].find("content")->as_array()[0].find("cache_control"));  // stable prefix
  EXPECT_EQ(msgs[1].find("content")->as_array()[1].get_string("type"), "tool_use");
  const auto& result = msgs[2].find("content")->as_array()[0];
  EXPECT_EQ(result.get_string("type"), "tool_result");
  EXPECT_EQ(result.get_string("tool_use_id"), "toolu_1");
}

TEST(Retries, RetryAfterIsHonoured) {
  TestHttpServer server;
  Reply limited = Reply::json(R"({"error":{"type":"rate_limit_error","message":"slow down"}})", 429);
  limited.headers.emplace_back("Retry-After", "1");
  server.push(limited);
  server.push(Reply::json(kOpenAiFinal));
  auto c = client(options_for(server, "openai-compatible:m"));
  const auto t0 = std::chrono::steady_clock::now();
  auto r = c->complete(conversation(), CancelToken());
  const auto waited = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_GE(waited, 950ms);
  ASSERT_EQ(r->attempts.size(), 2u);
  EXPECT_EQ(r->attempts[0].status, 429);
  EXPECT_EQ(r->attempts[0].waited_ms, 1000);
  EXPECT_NE(r->attempts[0].error.find("slow down"), std::string::npos);
  EXPECT_EQ(r->attempts[1].status, 200);
}

TEST(Retries, ServerErrorsThenSuccessAnd529) {
  TestHttpServer server;
  server.push(Reply::json(R"({"error":"boom"})", 500));
  server.push(Reply::json(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})", 529));
  server.push(Reply::json(kAnthropicFinal));
  auto c = client(options_for(server, "anthropic:m"));
  auto r = c->complete(conversation(), CancelToken());
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->attempts.size(), 3u);
  EXPECT_EQ(r->attempts[0].status, 500);
  EXPECT_EQ(r->attempts[1].status, 529);
  EXPECT_GT(r->attempts[0].waited_ms, 0);
}

TEST(Retries, BoundedAndNeverOnExhaustedQuota) {
  TestHttpServer server;
  for (int i = 0; i < 5; ++i) server.push(Reply::json(R"({"error":"down"})", 503));
  auto c = client(options_for(server, "openai-compatible:m"));
  auto r = c->complete(conversation(), CancelToken());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::model);
  EXPECT_NE(r.error().message.find("after 3 attempt(s)"), std::string::npos) << r.error().message;
  EXPECT_EQ(server.requests().size(), 3u);

  TestHttpServer quota;
  quota.push(Reply::json(R"({"error":{"code":"insufficient_quota","message":"You exceeded your current quota"}})", 429));
  auto q = client(options_for(quota, "openai-compatible:m"))->complete(conversation(), CancelToken());
  ASSERT_FALSE(q);
  EXPECT_NE(q.error().message.find("quota"), std::string::npos);
  EXPECT_EQ(quota.requests().size(), 1u);

  TestHttpServer no_retry;
  Reply r500 = Reply::json(R"({"error":"no"})", 500);
  r500.headers.emplace_back("x-should-retry", "false");
  no_retry.push(r500);
  EXPECT_FALSE(client(options_for(no_retry, "openai-compatible:m"))->complete(conversation(), CancelToken()));
  EXPECT_EQ(no_retry.requests().size(), 1u);

  TestHttpServer bad_request;
  bad_request.push(Reply::json(R"({"error":{"message":"bad tools"}})", 400));
  EXPECT_FALSE(client(options_for(bad_request, "openai-compatible:m"))->complete(conversation(), CancelToken()));
  EXPECT_EQ(bad_request.requests().size(), 1u);
}

TEST(Retries, DecisionsFollowTheSdkRules) {
  RetryPolicy p;
  auto resp = [](int status, std::vector<std::pair<std::string, std::string>> h = {}) {
    HttpResponse r;
    r.status = status;
    r.headers = std::move(h);
    return Expected<HttpResponse>(r);
  };
  for (int s : {408, 409, 429, 500, 502, 503, 529}) EXPECT_TRUE(decide_retry(p, 1, resp(s)).retry) << s;
  for (int s : {200, 400, 401, 403, 404, 422}) EXPECT_FALSE(decide_retry(p, 1, resp(s)).retry) << s;
  EXPECT_FALSE(decide_retry(p, 3, resp(500)).retry);  // attempts exhausted
  EXPECT_EQ(decide_retry(p, 1, resp(429, {{"retry-after-ms", "250"}})).wait, 250ms);
  EXPECT_EQ(decide_retry(p, 1, resp(429, {{"retry-after", "2"}})).wait, 2000ms);
  const auto now = std::chrono::system_clock::from_time_t(1'700'000'000);  // Tue, 14 Nov 2023 22:13:20 GMT
  EXPECT_EQ(decide_retry(p, 1, resp(429, {{"retry-after", "Tue, 14 Nov 2023 22:13:23 GMT"}}), now).wait, 3000ms);
  auto big = decide_retry(p, 1, resp(429, {{"retry-after", "3600"}}));  // beyond 60 s: ignored, backoff used
  EXPECT_LE(big.wait, 500ms);
  auto b3 = decide_retry(p, 3 - 0, resp(500));
  (void)b3;
  RetryPolicy many;
  many.max_attempts = 10;
  auto w5 = decide_retry(many, 5, resp(500)).wait;  // 0.5 * 2^4 = 8 s cap, jitter down to 6 s
  EXPECT_LE(w5, 8000ms);
  EXPECT_GE(w5, 6000ms);
  EXPECT_TRUE(decide_retry(p, 1, resp(400, {{"x-should-retry", "true"}})).retry);
  EXPECT_TRUE(decide_retry(p, 1, Expected<HttpResponse>(unexpected(Error{Errc::io, "reset"}))).retry);
  EXPECT_FALSE(decide_retry(p, 1, Expected<HttpResponse>(unexpected(Error{Errc::cancelled, "x"}))).retry);
}

TEST(HttpFaults, SlowHeadersTimeOut) {
  TestHttpServer server;
  Reply slow = Reply::json(kOpenAiFinal);
  slow.fault = Reply::Fault::delay_headers;
  slow.delay = 1500ms;
  server.push(slow);
  auto o = options_for(server, "openai-compatible:m");
  o.http.first_byte_timeout = 300ms;
  o.retry.max_attempts = 1;
  auto r = client(o)->complete(conversation(), CancelToken());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::timeout);
  EXPECT_NE(r.error().message.find("first byte"), std::string::npos) << r.error().message;
  // No wall-clock bound here (tests do not time): a reply that had been waited for would have
  // succeeded, so the timeout error is the evidence.
}

TEST(HttpFaults, ResetMidBodyIsRetried) {
  TestHttpServer server;
  Reply reset = Reply::json(kOpenAiFinal);
  reset.fault = Reply::Fault::reset_mid_body;
  server.push(reset);
  server.push(Reply::json(kOpenAiFinal));
  auto r = client(options_for(server, "openai-compatible:m"))->complete(conversation(), CancelToken());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->attempts.size(), 2u);
  EXPECT_EQ(r->attempts[0].status, 0);
  EXPECT_FALSE(r->attempts[0].error.empty());
}

TEST(HttpFaults, ChunkedBodiesAreRead) {
  TestHttpServer server;
  Reply chunked = Reply::json(kOpenAiFinal);
  chunked.fault = Reply::Fault::chunked;
  server.push(chunked);
  auto r = client(options_for(server, "openai-compatible:m"))->complete(conversation(), CancelToken());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->message.content, "Done: off by one.");
}

TEST(HttpFaults, TruncatedJsonAndOversizedBodies) {
  TestHttpServer server;
  server.push(Reply::json(std::string(kOpenAiFinal).substr(0, 40)));
  auto r = client(options_for(server, "openai-compatible:m"))->complete(conversation(), CancelToken());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::protocol);

  TestHttpServer big;
  big.push(Reply::json(std::string(2 << 20, ' ') + kOpenAiFinal));
  auto o = options_for(big, "openai-compatible:m");
  o.http.max_response_bytes = 1 << 20;
  auto b = client(o)->complete(conversation(), CancelToken());
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().message.find("exceeds"), std::string::npos) << b.error().message;
  EXPECT_EQ(big.requests().size(), 1u);  // not retried
}

TEST(HttpFaults, CancelFromAnotherThread) {
  TestHttpServer server;
  Reply slow = Reply::json(kOpenAiFinal);
  slow.delay = 8s;  // far beyond the bound below: only a cancel that interrupts the wait meets it
  server.push(slow);
  auto c = client(options_for(server, "openai-compatible:m"));
  CancelToken cancel;
  std::thread t([cancel] {
    std::this_thread::sleep_for(200ms);
    cancel.cancel();
  });
  const auto t0 = std::chrono::steady_clock::now();
  auto r = c->complete(conversation(), cancel);
  t.join();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::cancelled);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 6s);
}

class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir = new TempDir();
    make_test_pki(dir->path().string());
  }
  static void TearDownTestSuite() { delete dir; }
  static std::string file(const char* n) { return (dir->path() / n).string(); }
  static TempDir* dir;
};
TempDir* TlsTest::dir = nullptr;

TEST_F(TlsTest, TrustedTestCaWorks) {
  TestHttpServer server(TlsFiles{file("good.pem"), file("good.key")});
  server.push(Reply::json(kOpenAiFinal));
  auto o = options_for(server, "openai-compatible:m");
  o.model.base_url = "https://localhost:" + std::to_string(server.port()) + "/v1";
  o.http.extra_ca_file = file("ca.pem");
  auto r = client(o)->complete(conversation(), CancelToken());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->message.content, "Done: off by one.");
}

TEST_F(TlsTest, UntrustedCaAndWrongHostnameAreRefused) {
  TestHttpServer server(TlsFiles{file("good.pem"), file("good.key")});
  auto o = options_for(server, "openai-compatible:m");
  o.model.base_url = "https://localhost:" + std::to_string(server.port()) + "/v1";
  o.retry.max_attempts = 1;
  auto r = client(o)->complete(conversation(), CancelToken());  // system store only: not trusted
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("TLS"), std::string::npos) << r.error().message;

  TestHttpServer wrong(TlsFiles{file("wrong.pem"), file("wrong.key")});
  auto w = options_for(wrong, "openai-compatible:m");
  w.model.base_url = "https://localhost:" + std::to_string(wrong.port()) + "/v1";
  w.http.extra_ca_file = file("ca.pem");
  w.retry.max_attempts = 1;
  auto wr = client(w)->complete(conversation(), CancelToken());
  ASSERT_FALSE(wr);
  EXPECT_NE(wr.error().message.find("TLS"), std::string::npos) << wr.error().message;
  EXPECT_TRUE(wrong.requests().empty());  // no request ever reached the impostor
}

TEST_F(TlsTest, HttpsThroughAConnectProxy) {
  TestHttpServer server(TlsFiles{file("good.pem"), file("good.key")});
  server.push(Reply::json(kOpenAiFinal));
  server.push(Reply::json(kOpenAiFinal));
  TestConnectProxy proxy;
  auto o = options_for(server, "openai-compatible:m");
  o.model.base_url = "https://127.0.0.1:" + std::to_string(server.port()) + "/v1";  // the cert has IP:127.0.0.1
  o.http.extra_ca_file = file("ca.pem");
  o.retry.max_attempts = 1;
  ::setenv("HTTPS_PROXY", proxy.url().c_str(), 1);
  ::setenv("NO_PROXY", "example.org,.internal", 1);
  auto c = client(o);
  auto r = c->complete(conversation(), CancelToken());
  ::setenv("NO_PROXY", "127.0.0.1", 1);
  auto reused = c->complete(conversation(), CancelToken());
  ::unsetenv("HTTPS_PROXY");
  ::unsetenv("NO_PROXY");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(reused) << reused.error().message;
  EXPECT_EQ(proxy.tunnels(), 1);  // the second call reused the tunnelled keep-alive connection
  EXPECT_EQ(server.connections(), 1);
}

TEST_F(TlsTest, NoProxyBypassesTheProxy) {
  TestHttpServer server(TlsFiles{file("good.pem"), file("good.key")});
  server.push(Reply::json(kOpenAiFinal));
  TestConnectProxy proxy;
  auto o = options_for(server, "openai-compatible:m");
  o.model.base_url = "https://localhost:" + std::to_string(server.port()) + "/v1";
  o.http.extra_ca_file = file("ca.pem");
  ::setenv("HTTPS_PROXY", proxy.url().c_str(), 1);
  ::setenv("NO_PROXY", "example.org, .localdomain,localhost", 1);
  auto r = client(o)->complete(conversation(), CancelToken());
  ::unsetenv("HTTPS_PROXY");
  ::unsetenv("NO_PROXY");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(proxy.tunnels(), 0);
}

TEST(Budget, CheckedBeforeEveryCall) {
  TestHttpServer server;
  server.push(Reply::json(kOpenAiToolCall));
  auto o = options_for(server, "openai-compatible:gpt-test");
  o.budget = std::make_shared<Budget>(100, 0);
  o.prices["gpt-test"] = Pricing{2.0, 8.0, 0.5};
  auto c = client(o);
  auto r = c->complete(conversation(), CancelToken());
  ASSERT_TRUE(r);
  EXPECT_NEAR(r->cost_usd, (20 * 2.0 + 100 * 0.5 + 12 * 8.0) / 1e6, 1e-12);
  EXPECT_EQ(o.budget->tokens(), 132);
  auto again = c->complete(conversation(), CancelToken());
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, Errc::budget_exceeded);
  EXPECT_EQ(server.requests().size(), 1u);

  Budget cost(0, 0.001);
  cost.add(Usage{10, 10, 0}, 0.002);
  EXPECT_EQ(cost.check().error().code, Errc::budget_exceeded);
}

TEST(Keys, NeverLeakIntoErrorsOrRecordings) {
  TestHttpServer server;
  server.push(Reply::json(R"({"error":{"message":"Incorrect API key provided: sk-test-secret-key"}})", 401));
  server.push(Reply::json(kOpenAiFinal));
  TempDir d;
  auto o = options_for(server, "openai-compatible:m");
  o.record_path = d.path() / "rec.jsonl";
  auto c = client(o);
  auto r = c->complete(conversation(), CancelToken());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message.find("sk-test-secret-key"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("[REDACTED]"), std::string::npos);
  auto ok = c->complete(conversation(), CancelToken());
  ASSERT_TRUE(ok);
  EXPECT_EQ(read_file(d.path() / "rec.jsonl").find("sk-test"), std::string::npos);

  ModelClientOptions none;
  none.model.spec = "openai:gpt-4.1";
  ::unsetenv("OPENAI_API_KEY");
  auto missing = make_llm_client(none);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("OPENAI_API_KEY"), std::string::npos);
}

TEST(RecordReplay, ReplaysAndDetectsDivergence) {
  TestHttpServer server;
  server.push(Reply::json(kOpenAiToolCall));
  server.push(Reply::json(kOpenAiFinal));
  TempDir d;
  auto o = options_for(server, "openai-compatible:m");
  o.record_path = d.path() / "session.jsonl";
  auto live = client(o);
  auto req = conversation();
  auto r1 = live->complete(req, CancelToken());
  req.messages.push_back(r1->message);
  req.messages.push_back({Role::tool, "took 12 ms", {}, "call_1", "read_file", false});
  auto r2 = live->complete(req, CancelToken());
  ASSERT_TRUE(r2);

  auto replay = make_replay_client(d.path() / "session.jsonl");
  ASSERT_TRUE(replay) << replay.error().message;
  auto req2 = conversation();
  auto p1 = (*replay)->complete(req2, CancelToken());
  ASSERT_TRUE(p1);
  EXPECT_EQ(p1->message.tool_calls[0].name, "read_file");
  req2.messages.push_back(p1->message);
  req2.messages.push_back({Role::tool, "took 15 ms", {}, "call_1", "read_file", false});  // digits may differ
  auto p2 = (*replay)->complete(req2, CancelToken());
  ASSERT_TRUE(p2) << p2.error().message;
  EXPECT_EQ(p2->message.content, "Done: off by one.");
  auto p3 = (*replay)->complete(req2, CancelToken());
  ASSERT_FALSE(p3);
  EXPECT_NE(p3.error().message.find("past the end"), std::string::npos);

  auto replay2 = make_replay_client(d.path() / "session.jsonl");
  auto diverged = conversation();
  diverged.messages[1].content = "Test B fails.";
  auto dv = (*replay2)->complete(diverged, CancelToken());
  ASSERT_FALSE(dv);
  EXPECT_NE(dv.error().message.find("diverged at call 1: message 1 (user): content differs"), std::string::npos)
      << dv.error().message;

  ModelClientOptions via_spec;
  via_spec.model.spec = "replay:" + (d.path() / "session.jsonl").string();
  EXPECT_TRUE(make_llm_client(via_spec));
  EXPECT_EQ(make_replay_client(d.path() / "missing.jsonl").error().code, Errc::not_found);
}

TEST(BadModelOutput, BecomesStructuredErrors) {
  auto bad_args = parse_openai_response(R"({"choices":[{"finish_reason":"tool_calls","message":{"role":"assistant",
    "tool_calls":[{"id":"c","type":"function","function":{"name":"edit_file","arguments":"{\"path\": \"a.py\", "}}]}}]})");
  ASSERT_TRUE(bad_args);
  EXPECT_NE(bad_args->message.tool_calls[0].error.find("not valid JSON"), std::string::npos);
  auto cut = parse_openai_response(R"({"choices":[{"finish_reason":"length","message":{"role":"assistant",
    "tool_calls":[{"id":"c","type":"function","function":{"name":"write_file","arguments":"{\"path\": \"a.py\", \"cont"}}]}}]})");
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->stop, StopReason::max_tokens);
  EXPECT_NE(cut->message.tool_calls[0].error.find("cut off"), std::string::npos);
  auto not_object = parse_openai_response(R"({"choices":[{"finish_reason":"tool_calls","message":{"role":"assistant",
    "tool_calls":[{"id":"c","type":"function","function":{"name":"x","arguments":"[1]"}}]}}]})");
  EXPECT_NE(not_object->message.tool_calls[0].error.find("object"), std::string::npos);
  EXPECT_EQ(parse_openai_response(R"({"id":"x"})").error().code, Errc::protocol);
  EXPECT_EQ(parse_openai_response("<html>").error().code, Errc::protocol);
  auto empty = parse_openai_response(R"({"choices":[{"finish_reason":"stop","message":{"role":"assistant","content":""}}]})");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->message.content.empty());
  EXPECT_TRUE(empty->message.tool_calls.empty());
  auto ollama = parse_openai_response(R"({"choices":[{"finish_reason":"stop","message":{"role":"assistant",
    "tool_calls":[{"function":{"name":"read_file","arguments":{"path":"x"}}}]}}]})");
  ASSERT_TRUE(ollama);
  EXPECT_EQ(ollama->message.tool_calls[0].arguments.get_string("path"), "x");
  EXPECT_EQ(ollama->stop, StopReason::tool_use);
  auto anth = parse_anthropic_response(R"({"type":"message","stop_reason":"max_tokens","content":[{"type":"tool_use","id":"t","name":"x"}]})");
  ASSERT_TRUE(anth);
  EXPECT_EQ(anth->stop, StopReason::max_tokens);
  EXPECT_NE(anth->message.tool_calls[0].error.find("cut off"), std::string::npos);
  EXPECT_EQ(parse_anthropic_response(R"({"type":"error","error":{"type":"overloaded_error","message":"busy"}})").error().code,
            Errc::model);
}

TEST(OpenAiWire, ProviderExtrasOnToolCallsAreEchoed) {
  // Gemini 3 through its OpenAI-compatible endpoint needs the thought signature sent back.
  auto r = parse_openai_response(R"({"choices":[{"finish_reason":"tool_calls","message":{"role":"assistant",
    "tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{}"},
    "extra_content":{"google":{"thought_signature":"sig=="}}}]}}]})");
  ASSERT_TRUE(r);
  ChatRequest req;
  req.messages.push_back(r->message);
  auto back = chat_request_from_json(to_json(req));  // survives record/replay too
  ASSERT_TRUE(back);
  auto body = openai_request_body(*back);
  const auto& call = body.find("messages")->as_array()[0].find("tool_calls")->as_array()[0];
  EXPECT_EQ(call.find("extra_content")->find("google")->get_string("thought_signature"), "sig==");
}

TEST(ModelSpecs, Resolve) {
  auto r = [](std::string spec, std::string base = "") {
    ModelConfig c;
    c.spec = std::move(spec);
    c.base_url = std::move(base);
    return resolve_model_spec(c);
  };
  EXPECT_EQ(r("openai:gpt-4.1")->base_url, "https://api.openai.com/v1");
  EXPECT_EQ(r("anthropic:claude-sonnet-4-5")->protocol, "anthropic");
  EXPECT_EQ(r("ollama:qwen2.5-coder")->base_url, "http://localhost:11434/v1");
  EXPECT_EQ(r("ollama:qwen2.5-coder")->key_env, "");
  EXPECT_EQ(r("gemini:gemini-2.5-pro")->base_url, "https://generativelanguage.googleapis.com/v1beta/openai");
  EXPECT_EQ(r("vllm:m", "http://gpu:9000/v1/")->base_url, "http://gpu:9000/v1");
  EXPECT_EQ(r("llamacpp:m")->model, "m");
  EXPECT_EQ(r("mystery:m").error().code, Errc::unsupported);
  EXPECT_EQ(r("nocolon").error().code, Errc::invalid_argument);
  EXPECT_EQ(r("openai-compatible:m").error().code, Errc::invalid_argument);
}

TEST(ChatJson, RoundTrips) {
  auto req = conversation();
  ChatMessage a{Role::assistant, "x", {}, {}, {}, false};
  ToolCall call;
  call.id = "c";
  call.name = "read_file";
  call.raw_arguments = R"({"path":"a"})";
  call.arguments = *parse_json(call.raw_arguments);
  a.tool_calls.push_back(call);
  req.messages.push_back(a);
  req.messages.push_back({Role::tool, "out", {}, "c", "read_file", true});
  auto back = chat_request_from_json(to_json(req));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(to_json(*back), to_json(req));
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
