// HttpTransport over Boost.Beast and OpenSSL. One I/O thread runs every connection; each send() is
// a coroutine on it, cancellable through a cancellation slot from any thread.
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <absl/strings/ascii.h>
#include <absl/strings/match.h>
#include <absl/strings/str_split.h>

#include <algorithm>
#include <cctype>
#include <future>
#include <map>
#include <thread>
#include <variant>

#include "flowagent/model_client.hpp"
#include "flowagent/version.hpp"

namespace flowagent {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

std::optional<std::string> HttpResponse::header(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (k == name) return v;
  return std::nullopt;
}

namespace {

struct Url {
  bool tls = false;
  std::string host, port, target;
};

Expected<Url> parse_url(std::string_view url) {
  Url u;
  std::string_view rest;
  if (url.substr(0, 8) == "https://") {
    u.tls = true;
    rest = url.substr(8);
  } else if (url.substr(0, 7) == "http://") {
    rest = url.substr(7);
  } else {
    return fail(Errc::invalid_argument, "URL must start with http:// or https://: " + std::string(url));
  }
  auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  u.target = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  if (authority.find('@') != std::string_view::npos) return fail(Errc::invalid_argument, "credentials in URLs are not supported");
  if (!authority.empty() && authority.front() == '[') {  // [v6]:port
    auto close = authority.find(']');
    if (close == std::string_view::npos) return fail(Errc::invalid_argument, "bad IPv6 address in URL");
    u.host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size() && authority[close + 1] == ':') u.port = std::string(authority.substr(close + 2));
  } else {
    auto colon = authority.rfind(':');
    u.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) u.port = std::string(authority.substr(colon + 1));
  }
  if (u.host.empty()) return fail(Errc::invalid_argument, "URL has no host: " + std::string(url));
  if (u.port.empty()) u.port = u.tls ? "443" : "80";
  return u;
}

bool is_ip(const std::string& host) {
  boost::system::error_code ec;
  net::ip::make_address(host, ec);
  return !ec;
}

std::string env(const char* a, const char* b) {
  if (const char* v = std::getenv(a); v && *v) return v;
  if (const char* v = std::getenv(b); v && *v) return v;
  return {};
}

bool no_proxy_for(const std::string& host) {
  const std::string h = absl::AsciiStrToLower(host);
  for (absl::string_view raw : absl::StrSplit(env("NO_PROXY", "no_proxy"), ',', absl::SkipWhitespace())) {
    const absl::string_view stripped = absl::StripAsciiWhitespace(raw);
    std::string item = absl::AsciiStrToLower(stripped);
    if (item == "*") return true;
    if (!item.empty() && item.front() == '.') item.erase(0, 1);
    if (item.empty()) continue;
    if (h == item || absl::EndsWith(h, "." + item)) return true;
  }
  return false;
}

using PlainStream = beast::tcp_stream;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

struct Conn {
  std::unique_ptr<PlainStream> plain;
  std::unique_ptr<TlsStream> tls;
  bool absolute_form = false;  ///< plain HTTP through a proxy: absolute request targets
  beast::tcp_stream& tcp() { return tls ? beast::get_lowest_layer(*tls) : *plain; }
};

Error io_error(const boost::system::error_code& ec, std::string_view phase) {
  if (ec == beast::error::timeout) return Error{Errc::timeout, std::string(phase) + " timed out"};
  if (ec == net::error::operation_aborted) return Error{Errc::cancelled, std::string(phase) + " cancelled"};
  if (ec == http::error::body_limit) return Error{Errc::protocol, "response body exceeds the size limit"};
  if (ec.category() == net::error::get_ssl_category() || ec.category() == net::ssl::error::get_stream_category()) {
    std::string msg = ec.message();
    if (auto reason = ERR_reason_error_string(static_cast<unsigned long>(ec.value()))) msg = reason;
    return Error{Errc::io, std::string(phase) + ": TLS error: " + msg};
  }
  return Error{Errc::io, std::string(phase) + ": " + ec.message()};
}

class BeastTransport final : public HttpTransport {
 public:
  explicit BeastTransport(HttpOptions o) : opt_(std::move(o)), work_(net::make_work_guard(ioc_)) {}

  Expected<void> init() {
    boost::system::error_code ec;
    ssl_.set_verify_mode(ssl::verify_peer, ec);
    if (opt_.use_system_ca) ssl_.set_default_verify_paths(ec);
    if (ec) return fail(Errc::io, "cannot load the system CA store: " + ec.message());
    if (!opt_.extra_ca_file.empty()) {
      ssl_.load_verify_file(opt_.extra_ca_file, ec);
      if (ec) return fail(Errc::io, "cannot load CA file " + opt_.extra_ca_file + ": " + ec.message());
    }
    ssl_.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                     ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    thread_ = std::thread([this] { ioc_.run(); });
    return {};
  }

  ~BeastTransport() override {
    net::post(ioc_, [this] { idle_.clear(); });
    work_.reset();
    ioc_.stop();
    if (thread_.joinable()) thread_.join();
  }

