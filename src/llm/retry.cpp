// Retry decisions (after the official SDKs) and the token/cost budget.
#include <cmath>
#include <ctime>
#include <random>

#include "flowagent/model_client.hpp"

namespace flowagent {

namespace {

/// Parses an HTTP-date ("Wed, 21 Oct 2015 07:28:00 GMT"); nullopt when it is not one.
std::optional<std::chrono::system_clock::time_point> parse_http_date(const std::string& s) {
  std::tm tm{};
  const char* end = ::strptime(s.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (!end || *end != '\0') return std::nullopt;
  return std::chrono::system_clock::from_time_t(::timegm(&tm));
}

std::optional<double> parse_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

bool quota_exhausted(const HttpResponse& r) {
  // OpenAI: 429 {"error":{"code":"insufficient_quota"}}; Anthropic/Gemini billing errors.
  for (std::string_view marker : {"insufficient_quota", "billing_error", "spend limit", "credit balance"})
    if (r.body.find(marker) != std::string::npos) return true;
  return false;
}

}  // namespace

RetryDecision decide_retry(const RetryPolicy& policy, int attempt, const Expected<HttpResponse>& outcome,
                           std::chrono::system_clock::time_point now) {
  RetryDecision d;
  if (attempt >= policy.max_attempts) {
    d.reason = "no attempts left";
    return d;
  }
  std::optional<std::chrono::milliseconds> hinted;
  if (!outcome) {
    const auto code = outcome.error().code;
    if (code == Errc::cancelled || code == Errc::invalid_argument || code == Errc::unsupported) {
      d.reason = "not retryable: " + outcome.error().message;
      return d;
    }
    if (code == Errc::protocol && outcome.error().message.find("exceeds") != std::string::npos) {
      d.reason = "response too large";
      return d;
    }
    d.retry = true;
    d.reason = "connection error: " + outcome.error().message;
  } else {
    const HttpResponse& r = *outcome;
    if (r.status >= 200 && r.status < 300) {
      d.reason = "success";
      return d;
    }
    if (r.status == 429 && quota_exhausted(r)) {
      d.reason = "quota exhausted";
      return d;
    }
    if (auto x = r.header("x-should-retry")) {
      d.retry = *x == "true";
      d.reason = "x-should-retry: " + *x;
    } else {
      d.retry = r.status == 408 || r.status == 409 || r.status == 429 || r.status >= 500;
      d.reason = "HTTP " + std::to_string(r.status);
    }
    if (!d.retry) return d;
    if (auto ms = r.header("retry-after-ms"); ms && parse_number(*ms))
      hinted = std::chrono::milliseconds(static_cast<std::int64_t>(*parse_number(*ms)));
    else if (auto ra = r.header("retry-after")) {
      if (auto secs = parse_number(*ra)) hinted = std::chrono::milliseconds(static_cast<std::int64_t>(*secs * 1000));
      else if (auto when = parse_http_date(*ra))
        hinted = std::chrono::duration_cast<std::chrono::milliseconds>(*when - now);
    }
  }
  if (hinted && hinted->count() > 0 && *hinted <= policy.max_retry_after) {
    d.wait = *hinted;
    return d;
  }
  // Exponential backoff with jitter: initial * 2^(attempt-1), capped, times [1 - jitter, 1].
  double base = static_cast<double>(policy.initial_backoff.count()) * std::pow(2.0, attempt - 1);
  base = std::min(base, static_cast<double>(policy.max_backoff.count()));
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_real_distribution<double> dist(1.0 - policy.jitter, 1.0);
  d.wait = std::chrono::milliseconds(static_cast<std::int64_t>(base * dist(rng)));
  return d;
}

Expected<void> Budget::check() const {
  std::lock_guard lock(mu_);
  if (max_tokens_ > 0 && tokens_ >= max_tokens_)
    return fail(Errc::budget_exceeded, "token budget spent: " + std::to_string(tokens_) + " of " +
                                           std::to_string(max_tokens_) + " tokens");
  if (max_cost_ > 0 && cost_ >= max_cost_) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "cost budget spent: $%.4f of $%.4f", cost_, max_cost_);
    return fail(Errc::budget_exceeded, buf);
  }
  return {};
}

void Budget::add(const Usage& u, double cost) {
  std::lock_guard lock(mu_);
  tokens_ += u.input_tokens + u.output_tokens;
  cost_ += cost;
}

std::int64_t Budget::tokens() const {
  std::lock_guard lock(mu_);
  return tokens_;
}

double Budget::cost() const {
  std::lock_guard lock(mu_);
  return cost_;
}

}  // namespace flowagent
