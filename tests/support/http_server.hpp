// A scripted HTTP(S) server on loopback standing in for a model endpoint, with injected faults, and
// a CONNECT proxy. Each reply is taken from a queue (or computed by a handler) per request.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace flowagent::testkit {

struct Recorded {
  std::string method, target, body;
  std::vector<std::pair<std::string, std::string>> headers;  // lower-case names
  std::string header(const std::string& name) const;
};

struct Reply {
  enum class Fault { none, delay_headers, reset_mid_body, truncate_and_close, chunked, close_without_response };
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  Fault fault = Fault::none;
  std::chrono::milliseconds delay{0};

  static Reply json(std::string body, int status = 200) {
    Reply r;
    r.status = status;
    r.body = std::move(body);
    r.headers.emplace_back("Content-Type", "application/json");
    return r;
  }
};

struct TlsFiles {
  std::string cert, key;
};

class TestHttpServer {
 public:
  /// Plain HTTP when tls is empty; otherwise HTTPS with the given certificate chain and key.
  explicit TestHttpServer(std::optional<TlsFiles> tls = std::nullopt);
  ~TestHttpServer();
  std::string url() const;  ///< "http(s)://127.0.0.1:<port>"
  unsigned short port() const { return port_; }
  void push(Reply r);
  /// Computes replies when the queue is empty.
  void set_handler(std::function<Reply(const Recorded&)> fn);
  std::vector<Recorded> requests() const;
  int connections() const { return connections_; }

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  unsigned short port_ = 0;
  std::atomic<int> connections_{0};
  friend struct Impl;
};

/// A CONNECT-only proxy on loopback; counts tunnels.
class TestConnectProxy {
 public:
  TestConnectProxy();
  ~TestConnectProxy();
  std::string url() const;
  int tunnels() const { return tunnels_; }
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  unsigned short port_ = 0;
  std::atomic<int> tunnels_{0};
  friend struct Impl;
};

/// Makes a CA and server certificates with openssl in `dir`: ca.pem, good.pem/good.key (SAN
/// localhost, 127.0.0.1) and wrong.pem/wrong.key (SAN wrong.example only).
void make_test_pki(const std::string& dir);

}  // namespace flowagent::testkit