  Expected<HttpResponse> send(const HttpRequest& req, const CancelToken& cancel) override {
    auto url = parse_url(req.url);
    if (!url) return unexpected(url.error());
    if (cancel.cancelled()) return fail(Errc::cancelled, "cancelled before sending");
    auto promise = std::make_shared<std::promise<Expected<HttpResponse>>>();
    auto future = promise->get_future();
    auto signal = std::make_shared<net::cancellation_signal>();
    net::co_spawn(ioc_, run(req, *url),
                  net::bind_cancellation_slot(signal->slot(), [promise](std::exception_ptr e, Expected<HttpResponse> r) {
                    if (e) {
                      try {
                        std::rethrow_exception(e);
                      } catch (const std::exception& ex) {
                        promise->set_value(fail(Errc::internal, std::string("HTTP client: ") + ex.what()));
                      } catch (...) {
                        promise->set_value(fail(Errc::internal, "HTTP client failed"));
                      }
                      return;
                    }
                    promise->set_value(std::move(r));
                  }));
    auto reg = cancel.on_cancel([this, signal] {
      net::post(ioc_, [signal] { signal->emit(net::cancellation_type::terminal); });
    });
    return future.get();
  }

 private:
  using Deadline = Clock::time_point;

  static std::chrono::milliseconds left(Deadline d, std::chrono::milliseconds phase) {
    auto rem = std::chrono::duration_cast<std::chrono::milliseconds>(d - Clock::now());
    if (rem < std::chrono::milliseconds(1)) rem = std::chrono::milliseconds(1);
    return std::min(rem, phase);
  }

  net::awaitable<Expected<HttpResponse>> run(HttpRequest req, Url url) {
    const Deadline deadline = Clock::now() + opt_.total_timeout;
    const std::string key = (url.tls ? "https://" : "http://") + url.host + ":" + url.port;
    // A pooled connection may have been closed by the server: one retry on a fresh connection when
    // it fails before any response byte.
    for (int round = 0; round < 2; ++round) {
      Conn conn;
      bool reused = false;
      if (auto it = idle_.find(key); it != idle_.end() && !it->second.empty()) {
        conn = std::move(it->second.back());
        it->second.pop_back();
        reused = true;
      } else {
        auto fresh = co_await connect(url, deadline);
        if (!fresh) co_return unexpected(fresh.error());
        conn = std::move(*fresh);
      }
      bool got_bytes = false, keep_alive = false;
      // (No co_await inside ?: : GCC 12 miscompiles it.)
      Expected<HttpResponse> r = fail(Errc::internal, "no exchange");
      if (conn.tls) r = co_await exchange(*conn.tls, conn, req, url, deadline, got_bytes, keep_alive);
      else r = co_await exchange(*conn.plain, conn, req, url, deadline, got_bytes, keep_alive);
      if (!r && reused && !got_bytes && r.error().code == Errc::io) continue;
      if (r && keep_alive) {
        auto& v = idle_[key];
        if (v.size() < opt_.max_idle_per_host) v.push_back(std::move(conn));
      }
      co_return r;
    }
    co_return fail(Errc::io, "connection closed by the server");
  }

  net::awaitable<Expected<Conn>> connect(const Url& url, Deadline deadline) {
    auto ex = co_await net::this_coro::executor;
    std::string proxy = opt_.use_env_proxy && !no_proxy_for(url.host)
                            ? (url.tls ? env("HTTPS_PROXY", "https_proxy") : env("HTTP_PROXY", "http_proxy"))
                            : std::string();
    Url via = url;
    if (!proxy.empty()) {
      if (proxy.find("://") == std::string::npos) proxy = "http://" + proxy;
      auto p = parse_url(proxy);
      if (!p) co_return unexpected(p.error());
      if (p->tls) co_return fail(Errc::unsupported, "HTTPS proxies are not supported; use an http:// proxy URL");
      via = *p;
    }
    Conn conn;
    conn.plain = std::make_unique<PlainStream>(ex);
    auto [ec, results] = co_await tcp::resolver(ex).async_resolve(via.host, via.port, net::as_tuple(net::use_awaitable));
    if (ec) co_return unexpected(io_error(ec, "resolving " + via.host));
    conn.plain->expires_after(left(deadline, opt_.connect_timeout));
    auto [cec, ep] = co_await conn.plain->async_connect(results, net::as_tuple(net::use_awaitable));
    if (cec) co_return unexpected(io_error(cec, "connecting to " + via.host + ":" + via.port));
    (void)ep;
    conn.absolute_form = !proxy.empty() && !url.tls;
    if (!proxy.empty() && url.tls) {
      // CONNECT host:port through the proxy, then TLS inside the tunnel.
      http::request<http::empty_body> creq{http::verb::connect, url.host + ":" + url.port, 11};
      creq.set(http::field::host, url.host + ":" + url.port);
      conn.plain->expires_after(left(deadline, opt_.connect_timeout));
      auto [wec, wn] = co_await http::async_write(*conn.plain, creq, net::as_tuple(net::use_awaitable));
      if (wec) co_return unexpected(io_error(wec, "proxy CONNECT"));
      beast::flat_buffer buf;
      http::response_parser<http::empty_body> parser;
      parser.skip(true);
      auto [rec, rn] = co_await http::async_read_header(*conn.plain, buf, parser, net::as_tuple(net::use_awaitable));
      if (rec) co_return unexpected(io_error(rec, "proxy CONNECT"));
      if (parser.get().result_int() != 200)
        co_return fail(Errc::io, "proxy refused CONNECT: HTTP " + std::to_string(parser.get().result_int()));
      (void)wn;
      (void)rn;
    }
    if (url.tls) {
      conn.tls = std::make_unique<TlsStream>(std::move(*conn.plain), ssl_);
      conn.plain.reset();
      if (!is_ip(url.host) && !SSL_set_tlsext_host_name(conn.tls->native_handle(), url.host.c_str()))
        co_return fail(Errc::io, "cannot set SNI for " + url.host);
      conn.tls->set_verify_callback(ssl::host_name_verification(url.host));
      beast::get_lowest_layer(*conn.tls).expires_after(left(deadline, opt_.tls_timeout));
      auto [hec] = co_await conn.tls->async_handshake(ssl::stream_base::client, net::as_tuple(net::use_awaitable));
      if (hec) co_return unexpected(io_error(hec, "TLS handshake with " + url.host));
    }
    co_return conn;
  }

