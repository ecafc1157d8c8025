// Model clients: spec resolution, the HTTP client with retries/budget/recording, and replay.
#include <fstream>
#include <mutex>
#include <thread>

#include "flowagent/model_client.hpp"

namespace flowagent {

namespace {

using Clock = std::chrono::steady_clock;

std::string trim_slash(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

std::string redact(std::string text, const std::string& secret) {
  if (secret.size() < 4) return text;
  for (std::size_t p = text.find(secret); p != std::string::npos; p = text.find(secret, p))
    text.replace(p, secret.size(), "[REDACTED]");
  return text;
}

std::string error_excerpt(const std::string& body) {
  auto doc = parse_json(body);
  if (doc && doc->is_object()) {
    if (const Json* e = doc->find("error")) {
      if (e->is_object()) {
        std::string t = e->get_string("type"), m = e->get_string("message"), c = e->get_string("code");
        return (t.empty() ? c : t) + (m.empty() ? "" : ": " + m);
      }
      if (e->is_string()) return e->as_string();
    }
  }
  return sanitize_utf8(body.substr(0, 300));
}

class HttpLlmClient final : public LlmClient {
 public:
  HttpLlmClient(ModelClientOptions o, ModelEndpoint ep, std::string key)
      : opt_(std::move(o)), ep_(std::move(ep)), key_(std::move(key)), name_(ep_.provider + ":" + ep_.model) {}

  std::string_view name() const override { return name_; }
  std::vector<std::string> secrets() const override {
    if (key_.empty()) return {};
    return {key_};
  }

  Expected<ChatResponse> complete(const ChatRequest& request_in, const CancelToken& cancel) override {
    if (opt_.budget)
      if (auto b = opt_.budget->check(); !b) return unexpected(b.error());
    ChatRequest request = request_in;
    if (request.model.empty()) request.model = ep_.model;
    HttpRequest http;
    http.url = ep_.base_url + (ep_.protocol == "anthropic" ? "/messages" : "/chat/completions");
    http.headers = {{"content-type", "application/json"}};
    if (ep_.protocol == "anthropic") {
      http.headers.emplace_back("anthropic-version", "2023-06-01");
      if (!key_.empty()) http.headers.emplace_back("x-api-key", key_);
    } else if (!key_.empty()) {
      http.headers.emplace_back("authorization", "Bearer " + key_);
    }
    auto body = dump_json(ep_.protocol == "anthropic" ? anthropic_request_body(request) : openai_request_body(request));
    if (!body) return unexpected(body.error());
    http.body = std::move(*body);

    std::vector<Attempt> attempts;
    for (int attempt = 1;; ++attempt) {
      const auto t0 = Clock::now();
      auto res = opt_.transport->send(http, cancel);
      Attempt a;
      a.ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
      if (res) {
        a.status = res->status;
        if (res->status < 200 || res->status >= 300) a.error = redact(error_excerpt(res->body), key_);
      } else {
        a.error = redact(res.error().message, key_);
      }
      if (cancel.cancelled()) return fail(Errc::cancelled, "model call cancelled");
      auto decision = decide_retry(opt_.retry, attempt, res);
      if (res && res->status >= 200 && res->status < 300) {
        attempts.push_back(a);
        auto parsed = ep_.protocol == "anthropic" ? parse_anthropic_response(res->body) : parse_openai_response(res->body);
        if (!parsed) return unexpected(Error{parsed.error().code, redact(parsed.error().message, key_)});
        parsed->attempts = std::move(attempts);
        parsed->cost_usd = cost(parsed->usage);
        if (opt_.budget) opt_.budget->add(parsed->usage, parsed->cost_usd);
        record(request, *parsed);
        return parsed;
      }
      if (!decision.retry) {
        attempts.push_back(a);
        std::string what = res ? "HTTP " + std::to_string(res->status) + ": " + a.error : a.error;
        Errc code = res ? Errc::model : (res.error().code == Errc::timeout ? Errc::timeout : Errc::model);
        return fail(code, name_ + " failed after " + std::to_string(attempt) + " attempt(s): " + what +
                              (decision.reason.empty() ? "" : " (" + decision.reason + ")"));
      }
      a.waited_ms = decision.wait.count();
      attempts.push_back(a);
      if (cancel.wait_for(decision.wait)) return fail(Errc::cancelled, "model call cancelled");
    }
  }

 private:
  double cost(const Usage& u) const {
    auto it = opt_.prices.find(ep_.model);
    if (it == opt_.prices.end()) return 0;
    const auto& p = it->second;
    const double uncached = static_cast<double>(u.input_tokens - u.cached_tokens);
    return (uncached * p.input_per_mtok + static_cast<double>(u.cached_tokens) * p.cached_input_per_mtok +
            static_cast<double>(u.output_tokens) * p.output_per_mtok) / 1e6;
  }

  void record(const ChatRequest& req, const ChatResponse& res) {
    if (opt_.record_path.empty()) return;
    Json line = Json::obj({{"request", to_json(req)}, {"response", to_json(res)}});
    std::string text = redact(dump_json_lossy(line), key_);
    std::lock_guard lock(record_mu_);
    std::ofstream out(opt_.record_path, std::ios::app);
    out << text << "\n";
  }

  ModelClientOptions opt_;
  ModelEndpoint ep_;
  std::string key_;
  std::string name_;
  std::mutex record_mu_;
};

// ---- replay ---------------------------------------------------------------------------------------

std::string normalise_digits(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  bool in_digits = false;
  for (char c : s) {
    bool d = c >= '0' && c <= '9';
    if (d && in_digits) continue;
    out += d ? '0' : c;
    in_digits = d;
  }
  return out;
}

/// First difference between two conversations, or "" when they match.
std::string first_difference(const ChatRequest& want, const ChatRequest& got) {
  const std::size_t n = std::min(want.messages.size(), got.messages.size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto& a = want.messages[i];
    const auto& b = got.messages[i];
    const std::string where = "message " + std::to_string(i) + " (" + std::string(to_string(b.role)) + ")";
    if (a.role != b.role) return where + ": role differs (recorded " + std::string(to_string(a.role)) + ")";
    if (normalise_digits(a.content) != normalise_digits(b.content)) {
      std::size_t k = 0;
      while (k < a.content.size() && k < b.content.size() && a.content[k] == b.content[k]) ++k;
      return where + ": content differs at character " + std::to_string(k) + ": recorded \"" +
             a.content.substr(k, 60) + "\", got \"" + b.content.substr(k, 60) + "\"";
    }
    if (a.tool_calls.size() != b.tool_calls.size()) return where + ": number of tool calls differs";
    for (std::size_t c = 0; c < a.tool_calls.size(); ++c)
      if (a.tool_calls[c].name != b.tool_calls[c].name || a.tool_calls[c].raw_arguments != b.tool_calls[c].raw_arguments)
        return where + ": tool call " + std::to_string(c) + " differs";
  }
  if (want.messages.size() != got.messages.size())
    return "the conversation has " + std::to_string(got.messages.size()) + " messages, the recording " +
           std::to_string(want.messages.size());
  return {};
}

class ReplayClient final : public LlmClient {
 public:
  explicit ReplayClient(std::vector<std::pair<ChatRequest, ChatResponse>> turns, std::string name)
      : turns_(std::move(turns)), name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  Expected<ChatResponse> complete(const ChatRequest& request, const CancelToken& cancel) override {
    if (cancel.cancelled()) return fail(Errc::cancelled, "cancelled");
    std::lock_guard lock(mu_);
    if (next_ >= turns_.size())
      return fail(Errc::model, "replay: call " + std::to_string(next_ + 1) + " is past the end of the recording (" +
                                   std::to_string(turns_.size()) + " calls)");
    const auto& [want, response] = turns_[next_];
    if (auto diff = first_difference(want, request); !diff.empty())
      return fail(Errc::model, "replay diverged at call " + std::to_string(next_ + 1) + ": " + diff);
    ++next_;
    return response;
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<ChatRequest, ChatResponse>> turns_;
  std::size_t next_ = 0;
  std::string name_;
};

}  // namespace

Expected<ModelEndpoint> resolve_model_spec(const ModelConfig& c) {
  const auto colon = c.spec.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == c.spec.size())
    return fail(Errc::invalid_argument, "model spec \"" + c.spec + "\" must look like provider:model (e.g. openai:gpt-4.1)");
  ModelEndpoint ep;
  ep.provider = c.spec.substr(0, colon);
  ep.model = c.spec.substr(colon + 1);
  ep.protocol = "openai";
  if (ep.provider == "openai") {
    ep.base_url = "https://api.openai.com/v1";
    ep.key_env = "OPENAI_API_KEY";
  } else if (ep.provider == "anthropic") {
    ep.protocol = "anthropic";
    ep.base_url = "https://api.anthropic.com/v1";
    ep.key_env = "ANTHROPIC_API_KEY";
  } else if (ep.provider == "ollama") {
    ep.base_url = "http://localhost:11434/v1";
  } else if (ep.provider == "vllm") {
    ep.base_url = "http://localhost:8000/v1";
  } else if (ep.provider == "llamacpp") {
    ep.base_url = "http://localhost:8080/v1";
  } else if (ep.provider == "gemini") {
    ep.base_url = "https://generativelanguage.googleapis.com/v1beta/openai";
    ep.key_env = "GEMINI_API_KEY";
  } else if (ep.provider == "openai-compatible") {
    ep.key_env = "OPENAI_API_KEY";
    if (c.base_url.empty()) return fail(Errc::invalid_argument, "openai-compatible:<model> needs model.base_url");
  } else {
    return fail(Errc::unsupported, "unknown model provider \"" + ep.provider +
                                       "\" (known: openai, anthropic, ollama, vllm, llamacpp, gemini, openai-compatible, replay)");
  }
  if (!c.base_url.empty()) ep.base_url = c.base_url;
  if (!c.api_key_env.empty()) ep.key_env = c.api_key_env;
  ep.base_url = trim_slash(ep.base_url);
  return ep;
}

Expected<std::shared_ptr<LlmClient>> make_llm_client(ModelClientOptions o) {
  if (o.model.spec.rfind("replay:", 0) == 0) return make_replay_client(o.model.spec.substr(7));
  auto ep = resolve_model_spec(o.model);
  if (!ep) return unexpected(ep.error());
  std::string key;
  if (o.key_provider)
    if (auto k = o.key_provider(ep->provider)) key = *k;
  if (key.empty() && !ep->key_env.empty())
    if (const char* v = std::getenv(ep->key_env.c_str())) key = v;
  // A host transport (C API) authenticates on its own; otherwise hosted providers need a key.
  if (key.empty() && !o.transport && (ep->provider == "openai" || ep->provider == "anthropic" || ep->provider == "gemini"))
    return fail(Errc::invalid_argument, "no API key for " + ep->provider + ": set " + ep->key_env +
                                            " or give the host's key provider");
  if (!o.transport) {
    auto t = make_beast_transport(o.http);
    if (!t) return unexpected(t.error());
    o.transport = *t;
  }
  return std::shared_ptr<LlmClient>(std::make_shared<HttpLlmClient>(std::move(o), std::move(*ep), std::move(key)));
}

Expected<std::shared_ptr<LlmClient>> make_replay_client(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return fail(Errc::not_found, "cannot open recording " + path.string());
  std::vector<std::pair<ChatRequest, ChatResponse>> turns;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto doc = parse_json(line);
    if (!doc) return fail(Errc::invalid_json, path.string() + ":" + std::to_string(n) + ": " + doc.error().message);
    const Json* rq = doc->find("request");
    const Json* rs = doc->find("response");
    if (!rq || !rs) return fail(Errc::schema, path.string() + ":" + std::to_string(n) + ": needs request and response");
    auto req = chat_request_from_json(*rq);
    if (!req) return unexpected(with_context(req.error(), path.string() + ":" + std::to_string(n)));
    auto res = chat_response_from_json(*rs);
    if (!res) return unexpected(with_context(res.error(), path.string() + ":" + std::to_string(n)));
    turns.emplace_back(std::move(*req), std::move(*res));
  }
  return std::shared_ptr<LlmClient>(std::make_shared<ReplayClient>(std::move(turns), "replay:" + path.string()));
}

}  // namespace flowagent
