// The secret redactor: literal values plus credential shapes (RE2, linear time).
#include "flowagent/redact.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace flowagent {

namespace {

// Credential shapes whose whole match is the secret.
constexpr const char* kShapes =
    R"((?:sk-ant-[A-Za-z0-9_\-]{16,})|)"
    R"((?:sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,})|)"
    R"((?:gh[pousr]_[A-Za-z0-9]{30,})|)"
    R"((?:github_pat_[A-Za-z0-9_]{22,})|)"
    R"((?:glpat-[A-Za-z0-9_\-]{20,})|)"
    R"((?:(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|A3T[A-Z0-9])[A-Z0-9]{16})|)"
    R"((?:xox[abposr]-[A-Za-z0-9\-]{10,})|)"
    R"((?:AIza[0-9A-Za-z_\-]{35,})|)"
    R"((?s:-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)))";
// `Bearer <token>`: the token is masked, the word kept.
constexpr const char* kBearer = R"(((?i:bearer)\s+)[A-Za-z0-9._~+/\-]{12,}=*)";

RE2::Options re_options() {
  RE2::Options o;
  o.set_log_errors(false);
  o.set_max_mem(32 << 20);
  return o;
}

}  // namespace

struct Redactor::Impl {
  RE2 shapes{kShapes, re_options()};
  RE2 bearer{kBearer, re_options()};
  std::vector<std::string> values;  // longest first, so a value containing another is masked whole
};

Redactor::Redactor() : impl_(std::make_unique<Impl>()) {}
Redactor::~Redactor() = default;
Redactor::Redactor(Redactor&&) noexcept = default;
Redactor& Redactor::operator=(Redactor&&) noexcept = default;
Redactor::Redactor(const Redactor& o) : impl_(std::make_unique<Impl>()) { impl_->values = o.impl_->values; }
Redactor& Redactor::operator=(const Redactor& o) {
  if (this != &o) {
    impl_ = std::make_unique<Impl>();
    impl_->values = o.impl_->values;
  }
  return *this;
}

void Redactor::add_secret(std::string_view value) {
  if (value.size() < kMinSecretSize) return;
  auto& v = impl_->values;
  if (std::find(v.begin(), v.end(), value) != v.end()) return;
  v.emplace_back(value);
  std::stable_sort(v.begin(), v.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

void Redactor::add_secrets(const std::vector<std::string>& values) {
  for (const auto& v : values) add_secret(v);
}

std::string Redactor::redact(std::string_view text) const {
  std::string out(text);
  redact_in_place(out);
  return out;
}

bool Redactor::contains_secret(std::string_view text) const { return redact(text) != text; }

void Redactor::redact_in_place(std::string& text) const {
  if (text.empty()) return;
  for (const auto& secret : impl_->values)
    for (std::size_t p = text.find(secret); p != std::string::npos; p = text.find(secret, p + kMask.size()))
      text.replace(p, secret.size(), kMask);
  const std::string mask(kMask);
  RE2::GlobalReplace(&text, impl_->shapes, mask);
  RE2::GlobalReplace(&text, impl_->bearer, "\\1" + mask);
}

void Redactor::redact_in_place(ChatMessage& m) const {
  redact_in_place(m.content);
  for (auto& c : m.tool_calls) {
    const std::string before = c.raw_arguments;
    redact_in_place(c.raw_arguments);
    if (c.raw_arguments != before) {
      if (auto j = parse_json(c.raw_arguments)) c.arguments = std::move(*j);
      else c.arguments = Json::obj({});
    }
    redact_in_place(c.error);
  }
}

void Redactor::redact_in_place(ChatRequest& r) const {
  for (auto& m : r.messages) redact_in_place(m);
}

void Redactor::redact_in_place(Event& e) const {
  redact_in_place(e.message);
  redact_in_place(e.phase);
  redact_in_place(e.change_id);
}

void Redactor::redact_in_place(RepairResult& r) const {
  // Not the patch: it is the validated fix, byte for byte (a rewritten token-shaped string in it
  // would deliver a diff that was never validated).
  for (std::string* s : {&r.reason, &r.message, &r.change_id, &r.summary}) redact_in_place(*s);
  for (auto& c : r.candidates)
    for (std::string* s : {&c.reason, &c.message, &c.strategies}) redact_in_place(*s);
  for (auto& run : r.evidence.runs) {
    redact_in_place(run.command);
    for (auto& t : run.passed) redact_in_place(t);
    for (auto& t : run.failed) redact_in_place(t);
  }
  // Test names come from reports the tests wrote themselves: they can carry anything.
  for (auto& t : r.evidence.tests) {
    redact_in_place(t.id);
    redact_in_place(t.outcome);
    for (auto& s : t.seen_as) redact_in_place(s);
  }
  for (auto& x : r.evidence.replacements) {
    redact_in_place(x.old_id);
    redact_in_place(x.scope);
    for (auto& s : x.new_ids) redact_in_place(s);
  }
  for (auto& t : r.evidence.preexisting_failures) redact_in_place(t);
  redact_in_place(r.evidence.isolation);
  redact_in_place(r.evidence.assertion_check);
  redact_in_place(r.evidence.kind);
  for (auto& h : r.hypotheses)
    for (std::string* s : {&h.statement, &h.evidence, &h.status}) redact_in_place(*s);
  for (auto& step : r.trajectory)
    for (std::string* s : {&step.kind, &step.name, &step.input, &step.output}) redact_in_place(*s);
}

bool looks_like_credential_name(std::string_view name) {
  std::string upper(name);
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const char* word : {"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"})
    if (upper.find(word) != std::string::npos) return true;
  return upper.ends_with("PAT");
}

std::vector<std::string> environment_secrets() {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view value = entry.substr(eq + 1);
    if (value.size() < Redactor::kMinSecretSize) continue;
    if (looks_like_credential_name(entry.substr(0, eq))) out.emplace_back(value);
  }
  return out;
}

namespace {

class RedactingClient final : public LlmClient {
 public:
  RedactingClient(std::shared_ptr<LlmClient> inner, std::shared_ptr<const Redactor> r)
      : inner_(std::move(inner)), redactor_(std::move(r)) {}
  std::string_view name() const override { return inner_->name(); }
  std::vector<std::string> secrets() const override { return inner_->secrets(); }
  Expected<ChatResponse> complete(const ChatRequest& request, const CancelToken& cancel) override {
    ChatRequest clean = request;
    redactor_->redact_in_place(clean);
    auto resp = inner_->complete(clean, cancel);
    if (!resp) {
      Error e = resp.error();
      redactor_->redact_in_place(e.message);
      return unexpected(std::move(e));
    }
    redactor_->redact_in_place(resp->message);
    for (auto& a : resp->attempts) redactor_->redact_in_place(a.error);
    return resp;
  }

 private:
  std::shared_ptr<LlmClient> inner_;
  std::shared_ptr<const Redactor> redactor_;
};

}  // namespace

std::shared_ptr<LlmClient> make_redacting_client(std::shared_ptr<LlmClient> inner,
                                                 std::shared_ptr<const Redactor> redactor) {
  if (!inner) return inner;
  return std::make_shared<RedactingClient>(std::move(inner), std::move(redactor));
}

}  // namespace flowagent