  template <class Stream>
  net::awaitable<Expected<HttpResponse>> exchange(Stream& stream, Conn& conn, const HttpRequest& req, const Url& url,
                                                  Deadline deadline, bool& got_bytes, bool& keep_alive) {
    auto verb = http::string_to_verb(req.method);
    if (verb == http::verb::unknown) co_return fail(Errc::invalid_argument, "unknown HTTP method " + req.method);
    const std::string target = conn.absolute_form ? "http://" + url.host + ":" + url.port + url.target : url.target;
    http::request<http::string_body> hreq{verb, target, 11};
    hreq.set(http::field::host, url.host);
    hreq.set(http::field::user_agent, std::string("flowagent/") + std::string(kVersionString));
    hreq.set(http::field::accept, "application/json");
    for (const auto& [k, v] : req.headers) hreq.set(k, v);
    hreq.keep_alive(true);
    hreq.body() = req.body;
    hreq.prepare_payload();
    conn.tcp().expires_after(left(deadline, opt_.first_byte_timeout));
    auto [wec, wn] = co_await http::async_write(stream, hreq, net::as_tuple(net::use_awaitable));
    (void)wn;
    if (wec) co_return unexpected(io_error(wec, "sending the request"));
    beast::flat_buffer buf;
    http::response_parser<http::string_body> parser;
    parser.body_limit(opt_.max_response_bytes);
    parser.header_limit(64 * 1024);
    auto [hec, hn] = co_await http::async_read_header(stream, buf, parser, net::as_tuple(net::use_awaitable));
    (void)hn;
    if (hec) {
      got_bytes = buf.size() > 0;
      co_return unexpected(io_error(hec, hec == beast::error::timeout ? "waiting for the first byte" : "reading the response"));
    }
    got_bytes = true;
    if (auto len = parser.content_length(); len && *len > opt_.max_response_bytes)
      co_return fail(Errc::protocol, "response body of " + std::to_string(*len) + " bytes exceeds the limit of " +
                                         std::to_string(opt_.max_response_bytes));
    conn.tcp().expires_after(left(deadline, opt_.total_timeout));
    auto [bec, bn] = co_await http::async_read(stream, buf, parser, net::as_tuple(net::use_awaitable));
    (void)bn;
    if (bec) co_return unexpected(io_error(bec, "reading the response body"));
    auto& res = parser.get();
    HttpResponse out;
    out.status = res.result_int();
    for (const auto& f : res) {
      const auto name = f.name_string();
      out.headers.emplace_back(absl::AsciiStrToLower(absl::string_view(name.data(), name.size())), std::string(f.value()));
    }
    out.body = std::move(res.body());
    keep_alive = res.keep_alive();
    conn.tcp().expires_never();
    co_return out;
  }

  HttpOptions opt_;
  net::io_context ioc_;
  net::executor_work_guard<net::io_context::executor_type> work_;
  ssl::context ssl_{ssl::context::tls_client};
  std::thread thread_;
  std::map<std::string, std::vector<Conn>> idle_;  // I/O thread only
};

}  // namespace

Expected<std::shared_ptr<HttpTransport>> make_beast_transport(HttpOptions options) {
  auto t = std::make_shared<BeastTransport>(std::move(options));
  if (auto r = t->init(); !r) return unexpected(r.error());
  return std::shared_ptr<HttpTransport>(std::move(t));
}

}  // namespace flowagent
