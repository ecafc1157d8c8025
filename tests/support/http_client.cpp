// The loopback HTTP client of the service tests (http_client.hpp), over Boost.Beast.
#include "support/http_client.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <cctype>
#include <thread>

#include "flowagent/json.hpp"
#include "flowagent/request.hpp"

namespace flowagent::testkit {

HttpReply http_call(unsigned short port, const std::string& method, const std::string& target, const std::string& token,
                    const std::string& body, std::vector<std::pair<std::string, std::string>> extra) {
  namespace net = boost::asio;
  namespace http = boost::beast::http;
  net::io_context ioc;
  boost::beast::tcp_stream s(ioc);
  s.expires_after(std::chrono::seconds(30));
  HttpReply r;
  boost::beast::error_code ec;
  s.connect(net::ip::tcp::endpoint(net::ip::make_address("127.0.0.1"), port), ec);
  if (ec) return r;  // status 0: nobody listens
  http::request<http::string_body> req{http::string_to_verb(method), target, 11};
  req.set(http::field::host, "127.0.0.1");
  if (!token.empty()) req.set(http::field::authorization, "Bearer " + token);
  for (auto& [k, v] : extra) req.set(k, v);
  if (!body.empty() || method == "POST") {
    req.body() = body;
    req.set(http::field::content_type, "application/json");
    req.prepare_payload();
  }
  http::write(s, req, ec);
  boost::beast::flat_buffer buf;
  http::response_parser<http::string_body> p;
  p.body_limit(64 << 20);
  http::read(s, buf, p, ec);
  if (ec) return r;
  r.status = p.get().result_int();
  for (auto& f : p.get()) {
    std::string k(f.name_string());
    for (auto& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    r.headers[k] = std::string(f.value());
  }
  r.body = p.get().body();
  return r;
}

std::string raw_exchange(unsigned short port, const std::string& bytes, std::chrono::milliseconds timeout, bool* closed,
                         std::size_t stop_after_bytes, const std::string& stop_marker) {
  namespace net = boost::asio;
  net::io_context ioc;
  net::ip::tcp::socket sock(ioc);
  sock.connect(net::ip::tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  net::write(sock, net::buffer(bytes));
  std::string out;
  bool eof = false;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  sock.non_blocking(true);
  char buf[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    boost::system::error_code ec;
    std::size_t n = sock.read_some(net::buffer(buf), ec);
    if (ec == net::error::would_block) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    if (ec) {
      eof = true;
      break;
    }
    out.append(buf, n);
    if (stop_after_bytes && out.size() >= stop_after_bytes) break;
    if (!stop_marker.empty() && out.find(stop_marker) != std::string::npos) break;
  }
  if (closed) *closed = eof;
  return out;
}

std::string minimal_repair_body(const std::string& change) {
  RepairRequest r;
  r.repository = "repo";
  r.change.id = change;
  r.change.revision = 1;
  r.change.base_commit = "base";
  r.change.head_commit = "head";
  r.failure.failing_tests = {"T.t"};
  r.commands.test = "true {tests}";
  return dump_json_lossy(to_json(r));
}

}  // namespace flowagent::testkit
