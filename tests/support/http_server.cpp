#include "support/http_server.hpp"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <deque>
#include <stdexcept>

#include "support/test_support.hpp"

namespace flowagent::testkit {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

namespace {

/// Binds `acceptor` to an ephemeral loopback port and listens; returns the port.
unsigned short listen_on_loopback(tcp::acceptor& acceptor) {
  tcp::endpoint ep(net::ip::make_address("127.0.0.1"), 0);
  acceptor.open(ep.protocol());
  acceptor.set_option(tcp::acceptor::reuse_address(true));
  acceptor.bind(ep);
  acceptor.listen();
  return acceptor.local_endpoint().port();
}

/// Stops a blocking accept loop: closes the acceptor, wakes accept() with a throwaway connection,
/// joins the loop, shuts the open sockets down and joins their workers.
void stop_listener(std::atomic<bool>& stopping, tcp::acceptor& acceptor, unsigned short port, std::thread& loop,
                   std::mutex& mu, std::vector<std::shared_ptr<tcp::socket>>& sockets,
                   std::vector<std::thread>& workers) {
  stopping = true;
  beast::error_code ec;
  acceptor.close(ec);
  {
    net::io_context tmp;
    tcp::socket s(tmp);
    s.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port), ec);
  }
  loop.join();
  {
    std::lock_guard lock(mu);
    for (auto& s : sockets) s->shutdown(tcp::socket::shutdown_both, ec);
  }
  for (auto& t : workers) t.join();
}

}  // namespace

std::string Recorded::header(const std::string& name) const {
  for (const auto& [k, v] : headers)
    if (k == name) return v;
  return {};
}

struct TestHttpServer::Impl {
  TestHttpServer* owner;
  net::io_context ioc;
  tcp::acceptor acceptor{ioc};
  std::optional<ssl::context> tls;
  std::thread accept_thread;
  std::mutex mu;
  std::deque<Reply> queue;
  std::function<Reply(const Recorded&)> handler;
  std::vector<Recorded> seen;
  std::vector<std::thread> workers;
  std::vector<std::shared_ptr<tcp::socket>> sockets;
  std::atomic<bool> stopping{false};

  Reply next(const Recorded& r) {
    std::lock_guard lock(mu);
    seen.push_back(r);
    if (!queue.empty()) {
      Reply rep = std::move(queue.front());
      queue.pop_front();
      return rep;
    }
    if (handler) return handler(r);
    return Reply::json(R"({"error":{"message":"no scripted reply"}})", 500);
  }

  template <class Stream>
  void serve(Stream& stream, tcp::socket& raw) {
    beast::flat_buffer buf;
    for (;;) {
      http::request<http::string_body> req;
      beast::error_code ec;
      http::read(stream, buf, req, ec);
      if (ec) return;
      Recorded rec;
      rec.method = std::string(req.method_string());
      rec.target = std::string(req.target());
      rec.body = req.body();
      for (const auto& f : req) {
        std::string n(f.name_string());
        for (auto& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        rec.headers.emplace_back(n, std::string(f.value()));
      }
      Reply rep = next(rec);
      if (rep.fault == Reply::Fault::delay_headers || rep.delay.count() > 0) {
        // In steps, so that stopping the server does not wait out a long delay.
        const auto until = std::chrono::steady_clock::now() + rep.delay;
        while (!stopping && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      if (stopping) return;
      if (rep.fault == Reply::Fault::close_without_response) return;
      std::string head = "HTTP/1.1 " + std::to_string(rep.status) + " X\r\n";
      for (const auto& [k, v] : rep.headers) head += k + ": " + v + "\r\n";
      if (rep.fault == Reply::Fault::chunked) {
        head += "Transfer-Encoding: chunked\r\n\r\n";
        std::string body;
        for (std::size_t i = 0; i < rep.body.size(); i += 7) {
          auto part = rep.body.substr(i, 7);
          char len[16];
          std::snprintf(len, sizeof len, "%zx\r\n", part.size());
          body += len + part + "\r\n";
        }
        body += "0\r\n\r\n";
        net::write(stream, net::buffer(head + body), ec);
        continue;
      }
      head += "Content-Length: " + std::to_string(rep.body.size()) + "\r\n\r\n";
      if (rep.fault == Reply::Fault::reset_mid_body || rep.fault == Reply::Fault::truncate_and_close) {
        net::write(stream, net::buffer(head + rep.body.substr(0, rep.body.size() / 2)), ec);
        if (rep.fault == Reply::Fault::reset_mid_body) raw.set_option(net::socket_base::linger(true, 0), ec);
        raw.close(ec);
        return;
      }
      net::write(stream, net::buffer(head + rep.body), ec);
      if (ec) return;
    }
  }

  void accept_loop() {
    for (;;) {
      auto sock = std::make_shared<tcp::socket>(ioc);
      beast::error_code ec;
      acceptor.accept(*sock, ec);
      if (ec || stopping) return;
      owner->connections_++;
      std::lock_guard lock(mu);
      sockets.push_back(sock);
      workers.emplace_back([this, sock] {
        if (tls) {
          ssl::stream<tcp::socket&> s(*sock, *tls);
          beast::error_code hec;
          s.handshake(ssl::stream_base::server, hec);
          if (!hec) serve(s, *sock);
        } else {
          serve(*sock, *sock);
        }
        beast::error_code cec;
        sock->close(cec);
      });
    }
  }
};

TestHttpServer::TestHttpServer(std::optional<TlsFiles> tls) : impl_(std::make_unique<Impl>()) {
  impl_->owner = this;
  if (tls) {
    impl_->tls.emplace(ssl::context::tls_server);
    impl_->tls->use_certificate_chain_file(tls->cert);
    impl_->tls->use_private_key_file(tls->key, ssl::context::pem);
  }
  port_ = listen_on_loopback(impl_->acceptor);
  impl_->accept_thread = std::thread([this] { impl_->accept_loop(); });
}

TestHttpServer::~TestHttpServer() {
  stop_listener(impl_->stopping, impl_->acceptor, port_, impl_->accept_thread, impl_->mu, impl_->sockets,
                impl_->workers);
}

std::string TestHttpServer::url() const {
  return std::string(impl_->tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_);
}

void TestHttpServer::push(Reply r) {
  std::lock_guard lock(impl_->mu);
  impl_->queue.push_back(std::move(r));
}

void TestHttpServer::set_handler(std::function<Reply(const Recorded&)> fn) {
  std::lock_guard lock(impl_->mu);
  impl_->handler = std::move(fn);
}

std::vector<Recorded> TestHttpServer::requests() const {
  std::lock_guard lock(impl_->mu);
  return impl_->seen;
}

// ---- CONNECT proxy --------------------------------------------------------------------------------

struct TestConnectProxy::Impl {
  TestConnectProxy* owner;
  net::io_context ioc;
  tcp::acceptor acceptor{ioc};
  std::thread thread;
  std::vector<std::thread> workers;
  std::vector<std::shared_ptr<tcp::socket>> sockets;
  std::mutex mu;
  std::atomic<bool> stopping{false};

  void pipe(std::shared_ptr<tcp::socket> from, std::shared_ptr<tcp::socket> to) {
    char buf[16384];
    beast::error_code ec;
    for (;;) {
      auto n = from->read_some(net::buffer(buf), ec);
      if (ec) break;
      net::write(*to, net::buffer(buf, n), ec);
      if (ec) break;
    }
    to->shutdown(tcp::socket::shutdown_send, ec);
  }

  void loop() {
    for (;;) {
      auto client = std::make_shared<tcp::socket>(ioc);
      beast::error_code ec;
      acceptor.accept(*client, ec);
      if (ec || stopping) return;
      std::lock_guard lock(mu);
      sockets.push_back(client);
      workers.emplace_back([this, client] {
        beast::flat_buffer buf;
        http::request<http::empty_body> req;
        beast::error_code rec;
        http::read(*client, buf, req, rec);
        if (rec || req.method() != http::verb::connect) return;
        std::string target(req.target());
        auto colon = target.rfind(':');
        auto upstream = std::make_shared<tcp::socket>(ioc);
        tcp::resolver res(ioc);
        auto endpoints = res.resolve(target.substr(0, colon), target.substr(colon + 1), rec);
        if (rec) return;
        net::connect(*upstream, endpoints, rec);
        if (rec) return;
        owner->tunnels_++;
        net::write(*client, net::buffer(std::string("HTTP/1.1 200 Connection established\r\n\r\n")), rec);
        {
          std::lock_guard l2(mu);
          sockets.push_back(upstream);
        }
        std::thread back([this, upstream, client] { pipe(upstream, client); });
        pipe(client, upstream);
        back.join();
      });
    }
  }
};

TestConnectProxy::TestConnectProxy() : impl_(std::make_unique<Impl>()) {
  impl_->owner = this;
  port_ = listen_on_loopback(impl_->acceptor);
  impl_->thread = std::thread([this] { impl_->loop(); });
}

TestConnectProxy::~TestConnectProxy() {
  stop_listener(impl_->stopping, impl_->acceptor, port_, impl_->thread, impl_->mu, impl_->sockets, impl_->workers);
}

std::string TestConnectProxy::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

void make_test_pki(const std::string& dir) {
  std::string out;
  const std::string cmd =
      "cd '" + dir + "' && "
      "openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=flowagent-test-ca "
      "-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign && "
      "for n in good wrong; do "
      "  if [ $n = good ]; then san='DNS:localhost,IP:127.0.0.1'; else san='DNS:wrong.example'; fi; "
      "  openssl req -newkey rsa:2048 -nodes -keyout $n.key -out $n.csr -subj /CN=$n && "
      "  printf 'subjectAltName=%s\\nbasicConstraints=CA:FALSE\\nextendedKeyUsage=serverAuth\\n' \"$san\" > $n.ext && "
      "  openssl x509 -req -in $n.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out $n.pem -days 2 -extfile $n.ext "
      "  || exit 1; "
      "done";
  if (sh(cmd, &out) != 0) throw std::runtime_error("openssl failed: " + out);
}

}  // namespace flowagent::testkit
